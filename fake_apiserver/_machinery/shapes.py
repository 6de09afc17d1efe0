"""Body shapes: the JSON types of the fields the fake reads, checked as Go's decoder checks them.

The real server decodes a body into Go structs, so a field of the wrong JSON type fails the
request with encoding/json's message before any rule runs. The fake keeps bodies as JSON, so it
checks the types of the fields its own code reads (the registry's rules, validation, selectors)
and gives the same 400; other fields are stored as sent. A ``null`` is what Go makes of it: the
zero value (the field left out; an empty object, or "", inside a list). An empty list or map in
a field tagged ``omitempty`` is left out too, as the real server never encodes one.

A kind's shape is declared with the kind (its declaration's ``shape``, which its strategy hands to
:func:`check_shape`); here are the shape types, the building blocks several kinds share (object
metadata, resource lists, label selectors) and ``DeleteOptions``' shape, which the delete handler
checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Callable, Union

from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._machinery.jsonutil import go_json_type

__all__ = ["BOOL", "DELETE_OPTIONS_SHAPE", "I32", "I64", "LABEL_SELECTOR", "OBJECT_META", "QUANTITY", "RESOURCES",
           "STR", "STRINGS", "STRING_MAP", "TIME", "List", "Map", "Scalar", "Shape", "Struct", "check_shape",
           "list_of", "struct_of"]

Obj = dict[str, Any]


@dataclass(frozen=True)
class Scalar:
    """A Go scalar."""

    go: str  # "string", "bool", "int64", "int32", "quantity" or "time"


@dataclass(frozen=True)
class Struct:
    """A Go struct: the shapes of the fields the fake reads, by JSON name."""

    go: str  # the Go type, e.g. "v1.PodSpec"
    fields: Mapping[str, Shape] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The struct's name as an ``UnmarshalTypeError`` gives it (``PodSpec``)."""
        return self.go.rpartition(".")[2]


@dataclass(frozen=True)
class List:
    """A Go slice of ``elem``."""

    go: str  # e.g. "[]v1.Container"
    elem: Shape
    omitempty: bool = True


@dataclass(frozen=True)
class Map:
    """A Go map from strings to ``value``."""

    go: str  # e.g. "map[string]string", "v1.ResourceList"
    value: Shape
    omitempty: bool = True


Shape = Union[Scalar, Struct, List, Map]

STR, BOOL, I64, I32 = Scalar("string"), Scalar("bool"), Scalar("int64"), Scalar("int32")
TIME, QUANTITY = Scalar("time"), Scalar("quantity")
STRINGS = List("[]string", STR)
STRING_MAP = Map("map[string]string", STR)
RESOURCES = Map("v1.ResourceList", QUANTITY)
# resource.ParseQuantity's format check (apimachinery/pkg/api/resource/quantity.go).
_QUANTITY_FORMAT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_QUANTITY_RE = re.compile(_QUANTITY_FORMAT)


def struct_of(go: str, **fields: Shape) -> Struct:
    """The struct ``go`` (``v1.PodSpec``) with these fields."""
    return Struct(go, fields)


def list_of(elem: Struct, *, omitempty: bool = True) -> List:
    """A slice of the struct ``elem``."""
    return List("[]" + elem.go, elem, omitempty)


OBJECT_META = struct_of(
    "v1.ObjectMeta", name=STR, generateName=STR, namespace=STR, uid=STR, resourceVersion=STR,
    generation=I64, labels=STRING_MAP, annotations=STRING_MAP, finalizers=STRINGS,
    ownerReferences=list_of(struct_of("v1.OwnerReference", apiVersion=STR, kind=STR, name=STR, uid=STR,
                                       controller=BOOL, blockOwnerDeletion=BOOL)),
)
"""``metav1.ObjectMeta``, which every kind's shape holds under ``metadata``."""

#: ``metav1.DeleteOptions`` as the delete handler decodes a body.
DELETE_OPTIONS_SHAPE = struct_of(
    "v1.DeleteOptions", gracePeriodSeconds=I64, orphanDependents=BOOL, propagationPolicy=STR, dryRun=STRINGS,
    preconditions=struct_of("v1.Preconditions", uid=STR, resourceVersion=STR),
    ignoreStoreReadErrorWithClusterBreakingPotential=BOOL,
)
LABEL_SELECTOR = struct_of(
    "v1.LabelSelector", matchLabels=STRING_MAP,
    matchExpressions=list_of(struct_of("v1.LabelSelectorRequirement", key=STR, operator=STR, values=STRINGS)),
)
"""``metav1.LabelSelector``."""


def _type_error(value: Any, struct: str, path: str, go: str) -> str:
    return f"json: cannot unmarshal {go_json_type(value)} into Go struct field {struct}.{path} of type {go}"


def _zero(shape: Shape) -> Any:
    if isinstance(shape, (Struct, Map)):
        return {}
    if isinstance(shape, List):
        return []
    return {"string": "", "bool": False, "time": None, "quantity": "0"}.get(shape.go, 0)


