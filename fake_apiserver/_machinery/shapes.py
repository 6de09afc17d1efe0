"""Shapes: the Go types of the fields the fake reads, built by hand, and a lenient check of a body
against them, worded as Go's decoder words its errors.

A kind the release's schemas define is decoded with its whole Go type (:mod:`.typed`). Two
bodies are not: ``DeleteOptions`` as the delete handler reads it (:data:`DELETE_OPTIONS_SHAPE`),
and a body of a kind whose declaration gives a ``shape`` while the release has no schema of it.
For those, the fields the fake's own code reads (the registry's rules, validation, selectors) are
described in the same model as a compiled kind, a tree of :class:`~.gotypes.TypeNode` s, built
here by hand (:func:`struct_of`, :func:`list_of` and the shared blocks: object metadata,
resource lists, label selectors) rather than compiled from a schema.

:func:`check_shape` is lenient where typed decoding is strict: it gives the 400 of a field of the
wrong JSON type, with encoding/json's message, and leaves every other field as sent (no unknown
field is dropped, no value rewritten). A ``null`` is what Go makes of it: the zero value (the
field left out; an empty object, or "", inside a list), but ``null`` for a time. An empty list or
map in a field tagged ``omitempty`` is left out too, as the real server never encodes one.

Which type model serves which purpose: :mod:`fake_apiserver._machinery` (its docstring).
"""

from __future__ import annotations

from typing import Any, Callable, Union

from fake_apiserver._machinery import gotypes, quantity
from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._machinery.gotypes import LIST, MAP, STRING, STRUCT, Field, GoField, TypeNode, zero_value
from fake_apiserver._machinery.jsonutil import go_json_type

__all__ = ["BOOL", "DELETE_OPTIONS_SHAPE", "I32", "I64", "LABEL_SELECTOR", "OBJECT_META", "QUANTITY", "RESOURCES",
           "STR", "STRINGS", "STRING_MAP", "TIME", "Shape", "Struct", "check_shape", "list_of", "struct_of"]

Obj = dict[str, Any]

Shape = Union[TypeNode, Field]
"""A struct member as :func:`struct_of` takes it: its type, or a :class:`~.gotypes.Field` when
its tag says more (:func:`list_of` without ``omitempty``)."""

Struct = TypeNode
"""A kind's shape, as its declaration holds it: a struct node made by :func:`struct_of`."""

STR, BOOL = TypeNode(STRING, "string"), TypeNode(gotypes.BOOL, "bool")
I64, I32 = TypeNode(gotypes.INT64, "int64"), TypeNode(gotypes.INT32, "int32")
TIME, QUANTITY = TypeNode(gotypes.TIME, "v1.Time"), TypeNode(gotypes.QUANTITY, "resource.Quantity")
STRINGS = TypeNode(LIST, "[]string", elem=STR)
STRING_MAP = TypeNode(MAP, "map[string]string", elem=STR)
RESOURCES = TypeNode(MAP, "v1.ResourceList", elem=QUANTITY)


def struct_of(go: str, **fields: Shape) -> TypeNode:
    """The struct ``go`` (``v1.PodSpec``) with these fields, each ``omitempty`` unless its
    :class:`~.gotypes.Field` says otherwise."""
    node = TypeNode(STRUCT, go, go.rpartition(".")[2])
    for name, member in fields.items():
        if isinstance(member, Field):
            node.fields[name] = Field(member.node, GoField(name, member.node.go, omitempty=member.omitempty), "", None)
        else:
            node.fields[name] = Field(member, GoField(name, member.go), "", None)
    return node


def list_of(elem: TypeNode, *, omitempty: bool = True) -> Field:
    """A field holding a slice of the struct ``elem`` (named by the :func:`struct_of` it is given to)."""
    return Field(TypeNode(LIST, "[]" + elem.go, elem=elem), GoField("", omitempty=omitempty), "", None)


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


# A checker takes a value and returns the first type error under it (in document order) or None;
# it replaces nulls by Go's zero values and drops empty omitempty fields as it goes. A shape is
# compiled once per place it is used (its JSON path and the struct holding it are fixed there,
# as they appear in the error).
Checker = Callable[[Any], "str | None"]


