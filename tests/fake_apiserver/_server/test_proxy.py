"""The fault proxy in front of real upstreams: a FakeApiServer, a header-echoing aiohttp server
and a TLS server that requires a client certificate, all on real sockets, no mocks.

The official Python client talks to the proxy through the kubeconfig the proxy writes; the
fake and the proxy share one real-time loop in a background thread (``make_threaded_server`` in
conftest). Nothing measures elapsed time: tests wait for states (a rule fired, a journal entry, a
watch event) and where a delay matters they assert the order it caused.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, TypeVar

import aiohttp
import pytest
import urllib3
from aiohttp import web
from kubernetes import client, config, watch
from kubernetes.client import ApiClient, ApiException

from fake_apiserver import (
    DEFAULT_NAMESPACES,
    CloseConnection,
    Delay,
    EndWatch,
    FakeApiServer,
    FaultProxy,
    FaultRule,
    JournalEntry,
    Match,
    Respond,
    Upstream,
    WatchLag,
    body_contains,
    by_resource,
    kubeconfig_for,
    upstream_from_kubeconfig,
)
from fake_apiserver._storage.effects import sets_condition
from tests.support.threaded_server import ThreadedServer

T = TypeVar("T")
SAFETY_TIMEOUT = 30.0  # seconds; only reached when something hangs
CLAIMS = "resourceclaims.resource.k8s.io"


def _pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}


def _wait(what: str, predicate: Callable[[], T]) -> T:
    deadline = time.monotonic() + SAFETY_TIMEOUT
    while not (got := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {SAFETY_TIMEOUT}s")
        time.sleep(0.02)
    return got


def _same(entries: list[JournalEntry]) -> list[JournalEntry]:
    """Entries without what differs between two servers' journals of the same traffic."""
    return [replace(e, seq=0, time=0.0, watch=0) for e in entries]


@dataclass
class Proxied:
    """A fake and a proxy in front of it, on the fake's loop thread, and a client of the proxy."""

    fake: ThreadedServer
    proxy: FaultProxy
    api: ApiClient

    def call(self, fn: Callable[[], T]) -> T:
        return self.fake.call(fn)

    def proxy_journal(self) -> list[JournalEntry]:
        return self.call(lambda: list(self.proxy.journal.entries))

    def fake_journal(self) -> list[JournalEntry]:
        return self.call(lambda: list(self.fake.server.journal.entries))


@pytest.fixture
def proxied(make_threaded_server: Callable[..., ThreadedServer], tmp_path: Path) -> Iterator[Proxied]:
    fake = make_threaded_server()
    proxy = FaultProxy(fake.kubeconfig)
    asyncio.run_coroutine_threadsafe(proxy.start(), fake.loop).result(SAFETY_TIMEOUT)
    api = config.new_client_from_config(config_file=str(proxy.write_kubeconfig(tmp_path / "proxy.kubeconfig")))
    try:
        yield Proxied(fake, proxy, api)
    finally:
        api.close()
        asyncio.run_coroutine_threadsafe(proxy.stop(), fake.loop).result(SAFETY_TIMEOUT)


# --- the official client through the proxy ------------------------------------------------------


