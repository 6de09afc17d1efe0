"""Decoding request bodies and list options the way the real handlers do.

Bodies are JSON here, but what a client sees when one is wrong is the real server's text: the
JSON serializer's defaults (``gvkWithDefaults``), ``SimpleMetaFactory.Interpret``, conversion to
the URL's internal type, and ``transformDecodeError`` (``apiserver/pkg/endpoints/handlers/
rest.go``), and the 422 of ``ValidateListOptions``. Pure functions; the store and the aiohttp
edge both call them.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, replace
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import BadRequest, FieldError, GoJSON, Invalid, UnknownError
from fake_apiserver._machinery.jsonutil import go_json_type, go_syntax_error
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.selectors import FieldSelector, LabelSelector
from fake_apiserver._machinery.shapes import DELETE_OPTIONS_SHAPE, check_shape

__all__ = [
    "ListOptions",
    "decode_continue",
    "decode_delete_options",
    "decode_list_options",
    "dry_run_errors",
    "go_json_type",
    "go_parse_int",
    "go_quote",
    "internal_type",
    "interpret_errors",
    "parse_list_resource_version",
    "parse_resource_version",
    "query_bool",
    "query_values",
    "raw_body",
    "resource_version_error",
    "summarize_data",
    "validate_list_options",
    "validate_write_options",
]

Obj = dict[str, Any]

SCHEME_NAME = "pkg/api/legacyscheme/scheme.go:30"
"""How ``runtime.NewScheme`` names kube-apiserver's scheme in errors (``naming.GetNameFromCallsite``
with release builds' ``-trimpath``; older GOPATH builds printed a ``k8s.io/kubernetes/`` prefix)."""


# The Go package of each group's internal types (``k8s.io/kubernetes/pkg/apis/<package>``), which
# conversion errors name; events.k8s.io Events share core's internal Event.
_INTERNAL_PACKAGE = {"": "core", "events.k8s.io": "core"}


def internal_type(group: str, kind: str) -> str:
    return f"{_INTERNAL_PACKAGE.get(group, group.split('.')[0])}.{kind}"


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


def raw_body(body: Any, data: bytes | None) -> bytes:
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
            raw_body(body, data),
        )
    for key in ("apiVersion", "kind"):
        value = body.get(key)
        if value is not None and not isinstance(value, str):
            raise _unrecognized(
                kind,
                f"couldn't get version/kind; json parse error: json: cannot unmarshal {go_json_type(value)} "
                f"into Go struct field .{key} of type string",
                raw_body(body, data),
            )
    api_version = body.get("apiVersion") or ""
    if api_version.count("/") > 1:
        raise _unrecognized(kind, f"unexpected GroupVersion string: {api_version}", raw_body(body, data))


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


def resource_version_error(value: str) -> str | None:
    """``APIObjectVersioner.ParseResourceVersion``'s error for ``value`` as Go renders it
    (``resourceVersion: Invalid value: "x": strconv.ParseUint: ...``), or None when it parses."""
    if value in ("", "0") or (value.isascii() and value.isdigit() and int(value) < 2**64):
        return None
    why = "value out of range" if value.isascii() and value.isdigit() else "invalid syntax"
    return FieldError.invalid("resourceVersion", value, f"strconv.ParseUint: parsing {json.dumps(value)}: {why}").render()


def parse_resource_version(spec: KindSpec, value: str, *, named: bool = False) -> int:
    """``APIObjectVersioner.ParseResourceVersion`` for a get or a watch. A bad value is a plain Go
    error there, which ``ErrorToAPIStatus`` turns into a 500 with no reason (a list words it as
    a 400, see :func:`parse_list_resource_version`). A kind without a watch cache (Events:
    :attr:`~fake_apiserver._machinery.kindspec.KindSpec.watch_cache`) has a get or a watch of one by
    name (``named``) reach the etcd3 store, which words it as a list does (kube-apiserver v1.36; a
    watch of the collection stays a 500)."""
    error = resource_version_error(value)
    if error is not None:
        if named and not spec.watch_cache:
            raise BadRequest(f"invalid resource version: {error}")
        raise UnknownError(error)
    return int(value or 0)


