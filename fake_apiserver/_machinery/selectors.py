"""Label and field selectors, parsed and matched as the real API server does.

Label selectors port ``apimachinery/pkg/labels/selector.go`` (lexer, recursive-descent parser,
``NewRequirement`` validation and ``Matches``) so that a bad ``labelSelector`` query gets the very
400 message the real server sends. Note the syntax of the integer comparisons: ``key>5`` and
``key<5``; the words ``gt``/``lt`` only appear in error messages (``selection.Operator`` names).

Field selectors port ``apimachinery/pkg/fields/selector.go``: terms split on unescaped commas,
``!=``/``==``/``=`` only, values unescaped (``\\,``, ``\\=``, ``\\\\``). Labels are then checked the
way ``ListResource`` runs ``ConvertFieldLabel``: a kind with its own conversion function
(``KindSpec.fields`` non-empty) refuses anything else with ``field label not supported: <label>``;
a kind without one falls back to ``DefaultMetaV1FieldSelectorConversion``. Both failures become
``errors.NewBadRequest(err.Error())``: HTTP 400, reason ``BadRequest``, the message unprefixed, no
details (``apiserver:pkg/endpoints/handlers/get.go``). The label selector is decoded before the
field selector, so when both are bad the label error wins; parse them in that order.

Selectable values follow each kind's ``ToSelectableFields``: dotted paths into the object, missing
values ``""``, values rendered the way Go prints them, and the labels a kind reads otherwise (a Go
value field that reads ``"false"`` or ``"0"`` when absent, a label computed from two fields) as
its row's ``field_values`` say, which the registry fills in from the kind's declaration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Iterable

from fake_apiserver._machinery.errors import BadRequest, FieldError
from fake_apiserver._machinery.kindspec import META_FIELDS, FieldValue, KindSpec
from fake_apiserver._machinery.names import is_label_value, is_qualified_name

__all__ = [
    "FieldSelector",
    "FieldTerm",
    "LabelSelector",
    "Requirement",
    "field_value",
    "go_value_field",
    "label_selector_from_dict",
    "render_value",
    "value_at",
]

# --- label selectors ---------------------------------------------------------------------------

_BINARY_OPERATORS = ("in", "notin", "=", "==", "!=", "gt", "lt")
_INT64 = re.compile(r"[+-]?[0-9]+")


def _parse_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``; Python's ``int`` is laxer (``_``, spaces)."""
    if not _INT64.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


def _aggregate(errors: list[FieldError]) -> str:
    """``utilerrors.NewAggregate(...).Error()``: one message, or ``[a, b]`` with repeats dropped."""
    messages = list(dict.fromkeys(e.render() for e in errors))
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def _key_error(key: str, path: str) -> FieldError | None:
    messages = is_qualified_name(key)
    return FieldError.invalid(path, key, "; ".join(messages)) if messages else None


