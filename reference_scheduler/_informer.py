"""List and watch one resource into a local cache, the way client-go's reflector does.

The scheduler reads only this cache (never GET in the scheduling path), so what it knows is what
the watch has delivered: the KEP's de-duplication "seeded from the pod" and the dispatcher's no-op
check both read the pod from here.

Protocol (``client-go/tools/cache/reflector.go``; ``k8s-semantics.md`` E.3, E.4):

* LIST with ``resourceVersion=0`` first, ``resourceVersion=""`` after an expiry; the list's
  ``metadata.resourceVersion`` starts the watch.
* WATCH with ``allowWatchBookmarks=true`` and ``timeoutSeconds``; BOOKMARK events only advance the
  resourceVersion; a stream that ends is resumed from the last version seen.
* A ``410`` answer or an ``ERROR`` event (``Expired``/``Gone``) means the version was compacted:
  re-list, and diff the new list against the cache so that handlers see add/update/delete.
* A transport error waits ``retry_period`` seconds of loop time and resumes.
* A ``404`` on the LIST (a server that does not serve the resource, e.g. no ``resource.k8s.io/v1``)
  counts as an empty, synced cache, looked at again every 30 s: real kube-scheduler would wait for
  the sync forever; the reference scheduler prefers to schedule everything that does not need it.

An informer with a ``poll_period`` never watches: it LISTs again each ``poll_period`` seconds and
diffs each list against its cache, as a scheduler that polls would. Only the ``never-watches``
control polls (:mod:`reference_scheduler._mutants`): a scheduler that is handed changes late, or
never, must be told apart from one that watches.

The pod informer of the scheduler passes the real field selector
``status.phase!=Succeeded,status.phase!=Failed`` (``newPodInformer``); a pod that turns terminal
arrives as ``DELETED``. The streaming list (``sendInitialEvents``) is not used: LIST + WATCH is
what every API server serves.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from reference_scheduler._client import ApiError, ExpiredError, KubeClient, NotFoundError, TransportError, resource_path

__all__ = ["Informer", "POD_FIELD_SELECTOR", "object_key"]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler.informer")

POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
ABSENT_RETRY_PERIOD = 30.0
WATCH_TIMEOUT_SECONDS = 300  # client-go draws from [5 min, 10 min); fixed here: no unseeded randomness


def object_key(obj: Obj) -> str:
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace") or ""
    return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))


AddHandler = Callable[[Obj], None]
UpdateHandler = Callable[[Obj, Obj], None]
DeleteHandler = Callable[[Obj], None]


class Informer:
    """A cache of one resource kept current by list + watch; handlers run on the loop, in order."""

    def __init__(
        self,
        client: KubeClient,
        group: str,
        version: str,
        resource: str,
        *,
        field_selector: str = "",
        retry_period: float = 1.0,
    ) -> None:
        self.client = client
        self.path = resource_path(group, version, resource)
        self.resource = resource
        self.field_selector = field_selector
        self.retry_period = retry_period
        self.cache: dict[str, Obj] = {}
        self.resource_version = ""
        self.synced = asyncio.Event()
        self.on_add: list[AddHandler] = []
        self.on_update: list[UpdateHandler] = []
        self.on_delete: list[DeleteHandler] = []
        self.lists = 0
        #: None: list, then watch; seconds: LIST again after each, never WATCH (module docstring)
        self.poll_period: float | None = None
        self._task: asyncio.Task[None] | None = None

    def get(self, key: str) -> Obj | None:
        return self.cache.get(key)

    def values(self) -> list[Obj]:
        return list(self.cache.values())

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"informer-{self.resource}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def _params(self) -> dict[str, str]:
        return {"fieldSelector": self.field_selector} if self.field_selector else {}

    async def _run(self) -> None:
        relist_rv = "0"
        while True:
            try:
                await self._list(relist_rv)
                if self.poll_period is not None:
                    relist_rv = ""
                    await asyncio.sleep(self.poll_period)
                    continue
                await self._watch_until_expired()
                relist_rv = ""
            except NotFoundError as e:
                # the server does not serve this resource (a cluster without resource.k8s.io/v1):
                # count it as synced and empty rather than stall the scheduler, and look again later
                log.warning("%s is not served (%s); treating it as empty", self.resource, e)
                self.synced.set()
                await asyncio.sleep(ABSENT_RETRY_PERIOD)
            except (TransportError, ApiError) as e:
                log.warning("%s: %s; retrying in %ss", self.resource, e, self.retry_period)
                await asyncio.sleep(self.retry_period)

    async def _list(self, rv: str) -> None:
        result = await self.client.list(self.path, {**self._params(), "resourceVersion": rv})
        self.lists += 1
        items = result.get("items") or []
        fresh: dict[str, Obj] = {}
        for item in items:
            fresh[object_key(item)] = item
        old = self.cache
        self.cache = dict(fresh)
        self.resource_version = str((result.get("metadata") or {}).get("resourceVersion", ""))
        for key, obj in old.items():
            if key not in fresh:
                self._emit_delete(obj)
        for key, obj in fresh.items():
            previous = old.get(key)
            if previous is None:
                self._emit_add(obj)
            elif _rv(previous) != _rv(obj):
                self._emit_update(previous, obj)
        self.synced.set()

    async def _watch_until_expired(self) -> None:
        """Watch, resuming after each normal end; return when the version has expired."""
        while True:
            params = {
                **self._params(),
                "resourceVersion": self.resource_version,
                "allowWatchBookmarks": "true",
                "timeoutSeconds": str(WATCH_TIMEOUT_SECONDS),
            }
            try:
                async for event in self.client.watch(self.path, params):
                    if not self._apply(event):
                        return
            except ExpiredError:
                return
            except TransportError as e:
                log.warning("%s watch: %s; resuming in %ss", self.resource, e, self.retry_period)
                await asyncio.sleep(self.retry_period)

    def _apply(self, event: Obj) -> bool:
        """Apply one watch event; False when it says the resourceVersion expired."""
        kind = event.get("type")
        obj = event.get("object") or {}
        if kind == "ERROR":
            log.info("%s watch: ERROR event %s; re-listing", self.resource, obj.get("message", ""))
            return False
        rv = _rv(obj)
        if rv:
            self.resource_version = rv
        if kind == "BOOKMARK":
            return True
        key = object_key(obj)
        if kind == "ADDED" or kind == "MODIFIED":
            previous = self.cache.get(key)
            self.cache[key] = obj
            if previous is None:
                self._emit_add(obj)
            else:
                self._emit_update(previous, obj)
        elif kind == "DELETED":
            previous = self.cache.pop(key, None)
            self._emit_delete(previous if previous is not None else obj)
        return True

    def _emit_add(self, obj: Obj) -> None:
        for handler in self.on_add:
            self._call(handler, obj)

    def _emit_update(self, old: Obj, new: Obj) -> None:
        for handler in self.on_update:
            self._call(handler, old, new)

    def _emit_delete(self, obj: Obj) -> None:
        for handler in self.on_delete:
            self._call(handler, obj)

    def _call(self, handler: Callable[..., None], *args: Obj) -> None:
        """A handler bug is logged; it must not stop the watch (client-go recovers the same way)."""
        try:
            handler(*args)
        except Exception:
            log.exception("%s handler %r failed", self.resource, handler)


def _rv(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion", ""))
