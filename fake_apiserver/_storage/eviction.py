"""``POST pods/{name}/eviction``: a pod deleted through its PodDisruptionBudget.

``EvictionREST.Create`` (``pkg/registry/core/pod/storage/eviction.go``) as kube-apiserver v1.36
answers it, every answer checked against that server (``tests/test_eviction.py``):

* the body is a ``policy/v1`` (or ``v1beta1``) ``Eviction`` whose name must be the URL's
  (``400 name in URL does not match name in Eviction object``, an empty one too); its
  ``deleteOptions`` are validated as a delete's, and their ``dryRun`` (or the request's) makes it
  a dry run that changes nothing;
* a pod that cannot disrupt anything more (``Pending``, ``Succeeded``, ``Failed``, or already
  being deleted) is deleted without looking at budgets; so is one that no budget selects (a
  budget with a null or empty selector selects nothing);
* a pod that two budgets select: ``500 This pod has more than one PodDisruptionBudget, ...``;
* with one budget: an unready pod goes without using the budget when the budget's
  ``unhealthyPodEvictionPolicy`` is ``AlwaysAllow``, or when the budget is healthy
  (``currentHealthy >= desiredHealthy > 0``); otherwise the budget's status decides
  (``checkAndDecrement``): ``429`` while ``observedGeneration`` lags ``generation`` ("still being
  processed", retry after 10 s) or when ``disruptionsAllowed`` is 0 (the cause's wording from the
  budget's counts and ``DisruptionAllowed`` condition); else the budget's ``disruptionsAllowed``
  drops by one (its ``DisruptionAllowed`` condition turns ``False``/``InsufficientPods`` at 0), the
  pod is recorded in ``disruptedPods`` with the time, the status is written, and the pod deleted;
* the answer to a success is ``201`` and a ``Status`` of ``Success``.

The fake has no disruption controller: whoever runs a scenario writes a budget's status (as for
the scheduler's own PDB checks), and nothing removes an entry from ``disruptedPods``.
"""

from __future__ import annotations

import json
from typing import Any

from fake_apiserver._machinery.clock import format_time
from fake_apiserver._machinery.decode import decode_delete_options
from fake_apiserver._registry.scheme import resolve_kind
from fake_apiserver._machinery.errors import BadRequest, TooManyRequests, UnknownError
from fake_apiserver._machinery.fieldvalidation import FieldValidation, decode_body
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._registry.kinds import by_resource
from fake_apiserver._machinery import typed
from fake_apiserver._machinery.selectors import label_selector_from_dict
from fake_apiserver._storage.store import PODS, Store

__all__ = ["SUCCESS", "evict"]

Obj = dict[str, Any]

SUCCESS: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
_TERMINAL = ("Pending", "Succeeded", "Failed")


def _eviction(body: Any, name: str, release: str, field_validation: FieldValidation | None) -> Obj:
    """The request's ``Eviction``, decoded as the handler decodes it."""
    if not isinstance(body, dict):
        raise BadRequest("the object provided is unrecognized (must be of type Eviction)")
    body = dict(body)
    if body.get("apiVersion") == "policy/v1beta1" and body.get("kind") == "Eviction":
        body["apiVersion"] = "policy/v1"  # both versions convert to the one internal type
    resolve_kind("policy", "v1", "Eviction", body)
    body = decode_body(typed.kind_node("policy", "v1", "Eviction", release), "Eviction", "v1", body, field_validation)
    if (body.get("metadata") or {}).get("name", "") != name:
        raise BadRequest("name in URL does not match name in Eviction object")
    return body


def _ready(pod: Obj) -> bool:
    """``podutil.IsPodReady``: a ``Ready`` condition with status ``True``."""
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def _budgets(store: Store, namespace: str, pod: Obj) -> list[Obj]:
    """The namespace's budgets whose selector selects the pod (a null or empty one selects none)."""
    spec = by_resource("policy", "v1", "poddisruptionbudgets")
    assert spec is not None
    labels = (pod.get("metadata") or {}).get("labels") or {}
    found = []
    for pdb in store.list(spec, namespace)["items"]:
        selector = (pdb.get("spec") or {}).get("selector")
        if not selector or not (selector.get("matchLabels") or selector.get("matchExpressions")):
            continue
        try:
            if label_selector_from_dict(selector).matches(labels):
                found.append(pdb)
        except BadRequest:
            continue  # a selector that does not convert is skipped, as the real lister loop does
    return found


