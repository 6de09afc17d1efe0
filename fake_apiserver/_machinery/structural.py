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

The value validations themselves are kube-openapi's validator
(:mod:`~fake_apiserver._machinery.openapivalidator`). The ObjectMeta of an embedded resource is
checked by a caller-given function (``validate_meta``), as the generic ObjectMeta rules live in a
higher layer. Checked against a real kube-apiserver v1.37.2 (tests/fake_apiserver/_machinery/test_structural.py).

Which type model serves which purpose: :mod:`fake_apiserver._machinery` (its docstring).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Callable, Iterator

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.jsonutil import go_json_type, json_copy
from fake_apiserver._machinery.openapivalidator import Schema, child, error_value, go_json, member, schema_errors

__all__ = ["CoercionError", "MetaValidator", "apply_defaults", "prune", "validate"]

MetaValidator = Callable[[Mapping[str, Any], str], list[FieldError]]
"""Checks an embedded resource's ``metadata`` (a dict whose ``name`` is set) at a field path."""

_META_FIELDS = ("apiVersion", "kind", "metadata")
# metav1.ObjectMeta's JSON fields: an embedded resource's metadata keeps these and no others
_OBJECT_META_FIELDS = frozenset((
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "ownerReferences", "finalizers", "managedFields"))


def _key(path: str, key: str) -> str:
    """``field.Path.Key``: ``spec.labels[a]``."""
    return f"{path}[{key}]"


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
            known, sub = member(schema, key)
            if known:
                _prune(value[key], sub, child(path, key), unknown)
                continue
            if schema is None or key not in _META_FIELDS or path:
                unknown.append(child(path, key))
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
            known, sub = member(schema, key)
            if known:
                _prune(value[key], sub, child(path, key), unknown)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _prune_known(item, schema.get("items"), f"{path}[{i}]", unknown)


def _drop_nulls(value: Any, schema: Schema | None) -> None:
    """A null member of an object whose schema is neither nullable nor defaulted goes (list
    items stay, and fail validation)."""
    if isinstance(value, dict):
        for key in list(value):
            _, sub = member(schema, key)
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
                    raise CoercionError(FieldError.invalid(child(path, key), error_value(value[key]), "must be a string"))
            meta = value.get("metadata")
            if meta is not None and not isinstance(meta, dict):
                raise CoercionError(FieldError.invalid(child(path, "metadata"), error_value(meta), (
                    f"json: cannot unmarshal {go_json_type(meta)} into Go value of type v1.ObjectMeta")))
        if schema.get("x-kubernetes-embedded-resource") and isinstance(value.get("metadata"), dict):
            meta = value["metadata"]
            for key in list(meta):
                if key not in _OBJECT_META_FIELDS:
                    unknown.append(child(child(path, "metadata"), key))
                    del meta[key]
        for key in list(value):
            known, sub = member(schema, key)
            if known:
                _embedded_meta(value[key], sub, child(path, key), unknown)
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
            known, sub = member(schema, key)
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
    errors.extend(schema_errors(obj, schema, old))
    errors.extend(_embedded(obj, schema, "", validate_meta))
    if old is None or not _lists(old, schema, ""):
        errors.extend(_lists(obj, schema, ""))
    return errors


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
            known, sub = member(schema, key)
            if known:
                yield from _walk(item, sub, child(path, key) if key in properties else _key(path, key))
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
    errors = [FieldError.required(child(path, k)) for k in ("apiVersion", "kind") if k not in value]
    if "apiVersion" in value:
        version = value["apiVersion"]
        where = child(path, "apiVersion")
        if not isinstance(version, str):
            errors.append(FieldError.invalid(where, error_value(version), "must be a string"))
        elif not version:
            errors.append(FieldError.invalid(where, version, "must not be empty"))
        elif version.count("/") > 1:
            errors.append(FieldError.invalid(where, version, f"unexpected GroupVersion string: {version}"))
    if "kind" in value:
        kind = value["kind"]
        where = child(path, "kind")
        if not isinstance(kind, str):
            errors.append(FieldError.invalid(where, error_value(kind), "must be a string"))
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
        errors.extend(validate_meta(meta, child(path, "metadata")))
    return errors


# --------------------------------------------------------------------- list-type set and map


def _lists(obj: Any, schema: Schema, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for value, sub, where in _walk(obj, schema, path):
        if isinstance(value, list):
            list_type = sub.get("x-kubernetes-list-type")
            if list_type == "set":
                errors.extend(FieldError.duplicate(f"{where}[{i}]", error_value(value[i])) for i in _repeats(value))
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
            return [FieldError.invalid(f"{path}[{i}]", error_value(item), "must be an object for an array of list-type map")]
    entries = [{k: item[k] for k in keys if k in item} if isinstance(item, dict) else {} for item in value]
    return [FieldError.duplicate(f"{path}[{i}]", error_value(entries[i])) for i in _repeats(entries)]
