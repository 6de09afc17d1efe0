"""Decoding request bodies and list options the way the real handlers do.

Bodies are JSON here, but what a client sees when one is wrong is the real server's text: the
JSON serializer's defaults (``gvkWithDefaults``), ``SimpleMetaFactory.Interpret``, conversion to
the URL's internal type, and ``transformDecodeError`` (``apiserver/pkg/endpoints/handlers/
rest.go``), and the 422 of ``ValidateListOptions``. Pure functions; the store and the aiohttp
edge both call them.
"""

from __future__ import annotations

import json
from typing import Any

from fake_apiserver._errors import BadRequest, FieldError, Invalid
from fake_apiserver._kinds import KINDS, KindSpec

__all__ = [
    "go_json_type",
    "interpret_errors",
    "parse_resource_version",
    "resolve_kind",
    "summarize_data",
    "validate_list_options",
]

Obj = dict[str, Any]

SCHEME_NAME = "pkg/api/legacyscheme/scheme.go:30"
"""How ``runtime.NewScheme`` names kube-apiserver's scheme in errors (``naming.GetNameFromCallsite``
with release builds' ``-trimpath``; older GOPATH builds printed a ``k8s.io/kubernetes/`` prefix)."""

# Kinds the fake decodes besides the served ones: subresource bodies.
_EXTRA_KINDS = {("", "v1", "Binding")}

# The Go package of each group's internal types (``k8s.io/kubernetes/pkg/apis/<package>``), which
# conversion errors name; events.k8s.io Events share core's internal Event.
_INTERNAL_PACKAGE = {"": "core", "events.k8s.io": "core"}


def _internal_type(group: str, kind: str) -> str:
    return f"{_INTERNAL_PACKAGE.get(group, group.split('.')[0])}.{kind}"


