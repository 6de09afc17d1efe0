"""The harness's JSON client and informer: paths from the table of kinds, Status errors, and an
informer that survives ended and dropped watches."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from fake_apiserver import CloseConnection, EndWatch, FaultRule, Match
from harness._backends.backend import FakeBackend
from harness._backends.kubeclient import ApiError, Informer, KubeClient, resolve_kind, resource_path, server_from_kubeconfig
from harness._time.virtual_time import run


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
            client = KubeClient(backend.url)
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
                await KubeClient("http://127.0.0.1:1").request("GET", "/api/v1/nodes")

    run(main())


def test_informer_rewatches_after_an_ended_watch_and_survives_a_dropped_one(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            backend.faults.add(FaultRule(Match(verb="watch", resource="nodes"), EndWatch(after=5), name="end", times=1))
            backend.faults.add(FaultRule(Match(verb="watch", resource="nodes"), CloseConnection(), name="drop",
                                         start=4, times=1))
            client = KubeClient(backend.url)
            informer = Informer(client, "/api/v1/nodes")
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
    informer = Informer(KubeClient("http://127.0.0.1:1"), "/api/v1/nodes")
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
