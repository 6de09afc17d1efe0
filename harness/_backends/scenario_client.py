"""The harness's side of the project's Kubernetes client (:mod:`kubeclient`): the requests and the
informer of a scenario, its kubelet stand-in and a cluster's set-up, and paths from the table
of kinds.

The harness talks to the API the way any client does, over HTTP, so that the same scenario can
run against the fake, a kube-scheduler's view of it or a real cluster. It sends through a
:class:`kubeclient.KubeClient` and keeps, on top of it, what a scenario needs and the reference
scheduler does not:

* :class:`ScenarioClient`: writes ask for ``fieldValidation=Strict``, so a body with a field its
  type lacks, or a key written twice, is refused with the server's ``strict decoding error``
  instead of being dropped with a warning (a typo in a scenario fails loudly); a body is sent as
  given (not sorted); an error is an :class:`ApiError` that names the request, and a connection
  that failed is one too, with code 0, so that a scenario catches one exception.
* :class:`ScenarioInformer`: LIST (a consistent read, no ``resourceVersion``), then WATCH from the
  list's resourceVersion with bookmarks, re-watch when the stream ends, re-list on ``410
  Expired`` and after an error. Its listeners run on *every* event, as the server sent it, so
  that an expectation like "never bound" also sees a state that lasted a single event; a list
  is one ``SYNC``.

Why the informer is not :class:`kubeclient.Informer`: the two differ in what a server's journal
records of them (``docs/architecture.md``, "One Kubernetes client").

Paths are built from the fake's table of kinds (:data:`fake_apiserver.KINDS`): it lists the real
group, version, resource and scope of every kind, which is the same for a real cluster.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlencode

import aiohttp
import yaml

from fake_apiserver import KINDS, KindSpec
import kubeclient
from kubeclient import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, ExpiredError, KubeClient, TransportError

__all__ = [
    "PATCH_TYPES",
    "ApiError",
    "ScenarioClient",
    "ScenarioInformer",
    "resolve_kind",
    "resource_path",
    "server_from_kubeconfig",
]

Obj = dict[str, Any]
log = logging.getLogger("schedharness.informer")

PATCH_TYPES = {"strategic": STRATEGIC_MERGE_PATCH, "merge": MERGE_PATCH, "json": JSON_PATCH}
USER_AGENT = "schedharness/scenario"  # kube-apiserver names the scenario's field manager after it
WRITE_METHODS = ("POST", "PUT", "PATCH")


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


class ApiError(kubeclient.ApiError):
    """The API answered an error (``status`` holds its ``Status``), or the connection failed (code 0)."""

    def __init__(self, method: str, path: str, code: int, status: Obj | None, text: str = "") -> None:
        super().__init__(code, status or {})
        self.method, self.path = method, path
        self.message = self.message or text
        Exception.__init__(self, f"{method} {path}: {code} {self.reason}: {self.message}".replace(" : ", ": "))


class ScenarioClient:
    """JSON requests against one API server, through one :class:`kubeclient.KubeClient` (``api``),
    made on the session's first use.

    A caller that wants another field validation than ``Strict`` passes its own
    ``fieldValidation`` parameter. ``on_request`` is called with (method, path) before each
    request and ``on_done`` after it (answered or not): the scenario uses them to tell its own
    requests from the scheduler's in the journal.
    """

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        # aiohttp's own timeouts (five minutes, watches included) and connection limit (100)
        self.api = KubeClient(self.url, user_agent=USER_AGENT, request_timeout=None, connection_limit=100)

    @property
    def on_request(self) -> Callable[[str, str], object] | None:
        return self.api.on_request

    @on_request.setter
    def on_request(self, hook: Callable[[str, str], object] | None) -> None:
        self.api.on_request = hook

    @property
    def on_done(self) -> Callable[[str, str, object], None] | None:
        return self.api.on_done

    @on_done.setter
    def on_done(self, hook: Callable[[str, str, object], None] | None) -> None:
        self.api.on_done = hook

    async def request(self, method: str, path: str, *, body: Any = None,
                      content_type: str = "application/json", params: dict[str, str] | None = None) -> Any:
        """Send one request; return the decoded JSON answer (None for none) or raise :class:`ApiError`."""
        if method in WRITE_METHODS and "fieldValidation=" not in path and "fieldValidation" not in (params or {}):
            params = {**(params or {}), "fieldValidation": "Strict"}
        target = path + (("&" if "?" in path else "?") + urlencode(params) if params else "")
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        try:
            code, raw = await self.api.send(method, target, data=data, content_type=content_type)
        except TransportError as e:
            cause = e.__cause__
            if isinstance(cause, aiohttp.ClientError):
                raise ApiError(method, path, 0, None, f"connection failed ({type(cause).__name__}: {cause})") from cause
            raise (cause or e) from None  # a timeout stays what it is
        text = raw.decode()
        decoded = _decode(text)
        if code >= 400:
            raise ApiError(method, path, code, decoded if isinstance(decoded, dict) else None, text)
        return decoded

    async def close(self) -> None:
        await self.api.close()


def _decode(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


Listener = Callable[[str, Obj], None]


class ScenarioInformer:
    """LIST then WATCH one collection; ``objects`` by name; listeners called on every event.

    ``listeners`` get ``(event_type, object)`` after the cache applied the event (``SYNC`` once
    per list). The watch asks for bookmarks and times out after ``watch_timeout`` seconds, then
    resumes from the last resourceVersion; a broken stream is retried after ``retry`` seconds.
    """

    def __init__(self, client: ScenarioClient, path: str, *, watch_timeout: float = 300.0,
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
            except (kubeclient.ApiError, TransportError, aiohttp.ClientError, TimeoutError, ValueError) as e:
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
        try:
            async with contextlib.aclosing(self.client.api.watch(f"{self.path}?{urlencode(params)}", None)) as events:
                async for event in events:
                    if self._apply(event["type"], event["object"]):
                        return True
        except ExpiredError:
            return True
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