def test_reads_and_writes_pass_through_and_both_journals_agree(proxied: Proxied) -> None:
    v1 = client.CoreV1Api(proxied.api)
    assert [n.metadata.name for n in v1.list_namespace().items] == sorted(DEFAULT_NAMESPACES)
    created = v1.create_namespaced_pod("default", _pod("p"))
    assert v1.read_namespaced_pod("p", "default").metadata.uid == created.metadata.uid
    patched = v1.patch_namespaced_pod("p", "default", {"metadata": {"labels": {"a": "b"}}})
    assert (patched.metadata.labels, patched.metadata.uid) == ({"a": "b"}, created.metadata.uid)
    entries = proxied.proxy_journal()
    assert [(e.verb, e.resource, e.namespace, e.name, e.code, e.reason, e.content_type) for e in entries] == [
        ("list", "namespaces", "", "", 200, "", ""),
        ("create", "pods", "default", "", 201, "", ""),  # this client sends no Content-Type on create
        ("get", "pods", "default", "p", 200, "", ""),
        ("patch", "pods", "default", "p", 200, "", "application/strategic-merge-patch+json"),
    ]
    assert entries[3].body == {"metadata": {"labels": {"a": "b"}}}
    # the fake saw the same requests, plus the proxy's own read of the pod before the patch (the
    # effect's "before"); both journals give the patch the same effect
    fake = proxied.fake_journal()
    reads = [e for e in fake if e.verb == "get" and e.path == "/api/v1/namespaces/default/pods/p"]
    assert len(reads) == 2
    assert _same([e for e in fake if e is not reads[1]]) == _same(entries)
    patch = entries[3]
    assert patch.effect == "applied" and patch.before["metadata"].get("labels") is None
    assert patch.after["metadata"]["labels"] == {"a": "b"}


def test_a_final_delete_is_journaled_as_gone_and_a_graceful_one_as_kept(proxied: Proxied) -> None:
    """kube-apiserver answers a grace-0 delete with the object as it went (``deletionTimestamp``
    and ``deletionGracePeriodSeconds: 0``): the proxy asks whether it is gone instead of taking
    the answer for an object still kept, as it must for a graceful delete's answer."""
    v1 = client.CoreV1Api(proxied.api)
    for name in ("graceful", "final"):
        v1.create_namespaced_pod("default", _pod(name))
        v1.create_namespaced_pod_binding(name, "default", {"apiVersion": "v1", "kind": "Binding",
                                                           "metadata": {"name": name},
                                                           "target": {"apiVersion": "v1", "kind": "Node", "name": "n"}},
                                         _preload_content=False)
    v1.delete_namespaced_pod("graceful", "default")
    answer = v1.delete_namespaced_pod("final", "default", grace_period_seconds=0)
    assert answer.metadata.deletion_grace_period_seconds == 0 and answer.metadata.deletion_timestamp is not None
    deletes = {e.name: e for e in proxied.proxy_journal() if e.verb == "delete"}
    assert deletes["graceful"].after["metadata"]["deletionGracePeriodSeconds"] == 30
    assert deletes["final"].after is None


