"""Copying JSON-shaped data, naming a JSON value's type as Go's decoder does, and Go's JSON syntax errors.

Objects in the store are plain JSON values (dicts, lists, strings, numbers, booleans, None), so
a copy needs none of ``copy.deepcopy``'s generality (memo, reducers, cycles); this recursive copy
is several times faster, and copies are on every write path. Each container is copied shallowly in
C (``dict.copy``, ``list.copy``) and only its nested containers are replaced, which calls no
function for the scalars that make up most of an object (a third faster than a comprehension).

Go's JSON errors are reproduced, not Python's: :func:`go_syntax_error` replays the checks of
``encoding/json``'s scanner, so ``{"a":}`` reads ``invalid character '}' looking for beginning of
value`` as it would from a real server.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, Callable, Generic, TypeVar

import orjson

__all__ = ["ByIdentity", "copy_stored", "dumps", "go_json_type", "go_syntax_error", "in_order", "json_copy", "loads"]

_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, non-ASCII text as UTF-8 (as Go's ``encoding/json`` writes it): from
    ``orjson``, which writes an object a response or watch event carries an order of magnitude
    faster than the standard library; a value it refuses (an integer beyond 64 bits, which only
    a schema-less field can hold) goes through ``json`` instead."""
    try:
        return orjson.dumps(value)  # string keys, as every object has: twice as fast as with the option
    except TypeError:  # orjson.JSONEncodeError
        pass
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


# Twenty ASCII digits in a row, found as twenty "1"s in the body with each digit made "1" and every
# other byte "0": two C passes, several times faster than a regular expression's search.
_DIGITS_AS_ONES = bytes(0x31 if 0x30 <= b <= 0x39 else 0x30 for b in range(256))
_TWENTY_DIGITS = b"1" * 20


def loads(data: bytes, fallback: Callable[[bytes], Any] = json.loads) -> Any:
    """JSON bytes parsed by orjson, several times faster than the standard library, where it reads
    them the same: not a body with a 20-digit number (orjson reads an integer past 64 bits as a
    float), nor one orjson refuses (a lone surrogate's escape, or an error), which ``fallback``
    reads (or refuses with its ``ValueError``)."""
    if _TWENTY_DIGITS not in data.translate(_DIGITS_AS_ONES):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return fallback(data)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value."""
    if type(value) is dict:
        return _copy_dict(value)
    if type(value) is list:
        return _copy_list(value)
    return value


def copy_stored(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of a stored object to change and store again, whose ``metadata.managedFields``
    entries are shared rather than copied: the fake never changes an entry in place (the field
    manager writes new ones), and their ``fieldsV1`` trees are most of a pod's maps, so a write
    that carries them over unchanged (a binding, a delete that marks) need not copy them."""
    meta = obj.get("metadata")
    if type(meta) is not dict or type(meta.get("managedFields")) is not list:
        return _copy_dict(obj)
    out = {k: meta if k == "metadata" else json_copy(v) for k, v in obj.items()}  # metadata: in its place
    out["metadata"] = {k: v.copy() if k == "managedFields" else json_copy(v) for k, v in meta.items()}
    return out


def _copy_dict(d: dict[str, Any]) -> dict[str, Any]:
    out = d.copy()
    for k, v in d.items():
        t = type(v)
        if t is dict:
            out[k] = _copy_dict(v)
        elif t is list:
            out[k] = _copy_list(v)
    return out


def _copy_list(items: list[Any]) -> list[Any]:
    out = items.copy()
    for i, v in enumerate(items):
        t = type(v)
        if t is dict:
            out[i] = _copy_dict(v)
        elif t is list:
            out[i] = _copy_list(v)
    return out


def go_json_type(value: Any, objects: type | tuple[type, ...] = ()) -> str:
    """The JSON type name that ``encoding/json`` puts in an ``UnmarshalTypeError``; ``objects``
    names the types besides ``dict`` that stand for a JSON object (a decoder's key-pair lists)."""
    if isinstance(value, dict) or (objects and isinstance(value, objects)):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "bool" if isinstance(value, bool) else "number"


_WHITESPACE = b" \t\r\n"


_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}


_ESCAPES = b'"\\/bfnrt'


_HEX = b"0123456789abcdefABCDEF"


_DIGITS = b"0123456789"


_MAX_DEPTH = 10000  # encoding/json maxNestingDepth


_EOF = "unexpected end of JSON input"


def _quote_char(byte: int) -> str:
    """encoding/json quoteChar."""
    if byte == ord("'"):
        return "'\\''"
    if byte == ord('"'):
        return "'\"'"
    char = chr(byte)
    if char == "\\":
        return "'\\\\'"
    if char.isprintable():
        return f"'{char}'"
    named = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
    if byte in named:
        return f"'{named[byte]}'"
    return f"'\\x{byte:02x}'" if byte < 0x80 else f"'\\u{byte:04x}'"


