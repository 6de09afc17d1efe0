"""A small JSON client for the Kubernetes API, and an informer over one collection.

The harness talks to the API the way any client does, over HTTP, so that the same scenario can
run against the fake, a kube-scheduler's view of it or a real cluster. It does not use the
official client: that one is synchronous (a thread per call would have to hold virtual time, see
:meth:`~harness.VirtualEventLoop.hold`) and its watch helpers poll. What the harness needs is
small: a request that raises :class:`ApiError` carrying the ``Status``, and an informer (LIST,
then WATCH from the list's resourceVersion with bookmarks, re-watch when the stream ends, re-list
on ``410 Expired``) whose listeners run on *every* event, so that an expectation like "never
bound" also sees a state that lasted a single event.

Paths are built from the fake's table of kinds (:data:`fake_apiserver.KINDS`): it lists the real
group, version, resource and scope of every kind, which is the same for a real cluster.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlencode

import aiohttp
import yaml

from fake_apiserver import KINDS, KindSpec

__all__ = ["ApiError", "Informer", "KubeClient", "resolve_kind", "server_from_kubeconfig"]

Obj = dict[str, Any]
log = logging.getLogger("schedharness.informer")

PATCH_TYPES = {
    "strategic": "application/strategic-merge-patch+json",
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
}


def resolve_kind(kind: str) -> KindSpec:
    """A kind by resource (``pods``), ``resource.group``, kind (``Pod``), singular or short name.

    Where two groups serve the same name (``events``), the first row of the table wins (core).
    """
    wanted = kind.lower()
    for spec in KINDS:
        names = {spec.resource, spec.kind.lower(), spec.singular, *spec.short_names}
        if wanted in names or (spec.group and wanted == f"{spec.resource}.{spec.group}"):
            return spec
    known = ", ".join(sorted({spec.resource for spec in KINDS}))
    raise ValueError(f"unknown kind {kind!r}: use a served resource or kind name ({known})")


def resource_path(spec: KindSpec, namespace: str | None, name: str | None = None,
                  subresource: str | None = None) -> str:
    """The REST path of a collection, an object or a subresource of one."""
    base = f"/apis/{spec.group}/{spec.version}" if spec.group else f"/api/{spec.version}"
    if spec.namespaced:
        if not namespace:
            raise ValueError(f"{spec.resource} are namespaced: a namespace is needed")
        base += f"/namespaces/{namespace}"
    path = f"{base}/{spec.resource}"
    if name:
        path += f"/{name}"
        if subresource:
            path += f"/{subresource}"
    return path


def server_from_kubeconfig(path: str | Path) -> str:
    """The ``server`` URL of the current context's cluster."""
    config = yaml.safe_load(Path(path).read_text()) or {}
    current = config.get("current-context", "")
    contexts = {c["name"]: c.get("context", {}) for c in config.get("contexts") or []}
    clusters = {c["name"]: c.get("cluster", {}) for c in config.get("clusters") or []}
    cluster_name = contexts.get(current, {}).get("cluster", "")
    server = clusters.get(cluster_name, {}).get("server", "")
    if not server:
        raise ValueError(f"{path}: no server URL for the current context {current!r}")
    return str(server)


class ApiError(Exception):
    """The API answered an error (``status`` holds its ``Status``), or the connection failed (code 0)."""

    def __init__(self, method: str, path: str, code: int, status: Obj | None, text: str = "") -> None:
        self.method, self.path, self.code = method, path, code
        self.status = status or {}
        self.reason = str(self.status.get("reason", ""))
        self.message = str(self.status.get("message", "")) or text
        super().__init__(f"{method} {path}: {code} {self.reason}: {self.message}".replace(" : ", ": "))


WRITE_METHODS = ("POST", "PUT", "PATCH")


