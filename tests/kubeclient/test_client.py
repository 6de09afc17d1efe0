"""The project's Kubernetes client and the harness's side of it: paths from the table of kinds,
Status errors, an informer that survives ended and dropped watches, and the bytes each side sends
(its user agent, strict writes, patch bodies, watch queries)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver import CloseConnection, EndWatch, FaultRule, Match
from harness._backends.backend import FakeBackend
from harness._backends.scenario_client import (
    PATCH_TYPES,
    ApiError,
    ScenarioClient,
    ScenarioInformer,
    resolve_kind,
    resource_path,
    server_from_kubeconfig,
)
from harness._time.virtual_time import run
from kubeclient import KubeClient


def test_resolve_kind_by_any_name() -> None:
    assert [resolve_kind(k).resource for k in ("pods", "Pod", "pod", "po")] == ["pods"] * 4
    assert resolve_kind("resourceclaims.resource.k8s.io").group == "resource.k8s.io"
    assert resolve_kind("ResourceClaim").group == "resource.k8s.io"
    assert resolve_kind("events").group == ""
    assert resolve_kind("events.events.k8s.io").group == "events.k8s.io"
    with pytest.raises(ValueError, match=r"^unknown kind 'widgets': use a served resource or kind name \(apiservices, bindings, "):
        resolve_kind("widgets")


def test_resource_paths() -> None:
    pods, nodes, claims = resolve_kind("pods"), resolve_kind("nodes"), resolve_kind("resourceclaims")
    assert resource_path(pods, "default") == "/api/v1/namespaces/default/pods"
    assert resource_path(pods, "default", "p", "status") == "/api/v1/namespaces/default/pods/p/status"
    assert resource_path(nodes, "default", "n1") == "/api/v1/nodes/n1"
    assert resource_path(claims, "ns", "c") == "/apis/resource.k8s.io/v1/namespaces/ns/resourceclaims/c"
    with pytest.raises(ValueError, match=r"^pods are namespaced: a namespace is needed$"):
        resource_path(pods, None)


def test_server_from_kubeconfig(tmp_path: Path) -> None:
    path = tmp_path / "kc"
    path.write_text("current-context: b\ncontexts:\n- {name: a, context: {cluster: x}}\n- {name: b, context: {cluster: y}}\n"
                    "clusters:\n- {name: x, cluster: {server: 'http://x'}}\n- {name: y, cluster: {server: 'http://y'}}\n")
    assert server_from_kubeconfig(path) == "http://y"
    path.write_text("current-context: z\n")
    with pytest.raises(ValueError, match=r"^.*kc: no server URL for the current context 'z'$"):
        server_from_kubeconfig(path)


def test_api_error_carries_the_status(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            client = ScenarioClient(backend.url)
            try:
                with pytest.raises(ApiError) as info:
                    await client.request("GET", "/api/v1/namespaces/default/pods/nope")
                assert (info.value.code, info.value.reason, info.value.message) == (
                    404, "NotFound", 'pods "nope" not found')
                assert str(info.value) == 'GET /api/v1/namespaces/default/pods/nope: 404 NotFound: pods "nope" not found'
                assert info.value.status["kind"] == "Status"
            finally:
                await client.close()
            with pytest.raises(ApiError, match=r"^GET /api/v1/nodes: 0: connection failed \(ClientConnectorError"):
                await ScenarioClient("http://127.0.0.1:1").request("GET", "/api/v1/nodes")

    run(main())


def test_informer_rewatches_after_an_ended_watch_and_survives_a_dropped_one(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            backend.faults.add(FaultRule(Match(verb="watch", resource="nodes"), EndWatch(after=5), name="end", times=1))
            backend.faults.add(FaultRule(Match(verb="watch", resource="nodes"), CloseConnection(), name="drop",
                                         start=4, times=1))
            client = ScenarioClient(backend.url)
            informer = ScenarioInformer(client, "/api/v1/nodes")
            seen: list[tuple[str, str]] = []
            informer.listeners.append(lambda event, obj: seen.append((event, obj.get("metadata", {}).get("name", ""))))
            await informer.start()
            for i, wait in enumerate((1, 10, 15)):  # before the end, after the drop, later
                await client.request("POST", "/api/v1/nodes", body={"apiVersion": "v1", "kind": "Node",
                                                                     "metadata": {"name": f"n{i}"}})
                await asyncio.sleep(wait)
            await informer.stop()
            await client.close()
            assert sorted(informer.objects) == ["n0", "n1", "n2"]
            assert seen == [("SYNC", ""), ("ADDED", "n0"), ("ADDED", "n1"), ("ADDED", "n2")]
            assert informer.errors == []  # aiohttp retries a GET whose reused connection was dropped
            watches = [e.time for e in backend.journal.requests("watch", "nodes") if e.code == 200]
            assert watches[0] == 0.0 and watches[-1] == 5.0  # re-watched when the first one ended
            backend.faults.check()

    run(main())


def test_informer_applies_events_and_asks_to_relist_on_expired() -> None:
    informer = ScenarioInformer(ScenarioClient("http://127.0.0.1:1"), "/api/v1/nodes")
    seen: list[str] = []
    informer.listeners.append(lambda event, obj: seen.append(event))
    node = {"metadata": {"name": "n1", "resourceVersion": "5"}}
    assert informer._apply("ADDED", node) is False
    assert informer._apply("BOOKMARK", {"metadata": {"resourceVersion": "9"}}) is False
    assert (informer.objects, informer.rv) == ({"n1": node}, "9")
    assert informer._apply("DELETED", {"metadata": {"name": "n1", "resourceVersion": "10"}}) is False
    assert (informer.objects, informer.rv, seen) == ({}, "10", ["ADDED", "DELETED"])
    assert informer._apply("ERROR", {"kind": "Status", "code": 410, "reason": "Expired"}) is True
    assert informer._apply("ERROR", {"kind": "Status", "code": 500}) is False


class _Recorder:
    """A server that records the raw bytes of each request and answers ``{}`` (a watch: one event)."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                self.raw.append(head + await reader.readexactly(length))
                body = b'{"type":"ADDED","object":{}}\n' if b"watch=" in head.split(b"\r\n")[0] else b"{}"
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                             % (len(body), body))
                await writer.drain()
        except asyncio.IncompleteReadError:
            writer.close()


