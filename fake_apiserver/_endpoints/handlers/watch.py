"""``watch``, as ``apiserver/pkg/endpoints/handlers/watch.go`` serves it: a collection, or one
object through the ``/watch/`` prefix, streamed in chunks until ``timeoutSeconds``.

The watch cache answers a ``resourceVersion`` that is too old (``Expired``) or not reached within
``blockTimeout`` (``Timeout``) with 200 and one ERROR event (the cacher's ``newErrWatcher``), which
client-go's reflector reads as "list again". A fault rule may end a watch early
(``info.extra["end_watch_after"]``), and a Table watch renders each object as a Table row
(:class:`~fake_apiserver._endpoints.tables.TableStream`).
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from fake_apiserver._endpoints.handlers.rest import BLOCK_TIMEOUT, Scope
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.tables import TableStream, negotiate_table
from fake_apiserver._endpoints.watchstream import DEFAULT_WATCH_TIMEOUT, error_stream, stream_watch
from fake_apiserver._machinery.decode import decode_list_options
from fake_apiserver._machinery.errors import Expired, Timeout
from fake_apiserver._storage.watch import Watcher

__all__ = ["watch_resource"]


async def watch_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``serveWatch``: the events of a collection (or of one object) from a resourceVersion on."""
    spec = info.spec
    assert spec is not None
    store = scope.store
    table = negotiate_table(request.headers.get("Accept", ""), info.query.get("includeObject", ""))
    if table is not None:
        info.extra["render"] = TableStream(spec, table, store.clock.now, store.printer_columns(spec))
    options = decode_list_options(info.query, spec, name=info.name)
    # timeoutSeconds as handleWatch reads it: 0 or absent is the default, below 0 ends at once
    timeout = float(options.timeout_seconds or 0) or DEFAULT_WATCH_TIMEOUT
    if "end_watch_after" in info.extra:  # a fault rule drops this watch early
        timeout = min(timeout, float(info.extra["end_watch_after"]))
    allow_bookmarks = options.allow_watch_bookmarks

    def open_watch() -> Watcher:
        return store.watch(
            spec, info.namespace or None,
            name=info.name,
            label_selector=options.label_selector,
            field_selector=options.field_selector,
            resource_version=options.resource_version,
            send_initial_events=options.send_initial_events,
            allow_bookmarks=allow_bookmarks,
        )

    try:
        try:
            watcher = open_watch()
        except Timeout:
            # The cacher waits up to blockTimeout for a version it has not reached yet.
            await asyncio.sleep(BLOCK_TIMEOUT)
            watcher = open_watch()
    except (Expired, Timeout) as e:
        # The watch cache answers these with 200 and one ERROR event (cacher's
        # newErrWatcher); client-go's reflector re-lists on an Expired one.
        return await error_stream(request, e)
    if spec.custom:
        watcher.api_version = spec.api_version  # None conversion, as for a GET
    info.extra["watcher"] = watcher
    try:
        return await stream_watch(
            request, watcher, timeout, allow_bookmarks, info.extra.get("on_events"), info.extra.get("render"),
            scope.encoded.event_line,
        )
    finally:
        watcher.stop("client gone")
