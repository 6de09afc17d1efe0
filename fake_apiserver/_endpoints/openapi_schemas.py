"""The schemas of the OpenAPI documents: the release's definitions in OpenAPI form, and which of
them a document holds.

``components.schemas`` (v3) and ``definitions`` (v2) hold the definitions reachable from a
document's paths, converted from the schema package's JSON-schema form
(:mod:`fake_apiserver._machinery.schema`): ``#/$defs/`` refs become ``#/components/schemas/`` (or
``#/definitions/``) refs, ``[type, "null"]`` becomes ``type``, a ref with a description beside it
is wrapped in ``allOf`` as kube-apiserver's v3 does, the ``apiVersion``/``kind`` enums the package
adds are dropped, a shared meta kind's GVK list keeps the document's group-version (and core
``v1``), and ``oneOf: [string, integer]`` regains its ``int-or-string`` format (Swagger 2.0, which
has no ``oneOf``, types it as a string).

The package has no ``enum`` lists for the fields of enum types and not the descriptions that list
their values (``Possible enum values:``); a real kube-apiserver's documents have both, and
``kubectl explain`` prints them. They are data generated from a real server of the release
(``fake_apiserver/data/openapi-enums-v1.NN.json``, written by ``tools/gen_openapi_enums.py``): each
node it names by JSON pointer gets the server's ``enum`` and description (the v2 form where the
file gives one). A release without such a file is served without them.

A release's definition is converted once and shared; a custom resource's (``extra``) is converted
for each document.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any, Iterable, Sequence

from fake_apiserver._endpoints.openapi_paths import PathItem
from fake_apiserver._machinery import schema as _schema

__all__ = ["V2_REF", "V3_REF", "reachable", "schemas"]

Obj = dict[str, Any]

V3_REF = "#/components/schemas/"
V2_REF = "#/definitions/"


def _convert(schema: Any, ref_prefix: str, v3: bool) -> Any:
    """One JSON-schema node of the package in OpenAPI form (see the module docstring)."""
    if isinstance(schema, list):
        return [_convert(s, ref_prefix, v3) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: Obj = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            out[key] = types[0] if len(types) == 1 else types
        elif key == "$ref":
            out[key] = ref_prefix + str(value).removeprefix("#/$defs/")
        elif key == "properties":
            out[key] = {name: _convert(prop, ref_prefix, v3) for name, prop in value.items()}
        else:
            out[key] = _convert(value, ref_prefix, v3)
    if "oneOf" in out:
        if {alt.get("type") for alt in out["oneOf"]} == {"string", "integer"}:
            out.setdefault("format", "int-or-string")
        if not v3:  # Swagger 2.0 has no oneOf: the upstream v2 document types these as strings
            del out["oneOf"]
            out["type"] = "string"
    if "$ref" in out and len(out) > 1:
        if v3:  # kube-apiserver's v3 keeps a ref's siblings by wrapping the ref in allOf
            out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out


@functools.cache
def _enums(release: str, v3: bool) -> Mapping[str, Mapping[str, Obj]]:
    """The enum nodes a real server of ``release`` documents, by definition and JSON pointer
    (each ``{"enum": [...], "description": ...}``, the description absent where the node has
    none), in the v3 or the v2 form; empty for a release without data."""
    minor = release.rsplit(".", 1)[0]
    path = resources.files("fake_apiserver") / "data" / f"openapi-enums-v{minor}.json"
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    nodes: dict[str, dict[str, Obj]] = data["definitions"]
    if not v3:
        for name, differing in data.get("v2", {}).items():
            nodes[name] = {**nodes.get(name, {}), **differing}
    return nodes


def _token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _set_enums(converted: Obj, nodes: Mapping[str, Obj]) -> None:
    """Give each node of ``converted`` that ``nodes`` names its enum and description (a node the
    package's definition lacks is skipped)."""
    for pointer, entry in nodes.items():
        node: Any = converted
        for token in pointer.split("/")[1:]:
            if isinstance(node, dict):
                node = node.get(_token(token))
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                node = None
        if isinstance(node, dict):
            node["enum"] = list(entry["enum"])
            if "description" in entry:
                node["description"] = entry["description"]


@functools.cache
def _definition(name: str, v3: bool, release: str) -> Obj:
    """A definition converted once; the converted form is shared, never modified."""
    schema = _schema.definition(name, release)
    converted: Obj = _convert(schema, V3_REF if v3 else V2_REF, v3)
    if schema.get("x-kubernetes-group-version-kind"):
        for field in ("apiVersion", "kind"):  # the package adds these enums; upstream has none
            prop = converted.get("properties", {}).get(field)
            if prop is not None and "enum" in prop:
                converted["properties"][field] = {k: v for k, v in prop.items() if k != "enum"}
    _set_enums(converted, _enums(release, v3).get(name, {}))
    return converted


def _refs(schema: Any, found: set[str]) -> None:
    if isinstance(schema, list):
        for s in schema:
            _refs(s, found)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref":
                found.add(str(value).removeprefix("#/$defs/"))
            elif key == "properties":  # keyed by field name: JSONSchemaProps has a field "$ref"
                _refs(list(value.values()), found)
            else:
                _refs(value, found)


@functools.cache
def _direct_refs(name: str, release: str) -> frozenset[str]:
    found: set[str] = set()
    _refs(_schema.definition(name, release), found)
    return frozenset(found)


def reachable(roots: Iterable[str], release: str = _schema.KUBERNETES_VERSION,
              extra: Mapping[str, Obj] | None = None) -> list[str]:
    """``roots`` and every definition they reach, sorted (``extra``: definitions beyond the
    release's, the custom resources', in the schema package's form)."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            if extra and name in extra:
                found: set[str] = set()
                _refs(extra[name], found)
                pending.extend(found - seen)
            else:
                pending.extend(_direct_refs(name, release) - seen)
    return sorted(seen)


def schemas(paths: Sequence[PathItem], v3: bool, group_version: tuple[str, str] | None, release: str,
             extra: Mapping[str, Obj] | None = None) -> Obj:
    roots = {d for item in paths for op in item.operations
             for d in (op.body, *(r for _, r in op.responses)) if d is not None}
    out: Obj = {}
    for name in reachable(roots, release, extra):
        if extra and name in extra:
            converted = _convert(extra[name], V3_REF if v3 else V2_REF, v3)
        else:
            converted = _definition(name, v3, release)
        gvks = converted.get("x-kubernetes-group-version-kind")
        if group_version is not None and gvks and len(gvks) > 1:  # a meta kind: core v1 and this group-version
            keep = [x for x in gvks if (x["group"], x["version"]) in (("", "v1"), group_version)]
            converted = {**converted, "x-kubernetes-group-version-kind": keep}
        out[name] = converted
    return out
