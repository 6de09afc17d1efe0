"""Watch fan-out: a per-kind cache of recent events, and watchers that filter them.

The real API server does not serve watches from etcd directly: each resource has a *watch cache*
that holds the current objects and a bounded window of recent events, and every watcher reads from
it. This module is that layer. The :class:`~fake_apiserver._storage.store.Store` is the truth (what writers
see); it hands each committed change to the kind's :class:`WatchCache`, which records it in its
history, updates the view that LIST reads, and offers it to every :class:`Watcher`.

Keeping the cache separate from the truth is what makes *watch lag* possible: a cache that applies
changes D seconds after they were committed is exactly a scheduler's informer seeing a claim later
than the writer that created it.

A watcher converts store changes into what its client may see, with the selector transitions of
``apiserver/pkg/storage/cacher/cache_watcher.go`` (``convertToWatchEvent``): ADDED when an object
starts to match, MODIFIED while it matches, DELETED (with the previous object and the event's
resourceVersion) when it stops. Objects are never mutated after they are stored, so events share
them instead of copying.

Everything here is synchronous; the aiohttp edge wakes a streaming response through the
``on_ready`` callback of a watcher.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable

from fake_apiserver._machinery.errors import Expired
from fake_apiserver._machinery.kindspec import KindSpec

__all__ = ["Change", "WatchCache", "WatchEvent", "Watcher", "INITIAL_EVENTS_END"]

INITIAL_EVENTS_END = "k8s.io/initial-events-end"

Obj = dict[str, Any]
Matcher = Callable[[Obj], bool]


@dataclass(frozen=True)
class Change:
    """One committed write: ``old`` is None for a create, ``new`` is None for a delete."""

    rv: int
    old: Obj | None
    new: Obj | None

    @property
    def key(self) -> tuple[str, str]:
        obj = self.new if self.new is not None else self.old
        assert obj is not None
        meta = obj["metadata"]
        return meta.get("namespace", ""), meta["name"]

    @cached_property
    def deleted(self) -> Obj:
        """The object a DELETED event carries, made once and shared by every watcher (so the
        edge encodes it once, not once per watcher)."""
        assert self.old is not None
        return _with_rv(self.old, self.rv)


@dataclass(frozen=True)
class WatchEvent:
    """What one watcher is sent: ``type`` is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."""

    type: str
    object: Obj
    rv: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "object": self.object}


def _with_rv(obj: Obj, rv: int) -> Obj:
    """The previous object stamped with the delete event's resourceVersion, as cache_watcher does."""
    meta = dict(obj["metadata"])
    meta["resourceVersion"] = str(rv)
    out = dict(obj)
    out["metadata"] = meta
    return out


class Watcher:
    """One open watch: a namespace and selector filter over a kind's changes, and a queue.

    ``matches`` decides whether an object is in the watcher's view (namespace, labels, fields).
    Events accumulate in :attr:`pending`; ``on_ready`` (set by the edge) is called when the queue
    goes from empty to non-empty and when the watcher is stopped.
    """

    def __init__(self, cache: WatchCache, matches: Matcher, since: int = 0) -> None:
        self.cache = cache
        self.matches = matches
        self.since = since  # changes at or below this version are not sent (cache_watcher.process)
        self.pending: deque[WatchEvent] = deque()
        self.stopped = False
        self.stop_reason: str | None = None
        self.on_ready: Callable[[], None] = lambda: None
        self.last_rv = 0
        #: the apiVersion events are delivered at (a custom resource watched at a version other
        #: than its storage version: ``None`` conversion); None: as stored
        self.api_version: str | None = None

    def _push(self, event: WatchEvent) -> None:
        was_empty = not self.pending
        self.pending.append(event)
        self.last_rv = max(self.last_rv, event.rv)
        if was_empty:
            self.on_ready()

    def offer(self, change: Change) -> None:
        """Turn a store change into ADDED, MODIFIED or DELETED for this watcher, or nothing."""
        if change.rv <= self.since:
            return
        old_match = change.old is not None and self.matches(change.old)
        new_match = change.new is not None and self.matches(change.new)
        if new_match and old_match:
            assert change.new is not None
            self._push(WatchEvent("MODIFIED", change.new, change.rv))
        elif new_match:
            assert change.new is not None
            self._push(WatchEvent("ADDED", change.new, change.rv))
        elif old_match:
            assert change.old is not None
            self._push(WatchEvent("DELETED", change.deleted, change.rv))

    def bookmark(self, *, initial_events_end: bool = False) -> None:
        """Queue a BOOKMARK carrying the cache's resourceVersion."""
        rv = self.cache.rv
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if initial_events_end:
            meta["annotations"] = {INITIAL_EVENTS_END: "true"}
        obj = {"kind": self.cache.spec.kind, "apiVersion": self.cache.spec.api_version, "metadata": meta}
        self._push(WatchEvent("BOOKMARK", obj, rv))

    def take(self) -> list[WatchEvent]:
        """Everything queued so far, in order."""
        out = list(self.pending)
        self.pending.clear()
        if self.api_version is not None:
            out = [WatchEvent(e.type, {**e.object, "apiVersion": self.api_version}, e.rv)
                   if e.type != "ERROR" else e for e in out]
        return out

    def stop(self, reason: str = "stopped") -> None:
        """End the watch (client gone, timeout, a fault rule); the edge closes the stream."""
        if self.stopped:
            return
        self.stopped = True
        self.stop_reason = reason
        self.cache.watchers.pop(self, None)
        self.on_ready()


