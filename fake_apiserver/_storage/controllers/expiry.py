"""Objects that expire a time after their last write: kube-apiserver's ``--event-ttl``.

kube-apiserver stores each Event with an etcd lease of the TTL (1 h by default), renewed by every
write of it; when the lease runs out etcd deletes the Event and its watchers see it go.
:class:`Expiry` does that for the kinds a :class:`~fake_apiserver._registry.controllers.Expiry`
names (:data:`~fake_apiserver._registry.serverkinds.EXPIRIES`), on the store's clock:
an object's due time is set at each write and dropped at its delete, and the objects whose time
has come are deleted at the next commit of any object (the fake has no timer of its own, so an
idle server keeps them until something is written).

An expiry is etcd's own delete: a new resourceVersion and a ``DELETED`` event, but no controller
sees it (the store's ``store_change``, not its ``commit``).
"""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta
from typing import Any, Callable, Protocol

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry import controllers
from fake_apiserver._registry.controllers import Stored
from fake_apiserver._registry.serverkinds import GroupResource

__all__ = ["Expiry", "ExpiringStore"]

Obj = dict[str, Any]


class ExpiringStore(Protocol):
    """What the controller uses of the store."""

    def objects(self, resource: GroupResource) -> Stored: ...

    def spec_of(self, resource: GroupResource) -> KindSpec | None: ...

    def next_resource_version(self) -> int: ...

    def store_change(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None: ...


class Expiry:
    """Expire the objects ``rule`` names ``seconds`` after their last write, at ``now()``; run by
    the store after every commit (:attr:`resources` None: an expired object goes at the next
    write of any kind)."""

    resources = None

    def __init__(self, store: ExpiringStore, rule: controllers.Expiry, seconds: float,
                 now: Callable[[], datetime]) -> None:
        self.store = store
        self.rule = rule
        self.ttl = timedelta(seconds=seconds)
        self.now = now
        #: (due, key) in write order; an object written again later has a newer entry
        self._queue: deque[tuple[datetime, tuple[str, str]]] = deque()
        #: the due time of each object's latest write
        self._due: dict[tuple[str, str], datetime] = {}
        self._expiring = False

    def observe(self, spec: KindSpec, old: Obj | None, new: Obj | None) -> None:
        if self._expiring:
            return
        if (spec.group, spec.resource) in self.rule.resources:
            obj = new if new is not None else old
            assert obj is not None
            key = (obj["metadata"].get("namespace") or "", obj["metadata"]["name"])
            if new is None:
                self._due.pop(key, None)
            else:
                due = self.now() + self.ttl
                self._due[key] = due
                self._queue.append((due, key))
        if self._queue:
            self._expire()

    def _expire(self) -> None:
        now = self.now()
        self._expiring = True
        try:
            while self._queue and self._queue[0][0] <= now:
                due, key = self._queue.popleft()
                if self._due.get(key) != due:
                    continue  # written again since, or gone
                del self._due[key]
                old = self.store.objects(self.rule.storage).get(key)
                if old is not None:
                    spec = self.store.spec_of(self.rule.storage)
                    assert spec is not None
                    self.store.store_change(spec, old, None, self.store.next_resource_version())
        finally:
            self._expiring = False