def _too_many(message: str, retry_after: int = 0) -> TooManyRequests:
    details: Obj = {"causes": [{"reason": "DisruptionBudget", "message": message}]}
    if retry_after:
        details["retryAfterSeconds"] = retry_after
    return TooManyRequests(_VIOLATION, details=details,
                           headers={"Retry-After": str(retry_after)} if retry_after else None)


def _denied(pdb: Obj) -> str:
    """Why a budget with no disruption left refuses, in ``checkAndDecrement``'s words."""
    name = pdb["metadata"]["name"]
    status = pdb.get("status") or {}
    condition = next((c for c in status.get("conditions") or []
                      if isinstance(c, dict) and c.get("type") == "DisruptionAllowed"), None)
    failed = condition is not None and condition.get("status") == "False" and condition.get("message")
    if failed and condition is not None and condition.get("reason") == "SyncFailed":
        return (f"The disruption budget {name} does not allow evicting pods currently because it failed sync: "
                f"{condition['message']}")
    current, desired = status.get("currentHealthy") or 0, status.get("desiredHealthy") or 0
    if current <= desired:
        return f"The disruption budget {name} needs {desired} healthy pods and has {current} currently"
    if failed and condition is not None:
        return (f"The disruption budget {name} does not allow evicting pods currently "
                f"({condition.get('reason', '')}): {condition['message']}")
    return f"The disruption budget {name} does not allow evicting pods currently"


def _decremented(pdb: Obj, pod_name: str, now: str) -> Obj:
    """The budget's status after one eviction it allows (``checkAndDecrement``)."""
    new = json_copy(pdb)
    status = new.setdefault("status", {})
    status["disruptionsAllowed"] = (status.get("disruptionsAllowed") or 0) - 1
    if status["disruptionsAllowed"] == 0:  # UpdateDisruptionAllowedCondition, via meta.SetStatusCondition
        conditions = status.setdefault("conditions", [])
        wanted = {"type": "DisruptionAllowed", "status": "False", "observedGeneration": status.get("observedGeneration", 0),
                  "lastTransitionTime": now, "reason": "InsufficientPods", "message": ""}
        for i, condition in enumerate(conditions):
            if condition.get("type") == "DisruptionAllowed":
                if condition.get("status") == "False":
                    wanted["lastTransitionTime"] = condition.get("lastTransitionTime") or now
                conditions[i] = wanted
                break
        else:
            conditions.append(wanted)
    status.setdefault("disruptedPods", {})[pod_name] = now
    return new


def evict(store: Store, namespace: str, name: str, body: Any, *, dry_run: bool = False,
          field_validation: FieldValidation | None = None) -> Obj:
    """Serve an eviction (module docstring); the ``Status`` answered with 201."""
    eviction = _eviction(body, name, store.release, field_validation)
    options = eviction.get("deleteOptions") or {}
    options = decode_delete_options(options, json.dumps(options).encode(), {}) if options else {}
    dry_run = dry_run or bool(options.get("dryRun"))
    pod = store.get(PODS, namespace, name)
    if (pod.get("status") or {}).get("phase") in _TERMINAL or (pod.get("metadata") or {}).get("deletionTimestamp"):
        store.delete(PODS, namespace, name, options=options, dry_run=dry_run)
        return SUCCESS
    budgets = _budgets(store, namespace, pod)
    if len(budgets) > 1:
        raise UnknownError("This pod has more than one PodDisruptionBudget, which the eviction subresource does "
                           "not support.")
    if budgets:
        pdb = budgets[0]
        status = pdb.get("status") or {}
        unhealthy_ok = (not _ready(pod) and (
            (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow"
            or (status.get("currentHealthy") or 0) >= (status.get("desiredHealthy") or 0) > 0))
        if not unhealthy_ok:
            if (status.get("observedGeneration") or 0) < (pdb["metadata"].get("generation") or 0):
                raise _too_many(f"The disruption budget {pdb['metadata']['name']} is still being processed by the "
                                "server.", 10)
            if (status.get("disruptionsAllowed") or 0) == 0:
                raise _too_many(_denied(pdb))
            if not dry_run:
                spec = by_resource("policy", "v1", "poddisruptionbudgets")
                assert spec is not None
                new = _decremented(pdb, name, format_time(store.clock.now()))
                store.update(spec, namespace, pdb["metadata"]["name"], new, subresource="status")
    store.delete(PODS, namespace, name, options=options, dry_run=dry_run)
    return SUCCESS
