"""Strategic merge patch, the server side: apply a patch document to a stored object.

This is a port of ``k8s.io/apimachinery/pkg/util/strategicpatch`` (``mergeMap`` and the functions it
calls, with the ``MergeOptions{MergeParallelList: true, IgnoreUnmatchedNulls: true}`` that
``StrategicMergeMapPatch`` uses), written by hand because no Python library implements it. It
follows the Go code branch for branch, including the parts that surprise people:

* A merge list keeps the patch's relative order and puts server-only items where their old
  neighbours were, so a new item lands *before* the items the patch did not mention
  (``["a", "b"]`` patched with ``["c"]`` gives ``["c", "a", "b"]``); ``$setElementOrder/<list>``
  fixes the order outright.
* ``{"$patch": "delete"}`` on a map leaves an empty map, not a missing key.
* ``$retainKeys`` works in any map, whatever the schema says (the flag only matters when a client
  creates a patch).
* Go deletes list items in place (``append(s[:i], s[i+1:]...)``), and ``$setElementOrder`` then
  orders server-only items against that shifted list; :func:`_list_directives` does the same.

Where Go stores a patch value without cleaning it (a replaced map or atomic list, a new element of
a merge list), the real server then decodes the result into a typed object, which drops unknown
keys such as ``$patch`` and turns ``null`` into an omitted field. Those values are *scrubbed* here
(directive keys and null map entries removed), so that the result is clean for any caller; the
store then decodes it into the kind's type as the real server does
(:func:`~fake_apiserver._machinery.typed.convert`), wrong types and unknown fields included.

Errors keep the server's codes (``interpretStrategicMergePatchError`` in apiserver
``pkg/endpoints/handlers/patch.go``): the five sentinel format errors are 400, ``ErrNoListOfLists``
is a 422 whose text is lost in ``NewGenericServerResponse``, and every other error (a missing merge
key, a wrong type) is not a ``StatusError`` in Go at all, so the server answers 500 with an empty
reason and Go's own text, ``%v`` maps included, e.g. ``map: map[image:nginx] does not contain
declared merge key: name``.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, TypeVar

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.errors import BadRequest, GenericServerResponse, Invalid, UnknownError

__all__ = ["InvalidPatch", "ListStrategy", "PatchSchema", "go_value", "strategic_merge"]

_MARKER = "$patch"
_DELETE = "delete"
_REPLACE = "replace"
_MERGE = "merge"
_RETAIN_KEYS = "$retainKeys"
_DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList"
_SET_ELEMENT_ORDER = "$setElementOrder"

# mergepatch/errors.go
_ERR_BAD_PRIMITIVE_LIST = "invalid patch format of primitive list"
_ERR_BAD_RETAIN_KEYS = "invalid patch format of retainKeys"
_ERR_BAD_SET_ELEMENT_ORDER = "invalid patch format of setElementOrder list"

_T = TypeVar("_T")

_MAP = "map[string]interface {}"
_LIST = "[]interface {}"


class InvalidPatch(GenericServerResponse, Invalid):
    """``NewGenericServerResponse(422, "", GroupResource{}, "", err.Error(), 0, false)``.

    The server's text for the cause is dropped by that constructor, so every such error reads the
    same, and its ``details`` is an empty object rather than absent.
    """

    MESSAGE = "the server rejected our request due to an error in our request"

    def __init__(self) -> None:
        super().__init__(self.MESSAGE)


def strategic_merge(
    original: dict[str, Any], patch: dict[str, Any], schema: PatchSchema, path: str = ""
) -> dict[str, Any]:
    """Return ``original`` with the strategic merge ``patch`` applied; neither input is mutated.
    The result shares with ``original`` the values the patch does not reach: the maps and lists
    it changes are copies, one level at a time, as the merge goes down.

    ``schema`` maps dotted field paths (``[]`` steps into list elements) to the strategy of merge
    lists; ``path`` is where ``original`` sits in the object (``""`` for the root).
    """
    merger = _Merger(schema)
    merged = merger.merge_map(original, json_copy(patch), path)
    result: dict[str, Any] = merger.finish_along(merged, patch)
    return result


class _Merger:
    """One patch application: the schema, and the patch values to scrub at the end."""

    def __init__(self, schema: PatchSchema) -> None:
        self.schema = schema
        # Patch values stored as they came, to be scrubbed once merging is over: Go reports errors
        # about them (``map[lastProbeTime:<nil>]``) with their nulls still in.
        self.raw: dict[int, Any] = {}

    def keep_raw(self, value: _T) -> _T:
        self.raw[id(value)] = value
        return value

    def finish_along(self, value: Any, patch: Any) -> Any:
        """:meth:`finish` where the patch reached: below a map key the patch (as sent) neither
        names nor orders, everything is the original's, with no patch value to scrub."""
        if id(value) in self.raw or not (isinstance(value, dict) and isinstance(patch, dict)):
            return self.finish(value)
        for key, item in value.items():
            if key in patch:
                value[key] = self.finish_along(item, patch[key])
            elif f"{_SET_ELEMENT_ORDER}/{key}" in patch or f"{_DELETE_FROM_PRIMITIVE_LIST}/{key}" in patch:
                value[key] = self.finish(item)
        return value

    def finish(self, value: Any) -> Any:
        """``value`` with the patch values in it scrubbed; a value that holds none (one of the
        original's, shared) is left as it is."""
        if id(value) in self.raw:
            return _scrub(value)
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, (dict, list)):  # a scalar is as it came
                    done = self.finish(item)
                    if done is not item:
                        value[key] = done
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, (dict, list)):
                    done = self.finish(item)
                    if done is not item:
                        value[i] = done
        return value

    def merge_key(self, path: str) -> str:
        strategy = self.schema.get(path)
        return (strategy.merge_key or "") if strategy is not None else ""

    # mergeMap
    def merge_map(self, original: dict[str, Any] | None, patch: dict[str, Any], path: str) -> dict[str, Any]:
        if _MARKER in patch:
            return self.keep_raw(_map_directive(patch[_MARKER], patch))
        original = {} if original is None else dict(original)  # this level is the merge's own
        _apply_retain_keys(original, patch)
        self.merge_ordered_lists(original, patch, path)
        for key in list(patch):
            value = patch[key]
            delete_list = key.startswith(_DELETE_FROM_PRIMITIVE_LIST)
            if delete_list:
                key = _extract_key(key, _DELETE_FROM_PRIMITIVE_LIST)
            if value is None:
                original.pop(key, None)
                continue
            if key not in original or (type(original[key]) is not type(value)
                                       and _go_type(original[key]) != _go_type(value)):
                if not delete_list:
                    _discard_nulls(value)
                    kept, keep = _remove_directives(value)
                    if keep:
                        original[key] = self.keep_raw(kept)
                    else:
                        original.pop(key, None)
                continue
            sub = f"{path}.{key}" if path else key
            if isinstance(value, dict):
                original[key] = self.merge_map(original[key], value, sub)
            elif isinstance(value, list):
                original[key] = self.merge_list_field(list(original[key]), value, sub, delete_list)
            else:
                original[key] = value
        return original

    # mergeSliceHandler: only merge lists (and delete lists) merge; any other list is replaced.
    def merge_list_field(self, original: list[Any], patch: list[Any], path: str, delete_list: bool) -> list[Any]:
        if path in self.schema or delete_list:
            return self.merge_list(original, patch, path, delete_list)
        return self.keep_raw(patch)

    # mergePatchIntoOriginal: each $setElementOrder/<list> with its list, before anything else.
    def merge_ordered_lists(self, original: dict[str, Any], patch: dict[str, Any], path: str) -> None:
        for directive in [k for k in patch if k.startswith(_SET_ELEMENT_ORDER)]:
            order = patch.pop(directive)
            if not isinstance(order, list):
                raise _bad_arg_type(_LIST, order)
            key = _extract_key(directive, _SET_ELEMENT_ORDER)
            sub = f"{path}.{key}" if path else key
            in_original, in_patch = key in original, key in patch
            original_list: list[Any] = []
            patch_list: list[Any] = []
            if in_original:
                original_list = list(_expect_list(original[key]))  # the merge's own: Go's append writes into it
            if in_patch:
                patch_list = _expect_list(patch[key])
            merge_key = self.merge_key(sub)
            _validate_order(patch_list, order, merge_key)
            if in_original and not in_patch:
                merged = original_list
            elif in_patch and not in_original:
                merged = self.keep_raw(_remove_directives(patch_list)[0])
            elif in_original and in_patch:
                merged = self.merge_list_field(original_list, patch_list, sub, False)
            else:
                continue
            if merge_key:
                items, server_only = _partition_maps(merged, order, merge_key)
            else:
                items, server_only = _partition_primitives(merged, order)
            kind = _element_type(original_list, patch_list)
            original[key] = _normalize_order(items, server_only, order, original_list, merge_key, kind)
            patch.pop(key, None)

    # mergeSlice
    def merge_list(self, original: list[Any], patch: list[Any], path: str, delete_list: bool) -> list[Any]:
        if not original and not patch:
            return original
        kind = _element_type(original, patch)
        merge_key = self.merge_key(path)
        if kind != _MAP:
            if delete_list:
                return [v for v in original if not _contains(patch, v)]
            merged = _dedupe(original + patch)
        else:
            if not merge_key:
                element = "string" if path in self.schema else "struct"
                raise UnknownError(f"cannot merge lists without merge key for {element}")
            size, patch, replace = _list_directives(original, patch, merge_key)
            if replace:
                original = merged = [self.keep_raw(item) for item in patch]
                patch = []
            else:
                merged = self.merge_by_key(original, size, patch, merge_key, path)
                original = original[:size]
        if merge_key:
            items, server_only = _partition_maps(merged, patch, merge_key)
        else:
            items, server_only = _partition_primitives(merged, patch)
        return _normalize_order(items, server_only, patch, original, merge_key, kind)

    def merge_by_key(self, backing: list[Any], size: int, patch: list[Any], merge_key: str, path: str) -> list[Any]:
        """mergeSliceWithoutSpecialElements on the first ``size`` items of ``backing``.

        Like Go's ``append``, a new item first reuses a slot that a deletion freed in the caller's
        list; a later patch item with the same key merges into an earlier new one.
        """
        merged = backing
        for item in patch:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            found = _find(merged[:size], merge_key, item[merge_key])
            if found is not None:
                merged[found] = self.merge_map(merged[found], item, f"{path}[]")
            elif size < len(merged):
                merged[size] = self.keep_raw(item)
                size += 1
            else:
                merged = merged[:size] + [self.keep_raw(item)]
                size += 1
        return merged[:size]


