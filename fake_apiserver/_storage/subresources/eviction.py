"""``POST pods/{name}/eviction``: a pod deleted through its PodDisruptionBudget, a transaction
across objects.

``EvictionREST.Create`` (``pkg/registry/core/pod/storage/eviction.go``): the body is decoded as
the handler decodes it (its name must be the URL's: ``400 name in URL does not match name in
Eviction object``, an empty one too); its ``deleteOptions`` are validated as a delete's, and their
``dryRun`` (or the request's) makes it a dry run that changes nothing. Then :func:`evict` reads
the pod and the budgets of its namespace, asks the rules of
:mod:`~fake_apiserver._registry.core.pod.eviction` (which pod goes at once, which budget decides, whether
it allows one more disruption), writes the budget's status through ``/status`` and deletes the
pod as a delete with those options would. The answer to a success is ``201`` and a ``Status`` of
``Success``.
"""

from __future__ import annotations

import json
from typing import Any

from fake_apiserver._machinery.clock import format_time
from fake_apiserver._machinery.decode import decode_delete_options
from fake_apiserver._machinery.errors import BadRequest, UnknownError
from fake_apiserver._machinery.fieldvalidation import FieldValidation, decode_body
from fake_apiserver._machinery import gotypes
from fake_apiserver._registry.core.pod import eviction as rules
from fake_apiserver._registry.scheme import resolve_kind
from fake_apiserver._registry.serverkinds import PODS
from fake_apiserver._storage.store import Store

__all__ = ["SUCCESS", "evict"]

Obj = dict[str, Any]

SUCCESS: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def _eviction(body: Any, name: str, release: str, field_validation: FieldValidation | None) -> Obj:
    """The request's ``Eviction``, decoded as the handler decodes it."""
    group, version, kind = rules.EVICTION
    if not isinstance(body, dict):
        raise BadRequest(f"the object provided is unrecognized (must be of type {kind})")
    body = dict(body)
    if body.get("apiVersion") in rules.EVICTION_VERSIONS and body.get("kind") == kind:
        body["apiVersion"] = f"{group}/{version}"  # every version converts to the one internal type
    resolve_kind(group, version, kind, body)
    body = decode_body(gotypes.kind_node(group, version, kind, release), kind, version, body, field_validation)
    if (body.get("metadata") or {}).get("name", "") != name:
        raise BadRequest(f"name in URL does not match name in {kind} object")
    return body


def evict(store: Store, namespace: str, name: str, body: Any, *, dry_run: bool = False,
          field_validation: FieldValidation | None = None) -> Obj:
    """Serve an eviction (module docstring); the ``Status`` answered with 201."""
    eviction = _eviction(body, name, store.release, field_validation)
    options = eviction.get("deleteOptions") or {}
    options = decode_delete_options(options, json.dumps(options).encode(), {}) if options else {}
    dry_run = dry_run or bool(options.get("dryRun"))
    pod = store.get(PODS, namespace, name)
    if rules.goes_at_once(pod):
        store.delete(PODS, namespace, name, options=options, dry_run=dry_run)
        return SUCCESS
    labels = (pod.get("metadata") or {}).get("labels") or {}
    budgets = [pdb for pdb in store.list(rules.BUDGETS, namespace)["items"] if rules.selects(pdb, labels)]
    if len(budgets) > 1:
        raise UnknownError(rules.MORE_THAN_ONE_BUDGET)
    if budgets:
        pdb = budgets[0]
        if not rules.unhealthy_may_go(pod, pdb):
            rules.check_budget(pdb)
            if not dry_run:
                new = rules.decremented(pdb, name, format_time(store.clock.now()))
                store.update(rules.BUDGETS, namespace, pdb["metadata"]["name"], new, subresource="status")
    store.delete(PODS, namespace, name, options=options, dry_run=dry_run)
    return SUCCESS
