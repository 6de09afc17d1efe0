"""The fake's HTTP/1.1 edge: requests read off the socket with httptools, answers written back.

Every request a scheduler sends costs the fake this layer first, so it is kept to what the API
needs: one ``asyncio.Protocol`` a connection, a C parser (``httptools``, llhttp) that calls back
as a request's parts arrive, the whole body buffered before the request is served (the handlers
read it whole anyway, up to ``MaxRequestBodyBytes``), the answer's head and body written in one
call, and a chunked stream for watches. The answers themselves stay ``aiohttp.web.Response``
objects, plain values here: their status, headers and body are written as Go's ``net/http``
writes them (``Date``, ``Content-Length``, a newline in a header value turned into a space), with
no ``Server`` header, as kube-apiserver sends none.

A connection serves its requests one at a time and in order (HTTP/1.1 pipelining answered in
turn). A request runs at once, outside any task, as far as it goes without waiting, which for
most is to the end; one that waits (a watch, a fault rule's delay) goes on as a task, cancelled
when the client leaves, as the watch loop needs, and reading pauses while more than
:data:`MAX_QUEUED` requests wait behind it. As Go's ``net/http`` in kube-apiserver: a request
that cannot be parsed gets ``400 Bad Request`` and headers past :data:`MAX_HEADER_BYTES` get
``431``, each with the connection closed; ``Expect: 100-continue`` is answered before the body is
read; a connection idle ``idle_timeout`` seconds is closed (kube-apiserver's 90 s, which
``schedharness serve`` sets).
:class:`EdgeRequest` carries the part of ``aiohttp.web.Request`` that the request chain reads
(:class:`~fake_apiserver._endpoints.request.HttpRequest`), so the journal and the fault rules see
a request from this edge as they see one from the fault proxy, which stays on aiohttp.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from collections import deque
from collections.abc import Mapping
from email.utils import formatdate
from typing import Any, Awaitable, Callable, Coroutine, Generator, cast

import httptools
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy, MultiDict, MultiDictProxy
from yarl import URL

from fake_apiserver._endpoints.request import MAX_BODY_BYTES, HttpRequest

__all__ = ["MAX_HEADER_BYTES", "MAX_QUEUED", "Edge", "EdgeRequest", "EdgeStream", "open_stream"]

Route = Callable[["EdgeRequest"], Awaitable[web.StreamResponse]]
Serve = Callable[["EdgeRequest"], Awaitable[web.StreamResponse]]

_BAD_REQUEST = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"
_HEADERS_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
                      b"Connection: close\r\n\r\n431 Request Header Fields Too Large")
#: kube-apiserver's ``MaxHeaderBytes`` (1 MiB), with the 4096 bytes of slack Go's server adds to it
MAX_HEADER_BYTES = (1 << 20) + 4096
#: requests read ahead on one connection while one is being answered; past it, reading pauses
MAX_QUEUED = 32
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_NO_BODY = frozenset((204, 304))
_NEWLINES = str.maketrans("\r\n", "  ")
_NO_QUERY: MultiDictProxy[str] = MultiDictProxy(MultiDict())


class _Date:
    """``Date`` as Go writes it (``http.TimeFormat``), made once a second."""

    __slots__ = ("second", "text")

    def __init__(self) -> None:
        self.second = -1
        self.text = b""

    def __call__(self) -> bytes:
        now = int(time.time())
        if now != self.second:
            self.second = now
            self.text = formatdate(now, usegmt=True).encode()
        return self.text


_date = _Date()


def _header_lines(headers: Mapping[str, str] | CIMultiDictProxy[str] | CIMultiDict[str]) -> list[str]:
    """``name: value`` lines, a newline in either turned into a space (``headerNewlineToSpace``)."""
    lines = []
    for name, value in headers.items():
        line = f"{name}: {value}"
        if "\r" in line or "\n" in line:
            line = line.translate(_NEWLINES)
        lines.append(line + "\r\n")
    return lines


class _Body:
    """The buffered body, read as ``aiohttp``'s ``StreamReader`` is read by the request chain."""

    __slots__ = ("data", "position")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0

    async def readexactly(self, n: int) -> bytes:
        chunk = self.data[self.position:self.position + n]
        self.position += len(chunk)
        if len(chunk) < n:
            raise asyncio.IncompleteReadError(chunk, n)
        return chunk

    async def read(self, n: int = -1) -> bytes:
        end = len(self.data) if n < 0 else self.position + n
        chunk = self.data[self.position:end]
        self.position += len(chunk)
        return chunk


