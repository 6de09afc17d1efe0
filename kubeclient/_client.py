"""One asynchronous Kubernetes JSON client over aiohttp, for every part of the project that talks
to an API server: the reference scheduler, and the harness's scenarios, kubelet stand-in and
cluster set-up.

Every caller needs a few verbs on a handful of resources, JSON only, on the event loop. The
official client is synchronous and thread-based, which would take work outside the event loop
(and outside virtual time), so this small one is written by hand. Every timeout and retry runs
on the loop's clock.

Three layers, each usable on its own:

* :meth:`KubeClient.send`: one request as it is given (path, query, body bytes), its status code
  and raw body back, or :class:`~kubeclient.TransportError` when there is no answer. The
  hooks ``on_request`` and ``on_done`` see every request, so that a caller can tell its own
  requests apart in a server's journal.
* :meth:`KubeClient.request` and the verbs (``get``, ``list``, ``create``, ``put``, ``patch``,
  ``delete``): JSON in and out, errors as :class:`~kubeclient.ApiError` keyed by code. A
  patch body is sent with its keys sorted, as Go marshals a map (kube-scheduler's patches).
* :meth:`KubeClient.watch`: the events of one watch request, as they arrive.

A client is made from a kubeconfig (a path, or its content as a mapping) or a server URL. Its
options are what differs between callers, and only that: the ``User-Agent`` (aiohttp's own by
default; kube-apiserver names a write's field manager after it), the request timeout (``None``
leaves aiohttp's defaults: five minutes in all, for a watch too) and the number of connections.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import AsyncGenerator, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

from kubeclient._errors import TransportError, error_for
from kubeclient._kubeconfig import load_kubeconfig

__all__ = ["JSON_PATCH", "MERGE_PATCH", "STRATEGIC_MERGE_PATCH", "KubeClient", "resource_path"]

Obj = dict[str, Any]

STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


def resource_path(
    group: str,
    version: str,
    resource: str,
    namespace: str | None = None,
    name: str | None = None,
    subresource: str | None = None,
) -> str:
    """``/api/v1/namespaces/ns/pods/p/status`` and its cluster-scoped and group forms."""
    parts = ["/api", version] if not group else ["/apis", group, version]
    if namespace:
        parts += ["namespaces", quote(namespace, safe="")]
    parts.append(resource)
    if name:
        parts.append(quote(name, safe=""))
    if subresource:
        parts.append(subresource)
    return "/".join(parts)


class KubeClient:
    """One aiohttp session to one API server. ``async with KubeClient(kubeconfig) as c:``.

    ``source`` is a kubeconfig (its path or its content) or, for a server that needs neither
    credentials nor a CA, its URL (``http://`` or ``https://``). ``on_request(method, path)`` is
    called before each request and its result handed to ``on_done(method, path, token)`` once
    the answer is in (a watch's once its head is), or the request failed.
    """

    def __init__(self, source: str | Path | Mapping[str, Any], *, request_timeout: float | None = 30.0,
                 user_agent: str | None = None, connection_limit: int = 64) -> None:
        self._headers: dict[str, str]
        self._tls: ssl.SSLContext | bool
        if isinstance(source, str) and source.startswith(("http://", "https://")):
            self.server, self._headers, self._tls = source.rstrip("/"), {}, True
        else:
            self.server, self._headers, self._tls = load_kubeconfig(source)
        self._timeout = request_timeout
        self.user_agent = user_agent
        self.connection_limit = connection_limit
        self._session: aiohttp.ClientSession | None = None
        self.on_request: Callable[[str, str], object] | None = None
        self.on_done: Callable[[str, str, object], None] | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            agent = {"User-Agent": self.user_agent} if self.user_agent is not None else {}
            self._session = aiohttp.ClientSession(
                self.server,
                headers={"Accept": "application/json", **agent, **self._headers},
                connector=aiohttp.TCPConnector(ssl=self._tls, limit=self.connection_limit),
            )
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> KubeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _timeout_of(self, *, watch: bool = False) -> aiohttp.ClientTimeout:
        """The timeout of one request; with none given, the session's own (aiohttp's defaults)."""
        if self._timeout is None:
            return self.session.timeout
        if watch:  # a watch lasts as long as the server keeps it: only connecting is timed
            return aiohttp.ClientTimeout(total=None, sock_read=None, sock_connect=self._timeout)
        return aiohttp.ClientTimeout(total=self._timeout)

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        data: bytes | None = None,
        content_type: str = "application/json",
    ) -> tuple[int, bytes]:
        """One request as given (``path`` may carry its own query); its status code and body."""
        headers = {"Content-Type": content_type} if data is not None else {}
        token = self.on_request(method, path) if self.on_request is not None else None
        try:
            async with self.session.request(method, path, params=params, data=data, headers=headers,
                                            timeout=self._timeout_of()) as response:
                return response.status, await response.read()
        except (aiohttp.ClientError, TimeoutError) as e:
            raise TransportError(f"{method} {path}: {type(e).__name__}: {e}") from e
        finally:
            if self.on_done is not None:
                self.on_done(method, path, token)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        content_type: str = "application/json",
    ) -> Obj:
        # patches are maps in Go and marshal with sorted keys; objects keep their field order
        sort = content_type != "application/json"
        data = None if body is None else json.dumps(body, separators=(",", ":"), sort_keys=sort).encode()
        code, raw = await self.send(method, path, params=params, data=data, content_type=content_type)
        try:
            obj = json.loads(raw) if raw else {}
        except ValueError:
            obj = {"message": raw[:200].decode(errors="replace")}
        if code >= 400:
            raise error_for(code, obj if isinstance(obj, dict) else {"message": str(obj)})
        return obj if isinstance(obj, dict) else {}

    async def get(self, path: str) -> Obj:
        return await self.request("GET", path)

    async def list(self, path: str, params: Mapping[str, str] | None = None) -> Obj:
        return await self.request("GET", path, params=params)

    async def create(self, path: str, body: Obj) -> Obj:
        return await self.request("POST", path, body=body)

    post = create

    async def put(self, path: str, body: Obj) -> Obj:
        return await self.request("PUT", path, body=body)

    async def patch(self, path: str, body: Any, content_type: str = STRATEGIC_MERGE_PATCH) -> Obj:
        return await self.request("PATCH", path, body=body, content_type=content_type)

    async def delete(self, path: str, body: Obj | None = None) -> Obj:
        """DELETE; no body sends the server's default DeleteOptions (a graceful delete of a bound pod)."""
        return await self.request("DELETE", path, body=body)

    async def watch(self, path: str, params: Mapping[str, str] | None) -> AsyncGenerator[Obj, None]:
        """Yield watch events (``{"type", "object"}``) until the server ends the stream.

        ``params`` are sent with ``watch=true`` after them; with ``None``, ``path`` carries the
        whole query, the watch parameter included. An HTTP error answer raises
        :class:`~kubeclient.ApiError` (:class:`~kubeclient.ExpiredError` for 410);
        an ``ERROR`` event is yielded like any other (the informer decides what it means)."""
        query = {**params, "watch": "true"} if params is not None else None
        token = self.on_request("GET", path) if self.on_request is not None else None
        done = self.on_done is None
        try:
            async with self.session.get(path, params=query, timeout=self._timeout_of(watch=True)) as response:
                if self.on_done is not None:
                    self.on_done("GET", path, token)
                    done = True
                if response.status >= 400:
                    raw = await response.read()
                    try:
                        status = json.loads(raw)
                    except ValueError:
                        status = {"message": raw[:200].decode(errors="replace")}
                    raise error_for(response.status, status if isinstance(status, dict) else {})
                while True:
                    line = await response.content.readline()
                    if not line:
                        return
                    if line.strip():
                        event = json.loads(line)
                        if isinstance(event, dict):
                            yield event
        except (aiohttp.ClientError, TimeoutError) as e:
            raise TransportError(f"WATCH {path}: {type(e).__name__}: {e}") from e
        finally:
            if not done and self.on_done is not None:
                self.on_done("GET", path, token)
