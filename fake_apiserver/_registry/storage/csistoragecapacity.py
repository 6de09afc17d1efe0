"""CSIStorageCapacities (``storage.k8s.io/v1``): a class name and a capacity not below zero. An
update needs a resourceVersion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.names import is_dns1123_subdomain
from fake_apiserver._registry.fieldrules import invalid_each
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]


def _storage_capacity_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    name = obj.get("storageClassName") or ""
    errors = invalid_each("storageClassName", name, is_dns1123_subdomain(name))
    capacity = obj.get("capacity")
    try:
        negative = capacity is not None and quantity.parse(capacity) < 0
    except ValueError:
        negative = False
    if negative:
        errors.append(FieldError.invalid("capacity", quantity.canonical(capacity), "must be greater than or equal to 0"))
    return errors


KIND = KindRules(group="storage.k8s.io", kind="CSIStorageCapacity",
                 generate_name_checked_on_update=True, create=_storage_capacity_errors,
                 unconditional_update=False)
"""The CSIStorageCapacity's declaration."""
