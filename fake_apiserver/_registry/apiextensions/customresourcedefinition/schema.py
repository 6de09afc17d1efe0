"""The rules of a CRD version's ``openAPIV3Schema`` (``ValidateCustomResourceDefinitionOpenAPISchema``
and the structural schema's invariants), and the JSON paths that name a field of a schema.

A schema must be structural (types everywhere, no shape inside ``allOf``/``anyOf``/``oneOf``/
``not``); its defaults must be pruned and of their schema's type (formats, enums and bounds are not
checked); list and map types must be consistent. A CEL rule of ``x-kubernetes-validations`` is
checked for syntax only (:func:`~fake_apiserver._machinery.cel.syntax_error`, the CEL project's
parser); type errors and cost limits are not checked, since the server's CEL environment (its
functions and the schema's types) is not declared here. Regular expressions are checked with
Python's ``re`` and only the common RE2 errors are worded as Go does. The update-time ratcheting
(a rule skipped when the old object already broke it) is not emulated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Callable

from fake_apiserver._machinery.cel import syntax_error
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._registry.apiextensions.customresourcedefinition.internal import (
    SCHEMA_FIELDS,
    go_json,
    go_rule,
    go_schema,
)
from fake_apiserver._registry.fieldrules import get_in

__all__ = ["path_tokens", "resolve_path", "schema_errors", "schema_has"]

_TYPES = ["array", "boolean", "integer", "number", "object", "string"]
_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
# the schema fields allowed at the root when the status subresource is on (Go field names)
_ROOT_WITH_STATUS = ["Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
                     "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
                     "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
                     "XPreserveUnknownFields", "XValidations"]


def path_tokens(path: str) -> list[str]:
    """A JSON path split as ``ValidFieldPath``'s scanner splits it: ``.``, ``[`` and ``]`` alone,
    a single-quoted string whole, the rest between them."""
    tokens: list[str] = []
    i = 0
    while i < len(path):
        if path[i] == "'":
            j = i + 1
            while j < len(path) and not (path[j] == "'" and path[j - 1] != "\\"):
                j += 1
            tokens.append(path[i:j + 1])
            i = j + 1
        elif path[i] in ".[]":
            tokens.append(path[i])
            i += 1
        else:
            j = i
            while j < len(path) and path[j] not in ".[]":
                j += 1
            tokens.append(path[i:j])
            i = j
    return tokens


def resolve_path(schema: Any, path: str, *, arrays: bool) -> tuple[Any, str | None]:
    """The schema a JSON path (``.a.b`` or ``.a['b']``) names, or the reason it names none, as
    ``ValidFieldPath`` words it; a map (``additionalProperties``) takes any key."""
    tokens = iter(path_tokens(path))
    node: Any = schema

    def step(name: str) -> str | None:
        nonlocal node
        props = get_in(node, "properties")
        if props:
            if name not in props:
                return "does not refer to a valid field"
            node = props[name]
        elif isinstance(get_in(node, "additionalProperties"), Mapping):
            node = node["additionalProperties"]
        else:
            return "does not refer to a valid field"
        return None

    for token in tokens:
        if token == "[":
            if not arrays:
                return None, "array notation is not allowed"
            quoted = next(tokens, None)
            if quoted is None:
                return None, "unexpected end of JSON path"
            if len(quoted) < 2 or quoted[0] != "'" or quoted[-1] != "'":
                return None, f"expected single quoted string but got {quoted}"
            if problem := step(quoted[1:-1].replace("\\'", "'")):
                return None, problem
            closing = next(tokens, None)
            if closing is None:
                return None, "unexpected end of JSON path"
            if closing != "]":
                return None, f"expected ] but got {closing}"
        elif token == ".":
            name = next(tokens, None)
            if name is None:
                return None, "unexpected end of JSON path"
            if problem := step(name):
                return None, problem
        else:
            return None, f"expected [ or . but got: {token}"
    return node, None


def schema_has(schema: Any, predicate: Callable[[Mapping[str, Any]], bool]) -> bool:
    """Whether ``predicate`` holds for ``schema`` or any schema nested in it."""
    if not isinstance(schema, Mapping):
        return False
    if predicate(schema):
        return True
    for key in ("properties", "patternProperties", "definitions"):
        if any(schema_has(s, predicate) for s in (schema.get(key) or {}).values()):
            return True
    for key in ("allOf", "oneOf", "anyOf"):
        if any(schema_has(s, predicate) for s in schema.get(key) or []):
            return True
    items = schema.get("items")
    nested = [*(items if isinstance(items, list) else [items]), schema.get("not"),
              schema.get("additionalProperties"), schema.get("additionalItems")]
    return any(schema_has(s, predicate) for s in nested)


_JSON_TYPES = {bool: "boolean", str: "string", int: "integer", float: "number", list: "array", dict: "object"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), "object")


def _type_matches(kind: str, value: Any) -> bool:
    actual = _json_type(value)
    return actual == kind or (kind == "number" and actual == "integer")


def _unknown_fields(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether pruning ``value`` by ``schema`` would drop a field."""
    if isinstance(value, dict) and schema.get("type") == "object" and not schema.get("x-kubernetes-preserve-unknown-fields"):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                if _unknown_fields(props[key], item):
                    return True
            elif isinstance(extra, Mapping):
                if _unknown_fields(extra, item):
                    return True
            elif extra is not True:
                return True
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return any(_unknown_fields(schema["items"], item) for item in value)
    return False