def _requests(calls: Any) -> list[str]:
    """The raw requests ``calls(url)`` sends, as text with the port and aiohttp's version taken out."""
    async def main() -> list[bytes]:
        recorder = _Recorder()
        server = await asyncio.start_server(recorder.serve, "127.0.0.1", 0)
        try:
            await calls(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}")
        finally:
            server.close()
        return recorder.raw

    texts = [raw.decode() for raw in asyncio.run(main())]
    texts = [re.sub(r"Python/[\d.]+ aiohttp/[\d.]+", "Python/V aiohttp/V", t) for t in texts]
    return [re.sub(r"127\.0\.0\.1:\d+", "HOST", t) for t in texts]


def test_the_scenario_client_sends_its_own_agent_strict_writes_and_bodies_as_given() -> None:
    async def calls(url: str) -> None:
        client = ScenarioClient(url)
        await client.request("PATCH", "/api/v1/namespaces/ns/pods/p", body={"z": 1, "a": "ü"},
                             content_type=PATCH_TYPES["merge"], params={"fieldManager": "x y"})
        await client.request("GET", "/api/v1/pods",
                             params={"fieldSelector": "metadata.name=p", "labelSelector": "a in (b,c)"})
        await client.close()

    assert _requests(calls) == [
        "PATCH /api/v1/namespaces/ns/pods/p?fieldManager=x+y&fieldValidation=Strict HTTP/1.1\r\nHost: HOST\r\n"
        "Accept: application/json\r\nUser-Agent: schedharness/scenario\r\nContent-Type: application/merge-patch+json\r\n"
        'Accept-Encoding: gzip, deflate\r\nContent-Length: 20\r\n\r\n{"z":1,"a":"\\u00fc"}',
        "GET /api/v1/pods?fieldSelector=metadata.name%3Dp&labelSelector=a+in+(b,c) HTTP/1.1\r\nHost: HOST\r\n"
        "Accept: application/json\r\nUser-Agent: schedharness/scenario\r\nAccept-Encoding: gzip, deflate\r\n\r\n",
    ]


def test_kubeclient_sends_patches_sorted_and_watches_with_its_parameters_or_a_whole_query() -> None:
    seen: list[tuple[str, str]] = []

    async def calls(url: str) -> None:
        async with KubeClient({"clusters": [{"name": "c", "cluster": {"server": url}}],
                               "users": [{"name": "u", "user": {"token": "t"}}],
                               "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}]}) as client:
            client.on_request = lambda method, path: seen.append(("request", f"{method} {path}"))
            client.on_done = lambda method, path, token: seen.append(("done", f"{method} {path}"))
            await client.patch("/api/v1/namespaces/ns/pods/p/status", {"status": {"z": 1, "a": 2}})
            assert [e async for e in client.watch("/api/v1/pods", {"fieldSelector": "status.phase!=Failed"})] == [
                {"type": "ADDED", "object": {}}]
        async with KubeClient(url, user_agent="me/1") as plain:
            assert [e async for e in plain.watch("/api/v1/nodes?watch=1&resourceVersion=5", None)] == [
                {"type": "ADDED", "object": {}}]

    assert _requests(calls) == [
        "PATCH /api/v1/namespaces/ns/pods/p/status HTTP/1.1\r\nHost: HOST\r\nAccept: application/json\r\n"
        "Authorization: Bearer t\r\nContent-Type: application/strategic-merge-patch+json\r\n"
        "Accept-Encoding: gzip, deflate\r\nUser-Agent: Python/V aiohttp/V\r\nContent-Length: 24\r\n\r\n"
        '{"status":{"a":2,"z":1}}',
        "GET /api/v1/pods?fieldSelector=status.phase!%3DFailed&watch=true HTTP/1.1\r\nHost: HOST\r\n"
        "Accept: application/json\r\nAuthorization: Bearer t\r\nAccept-Encoding: gzip, deflate\r\n"
        "User-Agent: Python/V aiohttp/V\r\n\r\n",
        "GET /api/v1/nodes?watch=1&resourceVersion=5 HTTP/1.1\r\nHost: HOST\r\nAccept: application/json\r\n"
        "User-Agent: me/1\r\nAccept-Encoding: gzip, deflate\r\n\r\n",
    ]
    patch = "PATCH /api/v1/namespaces/ns/pods/p/status"
    assert seen == [("request", patch), ("done", patch), ("request", "GET /api/v1/pods"), ("done", "GET /api/v1/pods")]