@pytest.mark.parametrize(("code", "reason"), [(500, "InternalError"), (409, "Conflict")])
def test_respond_answers_the_status_patch_at_the_proxy(proxied: Proxied, code: int, reason: str) -> None:
    v1 = client.CoreV1Api(proxied.api)
    v1.create_namespaced_pod("default", _pod("p"))
    rule = proxied.call(lambda: proxied.proxy.faults.add(FaultRule(
        Match(verb="patch", resource="pods", subresource="status"), Respond(code), name="refuse", times=1)))
    body = {"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}}
    with pytest.raises(ApiException) as refused:
        v1.patch_namespaced_pod_status("p", "default", body)
    assert refused.value.status == code
    assert json.loads(refused.value.body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"injected fault: {code} for patch pods", "reason": reason, "code": code}
    assert v1.patch_namespaced_pod_status("p", "default", body).status.conditions[0].reason == "Unschedulable"
    assert rule.fired == 1
    patches = [(e.code, e.reason, e.fault, e.body) for e in proxied.proxy_journal() if e.subresource == "status"]
    assert patches == [(code, reason, "refuse", body), (200, "", "", body)]
    assert [e.code for e in proxied.fake_journal() if e.subresource == "status"] == [200]  # never forwarded


@pytest.mark.parametrize("shape", ["put", "json-patch"])
def test_an_effect_rule_refuses_the_write_whatever_its_shape_at_the_proxy(proxied: Proxied, shape: str) -> None:
    """The proxy previews the write with ``dryRun=All`` upstream: a rule on "sets PodScheduled
    NotReadyForScheduling" refuses it as a PUT of the status or a JSON patch, nothing reaches the
    upstream's store, and the proxy's journal shows the intended effect."""
    v1 = client.CoreV1Api(proxied.api)
    v1.create_namespaced_pod("default", _pod("p"))
    rule = proxied.call(lambda: proxied.proxy.faults.add(FaultRule(
        Match(resource="pods", name="p", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
        Respond(503), name="refuse-not-ready")))
    condition = {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling", "message": "waiting"}
    with pytest.raises(ApiException) as refused:
        if shape == "put":
            current = proxied.api.sanitize_for_serialization(v1.read_namespaced_pod("p", "default"))
            current["status"]["conditions"] = [condition]
            v1.replace_namespaced_pod_status("p", "default", current)
        else:
            v1.patch_namespaced_pod_status("p", "default", [{"op": "add", "path": "/status/conditions",
                                                                   "value": [condition]}])
    assert refused.value.status == 503 and rule.fired == 1
    assert not (v1.read_namespaced_pod("p", "default").status.conditions or [])
    [entry] = [e for e in proxied.proxy_journal() if e.subresource == "status"]
    assert (entry.code, entry.fault, entry.effect) == (503, "refuse-not-ready", "intended")
    assert [c["reason"] for c in entry.after["status"]["conditions"]] == ["NotReadyForScheduling"]
    upstream_writes = [e for e in proxied.fake_journal() if e.subresource == "status"]
    assert [e.query.get("dryRun") for e in upstream_writes] == ["All"]  # the preview only


def test_delay_holds_a_request_while_later_ones_pass(proxied: Proxied) -> None:
    v1 = client.CoreV1Api(proxied.api)
    rule = proxied.call(lambda: proxied.proxy.faults.add(FaultRule(
        Match(verb="create", resource="pods", body=body_contains({"metadata": {"name": "slow"}})),
        Delay(1.0), name="hold")))
    slow = threading.Thread(target=v1.create_namespaced_pod, args=("default", _pod("slow")), daemon=True)
    slow.start()
    _wait("the delay rule fired", lambda: rule.fired == 1)
    v1.create_namespaced_pod("default", _pod("fast"))
    slow.join(SAFETY_TIMEOUT)
    upstream = [e.body["metadata"]["name"] for e in proxied.fake_journal() if e.verb == "create"]
    assert upstream == ["fast", "slow"]
    answered = [(e.body["metadata"]["name"], e.code, e.fault) for e in proxied.proxy_journal() if e.verb == "create"]
    assert answered == [("fast", 201, ""), ("slow", 201, "hold")]


def test_close_connection_drops_the_request(proxied: Proxied) -> None:
    v1 = client.CoreV1Api(proxied.api)
    proxied.call(lambda: proxied.proxy.faults.add(
        FaultRule(Match(verb="create", resource="pods"), CloseConnection(), name="drop", times=1)))
    with pytest.raises(urllib3.exceptions.ProtocolError):
        v1.create_namespaced_pod("default", _pod("lost"))
    with pytest.raises(ApiException) as missing:
        v1.read_namespaced_pod("lost", "default")
    assert missing.value.status == 404
    assert [(e.verb, e.code, e.reason, e.fault) for e in proxied.proxy_journal()] == [
        ("create", 0, "ConnectionClosed", "drop"), ("get", 404, "NotFound", "")]
    assert [e.verb for e in proxied.fake_journal()] == ["get"]


def test_end_watch_ends_the_stream_and_closes_the_upstream_watch(proxied: Proxied) -> None:
    v1 = client.CoreV1Api(proxied.api)
    v1.create_namespaced_pod("default", _pod("p"))
    rule = proxied.call(lambda: proxied.proxy.faults.add(
        FaultRule(Match(verb="watch", resource="pods"), EndWatch(after=0.5), name="end", times=1)))
    events = list(watch.Watch().stream(v1.list_namespaced_pod, "default", timeout_seconds=int(SAFETY_TIMEOUT)))
    assert [(e["type"], e["object"].metadata.name) for e in events] == [("ADDED", "p")]
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    _wait("the upstream watch closed", lambda: not proxied.call(lambda: proxied.fake.server.store.cache(pods).watchers))
    assert rule.fired == 1
    mine = proxied.proxy_journal()
    # As on the fake, a watch accepted with 200 keeps no fault name; the rule counts the firing.
    assert [(e.type, e.verb, e.event, e.name, e.code) for e in mine] == [
        ("request", "create", "", "", 201), ("request", "watch", "", "", 200), ("watch-event", "", "ADDED", "p", 0)]
    assert _same(mine) == _same(proxied.fake_journal())


def test_watch_lag_delays_the_claim_on_the_watch_and_hides_it_from_list(proxied: Proxied) -> None:
    lag = 2.0  # seconds of real time; the GET and the LIST below take milliseconds
    api = client.CustomObjectsApi(proxied.api)
    args = ("resource.k8s.io", "v1", "default", "resourceclaims")
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "late"},
             "spec": {"devices": {"requests": []}}}
    rule = proxied.call(lambda: proxied.proxy.faults.add(FaultRule(Match(resource=CLAIMS), WatchLag(lag), name="lag")))
    seen: list[tuple[str, str]] = []
    w = watch.Watch()

    def watch_claims() -> None:
        for event in w.stream(api.list_namespaced_custom_object, *args, timeout_seconds=int(SAFETY_TIMEOUT)):
            seen.append((event["type"], event["object"]["metadata"]["name"]))
            w.stop()

    watcher = threading.Thread(target=watch_claims, daemon=True)
    watcher.start()
    _wait("the upstream watch open", lambda: [e for e in proxied.fake_journal() if e.verb == "watch"])
    api.create_namespaced_custom_object(*args, claim)
    read = api.get_namespaced_custom_object(*args, "late")
    hidden = api.list_namespaced_custom_object(*args)["items"]
    watcher.join(SAFETY_TIMEOUT)
    assert (read["metadata"]["name"], hidden, seen, rule.fired) == ("late", [], [("ADDED", "late")], 1)
    assert [i["metadata"]["name"] for i in api.list_namespaced_custom_object(*args)["items"]] == ["late"]
    got = proxied.proxy_journal()
    order = [(e.type, e.verb or e.event, e.code) for e in got]
    assert order == [("request", "watch", 200), ("request", "create", 201), ("request", "get", 200),
                     ("request", "list", 200), ("watch-event", "ADDED", 0), ("request", "list", 200)]
    created, event = got[1], got[4]
    assert event.time - created.time >= lag  # the journal stamps delivery; the create its arrival
    theirs = proxied.fake_journal()
    assert [(e.event, e.resource, e.name, e.rv) for e in theirs if e.type == "watch-event"] == [
        (event.event, CLAIMS, "late", event.rv)]


# --- headers, errors and lifecycle with aiohttp --------------------------------------------------


def _run(main: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), SAFETY_TIMEOUT))