class KubeClient:
    """JSON requests against one API server; one aiohttp session, made on first use.

    Writes (create, update, patch) ask for ``fieldValidation=Strict``, so a body with a field its
    type lacks, or a key written twice, is refused with the server's ``strict decoding error``
    instead of being dropped with a warning: a typo in a scenario fails loudly. A caller that
    wants another directive passes its own ``fieldValidation`` parameter.

    ``on_request`` is called with (method, path) before each request and ``on_done`` after it
    (answered or not): the scenario uses them to tell its own requests from the scheduler's in
    the journal.
    """

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._session: aiohttp.ClientSession | None = None
        self.on_request: Callable[[str, str], object] | None = None
        self.on_done: Callable[[str, str, object], None] | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                headers={"Accept": "application/json", "User-Agent": "schedharness/scenario"})
        return self._session

    async def request(self, method: str, path: str, *, body: Any = None,
                      content_type: str = "application/json", params: dict[str, str] | None = None) -> Any:
        """Send one request; return the decoded JSON answer or raise :class:`ApiError`."""
        if method in WRITE_METHODS and "fieldValidation=" not in path and "fieldValidation" not in (params or {}):
            params = {**(params or {}), "fieldValidation": "Strict"}
        url = self.url + path + (("&" if "?" in path else "?") + urlencode(params) if params else "")
        data = json.dumps(body, separators=(",", ":")) if body is not None else None
        headers = {"Content-Type": content_type} if data is not None else {}
        token = self.on_request(method, path) if self.on_request is not None else None
        try:
            async with self.session.request(method, url, data=data, headers=headers) as response:
                text = await response.text()
                decoded = _decode(text)
                if response.status >= 400:
                    raise ApiError(method, path, response.status, decoded if isinstance(decoded, dict) else None, text)
                return decoded
        except aiohttp.ClientError as e:
            raise ApiError(method, path, 0, None, f"connection failed ({type(e).__name__}: {e})") from e
        finally:
            if self.on_done is not None:
                self.on_done(method, path, token)

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _decode(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


Listener = Callable[[str, Obj], None]


class Informer:
    """LIST then WATCH one collection; ``objects`` by name; listeners called on every event.

    ``listeners`` get ``(event_type, object)`` after the cache applied the event (``SYNC`` once
    per list). The watch asks for bookmarks and times out after ``watch_timeout`` seconds, then
    resumes from the last resourceVersion; a broken stream is retried after ``retry`` seconds.
    """

    def __init__(self, client: KubeClient, path: str, *, watch_timeout: float = 300.0,
                 retry: float = 1.0, params: dict[str, str] | None = None) -> None:
        self.client = client
        self.path = path
        self.params = dict(params or {})
        self.watch_timeout = watch_timeout
        self.retry = retry
        self.objects: dict[str, Obj] = {}
        self.rv = ""
        self.listeners: list[Listener] = []
        self.synced = asyncio.Event()
        self.errors: list[str] = []
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start and wait for the first list (an error here is raised, not retried)."""
        await self._list()
        self._task = asyncio.create_task(self._run(), name=f"informer {self.path}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    def _notify(self, event: str, obj: Obj) -> None:
        for listener in list(self.listeners):
            listener(event, obj)

    async def _list(self) -> None:
        body = await self.client.request("GET", self.path, params=self.params or None)
        self.objects = {item["metadata"]["name"]: item for item in body.get("items") or []}
        self.rv = str(body["metadata"].get("resourceVersion", ""))
        self.synced.set()
        self._notify("SYNC", {})

    async def _run(self) -> None:
        while True:
            try:
                expired = await self._watch_once()
                if expired:
                    await self._list()
            except (ApiError, aiohttp.ClientError, asyncio.TimeoutError, ValueError) as e:
                self.errors.append(f"{self.path}: {e}")
                log.debug("watch of %s failed: %s", self.path, e)
                await asyncio.sleep(self.retry)
                try:
                    await self._list()
                except ApiError as e2:
                    self.errors.append(f"{self.path}: {e2}")

    async def _watch_once(self) -> bool:
        """One watch stream; True when the server said the resourceVersion is too old."""
        params = {**self.params, "watch": "1", "resourceVersion": self.rv, "allowWatchBookmarks": "true",
                  "timeoutSeconds": str(int(self.watch_timeout))}
        url = f"{self.client.url}{self.path}?{urlencode(params)}"
        token = self.client.on_request("GET", self.path) if self.client.on_request is not None else None
        try:
            async with self.client.session.get(url) as response:
                if self.client.on_done is not None:
                    self.client.on_done("GET", self.path, token)
                    token = None
                if response.status == 410:
                    return True
                if response.status >= 400:
                    text = await response.text()
                    raise ApiError("GET", self.path, response.status, None, text)
                async for line in response.content:
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    if self._apply(event["type"], event["object"]):
                        return True
        finally:
            if token is not None and self.client.on_done is not None:
                self.client.on_done("GET", self.path, token)
        return False

    def _apply(self, kind: str, obj: Obj) -> bool:
        if kind == "ERROR":
            return int(obj.get("code", 0)) == 410
        meta = obj.get("metadata", {})
        self.rv = str(meta.get("resourceVersion", self.rv))
        if kind == "BOOKMARK":
            return False
        if kind == "DELETED":
            self.objects.pop(meta["name"], None)
        else:
            self.objects[meta["name"]] = obj
        self._notify(kind, obj)
        return False
