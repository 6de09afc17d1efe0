"""``pods/eviction``: a pod deleted through its PodDisruptionBudget, a transaction of the store
layer (:func:`~fake_apiserver._storage.subresources.eviction.evict`, ``EvictionREST``).

The handler checks the create options and reads the body as JSON (the kind the row names for the
subresource is the one the decoder's errors name); the transaction decodes it, reads the budget
and deletes the pod. It writes a pod and a budget, not one object, so it has no preview.
"""

from __future__ import annotations

from aiohttp import web

from fake_apiserver._endpoints.decoding import field_validation, parse_body
from fake_apiserver._endpoints.handlers.rest import Scope, body_kind, warnings_of
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._machinery.decode import validate_write_options
from fake_apiserver._storage.subresources.eviction import evict

__all__ = ["create_eviction"]


async def create_eviction(scope: Scope, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
    """``POST pods/<name>/eviction``: 201 and ``Success``, or the refusal the budget gives."""
    spec = info.spec
    assert spec is not None
    dry_run = validate_write_options("CreateOptions", info.query)
    fields = field_validation(info, warnings_of(info))
    body = parse_body(info, body_kind(spec, info.subresource)[2])
    return json_response(evict(scope.store, info.namespace, info.name, body, dry_run=dry_run,
                               field_validation=fields), 201)
