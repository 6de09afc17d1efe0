"""StorageClasses (``storage.k8s.io/v1``): their rules, the fields fixed once created, and
``SetDefaults_StorageClass``. A delete answers with the class. The DefaultStorageClass admission
plugin, which reads them, is the claims' (:mod:`~fake_apiserver._registry.core.persistentvolumeclaim`).

Its Table's cells: :func:`print_storage_class`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.names import is_qualified_name
from fake_apiserver._registry.fieldrules import immutable_errors, invalid_each
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "StorageClassStrategy", "print_storage_class"]

Obj = dict[str, Any]


def _storage_class_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    provisioner = str(obj.get("provisioner") or "")
    if not provisioner:
        errors.append(FieldError.required("provisioner"))
    else:  # validated in lower case (ValidateStorageClass)
        errors += invalid_each("provisioner", provisioner.lower(), is_qualified_name(provisioner.lower()))
    policy = obj.get("reclaimPolicy")
    if policy is not None and policy not in ("Delete", "Retain"):
        errors.append(FieldError.not_supported("reclaimPolicy", policy, ["Delete", "Retain"]))
    mode = obj.get("volumeBindingMode")
    if mode is not None and mode not in ("Immediate", "WaitForFirstConsumer"):
        errors.append(FieldError.not_supported("volumeBindingMode", mode, ["Immediate", "WaitForFirstConsumer"]))
    return errors


def _storage_class_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"):
        errors += immutable_errors(new.get(key), old.get(key), key)
    return errors


class StorageClassStrategy(Strategy):
    """``SetDefaults_StorageClass`` on every write: ``reclaimPolicy: Delete`` and
    ``volumeBindingMode: Immediate`` when absent (so that leaving them out of an update does not
    read as changing the immutable fields)."""

    @staticmethod
    def _default(obj: Obj) -> None:
        if obj.get("reclaimPolicy") is None:
            obj["reclaimPolicy"] = "Delete"
        if obj.get("volumeBindingMode") is None:
            obj["volumeBindingMode"] = "Immediate"

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        self._default(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        self._default(new)


def print_storage_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    annotations = at(obj, "metadata", "annotations") or {}
    default = "true" in (annotations.get("storageclass.kubernetes.io/is-default-class"),
                         annotations.get("storageclass.beta.kubernetes.io/is-default-class"))
    return [name_of(obj) + (" (default)" if default else ""), obj.get("provisioner", ""),
            obj.get("reclaimPolicy") or "Delete", obj.get("volumeBindingMode") or "Immediate",
            bool(obj.get("allowVolumeExpansion")), age_of(obj, now)], []


KIND = KindRules(
    group="storage.k8s.io", kind="StorageClass", generate_name_checked_on_update=True,
    create=_storage_class_errors, update=_storage_class_update_errors, returns_deleted_object=True,
    openapi_delete_returns_object=True,
    strategy=lambda spec, options: StorageClassStrategy(spec), printer=print_storage_class)
"""The StorageClass's declaration."""
