"""StatefulSets (``apps/v1``): ``SetDefaults_StatefulSet``, ``ValidateStatefulSetSpec`` and the
fields of the spec an update may not change.

Its Table's cells: :func:`print_stateful_set`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.apps.workload import WorkloadStrategy, go_json, restart_errors
from fake_apiserver._registry.core.pod.template import default_pod_template, pod_template_errors
from fake_apiserver._registry.fieldrules import get_in, non_negative_errors, selector_template_errors
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, container_cells, count_of, name_of

__all__ = ["KIND", "StatefulSetStrategy", "default_stateful_set", "print_stateful_set"]

Obj = dict[str, Any]


def default_stateful_set(obj: dict[str, Any], max_unavailable: bool = False) -> None:
    """``SetDefaults_StatefulSet`` (apps/v1) and the template's defaults; ``max_unavailable``:
    the MaxUnavailableStatefulSet gate (on from v1.37) defaults a rolling update's
    ``maxUnavailable`` to 1."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    spec.setdefault("serviceName", "")  # a string without omitempty: encoded even when empty
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy") or {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        if isinstance(rolling, dict):
            rolling.setdefault("partition", 0)
    if max_unavailable:
        _default_rolling_update(strategy)
    spec["updateStrategy"] = strategy
    spec.setdefault("revisionHistoryLimit", 10)
    retention = spec.get("persistentVolumeClaimRetentionPolicy") or {}
    for key in ("whenDeleted", "whenScaled"):
        if not retention.get(key):
            retention[key] = "Retain"
    spec["persistentVolumeClaimRetentionPolicy"] = retention
    default_pod_template(spec.get("template"))


def _default_rolling_update(strategy: dict[str, Any]) -> None:
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict) and strategy.get("type") == "RollingUpdate":
        rolling.setdefault("maxUnavailable", 1)


def _go_rolling(rolling: Any) -> Mapping[str, Any] | None:
    """The internal ``apps.RollingUpdateStatefulSetStrategy`` as ``encoding/json`` writes it."""
    if not isinstance(rolling, Mapping):
        return None
    return {"Partition": rolling.get("partition", 0), "MaxUnavailable": rolling.get("maxUnavailable")}


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
        errors.append(FieldError.invalid("spec.updateStrategy.rollingUpdate", go_json(_go_rolling(strategy["rollingUpdate"])),
                                         "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind not in (None, "OnDelete", "RollingUpdate"):
        go_strategy = {"Type": kind, "RollingUpdate": _go_rolling(strategy.get("rollingUpdate"))}
        errors.append(FieldError.invalid("spec.updateStrategy", go_json(go_strategy), "must be 'RollingUpdate' or 'OnDelete'"))
    return (errors + non_negative_errors(obj, "replicas", "minReadySeconds")
            + selector_template_errors(obj, "statefulset")
            + pod_template_errors(spec.get("template"), "spec.template") + restart_errors(spec, "StatefulSet"))


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


class StatefulSetStrategy(WorkloadStrategy):
    zero_status = {"availableReplicas": 0, "replicas": 0}

    def default(self, obj: Obj) -> None:
        default_stateful_set(obj, self.features.enabled("MaxUnavailableStatefulSet"))


def print_stateful_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), f"{count_of(at(obj, 'status', 'readyReplicas'))}/{count_of(at(obj, 'spec', 'replicas'))}",
            age_of(obj, now), names, images], []


KIND = KindRules(group="apps", kind="StatefulSet",
                 name_rule="label", create=_stateful_set_errors, update=_stateful_set_update_errors,
                 strategy=lambda spec, options: StatefulSetStrategy(spec, features=options.features),
                 printer=print_stateful_set)
"""The StatefulSet's declaration."""
