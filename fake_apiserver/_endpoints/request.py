"""The request model and the interceptor chain, shared by the fake and the fault proxy.

A request is read once into a :class:`RequestInfo` (the same fields as apiserver's
``RequestInfo``: verb, group, version, resource, subresource, namespace, name), with its whole
body (413 past ``MaxRequestBodyBytes``). It then passes through the ``interceptors`` in order
(:func:`run_chain`; the journal and the fault injector hook in there) before it reaches the last
handler: the fake's store (:mod:`~fake_apiserver._endpoints.http`) or the proxy's upstream
(:mod:`~fake_apiserver._server.proxy`). :func:`answered` is the edge both put around that: an
error becomes its ``Status``, never a traceback.

This module knows no store and no route, so that the proxy, which forwards instead of serving,
reads and journals a request exactly as the fake does.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from collections.abc import Mapping
from operator import is_not
from typing import Any, Awaitable, Callable, Protocol, Sequence

from aiohttp import web

from fake_apiserver._endpoints.responses import status_response
from fake_apiserver._machinery.decode import query_bool
from fake_apiserver._machinery.errors import InternalError, RequestEntityTooLarge, StatusError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.core.namespace import NAMESPACE_SEGMENT, NAMESPACE_SUBRESOURCES
from fake_apiserver._registry.kinds import by_resource

__all__ = [
    "BODY_TYPES",
    "MAX_BODY_BYTES",
    "AdminRequest",
    "AdminRoute",
    "Chain",
    "Handler",
    "HttpRequest",
    "Interceptor",
    "Lookup",
    "RequestInfo",
    "answered",
    "chain_of",
    "media_type",
    "read_request",
    "run_chain",
]

MAX_BODY_BYTES = 3 * 1024 * 1024  # apiserver's default MaxRequestBodyBytes
#: The media types a request body may come in (the server's serializers), as its 415 and 406 list them.
BODY_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf"


@dataclass
class RequestInfo:
    """What a request is about, parsed once (``apiserver/pkg/endpoints/request/requestinfo.go``)."""

    method: str
    path: str
    query: Mapping[str, str]
    content_type: str
    body: bytes = b""
    user_agent: str = ""
    is_resource: bool = False
    verb: str = ""
    group: str = ""
    version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    spec: KindSpec | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def group_resource(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


class Body(Protocol):
    async def readexactly(self, n: int) -> bytes: ...

    async def read(self, n: int = -1) -> bytes: ...


class HttpRequest(Protocol):
    """What the chain reads of a request: an ``aiohttp.web.Request`` (the fault proxy) or an
    :class:`~fake_apiserver._endpoints.edge.EdgeRequest` (the fake)."""

    @property
    def method(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def query(self) -> Mapping[str, str]: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def host(self) -> str: ...

    @property
    def content_length(self) -> int | None: ...

    @property
    def can_read_body(self) -> bool: ...

    @property
    def content(self) -> Body: ...

    @property
    def transport(self) -> asyncio.Transport | None: ...


Handler = Callable[[RequestInfo, HttpRequest], Awaitable[web.StreamResponse]]


class AdminRequest(HttpRequest, Protocol):
    """A request on the admin path, whose handlers also read a JSON body."""

    async def json(self) -> Any: ...


AdminRoute = Callable[[Any], Awaitable[web.StreamResponse]]
"""An admin path's handler (the fault rules, the journal), served by the fake's edge and by the
fault proxy's aiohttp application alike."""


class Interceptor(Protocol):
    async def __call__(self, info: RequestInfo, request: HttpRequest, call_next: Handler) -> web.StreamResponse:
        """Handle ``info`` or pass it on with ``await call_next(info, request)``."""
        ...


def media_type(content_type: str) -> str:
    """A ``Content-Type`` (or one ``Accept`` entry) without its parameters, lowercased."""
    return content_type.split(";", 1)[0].strip().lower()


Lookup = Callable[[str, str, str], "KindSpec | None"]
"""A served row by group, version and resource: the store's (:meth:`Store.lookup`) for the fake,
the default release's table for the proxy."""