class EdgeRequest:
    """One request as the edge read it: the part of ``aiohttp.web.Request`` the chain reads."""

    __slots__ = ("method", "raw_path", "_url", "headers", "version", "content_length", "content", "_connection",
                 "keep_alive", "can_read_body")

    def __init__(self, connection: _Connection, method: str, raw_path: str, headers: CIMultiDictProxy[str],
                 version: str, body: bytes, content_length: int | None, keep_alive: bool) -> None:
        self._connection = connection
        self.method = method
        self.raw_path = raw_path
        self._url: URL | None = None
        self.headers = headers
        self.version = version
        self.content_length = content_length
        self.content = _Body(body)
        self.can_read_body = bool(body)
        self.keep_alive = keep_alive

    @property
    def rel_url(self) -> URL:
        if self._url is None:
            self._url = URL(self.raw_path, encoded=True)
        return self._url

    @property
    def path(self) -> str:
        """The path, percent-decoded (yarl's, as aiohttp's ``Request.path``)."""
        raw = self.raw_path
        if raw[:1] == "/" and "%" not in raw and "?" not in raw and "#" not in raw:
            return raw  # what yarl would give back unchanged
        return self.rel_url.path

    @property
    def query(self) -> MultiDictProxy[str]:
        return self.rel_url.query if "?" in self.raw_path else _NO_QUERY

    @property
    def host(self) -> str:
        return self.headers.get("Host", "")

    @property
    def transport(self) -> asyncio.Transport | None:
        return self._connection.transport

    async def json(self) -> Any:
        return json.loads(self.content.data)


class EdgeStream(web.StreamResponse):
    """A chunked answer the edge writes as it is produced (a watch): ``prepare`` writes the head,
    ``write`` a chunk (waiting while the client reads slower than the fake writes), ``write_eof``
    the last one."""

    def __init__(self, request: EdgeRequest, *, status: int = 200, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status=status, headers=headers)
        self._request = request
        self._connection = request._connection
        self._started = False
        self._ended = False

    @property
    def prepared(self) -> bool:
        return self._started

    async def prepare(self, request: Any) -> None:
        if self._started:
            return
        self._started = True
        self._connection.write(_head(self._request, self, ["Transfer-Encoding: chunked\r\n"]))

    async def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        connection = self._connection
        if connection.closed:
            raise ConnectionResetError("the client closed the connection")
        connection.write(b"%x\r\n%b\r\n" % (len(data), bytes(data)))
        await connection.drain()

    async def write_eof(self, data: bytes = b"") -> None:
        if self._ended:
            return
        if data:
            await self.write(data)
        self._ended = True
        connection = self._connection
        if connection.closed:
            raise ConnectionResetError("the client closed the connection")
        connection.write(b"0\r\n\r\n")


def open_stream(request: HttpRequest, headers: Mapping[str, str]) -> EdgeStream:
    """A 200 streamed answer with ``headers`` for ``request`` (the fake's watches)."""
    if not isinstance(request, EdgeRequest):
        raise TypeError("a watch is streamed by the fake's own HTTP edge (fake_apiserver._endpoints.edge)")
    return EdgeStream(request, headers=headers)


