"""``apps/v1`` StatefulSets and ReplicaSets: defaults, spec rules and the StatefulSet update rule.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._registry.fieldrules import get_in, non_negative_errors, selector_template_errors, unsupported_errors
from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["RULES", "StatefulSetStrategy", "default_stateful_set"]

Obj = dict[str, Any]


def default_stateful_set(obj: dict[str, Any]) -> None:
    """``SetDefaults_StatefulSet`` (apps/v1) on the fields validation and the update rule read."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy") or {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        if isinstance(rolling, dict):
            rolling.setdefault("partition", 0)
    spec["updateStrategy"] = strategy
    spec.setdefault("revisionHistoryLimit", 10)
    retention = spec.get("persistentVolumeClaimRetentionPolicy") or {}
    for key in ("whenDeleted", "whenScaled"):
        if not retention.get(key):
            retention[key] = "Retain"
    spec["persistentVolumeClaimRetentionPolicy"] = retention


def _go_rolling(rolling: Any) -> Mapping[str, Any] | None:
    """The internal ``apps.RollingUpdateStatefulSetStrategy`` as ``encoding/json`` writes it."""
    if not isinstance(rolling, Mapping):
        return None
    return {"Partition": rolling.get("partition", 0), "MaxUnavailable": rolling.get("maxUnavailable")}


def _go(value: Any) -> GoJSON:
    return GoJSON(json.dumps(value, separators=(",", ":")))


def _stateful_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateStatefulSetSpec``: the management policy and update strategy enums, counts,
    and the selector against the template (on the defaulted object)."""
    spec = get_in(obj, "spec") or {}
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if policy not in (None, "OrderedReady", "Parallel"):
        errors.append(FieldError.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type")
    if kind == "OnDelete" and strategy.get("rollingUpdate") is not None:
        errors.append(FieldError.invalid("spec.updateStrategy.rollingUpdate", _go(_go_rolling(strategy["rollingUpdate"])),
                                         "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind not in (None, "OnDelete", "RollingUpdate"):
        go_strategy = {"Type": kind, "RollingUpdate": _go_rolling(strategy.get("rollingUpdate"))}
        errors.append(FieldError.invalid("spec.updateStrategy", _go(go_strategy), "must be 'RollingUpdate' or 'OnDelete'"))
    return (errors + non_negative_errors(obj, "replicas", "minReadySeconds")
            + selector_template_errors(obj, "statefulset"))


# The fields of a StatefulSet's spec an update may change (``ValidateStatefulSetUpdate``).
_STATEFUL_SET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                         "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


def _stateful_set_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    def fixed(obj: Mapping[str, Any]) -> Any:
        return semantic({k: v for k, v in (get_in(obj, "spec") or {}).items() if k not in _STATEFUL_SET_MUTABLE})

    if fixed(new) == fixed(old):
        return []
    return [FieldError.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                         "'template', 'updateStrategy', 'revisionHistoryLimit', "
                                         "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")]


def _replica_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors = non_negative_errors(obj, "replicas")
    errors += selector_template_errors(obj, "deployment")
    minimum = get_in(obj, "spec", "minReadySeconds")
    if isinstance(minimum, int) and minimum < 0:
        errors.append(FieldError.invalid("spec.minReadySeconds", minimum, "must be greater than or equal to 0"))
    return errors + unsupported_errors(obj, "spec.template.spec.restartPolicy", ["Always"])


class StatefulSetStrategy(Strategy):
    """``SetDefaults_StatefulSet`` on every write, so validation and the update rule compare
    defaulted specs, as the real server's do."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        default_stateful_set(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        default_stateful_set(new)
        super().prepare_for_update(new, old)


RULES: dict[tuple[str, str], KindRules] = {
    ("apps", "ReplicaSet"): KindRules(create=_replica_set_errors),
    ("apps", "StatefulSet"): KindRules(
        create=_stateful_set_errors, update=_stateful_set_update_errors,
        strategy=lambda spec, options: StatefulSetStrategy(spec)),
}
