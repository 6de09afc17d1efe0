"""Storage kinds: StorageClasses (with the default-class admission), PersistentVolumes and
PersistentVolumeClaims (with the StorageObjectInUseProtection finalizers), VolumeAttachments,
CSINodes, CSIDrivers and CSIStorageCapacities.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.equality import semantic, spec_diff
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_dns1123_subdomain, is_qualified_name
from fake_apiserver._registry.fieldrules import get_in, immutable_errors, invalid_each, unsupported_errors
from fake_apiserver._registry.generic import KindRules, StorageClasses, Strategy, StrategyOptions, no_classes

__all__ = ["RULES", "StorageClassStrategy", "VolumeAttributesClassStrategy", "VolumeStrategy",
           "persistent_volume_capacity_errors"]

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


_ONE_SOURCE = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"


def _volume_attachment_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}
    attacher = str(spec.get("attacher") or "")
    errors = ([FieldError.required("spec.attacher")] if not attacher
              else invalid_each("spec.attacher", attacher, is_dns1123_subdomain(attacher)))
    node_name = str(spec.get("nodeName") or "")
    errors += invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    source = spec.get("source") or {}
    inline, pv_name = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv_name is None:
        errors.append(FieldError.required("spec.source", _ONE_SOURCE))
    elif inline is not None and pv_name is not None:
        errors.append(FieldError.forbidden("spec.source", _ONE_SOURCE))
    elif pv_name is not None:
        if not pv_name:
            errors.append(FieldError.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
        else:
            errors += invalid_each("spec.source.persistentVolumeName", pv_name, is_dns1123_subdomain(str(pv_name)))
    return errors


def persistent_volume_capacity_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``spec.capacity`` holds ``storage`` and nothing else."""
    capacity = get_in(obj, "spec", "capacity")
    errors = [] if capacity else [FieldError.required("spec.capacity")]
    if not isinstance(capacity, Mapping) or "storage" not in capacity or len(capacity) > 1:
        errors.append(FieldError.not_supported("spec.capacity", capacity, ["storage"]))
    return errors


def _storage_capacity_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    name = obj.get("storageClassName") or ""
    errors = invalid_each("storageClassName", name, is_dns1123_subdomain(name))
    capacity = obj.get("capacity")
    try:
        negative = capacity is not None and quantity.parse(capacity) < 0
    except ValueError:
        negative = False
    if negative:
        errors.append(FieldError.invalid("capacity", quantity.canonical(capacity), "must be greater than or equal to 0"))
    return errors


def _csi_node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, driver in enumerate(get_in(obj, "spec", "drivers") or []):
        name = str(get_in(driver, "name") or "")
        errors += invalid_each(f"spec.drivers[{i}].name", name, is_dns1123_subdomain(name))
    return errors


def _persistent_volume_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors = [] if get_in(obj, "spec", "accessModes") else [FieldError.required("spec.accessModes")]
    return errors + persistent_volume_capacity_errors(obj)


def _persistent_volume_claim_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    if not get_in(obj, "spec", "accessModes"):
        errors.append(FieldError.required("spec.accessModes", "at least 1 access mode is required"))
    if get_in(obj, "spec", "resources", "requests", "storage") is None:
        errors.append(FieldError.required("spec.resources[storage]"))
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


class VolumeStrategy(Strategy):
    """PersistentVolumes and PersistentVolumeClaims: a new one's status is ``phase: Pending``
    (``SetDefaults_*``; a volume also gets ``lastPhaseTransitionTime``, and a status write that
    changes a volume's phase without setting a new time gets now, as
    ``persistentvolumeStatusStrategy`` does), and the StorageObjectInUseProtection admission
    plugin: a created volume gets the ``kubernetes.io/pv-protection`` finalizer, a claim
    ``kubernetes.io/pvc-protection`` (appended once, on create only). The controllers that remove
    them (kube-controller-manager's) are played by the store (``Store._release_volumes``).
    ``protect=False`` is the plugin disabled. A claim is also
    given the default StorageClass (:func:`_default_storage_class`)."""

    _FINALIZERS = {"persistentvolumes": "kubernetes.io/pv-protection",
                   "persistentvolumeclaims": "kubernetes.io/pvc-protection"}

    def __init__(self, spec: KindSpec, *, protect: bool, storage_classes: StorageClasses = no_classes) -> None:
        super().__init__(spec)
        self.protect = protect
        self.volume = spec.resource == "persistentvolumes"
        self.storage_classes = storage_classes

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        if not self.volume:
            _default_storage_class(obj, self.storage_classes())
        if not self.protect:
            return
        finalizer = self._FINALIZERS[self.spec.resource]
        meta = obj.setdefault("metadata", {})
        finalizers = meta.get("finalizers") or []
        if finalizer not in finalizers:
            meta["finalizers"] = [*finalizers, finalizer]

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Pending", **({"lastPhaseTransitionTime": now} if self.volume else {})}

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        status, old_status = new.get("status") or {}, old.get("status") or {}
        if not status.get("phase"):
            status["phase"] = "Pending"
        if self.volume:
            mine, before = status.get("lastPhaseTransitionTime"), old_status.get("lastPhaseTransitionTime")
            if status["phase"] == old_status.get("phase"):
                if mine is None and before is not None:
                    status["lastPhaseTransitionTime"] = before
            elif mine is None or mine == before:
                status["lastPhaseTransitionTime"] = now
        new["status"] = status


def _csi_driver_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return unsupported_errors(obj, "spec.fsGroupPolicy", ["File", "None", "ReadWriteOnceWithFSType"])


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


def _volume_strategy(spec: KindSpec, options: StrategyOptions) -> Strategy:
    return VolumeStrategy(spec, protect=options.storage_protection, storage_classes=options.storage_classes)


RULES: dict[tuple[str, str], KindRules] = {
    ("", "PersistentVolume"): KindRules(
        create=_persistent_volume_errors, returns_deleted_object=True, generation=False, strategy=_volume_strategy),
    ("", "PersistentVolumeClaim"): KindRules(
        create=_persistent_volume_claim_errors, update=_claim_update_errors, returns_deleted_object=True,
        generation=False, strategy=_volume_strategy),
    ("storage.k8s.io", "CSIDriver"): KindRules(create=_csi_driver_errors, unconditional_update=False, generation=False),
    ("storage.k8s.io", "CSINode"): KindRules(create=_csi_node_errors, unconditional_update=False, generation=False),
    ("storage.k8s.io", "CSIStorageCapacity"): KindRules(create=_storage_capacity_errors, unconditional_update=False),
    ("storage.k8s.io", "StorageClass"): KindRules(
        create=_storage_class_errors, update=_storage_class_update_errors, returns_deleted_object=True,
        strategy=lambda spec, options: StorageClassStrategy(spec)),
    ("storage.k8s.io", "VolumeAttributesClass"): KindRules(
        strategy=lambda spec, options: VolumeAttributesClassStrategy(spec, protect=options.storage_protection)),
    ("storage.k8s.io", "VolumeAttachment"): KindRules(
        create=_volume_attachment_errors, unconditional_update=False, generation=False, status_resets_meta=True),
}
