"""CustomResourceDefinitions (``apiextensions.k8s.io/v1``): defaulting, validation on create and
update, the status the naming and establishing controllers write, and the cleanup finalizer.

Why a module of its own: the generic strategy serves a CRD's storage, but what makes a CRD a CRD
is here. Every message, field path and order below was captured from kube-apiserver v1.37.2
(``tests/test_apiextensions.py`` keeps them and replays the corpus against a real server).

Trade-offs taken:

* The real server validates the *internal* form of a CRD, into which the v1 body is converted:
  when every version carries the same schema (or subresources, printer columns, selectable
  fields), that field is hoisted to the top of the spec and reported there
  (``spec.validation.openAPIV3Schema...``, ``spec.subresources...``); otherwise under
  ``spec.versions[i]``. :func:`_internal` does that conversion so the paths come out the same.
* Bad values that Go prints as internal structs (``spec.versions``, a schema at the root, a
  ``x-kubernetes-validations`` rule) are rendered with the internal types' field names and order
  (:func:`_go_version`, :func:`_go_schema`).
* A CEL rule is checked for syntax only (:func:`~fake_apiserver._machinery.cel.syntax_error`,
  the CEL project's parser); type errors and cost limits are not checked, since the server's CEL
  environment (its functions and the schema's types) is not declared here. Defaults are checked
  for pruning and for the type of a scalar; a default is not validated against formats, enums or
  bounds. Regular expressions are checked with Python's ``re`` and only the common RE2 errors are
  worded as Go does. A webhook's URL is parsed by Python, not Go (odd URLs may be judged apart). The
  update-time ratcheting (a rule skipped when the old object already broke it) is not emulated.
* The naming controller's status is :func:`names_status`, a pure function the store calls after
  a CRD is written or another of its group deleted; the establishing controller's step is folded
  in (names accepted means ``Established``, as a real server shows a moment later).
* A CRD gets no finalizer on create; the first delete adds ``customresourcecleanup...`` and sets
  ``deletionTimestamp`` (``REST.Delete``), and answers with the object (:func:`mark_for_cleanup`).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Sequence

from fake_apiserver._machinery.cel import syntax_error
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.names import is_dns1035_label, is_dns1123_subdomain
from fake_apiserver._registry.fieldrules import get_in, immutable_errors
from fake_apiserver._registry.generic import KindRules, Strategy, copy_key

__all__ = [
    "CLEANUP_FINALIZER",
    "CustomResourceDefinitionStrategy",
    "RULES",
    "crd_errors",
    "crd_update_errors",
    "default_crd",
    "mark_for_cleanup",
    "names_status",
]

Obj = dict[str, Any]

CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
_APPROVAL = "api-approved.kubernetes.io"
_TYPES = ["array", "boolean", "integer", "number", "object", "string"]
_COLUMN_TYPES = "boolean,date,integer,number,string"
_COLUMN_FORMATS = "byte,date,date-time,double,float,int32,int64,password"
_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]
_MAX_SELECTABLE_FIELDS = 8
# the schema fields allowed at the root when the status subresource is on (Go field names)
_ROOT_WITH_STATUS = ["Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
                     "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems",
                     "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
                     "XPreserveUnknownFields", "XValidations"]


# --------------------------------------------------------------------------- defaulting


def default_crd(obj: Obj) -> None:
    """``SetDefaults_CustomResourceDefinitionSpec``: ``names.singular`` (the kind in lower case),
    ``names.listKind`` (the kind + ``List``), ``conversion.strategy: None``, a webhook service's
    port 443 (``SetDefaults_CustomResourceDefinition``: and an empty ``status.storedVersions``
    becomes the storage version, which is how a ``/status`` write of ``[]`` comes out)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    names = spec.setdefault("names", {})
    kind = str(names.get("kind") or "")
    if not names.get("singular"):
        names["singular"] = kind.lower()
    if not names.get("listKind") and kind:
        names["listKind"] = kind + "List"
    if spec.get("conversion") is None:
        spec["conversion"] = {"strategy": "None"}
    service = get_in(spec, "conversion", "webhook", "clientConfig", "service")
    if isinstance(service, dict) and service.get("port") is None:
        service["port"] = 443
    status = obj.get("status")
    stored = _storage_version(obj)
    if isinstance(status, dict) and not status.get("storedVersions") and stored is not None:
        status["storedVersions"] = [stored]


# --------------------------------------------------------------------------- Go renderings of bad values


