"""Graceful deletion and finalizers: ``Store.Delete`` with ``rest.BeforeDelete``, and
``Store.DeleteCollection`` (``apiserver/pkg/registry/generic/registry/store.go``,
``apiserver/pkg/registry/rest/delete.go``).

A delete removes the object at once, or marks it for deletion (``deletionTimestamp``) and keeps
it: while its kind's grace period runs (a pod's, until its kubelet deletes it with 0), or until
its finalizers are gone (a write that removes the last one deletes it: the store's update, or a
controller's). The kind's strategy says which (:meth:`~fake_apiserver._registry.generic.Strategy.grace_period`,
:meth:`~fake_apiserver._registry.generic.Strategy.mark_deleted`). Deleting a namespace deletes
what it holds, at once. :func:`kept_after_delete` tells an answer that is an object still stored
from a deleted object or a ``Status``.
"""

from __future__ import annotations

from datetime import timedelta
from collections.abc import Mapping
from typing import Any, Protocol

from fake_apiserver._machinery.clock import Clock, format_time, parse_time
from fake_apiserver._machinery.errors import Conflict
from fake_apiserver._machinery.jsonutil import copy_stored
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.serverkinds import NAMESPACES, GroupResource
from fake_apiserver._storage.etcd import ordered

__all__ = ["DeletingStore", "delete", "delete_collection", "kept_after_delete"]

Obj = dict[str, Any]


class DeletingStore(Protocol):
    """What a delete uses of the store."""

    clock: Clock

    @property
    def kinds(self) -> tuple[KindSpec, ...]: ...

    @property
    def resource_version(self) -> int: ...

    def strategy(self, spec: KindSpec) -> Strategy: ...

    def get(self, spec: KindSpec, namespace: str | None, name: str) -> Obj: ...

    def list(self, spec: KindSpec, namespace: str | None, *, label_selector: str = "",
             field_selector: str = "") -> Obj: ...

    def objects(self, resource: GroupResource) -> Mapping[tuple[str, str], Obj]: ...

    def now(self) -> str: ...

    def next_resource_version(self) -> int: ...

    def commit(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None: ...


def delete(
    store: DeletingStore,
    spec: KindSpec,
    namespace: str | None,
    name: str,
    *,
    options: Obj | None = None,
    dry_run: bool = False,
    registry: bool = True,
) -> Obj:
    """``Store.Delete`` with ``rest.BeforeDelete``: delete now, or mark for deletion and keep.

    ``options`` is the request's ``DeleteOptions`` (:func:`check_delete_options` has passed
    it). A pod is deleted gracefully (:meth:`~fake_apiserver._registry.strategy.Strategy.grace_period`):
    a first delete sets ``deletionTimestamp`` (now plus the grace period),
    ``deletionGracePeriodSeconds`` and bumps ``generation``; with a period above 0 the pod
    stays until a delete with a shorter period (its kubelet's, with 0) comes, and a delete
    that does not shorten it changes nothing. A period of 0 is written first and then deleted,
    so a watcher sees the pod marked before it goes, as from a real server. An object with
    finalizers is marked (``markAsDeleting``: now, period 0) and kept until they are gone.

    The fake has no garbage collector, so it behaves as a server started with
    ``--enable-garbage-collector=false``: ``propagationPolicy`` and ``orphanDependents`` are
    validated but add no ``orphan``/``foregroundDeletion`` finalizer that nothing would remove.

    The answer: the object as now stored when kept; otherwise the deleted object for the
    kinds whose registry sets ``ReturnDeletedObject`` and a ``Status`` naming it for the rest
    (``Store.finalizeDelete``). :func:`kept_after_delete` tells the two apart. Preconditions
    fail early, as ``rest.BeforeDelete`` checks them, with a conflict on the kind. A kind's
    registry may refuse first (system priority classes,
    :meth:`~fake_apiserver._registry.strategy.Strategy.check_delete`), unless ``registry`` is False:
    ``Store.DeleteCollection`` calls the generic store's own ``Delete``, past a kind's
    ``REST.Delete`` override.
    """
    options = options or {}
    if registry:
        store.strategy(spec).check_delete(name)
    old = store.get(spec, namespace, name)
    pre = options.get("preconditions") or {}
    old_meta = old["metadata"]
    if pre.get("uid") and pre["uid"] != old_meta["uid"]:
        raise Conflict.of(
            spec.kind, spec.group, name,
            f"the UID in the precondition ({pre['uid']}) does not match the UID in record ({old_meta['uid']}). "
            "The object might have been deleted and then recreated",
        )
    if pre.get("resourceVersion") and pre["resourceVersion"] != old_meta["resourceVersion"]:
        raise Conflict.of(
            spec.kind, spec.group, name,
            f"the ResourceVersion in the precondition ({pre['resourceVersion']}) does not match the "
            f"ResourceVersion in record ({old_meta['resourceVersion']}). The object might have been modified",
        )
    requested = options.get("gracePeriodSeconds")
    if requested is not None and requested < 0:  # "Negative values will be treated as the value `1s`"
        requested = 1
    new = copy_stored(old)
    if registry and store.strategy(spec).mark_deleted(new, store.now()):
        return _mark(store, spec, old, new, dry_run)
    meta = new["metadata"]
    if (meta.get("deletionGracePeriodSeconds") or 0) < 0:
        meta["deletionGracePeriodSeconds"] = 1
    now = store.clock.now()
    period = store.strategy(spec).grace_period(old, requested)
    graceful = False
    if period is not None and meta.get("deletionTimestamp"):
        current = meta.get("deletionGracePeriodSeconds")
        if current:  # a graceful deletion is pending: only a shorter period changes it
            if requested is None or requested >= current:
                return _finalize_delete(store, spec, old)
            due = parse_time(meta["deletionTimestamp"]) - timedelta(seconds=current - requested)
            if due < now:  # not into the past; a graceful delete stays graceful
                due, requested = now, requested and 1
            meta["deletionTimestamp"] = format_time(due)
            meta["deletionGracePeriodSeconds"] = period = requested
            graceful = True
    elif period is not None:
        meta["deletionTimestamp"] = format_time(now + timedelta(seconds=period))
        meta["deletionGracePeriodSeconds"] = period
        if meta.get("generation"):
            meta["generation"] += 1
        graceful = True
    if (spec.group, spec.resource) == (NAMESPACES.group, NAMESPACES.resource) and not dry_run:
        for kind in store.kinds:
            if kind.namespaced:
                for obj in [o for (ns, _), o in sorted(store.objects((kind.group, kind.resource)).items())
                            if ns == name]:
                    _delete_now(store, kind, obj)
    finalizers = bool(meta.get("finalizers"))
    if finalizers and not graceful:  # markAsDeleting
        if not meta.get("deletionTimestamp") and meta.get("generation"):
            meta["generation"] += 1
        if not meta.get("deletionTimestamp") or parse_time(meta["deletionTimestamp"]) > now:
            meta["deletionTimestamp"] = format_time(now)
        meta["deletionGracePeriodSeconds"] = 0
    if graceful or finalizers:
        marked = _mark(store, spec, old, new, dry_run)
        if finalizers or period:
            return marked
        old = marked  # a period of 0: marked, then deleted at once
    if not dry_run:
        _delete_now(store, spec, old)
    return _finalize_delete(store, spec, old)


def _mark(store: DeletingStore, spec: KindSpec, old: Obj, new: Obj, dry_run: bool) -> Obj:
    """Store ``new``, ``old`` marked for deletion (nothing when unchanged or a dry run)."""
    new = ordered(new)
    if new == old:
        return old
    if dry_run:
        return new
    rv = store.next_resource_version()
    new["metadata"]["resourceVersion"] = str(rv)
    store.commit(spec, old, new, rv)
    return new


def _finalize_delete(store: DeletingStore, spec: KindSpec, obj: Obj) -> Obj:
    """``Store.finalizeDelete``: the object, or a ``Status`` naming it."""
    if store.strategy(spec).rules.returns_deleted_object:
        return obj
    details: Obj = {"name": obj["metadata"]["name"]}
    if spec.group:
        details["group"] = spec.group
    details["kind"] = spec.resource
    details["uid"] = obj["metadata"]["uid"]
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details}


