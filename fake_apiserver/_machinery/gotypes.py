"""The Go types of the served kinds, compiled from their schemas.

:func:`kind_node` turns a kind's JSON schema (:mod:`~fake_apiserver._machinery.schema`, kubernetes-validate's
for the pinned release) into a tree of :class:`TypeNode` s that the typed decoding of
:mod:`~fake_apiserver._machinery.typed` walks on every write: struct fields by JSON name, list items, map
values, primitive types with their formats (int32, int64, double, byte), and the types with their
own ``UnmarshalJSON`` named by definition (:data:`_CUSTOM`: quantities, int-or-strings, times, and
``RawExtension``/``FieldsV1``, which keep any JSON, as do fields marked
``x-kubernetes-preserve-unknown-fields`` or ``x-kubernetes-embedded-resource``). A field keeps its
strategic-merge-patch strategy, merge key and list type (:func:`patch_strategies` reads them).

Go type names come from the schema: a ``$ref`` to ``io.k8s.api.resource.v1.DeviceRequest`` is
``v1.DeviceRequest``, arrays ``[]...``, maps ``map[string]...``. What the schema cannot tell (named
string and map types such as ``v1.PodPhase``, ``types.UID``, ``v1.ResourceList``; pointers and
``omitempty``, which decide what a ``null`` or an empty value becomes; the Go name of an embedded
struct that error paths name, such as ``ProbeHandler``) is read from the Go struct facts the
project generates from ``k8s.io/api`` (:func:`go_fields`; a struct those facts lack, such as one
a newer schema adds, gets the schema's view). Struct nodes are compiled once, on first use, and
shared by every kind that holds them; cycles are fine.

Beside decoding, the model answers what Go does with a value of the type: what its encoder writes
of the fields a value leaves unset (:func:`go_written`; :func:`zero_object`, a kind's empty
object) and which values ``apiequality.Semantic.DeepEqual`` holds equal (:func:`semantic_of`).
:mod:`~fake_apiserver._machinery.shapes` builds nodes of this model by hand for bodies with no
compiled type. Which type model serves which purpose: :mod:`fake_apiserver._machinery` (its
docstring).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from importlib.resources.abc import Traversable
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery import schema as schemas
from fake_apiserver._machinery.jsonutil import json_copy

__all__ = ["DROP", "Field", "GoField", "PLAIN", "TypeNode", "facts_file", "go_fields", "go_written", "kind_node",
           "patch_strategies", "semantic_of", "zero_object", "zero_value"]

# TypeNode kinds: the containers first (``kind <= LIST``), then the types with their own JSON
# form (structs in Go: ``omitempty`` never leaves them out), then plain scalars.
STRUCT, MAP, LIST, QUANTITY, INT_OR_STRING, TIME, MICRO_TIME, OPAQUE, STRING, BOOL, INT32, INT64, FLOAT, BYTES = (
    range(14)
)
OPAQUE_STRUCTS = OPAQUE
PLAIN = {STRING: str, BOOL: bool}  # a value of this type is taken as it is

# Types with their own UnmarshalJSON, by definition name (the schema shows only their JSON form).
_CUSTOM = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": QUANTITY,
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": INT_OR_STRING,
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": TIME,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": MICRO_TIME,
    "io.k8s.apimachinery.pkg.runtime.RawExtension": OPAQUE,
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": OPAQUE,
}

class TypeNode:
    """One Go type, compiled from a schema. ``go`` is the type as ``UnmarshalTypeError`` prints
    it; a struct has ``fields`` (by JSON name) and ``name`` (the bare struct name errors give);
    a list or map has ``elem``."""

    __slots__ = ("kind", "go", "name", "fields", "elem", "written")

    def __init__(self, kind: int, go: str, name: str = "", elem: TypeNode | None = None) -> None:
        self.kind = kind
        self.go = go
        self.name = name
        self.fields: dict[str, Field] = {}
        self.elem = elem
        self.written: _Written | None = None  # :func:`go_written`'s plan, made on first use


class Field:
    """A struct field: its node; what Go makes of it when it is ``null`` or empty (``pointer``,
    ``omitempty``, ``omitzero``); the segment an error path names it by (its JSON name, after the
    Go names of any embedded structs it sits in, as ``ProbeHandler.httpGet``); and its strategic
    merge patch strategy."""

    __slots__ = ("node", "kind", "plain", "null", "nils", "drop_zero", "omitempty", "pointer", "segment", "strategy",
                 "merge_key", "list_type")

    def __init__(self, node: TypeNode, fact: GoField, strategy: str, merge_key: str | None,
                 list_type: str | None = None) -> None:
        self.node = node
        self.kind = node.kind
        self.plain: type | None = PLAIN.get(node.kind)  # a value of this type is taken as it is
        self.omitempty = fact.omitempty
        self.pointer = fact.pointer
        # a non-pointer scalar that is zero and ``omitempty`` is left out when encoded
        self.drop_zero = fact.omitempty and not fact.pointer and node.kind > OPAQUE_STRUCTS
        self.null = _null_value(node, fact)
        self.nils = fact.pointer or node.kind in (LIST, MAP, OPAQUE)  # null sets it to nil
        self.segment = f"{fact.embedded}.{fact.name}" if fact.embedded else fact.name
        self.strategy = strategy
        self.merge_key = merge_key
        self.list_type = list_type  # x-kubernetes-list-type (atomic, set, map): server-side apply's view


class GoField:
    """What the Go struct says of a field and its schema does not."""

    __slots__ = ("name", "go", "elem_go", "pointer", "omitempty", "omitzero", "embedded")

    def __init__(self, name: str, go: str | None = None, elem_go: str | None = None, *, pointer: bool = False,
                 omitempty: bool = True, omitzero: bool = False, embedded: str = "") -> None:
        self.name = name
        self.go = go
        self.elem_go = elem_go
        self.pointer = pointer
        self.omitempty = omitempty
        self.omitzero = omitzero
        self.embedded = embedded


DROP = object()  # what a null field becomes when it is left out


def _null_value(node: TypeNode, fact: GoField) -> Any:
    """What a field holds after ``null`` is decoded into it: nothing (a nil pointer, slice, map or
    interface, or a zero ``omitempty`` scalar), or the zero value Go then encodes (``{}`` for a
    struct, ``null`` for a ``metav1.Time``, ``"0"`` for a quantity)."""
    kind = node.kind
    if fact.pointer or fact.omitzero or kind in (LIST, MAP, OPAQUE):
        return DROP
    if kind in (TIME, MICRO_TIME):
        return None
    if kind in (STRUCT, QUANTITY, INT_OR_STRING) or not fact.omitempty:
        return zero_value(node)
    return DROP


# ---------------------------------------------------------------------------------- Go names


@functools.cache
def go_fields(release: str = schemas.KUBERNETES_VERSION) -> Mapping[str, Mapping[str, GoField]]:
    """The Go facts of each struct field, by definition and JSON name, from the Go types of the
    pinned release (``fake_apiserver/data/protobuf-v<release>.json``, generated by
    ``tools/gen_protobuf_fields.py``): the type as ``reflect`` prints it (``v1.PodPhase``,
    ``types.UID``, ``v1.ResourceList``), pointer, ``omitempty``/``omitzero``, and the embedded
    structs a promoted field comes from. When the pinned release has no such file yet, the
    newest one before it is read (Go type names and tags of a field do not change between
    releases). A definition the data lacks gets the schema's view (type names from the schema,
    ``omitempty`` unless ``required``)."""
    source = facts_file(release)
    if source is None:
        return {}
    with source.open("rb") as f:
        messages: Mapping[str, Any] = json.load(f)["messages"]

    def collect(definition: str, prefix: str, into: dict[str, GoField]) -> dict[str, GoField]:
        for raw in messages.get(definition, {}).get("fields", ()):
            if raw.get("inline"):
                embedded = f"{prefix}.{raw['go_name']}" if prefix else raw["go_name"]
                collect(raw["elem"], embedded, into)
                continue
            go = str(raw["go_type"]).lstrip("*")
            value = raw.get("value")
            elem_go = None
            if raw.get("map") and not go.startswith("map[") and isinstance(value, str):
                elem_go = _package(value) if "." in value else value
            into[raw["name"]] = GoField(raw["name"], go, elem_go, pointer=bool(raw.get("pointer")),
                                        omitempty=bool(raw.get("omitempty")), omitzero=bool(raw.get("omitzero")),
                                        embedded=prefix)
        return into

    return {definition: collect(definition, "", {}) for definition in messages}


def facts_file(release: str = schemas.KUBERNETES_VERSION) -> Traversable | None:
    """``data/protobuf-v<major.minor>.json`` of ``release``, or else of the newest release before
    it that the package ships (or, for an older release, the oldest one after it): the Go facts
    here and the protobuf wire facts of :mod:`~fake_apiserver._machinery.protobuf_wire` both read it."""
    pinned = tuple(int(p) for p in release.split(".")[:2])
    found: dict[tuple[int, ...], Traversable] = {}
    data = resources.files("fake_apiserver") / "data"
    if not data.is_dir():
        return None
    for entry in data.iterdir():
        match = re.fullmatch(r"protobuf-v(\d+)\.(\d+)\.json", entry.name)
        if match:
            found[(int(match.group(1)), int(match.group(2)))] = entry
    usable = [version for version in found if version <= pinned]
    if usable:
        return found[max(usable)]
    return found[min(found)] if found else None


def _package(definition: str) -> str:
    """``io.k8s.api.resource.v1.DeviceRequest`` -> ``v1.DeviceRequest``."""
    parts = definition.split(".")
    return f"{parts[-2]}.{parts[-1]}"


# ---------------------------------------------------------------------------------- compiling


_STRUCTS: dict[tuple[str, str], TypeNode] = {}


def _struct(definition: str, release: str) -> TypeNode:
    """The struct node of a definition, shared by every field of that type (cycles included)."""
    node = _STRUCTS.get((release, definition))
    if node is not None:
        return node
    node = _STRUCTS[(release, definition)] = TypeNode(STRUCT, _package(definition), definition.rsplit(".", 1)[1])
    _fill(node, schemas.definition(definition, release), go_fields(release).get(definition, {}), release)
    return node


def _fill(node: TypeNode, schema: Mapping[str, Any], facts: Mapping[str, GoField], release: str) -> None:
    required = set(schema.get("required") or ())
    for name, prop in (schema.get("properties") or {}).items():
        fact = facts.get(name) or GoField(name, omitempty=name not in required)
        strategy = str(prop.get("x-kubernetes-patch-strategy") or "")
        merge_key = prop.get("x-kubernetes-patch-merge-key")
        node.fields[name] = Field(_compile(prop, release, fact.go, fact.elem_go), fact, strategy, merge_key,
                                  prop.get("x-kubernetes-list-type"))


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if kind is None:
        return set()
    return {kind} if isinstance(kind, str) else set(kind)


def _compile(schema: Mapping[str, Any], release: str, go: str | None = None, elem_go: str | None = None) -> TypeNode:
    """A property's node; ``go`` names its Go type (and ``elem_go`` a named map's value type)
    when the schema's names would be wrong."""
    ref = schemas.ref_name(schema)
    if ref is not None:
        custom = _CUSTOM.get(ref)
        if custom is not None:
            return TypeNode(custom, go or _package(ref))
        target = schemas.definition(ref, release)
        if "properties" in target or ("object" in _types(target) and "additionalProperties" not in target):
            return _struct(ref, release)  # a struct (one with no fields takes none)
        return _compile(target, release, go, elem_go)
    if schema.get("x-kubernetes-preserve-unknown-fields") or schema.get("x-kubernetes-embedded-resource"):
        return TypeNode(OPAQUE, go or "interface {}")
    types = _types(schema) - {"null"}
    if "array" in types:
        item_go = go[2:].lstrip("*") if go and go.startswith("[]") else None
        elem = _compile(schema.get("items") or {}, release, item_go)
        return TypeNode(LIST, go or f"[]{elem.go}", elem=elem)
    if "object" in types:
        if "properties" in schema:  # a struct without a definition of its own
            node = TypeNode(STRUCT, go or "struct {}", (go or "").rpartition(".")[2])
            _fill(node, schema, {}, release)
            return node
        extra = schema.get("additionalProperties")
        if not isinstance(extra, Mapping):
            return TypeNode(OPAQUE, go or "map[string]interface {}")
        value_go = go[len("map[string]"):].lstrip("*") if go and go.startswith("map[string]") else elem_go
        elem = _compile(extra, release, value_go)
        return TypeNode(MAP, go or f"map[string]{elem.go}", elem=elem)
    fmt = schema.get("format")
    if "string" in types:
        if fmt == "byte":
            return TypeNode(BYTES, go or "[]uint8")
        return TypeNode(STRING, go or "string")
    if "boolean" in types:
        return TypeNode(BOOL, go or "bool")
    if "integer" in types:
        kind = INT32 if fmt == "int32" else INT64
        return TypeNode(kind, go or ("int32" if kind == INT32 else "int64"))
    if "number" in types:
        return TypeNode(FLOAT, go or "float64")
    return TypeNode(OPAQUE, go or "interface {}")


