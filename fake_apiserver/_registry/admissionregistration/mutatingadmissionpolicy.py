"""MutatingAdmissionPolicies (``admissionregistration.k8s.io/v1``): served by the generic strategy;
the cells of their Table rows (:func:`print_mutating_admission_policy`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.admissionregistration.admissionpolicy import param_kind_cell
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "print_mutating_admission_policy"]

Obj = dict[str, Any]


def print_mutating_admission_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), len(spec.get("mutations") or []), param_kind_cell(spec), age_of(obj, now)], []


KIND = KindRules(group="admissionregistration.k8s.io", kind="MutatingAdmissionPolicy",
                 printer=print_mutating_admission_policy)
"""The MutatingAdmissionPolicy's declaration."""
