"""Merge rules: how server-side apply and managed fields see each field of a kind (:class:`FieldType`).

structured-merge-diff, which kube-apiserver's field manager runs, does not read Go types: it
reads each field's merge rules from the OpenAPI. A field is a scalar, a map (a struct or a map:
``fields`` by name, ``elem`` for other keys; granular, or ``atomic`` as one leaf) or a list, and a
list is ``atomic`` (one leaf), a ``set`` (items by value) or a ``map`` (items by the values of its
keys). The rules come from ``x-kubernetes-list-type`` (with ``x-kubernetes-list-map-keys``),
``x-kubernetes-map-type`` and, for a list of a built-in kind without a list type, its
strategic-merge-patch strategy (``merge`` with a merge key makes it a list of type ``map`` keyed
by that key, ``merge`` alone a ``set``, anything else ``atomic``), which is how kube-apiserver
turns its OpenAPI into merge rules. A field the schema does not know
(``x-kubernetes-preserve-unknown-fields``, ``RawExtension``) is "deduced": maps granular, lists
atomic.

Built-in kinds take their rules from the release's schemas
(:mod:`~fake_apiserver._machinery.schema`, :func:`builtin_type`), custom resources from their
CRD version's ``openAPIV3Schema`` with ``metadata`` typed as ObjectMeta (:func:`custom_type`).
The rules are compiled straight from the schemas, not from the Go types of
:mod:`~fake_apiserver._machinery.gotypes`: a custom resource has no Go type, and the Go types
keep no map type nor list-map keys. :mod:`~fake_apiserver._machinery.fieldset` makes paths and
compares objects with them.

Which type model serves which purpose: :mod:`fake_apiserver._machinery` (its docstring).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fake_apiserver._machinery import schema as schemas

__all__ = ["DEDUCED", "KEY_DEFAULTS", "SCALAR", "FieldType", "builtin_type", "custom_type"]

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


@dataclass(eq=False)
class FieldType:
    """The merge rules of one schema node. ``kind`` is ``scalar``, ``map`` (a struct or a map:
    ``fields`` by name, ``elem`` for other keys), ``list`` (``relation`` ``atomic``, ``set`` or
    ``map`` with ``keys``; ``elem`` its items) or ``deduced`` (unknown: maps granular, lists
    atomic). ``atomic`` makes a map one leaf. Fields are compiled on first use (schemas recurse)."""

    kind: str
    atomic: bool = False
    relation: str = "atomic"
    keys: tuple[str, ...] = ()
    key_defaults: Mapping[str, Any] = field(default_factory=dict)
    _fields: Callable[[], Mapping[str, FieldType]] | None = None
    _elem: Callable[[], FieldType | None] | None = None

    @functools.cached_property
    def fields(self) -> Mapping[str, FieldType]:
        return self._fields() if self._fields is not None else {}

    @functools.cached_property
    def elem(self) -> FieldType | None:
        return self._elem() if self._elem is not None else None

    def child(self, key: str) -> FieldType | None:
        if self.kind == "deduced":
            return self
        found = self.fields.get(key)
        return found if found is not None else self.elem


SCALAR = FieldType("scalar")
DEDUCED = FieldType("deduced")


def _list_relation(node: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    list_type = node.get("x-kubernetes-list-type")
    if list_type == "map":
        return "map", tuple(node.get("x-kubernetes-list-map-keys") or ())
    if list_type in ("set", "atomic"):
        return str(list_type), ()
    if "merge" in str(node.get("x-kubernetes-patch-strategy", "")).split(","):
        key = node.get("x-kubernetes-patch-merge-key")
        return ("map", (str(key),)) if key else ("set", ())
    return "atomic", ()


KEY_DEFAULTS: Mapping[str, Mapping[str, Any]] = {
    "io.k8s.api.core.v1.ContainerPort": {"protocol": "TCP"},
    "io.k8s.api.core.v1.ServicePort": {"protocol": "TCP"},
}
"""Defaults of list-map keys that kube-apiserver's OpenAPI declares and the packaged schemas leave
out, by definition: an applied port without ``protocol`` is keyed ``{"containerPort":80,"protocol":"TCP"}``."""


def _key_defaults(items: Mapping[str, Any], resolve: Callable[[Mapping[str, Any]], Mapping[str, Any]],
                  keys: tuple[str, ...]) -> dict[str, Any]:
    """The defaults of a list item's key fields: its schema's ``default`` s, else :data:`KEY_DEFAULTS`."""
    known = KEY_DEFAULTS.get(str(items.get("$ref", "")).rsplit("/", 1)[-1], {})
    props = resolve(items).get("properties") or {}
    out: dict[str, Any] = {}
    for key in keys:
        declared = props.get(key)
        if isinstance(declared, Mapping) and "default" in declared:
            out[key] = declared["default"]
        elif key in known:
            out[key] = known[key]
    return out


def _types_of(node: Mapping[str, Any]) -> set[str]:
    declared = node.get("type")
    if isinstance(declared, list):
        return {str(t) for t in declared if t != "null"}
    return {str(declared)} if declared else set()


def _compile(node: Mapping[str, Any], resolve: Callable[[Mapping[str, Any]], Mapping[str, Any]],
             extra_fields: Mapping[str, FieldType] | None = None) -> FieldType:
    """The merge rules of a JSON schema node; ``resolve`` follows its ``$ref``."""
    outer = node
    node = resolve(node)
    if node.get("x-kubernetes-int-or-string") or "oneOf" in node or "anyOf" in node:
        return SCALAR
    if node.get("x-kubernetes-preserve-unknown-fields") and not node.get("properties"):
        return DEDUCED
    types = _types_of(node)
    if "array" in types:
        relation, keys = _list_relation(outer if "x-kubernetes-list-type" in outer else node)
        items = node.get("items")
        defaults = _key_defaults(items, resolve, keys) if isinstance(items, Mapping) and keys else {}
        return FieldType("list", relation=relation, keys=keys, key_defaults=defaults,
                         _elem=lambda: _compile(items, resolve) if isinstance(items, Mapping) else DEDUCED)
    if "object" in types or "properties" in node or "additionalProperties" in node:
        props = node.get("properties") or {}
        extra = node.get("additionalProperties")
        if not props and not isinstance(extra, Mapping) and not extra_fields:
            return DEDUCED  # RawExtension, FieldsV1: any JSON
        map_type = outer.get("x-kubernetes-map-type", node.get("x-kubernetes-map-type"))

        def fields() -> Mapping[str, FieldType]:
            compiled = {name: _compile(sub, resolve) for name, sub in props.items()}
            compiled.update(extra_fields or {})
            return compiled

        def elem() -> FieldType | None:
            if isinstance(extra, Mapping):
                return _compile(extra, resolve)
            return DEDUCED if node.get("x-kubernetes-preserve-unknown-fields") else None
        return FieldType("map", atomic=map_type == "atomic", _fields=fields, _elem=elem)
    return SCALAR


@functools.cache
def _definition_type(name: str, release: str) -> FieldType:
    return _compile({"$ref": "#/$defs/" + name}, lambda n: schemas.resolve(n, release))


@functools.cache
def builtin_type(group: str, version: str, kind: str, release: str = schemas.KUBERNETES_VERSION) -> FieldType:
    """The merge rules of a built-in kind, from the release's schemas (KeyError for one it lacks)."""
    return _definition_type(schemas.definition_name(group, version, kind, release), release)


def custom_type(openapi_v3_schema: Mapping[str, Any] | None, release: str = schemas.KUBERNETES_VERSION) -> FieldType:
    """The merge rules of a custom resource from its CRD version's ``openAPIV3Schema`` (None: no
    schema, everything deduced); ``metadata`` is ObjectMeta, ``apiVersion`` and ``kind`` scalars."""
    meta = {"metadata": _definition_type(OBJECT_META, release), "apiVersion": SCALAR, "kind": SCALAR}
    node = dict(openapi_v3_schema or {"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    node.setdefault("type", "object")
    return _compile(node, lambda n: n, extra_fields=meta)
