"""YAML bodies read as the real server reads them: ``sigs.k8s.io/yaml`` over go-yaml v2.

PyYAML and go-yaml both follow YAML 1.1, but they resolve plain (unquoted) scalars differently,
and a body's meaning depends on it: ``nodeName: n`` is the bool ``false`` to go-yaml (so the
server answers "cannot unmarshal bool into ... of type string") and the string ``"n"`` to
PyYAML. This loader resolves plain scalars by go-yaml v2's rules (``resolve.go``):

* a table of words: ``y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON`` and the ``n``/``no``/``false``/
  ``off`` family are bools, ``~|null|Null|NULL`` and the empty scalar null, ``.inf``/``.nan``
  and their signed and capitalised forms floats;
* a scalar starting with a digit or a sign: an integer as ``strconv.ParseInt(s, 0, 64)`` reads
  it after dropping ``_`` (``0x``/``0o``/``0b`` prefixes, a leading ``0`` for octal), else an
  unsigned one, else a float if it has the YAML float shape (``1e3`` is one), else a ``0b`` binary;
  a timestamp stays the string it was (go-yaml hands a timestamp to an ``interface{}`` as text);
* a scalar starting with ``.`` that ``strconv.ParseFloat`` reads;
* anything else a string (no sexagesimal numbers, which PyYAML reads as base-60 integers).

Explicit tags (``!!str``, ``!!int``) and quoted scalars keep PyYAML's reading.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

__all__ = ["load", "unsupported_value"]

_WORDS: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_GO_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)")
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+\.?[0-9]*)([eE][-+]?[0-9]+)?|[-+]?0[xX][0-9a-fA-F.]+[pP][-+]?[0-9]+")
_INT64 = range(-(1 << 63), 1 << 63)
_UINT64 = range(0, 1 << 64)
_TAG = "tag:schedharness,go-yaml-v2:plain"
_NO_VALUE = object()


def _parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)`` (or ``ParseUint``): None where Go refuses it."""
    if not _GO_INT.fullmatch(text):
        return None
    sign = -1 if text[0] == "-" else 1
    digits = text.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits[1] in "0123456789oO":
        value = sign * int(digits.lstrip("0oO") or "0", 8)
    else:
        value = sign * int(digits, 0)
    return value if value in _INT64 or value in _UINT64 else None


def _go_float(text: str) -> float | None:
    """``strconv.ParseFloat(text, 64)`` on the forms a YAML body uses."""
    if not _GO_FLOAT.fullmatch(text):
        return None
    try:
        value = float.fromhex(text) if "p" in text.lower() and "x" in text.lower() else float(text)
    except (ValueError, OverflowError):
        return None
    return None if math.isinf(value) else value  # out of range: Go's ParseFloat fails


def plain_scalar(text: str) -> Any:
    """What go-yaml v2 makes of a plain scalar (``_NO_VALUE``: a string, ``text`` itself)."""
    if text in _WORDS:
        return _WORDS[text]
    first = text[0]
    if first == ".":
        value = _go_float(text)
        return _NO_VALUE if value is None else value
    if not (first.isdigit() or first in "+-"):
        return _NO_VALUE
    plain = text.replace("_", "")
    number = _parse_int(plain)
    if number is not None:
        return number
    if _YAML_FLOAT.fullmatch(plain):
        value = _go_float(plain)
        if value is not None:  # JSON cannot tell 1000.0 from 1000, nor can the Go decoder after it
            return int(value) if value.is_integer() and abs(value) < 1e21 else value
    for prefix, sign in (("0b", 1), ("-0b", -1)):
        if plain.startswith(prefix) and plain[len(prefix):] and set(plain[len(prefix):]) <= {"0", "1"}:
            return sign * int(plain[len(prefix):], 2)
    return _NO_VALUE


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with go-yaml v2's resolution of plain scalars."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            if value == "<<":
                return "tag:yaml.org,2002:merge"
            return "tag:yaml.org,2002:str" if plain_scalar(value) is _NO_VALUE else _TAG
        return super().resolve(kind, value, implicit)


def _construct_plain(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    return plain_scalar(node.value)


_Loader.add_constructor(_TAG, _construct_plain)


def load(data: bytes) -> Any:
    """One YAML document (``yaml.YAMLError`` for a malformed one)."""
    return yaml.load(data, Loader=_Loader)  # noqa: S506 - a safe loader with its own resolver


def unsupported_value(value: Any) -> str | None:
    """``json.Marshal``'s name for the first infinity or NaN in ``value`` (``+Inf``, ``-Inf``,
    ``NaN``), in the order Go writes a map (keys sorted), or None: ``sigs.k8s.io/yaml`` turns
    YAML into JSON that way, and such a value fails it."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
    if isinstance(value, dict):
        items = [value[k] for k in sorted(value, key=str)]
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = unsupported_value(item)
        if found is not None:
            return found
    return None