def _delete_now(store: DeletingStore, spec: KindSpec, old: Obj) -> Obj:
    rv = store.next_resource_version()
    store.commit(spec, old, None, rv)
    return old


def delete_collection(
    store: DeletingStore, spec: KindSpec, namespace: str | None, *, label_selector: str = "", field_selector: str = "",
    options: Obj | None = None, dry_run: bool = False,
) -> Obj:
    """``DeleteCollection``: the list of what was deleted (``Store.DeleteCollection``), each
    item deleted with the request's ``options`` (a failed precondition stops it with 409)."""
    listed = store.list(spec, namespace, label_selector=label_selector, field_selector=field_selector)
    deleted = []
    for item in listed["items"]:
        meta = item["metadata"]
        delete(store, spec, meta.get("namespace"), meta["name"], options=options, dry_run=dry_run, registry=False)
        deleted.append(item)
    return {"kind": spec.list_kind, "apiVersion": spec.api_version,
            "metadata": {"resourceVersion": str(store.resource_version)}, "items": deleted}


def kept_after_delete(answer: Obj) -> bool:
    """Whether a :func:`delete` answer is an object still stored (marked for deletion,
    kept by finalizers or a pending grace period) rather than a deleted one or a ``Status``."""
    meta = answer.get("metadata") or {}
    return answer.get("kind") != "Status" and bool(
        meta.get("finalizers") or (meta.get("deletionTimestamp") and meta.get("deletionGracePeriodSeconds"))
    )
