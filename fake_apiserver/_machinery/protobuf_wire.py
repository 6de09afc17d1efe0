"""Reading protobuf messages of the Kubernetes API types into the JSON Go writes for them.

:mod:`~fake_apiserver._machinery.protobuf` reads the envelope and decides what a body is; this module reads
a message. The wire facts (field numbers, Go field names and types, which fields are pointers,
``omitempty``, inline structs) are data generated from the Go types of a release
(:func:`data_file`, written by ``tools/gen_protobuf_fields.py``); nothing here is copied from
``.proto`` files.

It is written by hand rather than with the ``protobuf`` package because what matters is what
gogo-protobuf's generated ``Unmarshal`` does, byte for byte, errors included: a wrong wire type is
``proto: wrong wireType = 0 for field ObjectMeta``, a field that runs past its message
``unexpected EOF``, a varint of more than ten bytes ``proto: integer overflow``; map entries are
read by field number alone, the fields of a message that comes twice are merged, unknown fields are
skipped (a group without its end is ``unexpected EOF``). The JSON is what ``encoding/json`` writes
from the decoded struct: an ``omitempty`` field at its zero value is left out, a pointer field
that was set is kept even at zero, a field without ``omitempty`` is kept (a nil slice or map as
``null``), map keys are sorted, ``[]byte`` is base64, and the types with their own ``MarshalJSON``
are written their way (``metav1.Time`` as RFC 3339 seconds or ``null``, ``MicroTime`` with
microseconds, ``Duration`` as Go's ``time.Duration.String()``, ``resource.Quantity`` as its string
once ``ParseQuantity`` accepts it, ``IntOrString`` as a number or a string, ``RawExtension``,
``FieldsV1`` and a CustomResourceDefinition schema's ``JSON`` as the JSON they hold, its
``JSONSchemaPropsOr*`` as the member that is set; the ``ExtraValue`` lists of the review and
certificate kinds, a message of one ``items`` field on the wire, as the bare list).

Reading is on the request path: the data is compiled once into slotted plans, a message is read
into a list of slots in one pass (one dict lookup by the whole tag per field, one-byte tags,
varints and lengths inline) and turned into JSON in a second.
"""

from __future__ import annotations

import base64
import functools
import json
import struct
from dataclasses import dataclass
from importlib import resources
from typing import Any

from fake_apiserver._machinery.jsonutil import go_syntax_error
from fake_apiserver._machinery.gotypes import facts_file
from fake_apiserver._machinery.quantity import FORMAT_ERROR, SUFFIX_ERROR
from fake_apiserver._machinery.schema import KUBERNETES_VERSION

__all__ = [
    "Message",
    "ProtobufError",
    "Tables",
    "data_file",
    "field_of_tag",
    "format_duration",
    "go_int32",
    "read_length",
    "read_message",
    "read_varint",
    "skip_field",
    "tables",
    "to_go_json",
]

Obj = dict[str, Any]


def data_file(release: str = KUBERNETES_VERSION) -> str:
    """The generated data a server of ``release`` (``1.37.0``) reads its wire facts from: that
    release's Go types (``protobuf-v1.37.json``), or the newest release's before it that the
    package ships (:func:`~fake_apiserver._machinery.gotypes.facts_file`). A field a later release adds is
    skipped as an unknown field, as a server of the earlier release skips it."""
    source = facts_file(release)
    if source is None:  # pragma: no cover - the package ships its data
        raise FileNotFoundError("fake_apiserver/data holds no protobuf-v<release>.json")
    return source.name

_EOF = "unexpected EOF"
_OVERFLOW = "proto: integer overflow"
_NEGATIVE_LENGTH = "proto: negative length found during unmarshaling"
_END_OF_GROUP = "proto: unexpected end of group"
_MASK64 = (1 << 64) - 1
_DOUBLE = struct.Struct("<d")


class ProtobufError(Exception):
    """What gogo-protobuf's ``Unmarshal`` (or a type's own decoder) returned, in its words."""


# ---------------------------------------------------------------------------- plans

