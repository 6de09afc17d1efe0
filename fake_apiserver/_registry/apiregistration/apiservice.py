"""APIServices (``apiregistration.k8s.io/v1``): served by the generic strategy; the cells of their
Table rows (:func:`print_api_service`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, condition, name_of

__all__ = ["KIND", "print_api_service"]

Obj = dict[str, Any]


def print_api_service(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """SERVICE ``namespace/name`` (``Local`` without one); AVAILABLE the condition's status, with
    its reason unless True."""
    service = at(obj, "spec", "service")
    where = f"{service.get('namespace', '')}/{service.get('name', '')}" if isinstance(service, dict) else "Local"
    available = condition(obj, "Available")
    text = "Unknown"
    if available is not None:
        text = str(available.get("status", ""))
        if text != "True":
            text += f" ({available.get('reason', '')})"
    return [name_of(obj), where, text, age_of(obj, now)], []


KIND = KindRules(group="apiregistration.k8s.io", kind="APIService", printer=print_api_service)
"""The APIService's declaration."""
