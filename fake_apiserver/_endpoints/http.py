"""The aiohttp edge: routing, content negotiation, request decoding, rendering ``Status``.

Nothing here decides API semantics; it turns an HTTP request into a :class:`RequestInfo` (the
same fields as apiserver's ``RequestInfo``: verb, group, version, resource, subresource,
namespace, name), calls the :class:`~fake_apiserver._storage.store.Store`, and renders the result or the
typed error. Every request passes through the ``interceptors`` in order (the journal and the fault
injector hook in there) before it reaches the store.

Bodies come as JSON, YAML or protobuf (``application/vnd.kubernetes.protobuf``, what kubectl's
imperative ``create`` and kube-scheduler's default configuration send): a protobuf body is decoded
by :mod:`~fake_apiserver._machinery.protobuf` into the JSON object a JSON client would have sent, so nothing
after the edge tells them apart. Any other type (CBOR among them) gets the real server's 415. A
body that does not decode gets the decoder's 400 in Go's words (``encoding/json``'s scanner
message, the body summarized as ``summarizeData`` does; gogo-protobuf's errors for protobuf).
Answers are JSON only: an ``Accept`` that admits no JSON gets the real server's 406 (under ``/api``
and ``/apis``, where it negotiates) with a hint on how to let the client accept JSON; clients that
ask for protobuf, such as kube-scheduler (``protobuf,json``), all admit JSON.

Errors the real server's router makes rather than a handler are copied too: a path under ``/api``
or a served ``/apis/<group>/<version>`` that names no resource, or a method the route does not
take, is go-restful's 404 or 405 turned into a ``Status`` by ``serviceErrorHandler`` (with an empty
``details`` object, ``NewGenericServerResponse``); any other unknown path is Go's plain-text
``404 page not found`` (``http.NotFound`` behind the non-go-restful mux).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Protocol, Sequence

from aiohttp import web

from fake_apiserver._endpoints import discovery
from fake_apiserver._machinery import goyaml
from fake_apiserver._storage.eviction import evict
from fake_apiserver._machinery.jsonutil import dumps, go_syntax_error
from fake_apiserver._machinery.errors import (
    BadRequest,
    Expired,
    FieldError,
    Invalid,
    InternalError,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    RequestEntityTooLarge,
    StatusError,
    Timeout,
    UnsupportedMediaType,
)
from fake_apiserver._storage.effects import Effect, is_write
from fake_apiserver._machinery.fieldvalidation import FieldValidation, warning_headers, yaml_duplicates
from fake_apiserver._registry.kinds import by_resource
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery import protobuf
from fake_apiserver._machinery import schema as schemas
from fake_apiserver._endpoints.openapi import OpenAPIService
from fake_apiserver._machinery.patch import PATCH_TYPES, patch_media_type
from fake_apiserver._machinery.decode import (
    decode_delete_options,
    decode_list_options,
    go_json_type,
    go_parse_int,
    go_quote,
    interpret_errors,
    parse_resource_version,
    query_bool,
    query_values,
    summarize_data,
    validate_write_options,
)
from fake_apiserver._registry.scheme import resolve_kind
from fake_apiserver._storage.store import CREATE_ON_UPDATE, Store, kept_after_delete, too_large_resource_version
from fake_apiserver._endpoints.tables import TableStream, negotiate_table, render_table
from fake_apiserver._registry.meta import path_segment_errors
from fake_apiserver._storage.watch import WatchEvent, Watcher

__all__ = ["Interceptor", "RequestInfo", "build_app", "MAX_BODY_BYTES"]

Obj = dict[str, Any]

MAX_BODY_BYTES = 3 * 1024 * 1024  # apiserver's default MaxRequestBodyBytes
DEFAULT_WATCH_TIMEOUT = 1800.0  # minRequestTimeout; the real server draws from [1800, 3600)
BOOKMARK_PERIOD = 60.0  # cacher bookmarkFrequency
DUE_TOLERANCE = 1e-6  # seconds: a deadline this close is reached (the grain of the virtual clock)

_JSON_HINT = (
    "; this fake API server answers in JSON only: let the client accept application/json "
    "(client-go: rest.Config.AcceptContentTypes)"
)
_BODY_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
_WATCH_TYPES = ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
_NOT_FOUND_MESSAGE = "the server could not find the requested resource"
_METHOD_NOT_ALLOWED_MESSAGE = "the server does not allow this method on the requested resource"
_BLOCK_TIMEOUT = 3.0  # seconds the cacher waits for a resourceVersion it has not reached (blockTimeout)


class _RouterError(StatusError):
    """A ``Status`` from ``NewGenericServerResponse``: its details are an empty object, not absent."""

    def to_status(self) -> dict[str, Any]:
        status = super().to_status()
        code = status.pop("code")
        status["details"] = {}
        status["code"] = code
        return status


class RouteNotFound(_RouterError, NotFound):
    """go-restful's 404 under a served API root."""

    def __init__(self) -> None:
        super().__init__(_NOT_FOUND_MESSAGE)