# How one value is read: the Go kinds of the data file.
_STRING, _BYTES, _BOOL, _INT32, _INT64, _UINT32, _UINT64, _MESSAGE, _FLOAT64 = range(9)
_READERS = {"string": _STRING, "bytes": _BYTES, "bool": _BOOL, "int32": _INT32, "int64": _INT64,
            "uint32": _UINT32, "uint64": _UINT64, "float64": _FLOAT64}
_WIRES = {"varint": 0, "fixed64": 1, "bytes": 2, "fixed32": 5}
_DROP = object()  # an absent field that encoding/json leaves out
_ZERO_STRUCT = object()  # an absent non-pointer struct: its zero value's JSON, built fresh each time


class _Field:
    """One field of the data, compiled: how it is read and what its absence or zero value is in
    Go's JSON."""

    __slots__ = ("number", "slot", "name", "go_name", "wire", "reader", "message", "repeated", "map",
                 "key_reader", "value_reader", "value_message", "absent", "drop_falsy", "inline", "pointer")

    def __init__(self, raw: dict[str, Any], slot: int) -> None:
        self.number: int = raw["number"]
        self.slot = slot
        self.name: str = raw["name"]
        self.go_name: str = raw["go_name"]
        self.wire: int = _WIRES[raw["wire"]]
        self.repeated: bool = raw["repeated"]
        self.map: bool = raw["map"]
        self.pointer: bool = raw["pointer"]
        self.inline: bool = raw["inline"]
        self.reader = _MESSAGE
        self.message: Message | None = None
        self.key_reader = self.value_reader = _MESSAGE
        self.value_message: Message | None = None
        self.absent: Any = _DROP
        self.drop_falsy = False


class Message:
    """One message (a Go struct) of the data, compiled: its fields by number, the read ops by
    tag and the plan that turns its read slots into JSON."""

    __slots__ = ("name", "go_type", "go_name", "codec", "wire", "fields", "by_number", "size", "plan", "ops")

    def __init__(self, name: str, raw: dict[str, Any]) -> None:
        self.name = name
        self.go_type: str = raw["go_type"]
        self.go_name = self.go_type.rsplit(".", 1)[-1]
        self.codec: str | None = raw.get("codec")
        self.wire: Message = self  # Time and MicroTime are read as a Timestamp
        self.fields = [_Field(f, i) for i, f in enumerate(raw["fields"])]
        self.by_number = {f.number: f for f in self.fields}
        self.size = len(self.fields)
        # (slot, name, absent value or _DROP, drop when falsy, inline, shape, struct or map field)
        self.plan: list[tuple[int, str, Any, bool, bool, int, Any]] = []
        # what to do with a field, by its whole tag (number and wire type): (op, slot, argument)
        self.ops: dict[int, tuple[int, int, Any]] = {}

    def slot(self, number: int) -> int:
        return self.by_number[number].slot


# A codec type's JSON when the field is absent from the wire (a non-pointer field: Go's zero value).
_CODEC_ZERO: dict[str, Any] = {"time": None, "micro_time": None, "duration": "0s", "quantity": "0",
                               "int_or_string": 0, "raw_json": None, "items": None,
                               "schema_or_array": None, "schema_or_bool": False, "schema_or_strings": None}
_SCALAR_ZERO: dict[int, Any] = {_STRING: "", _BOOL: False, _INT32: 0, _INT64: 0, _UINT32: 0, _UINT64: 0,
                                 _FLOAT64: 0}


@dataclass(frozen=True)
class Tables:
    messages: dict[str, Message]
    kinds: dict[tuple[str, str, str], Message]


@functools.cache
def tables(release: str = KUBERNETES_VERSION) -> Tables:
    """The compiled wire facts a server of ``release`` decodes with (:func:`data_file`)."""
    return _tables(data_file(release))


@functools.cache
def _tables(name: str) -> Tables:
    with (resources.files("fake_apiserver") / "data" / name).open("rb") as f:
        data = json.load(f)
    raw_messages: dict[str, dict[str, Any]] = data["messages"]
    messages = {name: Message(name, raw) for name, raw in raw_messages.items()}
    for name, message in messages.items():
        raw = raw_messages[name]
        if "wire_as" in raw:
            message.wire = messages[raw["wire_as"]]
        for field, raw_field in zip(message.fields, raw["fields"]):
            _compile_field(field, raw_field, messages)
        message.plan = [(f.slot, f.name, f.absent, f.drop_falsy, f.inline, *_shape(f))
                        for f in message.fields if f.name or f.inline]
        message.ops = {tag: op for f in message.fields for tag, op in _ops(f)}
    kinds = {(k["group"], k["version"], k["kind"]): messages[k["message"]] for k in data["kinds"]}
    return Tables(messages, kinds)


