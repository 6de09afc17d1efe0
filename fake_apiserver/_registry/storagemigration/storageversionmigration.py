"""StorageVersionMigrations (``storagemigration.k8s.io/v1``): served by the generic strategy; the
cells of their Table rows (:func:`print_storage_version_migration`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, at, condition, name_of

__all__ = ["KIND", "print_storage_version_migration"]

Obj = dict[str, Any]


def print_storage_version_migration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """RESOURCE ``resource[.group]``; STATUS the last of Running, Succeeded, Failed that holds."""
    resource: Obj = at(obj, "spec", "resource") or {}
    group = resource.get("group") or ""
    target = f"{resource.get('resource', '')}.{group}" if group else str(resource.get("resource", ""))
    state = "Unknown"
    for type_ in ("Running", "Succeeded", "Failed"):
        found = condition(obj, type_)
        if found is not None and found.get("status") == "True":
            state = type_
    return [name_of(obj), target, state], []


KIND = KindRules(group="storagemigration.k8s.io", kind="StorageVersionMigration",
                 printer=print_storage_version_migration)
"""The StorageVersionMigration's declaration."""