# A checker takes a value and returns the first type error under it (in document order) or None;
# it replaces nulls by Go's zero values and drops empty omitempty fields as it goes. A shape is
# compiled once per place it is used (its JSON path and the struct holding it are fixed there,
# as they appear in the error): writes are hot.
Checker = Callable[[Any], "str | None"]
_QUANTITY_ERROR = f"quantities must match the regular expression '{_QUANTITY_FORMAT}'"


class _Never:
    """A type no JSON value has."""


def _scalar_checker(go: str, struct: str, path: str) -> Checker:
    if go in ("string", "bool"):
        wanted = str if go == "string" else bool

        def plain(value: Any) -> str | None:
            return None if type(value) is wanted else _type_error(value, struct, path, go)

        return plain
    if go == "time":  # metav1.Time.UnmarshalJSON decodes a string first
        def time(value: Any) -> str | None:
            return None if type(value) is str else f"json: cannot unmarshal {go_json_type(value)} into Go value of type string"

        return time
    if go == "quantity":  # resource.Quantity.UnmarshalJSON takes a string or a number
        def quantity(value: Any) -> str | None:
            kind = type(value)
            if kind is int or kind is float or (kind is str and _QUANTITY_RE.match(value.strip())):
                return None
            return _QUANTITY_ERROR

        return quantity
    bound = 2 ** (63 if go == "int64" else 31)

    def integer(value: Any) -> str | None:
        kind = type(value)
        if kind is int and -bound <= value < bound:
            return None
        if kind is int or kind is float:
            return f"json: cannot unmarshal number {value} into Go struct field {struct}.{path} of type {go}"
        return _type_error(value, struct, path, go)

    return integer


def _struct_checker(shape: Struct, struct: str, path: str) -> Checker:
    name, go = shape.name, shape.go
    table: dict[str, tuple[Checker, bool, bool, type]] = {}
    for key, child in shape.fields.items():
        keep_null = isinstance(child, Scalar) and child.go == "time"  # encoded as null, not omitted
        omitempty = isinstance(child, (List, Map)) and child.omitempty
        plain: type = {"string": str, "bool": bool}.get(child.go, _Never) if isinstance(child, Scalar) else _Never
        table[key] = (_compile(child, name, f"{path}.{key}" if path else key), keep_null, omitempty, plain)

    def fields(value: Any) -> str | None:
        if type(value) is not dict:
            return _type_error(value, struct, path, go)
        for key in [k for k in value if k in table]:
            checker, keep_null, omitempty, plain = table[key]
            item = value[key]
            if item is None:
                if not keep_null:
                    del value[key]
                continue
            if type(item) is plain:
                continue
            error = checker(item)
            if error:
                return error
            if omitempty and not item:
                del value[key]
        return None

    return fields


def _list_checker(shape: List, struct: str, path: str) -> Checker:
    go, elem, zero = shape.go, _compile(shape.elem, struct, path), shape.elem

    def items(value: Any) -> str | None:
        if type(value) is not list:
            return _type_error(value, struct, path, go)
        for i, item in enumerate(value):
            if item is None:
                value[i] = _zero(zero)
                continue
            error = elem(item)
            if error:
                return error
        return None

    return items


def _map_checker(shape: Map, struct: str, path: str) -> Checker:
    go, check, zero = shape.go, _compile(shape.value, struct, path), shape.value
    plain: type = {"string": str}.get(zero.go, _Never) if isinstance(zero, Scalar) else _Never

    def entries(value: Any) -> str | None:
        if type(value) is not dict:
            return _type_error(value, struct, path, go)
        for key, item in value.items():
            if type(item) is plain:
                continue
            if item is None:
                value[key] = _zero(zero)
                continue
            error = check(item)
            if error:
                return error
        return None

    return entries


def _compile(shape: Shape, struct: str, path: str) -> Checker:
    if isinstance(shape, Scalar):
        return _scalar_checker(shape.go, struct, path)
    if isinstance(shape, Struct):
        return _struct_checker(shape, struct, path)
    if isinstance(shape, List):
        return _list_checker(shape, struct, path)
    return _map_checker(shape, struct, path)


_CHECKERS: dict[tuple[str, int], tuple[Struct, Checker]] = {}


def check_shape(kind: str, version: str, obj: Obj, shape: Struct | None = None) -> None:
    """Raise the 400 the real server's decoder gives when a field the fake reads has the wrong
    JSON type (``Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal ...``,
    ``transformDecodeError`` around encoding/json's ``UnmarshalTypeError``); fill nulls as Go
    would. ``shape`` defaults to the object metadata alone."""
    hit = _CHECKERS.get((kind, id(shape)))
    if hit is None or (shape is not None and hit[0] is not shape):
        compiled = shape or struct_of(f"v1.{kind}", metadata=OBJECT_META)
        hit = _CHECKERS[(kind, id(shape))] = (compiled, _compile(compiled, kind, ""))
    error = hit[1](obj)
    if error:
        raise BadRequest(f"{kind} in version \"{version}\" cannot be handled as a {kind}: {error}")
