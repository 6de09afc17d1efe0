"""A watch on the wire: newline-delimited JSON events, bookmarks and timeouts as the cacher sends them.

The store's :class:`~fake_apiserver._storage.watch.Watcher` decides which events a watch sees;
this module decides when they are written and when the stream ends: the request's
``timeoutSeconds`` (or ``minRequestTimeout``), a bookmark every minute and one 2 s before the
timeout (``nextBookmarkTime``), the watcher's stop, or the client leaving. It is apart from the
handlers because its loop is the edge's only long-lived one, and all of its waiting is on the
event loop's clock, which the harness drives (virtual time), never on the machine's.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from aiohttp import web

from fake_apiserver._endpoints.edge import open_stream
from fake_apiserver._endpoints.request import HttpRequest
from fake_apiserver._machinery.errors import StatusError
from fake_apiserver._machinery.jsonutil import dumps
from fake_apiserver._storage.watch import WatchEvent, Watcher

__all__ = ["BOOKMARK_PERIOD", "DEFAULT_WATCH_TIMEOUT", "DUE_TOLERANCE", "error_stream", "stream_watch"]

Obj = dict[str, Any]

DEFAULT_WATCH_TIMEOUT = 1800.0  # minRequestTimeout; the real server draws from [1800, 3600)
BOOKMARK_PERIOD = 60.0  # cacher bookmarkFrequency
DUE_TOLERANCE = 1e-6  # seconds: a deadline this close is reached (the grain of the virtual clock)


def _next_bookmark(now: float, deadline: float) -> float:
    """The cacher's ``nextBookmarkTime``: every minute, and once 2 s before the watch times out."""
    heartbeat = now + BOOKMARK_PERIOD
    pre_timeout = deadline - 2.0
    return pre_timeout if now < pre_timeout < heartbeat else heartbeat


async def stream_watch(
    request: HttpRequest,
    watcher: Watcher,
    timeout: float,
    allow_bookmarks: bool,
    on_events: Callable[[list[WatchEvent]], None] | None = None,
    render: Callable[[Obj], Obj] | None = None,
    encode: Callable[[WatchEvent], bytes] | None = None,
) -> web.StreamResponse:
    """Stream a watcher's events as newline-delimited JSON until timeout, stop or disconnect.

    ``on_events`` (set by an interceptor in ``info.extra["on_events"]``, e.g. the journal) sees
    each batch just before it is written; ``render`` (a Table for ``kubectl get -w``) turns each
    event's object into what the client asked for; ``encode`` (the server's
    :meth:`~fake_apiserver._endpoints.responses.EncodedObjects.event_line`) encodes an event and
    its newline, shared work among watchers."""
    loop = asyncio.get_running_loop()
    response = open_stream(request, {"Content-Type": "application/json"})
    await response.prepare(request)
    wake = asyncio.Event()
    watcher.on_ready = wake.set
    deadline = loop.time() + timeout
    next_bookmark = _next_bookmark(loop.time(), deadline)
    while True:
        events = watcher.take()
        if events:
            if on_events is not None:
                on_events(events)
            if render is None and encode is not None:
                payload = b"".join([encode(e) for e in events])
            else:
                dicts = [e.to_dict() for e in events] if render is None else [
                    {"type": e.type, "object": render(e.object)} for e in events]
                payload = b"".join(dumps(d) + b"\n" for d in dicts)
            try:
                await response.write(payload)
            except ConnectionResetError:  # the client left (e.g. a proxy in front stopped): nothing to end
                return response
        if watcher.stopped:
            break
        # due within a microsecond: a timer set for ``due - now`` fires at a float a few ulps
        # short of ``due``, and a wait of those few ulps would not move a loop's clock at all
        now = loop.time()
        if deadline - now <= DUE_TOLERANCE:
            break
        if allow_bookmarks and next_bookmark - now <= DUE_TOLERANCE:
            watcher.bookmark()
            next_bookmark = _next_bookmark(now, deadline)
            continue
        wait = deadline - now
        if allow_bookmarks:
            wait = min(wait, next_bookmark - now)
        wake.clear()
        if watcher.pending or watcher.stopped:
            continue
        try:
            await asyncio.wait_for(wake.wait(), wait)
        except asyncio.TimeoutError:
            pass
    if not watcher.stopped or watcher.stop_reason != "connection dropped":
        try:
            await response.write_eof()
        except ConnectionResetError:  # the client left first (e.g. the server is shutting down)
            pass
    return response


async def error_stream(request: HttpRequest, error: StatusError) -> web.StreamResponse:
    """A watch that ends at once with one ERROR event carrying ``error``'s ``Status``, answered
    200 (the cacher's ``newErrWatcher``)."""
    response = open_stream(request, {"Content-Type": "application/json"})
    await response.prepare(request)
    event = {"type": "ERROR", "object": error.to_status()}
    await response.write(dumps(event) + b"\n")
    await response.write_eof()
    return response
