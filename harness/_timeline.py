"""A scenario's timeline as a picture: what happened to each pod, and when, read from the journal.

A KEP reviewer reading a verdict like "the condition appeared 5 s after the rejection" wants to
see it. This module draws one lane per pod: a bar for the pod's ``PodScheduled`` state over time
(as the requests in the journal set it: ``SchedulingGated`` at create, a status PATCH's reason,
``Scheduled`` at binding) and markers for the requests that matter (create, gate changes,
binding, status PATCHes accepted or refused, events, deletes), with the requests a fault rule
answered ringed in red.

Drawn with matplotlib (a well-kept library; nothing here is hand-made SVG) through its
object-oriented ``Figure`` API, so no global pyplot state is touched and it is safe in any
process. The SVG is reproducible: text stays text (``svg.fonttype: none``, also searchable in a
browser), ids come from a fixed salt, and no date is written, so the same journal gives the same
file byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from fake_apiserver import JournalEntry

__all__ = ["Mark", "render_timeline", "timeline_marks"]

STATE_COLORS = {
    "SchedulingGated": "#9e9e9e",
    "NotReadyForScheduling": "#ffb74d",
    "Unschedulable": "#e57373",
    "SchedulerError": "#ba68c8",
    "Scheduled": "#81c784",
}
MARKERS = {  # kind: (matplotlib marker, colour, legend label)
    "created": ("o", "#616161", "created"),
    "gates": ("D", "#7e57c2", "pod PATCH (gates)"),
    "bound": ("^", "#2e7d32", "bound"),
    "status": ("s", "#1565c0", "status PATCH"),
    "refused": ("X", "#c62828", "request refused"),
    "event": ("*", "#ef6c00", "event"),
    "deleted": ("x", "#000000", "deleted"),
}


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


def render_timeline(entries: Iterable[JournalEntry], path: str | Path, *, title: str = "",
                    namespace: str | None = None, end: float | None = None) -> Path:
    """Draw the timeline of ``entries`` to an SVG at ``path`` (a PNG if it ends in ``.png``)."""
    # matplotlib: 0.3 s to import, and a run with --no-timeline never draws
    import matplotlib
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    marks = timeline_marks(entries, namespace)
    pods = sorted({m.pod for m in marks})
    last = max([m.time for m in marks] + [end or 0.0, 1.0])
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "schedharness", "font.size": 9}):
        fig = Figure(figsize=(10, max(3.6, 1.2 + 0.45 * len(pods))))  # room for the legend
        ax = fig.add_subplot()
        for lane, pod in enumerate(pods):
            states = [(m.time, m.state) for m in marks if m.pod == pod and m.state]
            for (start, state), (stop, _) in zip(states, states[1:] + [(last, "")]):
                ax.broken_barh([(start, max(stop - start, last * 0.002))], (lane - 0.3, 0.6),
                               color=STATE_COLORS.get(state, "#bdbdbd"), alpha=0.6)
            for kind, (marker, color, _) in MARKERS.items():
                times = [m.time for m in marks if m.pod == pod and m.kind == kind]
                if times:
                    ax.scatter(times, [lane] * len(times), marker=marker, color=color, s=40, zorder=3)
            faulted = [m.time for m in marks if m.pod == pod and m.fault]
            if faulted:
                ax.scatter(faulted, [lane] * len(faulted), marker="o", s=160, facecolors="none",
                           edgecolors="#d50000", linewidths=1.5, zorder=4)
        ax.set_yticks(range(len(pods)), pods)
        ax.set_ylim(-0.7, max(len(pods), 1) - 0.3)
        ax.set_xlim(-last * 0.02, last * 1.02)
        ax.set_xlabel("seconds")
        ax.invert_yaxis()
        ax.grid(axis="x", alpha=0.3)
        if title:
            ax.set_title(title, loc="left")
        handles: list[Artist] = [Line2D([], [], marker=marker, color=color, linestyle="", label=label)
                   for marker, color, label in MARKERS.values()]
        handles.append(Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor="#d50000",
                              linestyle="", label="fault fired"))
        handles += [Patch(color=color, alpha=0.6, label=f"PodScheduled: {state}") for state, color in STATE_COLORS.items()]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.suffix == ".png":  # a raster copy, for a quick look
            fig.savefig(p, format="png", dpi=100)
        else:
            fig.savefig(p, format="svg", metadata={"Date": None})
    return p
