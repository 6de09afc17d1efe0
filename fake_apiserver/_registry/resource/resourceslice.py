"""ResourceSlices (``resource.k8s.io/v1``): the driver, the pool and how the slice names its
nodes. A delete answers with the slice.

Its Table's cells: :func:`print_resource_slice`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.names import is_dns1123_subdomain
from fake_apiserver._registry.fieldrules import get_in, invalid_each
from fake_apiserver._registry.generic import FieldLabels, KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_resource_slice", "resource_slice_node_errors", "resource_slice_pool_errors"]

Obj = dict[str, Any]


def resource_slice_pool_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``validateResourcePool``: a name, a positive slice count, a generation not below zero."""
    pool = get_in(obj, "spec", "pool") or {}
    errors: list[FieldError] = []
    if not pool.get("name"):
        errors.append(FieldError.required("spec.pool.name"))
    count = pool.get("resourceSliceCount") or 0
    if isinstance(count, int) and count <= 0:
        errors.append(FieldError.invalid("spec.pool.resourceSliceCount", count, "must be greater than zero"))
    generation = pool.get("generation") or 0
    if isinstance(generation, int) and generation < 0:
        errors.append(FieldError.invalid("spec.pool.generation", generation, "must be greater than or equal to zero"))
    return errors


_NODE_SELECTION = ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")


_ONE_NODE_SELECTION = "exactly one of " + ", ".join(f"`{f}`" for f in _NODE_SELECTION) + " is required"


def resource_slice_node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """A ResourceSlice names its nodes one way: ``nodeName``, ``nodeSelector``, ``allNodes`` or
    ``perDeviceNodeSelection`` (the two booleans only ever ``true``)."""
    spec = get_in(obj, "spec") or {}
    errors: list[FieldError] = []
    for key in ("allNodes", "perDeviceNodeSelection"):
        if spec.get(key) is False:
            errors.append(FieldError.invalid(f"spec.{key}", False, "must be either unset or set to true"))
    chosen = [f for f in _NODE_SELECTION if spec.get(f) not in (None, "", False)]
    if not chosen:
        errors.append(FieldError.required("spec", _ONE_NODE_SELECTION))
    elif len(chosen) > 1:
        shown = "{" + ", ".join(f"`{f}`" for f in chosen) + "}"
        errors.append(FieldError.invalid("spec", shown, _ONE_NODE_SELECTION + ", but multiple fields are set"))
    return errors


def _resource_slice_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}

    errors = [] if spec.get("driver") else [FieldError.required("spec.driver")]
    errors += resource_slice_pool_errors(obj)
    node_name = spec.get("nodeName")
    if node_name:
        errors += invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    return errors + resource_slice_node_errors(obj)


def print_resource_slice(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), spec.get("nodeName") or "", spec.get("driver", ""), at(spec, "pool", "name") or "",
            age_of(obj, now)], []


KIND = KindRules(
    group="resource.k8s.io", kind="ResourceSlice", create=_resource_slice_errors, returns_deleted_object=True,
    openapi_delete_returns_object=True,
    field_labels=FieldLabels(("spec.nodeName", "spec.driver", "spec.pool.name"), errors="gvk",
                             since={"spec.pool.name": 37}),
    printer=print_resource_slice)
"""The ResourceSlice's declaration."""
