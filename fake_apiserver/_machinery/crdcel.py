"""A CustomResourceDefinition's ``x-kubernetes-validations`` rules, evaluated on a custom object.

kube-apiserver (apiextensions-apiserver, ``pkg/apiserver/schema/cel``) walks the structural
schema and the object together; at each node that carries rules it binds ``self`` to the node's
value (and, on update, ``oldSelf`` to the value it corresponds to in the old object) and runs each
rule. A rule that answers false becomes one field error; a rule that fails to evaluate becomes
another, worded after the CEL runtime's error. This module does the same with cel-cpp (the
``cel_expr_python`` package, as :mod:`fake_apiserver._machinery.cel` does), and renders every
error as the real server does (captured from kube-apiserver v1.37.2, see
tests/fake_apiserver/_machinery/test_crdcel.py):

* a false rule: ``spec: Invalid value: <message>`` for an object or an array (no value shown),
  ``spec.s: Invalid value: "abc": <message>`` for a scalar; ``reason`` turns it into
  ``Forbidden: <message>``, ``Required value: <message>`` or ``Duplicate value[: <scalar>]``;
  ``fieldPath`` is appended to the node's path; the message is ``messageExpression``'s result,
  else ``message`` (trimmed), else ``failed rule: <rule>``;
* a rule that fails to evaluate: ``spec: Invalid value: "object": no such key: y evaluating rule:
  self.y > 0`` (the value is the schema's type, ``""`` for int-or-string), and for a mismatched
  operand ``'no such overload': call arguments did not match ...``;
* a root rule's path is Go's nil path, ``<nil>``.

Which old value a node corresponds to follows the real walk: object fields by name (both granular
and atomic maps), items of ``x-kubernetes-list-type: map`` lists by their keys; other lists'
items have no old value, so their transition rules (those that reference ``oldSelf``) are skipped,
as they are on create, unless ``optionalOldSelf`` is set (``oldSelf`` is then an optional).
On update, an error of a rule that does not reference ``oldSelf``, on a value that did not change,
is *ratcheted*: returned as a warning, not an error (CRDValidationRatcheting, GA). Unchanged is
judged as the real server does: objects by field, ``map`` lists by key, other lists (``set``,
``atomic`` or none said) as a whole, from the nearest comparable parent.

Values as CEL sees them: an object with ``properties`` is a map of its declared fields (names
escaped as Kubernetes does: ``foo-bar`` is ``self.foo__dash__bar``; unknown fields invisible), and
at a resource root (or an ``x-kubernetes-embedded-resource``) ``apiVersion``, ``kind`` and
``metadata.name``/``metadata.generateName``; ``additionalProperties`` objects are maps; arrays are
lists; ``number`` is always a double; ``format: byte`` is bytes; int-or-string and
preserve-unknown-fields values are dynamic.

Functions: the CEL standard library (``size``, ``has``, ``all``, ``exists``, ``exists_one``,
``map``, ``filter``, ``startsWith``, ``endsWith``, ``contains``, ``matches``, ``int``, ``uint``,
``double``, ``string``, ``bytes``, ``timestamp``, ``duration``), the strings extension
(``charAt``, ``indexOf``, ``lastIndexOf``, ``lowerAscii``, ``upperAscii``, ``replace``, ``split``,
``substring``, ``trim``, ``join``, ``reverse``...), ``cel.bind``, optionals, and from Kubernetes'
own library the list functions ``isSorted``, ``sum``, ``min``, ``max`` and the regex functions
``find`` and ``findAll``.

Trade-offs, said plainly:

* Not provided: Kubernetes' ``url``, ``quantity``, ``ip``, ``cidr``, ``semver``, ``format``,
  ``authz`` libraries, the lists' ``indexOf``/``lastIndexOf`` (cel-cpp's strings extension owns
  those names) and the sets extension. A rule that uses one does not compile here; the real
  server would have refused the CRD if it did not compile there, so such a rule is *skipped* and
  named in :attr:`Verdict.skipped` with the reason, never reported as an object's error.
* ``format: date-time``/``date``/``duration`` values are timestamps and durations, as on the
  server; cel-cpp's Python binding takes neither as input, so a node whose value holds one is
  given to its rules as CEL source (``cel.bind(self, {...}, rule)``), compiled per value.
* Cost budgets are not modelled: no rule is refused for cost.
* The order of errors across sibling fields follows the object's own key order; the real server
  walks a Go map, whose order is random, so only the set of errors is comparable there.
* ``matches`` runs on cel-cpp's RE2 (the server's Go regexp takes the same syntax); a bad
  pattern's error is reworded as Go's for the common cases (``missing closing ]``...).
  ``find``/``findAll`` run on Python's ``re``.
* Equality of whole ``set`` and ``map`` lists: the server ignores their order (``[1, 2] ==
  [2, 1]`` for a set); here lists compare in order.
* Whether the structural validation found a blocking error (after which the real server skips
  these rules) is the caller's business.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from .errors import FieldError, GoJSON

__all__ = ["Verdict", "escape_property", "evaluate", "validate"]

#: What the rules see as variables. ``__old``/``__hasOld`` carry an optional ``oldSelf``.
_SELF, _OLD_SELF, _HIDDEN_OLD, _HIDDEN_HAS_OLD = "self", "oldSelf", "__old", "__hasOld"
_RESERVED = frozenset({
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if",
    "import", "let", "loop", "package", "namespace", "return", "var", "void", "while",
})
_IDENTIFIER = re.compile(r"[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*\Z")
_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_NO_OVERLOAD = "no such overload"
_TEMPORAL_FORMATS = frozenset({"date-time", "date", "duration"})
_BOUND_CACHE = 256


@dataclass
class Verdict:
    """What the rules said about one object.

    ``errors`` are the field errors the server answers 422 with; ``warnings`` the errors it
    ratcheted (each as Go's ``Error()`` text, the ``Warning`` header's text); ``skipped`` one line
    per rule this evaluator could not judge, with why.
    """

    errors: list[FieldError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def validate(obj: Mapping[str, Any], schema: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
    """The field errors of ``obj``'s rules (``old`` on update), as the server answers them."""
    return evaluate(obj, schema, old).errors


