"""What a write did: the object before and after it, and predicates over that pair.

A conformance criterion must judge what happened at the API, not how the request was shaped:
the same ``PodScheduled`` condition can be written by a strategic merge patch, a JSON merge
patch, an RFC 6902 patch or a PUT of the status, and a correct scheduler may use any of them.
So every write the journal records carries its *effect*, the object as it was just before the
write and as it was stored just after (``None`` for "did not exist"), and fault rules can match a
write by the effect it *would* have (:class:`EffectPredicate` in a
:class:`~fake_apiserver._server.faults.Match`).

Where the pair comes from:

* **The fake** knows it exactly: the store reports each commit (old, new) to
  :func:`record_commit`, and the journal has put the request being served in
  :data:`current_request` (a context variable: the store is synchronous and runs inside the
  request's task, so the pair is the request's own, whatever else runs concurrently). A write
  that is refused commits nothing and has no applied effect.
* **The fault proxy** has no store: it reads the object from the upstream just before forwarding
  the write and takes the answer (or a read after it) as the result. Another writer's change in
  between would be folded into the effect; the module docstring of
  :mod:`fake_apiserver._server.proxy` says so.
* **A preview** (what a write would do, before it is served) is a dry run: the fake runs the
  request against its store with ``dryRun``, the proxy sends it upstream with ``dryRun=All``.
  Fault rules that match an effect ask for one, and the journal keeps it on a write a fault
  refused, marked ``intended`` rather than ``applied``.
"""

from __future__ import annotations

import contextvars
import json
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Awaitable, Callable

__all__ = [
    "Effect",
    "EffectPredicate",
    "Previewer",
    "WRITE_VERBS",
    "binds",
    "changes_condition",
    "condition_of",
    "current_request",
    "is_write",
    "record_commit",
    "removes_condition",
    "sets_condition",
    "sets_field",
]

Obj = dict[str, Any]

#: Verbs that change stored objects (a ``create`` of ``pods/binding`` is a write of the pod).
WRITE_VERBS = frozenset({"create", "update", "patch", "delete"})

#: The request the journal is recording in this task: a :class:`~fake_apiserver._endpoints.request.RequestInfo`.
current_request: contextvars.ContextVar[Any] = contextvars.ContextVar("schedharness_current_request", default=None)


@dataclass(frozen=True)
class Effect:
    """The object before a write and after it (``None``: absent)."""

    before: Obj | None
    after: Obj | None


#: ``preview(info)``: the effect a write would have, or ``None`` when it would be refused or
#: cannot be told.
Previewer = Callable[[Any], Awaitable["Effect | None"]]


def is_write(info: Any) -> bool:
    """A request that writes one named object (or creates one): the requests with an effect. A
    dry run (``dryRun=All``) writes nothing."""
    return info.is_resource and info.verb in WRITE_VERBS and bool(info.spec) and info.query.get("dryRun") != "All"


def record_commit(group: str, resource: str, old: Obj | None, new: Obj | None) -> None:
    """The store's commit hook: attach ``(old, new)`` to the request being served, when the commit
    is that request's own object (a namespace delete also deletes what it holds: only the
    namespace is the request's effect). A delete that marks the object and then removes it
    commits twice; its effect runs from before the first to after the second."""
    info = current_request.get()
    if info is None or info.spec is None or (info.group, info.resource) != (group, resource):
        return
    obj = new if new is not None else old
    name = str(((obj or {}).get("metadata") or {}).get("name", ""))
    if info.name and info.name != name:
        return
    first = info.extra.get("effect")
    if first is None:
        info.extra["effect"] = Effect(old, new)
    elif first.after is not None and first.after is old:  # a delete: marked, then deleted
        info.extra["effect"] = Effect(first.before, new)


def condition_of(obj: Mapping[str, Any] | None, type_: str) -> Obj | None:
    """The ``status.conditions`` element of ``type_`` (a copy), or ``None``."""
    for condition in ((obj or {}).get("status") or {}).get("conditions") or []:
        if isinstance(condition, dict) and condition.get("type") == type_:
            return dict(condition)
    return None


class EffectPredicate:
    """A named test of ``(before, after)``; combine with ``&``, ``|`` and ``~``."""

    def __init__(self, description: str, test: Callable[[Obj | None, Obj | None], bool]) -> None:
        self.description = description
        self._test = test

    def __call__(self, before: Obj | None, after: Obj | None) -> bool:
        return bool(self._test(before, after))

    def __and__(self, other: EffectPredicate) -> EffectPredicate:
        return EffectPredicate(f"({self.description}) and ({other.description})",
                               lambda b, a: self(b, a) and other(b, a))

    def __or__(self, other: EffectPredicate) -> EffectPredicate:
        return EffectPredicate(f"({self.description}) or ({other.description})",
                               lambda b, a: self(b, a) or other(b, a))

    def __invert__(self) -> EffectPredicate:
        return EffectPredicate(f"not ({self.description})", lambda b, a: not self(b, a))

    def __repr__(self) -> str:
        return f"EffectPredicate({self.description!r})"


def _fits(condition: Obj | None, fields: Mapping[str, str]) -> bool:
    return condition is not None and all(condition.get(k) == v for k, v in fields.items())


def _words(type_: str, fields: Mapping[str, str]) -> str:
    return type_ + "".join(f" {k}={json.dumps(v)}" for k, v in sorted(fields.items()))


def sets_condition(type_: str, **fields: str) -> EffectPredicate:
    """The write leaves a condition of ``type_`` with these ``fields`` (``status``, ``reason``,
    ``message``) where there was none such before."""
    return EffectPredicate(
        f"sets condition {_words(type_, fields)}",
        lambda b, a: _fits(condition_of(a, type_), fields) and not _fits(condition_of(b, type_), fields))


def removes_condition(type_: str, **fields: str) -> EffectPredicate:
    """Before the write the object had a condition of ``type_`` with these ``fields``; after it,
    it has none such (the element deleted, or changed into another)."""
    return EffectPredicate(
        f"removes condition {_words(type_, fields)}",
        lambda b, a: _fits(condition_of(b, type_), fields) and not _fits(condition_of(a, type_), fields))


_CONDITION_KEYS = ("status", "reason", "message")


def changes_condition(type_: str) -> EffectPredicate:
    """The condition of ``type_`` differs in presence, status, reason or message."""

    def key(obj: Obj | None) -> tuple[Any, ...] | None:
        c = condition_of(obj, type_)
        return None if c is None else tuple(c.get(k) for k in _CONDITION_KEYS)

    return EffectPredicate(f"changes condition {type_}", lambda b, a: key(b) != key(a))


def binds() -> EffectPredicate:
    """The write gives an unbound pod a node (``spec.nodeName``)."""
    return EffectPredicate("binds the pod", lambda b, a: bool(((a or {}).get("spec") or {}).get("nodeName"))
                           and not ((b or {}).get("spec") or {}).get("nodeName"))


def sets_field(*path: str) -> EffectPredicate:
    """The value at ``path`` (``"status", "allocation"``) goes from absent or null to set."""

    def at(obj: Obj | None) -> Any:
        cur: Any = obj
        for key in path:
            if not isinstance(cur, dict):
                return None
            cur = cur.get(key)
        return cur

    return EffectPredicate(f"sets {'.'.join(path)}", lambda b, a: at(a) is not None and at(b) is None)