def _parse_path(info: RequestInfo, lookup: Lookup) -> None:
    """Fill the resource fields of ``info`` from its path, or leave ``is_resource`` False."""
    parts = [p for p in info.path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return
    if not rest:
        return
    watch_prefix = rest[0] == "watch"
    if watch_prefix:
        rest = rest[1:]
    namespace = ""
    if len(rest) >= 3 and rest[0] == NAMESPACE_SEGMENT and \
            not (group == "" and len(rest) == 3 and rest[2] in NAMESPACE_SUBRESOURCES):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        info.is_resource = True
        info.group, info.version = group, version
        return
    info.is_resource = True
    info.group, info.version, info.namespace = group, version, namespace
    info.resource = rest[0]
    info.name = rest[1] if len(rest) > 1 else ""
    info.subresource = rest[2] if len(rest) > 2 else ""
    info.spec = lookup(group, version, info.resource)
    # RequestInfo: ?watch makes a watch of a collection only (any value but "0"/"false"); one
    # object is watched through the /watch/ prefix, and a GET of it ignores ?watch.
    watching = watch_prefix or (not info.name and "watch" in info.query and query_bool(info.query["watch"]))
    method = info.method
    if method == "GET":
        info.verb = "watch" if watching else ("get" if info.name else "list")
    elif method == "POST":
        info.verb = "create"
    elif method == "PUT":
        info.verb = "update"
    elif method == "PATCH":
        info.verb = "patch"
    elif method == "DELETE":
        info.verb = "delete" if info.name else "deletecollection"
    else:
        info.verb = method.lower()


async def answered(work: Awaitable[web.StreamResponse]) -> web.StreamResponse:
    """``work``'s answer, or its error as a ``Status`` (an unexpected exception as a 500): never
    a traceback to the client. The edge of the fake and of the fault proxy."""
    try:
        return await work
    except StatusError as e:
        return status_response(e)
    except (ConnectionResetError, asyncio.CancelledError):
        raise
    except Exception as e:
        return status_response(InternalError(f"Internal error occurred: {type(e).__name__}: {e}"))


def chain_of(interceptors: Sequence[Interceptor], last: Handler) -> Handler:
    """One handler that passes a request through ``interceptors`` in order, then to ``last``:
    each step hands its interceptor the rest of the chain, and calling it starts no coroutine of
    its own (a request awaits its interceptors' and the last handler's alone)."""
    handler = last
    for interceptor in reversed(interceptors):
        handler = _step(interceptor, handler)
    return handler


def _step(interceptor: Interceptor, rest: Handler) -> Handler:
    return lambda info, request: interceptor(info, request, rest)


class Chain:
    """:func:`chain_of` the interceptors it is called with (a server's list, which tests and the
    harness add to), made again only when they are not those it was last made from."""

    __slots__ = ("last", "_made_from", "_handler")

    def __init__(self, last: Handler) -> None:
        self.last = last
        self._made_from: tuple[Interceptor, ...] = ()
        self._handler = last

    def __call__(self, interceptors: Sequence[Interceptor], info: RequestInfo,
                 request: HttpRequest) -> Awaitable[web.StreamResponse]:
        made_from = self._made_from
        if len(interceptors) != len(made_from) or any(map(is_not, interceptors, made_from)):  # the same objects
            self._made_from = tuple(interceptors)
            self._handler = chain_of(self._made_from, self.last)
        return self._handler(info, request)


async def run_chain(interceptors: Sequence[Interceptor], info: RequestInfo, request: HttpRequest,
                    last: Handler) -> web.StreamResponse:
    """Pass the request through ``interceptors`` in order, then to ``last`` (the fake's store or
    the proxy's upstream)."""
    return await chain_of(interceptors, last)(info, request)


async def read_request(request: HttpRequest, lookup: Lookup = by_resource) -> RequestInfo:
    """The request parsed once: method, path, query, content type, the whole body (413 past the
    limit) and, for an API path, what it is about (its row found with ``lookup``). Shared by the
    fake and the fault proxy."""
    info = RequestInfo(method=request.method, path=request.path, query=request.query,
                       content_type=request.headers.get("Content-Type", ""),
                       user_agent=request.headers.get("User-Agent", ""))
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")
    if request.can_read_body:
        info.body = await _read_body(request)
    _parse_path(info, lookup)
    return info


async def _read_body(request: HttpRequest) -> bytes:
    """The whole body, or 413 past the limit (``limitedReadBody``); ``read(n)`` alone returns
    only what has arrived so far. The caller has refused a ``Content-Length`` over the limit."""
    if request.content_length is not None:
        try:
            return await request.content.readexactly(request.content_length)
        except asyncio.IncompleteReadError as e:  # the client sent less than it announced
            return e.partial
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.read(MAX_BODY_BYTES + 1 - size)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")