@dataclass(frozen=True)
class Requirement:
    """One ``labels.Requirement``: ``operator`` is a ``selection.Operator`` value
    (``in``, ``notin``, ``=``, ``==``, ``!=``, ``exists``, ``!``, ``gt``, ``lt``)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    @classmethod
    def new(cls, key: str, operator: str, values: Iterable[str] | None) -> Requirement:
        """``NewRequirement``; raises ``BadRequest`` with the aggregated field errors."""
        vals = None if values is None else list(values)
        shown: Any = vals  # what Go prints: a nil slice is null
        errors: list[FieldError] = []
        if (error := _key_error(key, "key")) is not None:
            errors.append(error)
        count = len(vals or [])
        if operator in ("in", "notin") and count == 0:
            errors.append(FieldError.invalid("values", shown, "for 'in', 'notin' operators, values set can't be empty"))
        elif operator in ("=", "==", "!=") and count != 1:
            errors.append(FieldError.invalid("values", shown, "exact-match compatibility requires one single value"))
        elif operator in ("exists", "!") and count != 0:
            errors.append(FieldError.invalid("values", shown, "values set must be empty for exists and does not exist"))
        elif operator in ("gt", "lt"):
            if count != 1:
                errors.append(FieldError.invalid("values", shown,
                                                 "for 'Gt', 'Lt' operators, exactly one value is required"))
            for i, value in enumerate(vals or []):
                if _parse_int64(value) is None:
                    errors.append(FieldError.invalid(f"values[{i}]", value,
                                                     "for 'Gt', 'Lt' operators, the value must be an integer"))
        elif operator not in _BINARY_OPERATORS + ("exists", "!"):
            supported = list(_BINARY_OPERATORS) + ["exists", "!"]
            errors.append(FieldError.not_supported("operator", operator, supported))
        for i, value in enumerate(vals or []):
            messages = is_label_value(value)
            if messages:
                errors.append(FieldError.invalid(f"values[{i}][{key}]", value, "; ".join(messages)))
        if errors:
            raise BadRequest(_aggregate(errors))
        return cls(key, operator, tuple(vals or ()))

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.operator in ("in", "=", "=="):
            return self.key in labels and labels[self.key] in self.values
        if self.operator in ("notin", "!="):
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator == "exists":
            return self.key in labels
        if self.operator == "!":
            return self.key not in labels
        if self.operator in ("gt", "lt"):
            if self.key not in labels or len(self.values) != 1:
                return False
            have, want = _parse_int64(labels[self.key]), _parse_int64(self.values[0])
            if have is None or want is None:
                return False
            return have > want if self.operator == "gt" else have < want
        return False

    def __str__(self) -> str:
        if self.operator == "!":
            return "!" + self.key
        if self.operator == "exists":
            return self.key
        values = self.values[0] if len(self.values) == 1 else ",".join(sorted(self.values))
        if self.operator in ("in", "notin"):
            return f"{self.key} {self.operator} ({values})"
        symbol = {"gt": ">", "lt": "<"}.get(self.operator, self.operator)
        return f"{self.key}{symbol}{values}"


# Lexer tokens (selector.go Token); literals map as string2token does.
_ERROR, _EOS, _CLOSE, _COMMA, _NOT, _DEQ, _EQ, _GT, _IDENT, _IN, _LT, _NEQ, _NOTIN, _OPEN = range(14)
_STRING_TO_TOKEN = {
    ")": _CLOSE, ",": _COMMA, "!": _NOT, "==": _DEQ, "=": _EQ, ">": _GT, "in": _IN,
    "<": _LT, "!=": _NEQ, "notin": _NOTIN, "(": _OPEN,
}
_SPECIAL = frozenset("=!(),><")
_SPACE = frozenset(" \t\r\n")
_KEY_AND_OPERATOR, _VALUES = 0, 1


def _lex(text: str) -> list[tuple[int, str]]:
    """``Lexer.Lex`` until end of string; NUL ends the input as in Go."""
    items: list[tuple[int, str]] = []
    pos = 0

    def read() -> str:
        nonlocal pos
        if pos < len(text):
            pos += 1
            return text[pos - 1]
        return "\0"

    while True:
        ch = read()
        while ch in _SPACE:
            ch = read()
        if ch == "\0":
            items.append((_EOS, ""))
            return items
        pos -= 1
        if ch in _SPECIAL:
            buffer, last = "", (0, "")
            while True:
                ch = read()
                if ch == "\0":
                    break
                if ch not in _SPECIAL:
                    pos -= 1
                    break
                buffer += ch
                if buffer in _STRING_TO_TOKEN:
                    last = (_STRING_TO_TOKEN[buffer], buffer)
                elif last[0] != 0:
                    pos -= 1
                    break
            items.append(last if last[0] != 0 else (_ERROR, f"error expected: keyword found '{buffer}'"))
        else:
            buffer = ""
            while True:
                ch = read()
                if ch == "\0":
                    break
                if ch in _SPECIAL or ch in _SPACE:
                    pos -= 1
                    break
                buffer += ch
            items.append((_STRING_TO_TOKEN.get(buffer, _IDENT), buffer))


class _ParseError(Exception):
    pass


class _Parser:
    """``labels.Parser``: every message below is Go's, character for character."""

    def __init__(self, text: str) -> None:
        self.items = _lex(text)
        self.position = 0

    def lookahead(self, context: int) -> tuple[int, str]:
        tok, lit = self.items[self.position]
        if context == _VALUES and tok in (_IN, _NOTIN):
            tok = _IDENT
        return tok, lit

    def consume(self, context: int) -> tuple[int, str]:
        item = self.lookahead(context)
        self.position += 1
        return item

    def parse(self) -> list[Requirement]:
        requirements: list[Requirement] = []
        while True:
            tok, lit = self.lookahead(_VALUES)
            if tok in (_IDENT, _NOT):
                try:
                    requirements.append(self.requirement())
                except (_ParseError, BadRequest) as exc:
                    raise _ParseError(f"unable to parse requirement: {exc}") from exc
                tok, lit = self.consume(_VALUES)
                if tok == _EOS:
                    return requirements
                if tok != _COMMA:
                    raise _ParseError(f"found '{lit}', expected: ',' or 'end of string'")
                tok2, lit2 = self.lookahead(_VALUES)
                if tok2 not in (_IDENT, _NOT):
                    raise _ParseError(f"found '{lit2}', expected: identifier after ','")
            elif tok == _EOS:
                return requirements
            else:
                raise _ParseError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        key, operator = self.key_and_operator()
        if operator in ("exists", "!"):
            return Requirement.new(key, operator, [])
        operator = self.operator()
        values = self.values() if operator in ("in", "notin") else self.exact_value()
        return Requirement.new(key, operator, sorted(values))

    def key_and_operator(self) -> tuple[str, str]:
        operator = ""
        tok, lit = self.consume(_VALUES)
        if tok == _NOT:
            operator = "!"
            tok, lit = self.consume(_VALUES)
        if tok != _IDENT:
            raise _ParseError(f"found '{lit}', expected: identifier")
        if (error := _key_error(lit, "<nil>")) is not None:
            raise _ParseError(error.render())
        if self.lookahead(_VALUES)[0] in (_EOS, _COMMA) and operator != "!":
            operator = "exists"
        return lit, operator

    def operator(self) -> str:
        tok, lit = self.consume(_KEY_AND_OPERATOR)
        operators = {_IN: "in", _EQ: "=", _DEQ: "==", _GT: "gt", _LT: "lt", _NOTIN: "notin", _NEQ: "!="}
        if tok not in operators:
            raise _ParseError(f"found '{lit}', expected: {', '.join(_BINARY_OPERATORS)}")
        return operators[tok]

    def values(self) -> set[str]:
        tok, lit = self.consume(_VALUES)
        if tok != _OPEN:
            raise _ParseError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead(_VALUES)
        if tok in (_IDENT, _COMMA):
            values = self.identifiers()
            if self.consume(_VALUES)[0] != _CLOSE:
                raise _ParseError(f"found '{lit}', expected: ')'")  # Go reports the stale literal
            return values
        if tok == _CLOSE:
            self.consume(_VALUES)
            return {""}
        raise _ParseError(f"found '{lit}', expected: ',', ')' or identifier")

    def identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            tok, lit = self.consume(_VALUES)
            if tok == _IDENT:
                values.add(lit)
                tok2, lit2 = self.lookahead(_VALUES)
                if tok2 == _CLOSE:
                    return values
                if tok2 != _COMMA:
                    raise _ParseError(f"found '{lit2}', expected: ',' or ')'")
            elif tok == _COMMA:
                if not values:
                    values.add("")
                tok2 = self.lookahead(_VALUES)[0]
                if tok2 == _CLOSE:
                    values.add("")
                    return values
                if tok2 == _COMMA:
                    values.add("")
            else:
                raise _ParseError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        if self.lookahead(_VALUES)[0] in (_EOS, _COMMA):
            return {""}
        tok, lit = self.consume(_VALUES)
        if tok == _IDENT:
            return {lit}
        raise _ParseError(f"found '{lit}', expected: identifier")


