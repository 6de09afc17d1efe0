"""Deployments (``apps/v1``): ``SetDefaults_Deployment``, ``ValidateDeploymentSpec`` (the
selector, the template, the rollout strategy) and the immutable selector.

Its Table's cells: :func:`print_deployment`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.apps.workload import (
    WorkloadStrategy,
    go_json,
    selector_immutable,
    selector_required_errors,
    template_errors,
)
from fake_apiserver._registry.core.pod.template import default_pod_template
from fake_apiserver._registry.fieldrules import get_in, non_negative_errors
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, container_cells, count_of, name_of, selector_string

__all__ = ["DeploymentStrategy", "KIND", "default_deployment", "print_deployment"]

Obj = dict[str, Any]


def default_deployment(obj: Obj) -> None:
    """``SetDefaults_Deployment`` (apps/v1) and the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    strategy = spec.get("strategy")
    if not isinstance(strategy, dict):
        strategy = spec["strategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    default_pod_template(spec.get("template"))


def _int_or_percent(value: Any) -> int:
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return int(value[:-1])
    return value if isinstance(value, int) else 0


def _deployment_strategy_errors(strategy: Any) -> list[FieldError]:
    strategy = strategy if isinstance(strategy, Mapping) else {}
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [FieldError.forbidden("spec.strategy.rollingUpdate",
                                         "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        rolling = rolling if isinstance(rolling, Mapping) else {}
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errors: list[FieldError] = []
        if _int_or_percent(unavailable) == 0 and _int_or_percent(surge) == 0:
            errors.append(FieldError.invalid("spec.strategy.rollingUpdate.maxUnavailable", unavailable,
                                             "may not be 0 when `maxSurge` is 0"))
        if isinstance(unavailable, str) and _int_or_percent(unavailable) > 100:
            errors.append(FieldError.invalid("spec.strategy.rollingUpdate.maxUnavailable", unavailable,
                                             "must not be greater than 100%"))
        return errors
    go_rolling = None if rolling is None else {"MaxUnavailable": rolling.get("maxUnavailable"),
                                               "MaxSurge": rolling.get("maxSurge")}
    go = {"Type": kind or "", "RollingUpdate": go_rolling}
    return [FieldError.not_supported("spec.strategy", go_json(go), ["Recreate", "RollingUpdate"])]


def _deployment_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateDeploymentSpec`` on the defaulted object, in its order."""
    spec = get_in(obj, "spec") or {}
    errors = non_negative_errors(obj, "replicas")
    errors += selector_required_errors(spec, "deployment")
    errors += template_errors(spec, "ReplicaSet")
    errors += _deployment_strategy_errors(spec.get("strategy"))
    errors += non_negative_errors(obj, "minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds")
    deadline, minimum = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds") or 0
    if isinstance(deadline, int) and isinstance(minimum, int) and deadline <= minimum:
        errors.append(FieldError.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
    return errors


class DeploymentStrategy(WorkloadStrategy):
    def default(self, obj: Obj) -> None:
        default_deployment(obj)


def print_deployment(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), f"{count_of(at(obj, 'status', 'readyReplicas'))}/{count_of(at(obj, 'spec', 'replicas'))}",
            count_of(at(obj, "status", "updatedReplicas")), count_of(at(obj, "status", "availableReplicas")), age_of(obj, now),
            names, images, selector_string(at(obj, "spec", "selector"))], []


KIND = KindRules(group="apps", kind="Deployment", create=_deployment_errors, update=selector_immutable,
                 strategy=lambda spec, options: DeploymentStrategy(spec), printer=print_deployment)
"""The Deployment's declaration."""
