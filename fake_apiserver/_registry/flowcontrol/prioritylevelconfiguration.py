"""PriorityLevelConfigurations (``flowcontrol.apiserver.k8s.io/v1``): served by the generic
strategy; the cells of their Table rows (:func:`print_priority_level_configuration`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, count_of, name_of

__all__ = ["KIND", "print_priority_level_configuration"]

Obj = dict[str, Any]


def print_priority_level_configuration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    limited = spec.get("limited")
    shares: Any = "<none>"
    queues: Any = "<none>"
    hand: Any = "<none>"
    length: Any = "<none>"
    if isinstance(limited, dict):
        shares = count_of(limited.get("nominalConcurrencyShares"))
        queuing = at(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues, hand, length = (count_of(queuing.get(k)) for k in ("queues", "handSize", "queueLengthLimit"))
    return [name_of(obj), spec.get("type", ""), shares, queues, hand, length, age_of(obj, now)], []


KIND = KindRules(group="flowcontrol.apiserver.k8s.io", kind="PriorityLevelConfiguration",
                 printer=print_priority_level_configuration)
"""The PriorityLevelConfiguration's declaration."""
