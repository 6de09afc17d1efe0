"""Type checking of DRA device selectors, with the words kube-apiserver's CEL compiler (cel-go) uses.

kube-apiserver compiles every ``cel.expression`` of a ResourceClaim, a ResourceClaimTemplate or a
DeviceClass selector against one environment (``k8s.io/dynamic-resource-allocation/cel``): a
variable ``device`` of object type ``kubernetes.DRADevice`` with the fields ``driver`` (string),
``attributes`` (domain -> name -> ``google.protobuf.Any``), ``capacity`` (domain -> name ->
``kubernetes.Quantity``) and ``allowMultipleAllocations`` (bool), over Kubernetes' base CEL
library. An expression that does not check is refused with ``compilation failed: `` and cel-go's
report; one that checks but is neither a bool nor cel-go's "unknown type" (``google.protobuf.Any``,
which only an attribute value has; ``dyn`` is refused) with ``must evaluate to bool or the unknown
type, not <type>``. This module asks cel-cpp (``cel_expr_python``, as :mod:`.cel` does) the same
questions and words the answers as cel-go does (captured from kube-apiserver v1.37.2, see
tests/fake_apiserver/_machinery/test_dra_cel.py): cel-go names the first identifier of an unknown
qualified name where cel-cpp names it whole, writes a method's arguments ``string.(int)`` and
``null`` for ``null_type``, does not report errors that follow from an earlier one, and sorts by
position.

How the environment is built, and what it costs:

* cel-cpp's Python binding declares object types only from protobuf descriptors, which need the
  ``protobuf`` package; instead ``device`` is an opaque type and each of its fields a variable of
  its own with a qualified name (``device.driver``...), which CEL's name resolution prefers. A
  select of any other field of ``device`` is then cel-cpp's "cannot be the operand of a select
  operation", reworded as cel-go's ``undefined field``. cel-cpp resolves ``has(device.driver)`` to
  the field's own type rather than bool, so in a ``has()`` of a known field ``device`` is replaced
  by a map literal of the same length before checking (positions are kept; the report quotes the
  original text).
* Attribute values are ``dyn`` for the check. The type of a result that is not a bool, and the
  argument types of an overload error, come from a second environment where attribute values are
  opaque, so that they can be named as cel-go names them (``google.protobuf.Any``; ``any`` in an
  overload error). A result that uses attribute values in operations is not judged.
* Declared from Kubernetes' library: ``quantity`` and ``semver`` with their methods, ``isSorted``,
  ``sum``, ``min``, ``max`` (results dyn, so a non-bool result of these is not judged), ``find``,
  ``findAll``; with cel-cpp's strings extension, optionals and ``cel.bind``. The rest of the
  library (``url``, ``ip``, ``cidr``, ``sets``, ``format``, the lists extension, the lists'
  ``indexOf``, two-variable comprehensions...) is not declared: an expression whose errors name one
  of them is not judged (accepted), never refused on this module's ignorance.
* A ``matches`` whose pattern is a string literal that RE2 refuses is ``invalid matches argument``
  (cel-go checks such literals when compiling; RE2 and Go's regexp take the same syntax).
* Not modelled, so accepted here where the server refuses: the cost limit (``Forbidden: too
  complex, exceeds cost limit``), ``format``'s check of its arguments, list and map literals of
  mixed types (``expected type 'kubernetes.Quantity' but found 'int'``: the server's environment
  wants homogeneous literals) and wrong receivers of the lists extension (``flatten``,
  ``reverse``).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from .cel import report

__all__ = ["type_error"]

_STRING, _BOOL, _INT = cel.Type.STRING, cel.Type.BOOL, cel.Type.INT
_QUANTITY = cel.Type.AbstractType("kubernetes.Quantity")
_SEMVER = cel.Type.AbstractType("kubernetes.Semver")
_DEVICE = cel.Type.AbstractType("kubernetes.DRADevice")
# an attribute value, opaque; named apart from google.protobuf.Any, which cel-cpp takes as its own
_ATTRIBUTE_VALUE = "kubernetes.DRAAttributeValue"
_ANY = cel.Type.AbstractType(_ATTRIBUTE_VALUE)
_FIELDS = ("driver", "attributes", "capacity", "allowMultipleAllocations")

#: Names of Kubernetes' CEL library (and cel-go extensions in its base environment) that this
#: module does not declare: an error about one of them means "not judged".
_UNMODELLED = frozenset({
    "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
    "ip", "isIP", "cidr", "isCIDR", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "isCanonical", "containsIP", "containsCIDR", "masked",
    "prefixLength", "ip.isCanonical", "sets", "sets.contains", "sets.equivalent", "sets.intersects",
    "format", "indexOf", "lastIndexOf", "all", "exists", "existsOne", "exists_one", "transformList",
    "transformMap", "transformMapEntry", "strings", "quote", "lists", "range", "slice",
    "flatten", "distinct", "sort", "sortBy", "reverse", "first", "last", "named",
})


def _method(name: str, ret: cel.Type, receiver: cel.Type, *params: cel.Type) -> cel.Overload:
    kind = receiver.name().rsplit(".", 1)[-1].lower()
    return cel.Overload(f"k8s_{kind}_{name}_{len(params)}", ret, [receiver, *params], is_member=True)


def _global(name: str, ret: cel.Type, *params: cel.Type) -> cel.Overload:
    return cel.Overload(f"k8s_{name}_{len(params)}", ret, list(params))


def _functions() -> list[cel.FunctionDecl]:
    """Declarations only: selectors are compiled here, never evaluated."""
    dyn_list = cel.Type.List(cel.Type.DYN)
    comparisons = ("isLessThan", "isGreaterThan")
    decls = {
        "quantity": [_global("quantity", _QUANTITY, _STRING)],
        "isQuantity": [_global("isQuantity", _BOOL, _STRING)],
        "semver": [_global("semver", _SEMVER, _STRING), _global("semver", _SEMVER, _STRING, _BOOL)],
        "isSemver": [_global("isSemver", _BOOL, _STRING), _global("isSemver", _BOOL, _STRING, _BOOL)],
        "sign": [_method("sign", _INT, _QUANTITY)],
        "isInteger": [_method("isInteger", _BOOL, _QUANTITY)],
        "asInteger": [_method("asInteger", _INT, _QUANTITY)],
        "asApproximateFloat": [_method("asApproximateFloat", cel.Type.DOUBLE, _QUANTITY)],
        "add": [_method("add", _QUANTITY, _QUANTITY, _QUANTITY),
                cel.Overload("k8s_quantity_add_int", _QUANTITY, [_QUANTITY, _INT], is_member=True)],
        "sub": [_method("sub", _QUANTITY, _QUANTITY, _QUANTITY),
                cel.Overload("k8s_quantity_sub_int", _QUANTITY, [_QUANTITY, _INT], is_member=True)],
        "compareTo": [_method("compareTo", _INT, _QUANTITY, _QUANTITY), _method("compareTo", _INT, _SEMVER, _SEMVER)],
        "major": [_method("major", _INT, _SEMVER)],
        "minor": [_method("minor", _INT, _SEMVER)],
        "patch": [_method("patch", _INT, _SEMVER)],
        "isSorted": [cel.Overload("k8s_isSorted", _BOOL, [dyn_list], is_member=True)],
        "sum": [cel.Overload("k8s_sum", cel.Type.DYN, [dyn_list], is_member=True)],
        "min": [cel.Overload("k8s_min", cel.Type.DYN, [dyn_list], is_member=True)],
        "max": [cel.Overload("k8s_max", cel.Type.DYN, [dyn_list], is_member=True)],
        "find": [_method("find", _STRING, _STRING, _STRING)],
        "findAll": [_method("findAll", cel.Type.List(_STRING), _STRING, _STRING),
                    _method("findAll", cel.Type.List(_STRING), _STRING, _STRING, _INT)],
    }
    for name in comparisons:
        decls[name] = [_method(name, _BOOL, _QUANTITY, _QUANTITY), _method(name, _BOOL, _SEMVER, _SEMVER)]
    return [cel.FunctionDecl(name, overloads) for name, overloads in decls.items()]


@functools.cache
def _env(opaque_attributes: bool) -> cel.Env:
    """The selectors' environment; attribute values are dyn, or with ``opaque_attributes`` an
    opaque ``google.protobuf.Any`` (to name the type of an expression as cel-go does)."""
    attribute = _ANY if opaque_attributes else cel.Type.DYN

    def by_domain(value: cel.Type) -> cel.Type:
        return cel.Type.Map(_STRING, cel.Type.Map(_STRING, value))

    variables = {"device": _DEVICE, "device.driver": _STRING, "device.attributes": by_domain(attribute),
                 "device.capacity": by_domain(_QUANTITY), "device.allowMultipleAllocations": _BOOL}
    return cel.NewEnv(variables=variables, functions=_functions(),
                      extensions=[ext_strings.ExtStrings(), ext_optional.ExtOptional(), ext_bindings.ExtBindings()])


# has(device.<field>): cel-cpp types it as the field; a same-length map literal keeps it a bool.
_HAS_FIELD = re.compile(r"\bhas\(\s*(device)\s*\.\s*(" + "|".join(_FIELDS) + r")\s*\)")
_MAP_LITERAL = '{"":0}'


def _checked_source(expression: str) -> str:
    return _HAS_FIELD.sub(lambda m: m.group(0).replace(m.group(1), _MAP_LITERAL, 1), expression)


@dataclass(frozen=True)
class _Issue:
    line: int
    column: int
    message: str


_ISSUE = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*?)(?:\n \| [^\n]*\n \| [. ]*\^)?(?=\nERROR: <input>:|\Z)", re.DOTALL)
_UNDECLARED = re.compile(r"undeclared reference to '([^']*)' \(in container '([^']*)'\)\Z")
_NOT_SELECTABLE = re.compile(r"expression of type '([^']*)' cannot be the operand of a select operation\Z")
_NO_OVERLOAD = re.compile(r"found no matching overload for '([^']*)' applied to '\((.*)\)'\Z", re.DOTALL)
_FIELD_AFTER = re.compile(r"\s*(?:\(\s*device\s*)?\.\s*([A-Za-z_][A-Za-z0-9_]*)")


def _issues(error: RuntimeError) -> list[_Issue]:
    return [_Issue(int(m.group(1)), int(m.group(2)), m.group(3)) for m in _ISSUE.finditer(report(error))]


def _offset(lines: list[str], issue: _Issue) -> tuple[str, int]:
    """The issue's source line and the 0-based index of its column in it."""
    text = lines[issue.line - 1] if 0 < issue.line <= len(lines) else ""
    return text, max(issue.column - 1, 0)


