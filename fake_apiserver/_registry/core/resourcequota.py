"""ResourceQuotas (core/v1): a created quota answers with its empty status; no generation.

Its Table's cells: :func:`print_resource_quota`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "ResourceQuotaStrategy", "print_resource_quota"]

Obj = dict[str, Any]


class ResourceQuotaStrategy(Strategy):
    """A created quota answers with its empty status (a struct, encoded as ``{}``)."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {}


def print_resource_quota(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printResourceQuota``: ``name: used/hard`` sorted by name, the ``limits.*`` ones apart."""
    hard: Obj = at(obj, "status", "hard") or {}
    used: Obj = at(obj, "status", "used") or {}
    requests: list[str] = []
    limits: list[str] = []
    for name in sorted(hard):
        parts = name.split(".")
        target = limits if len(parts) > 1 and parts[0] == "limits" else requests
        target.append(f"{name}: {used.get(name, '0')}/{hard[name]}")
    return [name_of(obj), ", ".join(requests), ", ".join(limits), age_of(obj, now)], []


KIND = KindRules(group="", kind="ResourceQuota", generation=False,
                 strategy=lambda spec, options: ResourceQuotaStrategy(spec), printer=print_resource_quota)
"""The ResourceQuota's declaration."""
