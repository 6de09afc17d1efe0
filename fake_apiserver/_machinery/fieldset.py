"""Field sets: which fields of an object a manager owns, as server-side apply counts them.

A field set is a set of paths into an object. A path is a sequence of elements, each written as
``managedFields`` writes it: ``f:name`` (a struct field, or a key of a granular map), ``k:{...}``
(an item of a list of type ``map``, by the values of its ``x-kubernetes-list-map-keys``), ``v:...``
(an item of a list of type ``set``, by its value) and ``i:N`` (a list item by position, which the
Kubernetes types never produce). An atomic list or map (and a scalar) is one path: its items are
never members. Set operations are plain set operations on paths, except
:meth:`FieldSet.without_subtrees`, which also drops the descendants of what it removes (how the
fields a strategy resets are left out).

How a path is made from a value depends on the merge rules of its field
(:class:`~fake_apiserver._machinery.mergerules.FieldType`): a list of type ``map`` names its items
by their keys, a ``set`` by their values; an atomic list or map is one leaf.

:func:`compare` finds what a write changed as structured-merge-diff's comparison does: a leaf (a
scalar, an atomic list or map, or a list or map empty or null on both sides) that is added, removed
or whose value differs; and a granular map, struct or list item that is new (or gone) as a whole,
which is how ``"."`` comes to mark the object itself (a new label map, a new container). A ``null``
on one side counts as present, so a field that the kind's Go zero value writes as ``null`` or
``{}`` is never "added" as a whole (:func:`~fake_apiserver._machinery.gotypes.zero_object`).

:meth:`FieldSet.to_fields_v1` writes ``fieldsV1`` as kube-apiserver does, key for key: ``"."``
first when a member also has members below it, then the elements in structured-merge-diff's
order (field names before keys before values before indices; names by bytes, keys field by field,
values by type then value), keys and values as compact Go JSON (``<``, ``>``, ``&`` escaped).

Written here rather than bound to the Go library: nothing in Python implements these semantics,
and the fake needs them on every write; kept to what a write's managed fields need (no
conversion between versions: a custom resource's versions share their paths).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from fake_apiserver._machinery.mergerules import DEDUCED, FieldType

__all__ = [
    "Comparison",
    "FieldSet",
    "Path",
    "PathElement",
    "compare",
    "fieldset_of",
    "go_json",
    "item_element",
    "path_of",
    "path_text",
]

# ----------------------------------------------------------------------------------- paths


def go_json(value: Any) -> str:
    """Compact JSON as Go's ``encoding/json`` writes it (HTML characters escaped)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _value_rank(value: Any) -> tuple[int, Any]:
    """An order on JSON values: by type (null, booleans, numbers, strings, lists, maps), then value."""
    if value is None:
        return (0, 0)
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, float)):
        return (2, value)
    if isinstance(value, str):
        return (3, value.encode())
    if isinstance(value, list):
        return (4, tuple(_value_rank(v) for v in value))
    return (5, tuple((k.encode(), _value_rank(v)) for k, v in sorted(value.items())))


