"""Typed decoding: what decoding a body into the kind's Go type keeps, drops and refuses.

The real server decodes every body it writes (create, update, the result of every patch) into
the kind's Go struct and encodes that struct for storage. So a field the type lacks is dropped
(and reported under ``fieldValidation``), a field of the wrong JSON type is refused with the Go
decoder's text, and a ``null`` becomes Go's zero value. This module reproduces that from the
kind's JSON schema (:mod:`~fake_apiserver._schema`), compiled once per kind into a tree of
:class:`Node` s, in two flavours that word their errors differently:

* :func:`decode` follows ``sigs.k8s.io/json``'s ``UnmarshalStrict``/``UnmarshalCaseSensitive
  PreserveInts`` (a body of create and update, the result of a JSON or merge patch): errors read
  ``json: cannot unmarshal string into Go struct field DeviceClaim.spec.devices.requests of type
  []v1.DeviceRequest`` (the innermost struct's name, the field path without list indices);
  unknown and duplicate fields are collected in document order as ``unknown field
  "spec.containers[0].foo"``. Go keeps decoding into a field it has already filled when a key
  repeats (a repeated struct merges, a repeated list is decoded element by element into the old
  one); that is followed too. Duplicates need the raw JSON: a plain ``json.loads`` keeps the
  last value, so the body's colons are counted against the keys seen and, on a mismatch, the
  body is parsed again keeping every pair (:func:`_pairs_hook`).
* :func:`convert` follows ``runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation``
  (the result of a strategic merge patch): ``unrecognized type: int64``, ``cannot convert float64
  to int64``, ``cannot restore struct from: slice``; whole floats are taken as integers, int32
  fields wrap around; unknown fields are reported sorted.

Go type names come from the schema: a ``$ref`` to ``io.k8s.api.resource.v1.DeviceRequest`` is
``v1.DeviceRequest``, arrays ``[]...``, maps ``map[string]...``, formats int32/int64/double. What
the schema cannot tell (named string and map types such as ``v1.PodPhase``, ``types.UID``,
``v1.ResourceList``; the Go name of an embedded struct that error paths name, such as
``ProbeHandler``) is read from :func:`go_fields` when that data is present.

Trade-offs: the first decoding error in document order is the one reported (Go reports a later
error of a type with its own ``UnmarshalJSON``, such as a bad quantity, over an earlier plain one);
emptiness follows the schema's ``required`` list (a required field is written even when empty,
any other empty list or map is left out, as ``omitempty`` would); ``null`` drops a field (Go
keeps the zero value of a non-pointer, non-``omitempty`` field), except for times, which Go
writes as ``null``; quantities are checked, not rewritten in canonical form; ``[]byte`` strings
are not checked as base64.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any, Mapping

from fake_apiserver import _gotime as gotime
from fake_apiserver import _quantity as quantity
from fake_apiserver import _schema as schemas

__all__ = [
    "DecodeError",
    "Node",
    "Number",
    "convert",
    "count_keys",
    "count_members",
    "decode",
    "go_fields",
    "kind_node",
    "loads_pairs",
    "patch_strategies",
    "repeated_keys",
]

Obj = dict[str, Any]

# Node kinds: the containers first (``kind <= LIST``), then the types with their own JSON
# form (structs in Go: ``omitempty`` never leaves them out), then plain scalars.
STRUCT, MAP, LIST, QUANTITY, INT_OR_STRING, TIME, MICRO_TIME, OPAQUE, STRING, BOOL, INT32, INT64, FLOAT, BYTES = (
    range(14)
)
OPAQUE_STRUCTS = OPAQUE
_SCALARS = {STRING: str, BOOL: bool}

# Types with their own UnmarshalJSON, by definition name (the schema shows only their JSON form).
_CUSTOM = {
    "io.k8s.apimachinery.pkg.api.resource.Quantity": QUANTITY,
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": INT_OR_STRING,
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": TIME,
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": MICRO_TIME,
    "io.k8s.apimachinery.pkg.runtime.RawExtension": OPAQUE,
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": OPAQUE,
}
_INT_RANGE = {INT32: 2**31, INT64: 2**63}

# resource.ParseQuantity's format check and its two errors (apimachinery/pkg/api/resource).
_QUANTITY_RE = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_QUANTITY_FORMAT = f"quantities must match the regular expression '{_QUANTITY_RE.pattern}'"
_QUANTITY_SUFFIX = "unable to parse quantity's suffix"

_QUANTITIES: dict[str, str] = {}  # quantity text -> its error ("" when it parses); requests repeat a few


def _quantity_error(text: str) -> str:
    error = _QUANTITIES.get(text)
    if error is None:
        if not _QUANTITY_RE.match(text):
            error = _QUANTITY_FORMAT
        else:
            error = "" if quantity.is_quantity(text) else _QUANTITY_SUFFIX
        if len(_QUANTITIES) >= 4096:
            _QUANTITIES.clear()
        _QUANTITIES[text] = error
    return error


_MAX_STRICT_ERRORS = 100  # sigs.k8s.io/json keeps at most this many


class Node:
    """One Go type, compiled from a schema. ``go`` is the type as ``UnmarshalTypeError`` prints
    it; a struct has ``fields`` (by JSON name) and ``name`` (the bare struct name errors give);
    a list or map has ``elem``."""

    __slots__ = ("kind", "go", "name", "fields", "elem")

    def __init__(self, kind: int, go: str, name: str = "", elem: Node | None = None) -> None:
        self.kind = kind
        self.go = go
        self.name = name
        self.fields: dict[str, Field] = {}
        self.elem = elem


class Field:
    """A struct field: its node; what Go makes of it when it is ``null`` or empty (``pointer``,
    ``omitempty``, ``omitzero``); the segment an error path names it by (its JSON name, after the
    Go names of any embedded structs it sits in, as ``ProbeHandler.httpGet``); and its strategic
    merge patch strategy."""

    __slots__ = ("node", "kind", "plain", "null", "nils", "drop_zero", "omitempty", "segment", "strategy",
                 "merge_key")

    def __init__(self, node: Node, fact: GoField, strategy: str, merge_key: str | None) -> None:
        self.node = node
        self.kind = node.kind
        self.plain: type | None = _SCALARS.get(node.kind)  # a value of this type is taken as it is
        self.omitempty = fact.omitempty
        # a non-pointer scalar that is zero and ``omitempty`` is left out when encoded
        self.drop_zero = fact.omitempty and not fact.pointer and node.kind > OPAQUE_STRUCTS
        self.null = _null_value(node, fact)
        self.nils = fact.pointer or node.kind in (LIST, MAP, OPAQUE)  # null sets it to nil
        self.segment = f"{fact.embedded}.{fact.name}" if fact.embedded else fact.name
        self.strategy = strategy
        self.merge_key = merge_key


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


_DROP = object()  # a null field is left out


def _null_value(node: Node, fact: GoField) -> Any:
    """What a field holds after ``null`` is decoded into it: nothing (a nil pointer, slice, map or
    interface, or a zero ``omitempty`` scalar), or the zero value Go then encodes (``{}`` for a
    struct, ``null`` for a ``metav1.Time``, ``"0"`` for a quantity)."""
    kind = node.kind
    if fact.pointer or fact.omitzero or kind in (LIST, MAP, OPAQUE):
        return _DROP
    if kind in (TIME, MICRO_TIME):
        return None
    if kind in (STRUCT, QUANTITY, INT_OR_STRING) or not fact.omitempty:
        return _zero(node)
    return _DROP


# ---------------------------------------------------------------------------------- Go names


@functools.cache
def go_fields() -> Mapping[str, Mapping[str, GoField]]:
    """The Go facts of each struct field, by definition and JSON name, from the Go types of the
    pinned release (``fake_apiserver/data/protobuf-v<release>.json``, generated by
    ``tools/gen_protobuf_fields.py``): the type as ``reflect`` prints it (``v1.PodPhase``,
    ``types.UID``, ``v1.ResourceList``), pointer, ``omitempty``/``omitzero``, and the embedded
    structs a promoted field comes from. A definition the data lacks gets the schema's view (type
    names from the schema, ``omitempty`` unless ``required``)."""
    name = f"protobuf-v{schemas.KUBERNETES_VERSION.rsplit('.', 1)[0]}.json"
    try:
        with (resources.files("fake_apiserver") / "data" / name).open("rb") as f:
            messages: Mapping[str, Any] = json.load(f)["messages"]
    except (FileNotFoundError, NotADirectoryError):
        return {}

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


def _package(definition: str) -> str:
    """``io.k8s.api.resource.v1.DeviceRequest`` -> ``v1.DeviceRequest``."""
    parts = definition.split(".")
    return f"{parts[-2]}.{parts[-1]}"


# ---------------------------------------------------------------------------------- compiling


_STRUCTS: dict[str, Node] = {}


def _struct(definition: str) -> Node:
    """The struct node of a definition, shared by every field of that type (cycles included)."""
    node = _STRUCTS.get(definition)
    if node is not None:
        return node
    node = _STRUCTS[definition] = Node(STRUCT, _package(definition), definition.rsplit(".", 1)[1])
    _fill(node, schemas.definition(definition), go_fields().get(definition, {}))
    for name, (prop, fact) in _AHEAD.get(definition, {}).items():
        node.fields[name] = Field(_compile(prop, fact.go), fact, "", None)
    return node


def _fill(node: Node, schema: Mapping[str, Any], facts: Mapping[str, GoField]) -> None:
    required = set(schema.get("required") or ())
    for name, prop in (schema.get("properties") or {}).items():
        fact = facts.get(name) or GoField(name, omitempty=name not in required)
        strategy = str(prop.get("x-kubernetes-patch-strategy") or "")
        merge_key = prop.get("x-kubernetes-patch-merge-key")
        node.fields[name] = Field(_compile(prop, fact.go, fact.elem_go), fact, strategy, merge_key)


# Fields the fake serves ahead of the pinned release, as kubernetes/api declares them at its head
# (core/v1/types.go), grafted onto the release's definitions. KEP-5836 (alpha in v1.37):
# ``PodPreemptionPolicy *NodePodPreemptionPolicy `json:"podPreemptionPolicy,omitempty"` `` holding
# ``DisableResizePreemption []string `json:"disableResizePreemption,omitempty"` `` (+listType=set).
_AHEAD: dict[str, dict[str, tuple[Mapping[str, Any], GoField]]] = {
    "io.k8s.api.core.v1.NodeSpec": {
        "podPreemptionPolicy": (
            {"type": "object", "properties": {"disableResizePreemption": {
                "type": ["array", "null"], "items": {"type": ["string", "null"]}, "x-kubernetes-list-type": "set"}}},
            GoField("podPreemptionPolicy", "v1.NodePodPreemptionPolicy", pointer=True),
        ),
    },
}


def _types(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    if kind is None:
        return set()
    return {kind} if isinstance(kind, str) else set(kind)


def _compile(schema: Mapping[str, Any], go: str | None = None, elem_go: str | None = None) -> Node:
    """A property's node; ``go`` names its Go type (and ``elem_go`` a named map's value type)
    when the schema's names would be wrong."""
    ref = schemas.ref_name(schema)
    if ref is not None:
        custom = _CUSTOM.get(ref)
        if custom is not None:
            return Node(custom, go or _package(ref))
        target = schemas.definition(ref)
        if "properties" in target or ("object" in _types(target) and "additionalProperties" not in target):
            return _struct(ref)  # a struct (one with no fields takes none)
        return _compile(target, go, elem_go)
    if schema.get("x-kubernetes-preserve-unknown-fields") or schema.get("x-kubernetes-embedded-resource"):
        return Node(OPAQUE, go or "interface {}")
    types = _types(schema) - {"null"}
    if "array" in types:
        item_go = go[2:].lstrip("*") if go and go.startswith("[]") else None
        elem = _compile(schema.get("items") or {}, item_go)
        return Node(LIST, go or f"[]{elem.go}", elem=elem)
    if "object" in types:
        if "properties" in schema:  # a struct without a definition (a field ahead of the release)
            node = Node(STRUCT, go or "struct {}", (go or "").rpartition(".")[2])
            _fill(node, schema, {})
            return node
        extra = schema.get("additionalProperties")
        if not isinstance(extra, Mapping):
            return Node(OPAQUE, go or "map[string]interface {}")
        value_go = go[len("map[string]"):].lstrip("*") if go and go.startswith("map[string]") else elem_go
        elem = _compile(extra, value_go)
        return Node(MAP, go or f"map[string]{elem.go}", elem=elem)
    fmt = schema.get("format")
    if "string" in types:
        if fmt == "byte":
            return Node(BYTES, go or "[]uint8")
        return Node(STRING, go or "string")
    if "boolean" in types:
        return Node(BOOL, go or "bool")
    if "integer" in types:
        kind = INT32 if fmt == "int32" else INT64
        return Node(kind, go or ("int32" if kind == INT32 else "int64"))
    if "number" in types:
        return Node(FLOAT, go or "float64")
    return Node(OPAQUE, go or "interface {}")


