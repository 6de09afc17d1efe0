"""PersistentVolumes (core/v1): their rules, the status a new one gets (``phase: Pending`` and
``lastPhaseTransitionTime``) and the ``kubernetes.io/pv-protection`` finalizer
(:class:`~fake_apiserver._registry.core.volume.VolumeStrategy`). No generation; a delete answers
with the volume.

Its Table's cells: :func:`print_persistent_volume`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.controllers import Protection, Recheck
from fake_apiserver._registry.core.volume import VolumeStrategy, access_modes, storage_class_cell
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "PV_PROTECTION", "PersistentVolumeStrategy", "persistent_volume_capacity_errors", "print_persistent_volume"]

Obj = dict[str, Any]


def persistent_volume_capacity_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``spec.capacity`` holds ``storage`` and nothing else."""
    capacity = get_in(obj, "spec", "capacity")
    errors = [] if capacity else [FieldError.required("spec.capacity")]
    if not isinstance(capacity, Mapping) or "storage" not in capacity or len(capacity) > 1:
        errors.append(FieldError.not_supported("spec.capacity", capacity, ["storage"]))
    return errors


def _persistent_volume_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors = [] if get_in(obj, "spec", "accessModes") else [FieldError.required("spec.accessModes")]
    return errors + persistent_volume_capacity_errors(obj)


class PersistentVolumeStrategy(VolumeStrategy):
    """A new volume also gets ``lastPhaseTransitionTime``, and a status write that changes its
    phase without setting a new time gets now, as ``persistentvolumeStatusStrategy`` does."""

    finalizer = "kubernetes.io/pv-protection"

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"]["lastPhaseTransitionTime"] = now

    def stamp_phase(self, status: Obj, old_status: Obj, now: str) -> None:
        mine, before = status.get("lastPhaseTransitionTime"), old_status.get("lastPhaseTransitionTime")
        if status["phase"] == old_status.get("phase"):
            if mine is None and before is not None:
                status["lastPhaseTransitionTime"] = before
        elif mine is None or mine == before:
            status["lastPhaseTransitionTime"] = now


def print_persistent_volume(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    claim = spec.get("claimRef")
    phase = at(obj, "status", "phase") or ""
    if at(obj, "metadata", "deletionTimestamp"):
        phase = "Terminating"
    return [
        name_of(obj), str((spec.get("capacity") or {}).get("storage", "0")), access_modes(spec.get("accessModes")),
        spec.get("persistentVolumeReclaimPolicy") or "Retain", phase,
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if isinstance(claim, dict) else "",
        storage_class_cell(obj), spec.get("volumeAttributesClassName") or "<unset>", at(obj, "status", "reason") or "",
        age_of(obj, now), spec.get("volumeMode") or "Filesystem",
    ], []


def _volume_bound(volume: Obj) -> bool:
    return (volume.get("status") or {}).get("phase") == "Bound"


PV_PROTECTION = Protection(
    resource=("", "persistentvolumes"), finalizer="kubernetes.io/pv-protection", in_use=_volume_bound, reads=(),
    recheck={("", "persistentvolumes"): Recheck("object")},
)
"""pv-protection (``pkg/controller/volume/pvprotection``): a ``Bound`` volume is in use."""


KIND = KindRules(
    group="", kind="PersistentVolume", generate_name_checked_on_update=True,
    create=_persistent_volume_errors, returns_deleted_object=True, openapi_delete_returns_object=True,
    generation=False,
    strategy=lambda spec, options: PersistentVolumeStrategy(spec, protect=options.storage_protection),
    printer=print_persistent_volume, protection=PV_PROTECTION)
"""The PersistentVolume's declaration."""
