"""PersistentVolumeClaims (core/v1): their rules, the DefaultStorageClass admission plugin, the
status a new one gets and the ``kubernetes.io/pvc-protection`` finalizer
(:class:`~fake_apiserver._registry.core.volume.VolumeStrategy`). No generation; a delete answers
with the claim.

Its Table's cells: :func:`print_persistent_volume_claim`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic, spec_diff
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.controllers import Protection, Recheck, Stored
from fake_apiserver._registry.core.volume import VolumeStrategy, access_modes, storage_class_cell
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import KindRules, StorageClasses, no_classes
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "PVC_PROTECTION", "PersistentVolumeClaimStrategy", "print_persistent_volume_claim"]

Obj = dict[str, Any]


def _claim_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate``'s spec rule: a claim's spec is fixed once created,
    but for the volume name set once, a class set where there was none (the retroactive default),
    a bound claim's storage request and its ``volumeAttributesClassName``. The message's diff is
    the fake's own (the real one is go-cmp's of the internal spec)."""
    old_spec = dict(get_in(old, "spec") or {})
    new_spec = dict(get_in(new, "spec") or {})
    if not old_spec.get("volumeName"):
        old_spec.pop("volumeName", None)
        new_spec.pop("volumeName", None)
    old_annotations = get_in(old, "metadata", "annotations") or {}
    if old_spec.get("storageClassName") is None and new_spec.get("storageClassName") \
            and "volume.beta.kubernetes.io/storage-class" not in old_annotations:
        new_spec.pop("storageClassName")
    if get_in(new, "status", "phase") == "Bound":
        for spec in (old_spec, new_spec):
            spec.pop("volumeAttributesClassName", None)
            requests = dict(get_in(spec, "resources", "requests") or {})
            requests.pop("storage", None)
            spec["resources"] = {**(spec.get("resources") or {}), "requests": requests}
    if semantic(new_spec) == semantic(old_spec):
        return []
    return [FieldError.forbidden("spec", "spec is immutable after creation except resources.requests and "
                                         "volumeAttributesClassName for bound claims\n"
                                 + spec_diff(old_spec, new_spec, "core.PersistentVolumeClaimSpec"))]


def _persistent_volume_claim_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    if not get_in(obj, "spec", "accessModes"):
        errors.append(FieldError.required("spec.accessModes", "at least 1 access mode is required"))
    if get_in(obj, "spec", "resources", "requests", "storage") is None:
        errors.append(FieldError.required("spec.resources[storage]"))
    return errors


_DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                              "storageclass.beta.kubernetes.io/is-default-class")


def _default_storage_class(claim: Obj, classes: Mapping[str, Obj]) -> None:
    """The DefaultStorageClass admission plugin: a claim that names no class (no
    ``spec.storageClassName``, not even ``""``, and no ``volume.beta.kubernetes.io/storage-class``
    annotation) gets the default StorageClass, the newest of those annotated default (by name
    when created in the same second)."""
    spec = claim.get("spec")
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    if not isinstance(spec, dict) or spec.get("storageClassName") is not None \
            or "volume.beta.kubernetes.io/storage-class" in annotations:
        return
    defaults = [c for c in classes.values()
                if any(((c.get("metadata") or {}).get("annotations") or {}).get(a) == "true"
                       for a in _DEFAULT_CLASS_ANNOTATIONS)]
    if defaults:
        defaults.sort(key=lambda c: c["metadata"]["name"])
        defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
        spec["storageClassName"] = defaults[0]["metadata"]["name"]


class PersistentVolumeClaimStrategy(VolumeStrategy):
    """A claim is also given the default StorageClass (:func:`_default_storage_class`) on create,
    before its finalizer."""

    finalizer = "kubernetes.io/pvc-protection"

    def __init__(self, spec: KindSpec, *, protect: bool, storage_classes: StorageClasses = no_classes) -> None:
        super().__init__(spec, protect=protect)
        self.storage_classes = storage_classes

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        _default_storage_class(obj, self.storage_classes())
        super().admit_create(obj, sent)


def print_persistent_volume_claim(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    phase = at(obj, "status", "phase") or ""
    if at(obj, "metadata", "deletionTimestamp"):
        phase = "Terminating"
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = access_modes(at(obj, "status", "accessModes"))
        capacity = str((at(obj, "status", "capacity") or {}).get("storage", "0"))
    return [
        name_of(obj), phase, spec.get("volumeName") or "", capacity, modes, storage_class_cell(obj),
        spec.get("volumeAttributesClassName") or "<unset>", age_of(obj, now), spec.get("volumeMode") or "Filesystem",
    ], []


def _pod_done(pod: Obj) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _pod_gone_or_done(old: Obj | None, new: Obj | None) -> bool:
    """A pod deleted or finished: the claims it mounted may be free."""
    return new is None or _pod_done(new)


def _claim_in_use(claim: Obj, pods: Stored) -> bool:
    """A scheduled pod of the claim's namespace that has not finished mounts it, directly or as
    its generic ephemeral volume (``<pod>-<volume>``)."""
    meta = claim["metadata"]
    namespace, name = meta.get("namespace") or "", meta["name"]
    for (ns, pod_name), pod in pods.items():
        if ns != namespace or not pod.get("spec", {}).get("nodeName") or _pod_done(pod):
            continue
        for volume in pod["spec"].get("volumes") or []:
            source = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            if source == name or (volume.get("ephemeral") is not None and f"{pod_name}-{volume.get('name')}" == name):
                return True
    return False


PVC_PROTECTION = Protection(
    resource=("", "persistentvolumeclaims"), finalizer="kubernetes.io/pvc-protection", in_use=_claim_in_use,
    reads=(("", "pods"),),
    recheck={("", "persistentvolumeclaims"): Recheck("object"),
             ("", "pods"): Recheck("namespace", when=_pod_gone_or_done)},
)
"""pvc-protection (``pkg/controller/volume/pvcprotection``): a claim a scheduled, unfinished pod of
its namespace mounts is in use."""


KIND = KindRules(
    group="", kind="PersistentVolumeClaim", generate_name_checked_on_update=True,
    create=_persistent_volume_claim_errors, update=_claim_update_errors, returns_deleted_object=True,
    openapi_delete_returns_object=True, generation=False,
    strategy=lambda spec, options: PersistentVolumeClaimStrategy(
        spec, protect=options.storage_protection, storage_classes=options.storage_classes),
    printer=print_persistent_volume_claim, protection=PVC_PROTECTION)
"""The PersistentVolumeClaim's declaration."""
