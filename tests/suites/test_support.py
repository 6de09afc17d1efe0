"""``suites/_support.py``: events judged by their effect.

A scripted writer, run as the scheduler under test on a fake backend, records events about a pod
in every way a scheduler may: an ``events.k8s.io/v1`` Event created and its series patched (by
strategic merge and merge patch, one step raising the count by two), a refresh that changes
nothing, a label; a core ``v1`` Event created with ``count: 1`` and aggregated by PUT, by JSON
patch and by a rewrite of its message; an Event about another pod; a create the API refuses; a
series PATCH a fault refuses; a delete; a core ``v1`` Event without a count. :func:`events` must
list each occurrence the writer meant, with what the Event said and when the write came, and
nothing for the rest. Expected values are the script's own.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from fake_apiserver import FaultRule, Match, Respond
from harness._schedulers.adapters import CallableAdapter
from harness._backends.backend import FakeBackend
from harness._scenario.scenario import Scenario
from harness._time.virtual_time import run
from suites._support import SeenEvent, events

Obj = dict[str, Any]
SMP = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


def _ref(pod: Obj) -> Obj:
    meta = pod["metadata"]
    return {"kind": "Pod", "namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"], "apiVersion": "v1"}


def _v1_event(name: str, pod: Obj, note: str, type_: str = "Warning") -> Obj:
    return {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": name},
            "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/writer",
            "reportingInstance": "writer-1", "action": "Scheduling", "reason": "FailedScheduling",
            "regarding": _ref(pod), "note": note, "type": type_}


def _core_event(name: str, pod: Obj, reason: str, message: str, count: int | None) -> Obj:
    event: Obj = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name}, "involvedObject": _ref(pod),
                  "reason": reason, "message": message, "source": {"component": "writer"},
                  "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z", "type": "Normal"}
    if count is not None:
        event["count"] = count
    return event


def _series(count: int) -> Obj:
    return {"series": {"count": count, "lastObservedTime": f"2026-01-01T00:00:{count:02d}.000000Z"}}


async def event_writer(kubeconfig_path: Path, feature_gates: dict[str, bool]) -> None:
    """The scheduler under test: once pods p and q exist, one write a second (module docstring).
    Step 11 is refused by the scenario's fault rule."""
    config = yaml.safe_load(Path(kubeconfig_path).read_text())
    url = config["clusters"][0]["cluster"]["server"]
    async with aiohttp.ClientSession(url) as http:
        pods: dict[str, Obj] = {}
        while len(pods) < 2:
            async with http.get("/api/v1/pods") as r:
                pods = {p["metadata"]["name"]: p for p in (await r.json())["items"]}
            await asyncio.sleep(0.5)
        p, q = pods["p"], pods["q"]
        ns = p["metadata"]["namespace"]
        v1, core = f"/apis/events.k8s.io/v1/namespaces/{ns}/events", f"/api/v1/namespaces/{ns}/events"
        steps: list[tuple[str, str, Any, str]] = [
            ("POST", v1, _v1_event("p.a", p, "no room"), ""),                                    # 0
            ("PATCH", f"{v1}/p.a", _series(2), SMP),                                            # 1
            ("PATCH", f"{v1}/p.a", _series(4), MERGE),                                          # 2
            ("PATCH", f"{v1}/p.a", _series(4), SMP),                                            # 3: a refresh
            ("PATCH", f"{v1}/p.a", {"metadata": {"labels": {"seen": "yes"}}}, MERGE),           # 4
            ("POST", core, _core_event("p.c", p, "Scheduled", "assigned", 1), ""),              # 5
            ("PUT", f"{core}/p.c", {**_core_event("p.c", p, "Scheduled", "assigned", 2)}, ""),  # 6
            ("PATCH", f"{core}/p.c", [{"op": "replace", "path": "/count", "value": 3}], JSON_PATCH),  # 7
            ("PATCH", f"{core}/p.c", {"message": "reassigned"}, MERGE),                         # 8
            ("POST", v1, _v1_event("q.a", q, "no room"), ""),                                    # 9
            ("POST", v1, _v1_event("p.bad", p, "no room", type_="Bogus"), ""),                  # 10: 422
            ("PATCH", f"{v1}/p.a", _series(5), SMP),                                            # 11: fault
            ("DELETE", f"{core}/p.c", None, ""),                                                 # 12
            ("POST", core, _core_event("p.d", p, "Preempted", "by r", None), ""),               # 13
        ]
        for method, path, body, content_type in steps:
            data = json.dumps(body) if body is not None else None
            async with http.request(method, path, data=data,
                                    headers={"Content-Type": content_type or "application/json"}) as r:
                await r.read()
            await asyncio.sleep(1)
        await asyncio.sleep(3600)


