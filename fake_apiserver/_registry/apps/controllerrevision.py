"""ControllerRevisions (``apps/v1``): served by the generic strategy; the cells of their Table rows
(:func:`print_controller_revision`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, count_of, name_of

__all__ = ["KIND", "print_controller_revision"]

Obj = dict[str, Any]


def print_controller_revision(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """CONTROLLER is the controlling owner as ``kind.group/name`` (lower-cased kind and group)."""
    controller = "<none>"
    for ref in at(obj, "metadata", "ownerReferences") or []:
        if ref.get("controller"):
            api_version = str(ref.get("apiVersion", ""))
            group = api_version.split("/")[0] if "/" in api_version else ""
            kind = str(ref.get("kind", ""))
            group_kind = f"{kind}.{group}" if group else kind
            controller = f"{group_kind.lower()}/{ref.get('name', '')}" if group_kind else str(ref.get("name", ""))
            break
    return [name_of(obj), controller, count_of(obj.get("revision")), age_of(obj, now)], []


KIND = KindRules(group="apps", kind="ControllerRevision", printer=print_controller_revision)
"""The ControllerRevision's declaration."""
