"""What the fake serves: one row per resource of the served release.

Everything the server knows about a kind lives in its
:class:`~fake_apiserver._machinery.kindspec.KindSpec` row: where it is served, its scope, its
subresources and the field selectors the real server accepts for it. The rows of a release are
read from that release's discovery data (``fake_apiserver/data/discovery-v1.NN.json``, written by
``tools/gen_discovery.py`` from a real kube-apiserver's aggregated discovery): every resource such
a server serves with its default API groups and versions, with its names, scope, verbs,
categories and subresources, in the server's order. Only what discovery does not say is written
here: the field labels each kind's conversion accepts (:data:`FIELD_LABELS`). Discovery, routing,
selectors and patches all read the rows. What a kind's objects hold (fields, types, the
strategic-merge-patch strategy of its lists) is read from the release's schemas by group,
version and kind (:mod:`~fake_apiserver._machinery.schema`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from collections.abc import Mapping
from typing import Any, Iterable

from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.kindspec import KindSpec, Subresource

__all__ = ["FIELD_LABELS", "KINDS", "FieldLabels", "by_kind", "by_resource", "release_kinds", "served_kinds"]


@dataclass(frozen=True)
class FieldLabels:
    """The field labels a kind's registered conversion accepts beyond ``metadata.*``, and how it
    words a refusal (:attr:`KindSpec.field_errors`). ``since`` maps a label to the first minor
    release that accepts it; ``aliases`` maps an accepted alias to its canonical label."""

    fields: tuple[str, ...]
    errors: str = "plain"
    aliases: Mapping[str, str] = field(default_factory=dict)
    since: Mapping[str, int] = field(default_factory=dict)

    def of(self, minor: int) -> tuple[str, ...]:
        return tuple(f for f in self.fields if self.since.get(f, 0) <= minor)


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

FIELD_LABELS: dict[tuple[str, str], FieldLabels] = {
    ("", "pods"): FieldLabels(
        ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
         "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"),
        aliases={"spec.host": "spec.nodeName"}),
    ("", "nodes"): FieldLabels(("spec.unschedulable",)),
    ("", "namespaces"): FieldLabels(("status.phase",)),
    ("", "events"): FieldLabels(_EVENT_FIELDS),
    ("", "services"): FieldLabels(("spec.clusterIP", "spec.type")),
    ("", "replicationcontrollers"): FieldLabels(("status.replicas",)),
    ("", "secrets"): FieldLabels(("type",)),
    ("events.k8s.io", "events"): FieldLabels(_EVENTS_V1_FIELDS),
    ("batch", "jobs"): FieldLabels(("status.successful",), errors="kind"),
    ("certificates.k8s.io", "certificatesigningrequests"): FieldLabels(("spec.signerName",)),
    ("certificates.k8s.io", "clustertrustbundles"): FieldLabels(("spec.signerName",)),
    ("certificates.k8s.io", "podcertificaterequests"): FieldLabels(("spec.signerName", "spec.podName", "spec.nodeName")),
    ("resource.k8s.io", "resourceslices"): FieldLabels(
        ("spec.nodeName", "spec.driver", "spec.pool.name"), errors="gvk", since={"spec.pool.name": 37}),
}
"""Field labels by group and resource, for the kinds whose conversion accepts more than
``metadata.name`` and ``metadata.namespace`` (a kind not listed selects on those only, and words
a refusal the generic way). Checked against kube-apiserver v1.34 to v1.37 by
``tests/test_kinds.py``."""


def _minor(release: str) -> str:
    return ".".join(release.split(".")[:2])


@functools.cache
def _discovery(minor: str) -> dict[str, Any]:
    with (resources.files("fake_apiserver") / "data" / f"discovery-v{minor}.json").open("rb") as f:
        data: dict[str, Any] = json.load(f)
    return data


def _subresource(group: str, version: str, entry: dict[str, Any]) -> Subresource:
    """A subresource; discovery leaves out the group and version of a kind of the parent's."""
    ref = entry["responseKind"]
    if not ref["version"]:
        return Subresource(entry["subresource"], group, version, ref["kind"], tuple(entry["verbs"]))
    return Subresource(entry["subresource"], ref["group"], ref["version"], ref["kind"], tuple(entry["verbs"]))


def _row(group: str, version: str, resource: dict[str, Any], minor: int) -> KindSpec:
    labels = FIELD_LABELS.get((group, resource["resource"]))
    subresources = tuple(_subresource(group, version, s) for s in resource["subresources"])
    return KindSpec(
        group, version, resource["resource"], resource["kind"], resource["scope"] == "Namespaced",
        resource["singular"],
        short_names=tuple(resource["shortNames"]),
        subresources=tuple(s.name for s in subresources),
        fields=labels.of(minor) if labels else (),
        field_aliases=labels.aliases if labels else {},
        categories=tuple(resource["categories"]),
        field_errors=labels.errors if labels else "generic",
        subresource_refs=subresources,
        verbs=tuple(resource["verbs"]),
    )


@functools.cache
def release_kinds(release: str = _schema.KUBERNETES_VERSION) -> tuple[KindSpec, ...]:
    """Every resource a kube-apiserver of ``release`` (``1.36.0``) serves with its default API
    groups and versions, in its discovery order (a group's preferred version first)."""
    minor = _minor(_schema.release(release))
    data = _discovery(minor)
    number = int(minor.split(".")[1])
    return tuple(
        _row(group["group"], version["version"], resource, number)
        for group in data["groups"] for version in group["versions"] for resource in version["resources"]
    )


def _one_version_each(kinds: Iterable[KindSpec]) -> tuple[KindSpec, ...]:
    """``kinds`` without the later versions of a resource listed twice (the first is preferred)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for spec in kinds:
        if (spec.group, spec.resource) not in seen:
            seen.add((spec.group, spec.resource))
            out.append(spec)
    return tuple(out)


def served_kinds(release: str, kinds: Iterable[KindSpec] | None = None) -> tuple[KindSpec, ...]:
    """The rows a server of ``release`` (``1.36.0``) serves: by default the release's own
    (:func:`release_kinds`); of other rows, those whose group, version and kind the release's
    schemas define. A resource is served at one version: a second version of it (autoscaling/v1
    HorizontalPodAutoscalers beside v2) would need conversion functions the fake does not have."""
    if kinds is None:
        return _one_version_each(release_kinds(release))
    defined = _schema.group_version_kinds(release)
    return _one_version_each(k for k in kinds if (k.group, k.version, k.kind) in defined)


KINDS: tuple[KindSpec, ...] = served_kinds(_schema.KUBERNETES_VERSION)
"""The rows a server of the default release serves (:data:`~fake_apiserver._machinery.schema.KUBERNETES_VERSION`)."""

_BY_RESOURCE = {(k.group, k.version, k.resource): k for k in KINDS}
_BY_KIND = {(k.group, k.kind): k for k in KINDS}


def by_resource(group: str, version: str, resource: str) -> KindSpec | None:
    """The default release's row of a resource, or None."""
    return _BY_RESOURCE.get((group, version, resource))


def by_kind(group: str, kind: str) -> KindSpec | None:
    """The default release's row of a kind at its group's preferred version, or None."""
    return _BY_KIND.get((group, kind))
