"""Typed decoding: what decoding a body into the kind's Go type keeps, drops and refuses.

The real server decodes every body it writes (create, update, the result of every patch) into
the kind's Go struct and encodes that struct for storage. So a field the type lacks is dropped
(and reported under ``fieldValidation``), a field of the wrong JSON type is refused with the Go
decoder's text, and a ``null`` becomes Go's zero value. This module is the decoder of the Go types
of :mod:`~fake_apiserver._machinery.gotypes` (a kind's :class:`~.gotypes.TypeNode` tree, which
:func:`~.gotypes.kind_node` gives, compiled once per kind), in two flavours that word their errors
differently:

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

Every null, empty value and repeated key is turned into what Go's decoding and encoding would make
of it; a quantity's text as ``Quantity`` reads and writes it
(:func:`~fake_apiserver._machinery.quantity.unmarshal`). The policy around the decoder (Strict,
Warn, Ignore) is :mod:`~fake_apiserver._machinery.fieldvalidation`'s. Which type model serves which
purpose: :mod:`fake_apiserver._machinery` (its docstring).

Trade-offs: the first decoding error in document order is the one reported (Go reports a later
error of a type with its own ``UnmarshalJSON``, such as a bad quantity, over an earlier plain
one); a nil slice, map or pointer is left out even where Go, lacking ``omitempty``, writes
``null``; ``[]byte`` strings are checked as base64 only when decoding
(:func:`base64_error_offset`), not after a strategic merge; a kind the Go facts lack takes
``omitempty`` from the schema's ``required``; quantities are written back as
``Quantity.MarshalJSON`` writes them, without Go's rounding below one nano (and without the milli
rounding that ``ResourceList`` defaulting adds).
"""

from __future__ import annotations

import base64
import functools
import json
from typing import Any

import orjson

from fake_apiserver._machinery import gotime
from fake_apiserver._machinery.jsonutil import go_json_type, json_copy
from fake_apiserver._machinery.quantity import unmarshal as unmarshal_quantity
from fake_apiserver._machinery.gotypes import (
    BOOL,
    BYTES,
    FLOAT,
    INT32,
    INT64,
    INT_OR_STRING,
    LIST,
    MAP,
    MICRO_TIME,
    STRING,
    STRUCT,
    TIME,
    QUANTITY,
    DROP,
    PLAIN,
    TypeNode,
    go_written,
    zero_value,
)

__all__ = [
    "DecodeError",
    "Number",
    "convert",
    "count_keys",
    "count_members",
    "decode",
    "loads_pairs",
    "repeated_keys",
]

Obj = dict[str, Any]

_INT_RANGE = {INT32: 2**31, INT64: 2**63}
_MAX_STRICT_ERRORS = 100  # sigs.k8s.io/json keeps at most this many


# ---------------------------------------------------------------------------------- errors


