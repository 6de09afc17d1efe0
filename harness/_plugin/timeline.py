"""A scenario's timeline as a picture: what happened to each pod, and when, read from the journal.

A KEP reviewer reading a verdict like "the condition appeared 5 s after the rejection" wants to
see it. This module draws one lane per pod: a bar for the pod's ``PodScheduled`` state over time
(as the requests in the journal set it: ``SchedulingGated`` at create, a status PATCH's reason,
``Scheduled`` at binding) and markers for the requests that matter (create, gate changes,
binding, status PATCHes accepted or refused, events, deletes), with the requests a fault rule
answered ringed in red. An axis in virtual seconds and a legend of every marker and state go
with it; each marker carries a tooltip (``<title>``) naming the pod, the request and its time.

The SVG is written by hand, an element or two per mark on a fixed layout, though the project
otherwise prefers a library for plotting. It used to be drawn with matplotlib, and that was most
of the cost of ``schedharness run``: measured on the 79 journals of one run, matplotlib took
11.2-15.4 s (0.15-0.2 s a picture, over half of it in ``savefig`` and a fifth in
``tight_layout``, plus 0.3 s to import it), and 8.9 s in two processes in parallel, against
7.8-12.1 s for the whole run without pictures on the same busy machine; this writer takes 0.03-0.05 s
for the 79. Drawing in the browser from journal data embedded in ``report.html`` would cost as
little, but ``report.md`` and a timeline opened on its own would have no picture. The trade-off
taken: no automatic layout. Text widths are estimated from the number of characters (a long pod
name or title widens the picture rather than being measured), the axis's ticks are chosen here
(1, 2, 2.5 or 5 times a power of ten, about eight of them), and the PNG copy matplotlib could
write is gone (nothing asked for it).

What the old picture guaranteed holds: text stays text (searchable in a browser, and what the
tests read), numbers are written with fixed rounding and elements in the journal's order, and no
date or id is generated, so the same journal gives the same file byte for byte. Every name is
escaped, and characters XML does not allow are replaced, so the file always parses as XML.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path

from fake_apiserver import JournalEntry

__all__ = ["Mark", "render_timeline", "timeline_marks"]

STATE_COLORS = {
    "SchedulingGated": "#9e9e9e",
    "NotReadyForScheduling": "#ffb74d",
    "Unschedulable": "#e57373",
    "SchedulerError": "#ba68c8",
    "Scheduled": "#81c784",
}
OTHER_STATE_COLOR = "#bdbdbd"  # a PodScheduled reason none of the above
MARKERS = {  # kind: (shape, colour, legend label)
    "created": ("circle", "#616161", "created"),
    "gates": ("diamond", "#7e57c2", "pod PATCH (gates)"),
    "bound": ("triangle", "#2e7d32", "bound"),
    "status": ("square", "#1565c0", "status PATCH"),
    "refused": ("bold-x", "#c62828", "request refused"),
    "event": ("star", "#ef6c00", "event"),
    "deleted": ("x", "#000000", "deleted"),
}
FAULT_COLOR = "#d50000"
FAULT_LABEL = "fault fired"

# The layout, in SVG user units (CSS pixels).
_FONT = 12
_CHAR = 7.0  # estimated width of one character at _FONT (DejaVu Sans/Arial average, a little generous)
_LANE = 30  # height of one pod's lane; its state bar is 0.6 of it
_PAD = 10  # above the first lane and below the last
_PLOT_WIDTH = 640
_LEGEND_ROW = 18
_MARK = 4.5  # a marker's half size
_RING = 8.5  # a fault ring's radius
_AXIS = 40  # below the plot: ticks, their labels and "seconds"


@dataclass(frozen=True)
class Mark:
    """One request on one pod's lane; ``state`` is the PodScheduled state it sets, if any."""

    time: float
    pod: str
    kind: str
    fault: str = ""
    state: str = ""


def _pod_of(entry: JournalEntry) -> str:
    if entry.resource == "pods":
        if entry.name:
            return entry.name
        body = entry.body if isinstance(entry.body, dict) else {}
        return str(body.get("metadata", {}).get("name", "")) if entry.verb == "create" else ""
    if entry.resource.partition(".")[0] == "events" and isinstance(entry.body, dict):
        ref = entry.body.get("regarding") or entry.body.get("involvedObject") or {}
        return str(ref.get("name", "")) if ref.get("kind") == "Pod" else ""
    return ""


def _status_state(body: object) -> str:
    """The PodScheduled state a status PATCH body sets (``""`` when it sets none)."""
    if not isinstance(body, dict):
        return ""
    for condition in body.get("status", {}).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == "PodScheduled":
            if condition.get("status") == "True":
                return "Scheduled"
            return str(condition.get("reason") or f"PodScheduled={condition.get('status')}")
    return ""


