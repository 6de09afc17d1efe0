"""ResourceQuotas (core/v1): a created quota answers with its empty status; no generation."""

from __future__ import annotations

from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["KIND", "ResourceQuotaStrategy"]

Obj = dict[str, Any]


class ResourceQuotaStrategy(Strategy):
    """A created quota answers with its empty status (a struct, encoded as ``{}``)."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {}


KIND = KindRules(group="", kind="ResourceQuota", generation=False,
                 strategy=lambda spec, options: ResourceQuotaStrategy(spec))
"""The ResourceQuota's declaration."""