async def _serve(app: web.Application, ssl_context: ssl.SSLContext | None = None) -> tuple[web.AppRunner, int]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ssl_context)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]


async def _echo(request: web.Request) -> web.Response:
    """What the upstream received, and a few headers a proxy must pass back."""
    seen = {"method": request.method, "raw_path": request.raw_path, "body": (await request.read()).decode(),
            "headers": {k: v for k, v in request.headers.items() if k not in ("Host", "Content-Length")}}
    headers = [("Warning", '299 - "first"'), ("Warning", '299 - "second"'), ("Audit-Id", "a-1"),
               ("Retry-After", "3"), ("Connection", "keep-alive, X-Hop"), ("X-Hop", "gone"), ("X-Kept", "kept")]
    response = web.json_response(seen, status=202)
    for k, v in headers:
        response.headers.add(k, v)
    return response


def _with_token(url: str, **user: Any) -> dict[str, Any]:
    kubeconfig = kubeconfig_for(url)
    kubeconfig["users"][0]["user"] = user
    return kubeconfig


@pytest.mark.parametrize("form", ["token", "tokenFile"])
def test_headers_forwarded_filtered_and_credentials_replaced(tmp_path: Path, form: str) -> None:
    (tmp_path / "token").write_text("upstream-secret\n")
    credential = {"token": "upstream-secret"} if form == "token" else {"tokenFile": "token"}

    async def main() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", _echo)
        runner, port = await _serve(app)
        (tmp_path / "kubeconfig").write_text(json.dumps(_with_token(f"http://127.0.0.1:{port}", **credential)))
        try:
            async with FaultProxy(tmp_path / "kubeconfig") as proxy, aiohttp.ClientSession() as c:
                path = "/api/v1/namespaces/default/pods/p?labelSelector=a%3Db&fieldSelector=spec.nodeName%3D"
                r = await c.patch(proxy.url + path, data=b'{"spec":{}}', headers={
                    "Accept": "application/vnd.kubernetes.protobuf, application/json;q=0.9",
                    "Content-Type": "application/merge-patch+json", "User-Agent": "kube-scheduler/v1.35",
                    "Authorization": "Bearer client-token", "X-Custom": "dropped", "Accept-Encoding": "gzip"})
                assert r.status == 202
                assert r.headers.getall("Warning") == ['299 - "first"', '299 - "second"']
                assert (r.headers["Audit-Id"], r.headers["Retry-After"], r.headers["X-Kept"]) == ("a-1", "3", "kept")
                assert ("X-Hop" in r.headers, r.headers["Content-Type"]) == (False, "application/json; charset=utf-8")
                assert await r.json() == {"method": "PATCH", "raw_path": path, "body": '{"spec":{}}', "headers": {
                    "Accept": "application/json;q=0.9", "Accept-Encoding": "identity",
                    "Content-Type": "application/merge-patch+json", "User-Agent": "kube-scheduler/v1.35",
                    "Authorization": "Bearer upstream-secret"}}
                r = await c.get(proxy.url + "/version", headers={"Accept": "application/vnd.kubernetes.protobuf"})
                assert (await r.json())["headers"]["Accept"] == "application/json"
                [patch, version] = proxy.journal.entries
                assert (patch.verb, patch.name, patch.query, patch.code) == (
                    "patch", "p", {"fieldSelector": "spec.nodeName=", "labelSelector": "a=b"}, 202)
                assert (version.verb, version.path, version.code) == ("get", "/version", 202)
        finally:
            await runner.cleanup()

    _run(main)


