"""The in-use protection controllers, played at once after a commit.

kube-controller-manager's pvc-protection, pv-protection and vac-protection controllers remove a
protection finalizer from an object being deleted once nothing uses it; with no finalizer left,
the object goes. :class:`InUseProtection` plays every such controller declared in
:data:`~fake_apiserver._registry.serverkinds.PROTECTIONS` and names no kind: which finalizer, which
kind carries it, what keeps it in use and after which commits to look again are the
declarations' (:class:`~fake_apiserver._registry.controllers.Protection`).

Trade-off: the real controllers act a moment later, through the API; here the finalizer comes off
before the write that freed the object is answered, so a client sees the object go in the same
watch stream, right after that write's event. A finalizer's removal is the controller's own
write: one more resourceVersion, a ``MODIFIED`` event (or ``DELETED`` when it was the last), and
the store's controllers run on it in turn.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.controllers import Protection, Recheck, Stored
from fake_apiserver._registry.serverkinds import GroupResource

__all__ = ["InUseProtection", "ProtectedStore"]

Obj = dict[str, Any]


class ProtectedStore(Protocol):
    """What the controllers use of the store."""

    def objects(self, resource: GroupResource) -> Stored: ...

    def spec_of(self, resource: GroupResource) -> KindSpec | None: ...

    def next_resource_version(self) -> int: ...

    def commit(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None: ...


class InUseProtection:
    """The protection controllers of ``rules``, run by ``store`` after each commit of a resource
    in :attr:`resources` (the store's controller protocol)."""

    def __init__(self, store: ProtectedStore, rules: Sequence[Protection]) -> None:
        self.store = store
        #: per committed resource, what to look at again, in the order of ``rules``
        self._rechecks: dict[GroupResource, tuple[tuple[Protection, Recheck], ...]] = {}
        for rule in rules:
            for resource, recheck in rule.recheck.items():
                self._rechecks[resource] = self._rechecks.get(resource, ()) + ((rule, recheck),)
        self.resources = frozenset(self._rechecks)

    def observe(self, spec: KindSpec, old: Obj | None, new: Obj | None) -> None:
        for rule, recheck in self._rechecks[(spec.group, spec.resource)]:
            if recheck.when is not None and not recheck.when(old, new):
                continue
            if recheck.scope == "object":
                if new is not None:
                    self._look_at(rule, spec, new)
                continue
            protected = self.store.objects(rule.resource)
            if not protected:
                continue
            protected_spec = self.store.spec_of(rule.resource)
            assert protected_spec is not None
            namespace = None
            if recheck.scope == "namespace":
                committed = old if old is not None else new
                assert committed is not None
                namespace = committed["metadata"].get("namespace") or ""
            # a snapshot: a release commits, and the store's controllers run on that commit too
            for (ns, _), obj in list(protected.items()):
                if namespace is None or ns == namespace:
                    self._look_at(rule, protected_spec, obj)

    def _look_at(self, rule: Protection, spec: KindSpec, obj: Obj) -> None:
        """Remove ``rule``'s finalizer from ``obj`` if it is being deleted and nothing uses it."""
        meta = obj["metadata"]
        if not meta.get("deletionTimestamp") or rule.finalizer not in (meta.get("finalizers") or []):
            return
        if rule.in_use(obj, *(self.store.objects(resource) for resource in rule.reads)):
            return
        rest = [f for f in meta["finalizers"] if f != rule.finalizer]
        rv = self.store.next_resource_version()
        if rest:
            released = json_copy(obj)
            released["metadata"]["finalizers"] = rest
            released["metadata"]["resourceVersion"] = str(rv)
            self.store.commit(spec, obj, released, rv)
        else:
            self.store.commit(spec, obj, None, rv)
