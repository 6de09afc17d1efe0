"""Secrets (core/v1): defaults, the data rules and what each type of Secret must hold.

A Secret's ``stringData`` is merged into ``data`` (base64, overwriting) and dropped, and its type
defaults to ``Opaque``, on every write as the real conversion and defaulting do; validation then
sees only ``data``. The JSON a ``dockercfg``/``dockerconfigjson`` Secret must hold is checked by a
small scanner that names the first syntax error in ``encoding/json``'s words (Go's scanner is a
state machine over bytes; this one reads characters, so a non-ASCII character is quoted as one).

Its Table's cells: :func:`print_secret`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.core.configmap import config_key_messages, immutable_data_errors
from fake_apiserver._registry.fieldrules import get_in, immutable_errors, invalid_each
from fake_apiserver._registry.generic import FieldLabels, KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "SecretStrategy", "default_secret", "print_secret"]

Obj = dict[str, Any]


def default_secret(obj: Obj) -> None:
    """The v1 conversion's ``stringData`` merge (each value base64-encoded over ``data``'s) and
    ``SetDefaults_Secret`` (type ``Opaque``)."""
    strings = obj.pop("stringData", None)
    if isinstance(strings, dict) and strings:
        data = obj.get("data")
        if not isinstance(data, dict):
            data = obj["data"] = {}
        for key, value in strings.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
    if not obj.get("type"):
        obj["type"] = "Opaque"


_MAX_SECRET_SIZE = 1024 * 1024


def _decoded_size(value: Any) -> int:
    try:
        return len(base64.b64decode(str(value)))
    except ValueError:
        return 0


class _GoSyntaxError(ValueError):
    pass


def _quote_char(c: str) -> str:
    """``encoding/json``'s ``quoteChar``."""
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    quoted = json.dumps(c)[1:-1] if not c.isprintable() else c
    return f"'{quoted}'"