def test_a_json_answer_to_a_client_that_prefers_protobuf() -> None:
    async def main() -> None:
        async with FakeApiServer() as fake, FaultProxy(fake.kubeconfig) as proxy, \
                aiohttp.ClientSession(proxy.url) as c:
            for accept in ("application/vnd.kubernetes.protobuf, application/json",
                           "application/vnd.kubernetes.protobuf"):
                r = await c.get("/api/v1/namespaces/default", headers={"Accept": accept})
                assert (r.status, r.content_type) == (200, "application/json")
                assert (await r.json())["metadata"]["name"] == "default"

    _run(main)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_upstream_is_503_service_unavailable() -> None:
    port = _free_port()

    async def main() -> None:
        async with FaultProxy(kubeconfig_for(f"http://127.0.0.1:{port}")) as proxy, \
                aiohttp.ClientSession(proxy.url) as c:
            for params in ({}, {"watch": "true"}):
                r = await c.get("/api/v1/pods", params=params)
                status = await r.json()
                assert (r.status, status["reason"], status["code"]) == (503, "ServiceUnavailable", 503)
                assert status["message"].startswith(
                    f"the fault proxy cannot reach the upstream API server http://127.0.0.1:{port}: "
                    f"ClientConnectorError: Cannot connect to host 127.0.0.1:{port} ")
            assert [(e.verb, e.code, e.reason) for e in proxy.journal.entries] == [
                ("list", 503, "ServiceUnavailable"), ("watch", 503, "ServiceUnavailable")]

    _run(main)


