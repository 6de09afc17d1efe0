"""Declarative validation of built-in kinds: an interpreter of the plans kube-apiserver's generated
validation code follows, with apimachinery's ``pkg/api/validate`` semantics and messages.

Kubernetes validates many kinds declaratively: validation-gen writes, per Go type, a
``Validate_<Type>`` function that runs the type's checks (a union, a dependency, an enum) and then,
field by field, the field's checks in a fixed order, then recurses into the field's type. The fake
does not run Go; ``tools/gen_validations.py`` reads those functions into
``data/validations-v1.NN.json`` (the plans, one per type, and the shapes of the Go structs) and
:func:`validate` executes a plan on a JSON body, as the generated code does on the Go value:

- a field whose value is unchanged on update (Go ``==`` or ``Semantic.DeepEqual``, as the plan
  says) is not validated again (ratcheting); list items are correlated with the old ones by their
  list-map keys, and an item equal to its old one is skipped;
- a check marked short-circuit that fails stops the field's later checks and the recursion (its
  errors are reported or not, as the generated code appends them or not: ``OptionalPointer`` only
  stops);
- ``IfOption`` runs a check only when the named gate is as the plan says;
- alpha checks run (they still stop a field) but their errors are shadowed; beta ones are
  enforced when ``DeclarativeValidationBeta`` is on (``FilterEnforcedDeclarativeErrors``).

A JSON body stands for its Go value: an absent non-pointer field is its zero value (so
``RequiredValue`` finds ``0`` or ``""`` missing), a null or absent list is an empty one, and a
duplicate item is shown as Go's ``json.Marshal`` writes it (struct fields in declaration order,
``omitempty`` honoured). The messages are apimachinery's, through :class:`FieldError`, whose
``render()`` is Go's ``field.Error.Error()``. No kind is named here: the kinds, their types and
their gates are in the data.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from fake_apiserver._machinery import equality, names
from fake_apiserver._machinery.errors import FieldError, GoJSON

__all__ = [
    "BETA_GATE",
    "SUPPORTED_CHECKS",
    "Root",
    "plan_types",
    "releases",
    "root_type",
    "roots",
    "subresources",
    "validate",
]

#: the gate that makes beta checks' errors enforced
BETA_GATE = "DeclarativeValidationBeta"
_DATA = "validations-v{}.json"
_INTS = {"int", "int32", "int64", "uint32", "uint64", "byte"}


@dataclass(frozen=True)
class Root:
    """A kind whose writes kube-apiserver validates declaratively: its group, version and kind,
    the plan type of its objects and the subresource paths (``/``, ``/status``) it covers."""

    group: str
    version: str
    kind: str
    type: str
    subresources: tuple[str, ...]


def _minor(release: str) -> str:
    return ".".join(release.lstrip("v").split(".")[:2])


def releases() -> tuple[str, ...]:
    """The releases (``1.37``) the package has plans for."""
    found = []
    for entry in (resources.files("fake_apiserver") / "data").iterdir():
        m = re.fullmatch(r"validations-v(\d+\.\d+)\.json", entry.name)
        if m:
            found.append(m.group(1))
    return tuple(sorted(found, key=lambda r: tuple(int(p) for p in r.split("."))))


@functools.cache
def _data(minor: str) -> Mapping[str, Any]:
    path = resources.files("fake_apiserver") / "data" / _DATA.format(minor)
    if not path.is_file():
        raise LookupError(f"no declarative validation data for Kubernetes {minor} (have {', '.join(releases())})")
    with path.open("rb") as f:
        loaded: Mapping[str, Any] = json.load(f)
    return loaded


def roots(release: str) -> tuple[Root, ...]:
    """Every kind ``release`` validates declaratively."""
    return tuple(Root(r["group"], r["version"], r["kind"], r["type"], tuple(r["subresources"]))
                 for r in _data(_minor(release))["roots"])


def root_type(group: str, version: str, kind: str, *, release: str) -> str | None:
    """The plan type of a kind's objects, or ``None`` when ``release`` does not validate it declaratively."""
    for root in roots(release):
        if (root.group, root.version, root.kind) == (group, version, kind):
            return root.type
    return None


def subresources(plan_type: str, *, release: str) -> tuple[str, ...]:
    """The subresource paths (``/`` for the object itself) whose writes of a root type are
    validated; kube-apiserver answers an internal error for any other."""
    for root in roots(release):
        if root.type == plan_type:
            return root.subresources
    return ()


