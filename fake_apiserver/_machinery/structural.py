"""What a write of a custom object goes through against its version's structural schema.

kube-apiserver's apiextensions-apiserver does three things with ``schema.openAPIV3Schema`` (a
JSONSchemaProps as a JSON dict) when a custom object is written, and this module does them in the
same order and with the same words:

* :func:`prune` while decoding: fields the schema does not name are dropped, except under
  ``x-kubernetes-preserve-unknown-fields``, behind ``additionalProperties``, and the
  ``apiVersion``/``kind``/``metadata`` of the root and of an ``x-kubernetes-embedded-resource``;
  a null where the schema forbids null and has no default is dropped from its object too. The
  paths of the dropped fields come back sorted, spelled as ``fieldValidation`` reports them
  (``spec.items[0].x``), followed by the unknown fields of embedded objects' ``metadata``;
  the root ``metadata`` is the generic ObjectMeta code's business.
* :func:`apply_defaults` next: a ``default`` is set where its field is absent, or null and not
  nullable, then the walk goes on into the value (so ``default: {}`` lets the defaults inside
  apply), into list items and into ``additionalProperties`` values.
* :func:`validate` last: kube-openapi's schema validator, then the embedded resources'
  ``apiVersion``/``kind``/``metadata``, then the ``x-kubernetes-list-type`` set and map
  uniqueness; each error as the ``FieldError`` the 422 carries. Given an update's stored object,
  errors about values left unchanged are ratcheted away (``CRDValidationRatcheting``).

Trade-offs, all checked against a real kube-apiserver v1.37.2 (tests/test_structural.py):

* Go walks a schema's ``properties`` and an object's keys in random map order, so the real order
  of errors in sibling fields changes from one request to the next. Here properties go in the
  schema's order and ``additionalProperties`` keys in the object's; errors of one field keep the
  real relative order (type, string, format, number, array, enum, object checks).
* Validation follows kube-openapi's quirks rather than JSON Schema: a float in an integer field
  also fails the ``Checked value ...`` range check (reported on the field ``<nil>``), and an
  integer value checked against a fractional ``multipleOf`` fails ``factor MultipleOf declared
  ... must be positive: 0``.
* Formats are those the real server keeps (others are stripped from the schema and not checked);
  ``hostname``, ``email``, ``uri``, ``duration``, ``isbn`` and ``creditcard`` are approximated
  with regular expressions. Patterns are Go RE2 syntax read by Python's ``re``: the common subset
  agrees. ``anyOf`` and ``oneOf`` report the failing alternative that got furthest, counted as
  kube-openapi counts its ``MatchCount``.
* The ObjectMeta of an embedded resource is checked by a caller-given function
  (``validate_meta``), as the generic ObjectMeta rules live in a higher layer.
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
from fake_apiserver._machinery.jsonutil import go_json_type, json_copy

__all__ = ["CoercionError", "MetaValidator", "apply_defaults", "go_float", "go_json", "prune", "validate"]

MetaValidator = Callable[[Mapping[str, Any], str], list[FieldError]]
"""Checks an embedded resource's ``metadata`` (a dict whose ``name`` is set) at a field path."""

Schema = Mapping[str, Any]