def _go_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_SCHEMA_FIELDS: list[tuple[str, str, Any]] = [
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


def _go_rule(rule: Mapping[str, Any]) -> str:
    parts = [("Rule", _go_json(rule.get("rule", ""))), ("Message", _go_json(rule.get("message", ""))),
             ("MessageExpression", _go_json(rule.get("messageExpression", ""))),
             ("Reason", _go_json(rule.get("reason"))), ("FieldPath", _go_json(rule.get("fieldPath", ""))),
             ("OptionalOldSelf", _go_json(rule.get("optionalOldSelf")))]
    return "{" + ",".join(f'"{k}":{v}' for k, v in parts) + "}"


def _go_or_bool(value: Any) -> str:
    if isinstance(value, bool):
        return '{"Allows":%s,"Schema":null}' % _go_json(value)
    return '{"Allows":true,"Schema":%s}' % _go_schema(value)


def _go_schema(schema: Any) -> str:
    """An internal ``JSONSchemaProps`` as ``json.Marshal`` prints it (no omitempty, Go names)."""
    if not isinstance(schema, Mapping):
        return "null"
    parts = []
    for go, key, zero in _SCHEMA_FIELDS:
        value = schema.get(key, zero)
        if value is None or key not in schema:
            text = _go_json(zero)
        elif key in ("properties", "patternProperties", "definitions"):
            text = "{" + ",".join(f"{_go_json(k)}:{_go_schema(value[k])}" for k in sorted(value)) + "}"
        elif key in ("allOf", "oneOf", "anyOf"):
            text = "[" + ",".join(_go_schema(s) for s in value) + "]"
        elif key == "not":
            text = _go_schema(value)
        elif key == "items":
            text = ('{"Schema":null,"JSONSchemas":[%s]}' % ",".join(_go_schema(s) for s in value)
                    if isinstance(value, list) else '{"Schema":%s,"JSONSchemas":null}' % _go_schema(value))
        elif key in ("additionalProperties", "additionalItems"):
            text = _go_or_bool(value)
        elif key == "externalDocs":
            text = '{"Description":%s,"URL":%s}' % (_go_json(value.get("description", "")), _go_json(value.get("url", "")))
        elif key == "x-kubernetes-validations":
            text = "[" + ",".join(_go_rule(r) for r in value) + "]"
        else:
            text = _go_json(value)
        parts.append(f'"{go}":{text}')
    return "{" + ",".join(parts) + "}"


def _go_subresources(value: Any) -> str:
    if not isinstance(value, Mapping):
        return "null"
    scale = value.get("scale")
    scale_text = "null" if not isinstance(scale, Mapping) else (
        '{"SpecReplicasPath":%s,"StatusReplicasPath":%s,"LabelSelectorPath":%s}' % (
            _go_json(scale.get("specReplicasPath", "")), _go_json(scale.get("statusReplicasPath", "")),
            _go_json(scale.get("labelSelectorPath"))))
    return '{"Status":%s,"Scale":%s}' % ("{}" if "status" in value and value["status"] is not None else "null",
                                         scale_text)


def _go_version(version: Mapping[str, Any]) -> str:
    schema = version.get("schema")
    columns = version.get("additionalPrinterColumns")
    fields = version.get("selectableFields")
    parts = [
        ("Name", _go_json(version.get("name", ""))), ("Served", _go_json(bool(version.get("served")))),
        ("Storage", _go_json(bool(version.get("storage")))), ("Deprecated", _go_json(bool(version.get("deprecated")))),
        ("DeprecationWarning", _go_json(version.get("deprecationWarning"))),
        ("Schema", "null" if schema is None else '{"OpenAPIV3Schema":%s}' % _go_schema(schema.get("openAPIV3Schema"))),
        ("Subresources", _go_subresources(version.get("subresources"))),
        ("AdditionalPrinterColumns", "null" if columns is None else "[" + ",".join(
            '{"Name":%s,"Type":%s,"Format":%s,"Description":%s,"Priority":%s,"JSONPath":%s}' % (
                _go_json(c.get("name", "")), _go_json(c.get("type", "")), _go_json(c.get("format", "")),
                _go_json(c.get("description", "")), _go_json(c.get("priority", 0)), _go_json(c.get("jsonPath", "")))
            for c in columns) + "]"),
        ("SelectableFields", "null" if fields is None else "[" + ",".join(
            '{"JSONPath":%s}' % _go_json(f.get("jsonPath", "")) for f in fields) + "]"),
    ]
    return "{" + ",".join(f'"{k}":{v}' for k, v in parts) + "}"


def _go_versions(versions: Sequence[Mapping[str, Any]]) -> GoJSON:
    return GoJSON("[" + ",".join(_go_version(v) for v in versions) + "]")


# --------------------------------------------------------------------------- the internal form


_HOISTED = (("schema", "validation"), ("subresources", "subresources"),
            ("additionalPrinterColumns", "additionalPrinterColumns"), ("selectableFields", "selectableFields"))


def _internal(spec: Mapping[str, Any]) -> Obj:
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


# --------------------------------------------------------------------------- names, versions, columns


def _dns1035(path: str, value: str, prefix: str = "") -> list[FieldError]:
    errs = is_dns1035_label(value.lower() if prefix else value)
    return [FieldError.invalid(path, value, prefix + ",".join(errs))] if errs else []


def _names_errors(names: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionNames`` (spec names and accepted names alike)."""
    errors: list[FieldError] = []
    for key in ("plural", "singular"):
        if names.get(key):
            errors += _dns1035(f"{path}.{key}", str(names[key]))
    for key in ("kind", "listKind"):
        if names.get(key):
            errors += _dns1035(f"{path}.{key}", str(names[key]), "may have mixed case, but should otherwise match: ")
    for i, short in enumerate(names.get("shortNames") or []):
        errors += _dns1035(f"{path}.shortNames[{i}]", str(short))
    if names.get("kind") and names.get("kind") == names.get("listKind"):
        errors.append(FieldError.invalid(f"{path}.listKind", names["listKind"], "kind and listKind may not be the same"))
    for i, category in enumerate(names.get("categories") or []):
        errors += _dns1035(f"{path}.categories[{i}]", str(category))
    return errors


def _simple_json_path(value: str, path: str) -> list[FieldError]:
    if not value:
        return [FieldError.invalid(path, value, "must not be empty")]
    if not value.startswith("."):
        return [FieldError.invalid(path, value, "must be a simple json path starting with .")]
    return []


def _subresources_errors(subresources: Any, path: str) -> list[FieldError]:
    scale = get_in(subresources, "scale")
    if not isinstance(scale, Mapping):
        return []
    errors: list[FieldError] = []
    for key, prefix, detail in (("specReplicasPath", ".spec.", "should be a json path under .spec"),
                                ("statusReplicasPath", ".status.", "should be a json path under .status")):
        value = str(scale.get(key) or "")
        if not value:
            errors.append(FieldError.required(f"{path}.scale.{key}"))
        elif found := _simple_json_path(value, f"{path}.scale.{key}"):
            errors += found
        elif not value.startswith(prefix):
            errors.append(FieldError.invalid(f"{path}.scale.{key}", value, detail))
    selector = str(scale.get("labelSelectorPath") or "")
    if selector:
        if found := _simple_json_path(selector, f"{path}.scale.labelSelectorPath"):
            errors += found
        elif not selector.startswith((".spec.", ".status.")):
            errors.append(FieldError.invalid(f"{path}.scale.labelSelectorPath", selector,
                                             "should be a json path under either .spec or .status"))
    return errors


def _column_errors(column: Mapping[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not column.get("name"):
        errors.append(FieldError.required(f"{path}.name"))
    kind = str(column.get("type") or "")
    if not kind:
        errors.append(FieldError.required(f"{path}.type", f"must be one of {_COLUMN_TYPES}"))
    elif kind not in _COLUMN_TYPES.split(","):
        errors.append(FieldError.invalid(f"{path}.type", kind, f"must be one of {_COLUMN_TYPES}"))
    fmt = str(column.get("format") or "")
    if fmt and fmt not in _COLUMN_FORMATS.split(","):
        errors.append(FieldError.invalid(f"{path}.format", fmt, f"must be one of {_COLUMN_FORMATS}"))
    json_path = str(column.get("jsonPath") or "")
    if not json_path:
        errors.append(FieldError.required(f"{path}.JSONPath"))
    else:
        errors += _simple_json_path(json_path, f"{path}.JSONPath")
    return errors


def _path_tokens(path: str) -> list[str]:
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


def _resolve(schema: Any, path: str, *, arrays: bool) -> tuple[Any, str | None]:
    """The schema a JSON path (``.a.b`` or ``.a['b']``) names, or the reason it names none, as
    ``ValidFieldPath`` words it; a map (``additionalProperties``) takes any key."""
    tokens = iter(_path_tokens(path))
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


def _selectable_fields_errors(fields: Sequence[Mapping[str, Any]], schema: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, entry in enumerate(fields):
        at = f"{path}[{i}].jsonPath"
        json_path = str(entry.get("jsonPath") or "")
        if not json_path:
            errors.append(FieldError.required(at))
            continue
        found, problem = _resolve(schema, json_path, arrays=False)
        if problem:
            errors.append(FieldError.invalid(at, json_path, f"is an invalid path: {problem}"))
            continue
        if _path_tokens(json_path)[1:2] in (["metadata"], ["'metadata'"]):
            errors.append(FieldError.invalid(at, json_path, "must not point to fields in metadata"))
        if get_in(found, "type") not in ("string", "boolean", "integer"):
            errors.append(FieldError.invalid(at, json_path, "must point to a field of type string, boolean or integer. "
                                                            "Enum string fields and strings with formats are allowed."))
        if json_path in seen:
            errors.append(FieldError.duplicate(at, json_path))
        seen.add(json_path)
    if len(seen) > _MAX_SELECTABLE_FIELDS:
        errors.append(FieldError("FieldValueTooMany", path, f"must have at most {_MAX_SELECTABLE_FIELDS} items", len(seen)))
    return errors


def _deprecation_errors(version: Mapping[str, Any], path: str) -> list[FieldError]:
    if "deprecationWarning" not in version or version["deprecationWarning"] is None:
        return []
    warning = str(version["deprecationWarning"])
    if not version.get("deprecated"):
        reasons = ["can only be set for deprecated versions"]
    else:
        reasons = []
        if len(warning.encode()) > 256:
            reasons.append("must be <= 256 characters long")
        if not warning:
            reasons.append("must not be an empty string")
        for i, char in enumerate(warning):
            if not char.isprintable():
                reasons.append("must only contain printable UTF-8 characters; non-printable character found at "
                               f"index {len(warning[:i].encode())}")
                break
    return [FieldError.invalid(f"{path}.deprecationWarning", warning, r) for r in reasons]


# --------------------------------------------------------------------------- schemas


def _has(schema: Any, predicate: Callable[[Mapping[str, Any]], bool]) -> bool:
    """Whether ``predicate`` holds for ``schema`` or any schema nested in it."""
    if not isinstance(schema, Mapping):
        return False
    if predicate(schema):
        return True
    for key in ("properties", "patternProperties", "definitions"):
        if any(_has(s, predicate) for s in (schema.get(key) or {}).values()):
            return True
    for key in ("allOf", "oneOf", "anyOf"):
        if any(_has(s, predicate) for s in schema.get(key) or []):
            return True
    items = schema.get("items")
    nested = [*(items if isinstance(items, list) else [items]), schema.get("not"),
              schema.get("additionalProperties"), schema.get("additionalItems")]
    return any(_has(s, predicate) for s in nested)


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
                    errors.append(FieldError.invalid(f"{path}.x-kubernetes-list-map-keys", GoJSON(_go_json(keys)),
                                                     "entries must all be names of item properties"))
                if key in seen:
                    errors.append(FieldError.invalid(f"{path}.x-kubernetes-list-map-keys", GoJSON(_go_json(keys)),
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
        if field_path and _resolve(node, field_path, arrays=True)[1]:
            errors.append(FieldError.invalid(f"{at}.fieldPath", field_path, "must be a valid path"))
        if cel and text:
            problem = syntax_error(str(rule.get("rule")))
            if problem:
                compile_errors.append(FieldError.invalid(f"{at}.rule", GoJSON(_go_rule(rule)), problem))
    return errors + compile_errors


def _schema_errors(validation: Any, path: str, *, status_enabled: bool, require_structural: bool) -> list[FieldError]:
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
            allowed = {key for go, key, _ in _SCHEMA_FIELDS if go in _ROOT_WITH_STATUS}
            if any(key not in allowed and value not in (None, "", False, [], {}) for key, value in schema.items()):
                errors.append(FieldError.invalid(at, GoJSON(_go_schema(schema)),
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


def _has_status(subresources: Any) -> bool:
    return isinstance(subresources, Mapping) and subresources.get("status") is not None


def _version_errors(version: Mapping[str, Any], path: str, status_enabled: bool, structural: bool) -> list[FieldError]:
    errors = _deprecation_errors(version, path)
    errors += _schema_errors(version.get("schema"), f"{path}.schema", status_enabled=status_enabled,
                             require_structural=structural)
    errors += _subresources_errors(version.get("subresources"), f"{path}.subresources")
    for i, column in enumerate(version.get("additionalPrinterColumns") or []):
        errors += _column_errors(column, f"{path}.additionalPrinterColumns[{i}]")
    fields = version.get("selectableFields") or []
    if fields:
        errors += _selectable_fields_errors(fields, get_in(version, "schema", "openAPIV3Schema"), f"{path}.selectableFields")
    return errors


def _webhook_url_errors(url: str, path: str) -> list[FieldError]:
    """``ValidateWebhookURL`` (https only), with Python's URL parser standing in for Go's."""
    form = "; desired format: https://host[/path]"
    parts = urllib.parse.urlsplit(url)
    errors: list[FieldError] = []
    if parts.scheme != "https":
        errors.append(FieldError.invalid(path, parts.scheme, "'https' is the only allowed URL scheme" + form))
    host = parts.netloc.rsplit("@", 1)[-1]
    if not host:
        errors.append(FieldError.invalid(path, host, "host must be specified" + form))
    if "@" in parts.netloc:
        errors.append(FieldError.invalid(path, parts.netloc.rsplit("@", 1)[0], "user information is not permitted in the URL"))
    if parts.fragment:
        errors.append(FieldError.invalid(path, parts.fragment, "fragments are not permitted in the URL"))
    if parts.query:
        errors.append(FieldError.invalid(path, parts.query, "query parameters are not permitted in the URL"))
    return errors


def _webhook_service_errors(service: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateWebhookService``: name, namespace, port and each segment of the path. The CRD
    validation hands it the service's name and namespace the other way round, so an empty
    namespace is reported as ``service.name`` and an empty name as ``service.namespace``
    (kube-apiserver v1.37.2 does so)."""
    errors: list[FieldError] = []
    for key, reported in (("namespace", "name"), ("name", "namespace")):
        if not service.get(key):
            errors.append(FieldError.required(f"{path}.{reported}"))
    port = service.get("port", 443)
    if not isinstance(port, int) or not 1 <= port <= 65535:
        errors.append(FieldError.invalid(f"{path}.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    url_path = service.get("path")
    if url_path is None or url_path in ("", "/"):
        return errors
    if url_path == "//":
        return errors + [FieldError.invalid(f"{path}.path", url_path, "segment[0] may not be empty")]
    if not url_path.startswith("/"):
        errors.append(FieldError.invalid(f"{path}.path", url_path, "must start with a '/'"))
    rest = url_path[1:]
    for i, segment in enumerate((rest[:-1] if rest.endswith("/") else rest).split("/")):
        if not segment:
            errors.append(FieldError.invalid(f"{path}.path", url_path, f"segment[{i}] may not be empty"))
            continue
        errors += [FieldError.invalid(f"{path}.path", url_path, f"segment[{i}]: {e}") for e in is_dns1123_subdomain(segment)]
    return errors


def _conversion_errors(conversion: Any) -> list[FieldError]:
    if not isinstance(conversion, Mapping):
        return []
    strategy = str(conversion.get("strategy") or "")
    errors: list[FieldError] = []
    if not strategy:
        errors.append(FieldError.required("spec.conversion.strategy"))
    elif strategy not in ("None", "Webhook"):
        errors.append(FieldError.not_supported("spec.conversion.strategy", strategy, ["None", "Webhook"]))
    webhook = conversion.get("webhook") or {}
    config = webhook.get("clientConfig")
    review = webhook.get("conversionReviewVersions") or []
    if strategy == "Webhook":
        if config is None:
            errors.append(FieldError.required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"))
        elif (config.get("url") is None) == (config.get("service") is None):
            errors.append(FieldError.required("spec.conversion.webhookClientConfig", "exactly one of url or service is required"))
        elif config.get("url") is not None:
            errors += _webhook_url_errors(str(config["url"]), "spec.conversion.webhookClientConfig.url")
        else:
            errors += _webhook_service_errors(config["service"], "spec.conversion.webhookClientConfig.service")
        if not review:
            errors.append(FieldError.required("spec.conversion.conversionReviewVersions"))
        else:
            seen: set[str] = set()
            for i, v in enumerate(review):
                if v in seen:
                    errors.append(FieldError.invalid(f"spec.conversion.conversionReviewVersions[{i}]", v, "duplicate version"))
                    continue
                seen.add(v)
                errors += [FieldError.invalid(f"spec.conversion.conversionReviewVersions[{i}]", v, e) for e in is_dns1035_label(v)]
            if not seen & {"v1", "v1beta1"}:
                errors.append(FieldError.invalid("spec.conversion.conversionReviewVersions", GoJSON(_go_json(review)),
                                                 "must include at least one of v1, v1beta1"))
    else:
        if config is not None:
            errors.append(FieldError.forbidden("spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook"))
        if review:
            errors.append(FieldError.forbidden("spec.conversion.conversionReviewVersions", "should not be set when strategy is not set to Webhook"))
    return errors


def _spec_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    """``validateCustomResourceDefinitionSpec`` with the create options (schemas required and
    structural, defaults allowed and pruned)."""
    errors: list[FieldError] = []
    internal = _internal(spec)
    group = str(spec.get("group") or "")
    if not group:
        errors.append(FieldError.required("spec.group"))
    elif found := is_dns1123_subdomain(group):
        errors.append(FieldError.invalid("spec.group", group, ",".join(found)))
    elif "." not in group:
        errors.append(FieldError.invalid("spec.group", group, "should be a domain with at least one dot"))
    scope = str(spec.get("scope") or "")
    if not scope:
        errors.append(FieldError.required("spec.scope"))
    elif scope not in ("Cluster", "Namespaced"):
        errors.append(FieldError.not_supported("spec.scope", scope, ["Cluster", "Namespaced"]))
    versions = internal["versions"]
    if get_in(internal, "validation", "openAPIV3Schema") is None:
        for i, version in enumerate(versions):
            if get_in(version, "schema", "openAPIV3Schema") is None:
                errors.append(FieldError.required(f"spec.versions[{i}].schema.openAPIV3Schema"))
    schemas = [get_in(v, "schema", "openAPIV3Schema") for v in spec.get("versions") or [] if isinstance(v, Mapping)]
    if spec.get("preserveUnknownFields") and any(_has(s, lambda n: n.get("default") is not None) for s in schemas):
        errors.append(FieldError.invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"))
    structural = not spec.get("preserveUnknownFields") or any(
        _has(s, lambda n: any(k.startswith("x-kubernetes-") for k in n)) for s in schemas)
    names_seen: set[str] = set()
    unique = True
    storage = 0
    for i, version in enumerate(versions):
        storage += bool(version.get("storage"))
        name = str(version.get("name") or "")
        unique = unique and name not in names_seen
        names_seen.add(name)
        errors += _dns1035(f"spec.versions[{i}].name", name)
        subresources = internal["subresources"] if internal["subresources"] is not None else version.get("subresources")
        errors += _version_errors(version, f"spec.versions[{i}]", _has_status(subresources), structural)
    if not unique:
        errors.append(FieldError.invalid("spec.versions", _go_versions(versions), "must contain unique version names"))
    if storage != 1:
        errors.append(FieldError.invalid("spec.versions", _go_versions(versions),
                                         "must have exactly one version marked as storage version"))
    if internal["version"]:
        errors += _dns1035("spec.version", internal["version"])
    names = spec.get("names") or {}
    for key in ("plural", "singular", "kind", "listKind"):
        if not names.get(key):
            errors.append(FieldError.required(f"spec.names.{key}"))
    errors += _names_errors(names, "spec.names")
    any_status = _has_status(internal["subresources"]) or any(_has_status(v.get("subresources")) for v in versions)
    errors += _schema_errors(internal["validation"], "spec.validation", status_enabled=any_status,
                             require_structural=structural)
    errors += _subresources_errors(internal["subresources"], "spec.subresources")
    for i, column in enumerate(internal["additionalPrinterColumns"] or []):
        errors += _column_errors(column, f"spec.additionalPrinterColumns[{i}]")
    if internal["selectableFields"]:
        if internal["validation"] is None:
            errors.append(FieldError.invalid("spec.selectableFields", "", "may only be set when validations.schema is included"))
        else:
            errors += _selectable_fields_errors(internal["selectableFields"], get_in(internal, "validation", "openAPIV3Schema"),
                                                "spec.selectableFields")
    conversion = spec.get("conversion")
    strategy = get_in(conversion, "strategy")
    if strategy not in (None, "None") and spec.get("preserveUnknownFields"):
        errors.append(FieldError.invalid("spec.conversion.strategy", strategy, "must be None if spec.preserveUnknownFields is true"))
    return errors + _conversion_errors(conversion)


def _stored_versions_errors(stored: Any, versions: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionStoredVersions``: the storage version is among the
    stored ones, and every stored one is still served in ``spec.versions``."""
    path = "status.storedVersions"
    if not stored:
        return [FieldError.invalid(path, None if stored is None else GoJSON("[]"), "must have at least one stored version")]
    errors: list[FieldError] = []
    index = {v: i for i, v in enumerate(stored)}
    remaining = dict(index)
    for version in versions:
        name = version.get("name")
        if version.get("storage") and name not in index:
            errors.append(FieldError.invalid(path, GoJSON(_go_json(list(stored))), f"must have the storage version {name}"))
        remaining.pop(name, None)
    for name, i in sorted(remaining.items(), key=lambda item: item[1]):
        errors.append(FieldError.invalid(f"{path}[{i}]", name, (
            f"missing from spec.versions; {name} was previously a storage version, and must remain in spec.versions "
            f"until a storage migration ensures no data remains persisted in {name} and removes {name} from "
            "status.storedVersions")))
    return errors


def _approval_state(annotations: Mapping[str, Any]) -> tuple[str, str]:
    value = str(annotations.get(_APPROVAL) or "")
    see = "see https://github.com/kubernetes/enhancements/pull/1111"
    if not value:
        return "missing", f'protected groups must have approval annotation "{_APPROVAL}", {see}'
    if value.startswith("unapproved"):
        return "bypassed", ""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+", value):
        return "approved", ""
    return "invalid", (f'protected groups must have approval annotation "{_APPROVAL}" with either a URL or a reason '
                       f'starting with "unapproved", {see}')


def _approval_errors(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[FieldError]:
    group = str(get_in(new, "spec", "group") or "")
    if not (group in ("k8s.io", "kubernetes.io") or group.endswith((".k8s.io", ".kubernetes.io"))):
        return []
    annotations = get_in(new, "metadata", "annotations") or {}
    state, reason = _approval_state(annotations)
    if old is not None and _approval_state(get_in(old, "metadata", "annotations") or {})[0] == state:
        return []
    path = f"metadata.annotations[{_APPROVAL}]"
    if state == "missing":
        return [FieldError.required(path, reason)]
    if state == "invalid":
        return [FieldError.invalid(path, annotations.get(_APPROVAL), reason)]
    return []


def _preserve_unknown_errors(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[FieldError]:
    if old is not None and get_in(old, "spec", "preserveUnknownFields"):
        return []
    if get_in(new, "spec", "preserveUnknownFields"):
        return [FieldError.invalid("spec.preserveUnknownFields", True,
                                   "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in "
                                   "spec.versions[*].schema instead")]
    return []


def _name_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """The CRD's own name rule, after the generic DNS-subdomain one: ``<plural>.<group>``."""
    name = str(get_in(obj, "metadata", "name") or "")
    wanted = f"{get_in(obj, 'spec', 'names', 'plural') or ''}.{get_in(obj, 'spec', 'group') or ''}"
    if name and name != wanted:
        return [FieldError.invalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group')]
    return []


def crd_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateCustomResourceDefinition`` on a defaulted, prepared CRD, less the generic
    ``ObjectMeta`` rules the store checks first."""
    spec = obj.get("spec") or {}
    versions = [v for v in spec.get("versions") or [] if isinstance(v, Mapping)]
    return (_name_errors(obj) + _spec_errors(spec)
            + _names_errors(get_in(obj, "status", "acceptedNames") or {}, "status.acceptedNames")
            + _stored_versions_errors(get_in(obj, "status", "storedVersions"), versions)
            + _approval_errors(obj, None) + _preserve_unknown_errors(obj, None))


def _established(obj: Mapping[str, Any]) -> bool:
    return any(c.get("type") == "Established" and c.get("status") == "True"
               for c in get_in(obj, "status", "conditions") or [])


def crd_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateCustomResourceDefinitionUpdate`` (less ``ObjectMetaUpdate``): the spec's rules,
    then what may not change (scope and kind once established; group and plural ever), the
    accepted names, the stored versions."""
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errors = _spec_errors(spec)
    if _established(old):
        errors += immutable_errors(spec.get("scope"), old_spec.get("scope"), "spec.scope")
        errors += immutable_errors(get_in(spec, "names", "kind"), get_in(old_spec, "names", "kind"), "spec.names.kind")
    errors += immutable_errors(spec.get("group"), old_spec.get("group"), "spec.group")
    errors += immutable_errors(get_in(spec, "names", "plural"), get_in(old_spec, "names", "plural"), "spec.names.plural")
    versions = [v for v in spec.get("versions") or [] if isinstance(v, Mapping)]
    return (errors + _names_errors(get_in(new, "status", "acceptedNames") or {}, "status.acceptedNames")
            + _stored_versions_errors(get_in(new, "status", "storedVersions"), versions)
            + _approval_errors(new, old) + _preserve_unknown_errors(new, old))


def _status_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """Through ``/status`` only the accepted names are validated (stored versions are not)."""
    return _names_errors(get_in(new, "status", "acceptedNames") or {}, "status.acceptedNames")


# --------------------------------------------------------------------------- strategy


def _storage_version(obj: Mapping[str, Any]) -> str | None:
    for version in get_in(obj, "spec", "versions") or []:
        if isinstance(version, Mapping) and version.get("storage"):
            return str(version.get("name") or "")
    return None


class CustomResourceDefinitionStrategy(Strategy):
    """The CRD registry strategy: defaults on every write; a new CRD's status is the empty one
    the real server answers with (``conditions: null``, empty plural and kind accepted) and the
    storage version as its one stored version; an update keeps the old status but adds a new
    storage version to ``storedVersions``. ``generation`` starts at 1 and moves with the spec (the
    generic rule). The controllers' status is :func:`names_status`."""

    def default(self, obj: Obj) -> None:
        default_crd(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        stored = _storage_version(obj)
        obj["status"] = {"conditions": None, "acceptedNames": {"plural": "", "kind": ""},
                         "storedVersions": [stored] if stored is not None else None}
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        copy_key(old, new, "status")
        stored = _storage_version(new)
        status = new.setdefault("status", {})
        if stored is not None and stored not in (status.get("storedVersions") or []):
            status["storedVersions"] = [*(status.get("storedVersions") or []), stored]

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return crd_update_errors(new, old)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return _status_update_errors(new, old)

    def mark_deleted(self, obj: Obj, now: str) -> bool:
        """``REST.Delete``: the CRD is marked (:func:`mark_for_cleanup`) with a ``Terminating``
        condition and kept until the finalizer controller has deleted its objects; a CRD marked
        already stays as it is."""
        if not obj["metadata"].get("deletionTimestamp"):
            status = obj.setdefault("status", {})
            conditions = status.get("conditions") or []
            _set_condition(conditions, {"type": "Terminating", "status": "True", "reason": "InstanceDeletionPending",
                                        "message": "CustomResourceDefinition marked for deletion; CustomResource "
                                                   "deletion will begin soon"}, now)
            status["conditions"] = conditions
        mark_for_cleanup(obj, now)
        return True


def mark_for_cleanup(obj: Obj, now: str) -> None:
    """The first delete of a CRD (``REST.Delete``): ``deletionTimestamp`` set and the
    ``customresourcecleanup.apiextensions.k8s.io`` finalizer added; the answer is the object
    (200). The finalizer's controller removes it once the CRD's objects are gone."""
    meta = obj.setdefault("metadata", {})
    if meta.get("deletionTimestamp"):
        return
    meta["deletionTimestamp"] = now
    finalizers = meta.get("finalizers") or []
    if CLEANUP_FINALIZER not in finalizers:
        meta["finalizers"] = [*finalizers, CLEANUP_FINALIZER]


# --------------------------------------------------------------------------- naming and establishing


def _claimed(crds: Iterable[Mapping[str, Any]], group: str) -> tuple[set[str], set[str]]:
    resources: set[str] = set()
    kinds: set[str] = set()
    for crd in crds:
        if get_in(crd, "spec", "group") != group:
            continue
        accepted = get_in(crd, "status", "acceptedNames") or {}
        resources.update(str(accepted.get(k) or "") for k in ("plural", "singular"))
        resources.update(accepted.get("shortNames") or [])
        kinds.update(str(accepted.get(k) or "") for k in ("kind", "listKind"))
    return resources, kinds


def _in_use(requested: str, accepted: str, used: set[str]) -> str | None:
    if requested == accepted or requested not in used:
        return None
    return f'"{requested}" is already in use'


def _set_condition(conditions: list[Obj], condition: Obj, now: str) -> None:
    for existing in conditions:
        if existing.get("type") == condition["type"]:
            if existing.get("status") != condition["status"] or not existing.get("lastTransitionTime"):
                existing["lastTransitionTime"] = now
            existing.update(status=condition["status"], reason=condition["reason"], message=condition["message"])
            return
    conditions.append({"type": condition["type"], "status": condition["status"], "lastTransitionTime": now,
                       "reason": condition["reason"], "message": condition["message"]})


def names_status(crd: Mapping[str, Any], crds: Iterable[Mapping[str, Any]], now: str) -> Obj:
    """The status the naming controller, then the establishing controller, leave on ``crd``
    (returned new; ``crd`` is not changed), given the stored CRDs (``crd`` itself may be among
    them; those of other groups are ignored) and the time of the write.

    Each requested name is accepted unless another CRD of the group has accepted it (plural,
    singular and short names share one namespace, kind and list kind another). A conflict makes
    ``NamesAccepted`` False with the last conflicting name's reason (``PluralConflict``,
    ``SingularConflict``, ``ShortNamesConflict``, ``KindConflict``, ``ListKindConflict``) and
    ``Established`` False (``NotAccepted``) unless it was already True; otherwise both are True.
    Call it again for the other CRDs of a group when one is deleted: a freed name is then taken."""
    status: Obj = json.loads(json.dumps(crd.get("status") or {}))
    requested: Mapping[str, Any] = get_in(crd, "spec", "names") or {}
    accepted: Obj = dict(status.get("acceptedNames") or {"plural": "", "kind": ""})
    if semantic(dict(requested)) == semantic(accepted) and status.get("conditions"):
        return status
    name = get_in(crd, "metadata", "name")
    others = [c for c in crds if get_in(c, "metadata", "name") != name]
    resources, kinds = _claimed([*others, crd], str(get_in(crd, "spec", "group") or ""))
    new = dict(accepted)
    reason = message = ""

    def check(key: str, used: set[str], why: str) -> None:
        nonlocal reason, message
        problem = _in_use(str(requested.get(key) or ""), str(accepted.get(key) or ""), used)
        if problem:
            reason, message = why, problem
        else:
            new[key] = requested.get(key) or ""

    check("plural", resources, "PluralConflict")
    check("singular", resources, "SingularConflict")
    shorts = list(requested.get("shortNames") or [])
    if shorts != list(accepted.get("shortNames") or []):
        mine = set(accepted.get("shortNames") or [])
        problems = [p for s in shorts if s not in mine and (p := _in_use(s, "", resources))]
        if problems:
            reason = "ShortNamesConflict"
            message = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
        else:
            new["shortNames"] = shorts
    check("kind", kinds, "KindConflict")
    check("listKind", kinds, "ListKindConflict")
    new["categories"] = requested.get("categories")
    status["acceptedNames"] = _accepted_names_json(new)
    conditions: list[Obj] = list(status.get("conditions") or [])
    if reason:
        _set_condition(conditions, {"type": "NamesAccepted", "status": "False", "reason": reason, "message": message}, now)
        if not any(c.get("type") == "Established" for c in conditions):
            _set_condition(conditions, {"type": "Established", "status": "False", "reason": "NotAccepted",
                                        "message": "not all names are accepted"}, now)
    else:
        _set_condition(conditions, {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                                    "message": "no conflicts found"}, now)
        _set_condition(conditions, {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                                    "message": "the initial names have been accepted"}, now)
    status["conditions"] = conditions
    return status


def _accepted_names_json(names: Mapping[str, Any]) -> Obj:
    """``CustomResourceDefinitionNames`` as v1 marshals it: plural and kind always, the rest
    when set."""
    out: Obj = {"plural": names.get("plural") or ""}
    if names.get("singular"):
        out["singular"] = names["singular"]
    if names.get("shortNames"):
        out["shortNames"] = list(names["shortNames"])
    out["kind"] = names.get("kind") or ""
    if names.get("listKind"):
        out["listKind"] = names["listKind"]
    if names.get("categories"):
        out["categories"] = list(names["categories"])
    return out


RULES: dict[tuple[str, str], KindRules] = {
    ("apiextensions.k8s.io", "CustomResourceDefinition"): KindRules(
        create=crd_errors, update=crd_update_errors, returns_deleted_object=True,
        strategy=lambda spec, options: CustomResourceDefinitionStrategy(spec)),
}
"""The CRD kind's rules; ``update`` is also what the strategy's ``validate_update`` runs alone
(the spec rules are in it, in the real order, so ``create`` is not run again on an update)."""