def _unjudged(issue: _Issue) -> bool:
    """The issue names a part of Kubernetes' library that is not declared here."""
    undeclared = _UNDECLARED.match(issue.message)
    if undeclared:
        return undeclared.group(1) in _UNMODELLED or undeclared.group(1).split(".")[0] in _UNMODELLED
    overload = _NO_OVERLOAD.match(issue.message)
    return overload is not None and overload.group(1) in _UNMODELLED


def _go_issue(issue: _Issue, lines: list[str], opaque: dict[tuple[int, int], str]) -> _Issue | None:
    """cel-cpp's issue in cel-go's words and position; None for an issue cel-go does not report
    (a consequence of an earlier one). ``opaque``: the argument types of the overload errors found
    with attribute values opaque, by position (they name attribute values as cel-go does)."""
    text, index = _offset(lines, issue)
    undeclared = _UNDECLARED.match(issue.message)
    if undeclared and "." in undeclared.group(1):
        # cel-go names the first identifier of an unresolved qualified name, at its start
        head = undeclared.group(1).rpartition(".")[0]
        start = index - len(head)
        if start >= 0 and text[start:index] == head:
            name = head.split(".")[0]
            return _Issue(issue.line, start + 1, f"undeclared reference to '{name}' (in container '{undeclared.group(2)}')")
        return issue
    selectable = _NOT_SELECTABLE.match(issue.message)
    if selectable:
        kind = selectable.group(1)
        if kind == "*error*":
            return None
        if kind == _DEVICE.name():
            field = _FIELD_AFTER.match(text, index)
            return _Issue(issue.line, issue.column, f"undefined field '{field.group(1) if field else ''}'")
        return _Issue(issue.line, issue.column, f"type '{_go_type(kind)}' does not support field selection")
    overload = _NO_OVERLOAD.match(issue.message)
    if overload:
        arguments = opaque.get((issue.line, issue.column), overload.group(2))
        if "*error*" in arguments:
            return None
        return _Issue(issue.line, issue.column,
                      f"found no matching overload for '{overload.group(1)}' applied to '{_go_arguments(overload.group(1), arguments, text[:index])}'")
    return issue