def _map_directive(directive: Any, patch: dict[str, Any]) -> dict[str, Any]:
    """handleDirectiveInMergeMap."""
    if directive == _REPLACE:
        del patch[_MARKER]
        return patch
    if directive == _DELETE:
        return {}
    raise UnknownError(f"unknown patch type: {_go_s(directive)} in map: {go_value(patch)}")


def _apply_retain_keys(original: dict[str, Any], patch: dict[str, Any]) -> None:
    """applyRetainKeysDirective: every patched key must be listed; unlisted keys leave ``original``."""
    if _RETAIN_KEYS not in patch:
        return
    retain = patch.pop(_RETAIN_KEYS)
    if not isinstance(retain, list):
        raise BadRequest(_ERR_BAD_RETAIN_KEYS)
    for key, value in patch.items():
        if value is None or key.startswith((_DELETE_FROM_PRIMITIVE_LIST, _SET_ELEMENT_ORDER)):
            continue
        if key not in retain:
            raise BadRequest(_ERR_BAD_RETAIN_KEYS)
    for key in [k for k in original if k not in retain]:
        del original[key]


def _list_directives(backing: list[Any], patch: list[Any], merge_key: str) -> tuple[int, list[Any], bool]:
    """mergeSliceWithSpecialElements: apply ``$patch`` elements of a merge list.

    Deletions happen in place, as Go's ``append(s[:i], s[i+1:]...)`` does: the caller's list keeps
    its length, its tail shifted left over the deleted item (``$setElementOrder`` then orders by
    that list). Returns (items of ``backing`` still in use, the plain patch items, replace?).
    """
    size = len(backing)
    plain: list[Any] = []
    replace = False
    for item in patch:
        if _MARKER not in item:
            plain.append(item)
            continue
        directive = item[_MARKER]
        if directive == _DELETE:
            if merge_key not in item:
                raise _no_merge_key(item, merge_key)
            while (found := _find(backing[:size], merge_key, item[merge_key])) is not None:
                backing[found : size - 1] = backing[found + 1 : size]
                size -= 1
        elif directive == _REPLACE:
            replace = True
        elif directive == _MERGE:
            raise UnknownError("merging lists cannot yet be specified in the patch")
        else:
            raise UnknownError(f"unknown patch type: {_go_s(directive)} in map: {go_value(item)}")
    return size, plain, replace


