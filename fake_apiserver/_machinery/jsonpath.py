"""kube's JSONPath (``k8s.io/client-go/util/jsonpath``), as a CRD's printer columns use it.

A CustomResourceDefinition names each ``additionalPrinterColumns`` cell by a JSONPath, which
kube-apiserver wraps in ``{...}`` and evaluates with client-go's dialect, missing keys allowed.
That dialect is not RFC 9535 nor the ``jsonpath-ng`` one (``['a.b']`` splits at the dot, filters
compare only values of one Go kind, a string's ``*`` yields its bytes), so it is written here
rather than taken from a library; only what a column can use is kept. Supported, as kube
evaluates them (checked against kube-apiserver v1.37.2):

* fields ``.a.b`` (``\\.`` escapes a dot in a name, ``@``/``$`` are the current object), ``.*``;
* brackets: an index ``[0]`` or ``[-1]``, a slice ``[1:3]``, ``[*]``, a union ``[2,0]``, a
  quoted key ``['a']`` (parsed as ``.a``, so ``['a.b']`` means ``.a.b``, as in kube);
* filters ``[?(@.type=="Ready")]`` with ``== != < > <= >=`` and existence ``[?(@.x)]``; both
  sides are paths from ``@`` or literals (quoted strings, numbers, ``true``/``false``); values
  of different kinds (or null, maps, lists) make the whole path an error, as in Go's templates;
* recursive descent ``..name``; maps are visited in their stored key order (Go visits them at
  random, so a path with several matches has no one answer there either).

Not supported: a slice's third number (Go's cap, which panics past the slice) and ``range``/
``end``; :func:`parse` raises :class:`Unsupported` for them, while text kube cannot parse raises
:class:`JSONPathSyntaxError` (kube-apiserver then drops that column and those after it).

Values are JSON values as stored; :func:`find` returns the matches (None is a JSON null), or
raises :class:`JSONPathError` where kube's evaluation fails (an index out of range, indexing a
non-list, an incomparable filter). :func:`print_value` prints one match as ``PrintResults`` does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Sequence

__all__ = [
    "GoByte",
    "JSONPath",
    "JSONPathError",
    "JSONPathSyntaxError",
    "Unsupported",
    "go_number",
    "go_v_float",
    "marshal",
    "parse",
    "print_value",
]

_INT64 = 1 << 63


class JSONPathError(ValueError):
    """The path does not evaluate on this value (kube's FindResults returned an error)."""


class JSONPathSyntaxError(JSONPathError):
    """kube's parser refuses the path."""


class Unsupported(JSONPathError):
    """kube parses the path, but this module does not evaluate that form."""


class GoByte(int):
    """A byte of a string, as ``*`` over a Go string yields it (a ``uint8``, not an int64)."""


def go_number(value: Any) -> Any:
    """A number as the unstructured decoder holds it: an integral float within int64 is an int64
    (kube-apiserver stores ``2.0`` as ``2``), an int beyond int64 a float64."""
    if type(value) is float and value.is_integer() and -_INT64 <= value < _INT64:
        return int(value)
    if type(value) is int and not -_INT64 <= value < _INT64:
        return float(value)
    return value


# --------------------------------------------------------------------------------- the steps

Values = list[Any]
Step = Callable[[Values], Values]


def _indirect(values: Values) -> Values:
    return [v for v in values if v is not None]


def _field(name: str) -> Step:
    def step(values: Values) -> Values:
        return [v[name] for v in _indirect(values) if isinstance(v, dict) and name in v]
    return step


def _children(value: Any) -> Values:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return [GoByte(b) for b in value.encode()]
    return []


def _wildcard(values: Values) -> Values:
    return [c for v in _indirect(values) for c in _children(v)]


def _recursive(values: Values) -> Values:
    out: Values = []
    for value in _indirect(values):
        children = _children(value)
        if children:
            out.append(value)
            out.extend(_recursive(children))
    return out


def _literal(value: Any) -> Step:
    return lambda values: [value]


@dataclass(frozen=True)
class _Bound:
    value: int = 0
    known: bool = False
    derived: bool = False


def _array(start: _Bound, end: _Bound) -> Step:
    def step(values: Values) -> Values:
        out: Values = []
        for value in _indirect(values):
            if not isinstance(value, list):
                raise JSONPathError(f"{type(value).__name__} is not array or slice")
            n = len(value)
            a = start.value if start.known else 0
            if a < 0:
                a += n
            b = end.value if end.known else n
            if b < 0 or (b == 0 and end.derived):
                b += n
            if a == b:  # zero elements asked for: what was found so far
                return out
            if a >= n or a < 0 or b > n or b < 0:
                raise JSONPathError(f"array index out of bounds: index {a if a >= n or a < 0 else b - 1}, length {n}")
            if a > b:
                raise JSONPathError(f"starting index {a} is greater than ending index {b}")
            out.extend(value[a:b])
        return out
    return step


def _union(branches: Sequence[Sequence[Step]]) -> Step:
    def step(values: Values) -> Values:
        return [v for branch in branches for v in _run(branch, values)]
    return step


_KINDS = ((bool, "bool"), (GoByte, "uint"), (int, "int"), (float, "float"), (str, "string"))


def _kind(value: Any) -> str:
    for python, kind in _KINDS:
        if isinstance(value, python):
            return kind
    raise JSONPathError("invalid type for comparison")


def _compare(op: str, left: Any, right: Any) -> bool:
    """``template.Equal``/``Less``...: only values of one basic kind compare (ints with uints)."""
    left, right = go_number(left), go_number(right)
    kl, kr = _kind(left), _kind(right)
    if kl != kr and {kl, kr} != {"int", "uint"}:
        raise JSONPathError("incompatible types for comparison")
    if op == "==":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    if kl == "bool":
        raise JSONPathError("invalid type for comparison")
    less = left < right
    return {"<": less, ">=": not less, "<=": less or left == right, ">": not (less or left == right)}[op]


def _filter(left: Sequence[Step], op: str, right: Sequence[Step]) -> Step:
    def step(values: Values) -> Values:
        out: Values = []
        for value in values:
            if not isinstance(value, list):
                raise JSONPathError(f"{value!r} is not array or slice and cannot be filtered")
            for item in value:
                if op == "exists":
                    try:
                        if _run(left, [item]):
                            out.append(item)
                    except JSONPathError:
                        pass
                    continue
                lefts = _run(left, [item])
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise JSONPathError("can only compare one element at a time")
                rights = _run(right, [item])
                if not rights:
                    continue
                if len(rights) > 1:
                    raise JSONPathError("can only compare one element at a time")
                if op not in ("==", "!=", "<", ">", "<=", ">="):
                    raise JSONPathError(f"unrecognized filter operator {op}")
                if _compare(op, lefts[0], rights[0]):
                    out.append(item)
        return out
    return step


def _run(steps: Sequence[Step], values: Values) -> Values:
    for step in steps:
        values = step(values)
    return values


# -------------------------------------------------------------------------------- the parser

_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_DICT_KEY = re.compile(r"^'([^']*)'$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)
_NUMBER = re.compile(r"[+-]?[0-9.]*")


def _unquote(text: str) -> str:
    body = text[1:-1]
    if text[0] == '"':
        try:
            return str(json.loads(text))
        except ValueError as e:
            raise JSONPathSyntaxError(f"unquote string {text} error invalid syntax") from e
    return re.sub(r"\\(.)", r"\1", body)


class _Parser:
    """kube's parser of the inside of an action (``{...}``), into steps."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def parse(self) -> list[Step]:
        steps: list[Step] = []
        text = self.text
        while self.pos < len(text):
            rest = text[self.pos:]
            c = rest[0]
            if rest.startswith("[?("):
                steps.append(self._filter())
            elif rest.startswith(".."):
                if steps and steps[-1] is _recursive:
                    raise JSONPathSyntaxError("invalid multiple recursive descent")
                self.pos += 2
                steps.append(_recursive)
                if self.pos < len(text) and (text[self.pos].isalnum() or text[self.pos] == "_"):
                    steps.append(self._field())
            elif c == " ":
                self.pos += 1
            elif c in "@$":
                self.pos += 1
            elif c == "[":
                steps.append(self._array())
            elif c in "\"'":
                steps.append(self._quote(c))
            elif c == ".":
                self.pos += 1
                steps.append(self._field())
            elif c in "+-" or c.isdigit():
                steps.append(self._number())
            elif c.isalnum() or c == "_":
                steps.append(self._identifier())
            else:
                raise JSONPathSyntaxError(f"unrecognized character in action: {c!r}")
        return steps

    def _field(self) -> Step:
        text, start = self.text, self.pos
        while self.pos < len(text) and text[self.pos] not in _TERMINATORS:
            self.pos += 2 if text[self.pos] == "\\" else 1
        self.pos = min(self.pos, len(text))
        name = text[start:self.pos]
        return _wildcard if name == "*" else _field(name.replace("\\", ""))

    def _quote(self, end: str) -> Step:
        text, start = self.text, self.pos
        self.pos += 1
        while True:
            if self.pos >= len(text) or text[self.pos] == "\n":
                raise JSONPathSyntaxError("unterminated quoted string")
            c = text[self.pos]
            self.pos += 1
            if c == "\\":
                self.pos += 1
            elif c == end:
                break
        return _literal(_unquote(text[start:self.pos]))

    def _number(self) -> Step:
        match = _NUMBER.match(self.text, self.pos)
        assert match is not None
        self.pos = match.end()
        value = match.group()
        try:
            return _literal(int(value))
        except ValueError:
            pass
        try:
            return _literal(float(value))
        except ValueError:
            raise JSONPathSyntaxError(f"cannot parse number {value}") from None

    def _identifier(self) -> Step:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        word = self.text[start:self.pos]
        if word in ("true", "false"):
            return _literal(word == "true")
        raise Unsupported(f"identifier {word!r} is not supported")

    def _array(self) -> Step:
        end = self.text.find("]", self.pos)
        if end < 0 or "\n" in self.text[self.pos:end]:
            raise JSONPathSyntaxError("unterminated array")
        inner = self.text[self.pos + 1:end]
        self.pos = end + 1
        if inner == "*":
            inner = ":"
        parts = inner.split(",")
        if len(parts) > 1:
            return _union([_Parser(f"[{p.strip(' ')}]").parse() for p in parts])
        key = _DICT_KEY.match(inner)
        if key:
            return _union([_Parser("." + key.group(1)).parse()])
        match = _SLICE.match(inner)
        if match is None:
            raise JSONPathSyntaxError(f"invalid array index {inner}")
        first, second, third = match.groups()
        if third is not None:
            raise Unsupported("a slice's third number (Go's capacity) is not supported")
        start = _Bound(int(first), True) if first else _Bound()
        if second is None:
            stop = _Bound(start.value + 1, True, True)
        elif second[1:]:
            stop = _Bound(int(second[1:]), True)
        else:
            stop = _Bound()
        return _array(start, stop)

    def _filter(self) -> Step:
        text = self.text
        self.pos += 3
        start = self.pos
        begin = end = False
        pair = ""
        while True:
            if self.pos >= len(text) or text[self.pos] == "\n":
                raise JSONPathSyntaxError("unterminated filter")
            c = text[self.pos]
            self.pos += 1
            if c in "\"'":
                if not begin:
                    begin, pair = True, c
                elif text[self.pos - 2] != "\\" and c == pair:
                    end = True
            elif c == ")" and begin == end:
                break
        if self.pos >= len(text) or text[self.pos] != "]":
            raise JSONPathSyntaxError("unclosed array expect ]")
        self.pos += 1
        inner = text[start:self.pos - 2]
        match = _FILTER.match(inner)
        if match is None:
            return _filter(_Parser(inner).parse(), "exists", [])
        return _filter(_Parser(match.group(1)).parse(), match.group(2), _Parser(match.group(3)).parse())


@dataclass(frozen=True)
class JSONPath:
    """A parsed path (see the module docstring)."""

    text: str
    steps: tuple[Step, ...]

    def find(self, obj: Any) -> list[Any]:
        """The matches in ``obj``, in kube's order; :class:`JSONPathError` where kube's fails."""
        return _run(self.steps, [obj])


def parse(text: str) -> JSONPath:
    """``text`` (a column's ``jsonPath``, without the braces kube adds) parsed."""
    if "{" in text or "}" in text:
        raise Unsupported("braces inside a column's path are not supported")
    return JSONPath(text, tuple(_Parser(text).parse()))


# ------------------------------------------------------------------------------ printing


def go_v_float(value: float) -> str:
    """A float64 as Go's ``%v`` prints it (``strconv`` ``'g'``, shortest: ``1e+06``, ``1e-05``)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    sign, digits_t, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digits_t)) or "0"
    if digits == "0":
        return "-0" if sign else "0"
    point = len(digits) + exponent  # the decimal point's place after the first digit's
    minus = "-" if sign else ""
    x = point - 1
    if x < -4 or x >= 6:  # shortest form: %e from an exponent of 6
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{minus}{mantissa}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return minus + digits + "0" * (point - len(digits))
    return f"{minus}{digits[:point]}.{digits[point:]}"


def _json_float(value: float) -> str:
    """``encoding/json``'s float64: ``'f'`` between 1e-6 and 1e21, else ``'e'`` with a short exponent."""
    value = go_number(value) if abs(value) < 1e21 else value
    if isinstance(value, int):
        return str(value)
    if value != 0 and (abs(value) < 1e-6 or abs(value) >= 1e21):
        sign, digits_t, exponent = Decimal(repr(value)).normalize().as_tuple()
        assert isinstance(exponent, int)
        digits = "".join(map(str, digits_t))
        x = len(digits) + exponent - 1
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{'-' if sign else ''}{mantissa}e{'-' if x < 0 else '+'}{abs(x)}"
    return format(Decimal(repr(value)), "f")


def marshal(value: Any) -> str:
    """``json.Marshal`` of a JSON value: compact, keys sorted, ``<``, ``>`` and ``&`` escaped."""
    if value is None or isinstance(value, (bool, str)):
        text = json.dumps(value, ensure_ascii=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if isinstance(value, int):
        return str(go_number(value)) if isinstance(go_number(value), int) else _json_float(float(value))
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, list):
        return "[" + ",".join(marshal(v) for v in value) + "]"
    return "{" + ",".join(marshal(k) + ":" + marshal(value[k]) for k in sorted(value)) + "}"


def print_value(value: Any) -> str:
    """One match as ``JSONPath.PrintResults`` prints it: maps and lists as JSON, a null as
    ``<no value>``, a number as Go's ``%v``."""
    if isinstance(value, (dict, list)):
        return marshal(value)
    if value is None:
        return "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    value = go_number(value)
    if isinstance(value, float):
        return go_v_float(value)
    return str(value)