def evaluate(obj: Any, schema: Mapping[str, Any], old: Any | None = None, *, path: str | None = None,
             resource_root: bool = True) -> Verdict:
    """Run every ``x-kubernetes-validations`` rule of ``schema`` (an ``openAPIV3Schema``) on ``obj``.

    ``old`` is the stored object on update, None on create. ``path`` is where ``obj`` sits (None:
    the root, which Go renders ``<nil>``); ``resource_root`` says ``obj`` is a whole resource, so
    that ``apiVersion``, ``kind`` and ``metadata.name`` are visible to root rules.
    """
    verdict = Verdict()
    root = _Ratchet(obj, old) if old is not None else None
    _Walk(verdict).node(schema, schema, obj, old, path, resource_root, _Correlation(root, None))
    return verdict


def escape_property(name: str) -> str | None:
    """The CEL name of an object's property (``foo-bar`` is ``foo__dash__bar``), None when the
    property cannot be named in CEL (it is then invisible to rules)."""
    if name in _RESERVED:
        return f"__{name}__"
    if not _IDENTIFIER.match(name):
        return None
    return (name.replace("__", "__underscores__").replace(".", "__dot__")
            .replace("-", "__dash__").replace("/", "__slash__"))


# --- field paths, as Go's field.Path renders them -----------------------------------------------

def _child(path: str | None, name: str) -> str:
    return name if path is None else f"{path}.{name}"


def _index(path: str | None, key: int | str) -> str:
    return f"{path or ''}[{key}]"


def _render(path: str | None) -> str:
    return "<nil>" if path is None else path


_SEGMENT = re.compile(r"\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]")


