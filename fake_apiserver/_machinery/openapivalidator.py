"""kube-openapi's validator of a custom object against its structural schema, as
apiextensions-apiserver runs it on every write, with the words of its errors.

Per schema node, in this order and each reporting on its own: the type, the composition
(``anyOf``, ``oneOf``, ``allOf``, ``not``), string, format, number, array, enum and object checks
(``SchemaValidator``); :func:`schema_errors` gives them for a whole object. Given an update's
stored object, an error about a value left unchanged is dropped (``CRDValidationRatcheting``): a
value correlates with the same key of an object and the item with the same keys of a list-type
map; sets and atomic lists are compared whole. Values are printed as Go prints them
(:func:`go_float`, :func:`go_json`, :func:`error_value`). :mod:`~fake_apiserver._machinery.structural`
calls this first, then checks embedded resources and list types itself.

Trade-offs, all checked against a real kube-apiserver v1.37.2 (tests/fake_apiserver/_machinery/test_structural.py):

* Go walks a schema's ``properties`` in random map order; here they go in the schema's order and
  ``additionalProperties`` keys in the object's; errors of one field keep the real relative order.
* kube-openapi's quirks are followed rather than JSON Schema: a float in an integer field also
  fails the ``Checked value ...`` range check (reported on the field ``<nil>``), and an integer
  value checked against a fractional ``multipleOf`` fails ``factor MultipleOf declared ... must be
  positive: 0``.
* Formats are those the real server keeps (others are stripped from the schema and not checked);
  ``hostname``, ``email``, ``uri``, ``duration``, ``isbn`` and ``creditcard`` are approximated
  with regular expressions. Patterns are Go RE2 syntax read by Python's ``re``: the common subset
  agrees. ``anyOf`` and ``oneOf`` report the failing alternative that got furthest, counted as
  kube-openapi counts its ``MatchCount``.

Which type model serves which purpose: :mod:`fake_apiserver._machinery` (its docstring).
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import re
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Iterator

from fake_apiserver._machinery.errors import FieldError, GoJSON

__all__ = ["Schema", "child", "error_value", "go_float", "go_json", "member", "schema_errors"]

Schema = Mapping[str, Any]


# ------------------------------------------------------------------------------ Go's spellings


def go_float(value: float) -> str:
    """A float64 as Go's ``%v`` prints it: shortest form, an exponent below 1e-4 or from 1e21."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def go_json(value: Any) -> str:
    """``json.Marshal`` of a JSON value: compact, map keys sorted, integral floats without ``.0``."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, list):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + go_json(value[k]) for k in sorted(value)) + "}"


def error_value(value: Any) -> Any:
    """A bad value as ``field.Error`` prints it (floats and containers as Go writes them)."""
    if isinstance(value, (float, list, dict)):
        return GoJSON(go_json(value))
    return value


def _plural(count: int, noun: str) -> str:
    """``field.TooLong``'s and ``field.TooMany``'s ``1 byte``, ``2 bytes``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def child(path: str, name: str) -> str:
    """``field.Path.Child``: ``spec.items``, or ``items`` at the root."""
    return f"{path}.{name}" if path else name


def member(schema: Schema | None, key: str) -> tuple[bool, Schema | None]:
    """Whether ``key`` is specified by ``schema`` (a property, or any key when the schema has
    ``additionalProperties``), and the schema of its value (None for a bare boolean)."""
    if schema is None:
        return False, None
    properties = schema.get("properties") or {}
    if key in properties:
        return True, properties[key]
    if schema.get("additionalProperties") is None:
        return False, None
    extra = schema["additionalProperties"]
    return True, extra if isinstance(extra, Mapping) else None


# ---------------------------------------------------------------------------------- validation


def schema_errors(obj: Any, schema: Schema, old: Any = None) -> list[FieldError]:
    """The schema's value validations of an object, in the real server's order; ``old`` (an
    update's stored object, or None) ratchets them (errors about values left unchanged dropped)."""
    return _OpenAPI().check(obj, schema, "", _UNCORRELATED if old is None else old).errors