@functools.cache
def kind_node(group: str, version: str, kind: str, release: str = schemas.KUBERNETES_VERSION) -> TypeNode:
    """The compiled type of ``group/version, Kind=kind`` in ``release`` (cached; compiled on
    first use)."""
    return _struct(schemas.definition_name(group, version, kind, release), release)


def patch_strategies(group: str, version: str, kind: str) -> dict[str, tuple[str | None, bool]]:
    """Every list field that strategic merge patch merges, by dotted path (``[]`` steps into list
    items, as ``spec.containers[].env``): its merge key (None for a list of primitives merged as a
    set) and whether ``retainKeys`` is part of its strategy. Read from the schema's
    ``x-kubernetes-patch-strategy`` and ``x-kubernetes-patch-merge-key``."""
    found: dict[str, tuple[str | None, bool]] = {}

    def walk(node: TypeNode, path: str, seen: frozenset[int]) -> None:
        for name, field in node.fields.items():
            sub = f"{path}.{name}" if path else name
            strategy = field.strategy.split(",")
            child = field.node
            if child.kind == LIST and "merge" in strategy:
                found[sub] = (field.merge_key, "retainKeys" in strategy)
            if child.kind == LIST and child.elem is not None:
                sub, child = sub + "[]", child.elem
            if child.kind == STRUCT and id(child) not in seen:
                walk(child, sub, seen | {id(child)})

    root = kind_node(group, version, kind)
    walk(root, "", frozenset({id(root)}))
    return found


