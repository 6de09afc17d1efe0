"""HorizontalPodAutoscalers (``autoscaling/v2``): defaults and the status a create writes.

Checked against kube-apiserver v1.37.2 (``tests/test_builtin_kinds.py``): ``spec.minReplicas``
defaults to 1, and a created HPA carries the zero status its type writes
(``{currentMetrics: null, desiredReplicas: 0}``), which the horizontal-pod-autoscaler controller
would fill (none runs here).
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["HorizontalPodAutoscalerStrategy", "KIND"]

Obj = dict[str, Any]


class HorizontalPodAutoscalerStrategy(Strategy):
    def default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict) and spec.get("minReplicas") is None:
            spec["minReplicas"] = 1

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"currentMetrics": None, "desiredReplicas": 0}


KIND = KindRules(group="autoscaling", kind="HorizontalPodAutoscaler",
                 strategy=lambda spec, options: HorizontalPodAutoscalerStrategy(spec))
"""The HorizontalPodAutoscaler's declaration."""