class PathElement(str):
    """One step of a path, as its ``fieldsV1`` spelling (``f:spec``, ``k:{"name":"c"}``), which
    alone tells elements apart: a ``str``, so that hashing and comparing paths (on every write)
    stay in C. ``kind`` is ``f``, ``k``, ``v`` or ``i``; ``text`` the spelling as a plain ``str``
    (for JSON keys); ``rank`` the order ``fieldsV1`` keys go in."""

    text: str
    rank: tuple[Any, ...]

    def __new__(cls, kind: str, text: str, rank: tuple[Any, ...]) -> PathElement:
        element = super().__new__(cls, text)
        element.text = text
        element.rank = rank
        return element

    @property
    def kind(self) -> str:
        return self.text[0]

    def __repr__(self) -> str:
        return f"PathElement({self.text!r})"

    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def field(name: str) -> PathElement:
        return PathElement("f", "f:" + name, (0, name.encode()))

    @staticmethod
    def key(fields: Mapping[str, Any]) -> PathElement:
        try:  # the keys of scalars, most list items' (a container's name, a condition's type), are kept
            return _scalar_key(tuple((n, type(v), v) for n, v in fields.items()))
        except TypeError:  # a key field holding a list or map
            return PathElement._key(fields)

    @staticmethod
    def _key(fields: Mapping[str, Any]) -> PathElement:
        names = sorted(fields, key=str.encode)
        text = "k:{" + ",".join(f"{go_json(n)}:{go_json(fields[n])}" for n in names) + "}"
        return PathElement("k", text, (1, tuple((n.encode(), _value_rank(fields[n])) for n in names)))

    @staticmethod
    def value(value: Any) -> PathElement:
        return PathElement("v", "v:" + go_json(value), (2, _value_rank(value)))

    @staticmethod
    def position(index: int) -> PathElement:
        return PathElement("i", f"i:{index}", (3, index))

    @staticmethod
    def parse(text: str) -> PathElement:
        """The element a ``fieldsV1`` key spells; ValueError for one that is none."""
        kind, sep, rest = text.partition(":")
        if not sep:
            raise ValueError(f"invalid path element {text!r}")
        if kind == "f":
            return PathElement.field(rest)
        if kind == "k":
            fields = json.loads(rest)
            if not isinstance(fields, dict):
                raise ValueError(f"invalid key {text!r}")
            return PathElement.key(fields)
        if kind == "v":
            return PathElement.value(json.loads(rest))
        if kind == "i":
            return PathElement.position(int(rest))
        raise ValueError(f"invalid path element {text!r}")

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[Any, ...]:
        return (PathElement, (self.kind, self.text, self.rank))


Path = tuple[PathElement, ...]


@functools.lru_cache(maxsize=8192)
def _scalar_key(fields: tuple[tuple[str, type, Any], ...]) -> PathElement:
    return PathElement._key({n: v for n, _, v in fields})


def path_of(*names: str) -> Path:
    """A path of struct fields: ``path_of("metadata", "name")``."""
    return tuple(PathElement.field(n) for n in names)


def path_text(path: Path) -> str:
    """A path as structured-merge-diff writes it in messages: ``.spec.containers[name="c"].image``,
    a set item ``[="x"]``, an index ``[0]``."""
    out = []
    for element in path:
        body = element.text[2:]
        if element.kind == "f":
            out.append("." + body)
        elif element.kind == "k":
            fields = json.loads(body)
            out.append("[" + ",".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in fields.items()) + "]")
        elif element.kind == "v":
            out.append("[=" + body + "]")
        else:
            out.append("[" + body + "]")
    return "".join(out)