def _etcd_order(key: tuple[str, str]) -> str:
    """The order etcd lists keys in: bytewise on ``<namespace>/<name>`` (so ``a-b/x`` before
    ``a/z``), not namespace first."""
    return f"{key[0]}/{key[1]}" if key[0] else key[1]


class WatchCache:
    """One kind's view for LIST and WATCH: current objects, a bounded history, the watchers.

    ``capacity`` bounds the history; a watch from a resourceVersion older than what the history
    still covers gets ``410 Expired`` with the real message, and the client re-lists.

    The bound is ``watchCacheHistory.GetIntervalLocked``'s (``apiserver/pkg/storage/cacher/
    watch_cache_history.go``): until the first event is evicted a watch may start anywhere from the
    version the cache was filled at; after that, from one below the oldest event still held. That
    limit is :attr:`floor`, and ``too old resource version: <asked> (<floor>)`` names it.
    """

    def __init__(self, spec: KindSpec, capacity: int, start_rv: int) -> None:
        self.spec = spec
        self.capacity = capacity
        self.objects: dict[tuple[str, str], Obj] = {}
        self.history: deque[Change] = deque()
        self.watchers: dict[Watcher, None] = {}  # insertion-ordered: fan-out order is open order
        self.floor = start_rv  # the oldest version a watch may start from
        self._rv = start_rv
        self._pending_floor: Callable[[], int | None] = lambda: None
        self._store_rv: Callable[[], int] = lambda: self._rv

    def bind_store(self, store_rv: Callable[[], int], pending_floor: Callable[[], int | None]) -> None:
        """Let the cache report the store's resourceVersion when nothing for this kind is in flight."""
        self._store_rv = store_rv
        self._pending_floor = pending_floor

    @property
    def rv(self) -> int:
        """The resourceVersion this view is consistent with.

        With no change of this kind waiting to be applied it is the store's current version (other
        kinds' writes advance it too, as in the real server); otherwise it is just below the oldest
        change still held back.
        """
        pending = self._pending_floor()
        if pending is not None:
            return max(self._rv, pending - 1)
        return max(self._rv, self._store_rv())

    def apply(self, change: Change) -> None:
        """Make a committed change visible: update the view, record it, fan it out."""
        key = change.key
        if change.new is None:
            self.objects.pop(key, None)
        else:
            self.objects[key] = change.new
        self.history.append(change)
        if len(self.history) > self.capacity:
            self.history.popleft()
            self.floor = self.history[0].rv - 1
        self._rv = change.rv
        for watcher in list(self.watchers):
            watcher.offer(change)

    def items(self, namespace: str | None, at: int | None = None) -> list[Obj]:
        """Objects in key order (namespace, name), as etcd lists them: the current ones, or with
        ``at`` those of that version (the later changes in the history undone), which is what a
        ``continue`` token reads (etcd serves every page at the first page's revision). ``at``
        must not be below :attr:`floor`."""
        objects = self.objects
        if at is not None and self.history and self.history[-1].rv > at:
            objects = dict(objects)
            for change in reversed(self.history):
                if change.rv <= at:
                    break
                if change.old is None:
                    objects.pop(change.key, None)
                else:
                    objects[change.key] = change.old
        keys = sorted(objects, key=_etcd_order)
        if namespace is not None:
            keys = [k for k in keys if k[0] == namespace]
        return [objects[k] for k in keys]

    def watch(
        self,
        matches: Matcher,
        *,
        resource_version: int,
        send_initial_events: bool,
        allow_bookmarks: bool,
    ) -> Watcher:
        """Open a watcher (``Cacher.Watch`` with ``getAllEventsSinceLocked``).

        ``send_initial_events``: a synthetic ADDED for every current object that matches, then,
        with bookmarks allowed, the ``k8s.io/initial-events-end`` bookmark at the cache's version;
        changes follow from there. Otherwise the changes after ``resource_version`` (0: after the
        cache's current version) are replayed from the history, or ``Expired`` is raised when the
        history no longer reaches back that far. A version the cache has not reached yet is
        accepted and changes up to it are skipped, as ``cacheWatcher.process`` does.
        """
        if send_initial_events:
            watcher = Watcher(self, matches, self.rv)
            for obj in self.items(None):
                if matches(obj):
                    watcher._push(WatchEvent("ADDED", obj, int(obj["metadata"]["resourceVersion"])))
            if allow_bookmarks:
                watcher.bookmark(initial_events_end=True)
        else:
            since = resource_version or self.rv
            if since < self.floor:
                raise Expired(f"too old resource version: {since} ({self.floor})")
            watcher = Watcher(self, matches, since)
            for change in self.history:
                if change.rv > since:
                    watcher.offer(change)
        watcher.last_rv = max(watcher.last_rv, self.rv)
        self.watchers[watcher] = None
        return watcher

    def close(self, reason: str = "server shutting down") -> None:
        for watcher in list(self.watchers):
            watcher.stop(reason)