def go_json_type(value: Any) -> str:
    """The JSON type name that ``encoding/json`` puts in an ``UnmarshalTypeError``."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    return "bool" if isinstance(value, bool) else "number"


def summarize_data(data: bytes, max_length: int = 30) -> str:
    """``summarizeData`` (``apiserver/pkg/endpoints/handlers/rest.go``): how a body that could
    not be decoded is quoted in the error, text when it starts with ``{`` and hex otherwise."""
    if not data:
        return "<empty>"
    if data[:1] == b"{":
        text = data[:max_length].decode("utf-8", errors="replace")
        return text + " ..." if len(data) > max_length else text
    return data[:max_length].hex() + " ..." if len(data) > max_length else data.hex()


def _unrecognized(kind: str, error: str, data: bytes) -> BadRequest:
    """``transformDecodeError`` when the body's kind could not be read."""
    return BadRequest(f"the object provided is unrecognized (must be of type {kind}): {error} ({summarize_data(data)})")


def _raw(body: Any, data: bytes | None) -> bytes:
    """The body as sent, for an error to quote: compact JSON when an in-process caller sent none."""
    return data if data is not None else json.dumps(body, separators=(",", ":")).encode()


def interpret_errors(kind: str, body: Any, data: bytes | None = None) -> None:
    """``SimpleMetaFactory.Interpret`` on a parsed JSON body: ``kind`` and ``apiVersion`` must be
    strings and ``apiVersion`` a group/version; ``data`` is the raw body the error quotes.

    A body that is not a JSON object cannot be read into the ``{apiVersion, kind}`` struct at all.
    """
    if body is None:
        return
    if not isinstance(body, dict):
        target = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
        raise _unrecognized(
            kind,
            f"couldn't get version/kind; json parse error: json: cannot unmarshal {go_json_type(body)} "
            f"into Go value of type {target}",
            _raw(body, data),
        )
    for key in ("apiVersion", "kind"):
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise _unrecognized(
                kind,
                f"couldn't get version/kind; json parse error: json: cannot unmarshal {go_json_type(value)} "
                f"into Go struct field .{key} of type string",
                _raw(body, data),
            )
    api_version = body.get("apiVersion") or ""
    if api_version.count("/") > 1:
        raise _unrecognized(kind, f"unexpected GroupVersion string: {api_version}", _raw(body, data))


def resolve_kind(group: str, version: str, kind: str, body: Obj, data: bytes | None = None) -> None:
    """Decode ``body`` as the URL's ``group/version, Kind=kind``, the way the real handlers do.

    The JSON serializer fills a missing ``kind`` and ``apiVersion`` from the URL's type
    (``gvkWithDefaults`` in ``apimachinery/pkg/runtime/serializer/json/json.go``), so a body
    without them is accepted. A body of another served kind fails conversion to the URL's internal
    type, one of a kind the scheme does not know fails lookup, and each is wrapped by
    ``transformDecodeError`` (``apiserver/pkg/endpoints/handlers/rest.go``). Kinds outside the
    fake's table count as unregistered (a real server knows more, e.g. Deployments, and would
    report a conversion error for those instead). ``body`` gets the URL's ``kind`` and
    ``apiVersion``; ``data`` is the raw body that some errors quote (compact JSON of ``body`` for
    in-process callers).
    """
    expected_gv = f"{group}/{version}" if group else version
    if body.get("kind") == kind and body.get("apiVersion") == expected_gv:
        return  # the common case, already what the URL says
    interpret_errors(kind, body, data)
    api_version = body.get("apiVersion") or ""
    body_group, _, body_version = api_version.rpartition("/")
    body_kind = body.get("kind") or kind
    if not body_version and not body_group:
        body_group, body_version = group, version
    elif not body_version and body_group == group:
        body_version = version
    if not body_version:
        raise BadRequest(
            f'{body_kind} in version "" cannot be handled as a {kind}: '
            f"Object 'apiVersion' is missing in '{_raw(body, data).decode('utf-8', errors='replace')}'"
        )
    gv = f"{body_group}/{body_version}" if body_group else body_version
    if (body_group, body_version, body_kind) != (group, version, kind):
        known = (body_group, body_version, body_kind) in _EXTRA_KINDS or any(
            (k.group, k.version, k.kind) == (body_group, body_version, body_kind) for k in KINDS
        )
        prefix = f"{body_kind} in version {json.dumps(body_version)} cannot be handled as a {kind}: "
        if not known:
            raise BadRequest(
                prefix + f'no kind "{body_kind}" is registered for version "{gv}" in scheme "{SCHEME_NAME}"'
            )
        if _internal_type(body_group, body_kind) != _internal_type(group, kind):
            raise BadRequest(
                prefix + f"converting ({body_version}.{body_kind}) to ({_internal_type(group, kind)}): unknown conversion"
            )
        raise BadRequest(
            f"the API version in the data ({gv}) does not match the expected API version ({expected_gv})"
        )
    body["kind"] = kind
    body["apiVersion"] = expected_gv




def validate_list_options(
    *,
    watch: bool,
    resource_version: str,
    resource_version_match: str,
    send_initial_events: bool | None,
    continue_token: str = "",
) -> None:
    """``ValidateListOptions`` (``apimachinery/pkg/apis/meta/internalversion/validation``) with
    the WatchList feature on, raised as the handler does: 422 on ``ListOptions.meta.k8s.io``."""
    errors: list[FieldError] = []
    match = resource_version_match
    if watch:
        if send_initial_events is not None and match != "NotOlderThan":
            errors.append(FieldError.forbidden(
                "resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
        if match:
            if send_initial_events is None:
                errors.append(FieldError.forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
            if match != "NotOlderThan":
                errors.append(FieldError.not_supported("resourceVersionMatch", match, ["NotOlderThan"]))
            if continue_token:
                errors.append(FieldError.forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
    else:
        if match:
            if not resource_version:
                errors.append(FieldError.forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
            if continue_token:
                errors.append(FieldError.forbidden(
                    "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
            if match not in ("Exact", "NotOlderThan"):
                errors.append(FieldError.not_supported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]))
            if match == "Exact" and resource_version == "0":
                errors.append(FieldError.forbidden(
                    "resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
        if send_initial_events is not None:
            errors.append(FieldError.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    if errors:
        raise Invalid.of("ListOptions", "meta.k8s.io", "", errors)


def parse_resource_version(spec: KindSpec, value: str) -> int:
    """``APIObjectVersioner.ParseResourceVersion``; a bad value is what ``InterpretWatchError``
    makes of it: 422 on the resource (``pods "" is invalid: resourceVersion: ...``)."""
    if value in ("", "0"):
        return 0
    if value.isascii() and value.isdigit():
        number = int(value)
        if number < 2**64:
            return number
        why = "value out of range"
    else:
        why = "invalid syntax"
    error = FieldError.invalid("resourceVersion", value, f"strconv.ParseUint: parsing {json.dumps(value)}: {why}")
    raise Invalid.of(spec.resource, spec.group, "", [error])
