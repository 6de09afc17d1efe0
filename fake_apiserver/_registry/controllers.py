"""What the controllers the fake plays know of kinds, as declarations the store's controllers read.

A real cluster's controllers act on the API's objects a moment after a write. The fake plays a few
of them at once, after each commit (:mod:`fake_apiserver._storage.controllers`), and those know no
kind: which kind each one acts on, and why, is declared here.

* :class:`Protection`: an in-use protection controller of kube-controller-manager. The
  StorageObjectInUseProtection admission plugin gives a new object a finalizer
  (:mod:`~fake_apiserver._registry.storage`); once the object is being deleted and nothing uses it
  any more, the controller removes that finalizer, and with no finalizer left the object goes.
  :data:`PROTECTIONS` holds pvc-protection (``pkg/controller/volume/pvcprotection``: a claim a
  scheduled, unfinished pod of its namespace mounts is in use), pv-protection
  (``pkg/controller/volume/pvprotection``: a ``Bound`` volume is in use) and vac-protection
  (``pkg/controller/volume/vacprotection``: a VolumeAttributesClass a volume or claim names is in
  use). Whether an object is in use is a function of objects: it is handed the stored objects of
  the kinds it reads (:attr:`Protection.reads`).
* :class:`Expiry`: objects that go a time after their last write, as kube-apiserver's
  ``--event-ttl`` does with an etcd lease on each Event (:data:`EVENT_TTL`).

The real controllers look again at an object when an informer tells them that something it
depends on changed; :attr:`Protection.recheck` says after a commit of which kind the fake looks
again, and at which protected objects (:class:`Recheck`).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Callable, Literal

from fake_apiserver._registry.serverkinds import GroupResource

__all__ = [
    "EVENT_TTL",
    "PROTECTIONS",
    "PVC_PROTECTION",
    "PV_PROTECTION",
    "VAC_PROTECTION",
    "Expiry",
    "Protection",
    "Recheck",
    "Stored",
]

Obj = dict[str, Any]

Stored = Mapping[tuple[str, str], Obj]
"""The stored objects of one resource by namespace (empty for a cluster-scoped kind) and name."""

_PVCS: GroupResource = ("", "persistentvolumeclaims")
_PVS: GroupResource = ("", "persistentvolumes")
_PODS: GroupResource = ("", "pods")
_VACS: GroupResource = ("storage.k8s.io", "volumeattributesclasses")


@dataclass(frozen=True)
class Recheck:
    """Which protected objects to look at again after a commit: ``object``, the committed object
    itself when it is stored (not deleted); ``namespace``, every protected object of the committed
    object's namespace; ``all``, every protected object. ``when`` (old, new) narrows it to the
    commits that may free one."""

    scope: Literal["object", "namespace", "all"]
    when: Callable[[Obj | None, Obj | None], bool] | None = None


@dataclass(frozen=True)
class Protection:
    """An in-use protection controller (module docstring): ``finalizer`` comes off an object of
    ``resource`` being deleted unless ``in_use(obj, *stored)``, where ``stored`` are the stored
    objects of each resource of ``reads``, in that order."""

    resource: GroupResource
    finalizer: str
    in_use: Callable[..., bool]
    reads: tuple[GroupResource, ...]
    recheck: Mapping[GroupResource, Recheck]


@dataclass(frozen=True)
class Expiry:
    """Objects of ``resources`` expire the server's TTL after their last write; an expired one is
    deleted from the storage of ``storage`` (the resources cohabit: one delete shows in both)."""

    resources: frozenset[GroupResource]
    storage: GroupResource


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


def _volume_bound(volume: Obj) -> bool:
    return (volume.get("status") or {}).get("phase") == "Bound"


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


PVC_PROTECTION = Protection(
    resource=_PVCS, finalizer="kubernetes.io/pvc-protection", in_use=_claim_in_use, reads=(_PODS,),
    recheck={_PVCS: Recheck("object"), _PODS: Recheck("namespace", when=_pod_gone_or_done)},
)
PV_PROTECTION = Protection(
    resource=_PVS, finalizer="kubernetes.io/pv-protection", in_use=_volume_bound, reads=(),
    recheck={_PVS: Recheck("object")},
)
VAC_PROTECTION = Protection(
    resource=_VACS, finalizer="kubernetes.io/vac-protection", in_use=_attributes_class_in_use, reads=(_PVS, _PVCS),
    recheck={_PVS: Recheck("all"), _PVCS: Recheck("all"), _VACS: Recheck("all")},
)

PROTECTIONS: tuple[Protection, ...] = (PVC_PROTECTION, PV_PROTECTION, VAC_PROTECTION)
"""The protection controllers the fake plays with ``storage_protection`` on; after a commit they
look again in this order."""

EVENT_TTL = Expiry(resources=frozenset({("", "events"), ("events.k8s.io", "events")}), storage=("", "events"))
"""Events expire (``--event-ttl``); an events.k8s.io Event is the same object as a core one."""
