"""What PersistentVolumes and PersistentVolumeClaims share: the status a new one gets and the
StorageObjectInUseProtection admission plugin's finalizer (:class:`VolumeStrategy`).

Their Tables share two cells: the access modes in short (:func:`access_modes`) and the storage class
(:func:`storage_class_cell`)."""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.printing import at

__all__ = ["VolumeStrategy", "access_modes", "storage_class_cell"]

Obj = dict[str, Any]


_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))


def access_modes(modes: Any) -> str:
    """``GetAccessModesAsString``: the short forms in a fixed order."""
    present = set(modes or [])
    return ",".join(short for mode, short in _ACCESS_MODES if mode in present)


def storage_class_cell(obj: Obj) -> str:
    """The STORAGECLASS cell: the beta annotation, else ``spec.storageClassName``."""
    beta = (at(obj, "metadata", "annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else at(obj, "spec", "storageClassName") or "")


class VolumeStrategy(Strategy):
    """A new volume or claim's status is ``phase: Pending`` (``SetDefaults_*``), and a ``/status``
    write that leaves the phase out keeps it Pending. The StorageObjectInUseProtection admission
    plugin gives a created one its protection :attr:`finalizer` (appended once, on create only);
    the controllers that remove them (kube-controller-manager's) are played by the store
    (:mod:`~fake_apiserver._storage.controllers.protection`). ``protect=False`` is the plugin disabled."""

    #: the protection finalizer of the kind
    finalizer = ""

    def __init__(self, spec: KindSpec, *, protect: bool) -> None:
        super().__init__(spec)
        self.protect = protect

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        if not self.protect:
            return
        meta = obj.setdefault("metadata", {})
        finalizers = meta.get("finalizers") or []
        if self.finalizer not in finalizers:
            meta["finalizers"] = [*finalizers, self.finalizer]

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Pending"}

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        status = new.get("status") or {}
        if not status.get("phase"):
            status["phase"] = "Pending"
        self.stamp_phase(status, old.get("status") or {}, now)
        new["status"] = status

    def stamp_phase(self, status: Obj, old_status: Obj, now: str) -> None:
        """Stamp the time of a phase change on a ``/status`` write's ``status`` (a claim: none)."""
