"""``patch``, as ``apiserver/pkg/endpoints/handlers/patch.go`` serves it: JSON, merge, strategic
merge and apply patches of one object, or of a subresource without a handler of its own
(``status``, ``resize``).

The route takes only the patch media types (415 otherwise); a custom resource takes no strategic
merge patch. An apply may create its object (201), never a subresource's: an apply to a missing
object's subresource is the store's 404 before its body is checked. :func:`write` is the store
call both serving and previewing make.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fake_apiserver._endpoints.decoding import check_apply_body, field_validation
from fake_apiserver._endpoints.handlers.rest import Scope, at_version, warnings_of, writer_of
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed, route_consumes_patch
from fake_apiserver._machinery.decode import validate_write_options
from fake_apiserver._machinery.patch import custom_patch_media_type, patch_media_type
from fake_apiserver._storage.effects import Effect

__all__ = ["patch_resource", "preview", "write"]

Obj = dict[str, Any]

_APPLY_PATCH = "application/apply-patch+yaml"


def write(scope: Scope, info: RequestInfo, *, dry_run: bool, warnings: list[str] | None = None) -> Obj:
    """The store's answer to the patch; the ``fieldValidation`` warnings go to ``warnings``."""
    spec = info.spec
    assert spec is not None
    writer = writer_of(info)
    fields = field_validation(info, [] if warnings is None else warnings)
    return scope.store.patch(spec, info.namespace or None, info.name, info.body, info.content_type,
                             subresource=info.subresource or None, dry_run=dry_run, field_validation=fields,
                             writer=writer)


async def patch_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``PatchResource``: the patched object, 201 when an apply created it. A PATCH of a
    collection is go-restful's 405."""
    spec = info.spec
    assert spec is not None
    if not info.name:
        raise RouteMethodNotAllowed()
    route_consumes_patch(info.content_type)
    patch_type = (custom_patch_media_type if spec.custom else patch_media_type)(info.content_type)
    dry_run = validate_write_options("PatchOptions", info.query, patch_type=patch_type)
    # an apply may create its object, not a subresource's: a missing one is a 404 first
    applying = patch_type == _APPLY_PATCH
    creating = applying and not scope.store.exists(spec, info.namespace or None, info.name)
    if applying and (not info.subresource or not creating):
        check_apply_body(info.body, spec)
    patched = write(scope, info, dry_run=dry_run, warnings=warnings_of(info))
    return scope.encoded.response(at_version(spec, patched), 201 if creating and not info.subresource else 200)


def preview(scope: Scope, info: RequestInfo, before: Obj | None) -> Effect | None:
    """The object as the patch would leave it (none for a PATCH of a collection)."""
    if not info.name:
        return None
    return Effect(before, write(scope, info, dry_run=True))
