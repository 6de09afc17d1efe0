"""CSINodes (``storage.k8s.io/v1``): each driver's name. An update needs a resourceVersion; no
generation.

Its Table's cells: :func:`print_csi_node`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.names import is_dns1123_subdomain
from fake_apiserver._registry.fieldrules import get_in, invalid_each
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_csi_node"]

Obj = dict[str, Any]


def _csi_node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, driver in enumerate(get_in(obj, "spec", "drivers") or []):
        name = str(get_in(driver, "name") or "")
        errors += invalid_each(f"spec.drivers[{i}].name", name, is_dns1123_subdomain(name))
    return errors


def print_csi_node(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), len(at(obj, "spec", "drivers") or []), age_of(obj, now)], []


KIND = KindRules(group="storage.k8s.io", kind="CSINode",
                 generate_name_checked_on_update=True, create=_csi_node_errors, unconditional_update=False,
                 generation=False, openapi_delete_returns_object=True, printer=print_csi_node)
"""The CSINode's declaration."""