def parse_list_resource_version(value: str) -> int:
    """The list's ``ParseResourceVersion``: ``400 invalid resource version: ...``
    (``storage.ValidateListOptions``)."""
    error = resource_version_error(value)
    if error is not None:
        raise BadRequest(f"invalid resource version: {error}")
    return int(value or 0)


# --- query parameters --------------------------------------------------------------------------
#
# ``metainternalversionscheme.ParameterCodec.DecodeParameters`` reads the query into the options
# struct (``autoConvert_url_Values_To_v1_*``): the first value of a repeated key wins; a bool is
# false only for "0" or "false" (any case) and true for anything else, "" included; an integer is
# ``strconv.ParseInt(s, 10, 64)``, whose error is the 400's whole message.

_GO_INT = re.compile(r"[+-]?[0-9]+")


def go_parse_int(text: str) -> int:
    """``strconv.ParseInt(text, 10, 64)`` or its error as the 400 the parameter codec gives."""
    if _GO_INT.fullmatch(text):
        value = int(text)
        if -(2**63) <= value < 2**63:
            return value
        why = "value out of range"
    else:
        why = "invalid syntax"
    raise BadRequest(f"strconv.ParseInt: parsing {json.dumps(text)}: {why}")


def query_bool(value: str) -> bool:
    """``runtime.Convert_Slice_string_To_bool``: only "0" and "false" (any case) are false."""
    return not (value == "0" or value.lower() == "false")


def query_values(query: Mapping[str, str], key: str) -> list[str]:
    """Every value of ``key`` (aiohttp's query is a multidict; a plain mapping has one)."""
    getall = getattr(query, "getall", None)
    if getall is not None:
        return list(getall(key, []))
    return [query[key]] if key in query else []


@dataclass(frozen=True)
class ListOptions:
    """``metainternalversion.ListOptions`` as the list and watch handlers hold it."""

    label_selector: str = ""
    field_selector: str = ""
    watch: bool = False
    allow_watch_bookmarks: bool = False
    resource_version: str = ""
    resource_version_match: str = ""
    timeout_seconds: int | None = None
    limit: int = 0
    continue_token: str = ""
    send_initial_events: bool | None = None


def decode_list_options(query: Mapping[str, str], spec: KindSpec, *, name: str = "") -> ListOptions:
    """The list and watch handlers' ``listOpts`` (``apiserver/pkg/endpoints/handlers/get.go``).

    In order: the query decoded into ``v1.ListOptions`` (400 for a bad integer), converted to the
    internal type (400 for a label or field selector that does not parse), defaulted
    (``SetListOptionsDefaults``: a watch from ``""`` or ``"0"`` that sets neither
    ``sendInitialEvents`` nor ``resourceVersionMatch`` is a streaming list), validated (422,
    :func:`validate_list_options`), then the field labels converted for the kind (400) and, for a
    watch on one object, the name matched against a field selector (400). The ``watch`` checked
    is the query's own, as in the real handler: a ``/watch/`` path alone does not make it one.
    """
    def first(key: str) -> str | None:
        values = query_values(query, key)
        return values[0] if values else None

    def flag(key: str) -> bool | None:
        value = first(key)
        return None if value is None else query_bool(value)

    timeout = first("timeoutSeconds")
    limit = first("limit")
    options = ListOptions(
        label_selector=first("labelSelector") or "",
        field_selector=first("fieldSelector") or "",
        watch=flag("watch") or False,
        allow_watch_bookmarks=flag("allowWatchBookmarks") or False,
        resource_version=first("resourceVersion") or "",
        resource_version_match=first("resourceVersionMatch") or "",
        timeout_seconds=None if timeout is None else go_parse_int(timeout),
        limit=0 if limit is None else go_parse_int(limit),
        continue_token=first("continue") or "",
        send_initial_events=flag("sendInitialEvents"),
    )
    LabelSelector.parse(options.label_selector)
    field_error: BadRequest | None = None
    try:
        FieldSelector.parse(options.field_selector, spec)
    except BadRequest as e:
        if e.message.startswith(("invalid selector:", "invalid field selector:")):
            raise  # a syntax error: found while converting, before validation
        field_error = e  # a field label the kind does not know: found after validation
    if (options.watch and options.send_initial_events is None and not options.resource_version_match
            and options.resource_version in ("", "0")):
        options = replace(options, send_initial_events=True, resource_version_match="NotOlderThan")
    validate_list_options(
        watch=options.watch, resource_version=options.resource_version,
        resource_version_match=options.resource_version_match,
        send_initial_events=options.send_initial_events, continue_token=options.continue_token,
    )
    if field_error is not None:
        raise field_error
    if name and options.field_selector:
        if FieldSelector.parse(options.field_selector, spec).requires_exact_match("metadata.name") != name:
            raise BadRequest("fieldSelector metadata.name doesn't match requested name")
    return options