class RouteUnsupportedMediaType(_RouterError, UnsupportedMediaType):
    """go-restful's 415: a PATCH whose Content-Type none of the route's patch types matches."""

    def __init__(self) -> None:
        super().__init__("415: Unsupported Media Type")


def _route_consumes_patch(content_type: str) -> None:
    """go-restful's ``Route.matchesContentType`` for the PATCH route, before any handler: each
    comma-separated type, cut at ``;`` and trimmed, must be one the route consumes (an absent
    Content-Type counts as ``application/octet-stream``)."""
    consumes = PATCH_TYPES[:4]
    for part in (content_type or "application/octet-stream").split(","):
        media = part.split(";", 1)[0].strip(" \t")
        if media in consumes:
            return
    raise RouteUnsupportedMediaType()


class RouteMethodNotAllowed(_RouterError, MethodNotAllowed):
    """go-restful's 405: the route exists, the method does not."""

    def __init__(self) -> None:
        super().__init__(_METHOD_NOT_ALLOWED_MESSAGE)


class RouteNotAcceptable(_RouterError, NotAcceptable):
    """go-restful's 406: the route produces nothing the ``Accept`` admits. A collection's GET
    route (list and watch) also produces the watch stream types."""

    def __init__(self, watchable: bool) -> None:
        listed = _BODY_TYPES + (_WATCH_TYPES if watchable else "")
        super().__init__(f"406: Not Acceptable\n\nAvailable representations: {listed}{_JSON_HINT}")


def _not_acceptable(info: RequestInfo) -> StatusError | None:
    """The real server's 406 for a request under ``/api`` or ``/apis`` whose ``Accept`` admits no
    JSON (this server answers in JSON only), or None where its router answers 404 first (an
    unserved resource). ``/apis`` and ``/apis/<group>`` are served by handlers that negotiate
    themselves (``NewNotAcceptableError``); every other route by go-restful."""
    if info.is_resource:
        if info.spec is None:
            return None
        return RouteNotAcceptable(info.method == "GET" and not info.name)
    parts = [p for p in info.path.split("/") if p]
    if parts[0] == "apis" and len(parts) <= 2:
        return NotAcceptable(f"only the following media types are accepted: {_BODY_TYPES}{_JSON_HINT}")
    return RouteNotAcceptable(False)


