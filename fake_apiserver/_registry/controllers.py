"""The shapes of what the controllers the fake plays know of kinds, as the kinds' declarations
(:class:`~fake_apiserver._registry.generic.KindRules`) state it for the store's controllers.

A real cluster's controllers act on the API's objects a moment after a write. The fake plays a few
of them at once, after each commit (:mod:`fake_apiserver._storage.controllers`), and those know no
kind: which kind each one acts on, and why, is the kind's declaration, in one of these shapes.

* :class:`Protection`: an in-use protection controller of kube-controller-manager. The
  StorageObjectInUseProtection admission plugin gives a new object a finalizer
  (:mod:`~fake_apiserver._registry.core.volume`); once the object is being deleted and nothing uses it
  any more, the controller removes that finalizer, and with no finalizer left the object goes.
  A kind's declaration names its controller (``KindRules.protection``): pvc-protection
  (``pkg/controller/volume/pvcprotection``, PersistentVolumeClaims), pv-protection
  (``pkg/controller/volume/pvprotection``, PersistentVolumes) and vac-protection
  (``pkg/controller/volume/vacprotection``, VolumeAttributesClasses). Whether an object is in use
  is a function of objects: it is handed the stored objects of the kinds it reads
  (:attr:`Protection.reads`).
* :class:`Expiry`: objects that go a time after their last write, as kube-apiserver's
  ``--event-ttl`` does with an etcd lease on each Event (the kinds declared with ``expires``).

The real controllers look again at an object when an informer tells them that something it
depends on changed; :attr:`Protection.recheck` says after a commit of which kind the fake looks
again, and at which protected objects (:class:`Recheck`).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Callable, Literal

__all__ = ["Expiry", "Protection", "Recheck", "Stored"]

Obj = dict[str, Any]
GroupResource = tuple[str, str]

Stored = Mapping[tuple[str, str], Obj]
"""The stored objects of one resource by namespace (empty for a cluster-scoped kind) and name."""

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
