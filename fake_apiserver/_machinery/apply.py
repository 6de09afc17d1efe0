"""Server-side apply: an applied configuration merged into the live object, and the managedFields
after it, as kube-apiserver does it.

An apply by manager M (``PATCH`` with ``application/apply-patch+yaml`` and ``?fieldManager=M``):

1. The configuration is merged into the live object
   (:func:`~fake_apiserver._machinery.applyconflicts.merge`); for a create, into the kind's empty
   object.
2. M's Apply entry (identified by manager and subresource, not apiVersion) will own exactly the
   configuration's fields (:func:`~fake_apiserver._machinery.fieldset.fieldset_of`), minus the
   fields the (sub)resource resets and the fields nobody owns.
3. What M applied last time and no longer applies is removed from the object, unless some entry
   (M's new one included, Update entries too) still owns it: a dropped label goes, a label another
   manager also set stays, and a struct field stays while anything below it is owned (a list
   item or map key does not). A map or list a removal empties is left out.
4. Every field the result adds or changes that another entry owns is a conflict (M's own Update
   entries count as others): the apply fails with ``409`` unless forced
   (:mod:`~fake_apiserver._machinery.applyconflicts`); forced, the others lose those fields.
   Fields the result removes are lost by everyone.
5. Entries left empty are dropped, M's too (applying only ``metadata.name`` leaves no entry). M's
   entry takes the write's time only if the object changed; a first apply that changes nothing
   leaves an entry without ``time``.

The result is the object before defaulting and admission: the store defaults and validates it as
for any write. Checked against kube-apiserver v1.37.2
(``tests/fake_apiserver/_machinery/test_apply.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fake_apiserver._machinery.applyconflicts import (
    conflict_causes,
    conflict_message,
    conflicts_with,
    merge,
)
from fake_apiserver._machinery.errors import Conflict as ConflictError
from fake_apiserver._machinery.fieldset import (
    go_json,
    FieldSet,
    Path,
    compare,
    fieldset_of,
    item_element,
)
from fake_apiserver._machinery.managedfields import (
    NEVER_OWNED,
    ManagedEntry,
    decode_managed_fields,
    encode_managed_fields,
    update_managed_fields,
)
from fake_apiserver._machinery.mergerules import DEDUCED, FieldType

__all__ = ["BEFORE_FIRST_APPLY", "AppliedObject", "apply", "typed_config_error"]

_GONE: Any = object()

BEFORE_FIRST_APPLY = "before-first-apply"
"""The manager kube-apiserver names for what an object held before its first tracked apply."""


@dataclass
class AppliedObject:
    """What an apply leaves: the object (before defaulting), its managedFields, and whether the
    object changed."""

    object: Any
    managed_fields: list[dict[str, Any]]
    changed: bool


def _without(value: Any, path: Path, ftype: FieldType, drop_emptied: bool) -> Any:
    """``value`` without what ``path`` names. A map or list a removal empties becomes ``null``
    (structured-merge-diff's removal), or with ``drop_emptied`` is left out (what decoding then
    makes of that ``null``: nothing, for a custom resource and for a Go pointer, slice or map)."""
    if not path:
        return _GONE
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head.kind == "f":
        name = head.text[2:]
        if name not in value:
            return value
        sub = _without(value[name], rest, ftype.child(name) or DEDUCED, drop_emptied)
        out = dict(value)
        if sub is _GONE:
            del out[name]
        else:
            out[name] = sub
        return out if out else (_GONE if drop_emptied else None)
    if isinstance(value, list) and ftype.kind == "list":
        items = []
        for index, item in enumerate(value):
            if item_element(ftype, index, item) == head:
                sub = _without(item, rest, ftype.elem or DEDUCED, drop_emptied)
                if sub is not _GONE:
                    items.append(sub)
            else:
                items.append(item)
        return items if items else (_GONE if drop_emptied else None)
    return value


def _remove(value: Any, paths: FieldSet, ftype: FieldType, drop_emptied: bool = False) -> Any:
    """``value`` without the subtrees ``paths`` name."""
    for path in sorted(paths, key=len):
        value = _without(value, path, ftype, drop_emptied)
        if value is _GONE:
            return {}
    return value


def _with_named_parents(fields: FieldSet, ftype: FieldType) -> FieldSet:
    """``fields`` and every struct field (declared in the schema) above one of them: a set of
    leaves then also holds the struct fields that lead to them, but not map keys or list items."""
    out = set(fields.paths)
    for path in fields.paths:
        t: FieldType | None = ftype
        for depth, element in enumerate(path[:-1]):
            if t is None:
                break
            if element.kind == "f":
                name = element.text[2:]
                if t.kind == "map" and name in t.fields:
                    out.add(path[:depth + 1])
                t = t.child(name)
            else:
                t = t.elem
    return FieldSet(out)


def _prune(merged: Any, last: FieldSet, owners: FieldSet, ftype: FieldType) -> Any:
    """``merged`` without what its applier applied last time (``last``) and no owner (``owners``,
    the applier's new fields among them) holds, a struct field kept while anything below it is
    owned."""
    def members(value: Any) -> FieldSet:
        return _with_named_parents(fieldset_of(value, ftype), ftype)

    last_named = _with_named_parents(last, ftype)
    in_merged = members(merged)
    without_last = members(_remove(merged, last_named, ftype))
    kept = members(_remove(merged, in_merged.difference(without_last.union(_with_named_parents(owners, ftype))), ftype))
    return _remove(merged, in_merged.difference(kept).intersection(last_named), ftype, drop_emptied=True)


def apply(managed: Sequence[Mapping[str, Any]] | None, live: Any, config: Any, ftype: FieldType, *, manager: str,
          api_version: str, time: str, subresource: str = "", reset: FieldSet | None = None, force: bool = False,
          unstructured: bool = False, empty: Any = None) -> AppliedObject:
    """``manager`` applying ``config`` to ``live`` (the kind's empty object for a create) at
    ``api_version`` through ``subresource`` at ``time`` (module docstring). ``reset``: the fields
    the (sub)resource's strategy resets; ``unstructured``: a custom resource (entries written with
    sorted keys). :class:`~fake_apiserver._machinery.errors.Conflict` with kube-apiserver's message
    and causes when the apply conflicts and is not forced.

    A live object that no entry tracks (its managedFields emptied, or a Scale none of whose
    fields its parent's entries own) first gets an Update entry of :data:`BEFORE_FIRST_APPLY`
    owning everything it holds beyond ``empty`` (the kind's empty object), so that an apply
    cannot silently take over fields someone set before tracking began."""
    entries = decode_managed_fields(managed)
    if not entries:
        before = update_managed_fields([], empty if empty is not None else {}, live, ftype, manager=BEFORE_FIRST_APPLY,
                                       api_version=api_version, time=time, subresource=subresource, reset=reset,
                                       creating=True, unstructured=unstructured)
        entries = decode_managed_fields(before)
    mine = ManagedEntry(manager, "Apply", api_version, None, FieldSet(), subresource)
    previous = next((e for e in entries if e.identity == mine.identity), None)
    others = [e for e in entries if e is not previous]
    owned = fieldset_of(config, ftype).difference(NEVER_OWNED)
    if reset:
        owned = owned.without_subtrees(reset)
    result = merge(live, config, ftype)
    if previous is not None and previous.fields:
        applied = fieldset_of(config, ftype)  # not yet without the fields nobody owns
        result = _prune(result, previous.fields, applied.union(*(e.fields for e in others)), ftype)
    changes = compare(live, result, ftype)
    taken, removed = changes.changed(), FieldSet(changes.removed)
    if reset:
        taken, removed = taken.without_subtrees(reset), removed.without_subtrees(reset)
    conflicts = [] if force else conflicts_with(others, taken)
    if conflicts:
        raise ConflictError(conflict_message(conflicts), details={"causes": conflict_causes(conflicts)})
    kept: list[ManagedEntry] = []
    for entry in others:
        entry.fields = entry.fields.difference(taken).difference(removed)
        if entry.fields:
            kept.append(entry)
    changed = not _same(live, result)
    mine.fields = owned
    mine.time = time if changed else (previous.time if previous is not None else None)
    if mine.fields:
        kept.append(mine)
    return AppliedObject(result, encode_managed_fields(kept, unstructured), changed)


def _same(a: Any, b: Any) -> bool:
    return not compare(a, b, DEDUCED).all()


def _key_text(ftype: FieldType, item: Any) -> str:
    """A list-map item's key as structured-merge-diff prints it in a path: ``[name="c"]``,
    ``[containerPort=80,protocol="TCP"]``."""
    keys = {k: item[k] if k in item else ftype.key_defaults.get(k) for k in ftype.keys}
    return "[" + ",".join(f"{k}={go_json(v)}" for k, v in keys.items()) + "]"


def typed_config_error(config: Any, ftype: FieldType) -> str | None:
    """Why an applied configuration cannot be typed by its kind's schema, in
    structured-merge-diff's words (the first problem; None when it can): a field the schema does
    not declare (``.spec.foo: field not declared in schema``), or two items of a list of type
    ``map`` with the same key (``.spec.containers: duplicate entries for key [name="c"]``).
    Values of the wrong JSON type are left to decoding."""
    def walk(value: Any, t: FieldType, path: str) -> str | None:
        if t.kind == "map" and isinstance(value, dict):
            for name, sub in value.items():
                child = t.fields.get(name) or t.elem
                if child is None:
                    return f"{path}.{name}: field not declared in schema"
                problem = walk(sub, child, f"{path}.{name}")
                if problem:
                    return problem
        elif t.kind == "list" and isinstance(value, list) and t.elem is not None:
            seen: set[Any] = set()
            for index, item in enumerate(value):
                at = f"{path}[{index}]"
                if t.relation == "map" and t.keys and isinstance(item, dict):
                    element = item_element(t, index, item)
                    at = path + _key_text(t, item)
                    if element in seen:
                        return f"{path}: duplicate entries for key {_key_text(t, item)}"
                    seen.add(element)
                problem = walk(item, t.elem, at)
                if problem:
                    return problem
        return None
    return walk(config, ftype, "")
