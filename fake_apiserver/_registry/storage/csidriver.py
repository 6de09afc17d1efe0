"""CSIDrivers (``storage.k8s.io/v1``): the ``fsGroupPolicy`` enum. An update needs a
resourceVersion; no generation.

Its Table's cells: :func:`print_csi_driver` (a missing ``attachRequired`` and
``volumeLifecycleModes`` printed as their defaults)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.fieldrules import unsupported_errors
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "print_csi_driver"]

Obj = dict[str, Any]


def _csi_driver_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return unsupported_errors(obj, "spec.fsGroupPolicy", ["File", "None", "ReadWriteOnceWithFSType"])


def print_csi_driver(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    attach = spec.get("attachRequired")
    tokens = spec.get("tokenRequests")
    audiences = ",".join(str(t.get("audience", "")) for t in tokens) if tokens is not None else "<unset>"
    return [name_of(obj), True if attach is None else bool(attach), bool(spec.get("podInfoOnMount")),
            bool(spec.get("storageCapacity")), audiences, bool(spec.get("requiresRepublish")),
            ",".join(spec.get("volumeLifecycleModes") or ["Persistent"]), age_of(obj, now)], []


KIND = KindRules(group="storage.k8s.io", kind="CSIDriver", create=_csi_driver_errors, unconditional_update=False,
                 generation=False, openapi_delete_returns_object=True, printer=print_csi_driver)
"""The CSIDriver's declaration."""
