"""What the fake serves: one row per resource of the served release.

Everything the server knows about a kind lives in its
:class:`~fake_apiserver._machinery.kindspec.KindSpec` row: where it is served, its scope, its
subresources and the field selectors the real server accepts for it. The rows of a release are
read from that release's discovery data (``fake_apiserver/data/discovery-v1.NN.json``, written by
``tools/gen_discovery.py`` from a real kube-apiserver's aggregated discovery): every resource such
a server serves with its default API groups and versions, with its names, scope, verbs,
categories and subresources, in the server's order. What discovery does not say comes from the
kind's declaration (:class:`~fake_apiserver._registry.generic.KindRules`), which the kind's module
in its API group's package declares and this module collects (:data:`DECLARATIONS`,
:func:`declaration`): the field labels its conversion accepts, how it reads the ones that are no
plain path, whether it has a watch cache. Discovery, routing, selectors and patches all read the
rows. What a kind's objects hold (fields, types, the strategic-merge-patch strategy of its lists)
is read from the release's schemas by group, version and kind
(:mod:`~fake_apiserver._machinery.schema`).
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any, Iterable

from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.kindspec import KindSpec, Subresource
from fake_apiserver._registry import (
    admissionregistration,
    apiextensions,
    apiregistration,
    apps,
    authentication,
    authorization,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    discovery,
    events,
    flowcontrol,
    networking,
    node,
    policy,
    rbac,
    resource,
    scheduling,
    storage,
    storagemigration,
)
from fake_apiserver._registry.generic import KindRules

__all__ = ["DECLARATIONS", "KINDS", "by_kind", "by_resource", "declaration", "release_kinds", "served_kinds"]


_GROUPS = (admissionregistration, apiextensions, apiregistration, apps, authentication, authorization, autoscaling,
           batch, certificates, coordination, core, discovery, events, flowcontrol, networking, node, policy, rbac,
           resource, scheduling, storage, storagemigration)

DECLARATIONS: tuple[KindRules, ...] = tuple(d for group in _GROUPS for d in group.DECLARATIONS)
"""Every kind's declaration, as its API group's package lists them."""

_DECLARED = {(d.group, d.kind): d for d in DECLARATIONS}
_UNDECLARED = KindRules()


def declaration(group: str, kind: str) -> KindRules:
    """The declaration of the kind ``kind`` of ``group``; ``KindRules()`` for a kind without one."""
    return _DECLARED.get((group, kind), _UNDECLARED)


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


def _row(group: str, version: str, entry: dict[str, Any], minor: int) -> KindSpec:
    declared = declaration(group, entry["kind"])
    labels = declared.field_labels
    subresources = tuple(_subresource(group, version, s) for s in entry["subresources"])
    return KindSpec(
        group, version, entry["resource"], entry["kind"], entry["scope"] == "Namespaced",
        entry["singular"],
        short_names=tuple(entry["shortNames"]),
        subresources=tuple(s.name for s in subresources),
        fields=labels.of(minor) if labels else (),
        field_aliases=labels.aliases if labels else {},
        categories=tuple(entry["categories"]),
        field_errors=labels.errors if labels else "generic",
        subresource_refs=subresources,
        verbs=tuple(entry["verbs"]),
        field_values=declared.field_values,
        watch_cache=declared.watch_cache,
    )


@functools.cache
def release_kinds(release: str = _schema.KUBERNETES_VERSION) -> tuple[KindSpec, ...]:
    """Every resource a kube-apiserver of ``release`` (``1.36.0``) serves with its default API
    groups and versions, in its discovery order (a group's preferred version first)."""
    minor = _minor(_schema.release(release))
    data = _discovery(minor)
    number = int(minor.split(".")[1])
    return tuple(
        _row(group["group"], version["version"], entry, number)
        for group in data["groups"] for version in group["versions"] for entry in version["resources"]
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