class LabelSelector:
    """A parsed label selector: requirements ANDed, sorted by key as ``labels.Parse`` leaves them.

    ``LabelSelector.nothing()`` is ``labels.Nothing()``, what a nil ``metav1.LabelSelector``
    converts to: it matches no object and is not empty.
    """

    def __init__(self, requirements: Iterable[Requirement] = (), *, nothing: bool = False) -> None:
        self.requirements: tuple[Requirement, ...] = tuple(sorted(requirements, key=lambda r: r.key))
        self._nothing = nothing

    @classmethod
    def parse(cls, text: str) -> LabelSelector:
        """``labels.Parse``; a syntax or validation error is a 400 with Go's message."""
        try:
            return cls(_Parser(text).parse())
        except _ParseError as exc:
            raise BadRequest(str(exc)) from exc

    @classmethod
    def nothing(cls) -> LabelSelector:
        return cls(nothing=True)

    @property
    def empty(self) -> bool:
        return not self._nothing and not self.requirements

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self._nothing:
            return False
        present = labels or {}
        return all(r.matches(present) for r in self.requirements)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)

    def __repr__(self) -> str:
        return "LabelSelector.nothing()" if self._nothing else f"LabelSelector({str(self)!r})"


_EXPRESSION_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def label_selector_from_dict(selector: Mapping[str, Any] | None) -> LabelSelector:
    """``metav1.LabelSelectorAsSelector``: null selects nothing, ``{}`` selects everything.

    Errors are ``BadRequest`` carrying Go's text (``NewRequirement``'s aggregate, or
    ``"X" is not a valid label selector operator``); the caller decides what status to answer.
    """
    if selector is None:
        return LabelSelector.nothing()
    requirements = [Requirement.new(k, "=", [v]) for k, v in (selector.get("matchLabels") or {}).items()]
    for expression in selector.get("matchExpressions") or []:
        raw = expression.get("operator") or ""
        if raw not in _EXPRESSION_OPERATORS:
            raise BadRequest(f"{_go_quote(raw)} is not a valid label selector operator")
        values = expression.get("values")
        requirements.append(Requirement.new(expression.get("key") or "", _EXPRESSION_OPERATORS[raw], values or None))
    return LabelSelector(requirements)