def zero_value(node: TypeNode) -> Any:
    kind = node.kind
    if kind in (STRUCT, MAP):
        return {}
    if kind == LIST:
        return []
    if kind in (STRING, BYTES):
        return ""
    if kind == BOOL:
        return False
    if kind in (INT32, INT64, FLOAT, INT_OR_STRING):
        return 0
    if kind == QUANTITY:
        return "0"
    return None


_Written = tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, TypeNode], ...]]


def _holds_structs(node: TypeNode) -> bool:
    if node.kind == STRUCT:
        return True
    return node.kind in (LIST, MAP) and node.elem is not None and _holds_structs(node.elem)


def _written_plan(node: TypeNode) -> _Written:
    """A struct's fields that Go writes when unset, with what it writes (in field order), and its
    fields that can hold structs (the only ones :func:`go_written` goes into)."""
    fills: list[tuple[str, Any]] = []
    walks: list[tuple[str, TypeNode]] = []
    for name, f in node.fields.items():
        if f.pointer or f.kind in (LIST, MAP):
            if not f.omitempty:  # a nil pointer, slice or map without omitempty: Go writes null
                fills.append((name, None))
        elif f.null is not DROP:
            fills.append((name, go_written({}, f.node) if f.kind == STRUCT else f.null))
        if _holds_structs(f.node):
            walks.append((name, f.node))
    return tuple(fills), tuple(walks)