@functools.cache
def kind_node(group: str, version: str, kind: str) -> Node:
    """The compiled type of ``group/version, Kind=kind`` (cached; compiled on first use)."""
    return _struct(schemas.definition_name(group, version, kind))


def patch_strategies(group: str, version: str, kind: str) -> dict[str, tuple[str | None, bool]]:
    """Every list field that strategic merge patch merges, by dotted path (``[]`` steps into list
    items, as ``spec.containers[].env``): its merge key (None for a list of primitives merged as a
    set) and whether ``retainKeys`` is part of its strategy. Read from the schema's
    ``x-kubernetes-patch-strategy`` and ``x-kubernetes-patch-merge-key``."""
    found: dict[str, tuple[str | None, bool]] = {}

    def walk(node: Node, path: str, seen: frozenset[int]) -> None:
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


# ---------------------------------------------------------------------------------- errors


class DecodeError(Exception):
    """A body that does not decode into the kind's type; ``str()`` is Go's text (wrap it as the
    handler does). ``number`` is the text of the JSON number at fault, to be filled from the raw
    body when Python's float lost it."""

    def __init__(self, value: str, go: str = "", *, context: bool = True, plain: str = "") -> None:
        super().__init__()
        self.value = value  # "string", "number 1.5", ... (UnmarshalTypeError.Value)
        self.go = go
        self.context = context  # whether the Go struct field context applies
        self.plain = plain  # an error of its own (a quantity, a time): the whole text
        self.struct: str | None = None
        self.segments: list[str] = []

    def __str__(self) -> str:
        if self.plain:
            return self.plain
        if self.struct is not None:
            field = ".".join(reversed(self.segments))
            return f"json: cannot unmarshal {self.value} into Go struct field {self.struct}.{field} of type {self.go}"
        return f"json: cannot unmarshal {self.value} into Go value of type {self.go}"


