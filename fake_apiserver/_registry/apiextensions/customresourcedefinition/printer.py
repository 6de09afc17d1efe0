"""The CRD's printer: the cells of a CustomResourceDefinition's row in a server-side Table.

A custom object's own Table is not the CRD's printer but its CRD version's
``additionalPrinterColumns``, which the Table renderer reads (``_endpoints/printers_custom.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.printing import Cells, at, condition, name_of

__all__ = ["print_custom_resource_definition"]

Obj = dict[str, Any]


def print_custom_resource_definition(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """SCOPE, the served VERSIONS (the storage one marked ``(storage)``), and wide: GROUP, KIND,
    SHORTNAMES and whether it is ESTABLISHED."""
    spec: Obj = obj.get("spec") or {}
    versions = [str(v.get("name", "")) + ("(storage)" if v.get("storage") else "")
                for v in spec.get("versions") or [] if v.get("served")]
    established = condition(obj, "Established")
    return [name_of(obj), spec.get("scope", ""), ",".join(versions), at(obj, "metadata", "creationTimestamp"),
            spec.get("group", ""), at(spec, "names", "kind") or "", ",".join(at(spec, "names", "shortNames") or []),
            established is not None and established.get("status") == "True"], []
