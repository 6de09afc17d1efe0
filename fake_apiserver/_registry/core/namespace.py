"""Namespaces (``pkg/registry/core/namespace``): the ``kubernetes.io/metadata.name`` label, and
the status and finalizer a new namespace gets. No generation; a delete answers with the
namespace (its own REST's ``Delete``).

Its Table's cells: :func:`print_namespace`. The namespaces resource is also where a request's
path names a namespace (:data:`NAMESPACE_SEGMENT`, :data:`NAMESPACE_SUBRESOURCES`): every
namespaced resource is served under its namespace's path."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.shapes import OBJECT_META, STR, STRINGS, struct_of
from fake_apiserver._registry.generic import FieldLabels, KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "NAMESPACE_SEGMENT", "NAMESPACE_SUBRESOURCES", "NamespaceStrategy", "print_namespace"]

Obj = dict[str, Any]

NAMESPACE_SEGMENT = "namespaces"
"""The path segment a namespace's name follows in a resource path
(``/api/v1/namespaces/{namespace}/pods``, ``requestinfo.go``): the namespaces resource's own."""

NAMESPACE_SUBRESOURCES = ("status", "finalize")
"""What may follow a namespace's name in the core group as the namespace's own subresource, not a
resource of it (``namespaceSubresources``: ``/api/v1/namespaces/{name}/status``)."""


class NamespaceStrategy(Strategy):
    generation = False

    def default(self, obj: Obj) -> None:
        """``SetDefaults_Namespace``: the ``kubernetes.io/metadata.name`` label is the namespace's
        name, on every write."""
        meta = obj.get("metadata")
        if isinstance(meta, dict) and meta.get("name"):
            labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
            meta["labels"] = {**(labels or {}), "kubernetes.io/metadata.name": meta["name"]}

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Active"}
        spec = obj.setdefault("spec", {})
        spec.setdefault("finalizers", ["kubernetes"])


def print_namespace(ns: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(ns), at(ns, "status", "phase") or "", age_of(ns, now)], []


KIND = KindRules(
    group="", kind="Namespace", name_rule="label", generate_name_checked_on_update=True,
    returns_deleted_object=True,  # its own REST answers a delete with the namespace
    strategy=lambda spec, options: NamespaceStrategy(spec),
    field_labels=FieldLabels(("status.phase",)),
    shape=struct_of("v1.Namespace", metadata=OBJECT_META,
                    spec=struct_of("v1.NamespaceSpec", finalizers=STRINGS),
                    status=struct_of("v1.NamespaceStatus", phase=STR)),
    printer=print_namespace)
"""The Namespace's declaration."""