def _compile_field(field: _Field, raw: dict[str, Any], messages: dict[str, Message]) -> None:
    if field.map:
        if "float64" in (raw["key"], raw["value"]):
            raise ValueError(f"{field.go_name}: a map of float64 is not read")
        field.key_reader = _READERS[raw["key"]]
        if raw["value"] in _READERS:
            field.value_reader = _READERS[raw["value"]]
        else:
            field.value_message = messages[raw["value"]]
    elif raw["elem"] in _READERS:
        field.reader = _READERS[raw["elem"]]
    else:
        field.message = messages[raw["elem"]]
    omitempty, omitzero = raw["omitempty"], raw["omitzero"]
    codec = field.message.codec if field.message is not None else None
    if omitzero and codec not in ("time", "micro_time"):
        raise ValueError(f"{field.go_name}: omitzero is only read on times (whose zero is null)")
    if field.pointer:
        field.absent = _DROP if omitempty else None
    elif field.repeated or field.map or field.reader == _BYTES:
        field.absent = _DROP if omitempty else None  # a nil slice or map
        field.drop_falsy = omitempty
    elif field.message is not None:  # a struct: omitempty does not apply, omitzero does
        field.absent = _DROP if omitzero else _CODEC_ZERO[codec] if codec else _ZERO_STRUCT
        field.drop_falsy = omitzero
    else:
        field.absent = _DROP if omitempty else _SCALAR_ZERO[field.reader]
        field.drop_falsy = omitempty

# How a read slot becomes JSON: as it is (scalars, lists of them, codec values), a struct, a list
# of structs, a map, base64 bytes.
_PLAIN, _STRUCT, _STRUCTS, _MAP, _BASE64 = range(5)


# How :func:`read_message` stores a field, chosen once per (field, wire type). It compares with
# the numbers themselves (constants, not global lookups, on the hot path): the length-delimited
# ops first, most frequent first, then the varint ones from 9 on.
(_OP_STRING, _OP_STRUCT, _OP_STRINGS, _OP_STRUCTS, _OP_MAP, _OP_CODEC, _OP_BYTES, _OP_CODECS, _OP_PACKED,
 _OP_VARINT, _OP_VARINTS, _OP_DOUBLE) = range(12)


def _ops(field: _Field) -> list[tuple[int, tuple[int, int, Any]]]:
    """The tags ``field`` is read under and what each does: its own wire type, and for a repeated
    varint also the packed (length-delimited) form gogo accepts."""
    tag = field.number << 3
    slot, reader, message = field.slot, field.reader, field.message
    if field.map:
        return [(tag | 2, (_OP_MAP, slot, field))]
    if reader == _STRING:
        return [(tag | 2, (_OP_STRINGS if field.repeated else _OP_STRING, slot, None))]
    if reader == _BYTES:
        return [(tag | 2, (_OP_BYTES, slot, None))]
    if reader == _FLOAT64:  # only JSONSchemaProps' maximum, minimum and multipleOf, never repeated
        if field.repeated:
            raise ValueError(f"{field.go_name}: a repeated float64 is not read")
        return [(tag | 1, (_OP_DOUBLE, slot, None))]
    if message is None:
        if field.repeated:
            return [(tag, (_OP_VARINTS, slot, reader)), (tag | 2, (_OP_PACKED, slot, reader))]
        return [(tag, (_OP_VARINT, slot, reader))]
    if message.codec is not None:
        return [(tag | 2, (_OP_CODECS if field.repeated else _OP_CODEC, slot, message))]
    return [(tag | 2, (_OP_STRUCTS if field.repeated else _OP_STRUCT, slot, message))]


