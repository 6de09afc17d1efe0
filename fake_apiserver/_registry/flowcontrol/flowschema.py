"""FlowSchemas (``flowcontrol.apiserver.k8s.io/v1``): served by the generic strategy; the cells of
their Table rows (:func:`print_flow_schema`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, condition, count_of, name_of

__all__ = ["KIND", "print_flow_schema"]

Obj = dict[str, Any]


def print_flow_schema(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    method = at(spec, "distinguisherMethod", "type") or "<none>"
    dangling = condition(obj, "Dangling")
    return [name_of(obj), at(spec, "priorityLevelConfiguration", "name") or "", count_of(spec.get("matchingPrecedence")),
            method, age_of(obj, now), str(dangling.get("status", "")) if dangling else "?"], []


KIND = KindRules(group="flowcontrol.apiserver.k8s.io", kind="FlowSchema", printer=print_flow_schema)
"""The FlowSchema's declaration."""
