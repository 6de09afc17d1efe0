"""The Kubernetes schemas the fake serves by: one source, from a maintained package.

Every served kind's fields, types and ``x-kubernetes-*`` extensions (patch strategies and merge
keys, list types, group-version-kind) come from the JSON schemas that the ``kubernetes-validate``
package ships, generated from the Kubernetes OpenAPI documents of each release. A fake server
serves one release: :data:`KUBERNETES_VERSION` unless it was started as another one of
:data:`RELEASES` (:func:`release`), so that it prunes what a real server of that release prunes;
the report names the package and the release (:func:`source`). Every function here takes the
release (``1.36.0``) and defaults to the pinned one. Nothing here is a hand-written schema: a kind's row in
:mod:`~fake_apiserver._registry.kinds` names the kind, and its schema is looked up by group, version and
kind (``x-kubernetes-group-version-kind``).

The package's ``-local`` variant is used: every definition in one ``_definitions.json`` under
``$defs``, referenced as ``#/$defs/<name>``, with types written as ``[type, "null"]``.

This is the source the type models read, not a model to walk a body with: the Go types are
compiled from it (:mod:`~fake_apiserver._machinery.gotypes`), and so are the merge rules
(:mod:`~fake_apiserver._machinery.mergerules`); the kind table reads which kinds a release has,
and the OpenAPI documents are served from it. Which type model serves which purpose:
:mod:`fake_apiserver._machinery` (its docstring).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import metadata, resources
from collections.abc import Mapping
from typing import Any

__all__ = [
    "KUBERNETES_VERSION",
    "RELEASES",
    "SCHEMA_PACKAGE",
    "definition",
    "definition_name",
    "definitions",
    "group_version_kinds",
    "release",
    "resolve",
    "source",
]

SCHEMA_PACKAGE = "kubernetes-validate"
KUBERNETES_VERSION = "1.37.0"
"""The Kubernetes release whose schemas the fake serves by: the first with the fields KEP-5836
adds (Node ``spec.podPreemptionPolicy``), which the KEP-5836 suite sets. The real server the
fake's answers are compared against is kube-apiserver v1.36, whose schemas differ from these only
by fields added in v1.37 (such a field is pruned or refused there and stored here)."""

RELEASES = ("1.34.0", "1.35.0", "1.36.0", "1.37.0")
"""The releases a fake server can serve as: each ships the kinds schedulers need at the versions
this fake serves (``resource.k8s.io/v1`` is the newest of them, since v1.34); a kind a later
release added at such a version (``resource.k8s.io/v1`` DeviceTaintRule, v1.37) is served only by
the releases that define it (:func:`~fake_apiserver._registry.kinds.served_kinds`)."""

_REF_PREFIX = "#/$defs/"

Schema = Mapping[str, Any]


def release(version: str) -> str:
    """A release as the user names it (``1.36``, ``v1.36``, ``1.36.0``) in the form of
    :data:`RELEASES`; ValueError naming the choices for one the fake cannot serve as."""
    text = version.strip().removeprefix("v")
    if re.fullmatch(r"\d+\.\d+", text):
        text += ".0"
    if text not in RELEASES:
        choices = ", ".join(r.rsplit(".", 1)[0] for r in RELEASES)
        raise ValueError(f"Kubernetes version {version!r} is not one this fake serves as (choose one of {choices})")
    return text


@functools.cache
def definitions(release: str = KUBERNETES_VERSION) -> Mapping[str, Schema]:
    """Every definition of ``release``, by its OpenAPI name (``io.k8s.api.core.v1.Pod``)."""
    root = resources.files("kubernetes_validate") / "kubernetes-json-schema" / f"v{release}-local"
    with (root / "_definitions.json").open("rb") as f:
        loaded: dict[str, Schema] = json.load(f)["$defs"]
    return loaded


@functools.cache
def _by_gvk(release: str) -> Mapping[tuple[str, str, str], str]:
    index: dict[tuple[str, str, str], str] = {}
    for name, schema in definitions(release).items():
        for gvk in schema.get("x-kubernetes-group-version-kind", ()):
            index.setdefault((gvk["group"], gvk["version"], gvk["kind"]), name)
    return index


def group_version_kinds(release: str = KUBERNETES_VERSION) -> frozenset[tuple[str, str, str]]:
    """Every ``(group, version, kind)`` the release's schemas define."""
    return frozenset(_by_gvk(release))


def definition_name(group: str, version: str, kind: str, release: str = KUBERNETES_VERSION) -> str:
    """The definition of ``group/version, Kind=kind``; KeyError for a kind the release lacks.

    Meta kinds shared by every group (``DeleteOptions``, ``Status``) are listed under many
    group-versions; the first definition that names the group-version is the one."""
    return _by_gvk(release)[(group, version, kind)]


def definition(name: str, release: str = KUBERNETES_VERSION) -> Schema:
    return definitions(release)[name]


def resolve(schema: Schema, release: str = KUBERNETES_VERSION) -> Schema:
    """``schema`` with its ``$ref`` followed (a property's own ``description`` is dropped, as the
    referenced definition carries the type's)."""
    ref = schema.get("$ref")
    while ref is not None:
        schema = definitions(release)[ref.removeprefix(_REF_PREFIX)]
        ref = schema.get("$ref")
    return schema


def ref_name(schema: Schema) -> str | None:
    """The definition a ``$ref`` schema points to, or None."""
    ref = schema.get("$ref")
    return None if ref is None else str(ref).removeprefix(_REF_PREFIX)


@functools.cache
def source(release: str = KUBERNETES_VERSION) -> str:
    """What a report names as the schema source: package, its version and the Kubernetes release."""
    try:
        package_version = metadata.version(SCHEMA_PACKAGE)
    except metadata.PackageNotFoundError:  # pragma: no cover - a dependency of the project
        package_version = "unknown"
    return f"{SCHEMA_PACKAGE} {package_version}, Kubernetes v{release}"
