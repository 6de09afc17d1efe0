"""What the kinds' printers share: the printer's type, the cell formats and the default row.

A kind's printer (its declaration's ``printer``, a :data:`Printer`) gives the cells of a row of
the kind's server-side Table, as kube-apiserver's ``pkg/printers/internalversion/printers.go``
prints them (v1.37), always in the wide layout (``pkg/printers/storage`` asks for ``Wide: true``;
kubectl hides the priority-1 columns unless ``-o wide``). The formats several printers use are
here: ``HumanDuration`` ages from the injected clock, ``<none>`` and ``<unknown>`` placeholders,
label maps and selectors as ``labels.FormatLabels`` and ``labels.Selector.String`` print them,
``layoutContainerCells``, a load balancer's ingress points, and the readers of stored JSON
(:func:`at` reads a path where a missing or null map is None). A cell is typed as the Go printer
typed it (an integer cell is a JSON number even under a "string" column).

Trade-off: printers read the JSON object as stored rather than a typed model, so a field the
server would have defaulted is defaulted where a printer reads it, with kube-apiserver's default:
the registry does not default every such field on write, and a Table must not show the gap.
Quantities are printed as stored (the store keeps them canonical, as the real server does).

The row of a kind without a printer is here too (:func:`default_row`, after
``rest.NewDefaultTableConvertor``). The Tables' column definitions are generated data, read where
the Tables are rendered (``fake_apiserver/_endpoints/columns.py``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

__all__ = ["Cells", "Printer", "age_of", "at", "condition", "container_cells", "count_of", "default_row",
           "format_labels", "format_selector", "human_duration", "load_balancer_points", "name_age", "name_of",
           "parse_time", "selector_string", "since"]

Obj = dict[str, Any]
Cells = list[Any]
Printer = Callable[[Obj, datetime], tuple[Cells, list[Obj]]]
"""A row printer: a function of one object (JSON, as stored) and the injected clock's time that
gives the row's cells and its conditions."""


def human_duration(seconds_total: float) -> str:
    """``apimachinery/pkg/util/duration.HumanDuration``, on a duration in seconds."""
    micros = int(seconds_total * 1_000_000)
    seconds = -(-micros // 1_000_000) if micros < 0 else micros // 1_000_000  # Go truncates to zero
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 time a client wrote, as an aware datetime (UTC when it names no zone), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)


def since(timestamp: Any, now: datetime) -> str:
    """``translateTimestampSince``: ``<unknown>`` for a missing time."""
    then = parse_time(timestamp)
    return "<unknown>" if then is None else human_duration((now - then).total_seconds())


def count_of(value: Any) -> int:
    """A count from what the client wrote; anything but an integer counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def at(obj: Obj, *path: str) -> Any:
    """The value at ``path`` or None; a missing or null map on the way is None."""
    value: Any = obj
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def name_of(obj: Obj) -> str:
    return str(at(obj, "metadata", "name") or "")


def age_of(obj: Obj, now: datetime) -> str:
    return since(at(obj, "metadata", "creationTimestamp"), now)


def format_labels(labels: Any) -> str:
    """``labels.FormatLabels``: sorted ``k=v`` pairs, ``<none>`` when there are none."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def selector_string(selector: Any) -> str:
    """``metav1.LabelSelectorAsSelector(s).String()``: requirements sorted by key; "" for none."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        requirements.append((key, f"{key}={value}"))
    for expr in selector.get("matchExpressions") or []:
        key, op = str(expr.get("key", "")), expr.get("operator")
        values = ",".join(sorted(str(v) for v in expr.get("values") or []))
        text = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                "DoesNotExist": f"!{key}"}.get(str(op), key)
        requirements.append((key, text))
    return ",".join(text for _, text in sorted(requirements, key=lambda r: r[0]))


def format_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: ``<none>`` for a nil or empty selector."""
    return selector_string(selector) or "<none>"


def container_cells(spec: Any) -> tuple[str, str]:
    """``layoutContainerCells``: names and images, comma-joined."""
    containers = (spec or {}).get("containers") or [] if isinstance(spec, dict) else []
    return (",".join(str(c.get("name", "")) for c in containers),
            ",".join(str(c.get("image", "")) for c in containers))


def condition(obj: Obj, type_: str) -> Obj | None:
    return next((c for c in at(obj, "status", "conditions") or [] if c.get("type") == type_), None)


def load_balancer_points(status: Any) -> list[str]:
    """The ingress points of a load balancer status, IPs or else hostnames, sorted and unique."""
    found = {str(i.get("ip") or i.get("hostname")) for i in (status or {}).get("ingress") or []
             if i.get("ip") or i.get("hostname")}
    return sorted(found)


def name_age(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """The printer of the kinds whose Table is NAME and AGE."""
    return [name_of(obj), age_of(obj, now)], []


def default_row(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``rest.NewDefaultTableConvertor``: the name and the creationTimestamp as written (RFC 3339),
    the row of a kind without a printer of its own."""
    return [name_of(obj), at(obj, "metadata", "creationTimestamp")], []
