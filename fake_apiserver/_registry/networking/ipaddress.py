"""IPAddresses (``networking.k8s.io/v1``): served by the generic strategy; the cells of their Table
rows (:func:`print_ip_address`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_ip_address"]

Obj = dict[str, Any]


def print_ip_address(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARENTREF ``resource[.group]/[namespace/]name``; the age is printed with no column for it."""
    ref = at(obj, "spec", "parentRef")
    text = "<none>"
    if isinstance(ref, dict):
        group = ref.get("group") or ""
        text = (f"{ref.get('resource', '')}.{group}" if group else str(ref.get("resource", ""))).lower()
        if ref.get("namespace"):
            text += "/" + str(ref["namespace"])
        text += "/" + str(ref.get("name", ""))
    return [name_of(obj), text, age_of(obj, now)], []


KIND = KindRules(group="networking.k8s.io", kind="IPAddress", printer=print_ip_address)
"""The IPAddress's declaration."""