class _GoJSONScanner:
    """Just enough of ``encoding/json``'s scanner to name the first syntax error as Go does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, context: str) -> _GoSyntaxError:
        if self.i >= len(self.text):
            return _GoSyntaxError("unexpected end of JSON input")
        return _GoSyntaxError(f"invalid character {_quote_char(self.text[self.i])} {context}")

    def peek(self) -> str:
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1
        if self.i >= len(self.text):
            raise _GoSyntaxError("unexpected end of JSON input")
        return self.text[self.i]

    def value(self) -> None:
        c = self.peek()
        if c == "{":
            self.i += 1
            self.members("}", self.member, "after object key:value pair")
        elif c == "[":
            self.i += 1
            self.members("]", self.value, "after array element")
        elif c == '"':
            self.string()
        elif c == "-" or c.isdigit():
            self.number()
        elif c in "tfn":
            word = {"t": "true", "f": "false", "n": "null"}[c]
            for expected in word[1:]:
                self.i += 1
                if self.i >= len(self.text) or self.text[self.i] != expected:
                    raise self.fail(f"in literal {word} (expecting {_quote_char(expected)})")
            self.i += 1
        else:
            raise self.fail("looking for beginning of value")

    def members(self, close: str, item: Any, after: str) -> None:
        if self.peek() == close:
            self.i += 1
            return
        while True:
            item()
            c = self.peek()
            self.i += 1
            if c == close:
                return
            if c != ",":
                self.i -= 1
                raise self.fail(after)

    def member(self) -> None:
        if self.peek() != '"':
            raise self.fail("looking for beginning of object key string")
        self.string()
        if self.peek() != ":":
            raise self.fail("after object key")
        self.i += 1
        self.value()

    def string(self) -> None:
        self.i += 1
        while True:
            if self.i >= len(self.text):
                raise self.fail("")
            c = self.text[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                self.i += 1
                if self.i >= len(self.text):
                    raise self.fail("")
                if self.text[self.i] == "u":
                    for _ in range(4):
                        self.i += 1
                        if self.i >= len(self.text) or self.text[self.i] not in "0123456789abcdefABCDEF":
                            raise self.fail("in \\u hexadecimal character escape")
                elif self.text[self.i] not in 'bfnrt"\\/':
                    raise self.fail("in string escape code")
            elif ord(c) < 0x20:
                raise self.fail("in string literal")
            self.i += 1

    def digits(self, context: str) -> None:
        if self.i >= len(self.text) or not self.text[self.i].isdigit():
            raise self.fail(context)
        while self.i < len(self.text) and self.text[self.i].isdigit():
            self.i += 1

    def number(self) -> None:
        if self.text[self.i] == "-":
            self.i += 1
        if self.i < len(self.text) and self.text[self.i] == "0":
            self.i += 1
        else:
            self.digits("in numeric literal")
        if self.i < len(self.text) and self.text[self.i] == ".":
            self.i += 1
            self.digits("after decimal point in numeric literal")
        if self.i < len(self.text) and self.text[self.i] in "eE":
            self.i += 1
            if self.i < len(self.text) and self.text[self.i] in "+-":
                self.i += 1
            self.digits("in exponent of numeric literal")


def _go_json_error(raw: bytes) -> str | None:
    """What ``json.Unmarshal`` into a ``map[string]interface{}`` says of ``raw`` (None: nothing)."""
    text = raw.decode("utf-8", "replace")
    scanner = _GoJSONScanner(text)
    try:
        scanner.value()
        if text[scanner.i:].strip(" \t\r\n"):
            scanner.peek()
            raise scanner.fail("after top-level value")
    except _GoSyntaxError as e:
        return str(e)
    value = json.loads(text)
    if value is None or isinstance(value, dict):
        return None
    return f"json: cannot unmarshal {_go_json_kind(value)} into Go value of type map[string]interface {{}}"


def _go_json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "number"


def _secret_data(obj: Mapping[str, Any], key: str) -> bytes | None:
    data = obj.get("data") or {}
    if key not in data:
        return None
    try:
        return base64.b64decode(str(data[key] or ""))
    except ValueError:
        return b""


def _json_key_errors(obj: Mapping[str, Any], key: str) -> list[FieldError]:
    raw = _secret_data(obj, key)
    if raw is None:
        return [FieldError.required(f"data[{key}]")]
    problem = _go_json_error(raw)
    return [] if problem is None else [FieldError.invalid(f"data[{key}]", "<secret contents redacted>", problem)]


def _secret_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateSecret``: the data keys, the total size, the keys each type requires."""
    errors: list[FieldError] = []
    data = obj.get("data") or {}
    for key in data:
        errors += invalid_each(f"data[{key}]", key, config_key_messages(key))
    if sum(_decoded_size(v) for v in data.values()) > _MAX_SECRET_SIZE:
        errors.append(FieldError("FieldValueTooLong", "data", f"may not be more than {_MAX_SECRET_SIZE} bytes"))
    kind = obj.get("type") or ""
    if kind == "kubernetes.io/service-account-token":
        if not (get_in(obj, "metadata", "annotations") or {}).get("kubernetes.io/service-account.name"):
            errors.append(FieldError.required("metadata.annotations[kubernetes.io/service-account.name]"))
    elif kind == "kubernetes.io/dockercfg":
        errors += _json_key_errors(obj, ".dockercfg")
    elif kind == "kubernetes.io/dockerconfigjson":
        errors += _json_key_errors(obj, ".dockerconfigjson")
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:  # either may be empty, but one must be there
            errors += [FieldError.required("data[username]"), FieldError.required("data[password]")]
    elif kind == "kubernetes.io/ssh-auth":
        if not _secret_data(obj, "ssh-privatekey"):
            errors.append(FieldError.required("data[ssh-privatekey]"))
    elif kind == "kubernetes.io/tls":
        for key in ("tls.crt", "tls.key"):
            if key not in data:
                errors.append(FieldError.required(f"data[{key}]"))
    return errors


def _secret_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateSecretUpdate``'s own rules, which come before ``ValidateSecret``'s."""
    return immutable_errors(new.get("type"), old.get("type"), "type") + immutable_data_errors(new, old, ("data",))


class SecretStrategy(Strategy):
    """Defaults on every write; on update the immutability rules come before the Secret's own."""

    def default(self, obj: Obj) -> None:
        default_secret(obj)

    def update_rule_errors(self, new: Obj, old: Obj) -> list[FieldError]:
        return self.rules.update(new, old) + self.rules.create(new)


def print_secret(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), obj.get("type") or "", len(obj.get("data") or {}), age_of(obj, now)], []


KIND = KindRules(group="", kind="Secret", create=_secret_errors, update=_secret_update_errors,
                 strategy=lambda spec, options: SecretStrategy(spec), field_labels=FieldLabels(("type",)),
                 printer=print_secret)
"""The Secret's declaration."""
