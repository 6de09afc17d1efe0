"""A minimal asynchronous Kubernetes JSON client over aiohttp, built from a kubeconfig.

The reference scheduler needs eight verbs (get, list, watch, create, patch, post to a subresource, put a
status, delete a preemption victim) on a handful of resources, JSON only; the official client is synchronous and
thread-based, which would take work outside the event loop (and outside virtual time), so this
small one is written by hand. Every timeout and retry runs on the loop's clock.

Errors follow kopf's policy: a non-2xx answer raises an :class:`ApiError` subclass keyed by HTTP
code that keeps the server's ``Status`` object; a transport failure raises :class:`TransportError`
with the aiohttp error chained as the cause.
"""

from __future__ import annotations

import base64
import json
import ssl
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import yaml

__all__ = [
    "ApiError",
    "BadRequestError",
    "ConflictError",
    "ExpiredError",
    "KubeClient",
    "NotFoundError",
    "TransportError",
    "load_kubeconfig",
    "resource_path",
]

Obj = dict[str, Any]

STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
MERGE_PATCH = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


class ApiError(Exception):
    """The API server answered with an error ``Status`` (or a body that is not one)."""

    def __init__(self, code: int, status: Obj) -> None:
        self.code = code
        self.status = status
        self.reason = str(status.get("reason", ""))
        self.message = str(status.get("message", ""))
        super().__init__(f"{code} {self.reason}: {self.message}")


class BadRequestError(ApiError):
    """400."""


class NotFoundError(ApiError):
    """404."""


class ConflictError(ApiError):
    """409 (Conflict or AlreadyExists)."""


class ExpiredError(ApiError):
    """410: the resourceVersion is too old; re-list."""


class TransportError(Exception):
    """No HTTP answer: connection refused or reset, timeout."""


_BY_CODE: dict[int, type[ApiError]] = {400: BadRequestError, 404: NotFoundError, 409: ConflictError, 410: ExpiredError}


def error_for(code: int, status: Obj) -> ApiError:
    return _BY_CODE.get(code, ApiError)(code, status)


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


def load_kubeconfig(source: str | Path | Mapping[str, Any]) -> tuple[str, dict[str, str], ssl.SSLContext | bool]:
    """The server URL, headers and TLS setting of the current context.

    Supported: ``server``, ``certificate-authority(-data)``, ``insecure-skip-tls-verify``, a bearer
    ``token`` or ``tokenFile``, ``client-certificate(-data)``/``client-key(-data)``, and basic
    ``username``/``password``. Exec and auth-provider plugins are not.
    """
    if isinstance(source, Mapping):
        config: Obj = dict(source)
        base = Path.cwd()
    else:
        path = Path(source)
        config = yaml.safe_load(path.read_text()) or {}
        base = path.resolve().parent
    contexts = {c["name"]: c.get("context") or {} for c in config.get("contexts") or []}
    clusters = {c["name"]: c.get("cluster") or {} for c in config.get("clusters") or []}
    users = {u["name"]: u.get("user") or {} for u in config.get("users") or []}
    current = config.get("current-context") or next(iter(contexts), "")
    context = contexts.get(current, {})
    cluster = clusters.get(context.get("cluster", ""), {}) or next(iter(clusters.values()), {})
    user = users.get(context.get("user", ""), {})
    server = str(cluster.get("server", "")).rstrip("/")
    if not server:
        raise ValueError(f"kubeconfig: context {current!r} has no cluster server")
    headers: dict[str, str] = {}
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = (base / user["tokenFile"]).read_text().strip()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    elif user.get("username"):
        raw = f"{user['username']}:{user.get('password', '')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(raw).decode()
    tls: ssl.SSLContext | bool = True
    if server.startswith("https://"):
        if cluster.get("insecure-skip-tls-verify"):
            tls = False
        else:
            ctx = ssl.create_default_context()
            if cluster.get("certificate-authority-data"):
                ctx.load_verify_locations(cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())
            elif cluster.get("certificate-authority"):
                ctx.load_verify_locations(cafile=str(base / cluster["certificate-authority"]))
            tls = ctx
        cert, key = _client_cert(user, base)
        if cert:
            if not isinstance(tls, ssl.SSLContext):
                tls = ssl.create_default_context()
                tls.check_hostname = False
                tls.verify_mode = ssl.CERT_NONE
            tls.load_cert_chain(cert, key)
    return server, headers, tls


def _client_cert(user: Obj, base: Path) -> tuple[str | None, str | None]:
    def materialize(data_key: str, file_key: str) -> str | None:
        if user.get(data_key):
            f = tempfile.NamedTemporaryFile("wb", suffix=".pem", delete=False)
            f.write(base64.b64decode(user[data_key]))
            f.close()
            return f.name
        if user.get(file_key):
            return str(base / user[file_key])
        return None

    return materialize("client-certificate-data", "client-certificate"), materialize("client-key-data", "client-key")


class KubeClient:
    """One aiohttp session to one API server. ``async with KubeClient(kubeconfig) as c:``."""

    def __init__(self, kubeconfig: str | Path | Mapping[str, Any], *, request_timeout: float = 30.0) -> None:
        self.server, self._headers, self._tls = load_kubeconfig(kubeconfig)
        self._timeout = request_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                self.server,
                headers={"Accept": "application/json", **self._headers},
                connector=aiohttp.TCPConnector(ssl=self._tls, limit=64),
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
        headers = {"Content-Type": content_type} if data is not None else {}
        try:
            async with self.session.request(
                method, path, params=params, data=data, headers=headers,
                timeout=aiohttp.ClientTimeout(total=self._timeout),
            ) as response:
                raw = await response.read()
                code = response.status
        except (aiohttp.ClientError, TimeoutError) as e:
            raise TransportError(f"{method} {path}: {type(e).__name__}: {e}") from e
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

    async def watch(self, path: str, params: Mapping[str, str]) -> AsyncIterator[Obj]:
        """Yield watch events (``{"type", "object"}``) until the server ends the stream.

        An HTTP error answer raises :class:`ApiError`; an ``ERROR`` event is yielded like any
        other (the informer decides what it means)."""
        query = {**params, "watch": "true"}
        try:
            async with self.session.get(
                path, params=query, timeout=aiohttp.ClientTimeout(total=None, sock_read=None, sock_connect=self._timeout)
            ) as response:
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