def plan_types(release: str) -> tuple[str, ...]:
    return tuple(_data(_minor(release))["plans"])


# --------------------------------------------------------------------------- Go values of JSON


def _strip(type_ref: str) -> tuple[str, str]:
    """``*T`` -> (``*``, ``T``); ``[]T`` -> (``[]``, ``T``); ``map[K]T`` -> (``map``, ``T``); else ("", T)."""
    if type_ref.startswith("*"):
        return "*", type_ref[1:]
    if type_ref.startswith("[]"):
        return "[]", type_ref[2:]
    m = re.match(r"map\[\w+\](.*)", type_ref)
    if m:
        return "map", m.group(1)
    return "", type_ref


@dataclass
class _Types:
    shapes: Mapping[str, Any]

    def zero(self, type_ref: str) -> Any:
        if type_ref == "string" or self.shapes.get(type_ref, {}).get("kind") == "string":
            return ""
        if type_ref in _INTS or self.shapes.get(type_ref, {}).get("kind") in _INTS:
            return 0
        if type_ref == "bool" or self.shapes.get(type_ref, {}).get("kind") == "bool":
            return False
        if self.shapes.get(type_ref, {}).get("kind") == "struct":
            return {}
        return None

    def norm(self, type_ref: str, value: Any) -> Any:
        """The Go value of a JSON value, in a form ``==`` compares as Go's semantic equality does."""
        wrap, inner = _strip(type_ref)
        if wrap == "*":
            return None if value is None else self.norm(inner, value)
        if wrap == "[]":
            return None if not value else [self.norm(inner, item) for item in value]
        if wrap == "map":
            return None if not value else {k: self.norm(inner, v) for k, v in sorted(value.items())}
        shape = self.shapes.get(type_ref)
        if shape is not None and shape["kind"] == "struct":
            value = value if isinstance(value, dict) else {}
            out: dict[str, Any] = {}
            for f in shape["fields"]:
                if f["inline"]:
                    out[f["go"]] = self.norm(f["type"], value)
                else:
                    out[f["json"]] = self.norm(f["type"], value.get(f["json"]))
            return out
        if value is None:
            return self.zero(type_ref)
        return equality.semantic(value)

    def go_json(self, type_ref: str, value: Any) -> str:
        """What Go's ``json.Marshal`` writes of the Go value of ``value``."""
        wrap, inner = _strip(type_ref)
        if wrap and value is None:
            return "null"
        if wrap == "*":
            return self.go_json(inner, value)
        if wrap == "[]":
            return "[" + ",".join(self.go_json(inner, item) for item in value) + "]"
        if wrap == "map":
            return "{" + ",".join(f"{_go_string(k)}:{self.go_json(inner, v)}" for k, v in sorted(value.items())) + "}"
        shape = self.shapes.get(type_ref)
        if shape is not None and shape["kind"] == "struct":
            value = value if isinstance(value, dict) else {}
            parts = []
            for f in shape["fields"]:
                if f["inline"]:
                    inner_json = self.go_json(f["type"], value)[1:-1]
                    if inner_json:
                        parts.append(inner_json)
                    continue
                item = value.get(f["json"])
                if item is None and not _strip(f["type"])[0]:
                    item = self.zero(f["type"])
                if f["omitempty"] and self._empty(f["type"], item):
                    continue
                parts.append(f"{_go_string(f['json'])}:{self.go_json(f['type'], item)}")
            return "{" + ",".join(parts) + "}"
        if isinstance(value, str):
            return _go_string(value)
        return _go_escape(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False))

    def _empty(self, type_ref: str, value: Any) -> bool:
        """encoding/json's ``isEmptyValue``: a struct is never empty."""
        wrap, _ = _strip(type_ref)
        if wrap == "*":
            return value is None
        if wrap:
            return not value
        if self.shapes.get(type_ref, {}).get("kind") == "struct":
            return False
        return value in ("", 0, False, None) and value is not True


def _go_escape(text: str) -> str:
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _go_string(value: str) -> str:
    return _go_escape(json.dumps(value, ensure_ascii=False))


# --------------------------------------------------------------------------- the interpreter


def _child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _is_zero(value: Any) -> bool:
    return value is None or (not isinstance(value, (dict, list)) and value in ("", 0, False))


