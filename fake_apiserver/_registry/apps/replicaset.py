"""ReplicaSets (``apps/v1``): their defaults, ``ValidateReplicaSetSpec`` and the immutable
selector.

Its Table's cells: :func:`print_replica_set`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.apps.workload import (
    WorkloadStrategy,
    selector_immutable,
    selector_required_errors,
    template_errors,
)
from fake_apiserver._registry.core.pod.template import default_pod_template
from fake_apiserver._registry.fieldrules import get_in, non_negative_errors
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, container_cells, count_of, format_selector, name_of

__all__ = ["KIND", "ReplicaSetStrategy", "default_replica_set", "print_replica_set"]

Obj = dict[str, Any]


def default_replica_set(obj: Obj) -> None:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        spec.setdefault("replicas", 1)
        default_pod_template(spec.get("template"))


def _replica_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateReplicaSetSpec``, in its order (an empty selector is worded as a Deployment's)."""
    spec = get_in(obj, "spec") or {}
    errors = non_negative_errors(obj, "replicas", "minReadySeconds")
    return errors + selector_required_errors(spec, "deployment") + template_errors(spec, "ReplicaSet")


class ReplicaSetStrategy(WorkloadStrategy):
    zero_status = {"replicas": 0}

    def default(self, obj: Obj) -> None:
        default_replica_set(obj)


def print_replica_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), count_of(at(obj, "spec", "replicas")), count_of(at(obj, "status", "replicas")),
            count_of(at(obj, "status", "readyReplicas")), age_of(obj, now), names, images,
            format_selector(at(obj, "spec", "selector"))], []


KIND = KindRules(group="apps", kind="ReplicaSet", create=_replica_set_errors, update=selector_immutable,
                 strategy=lambda spec, options: ReplicaSetStrategy(spec), printer=print_replica_set)
"""The ReplicaSet's declaration."""