def test_a_body_over_the_limit_is_refused_by_the_proxy_with_a_status() -> None:
    async def main() -> None:
        async with FaultProxy(kubeconfig_for(f"http://127.0.0.1:{_free_port()}")) as proxy, \
                aiohttp.ClientSession(proxy.url) as c:
            r = await c.post("/api/v1/namespaces/default/configmaps", data=io.BytesIO(b"x" * (3 * 1024 * 1024 + 1)))
            assert (r.status, await r.json()) == (413, {
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": "Request entity too large: limit is 3145728", "reason": "RequestEntityTooLarge",
                "code": 413})

    _run(main)


def test_watch_streams_end_with_the_upstream_or_the_client_and_on_stop() -> None:
    pods = by_resource("", "v1", "pods")
    assert pods is not None

    async def main() -> None:
        async with FakeApiServer() as fake, aiohttp.ClientSession() as c:
            watchers = fake.store.cache(pods).watchers
            proxy = await FaultProxy(fake.kubeconfig).start()
            url = proxy.url + "/api/v1/namespaces/default/pods"
            ended = await c.get(url, params={"watch": "1", "timeoutSeconds": "1"})  # the upstream ends it
            left = await c.get(url, params={"watch": "1"})
            stopped = await c.get(url, params={"watch": "1"})
            assert [line async for line in ended.content] == []
            left.close()
            while len(watchers) > 1:
                await asyncio.sleep(0.02)
            await proxy.stop()
            assert [line async for line in stopped.content] == []
            while watchers:  # the fake sees its client (the proxy) gone
                await asyncio.sleep(0.02)
            await proxy.stop()  # twice is fine
            assert [(e.verb, e.code) for e in proxy.journal.entries] == [("watch", 200)] * 3

    _run(main)


def test_stop_after_a_failed_start_and_bad_kubeconfigs(tmp_path: Path) -> None:
    async def main() -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            proxy = FaultProxy(kubeconfig_for("http://127.0.0.1:1"), port=taken.getsockname()[1])
            with pytest.raises(OSError):
                await proxy.start()
            await proxy.stop()
            await proxy.stop()
            assert (proxy.journal.entries, proxy.faults.rules) == ([], [])

    _run(main)
    missing = tmp_path / "missing"
    expected = f"{missing}: the kubeconfig cannot be read: [Errno 2] No such file or directory: {str(missing)!r}"
    with pytest.raises(ValueError, match=rf"^{re.escape(expected)}$"):
        FaultProxy(missing)


def _config(user: dict[str, Any] | None = None, **cluster: Any) -> dict[str, Any]:
    kubeconfig = kubeconfig_for("https://api.example:6443")
    kubeconfig["clusters"][0]["cluster"].update(cluster)
    kubeconfig["users"][0]["user"] = user or {}
    return kubeconfig


