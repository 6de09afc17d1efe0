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
from typing import Any, Callable, Iterable, Mapping

from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.kindspec import KindSpec, Subresource
from fake_apiserver._machinery.runtimeconfig import Registry, RuntimeConfig, parse_runtime_config
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

__all__ = ["DECLARATIONS", "KINDS", "api_registry", "built_in_kinds", "by_kind", "by_resource", "declaration",
           "release_kinds", "runtime_config", "served_kinds"]


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


@functools.cache
def _every_row(release: str) -> tuple[tuple[KindSpec, bool], ...]:
    """Every resource a kube-apiserver of ``release`` can serve (``--runtime-config=api/all=true``,
    every gate on), in its discovery order, each with whether a feature gate decides it; a
    release whose data lists only its defaults gives those."""
    minor = _minor(_schema.release(release))
    data = _discovery(minor)
    number = int(minor.split(".")[1])
    return tuple(
        (_row(group["group"], version["version"], entry, number), bool(entry.get("gated")))
        for group in data.get("all", data["groups"]) for version in group["versions"]
        for entry in version["resources"]
    )


@functools.cache
def api_registry(release: str = _schema.KUBERNETES_VERSION) -> Registry:
    """What ``--runtime-config`` works on for ``release``: its group versions (in priority order),
    those on by default, and the resources of those versions that are off by default."""
    default = {(k.group, k.version, k.resource) for k in release_kinds(release)}
    versions: dict[str, list[str]] = {}
    for spec, _ in _every_row(release):
        group = versions.setdefault(spec.group, [])
        if spec.version not in group:
            group.append(spec.version)
    enabled = frozenset(gvr[:2] for gvr in default)
    disabled = frozenset((k.group, k.version, k.resource) for k, _ in _every_row(release)
                         if (k.group, k.version) in enabled and (k.group, k.version, k.resource) not in default)
    return Registry(versions={g: tuple(v) for g, v in versions.items()}, enabled=enabled, disabled_resources=disabled)


@functools.cache
def built_in_kinds() -> frozenset[tuple[str, str]]:
    """(group, kind) of every built-in kind: each resource a served release can serve, by default
    or through ``--runtime-config``."""
    return frozenset((k.group, k.kind) for release in _schema.RELEASES for k, _ in _every_row(release))


def runtime_config(release: str, overrides: str | Mapping[str, str] | None = None) -> RuntimeConfig:
    """A server's ``--runtime-config`` (the flag's value, or its map) on ``release``'s defaults;
    :class:`~fake_apiserver._machinery.runtimeconfig.RuntimeConfigError` with kube-apiserver's message
    when it would not start with it."""
    given = parse_runtime_config(overrides) if isinstance(overrides, str) else dict(overrides or {})
    return RuntimeConfig(api_registry(_schema.release(release)), given)


def _one_version_each(kinds: Iterable[KindSpec]) -> tuple[KindSpec, ...]:
    """``kinds`` without the later versions of a resource listed twice (the first is preferred)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for spec in kinds:
        if (spec.group, spec.resource) not in seen:
            seen.add((spec.group, spec.resource))
            out.append(spec)
    return tuple(out)


def served_kinds(release: str, kinds: Iterable[KindSpec] | None = None, *, config: RuntimeConfig | None = None,
                 gate: Callable[[str], bool] | None = None) -> tuple[KindSpec, ...]:
    """The rows a server of ``release`` (``1.36.0``) serves: by default the release's own
    (:func:`release_kinds`); with a ``--runtime-config`` (``config``), the release's resources it
    enables, each whose kind's declaration names its gates (``served_with``) only with those on
    (``gate``: the server's feature gates), a resource a gate decides that has no such declaration
    never; of other rows (``kinds``), those whose group, version and kind the release's schemas
    define. A resource is served at one version, its most preferred enabled one: a second version
    of it (autoscaling/v1 HorizontalPodAutoscalers beside v2) would need conversion functions the
    fake does not have."""
    release = _schema.release(release)
    if kinds is not None:
        defined = _schema.group_version_kinds(release)
        return _one_version_each(k for k in kinds if (k.group, k.version, k.kind) in defined)
    if config is None or not config.changed():
        return _one_version_each(release_kinds(release))
    on = gate or (lambda name: False)
    defined = _schema.group_version_kinds(release)
    default = {(k.group, k.version, k.resource) for k in release_kinds(release)}
    rows = []
    for spec, gated in _every_row(release):
        if not config.enabled(spec.group, spec.version, spec.resource):
            continue
        if (spec.group, spec.version, spec.resource) not in default:
            needs = declaration(spec.group, spec.kind).served_with
            if (gated and not needs) or not all(on(name) for name in needs):
                continue
            if (spec.group, spec.version, spec.kind) not in defined:
                continue
        rows.append(spec)
    return _one_version_each(rows)


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