class _Connection(asyncio.Protocol):
    """One client connection: parses, serves its requests in turn, writes the answers."""

    def __init__(self, edge: Edge) -> None:
        self.edge = edge
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.upgraded = False  # or refused: what follows on the connection is not read
        self.paused = False
        self.active_at = 0.0
        self._idle: asyncio.TimerHandle | None = None
        self._head_size = 0
        self.parser = httptools.HttpRequestParser(self)
        self.queue: deque[EdgeRequest] = deque()
        self.task: asyncio.Task[None] | None = None
        self._paused: asyncio.Future[None] | None = None
        self._url = b""
        self._headers: list[tuple[bytes, bytes]] = []
        self._body: list[bytes] = []
        self._size = 0

    # ---------------------------------------------------------------- the transport's callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not registered as one
        self.edge.connections.add(self)
        if self.edge.idle_timeout is not None:
            loop = asyncio.get_running_loop()
            self.active_at = loop.time()
            self._idle = loop.call_at(self.active_at + self.edge.idle_timeout, self._idle_check)

    def connection_lost(self, exc: Exception | None) -> None:
        self.edge.connections.discard(self)
        self.closed = True
        self.transport = None
        self.queue.clear()
        if self.task is not None:
            self.task.cancel()
        if self._idle is not None:
            self._idle.cancel()
        self._wake()

    def _idle_check(self) -> None:
        """Close the connection once it has been idle ``idle_timeout`` seconds (Go's
        ``IdleTimeout``); the one timer is set again, from the last activity, until then."""
        timeout = self.edge.idle_timeout
        assert timeout is not None
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self.task is not None or self.queue:  # a request being answered (a watch) is no idleness
            self.active_at = now
        elif now - self.active_at >= timeout:
            self._idle = None
            self.close()
            return
        self._idle = loop.call_at(self.active_at + timeout, self._idle_check)

    def pause_writing(self) -> None:
        if self._paused is None:
            self._paused = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        self._wake()

    def _wake(self) -> None:
        paused, self._paused = self._paused, None
        if paused is not None and not paused.done():
            paused.set_result(None)

    def data_received(self, data: bytes) -> None:
        if self.upgraded:
            return
        if self._idle is not None:
            self.active_at = asyncio.get_running_loop().time()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:  # served as any other request, and the connection closed after it
            self.upgraded = True
        except httptools.HttpParserCallbackError as e:
            if not isinstance(e.__context__, _Refused):
                raise
        except httptools.HttpParserError:
            if self.transport is not None:
                self.transport.write(_BAD_REQUEST)
                self.transport.close()

    # ---------------------------------------------------------------- the parser's callbacks
    # (a request's parts are kept raw and reset once it is complete: each callback is a call from C)
    def on_url(self, url: bytes) -> None:
        self._url += url
        self._head_size += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name, value))
        self._head_size += len(name) + len(value) + 4
        if self._head_size > MAX_HEADER_BYTES:  # Go's 431; the parser is not fed again
            self.upgraded = True
            if self.transport is not None:
                self.transport.write(_HEADERS_TOO_LARGE)
                self.transport.close()
            raise _Refused()
        if len(name) == 6 and name.lower() == b"expect" and value.lower() == b"100-continue" and self.transport:
            self.transport.write(_CONTINUE)  # the client sends the body once told to

    def on_body(self, body: bytes) -> None:
        if self._size <= MAX_BODY_BYTES:  # past the limit the request is refused (413): keep no more
            self._body.append(body)
            self._size += len(body)

    def on_message_complete(self) -> None:
        headers = CIMultiDictProxy(CIMultiDict([(name.decode("latin-1"), value.decode("utf-8", "surrogateescape"))
                                                for name, value in self._headers]))
        length = headers.get("Content-Length")
        parser = self.parser
        request = EdgeRequest(
            self, parser.get_method().decode("latin-1"), self._url.decode("utf-8", "surrogateescape"), headers,
            "1.0" if parser.get_http_version() == "1.0" else "1.1", b"".join(self._body) if self._body else b"",
            int(length) if length is not None and length.isdigit() else None,
            parser.should_keep_alive() and not parser.should_upgrade(),
        )
        self._url = b""
        self._headers = []
        self._body = []
        self._size = 0
        self._head_size = 0
        self.queue.append(request)
        if self.task is None:
            self._serve()
        elif len(self.queue) >= MAX_QUEUED and not self.paused and self.transport is not None:
            self.paused = True  # the client sends faster than a waiting request lets them be answered
            self.transport.pause_reading()

    # ---------------------------------------------------------------- serving
    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def write(self, data: bytes) -> None:
        if self.transport is not None:
            self.transport.write(data)

    async def drain(self) -> None:
        if self._paused is not None:
            await self._paused

    async def _respond(self, request: EdgeRequest) -> bool:
        """Answer ``request`` and write the answer; whether the connection goes on."""
        response = await self.edge.answer(request)
        if self.closed:
            return False
        if not isinstance(response, EdgeStream):
            self.write(_encode(request, response))
        if not request.keep_alive or self.edge.closing:
            self.close()
            return False
        return True

    def _resume_reading(self) -> None:
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()

    def _serve(self) -> None:
        """Answer the queued requests in order. Each runs at once, in a context of its own, as far
        as it goes without waiting (most do not wait at all: their body is read, the store
        answers at once); one that waits (a watch, a delay) goes on as a task, and the requests
        behind it wait for that task. A task a request saves its ``WeakSet`` entry, its scheduling
        and a trip round the loop."""
        while self.queue and not self.closed and self.task is None:
            request = self.queue.popleft()
            respond = self._respond(request)
            context = contextvars.copy_context()
            try:
                waiting_on = context.run(respond.send, None)
            except StopIteration as done:
                if done.value:
                    continue
                return
            except (asyncio.CancelledError, ConnectionError):  # a fault rule closed the connection
                return
            except Exception as e:
                asyncio.get_running_loop().call_exception_handler(
                    {"message": "the fake's edge failed to answer a request", "exception": e, "protocol": self})
                self.close()
                return
            self.task = asyncio.get_running_loop().create_task(self._go_on(respond, waiting_on), context=context)
            return
        self._resume_reading()

    async def _go_on(self, respond: Coroutine[Any, Any, bool], waiting_on: Any) -> None:
        """The rest of a request that waited, then the requests queued behind it."""
        try:
            going_on = await _Resumed(respond, waiting_on)
        except (asyncio.CancelledError, ConnectionError):
            return
        finally:
            self.task = None
        if going_on:
            self._serve()


class _Refused(Exception):
    """A request the edge refused while it was being parsed (it has answered already)."""