def test_upstream_from_kubeconfig(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_bytes(b"CA")
    config = _config({"token": "t"}, **{"certificate-authority": "ca.crt", "insecure-skip-tls-verify": True})
    assert upstream_from_kubeconfig(config, base=tmp_path) == Upstream(
        server="https://api.example:6443", ca=b"CA", token="t", insecure=True)
    data = _config({"client-certificate-data": base64.b64encode(b"C").decode(),
                    "client-key-data": base64.b64encode(b"K").decode()})
    assert upstream_from_kubeconfig(data) == Upstream(server="https://api.example:6443", client_cert=b"C",
                                                      client_key=b"K")


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c["users"][0]["user"].update(exec={"command": "aws"}),
     "user 'schedharness' of the kubeconfig authenticates with an exec credential plugin, which the fault proxy "
     "does not support: give it a token, a tokenFile or a client certificate"),
    (lambda c: c["users"][0]["user"].update({"auth-provider": {"name": "gcp"}}),
     "user 'schedharness' of the kubeconfig authenticates with an auth-provider plugin, which the fault proxy "
     "does not support: give it a token, a tokenFile or a client certificate"),
    (lambda c: c.update({"current-context": "other"}), "the kubeconfig has no context named 'other'"),
    (lambda c: c.update({"current-context": ""}), "the kubeconfig has no current-context: name the context to use"),
    (lambda c: c.update(clusters=[]), "the kubeconfig has no cluster named 'schedharness'"),
    (lambda c: c.update(users=[]), "the kubeconfig has no user named 'schedharness'"),
    (lambda c: c["clusters"][0]["cluster"].pop("server"),
     "cluster 'schedharness' of the kubeconfig has no http(s) server URL (got '')"),
    (lambda c: c["users"][0]["user"].update({"client-certificate-data": "Qw=="}),
     "user 'schedharness' of the kubeconfig needs both a client certificate and its key"),
])
def test_upstream_from_kubeconfig_refuses(change: Callable[[dict[str, Any]], None], message: str) -> None:
    kubeconfig = _config()
    change(kubeconfig)
    with pytest.raises(ValueError) as refused:
        upstream_from_kubeconfig(kubeconfig)
    assert str(refused.value) == message


