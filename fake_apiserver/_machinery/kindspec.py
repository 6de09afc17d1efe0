"""What describes one served kind: :class:`KindSpec`, the row type of the kind table.

A row says where a kind is served (group, version, resource), its scope, its subresources and
the field labels the real server selects it on: what ``metav1.APIResource`` and a REST mapping say
of a resource, plus the field label conversion ``pkg/apis`` registers for it and how the kind reads
the labels that are no plain path (its ``ToSelectableFields``). The rows themselves are the
registry's (:mod:`fake_apiserver._registry.kinds`), filled in from each kind's declaration;
machinery that works on any kind (field selectors, list options, patches) takes a row as a
parameter and never looks a kind up, nor names one.

Patch strategies (:attr:`KindSpec.patch_schema`) are keyed by a path of field names in which
``[]`` steps into the elements of a list, e.g. ``spec.containers[].env``. A path that is absent
means the list is atomic (replaced whole), which is what the real server does for lists without
a ``patchStrategy`` tag, such as ``spec.tolerations`` and node ``spec.taints``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from fake_apiserver._machinery.gotypes import patch_strategies
from fake_apiserver._machinery.strategic import ListStrategy, PatchSchema

__all__ = ["META_FIELDS", "FieldValue", "KindSpec", "Subresource"]


@functools.cache
def _patch_schema(group: str, version: str, kind: str) -> PatchSchema:
    """The merge lists of a kind, from ``x-kubernetes-patch-strategy`` and
    ``x-kubernetes-patch-merge-key`` in its schema (the ``patchStrategy``/``patchMergeKey`` struct
    tags of ``k8s.io/api``)."""
    return {path: ListStrategy(key, retain) for path, (key, retain) in patch_strategies(group, version, kind).items()}


FieldValue = Callable[[Mapping[str, Any]], str]
"""How a kind reads a field label off an object, as its ``ToSelectableFields`` does."""

# Field labels every kind accepts (apimachinery DefaultMetaV1FieldSelectorConversion).
META_FIELDS = ("metadata.name", "metadata.namespace")


@dataclass(frozen=True)
class Subresource:
    """A subresource as discovery describes it: its name, the kind it takes and answers (``Scale``
    of ``autoscaling/v1`` for ``deployments/scale``; the parent's kind for ``status``) and its verbs."""

    name: str
    group: str
    version: str
    kind: str
    verbs: tuple[str, ...]


@dataclass(frozen=True)
class KindSpec:
    """One served kind. ``fields`` lists the selectable field labels beyond ``metadata.*``;
    ``field_aliases`` maps an accepted alias to its canonical label (``spec.host``);
    ``field_errors`` is how a refused field label is worded: ``"generic"`` (``"x" is not a known
    field selector``, what kinds without a conversion of their own give; the default when
    ``fields`` is empty), ``"plain"`` (``field label not supported: x``, the default otherwise),
    ``"kind"`` (``field label "x" not supported for Job``) or ``"gvk"`` (``field label not supported
    for resource.k8s.io/v1, Kind=ResourceSlice: x``). ``field_values`` reads the labels whose
    value is not the text at their path (a Go value's zero when absent, a label computed from two
    fields); any other label is read as a path. ``subresource_refs`` describes each of
    ``subresources`` as discovery lists it (empty for a row written by hand). ``watch_cache`` is
    False for a kind served without one (Events): a get or a watch of one by name reaches the
    storage, which words a bad resourceVersion as a list does."""

    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    singular: str
    short_names: tuple[str, ...] = ()
    subresources: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    field_aliases: Mapping[str, str] = field(default_factory=dict)
    categories: tuple[str, ...] = ()
    field_errors: str = ""
    subresource_refs: tuple[Subresource, ...] = ()
    #: a custom resource (a CustomResourceDefinition's kind): no schema of the release, no
    #: strategic merge patch
    custom: bool = False
    verbs: tuple[str, ...] = (
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
    )
    field_values: Mapping[str, FieldValue] = field(default_factory=dict)
    watch_cache: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """``resource.group`` (``pods`` in the core group), as the journal names a resource."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    @property
    def list_kind(self) -> str:
        return f"{self.kind}List"

    @property
    def has_status(self) -> bool:
        return "status" in self.subresources

    @property
    def selectable_fields(self) -> tuple[str, ...]:
        return META_FIELDS + self.fields if self.namespaced else ("metadata.name",) + self.fields

    @property
    def generic_field_errors(self) -> bool:
        return self.field_error_style == "generic"

    @property
    def field_error_style(self) -> str:
        return self.field_errors or ("plain" if self.fields else "generic")

    def subresource(self, name: str) -> Subresource | None:
        """How discovery describes the subresource ``name`` of this kind, or None."""
        return next((s for s in self.subresource_refs if s.name == name), None)

    @property
    def patch_schema(self) -> PatchSchema:
        """How strategic merge patch merges this kind's lists, read from its schema."""
        if self.custom:
            return {}
        return _patch_schema(self.group, self.version, self.kind)
