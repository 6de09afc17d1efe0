"""The internal form of a CRD, which kube-apiserver validates, and Go's rendering of the internal
types' bad values.

The real server converts a v1 body into the *internal* CRD before it validates it: when every
version carries the same schema (or subresources, printer columns, selectable fields), that field
is hoisted to the top of the spec and reported there (``spec.validation.openAPIV3Schema...``,
``spec.subresources...``); otherwise under ``spec.versions[i]``. :func:`internal_form` does that
conversion so the paths come out the same. Bad values that Go prints as internal structs
(``spec.versions``, a schema at the root, a ``x-kubernetes-validations`` rule) are rendered with
the internal types' field names and order (:func:`go_versions`, :func:`go_schema`, :func:`go_rule`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Sequence

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import GoJSON

__all__ = ["SCHEMA_FIELDS", "go_json", "go_rule", "go_schema", "go_versions", "internal_form"]

Obj = dict[str, Any]


def go_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


SCHEMA_FIELDS: list[tuple[str, str, Any]] = [
    # (Go field, JSON key, zero value as Go marshals it)
    ("ID", "id", ""), ("Schema", "$schema", ""), ("Ref", "$ref", None), ("Description", "description", ""),
    ("Type", "type", ""), ("Nullable", "nullable", False), ("Format", "format", ""), ("Title", "title", ""),
    ("Default", "default", None), ("Maximum", "maximum", None), ("ExclusiveMaximum", "exclusiveMaximum", False),
    ("Minimum", "minimum", None), ("ExclusiveMinimum", "exclusiveMinimum", False), ("MaxLength", "maxLength", None),
    ("MinLength", "minLength", None), ("Pattern", "pattern", ""), ("MaxItems", "maxItems", None),
    ("MinItems", "minItems", None), ("UniqueItems", "uniqueItems", False), ("MultipleOf", "multipleOf", None),
    ("Enum", "enum", None), ("MaxProperties", "maxProperties", None), ("MinProperties", "minProperties", None),
    ("Required", "required", None), ("Items", "items", None), ("AllOf", "allOf", None), ("OneOf", "oneOf", None),
    ("AnyOf", "anyOf", None), ("Not", "not", None), ("Properties", "properties", None),
    ("AdditionalProperties", "additionalProperties", None), ("PatternProperties", "patternProperties", None),
    ("Dependencies", "dependencies", None), ("AdditionalItems", "additionalItems", None),
    ("Definitions", "definitions", None), ("ExternalDocs", "externalDocs", None), ("Example", "example", None),
    ("XPreserveUnknownFields", "x-kubernetes-preserve-unknown-fields", None),
    ("XEmbeddedResource", "x-kubernetes-embedded-resource", False),
    ("XIntOrString", "x-kubernetes-int-or-string", False), ("XListMapKeys", "x-kubernetes-list-map-keys", None),
    ("XListType", "x-kubernetes-list-type", None), ("XMapType", "x-kubernetes-map-type", None),
    ("XValidations", "x-kubernetes-validations", None),
]


def go_rule(rule: Mapping[str, Any]) -> str:
    parts = [("Rule", go_json(rule.get("rule", ""))), ("Message", go_json(rule.get("message", ""))),
             ("MessageExpression", go_json(rule.get("messageExpression", ""))),
             ("Reason", go_json(rule.get("reason"))), ("FieldPath", go_json(rule.get("fieldPath", ""))),
             ("OptionalOldSelf", go_json(rule.get("optionalOldSelf")))]
    return "{" + ",".join(f'"{k}":{v}' for k, v in parts) + "}"


def _go_or_bool(value: Any) -> str:
    if isinstance(value, bool):
        return '{"Allows":%s,"Schema":null}' % go_json(value)
    return '{"Allows":true,"Schema":%s}' % go_schema(value)


def go_schema(schema: Any) -> str:
    """An internal ``JSONSchemaProps`` as ``json.Marshal`` prints it (no omitempty, Go names)."""
    if not isinstance(schema, Mapping):
        return "null"
    parts = []
    for go, key, zero in SCHEMA_FIELDS:
        value = schema.get(key, zero)
        if value is None or key not in schema:
            text = go_json(zero)
        elif key in ("properties", "patternProperties", "definitions"):
            text = "{" + ",".join(f"{go_json(k)}:{go_schema(value[k])}" for k in sorted(value)) + "}"
        elif key in ("allOf", "oneOf", "anyOf"):
            text = "[" + ",".join(go_schema(s) for s in value) + "]"
        elif key == "not":
            text = go_schema(value)
        elif key == "items":
            text = ('{"Schema":null,"JSONSchemas":[%s]}' % ",".join(go_schema(s) for s in value)
                    if isinstance(value, list) else '{"Schema":%s,"JSONSchemas":null}' % go_schema(value))
        elif key in ("additionalProperties", "additionalItems"):
            text = _go_or_bool(value)
        elif key == "externalDocs":
            text = '{"Description":%s,"URL":%s}' % (go_json(value.get("description", "")), go_json(value.get("url", "")))
        elif key == "x-kubernetes-validations":
            text = "[" + ",".join(go_rule(r) for r in value) + "]"
        else:
            text = go_json(value)
        parts.append(f'"{go}":{text}')
    return "{" + ",".join(parts) + "}"


def _go_subresources(value: Any) -> str:
    if not isinstance(value, Mapping):
        return "null"
    scale = value.get("scale")
    scale_text = "null" if not isinstance(scale, Mapping) else (
        '{"SpecReplicasPath":%s,"StatusReplicasPath":%s,"LabelSelectorPath":%s}' % (
            go_json(scale.get("specReplicasPath", "")), go_json(scale.get("statusReplicasPath", "")),
            go_json(scale.get("labelSelectorPath"))))
    return '{"Status":%s,"Scale":%s}' % ("{}" if "status" in value and value["status"] is not None else "null",
                                         scale_text)


def _go_version(version: Mapping[str, Any]) -> str:
    schema = version.get("schema")
    columns = version.get("additionalPrinterColumns")
    fields = version.get("selectableFields")
    parts = [
        ("Name", go_json(version.get("name", ""))), ("Served", go_json(bool(version.get("served")))),
        ("Storage", go_json(bool(version.get("storage")))), ("Deprecated", go_json(bool(version.get("deprecated")))),
        ("DeprecationWarning", go_json(version.get("deprecationWarning"))),
        ("Schema", "null" if schema is None else '{"OpenAPIV3Schema":%s}' % go_schema(schema.get("openAPIV3Schema"))),
        ("Subresources", _go_subresources(version.get("subresources"))),
        ("AdditionalPrinterColumns", "null" if columns is None else "[" + ",".join(
            '{"Name":%s,"Type":%s,"Format":%s,"Description":%s,"Priority":%s,"JSONPath":%s}' % (
                go_json(c.get("name", "")), go_json(c.get("type", "")), go_json(c.get("format", "")),
                go_json(c.get("description", "")), go_json(c.get("priority", 0)), go_json(c.get("jsonPath", "")))
            for c in columns) + "]"),
        ("SelectableFields", "null" if fields is None else "[" + ",".join(
            '{"JSONPath":%s}' % go_json(f.get("jsonPath", "")) for f in fields) + "]"),
    ]
    return "{" + ",".join(f'"{k}":{v}' for k, v in parts) + "}"


def go_versions(versions: Sequence[Mapping[str, Any]]) -> GoJSON:
    return GoJSON("[" + ",".join(_go_version(v) for v in versions) + "]")


_HOISTED = (("schema", "validation"), ("subresources", "subresources"),
            ("additionalPrinterColumns", "additionalPrinterColumns"), ("selectableFields", "selectableFields"))


def internal_form(spec: Mapping[str, Any]) -> Obj:
    """The v1 spec converted to the internal one's layout: ``version`` is the first version's name,
    and a per-version field that every version has alike moves to the top."""
    versions = [dict(v) if isinstance(v, Mapping) else {} for v in spec.get("versions") or []]
    out: Obj = {"versions": versions, "version": versions[0].get("name", "") if versions else ""}
    for v1_key, key in _HOISTED:
        out[key] = None
        if versions and all(semantic(v.get(v1_key)) == semantic(versions[0].get(v1_key)) for v in versions):
            out[key] = versions[0].get(v1_key)
            for v in versions:
                v.pop(v1_key, None)
    return out
