"""What the fake serves: one row per kind.

Everything the server knows about a kind lives in its :class:`~fake_apiserver._machinery.kindspec.KindSpec` row: where it is served,
its scope, its subresources and the field selectors the real server accepts for it. Adding a kind
is adding one row to :data:`KINDS`; discovery, routing, selectors and patches all read this table.
What a kind's objects hold (fields, types, the strategic-merge-patch strategy of its lists) is
not written here: it is read from the pinned release's schemas by group, version and kind
(:mod:`~fake_apiserver._machinery.schema`, compiled by :mod:`~fake_apiserver._machinery.gotypes`).
"""

from __future__ import annotations

from typing import Iterable

from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.kindspec import KindSpec

__all__ = ["KINDS", "by_kind", "by_resource", "served_kinds"]


_EVENT_FIELDS = (
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
)

# events.k8s.io/v1 selects on its own JSON names (pkg/apis/events/v1 field label conversion).
_EVENTS_V1_FIELDS = (
    "regarding.kind",
    "regarding.namespace",
    "regarding.name",
    "regarding.uid",
    "regarding.apiVersion",
    "regarding.resourceVersion",
    "regarding.fieldPath",
    "reason",
    "reportingController",
    "type",
)


def _k(
    group: str,
    version: str,
    resource: str,
    kind: str,
    namespaced: bool,
    **kw: object,
) -> KindSpec:
    singular = str(kw.pop("singular", kind.lower()))
    return KindSpec(group, version, resource, kind, namespaced, singular, **kw)  # type: ignore[arg-type]


KINDS: tuple[KindSpec, ...] = (
    # core/v1
    _k("", "v1", "pods", "Pod", True, short_names=("po",), categories=("all",),
       subresources=("status", "binding", "eviction", "resize"),
       fields=("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
               "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
               "status.nominatedNodeName"),
       field_aliases={"spec.host": "spec.nodeName"}),
    _k("", "v1", "nodes", "Node", False, short_names=("no",), subresources=("status",),
       fields=("spec.unschedulable",)),
    _k("", "v1", "namespaces", "Namespace", False, short_names=("ns",), subresources=("status",),
       fields=("status.phase",),
       verbs=("create", "delete", "get", "list", "patch", "update", "watch")),
    _k("", "v1", "events", "Event", True, short_names=("ev",), fields=_EVENT_FIELDS),
    _k("", "v1", "services", "Service", True, short_names=("svc",), categories=("all",),
       subresources=("status",), fields=("spec.clusterIP", "spec.type")),
    _k("", "v1", "replicationcontrollers", "ReplicationController", True, short_names=("rc",),
       categories=("all",), subresources=("status",), fields=("status.replicas",)),
    _k("", "v1", "persistentvolumes", "PersistentVolume", False, short_names=("pv",),
       subresources=("status",)),
    _k("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True, short_names=("pvc",),
       subresources=("status",)),
    _k("", "v1", "configmaps", "ConfigMap", True, short_names=("cm",)),
    # apps/v1
    # apps/v1 ReplicaSets select on metadata only (kube-apiserver v1.36 refuses status.replicas)
    _k("apps", "v1", "replicasets", "ReplicaSet", True, short_names=("rs",), categories=("all",),
       subresources=("status",)),
    _k("apps", "v1", "statefulsets", "StatefulSet", True, short_names=("sts",), categories=("all",),
       subresources=("status",)),
    # policy/v1
    _k("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True, short_names=("pdb",),
       subresources=("status",)),
    # storage.k8s.io/v1
    _k("storage.k8s.io", "v1", "storageclasses", "StorageClass", False, short_names=("sc",)),
    _k("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    _k("storage.k8s.io", "v1", "csidrivers", "CSIDriver", False),
    _k("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity", True),
    # kube-scheduler v1.35 informs it (v1.30 does not): NodeVolumeLimits registers VolumeAttachment/Delete
    # (isSchedulableAfterVolumeAttachmentDeleted), and eventhandlers.go starts its informer.
    _k("storage.k8s.io", "v1", "volumeattachments", "VolumeAttachment", False, subresources=("status",)),
    # events.k8s.io/v1
    _k("events.k8s.io", "v1", "events", "Event", True, short_names=("ev",), fields=_EVENTS_V1_FIELDS),
    # coordination.k8s.io/v1
    _k("coordination.k8s.io", "v1", "leases", "Lease", True),
    # resource.k8s.io/v1
    _k("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", True, subresources=("status",)),
    _k("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", True),
    _k("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", False,
       fields=("spec.nodeName", "spec.driver")),
    _k("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", False),
    # v1 from v1.37 (GA; v1beta2 and off by default in v1.36): kube-scheduler v1.37 informs it
    # (gate DRADeviceTaintRules, on by default; pkg/scheduler/scheduler.go starts the informer).
    _k("resource.k8s.io", "v1", "devicetaintrules", "DeviceTaintRule", False, subresources=("status",)),
    # scheduling.k8s.io/v1
    _k("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False, short_names=("pc",)),
)

_BY_RESOURCE = {(k.group, k.version, k.resource): k for k in KINDS}
_BY_KIND = {(k.group, k.kind): k for k in KINDS}


def by_resource(group: str, version: str, resource: str) -> KindSpec | None:
    return _BY_RESOURCE.get((group, version, resource))


def by_kind(group: str, kind: str) -> KindSpec | None:
    return _BY_KIND.get((group, kind))


def served_kinds(release: str, kinds: Iterable[KindSpec] = KINDS) -> tuple[KindSpec, ...]:
    """The rows a server of ``release`` (``1.36.0``) serves: those whose group, version and kind
    the release's schemas define. Every row is a GA version, and kube-apiserver serves a GA
    version by default, so a release serves a row exactly when its OpenAPI has it (
    ``resource.k8s.io/v1`` DeviceTaintRule from v1.37 on)."""
    defined = _schema.group_version_kinds(release)
    return tuple(k for k in kinds if (k.group, k.version, k.kind) in defined)
