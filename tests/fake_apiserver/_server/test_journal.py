"""The journal: what it records, how it is queried, and that it is deterministic."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import aiohttp

from fake_apiserver import FakeApiServer, Journal, JournalEntry
from harness._time.virtual_time import VirtualClock, run
from harness._time.workloads import run_watch_delay_writers
from tests.support.paths import ROOT


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_records_requests_and_watch_events_with_virtual_times() -> None:
    async def main() -> Journal:
        loop = asyncio.get_running_loop()
        clock = VirtualClock(loop)
        async with FakeApiServer(clock=clock, time=clock.time) as server:
            async with aiohttp.ClientSession(server.url) as c:
                watch = await c.get("/api/v1/namespaces/default/pods",
                                    params={"watch": "true", "resourceVersion": "0", "timeoutSeconds": "30"})
                await asyncio.sleep(2)
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                       "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}
                await c.post("/api/v1/namespaces/default/pods", json=pod)
                await watch.content.readline()
                await asyncio.sleep(1)
                body = {"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "X"}]}}
                await c.patch("/api/v1/namespaces/default/pods/p/status", data=json.dumps(body),
                              headers={"Content-Type": "application/strategic-merge-patch+json"})
                await watch.content.readline()
                await c.get("/api/v1/namespaces/default/pods/nope")
                watch.close()
            return server.journal

    journal = run(main())
    rows = [(e.type, e.verb or e.event, e.resource, e.subresource, e.name, e.time, e.code, e.reason)
            for e in journal]
    assert rows == [
        ("request", "watch", "pods", "", "", 0.0, 200, ""),
        ("request", "create", "pods", "", "", 2.0, 201, ""),
        ("watch-event", "ADDED", "pods", "", "p", 2.0, 0, ""),
        ("request", "patch", "pods", "status", "p", 3.0, 200, ""),
        ("watch-event", "MODIFIED", "pods", "", "p", 3.0, 0, ""),
        ("request", "get", "pods", "", "nope", 3.0, 404, "NotFound"),
    ]
    patches = journal.status_patches("p")
    assert len(patches) == 1
    assert patches[0].content_type == "application/strategic-merge-patch+json"
    assert patches[0].body == {"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "X"}]}}
    assert journal.watch_events("pods", event="MODIFIED")[0].watch == 1
    assert journal.requests(code=404)[0].name == "nope"
    line = journal.entries[3].to_json()
    assert "query" not in json.loads(line)  # empty fields are left out of the line
    assert line.startswith('{"after":{"apiVersion":"v1","kind":"Pod"')
    assert patches[0].effect == "applied"
    assert patches[0].before["metadata"]["resourceVersion"] != patches[0].after["metadata"]["resourceVersion"]
    assert "conditions" not in patches[0].before.get("status", {})
    [written] = patches[0].after["status"]["conditions"]
    assert (written["type"], written["status"], written["reason"]) == ("PodScheduled", "False", "X")
    assert "t=    3.000 #4 PATCH pods/status default/p -> 200" in journal.format()


def test_jsonl_export_round_trips(tmp_path: Path) -> None:
    journal = Journal(time=lambda: 1.5)
    journal.entries.append(JournalEntry(seq=1, time=1.5, type="request", verb="get", resource="pods", code=200))
    path = journal.write(tmp_path / "j" / "journal.jsonl")
    assert path.read_text() == '{"code":200,"resource":"pods","seq":1,"time":1.5,"type":"request","verb":"get"}\n'


def test_same_seed_same_journal_in_100_runs() -> None:
    digests = {_digest(run_watch_delay_writers(seed=3)) for _ in range(100)}
    assert len(digests) == 1


def test_journal_has_watches_delays_and_concurrent_writers() -> None:
    lines = [json.loads(line) for line in run_watch_delay_writers(seed=3).splitlines()]
    verbs = {(x.get("verb"), x.get("resource")) for x in lines if x["type"] == "request"}
    assert {("watch", "pods"), ("create", "pods"), ("patch", "pods"), ("list", "pods")} <= verbs
    delayed = [x for x in lines if x.get("fault") == "slow-status"]
    assert len(delayed) == 1 and delayed[0]["name"] == "w1-1"
    assert max(x["time"] for x in lines) <= 300.0
    assert len({x["watch"] for x in lines if x["type"] == "watch-event"}) >= 5  # re-watched each timeout
    assert sum(1 for x in lines if x.get("event") == "BOOKMARK") >= 1


def test_same_journal_across_processes_and_hash_seeds() -> None:
    here = _digest(run_watch_delay_writers(seed=3))
    code = ("import hashlib; from harness._time.workloads import run_watch_delay_writers; "
            "print(hashlib.sha256(run_watch_delay_writers(seed=3).encode()).hexdigest())")
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                             check=True)
        assert out.stdout.strip() == here



def test_a_body_is_recorded_with_its_integers_whole() -> None:
    """An integer past 64 bits (which a schema-less field may hold) is recorded as sent, not as
    the float a fast JSON parser makes of it."""
    from fake_apiserver._server.journal import request_body

    sent = b'{"metadata": {"name": "x"}, "spec": {"n": 123456789012345678901234, "m": 7}}'
    assert request_body(sent, "application/json") == json.loads(sent)
    assert request_body(sent, "application/json")["spec"]["n"] == 123456789012345678901234


def test_an_entry_reads_the_same_whenever_its_body_is_read() -> None:
    """A request's body is decoded when first read: a line written, a copy made or an entry
    compared before that reads what the body itself reads after."""
    import dataclasses

    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}
    apply = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n"

    async def main() -> Journal:
        async with FakeApiServer() as server:
            async with aiohttp.ClientSession(server.url) as c:
                await c.post("/api/v1/namespaces/default/pods", json=pod)
                await c.post("/api/v1/namespaces/default/pods", data=b"{not json",
                             headers={"Content-Type": "application/json"})
                await c.patch("/api/v1/namespaces/default/configmaps/cm", data=apply,
                              params={"fieldManager": "t"}, headers={"Content-Type": "application/apply-patch+yaml"})
            return server.journal

    journal = run(main())
    entries = journal.requests()
    lines = [e.to_json() for e in entries]  # before any body is read
    copies = [dataclasses.replace(e) for e in journal.requests()]
    assert [e.body for e in entries] == [pod, "{not json", {"apiVersion": "v1", "kind": "ConfigMap",
                                                           "metadata": {"name": "cm"}, "data": {"k": "v"}}]
    assert [json.loads(line).get("body") for line in lines] == [e.body for e in entries]
    assert [e.to_json() for e in entries] == lines
    assert copies == entries


def test_interceptors_added_and_taken_away_between_requests_see_the_requests_after() -> None:
    """A server's interceptor list is read on each request: one appended sees the requests from
    the next on, in order after the journal and the fault rules; one removed sees no more."""
    seen: list[tuple[str, str]] = []

    def recorder(label: str):
        async def intercept(info, request, call_next):  # type: ignore[no-untyped-def]
            seen.append((label, info.path))
            return await call_next(info, request)
        return intercept

    first, second = recorder("first"), recorder("second")

    async def main() -> list[int]:
        async with FakeApiServer() as server:
            async with aiohttp.ClientSession(server.url) as c:
                codes = [(await c.get("/api/v1/namespaces/default/pods/a")).status]
                server.interceptors.append(first)
                codes.append((await c.get("/api/v1/namespaces/default/pods/b")).status)
                server.interceptors.append(second)
                codes.append((await c.get("/api/v1/namespaces/default/pods/c")).status)
                server.interceptors.remove(first)
                codes.append((await c.get("/api/v1/namespaces/default/pods/d")).status)
                server.interceptors[-1] = first
                codes.append((await c.get("/api/v1/namespaces/default/pods/e")).status)
            assert [e.name for e in server.journal.requests()] == ["a", "b", "c", "d", "e"]
            return codes

    assert run(main()) == [404] * 5
    pods = "/api/v1/namespaces/default/pods/"
    assert seen == [("first", pods + "b"), ("first", pods + "c"), ("second", pods + "c"), ("second", pods + "d"),
                    ("first", pods + "e")]
