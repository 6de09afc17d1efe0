"""The fake's etcd and its watch caches: every object by kind and key, one resourceVersion.

kube-apiserver keeps objects in etcd under one revision counter, and serves LIST and WATCH from a
watch cache per resource (``apiserver/pkg/storage``: ``etcd3`` and ``cacher``). :class:`Etcd` is
both, for the :class:`~fake_apiserver._storage.store.Store` built on it:

* the objects of each stored resource by namespace and name (:meth:`Etcd.objects`,
  :meth:`Etcd.get`), the truth that every write reads;
* one decimal resourceVersion for every commit of every kind (:meth:`Etcd.next_resource_version`);
* a commit (:meth:`Etcd.commit`) stores a change, hands it to the resource's
  :class:`~fake_apiserver._storage.watch.WatchCache` (held back for a while under a watch lag,
  :meth:`Etcd.set_watch_lag`), to the resource that shares its storage (core and events.k8s.io
  Events are one resource in two shapes, as in the real server, so ``kubectl describe`` sees the
  scheduler's events through either API), to the request being served as its effect
  (:func:`~fake_apiserver._storage.effects.record_commit`), and then to the controllers the fake
  plays (:meth:`Etcd.run_controllers`, :mod:`~fake_apiserver._storage.controllers`);
* LIST pages and WATCH from the watch caches (:meth:`Etcd.list`, :meth:`Etcd.watch`): every
  ``continue`` page is read at the first page's resourceVersion, as etcd serves it, in etcd's key
  order.

Watch lag: a resource's committed changes reach its watch cache (and so LIST and WATCH) a number
of seconds late, released through the injected ``schedule`` callback (the event loop's
``call_later`` at the edge). GET, and every write, read the truth.

Stored objects are never changed: a commit stores the new dict (:func:`ordered` gives it the key
order the real server encodes), and reads and events hand it out without copying.
"""

from __future__ import annotations

import base64
import json
from collections import deque
from collections.abc import Mapping
from typing import Any, Callable, Protocol, Sequence

from fake_apiserver._machinery.decode import decode_continue, parse_list_resource_version, parse_resource_version
from fake_apiserver._machinery.errors import BadRequest, Expired, NotFound, Timeout
from fake_apiserver._machinery.jsonutil import in_order
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.selectors import FieldSelector, LabelSelector
from fake_apiserver._registry.serverkinds import GroupResource
from fake_apiserver._registry.storagefactory import cohabitant
from fake_apiserver._storage.effects import record_commit
from fake_apiserver._storage.watch import Change, WatchCache, Watcher

__all__ = ["Controller", "Etcd", "Schedule", "ordered", "too_large_resource_version"]

Obj = dict[str, Any]
Schedule = Callable[[float, Callable[[], None]], object]
Observe = Callable[[KindSpec, "Obj | None", "Obj | None"], None]
_NONE: Mapping[tuple[str, str], Obj] = {}


class Controller(Protocol):
    """A controller the store runs after a commit (:meth:`Etcd.run_controllers`)."""

    @property
    def resources(self) -> frozenset[tuple[str, str]] | None:
        """The resources (group, plural) whose commits it reacts to; None: every commit."""

    def observe(self, spec: KindSpec, old: Obj | None, new: Obj | None) -> None: ...


_LIST_EXPIRED = "The resourceVersion for the provided list is too old."  # etcd3 interpretListError
_CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. You can start "
    "a new list without the continue parameter, or use the continue token in this response to "
    "retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the first "
    "chunk was returned and now may show up in the list."
)
_TOP_ORDER = ("kind", "apiVersion", "metadata", "spec", "status")
# ObjectMeta's fields in struct order, which is the order the real server encodes them in.
_META_ORDER = (
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields",
)