def _rule_field_path(path: str | None, field_path: str, schema: Mapping[str, Any]) -> str | None:
    """The node's path with a rule's ``fieldPath`` (``.a.b``, ``['a-b']``, ``.m['key']``) appended:
    a named property is a child, a key of an ``additionalProperties`` map is ``[key]``."""
    suffix: str | None = None
    node: Mapping[str, Any] = schema
    position = 0
    while position < len(field_path):
        match = _SEGMENT.match(field_path, position)
        if match is None:
            return path  # the CRD validator refuses such a fieldPath; keep the node's own path
        position = match.end()
        name = match.group(1) if match.group(1) is not None else re.sub(r"\\(.)", r"\1", match.group(2))
        properties = node.get("properties")
        additional = node.get("additionalProperties")
        if properties:
            suffix = _child(suffix, name)
            node = properties.get(name, {})
        elif isinstance(additional, Mapping):
            suffix = _index(suffix, name)
            node = additional
        else:
            return path
    return path if suffix is None else _child(path, suffix)


# --- values as CEL sees them --------------------------------------------------------------------

@dataclass
class _Converted:
    temporal: bool = False  # the value holds a _Temporal: it must go in as CEL source


@dataclass(frozen=True)
class _Temporal:
    """A ``date-time``/``date``/``duration`` string, which CEL sees as a timestamp or a duration."""

    call: str
    text: str

    def source(self) -> str:
        text = f"{self.text}T00:00:00Z" if self.call == "date" else self.text
        return f"{'duration' if self.call == 'duration' else 'timestamp'}({_string_literal(text)})"


def _string_literal(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" if ord(c) < 0x10000
                         else f"\\U{ord(c):08x}" for c in text) + '"'