def _go_quote(text: str) -> str:
    """Go's ``%q`` for the ASCII strings that appear in these messages."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --- field selectors ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldTerm:
    """One ``hasTerm`` (``operator`` ``=``) or ``notHasTerm`` (``!=``), after label conversion."""

    field: str
    operator: str
    value: str

    def __str__(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")
        return f"{self.field}{self.operator}{escaped}"


def _split_terms(text: str) -> list[str]:
    """``splitTerms``: split on commas not escaped by a backslash (escapes kept)."""
    if not text:
        return []
    terms, start, escaped = [], 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _unescape(value: str) -> str:
    """``UnescapeValue``; Go prints an offending rune with ``%v``, i.e. as its code point."""
    if not any(c in value for c in "\\,="):
        return value
    out, escaped = [], False
    for ch in value:
        if escaped:
            if ch not in "\\,=":
                raise BadRequest(f"invalid field selector: invalid escape sequence: \\{ch}")
            out.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in ",=":
            raise BadRequest(f"invalid field selector: unescaped character in value: {ord(ch)}")
        else:
            out.append(ch)
    if escaped:
        raise BadRequest("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def _conversion_error(spec: KindSpec, label: str) -> str:
    style = spec.field_error_style
    if style == "generic":
        return f"{_go_quote(label)} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
    if style == "gvk":  # e.g. pkg/apis/resource/*/conversion.go: GroupVersionKind.String()
        return f"field label not supported for {spec.group}/{spec.version}, Kind={spec.kind}: {label}"
    if style == "kind":  # e.g. pkg/apis/batch/v1/conversion.go
        return f"field label {_go_quote(label)} not supported for {spec.kind}"
    return f"field label not supported: {label}"


def _convert_label(spec: KindSpec, label: str) -> str:
    """``ConvertFieldLabel``: the canonical label, or a 400."""
    if spec.generic_field_errors:
        # DefaultMetaV1FieldSelectorConversion takes metadata.namespace even on cluster-scoped
        # kinds ("specifying a particular namespace will return no results").
        accepted: tuple[str, ...] = META_FIELDS
    else:
        accepted = spec.selectable_fields
    if label in accepted:
        return label
    if label in spec.field_aliases:
        return spec.field_aliases[label]
    raise BadRequest(_conversion_error(spec, label))


class FieldSelector:
    """A parsed field selector for one kind: terms ANDed, in the sorted order Go keeps them."""

    def __init__(self, spec: KindSpec, terms: Iterable[FieldTerm] = ()) -> None:
        self.spec = spec
        self.terms: tuple[FieldTerm, ...] = tuple(terms)

    @classmethod
    def parse(cls, text: str, spec: KindSpec) -> FieldSelector:
        """``fields.ParseSelector`` then ``Transform(ConvertFieldLabel)``; errors are 400s.

        Syntax errors are found first (in sorted term order), label errors after.
        """
        parsed: list[tuple[str, str, str]] = []
        for part in sorted(_split_terms(text)):
            if not part:
                continue
            for i in range(len(part)):
                op = next((o for o in ("!=", "==", "=") if part.startswith(o, i)), None)
                if op is not None:
                    lhs, rhs = part[:i], part[i + len(op):]
                    break
            else:
                raise BadRequest(f"invalid selector: '{text}'; can't understand '{part}'")
            parsed.append((lhs, "!=" if op == "!=" else "=", _unescape(rhs)))
        return cls(spec, [FieldTerm(_convert_label(spec, f), op, v) for f, op, v in parsed])

    @property
    def empty(self) -> bool:
        return not self.terms

    def requires_exact_match(self, label: str) -> str | None:
        """``RequiresExactMatch``: the value an ``=`` term pins ``label`` to, if any."""
        return next((t.value for t in self.terms if t.field == label and t.operator == "="), None)

    def matches(self, obj: Mapping[str, Any]) -> bool:
        for term in self.terms:
            equal = field_value(obj, term.field, self.spec) == term.value
            if equal != (term.operator == "="):
                return False
        return True

    def __str__(self) -> str:
        return ",".join(str(t) for t in self.terms)

    def __repr__(self) -> str:
        return f"FieldSelector({str(self)!r}, {self.spec.kind})"


def render_value(value: Any) -> str:
    """A value as a field selector compares it: Go's text of a bool or a number, a string as it
    is, anything else (or nothing) as ``""``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(int(value)) if float(value).is_integer() else str(value)
    return value if isinstance(value, str) else ""


def value_at(obj: Any, dotted: str) -> Any:
    """The value at a dotted path of ``obj`` (``spec.nodeName``), or None."""
    for key in dotted.split("."):
        if type(obj) is not dict and not isinstance(obj, Mapping):  # a dict is told at once
            return None
        obj = obj.get(key)
    return obj


def go_value_field(dotted: str, zero: str) -> FieldValue:
    """A label read off a Go value field: absent reads as its zero value (``"false"``, ``"0"``)."""
    return lambda obj: render_value(value_at(obj, dotted)) or zero


def field_value(obj: Mapping[str, Any], label: str, spec: KindSpec | None = None) -> str:
    """The value ``label`` selects on ``obj``, as the kind's ``ToSelectableFields`` computes it:
    by the row's :attr:`~fake_apiserver._machinery.kindspec.KindSpec.field_values`, else read as a
    path.

    Without ``spec`` no kind computes a field of its own, and a label is read as a path.
    """
    special = spec.field_values if spec is not None else {}
    if label in special:
        return special[label](obj)
    return render_value(value_at(obj, label))