_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def base64_error_offset(text: str) -> int | None:
    """Where Go's ``base64.StdEncoding.DecodeString`` fails on ``text`` (its
    ``CorruptInputError``), or None when it decodes: the decoder reads quanta of four characters,
    skipping line breaks, and reports the offset of a bad character, of a misplaced ``=``, of the
    start of an incomplete last quantum, or of anything after the padding."""
    data = text.encode("utf-8")
    n, si = len(data), 0
    newline = (0x0A, 0x0D)
    while True:
        for j in range(4):
            while si < n and data[si] in newline:
                si += 1
            if si == n:
                return None if j == 0 else si - j
            char = data[si]
            si += 1
            if char < 0x80 and chr(char) in _BASE64:
                continue
            if char != ord("="):
                return si - 1
            if j in (0, 1):
                return si - 1
            if j == 2:  # a second "=" must follow
                while si < n and data[si] in newline:
                    si += 1
                if si == n:
                    return n
                if data[si] != ord("="):
                    return si - 1
                si += 1
            while si < n and data[si] in newline:
                si += 1
            return si if si < n else None


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
    return go_json_type(value, _Pairs)


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
    count = 0
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            count += len(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return count


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
    def value(self, node: TypeNode, value: Any, path: str, into: Any = _NO) -> Any:
        kind = node.kind
        if kind == STRUCT:
            return self.struct(node, value, path, into)
        if kind == LIST:
            return self.list(node, value, path, into)
        if kind == MAP:
            return self.map(node, value, path, into)
        return self.scalar(node, value)

    def members(self, value: Any, node: TypeNode, what: str) -> tuple[Any, bool]:
        """A JSON object's members and whether keys may repeat in them (a body read as key pairs),
        counted; a value of another type is the decoder's mismatch for a ``what``."""
        if type(value) is dict:
            self.keys += len(value)
            return value.items(), False
        if type(value) is _Pairs:
            self.keys += len(value)
            return value, True
        raise self.mismatch(value, node, what)

    def struct(self, node: TypeNode, value: Any, path: str, into: Any, patch: Any = None) -> Obj:
        """A struct; ``patch`` (a strategic merge patch's map at this place) limits the walk to
        the keys it names: the others are the stored object's, already decoded."""
        if type(patch) is dict and "$patch" in patch:
            patch = None  # replaced whole: every key is the patch's
        members, repeats = self.members(value, node, "struct")
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
                if null is DROP:
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

    def list(self, node: TypeNode, value: Any, path: str, into: Any) -> list[Any]:
        if type(value) is not list:
            raise self.mismatch(value, node, "slice")
        elem = node.elem
        assert elem is not None
        kind = elem.kind
        scalar = PLAIN.get(kind)
        old = into if type(into) is list else None
        out: list[Any] = []
        for i, item in enumerate(value):
            if scalar is not None and type(item) is scalar:
                out.append(item)
            elif item is None:
                out.append(old[i] if old is not None and i < len(old) and kind not in (LIST, MAP) else zero_value(elem))
            elif kind == STRUCT or kind == LIST or kind == MAP:
                before = old[i] if old is not None and i < len(old) else _NO
                out.append(self.value(elem, item, f"{path}[{i}]", before))
            else:
                out.append(self.scalar(elem, item))
        return out

    def map(self, node: TypeNode, value: Any, path: str, into: Any) -> Obj:
        members, repeats = self.members(value, node, "map")
        elem = node.elem
        assert elem is not None
        kind = elem.kind
        scalar = PLAIN.get(kind)
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
                out[key] = zero_value(elem)
            elif kind == STRUCT or kind == LIST or kind == MAP:
                # the converter names no map key in its paths; the JSON decoder does
                out[key] = self.value(elem, item, path if self.convert else f"{path}.{key}")
            else:
                out[key] = self.scalar(elem, item)
        return out

    def mismatch(self, value: Any, node: TypeNode, what: str) -> DecodeError:
        if self.convert:
            text = f"cannot restore {what} from{':' if what == 'struct' else ''} {_reflect_kind(value)}"
            return DecodeError("", plain=text, context=False)
        return DecodeError(_json_kind(value), node.go)

    def scalar(self, node: TypeNode, value: Any) -> Any:
        kind = node.kind
        convert = self.convert
        vtype = type(value)
        if kind == STRING or kind == BYTES:
            if vtype is str:
                if kind == BYTES and not convert:
                    bad = base64_error_offset(value)
                    if bad is not None:
                        raise DecodeError("", plain=f"illegal base64 data at input byte {bad}", context=False)
                    return base64.b64encode(base64.b64decode(value)).decode()  # stored as Go encodes the bytes
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
            elif vtype is _Num:
                text = value.text
            elif vtype is int:
                text = str(value)
            elif vtype is float:
                text = _go_float_json(value)
            else:
                text = json.dumps(_plain(value), separators=(",", ":"))
            error, canonical = unmarshal_quantity(text)
            if error:
                raise DecodeError("", plain=error, context=False)
            return canonical
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


def decode(node: TypeNode, body: Any, *, raw: bytes | None = None, strict: bool = False,
           patch: Any = None, written: bool = False) -> tuple[Obj, list[str]]:
    """Decode a JSON object into ``node`` as the real server's JSON decoder does: the object as
    Go would encode it back (unknown fields gone, nulls made zero values) and, with ``strict``,
    the strict decoding errors (unknown and duplicate fields) in document order. ``raw`` is the
    body's JSON text when there is one: it is needed to see repeated keys (and the text of a
    number in an error). :class:`DecodeError` for a value of the wrong type. ``patch`` (the merge
    patch that made ``body`` from a stored object) limits the walk as for :func:`convert`.
    ``written``: the object with what Go's encoder writes of the fields it leaves unset too
    (:func:`~fake_apiserver._machinery.gotypes.go_written`), done once for the bodies of one
    template."""
    named = _named(node, body, strict, written) if patch is None else None
    if named is not None:
        slot, name = named
        if slot and slot[0] is not None:
            decoded, errors, keys = slot[0]
            if raw is None or keys == count_keys(raw) + _defaulted(body, raw):
                out = orjson.loads(decoded) if type(decoded) is bytes else json_copy(decoded)
                out["metadata"]["name"] = name
                return out, list(errors)
    walker = _Walker(convert=False, strict=strict)
    try:
        out = walker.struct(node, body, "", _NO, patch if raw is None and type(patch) is dict else None)
    except DecodeError:
        if raw is None:
            raise
        out, walker = _decode_raw(node, body, raw, strict)  # the error again, with the body's numbers
        named = None
    if raw is not None and walker.keys != count_keys(raw) + _defaulted(body, raw):
        out, walker = _decode_raw(node, body, raw, strict)
        named = None
    if written:
        go_written(out, node)
    if named is not None:
        slot = named[0]
        if not slot:
            slot.append(None)  # seen once: kept from the second time on
        elif slot[0] is None:
            slot[0] = (_kept(out), list(walker.errors), walker.keys)
    return out, walker.errors


def _named(node: TypeNode, body: Any, strict: bool, written: bool) -> tuple[list[Any], str] | None:
    """The memo slot of a body's template (the body with its ``metadata.name`` made one) and the
    body's name; None for a body without a name, or that orjson does not write."""
    meta = body.get("metadata") if type(body) is dict else None
    if type(meta) is not dict:
        return None
    name = meta.get("name")
    if type(name) is not str or not name:
        return None
    try:
        template = orjson.dumps({**body, "metadata": {**meta, "name": "-"}})
    except TypeError:  # orjson.JSONEncodeError
        return None
    return _decoded_template(node, strict, written, template), name


def _kept(decoded: Obj) -> Obj | bytes:
    """A decoding to hand out copies of: its JSON text, which orjson parses into a copy faster
    than the object is copied, when the text parses back into the same object (no integer past
    64 bits, no NaN); else a copy."""
    try:
        text = orjson.dumps(decoded)
    except TypeError:  # orjson.JSONEncodeError
        return json_copy(decoded)
    return text if orjson.loads(text) == decoded else json_copy(decoded)


@functools.lru_cache(maxsize=256)
def _decoded_template(node: TypeNode, strict: bool, written: bool, template: bytes) -> list[Any]:
    """The decoding of the bodies of one template (a workload's pods, a benchmark's): a name is a
    string the decoder keeps as it is, so the bodies that differ in it alone decode alike but
    for it. Empty the first time a template is seen, a mark the second, then what the decoder
    gave: the object (:func:`_kept`, handed out as copies), its strict errors and the members it read,
    which a body's text must hold as many of (else it repeats a key, and goes the long way)."""
    return []


_DEFAULTED = (("apiVersion", b'"apiVersion"'), ("kind", b'"kind"'))


def _defaulted(body: Any, raw: bytes) -> int:
    """How many of ``kind`` and ``apiVersion`` the body has and its text surely lacks (the JSON
    serializer defaults them from the URL before decoding)."""
    return sum(1 for key, quoted in _DEFAULTED if key in body and quoted not in raw) if type(body) is dict else 0


def _decode_raw(node: TypeNode, body: Any, raw: bytes, strict: bool) -> tuple[Obj, _Walker]:
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


def convert(node: TypeNode, obj: Obj, *, strict: bool = False, patch: Any = None) -> tuple[Obj, list[str]]:
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