def _shape(field: _Field) -> tuple[int, Any]:
    if field.map:
        return _MAP, field
    if field.message is not None and field.message.codec is None:
        return (_STRUCTS if field.repeated else _STRUCT), field.message
    return (_BASE64 if field.reader == _BYTES else _PLAIN), None


# ---------------------------------------------------------------------------- the wire


def read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """A varint as gogo reads it: at most ten bytes, the bits past 64 dropped."""
    result = shift = 0
    while True:
        if shift >= 64:
            raise ProtobufError(_OVERFLOW)
        if pos >= end:
            raise ProtobufError(_EOF)
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & _MASK64, pos
        shift += 7


def read_length(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """A length prefix and where its payload ends (``int`` in Go: negative is an error)."""
    b = data[pos] if pos < end else 0x80
    if b < 0x80:
        length, pos = b, pos + 1
    else:
        length, pos = read_varint(data, pos, end)
        if length >= 1 << 63:
            raise ProtobufError(_NEGATIVE_LENGTH)
    post = pos + length
    if post > end:
        raise ProtobufError(_EOF)
    return pos, post


def skip_field(data: bytes, pos: int, end: int) -> int:
    """``skipGenerated``: where the unknown field at ``pos`` ends."""
    depth = 0
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        wire = tag & 7
        if wire == 0:
            _, pos = read_varint(data, pos, end)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = read_varint(data, pos, end)
            if length >= 1 << 63:
                raise ProtobufError(_NEGATIVE_LENGTH)
            pos += length
        elif wire == 3:
            depth += 1
        elif wire == 4:
            if depth == 0:
                raise ProtobufError(_END_OF_GROUP)
            depth -= 1
        elif wire == 5:
            pos += 4
        else:
            raise ProtobufError(f"proto: illegal wireType {wire}")
        if depth == 0:
            if pos > end:
                raise ProtobufError(_EOF)
            return pos
    raise ProtobufError(_EOF)


def _scalar(reader: int, value: int) -> Any:
    """A varint as the Go field's type holds it (two's complement truncation, as Go's casts do)."""
    if reader == _BOOL:
        return value != 0
    if reader == _INT32:
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value >= 1 << 31 else value
    if reader == _INT64:
        return value - (1 << 64) if value >= 1 << 63 else value
    if reader == _UINT32:
        return value & 0xFFFFFFFF
    return value


def read_message(message: Message, data: bytes, pos: int, end: int, values: list[Any]) -> None:
    """Read the fields of ``message`` in ``data[pos:end]`` into ``values`` (one slot a field; a
    nested struct's slot holds its own list, merged into when the field comes again).

    The hot path: one dict lookup by the whole tag finds a known field with its expected wire
    type; one-byte tags and lengths are read inline. Anything else (an unknown field, a wrong
    wire type, an illegal tag) goes to :func:`_other_tag`."""
    ops = message.ops
    while pos < end:
        start = pos
        tag = data[pos]
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = read_varint(data, pos, end)
        found = ops.get(tag)
        if found is None:
            pos = _other_tag(message, data, start, end, tag)
            continue
        op, slot, arg = found
        if op >= 9:  # _OP_VARINT, _OP_VARINTS, _OP_DOUBLE
            if op == 11:  # _OP_DOUBLE: eight bytes, little-endian IEEE 754
                if pos + 8 > end:
                    raise ProtobufError(_EOF)
                values[slot] = _DOUBLE.unpack_from(data, pos)[0]
                pos += 8
                continue
            if pos >= end:
                raise ProtobufError(_EOF)
            value = data[pos]
            if value < 0x80:
                pos += 1
                if arg == 2:  # _BOOL
                    value = value != 0
            else:
                value, pos = read_varint(data, pos, end)
                value = _scalar(arg, value)
            if op == 9:
                values[slot] = value
            elif values[slot] is None:
                values[slot] = [value]
            else:
                values[slot].append(value)
            continue
        if pos >= end:
            raise ProtobufError(_EOF)
        length = data[pos]
        if length < 0x80:
            pos += 1
        else:
            length, pos = read_varint(data, pos, end)
            if length >= 1 << 63:
                raise ProtobufError(_NEGATIVE_LENGTH)
        post = pos + length
        if post > end:
            raise ProtobufError(_EOF)
        if op == 0:  # _OP_STRING
            values[slot] = data[pos:post].decode("utf-8", "replace")
        elif op == 1:  # _OP_STRUCT
            item = values[slot]
            if item is None:
                item = values[slot] = [None] * arg.size
            read_message(arg, data, pos, post, item)
        elif op == 2:  # _OP_STRINGS
            text = data[pos:post].decode("utf-8", "replace")
            if values[slot] is None:
                values[slot] = [text]
            else:
                values[slot].append(text)
        elif op == 3:  # _OP_STRUCTS
            item = [None] * arg.size
            read_message(arg, data, pos, post, item)
            if values[slot] is None:
                values[slot] = [item]
            else:
                values[slot].append(item)
        elif op == 4:  # _OP_MAP
            _read_entry(arg, data, pos, post, end, values)
        elif op == 5:  # _OP_CODEC
            values[slot] = _codec(arg, data, pos, post)
        elif op == 6:  # _OP_BYTES
            values[slot] = data[pos:post]
        elif op == 7:  # _OP_CODECS
            value = _codec(arg, data, pos, post)
            if values[slot] is None:
                values[slot] = [value]
            else:
                values[slot].append(value)
        else:  # _OP_PACKED
            items = values[slot] if values[slot] is not None else []
            while pos < post:
                value, pos = read_varint(data, pos, post)
                items.append(_scalar(arg, value))
            if items:
                values[slot] = items
        pos = post


def _other_tag(message: Message, data: bytes, start: int, end: int, tag: int) -> int:
    """A tag :func:`read_message` has no op for, as gogo's ``Unmarshal`` takes it: end group and illegal
    tags are errors, a known field with another wire type is ``wrong wireType``, an unknown field
    is skipped (from ``start``, where its tag begins); returns where the next field begins."""
    field = field_of_tag(message, tag)
    if field is not None:
        raise ProtobufError(f"proto: wrong wireType = {tag & 7} for field {field.go_name}")
    return skip_field(data, start, end)


def field_of_tag(message: Message, tag: int) -> _Field | None:
    """The field of ``message`` a tag names (None for a field it does not have), after gogo's
    checks: an end-group wire type and a tag whose number is not a positive int32 are errors."""
    number, wire = tag >> 3, tag & 7
    if wire == 4:
        raise ProtobufError(f"proto: {message.go_name}: wiretype end group for non-group")
    if number <= 0 or number >= 1 << 31:
        number = go_int32(number)
        if number <= 0:
            raise ProtobufError(f"proto: {message.go_name}: illegal tag {number} (wire type {tag})")
    return message.by_number.get(number)


def _read_entry(field: _Field, data: bytes, pos: int, post: int, end: int, values: list[Any]) -> None:
    """One map entry as gogo reads it: key 1, value 2, by field number alone (the wire type is not
    checked), lengths bounded by the enclosing message, other fields skipped."""
    key: Any = _SCALAR_ZERO.get(field.key_reader, "")
    value: Any = None
    while pos < post:
        start = pos
        tag = data[pos]
        if tag < 0x80:
            pos += 1
        else:
            tag, pos = read_varint(data, pos, end)
        number = tag >> 3
        if number == 1:
            key, pos = _entry_value(field.key_reader, None, data, pos, end)
        elif number == 2:
            value, pos = _entry_value(field.value_reader, field.value_message, data, pos, end)
        else:
            pos = skip_field(data, start, end)
            if pos > post:
                raise ProtobufError(_EOF)
    if value is None:  # the entry's value is what gogo starts from: ``&T{}``, read from no bytes
        message = field.value_message
        if message is not None:
            value = _codec(message, data, post, post) if message.codec else [None] * message.size
        else:
            value = b"" if field.value_reader == _BYTES else _SCALAR_ZERO[field.value_reader]
    entries = values[field.slot]
    if entries is None:
        values[field.slot] = {key: value}
    else:
        entries[key] = value


def _entry_value(reader: int, message: Message | None, data: bytes, pos: int, end: int) -> tuple[Any, int]:
    if reader in (_STRING, _BYTES, _MESSAGE):
        pos, post = read_length(data, pos, end)
        if message is not None:
            if message.codec is not None:
                return _codec(message, data, pos, post), post
            item: list[Any] = [None] * message.size
            read_message(message, data, pos, post, item)
            return item, post
        chunk = data[pos:post]
        return (chunk.decode("utf-8", "replace") if reader == _STRING else chunk), post
    value, pos = read_varint(data, pos, end)
    return _scalar(reader, value), pos


# ---------------------------------------------------------------------------- to JSON


def to_go_json(message: Message, values: list[Any]) -> Obj:
    """The JSON ``encoding/json`` writes for the struct read into ``values``."""
    out: Obj = {}
    for slot, name, absent, drop_falsy, inline, shape, sub in message.plan:
        value = values[slot]
        if value is None:
            if absent is _DROP:
                continue
            value = to_go_json(sub, [None] * sub.size) if absent is _ZERO_STRUCT else absent
        else:
            if shape == _STRUCT:
                value = to_go_json(sub, value)
            elif shape == _STRUCTS:
                value = [to_go_json(sub, item) for item in value]
            elif shape == _MAP:
                value = _finish_map(sub, value)
            elif shape == _BASE64:
                value = base64.b64encode(value).decode("ascii")
            if drop_falsy and not value:
                continue
        if inline:
            out.update(value)
        else:
            out[name] = value
    return out


def _finish_map(field: _Field, entries: dict[Any, Any]) -> Obj:
    message = field.value_message
    out: Obj = {}
    for key in sorted(entries):
        value = entries[key]
        if message is not None and message.codec is None:
            value = to_go_json(message, value)
        elif type(value) is bytes:
            value = base64.b64encode(value).decode("ascii")
        out[key if type(key) is str else str(key)] = value
    return out


# ---------------------------------------------------------------------------- codecs


def _codec(message: Message, data: bytes, pos: int, end: int) -> Any:
    """The JSON of a type with its own ``MarshalJSON`` (read whole: a second occurrence replaces
    the first, as the custom ``Unmarshal`` methods do)."""
    codec = message.codec
    wire = message.wire
    values: list[Any] = [None] * wire.size
    if codec in ("time", "micro_time"):
        if pos == end:  # Time.Unmarshal: no bytes is the zero time
            return None
        read_message(wire, data, pos, end, values)
        seconds, nanos = values[wire.slot(1)] or 0, values[wire.slot(2)] or 0
        return _format_time(seconds, nanos if codec == "micro_time" else None)
    read_message(wire, data, pos, end, values)
    if codec == "quantity":
        text = values[wire.slot(1)]
        if text is None:
            return "0"
        error = _quantity_error(text)
        if error:
            raise ProtobufError(error)
        return text
    if codec == "duration":
        return format_duration(values[wire.slot(1)] or 0)
    if codec == "int_or_string":
        if values[wire.slot(1)] == 1:
            return values[wire.slot(3)] or ""
        return values[wire.slot(2)] or 0
    if codec == "items":  # ExtraValue: a list wrapped in a message on the wire, bare in JSON; gogo
        return values[wire.slot(1)] or []  # reads a map's value into ``&ExtraValue{}``, empty, not nil
    if codec is not None and codec.startswith("schema_or_"):
        return _schema_either(wire, values, codec)
    raw = values[wire.slot(1)]  # raw_json: RawExtension, FieldsV1
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        error = go_syntax_error(raw) or "invalid JSON"
        raise ProtobufError(f"json: error calling MarshalJSON for type {message.go_type}: {error}") from None


def _schema_either(wire: Message, values: list[Any], codec: str) -> Any:
    """The JSON of a CustomResourceDefinition schema's "either" type: the member that is set, with
    the precedence its ``MarshalJSON`` gives (a non-empty list first, then the schema; else the
    bool of ``JSONSchemaPropsOrBool`` or null)."""
    by_name = {f.go_name: f for f in wire.fields}
    schema_field = by_name["Schema"]
    listed = by_name["JSONSchemas" if codec == "schema_or_array" else "Property"] if codec != "schema_or_bool" else None
    if listed is not None and values[listed.slot]:
        items = values[listed.slot]
        return [to_go_json(listed.message, item) for item in items] if listed.message is not None else items
    schema = values[schema_field.slot]
    if schema is not None:
        assert schema_field.message is not None
        return to_go_json(schema_field.message, schema)
    if codec == "schema_or_bool":
        return bool(values[by_name["Allows"].slot])
    return None


_EPOCH_DAYS = 719468  # days from 0000-03-01 to 1970-01-01 (civil calendar arithmetic)
_ZERO_TIME = -62135596800  # time.Time{}: 0001-01-01T00:00:00Z, which MarshalJSON writes as null


def _format_time(seconds: int, nanos: int | None) -> str | None:
    """``metav1.Time`` (RFC 3339, whole seconds: its Unmarshal drops nanos; ``nanos`` None) or
    ``MicroTime`` (nanos truncated to microseconds toward zero, then ``time.Unix`` normalizes them
    into [0, 1s)) in UTC; the zero time is ``null``."""
    micros = None
    if nanos is not None:
        truncated = (abs(nanos) // 1000 * 1000) * (1 if nanos >= 0 else -1)
        seconds += truncated // 1_000_000_000
        micros = truncated % 1_000_000_000 // 1000
    if seconds == _ZERO_TIME and not micros:
        return None
    days, rest = divmod(seconds, 86400)
    era, doe = divmod(days + _EPOCH_DAYS, 146097)
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    year_text = f"{year:04d}" if year >= 0 else f"-{-year:04d}"
    fraction = "" if micros is None else f".{micros:06d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{fraction}Z"


def format_duration(nanos: int) -> str:
    """Go's ``time.Duration.String()``: ``1h2m3.5s``, ``1.5ms``, ``0s``."""
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    u = -nanos if nanos < 0 else nanos
    if u < 1_000_000_000:
        for unit, scale in (("ns", 1), ("µs", 1_000), ("ms", 1_000_000)):
            if u < scale * 1000:
                return sign + _fraction(u, scale) + unit
    seconds = _fraction(u % 60_000_000_000, 1_000_000_000) + "s"
    minutes_total = u // 60_000_000_000
    if minutes_total == 0:
        return sign + seconds
    hours, minutes = divmod(minutes_total, 60)
    return sign + (f"{hours}h" if hours else "") + f"{minutes}m" + seconds


def _fraction(value: int, scale: int) -> str:
    whole, part = divmod(value, scale)
    if not part:
        return str(whole)
    digits = len(str(scale)) - 1
    return f"{whole}." + f"{part:0{digits}d}".rstrip("0")


_SUFFIXES = frozenset(["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])


def _quantity_error(text: str) -> str | None:
    """``resource.ParseQuantity``'s error for ``text`` (``parseQuantityString``, then the suffix
    lookup), which ``Quantity.Unmarshal`` returns; None when it parses."""
    if not text:
        return FORMAT_ERROR
    pos, end = 0, len(text)
    if text[0] in "+-":
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    while pos < end and "0" <= text[pos] <= "9":
        pos += 1
    if pos < end and text[pos] == ".":
        pos += 1
        while pos < end and "0" <= text[pos] <= "9":
            pos += 1
    suffix_start = pos
    while pos < end and text[pos] in "eEinumkKMGTP":
        pos += 1
    if pos < end:
        if text[pos] in "+-":
            pos += 1
        while pos < end and "0" <= text[pos] <= "9":
            pos += 1
        if pos < end:
            return FORMAT_ERROR
    suffix = text[suffix_start:]
    if suffix in _SUFFIXES or (len(suffix) > 1 and suffix[0] in "eE" and _go_int(suffix[1:])):
        return None
    return SUFFIX_ERROR


def _go_int(text: str) -> bool:
    """``strconv.ParseInt(text, 10, 64)`` succeeds."""
    body = text[1:] if text[:1] in "+-" else text
    return body.isascii() and body.isdigit() and -(1 << 63) <= int(text) < 1 << 63

def go_int32(number: int) -> int:
    """``int32(wire >> 3)``: how gogo prints a field number in an illegal-tag error."""
    number &= 0xFFFFFFFF
    return number - (1 << 32) if number >= 1 << 31 else number
