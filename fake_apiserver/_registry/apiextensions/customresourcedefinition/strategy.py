"""The CRD registry strategy: defaults (``SetDefaults_CustomResourceDefinition*``), the status a
create and an update leave, and the cleanup finalizer.

A CRD gets no finalizer on create; the first delete adds ``customresourcecleanup...`` and sets
``deletionTimestamp`` (``REST.Delete``), and answers with the object (:func:`mark_for_cleanup`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.apiextensions.customresourcedefinition.naming import set_condition
from fake_apiserver._registry.apiextensions.customresourcedefinition.validation import (
    crd_update_errors,
    status_update_errors,
)
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import Strategy, copy_key

__all__ = ["CLEANUP_FINALIZER", "CustomResourceDefinitionStrategy", "default_crd", "mark_for_cleanup"]

Obj = dict[str, Any]

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


def default_crd(obj: Obj) -> None:
    """``SetDefaults_CustomResourceDefinitionSpec``: ``names.singular`` (the kind in lower case),
    ``names.listKind`` (the kind + ``List``), ``conversion.strategy: None``, a webhook service's
    port 443 (``SetDefaults_CustomResourceDefinition``: and an empty ``status.storedVersions``
    becomes the storage version, which is how a ``/status`` write of ``[]`` comes out)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.setdefault("names", {})
    kind = str(names.get("kind") or "")
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = kind + "List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    service = get_in(spec, "conversion", "webhook", "clientConfig", "service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443
    status = obj.get("status")
    stored = _storage_version(obj)
    if isinstance(status, dict) and not status.get("storedVersions") and stored is not None:
        status["storedVersions"] = [stored]


def _storage_version(obj: Mapping[str, Any]) -> str | None:
    for version in get_in(obj, "spec", "versions") or []:
        if isinstance(version, Mapping) and version.get("storage"):
            return str(version.get("name") or "")
    return None


class CustomResourceDefinitionStrategy(Strategy):
    """The CRD registry strategy: defaults on every write; a new CRD's status is the empty one
    the real server answers with (``conditions: null``, empty plural and kind accepted) and the
    storage version as its one stored version; an update keeps the old status but adds a new
    storage version to ``storedVersions``. ``generation`` starts at 1 and moves with the spec (the
    generic rule). The controllers' status is :func:`names_status`."""

    def default(self, obj: Obj) -> None:
        default_crd(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        stored = _storage_version(obj)
        obj["status"] = {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                         "storedVersions": [stored] if stored is not None else None}
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        copy_key(old, new, "status")
        stored = _storage_version(new)
        status = new.setdefault("status", {})
        if stored is not None and stored not in (status.get("storedVersions") or []):
            status["storedVersions"] = [*(status.get("storedVersions") or []), stored]

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return crd_update_errors(new, old)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return status_update_errors(new, old)

    def mark_deleted(self, obj: Obj, now: str) -> bool:
        """``REST.Delete``: the CRD is marked (:func:`mark_for_cleanup`) with a ``Terminating``
        condition and kept until the finalizer controller has deleted its objects; a CRD marked
        already stays as it is."""
        if not obj["metadata"].get("deletionTimestamp"):
            status = obj.setdefault("status", {})
            conditions = status.get("conditions") or []
            set_condition(conditions, {"type": "Terminating", "status": "True", "reason": "InstanceDeletionPending",
                                        "message": "CustomResourceDefinition marked for deletion; CustomResource "
                                                   "deletion will begin soon"}, now)
            status["conditions"] = conditions
        mark_for_cleanup(obj, now)
        return True


def mark_for_cleanup(obj: Obj, now: str) -> None:
    """The first delete of a CRD (``REST.Delete``): ``deletionTimestamp`` set and the
    ``customresourcecleanup.apiextensions.k8s.io`` finalizer added; the answer is the object
    (200). The finalizer's controller removes it once the CRD's objects are gone."""
    meta = obj.setdefault("metadata", {})
    if meta.get("deletionTimestamp"):
        return
    meta["deletionTimestamp"] = now
    finalizers = meta.get("finalizers") or []
    if CLEANUP_FINALIZER not in finalizers:
        meta["finalizers"] = [*finalizers, CLEANUP_FINALIZER]
