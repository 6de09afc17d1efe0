"""``delete`` and ``deletecollection``, as ``apiserver/pkg/endpoints/handlers/delete.go`` serves
them.

A delete answers with the object while it is kept (finalizers, a grace period) or when the kind's
registry returns the deleted object, else with a ``Status`` (the store decides,
:meth:`~fake_apiserver._storage.store.Store.delete`). Its options come from the query or the body
(``DeleteOptions``), and a body's ``dryRun`` counts as the query's. No subresource is deleted.
:func:`write` is the store call both serving and previewing make.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fake_apiserver._endpoints.decoding import delete_options
from fake_apiserver._endpoints.handlers.rest import Scope, at_version
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed
from fake_apiserver._machinery.decode import decode_list_options
from fake_apiserver._storage.effects import Effect
from fake_apiserver._storage.store import kept_after_delete

__all__ = ["delete_collection", "delete_resource", "preview", "write"]

Obj = dict[str, Any]


def write(scope: Scope, info: RequestInfo, *, dry_run: bool, warnings: list[str] | None = None) -> Obj:
    """The store's answer to the delete: ``dry_run`` as the query's ``dryRun=All`` (the body's
    ``DeleteOptions`` may ask for it too). A delete has no ``fieldValidation`` warnings."""
    spec = info.spec
    assert spec is not None
    options = delete_options(info)
    return scope.store.delete(spec, info.namespace or None, info.name, options=options,
                              dry_run=dry_run or bool(options.get("dryRun")))


async def delete_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``DeleteResource``: the object or a ``Status``. A DELETE of a subresource is go-restful's 405."""
    spec = info.spec
    assert spec is not None
    if info.subresource:
        raise RouteMethodNotAllowed()
    return scope.encoded.response(at_version(spec, write(scope, info, dry_run=False)))


async def delete_collection(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``DeleteCollection``: every object the selectors match deleted, and the list of them."""
    spec = info.spec
    assert spec is not None
    options = decode_list_options(info.query, spec)
    delete = delete_options(info)
    return json_response(scope.store.delete_collection(
        spec, info.namespace or None, label_selector=options.label_selector,
        field_selector=options.field_selector, options=delete, dry_run=bool(delete.get("dryRun")),
    ))


def preview(scope: Scope, info: RequestInfo, before: Obj | None) -> Effect | None:
    """The object the delete would leave: still there (marked) while kept, else gone. None for a
    DELETE of a subresource."""
    if not info.name or info.subresource:
        return None
    after = write(scope, info, dry_run=True)
    return Effect(before, after if kept_after_delete(after) else None)