def _structural_errors(node: Mapping[str, Any], path: str, level: str) -> list[FieldError]:
    """``validateStructuralInvariants`` and ``validateNestedValueValidation`` on one schema and
    below (``level``: root, item or field); sorted by the caller as Go sorts them."""
    errors: list[FieldError] = []
    kind = str(node.get("type") or "")
    items = node.get("items")
    if kind == "array" and items is None:
        errors.append(FieldError.required(f"{path}.items", "must be specified"))
    if isinstance(items, Mapping):
        errors += _structural_errors(items, f"{path}.items", "item")
    for key, prop in (node.get("properties") or {}).items():
        if isinstance(prop, Mapping):
            errors += _structural_errors(prop, f"{path}.properties[{key}]", "field")
    extra = node.get("additionalProperties")
    if extra is not None:
        if level == "root":
            errors.append(FieldError.forbidden(f"{path}.additionalProperties", "must not be used at the root"))
        if isinstance(extra, Mapping):
            errors += _structural_errors(extra, f"{path}.additionalProperties", "field")
    int_or_string = bool(node.get("x-kubernetes-int-or-string"))
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    embedded = bool(node.get("x-kubernetes-embedded-resource"))
    if int_or_string and preserve:
        errors.append(FieldError.invalid(f"{path}.x-kubernetes-preserve-unknown-fields", True,
                                         "must be false if x-kubernetes-int-or-string is true"))
    if int_or_string and embedded:
        errors.append(FieldError.invalid(f"{path}.x-kubernetes-embedded-resource", True,
                                         "must be false if x-kubernetes-int-or-string is true"))
    errors += _value_validation_errors(node, path)
    if embedded and kind != "object":
        if not kind:
            errors.append(FieldError.required(f"{path}.type", "must be object if x-kubernetes-embedded-resource is true"))
        else:
            errors.append(FieldError.invalid(f"{path}.type", kind, "must be object if x-kubernetes-embedded-resource is true"))
    elif not kind and not int_or_string and not preserve:
        detail = {"root": "must not be empty at the root", "item": "must not be empty for specified array items",
                  "field": "must not be empty for specified object fields"}[level]
        errors.append(FieldError.required(f"{path}.type", detail))
    if embedded and extra is not None:
        errors.append(FieldError.forbidden(f"{path}.additionalProperties", "must not be used if x-kubernetes-embedded-resource is set"))
    if level == "root" and kind and kind != "object":
        errors.append(FieldError.invalid(f"{path}.type", kind, "must be object at the root"))
    props = node.get("properties") or {}
    check_meta = level == "root" or embedded
    for key in ("kind", "apiVersion"):
        if key in props and check_meta and get_in(props[key], "type") != "string":
            errors.append(FieldError.invalid(f"{path}.properties[{key}].type", get_in(props[key], "type") or "", "must be string"))
    if "metadata" in props and isinstance(props["metadata"], Mapping):
        errors += _metadata_errors(props["metadata"], check_meta, level, f"{path}.properties[metadata]")
    if embedded and not preserve and not props:
        errors.append(FieldError.required(f"{path}.properties", "must not be empty if x-kubernetes-embedded-resource is true "
                                                                "without x-kubernetes-preserve-unknown-fields"))
    return errors