_UNCORRELATED: Any = object()  # a value with no old counterpart: its errors always count


def _correlate_key(value: Any, old: Any, schema: Schema, key: str, path: str) -> Any:
    """The old value of ``value[key]`` (``CorrelatedObject.Key``)."""
    if not (isinstance(old, dict) and isinstance(value, dict) and key in old and key in value):
        return _UNCORRELATED
    if path == "" and key in ("apiVersion", "kind"):
        return _UNCORRELATED
    if key in (schema.get("properties") or {}) or isinstance(schema.get("additionalProperties"), Mapping):
        return old[key]
    return _UNCORRELATED


def _correlate_index(value: list[Any], old: Any, schema: Schema, index: int) -> Any:
    """The old value of ``value[index]`` (``CorrelatedObject.Index``): only the item of a
    list-type map with the same keys; other lists are compared whole."""
    if not isinstance(old, list) or not isinstance(schema.get("items"), Mapping):
        return _UNCORRELATED
    item = value[index]
    if schema.get("x-kubernetes-list-type") != "map" or not isinstance(item, dict):
        return _UNCORRELATED
    keys = schema.get("x-kubernetes-list-map-keys") or []
    for before in old:
        if isinstance(before, dict) and all((k in item) == (k in before) and _go_equal(item.get(k), before.get(k))
                                            for k in keys):
            return before
    return _UNCORRELATED


def _unchanged(value: Any, old: Any, schema: Schema) -> bool:
    """``CorrelatedObject.CachedDeepEqual``: equal, comparing correlated children."""
    if value is None or old is None:
        return value is None and old is None
    if isinstance(value, list) and isinstance(old, list):
        if len(value) != len(old):
            return False
        items = schema.get("items")
        for i, item in enumerate(value):
            before = _correlate_index(value, old, schema, i)
            if before is _UNCORRELATED:
                return schema.get("x-kubernetes-list-type") != "map" and _go_equal(old, value)
            if not isinstance(items, Mapping) or not _unchanged(item, before, items):
                return False
        return True
    if isinstance(value, dict) and isinstance(old, dict):
        if len(value) != len(old):
            return False
        for key, item in value.items():
            before = _correlate_key(value, old, schema, key, "-")
            _, sub = member(schema, key)
            if before is _UNCORRELATED or sub is None or not _unchanged(item, before, sub):
                return False
        return True
    return _go_equal(value, old)


_INTEGER_FORMATS = ("int32", "int64")
_NUMBER_FORMATS = ("float", "double")
_INT32 = (-(2 ** 31), 2 ** 31 - 1)
_INT64 = (-(2 ** 63), 2 ** 63 - 1)


def _json_type(value: Any) -> tuple[str, str]:
    """kube-openapi's name and format of a decoded JSON value (Go int64 and float64)."""
    if isinstance(value, bool):
        return "boolean", ""
    if isinstance(value, int):
        return "integer", "int64"
    if isinstance(value, float):
        return "number", "float64"
    if isinstance(value, str):
        return "string", ""
    if isinstance(value, list):
        return "array", ""
    return "object", ""


def _types(schema: Schema) -> list[str]:
    if schema.get("x-kubernetes-int-or-string"):
        return ["integer", "string"]
    return [schema["type"]] if schema.get("type") else []


def _format(schema: Schema) -> str:
    """The format left after ``StripUnsupportedFormatsPostProcessor``."""
    fmt = schema.get("format") or ""
    types = _types(schema)
    kind = types[0] if len(types) == 1 else ""
    if not fmt:
        return ""
    if kind in ("", "string"):
        return fmt if fmt.replace("-", "") in _FORMATS else ""
    if kind == "integer":
        return fmt if fmt in _INTEGER_FORMATS else ""
    if kind == "number":
        return fmt if fmt in _NUMBER_FORMATS else ""
    return ""


