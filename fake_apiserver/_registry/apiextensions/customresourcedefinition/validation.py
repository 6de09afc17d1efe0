"""``ValidateCustomResourceDefinition`` and its update twin, less the generic ``ObjectMeta`` rules
the store checks first: the name, the group and scope, names, versions, printer columns,
selectable fields, subresources, conversion (a webhook's URL parsed by Python, not Go: odd URLs may
be judged apart), stored versions, the approval annotation of a protected group, and what may not
change once established. Each version's schema is :mod:`.schema`'s; paths and bad values follow
the internal form (:mod:`.internal`).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from typing import Any, Sequence

from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.names import is_dns1035_label, is_dns1123_subdomain
from fake_apiserver._registry.apiextensions.customresourcedefinition.internal import go_json, go_versions, internal_form
from fake_apiserver._registry.apiextensions.customresourcedefinition.schema import (
    path_tokens,
    resolve_path,
    schema_errors,
    schema_has,
)
from fake_apiserver._registry.fieldrules import get_in, immutable_errors

__all__ = ["crd_errors", "crd_update_errors", "status_update_errors"]

_APPROVAL = "api-approved.kubernetes.io"
_COLUMN_TYPES = "boolean,date,integer,number,string"
_COLUMN_FORMATS = "byte,date,date-time,double,float,int32,int64,password"
_MAX_SELECTABLE_FIELDS = 8


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


def _selectable_fields_errors(fields: Sequence[Mapping[str, Any]], schema: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, entry in enumerate(fields):
        at = f"{path}[{i}].jsonPath"
        json_path = str(entry.get("jsonPath") or "")
        if not json_path:
            errors.append(FieldError.required(at))
            continue
        found, problem = resolve_path(schema, json_path, arrays=False)
        if problem:
            errors.append(FieldError.invalid(at, json_path, f"is an invalid path: {problem}"))
            continue
        if path_tokens(json_path)[1:2] in (["metadata"], ["'metadata'"]):
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


def _has_status(subresources: Any) -> bool:
    return isinstance(subresources, Mapping) and subresources.get("status") is not None


def _version_errors(version: Mapping[str, Any], path: str, status_enabled: bool, structural: bool) -> list[FieldError]:
    errors = _deprecation_errors(version, path)
    errors += schema_errors(version.get("schema"), f"{path}.schema", status_enabled=status_enabled,
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
                errors.append(FieldError.invalid("spec.conversion.conversionReviewVersions", GoJSON(go_json(review)),
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
    internal = internal_form(spec)
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
    if spec.get("preserveUnknownFields") and any(schema_has(s, lambda n: n.get("default") is not None) for s in schemas):
        errors.append(FieldError.invalid("spec.preserveUnknownFields", True, "must be false in order to use defaults in the schema"))
    structural = not spec.get("preserveUnknownFields") or any(
        schema_has(s, lambda n: any(k.startswith("x-kubernetes-") for k in n)) for s in schemas)
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
        errors.append(FieldError.invalid("spec.versions", go_versions(versions), "must contain unique version names"))
    if storage != 1:
        errors.append(FieldError.invalid("spec.versions", go_versions(versions),
                                         "must have exactly one version marked as storage version"))
    if internal["version"]:
        errors += _dns1035("spec.version", internal["version"])
    names = spec.get("names") or {}
    for key in ("plural", "singular", "kind", "listKind"):
        if not names.get(key):
            errors.append(FieldError.required(f"spec.names.{key}"))
    errors += _names_errors(names, "spec.names")
    any_status = _has_status(internal["subresources"]) or any(_has_status(v.get("subresources")) for v in versions)
    errors += schema_errors(internal["validation"], "spec.validation", status_enabled=any_status,
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
            errors.append(FieldError.invalid(path, GoJSON(go_json(list(stored))), f"must have the storage version {name}"))
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


def status_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """Through ``/status`` only the accepted names are validated (stored versions are not)."""
    return _names_errors(get_in(new, "status", "acceptedNames") or {}, "status.acceptedNames")