def _metadata_errors(meta: Mapping[str, Any], check: bool, level: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if check and meta.get("type") != "object":
        errors.append(FieldError.invalid(f"{path}.type", meta.get("type") or "", "must be object"))
    if level == "root":
        # name and generateName may be constrained; anything else about metadata may not
        props = set(meta.get("properties") or {})
        rest = [k for k, v in meta.items() if k not in ("type", "default", "properties") and v not in (None, "", False, [], {})]
        if props - {"name", "generateName"} or rest:
            errors.append(FieldError.forbidden(path, "must not specify anything other than name and generateName, "
                                                     "but metadata is implicitly specified"))
    return errors


_NESTED_FORBIDDEN = (
    ("type", "must be empty to be structural"), ("additionalProperties", "must be undefined to be structural"),
    ("default", "must be undefined to be structural"), ("title", "must be empty to be structural"),
    ("description", "must be empty to be structural"), ("nullable", "must be false to be structural"),
    ("x-kubernetes-preserve-unknown-fields", "must be false to be structural"),
    ("x-kubernetes-embedded-resource", "must be false to be structural"),
    ("x-kubernetes-int-or-string", "must be false to be structural"),
    ("x-kubernetes-list-map-keys", "must be empty to be structural"),
    ("x-kubernetes-list-type", "must be undefined to be structural"),
    ("x-kubernetes-map-type", "must be undefined to be structural"),
    ("x-kubernetes-validations", "must be empty to be structural"),
)


def _is_int_or_string_any_of(any_of: Any) -> bool:
    return any_of == [{"type": "integer"}, {"type": "string"}]


def _value_validation_errors(node: Mapping[str, Any], path: str) -> list[FieldError]:
    """Inside ``allOf``/``anyOf``/``oneOf``/``not`` a schema may only constrain values, never
    declare types or shape (``validateNestedValueValidation``); the ``anyOf`` of
    ``x-kubernetes-int-or-string`` is the exception."""
    errors: list[FieldError] = []
    all_of = node.get("allOf") or []
    for key in ("anyOf", "allOf", "oneOf"):
        if key == "anyOf" and _is_int_or_string_any_of(node.get("anyOf")):
            continue
        for i, nested in enumerate(node.get(key) or []):
            if isinstance(nested, Mapping):
                skip = key == "allOf" and i == 0 and _is_int_or_string_any_of(get_in(all_of[0], "anyOf"))
                errors += _nested_errors({k: v for k, v in nested.items() if not (skip and k == "anyOf")},
                                         f"{path}.{key}[{i}]")
    if isinstance(node.get("not"), Mapping):
        errors += _nested_errors(node["not"], f"{path}.not")
    pattern = node.get("pattern")
    if isinstance(pattern, str) and pattern:
        problem = _regex_problem(pattern)
        if problem:
            errors.append(FieldError.invalid(f"{path}.pattern", pattern,
                                             f"must be a valid regular expression, but isn't: error parsing regexp: {problem}"))
    return errors


def _nested_errors(nested: Mapping[str, Any], path: str) -> list[FieldError]:
    errors = _value_validation_errors(nested, path)
    errors += [FieldError.forbidden(f"{path}.{key}", detail) for key, detail in _NESTED_FORBIDDEN
               if nested.get(key) not in (None, "", False, [], {})]
    if "metadata" in (nested.get("properties") or {}):
        errors.append(FieldError.forbidden(f"{path}.properties[metadata]", "must not be specified in a nested context"))
    for key, prop in (nested.get("properties") or {}).items():
        if isinstance(prop, Mapping):
            errors += _nested_errors(prop, f"{path}.properties[{key}]")
    if isinstance(nested.get("items"), Mapping):
        errors += _nested_errors(nested["items"], f"{path}.items")
    return errors


def _regex_problem(pattern: str) -> str | None:
    """RE2's words for the common mistakes (Python's ``re`` finds them; RE2 words them)."""
    try:
        re.compile(pattern)
    except re.error as error:
        text = str(error)
        if "missing )" in text:
            return f"missing closing ): `{pattern}`"
        if "unterminated character set" in text:
            return f"missing closing ]: `{pattern[error.pos or 0:]}`"
        if "nothing to repeat" in text or "multiple repeat" in text:
            return f"missing argument to repetition operator: `{pattern[error.pos or 0:(error.pos or 0) + 1]}`"
        if "unbalanced parenthesis" in text:
            return f"unexpected ): `{pattern}`"
        return text
    return None


def _default_errors(node: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateDefaults``: every default, pruned and of its schema's type (formats, enums and
    bounds are not checked)."""
    errors: list[FieldError] = []
    if "default" in node and node["default"] is not None:
        value = node["default"]
        if _unknown_fields(node, value):
            errors.append(FieldError.invalid(f"{path}.default", value, "must not have unknown fields"))
        elif node.get("type") and not _type_matches(str(node["type"]), value) and not (
                node.get("nullable") and value is None):
            actual = _json_type(value)
            errors.append(FieldError("FieldValueTypeInvalid", f"{path}.default",
                                     f' in body must be of type {node["type"]}: "{actual}"', actual))
    for key, prop in sorted((node.get("properties") or {}).items()):
        if isinstance(prop, Mapping):
            errors += _default_errors(prop, f"{path}.properties[{key}]")
    if isinstance(node.get("items"), Mapping):
        errors += _default_errors(node["items"], f"{path}.items")
    if isinstance(node.get("additionalProperties"), Mapping):
        errors += _default_errors(node["additionalProperties"], f"{path}.additionalProperties")
    return errors


def _openapi_errors(node: Mapping[str, Any], path: str, *, root: bool, in_meta: bool, defaults_forbidden: str,
                    cel: bool) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionOpenAPISchema``: one schema's own errors, then its
    children's (properties in name order; Go's map order is random, so errors of two sibling
    properties may come out the other way round there)."""
    errors: list[FieldError] = []
    kind = node.get("type")
    if kind and kind not in _TYPES:
        errors.append(FieldError.not_supported(f"{path}.type", kind, _TYPES))
    if "default" in node and node["default"] is not None and defaults_forbidden:
        errors.append(FieldError.forbidden(f"{path}.default", "must not be set " + defaults_forbidden))
    for key, detail in (("id", "id is not supported"), ("additionalItems", "additionalItems is not supported"),
                        ("patternProperties", "patternProperties is not supported"),
                        ("definitions", "definitions is not supported"), ("dependencies", "dependencies is not supported"),
                        ("$ref", "$ref is not supported")):
        if node.get(key) not in (None, "", {}):
            errors.append(FieldError.forbidden(f"{path}.{key}", detail))
    if kind == "null":
        errors.append(FieldError.forbidden(f"{path}.type", "type cannot be set to null, use nullable as an alternative"))
    if isinstance(node.get("items"), list) and node["items"]:
        errors.append(FieldError.forbidden(f"{path}.items", "items must be a schema object and not an array"))
    if in_meta and node.get("x-kubernetes-embedded-resource"):
        errors.append(FieldError.forbidden(f"{path}.x-kubernetes-embedded-resource", "must not be used inside of resource meta"))
    if node.get("uniqueItems"):
        errors.append(FieldError.forbidden(f"{path}.uniqueItems",
                                           "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
    extra = node.get("additionalProperties")
    if extra is not None:
        if node.get("properties") and (extra is False or isinstance(extra, Mapping)):
            errors.append(FieldError.forbidden(f"{path}.additionalProperties", "additionalProperties and properties are mutual exclusive"))
        if isinstance(extra, Mapping):
            errors += _openapi_errors(extra, f"{path}.additionalProperties", root=False, in_meta=in_meta,
                                      defaults_forbidden=("inside additionalProperties applying to object metadata"
                                                          if in_meta else defaults_forbidden), cel=cel)
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        errors.append(FieldError.invalid(f"{path}.x-kubernetes-preserve-unknown-fields", False, "must be true or undefined"))
    map_type = node.get("x-kubernetes-map-type")
    if map_type is not None and kind != "object":
        errors.append(FieldError.required(f"{path}.type", "must be object if x-kubernetes-map-type is specified") if not kind
                      else FieldError.invalid(f"{path}.type", kind, "must be object if x-kubernetes-map-type is specified"))
    if map_type is not None and map_type not in ("atomic", "granular"):
        errors.append(FieldError.not_supported(f"{path}.x-kubernetes-map-type", map_type, ["atomic", "granular"]))
    errors += _list_type_errors(node, path)
    errors += _validation_rule_errors(node, path, cel)
    for key, prop in sorted((node.get("properties") or {}).items()):
        if not isinstance(prop, Mapping):
            continue
        meta_here = (root or bool(node.get("x-kubernetes-embedded-resource"))) and key in ("metadata", "kind", "apiVersion")
        errors += _openapi_errors(prop, f"{path}.properties[{key}]", root=False, in_meta=in_meta or meta_here,
                                  defaults_forbidden=f"in top-level {key}" if meta_here and root else defaults_forbidden,
                                  cel=cel)
    if isinstance(node.get("not"), Mapping):
        errors += _openapi_errors(node["not"], f"{path}.not", root=False, in_meta=in_meta,
                                  defaults_forbidden=defaults_forbidden, cel=False)
    for key in ("allOf", "oneOf", "anyOf"):
        for i, nested in enumerate(node.get(key) or []):
            if isinstance(nested, Mapping):
                errors += _openapi_errors(nested, f"{path}.{key}[{i}]", root=False, in_meta=in_meta,
                                          defaults_forbidden=defaults_forbidden, cel=False)
    items = node.get("items")
    if isinstance(items, Mapping):
        errors += _openapi_errors(items, f"{path}.items", root=False, in_meta=in_meta,
                                  defaults_forbidden=defaults_forbidden, cel=cel)
    return errors


def _list_type_errors(node: Mapping[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    kind = node.get("type")
    list_type = node.get("x-kubernetes-list-type")
    keys = node.get("x-kubernetes-list-map-keys") or []
    items = node.get("items")
    item = items if isinstance(items, Mapping) else None
    if list_type is not None and kind != "array":
        errors.append(FieldError.required(f"{path}.type", "must be array if x-kubernetes-list-type is specified") if not kind
                      else FieldError.invalid(f"{path}.type", kind, "must be array if x-kubernetes-list-type is specified"))
    elif list_type == "set" and item is not None:
        if item.get("type") == "array" and item.get("x-kubernetes-list-type") not in (None, "atomic"):
            errors.append(FieldError.invalid(f"{path}.items.x-kubernetes-list-type", item.get("x-kubernetes-list-type"),
                                             "must be atomic as item of a list with x-kubernetes-list-type=set"))
        if item.get("type") == "object" and item.get("x-kubernetes-map-type") != "atomic":
            errors.append(FieldError.invalid(f"{path}.items.x-kubernetes-map-type", item.get("x-kubernetes-list-type"),
                                             "must be atomic as item of a list with x-kubernetes-list-type=set"))
    if list_type is not None and list_type not in ("atomic", "set", "map"):
        errors.append(FieldError.not_supported(f"{path}.x-kubernetes-list-type", list_type, ["atomic", "set", "map"]))
    if keys:
        if list_type is None:
            errors.append(FieldError.required(f"{path}.x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty"))
        elif list_type != "map":
            errors.append(FieldError.invalid(f"{path}.x-kubernetes-list-type", list_type, "must be map if x-kubernetes-list-map-keys is non-empty"))
    if list_type == "map":
        if not keys:
            errors.append(FieldError.required(f"{path}.x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map"))
        if items is None:
            errors.append(FieldError.required(f"{path}.items", "must have a schema if x-kubernetes-list-type is map"))
        elif item is None:
            errors.append(FieldError.invalid(f"{path}.items", items, "must only have a single schema if x-kubernetes-list-type is map"))
        elif item.get("type") != "object":
            errors.append(FieldError.invalid(f"{path}.items.type", item.get("type") or "", "must be object if parent array's x-kubernetes-list-type is map"))
        else:
            seen: set[str] = set()
            props = item.get("properties") or {}
            for key in keys:
                if key in props:
                    if get_in(props[key], "type") in ("array", "object"):
                        errors.append(FieldError.invalid(f"{path}.items.properties[{key}].type", "object",
                                                         "must be a scalar type if parent array's x-kubernetes-list-type is map"))
                else:
                    errors.append(FieldError.invalid(f"{path}.x-kubernetes-list-map-keys", GoJSON(go_json(keys)),
                                                     "entries must all be names of item properties"))
                if key in seen:
                    errors.append(FieldError.invalid(f"{path}.x-kubernetes-list-map-keys", GoJSON(go_json(keys)),
                                                     "must not contain duplicate entries"))
                seen.add(key)
    if item is not None and list_type in ("set", "map"):
        if item.get("nullable"):
            errors.append(FieldError.forbidden(f"{path}.items.nullable", f"cannot be nullable when x-kubernetes-list-type is {list_type}"))
        if list_type == "map":
            required = set(item.get("required") or [])
            props = item.get("properties") or {}
            for key in keys:
                if key not in props:
                    continue
                if key not in required and get_in(props[key], "default") is None:
                    errors.append(FieldError.required(f"{path}.items.properties[{key}].default",
                                                      "this property is in x-kubernetes-list-map-keys, so it must have a "
                                                      "default or be a required property"))
                if get_in(props[key], "nullable"):
                    errors.append(FieldError.forbidden(f"{path}.items.properties[{key}].nullable",
                                                       "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
    return errors


def _validation_rule_errors(node: Mapping[str, Any], path: str, cel: bool) -> list[FieldError]:
    """``x-kubernetes-validations``: the rule's form, then (where the schema is structural) a
    syntax error of its CEL expression."""
    errors: list[FieldError] = []
    compile_errors: list[FieldError] = []
    for i, rule in enumerate(node.get("x-kubernetes-validations") or []):
        at = f"{path}.x-kubernetes-validations[{i}]"
        text = str(rule.get("rule") or "").strip()
        message = str(rule.get("message") or "")
        if not text:
            errors.append(FieldError.required(f"{at}.rule", "rule is not specified"))
        elif message and not message.strip():
            errors.append(FieldError.invalid(f"{at}.message", message, "must be non-empty if specified"))
        elif "\n" in message.strip() or "\r" in message.strip():
            errors.append(FieldError.invalid(f"{at}.message", message, "must not contain line breaks"))
        elif ("\n" in text or "\r" in text) and not message.strip():
            errors.append(FieldError.required(f"{at}.message", "message must be specified if rule contains line breaks"))
        expression = rule.get("messageExpression")
        if expression and not str(expression).strip():
            errors.append(FieldError.required(f"{at}.messageExpression", "messageExpression must be non-empty if specified"))
        reason = rule.get("reason")
        if reason is not None and reason not in _REASONS:
            errors.append(FieldError.not_supported(f"{at}.reason", reason, _REASONS))
        field_path = str(rule.get("fieldPath") or "")
        if field_path and not field_path.strip():
            errors.append(FieldError.invalid(f"{at}.fieldPath", field_path, "must be non-empty if specified"))
        if "\n" in field_path or "\r" in field_path:
            errors.append(FieldError.invalid(f"{at}.fieldPath", field_path, "must not contain line breaks"))
        if field_path and resolve_path(node, field_path, arrays=True)[1]:
            errors.append(FieldError.invalid(f"{at}.fieldPath", field_path, "must be a valid path"))
        if cel and text:
            problem = syntax_error(str(rule.get("rule")))
            if problem:
                compile_errors.append(FieldError.invalid(f"{at}.rule", GoJSON(go_rule(rule)), problem))
    return errors + compile_errors


def schema_errors(validation: Any, path: str, *, status_enabled: bool, require_structural: bool) -> list[FieldError]:
    """``validateCustomResourceDefinitionValidation`` of one ``{openAPIV3Schema: ...}``."""
    schema = get_in(validation, "openAPIV3Schema")
    if not isinstance(schema, Mapping):
        return []
    at = f"{path}.openAPIV3Schema"
    errors: list[FieldError] = []
    if status_enabled:
        if schema.get("type") not in (None, "") and schema.get("type") != "object":
            errors.append(FieldError.invalid(f"{at}.type", schema["type"], 'only "object" is allowed as the type at the '
                                                                           "root of the schema if the status subresource is enabled"))
        else:
            allowed = {key for go, key, _ in SCHEMA_FIELDS if go in _ROOT_WITH_STATUS}
            if any(key not in allowed and value not in (None, "", False, [], {}) for key, value in schema.items()):
                errors.append(FieldError.invalid(at, GoJSON(go_schema(schema)),
                                                 f"only [{' '.join(_ROOT_WITH_STATUS)}] fields are allowed at the root "
                                                 "of the schema if the status subresource is enabled"))
    if schema.get("nullable"):
        errors.append(FieldError.forbidden(f"{at}.nullable", "nullable cannot be true at the root"))
    cel = False
    if require_structural:
        structural = sorted(_structural_errors(schema, at, "root"), key=lambda e: e.render())
        if structural:
            errors += structural
        else:
            defaults = _default_errors(schema, at)
            errors += defaults
            cel = not defaults
    return errors + _openapi_errors(schema, at, root=True, in_meta=False, defaults_forbidden="", cel=cel)
