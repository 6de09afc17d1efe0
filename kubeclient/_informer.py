"""List and watch one resource into a local cache, the way client-go's reflector does.

A reader of the cache (the reference scheduler never GETs in its scheduling path) knows what the
watch has delivered, and its handlers see each change as client-go's do: added, updated (old and
new), deleted.

Protocol (``client-go/tools/cache/reflector.go``):

* LIST with ``resourceVersion=0`` first, ``resourceVersion=""`` after an expiry; the list's
  ``metadata.resourceVersion`` starts the watch.
* WATCH with ``allowWatchBookmarks=true`` and ``timeoutSeconds``; BOOKMARK events only advance the
  resourceVersion; a stream that ends is resumed from the last version seen.
* A ``410`` answer or an ``ERROR`` event (``Expired``/``Gone``) means the version was compacted:
  re-list, and diff the new list against the cache so that handlers see add/update/delete.
* A transport error waits ``retry_period`` seconds of loop time and resumes.
* A ``404`` on the LIST (a server that does not serve the resource, e.g. no ``resource.k8s.io/v1``)
  counts as an empty, synced cache, looked at again every 30 s: client-go would wait for the
  sync forever; a reader here prefers to go on with what does not need the resource.

An informer with a ``poll_period`` never watches: it LISTs again each ``poll_period`` seconds and
diffs each list against its cache, as a client that polls would (the reference scheduler's
``never-watches`` control). A ``field_selector`` is sent with every LIST and WATCH (the reference
scheduler's pod informer passes kube-scheduler's). The streaming list (``sendInitialEvents``) is
not used: LIST + WATCH is what every API server serves. Warnings go to ``logger``, the owner's
by default its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from kubeclient._client import KubeClient, resource_path
from kubeclient._errors import ApiError, ExpiredError, NotFoundError, TransportError

__all__ = ["Informer", "object_key"]

Obj = dict[str, Any]
LOGGER = logging.getLogger("kubeclient.informer")

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
        logger: logging.Logger = LOGGER,
    ) -> None:
        self.client = client
        self.log = logger
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
                self.log.warning("%s is not served (%s); treating it as empty", self.resource, e)
                self.synced.set()
                await asyncio.sleep(ABSENT_RETRY_PERIOD)
            except (TransportError, ApiError) as e:
                self.log.warning("%s: %s; retrying in %ss", self.resource, e, self.retry_period)
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
                self.log.warning("%s watch: %s; resuming in %ss", self.resource, e, self.retry_period)
                await asyncio.sleep(self.retry_period)

    def _apply(self, event: Obj) -> bool:
        """Apply one watch event; False when it says the resourceVersion expired."""
        kind = event.get("type")
        obj = event.get("object") or {}
        if kind == "ERROR":
            self.log.info("%s watch: ERROR event %s; re-listing", self.resource, obj.get("message", ""))
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
            self.log.exception("%s handler %r failed", self.resource, handler)


def _rv(obj: Obj) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion", ""))