def go_written(value: Any, node: TypeNode, made_from: Any = None) -> Any:
    """``value`` (decoded as ``node``) with what Go's encoder writes of the fields it leaves unset:
    a struct that is no pointer as an object (its own such fields in it), a ``metav1.Time`` as
    ``null`` (``lastProbeTime`` of a condition), a pointer, list or map without ``omitempty`` as ``null``,
    a scalar without ``omitempty`` as its zero. The object kube-apiserver stores and compares is
    the Go struct, so this is what a write's managed fields see (a condition's unset
    ``lastHeartbeatTime`` is the writer's). Changes ``value`` in place and returns it. Each
    struct's plan (:func:`_written_plan`) is made once, so a write looks only at the fields it
    must fill or that can hold structs. ``made_from``: the stored object ``value`` was made from
    (a patch's result), whose maps and lists ``value`` still holds are written already and not
    looked into."""
    kind = node.kind
    if kind == STRUCT and isinstance(value, dict):
        plan = node.written
        if plan is None:
            plan = node.written = _written_plan(node)
        fills, walks = plan
        before = made_from if type(made_from) is dict else None
        for name, child in walks:
            if name in value:
                if before is None:
                    go_written(value[name], child)
                else:
                    item = value[name]
                    was = before.get(name)
                    if item is not was:
                        go_written(item, child, was)
        for name, zero in fills:
            if name not in value:
                value[name] = json_copy(zero) if isinstance(zero, (dict, list)) else zero
    elif kind == LIST and isinstance(value, list) and node.elem is not None:
        kept = {id(item) for item in made_from} if type(made_from) is list else ()
        for item in value:
            if id(item) not in kept:
                go_written(item, node.elem)
    elif kind == MAP and isinstance(value, dict) and node.elem is not None:
        before = made_from if type(made_from) is dict else {}
        for key, item in value.items():
            if item is not before.get(key):
                go_written(item, node.elem)
    return value


