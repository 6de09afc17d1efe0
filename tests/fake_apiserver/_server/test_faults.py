"""Fault rules fire on exactly the requests they name, shown by the journal."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Awaitable, Callable

import aiohttp
import pytest

from fake_apiserver import (
    CloseConnection,
    Delay,
    EndWatch,
    FakeApiServer,
    FaultRule,
    Match,
    Respond,
    UnfiredFaults,
    WatchLag,
    body_contains,
)
from harness._time.virtual_time import VirtualClock, VirtualEventLoop, run

SMP = {"Content-Type": "application/strategic-merge-patch+json"}


def pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}


def condition_patch(reason: str) -> str:
    return json.dumps({"status": {"conditions": [
        {"type": "PodScheduled", "status": "False", "reason": reason, "message": f"because {reason}"}]}})


def with_server(body: Callable[[FakeApiServer, aiohttp.ClientSession], Awaitable[None]]) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        clock = VirtualClock(loop)
        async with FakeApiServer(clock=clock, time=clock.time) as server:
            async with aiohttp.ClientSession(server.url) as client:
                await body(server, client)

    run(main())


def test_respond_fires_only_on_matching_status_patch_and_only_first_n() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        rule = server.faults.add(FaultRule(
            Match(verb="patch", resource="pods", subresource="status",
                  body=body_contains({"status": {"conditions": [{"reason": "NotReadyForScheduling"}]}})),
            Respond(503), name="refuse-nrfs", times=2,
        ))
        await c.post("/api/v1/namespaces/default/pods", json=pod("p"))
        codes = []
        for reason in ("Unschedulable", "NotReadyForScheduling", "NotReadyForScheduling", "NotReadyForScheduling"):
            r = await c.patch("/api/v1/namespaces/default/pods/p/status", data=condition_patch(reason), headers=SMP)
            codes.append(r.status)
            if r.status == 503:
                assert await r.json() == {
                    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": "injected fault: 503 for patch pods", "reason": "ServiceUnavailable", "code": 503,
                }
        assert codes == [200, 503, 503, 200]
        assert (rule.matched, rule.fired) == (3, 2)
        patches = server.journal.status_patches("p")
        assert [(e.code, e.reason, e.fault) for e in patches] == [
            (200, "", ""), (503, "ServiceUnavailable", "refuse-nrfs"),
            (503, "ServiceUnavailable", "refuse-nrfs"), (200, "", ""),
        ]
        # A refused write changed nothing: the pod still shows the first patch's reason.
        r = await c.get("/api/v1/namespaces/default/pods/p")
        conds = (await r.json())["status"]["conditions"]
        assert [x["reason"] for x in conds] == ["NotReadyForScheduling"]
        server.faults.check()

    with_server(body)


def test_every_nth_and_time_window_and_429_retry_after() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        every = server.faults.add(FaultRule(Match(verb="get", resource="pods", name="a"), Respond(500), every=2))
        window = server.faults.add(FaultRule(Match(verb="get", resource="pods", name="b"),
                                             Respond(429, retry_after=3), start=10.0, until=20.0))
        await c.post("/api/v1/namespaces/default/pods", json=pod("a"))
        await c.post("/api/v1/namespaces/default/pods", json=pod("b"))
        a_codes = [(await c.get("/api/v1/namespaces/default/pods/a")).status for _ in range(5)]
        assert a_codes == [200, 500, 200, 500, 200]
        b_codes = []
        for t in (5.0, 10.0, 15.0, 20.0):
            await asyncio.sleep(t - asyncio.get_running_loop().time())
            r = await c.get("/api/v1/namespaces/default/pods/b")
            b_codes.append(r.status)
            if r.status == 429:
                assert r.headers["Retry-After"] == "3"
                assert (await r.json())["details"] == {"retryAfterSeconds": 3}
        assert b_codes == [200, 429, 429, 200]
        assert every.fired_at == [0.0, 0.0]
        assert window.fired_at == [10.0, 15.0]

    with_server(body)


def test_probability_is_drawn_from_the_seeded_rng() -> None:
    def firing(seed: int) -> list[int]:
        out: list[int] = []

        async def main() -> None:
            loop = asyncio.get_running_loop()
            async with FakeApiServer(clock=VirtualClock(loop), seed=seed) as server:
                server.faults.add(FaultRule(Match(verb="list", resource="nodes"), Respond(500), probability=0.5))
                async with aiohttp.ClientSession(server.url) as c:
                    for _ in range(20):
                        out.append((await c.get("/api/v1/nodes")).status)

        run(main())
        return out

    first = firing(7)
    assert first == firing(7)
    assert 500 in first and 200 in first
    assert firing(8) != first


def test_delay_holds_the_request_for_virtual_seconds() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        loop = asyncio.get_running_loop()
        server.faults.add(FaultRule(Match(verb="create", resource="pods"), Delay(5.0), times=1))
        t0 = loop.time()
        r = await c.post("/api/v1/namespaces/default/pods", json=pod("slow"))
        assert r.status == 201
        assert loop.time() - t0 == pytest.approx(5.0, abs=1e-6)
        r = await c.post("/api/v1/namespaces/default/pods", json=pod("fast"))
        assert loop.time() - t0 == pytest.approx(5.0, abs=1e-6)
        created = server.journal.requests("create", "pods")
        assert [(e.name, e.time, e.code, e.fault) for e in created] == [
            ("", 0.0, 201, "fault-1"), ("", 5.0, 201, ""),
        ]
        assert [e.body["metadata"]["name"] for e in created] == ["slow", "fast"]

    with_server(body)


def test_close_connection_answers_nothing_and_writes_nothing() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        server.faults.add(FaultRule(Match(verb="create", resource="pods"), CloseConnection(), times=1, name="drop"))
        rv_before = server.store.resource_version
        with pytest.raises(aiohttp.ServerDisconnectedError):
            await c.post("/api/v1/namespaces/default/pods", json=pod("lost"))
        assert server.store.resource_version == rv_before
        r = await c.get("/api/v1/namespaces/default/pods/lost")
        assert r.status == 404
        closed = server.journal.requests("create", "pods")
        assert [(e.code, e.reason, e.fault) for e in closed] == [(0, "ConnectionClosed", "drop")]

    with_server(body)


def test_end_watch_drops_matching_watches_after_some_seconds() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        loop = asyncio.get_running_loop()
        server.faults.add(FaultRule(Match(verb="watch", resource="pods"), EndWatch(after=2.0), times=1))
        r = await c.get("/api/v1/namespaces/default/pods", params={"watch": "1", "timeoutSeconds": "60"})
        lines = [line async for line in r.content]
        assert lines == []
        assert loop.time() == pytest.approx(2.0)
        # The second watch is not matched by the spent rule: it runs to its own timeout.
        r = await c.get("/api/v1/namespaces/default/pods", params={"watch": "1", "timeoutSeconds": "60"})
        assert [line async for line in r.content] == []
        assert loop.time() == pytest.approx(62.0)

    with_server(body)


def test_unfired_rule_is_reported() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        server.faults.add(FaultRule(Match(verb="delete", resource="nodes", name="n9"), Respond(500), name="never"))
        fired = server.faults.add(FaultRule(Match(verb="list", resource="nodes"), Respond(500), name="used"))
        await c.get("/api/v1/nodes")
        assert server.faults.unfired() == [server.faults.rules[0]]
        assert fired.fired == 1
        with pytest.raises(UnfiredFaults, match=(
            r"^fault rules that never fired \(the scenario did not exercise them\):\n"
            r"  never: Respond\(500, None, None, None\) on verb=delete resource=nodes name=n9$"
        )):
            server.faults.check()

    with_server(body)


def test_watch_lag_list_and_watch_see_the_claim_late_get_sees_it_at_once() -> None:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "gpu"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}
    base = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"

    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        loop = asyncio.get_running_loop()
        rule = server.faults.add(FaultRule(Match(resource="resourceclaims.resource.k8s.io"), WatchLag(3.0)))
        watch = await c.get(base, params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "10"})
        r = await c.post(base, json=claim)
        assert r.status == 201
        assert (await c.get(f"{base}/gpu")).status == 200
        assert (await (await c.get(base)).json())["items"] == []
        line = await watch.content.readline()
        assert loop.time() == pytest.approx(3.0)
        assert json.loads(line)["type"] == "ADDED"
        assert [i["metadata"]["name"] for i in (await (await c.get(base)).json())["items"]] == ["gpu"]
        assert rule.fired_at == [0.0]
        assert [(e.event, e.name, e.time) for e in server.journal.watch_events("resourceclaims.resource.k8s.io")] == [
            ("ADDED", "gpu", 3.0)
        ]
        watch.close()

    with_server(body)


def test_watch_lag_with_the_official_python_client_as_watcher() -> None:
    """The informer case with a real client: the python client watches in a thread; the claim
    reaches it D virtual seconds after the create returned, while a direct GET sees it at once."""
    kubernetes = pytest.importorskip("kubernetes")
    lag = 4.0
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "late"},
             "spec": {"devices": {"requests": []}}}

    async def main() -> None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, VirtualEventLoop)
        clock = VirtualClock(loop)
        async with FakeApiServer(clock=clock, time=clock.time) as server:
            server.faults.add(FaultRule(Match(resource="resourceclaims.resource.k8s.io"), WatchLag(lag)))
            config = kubernetes.client.Configuration()
            config.host = server.url
            api = kubernetes.client.CustomObjectsApi(kubernetes.client.ApiClient(config))
            opened = asyncio.Event()
            received: asyncio.Future[tuple[str, str, float]] = loop.create_future()
            cache = server.store.cache(server.store.kinds[[k.resource for k in server.store.kinds].index("resourceclaims")])

            def watch_in_thread() -> None:
                w = kubernetes.watch.Watch()
                stream = w.stream(api.list_namespaced_custom_object, "resource.k8s.io", "v1", "default",
                                  "resourceclaims", resource_version="0", timeout_seconds=30)
                for event in stream:
                    at = loop.time()  # virtual time is held while this thread runs
                    loop.call_soon_threadsafe(received.set_result,
                                              (event["type"], event["object"]["metadata"]["name"], at))
                    w.stop()
                    return

            def watcher_count_changed() -> None:
                if cache.watchers:
                    opened.set()

            thread = threading.Thread(target=watch_in_thread, daemon=True)
            with loop.hold():  # the thread connects on real time; freeze virtual time meanwhile
                thread.start()
                while not cache.watchers:
                    await asyncio.sleep(0)
                    watcher_count_changed()
                    if not cache.watchers:
                        await loop.run_in_executor(None, thread.join, 0.01)
            created_at = loop.time()
            await loop.run_in_executor(None, lambda: api.create_namespaced_custom_object(
                "resource.k8s.io", "v1", "default", "resourceclaims", claim))
            got = await loop.run_in_executor(None, lambda: api.get_namespaced_custom_object(
                "resource.k8s.io", "v1", "default", "resourceclaims", "late"))
            assert got["metadata"]["name"] == "late"
            assert loop.time() == created_at
            await asyncio.sleep(lag)  # the held-back change is released at created_at + lag
            with loop.hold():
                event_type, name, at = await received
            assert (event_type, name) == ("ADDED", "late")
            assert at == pytest.approx(created_at + lag)
            events = server.journal.watch_events("resourceclaims.resource.k8s.io", name="late")
            assert [(e.event, e.time) for e in events] == [("ADDED", pytest.approx(created_at + lag))]
            with loop.hold():
                await loop.run_in_executor(None, thread.join, 5)

    run(main())


@pytest.mark.parametrize(("data", "message"), [
    ([], "a fault rule is a mapping of name, match, action, times, every, start, until, probability, got []"),
    ({"action": {"type": "close"}, "when": 1},
     "unknown key when; allowed: name, match, action, times, every, start, until, probability"),
    ({"match": "pods", "action": {"type": "close"}},
     "match 'pods': give a mapping of any of verb, resource, subresource, namespace, name, content_type, body_contains"),
    ({"match": {"verbs": "get"}, "action": {"type": "close"}},
     "match: unknown key verbs; allowed: verb, resource, subresource, namespace, name, content_type, body_contains"),
    ({"match": {"verb": ["get"]}, "action": {"type": "close"}}, "match: verb ['get']: give a string"),
    ({"action": "close"}, "action 'close': give a mapping with a type: respond, delay, close, end-watch, watch-lag"),
    ({"action": {"type": "respond"}}, "action respond: missing code"),
    ({"action": {"type": "respond", "code": "503"}}, "action respond: code '503': give an HTTP status code, 100 to 599"),
    ({"action": {"type": "respond", "code": 503, "retry_after": -1}},
     "action respond: retry_after -1: give a whole number of seconds, 0 or more"),
    ({"action": {"type": "delay", "seconds": "5s"}}, "action delay: seconds '5s': give seconds, 0 or more"),
    ({"action": {"type": "close", "seconds": 1}}, "action close: unknown key seconds; allowed: type"),
    ({"action": {"type": "close"}, "times": 0}, "times 0: give a whole number, 1 or more"),
    ({"action": {"type": "close"}, "until": -1}, "until -1: give seconds, 0 or more"),
    ({"action": {"type": "close"}, "probability": 1.5}, "probability 1.5: give a number from 0 to 1"),
    ({"action": {"type": "close"}, "name": 7}, "name 7: give a string"),
])
def test_a_malformed_json_rule_is_refused_naming_the_key(data: Any, message: str) -> None:
    """The admin path's and the YAML scenarios' form: a wrong key or value is one ``ValueError``
    saying what to give, not a ``KeyError`` or a rule that fails when it fires."""
    with pytest.raises(ValueError) as info:
        FaultRule.from_dict(data)
    assert str(info.value) == message


def test_admin_path_adds_lists_and_clears_rules_over_http() -> None:
    async def body(server: FakeApiServer, c: aiohttp.ClientSession) -> None:
        rule = {"name": "nrfs-503", "match": {"verb": "patch", "resource": "pods", "subresource": "status",
                                              "body_contains": {"status": {"conditions": [{"reason": "NotReadyForScheduling"}]}}},
                "action": {"type": "respond", "code": 503}, "times": 1}
        r = await c.post("/schedharness/v1/faults", json=rule)
        assert r.status == 201
        await c.post("/api/v1/namespaces/default/pods", json=pod("p"))
        r = await c.patch("/api/v1/namespaces/default/pods/p/status", data=condition_patch("NotReadyForScheduling"),
                          headers=SMP)
        assert r.status == 503
        listed = await (await c.get("/schedharness/v1/faults")).json()
        assert listed == {"rules": [{
            "name": "nrfs-503",
            "rule": "nrfs-503: Respond(503, None, None, None) on verb=patch resource=pods subresource=status body=<predicate>",
            "matched": 1, "fired": 1, "firedAt": [0.0]}]}
        bad = await c.post("/schedharness/v1/faults", json={"action": {"type": "explode"}})
        assert bad.status == 400
        assert await bad.json() == {"error": "unknown fault action type 'explode': use respond, delay, close, end-watch or watch-lag"}
        assert (await c.delete("/schedharness/v1/faults")).status == 200
        assert server.faults.rules == []
        journal = await (await c.get("/schedharness/v1/journal")).text()
        assert journal.splitlines()[0] == server.journal.entries[0].to_json()
        # The admin path is not part of the Kubernetes API.
        assert (await c.get("/api/v1/schedharness/v1/faults")).status == 404
        assert (await c.get("/apis/schedharness/v1/faults")).status == 404

    with_server(body)
