"""``pods/binding`` and its legacy form, a POST to a namespace's ``bindings``: the ``Binding`` a
scheduler posts (``BindingREST`` in ``pkg/registry/core/pod/storage``).

Both decode the ``Binding`` (the kind the row names: the subresource's, or the legacy resource's
own) and have the store bind the pod
(:meth:`~fake_apiserver._storage.store.Store.bind`): the subresource the pod its path names, the
legacy form the pod its body's ``metadata.name`` names. Either answers 201 with the ``Status``
the store gives. The preview of a binding is the pod it would leave
(:meth:`~fake_apiserver._storage.store.Store.bound`).
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from fake_apiserver._endpoints.decoding import decode_object, field_validation
from fake_apiserver._endpoints.handlers.rest import Scope, body_kind, warnings_of
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._machinery.decode import validate_write_options
from fake_apiserver._storage.effects import Effect

__all__ = ["create_binding", "create_legacy_binding", "preview"]

Obj = dict[str, Any]


async def create_binding(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``POST pods/<name>/binding``: bind the pod the path names."""
    spec = info.spec
    assert spec is not None
    store = scope.store
    dry_run = validate_write_options("CreateOptions", info.query)
    fields = field_validation(info, warnings_of(info))
    body = decode_object(info, *body_kind(spec, info.subresource), store.release)
    return json_response(store.bind(info.namespace, info.name, body, dry_run=dry_run, field_validation=fields), 201)


async def create_legacy_binding(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``POST bindings``, the resource its kind declares the legacy form of ``binding``
    (``legacy_subresource``): bind the pod the body's ``metadata.name`` names."""
    spec = info.spec
    assert spec is not None
    store = scope.store
    dry_run = validate_write_options("CreateOptions", info.query)
    fields = field_validation(info, warnings_of(info))
    body = decode_object(info, spec.group, spec.version, spec.kind, store.release)
    target = str((body.get("metadata") or {}).get("name") or "")
    return json_response(store.bind(info.namespace, target, body, dry_run=dry_run, field_validation=fields), 201)


def preview(scope: Scope, info: RequestInfo, before: Obj | None) -> Effect | None:
    """The pod as the binding would leave it."""
    spec = info.spec
    assert spec is not None
    binding = decode_object(info, *body_kind(spec, info.subresource), scope.store.release)
    return Effect(before, scope.store.bound(info.namespace, info.name, binding))
