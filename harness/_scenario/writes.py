"""Writes as effects: what a request did to an object, read from the journal.

A criterion says "PodScheduled became False/NotReadyForScheduling at t", "a write removed it at
t", "this write left the other conditions as they were"; it never says "a strategic merge PATCH
of pods/p/status whose body holds ...". :class:`Write` is one journaled write seen that way: its
time, its answer, and the object before and after it (:mod:`fake_apiserver._storage.effects`), whatever
verb (create, update, patch of any type, delete, binding) carried it. A write a fault rule refused
shows the effect it *would* have had (``intended``), when a rule asked for a preview.

Time is the scheduler's too: :func:`delivered` finds when a watch other than the scenario's own
(the scheduler's informer) was handed an object at or after a resourceVersion, so a window such
as "5 s after the scheduler saw the pod" starts where the scheduler's clock could start, on any
backend. A scheduler that polls with LIST instead of watching is covered by its first LIST or GET
of that kind after the write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from fake_apiserver import JournalEntry
from fake_apiserver import changes_condition, condition_of
from harness._scenario.expectations import format_condition

__all__ = ["Write", "delivered", "format_writes", "writes_of"]

Obj = dict[str, Any]

#: Fields every write changes or the server owns: left out when telling whether a write changed anything.
_VOLATILE_META = ("resourceVersion", "managedFields", "generation")


def _without_volatile(obj: Obj | None) -> Obj | None:
    if obj is None:
        return None
    out = dict(obj)
    out["metadata"] = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _VOLATILE_META}
    return out


@dataclass(frozen=True)
class Write:
    """One journaled write of one object, seen as its effect."""

    entry: JournalEntry

    @property
    def time(self) -> float:
        return self.entry.time

    @property
    def code(self) -> int:
        return self.entry.code

    @property
    def applied(self) -> bool:
        """The server stored it (``before``/``after`` are what it did)."""
        return self.entry.effect == "applied"

    @property
    def intended(self) -> bool:
        """A fault refused it; ``before``/``after`` are what it would have done."""
        return self.entry.effect == "intended"

    @property
    def ok(self) -> bool:
        """Answered 2xx (a dropped connection is journaled with code 0)."""
        return 200 <= self.entry.code < 300

    @property
    def before(self) -> Obj | None:
        return self.entry.before if isinstance(self.entry.before, dict) else None

    @property
    def after(self) -> Obj | None:
        return self.entry.after if isinstance(self.entry.after, dict) else None

    @property
    def binding(self) -> bool:
        return self.entry.subresource == "binding"

    @property
    def known(self) -> bool:
        """The journal knows what this write did or would have done."""
        return self.entry.effect in ("applied", "intended")

    def condition_before(self, type_: str = "PodScheduled") -> Obj | None:
        return condition_of(self.before, type_)

    def condition_after(self, type_: str = "PodScheduled") -> Obj | None:
        return condition_of(self.after, type_)

    def changes(self, type_: str = "PodScheduled") -> bool:
        """The condition ``type_`` differs (presence, status, reason or message) before and after."""
        return self.known and changes_condition(type_)(self.before, self.after)

    @property
    def redundant(self) -> bool:
        """Stored and changed nothing (a write the API answered without a change)."""
        return self.applied and _without_volatile(self.before) == _without_volatile(self.after)

    def other_conditions_kept(self, type_: str = "PodScheduled") -> bool:
        """Every condition but ``type_`` is the same after the write as before."""
        def others(obj: Obj | None) -> list[Obj]:
            return sorted((c for c in ((obj or {}).get("status") or {}).get("conditions") or []
                           if c.get("type") != type_), key=lambda c: str(c.get("type")))
        return others(self.before) == others(self.after)

    def describe(self, type_: str = "PodScheduled") -> str:
        """``t=5.000 #12 patch pods/status -> 200 [applied]: PodScheduled absent -> PodScheduled=False reason=...``"""
        e = self.entry
        sub = f"/{e.subresource}" if e.subresource else ""
        kind = e.content_type.split(";")[0].split("/")[-1] if e.verb == "patch" else ""
        tag = f" [fault {e.fault}]" if e.fault else ""
        what = e.effect or "effect unknown"
        change = f"{format_condition(self.condition_before(type_), type_)} -> {format_condition(self.condition_after(type_), type_)}"
        if self.redundant:
            change += " (nothing changed)"
        shape = f" ({kind})" if kind else ""
        return f"t={e.time:.3f} #{e.seq} {e.verb}{shape} {e.resource}{sub} {e.namespace}/{e.name} -> {e.code}{tag} [{what}]: {change}"


def writes_of(entries: Iterable[JournalEntry], resource: str, namespace: str, name: str) -> list[Write]:
    """The writes (any verb, any subresource) of one object, in journal order."""
    out = []
    for e in entries:
        if e.type != "request" or e.verb not in ("create", "update", "patch", "delete"):
            continue
        if resource not in (e.resource, e.resource.partition(".")[0]) or e.namespace != namespace:
            continue
        target = e.name
        if not target and e.verb == "create":
            obj = e.after if isinstance(e.after, dict) else e.body if isinstance(e.body, dict) else {}
            target = str((obj.get("metadata") or {}).get("name", ""))
        if target == name:
            out.append(Write(e))
    return out


def format_writes(writes: Iterable[Write], type_: str = "PodScheduled") -> str:
    """Writes for a failure message, one a line (``  (none)`` when there are none)."""
    return "\n".join(f"  {w.describe(type_)}" for w in writes) or "  (none)"


def delivered(entries: Iterable[JournalEntry], own: set[int], resource: str, namespace: str, name: str,
              rv: int, since: float, *, deleted: bool = False) -> float | None:
    """When a watch not in ``own`` (the scheduler's) was first handed ``namespace/name`` at
    resourceVersion ``rv`` or later, no earlier than ``since`` (``deleted``: its DELETED event); for
    a scheduler that never watches the kind, when its first LIST or GET of the kind after ``since``
    started (it polls). A request that cannot return the object (another namespace's, another
    object's: an adapter's readiness probe watching its own pod) is none of these. ``None``: not
    yet."""
    wanted = ("DELETED",) if deleted else ("ADDED", "MODIFIED")
    foreign_watches: set[int] = set()
    polled: float | None = None
    for e in entries:
        if e.type == "request":
            if e.seq in own or resource not in (e.resource, e.resource.partition(".")[0]):
                continue
            if (e.namespace and e.namespace != namespace) or (e.name and e.name != name):
                continue  # cannot return the object
            if e.verb == "watch":
                foreign_watches.add(e.seq)
            elif e.verb in ("list", "get") and e.time >= since and polled is None and 200 <= e.code < 300:
                polled = e.time
            continue
        if (e.type == "watch-event" and e.watch in foreign_watches and e.name == name and e.namespace == namespace
                and e.event in wanted and e.time >= since and e.rv.isdigit() and int(e.rv) >= rv):
            return e.time
    return None if foreign_watches else polled
