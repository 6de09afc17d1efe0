"""The ``scale`` subresource: ``GET``, ``PUT`` or ``PATCH`` of a kind's ``autoscaling/v1``
``Scale``, read from and written into its parent (:mod:`~fake_apiserver._storage.subresources.scale`: the
built-in workloads' ``ScaleREST`` and a custom resource's scale paths).

A write answers with the Scale of the parent as the write left it; its preview is the parent
before and after, as a dry run of the same write (:func:`write`).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fake_apiserver._endpoints.decoding import decode_object, field_validation
from fake_apiserver._endpoints.handlers.rest import Scope, body_kind, warnings_of, writer_of
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed, route_consumes_patch
from fake_apiserver._machinery.decode import validate_write_options
from fake_apiserver._machinery.patch import patch_media_type
from fake_apiserver._storage.effects import Effect
from fake_apiserver._storage.subresources.scale import apply_scale, get_scale, patch_scale, paths_for, scale_of, update_scale

__all__ = ["get_scale_of", "patch_scale_of", "preview", "update_scale_of", "write"]

Obj = dict[str, Any]


def write(scope: Scope, info: RequestInfo, *, dry_run: bool | None,
          warnings: list[str] | None = None) -> tuple[Obj, Obj]:
    """The parent before and after a write of its Scale; ``dry_run`` None: as the request says."""
    spec = info.spec
    assert spec is not None
    store, q = scope.store, info.query
    fields = field_validation(info, [] if warnings is None else warnings)
    ns = info.namespace or None
    if info.verb == "update":
        requested = validate_write_options("UpdateOptions", q)
        body = decode_object(info, *body_kind(spec, info.subresource), store.release)
        return update_scale(store, spec, ns, info.name, body, field_validation=fields, writer=writer_of(info),
                            paths=paths_for(store, spec), dry_run=requested if dry_run is None else dry_run)
    if info.verb == "patch":
        patch_type = patch_media_type(info.content_type)
        requested = validate_write_options("PatchOptions", q, patch_type=patch_type)
        if patch_type == "application/apply-patch+yaml":
            return apply_scale(store, spec, ns, info.name, info.body, writer=writer_of(info),
                               paths=paths_for(store, spec), dry_run=requested if dry_run is None else dry_run)
        return patch_scale(store, spec, ns, info.name, info.body, info.content_type, field_validation=fields,
                           writer=writer_of(info), paths=paths_for(store, spec),
                           dry_run=requested if dry_run is None else dry_run)
    raise RouteMethodNotAllowed()


async def get_scale_of(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``GET <resource>/<name>/scale``."""
    spec = info.spec
    assert spec is not None
    store = scope.store
    return json_response(get_scale(store, spec, info.namespace or None, info.name, paths_for(store, spec)))


async def update_scale_of(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``PUT <resource>/<name>/scale``: the Scale the write left."""
    spec = info.spec
    assert spec is not None
    paths = paths_for(scope.store, spec)
    _, after = write(scope, info, dry_run=None, warnings=warnings_of(info))
    return json_response(scale_of(spec, after, paths))


async def patch_scale_of(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``PATCH <resource>/<name>/scale`` (the patch media types only): the Scale the write left."""
    spec = info.spec
    assert spec is not None
    paths = paths_for(scope.store, spec)
    route_consumes_patch(info.content_type)
    _, after = write(scope, info, dry_run=None, warnings=warnings_of(info))
    return json_response(scale_of(spec, after, paths))


def preview(scope: Scope, info: RequestInfo, before: Obj | None) -> Effect | None:
    """The parent before and after the Scale write."""
    return Effect(*write(scope, info, dry_run=True))