def _literal(value: Any) -> str:
    """CEL source that builds ``value`` (for values the binding cannot take as data)."""
    if isinstance(value, _Temporal):
        return value.source()
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "(-9223372036854775807 - 1)" if value == -(2**63) else f"({value})"
    if isinstance(value, float):
        return f"double({_string_literal(repr(value))})"
    if isinstance(value, str):
        return _string_literal(value)
    if isinstance(value, bytes):
        return 'b"' + "".join(f"\\x{b:02x}" for b in value) + '"'
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_string_literal(str(k))}: {_literal(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(_literal(v) for v in value) + "]"


def _is_object(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" or "properties" in schema or "additionalProperties" in schema


def _to_cel(value: Any, schema: Mapping[str, Any], embedded: bool, flags: _Converted) -> Any:
    if value is None or schema.get("x-kubernetes-int-or-string"):
        return value
    kind = schema.get("type")
    if isinstance(value, Mapping) and (_is_object(schema) or embedded):
        properties: Mapping[str, Any] = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        if properties or embedded:
            out: dict[str, Any] = {}
            if embedded:
                for meta in ("apiVersion", "kind"):
                    if isinstance(value.get(meta), str):
                        out[meta] = value[meta]
                metadata = value.get("metadata")
                if isinstance(metadata, Mapping):
                    out["metadata"] = {k: metadata[k] for k in ("name", "generateName") if k in metadata}
            for name, sub in properties.items():
                escaped = escape_property(name)
                if escaped is not None and name in value and not (embedded and name in ("apiVersion", "kind", "metadata")):
                    out[escaped] = _to_cel(value[name], sub, bool(sub.get("x-kubernetes-embedded-resource")), flags)
            return out
        if isinstance(additional, Mapping):
            return {k: _to_cel(v, additional, bool(additional.get("x-kubernetes-embedded-resource")), flags)
                    for k, v in value.items()}
        return _plain(value)
    if isinstance(value, list) and kind == "array":
        items = schema.get("items") or {}
        return [_to_cel(v, items, bool(items.get("x-kubernetes-embedded-resource")), flags) for v in value]
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "string" and isinstance(value, str):
        fmt = schema.get("format")
        if fmt == "byte":
            try:
                return base64.b64decode(value, validate=True)
            except binascii.Error:
                return value
        if fmt in _TEMPORAL_FORMATS:
            flags.temporal = True
            return _Temporal(str(fmt) if fmt != "date-time" else "timestamp", value)
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _shown(value: Any) -> Any:
    """A scalar as field.Error shows it: Go prints a float64 with ``%v`` (``1``, ``0.5``, ``1e+21``)."""
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value) and abs(value) < 1e21:
            return GoJSON(str(int(value)))
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            sign = "-" if exponent.startswith("-") else "+"
            text = f"{mantissa.removesuffix('.0')}e{sign}{exponent.lstrip('+-').rjust(2, '0')}"
        return GoJSON(text)
    return value


# --- Kubernetes' own functions (the list and regex libraries) ----------------------------------

class _EvalError(Exception):
    """A function's runtime error, worded as cel-go's."""


def _comparable(items: Sequence[Any]) -> None:
    """The list functions take lists of one comparable kind (numbers, strings, bytes, booleans)."""
    kinds = {"number" if isinstance(x, (int, float)) and not isinstance(x, bool) else type(x).__name__ for x in items}
    if len(kinds) > 1 or kinds & {"dict", "list", "NoneType"}:
        raise _EvalError(_NO_OVERLOAD)


def _is_sorted(items: list[Any]) -> bool:
    _comparable(items)
    return all(items[i] <= items[i + 1] for i in range(len(items) - 1))


def _sum(items: list[Any]) -> Any:
    _comparable(items)
    return sum(items) if items else 0


def _extreme(pick: Callable[[list[Any]], Any], name: str) -> Callable[[list[Any]], Any]:
    def impl(items: list[Any]) -> Any:
        if not items:
            raise _EvalError(f"{name} called on empty list")
        _comparable(items)
        return pick(items)
    return impl


def _find(text: str, pattern: str) -> str:
    match = re.search(pattern, text)
    return match.group(0) if match else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list[str]:
    found = [m.group(0) for m in re.finditer(pattern, text)]
    return found if limit < 0 else found[:limit]


def _functions() -> list[cel.FunctionDecl]:
    dyn_list = cel.Type.List(cel.Type.DYN)
    string = cel.Type.STRING

    def member(name: str, ret: cel.Type, params: list[cel.Type], impl: Callable[..., Any]) -> cel.FunctionDecl:
        return cel.FunctionDecl(name, [cel.Overload(f"k8s_{name}_{len(params)}", ret, params, is_member=True, impl=impl)])

    return [
        member("isSorted", cel.Type.BOOL, [dyn_list], _is_sorted),
        member("sum", cel.Type.DYN, [dyn_list], _sum),
        member("min", cel.Type.DYN, [dyn_list], _extreme(min, "min")),
        member("max", cel.Type.DYN, [dyn_list], _extreme(max, "max")),
        member("find", string, [string, string], _find),
        cel.FunctionDecl("findAll", [
            cel.Overload("k8s_findAll_2", cel.Type.List(string), [string, string], is_member=True, impl=_find_all),
            cel.Overload("k8s_findAll_3", cel.Type.List(string), [string, string, cel.Type.INT], is_member=True,
                         impl=_find_all),
        ]),
    ]


@functools.cache
def _env(with_old_self: bool) -> cel.Env:
    variables = {_SELF: cel.Type.DYN, _HIDDEN_OLD: cel.Type.DYN, _HIDDEN_HAS_OLD: cel.Type.BOOL}
    if with_old_self:
        variables[_OLD_SELF] = cel.Type.DYN
    return cel.NewEnv(variables=variables, functions=_functions(),
                      extensions=[ext_strings.ExtStrings(), ext_optional.ExtOptional(), ext_bindings.ExtBindings()])


@dataclass(frozen=True)
class _Program:
    expression: cel.Expression | None
    uses_old_self: bool
    error: str = ""


@functools.lru_cache(maxsize=4096)
def _compile(rule: str, optional_old_self: bool) -> _Program:
    """A rule compiled once; ``oldSelf`` is an optional when the rule says ``optionalOldSelf``."""
    try:
        _env(False).compile(rule)
        uses_old_self = False
    except RuntimeError:
        try:
            _env(True).compile(rule)
        except RuntimeError as error:
            return _Program(None, False, str(error).removeprefix("INVALID_ARGUMENT: ").split("\n")[0])
        uses_old_self = True
    source = rule
    if uses_old_self and optional_old_self:
        source = (f"cel.bind({_OLD_SELF}, {_HIDDEN_HAS_OLD} ? optional.of({_HIDDEN_OLD}) : optional.none(), "
                  f"({rule}))")
    return _Program(_env(True).compile(source), uses_old_self)


@functools.lru_cache(maxsize=_BOUND_CACHE)
def _compile_bound(rule: str, optional_old_self: bool, self_source: str, old_source: str | None) -> cel.Expression:
    """A rule with ``self`` and ``oldSelf`` given as CEL source rather than as data."""
    if old_source is None:
        old = "optional.none()" if optional_old_self else "null"
    else:
        old = f"optional.of({old_source})" if optional_old_self else old_source
    return _env(True).compile(f"cel.bind({_SELF}, {self_source}, cel.bind({_OLD_SELF}, {old}, ({rule})))",
                              disable_check=True)


@dataclass(frozen=True)
class _Bindings:
    """How ``self`` and ``oldSelf`` reach a rule: as data, or (when a value holds a timestamp or a
    duration, which cel-cpp's Python binding does not take as input) as CEL source bound with
    ``cel.bind``."""

    data: Mapping[str, Any]
    self_source: str | None = None
    old_source: str | None = None

    def run(self, rule: str, optional: bool, compiled: cel.Expression) -> tuple[Any, str | None]:
        if self.self_source is None:
            return _run(compiled, self.data)
        try:
            program = _compile_bound(rule, optional, self.self_source, self.old_source)
        except RuntimeError as error:
            return None, _cel_go_error(str(error))
        return _run(program, {_HIDDEN_OLD: None, _HIDDEN_HAS_OLD: False})


def _run(program: cel.Expression, data: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The result, or the runtime error worded as cel-go's."""
    try:
        result = program.eval(data=data)
    except _EvalError as error:
        return None, str(error)
    except RuntimeError as error:
        return None, _cel_go_error(str(error))
    if result.type() == cel.Type.ERROR:
        return None, _cel_go_error(str(result.value()))
    return result.plain_value(), None


_ERROR_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r'Key not found in map : "(.*)"\Z', re.DOTALL), r"no such key: \1"),
    (re.compile(r"Index error: index=(-?\d+) size=\d+\Z"), r"index out of bounds: \1"),
    (re.compile(r"divide by zero\Z"), "division by zero"),
    (re.compile(r"int64 out of uint64 range\Z"), "unsigned integer overflow"),
    (re.compile(r"cannot convert (\w+) to (\w+)\Z"), r"type conversion error from '\1' to '\2'"),
    (re.compile(r"No matching overloads found.*", re.DOTALL), _NO_OVERLOAD),
]
#: RE2's words for a bad pattern (cel-cpp) -> Go regexp's (cel-go): ``error parsing regexp: <code>: `<expr>```.
_REGEX_CODES = {
    "missing ]": "missing closing ]", "missing )": "missing closing )", "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "bad repetition operator": "invalid nested repetition operator", "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class", "invalid character class range": "invalid character class range",
    "invalid named capture group": "invalid named capture", "invalid repetition size": "invalid repeat count",
    "invalid UTF-8": "invalid UTF-8",
}
_BAD_REGEX = re.compile(r"invalid regular expression: (.*?): (.*)\Z", re.DOTALL)


