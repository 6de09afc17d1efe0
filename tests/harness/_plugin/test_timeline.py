"""The timeline picture: marks read from the journal, drawn reproducibly as SVG with text labels.

The SVG is read back as XML (never matched as a whole file): lanes, bars, markers and rings are
found by their ``class``, and positions in seconds are read through the picture's own axis (the
x of its tick labels), so the assertions hold whatever the layout's sizes."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fake_apiserver import JournalEntry
from harness._plugin.timeline import Mark, render_timeline, timeline_marks

SVG = "{http://www.w3.org/2000/svg}"


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

LEGEND = ["created", "pod PATCH (gates)", "bound", "status PATCH", "request refused", "event", "deleted",
          "fault fired", "PodScheduled: SchedulingGated", "PodScheduled: NotReadyForScheduling",
          "PodScheduled: Unschedulable", "PodScheduled: SchedulerError", "PodScheduled: Scheduled"]


class Picture:
    """A rendered timeline read back as XML."""

    def __init__(self, path: Path) -> None:
        self.root = ET.parse(path).getroot()
        ticks = [(float(t.text or ""), float(t.get("x", ""))) for t in self.all("text", "tick")]
        (s0, x0), (s1, x1) = ticks[0], ticks[-1]
        self.scale, self.origin = (x1 - x0) / (s1 - s0), x0 - s0 * (x1 - x0) / (s1 - s0)

    def all(self, tag: str, cls: str, under: ET.Element | None = None) -> list[ET.Element]:
        return [e for e in (self.root if under is None else under).iter(SVG + tag)
                if cls in (e.get("class") or "").split()]

    def x(self, seconds: float) -> float:
        return self.origin + seconds * self.scale

    def seconds(self, x: str | None) -> float:
        return (float(x or "") - self.origin) / self.scale

    def lanes(self) -> dict[str, ET.Element]:
        return {lane.find(SVG + "text").text or "": lane for lane in self.all("g", "lane")}  # type: ignore[union-attr]

    def legend(self) -> dict[str, ET.Element]:
        """Each legend label with the symbol drawn beside it."""
        (legend,) = self.all("g", "legend")
        return {row[-1].text or "": row[0] for row in legend}

    def bars(self, pod: str) -> list[tuple[str, float, float]]:
        """``(fill, from, to)`` in seconds of each state bar on ``pod``'s lane."""
        return [(r.get("fill", ""), round(self.seconds(r.get("x")), 3),
                 round(self.seconds(r.get("x")) + float(r.get("width", "")) / self.scale, 3))
                for r in self.all("rect", "state", self.lanes()[pod])]

    def marks(self, pod: str) -> list[tuple[str, float]]:
        """``(kind, second)`` of each marker on ``pod``'s lane."""
        out = []
        for e in self.lanes()[pod]:
            cls = (e.get("class") or "").split()
            if cls[:1] == ["mark"]:
                out.append((cls[1], round(self.seconds(_centre(e)), 3)))
        return sorted(out, key=lambda m: (m[1], m[0]))


def _centre(marker: ET.Element) -> str:
    """The x of a marker's centre, whether it is drawn as a circle, a square or a path."""
    if marker.tag == SVG + "circle":
        return marker.get("cx", "")
    if marker.tag == SVG + "rect":
        return str(float(marker.get("x", "")) + float(marker.get("width", "")) / 2)
    xs = [float(v) for v in re.findall(r"[ML](-?[\d.]+)", marker.get("d", ""))]
    return str((min(xs) + max(xs)) / 2)


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


def test_marks_of_one_namespace() -> None:
    other = request(13, 1.5, "create", namespace="other", body={"metadata": {"name": "o"}, "spec": {}}, code=201)
    assert [m.pod for m in timeline_marks([*JOURNAL, other], namespace="other")] == ["o"]


def test_one_lane_per_pod_with_its_markers(tmp_path: Path) -> None:
    picture = Picture(render_timeline(JOURNAL, tmp_path / "t.svg", end=5.0))
    assert list(picture.lanes()) == ["g", "p"]  # the probe pod and the node have none
    assert picture.marks("g") == [("created", 0.0), ("gates", 3.0), ("bound", 3.5)]
    assert picture.marks("p") == [("created", 0.0), ("refused", 1.0), ("event", 2.0), ("status", 2.0),
                                  ("deleted", 4.0)]