_META_FIELDS = ("apiVersion", "kind", "metadata")
# metav1.ObjectMeta's JSON fields: an embedded resource's metadata keeps these and no others
_OBJECT_META_FIELDS = frozenset((
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields"))


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


def _shown(value: Any) -> Any:
    """A bad value as ``field.Error`` prints it (floats and containers as Go writes them)."""
    if isinstance(value, (float, list, dict)):
        return GoJSON(go_json(value))
    return value


def _plural(count: int, noun: str) -> str:
    """``field.TooLong``'s and ``field.TooMany``'s ``1 byte``, ``2 bytes``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _key(path: str, key: str) -> str:
    """``field.Path.Key``: ``spec.labels[a]``."""
    return f"{path}[{key}]"


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _member(schema: Schema | None, key: str) -> tuple[bool, Schema | None]:
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


def _has_default(schema: Schema | None) -> bool:
    return schema is not None and schema.get("default") is not None


def _non_nullable_null(value: Any, schema: Schema | None) -> bool:
    return value is None and schema is not None and not schema.get("nullable")


# ------------------------------------------------------------------------------------ pruning


class CoercionError(ValueError):
    """An embedded resource whose ``apiVersion`` or ``kind`` is not a string, or whose
    ``metadata`` is not an object: the decoder fails (whatever ``fieldValidation`` says),
    and the handler answers 400 ``<Kind> in version "<v>" cannot be handled as a <Kind>:
    <error.render()>``."""

    def __init__(self, error: FieldError) -> None:
        super().__init__(error.render())
        self.error = error


def prune(obj: dict[str, Any], schema: Schema | None) -> list[str]:
    """Drop, in place, what the schema does not specify in a custom object (the root); return
    the unknown fields' paths in the order ``fieldValidation`` reports them: the pruned ones
    sorted, then those of embedded resources' ``metadata`` sorted. :class:`CoercionError` when an
    embedded resource's ``apiVersion`` or ``kind`` is not a string."""
    unknown: list[str] = []
    _prune(obj, schema or {}, "", unknown, root=True)
    unknown.sort()
    _drop_nulls(obj, schema)
    meta_unknown: list[str] = []
    _embedded_meta(obj, schema, "", meta_unknown)
    return unknown + sorted(meta_unknown)


def _prune(value: Any, schema: Schema | None, path: str, unknown: list[str], *, root: bool = False) -> None:
    if schema is not None and schema.get("x-kubernetes-preserve-unknown-fields"):
        _prune_known(value, schema, path, unknown, root=root)
        return
    if isinstance(value, dict):
        embedded = root or (schema is not None and bool(schema.get("x-kubernetes-embedded-resource")))
        for key in list(value):
            if schema is not None and embedded and key in _META_FIELDS:
                continue
            known, sub = _member(schema, key)
            if known:
                _prune(value[key], sub, _child(path, key), unknown)
                continue
            if schema is None or key not in _META_FIELDS or path:
                unknown.append(_child(path, key))
            del value[key]
    elif isinstance(value, list):
        items = schema.get("items") if schema is not None else None
        for i, item in enumerate(value):
            _prune(item, items, f"{path}[{i}]", unknown)


def _prune_known(value: Any, schema: Schema | None, path: str, unknown: list[str], *, root: bool = False) -> None:
    """Under ``x-kubernetes-preserve-unknown-fields``: unknown fields stay, known ones are pruned
    by their own schema."""
    if schema is None:
        return
    if isinstance(value, dict):
        embedded = root or bool(schema.get("x-kubernetes-embedded-resource"))
        for key in list(value):
            if embedded and key in _META_FIELDS:
                continue
            known, sub = _member(schema, key)
            if known:
                _prune(value[key], sub, _child(path, key), unknown)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _prune_known(item, schema.get("items"), f"{path}[{i}]", unknown)


def _drop_nulls(value: Any, schema: Schema | None) -> None:
    """A null member of an object whose schema is neither nullable nor defaulted goes (list
    items stay, and fail validation)."""
    if isinstance(value, dict):
        for key in list(value):
            _, sub = _member(schema, key)
            if _non_nullable_null(value[key], sub) and not _has_default(sub):
                del value[key]
            else:
                _drop_nulls(value[key], sub)
    elif isinstance(value, list):
        items = schema.get("items") if schema is not None else None
        for item in value:
            _drop_nulls(item, items)


def _embedded_meta(value: Any, schema: Schema | None, path: str, unknown: list[str]) -> None:
    """The embedded resources' ``metadata`` decoded as ObjectMeta: unknown fields dropped and
    reported (``spec.template.metadata.foo``)."""
    if schema is None:
        return
    if isinstance(value, dict):
        if schema.get("x-kubernetes-embedded-resource"):
            for key in ("apiVersion", "kind"):
                if key in value and not isinstance(value[key], str):
                    raise CoercionError(FieldError.invalid(_child(path, key), _shown(value[key]), "must be a string"))
            meta = value.get("metadata")
            if meta is not None and not isinstance(meta, dict):
                raise CoercionError(FieldError.invalid(_child(path, "metadata"), _shown(meta), (
                    f"json: cannot unmarshal {go_json_type(meta)} into Go value of type v1.ObjectMeta")))
        if schema.get("x-kubernetes-embedded-resource") and isinstance(value.get("metadata"), dict):
            meta = value["metadata"]
            for key in list(meta):
                if key not in _OBJECT_META_FIELDS:
                    unknown.append(_child(_child(path, "metadata"), key))
                    del meta[key]
        for key in list(value):
            known, sub = _member(schema, key)
            if known:
                _embedded_meta(value[key], sub, _child(path, key), unknown)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _embedded_meta(item, schema.get("items"), f"{path}[{i}]", unknown)


# ---------------------------------------------------------------------------------- defaulting


def apply_defaults(obj: Any, schema: Schema | None) -> None:
    """Set, in place, the schema's defaults where a field is absent (or null and not nullable),
    then default inside every value, list item and ``additionalProperties`` value."""
    if schema is None:
        return
    if isinstance(obj, dict):
        properties = schema.get("properties") or {}
        for key, sub in properties.items():
            if _has_default(sub) and (key not in obj or _non_nullable_null(obj[key], sub)):
                obj[key] = json_copy(sub["default"])
        for key in list(obj):
            known, sub = _member(schema, key)
            if not known:
                continue
            if key not in properties and _non_nullable_null(obj[key], sub):
                obj[key] = json_copy(sub.get("default")) if sub is not None else None
            apply_defaults(obj[key], sub)
    elif isinstance(obj, list):
        items = schema.get("items")
        for i in range(len(obj)):
            if _non_nullable_null(obj[i], items) and items is not None:
                obj[i] = json_copy(items.get("default"))
            apply_defaults(obj[i], items)


# ---------------------------------------------------------------------------------- validation


def validate(obj: Mapping[str, Any], schema: Schema | None, *, old: Mapping[str, Any] | None = None,
             validate_meta: MetaValidator | None = None) -> list[FieldError]:
    """The errors of a (pruned and defaulted) custom object, in the real server's order: the
    schema's value validations, then embedded resources, then list-type sets and maps.

    ``old`` (an update's stored object) turns on ratcheting, as ``CRDValidationRatcheting`` does:
    a value validation error is dropped when the value it is about is unchanged from the value
    it correlates with in ``old`` (same key of an object, same keys in
    a list-type map; sets and atomic lists do not correlate item by item), and list-type errors
    are checked only when ``old`` had none."""
    if schema is None:
        return []
    errors: list[FieldError] = []
    errors.extend(_OpenAPI().check(obj, schema, "", _UNCORRELATED if old is None else old).errors)
    errors.extend(_embedded(obj, schema, "", validate_meta))
    if old is None or not _lists(old, schema, ""):
        errors.extend(_lists(obj, schema, ""))
    return errors


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
            _, sub = _member(schema, key)
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
    return FieldError.invalid(path.lstrip(".") or "<nil>", _shown(value), detail)


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
        yield FieldError.not_supported(path.lstrip(".") or "<nil>", _shown(value), shown)

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
                result.merge(self.check(value[key], sub, _child(path, key), _correlate_key(value, old, schema, key, path)))
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


# -------------------------------------------------------------------------- embedded resources

_DNS1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_DNS1035_MESSAGE = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                    "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")


def _walk(value: Any, schema: Schema | None, path: str) -> Iterator[tuple[Any, Schema, str]]:
    """Every (value, schema, path) below and including the root, paths as ``field.Path`` spells
    them (``additionalProperties`` keys in brackets)."""
    if schema is None:
        return
    yield value, schema, path
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        for key, item in value.items():
            known, sub = _member(schema, key)
            if known:
                yield from _walk(item, sub, _child(path, key) if key in properties else _key(path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, schema.get("items"), f"{path}[{i}]")


def _embedded(obj: Any, schema: Schema, path: str, validate_meta: MetaValidator | None) -> list[FieldError]:
    errors: list[FieldError] = []
    for value, sub, where in _walk(obj, schema, path):
        if where and isinstance(value, dict) and sub.get("x-kubernetes-embedded-resource"):
            errors.extend(_embedded_resource(value, where, validate_meta))
    return errors


def _embedded_resource(value: Mapping[str, Any], path: str, validate_meta: MetaValidator | None) -> list[FieldError]:
    errors = [FieldError.required(_child(path, k)) for k in ("apiVersion", "kind") if k not in value]
    if "apiVersion" in value:
        version = value["apiVersion"]
        where = _child(path, "apiVersion")
        if not isinstance(version, str):
            errors.append(FieldError.invalid(where, _shown(version), "must be a string"))
        elif not version:
            errors.append(FieldError.invalid(where, version, "must not be empty"))
        elif version.count("/") > 1:
            errors.append(FieldError.invalid(where, version, f"unexpected GroupVersion string: {version}"))
    if "kind" in value:
        kind = value["kind"]
        where = _child(path, "kind")
        if not isinstance(kind, str):
            errors.append(FieldError.invalid(where, _shown(kind), "must be a string"))
        elif not kind:
            errors.append(FieldError.invalid(where, kind, "must not be empty"))
        else:
            found = (["must be no more than 63 characters"] if len(kind) > 63 else []) + (
                [] if _DNS1035.fullmatch(kind.lower()) else [_DNS1035_MESSAGE])
            if found:
                errors.append(FieldError.invalid(
                    where, kind, "may have mixed case, but should otherwise match: " + ",".join(found)))
    if isinstance(value.get("metadata"), dict) and validate_meta is not None:
        meta = dict(value["metadata"])
        meta["name"] = meta.get("name") or "fakename"  # the real check names it so an unnamed one passes
        errors.extend(validate_meta(meta, _child(path, "metadata")))
    return errors


# --------------------------------------------------------------------- list-type set and map


def _lists(obj: Any, schema: Schema, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for value, sub, where in _walk(obj, schema, path):
        if isinstance(value, list):
            list_type = sub.get("x-kubernetes-list-type")
            if list_type == "set":
                errors.extend(FieldError.duplicate(f"{where}[{i}]", _shown(value[i])) for i in _repeats(value))
            elif list_type == "map":
                errors.extend(_list_map(value, sub.get("x-kubernetes-list-map-keys") or [], where))
    return errors


def _repeats(values: list[Any]) -> list[int]:
    """The index of each value's second occurrence (scalars compared with their Go type,
    objects and lists by their JSON)."""
    seen: dict[Any, int] = {}
    repeats: list[int] = []
    for i, value in enumerate(values):
        token = ("json", go_json(value)) if isinstance(value, (dict, list)) else (type(value).__name__, value)
        seen[token] = seen.get(token, 0) + 1
        if seen[token] == 2:
            repeats.append(i)
    return repeats


def _list_map(value: list[Any], keys: list[str], path: str) -> list[FieldError]:
    for i, item in enumerate(value):
        if item is not None and not isinstance(item, dict):
            return [FieldError.invalid(f"{path}[{i}]", _shown(item), "must be an object for an array of list-type map")]
    entries = [{k: item[k] for k in keys if k in item} if isinstance(item, dict) else {} for item in value]
    return [FieldError.duplicate(f"{path}[{i}]", _shown(entries[i])) for i in _repeats(entries)]


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