class FieldSet:
    """An immutable set of paths."""

    __slots__ = ("paths",)

    def __init__(self, paths: Iterable[Path] = ()) -> None:
        self.paths: frozenset[Path] = frozenset(paths)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __bool__(self) -> bool:
        return bool(self.paths)

    def __contains__(self, path: object) -> bool:
        return path in self.paths

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FieldSet) and other.paths == self.paths

    def __hash__(self) -> int:
        return hash(self.paths)

    def __repr__(self) -> str:
        return f"FieldSet({json.dumps(self.to_fields_v1())})"

    def union(self, *others: FieldSet) -> FieldSet:
        if len(others) == 1 and others[0].paths <= self.paths:
            return self  # unchanged: an entry keeps its encoded fieldsV1
        return FieldSet(self.paths.union(*(o.paths for o in others)))

    def difference(self, other: FieldSet) -> FieldSet:
        if self.paths.isdisjoint(other.paths):
            return self  # unchanged: an entry keeps its encoded fieldsV1
        return FieldSet(self.paths - other.paths)

    def intersection(self, other: FieldSet) -> FieldSet:
        return FieldSet(self.paths & other.paths)

    def without_subtrees(self, other: FieldSet) -> FieldSet:
        """The paths that neither are in ``other`` nor lie below one of its paths."""
        roots = [(len(r), r) for r in other.paths]
        if not roots:
            return self
        return FieldSet(p for p in self.paths if not any(p[:n] == r for n, r in roots))

    def paths_text(self) -> list[str]:
        """The paths as :func:`path_text` writes them, sorted (for messages and test failures)."""
        return sorted(path_text(p) for p in self.paths)

    # ---------------------------------------------------------------------- fieldsV1

    def to_fields_v1(self) -> dict[str, Any]:
        """The ``fieldsV1`` object, keys in kube-apiserver's order (kept: treat it as read-only)."""
        return _fields_v1(self)

    @staticmethod
    def from_fields_v1(fields: Mapping[str, Any]) -> FieldSet:
        """The set a ``fieldsV1`` object holds; ValueError for one that is malformed."""
        try:
            key = orjson.dumps(fields)
        except TypeError:  # not JSON (orjson.JSONEncodeError): the walk says how
            return _parse_fields_v1(fields)
        return _parsed_fields_v1(key)


# A write reads the managedFields of the object it changes and writes them again: the sets
# parsed and the ``fieldsV1`` written are kept by content (both immutable), so objects of one
# shape (the pods of one template, the status a scheduler writes) do that work once.
_MEMO_SIZE = 2048


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _parsed_fields_v1(key: bytes) -> FieldSet:
    return _parse_fields_v1(orjson.loads(key))


def _parse_fields_v1(fields: Mapping[str, Any]) -> FieldSet:
    paths: list[Path] = []

    def walk(node: Mapping[str, Any], prefix: Path) -> None:
        if not isinstance(node, Mapping):
            raise ValueError("fieldsV1 nodes must be objects")
        for text, child in node.items():
            if text == ".":
                if prefix:
                    paths.append(prefix)
                continue
            path = prefix + (PathElement.parse(text),)
            if not child:
                paths.append(path)
            else:
                walk(child, path)

    walk(fields, ())
    return FieldSet(paths)


