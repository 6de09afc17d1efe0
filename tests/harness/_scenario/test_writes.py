"""Writes read as effects, and when the scheduler's watch was handed an object (pure functions
over journal entries written here by hand)."""

from __future__ import annotations

from typing import Any

from fake_apiserver import JournalEntry
from harness._scenario.writes import Write, delivered, format_writes, writes_of

Obj = dict[str, Any]

GATED = {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated", "message": "gated"}
NOT_READY = {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling", "message": "waiting"}
FOREIGN = {"type": "example.com/Ready", "status": "True"}


def pod(rv: str, *conditions: Obj, node: str = "") -> Obj:
    obj: Obj = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns", "resourceVersion": rv},
                "spec": {}, "status": {"conditions": list(conditions)}}
    if node:
        obj["spec"]["nodeName"] = node
    return obj


def write(seq: int, before: Obj | None, after: Obj | None, *, verb: str = "patch", sub: str = "status",
          effect: str = "applied", code: int = 200, content_type: str = "application/merge-patch+json") -> JournalEntry:
    return JournalEntry(seq=seq, time=float(seq), type="request", verb=verb, resource="pods", subresource=sub,
                        namespace="ns", name="p", content_type=content_type, code=code, before=before, after=after,
                        effect=effect)


def test_a_write_says_what_it_changed_whatever_its_verb() -> None:
    put = Write(write(1, pod("1", FOREIGN), pod("2", FOREIGN, NOT_READY), verb="update"))
    assert put.applied and put.changes() and put.other_conditions_kept() and not put.redundant
    assert put.condition_before() is None and put.condition_after() == NOT_READY
    assert put.describe() == ('t=1.000 #1 update pods/status ns/p -> 200 [applied]: PodScheduled absent -> '
                              'PodScheduled=False reason=NotReadyForScheduling message="waiting"')
    wiped = Write(write(2, pod("2", FOREIGN, NOT_READY), pod("3")))
    assert wiped.changes() and not wiped.other_conditions_kept()
    assert wiped.describe().startswith("t=2.000 #2 patch (merge-patch+json) pods/status ns/p -> 200 [applied]: "
                                       'PodScheduled=False reason=NotReadyForScheduling message="waiting" -> '
                                       'PodScheduled absent')


def test_a_write_that_changed_nothing_is_redundant_and_a_refused_one_shows_its_intent() -> None:
    same = Write(write(3, pod("3", GATED), pod("3", GATED)))
    assert same.redundant and not same.changes()
    assert same.describe().endswith("(nothing changed)")
    refused = Write(write(4, pod("3", GATED), pod("3", NOT_READY), effect="intended", code=503))
    assert refused.intended and not refused.applied and not refused.ok and refused.changes() and not refused.redundant
    unknown = Write(write(5, None, None, effect="", code=409))
    assert not unknown.known and not unknown.changes()
    assert format_writes([]) == "  (none)"


def test_writes_of_one_object_include_its_create_and_its_binding() -> None:
    create = JournalEntry(seq=1, time=0.0, type="request", verb="create", resource="pods", namespace="ns",
                          after=pod("1"), effect="applied", code=201)
    other = JournalEntry(seq=2, time=0.0, type="request", verb="patch", resource="pods", namespace="ns", name="q")
    binding = write(3, pod("1"), pod("2", node="n1"), verb="create", sub="binding")
    read = JournalEntry(seq=4, time=0.0, type="request", verb="get", resource="pods", namespace="ns", name="p")
    found = writes_of([create, other, binding, read], "pods", "ns", "p")
    assert [w.entry.seq for w in found] == [1, 3]
    assert found[1].binding and not found[0].binding


def watch(seq: int, *, resource: str = "pods") -> JournalEntry:
    return JournalEntry(seq=seq, time=0.0, type="request", verb="watch", resource=resource, code=200)


def event(seq: int, watch_seq: int, time: float, rv: str, kind: str = "ADDED", name: str = "p") -> JournalEntry:
    return JournalEntry(seq=seq, time=time, type="watch-event", watch=watch_seq, event=kind, resource="pods",
                        namespace="ns", name=name, rv=rv)


def test_delivered_is_the_first_event_on_a_watch_that_is_not_the_scenarios_own() -> None:
    entries = [watch(1), watch(2), event(3, 2, 1.0, "5"), event(4, 1, 1.5, "5"), event(5, 1, 2.0, "7", "MODIFIED"),
               event(6, 1, 3.0, "9", "DELETED")]
    own = {2}
    assert delivered(entries, own, "pods", "ns", "p", 5, 0.0) == 1.5
    assert delivered(entries, own, "pods", "ns", "p", 6, 0.0) == 2.0
    assert delivered(entries, own, "pods", "ns", "p", 8, 0.0) is None
    assert delivered(entries, own, "pods", "ns", "p", 0, 2.5, deleted=True) == 3.0
    assert delivered(entries, own, "pods", "ns", "q", 0, 0.0) is None


def test_a_scheduler_that_never_watches_sees_the_object_at_its_next_read() -> None:
    reads = [JournalEntry(seq=1, time=0.5, type="request", verb="list", resource="pods", code=200),
             JournalEntry(seq=2, time=2.5, type="request", verb="list", resource="pods", code=200)]
    assert delivered(reads, set(), "pods", "ns", "p", 5, 1.0) == 2.5
    assert delivered([watch(3), *reads], set(), "pods", "ns", "p", 5, 1.0) is None  # it watches: wait for the event


def test_a_read_that_cannot_return_the_object_is_no_watch_and_no_poll() -> None:
    """A process scheduler's readiness probe watches its own pod in its own namespace: that watch
    does not make a polling scheduler a watching one, nor does a read of another pod poll p."""
    probe = JournalEntry(seq=1, time=0.0, type="request", verb="watch", resource="pods", namespace="schedharness-probe",
                         code=200)
    other = JournalEntry(seq=2, time=1.5, type="request", verb="get", resource="pods", namespace="ns", name="q", code=200)
    poll = JournalEntry(seq=3, time=2.5, type="request", verb="list", resource="pods", code=200)
    assert delivered([probe, other, poll], set(), "pods", "ns", "p", 5, 1.0) == 2.5
    assert delivered([probe, other], set(), "pods", "ns", "p", 5, 1.0) is None
