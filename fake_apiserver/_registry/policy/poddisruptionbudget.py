"""policy/v1 PodDisruptionBudget as the registry keeps it (``pkg/registry/policy/poddisruptionbudget``).

What a scheduler reads of a budget is its selector and ``status.disruptionsAllowed``; the rest is
here so that a budget a client writes is answered as a real server answers it:

* **Create** drops the body's ``status`` and stores the zero status, which encodes as
  ``{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}`` (the four
  ``int32`` fields have no ``omitempty``). There is no disruption controller in the fake: whoever
  runs a scenario writes ``/status``, as Kubernetes' own scheduler tests do.
* **Validation** (``ValidatePodDisruptionBudgetSpec``, ``pkg/apis/policy/validation``):
  ``minAvailable`` and ``maxUnavailable`` not both set (the error's value is the internal spec
  struct as ``json.Marshal`` prints it), each a non-negative integer or a percentage of at most
  100%. A budget with no selector, an empty one, or neither bound is accepted, as on a real server.

Its Table's cells: :func:`print_pod_disruption_budget`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._registry.fieldrules import condition_errors, unsupported_errors
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, count_of, name_of

__all__ = ["KIND", "PodDisruptionBudgetStrategy", "ZERO_STATUS", "print_pod_disruption_budget", "validate_pdb_spec",
           "validate_pdb_status"]

Obj = dict[str, Any]

ZERO_STATUS: Obj = {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
_PERCENT = re.compile(r"^(\d+)%$")


def _internal_spec(spec: Obj) -> GoJSON:
    """``policy.PodDisruptionBudgetSpec`` (the internal type: no json tags, fields in order)."""
    fields = {"MinAvailable": spec.get("minAvailable"), "Selector": spec.get("selector"),
              "MaxUnavailable": spec.get("maxUnavailable"),
              "UnhealthyPodEvictionPolicy": spec.get("unhealthyPodEvictionPolicy")}
    return GoJSON("{" + ",".join(f"{json.dumps(k)}:{json.dumps(v, separators=(',', ':'), sort_keys=True)}"
                                 for k, v in fields.items()) + "}")


def _int_or_percent(path: str, value: Any) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` then ``IsNotMoreThan100Percent``."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        return [FieldError.invalid(path, value, "must be greater than or equal to 0")] if value < 0 else []
    match = _PERCENT.match(str(value))
    if not match:
        return [FieldError.invalid(path, value, "must be an integer or percentage (e.g '5%')")]
    if int(match.group(1)) > 100:
        return [FieldError.invalid(path, value, "must not be greater than 100%")]
    return []


def validate_pdb_spec(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    errors: list[FieldError] = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(FieldError.invalid("spec", _internal_spec(spec), "minAvailable and maxUnavailable cannot be both set"))
    errors += _int_or_percent("spec.minAvailable", spec.get("minAvailable"))
    errors += _int_or_percent("spec.maxUnavailable", spec.get("maxUnavailable"))
    return errors


def validate_pdb_status(obj: Obj) -> list[FieldError]:
    """``ValidatePodDisruptionBudgetStatusUpdate`` (policy/v1): the conditions, then the four
    counts non-negative."""
    status = obj.get("status") or {}
    errors = condition_errors(status.get("conditions"), "status.conditions")
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        value = status.get(key)
        if isinstance(value, int) and value < 0:
            errors.append(FieldError.invalid(f"status.{key}", value, "must be greater than or equal to 0"))
    return errors


def _pod_disruption_budget_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return unsupported_errors(obj, "spec.unhealthyPodEvictionPolicy", ["AlwaysAllow", "IfHealthyBudget"])


class PodDisruptionBudgetStrategy(Strategy):
    """``pkg/registry/policy/poddisruptionbudget``: the zero status on create, the spec's
    validation (above)."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = dict(ZERO_STATUS)

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_pdb_spec(obj) + self.rules.create(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pdb_spec(new) + self.rules.create(new)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pdb_status(new)


def print_pod_disruption_budget(pdb: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = pdb.get("spec") or {}
    bound = ["N/A" if spec.get(k) is None else str(spec[k]) for k in ("minAvailable", "maxUnavailable")]
    return [name_of(pdb), *bound, count_of(at(pdb, "status", "disruptionsAllowed")), age_of(pdb, now)], []


KIND = KindRules(
    group="policy", kind="PodDisruptionBudget", name_rule="path_segment", qualified_finalizers=False,
    create=_pod_disruption_budget_errors, unconditional_update=False,
    strategy=lambda spec, options: PodDisruptionBudgetStrategy(spec), printer=print_pod_disruption_budget)
"""The PodDisruptionBudget's declaration."""
