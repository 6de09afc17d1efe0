"""ServiceCIDRs (``networking.k8s.io/v1``): served by the generic strategy; the cells of their Table
rows (:func:`print_service_cidr`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_service_cidr"]

Obj = dict[str, Any]


def print_service_cidr(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), ",".join(at(obj, "spec", "cidrs") or []), age_of(obj, now)], []


KIND = KindRules(group="networking.k8s.io", kind="ServiceCIDR", printer=print_service_cidr)
"""The ServiceCIDR's declaration."""