@functools.lru_cache(maxsize=_MEMO_SIZE)
def _fields_v1(fields: FieldSet) -> dict[str, Any]:
    root: dict[PathElement, Any] = {}
    member = PathElement("", ".", ())  # marks a node that is itself a member; sorts nowhere
    for path in fields.paths:
        node = root
        for element in path:
            node = node.setdefault(element, {})
        node[member] = None

    def emit(node: dict[PathElement, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        children = [e for e in node if e is not member]
        if member in node and children:
            out["."] = {}
        if len(children) > 1:
            children.sort(key=_rank)
        for element in children:
            out[element.text] = emit(node[element])
        return out

    return emit(root)


def _rank(element: PathElement) -> tuple[Any, ...]:
    return element.rank


# ------------------------------------------------------------------------------ comparison

_MISSING: Any = object()
_SORTED = orjson.OPT_SORT_KEYS


_SCALARS = (str, int, float, type(None))
_LEAVES = frozenset((str, int, float, bool, type(None)))
_EQUAL_IS_SAME = frozenset((str, int, bool))  # equal values of one of these types write the same JSON (not floats: -0.0)


def _json_equal(a: Any, b: Any) -> bool:
    if type(a) is type(b) and type(a) in _SCALARS:
        return bool(a == b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _empty(value: Any) -> bool:
    return value is _MISSING or value is None or (isinstance(value, (dict, list)) and not value)


def item_element(ftype: FieldType, index: int, item: Any) -> PathElement | None:
    """The path element of a list item (None when its keys cannot be read)."""
    if ftype.relation == "map" and ftype.keys:
        if not isinstance(item, dict):
            return None
        keys = {k: item[k] if k in item else ftype.key_defaults[k] for k in ftype.keys
                if k in item or k in ftype.key_defaults}
        return PathElement.key(keys) if keys else None
    if ftype.relation == "set":
        return PathElement.value(item)
    return PathElement.position(index)


def _index(ftype: FieldType, items: Any) -> dict[PathElement, Any]:
    out: dict[PathElement, Any] = {}
    if isinstance(items, list):
        keys = ftype.keys
        if ftype.relation == "map" and len(keys) == 1:  # a condition's type, a container's name
            key = keys[0]
            for item in items:
                value = item.get(key) if type(item) is dict else None
                if type(value) is not str:
                    break  # absent, defaulted or not text: item_element's way, from the start
                keyed = _scalar_key(((key, str, value),))
                if keyed not in out:
                    out[keyed] = item
            else:
                return out
            out.clear()
        for i, item in enumerate(items):
            element = item_element(ftype, i, item)
            if element is not None and element not in out:  # a repeated item counts once
                out[element] = item
    return out


@dataclass
class Comparison:
    """What changed between two objects: paths added, modified (a leaf's value) and removed."""

    added: set[Path] = field(default_factory=set)
    modified: set[Path] = field(default_factory=set)
    removed: set[Path] = field(default_factory=set)

    def changed(self) -> FieldSet:
        """Added and modified: what the writer of the change takes."""
        return FieldSet(self.added | self.modified)

    def all(self) -> FieldSet:
        return FieldSet(self.added | self.modified | self.removed)


def _same(lhs: Any, rhs: Any) -> bool:
    """Whether two containers are the same JSON, types included (``true`` is not ``1``, ``1`` not
    ``1.0``): compared in C, first by ``==`` (which stops at the first difference), then, when
    equal, by their sorted JSON (``==`` takes ``True`` for ``1``), unless each member of a map is
    the same object, or an equal text, integer or boolean. A False is only "not known to be the
    same": the comparison then walks them."""
    if lhs is rhs:
        return True
    if type(lhs) is not type(rhs) or lhs != rhs:
        return False
    if type(lhs) is dict:  # a copied map whose members are the very same values (a write's metadata)
        for key, value in lhs.items():
            other = rhs[key]  # equal to value: the maps are
            if other is not value and (type(other) is not type(value) or type(value) not in _EQUAL_IS_SAME):
                break
        else:
            return True
    try:
        return orjson.dumps(lhs, option=_SORTED) == orjson.dumps(rhs, option=_SORTED)
    except TypeError:  # an integer beyond 64 bits (orjson.JSONEncodeError)
        return False


def compare(old: Any, new: Any, ftype: FieldType, prune: FieldSet | None = None) -> Comparison:
    """What turns ``old`` into ``new`` under ``ftype``'s merge rules (module docstring), leaving
    out the paths of ``prune`` and everything below them (as :meth:`FieldSet.without_subtrees` of
    the result would, without walking them). Containers that are the same JSON on both sides hold
    no change and are not walked."""
    walk = _Walk(prune.paths if prune else frozenset())
    walk.walk(old, new, ftype, ())
    return walk.out


_field = PathElement.field


class _Walk:
    """One comparison's walk: methods rather than nested functions, which would refer to each
    other through their closures and so leave a cycle for the garbage collector per comparison
    (a status PATCH's only one)."""

    __slots__ = ("out", "pruned")

    def __init__(self, pruned: frozenset[Path]) -> None:
        self.out = Comparison()
        self.pruned = pruned

    def added(self, rhs: Any, t: FieldType, path: Path) -> None:
        """``walk(_MISSING, rhs, t, path)``: a subtree the old side lacks, every path of it added,
        with nothing to compare."""
        if self.pruned and path in self.pruned:
            return
        kind = t.kind
        if kind == "list" and t.relation != "atomic" and not _empty(rhs):
            elem = t.elem or DEDUCED
            for element, item in _index(t, rhs).items():
                self.added(item, elem, path + (element,))
        elif ((kind == "map" and not t.atomic) or kind == "deduced") and isinstance(rhs, dict) and rhs:
            for key, value in rhs.items():
                child = t.child(key)
                if child is not None:
                    self.added(value, child, path + (_field(key),))
        else:
            self.out.added.add(path)
            return
        if path:
            self.out.added.add(path)

    def walk(self, lhs: Any, rhs: Any, t: FieldType, path: Path) -> None:
        if lhs is _MISSING and rhs is not _MISSING:
            self.added(rhs, t, path)
            return
        if self.pruned and path in self.pruned:
            return
        kind = t.kind
        lhs_type = type(lhs)
        if (lhs_type is dict or lhs_type is list) and _same(lhs, rhs):
            return
        if kind == "list" and t.relation != "atomic" and not (_empty(lhs) and _empty(rhs)):
            old_items, new_items = _index(t, lhs), _index(t, rhs)
            elem = t.elem or DEDUCED
            for element in list(old_items) + [e for e in new_items if e not in old_items]:
                before, after = old_items.get(element, _MISSING), new_items.get(element, _MISSING)
                if before is not after and not (type(before) is type(after) and type(before) in _LEAVES
                                                 and before == after):
                    self.walk(before, after, elem, path + (element,))
        elif ((kind == "map" and not t.atomic) or kind == "deduced") and (isinstance(lhs, dict) or isinstance(rhs, dict)) \
                and not (_empty(lhs) and _empty(rhs)):
            old_map: dict[str, Any] = lhs if isinstance(lhs, dict) else {}
            new_map: dict[str, Any] = rhs if isinstance(rhs, dict) else {}
            fields, other = (None, t) if kind == "deduced" else (t.fields, t.elem)  # FieldType.child
            kept = 0  # keys of old_map that new_map holds: when all of them, and no more, nothing is added
            for key, before in old_map.items():
                after = new_map.get(key, _MISSING)
                if after is not _MISSING:
                    kept += 1
                    if before is after:
                        continue
                    after_type = type(after)
                    if after_type is type(before) and after_type in _LEAVES and before == after:
                        continue  # the same value holds no change, whatever its type
                child = fields.get(key, other) if fields is not None else other
                if child is not None:  # else a field the schema does not declare: pruned before it gets here
                    self.walk(before, after, child, path + (_field(key),))
            if kept != len(new_map):
                for key, after in new_map.items():
                    if key not in old_map:
                        child = fields.get(key, other) if fields is not None else other
                        if child is not None:
                            self.walk(_MISSING, after, child, path + (_field(key),))
        else:
            if lhs is _MISSING:
                self.out.added.add(path)
            elif rhs is _MISSING:
                self.out.removed.add(path)
            elif not _json_equal(lhs, rhs):
                self.out.modified.add(path)
            return
        if path and lhs is _MISSING:
            self.out.added.add(path)
        elif path and rhs is _MISSING:
            self.out.removed.add(path)


def fieldset_of(value: Any, ftype: FieldType) -> FieldSet:
    """Every path an object sets: its leaves, list items, and maps that are empty, null or keys of
    a map (an applied configuration's fields)."""
    paths: set[Path] = set()

    def walk(v: Any, t: FieldType, path: Path, declared: bool) -> None:
        if t.kind == "list" and t.relation != "atomic" and isinstance(v, list):
            elem = t.elem or DEDUCED
            for element, item in _index(t, v).items():
                walk(item, elem, path + (element,), True)
                paths.add(path + (element,))
        elif ((t.kind == "map" and not t.atomic) or t.kind == "deduced") and isinstance(v, dict):
            if path and (not v or not declared):
                paths.add(path)
            for name, member in v.items():
                child = t.child(str(name))
                if child is not None:
                    walk(member, child, path + (PathElement.field(str(name)),), name in t.fields)
        elif path:
            paths.add(path)

    walk(value, ftype, (), True)
    return FieldSet(paths)
