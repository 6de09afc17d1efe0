"""ComponentStatuses (core/v1): served by the generic strategy; the cells of their Table rows
(:func:`print_component_status`: the Healthy condition as STATUS, its message and error)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, name_of

__all__ = ["KIND", "print_component_status"]

Obj = dict[str, Any]


def print_component_status(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    status, message, error = "Unknown", "", ""
    for c in obj.get("conditions") or []:
        if c.get("type") == "Healthy":
            status = "Healthy" if c.get("status") == "True" else "Unhealthy"
            message, error = c.get("message", ""), c.get("error", "")
            break
    return [name_of(obj), status, message, error], []


KIND = KindRules(group="", kind="ComponentStatus", printer=print_component_status)
"""The ComponentStatus's declaration."""
