"""``get`` and ``list``, as ``apiserver/pkg/endpoints/handlers/get.go`` serves them.

A read is answered from the store, as the watch cache answers it: a ``resourceVersion`` the store
has not reached yet is waited for once, for the cacher's ``blockTimeout``, then refused with its
504. ``kubectl get`` asks for a server-side Table (:mod:`~fake_apiserver._endpoints.tables`),
rendered from the same object or list. A ``get`` of a subresource without a handler of its own
(``status``, ``resize``) reads the whole object, as the real status REST does.
"""

from __future__ import annotations

import asyncio

from aiohttp import web

from fake_apiserver._endpoints.handlers.rest import BLOCK_TIMEOUT, Scope, at_version, blocking, check_export
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._endpoints.tables import negotiate_table, render_table
from fake_apiserver._machinery.decode import decode_list_options, parse_resource_version, query_values
from fake_apiserver._storage.store import too_large_resource_version

__all__ = ["get_resource", "list_resource"]


async def get_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``GetResource``: one object, or its Table."""
    spec = info.spec
    assert spec is not None
    store, q = scope.store, info.query
    table = negotiate_table(request.headers.get("Accept", ""), q.get("includeObject", ""))
    check_export(q)
    wanted = parse_resource_version(spec, query_values(q, "resourceVersion")[0] if "resourceVersion" in q else "",
                                    named=True)
    if wanted > store.resource_version:
        await asyncio.sleep(BLOCK_TIMEOUT)  # the cacher waits for a version it has not reached
        if wanted > store.resource_version:
            raise too_large_resource_version(wanted, store.cache(spec).rv)
    got = at_version(spec, store.get(spec, info.namespace or None, info.name))
    return json_response(render_table(spec, got, table, store.clock.now(), columns=store.printer_columns(spec))) \
        if table else scope.encoded.response(got)


async def list_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``ListResource``: a page of a collection, or its Table."""
    spec = info.spec
    assert spec is not None
    store, q, ns = scope.store, info.query, info.namespace or None
    table = negotiate_table(request.headers.get("Accept", ""), q.get("includeObject", ""))
    options = decode_list_options(q, spec)
    listed = await blocking(lambda: store.list(
        spec, ns,
        label_selector=options.label_selector,
        field_selector=options.field_selector,
        limit=max(options.limit, 0),
        continue_token=options.continue_token,
        resource_version=options.resource_version,
        resource_version_match=options.resource_version_match,
    ))
    listed = at_version(spec, listed)
    return json_response(render_table(spec, listed, table, store.clock.now(),
                                      columns=store.printer_columns(spec)) if table else listed)
