"""VolumeAttributesClasses (``storage.k8s.io/v1``): the StorageObjectInUseProtection finalizer
a created one gets.

Its Table's cells: :func:`print_volume_attributes_class`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "VolumeAttributesClassStrategy", "print_volume_attributes_class"]

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


KIND = KindRules(
    group="storage.k8s.io", kind="VolumeAttributesClass",
    strategy=lambda spec, options: VolumeAttributesClassStrategy(spec, protect=options.storage_protection),
    printer=print_volume_attributes_class)
"""The VolumeAttributesClass's declaration."""