def timeline_marks(entries: Iterable[JournalEntry], namespace: str | None = None) -> list[Mark]:
    """The marks of every request about a pod (watch events, reads and probe pods left out)."""
    marks = []
    for e in entries:
        if e.type != "request" or e.verb in ("get", "list", "watch") or e.namespace == "schedharness-probe":
            continue
        if namespace is not None and e.namespace != namespace:
            continue
        pod = _pod_of(e)
        if not pod:
            continue
        ok = 200 <= e.code < 300
        kind, state = "", ""
        if e.resource != "pods":
            kind = "event"
        elif e.verb == "create" and e.subresource == "binding":
            kind, state = "bound", "Scheduled" if ok else ""
        elif e.verb == "create":
            gated = bool(isinstance(e.body, dict) and e.body.get("spec", {}).get("schedulingGates"))
            kind, state = "created", "SchedulingGated" if gated and ok else ""
        elif e.subresource == "status":
            kind, state = "status", _status_state(e.body) if ok else ""
        elif e.verb == "delete":
            kind = "deleted"
        else:
            kind = "gates"
        if not ok and kind != "event":
            kind = "refused"
        marks.append(Mark(e.time, pod, kind, e.fault, state))
    return marks


# ---------------------------------------------------------------------- SVG


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # no XML 1.0 document may hold these


def _t(text: str) -> str:
    """``text`` made safe as XML character data or a quoted attribute value."""
    return escape(_NOT_XML.sub("\ufffd", text), quote=True)


def _n(value: float) -> str:
    """A coordinate, rounded to 0.01 so the file does not depend on float noise (and never ``-0``)."""
    return f"{round(value, 2) + 0.0:g}"


def _shape(shape: str, x: float, y: float, color: str, r: float = _MARK) -> str:
    """One marker's element (without its closing tag) centred on ``x, y``."""
    if shape == "circle":
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{color}"'
    if shape == "square":
        return f'<rect x="{_n(x - r)}" y="{_n(y - r)}" width="{_n(2 * r)}" height="{_n(2 * r)}" fill="{color}"'
    if shape in ("x", "bold-x"):
        width = 1.5 if shape == "x" else 3
        d = f"M{_n(x - r)} {_n(y - r)}L{_n(x + r)} {_n(y + r)}M{_n(x - r)} {_n(y + r)}L{_n(x + r)} {_n(y - r)}"
        return f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{width}"'
    if shape == "star":
        points = [(x + (r * 1.3 if k % 2 == 0 else r * 0.55) * math.sin(k * math.pi / 5),
                   y - (r * 1.3 if k % 2 == 0 else r * 0.55) * math.cos(k * math.pi / 5)) for k in range(10)]
    elif shape == "diamond":
        points = [(x, y - r * 1.2), (x + r, y), (x, y + r * 1.2), (x - r, y)]
    else:  # triangle
        points = [(x, y - r * 1.2), (x + r * 1.1, y + r * 0.8), (x - r * 1.1, y + r * 0.8)]
    return f'<path d="M{"L".join(f"{_n(px)} {_n(py)}" for px, py in points)}Z" fill="{color}"'


def _tag(shape: str) -> str:
    """The SVG element :func:`_shape` draws ``shape`` with."""
    return {"circle": "circle", "square": "rect"}.get(shape, "path")


def _ticks(low: float, high: float) -> list[float]:
    """About eight round values (1, 2, 2.5 or 5 times a power of ten) from ``low`` to ``high``."""
    raw = (high - low) / 8
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * 0.999)
    first = math.ceil(low / step)
    return [round(k * step, 9) for k in range(first, math.floor(high / step) + 1)]


