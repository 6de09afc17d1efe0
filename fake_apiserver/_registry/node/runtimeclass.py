"""RuntimeClasses (``node.k8s.io/v1``): served by the generic strategy; the cells of their Table
rows (:func:`print_runtime_class`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "print_runtime_class"]

Obj = dict[str, Any]


def print_runtime_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), obj.get("handler", ""), age_of(obj, now)], []


KIND = KindRules(group="node.k8s.io", kind="RuntimeClass", printer=print_runtime_class)
"""The RuntimeClass's declaration."""
