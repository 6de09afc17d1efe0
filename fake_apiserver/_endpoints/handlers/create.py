"""``create``, as ``apiserver/pkg/endpoints/handlers/create.go`` serves it: a POST to a collection.

The write options are checked (``CreateOptions``: ``dryRun``, ``fieldManager``,
``fieldValidation``), the body is decoded as the URL's kind, and the store creates it. The review
kinds (``SelfSubjectAccessReview``, ``TokenReview``, ...; which ones is the registry's,
:func:`~fake_apiserver._registry.reviews.is_review`) are created the same way but answered and
never stored, as their REST storage does.

:func:`write` is the store call both serving (:func:`create_resource`) and previewing
(:func:`preview`) make, so that the fault injector's preview cannot disagree with the answer.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fake_apiserver._endpoints.decoding import decode_object, field_validation
from fake_apiserver._endpoints.handlers.rest import Scope, at_version, warnings_of, writer_of
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed
from fake_apiserver._machinery import gotypes
from fake_apiserver._machinery.decode import validate_write_options
from fake_apiserver._machinery.fieldvalidation import decode_body
from fake_apiserver._registry.reviews import answer_review
from fake_apiserver._storage.effects import Effect

__all__ = ["create_resource", "create_review", "preview", "write"]

Obj = dict[str, Any]


def write(scope: Scope, info: RequestInfo, *, dry_run: bool, warnings: list[str] | None = None) -> Obj:
    """The store's answer to the create; the ``fieldValidation`` warnings go to ``warnings``."""
    spec = info.spec
    assert spec is not None
    store = scope.store
    writer = writer_of(info)
    fields = field_validation(info, [] if warnings is None else warnings)
    body = decode_object(info, spec.group, spec.version, spec.kind, store.release, store.serves_kind)
    return store.create(spec, info.namespace or None, body, dry_run=dry_run, field_validation=fields, writer=writer)


async def create_resource(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``CreateResource``: 201 and the created object. A POST to a named path, or to a namespaced
    collection outside a namespace, is go-restful's 405."""
    spec = info.spec
    assert spec is not None
    if info.name:
        raise RouteMethodNotAllowed()
    if spec.namespaced and not info.namespace:
        raise RouteMethodNotAllowed()
    dry_run = validate_write_options("CreateOptions", info.query)
    created = write(scope, info, dry_run=dry_run, warnings=warnings_of(info))
    return scope.encoded.response(at_version(spec, created), 201)


async def create_review(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """A review's create: the posted object, decoded and validated, with its ``status`` answered."""
    spec = info.spec
    assert spec is not None
    release = scope.store.release
    validate_write_options("CreateOptions", info.query)
    fields = field_validation(info, warnings_of(info))
    body = decode_object(info, spec.group, spec.version, spec.kind, release)
    node = gotypes.kind_node(spec.group, spec.version, spec.kind, release)
    body = decode_body(node, spec.kind, spec.version, body, fields)
    return json_response(answer_review(spec.group, spec.kind, body), 201)


def preview(scope: Scope, info: RequestInfo, before: Obj | None) -> Effect | None:
    """The object the create would make (none for a POST to a named path)."""
    if info.name:
        return None
    return Effect(before, write(scope, info, dry_run=True))
