"""HorizontalPodAutoscalers (``autoscaling/v2``): defaults and the status a create writes.

Checked against kube-apiserver v1.37.2 (``tests/fake_apiserver/_registry/test_builtin_kinds.py``):
``spec.minReplicas`` defaults to 1, and a created HPA carries the zero status its type writes
(``{currentMetrics: null, desiredReplicas: 0}``), which the horizontal-pod-autoscaler controller
would fill (none runs here).

Its Table's cells: :func:`print_horizontal_pod_autoscaler` (TARGETS as ``formatHPAMetrics`` prints
them; a missing ``minReplicas`` is printed as its default, 1).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, count_of, name_of

__all__ = ["HorizontalPodAutoscalerStrategy", "KIND", "print_horizontal_pod_autoscaler"]

Obj = dict[str, Any]


class HorizontalPodAutoscalerStrategy(Strategy):
    def default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict) and spec.get("minReplicas") is None:
            spec["minReplicas"] = 1

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"currentMetrics": None, "desiredReplicas": 0}


def _metric_target(spec: Obj, status: Obj | None, source: str, name: str) -> str:
    """One Resource or ContainerResource metric: ``name: current/target``."""
    target = spec.get("target") or {}
    current = (status or {}).get("current") or {}
    if target.get("averageValue") is not None:
        now_value = str(current.get("averageValue")) if status is not None and current.get("averageValue") else \
            "<unknown>"
        return f"{name}: {now_value}/{target['averageValue']}"
    utilization = current.get("averageUtilization") if status is not None else None
    now_text = f"{utilization}%" if utilization is not None else "<unknown>"
    goal = f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
    return f"{name}: {now_text}/{goal}"


def _hpa_metrics(specs: list[Obj], statuses: list[Obj]) -> str:
    """``formatHPAMetrics``: each metric ``current/target`` (statuses matched by position), two at
    most and "+ N more..."."""
    if not specs:
        return "<none>"
    shown: list[str] = []
    for i, spec in enumerate(specs):
        kind = spec.get("type")
        status = statuses[i] if i < len(statuses) else {}
        if kind == "External" or kind == "Object":
            key = "external" if kind == "External" else "object"
            target = at(spec, key, "target") or {}
            got = status.get(key)
            if target.get("averageValue") is not None:
                current = str(at(got, "current", "averageValue")) if got and at(got, "current", "averageValue") else \
                    "<unknown>"
                shown.append(f"{current}/{target['averageValue']} (avg)")
            else:
                current = str(at(got, "current", "value") or "0") if got else "<unknown>"
                shown.append(f"{current}/{target.get('value', '0')}")
        elif kind == "Pods":
            got = status.get("pods")
            current = str(at(got, "current", "averageValue") or "0") if got else "<unknown>"
            shown.append(f"{current}/{at(spec, 'pods', 'target', 'averageValue') or '0'}")
        elif kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            body: Obj = spec.get(key) or {}
            shown.append(_metric_target(body, status.get(key), key, str(body.get("name", ""))))
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:2])
    return f"{text} + {len(shown) - 2} more..." if len(shown) > 2 else text


def print_horizontal_pod_autoscaler(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    ref: Obj = spec.get("scaleTargetRef") or {}
    if "targetCPUUtilizationPercentage" in spec or str(obj.get("apiVersion", "")) == "autoscaling/v1":
        target = spec.get("targetCPUUtilizationPercentage")
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": target}}}] \
            if target is not None else []
        current = at(obj, "status", "currentCPUUtilizationPercentage")
        statuses = [{"resource": {"current": {"averageUtilization": current}}}] if current is not None else []
    else:
        metrics, statuses = spec.get("metrics") or [], at(obj, "status", "currentMetrics") or []
    minimum = spec.get("minReplicas", 1)  # autoscaling/v2 defaults it to 1
    return [name_of(obj), f"{ref.get('kind', '')}/{ref.get('name', '')}", _hpa_metrics(metrics, statuses),
            "<unset>" if minimum is None else str(minimum), count_of(spec.get("maxReplicas")),
            count_of(at(obj, "status", "currentReplicas")), age_of(obj, now)], []


KIND = KindRules(group="autoscaling", kind="HorizontalPodAutoscaler",
                 strategy=lambda spec, options: HorizontalPodAutoscalerStrategy(spec),
                 printer=print_horizontal_pod_autoscaler)
"""The HorizontalPodAutoscaler's declaration."""
