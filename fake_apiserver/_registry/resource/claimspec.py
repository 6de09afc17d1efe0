"""The device claim spec that ResourceClaims and ResourceClaimTemplates hold: its defaults and
its validation, with kube-apiserver v1.36's messages (DeviceClasses share the selector and
configuration rules).

``pkg/apis/resource/validation``'s rules over the claim spec as the fake stores it (JSON, the
API's defaults already applied: ``allocationMode`` ExactCount, ``count`` 1): request names
(DNS-1123 labels, unique), the one-of union of ``exactly`` and ``firstAvailable``, device class
names, allocation modes and counts, selectors that carry a ``cel`` entry, the requests that
constraints and configs name, the attribute of a constraint and the opaque configuration; on
update the claim spec is immutable. Every message was captured from the real server with the
request that provokes it (see ``tests/fake_apiserver/_registry/test_claimspec.py``).

CEL expressions are parsed (:mod:`~fake_apiserver._machinery.cel`: a syntax error is refused with the
parser's own report) and type-checked in the selectors' environment
(:mod:`~fake_apiserver._machinery.dracel`: an undeclared name, an unknown field of ``device``, a
wrong overload, a result that is not a bool). Not checked: the cost limit of an expression,
tolerations, capacity requests, admin access or the length limits of lists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.cel import syntax_error
from fake_apiserver._machinery.dracel import type_error
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain
from fake_apiserver._registry.fieldrules import invalid_each

__all__ = ["default_device_requests", "selector_errors", "validate_claim_spec", "validate_claim_update",
           "validate_device_configs"]

Obj = Mapping[str, Any]

_ALLOCATION_MODES = ["All", "ExactCount"]
_C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_C_IDENTIFIER_ERROR = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
    "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
    "'[A-Za-z_][A-Za-z0-9_]*')"
)
_UNKNOWN_REQUEST = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: Any) -> Obj:
    return value if isinstance(value, Mapping) else {}


def default_device_requests(claim_spec: Any) -> None:
    """``SetDefaults_ExactDeviceRequest`` and ``SetDefaults_DeviceSubRequest`` of
    ``pkg/apis/resource/v1/defaults.go``: ``allocationMode`` ExactCount, and ``count`` 1 with it."""
    if not isinstance(claim_spec, dict):
        return
    devices = claim_spec.get("devices")
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for request in requests if isinstance(requests, list) else []:
        if not isinstance(request, dict):
            continue
        subs = [request.get("exactly")] + list(request.get("firstAvailable") or [])
        for sub in subs:
            if isinstance(sub, dict):
                sub.setdefault("allocationMode", "ExactCount")
                if sub["allocationMode"] == "ExactCount" and not sub.get("count"):
                    sub["count"] = 1


def _device_class_errors(name: Any, path: str) -> list[FieldError]:
    if not name:
        return [FieldError.required(path)]
    return invalid_each(path, name, is_dns1123_subdomain(str(name)))


def selector_errors(selectors: Any, path: str) -> list[FieldError]:
    errors = []
    for i, selector in enumerate(_list(selectors)):
        cel = _map(selector).get("cel")
        if cel is None:
            errors.append(FieldError.required(f"{path}[{i}].cel"))
        else:
            expression = _map(cel).get("expression", "")
            message = (syntax_error(expression) or type_error(expression)) if isinstance(expression, str) else None
            if message is not None:
                errors.append(FieldError.invalid(f"{path}[{i}].cel.expression", expression, message))
    return errors


def _allocation_errors(request: Obj, path: str) -> list[FieldError]:
    """``allocationMode`` and ``count`` of an exact request or a subrequest."""
    mode = request.get("allocationMode") or "ExactCount"
    count = request.get("count") or 0
    if mode == "ExactCount":
        return [FieldError.invalid(f"{path}.count", count, "must be greater than zero")] if count <= 0 else []
    if mode == "All":
        return ([FieldError.invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'")]
                if count else [])
    return [FieldError.not_supported(f"{path}.allocationMode", mode, _ALLOCATION_MODES)]


def _request_errors(request: Obj, path: str) -> list[FieldError]:
    errors = invalid_each(f"{path}.name", request.get("name", ""), is_dns1123_label(str(request.get("name") or "")))
    exactly = request.get("exactly")
    first = _list(request.get("firstAvailable"))
    if exactly is None and not first:
        errors.append(FieldError.required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif exactly is not None and first:
        errors.append(FieldError.invalid(
            path, None, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
    if exactly is not None:
        exact = _map(exactly)
        errors += _device_class_errors(exact.get("deviceClassName"), f"{path}.exactly.deviceClassName")
        errors += selector_errors(exact.get("selectors"), f"{path}.exactly.selectors")
        errors += _allocation_errors(exact, f"{path}.exactly")
    seen: set[str] = set()
    for j, sub in enumerate(first):
        sub = _map(sub)
        sub_path = f"{path}.firstAvailable[{j}]"
        name = str(sub.get("name") or "")
        errors += invalid_each(f"{sub_path}.name", name, is_dns1123_label(name))
        if name in seen:
            errors.append(FieldError.duplicate(sub_path, name))
        seen.add(name)
        errors += _device_class_errors(sub.get("deviceClassName"), f"{sub_path}.deviceClassName")
        errors += selector_errors(sub.get("selectors"), f"{sub_path}.selectors")
        errors += _allocation_errors(sub, sub_path)
    return errors


def _request_reference_errors(names: Any, known: set[str], path: str) -> list[FieldError]:
    return [FieldError.invalid(f"{path}[{i}]", name, _UNKNOWN_REQUEST)
            for i, name in enumerate(_list(names)) if name not in known]


def _attribute_errors(value: str, path: str) -> list[FieldError]:
    """``validateFullyQualifiedName``: ``<domain>/<C identifier>``."""
    domain, slash, name = value.rpartition("/")
    if not slash:
        errors = [] if _C_IDENTIFIER.fullmatch(value) else [FieldError.invalid(path, value, _C_IDENTIFIER_ERROR)]
        return errors + [FieldError.invalid(path, value, "a fully qualified name must be a domain and a name separated by a slash")]
    errors = invalid_each(path, value, is_dns1123_subdomain(domain))
    if not _C_IDENTIFIER.fullmatch(name):
        errors.append(FieldError.invalid(path, value, _C_IDENTIFIER_ERROR))
    return errors


def validate_claim_spec(spec: Any, path: str = "spec") -> list[FieldError]:
    """``validateResourceClaimSpec``: the errors of a claim spec found at ``path``."""
    devices = _map(_map(spec).get("devices"))
    errors: list[FieldError] = []
    known: set[str] = set()
    for i, request in enumerate(_list(devices.get("requests"))):
        request = _map(request)
        request_path = f"{path}.devices.requests[{i}]"
        name = str(request.get("name") or "")
        if name in known:
            errors.append(FieldError.duplicate(request_path, name))
        known.add(name)
        known.update(f"{name}/{_map(sub).get('name')}" for sub in _list(request.get("firstAvailable")))
        errors += _request_errors(request, request_path)
    for i, constraint in enumerate(_list(devices.get("constraints"))):
        constraint = _map(constraint)
        constraint_path = f"{path}.devices.constraints[{i}]"
        errors += _request_reference_errors(constraint.get("requests"), known, f"{constraint_path}.requests")
        match, distinct = constraint.get("matchAttribute"), constraint.get("distinctAttribute")
        if (match is None) == (distinct is None):  # the real message says "multiple" in both cases
            errors.append(FieldError.required(constraint_path, 'exactly one of "matchAttribute" or '
                                                               '"distinctAttribute" is required, but multiple fields are set'))
        elif match is not None:
            errors += _attribute_errors(str(match), f"{constraint_path}.matchAttribute")
        else:
            errors += _attribute_errors(str(distinct), f"{constraint_path}.distinctAttribute")
    return errors + validate_device_configs(devices.get("config"), f"{path}.devices.config", known)


def validate_device_configs(configs: Any, path: str, known: set[str] | None = None) -> list[FieldError]:
    """The opaque device configurations of a claim (``known``: its request names, which a
    config's ``requests`` must name) or of a DeviceClass (no requests)."""
    errors: list[FieldError] = []
    for i, config in enumerate(_list(configs)):
        config = _map(config)
        config_path = f"{path}[{i}]"
        if known is not None:
            errors += _request_reference_errors(config.get("requests"), known, f"{config_path}.requests")
        opaque = config.get("opaque")
        if opaque is None:
            errors.append(FieldError.required(f"{config_path}.opaque"))
            continue
        opaque = _map(opaque)
        if not opaque.get("driver"):
            errors.append(FieldError.required(f"{config_path}.opaque.driver"))
        if opaque.get("parameters") is None:
            errors.append(FieldError.required(f"{config_path}.opaque.parameters"))
    return errors


def validate_claim_update(new_spec: Any, old_spec: Any, semantic: Any) -> list[FieldError]:
    """``ValidateResourceClaimUpdate``: the spec may not change (``semantic`` normalises both
    sides as ``apiequality.Semantic`` compares them); the message shows the new spec as Go's
    ``json.Marshal`` renders the internal type."""
    if semantic(new_spec) == semantic(old_spec):
        return []
    return [FieldError.invalid("spec", GoJSON(_go_claim_spec(new_spec)), "field is immutable")]


# --- the internal types as encoding/json writes them (Go field names, declaration order) ------

def _go(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _go_list(value: Any, render: Any) -> str:
    if value is None:
        return "null"
    return "[" + ",".join(render(_map(v)) for v in _list(value)) + "]"


def _go_struct(fields: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{_go(k)}:{v}" for k, v in fields) + "}"


def _go_selector(selector: Obj) -> str:
    cel = selector.get("cel")
    return _go_struct([("CEL", "null" if cel is None else _go_struct([("Expression", _go(_map(cel).get("expression", "")))]))])


def _go_toleration(tol: Obj) -> str:
    return _go_struct([("Key", _go(tol.get("key", ""))), ("Operator", _go(tol.get("operator", ""))),
                       ("Value", _go(tol.get("value", ""))), ("Effect", _go(tol.get("effect", ""))),
                       ("TolerationSeconds", _go(tol.get("tolerationSeconds")))])


def _go_capacity(capacity: Any) -> str:
    if capacity is None:
        return "null"
    return _go_struct([("Requests", _go(_map(capacity).get("requests")))])


def _go_device_fields(request: Obj, *, exact: bool) -> list[tuple[str, str]]:
    fields = [("DeviceClassName", _go(request.get("deviceClassName", ""))),
              ("Selectors", _go_list(request.get("selectors"), _go_selector)),
              ("AllocationMode", _go(request.get("allocationMode", ""))), ("Count", _go(request.get("count", 0)))]
    if exact:
        fields.append(("AdminAccess", _go(request.get("adminAccess"))))
    return fields + [("Tolerations", _go_list(request.get("tolerations"), _go_toleration)),
                     ("Capacity", _go_capacity(request.get("capacity")))]


def _go_subrequest(sub: Obj) -> str:
    return _go_struct([("Name", _go(sub.get("name", ""))), *_go_device_fields(sub, exact=False)])


def _go_request(request: Obj) -> str:
    exactly = request.get("exactly")
    return _go_struct([
        ("Name", _go(request.get("name", ""))),
        ("Exactly", "null" if exactly is None else _go_struct(_go_device_fields(_map(exactly), exact=True))),
        ("FirstAvailable", _go_list(request.get("firstAvailable"), _go_subrequest)),
    ])


def _go_constraint(constraint: Obj) -> str:
    return _go_struct([("Requests", _go(constraint.get("requests"))),
                       ("MatchAttribute", _go(constraint.get("matchAttribute"))),
                       ("DistinctAttribute", _go(constraint.get("distinctAttribute")))])


def _go_config(config: Obj) -> str:
    opaque = config.get("opaque")
    rendered = "null" if opaque is None else _go_struct([
        ("Driver", _go(_map(opaque).get("driver", ""))), ("Parameters", _go(_map(opaque).get("parameters")))])
    return _go_struct([("Requests", _go(config.get("requests"))), ("Opaque", rendered)])


def _go_claim_spec(spec: Any) -> str:
    devices = _map(_map(spec).get("devices"))
    return _go_struct([("Devices", _go_struct([
        ("Requests", _go_list(devices.get("requests"), _go_request)),
        ("Constraints", _go_list(devices.get("constraints"), _go_constraint)),
        ("Config", _go_list(devices.get("config"), _go_config)),
    ]))])