def _split_arguments(arguments: str) -> list[str]:
    """``map(string, int), int`` -> its top-level items."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(arguments):
        depth += char in "(<" and 1 or char in ")>" and -1 or 0
        if char == "," and depth == 0:
            items.append(arguments[start:i].strip())
            start = i + 1
    return items + [arguments[start:].strip()] if arguments.strip() else items


def _go_arguments(function: str, arguments: str, before: str) -> str:
    """cel-go's rendering of a call's argument types: ``(string, null)`` for a global function or
    an operator, ``string.(int)`` for a method (receiver first); an attribute value is ``any``."""
    items = [re.sub(r"\bnull_type\b", "null", item).replace(_ATTRIBUTE_VALUE, "any")
             for item in _split_arguments(arguments)]
    if items and re.search(r"\.\s*" + re.escape(function) + r"\s*\Z", before):
        return f"{items[0]}.({', '.join(items[1:])})"
    return f"({', '.join(items)})"


def _render(issues: list[_Issue], lines: list[str]) -> str:
    """cel-go's report: each issue with its source line and a caret, in source order."""
    parts = []
    for issue in sorted(issues, key=lambda i: (i.line, i.column)):
        text, index = _offset(lines, issue)
        parts.append(f"ERROR: <input>:{issue.line}:{issue.column}: {issue.message}\n | {text}\n | {'.' * index}^")
    return "\n".join(parts)