_CONTINUE_INVALID = "continue key is not valid"
_B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _raw_url_b64decode(text: str) -> bytes:
    """``base64.RawURLEncoding.DecodeString``, or ``ValueError`` with Go's
    ``illegal base64 data at input byte N`` (newlines skipped, no padding, trailing bits ignored)."""
    bits = 0
    nbits = 0
    out = bytearray()
    quantum = 0
    data = text.encode("utf-8")
    for i, byte in enumerate(data):
        if byte in b"\r\n":
            continue
        index = _B64URL.find(chr(byte)) if byte < 0x80 else -1
        if index < 0:
            raise ValueError(f"illegal base64 data at input byte {i}")
        bits = (bits << 6) | index
        nbits += 6
        quantum = (quantum + 1) % 4
        if nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)
            bits &= (1 << nbits) - 1
    if quantum == 1:
        raise ValueError(f"illegal base64 data at input byte {len(data) - 1}")
    return bytes(out)


def _go_json_error(data: bytes) -> str:
    """``encoding/json``'s syntax error for ``data`` (Go 1.2x quotes a byte above 0x7f as ``'\\xNN'``)."""
    error = go_syntax_error(data) or "unexpected end of JSON input"
    return re.sub(r"'\\u00([89a-f][0-9a-f])'", r"'\\x\1'", error)


