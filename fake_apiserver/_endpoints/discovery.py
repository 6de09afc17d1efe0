"""Discovery documents, built from the table of kinds.

Legacy (non-aggregated) discovery only: client-go picks the parser from the response
``Content-Type``, so answering ``application/json`` to a request that prefers the aggregated
``apidiscovery.k8s.io/v2`` form makes it fall back to ``/api``, ``/apis`` and the per-version
resource lists (``apiserver/pkg/endpoints/discovery``). Every subresource is listed as ``<resource>/<sub>``, with the
kind it takes as the row describes it (:func:`subresource_ref`).
"""

from __future__ import annotations

from typing import Any, Iterable

from fake_apiserver._machinery.kindspec import KindSpec, Subresource
from fake_apiserver._machinery.schema import KUBERNETES_VERSION
from fake_apiserver._registry.kinds import declaration

__all__ = ["api_group_list", "api_resource_list", "api_versions", "group_versions", "subresource_ref",
           "version_info"]

Obj = dict[str, Any]

# The verbs of a subresource of the parent's kind on a row written by hand.
_SUBRESOURCE_VERBS = {"status": ["get", "patch", "update"], "resize": ["get", "patch", "update"]}


def subresource_ref(spec: KindSpec, name: str) -> Subresource | None:
    """How ``spec``'s row describes its subresource ``name``. A row written by hand describes none
    of its subresources: one that takes a kind of its own is then described as the kind declares
    it (``subresource_kinds``: ``pods/binding`` a ``v1`` Binding), any other is None (of the
    parent's kind)."""
    ref = spec.subresource(name)
    if ref is not None or spec.custom:
        return ref
    return next((s for s in declaration(spec.group, spec.kind).subresource_kinds if s.name == name), None)


def group_versions(kinds: Iterable[KindSpec]) -> dict[str, list[str]]:
    """group -> versions, in table order (the first version is the preferred one)."""
    out: dict[str, list[str]] = {}
    for spec in kinds:
        versions = out.setdefault(spec.group, [])
        if spec.version not in versions:
            versions.append(spec.version)
    return out


def api_versions(server_address: str) -> Obj:
    return {
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    }


def api_group_list(kinds: Iterable[KindSpec]) -> Obj:
    groups = []
    for group, versions in group_versions(kinds).items():
        if not group:
            continue
        entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
        groups.append({"name": group, "versions": entries, "preferredVersion": entries[0]})
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}


def api_group(kinds: Iterable[KindSpec], group: str) -> Obj | None:
    versions = group_versions(kinds).get(group)
    if not versions or not group:
        return None
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": entries,
            "preferredVersion": entries[0]}


def api_resource_list(kinds: Iterable[KindSpec], group: str, version: str) -> Obj | None:
    resources: list[Obj] = []
    for spec in kinds:
        if spec.group != group or spec.version != version:
            continue
        entry: Obj = {
            "name": spec.resource,
            "singularName": spec.singular,
            "namespaced": spec.namespaced,
            "kind": spec.kind,
            "verbs": list(spec.verbs),
        }
        if spec.short_names:
            entry["shortNames"] = list(spec.short_names)
        if spec.categories:
            entry["categories"] = list(spec.categories)
        resources.append(entry)
        for sub in spec.subresources:
            entry = {"name": f"{spec.resource}/{sub}", "singularName": "", "namespaced": spec.namespaced}
            ref = subresource_ref(spec, sub)
            if ref is not None:
                if (ref.group, ref.version) != (spec.group, spec.version):  # a kind of another group-version
                    entry.update({"group": ref.group, "version": ref.version})
                entry["kind"], entry["verbs"] = ref.kind, list(ref.verbs)
            else:  # a row written by hand, a subresource of the parent's kind
                entry["kind"] = spec.kind
                entry["verbs"] = list(_SUBRESOURCE_VERBS.get(sub, ["get"]))
            resources.append(entry)
    if not resources:
        return None
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}


def version_info(release: str = KUBERNETES_VERSION) -> Obj:
    """``/version``: the Kubernetes release whose API the server serves (``1.37.0``: minor 37,
    emulating 37, compatible with 36), with the fake named in ``gitVersion``."""
    major, minor = release.split(".")[:2]
    return {
        "major": major,
        "minor": minor,
        "emulationMajor": major,
        "emulationMinor": minor,
        "minCompatibilityMajor": major,
        "minCompatibilityMinor": str(int(minor) - 1),
        "gitVersion": f"v{release}-schedharness",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.25",
        "compiler": "gc",
        "platform": "linux/amd64",
    }
