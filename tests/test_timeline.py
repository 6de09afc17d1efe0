"""The timeline picture: marks read from the journal, drawn reproducibly as SVG with text labels."""

from __future__ import annotations

from pathlib import Path

from fake_apiserver import JournalEntry
from harness._timeline import Mark, render_timeline, timeline_marks


def request(seq: int, time: float, verb: str, resource: str = "pods", *, name: str = "", subresource: str = "",
            body: object = None, code: int = 200, fault: str = "", namespace: str = "default") -> JournalEntry:
    return JournalEntry(seq=seq, time=time, type="request", verb=verb, resource=resource, subresource=subresource,
                        namespace=namespace, name=name, body=body, code=code, fault=fault)


def condition(reason: str, status: str = "False") -> dict[str, object]:
    return {"status": {"conditions": [{"type": "PodScheduled", "status": status, "reason": reason}]}}


JOURNAL = [
    request(1, 0.0, "list"),
    request(2, 0.0, "create", body={"metadata": {"name": "g"}, "spec": {"schedulingGates": [{"name": "a"}]}}, code=201),
    request(3, 0.0, "create", body={"metadata": {"name": "p"}, "spec": {}}, code=201),
    request(4, 1.0, "patch", name="p", subresource="status", body=condition("NotReadyForScheduling"), code=503,
            fault="refuse"),
    request(5, 2.0, "patch", name="p", subresource="status", body=condition("NotReadyForScheduling")),
    request(6, 2.0, "create", "events.events.k8s.io", body={"regarding": {"kind": "Pod", "name": "p"}}, code=201),
    request(7, 3.0, "patch", name="g", body={"spec": {"schedulingGates": None}}),
    request(8, 3.5, "create", name="g", subresource="binding", code=201),
    request(9, 4.0, "delete", name="p"),
    request(10, 0.5, "create", namespace="schedharness-probe", body={"metadata": {"name": "probe"}}, code=201),
    request(11, 0.5, "create", "nodes", body={"metadata": {"name": "n1"}}, code=201),
    JournalEntry(seq=12, time=4.0, type="watch-event", event="ADDED", resource="pods", name="p"),
]


def test_marks_follow_the_requests_about_each_pod() -> None:
    assert timeline_marks(JOURNAL) == [
        Mark(0.0, "g", "created", state="SchedulingGated"),
        Mark(0.0, "p", "created"),
        Mark(1.0, "p", "refused", fault="refuse"),
        Mark(2.0, "p", "status", state="NotReadyForScheduling"),
        Mark(2.0, "p", "event"),
        Mark(3.0, "g", "gates"),
        Mark(3.5, "g", "bound", state="Scheduled"),
        Mark(4.0, "p", "deleted"),
    ]


def test_svg_is_reproducible_and_keeps_text(tmp_path: Path) -> None:
    first = render_timeline(JOURNAL, tmp_path / "a" / "timeline.svg", title="demo", end=5.0)
    second = render_timeline(JOURNAL, tmp_path / "b.svg", title="demo", end=5.0)
    svg = first.read_text()
    assert svg == second.read_text()
    assert svg.startswith("<?xml")
    for label in (">demo</text>", ">g</text>", ">p</text>", ">fault fired</text>",
                  ">PodScheduled: NotReadyForScheduling</text>", ">seconds</text>"):
        assert label in svg


def test_empty_journal_still_draws(tmp_path: Path) -> None:
    path = render_timeline([], tmp_path / "empty.svg")
    assert ">seconds</text>" in path.read_text()