_SIMPLE_TYPES = {
    "BOOL": "bool", "INT": "int", "UINT": "uint", "DOUBLE": "double", "STRING": "string", "BYTES": "bytes",
    "NULL": "null_type", "DYN": "dyn", "TIMESTAMP": "google.protobuf.Timestamp",
    "DURATION": "google.protobuf.Duration", "LIST": "list", "MAP": "map", "TYPE": "type",
    _ATTRIBUTE_VALUE: "google.protobuf.Any",
}


def _go_type(name: str) -> str:
    """A cel-cpp type name (``MAP<STRING, LIST<INT>>``) as cel-go writes it (``map(string, list(int))``)."""
    def word(match: re.Match[str]) -> str:
        return _SIMPLE_TYPES.get(match.group(0), match.group(0))

    return re.sub(r"[A-Za-z_][A-Za-z0-9_.]*", word, name).replace("<", "(").replace(">", ")")


@functools.lru_cache(maxsize=1024)
def type_error(expression: str) -> str | None:
    """The real server's message for a selector that parses but does not type-check (or is not a
    bool), else None. Call it after :func:`~fake_apiserver._machinery.cel.syntax_error` found none."""
    lines = expression.split("\n")
    source = _checked_source(expression)
    try:
        checked = _env(False).compile(source)
    except RuntimeError as error:
        found = _issues(error)
        if not found or any(_unjudged(issue) for issue in found):
            return None
        opaque = _opaque_overloads(source)
        issues = [go for go in (_go_issue(issue, lines, opaque) for issue in found) if go is not None]
        return "compilation failed: " + _render(issues, lines) if issues else None
    bad_pattern = _bad_pattern(expression)
    if bad_pattern is not None:
        return "compilation failed: " + _render([bad_pattern], lines)
    result = checked.return_type()
    if result == cel.Type.BOOL:
        return None
    try:  # the same expression with attribute values opaque, to name its type as cel-go does
        result = _env(True).compile(source).return_type()
    except RuntimeError:
        if result == cel.Type.DYN:
            return None  # attribute values used in operations: not judged
    if result == cel.Type.BOOL or result.name() == _ATTRIBUTE_VALUE:
        return None  # cel-go's "unknown type" is google.protobuf.Any, an attribute value's
    if result == cel.Type.DYN and _DYN_RESULT.search(expression):
        return None  # declared here as dyn, where cel-go knows the element type
    return f"must evaluate to bool or the unknown type, not {_go_type(result.name())}"


_DYN_RESULT = re.compile(r"\.\s*(?:sum|min|max)\s*\(")


def _opaque_overloads(source: str) -> dict[tuple[int, int], str]:
    try:
        _env(True).compile(source)
    except RuntimeError as error:
        return {(issue.line, issue.column): overload.group(2) for issue in _issues(error)
                if (overload := _NO_OVERLOAD.match(issue.message))}
    return {}


# cel-go refuses a ``matches`` whose pattern is a literal that does not compile
_MATCHES_LITERAL = re.compile(r"""\bmatches\s*\(\s*(?:[^(),"']+,\s*)?([rR]?(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))\s*\)""")


def _bad_pattern(expression: str) -> _Issue | None:
    for match in _MATCHES_LITERAL.finditer(expression):
        try:
            result = _env(False).compile(f'"".matches({match.group(1)})').eval()
        except RuntimeError:
            continue  # not a literal this simple reading understands
        if result.type() == cel.Type.ERROR:
            before = expression[:match.start(1)]
            line = before.count("\n") + 1
            return _Issue(line, len(before) - (before.rfind("\n") + 1) + 1, "invalid matches argument")
    return None