# --- TLS --------------------------------------------------------------------------------------


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=SAFETY_TIMEOUT)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, made by the openssl CLI."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl CLI is not installed: the TLS tests need it to make certificates")
    d = tmp_path_factory.mktemp("pki")
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=test-ca",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"),
                      ("client", "extendedKeyUsage=clientAuth")):
        (d / f"{name}.ext").write_text(f"{ext}\nauthorityKeyIdentifier=keyid,issuer\nsubjectKeyIdentifier=hash\n")
        _openssl("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=proxy-{name}", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.crt", "-days", "1", "-extfile", f"{name}.ext", cwd=d)
    return d


async def _tls_upstream(pki: Path) -> tuple[web.AppRunner, int]:
    """An HTTPS server that requires a client certificate signed by the CA and names its subject."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki / "ca.crt"))
    context.load_cert_chain(pki / "server.crt", pki / "server.key")
    context.verify_mode = ssl.CERT_REQUIRED

    async def whoami(request: web.Request) -> web.Response:
        cert = request.transport.get_extra_info("peercert") if request.transport else None
        subject = dict(pair[0] for pair in (cert or {}).get("subject", ()))
        return web.json_response({"client": subject.get("commonName")})

    app = web.Application()
    app.router.add_get("/whoami", whoami)
    return await _serve(app, context)


def _tls_kubeconfig(pki: Path, port: int, form: str) -> dict[str, Any]:
    kubeconfig = kubeconfig_for(f"https://127.0.0.1:{port}")
    cluster, user = kubeconfig["clusters"][0]["cluster"], kubeconfig["users"][0]["user"]
    if form == "data":
        b64 = {name: base64.b64encode((pki / name).read_bytes()).decode()
               for name in ("ca.crt", "client.crt", "client.key")}
        cluster["certificate-authority-data"] = b64["ca.crt"]
        user.update({"client-certificate-data": b64["client.crt"], "client-key-data": b64["client.key"]})
    elif form == "file":
        cluster["certificate-authority"] = "pki/ca.crt"  # relative to the kubeconfig's directory
        user.update({"client-certificate": "pki/client.crt", "client-key": "pki/client.key"})
    else:  # insecure: no CA, the server's certificate is not verified
        cluster["insecure-skip-tls-verify"] = True
        user.update({"client-certificate": str(pki / "client.crt"), "client-key": str(pki / "client.key")})
    return kubeconfig


@pytest.mark.parametrize("form", ["data", "file", "insecure"])
def test_tls_verifies_the_ca_and_presents_the_client_certificate(
        pki: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    shutil.copytree(pki, tmp_path / "pki")
    keys = tmp_path / "tmp"
    keys.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(keys))  # where the key is written for load_cert_chain

    async def main() -> None:
        runner, port = await _tls_upstream(pki)
        path = tmp_path / "kubeconfig"
        path.write_text(json.dumps(_tls_kubeconfig(tmp_path / "pki", port, form)))
        try:
            async with FaultProxy(path) as proxy, aiohttp.ClientSession(proxy.url) as c:
                assert os.listdir(keys) == []  # the key material is gone once loaded
                r = await c.get("/whoami")
                assert (r.status, await r.json()) == (200, {"client": "proxy-client"})
        finally:
            await runner.cleanup()

    _run(main)


def test_tls_without_the_ca_is_refused_as_unreachable(pki: Path) -> None:
    async def main() -> None:
        runner, port = await _tls_upstream(pki)
        kubeconfig = _tls_kubeconfig(pki, port, "data")
        del kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"]  # the system CAs do not know it
        try:
            async with FaultProxy(kubeconfig) as proxy, aiohttp.ClientSession(proxy.url) as c:
                r = await c.get("/whoami")
                status = await r.json()
                assert (r.status, status["reason"]) == (503, "ServiceUnavailable")
                assert status["message"].startswith(
                    f"the fault proxy cannot reach the upstream API server https://127.0.0.1:{port}: "
                    "ClientConnectorCertificateError: ")
                assert "CERTIFICATE_VERIFY_FAILED" in status["message"]
        finally:
            await runner.cleanup()

    _run(main)


# --- custom resources through the proxy -------------------------------------------------------

WIDGETS = "widgets.proxy.example.com"
_WIDGET_CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
               "metadata": {"name": "widgets.proxy.example.com"},
               "spec": {"group": "proxy.example.com", "scope": "Namespaced",
                        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                            "type": "object", "properties": {"spec": {"type": "object", "properties": {
                                "size": {"type": "integer"}}}}}}}]}}


def test_a_custom_resource_is_journaled_with_its_effect_and_fault_rules_apply(proxied: Proxied) -> None:
    """A custom resource through the proxy is a resource like any other: journaled with its
    verb, name and effect as the fake journals it, and a fault rule matched on it fires."""
    custom = client.CustomObjectsApi(proxied.api)
    client.ApiextensionsV1Api(proxied.api).create_custom_resource_definition(_WIDGET_CRD)
    widget = {"apiVersion": "proxy.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    custom.create_namespaced_custom_object("proxy.example.com", "v1", "default", "widgets", widget)
    custom.patch_namespaced_custom_object("proxy.example.com", "v1", "default", "widgets", "w", {"spec": {"size": 2}})
    rule = proxied.call(lambda: proxied.proxy.faults.add(FaultRule(
        Match(verb="patch", resource=WIDGETS), Respond(500), name="refuse", times=1)))
    with pytest.raises(ApiException) as refused:
        custom.patch_namespaced_custom_object("proxy.example.com", "v1", "default", "widgets", "w", {"spec": {"size": 3}})
    assert (refused.value.status, rule.fired) == (500, 1)
    writes = [(e.verb, e.name, e.code, e.effect) for e in proxied.proxy_journal() if e.resource == WIDGETS]
    assert writes == [("create", "", 201, "applied"), ("patch", "w", 200, "applied"), ("patch", "w", 500, "")]
    patch = [e for e in proxied.proxy_journal() if e.resource == WIDGETS][1]
    assert (patch.before["spec"], patch.after["spec"]) == ({"size": 1}, {"size": 2})
    assert [e.effect for e in proxied.fake_journal() if e.resource == WIDGETS and e.verb != "get"] == [
        "applied", "applied"]