@functools.cache
def zero_object(group: str, version: str, kind: str, release: str = schemas.KUBERNETES_VERSION) -> dict[str, Any]:
    """What an empty object of a built-in kind is as JSON: the Go zero value as ``encoding/json``
    writes it (:func:`go_written` of nothing: non-pointer structs as objects, lists and maps
    without ``omitempty`` as ``null``). It is the "before" of a create: a field present in it is
    never new as a whole. One object per kind, shared: read it, never change it."""
    return go_written({}, kind_node(group, version, kind, release))


def _scalar_zero(value: Any) -> bool:
    return value is None or value is False or value == "" or (
        isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0)


def semantic_of(value: Any, node: TypeNode) -> Any:
    """``value`` (decoded as ``node``) normalised so that two values compare equal exactly when
    ``apiequality.Semantic.DeepEqual`` holds their Go values equal: a nil and an empty list or
    map are equal, and so are an absent and a zero non-pointer field; a pointer set to a zero
    value (``affinity: {}``, ``activeDeadlineSeconds: 0``) is not nil."""
    if node.kind == STRUCT and isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            field = node.fields.get(key)
            if field is None:
                out[key] = item
                continue
            normal = semantic_of(item, field.node)
            if normal is None or (field.kind in (LIST, MAP) and normal in ([], {})):
                continue
            if not field.pointer and ((field.kind == STRUCT and normal == {})
                                      or (field.kind > OPAQUE_STRUCTS and _scalar_zero(normal))):
                continue
            out[key] = normal
        return out
    if node.kind == LIST and isinstance(value, list) and node.elem is not None:
        return [semantic_of(item, node.elem) for item in value]
    if node.kind == MAP and isinstance(value, dict) and node.elem is not None:
        return {key: semantic_of(item, node.elem) for key, item in value.items()}
    return value