def _cel_go_error(text: str) -> str:
    text = _STATUS_PREFIX.sub("", text)
    bad = _BAD_REGEX.match(text)
    if bad is not None and bad.group(1) in _REGEX_CODES:
        return f"error parsing regexp: {_REGEX_CODES[bad.group(1)]}: `{bad.group(2)}`"
    for pattern, words in _ERROR_WORDS:
        if pattern.match(text):
            return pattern.sub(words, text)
    return text


# --- which old value a node is compared with, for ratcheting ------------------------------------

class _Ratchet:
    """A new value and the old value it corresponds to, with the old-equals-new answer cached."""

    def __init__(self, new: Any, old: Any) -> None:
        self.new, self.old = new, old
        self._equal: bool | None = None

    def equal(self) -> bool:
        if self._equal is None:
            self._equal = _deep_equal(self.new, self.old)
        return self._equal


def _deep_equal(a: Any, b: Any) -> bool:
    """Go's reflect.DeepEqual on decoded JSON: an int64 never equals a float64."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_deep_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class _Correlation:
    """The node's own correlation (None when its old value cannot be found) and the nearest
    correlated ancestor's, whose equality decides when the node has none."""

    current: _Ratchet | None
    parent: _Ratchet | None

    def ratchets(self) -> bool:
        if self.current is not None:
            return self.current.equal()
        return self.parent is not None and self.parent.equal()

    def key(self, name: str, schema: Mapping[str, Any], at_root: bool) -> _Correlation:
        if self.current is None:
            return self
        if self.parent is None and at_root and name in ("apiVersion", "kind"):
            return _Correlation(None, None)
        new, old = self.current.new, self.current.old
        child = None
        typed = name in (schema.get("properties") or {}) or isinstance(schema.get("additionalProperties"), Mapping)
        if isinstance(new, Mapping) and isinstance(old, Mapping) and name in new and name in old and typed:
            child = _Ratchet(new[name], old[name])
        return _Correlation(child, self.current)

    def index(self, position: int, schema: Mapping[str, Any]) -> _Correlation:
        if self.current is None:
            return self
        new, old = self.current.new, self.current.old
        child = None
        keyed = schema.get("x-kubernetes-list-type") == "map"
        if keyed and isinstance(new, list) and isinstance(old, list) and position < len(new):
            found = _map_list_item(schema, old, new[position])
            child = None if found is None else _Ratchet(new[position], found)
        return _Correlation(child, self.current)