def _svg(marks: list[Mark], title: str, last: float) -> str:
    pods = sorted({m.pod for m in marks})
    lanes = max(len(pods), 1)
    left = 16 + _CHAR * max([len(p) for p in pods] + [3])
    top = 34 if title else 14
    legend = [label for _, _, label in MARKERS.values()] + [FAULT_LABEL] + [f"PodScheduled: {s}" for s in STATE_COLORS]
    plot_height = max(lanes * _LANE + 2 * _PAD, len(legend) * _LEGEND_ROW)  # lanes spread to the legend's height
    pitch = (plot_height - 2 * _PAD) / lanes
    bar = min(0.6 * pitch, _LANE)
    legend_x = left + _PLOT_WIDTH + 20
    width = max(legend_x + 30 + _CHAR * max(len(label) for label in legend), left + _CHAR * len(title) + 10)
    height = top + plot_height + _AXIS
    low, high = -last * 0.02, last * 1.02

    def x_of(t: float) -> float:
        return left + (t - low) / (high - low) * _PLOT_WIDTH

    def y_of(lane: int) -> float:
        return top + _PAD + (lane + 0.5) * pitch

    bottom = top + plot_height
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
            f'viewBox="0 0 {_n(width)} {_n(height)}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" '
            f'font-size="{_FONT}">'),
           '<rect width="100%" height="100%" fill="#ffffff"/>']
    if title:
        out.append(f'<text class="title" x="{_n(left)}" y="{top - 10}" font-size="{_FONT + 1}">{_t(title)}</text>')
    out.append('<g class="axis">')
    for tick in _ticks(low, high):
        x = _n(x_of(tick))
        out.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="#b0b0b0" stroke-opacity="0.3"/>'
                   f'<line x1="{x}" y1="{bottom}" x2="{x}" y2="{bottom + 4}" stroke="#000000"/>'
                   f'<text class="tick" x="{x}" y="{bottom + 16}" text-anchor="middle">{tick + 0.0:g}</text>')
    out.append(f'<rect x="{_n(left)}" y="{top}" width="{_PLOT_WIDTH}" height="{plot_height}" fill="none" '
               f'stroke="#000000" stroke-width="0.8"/>'
               f'<text class="label" x="{_n(left + _PLOT_WIDTH / 2)}" y="{bottom + 33}" '
               f'text-anchor="middle">seconds</text></g>')
    by_pod: dict[str, list[Mark]] = {pod: [] for pod in pods}
    for m in marks:
        by_pod[m.pod].append(m)
    for lane, pod in enumerate(pods):
        y = y_of(lane)
        out.append(f'<g class="lane"><text class="pod" x="{_n(left - 8)}" y="{_n(y + 4)}" '
                   f'text-anchor="end">{_t(pod)}</text>')
        states = [(m.time, m.state) for m in by_pod[pod] if m.state]
        for (start, state), (stop, _) in zip(states, states[1:] + [(last, "")]):
            x0, x1 = x_of(start), x_of(start + max(stop - start, last * 0.002))
            out.append(f'<rect class="state" x="{_n(x0)}" y="{_n(y - bar / 2)}" width="{_n(x1 - x0)}" '
                       f'height="{_n(bar)}" fill="{STATE_COLORS.get(state, OTHER_STATE_COLOR)}" '
                       f'fill-opacity="0.6"><title>{_t(pod)}: PodScheduled {_t(state)} from {start:g} s'
                       f'</title></rect>')
        for kind, (shape, color, label) in MARKERS.items():
            for m in by_pod[pod]:
                if m.kind == kind:
                    out.append(f'{_shape(shape, x_of(m.time), y, color)} class="mark {kind}">'
                               f'<title>{_t(pod)}: {label} at {m.time:g} s</title></{_tag(shape)}>')
        for m in by_pod[pod]:
            if m.fault:
                out.append(f'<circle class="fault" cx="{_n(x_of(m.time))}" cy="{_n(y)}" r="{_RING}" fill="none" '
                           f'stroke="{FAULT_COLOR}" stroke-width="1.5"><title>{_t(pod)}: fault rule '
                           f'{_t(m.fault)} answered at {m.time:g} s</title></circle>')
        out.append("</g>")
    out.append('<g class="legend">')
    symbols = [f'{_shape(shape, legend_x + 8, 0, color)}/>' for shape, color, _ in MARKERS.values()]
    symbols.append(f'<circle cx="{_n(legend_x + 8)}" cy="0" r="{_n(_MARK + 1)}" fill="none" stroke="{FAULT_COLOR}" '
                   f'stroke-width="1.5"/>')
    symbols += [f'<rect x="{_n(legend_x)}" y="-5" width="16" height="10" fill="{color}" fill-opacity="0.6"/>'
                for color in STATE_COLORS.values()]
    for row, (symbol, label) in enumerate(zip(symbols, legend)):
        y = top + 8 + row * _LEGEND_ROW
        out.append(f'<g transform="translate(0 {y})">{symbol}'
                   f'<text x="{_n(legend_x + 24)}" y="4">{_t(label)}</text></g>')
    out.append("</g></svg>\n")
    return "\n".join(out)


def render_timeline(entries: Iterable[JournalEntry], path: str | Path, *, title: str = "",
                    namespace: str | None = None, end: float | None = None) -> Path:
    """Draw the timeline of ``entries`` (of ``namespace`` only, when given) to an SVG file at
    ``path``; the time axis runs to ``end`` virtual seconds, or further if a request came later."""
    marks = timeline_marks(entries, namespace)
    last = max([m.time for m in marks] + [end or 0.0, 1.0])
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(_svg(marks, title, last), encoding="utf-8")
    return p