class _Never:
    """A type no JSON value has."""


def _scalar_checker(node: TypeNode, struct: str, path: str) -> Checker:
    kind, go = node.kind, node.go
    if kind == STRING or kind == gotypes.BOOL:
        wanted = str if kind == STRING else bool

        def plain(value: Any) -> str | None:
            return None if type(value) is wanted else _type_error(value, struct, path, go)

        return plain
    if kind == gotypes.TIME:  # metav1.Time.UnmarshalJSON decodes a string first
        def time(value: Any) -> str | None:
            return None if type(value) is str else f"json: cannot unmarshal {go_json_type(value)} into Go value of type string"

        return time
    if kind == gotypes.QUANTITY:  # resource.Quantity.UnmarshalJSON takes a string or a number
        def amount(value: Any) -> str | None:
            vtype = type(value)
            if vtype is int or vtype is float or (vtype is str and quantity.FORMAT.match(value.strip())):
                return None
            return quantity.FORMAT_ERROR

        return amount
    bound = 2 ** (63 if kind == gotypes.INT64 else 31)

    def integer(value: Any) -> str | None:
        vtype = type(value)
        if vtype is int and -bound <= value < bound:
            return None
        if vtype is int or vtype is float:
            return f"json: cannot unmarshal number {value} into Go struct field {struct}.{path} of type {go}"
        return _type_error(value, struct, path, go)

    return integer


def _struct_checker(node: TypeNode, struct: str, path: str) -> Checker:
    name, go = node.name, node.go
    table: dict[str, tuple[Checker, bool, bool, type]] = {}
    for key, child in node.fields.items():
        keep_null = child.kind == gotypes.TIME  # encoded as null, not omitted
        omitempty = child.kind in (LIST, MAP) and child.omitempty
        table[key] = (_compile(child.node, name, f"{path}.{key}" if path else key), keep_null, omitempty,
                      child.plain or _Never)

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


def _list_checker(node: TypeNode, struct: str, path: str) -> Checker:
    elem = node.elem
    assert elem is not None
    go, check = node.go, _compile(elem, struct, path)

    def items(value: Any) -> str | None:
        if type(value) is not list:
            return _type_error(value, struct, path, go)
        for i, item in enumerate(value):
            if item is None:
                value[i] = zero_value(elem)
                continue
            error = check(item)
            if error:
                return error
        return None

    return items


def _map_checker(node: TypeNode, struct: str, path: str) -> Checker:
    elem = node.elem
    assert elem is not None
    go, check = node.go, _compile(elem, struct, path)
    plain: type = str if elem.kind == STRING else _Never

    def entries(value: Any) -> str | None:
        if type(value) is not dict:
            return _type_error(value, struct, path, go)
        for key, item in value.items():
            if type(item) is plain:
                continue
            if item is None:
                value[key] = zero_value(elem)
                continue
            error = check(item)
            if error:
                return error
        return None

    return entries


def _compile(node: TypeNode, struct: str, path: str) -> Checker:
    if node.kind == STRUCT:
        return _struct_checker(node, struct, path)
    if node.kind == LIST:
        return _list_checker(node, struct, path)
    if node.kind == MAP:
        return _map_checker(node, struct, path)
    return _scalar_checker(node, struct, path)


_CHECKERS: dict[tuple[str, int], tuple[TypeNode, Checker]] = {}


def check_shape(kind: str, version: str, obj: Obj, shape: TypeNode | None = None) -> None:
    """Raise the 400 the real server's decoder gives when a field the fake reads has the wrong
    JSON type (``Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal ...``,
    ``transformDecodeError`` around encoding/json's ``UnmarshalTypeError``); fill nulls as Go
    would. ``shape`` (a :func:`struct_of`) defaults to the object metadata alone."""
    hit = _CHECKERS.get((kind, id(shape)))
    if hit is None or (shape is not None and hit[0] is not shape):
        compiled = shape or struct_of(f"v1.{kind}", metadata=OBJECT_META)
        hit = _CHECKERS[(kind, id(shape))] = (compiled, _compile(compiled, kind, ""))
    error = hit[1](obj)
    if error:
        raise BadRequest(f"{kind} in version \"{version}\" cannot be handled as a {kind}: {error}")
