"""Copying JSON-shaped data, and naming a JSON value's type as Go's decoder does.

Objects in the store are plain JSON values (dicts, lists, strings, numbers, booleans, None), so
a copy needs none of ``copy.deepcopy``'s generality (memo, reducers, cycles); this recursive copy
is several times faster, and copies are on every write path. Each container is copied shallowly in
C (``dict.copy``, ``list.copy``) and only its nested containers are replaced, which calls no
function for the scalars that make up most of an object (a third faster than a comprehension).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps", "go_json_type", "json_copy"]

_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, non-ASCII text as UTF-8 (as Go's ``encoding/json`` writes it): from
    ``orjson``, which writes an object a response or watch event carries an order of magnitude
    faster than the standard library; a value it refuses (an integer beyond 64 bits, which only
    a schema-less field can hold) goes through ``json`` instead."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value."""
    if type(value) is dict:
        return _copy_dict(value)
    if type(value) is list:
        return _copy_list(value)
    return value


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
