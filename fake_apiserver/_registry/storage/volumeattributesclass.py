"""VolumeAttributesClasses (``storage.k8s.io/v1``): the StorageObjectInUseProtection finalizer
a created one gets.

Its Table's cells: :func:`print_volume_attributes_class`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.controllers import Protection, Recheck, Stored
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "VAC_PROTECTION", "VolumeAttributesClassStrategy", "print_volume_attributes_class"]

Obj = dict[str, Any]


class VolumeAttributesClassStrategy(Strategy):
    """The StorageObjectInUseProtection admission plugin on a VolumeAttributesClass: a created
    one gets the ``kubernetes.io/vac-protection`` finalizer (the store plays the controller that
    removes it from one being deleted that no volume or claim names). ``protect=False`` is the
    plugin disabled."""

    def __init__(self, spec: KindSpec, *, protect: bool) -> None:
        super().__init__(spec)
        self.protect = protect

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        if self.protect:
            meta = obj.setdefault("metadata", {})
            finalizers = meta.get("finalizers") or []
            if "kubernetes.io/vac-protection" not in finalizers:
                meta["finalizers"] = [*finalizers, "kubernetes.io/vac-protection"]


def print_volume_attributes_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), obj.get("driverName", ""), age_of(obj, now)], []


def _attributes_class_in_use(vac: Obj, volumes: Stored, claims: Stored) -> bool:
    """A volume or claim names the class: in its spec, or a claim's status as current or target."""
    name = vac["metadata"]["name"]
    for stored in (volumes, claims):
        for obj in stored.values():
            status = obj.get("status") or {}
            for value in ((obj.get("spec") or {}).get("volumeAttributesClassName"),
                          status.get("currentVolumeAttributesClassName"),
                          (status.get("modifyVolumeStatus") or {}).get("targetVolumeAttributesClassName")):
                if value and str(value) == name:
                    return True
    return False


_PVS = ("", "persistentvolumes")
_PVCS = ("", "persistentvolumeclaims")
_VACS = ("storage.k8s.io", "volumeattributesclasses")

VAC_PROTECTION = Protection(
    resource=_VACS, finalizer="kubernetes.io/vac-protection", in_use=_attributes_class_in_use, reads=(_PVS, _PVCS),
    recheck={_PVS: Recheck("all"), _PVCS: Recheck("all"), _VACS: Recheck("all")},
)
"""vac-protection (``pkg/controller/volume/vacprotection``): a VolumeAttributesClass a volume or
claim names is in use."""


KIND = KindRules(
    group="storage.k8s.io", kind="VolumeAttributesClass",
    strategy=lambda spec, options: VolumeAttributesClassStrategy(spec, protect=options.storage_protection),
    printer=print_volume_attributes_class, protection=VAC_PROTECTION)
"""The VolumeAttributesClass's declaration."""