def _format_errors(checker: Callable[[str], list[str]]) -> Callable[[Any, str], list[FieldError]]:
    def run(value: Any, path: str) -> list[FieldError]:
        if value is None:
            return []
        return [FieldError.invalid(path, value, msg) for msg in checker(value)]
    return run


def _path_segment_name(value: str) -> list[str]:
    """``content.IsPathSegmentName``."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


_FORMATS = {
    "ShortName": _format_errors(names.is_dns1123_label),
    "LongName": _format_errors(names.is_dns1123_subdomain),
    "LabelKey": _format_errors(names.is_qualified_name),
    "PathSegmentName": _format_errors(_path_segment_name),
}
_PRESENCE = {
    # check -> (its kind of emptiness, the error it gives)
    "RequiredValue": ("zero", "required"), "RequiredPointer": ("nil", "required"),
    "RequiredSlice": ("len", "required"), "RequiredMap": ("len", "required"),
    "ForbiddenValue": ("zero", "forbidden"), "ForbiddenPointer": ("nil", "forbidden"),
    "ForbiddenSlice": ("len", "forbidden"), "ForbiddenMap": ("len", "forbidden"),
    "OptionalValue": ("zero", "optional"), "OptionalPointer": ("nil", "optional"),
    "OptionalSlice": ("len", "optional"), "OptionalMap": ("len", "optional"),
}
_UPDATE_MESSAGES = {"NoSet": "field cannot be set once created", "NoUnset": "field cannot be cleared once set",
                    "NoModify": "field cannot be modified once set"}
#: every check the interpreter runs; the data names no other (a test holds it to that)
SUPPORTED_CHECKS = frozenset({
    *_FORMATS, *_PRESENCE, "Immutable", "MaxItems", "MaxBytes", "Minimum", "Maximum", "Enum", "UpdatePointer",
    "UpdateValueByCompare", "ValSliceUpdate", "ValSliceUnique", "EachValSliceVal", "Union", "DependentRequired",
    "DependentForbidden",
})


@dataclass
class _Run:
    """One validation: the data, whether it is an update, the gates, and the errors so far with
    the stability (``None``, ``alpha``, ``beta``) of the check that gave each."""

    plans: Mapping[str, Any]
    types: _Types
    update: bool
    gates: Callable[[str], bool]
    errors: list[tuple[FieldError, str | None]] = field(default_factory=list)

    # ------------------------------------------------------------------ a type

    def plan(self, type_id: str, obj: Any, old: Any, path: str) -> None:
        plan = self.plans.get(type_id)
        if plan is None:
            return
        for check in plan["checks"]:
            found = self.type_check(check, type_id, obj, old, path)
            self.errors.extend((e, check["stability"]) for e in found)
        for f in plan["fields"]:
            self.field(f, obj, old, path)

    def type_check(self, check: Mapping[str, Any], type_id: str, obj: Any, old: Any, path: str) -> list[FieldError]:
        fn = check["fn"]
        if fn == "Enum":
            return self.enum(check, obj, path)
        if fn == "Union":
            return self.union(check, type_id, obj, old, path)
        if fn in ("DependentRequired", "DependentForbidden"):
            trigger, dependent = check["trigger"], check["dependent"]
            if self.update and old is not None and (
                    self.is_set(type_id, trigger, obj) == self.is_set(type_id, trigger, old)
                    and self.is_set(type_id, dependent, obj) == self.is_set(type_id, dependent, old)):
                return []
            if not self.is_set(type_id, trigger, obj):
                return []
            dependent_set = self.is_set(type_id, dependent, obj)
            if fn == "DependentRequired" and not dependent_set:
                return [FieldError.required(_child(path, dependent["name"]), f"must be set when {trigger['name']} is set")]
            if fn == "DependentForbidden" and dependent_set:
                return [FieldError.forbidden(_child(path, dependent["name"]),
                                             f"may not be set when {trigger['name']} is set")]
            return []
        raise LookupError(f"declarative check {fn} is not supported")

    def is_set(self, type_id: str, member: Mapping[str, Any], obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        name = member.get("json") or member["name"]
        value = obj.get(name)
        if member["set"] == "nonnil":
            return value is not None
        if member["set"] == "nonempty":
            return bool(value)
        return not _is_zero(value)

    def union(self, check: Mapping[str, Any], type_id: str, obj: Any, old: Any, path: str) -> list[FieldError]:
        members = check["members"]
        specified, changed = [], False
        for member in members:
            new_set = self.is_set(type_id, member, obj)
            if self.update and not changed:
                changed = new_set != self.is_set(type_id, member, old)
            if new_set:
                specified.append(member["json"])
        if self.update and old is not None and not changed:
            return []
        every = ", ".join(f"`{m['json']}`" for m in members)
        errs = []
        if len(specified) > 1:
            errs.append(FieldError.invalid(path, "{" + ", ".join(specified) + "}", f"must specify exactly one of: {every}"))
        if not specified:
            errs.append(FieldError.invalid(path, "", f"must specify one of: {every}"))
        return errs

    def enum(self, check: Mapping[str, Any], value: Any, path: str) -> list[FieldError]:
        if value is None or value in check["values"]:
            return []
        return [FieldError.not_supported(path, value, list(check["values"]))]

    # ------------------------------------------------------------------ a field

    def read(self, f: Mapping[str, Any], parent: Any) -> Any:
        """The Go value a field points at: a non-pointer field's zero value when absent."""
        if parent is None:
            return None
        value = parent.get(f["json"]) if isinstance(parent, dict) else None
        if f["kind"] in ("value", "struct") and value is None:
            return self.types.zero(f["type"])
        return value

    def field(self, f: Mapping[str, Any], obj: Any, old_parent: Any, path: str) -> None:
        path = _child(path, f["json"])
        value, old = self.read(f, obj), self.read(f, old_parent)
        correlated = old_parent is not None
        if correlated and self.update and self.types.norm(f["type"], value) == self.types.norm(f["type"], old):
            return  # don't revalidate unchanged data (Go == or Semantic.DeepEqual: the same normal forms)
        stop = False
        for check in f["checks"]:
            if not check["short_circuit"]:
                if stop:
                    return
                continue
            option = check["option"]
            if option is not None and bool(self.gates(option["name"])) != option["enabled"]:
                continue
            found = self.check(check, f, value, old, path)
            if found:
                stop = True
                if check["report"]:
                    self.errors.extend((e, check["stability"]) for e in found)
        if stop:
            return
        for check in f["checks"]:
            if check["short_circuit"]:
                continue
            option = check["option"]
            if option is not None and bool(self.gates(option["name"])) != option["enabled"]:
                continue
            if check["fn"] == "EachValSliceVal":
                self.each(check, f, value, old, path)
                continue
            found = self.check(check, f, value, old, path)
            if check["report"]:
                self.errors.extend((e, check["stability"]) for e in found)
        if f["validate"]:
            self.plan(f["validate"], value, old, path)

    def check(self, check: Mapping[str, Any], f: Mapping[str, Any], value: Any, old: Any,
              path: str) -> list[FieldError]:
        fn = check["fn"]
        if fn in _PRESENCE:
            how, error = _PRESENCE[fn]
            empty = {"zero": _is_zero(value), "nil": value is None, "len": not value}[how]
            if error == "forbidden":
                return [] if empty else [FieldError.forbidden(path, "")]
            if not empty:
                return []
            return [FieldError.required(path, "" if error == "required" else "optional value was not specified")]
        if fn == "Immutable":
            return [FieldError.invalid(path, None, "field is immutable")] if self.update else []
        if fn == "MaxItems":
            limit = check["args"][0]
            if len(value or ()) <= limit:
                return []
            return [FieldError("FieldValueTooMany", path, f"must have at most {limit} item{'' if limit == 1 else 's'}",
                               len(value))]
        if fn in ("Minimum", "Maximum"):
            bound = check["args"][0]
            if value is None or (value >= bound if fn == "Minimum" else value <= bound):
                return []
            word = "greater" if fn == "Minimum" else "less"
            return [FieldError.invalid(path, value, f"must be {word} than or equal to {bound}")]
        if fn in _FORMATS:
            return _FORMATS[fn](value, path)
        if fn == "MaxBytes":
            limit = check["args"][0]
            return [FieldError.too_long(path, limit)] if value is not None and names.nbytes(value) > limit else []
        if fn == "Enum":
            return self.enum(check, value, path)
        if fn in ("UpdatePointer", "UpdateValueByCompare"):
            return self.update_constraints(check, fn, value, old, path)
        if fn == "ValSliceUpdate":
            return self.slice_update(check, f, value or [], old, path)
        if fn == "ValSliceUnique":
            return self.unique(check, f, value or [], path)
        raise LookupError(f"declarative check {fn} is not supported")

    def update_constraints(self, check: Mapping[str, Any], fn: str, value: Any, old: Any,
                           path: str) -> list[FieldError]:
        if not self.update or (fn == "UpdateValueByCompare" and old is None):
            return []
        unset = (lambda v: v is None) if fn == "UpdatePointer" else _is_zero
        errs = []
        for constraint in check["constraints"]:
            hit = {"NoSet": unset(old) and not unset(value), "NoUnset": not unset(old) and unset(value),
                   "NoModify": not unset(old) and not unset(value)}.get(constraint, False)
            if hit:
                errs.append(FieldError.invalid(path, None, _UPDATE_MESSAGES[constraint]))
        return errs

    def matches(self, keys: list[str], elem: str, a: Any, b: Any) -> bool:
        na, nb = self.types.norm(elem, a), self.types.norm(elem, b)
        return all(na.get(k) == nb.get(k) for k in keys) if isinstance(na, dict) else na == nb

    def lookup(self, keys: list[str], elem: str, items: list[Any], target: Any) -> Any:
        for item in items:
            if self.matches(keys, elem, item, target):
                return item if item is not None else {}
        return None

    def slice_update(self, check: Mapping[str, Any], f: Mapping[str, Any], value: list[Any], old: Any,
                     path: str) -> list[FieldError]:
        if not self.update:
            return []
        old = old or []
        elem = _strip(f["type"])[1]
        errs = []
        for constraint in check["constraints"]:
            if constraint in ("NoSet", "NoUnset"):
                hit = (not old and value) if constraint == "NoSet" else (old and not value)
                if hit:
                    errs.append(FieldError.invalid(path, None, _UPDATE_MESSAGES[constraint]))
            elif constraint == "NoAddItem":
                errs.extend(FieldError.forbidden(f"{path}[{i}]", "item may not be added")
                            for i, item in enumerate(value) if self.lookup(check["keys"], elem, old, item) is None)
            elif constraint == "NoRemoveItem":
                errs.extend(FieldError.forbidden(path, "item may not be removed")
                            for item in old if self.lookup(check["keys"], elem, value, item) is None)
        return errs

    def unique(self, check: Mapping[str, Any], f: Mapping[str, Any], value: list[Any], path: str) -> list[FieldError]:
        elem = _strip(f["type"])[1]
        dups: list[int] = []
        for i in range(len(value)):
            for j in range(i + 1, len(value)):
                if j not in dups and self.matches(check["keys"], elem, value[i], value[j]):
                    dups.append(j)
        return [FieldError.duplicate(f"{path}[{i}]", GoJSON(self.types.go_json(elem, value[i]))) for i in sorted(dups)]

    def each(self, check: Mapping[str, Any], f: Mapping[str, Any], value: Any, old: Any, path: str) -> None:
        elem = _strip(f["type"])[1]
        for i, item in enumerate(value or []):
            item = item if item is not None else self.types.zero(elem)
            previous = None
            if check["keys"] is not None and old:
                previous = self.lookup(check["keys"], elem, old, item)
            if self.update and previous is not None and (
                    check["equiv"] is None or self.types.norm(elem, item) == self.types.norm(elem, previous)):
                continue
            before = len(self.errors)
            self.plan(check["validate"], item, previous, f"{path}[{i}]")
            if check["stability"]:
                self.errors[before:] = [(e, s or check["stability"]) for e, s in self.errors[before:]]


def validate(plan_type: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None, *, release: str,
             gates: Callable[[str], bool], path: str = "") -> list[FieldError]:
    """The errors kube-apiserver's declarative validation of ``release`` reports for a create
    (``old`` is ``None``) or an update of ``obj``, a JSON body of the plan type ``plan_type``
    (``root_type``), after defaulting; ``gates`` answers whether a feature gate is on. The errors
    are in the order the generated code appends them; alpha checks' errors are left out, beta
    ones too unless :data:`BETA_GATE` is on."""
    data = _data(_minor(release))
    if plan_type not in data["plans"]:
        raise LookupError(f"no declarative validation plan {plan_type!r} for Kubernetes {_minor(release)}")
    run = _Run(data["plans"], _Types(data["shapes"]), old is not None, gates)
    run.plan(plan_type, dict(obj), dict(old) if old is not None else None, path)
    beta = bool(gates(BETA_GATE))
    return [e for e, stability in run.errors if stability is None or (stability == "beta" and beta)]