def go_syntax_error(data: bytes) -> str | None:
    """encoding/json ``checkValid``: the scanner's message for the first bad byte, or None.

    At the end of input the scanner is fed one space, so a half-read literal or number fails on
    ``' '`` while an open string, array or object is ``unexpected end of JSON input``.
    """
    size = len(data)
    stack: list[str] = []  # "key" (reading an object key), "value" (an object value), "array"
    expecting = "value"  # or "key", or "end" (a value has just ended)
    i = 0

    def at(j: int) -> int:
        return data[j] if j < size else 0x20

    def bad(j: int, context: str) -> str:
        return f"invalid character {_quote_char(at(j))} {context}"

    while True:
        while i < size and data[i] in _WHITESPACE:
            i += 1
        if i >= size:
            return None if expecting == "end" and not stack else _EOF
        byte = data[i]
        if expecting == "end":
            if not stack:
                return bad(i, "after top-level value")
            top = stack[-1]
            if top == "key" and byte == ord(":"):
                stack[-1], expecting = "value", "value"
            elif top == "value" and byte == ord(","):
                stack[-1], expecting = "key", "key"
            elif top == "array" and byte == ord(","):
                expecting = "value"
            elif (top, byte) in (("value", ord("}")), ("array", ord("]"))):
                stack.pop()
            else:
                context = {"key": "after object key", "value": "after object key:value pair"}
                return bad(i, context.get(top, "after array element"))
            i += 1
            continue
        if expecting == "key" and byte != ord('"'):
            return bad(i, "looking for beginning of object key string")
        if byte in b"{[":
            stack.append("key" if byte == ord("{") else "array")
            if len(stack) > _MAX_DEPTH:
                return bad(i, "exceeded max depth")
            i += 1
            while i < size and data[i] in _WHITESPACE:
                i += 1
            if i < size and data[i] == (ord("}") if byte == ord("{") else ord("]")):
                stack.pop()
                i, expecting = i + 1, "end"
            else:
                expecting = "key" if byte == ord("{") else "value"
            continue
        if byte == ord('"'):
            i += 1
            while True:
                if i >= size:
                    return _EOF
                char = data[i]
                if char == ord('"'):
                    break
                if char == ord("\\"):
                    i += 1
                    if at(i) == ord("u"):
                        for j in range(i + 1, i + 5):
                            if at(j) not in _HEX:
                                return bad(j, "in \\u hexadecimal character escape")
                        i += 4
                    elif at(i) not in _ESCAPES:
                        return bad(i, "in string escape code")
                elif char < 0x20:
                    return bad(i, "in string literal")
                i += 1
        elif byte == ord("-") or byte in _DIGITS:
            if byte == ord("-"):
                i += 1
                if at(i) not in _DIGITS:
                    return bad(i, "in numeric literal")
            if at(i) == ord("0"):
                i += 1
            else:
                while at(i) in _DIGITS:
                    i += 1
            if at(i) == ord("."):
                i += 1
                if at(i) not in _DIGITS:
                    return bad(i, "after decimal point in numeric literal")
                while at(i) in _DIGITS:
                    i += 1
            if at(i) in b"eE":
                i += 1
                if at(i) in b"+-":
                    i += 1
                if at(i) not in _DIGITS:
                    return bad(i, "in exponent of numeric literal")
                while at(i) in _DIGITS:
                    i += 1
            i -= 1
        elif byte in _LITERALS:
            word = _LITERALS[byte]
            for k in range(1, len(word)):
                if at(i + k) != word[k]:
                    return bad(i + k, f"in literal {word.decode()} (expecting {_quote_char(word[k])})")
            i += len(word) - 1
        else:
            return bad(i, "looking for beginning of value")
        i, expecting = i + 1, "end"


_POSITIONS: dict[tuple[str, ...], dict[str, int]] = {}  # in_order's: each order's keys by position


def in_order(obj: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """``obj`` with the keys of ``order`` first, in that order, then the rest as they were: the
    field order of a Go struct, as the real server encodes it. ``obj`` itself when its keys are
    in that order already (an update of a stored object, which is)."""
    positions = _POSITIONS.get(order)
    if positions is None:
        positions = _POSITIONS[order] = {k: i for i, k in enumerate(order)}
    rest = len(order)
    last = 0
    for k in obj:
        at = positions.get(k, rest)
        if at < last:
            break
        last = at
    else:
        return obj
    out = {k: obj[k] for k in order if k in obj}
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out


T = TypeVar("T")


class ByIdentity(Generic[T]):
    """Values kept for objects by identity, at most ``size`` of them (the oldest leave first). An
    entry holds its object, so the object's id names no other while the entry is kept. For objects
    never changed in place: stored objects, and what is made to be stored.

    The oldest entry is found in a queue of the keys, in the order they came: a dict that loses
    its first key again and again keeps the holes they leave until it is resized, and finding its
    first key walks over them (a few microseconds a write with 4,096 entries)."""

    __slots__ = ("size", "_kept", "_order")

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: dict[int, tuple[Any, T]] = {}
        self._order: deque[int] = deque()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, obj: Any) -> T | None:
        kept = self._kept.get(id(obj))
        return kept[1] if kept is not None and kept[0] is obj else None

    def put(self, obj: Any, value: T) -> None:
        kept = self._kept
        key = id(obj)
        if key not in kept:
            if len(kept) >= self.size:
                del kept[self._order.popleft()]  # the oldest
            self._order.append(key)
        kept[key] = (obj, value)
