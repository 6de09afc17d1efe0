"""Leases (``coordination.k8s.io/v1``): their spec rules. A PUT of a missing Lease creates it; an
update needs a resourceVersion; no generation.

Its Table's cells: :func:`print_lease`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_lease"]

Obj = dict[str, Any]


def _lease_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}
    errors: list[FieldError] = []
    duration = spec.get("leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        errors.append(FieldError.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if isinstance(transitions, int) and transitions < 0:
        errors.append(FieldError.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    return errors


def print_lease(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), at(obj, "spec", "holderIdentity") or "", age_of(obj, now)], []


KIND = KindRules(
    group="coordination.k8s.io", kind="Lease", qualified_finalizers=False,
    create=_lease_errors, create_on_update=True, unconditional_update=False, generation=False, printer=print_lease)
"""The Lease's declaration."""
