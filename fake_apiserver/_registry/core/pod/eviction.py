"""The rules of ``pods/eviction``: which pod may go, which PodDisruptionBudget decides, and what
the budget says (``EvictionREST.Create`` in ``pkg/registry/core/pod/storage/eviction.go``, as
kube-apiserver v1.36 answers it; ``tests/fake_apiserver/_storage/test_eviction.py`` checks every
answer against that server). The store's transaction reads the pod and its budgets, asks these
rules, then writes the budget's status and deletes the pod
(:mod:`fake_apiserver._storage.subresources.eviction`).

* the body is a ``policy/v1`` (or ``v1beta1``) :data:`EVICTION`;
* a pod that cannot disrupt anything more (``Pending``, ``Succeeded``, ``Failed``, or already
  being deleted) is deleted without looking at budgets (:func:`goes_at_once`); so is one that no
  budget selects (a budget with a null or empty selector selects nothing: :func:`selects`);
* a pod that two budgets select: ``500`` :data:`MORE_THAN_ONE_BUDGET`;
* with one budget: an unready pod goes without using the budget when the budget's
  ``unhealthyPodEvictionPolicy`` is ``AlwaysAllow``, or when the budget is healthy
  (``currentHealthy >= desiredHealthy > 0``: :func:`unhealthy_may_go`); otherwise the budget's
  status decides (``checkAndDecrement``, :func:`check_budget`): ``429`` while
  ``observedGeneration`` lags ``generation`` ("still being processed", retry after 10 s) or when
  ``disruptionsAllowed`` is 0 (the cause's wording from the budget's counts and
  ``DisruptionAllowed`` condition); else the budget's ``disruptionsAllowed`` drops by one (its
  ``DisruptionAllowed`` condition turns ``False``/``InsufficientPods`` at 0) and the pod is
  recorded in ``disruptedPods`` with the time (:func:`decremented`).

The fake has no disruption controller: whoever runs a scenario writes a budget's status (as for
the scheduler's own PDB checks), and nothing removes an entry from ``disruptedPods``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import BadRequest, TooManyRequests
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.selectors import label_selector_from_dict
from fake_apiserver._registry.kinds import by_resource

__all__ = [
    "BUDGETS",
    "EVICTION",
    "EVICTION_VERSIONS",
    "MORE_THAN_ONE_BUDGET",
    "check_budget",
    "decremented",
    "goes_at_once",
    "selects",
    "unhealthy_may_go",
]

Obj = dict[str, Any]

EVICTION = ("policy", "v1", "Eviction")
"""The group, version and kind an eviction's body is decoded into."""

EVICTION_VERSIONS = ("policy/v1beta1",)
"""Other ``apiVersion`` values of an ``Eviction`` body, which convert to the same internal type."""

_budgets = by_resource("policy", "v1", "poddisruptionbudgets")
assert _budgets is not None
BUDGETS: KindSpec = _budgets
"""The kind whose objects decide whether a pod may go."""

MORE_THAN_ONE_BUDGET = ("This pod has more than one PodDisruptionBudget, which the eviction subresource does "
                        "not support.")
_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."
_TERMINAL = ("Pending", "Succeeded", "Failed")


def goes_at_once(pod: Obj) -> bool:
    """A pod that cannot disrupt anything more: deleted without looking at budgets."""
    return (pod.get("status") or {}).get("phase") in _TERMINAL or bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def selects(pdb: Obj, labels: Mapping[str, str]) -> bool:
    """Whether the budget's selector selects a pod of these labels (a null or empty one selects
    none; one that does not convert is skipped, as the real lister loop does)."""
    selector = (pdb.get("spec") or {}).get("selector")
    if not selector or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return False
    try:
        return label_selector_from_dict(selector).matches(labels)
    except BadRequest:
        return False


def _ready(pod: Obj) -> bool:
    """``podutil.IsPodReady``: a ``Ready`` condition with status ``True``."""
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def unhealthy_may_go(pod: Obj, pdb: Obj) -> bool:
    """An unready pod that goes without using the budget: the budget's policy is ``AlwaysAllow``,
    or the budget is healthy."""
    status = pdb.get("status") or {}
    return not _ready(pod) and (
        (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") == "AlwaysAllow"
        or (status.get("currentHealthy") or 0) >= (status.get("desiredHealthy") or 0) > 0)


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


def check_budget(pdb: Obj) -> None:
    """``checkAndDecrement``'s refusals: the budget's status is not current yet, or it allows no
    more disruptions (``429``)."""
    status = pdb.get("status") or {}
    if (status.get("observedGeneration") or 0) < (pdb["metadata"].get("generation") or 0):
        raise _too_many(f"The disruption budget {pdb['metadata']['name']} is still being processed by the "
                        "server.", 10)
    if (status.get("disruptionsAllowed") or 0) == 0:
        raise _too_many(_denied(pdb))


def decremented(pdb: Obj, pod_name: str, now: str) -> Obj:
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