def test_a_bar_per_state_in_the_legend_colour_over_the_time_it_held(tmp_path: Path) -> None:
    picture = Picture(render_timeline(JOURNAL, tmp_path / "t.svg", end=5.0))
    colour = {label.removeprefix("PodScheduled: "): symbol.get("fill") for label, symbol in picture.legend().items()}
    # gated from its create to its binding, then scheduled to the end of the axis
    assert picture.bars("g") == [(colour["SchedulingGated"], 0.0, 3.5), (colour["Scheduled"], 3.5, 5.0)]
    # the refused PATCH at 1 s set nothing; the accepted one at 2 s did, until the end (a delete sets no state)
    assert picture.bars("p") == [(colour["NotReadyForScheduling"], 2.0, 5.0)]


def test_the_request_a_fault_rule_answered_is_ringed(tmp_path: Path) -> None:
    picture = Picture(render_timeline(JOURNAL, tmp_path / "t.svg", end=5.0))
    assert picture.all("circle", "fault", picture.lanes()["g"]) == []
    (ring,) = picture.all("circle", "fault", picture.lanes()["p"])
    assert picture.seconds(ring.get("cx")) == pytest.approx(1.0, abs=0.001)  # coordinates are kept to 0.01 px
    assert ring.get("fill") == "none" and ring.get("stroke") == picture.legend()["fault fired"].get("stroke")
    assert "refuse" in (ring.findtext(SVG + "title") or "")


def test_legend_axis_and_title_are_text(tmp_path: Path) -> None:
    picture = Picture(render_timeline(JOURNAL, tmp_path / "t.svg", title="suites/test_k.py::test_demo", end=5.0))
    assert list(picture.legend()) == LEGEND
    assert [t.text for t in picture.all("text", "tick")] == ["0", "1", "2", "3", "4", "5"]
    assert [t.text for t in picture.all("text", "label")] == ["seconds"]
    assert [t.text for t in picture.all("text", "title")] == ["suites/test_k.py::test_demo"]
    # the axis runs a little past both ends of [0, end]
    (frame,) = [r for r in picture.root.iter(SVG + "rect") if r.get("stroke") == "#000000"]
    left, right = picture.seconds(frame.get("x")), picture.seconds(str(float(frame.get("x", "")) + float(frame.get("width", ""))))
    assert -0.5 < left < 0 and 5 < right < 5.5


def test_a_later_request_stretches_the_axis_past_end(tmp_path: Path) -> None:
    picture = Picture(render_timeline(JOURNAL, tmp_path / "t.svg", end=2.0))
    assert picture.bars("p")[-1][2] == 4.0  # the last request, at 4 s


def test_same_journal_same_bytes_and_no_date(tmp_path: Path) -> None:
    first = render_timeline(JOURNAL, tmp_path / "a" / "timeline.svg", title="demo", end=5.0)
    second = render_timeline(list(JOURNAL), tmp_path / "b.svg", title="demo", end=5.0)
    data = first.read_bytes()
    assert data == second.read_bytes()
    assert data.startswith(b'<?xml version="1.0" encoding="utf-8"?>')
    assert re.search(rb"\d{4}-\d\d-\d\d|metadata|Date", data) is None


def test_names_are_escaped_and_characters_xml_forbids_replaced(tmp_path: Path) -> None:
    odd = 'a<b>&"c\'d'
    journal = [request(1, 0.5, "create", body={"metadata": {"name": odd}, "spec": {}}, code=201, fault='f<"&>')]
    picture = Picture(render_timeline(journal, tmp_path / "t.svg", title="t[\x01<&>]"))
    assert list(picture.lanes()) == [odd]
    assert [t.text for t in picture.all("text", "title")] == ["t[\ufffd<&>]"]
    (ring,) = picture.all("circle", "fault")
    assert 'f<"&>' in (ring.findtext(SVG + "title") or "")


def test_empty_journal_still_draws_an_axis(tmp_path: Path) -> None:
    picture = Picture(render_timeline([], tmp_path / "empty.svg"))
    assert picture.lanes() == {}
    assert [t.text for t in picture.all("text", "label")] == ["seconds"]
    assert [t.text for t in picture.all("text", "tick")][:2] == ["0", "0.2"]  # one second at least