def decode_continue(token: str, resource_version: str = "") -> tuple[int, str]:
    """``storage.ValidateListOptions`` on a list's ``continue``: the token's resourceVersion
    (``-1``: the latest) and start key, or the real 400 (``invalid continue token: ...``;
    ``specifying resource version is not allowed when using continue``)."""

    def invalid(why: str) -> BadRequest:
        return BadRequest(f"invalid continue token: {why}")

    try:
        data = _raw_url_b64decode(token)
    except ValueError as e:
        raise invalid(f"{_CONTINUE_INVALID}: {e}") from None
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise invalid(f"{_CONTINUE_INVALID}: {_go_json_error(data)}") from None
    if parsed is None:
        parsed = {}
    if not isinstance(parsed, dict):
        raise invalid(f"{_CONTINUE_INVALID}: json: cannot unmarshal {go_json_type(parsed)} into Go value of type "
                      "storage.continueToken")
    fields = {"v": ("APIVersion", str, "string"), "rv": ("ResourceVersion", int, "int64"),
              "start": ("StartKey", str, "string")}
    token_fields: dict[str, Any] = {"v": "", "rv": 0, "start": ""}
    for key, value in parsed.items():
        match = next((f for f in fields if f == key.lower()), None)
        if match is None or value is None:
            continue
        go_name, py_type, go_type = fields[match]
        ok = isinstance(value, py_type) and not isinstance(value, bool)
        if py_type is int and isinstance(value, float):
            ok = False
        if not ok:
            shown = go_json_type(value) if not isinstance(value, (int, float)) or isinstance(value, bool) else \
                f"number {json.dumps(value)}"
            raise invalid(f"{_CONTINUE_INVALID}: json: cannot unmarshal {shown} into Go struct field "
                          f"continueToken.{match} of type {go_type}")
        token_fields[match] = value
    if token_fields["v"] != "meta.k8s.io/v1":
        raise invalid(f"{_CONTINUE_INVALID}: server does not recognize this encoded version {token_fields['v']}")
    if token_fields["rv"] == 0:
        raise invalid(f"{_CONTINUE_INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
    start = token_fields["start"]
    if not start:
        raise invalid(f"{_CONTINUE_INVALID}: encoded start key empty (version meta.k8s.io/v1)")
    key = start if start.startswith("/") else "/" + start
    if _go_path_clean(key) != key:
        raise invalid(f"{_CONTINUE_INVALID}: {start}")
    if resource_version not in ("", "0"):
        raise BadRequest("specifying resource version is not allowed when using continue")
    rv = token_fields["rv"]
    return (-1 if rv < 0 else rv), key[1:]


def _go_path_clean(path: str) -> str:
    """Go's ``path.Clean`` for a rooted path (``posixpath.normpath`` keeps a leading ``//``)."""
    cleaned = posixpath.normpath(path)
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


_DRY_RUN_VALUES = ["All"]
_FIELD_VALIDATION_VALUES = ["", "Ignore", "Strict", "Warn"]
FIELD_MANAGER_MAX_LENGTH = 128


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def go_quote(text: str) -> str:
    """Go's ``strconv.Quote`` (``%q``): printable characters as they are, the rest escaped."""
    out = []
    for ch in text:
        if ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _field_manager_errors(manager: str) -> list[FieldError]:
    """``ValidateFieldManager``: at most 128 bytes, printable characters only."""
    errors: list[FieldError] = []
    if len(manager.encode("utf-8")) > FIELD_MANAGER_MAX_LENGTH:
        errors.append(FieldError("FieldValueTooLong", "fieldManager",
                                 f"may not be more than {FIELD_MANAGER_MAX_LENGTH} bytes"))
    position = 0
    for ch in manager:
        if not ch.isprintable() and ch != " ":
            errors.append(FieldError.invalid("fieldManager", GoJSON(go_quote(manager)),
                                             f"invalid character U+{ord(ch):04X} (at position {position})"))
        position += len(ch.encode("utf-8"))
    return errors


def dry_run_errors(dry_run: list[str]) -> list[FieldError]:
    """``ValidateDryRun``: every value must be ``All``."""
    if all(v in _DRY_RUN_VALUES for v in dry_run):
        return []
    return [FieldError.not_supported("dryRun", GoJSON(json.dumps(dry_run, separators=(",", ":"))), _DRY_RUN_VALUES)]


_APPLY_TYPES = ("application/apply-patch+yaml", "application/apply-patch+cbor")


def validate_write_options(kind: str, query: Mapping[str, str], *, patch_type: str = "") -> bool:
    """``ValidateCreateOptions``/``ValidateUpdateOptions``/``ValidatePatchOptions`` on the query
    (``kind`` is ``CreateOptions``, ``UpdateOptions`` or ``PatchOptions``), raised as the
    handlers do: 422 on ``<kind>.meta.k8s.io``. Returns whether the request is a dry run."""
    if not query and patch_type not in _APPLY_TYPES:  # no option given: none can be wrong (most writes)
        return False
    errors: list[FieldError] = []
    manager_values = query_values(query, "fieldManager")
    manager = manager_values[0] if manager_values else ""
    if kind == "PatchOptions":
        if patch_type in _APPLY_TYPES:
            if not manager:
                errors.append(FieldError.required("fieldManager", "is required for apply patch"))
        elif "force" in query:
            errors.append(FieldError.forbidden("force", "may not be specified for non-apply patch"))
    errors += _field_manager_errors(manager)
    dry_run = query_values(query, "dryRun")
    errors += dry_run_errors(dry_run)
    validation_values = query_values(query, "fieldValidation")
    validation = validation_values[0] if validation_values else ""
    if validation not in _FIELD_VALIDATION_VALUES:
        errors.append(FieldError.not_supported("fieldValidation", validation, _FIELD_VALIDATION_VALUES))
    if errors:
        raise Invalid.of(kind, "meta.k8s.io", "", errors)
    return bool(dry_run)


_PROPAGATION_POLICIES = ["Foreground", "Background", "Orphan"]
_META_SCHEME = "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"
# Kinds the meta internal scheme knows besides DeleteOptions (which every group version registers,
# for clients that send a group's own DeleteOptions): a body of one of them fails conversion.
_META_KINDS = {
    "ListOptions", "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions", "WatchEvent", "Table",
    "TableOptions", "PartialObjectMetadata", "PartialObjectMetadataList", "Status", "APIVersions",
    "APIGroupList", "APIGroup", "APIResourceList",
}


def decode_delete_options(body: Any, raw: bytes, query: Mapping[str, str]) -> Obj:
    """The delete handlers' ``DeleteOptions``: the body when there is one (``body`` parsed as
    JSON, ``raw`` as sent), else the query, then ``ValidateDeleteOptions`` (422 on
    ``DeleteOptions.meta.k8s.io``). The body goes through the meta internal scheme's decoder,
    whose errors reach the client bare (400, no ``transformDecodeError`` wording): Interpret's,
    a kind the scheme does not have, a meta kind that does not convert."""
    options: Obj = {}
    if raw:
        if body is not None and not isinstance(body, dict):
            raise BadRequest(
                "couldn't get version/kind; json parse error: json: cannot unmarshal "
                f"{go_json_type(body)} into Go value of type struct {{ APIVersion string "
                '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
        options = body or {}
        for key in ("apiVersion", "kind"):
            value = options.get(key)
            if value is not None and not isinstance(value, str):
                raise BadRequest("couldn't get version/kind; json parse error: json: cannot unmarshal "
                                 f"{go_json_type(value)} into Go struct field .{key} of type string")
        api_version = options.get("apiVersion") or ""
        if api_version.count("/") > 1:
            raise BadRequest(f"unexpected GroupVersion string: {api_version}")
        kind = options.get("kind") or "DeleteOptions"
        if kind != "DeleteOptions":
            if kind in _META_KINDS:
                raise BadRequest(f"converting (v1.{kind}) to (v1.DeleteOptions): unknown conversion")
            raise BadRequest(f'no kind "{kind}" is registered for version "{api_version or "meta.k8s.io/v1"}" '
                             f'in scheme "{_META_SCHEME}"')
        try:
            check_shape("DeleteOptions", "v1", options, DELETE_OPTIONS_SHAPE)
        except BadRequest as e:  # the meta codec's error is encoding/json's alone
            raise BadRequest(e.message.split(": ", 1)[1]) from None
    else:
        def first(key: str) -> str | None:
            values = query_values(query, key)
            return values[0] if values else None

        grace = first("gracePeriodSeconds")
        if grace is not None:
            options["gracePeriodSeconds"] = go_parse_int(grace)
        orphan = first("orphanDependents")
        if orphan is not None:
            options["orphanDependents"] = query_bool(orphan)
        policy = first("propagationPolicy")
        if policy is not None:
            options["propagationPolicy"] = policy
        dry_run = query_values(query, "dryRun")
        if dry_run:
            options["dryRun"] = dry_run
    errors: list[FieldError] = []
    policy = options.get("propagationPolicy")
    if options.get("orphanDependents") is not None and policy is not None:
        errors.append(FieldError.invalid("propagationPolicy", policy,
                                         "orphanDependents and deletionPropagation cannot be both set"))
    if policy is not None and policy not in _PROPAGATION_POLICIES:
        errors.append(FieldError.not_supported("propagationPolicy", policy, _PROPAGATION_POLICIES + ["nil"]))
    errors += dry_run_errors(options.get("dryRun") or [])
    if errors:
        raise Invalid.of("DeleteOptions", "meta.k8s.io", "", errors)
    return options
