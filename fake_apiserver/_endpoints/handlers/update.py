"""``update``, as ``apiserver/pkg/endpoints/handlers/update.go`` serves it: a PUT of one object,
or of a subresource without a handler of its own (``status``, ``resize``).

A PUT of a missing object creates it (201) where the kind's strategy allows it
(``AllowCreateOnUpdate``, :meth:`~fake_apiserver._storage.store.Store.creates_on_update`), never
through a subresource. :func:`write` is the store call both serving and previewing make.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fake_apiserver._endpoints.decoding import decode_object, field_validation
from fake_apiserver._endpoints.handlers.rest import Scope, at_version, warnings_of, writer_of
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed
from fake_apiserver._machinery.decode import validate_write_options
from fake_apiserver._storage.effects import Effect

__all__ = ["preview", "update_resource", "write"]

Obj = dict[str, Any]


def write(scope: Scope, info: RequestInfo, *, dry_run: bool, warnings: list[str] | None = None) -> Obj:
    """The store's answer to the update; the ``fieldValidation`` warnings go to ``warnings``."""
    spec = info.spec
    assert spec is not None
    store = scope.store
    writer = writer_of(info)
    fields = field_validation(info, [] if warnings is None else warnings)
    body = decode_object(info, spec.group, spec.version, spec.kind, store.release, store.serves_kind)
    return store.update(spec, info.namespace or None, info.name, body, subresource=info.subresource or None,
                        dry_run=dry_run, field_validation=fields, writer=writer)


async def update_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``UpdateResource``: the object as written, 201 when the PUT created it. A PUT to a
    collection is go-restful's 405."""
    spec = info.spec
    assert spec is not None
    if not info.name:
        raise RouteMethodNotAllowed()
    store = scope.store
    dry_run = validate_write_options("UpdateOptions", info.query)
    creating = store.creates_on_update(spec) and not info.subresource \
        and not store.exists(spec, info.namespace or None, info.name)
    updated = write(scope, info, dry_run=dry_run, warnings=warnings_of(info))
    return scope.encoded.response(at_version(spec, updated), 201 if creating else 200)


def preview(scope: Scope, info: RequestInfo, before: Obj | None) -> Effect | None:
    """The object as the update would leave it (none for a PUT to a collection)."""
    if not info.name:
        return None
    return Effect(before, write(scope, info, dry_run=True))