def _type_error(path: str, expected: str, value: str) -> FieldError:
    """``errors.InvalidType`` turned into ``field.TypeInvalid``."""
    return FieldError("FieldValueTypeInvalid", path.lstrip(".") or "<nil>",
                      f"{path} in body must be of type {expected}: {json.dumps(value)}", value)


def _invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError.invalid(path.lstrip(".") or "<nil>", error_value(value), detail)


@dataclass
class _Result:
    """A node's errors (a repeated one once, as kube-openapi's ``Result`` keeps them) and its
    ``MatchCount``, by which ``anyOf`` and ``oneOf`` pick the failing alternative to report."""

    errors: list[FieldError] = field(default_factory=list)
    count: int = 0

    def add(self, errors: Iterable[FieldError]) -> None:
        for error in errors:
            if error not in self.errors:
                self.errors.append(error)

    def merge(self, other: _Result) -> None:
        self.add(other.errors)
        self.count += other.count

    def step(self, other: _Result) -> None:
        """One validator that applied: its result, and one more match."""
        self.merge(other)
        self.count += 1


def _composite(path: str, text: str) -> FieldError:
    """An ``anyOf``/``oneOf``/``allOf``/``not`` failure: a plain error, so on no field."""
    return FieldError.invalid("<nil>", "", f"{json.dumps(path)} {text}")