def _with_writer(tmp_path: Path) -> tuple[float, list[SeenEvent], list[SeenEvent], list[SeenEvent], list[int]]:
    out: list[Any] = []

    async def main() -> None:
        backend = FakeBackend(tmp_path)
        await backend.start()
        adapter = CallableAdapter(event_writer, name="event-writer")
        try:
            await adapter.start(backend.kubeconfig_path, {})
            async with Scenario(backend) as s:
                await s.add_fault(FaultRule(Match(verb="patch", resource="events", name="p.a",
                                                  body=lambda b: (b or {}).get("series", {}).get("count") == 5),
                                            Respond(500), name="refuse-count-5"))
                await s.create_pod("p")
                await s.create_pod("q")
                await s.advance(30)
                first = s.requests("create", "events")[0].time
                out.extend([first, events(s, "p"), events(s, "p", "Scheduled"), events(s, "q"),
                            [e.code for e in s.requests(resource="events")]])
        finally:
            await adapter.stop()
            await backend.stop()

    run(main())
    return out[0], out[1], out[2], out[3], out[4]


def test_every_occurrence_counts_once_whatever_request_recorded_it(tmp_path: Path) -> None:
    first, seen, scheduled, about_q, codes = _with_writer(tmp_path)
    assert codes == [201, 200, 200, 200, 200, 201, 200, 200, 200, 201, 422, 500, 200, 201]  # the script ran
    assert [(e.time - first, e.api, e.type, e.reason, e.message, e.via, e.count) for e in seen] == [
        (0.0, "events.k8s.io/v1", "Warning", "FailedScheduling", "no room", "create", 1),
        (1.0, "events.k8s.io/v1", "Warning", "FailedScheduling", "no room", "patch", 2),
        (2.0, "events.k8s.io/v1", "Warning", "FailedScheduling", "no room", "patch", 3),
        (2.0, "events.k8s.io/v1", "Warning", "FailedScheduling", "no room", "patch", 4),
        (5.0, "v1", "Normal", "Scheduled", "assigned", "create", 1),
        (6.0, "v1", "Normal", "Scheduled", "assigned", "update", 2),
        (7.0, "v1", "Normal", "Scheduled", "assigned", "patch", 3),
        (8.0, "v1", "Normal", "Scheduled", "reassigned", "patch", 3),
        (13.0, "v1", "Normal", "Preempted", "by r", "create", 1),
    ]
    assert scheduled == [e for e in seen if e.reason == "Scheduled"]
    assert [(e.time - first, e.pod, e.count) for e in about_q] == [(9.0, "q", 1)]


def test_an_occurrence_says_how_it_was_recorded_only_when_not_a_first_create(tmp_path: Path) -> None:
    _, seen, _, _, _ = _with_writer(tmp_path)
    t0, t1 = seen[0].time, seen[1].time
    assert [str(e) for e in seen[:2]] == [
        f't={t0:.3f} events.k8s.io/v1 Warning FailedScheduling "no room"',
        f't={t1:.3f} events.k8s.io/v1 Warning FailedScheduling "no room" (patch, occurrence 2)']