def _json_kind(value: Any) -> str:
    if isinstance(value, (dict, _Pairs)):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "bool" if isinstance(value, bool) else "number"


def _reflect_kind(value: Any) -> str:
    """The ``reflect.Kind`` of a value in an unstructured map (``PreserveInts``)."""
    if isinstance(value, (dict, _Pairs)):
        return "map"
    if isinstance(value, list):
        return "slice"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "int64" if isinstance(value, int) else "float64"


def _number(value: Any) -> str:
    """``number <literal>``: the body's own text of a number when it was kept (:class:`_Num`)."""
    if isinstance(value, _Num):
        return f"number {value.text}"
    if isinstance(value, float):
        return f"number {_go_float_json(value)}"
    return f"number {value}"


def _go_float_json(value: float) -> str:
    """How Go's ``encoding/json`` writes a float64 (``'f'`` format below 1e21, else ``'e'``)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        sign = exponent[0] if exponent[0] in "+-" else "+"
        digits = exponent.lstrip("+-").lstrip("0") or "0"
        return f"{mantissa}e{sign}{digits}"
    return text


# ---------------------------------------------------------------------------------- raw JSON


class _Pairs(list[tuple[str, Any]]):
    """A JSON object whose keys repeat, as the list of its members."""


class _Num(float):
    """A JSON number with a fraction or exponent, with its text (Go's errors quote it)."""

    text: str

    def __new__(cls, text: str) -> _Num:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _pairs_hook(pairs: list[tuple[str, Any]]) -> Any:
    members = dict(pairs)
    return members if len(members) == len(pairs) else _Pairs(pairs)


def loads_pairs(data: bytes | str) -> Any:
    """Parse JSON keeping repeated keys (an object with one is a list of pairs) and number texts."""
    return json.loads(data, object_pairs_hook=_pairs_hook, parse_float=_Num)


def count_keys(data: bytes) -> int:
    """An upper bound of the object members in a JSON text: every member's key ends in ``":``
    once blanks are taken out (blanks inside strings, and strings holding those bytes, only add
    to the count). So a body whose parsed objects hold as many keys repeats no key."""
    return data.translate(None, b" \t\r\n").count(b'":')


def _count(value: Any) -> int:
    """The members of every object in ``value``."""
    if isinstance(value, dict):
        return len(value) + sum(_count(v) for v in value.values() if isinstance(v, (dict, list)))
    if isinstance(value, list):
        return sum(_count(v) for v in value if isinstance(v, (dict, list)))
    return 0


Number = _Num
count_members = _count


def repeated_keys(value: Any, path: str, errors: list[str]) -> None:
    """Add to ``errors`` the repeated keys of a raw value decoded into ``interface{}``
    (``duplicate field "metadata.labels.a"``), in document order."""
    if type(value) is _Pairs:
        seen: set[str] = set()
        for key, item in value:
            sub = f"{path}.{key}" if path else key
            if key in seen:
                errors.append(f'duplicate field "{sub}"')
            seen.add(key)
            repeated_keys(item, sub, errors)
    elif type(value) is dict:
        for key, item in value.items():
            repeated_keys(item, f"{path}.{key}" if path else key, errors)
    elif type(value) is list:
        for i, item in enumerate(value):
            repeated_keys(item, f"{path}[{i}]", errors)


def _plain(value: Any) -> Any:
    """A raw value with repeated keys collapsed (last wins, as a Go map keeps) and numbers
    plain floats: what an opaque or ``interface{}`` field holds."""
    if isinstance(value, _Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, _Num):
        return float(value)
    return value


# ---------------------------------------------------------------------------------- walking


_NO = object()  # no value decoded into yet


def _zero(node: Node) -> Any:
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


class _Walker:
    """One decoding: the flavour, the strict errors found, the keys seen."""

    def __init__(self, convert: bool, strict: bool) -> None:
        self.convert = convert
        self.strict = strict
        self.errors: list[str] = []
        self.seen: set[str] = set()
        self.keys = 0  # object members walked (duplicate detection)

    def report(self, error: str) -> None:
        if self.strict and error not in self.seen and len(self.errors) < _MAX_STRICT_ERRORS:
            self.seen.add(error)
            self.errors.append(error)

    def unknown(self, path: str, key: str, value: Any) -> None:
        self.keys += _count(value)
        if self.strict:
            self.report(f'unknown field "{path}.{key}"' if path else f'unknown field "{key}"')

    # A value of a node; ``into`` is what an earlier duplicate key left there.
    def value(self, node: Node, value: Any, path: str, into: Any = _NO) -> Any:
        kind = node.kind
        if kind == STRUCT:
            return self.struct(node, value, path, into)
        if kind == LIST:
            return self.list(node, value, path, into)
        if kind == MAP:
            return self.map(node, value, path, into)
        return self.scalar(node, value)

    def struct(self, node: Node, value: Any, path: str, into: Any, patch: Any = None) -> Obj:
        """A struct; ``patch`` (a strategic merge patch's map at this place) limits the walk to
        the keys it names: the others are the stored object's, already decoded."""
        if type(patch) is dict and "$patch" in patch:
            patch = None  # replaced whole: every key is the patch's
        if type(value) is dict:
            members: Any = value.items()
            self.keys += len(value)
            repeats = False
        elif type(value) is _Pairs:
            members, repeats = value, True
            self.keys += len(value)
        else:
            raise self.mismatch(value, node, "struct")
        out: Obj = into if type(into) is dict else {}
        fields = node.fields
        named: set[str] = set()
        for key, item in members:
            if patch is not None and key not in patch:
                out[key] = item
                continue
            field = fields.get(key)
            if field is None:
                self.unknown(path, key, item)
                continue
            if repeats:
                if key in named:
                    self.report(f'duplicate field "{path}.{key}"' if path else f'duplicate field "{key}"')
                named.add(key)
            if type(item) is field.plain:
                if item or not field.drop_zero:
                    out[key] = item
                else:
                    out.pop(key, None)
                continue
            kind = field.kind
            if item is None:
                null = field.null
                if repeats and key in out and not field.nils:
                    continue  # null into a non-pointer Go already filled changes nothing
                if null is _DROP:
                    out.pop(key, None)
                else:
                    out[key] = null.copy() if type(null) is dict else null
                continue
            try:
                if kind == STRUCT:
                    inner = patch.get(key) if patch is not None else None
                    out[key] = self.struct(field.node, item, f"{path}.{key}" if path else key, out.get(key, _NO),
                                           inner if type(inner) is dict else None)
                elif kind <= LIST:
                    if kind == LIST:
                        decoded: Any = self.list(field.node, item, f"{path}.{key}" if path else key, out.get(key, _NO))
                    else:
                        decoded = self.map(field.node, item, f"{path}.{key}" if path else key, out.get(key, _NO))
                    if decoded or not field.omitempty:
                        out[key] = decoded
                    else:
                        out.pop(key, None)
                else:
                    decoded = self.scalar(field.node, item)
                    if decoded or not field.drop_zero:
                        out[key] = decoded
                    else:
                        out.pop(key, None)
            except DecodeError as e:
                if e.context and not self.convert:
                    if e.struct is None:
                        e.struct = node.name
                    e.segments.append(field.segment)
                raise
        return out

    def list(self, node: Node, value: Any, path: str, into: Any) -> list[Any]:
        if type(value) is not list:
            raise self.mismatch(value, node, "slice")
        elem = node.elem
        assert elem is not None
        kind = elem.kind
        scalar = _SCALARS.get(kind)
        old = into if type(into) is list else None
        out: list[Any] = []
        for i, item in enumerate(value):
            if scalar is not None and type(item) is scalar:
                out.append(item)
            elif item is None:
                out.append(old[i] if old is not None and i < len(old) and kind not in (LIST, MAP) else _zero(elem))
            elif kind == STRUCT or kind == LIST or kind == MAP:
                before = old[i] if old is not None and i < len(old) else _NO
                out.append(self.value(elem, item, f"{path}[{i}]", before))
            else:
                out.append(self.scalar(elem, item))
        return out

    def map(self, node: Node, value: Any, path: str, into: Any) -> Obj:
        if type(value) is dict:
            members: Any = value.items()
            self.keys += len(value)
            repeats = False
        elif type(value) is _Pairs:
            members, repeats = value, True
            self.keys += len(value)
        else:
            raise self.mismatch(value, node, "map")
        elem = node.elem
        assert elem is not None
        kind = elem.kind
        scalar = _SCALARS.get(kind)
        out: Obj = into if type(into) is dict else {}
        named: set[str] = set()
        for key, item in members:
            if repeats:
                if key in named:
                    self.report(f'duplicate field "{path}.{key}"')
                named.add(key)
            if scalar is not None and type(item) is scalar:
                out[key] = item
            elif item is None:
                out[key] = _zero(elem)
            elif kind == STRUCT or kind == LIST or kind == MAP:
                # the converter names no map key in its paths; the JSON decoder does
                out[key] = self.value(elem, item, path if self.convert else f"{path}.{key}")
            else:
                out[key] = self.scalar(elem, item)
        return out

    def mismatch(self, value: Any, node: Node, what: str) -> DecodeError:
        if self.convert:
            text = f"cannot restore {what} from{':' if what == 'struct' else ''} {_reflect_kind(value)}"
            return DecodeError("", plain=text, context=False)
        return DecodeError(_json_kind(value), node.go)

    def scalar(self, node: Node, value: Any) -> Any:
        kind = node.kind
        convert = self.convert
        vtype = type(value)
        if kind == STRING or kind == BYTES:
            if vtype is str:
                return value
            if convert:
                if kind == STRING and vtype is int:
                    raise DecodeError("", plain=f"cannot convert int64 to {node.go}", context=False)
                if kind == BYTES:
                    raise DecodeError("", plain=f"cannot restore slice from {_reflect_kind(value)}", context=False)
                raise DecodeError("", plain="unrecognized type: string", context=False)
            raise DecodeError(_json_kind(value), node.go)
        if kind == BOOL:
            if vtype is bool:
                return value
            if convert:
                raise DecodeError("", plain="unrecognized type: bool", context=False)
            raise DecodeError(_json_kind(value), node.go)
        if kind == INT32 or kind == INT64:
            bound = _INT_RANGE[kind]
            if vtype is int and -bound <= value < bound:
                return value
            if convert:
                bits = "int32" if kind == INT32 else "int64"
                if vtype is int or (isinstance(value, float) and value == int(value)):
                    wrapped = (int(value) + bound) % (2 * bound) - bound  # reflect's Convert truncates
                    return wrapped
                if isinstance(value, float):
                    raise DecodeError("", plain=f"cannot convert float64 to {node.go}", context=False)
                raise DecodeError("", plain=f"unrecognized type: {bits}", context=False)
            if vtype is int or isinstance(value, float):
                raise DecodeError(_number(value), node.go)
            raise DecodeError(_json_kind(value), node.go)
        if kind == FLOAT:
            if (vtype is int or isinstance(value, float)) and vtype is not bool:
                return float(value) if vtype is _Num else value
            if convert:
                raise DecodeError("", plain="unrecognized type: float64", context=False)
            raise DecodeError(_json_kind(value), node.go)
        if kind == QUANTITY:
            if vtype is str:
                text = value.strip()
            elif (vtype is int or isinstance(value, float)) and vtype is not bool:
                return float(value) if vtype is _Num else value
            else:
                text = json.dumps(_plain(value), separators=(",", ":"))
            error = _quantity_error(text)
            if error:
                raise DecodeError("", plain=error, context=False)
            return value
        if kind == INT_OR_STRING:
            if vtype is str:
                return value
            if vtype is int and -(2**31) <= value < 2**31:
                return value
            if convert and isinstance(value, float) and value == int(value) and -(2**31) <= value < 2**31:
                return int(value)  # marshalled back without a fraction
            described = _number(value) if (vtype is int or isinstance(value, float)) and vtype is not bool \
                else _json_kind(value)
            # IntOrString.UnmarshalJSON decodes the number into its int32 on its own
            raise DecodeError(described, "int32", context=not convert)
        if kind == TIME or kind == MICRO_TIME:
            if vtype is not str:
                raise DecodeError(_json_kind(value), "string", context=not convert)
            try:
                return gotime.normalize(value, kind == MICRO_TIME)
            except gotime.TimeError as e:
                raise DecodeError("", plain=str(e), context=False) from None
        # opaque: RawExtension, FieldsV1, preserved or untyped fields
        self.keys += _count(value)
        return _plain(value)


def decode(node: Node, body: Any, *, raw: bytes | None = None, strict: bool = False) -> tuple[Obj, list[str]]:
    """Decode a JSON object into ``node`` as the real server's JSON decoder does: the object as
    Go would encode it back (unknown fields gone, nulls made zero values) and, with ``strict``,
    the strict decoding errors (unknown and duplicate fields) in document order. ``raw`` is the
    body's JSON text when there is one: it is needed to see repeated keys (and the text of a
    number in an error). :class:`DecodeError` for a value of the wrong type."""
    walker = _Walker(convert=False, strict=strict)
    try:
        out = walker.struct(node, body, "", _NO)
    except DecodeError:
        if raw is None:
            raise
        out, walker = _decode_raw(node, body, raw, strict)  # the error again, with the body's numbers
    if raw is not None and walker.keys != count_keys(raw) + _defaulted(body, raw):
        out, walker = _decode_raw(node, body, raw, strict)
    return out, walker.errors


_DEFAULTED = (("apiVersion", b'"apiVersion"'), ("kind", b'"kind"'))


def _defaulted(body: Any, raw: bytes) -> int:
    """How many of ``kind`` and ``apiVersion`` the body has and its text surely lacks (the JSON
    serializer defaults them from the URL before decoding)."""
    return sum(1 for key, quoted in _DEFAULTED if key in body and quoted not in raw) if type(body) is dict else 0


def _decode_raw(node: Node, body: Any, raw: bytes, strict: bool) -> tuple[Obj, _Walker]:
    """Decode the body's text itself (repeated keys kept, numbers with their text); the
    ``kind`` and ``apiVersion`` defaulted into ``body`` are kept."""
    parsed = loads_pairs(raw)
    if type(parsed) is dict and type(body) is dict:
        for key, _ in _DEFAULTED:
            if key in body and key not in parsed:
                parsed[key] = body[key]
    elif type(parsed) is _Pairs and type(body) is dict:
        present = {key for key, _ in parsed}
        parsed.extend((key, body[key]) for key, _ in _DEFAULTED if key in body and key not in present)
    walker = _Walker(convert=False, strict=strict)
    return walker.struct(node, parsed, "", _NO), walker


def convert(node: Node, obj: Obj, *, strict: bool = False, patch: Any = None) -> tuple[Obj, list[str]]:
    """Convert a map into ``node`` as ``FromUnstructuredWithValidation`` does (the result of a
    strategic merge patch): the object as it would be stored and, with ``strict``, the unknown
    fields, sorted. :class:`DecodeError` for a value the converter cannot convert.

    ``patch``, the strategic merge patch that made ``obj`` from a stored object, limits the work
    to what it reaches (its keys, and whole lists and maps it names): the rest is the stored
    object's, decoded when it was written, so converting it again finds nothing (a status patch
    then costs a few keys, not the whole pod)."""
    walker = _Walker(convert=True, strict=strict)
    out = walker.struct(node, obj, "", _NO, patch if type(patch) is dict else None)
    return out, sorted(walker.errors)