class _OpenAPI:
    """kube-openapi's ``SchemaValidator`` over one value: per node the type, composition
    (``anyOf``...), string, format, number, array, enum and object checks in that order, each
    reporting on its own."""

    def check(self, value: Any, schema: Schema, path: str, old: Any = _UNCORRELATED, *,
              ratchet: bool = True) -> _Result:
        result = self._check(value, schema, path, old)
        if ratchet and old is not _UNCORRELATED and result.errors and _unchanged(value, old, schema):
            result.errors = []  # ratcheted: kept by kube-openapi as warnings, which nobody reads
        return result

    def _check(self, value: Any, schema: Schema, path: str, old: Any) -> _Result:
        result = _Result()
        types, fmt = _types(schema), _format(schema)
        if value is None:
            wrong = [_type_error(path, ",".join(types), "null")] if types and not schema.get("nullable") else []
            result.merge(_Result(wrong, 0 if wrong else 1))
            result.add(self._enum(value, schema, path))
            return result
        if types or fmt:
            wrong = list(self._type(value, types, fmt, path))
            result.step(_Result(wrong, 0 if wrong else 1))
        result.step(self._composed(value, schema, path, old))
        if isinstance(value, str):
            result.step(_Result(list(self._string(value, schema, path))))
            if fmt.replace("-", "") in _FORMATS:
                bad = not _FORMATS[fmt.replace("-", "")](value)
                result.step(_Result([_type_error(path, fmt, value)] if bad else []))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            result.step(_Result(list(self._number(value, schema, types, fmt, path)), 1))
        if isinstance(value, list):
            result.step(self._array(value, schema, path, old))
        result.step(_Result(list(self._enum(value, schema, path))))
        if isinstance(value, dict):
            result.step(self._object(value, schema, path, old))
        result.count += 1
        return result

    def _composed(self, value: Any, schema: Schema, path: str, old: Any) -> _Result:
        """``anyOf``, ``oneOf``, ``allOf`` and ``not``: the failure, then the errors of the
        alternative that matched most (anyOf, oneOf) or of every failing one (allOf)."""
        main = _Result()
        if schema.get("anyOf"):
            best: _Result | None = None
            success: _Result | None = None
            for alternative in schema["anyOf"]:
                result = self.check(value, alternative, path, old, ratchet=False)
                if not result.errors:
                    best, success = None, result
                    break
                if best is None or result.count > best.count:
                    best = result
            if success is None:
                main.add([_composite(path, "must validate at least one schema (anyOf)")])
            main.merge(best or success or _Result())
        if schema.get("oneOf"):
            best, first, valid = None, None, 0
            for alternative in schema["oneOf"]:
                result = self.check(value, alternative, path, old, ratchet=False)
                if not result.errors:
                    valid += 1
                    best, first = None, first or result
                elif valid == 0 and (best is None or result.count > best.count):
                    best = result
            if valid != 1:
                found = "Found none valid" if valid == 0 else f"Found {valid} valid alternatives"
                main.add([_composite(path, f"must validate one and only one schema (oneOf). {found}")])
                if best is not None:
                    main.merge(best)
            elif first is not None:
                main.merge(first)
        if schema.get("allOf"):
            valid = 0
            for alternative in schema["allOf"]:
                result = self.check(value, alternative, path, old, ratchet=False)
                valid += not result.errors
                main.merge(result)
            if valid != len(schema["allOf"]):
                main.add([_composite(path, "must validate all the schemas (allOf)" + ("" if valid else ". None validated"))])
        if isinstance(schema.get("not"), Mapping) and not self.check(value, schema["not"], path, old, ratchet=False).errors:
            main.add([_composite(path, "must not validate the schema (not)")])
        main.count += 1
        return main

    @staticmethod
    def _type(value: Any, types: list[str], fmt: str, path: str) -> Iterator[FieldError]:
        kind, own_format = _json_type(value)
        float_int = kind == "number" and _whole(value) and "integer" in types
        int_float = kind == "integer" and "number" in types
        fits = kind in types or float_int or int_float
        if kind not in ("string", "array") and fmt and not (fits or own_format == fmt):
            yield _type_error(path, fmt, own_format)
        elif fmt and kind in ("string", "array") and not ("number" in types or "integer" in types):
            return
        elif not fits:
            yield _type_error(path, ",".join(types), kind)

    @staticmethod
    def _string(value: str, schema: Schema, path: str) -> Iterator[FieldError]:
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            yield FieldError("FieldValueTooLong", path.lstrip(".") or "<nil>",
                             f"may not be more than {_plural(schema['maxLength'], 'byte')}")
        elif "minLength" in schema and len(value) < schema["minLength"]:
            yield _invalid(path, value, f"{path} in body should be at least {schema['minLength']} chars long")
        elif schema.get("pattern") and not re.search(schema["pattern"], value):
            yield _invalid(path, value, f"{path} in body should match '{schema['pattern']}'")

    def _number(self, value: int | float, schema: Schema, types: list[str], fmt: str, path: str) -> Iterator[FieldError]:
        kind = types[0] if len(types) == 1 and types[0] in ("integer", "number") else ""
        if kind == "integer" and fmt not in _INTEGER_FORMATS or kind == "number" and fmt not in _NUMBER_FORMATS:
            fmt = ""
        range_error = self._out_of_range(value, kind, fmt, "Checked", path)
        if range_error:
            yield range_error
        if "multipleOf" in schema:
            factor = schema["multipleOf"]
            bad = self._out_of_range(factor, kind, fmt, "MultipleOf", path)
            if bad:
                yield bad
            if not bad and isinstance(value, int):
                whole = int(factor)
                if whole <= 0:
                    yield _invalid(path, whole, f"factor MultipleOf declared for {path} must be positive: {whole}")
                elif value % whole:
                    yield _invalid(path, value, f"{path} in body should be a multiple of {whole}")
            elif factor <= 0:
                yield _invalid(path, factor, f"factor MultipleOf declared for {path} must be positive: {go_float(factor)}")
            elif not _whole(value / factor if factor >= 1 else 1 / factor * value):
                yield _invalid(path, value, f"{path} in body should be a multiple of {go_float(factor)}")
        for bound, exclusive, word in (("minimum", "exclusiveMinimum", "greater"), ("maximum", "exclusiveMaximum", "less")):
            if bound not in schema:
                continue
            limit, strict = schema[bound], bool(schema.get(exclusive))
            bad = self._out_of_range(limit, kind, fmt, f"{bound.capitalize()} boundary", path)
            if bad:
                yield bad
            native = int(limit) if not bad and isinstance(value, int) else limit
            below = value < native if word == "greater" else value > native
            if below or (strict and value == native):
                shown = native if isinstance(native, int) else go_float(native)
                relation = f"{word} than" if strict else f"{word} than or equal to"
                yield _invalid(path, value, f"{path} in body should be {relation} {shown}")

    @staticmethod
    def _out_of_range(value: int | float, kind: str, fmt: str, prefix: str, path: str) -> FieldError | None:
        """``IsValueValidAgainstRange``: the value's text read back as the schema's type."""
        text = str(value) if isinstance(value, int) else go_float(float(value))
        fits = True
        if kind == "integer":
            low, high = _INT32 if fmt == "int32" else _INT64
            fits = re.fullmatch(r"[-+]?[0-9]+", text) is not None and low <= int(text) <= high
        elif fmt == "float":
            fits = abs(float(value)) <= 3.4028234663852886e38
        if fits:
            return None
        shown = f"with format {fmt}" if fmt else "(default format)"
        return FieldError.invalid("<nil>", "", f"{prefix} value must be of type {kind} {shown} in {path}")

    def _array(self, value: list[Any], schema: Schema, path: str, old: Any) -> _Result:
        result = _Result()
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                result.merge(self.check(item, items, f"{path}[{i}]", _correlate_index(value, old, schema, i)))
        if "minItems" in schema and len(value) < schema["minItems"]:
            result.add([_invalid(path, len(value), f"{path} in body should have at least {schema['minItems']} items")])
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            result.add([FieldError("FieldValueTooMany", path.lstrip(".") or "<nil>",
                                   f"must have at most {_plural(schema['maxItems'], 'item')}", len(value))])
        if schema.get("uniqueItems") and any(_go_equal(a, b) for i, a in enumerate(value) for b in value[:i]):
            result.add([_invalid(path, "", f"{path} in body shouldn't contain duplicates")])
        result.count += 1
        return result

    @staticmethod
    def _enum(value: Any, schema: Schema, path: str) -> Iterator[FieldError]:
        allowed = schema.get("enum")
        if not allowed or (value is not None and any(_enum_match(value, v) for v in allowed)):
            return
        shown = [v if isinstance(v, str) else go_json(v) for v in allowed]
        yield FieldError.not_supported(path.lstrip(".") or "<nil>", error_value(value), shown)

    def _object(self, value: dict[str, Any], schema: Schema, path: str, old: Any) -> _Result:
        result = _Result()
        if "minProperties" in schema and len(value) < schema["minProperties"]:
            result.add([_invalid(path, len(value),
                                 f"{path} in body should have at least {schema['minProperties']} properties")])
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            result.add([FieldError("FieldValueTooMany", path.lstrip(".") or "<nil>",
                                   f"must have at most {_plural(schema['maxProperties'], 'item')}", len(value))])
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping):
            for key, item in value.items():
                if key not in properties:
                    result.merge(self.check(item, extra, f"{path}.{key}", _correlate_key(value, old, schema, key, path)))
        for key, sub in properties.items():
            if key in value:
                result.merge(self.check(value[key], sub, child(path, key), _correlate_key(value, old, schema, key, path)))
        result.add(FieldError.required(f"{path}.{key}".lstrip(".")) for key in schema.get("required") or ()
                   if key not in value)
        return result