class Etcd:
    """The objects of every stored resource, one resourceVersion counter, one watch cache per
    resource (module docstring). ``history`` bounds each watch cache's event window (older
    resourceVersions get ``410 Expired``); ``schedule(delay, callback)`` runs a callback later,
    which a watch lag needs."""

    def __init__(self, *, history: int = 1000, schedule: Schedule | None = None) -> None:
        self.schedule = schedule
        self._rv = 1
        self._history = history
        self._objects: dict[GroupResource, dict[tuple[str, str], Obj]] = {}
        self._caches: dict[GroupResource, WatchCache] = {}
        #: the row each stored resource is served at (its storage version's)
        self._specs: dict[GroupResource, KindSpec] = {}
        self._lag: dict[GroupResource, float] = {}
        self._held: dict[GroupResource, deque[Change]] = {}
        self._on_hold: dict[GroupResource, Callable[[], None]] = {}
        #: the controllers' ``observe`` to call after a commit, by resource (:meth:`run_controllers`)
        self._observers: dict[GroupResource, tuple[Observe, ...]] = {}
        self._every: tuple[Observe, ...] = ()

    def store_resource(self, spec: KindSpec) -> None:
        """Keep the objects of ``spec``'s resource, served at ``spec``: a new resource gets an
        empty store and watch cache; one stored already keeps its objects and takes the new row."""
        key = (spec.group, spec.resource)
        self._specs[key] = spec
        if key in self._caches:
            self._caches[key].spec = spec
            return
        self._objects[key] = {}
        cache = WatchCache(spec, self._history, self._rv)
        held: deque[Change] = deque()
        self._held[key] = held
        cache.bind_store(lambda: self._rv, lambda h=held: h[0].rv if h else None)  # type: ignore[misc]
        self._caches[key] = cache

    def drop_resource(self, resource: GroupResource, reason: str) -> None:
        """Forget a resource and its objects; its watches end with ``reason``."""
        del self._specs[resource]
        self._caches.pop(resource).close(reason)
        self._objects.pop(resource, None)
        self._held.pop(resource, None)

    @property
    def resource_version(self) -> int:
        return self._rv

    def cache(self, spec: KindSpec) -> WatchCache:
        return self._caches[(spec.group, spec.resource)]

    def spec_of(self, resource: GroupResource) -> KindSpec | None:
        """The row ``resource`` (group, plural) is stored and served at, or None."""
        return self._specs.get(resource)

    def _bucket(self, spec: KindSpec) -> dict[tuple[str, str], Obj]:
        return self._objects[(spec.group, spec.resource)]

    @staticmethod
    def _key(spec: KindSpec, namespace: str | None, name: str) -> tuple[str, str]:
        return (namespace or "") if spec.namespaced else "", name

    def find(self, spec: KindSpec, namespace: str | None, name: str) -> Obj | None:
        """The stored object, or None."""
        return self._objects[(spec.group, spec.resource)].get(self._key(spec, namespace, name))

    def exists(self, spec: KindSpec, namespace: str | None, name: str) -> bool:
        return self._key(spec, namespace, name) in self._bucket(spec)

    def get(self, spec: KindSpec, namespace: str | None, name: str) -> Obj:
        obj = self._bucket(spec).get(self._key(spec, namespace, name))
        if obj is None:
            raise NotFound.of(spec.resource, spec.group, name)
        return obj

    def list(
        self,
        spec: KindSpec,
        namespace: str | None,
        *,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
    ) -> Obj:
        """A ``<Kind>List`` from the kind's watch cache, with ``limit``/``continue`` paging: every
        page shows the objects as of the first page's resourceVersion, and a token older than the
        watch cache's history is ``410 Expired``. ``resource_version`` as the real list reads it
        (``storage.ValidateListOptions``): a version the store has not reached is ``Too large
        resource version`` (504, which the edge answers after the cacher's wait), and with
        ``resource_version_match=Exact`` the list is the one of that version, ``410 Expired``
        once the history no longer reaches back to it."""
        matches = self._matcher(spec, namespace, label_selector, field_selector)
        cache = self.cache(spec)
        start = ""
        list_rv = cache.rv
        at: int | None = None
        if continue_token:
            token_rv, start = decode_continue(continue_token, resource_version)
            start = start.rstrip("\x00")
            if token_rv > 0:
                list_rv = at = token_rv
                if list_rv < cache.floor:
                    raise Expired(_CONTINUE_EXPIRED)
        elif resource_version:
            wanted = parse_list_resource_version(resource_version)
            if wanted > self._rv:
                raise too_large_resource_version(wanted, cache.rv)
            if resource_version_match == "Exact":
                if wanted < cache.floor:
                    raise Expired(_LIST_EXPIRED)
                list_rv = at = wanted
        items = [o for o in cache.items(namespace if spec.namespaced else None, at) if matches(o)]
        if start:
            items = [o for o in items if _item_key(o) > start]
        meta: Obj = {"resourceVersion": str(list_rv)}
        if spec.custom:  # an unstructured list writes its continue token even when empty
            meta["continue"] = ""
        if limit and len(items) > limit:
            remaining = len(items) - limit
            items = items[:limit]
            meta["continue"] = _encode_continue(list_rv, _item_key(items[-1]))
            if not label_selector and not field_selector:
                meta["remainingItemCount"] = remaining
        return {"kind": spec.list_kind, "apiVersion": spec.api_version, "metadata": meta, "items": items}

    def _matcher(
        self, spec: KindSpec, namespace: str | None, label_selector: str, field_selector: str
    ) -> Callable[[Obj], bool]:
        labels = LabelSelector.parse(label_selector)
        fields = FieldSelector.parse(field_selector, spec)
        ns = namespace if spec.namespaced else None

        def matches(obj: Obj) -> bool:
            meta = obj["metadata"]
            if ns is not None and meta.get("namespace") != ns:
                return False
            if not labels.empty and not labels.matches(meta.get("labels") or {}):
                return False
            return fields.empty or fields.matches(obj)

        return matches

    def watch(
        self,
        spec: KindSpec,
        namespace: str | None,
        *,
        name: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        send_initial_events: bool | None = None,
        allow_bookmarks: bool = False,
    ) -> Watcher:
        """Open a watch with the semantics of a v1.35 server (``Cacher.Watch``).

        With the WatchList feature on (the default since v1.34), a watch that sets neither
        ``sendInitialEvents`` nor ``resourceVersionMatch`` from ``""`` or ``"0"`` is a streaming
        list (``SetListOptionsDefaults``): ADDED for every object, then, with bookmarks allowed,
        the ``k8s.io/initial-events-end`` bookmark. ``sendInitialEvents=false`` from ``""``
        starts at the store's current version, from ``"0"`` at the cache's. A version older than
        the history gives ``Expired``; a streaming list asked to be at least as new as a version
        the store has not reached gives ``Too large resource version`` (504), as the cacher does
        after waiting for it. ``name`` watches one object (a field selector, if given, must
        select the same name).
        """
        if name:  # a watch on one object selects it by name (listOpts in handlers/get.go)
            if field_selector:
                if FieldSelector.parse(field_selector, spec).requires_exact_match("metadata.name") != name:
                    raise BadRequest("fieldSelector metadata.name doesn't match requested name")
            else:
                field_selector = f"metadata.name={name}"
        rv = parse_resource_version(spec, resource_version, named=bool(name))
        matches = self._matcher(spec, namespace, label_selector, field_selector)
        cache = self.cache(spec)
        if send_initial_events is None:
            send_initial_events = resource_version in ("", "0")
        if send_initial_events and rv > self._rv:
            raise too_large_resource_version(rv, cache.rv)
        if not send_initial_events and resource_version == "":
            rv = self._rv
        return cache.watch(matches, resource_version=rv, send_initial_events=send_initial_events,
                           allow_bookmarks=allow_bookmarks)

    def run_controllers(self, controllers: Sequence[Controller]) -> None:
        """From now on, after each commit, call the ``observe`` of each of ``controllers`` that
        reacts to the committed resource, in this order (:mod:`~fake_apiserver._storage.controllers`).
        A controller's own writes are commits too, and run them in turn."""
        self._every = tuple(c.observe for c in controllers if c.resources is None)
        watched = {resource for c in controllers if c.resources is not None for resource in c.resources}
        self._observers = {resource: tuple(c.observe for c in controllers
                                           if c.resources is None or resource in c.resources)
                           for resource in watched}

    def commit(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None:
        """Store a change at resourceVersion ``rv`` (:meth:`store_change`), then let the
        controllers that react to its resource see it (:meth:`run_controllers`)."""
        self.store_change(spec, old, new, rv)
        for observe in self._observers.get((spec.group, spec.resource), self._every):
            observe(spec, old, new)

    def store_change(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None:
        """Store a change and hand it to the kind's watch cache, and nothing more (no controller
        sees it); a resource that shares its storage with another
        (:func:`~fake_apiserver._registry.storagefactory.cohabitant`) gets the same change in the
        other's shape. The request being served learns its effect
        (:func:`~fake_apiserver._storage.effects.record_commit`)."""
        record_commit(spec.group, spec.resource, old, new)
        self._commit_one((spec.group, spec.resource), spec, Change(rv, old, new))
        shared = cohabitant(spec)
        if shared is not None:
            partner = shared.resource
            partner_spec = self._specs.get(partner)
            if partner_spec is not None:
                obj = new if new is not None else old
                assert obj is not None
                okey = self._key(partner_spec, obj["metadata"].get("namespace"), obj["metadata"]["name"])
                partner_old = self._objects[partner].get(okey)
                partner_new = None if new is None else shared.convert(new, partner_spec.group)
                self._commit_one(partner, partner_spec, Change(rv, partner_old, partner_new))

    def _commit_one(self, key: tuple[str, str], spec: KindSpec, change: Change) -> None:
        bucket = self._objects[key]
        obj = change.new if change.new is not None else change.old
        assert obj is not None
        okey = self._key(spec, obj["metadata"].get("namespace"), obj["metadata"]["name"])
        if change.new is None:
            bucket.pop(okey, None)
        else:
            bucket[okey] = change.new
        lag = self._lag.get(key, 0.0)
        held = self._held[key]
        if lag > 0 or held:
            held.append(change)
            if lag > 0 and key in self._on_hold:
                self._on_hold[key]()
            if self.schedule is None:
                raise RuntimeError("watch lag needs a schedule callback (the server's event loop)")
            self.schedule(lag, lambda: self._release(key))
        else:
            self._caches[key].apply(change)

    def _release(self, key: tuple[str, str]) -> None:
        held = self._held[key]
        if held:
            self._caches[key].apply(held.popleft())

    def set_watch_lag(self, spec: KindSpec, seconds: float, *, on_hold: Callable[[], None] | None = None) -> None:
        """From now on, changes to ``spec`` reach LIST and WATCH ``seconds`` after they commit;
        ``on_hold`` is called for each change held back (fault rules count their firings)."""
        key = (spec.group, spec.resource)
        self._lag[key] = float(seconds)
        if on_hold is not None:
            self._on_hold[key] = on_hold
        else:
            self._on_hold.pop(key, None)

    def next_resource_version(self) -> int:
        """The resourceVersion of the next commit (each commit takes a new one)."""
        self._rv += 1
        return self._rv

    def objects(self, resource: GroupResource) -> Mapping[tuple[str, str], Obj]:
        """The stored objects of ``resource`` (group, plural) by namespace and name: the truth,
        as writes see it (LIST and WATCH read the watch cache); empty when it is not served."""
        return self._objects.get(resource, _NONE)

    def close(self) -> None:
        for cache in self._caches.values():
            cache.close()


def ordered(obj: Obj) -> Obj:
    """Top-level and ``metadata`` keys in the order the real server encodes them (kind,
    apiVersion, metadata, spec, status, then the rest), so serialized objects look like the real
    ones."""
    out = in_order(obj, _TOP_ORDER)
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = in_order(out["metadata"], _META_ORDER)
    return out


def too_large_resource_version(wanted: int, current: int) -> Timeout:
    """``storage.NewTooLargeResourceVersionError`` with the cacher's one-second retry hint."""
    return Timeout(
        f"Timeout: Too large resource version: {wanted}, current: {current}",
        details={
            "causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
            "retryAfterSeconds": 1,
        },
    )


def _item_key(obj: Obj) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}"


def _encode_continue(rv: int, start: str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start + "\x00"}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