def _map_list_item(schema: Mapping[str, Any], old: list[Any], item: Any) -> Any:
    """The item of the old ``map`` list with the same keys as ``item``, else None."""
    keys = schema.get("x-kubernetes-list-map-keys") or []
    if not isinstance(item, Mapping):
        return None
    wanted = [item.get(k) for k in keys]
    for candidate in old:
        if isinstance(candidate, Mapping) and [candidate.get(k) for k in keys] == wanted:
            return candidate
    return None


# --- the walk ------------------------------------------------------------------------------------

def _rules(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    rules = schema.get("x-kubernetes-validations")
    return [r for r in rules if isinstance(r, Mapping)] if isinstance(rules, list) else []


def _has_rules(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return False
    if _rules(schema):
        return True
    nested: Iterator[Any] = iter([schema.get("items"), schema.get("additionalProperties"),
                                  *(schema.get("properties") or {}).values(), *(schema.get("allOf") or [])])
    return any(_has_rules(s) for s in nested)


@dataclass
class _Walk:
    verdict: Verdict

    def node(self, rules_schema: Mapping[str, Any], schema: Mapping[str, Any], value: Any, old: Any,
             path: str | None, resource_root: bool, correlation: _Correlation) -> None:
        """``rules_schema`` holds the rules (the node's schema, or an ``allOf`` entry of it);
        ``schema`` types the value."""
        if value is None or not _has_rules(rules_schema):
            return
        self.rules(rules_schema, schema, value, old, path, resource_root, correlation)
        for entry in rules_schema.get("allOf") or []:
            if isinstance(entry, Mapping):
                self.node(entry, schema, value, old, path, resource_root, _Correlation(None, correlation.parent))
        if isinstance(value, list):
            items, node_items = rules_schema.get("items"), schema.get("items")
            if isinstance(items, Mapping) and isinstance(node_items, Mapping):
                for position, item in enumerate(value):
                    old_item = None
                    if schema.get("x-kubernetes-list-type") == "map" and isinstance(old, list):
                        old_item = _map_list_item(schema, old, item)
                    self.node(items, node_items, item, old_item, _index(path, position),
                              bool(node_items.get("x-kubernetes-embedded-resource")),
                              correlation.index(position, schema))
        elif isinstance(value, Mapping):
            old_map = old if isinstance(old, Mapping) else {}
            additional, node_additional = rules_schema.get("additionalProperties"), schema.get("additionalProperties")
            if isinstance(additional, Mapping) and isinstance(node_additional, Mapping):
                for key, item in value.items():
                    self.node(additional, node_additional, item, old_map.get(key), _index(path, key),
                              bool(node_additional.get("x-kubernetes-embedded-resource")),
                              correlation.key(key, schema, resource_root))
            properties, node_properties = rules_schema.get("properties") or {}, schema.get("properties") or {}
            for key, item in value.items():
                if key in properties and key in node_properties:
                    self.node(properties[key], node_properties[key], item, old_map.get(key), _child(path, key),
                              bool(node_properties[key].get("x-kubernetes-embedded-resource")),
                              correlation.key(key, schema, resource_root))

    def rules(self, rules_schema: Mapping[str, Any], schema: Mapping[str, Any], value: Any, old: Any,
              path: str | None, resource_root: bool, correlation: _Correlation) -> None:
        rules = _rules(rules_schema)
        if not rules:
            return
        flags = _Converted()
        self_value = _to_cel(value, schema, resource_root, flags)
        old_value = None if old is None else _to_cel(old, schema, resource_root, flags)
        data = {_SELF: self_value, _OLD_SELF: old_value, _HIDDEN_OLD: old_value, _HIDDEN_HAS_OLD: old is not None}
        bindings = _Bindings(data)
        if flags.temporal:
            bindings = _Bindings(data, _literal(self_value), None if old is None else _literal(old_value))
        type_name = schema.get("type", "") if not schema.get("x-kubernetes-int-or-string") else ""
        shown: Any = None if type_name in ("object", "array") else _shown(value)
        for rule in rules:
            source = rule.get("rule")
            if not isinstance(source, str) or not source.strip():
                continue
            optional = bool(rule.get("optionalOldSelf"))
            program = _compile(source, optional)
            if program.expression is None:
                self.verdict.skipped.append(f"{_render(path)}: rule {source!r} not evaluated: {program.error}")
                continue
            if program.uses_old_self and old is None and not optional:
                continue  # a transition rule needs an old value to compare with
            result, error = bindings.run(source, optional, program.expression)
            described = _described(rule)
            if error is not None:
                if error == _NO_OVERLOAD:
                    self.verdict.errors.append(FieldError.invalid(_render(path), type_name, (
                        f"'{error}': call arguments did not match a supported operator, function or macro "
                        f"signature for rule: {described}")))
                else:
                    self.verdict.errors.append(
                        FieldError.invalid(_render(path), type_name, f"{error} evaluating rule: {described}"))
                continue
            if result is True:
                continue
            where = path
            field_path = rule.get("fieldPath")
            if isinstance(field_path, str) and field_path:
                where = _rule_field_path(path, field_path, schema)
            detail = self.message(rule, bindings) or _default_message(rule)
            failure = _failure(_render(where), rule.get("reason"), shown, detail)
            if not program.uses_old_self and correlation.ratchets():
                self.verdict.warnings.append(failure.render())
            else:
                self.verdict.errors.append(failure)

    @staticmethod
    def message(rule: Mapping[str, Any], bindings: _Bindings) -> str | None:
        """``messageExpression``'s text, or None when it fails (the server then falls back to
        ``message``, logging the failure)."""
        source = rule.get("messageExpression")
        if not isinstance(source, str) or not source.strip():
            return None
        program = _compile(source, False)
        if program.expression is None:
            return None
        result, error = bindings.run(source, False, program.expression)
        if error is not None or not isinstance(result, str):
            return None
        text = result.strip()
        if not text or "\n" in text or len(text) > 5 * 1024:
            return None
        return text


def _described(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    return message.strip() if isinstance(message, str) and message else str(rule.get("rule", "")).strip()


def _default_message(rule: Mapping[str, Any]) -> str:
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message.strip()
    return f"failed rule: {str(rule.get('rule', '')).strip()}"


def _failure(path: str, reason: Any, shown: Any, detail: str) -> FieldError:
    if reason == "FieldValueForbidden":
        return FieldError.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return FieldError.required(path, detail)
    if reason == "FieldValueDuplicate":
        return FieldError.duplicate(path, shown) if shown is not None else FieldError("FieldValueDuplicate", path)
    if shown is None:
        return FieldError("FieldValueInvalid", path, detail)
    return FieldError.invalid(path, shown, detail)