def _validate_order(patch_list: list[Any], order: list[Any], merge_key: str) -> None:
    """validatePatchWithSetOrderList: patch items appear in ``order``, in the same relative order."""
    if not order or not patch_list:
        return
    items = _split_deletes(patch_list)[0] if merge_key else patch_list
    i = j = 0
    while i < len(items) and j < len(order):
        if isinstance(items[i], dict) and _MARKER in items[i]:
            i += 1
            continue
        if _merge_key_equal(items[i], order[j], merge_key):
            i += 1
        j += 1
    if i < len(items) and j >= len(order):
        raise UnknownError(
            f"The order in patch list:\n{go_value(patch_list)}\n doesn't match {_SET_ELEMENT_ORDER} list:\n"
            f"{go_value(order)}\n"
        )


def _merge_key_equal(left: Any, right: Any, merge_key: str) -> bool:
    if not merge_key:
        return _same(left, right)
    for item in (left, right):
        if not isinstance(item, dict):
            raise _bad_arg_type(_MAP, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
    return _same(left[merge_key], right[merge_key])


def _split_deletes(items: list[Any]) -> tuple[list[Any], list[Any]]:
    """extractToDeleteItems: (items to keep, items carrying ``$patch: delete``)."""
    keep: list[Any] = []
    delete: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type(_MAP, item)
        (delete if item.get(_MARKER) == _DELETE else keep).append(item)
    return keep, delete


def _partition_primitives(items: list[Any], by: list[Any]) -> tuple[list[Any], list[Any]]:
    present = [v for v in items if _contains(by, v)]
    return present, [v for v in items if not _contains(by, v)]


def _partition_maps(items: list[Any], by: list[Any], merge_key: str) -> tuple[list[Any], list[Any]]:
    present: list[Any] = []
    absent: list[Any] = []
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type(_MAP, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)
        (absent if _find(by, merge_key, item[merge_key]) is None else present).append(item)
    return present, absent


def _normalize_order(
    items: list[Any], server_only: list[Any], order: list[Any], server_order: list[Any], merge_key: str, kind: str
) -> list[Any]:
    """normalizeElementOrder: sort each side by its own order, then interleave by the live order."""
    items = _sort_by(items, order, merge_key, kind)
    server_only = _sort_by(server_only, server_order, merge_key, kind)
    return _merge_sorted(server_only, items, server_order, merge_key, kind)


def _check_maps(items: list[Any], merge_key: str) -> None:
    """Every item a map holding the merge key, or the error Go gives for the first that is not."""
    for item in items:  # a loop, not all() over a generator: called four times a merge list
        if type(item) is not dict or merge_key not in item:
            break
    else:
        return
    for item in items:
        if not isinstance(item, dict):
            raise _bad_arg_type(_MAP, item)
        if merge_key not in item:
            raise _no_merge_key(item, merge_key)


def _sort_by(items: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """normalizeSliceOrder: a stable sort by position in ``order``; deletions go last."""
    deletions: list[Any] = []
    if kind == _MAP:
        _check_maps(items, merge_key)
        _check_maps(order, merge_key)
        for item in items:
            if item.get(_MARKER) == _DELETE:
                items, deletions = _split_deletes(items)
                break
    if len(items) < 2:  # nothing to sort
        return items + deletions
    positions = [_index(order, item, merge_key, kind) for item in items]
    if all(p >= 0 for p in positions):
        ranked = sorted(zip(positions, range(len(items))), key=lambda pair: pair[0])
        return [items[i] for _, i in ranked] + deletions
    # Go's comparator calls an item that is not in ``order`` smaller than anything: replay its insertion sort.
    result = list(items)
    for i in range(1, len(result)):
        j = i
        while j > 0:
            a, b = _index(order, result[j], merge_key, kind), _index(order, result[j - 1], merge_key, kind)
            if a >= 0 and b >= 0 and a >= b:
                break
            result[j], result[j - 1] = result[j - 1], result[j]
            j -= 1
    return result + deletions


def _merge_sorted(left: list[Any], right: list[Any], order: list[Any], merge_key: str, kind: str) -> list[Any]:
    """mergeSortedSlice: take from ``left`` (server-only) only when both are in ``order`` and it comes first."""
    if not left or not right:
        return left + right
    result: list[Any] = []
    i = j = 0
    while i < len(left) and j < len(right):
        li, ri = _index(order, left[i], merge_key, kind), _index(order, right[j], merge_key, kind)
        if li >= 0 and ri >= 0 and li < ri:
            result.append(left[i])
            i += 1
        else:
            result.append(right[j])
            j += 1
    return result + left[i:] + right[j:]


def _index(items: list[Any], value: Any, merge_key: str, kind: str) -> int:
    if kind != _MAP:
        for i, item in enumerate(items):
            if _same(item, value):
                return i
        return -1
    wanted = value.get(merge_key) if isinstance(value, dict) else None
    for i, item in enumerate(items):
        if _same(item.get(merge_key) if isinstance(item, dict) else None, wanted):
            return i
    return -1


def _find(items: list[Any], merge_key: str, value: Any) -> int | None:
    """findMapInSliceBasedOnKeyValue."""
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise UnknownError(f"value for key {i} is not a map")
        if merge_key in item and _same(item[merge_key], value):
            return i
    return None


def _element_type(*lists: list[Any]) -> str:
    """sliceElementType: the one Go type of every element; lists of lists are a 422."""
    found: str | None = None
    for items in lists:
        for item in items:
            kind = _GO_TYPES.get(type(item)) or _go_type(item)
            if found is None:
                found = kind
                if kind == _LIST:
                    raise InvalidPatch()
            elif kind != found:
                raise UnknownError(f"list element types are not identical: {go_value(list(lists))}")
    if found is None:
        raise UnknownError("no elements in any of the given slices")
    return found


def _dedupe(items: list[Any]) -> list[Any]:
    """deduplicateScalars, swap-with-last and all (the order is fixed up afterwards)."""
    items = list(items)
    last = len(items) - 1
    i = 0
    while i < last:
        j = i + 1
        while j <= last:
            if _same(items[i], items[j]):
                items[j] = items[last]
                items = items[:last]
                last -= 1
                j -= 1
            j += 1
        i += 1
    return items


def _extract_key(key: str, prefix: str) -> str:
    parts = key.split("/", 1)
    if len(parts) <= 1 or parts[0] != prefix:
        bad = _ERR_BAD_PRIMITIVE_LIST if prefix == _DELETE_FROM_PRIMITIVE_LIST else _ERR_BAD_SET_ELEMENT_ORDER
        raise BadRequest(bad)
    return parts[1]


def _expect_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _bad_arg_type(_LIST, value)
    return value


def _remove_directives(value: Any) -> tuple[Any, bool]:
    """removeDirectives: a map carrying ``$patch`` is dropped whole; returns (value, keep)."""
    if isinstance(value, dict):
        if _MARKER in value:
            return None, False
        for key in list(value):
            kept, keep = _remove_directives(value[key])
            if keep:
                value[key] = kept
            else:
                del value[key]
        return value, True
    if isinstance(value, list):
        return [kept for kept, keep in map(_remove_directives, value) if keep], True
    return value, True


def _discard_nulls(value: Any) -> None:
    """discardNullValuesFromPatch."""
    if isinstance(value, dict):
        for key in list(value):
            if value[key] is None:
                del value[key]
            else:
                _discard_nulls(value[key])
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)


def _is_directive(key: str) -> bool:
    return key in (_MARKER, _RETAIN_KEYS) or key.startswith((_SET_ELEMENT_ORDER, _DELETE_FROM_PRIMITIVE_LIST))


def _scrub(value: Any) -> Any:
    """What a typed decode keeps of a raw patch value: no directive keys, no null fields."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if v is not None and not _is_directive(k)}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _same(left: Any, right: Any) -> bool:
    """Go's ``==`` on two ``interface{}`` values: the dynamic types must match too (1 is not 1.0)."""
    if type(left) is type(right):
        return bool(left == right)
    return _go_type(left) == _go_type(right) and left == right


def _contains(items: list[Any], value: Any) -> bool:
    return any(_same(item, value) for item in items)


def _no_merge_key(item: Any, merge_key: str) -> UnknownError:
    return UnknownError(f"map: {go_value(item)} does not contain declared merge key: {merge_key}")


def _bad_arg_type(expected: str, actual: Any) -> UnknownError:
    received = "%!s(<nil>)" if actual is None else _go_type(actual)
    return UnknownError(f"expected a {expected}, but received a {received}")


_GO_TYPES = {type(None): "<nil>", bool: "bool", int: "int64", float: "float64", str: "string", dict: _MAP,
             list: _LIST}


def _go_type(value: Any) -> str:
    """The Go type ``json`` decoding gives a value (``PreserveInts``: whole numbers are int64)."""
    found = _GO_TYPES.get(type(value))
    if found is not None:
        return found
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return _MAP
    return _LIST


def _go_s(value: Any) -> str:
    """``%s`` of an ``interface{}``."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    return f"%!s({_go_type(value)}={go_value(value)})"


def go_value(value: Any) -> str:
    """``%v`` of a decoded JSON value: ``map[k:v ...]`` with sorted keys, ``[a b]``, ``<nil>``."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_value(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_float(value: float) -> str:
    """``strconv.FormatFloat(f, 'g', -1, 64)``: shortest digits, exponent form from 1e+06 or below 1e-04."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign, digit_tuple, exponent = decimal.Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0")
    assert isinstance(exponent, int)
    point = len(digit_tuple) + exponent  # digits before the decimal point
    exp = point - 1
    minus = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{minus}{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{minus}{digits}{'0' * (point - len(digits))}"
    return f"{minus}{digits[:point]}.{digits[point:]}"


@dataclass(frozen=True)
class ListStrategy:
    """How strategic merge patch treats one list field.

    ``merge_key`` set: a list of maps merged element by element on that key.
    ``merge_key`` None: a list of primitives merged as a set (``patchStrategy:"merge"`` with no key,
    e.g. ``metadata.finalizers``). ``retain_keys``: the elements also honour ``$retainKeys``
    (``patchStrategy:"merge,retainKeys"``).
    """

    merge_key: str | None
    retain_keys: bool = False


PatchSchema = Mapping[str, ListStrategy]