class _Resumed:
    """Awaiting it drives a coroutine that was started outside a task and stopped at ``waiting_on``
    (the future it waits for): the task that awaits this one takes that future as its own, and
    sends and throws into the coroutine what it would have (a result, a cancellation)."""

    __slots__ = ("coroutine", "waiting_on")

    def __init__(self, coroutine: Coroutine[Any, Any, bool], waiting_on: Any) -> None:
        self.coroutine = coroutine
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, bool]:
        coroutine, step = self.coroutine, self.waiting_on
        while True:
            try:
                sent = yield step
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as thrown:
                try:
                    step = coroutine.throw(thrown)
                except StopIteration as done:
                    return bool(done.value)
            else:
                try:
                    step = coroutine.send(sent)
                except StopIteration as done:
                    return bool(done.value)


def _encode(request: EdgeRequest, response: web.StreamResponse) -> bytes:
    """A whole answer's bytes: status line, headers, ``Content-Length``, ``Date``, body."""
    status = response.status
    body = response.body if isinstance(response, web.Response) else None
    if body is None:
        data = b""
    elif isinstance(body, (bytes, bytearray, memoryview)):
        data = bytes(body)
    else:
        raise TypeError(f"an answer's body is bytes, not {type(body).__name__}")
    if status in _NO_BODY or status < 200:
        data, framing = b"", []
    else:
        framing = [f"Content-Length: {len(data)}\r\n"]
    head = _head(request, response, framing)
    return head if request.method == "HEAD" or not data else head + data


def _head(request: EdgeRequest, response: web.StreamResponse, framing: list[str]) -> bytes:
    """An answer's head: status line, its headers, ``framing`` (its length, or chunked),
    ``Connection: close`` when the connection ends with it, ``Date``."""
    if not request.keep_alive and request.version == "1.1":  # HTTP/1.0 closes unless told otherwise
        framing = [*framing, "Connection: close\r\n"]
    return _status_and_headers(request.version, response) + "".join(framing).encode("latin-1") + b"Date: " + \
        _date() + b"\r\n\r\n"


_HEADS: dict[tuple[str, int, str, str], bytes] = {}  # _status_and_headers' of an answer whose one header is its type
_MAX_HEADS = 256


def _status_and_headers(version: str, response: web.StreamResponse) -> bytes:
    """The status line and the answer's own headers. Those of an answer with a ``Content-Type``
    alone (most: an object, a list, a ``Status``) are made once for each status and type."""
    headers = response.headers
    key = None
    if len(headers) == 1:
        content_type = headers.get("Content-Type")
        if content_type is not None:
            key = (version, response.status, response.reason, content_type)
            made = _HEADS.get(key)
            if made is not None:
                return made
    made = "".join([f"HTTP/{version} {response.status} {response.reason}\r\n", *_header_lines(headers)]).encode("latin-1")
    if key is not None and len(_HEADS) < _MAX_HEADS:
        _HEADS[key] = made
    return made


class Edge:
    """The server side of the fake's sockets: ``serve`` answers each request, except the paths in
    ``routes`` (``{(method, path): handler}``, the admin path), answered by their handler; a
    path in ``routes`` asked with another method is 405. Use ``loop.create_server(edge.protocol,
    host, port)``."""

    def __init__(self, serve: Serve, routes: Mapping[tuple[str, str], Route] | None = None, *,
                 idle_timeout: float | None = None) -> None:
        self.serve = serve
        self.idle_timeout = idle_timeout
        self.routes = dict(routes or {})
        self._route_paths = {path for _, path in self.routes}
        self.connections: set[_Connection] = set()
        self.closing = False

    def protocol(self) -> asyncio.Protocol:
        return _Connection(self)

    async def close(self, grace: float = 10.0) -> None:
        """Close every connection: an idle one at once, a busy one once its answer is written
        (after ``grace`` seconds on the loop's clock, its request is cancelled)."""
        self.closing = True
        busy = [c.task for c in self.connections if c.task is not None]
        for connection in [c for c in self.connections if c.task is None]:
            connection.close()
        if busy:
            _, pending = await asyncio.wait(busy, timeout=grace)
            for task in pending:
                task.cancel()
        for connection in list(self.connections):
            connection.close()

    async def answer(self, request: EdgeRequest) -> web.StreamResponse:
        if self._route_paths:
            path = request.path
            if path in self._route_paths:
                method = "GET" if request.method == "HEAD" else request.method
                route = self.routes.get((method, path))
                if route is None:
                    allowed = sorted({m for m, p in self.routes if p == path})
                    return web.Response(status=405, text="405: Method Not Allowed",
                                        headers={"Allow": ",".join(allowed)})
                try:
                    return await route(request)
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    return web.Response(status=500, text=f"500 Internal Server Error: {type(e).__name__}: {e}")
        return await self.serve(request)