@dataclass
class RequestInfo:
    """What a request is about, parsed once (``apiserver/pkg/endpoints/request/requestinfo.go``)."""

    method: str
    path: str
    query: Mapping[str, str]
    content_type: str
    body: bytes = b""
    is_resource: bool = False
    verb: str = ""
    group: str = ""
    version: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    spec: KindSpec | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def group_resource(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


Handler = Callable[[RequestInfo, web.Request], Awaitable[web.StreamResponse]]


class Interceptor(Protocol):
    async def __call__(self, info: RequestInfo, request: web.Request, call_next: Handler) -> web.StreamResponse:
        """Handle ``info`` or pass it on with ``await call_next(info, request)``."""
        ...


def json_response(obj: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    """``obj`` as the real server writes JSON: compact, ended by a newline (``json.Encoder.Encode``)."""
    return web.Response(
        body=dumps(obj) + b"\n",
        status=status,
        content_type="application/json",
        headers=headers,
    )


def status_response(error: StatusError) -> web.Response:
    return json_response(error.to_status(), error.code, error.headers or None)


_SHARED_EVENTS = ("ADDED", "MODIFIED", "DELETED")  # their objects are the store's, shared by watchers


class EncodedObjects:
    """The JSON bytes of recently served store objects, each object encoded once.

    A write used to be encoded once for its response and once more for every watcher it fans out
    to (11 times with 10 watchers), always to the same bytes: stored objects are never mutated
    (see :mod:`~fake_apiserver._storage.store`), and DELETED events share one object too
    (:attr:`~fake_apiserver._storage.watch.Change.deleted`). The memo is keyed by identity and holds the
    object, so an id cannot be reused while its entry lives; it keeps the ``size`` most recent
    objects (oldest out first), enough for a write to reach every watcher and for a GET of any of
    a few thousand objects to be served from it (as kube-apiserver's watch cache keeps each
    object's serialization), while bounding how many superseded versions it keeps alive (a few
    megabytes). The bytes are :func:`~fake_apiserver._machinery.jsonutil.dumps`'s, hit or miss, so
    responses and watch streams do not change.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._memo: dict[int, tuple[Obj, bytes]] = {}
        self._prefixes: dict[str, bytes] = {}

    def encode(self, obj: Obj) -> bytes:
        memo = self._memo
        hit = memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        data = dumps(obj)
        memo[id(obj)] = (obj, data)
        if len(memo) > self.size:
            del memo[next(iter(memo))]
        return data

    def event_line(self, event: WatchEvent) -> bytes:
        """``dumps(event.to_dict())`` plus a newline, the object's part from the memo."""
        d = event.to_dict()
        obj = d.get("object")
        if event.type in _SHARED_EVENTS and list(d) == ["type", "object"] and type(obj) is dict:
            prefix = self._prefixes.get(event.type)
            if prefix is None:
                prefix = self._prefixes[event.type] = b'{"type":' + json.dumps(event.type).encode() + b',"object":'
            return prefix + self.encode(obj) + b"}\n"
        return dumps(d) + b"\n"

    def response(self, obj: Obj, status: int = 200) -> web.Response:
        """:func:`json_response` for a store object."""
        return web.Response(body=self.encode(obj) + b"\n", status=status, content_type="application/json")


def _parse_path(info: RequestInfo) -> None:
    """Fill the resource fields of ``info`` from its path, or leave ``is_resource`` False."""
    parts = [p for p in info.path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group, version, rest = "", "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return
    if not rest:
        return
    watch_prefix = rest[0] == "watch"
    if watch_prefix:
        rest = rest[1:]
    namespace = ""
    if len(rest) >= 3 and rest[0] == "namespaces" and not (group == "" and len(rest) == 3 and rest[2] in ("status", "finalize")):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        info.is_resource = True
        info.group, info.version = group, version
        return
    info.is_resource = True
    info.group, info.version, info.namespace = group, version, namespace
    info.resource = rest[0]
    info.name = rest[1] if len(rest) > 1 else ""
    info.subresource = rest[2] if len(rest) > 2 else ""
    info.spec = by_resource(group, version, info.resource)
    # RequestInfo: ?watch makes a watch of a collection only (any value but "0"/"false"); one
    # object is watched through the /watch/ prefix, and a GET of it ignores ?watch.
    watching = watch_prefix or (not info.name and "watch" in info.query and query_bool(info.query["watch"]))
    method = info.method
    if method == "GET":
        info.verb = "watch" if watching else ("get" if info.name else "list")
    elif method == "POST":
        info.verb = "create"
    elif method == "PUT":
        info.verb = "update"
    elif method == "PATCH":
        info.verb = "patch"
    elif method == "DELETE":
        info.verb = "delete" if info.name else "deletecollection"
    else:
        info.verb = method.lower()


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _accepts_json(accept: str) -> bool:
    """Whether ``Accept`` admits ``application/json`` (a ``q=0`` entry excludes its type)."""
    if not accept.strip():
        return True
    for part in accept.split(","):
        media = _media_type(part)
        params = [p.strip().replace(" ", "") for p in part.split(";")[1:]]
        if any(p in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            continue
        if media in ("application/json", "application/*", "*/*"):
            return True
    return False


def _parse_body(info: RequestInfo, expected: str) -> Any:
    """The request body as a JSON value, or the decoder's 400 as the real handler words it
    (``transformDecodeError``: Go's ``encoding/json`` message and ``summarizeData`` of the body).

    A body that is not JSON or YAML is refused with the real server's 415 (its list of types);
    protobuf bodies are decoded by the callers, which know the URL's kind
    (:func:`_decode_object`, :func:`delete_options`).
    """
    media = _media_type(info.content_type) if info.content_type else "application/json"
    if media not in ("application/json", "application/yaml"):
        raise UnsupportedMediaType(
            f"the body of the request was in an unknown format - accepted media types include: {_BODY_TYPES}"
        )
    data = info.body
    if media == "application/yaml":
        import yaml

        try:
            value = goyaml.load(data) if data.strip() else None
        except yaml.YAMLError as e:  # go-yaml words it differently; the frame is the real one
            message = f"error converting YAML to JSON: {str(e).splitlines()[0]}"
            raise BadRequest(
                f"the object provided is unrecognized (must be of type {expected}): {message} ({summarize_data(data)})"
            ) from e
        unsupported = goyaml.unsupported_value(value)
        if unsupported is not None:
            raise BadRequest(f"the object provided is unrecognized (must be of type {expected}): "
                             f"json: unsupported value: {unsupported} ({summarize_data(data)})")
        if value is None and not data.strip():
            value = {}
        return value
    try:  # Python's parser first (fast); Go's scanner only to word a failure
        return _JSON_DECODER.decode(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        error = go_syntax_error(data) or "exceeded max depth"  # Python nests less deeply than Go
    raise BadRequest(
        f"the object provided is unrecognized (must be of type {expected}): "
        f"couldn't get version/kind; json parse error: {error} ({summarize_data(data)})"
    )


def _not_json(constant: str) -> Any:
    """``NaN`` and ``Infinity`` are Python's extensions, not JSON: refuse them as Go does."""
    raise ValueError(constant)


# one decoder for every body (``json.loads`` with a hook builds a new one a call)
_JSON_DECODER = json.JSONDecoder(parse_constant=_not_json)


def _decode_object(info: RequestInfo, group: str, version: str, kind: str,
                   release: str = schemas.KUBERNETES_VERSION) -> Obj:
    """:func:`_parse_body`, then the kind and version checks of decoding into the URL's type
    (:func:`~fake_apiserver._machinery.decode.interpret_errors`, :func:`~fake_apiserver._registry.scheme.resolve_kind`);
    a protobuf body is decoded and checked by :func:`~fake_apiserver._machinery.protobuf.decode_object`
    with the Go types of the server's ``release``."""
    if info.content_type and _media_type(info.content_type) == protobuf.CONTENT_TYPE:
        return protobuf.decode_object(info.body, group, version, kind, release)
    body = _parse_body(info, kind)
    if info.content_type and _media_type(info.content_type) == "application/yaml":
        body = _yaml_key_order(body)
    interpret_errors(kind, body, info.body)
    obj: Obj = {} if body is None else body
    resolve_kind(group, version, kind, obj, info.body)
    return obj


def _yaml_key_order(value: Any) -> Any:
    """A YAML body as the decoder reads it: ``yaml.YAMLToJSON`` goes through Go maps, so every
    object's keys come sorted (which orders unknown-field errors)."""
    if isinstance(value, dict):
        return {k: _yaml_key_order(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_yaml_key_order(v) for v in value]
    return value


def _warnings(info: RequestInfo) -> list[str]:
    """Where a request's warnings are kept until the response is rendered (``info.extra``, which
    interceptors see too): the ``Warning`` headers of the answer, whatever its status."""
    warnings: list[str] = info.extra.setdefault("warnings", [])
    return warnings


def _field_validation(info: RequestInfo, warnings: list[str]) -> FieldValidation:
    """A write's ``fieldValidation`` (its value already checked with the write options), the body
    text in which repeated keys are found (a JSON body; a patch's own, read by the patch), and a
    YAML body's repeated keys, which the YAML decoder reports first."""
    values = query_values(info.query, "fieldValidation")
    fields = FieldValidation.of(values[0] if values else "", warnings=warnings)
    if info.verb != "patch":
        media = _media_type(info.content_type) if info.content_type else "application/json"
        if media == "application/json":
            fields.body = info.body
        elif media == "application/yaml" and fields.checks:
            repeated = yaml_duplicates(info.body)
            if repeated:
                fields.leading.append(repeated)
    return fields


async def _blocking(read: Callable[[], Obj]) -> Obj:
    """``read()``, tried once more after the cacher's ``blockTimeout`` when it asks for a
    resourceVersion the store has not reached (``Too large resource version``, 504)."""
    try:
        return read()
    except Timeout:
        await asyncio.sleep(_BLOCK_TIMEOUT)
        return read()


def _check_name_segment(name: str) -> None:
    """The handlers' ``Namer.Name``: a name that cannot be a path segment
    (``path.IsValidPathSegmentName``) is a 400 before anything is looked up."""
    problems = path_segment_errors(name)
    if problems:
        raise BadRequest(f"Name parameter invalid: {go_quote(name)}: {';'.join(problems)}")


def _check_apply_body(data: bytes, spec: KindSpec) -> None:
    """What ``applyPatcher`` refuses before it applies (an apply to a missing object too, which it
    would create): a body that is no YAML or JSON object (``error decoding YAML: ...``; go-yaml's
    own words for a YAML syntax error differ from PyYAML's, which this gives), and an object of
    another type than the URL's (``versionCheckManager``: ``invalid object type: <gvk>``). The
    fake applies nothing itself; the store then answers that server-side apply is not served."""
    import yaml

    try:
        value = goyaml.load(data) if data.strip() else None
    except yaml.YAMLError as e:
        raise BadRequest(f"error decoding YAML: error converting YAML to JSON: yaml: {str(e).splitlines()[0]}") from e
    if value is not None and not isinstance(value, dict):
        raise BadRequest("error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                         f"{go_json_type(value)} into Go value of type map[string]interface {{}}")
    obj = value or {}
    api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
    group, _, version = api_version.rpartition("/")
    if (group, version, kind) != (spec.group, spec.version, spec.kind):
        raise BadRequest(f"invalid object type: {group}/{version}, Kind={kind}")


def _check_export(query: Mapping[str, str]) -> None:
    """``GetResource``: ``?export`` is refused since v1.14 (any value that reads as true)."""
    values = query_values(query, "export")
    if values and query_bool(values[0]):
        raise BadRequest("the export parameter, deprecated since v1.14, is no longer supported")


class ApiHandler:
    """The routes of one server: discovery, health, OpenAPI documents and the resource API."""

    def __init__(self, store: Store, interceptors: list[Interceptor]) -> None:
        self.store = store
        self.interceptors = interceptors
        self.server_address = ""
        self.encoded = EncodedObjects()
        self.openapi = OpenAPIService(store.kinds, store.clock, store.release)  # documents built on first request, then kept

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if not self.server_address and request.host:
            self.server_address = request.host
        return await answered(self._handle(request))

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        info = await read_request(request)
        if info.spec is not None and not self.store.serves(info.spec):  # a kind of a later release
            info.spec = None
        negotiated = info.path in ("/api", "/apis") or info.path.startswith(("/api/", "/apis/"))
        if negotiated and not _accepts_json(request.headers.get("Accept", "")):  # health, version: raw
            refused = _not_acceptable(info)
            if refused is not None:
                raise refused
        return await run_chain(self.interceptors, info, request, self.dispatch)

    async def dispatch(self, info: RequestInfo, request: web.Request) -> web.StreamResponse:
        try:
            if not info.is_resource:
                served = self.openapi.respond(info.path, info.query, request.headers)  # /openapi/v2, /openapi/v3/...
                return served if served is not None else self._non_resource(info)
            response = await self._resource(info, request)
        except StatusError as e:
            response = status_response(e)
        warnings = info.extra.get("warnings")
        if warnings and not response.prepared:  # an error answer carries them too
            for header in warning_headers(warnings):
                response.headers.add("Warning", header)
        return response

    def _non_resource(self, info: RequestInfo) -> web.StreamResponse:
        path = info.path.rstrip("/") or "/"
        kinds = self.store.kinds
        if info.method not in ("GET", "HEAD"):
            if path in ("/api", "/apis") or path.startswith("/api/") or self._served_group_version(path):
                raise RouteMethodNotAllowed()
            return _page_not_found()
        if path in ("/healthz", "/readyz", "/livez") or path.startswith(("/healthz/", "/readyz/", "/livez/")):
            return web.Response(text="ok", content_type="text/plain")
        if path == "/version":
            return json_response(discovery.version_info(self.store.release))
        if path == "/api":
            return json_response(discovery.api_versions(self.server_address))
        if path == "/apis":
            return json_response(discovery.api_group_list(kinds))
        if path == "/api/v1":
            return json_response(discovery.api_resource_list(kinds, "", "v1"))
        parts = [p for p in path.split("/") if p]
        if parts[0] == "apis" and len(parts) == 2:
            doc = discovery.api_group(kinds, parts[1])
            if doc is not None:
                return json_response(doc)
        if parts[0] == "apis" and len(parts) == 3:
            doc = discovery.api_resource_list(kinds, parts[1], parts[2])
            if doc is not None:
                return json_response(doc)
        if path.startswith("/api/") or self._served_group_version(path):
            raise RouteNotFound()
        return _page_not_found()

    async def preview(self, info: RequestInfo) -> Effect | None:
        """The effect ``info`` would have if served now (the same store call as serving it, as a
        dry run), or ``None`` when it would be refused or writes no one object
        (:mod:`fake_apiserver._storage.effects`)."""
        spec = info.spec
        if spec is None or not is_write(info) or (info.subresource and info.subresource not in spec.subresources):
            return None
        store = self.store
        try:
            before = store.get(spec, info.namespace or None, info.name) if info.name else None
            if info.subresource == "eviction":
                return None  # it writes a pod and a budget, not one object
            if info.subresource == "binding":
                if info.verb != "create":
                    return None
                binding = _decode_object(info, "", "v1", "Binding", store.release)
                return Effect(before, store.bound(info.namespace, info.name, binding))
            if (info.verb == "create") == bool(info.name) or (info.verb == "delete" and info.subresource):
                return None  # not a write the resource route serves
            after = self._store_write(info, dry_run=True)
        except StatusError:
            return None
        if info.verb == "delete":  # an object still kept (finalizers, a grace period) is answered as it now is
            return Effect(before, after if kept_after_delete(after) else None)
        return Effect(before, after)

    def _store_write(self, info: RequestInfo, *, dry_run: bool, warnings: list[str] | None = None) -> Obj:
        """The store's answer to a create, update, patch or delete of one object: what serving
        the request and previewing it (:meth:`preview`) both call. ``dry_run`` as the request's
        ``dryRun=All`` (a delete's may also come in its ``DeleteOptions``); the ``fieldValidation``
        warnings go to ``warnings`` (a preview's nowhere)."""
        spec = info.spec
        assert spec is not None
        store, ns, sub = self.store, info.namespace or None, info.subresource or None
        if info.verb in ("create", "update", "patch"):
            fields = _field_validation(info, [] if warnings is None else warnings)
        if info.verb == "create":
            body = _decode_object(info, spec.group, spec.version, spec.kind, store.release)
            return store.create(spec, ns, body, dry_run=dry_run, field_validation=fields)
        if info.verb == "update":
            body = _decode_object(info, spec.group, spec.version, spec.kind, store.release)
            return store.update(spec, ns, info.name, body, subresource=sub, dry_run=dry_run, field_validation=fields)
        if info.verb == "patch":
            return store.patch(spec, ns, info.name, info.body, info.content_type, subresource=sub, dry_run=dry_run,
                               field_validation=fields)
        options = delete_options(info)
        return store.delete(spec, ns, info.name, options=options, dry_run=dry_run or bool(options.get("dryRun")))

    def _served_group_version(self, path: str) -> bool:
        """Whether ``path`` lies under a served ``/apis/<group>/<version>`` (a go-restful root)."""
        parts = [p for p in path.split("/") if p]
        if len(parts) < 3 or parts[0] != "apis":
            return False
        return any(k.group == parts[1] and k.version == parts[2] for k in self.store.kinds)

    async def _resource(self, info: RequestInfo, request: web.Request) -> web.StreamResponse:
        spec = info.spec
        if spec is None or not info.resource:
            if info.group and not self._served_group_version(info.path):
                return _page_not_found()
            raise RouteNotFound()
        if info.subresource and info.subresource not in spec.subresources:
            raise RouteNotFound()
        if info.namespace and not spec.namespaced:
            raise RouteNotFound()
        if info.name:
            _check_name_segment(info.name)
        store = self.store
        ns = info.namespace or None
        q = info.query
        verb = info.verb
        if info.subresource == "binding":
            if verb != "create":
                raise RouteMethodNotAllowed()
            dry_run = validate_write_options("CreateOptions", q)
            fields = _field_validation(info, _warnings(info))
            body = _decode_object(info, "", "v1", "Binding", store.release)
            return json_response(store.bind(info.namespace, info.name, body, dry_run=dry_run,
                                            field_validation=fields), 201)
        if info.subresource == "eviction":
            if verb != "create":
                raise RouteMethodNotAllowed()
            dry_run = validate_write_options("CreateOptions", q)
            fields = _field_validation(info, _warnings(info))
            body = _parse_body(info, "Eviction")
            return json_response(evict(store, info.namespace, info.name, body, dry_run=dry_run,
                                       field_validation=fields), 201)
        table = None
        if verb in ("list", "get", "watch"):  # kubectl get asks for a Table (see _tables)
            table = negotiate_table(request.headers.get("Accept", ""), q.get("includeObject", ""))
        if verb == "list":
            options = decode_list_options(q, spec)
            listed = await _blocking(lambda: store.list(
                spec, ns,
                label_selector=options.label_selector,
                field_selector=options.field_selector,
                limit=max(options.limit, 0),
                continue_token=options.continue_token,
                resource_version=options.resource_version,
                resource_version_match=options.resource_version_match,
            ))
            return json_response(render_table(spec, listed, table, store.clock.now()) if table else listed)
        if verb == "watch":
            if table is not None:
                info.extra["render"] = TableStream(spec, table, store.clock.now)
            return await self._watch(info, request)
        if verb == "get":
            _check_export(q)
            wanted = parse_resource_version(spec, query_values(q, "resourceVersion")[0] if "resourceVersion" in q else "",
                                            named=True)
            if wanted > store.resource_version:
                await asyncio.sleep(_BLOCK_TIMEOUT)  # the cacher waits for a version it has not reached
                if wanted > store.resource_version:
                    raise too_large_resource_version(wanted, store.cache(spec).rv)
            got = store.get(spec, ns, info.name)
            return json_response(render_table(spec, got, table, store.clock.now())) if table else self.encoded.response(got)
        if verb == "create" and not info.name:
            if spec.namespaced and not ns:
                raise RouteMethodNotAllowed()
            dry_run = validate_write_options("CreateOptions", q)
            return self.encoded.response(self._store_write(info, dry_run=dry_run, warnings=_warnings(info)), 201)
        if verb == "update" and info.name:
            dry_run = validate_write_options("UpdateOptions", q)
            creating = (spec.group, spec.resource) in CREATE_ON_UPDATE and not info.subresource \
                and not store.exists(spec, ns, info.name)
            updated = self._store_write(info, dry_run=dry_run, warnings=_warnings(info))
            return self.encoded.response(updated, 201 if creating else 200)
        if verb == "patch" and info.name:
            _route_consumes_patch(info.content_type)
            patch_type = patch_media_type(info.content_type)
            dry_run = validate_write_options("PatchOptions", q, patch_type=patch_type)
            # an apply may create its object, not a subresource's: a missing one is a 404 first
            if patch_type == "application/apply-patch+yaml" and (
                    not info.subresource or store.exists(spec, ns, info.name)):
                _check_apply_body(info.body, spec)
            return self.encoded.response(self._store_write(info, dry_run=dry_run, warnings=_warnings(info)))
        if verb == "delete" and not info.subresource:
            return self.encoded.response(self._store_write(info, dry_run=False))
        if verb == "deletecollection":
            options = decode_list_options(q, spec)
            delete = delete_options(info)
            return json_response(store.delete_collection(
                spec, ns, label_selector=options.label_selector, field_selector=options.field_selector,
                options=delete, dry_run=bool(delete.get("dryRun")),
            ))
        raise RouteMethodNotAllowed()

    async def _watch(self, info: RequestInfo, request: web.Request) -> web.StreamResponse:
        spec = info.spec
        assert spec is not None
        options = decode_list_options(info.query, spec, name=info.name)
        # timeoutSeconds as handleWatch reads it: 0 or absent is the default, below 0 ends at once
        timeout = float(options.timeout_seconds or 0) or DEFAULT_WATCH_TIMEOUT
        if "end_watch_after" in info.extra:  # a fault rule drops this watch early
            timeout = min(timeout, float(info.extra["end_watch_after"]))
        allow_bookmarks = options.allow_watch_bookmarks

        def open_watch() -> Watcher:
            return self.store.watch(
                spec, info.namespace or None,
                name=info.name,
                label_selector=options.label_selector,
                field_selector=options.field_selector,
                resource_version=options.resource_version,
                send_initial_events=options.send_initial_events,
                allow_bookmarks=allow_bookmarks,
            )

        try:
            try:
                watcher = open_watch()
            except Timeout:
                # The cacher waits up to blockTimeout for a version it has not reached yet.
                await asyncio.sleep(_BLOCK_TIMEOUT)
                watcher = open_watch()
        except (Expired, Timeout) as e:
            # The watch cache answers these with 200 and one ERROR event (cacher's
            # newErrWatcher); client-go's reflector re-lists on an Expired one.
            return await error_stream(request, e)
        info.extra["watcher"] = watcher
        try:
            return await stream_watch(
                request, watcher, timeout, allow_bookmarks, info.extra.get("on_events"), info.extra.get("render"),
                self.encoded.event_line,
            )
        finally:
            watcher.stop("client gone")


async def answered(work: Awaitable[web.StreamResponse]) -> web.StreamResponse:
    """``work``'s answer, or its error as a ``Status`` (an unexpected exception as a 500): never
    a traceback to the client. The edge of the fake and of the fault proxy."""
    try:
        return await work
    except StatusError as e:
        return status_response(e)
    except (ConnectionResetError, asyncio.CancelledError):
        raise
    except Exception as e:
        return status_response(InternalError(f"Internal error occurred: {type(e).__name__}: {e}"))


async def run_chain(interceptors: Sequence[Interceptor], info: RequestInfo, request: web.Request,
                    last: Handler) -> web.StreamResponse:
    """Pass the request through ``interceptors`` in order, then to ``last`` (the fake's store or
    the proxy's upstream)."""

    async def at(index: int, info: RequestInfo, request: web.Request) -> web.StreamResponse:
        if index < len(interceptors):
            return await interceptors[index](info, request, lambda i, r: at(index + 1, i, r))
        return await last(info, request)

    return await at(0, info, request)


async def read_request(request: web.Request) -> RequestInfo:
    """The request parsed once: method, path, query, content type, the whole body (413 past the
    limit) and, for an API path, what it is about. Shared by the fake and the fault proxy."""
    info = RequestInfo(method=request.method, path=request.path, query=request.rel_url.query,
                       content_type=request.headers.get("Content-Type", ""))
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")
    if request.can_read_body:
        info.body = await _read_body(request)
    _parse_path(info)
    return info


async def _read_body(request: web.Request) -> bytes:
    """The whole body, or 413 past the limit (``limitedReadBody``); ``read(n)`` alone returns
    only what has arrived so far. The caller has refused a ``Content-Length`` over the limit."""
    if request.content_length is not None:
        try:
            return await request.content.readexactly(request.content_length)
        except asyncio.IncompleteReadError as e:  # the client sent less than it announced
            return e.partial
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.read(MAX_BODY_BYTES + 1 - size)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise RequestEntityTooLarge(f"Request entity too large: limit is {MAX_BODY_BYTES}")


def _next_bookmark(now: float, deadline: float) -> float:
    """The cacher's ``nextBookmarkTime``: every minute, and once 2 s before the watch times out."""
    heartbeat = now + BOOKMARK_PERIOD
    pre_timeout = deadline - 2.0
    return pre_timeout if now < pre_timeout < heartbeat else heartbeat


async def stream_watch(
    request: web.Request,
    watcher: Watcher,
    timeout: float,
    allow_bookmarks: bool,
    on_events: Callable[[list[WatchEvent]], None] | None = None,
    render: Callable[[Obj], Obj] | None = None,
    encode: Callable[[WatchEvent], bytes] | None = None,
) -> web.StreamResponse:
    """Stream a watcher's events as newline-delimited JSON until timeout, stop or disconnect.

    ``on_events`` (set by an interceptor in ``info.extra["on_events"]``, e.g. the journal) sees
    each batch just before it is written; ``render`` (a Table for ``kubectl get -w``) turns each
    event's object into what the client asked for; ``encode`` (the server's
    :meth:`EncodedObjects.event_line`) encodes an event and its newline, shared work among watchers."""
    loop = asyncio.get_running_loop()
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    wake = asyncio.Event()
    watcher.on_ready = wake.set
    deadline = loop.time() + timeout
    next_bookmark = _next_bookmark(loop.time(), deadline)
    while True:
        events = watcher.take()
        if events:
            if on_events is not None:
                on_events(events)
            if render is None and encode is not None:
                payload = b"".join([encode(e) for e in events])
            else:
                dicts = [e.to_dict() for e in events] if render is None else [
                    {"type": e.type, "object": render(e.object)} for e in events]
                payload = b"".join(dumps(d) + b"\n" for d in dicts)
            try:
                await response.write(payload)
            except ConnectionResetError:  # the client left (e.g. a proxy in front stopped): nothing to end
                return response
        if watcher.stopped:
            break
        # due within a microsecond: a timer set for ``due - now`` fires at a float a few ulps
        # short of ``due``, and a wait of those few ulps would not move a loop's clock at all
        now = loop.time()
        if deadline - now <= DUE_TOLERANCE:
            break
        if allow_bookmarks and next_bookmark - now <= DUE_TOLERANCE:
            watcher.bookmark()
            next_bookmark = _next_bookmark(now, deadline)
            continue
        wait = deadline - now
        if allow_bookmarks:
            wait = min(wait, next_bookmark - now)
        wake.clear()
        if watcher.pending or watcher.stopped:
            continue
        try:
            await asyncio.wait_for(wake.wait(), wait)
        except asyncio.TimeoutError:
            pass
    if not watcher.stopped or watcher.stop_reason != "connection dropped":
        try:
            await response.write_eof()
        except ConnectionResetError:  # the client left first (e.g. the server is shutting down)
            pass
    return response


async def error_stream(request: web.Request, error: StatusError) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    event = {"type": "ERROR", "object": error.to_status()}
    await response.write(dumps(event) + b"\n")
    await response.write_eof()
    return response


def _page_not_found() -> web.Response:
    """Go's ``http.NotFound``: what the real server answers outside every API root."""
    return web.Response(
        text="404 page not found\n", status=404, content_type="text/plain", charset="utf-8",
        headers={"X-Content-Type-Options": "nosniff"},
    )


def delete_options(info: RequestInfo) -> Obj:
    """The request's ``DeleteOptions``: its body, or else its query parameters, as the delete
    handler decodes them, then ``ValidateDeleteOptions`` (a 422 on ``DeleteOptions``); see
    :func:`~fake_apiserver._machinery.decode.decode_delete_options`."""
    body: Any = None
    if info.body:
        media = _media_type(info.content_type) if info.content_type else "application/json"
        if media == "application/json":
            try:
                body = _JSON_DECODER.decode(info.body.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                error = go_syntax_error(info.body) or "exceeded max depth"
                raise BadRequest(f"couldn't get version/kind; json parse error: {error}") from None
        elif media == protobuf.CONTENT_TYPE:  # client-go's typed Delete sends its content type
            body = protobuf.decode_delete_options(info.body)
        else:
            body = _parse_body(info, "DeleteOptions")
    return decode_delete_options(body, info.body, info.query)


HANDLER_KEY = web.AppKey("schedharness.handler", ApiHandler)


def build_app(
    store: Store,
    interceptors: list[Interceptor] | None = None,
    extra_routes: Callable[[web.Application], None] | None = None,
) -> web.Application:
    """An aiohttp application serving ``store``; ``interceptors`` see every request first.
    ``extra_routes`` adds routes (the admin path) ahead of the catch-all Kubernetes API route."""
    handler = ApiHandler(store, interceptors if interceptors is not None else [])
    app = web.Application(client_max_size=MAX_BODY_BYTES * 2)
    app[HANDLER_KEY] = handler
    if extra_routes is not None:
        extra_routes(app)
    app.router.add_route("*", "/{tail:.*}", handler.handle)
    return app
