"""IngressClasses (``networking.k8s.io/v1``): served by the generic strategy; the cells of their
Table rows (:func:`print_ingress_class`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_ingress_class"]

Obj = dict[str, Any]


def print_ingress_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARAMETERS ``kind[.apiGroup]/name``."""
    params = at(obj, "spec", "parameters")
    text = "<none>"
    if isinstance(params, dict):
        text = str(params.get("kind", ""))
        if params.get("apiGroup") is not None:
            text += "." + str(params["apiGroup"])
        text += "/" + str(params.get("name", ""))
    return [name_of(obj), at(obj, "spec", "controller") or "", text, age_of(obj, now)], []


KIND = KindRules(group="networking.k8s.io", kind="IngressClass", printer=print_ingress_class)
"""The IngressClass's declaration."""