def _whole(value: float) -> bool:
    """swag's ``IsFloat64AJSONInteger``: integral up to a relative error of 1e-9."""
    if value != value or abs(value) > 2 ** 53 - 1:
        return False
    whole = float(int(value))
    return value == whole or abs(value - whole) / (abs(value) + abs(whole)) < 1e-9


def _go_equal(a: Any, b: Any) -> bool:
    """``reflect.DeepEqual`` of decoded JSON: an int64 never equals a float64, nor a bool a number."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_go_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_go_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _enum_match(value: Any, allowed: Any) -> bool:
    """An enum member matches a value equal to it once converted to its Go type."""
    if _go_equal(value, allowed):
        return True
    numbers = (int, float)
    if isinstance(value, bool) or isinstance(allowed, bool) or allowed is None:
        return False
    if isinstance(value, numbers) and isinstance(allowed, numbers):
        return (int(value) if isinstance(allowed, int) else float(value)) == allowed
    if isinstance(value, int) and isinstance(allowed, str):  # Go converts an integer to the rune it names
        return 0 <= value <= 0x10FFFF and chr(value) == allowed
    return False


# ------------------------------------------------------------------------------------ formats


def _date(text: str) -> bool:
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return False
    try:
        datetime.date(int(text[:4]), int(text[5:7]), int(text[8:]))
    except ValueError:
        return False
    return True


def _date_time(text: str) -> bool:
    parts = text.lower().split("t")
    if len(text) < 4 or len(parts) < 2 or not _date(parts[0]):
        return False
    m = re.fullmatch(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))", parts[1])
    return m is not None and m[1] <= "23" and m[2] <= "59" and m[3] <= "59"


def _ip(text: str, version: int) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return address.version == version or (version == 4 and "." in text)


def _cidr(text: str) -> bool:
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return "/" in text


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except ValueError:
        return False
    return re.fullmatch(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})", text) is not None


def _regex(pattern: str, flags: int = 0) -> Callable[[str], bool]:
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.fullmatch(text) is not None


_UUID = r"[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}"
_SHORT_NAME = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"

# the string formats the real server validates (names without dashes, as strfmt normalizes them)
_FORMATS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _regex(r"[0-9a-fA-F]{24}"),
    "uri": _regex(r"([a-zA-Z][a-zA-Z0-9+.-]*:|/)\S*"),
    "email": _regex(r"[^@\s<>]+@[^@\s<>]+"),
    "hostname": lambda t: len(t) <= 255 and all(0 < len(p) <= 63 for p in t.split(".")) and _regex(
        r"[^\W_]([\w-]*[^\W_])?(\.[^\W_]([\w-]*[^\W_])?)*")(t),
    "ipv4": lambda t: _ip(t, 4),
    "ipv6": lambda t: _ip(t, 6),
    "cidr": _cidr,
    "mac": _regex(r"([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}|([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}"),
    "uuid": _regex(_UUID % ("[0-9a-f]", "[0-9a-f]"), re.I),
    "uuid3": _regex(_UUID % ("3", "[0-9a-f]"), re.I),
    "uuid4": _regex(_UUID % ("4", "[89ab]"), re.I),
    "uuid5": _regex(_UUID % ("5", "[89ab]"), re.I),
    "isbn": _regex(r"(?:[0-9]{9}X|[0-9]{10}|(?:97[89])?[0-9]{10})"),
    "isbn10": _regex(r"(?:[0-9]{9}X|[0-9]{10})"),
    "isbn13": _regex(r"(?:97[89][0-9]{10})"),
    "creditcard": lambda t: _regex(r"[0-9]{12,19}")(re.sub(r"[^0-9]", "", t)),
    "ssn": _regex(r"\d{3}[- ]?\d{2}[- ]?\d{4}"),
    "hexcolor": _regex(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})"),
    "rgbcolor": _regex(r"rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,"
                       r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)"),
    "byte": _base64,
    "password": lambda t: True,
    "date": _date,
    "duration": _regex(r"[-+]?(([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+|[0-9]+\s*[a-zA-Z]+)"),
    "datetime": _date_time,
    "k8sshortname": lambda t: len(t) <= 63 and _regex(_SHORT_NAME)(t),
    "k8slongname": lambda t: len(t) <= 253 and _regex(rf"{_SHORT_NAME}(\.{_SHORT_NAME})*")(t),
}
