"""The OpenAPI v2 and v3 documents of what the fake serves, built from the schema source.

What kubectl reads, and so what the documents get right:

* ``/openapi/v3`` lists one document per served group-version (and the discovery roots ``api``,
  ``apis``, ``apis/<group>``, ``version``), each under ``serverRelativeURL`` with
  ``?hash=<SHA-512 of the document, upper-case hex>`` (kube-openapi ``computeETag``).
* A group-version document has a path for every served resource and subresource, with the
  operations its :class:`~fake_apiserver._machinery.kindspec.KindSpec` serves, each tagged with
  ``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``, and the query parameters
  kube-apiserver lists. kubectl's ``queryParamVerifierV3`` finds ``fieldValidation`` on the kind's
  PATCH and so leaves field validation to the server (``--validate=strict`` sends
  ``fieldValidation=Strict``); ``kubectl apply`` finds ``application/strategic-merge-patch+json``
  in that PATCH's body types and builds its patch from the schemas' ``x-kubernetes-patch-*``
  extensions; ``kubectl explain`` finds the kind's GVK on the resource path and renders its
  schema from ``components.schemas``.
* ``components.schemas`` holds the definitions reachable from those paths, converted from the
  schema package's JSON-schema form (:mod:`fake_apiserver._machinery.schema`): ``#/$defs/`` refs become
  ``#/components/schemas/`` refs, ``[type, "null"]`` becomes ``type``, a ref with a description
  beside it is wrapped in ``allOf`` as kube-apiserver's v3 does, the ``apiVersion``/``kind``
  enums the package adds are dropped, a shared meta kind's GVK list keeps the document's
  group-version (and core ``v1``), and ``oneOf: [string, integer]`` regains its
  ``int-or-string`` format.

What the schema source cannot give, and so the documents lack: the v3 ``default`` values
(``default: {}`` on non-pointer structs, ``default: ""`` on required strings), the ``enum`` lists
and the "Possible enum values" paragraph of enum-typed fields (``kubectl explain`` prints no
``ENUM:`` line), and the descriptions of ``IntOrString`` and ``Quantity``. The package's schemas
are generated from the v2 document, which has none of these.

``/openapi/v2`` is the same model as Swagger 2.0 JSON (``definitions``, ``#/definitions/`` refs,
body parameters, ``consumes``/``produces``). A client that accepts only the protobuf form
(client-go's ``OpenAPISchema``, which kubectl uses for client-side validation, ``explain
--output plaintext-openapiv2`` and as ``apply``'s fallback) gets an empty body, a valid empty
gnostic ``openapi_v2.Document``: no maintained Python package encodes gnostic's protobuf, and
kubectl only turns to it when the v3 documents do not answer. With no models, kubectl's
client-side validation (reached only for kinds the v3 verifier does not find, such as ``v1/List``)
checks nothing beyond duplicate keys, and ``explain --output plaintext-openapiv2`` says it cannot
find the resource. The response type is the dotted form the real server sends (kube-openapi
``subTypeProtobuf``): client-go's ``mime.ParseMediaType`` refuses the ``@v1.0`` spelling kubectl
puts in its ``Accept`` header.

Documents are built on first request and kept by the :class:`OpenAPIService` of one server (the
kinds a server serves do not change), encoded once, and served with the real handlers' headers:
``ETag`` (the hash, quoted) and ``If-None-Match`` answered with 304; a group-version document
asked for with its hash is ``Cache-Control: public, immutable`` with a one-year ``Expires``, with a
stale hash a 301 to the current URL (kube-openapi ``HandleGroupVersion``); the root comes
unlabelled, so as ``text/plain; charset=utf-8`` (the aggregator's ``handleDiscovery`` leaves the
type to ``http.ServeContent``'s sniffing). Like those handlers they answer any method.

This module renders and serves the documents; their paths are built by
:mod:`~fake_apiserver._endpoints.openapi_paths` and their schemas converted by
:mod:`~fake_apiserver._endpoints.openapi_schemas`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from collections.abc import Mapping
from typing import Any, Iterable, Sequence

from aiohttp import web

from fake_apiserver._endpoints.openapi_paths import (
    Operation,
    Param,
    PathItem,
    discovery_paths,
    group_version_paths,
    tag_of,
)
from fake_apiserver._endpoints.openapi_schemas import V2_REF, V3_REF, schemas
from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.clock import Clock
from fake_apiserver._machinery.kindspec import KindSpec

__all__ = ["OpenAPIService", "PROTOBUF_V2", "v2_document", "v3_document", "v3_names"]

Obj = dict[str, Any]

PROTOBUF_V2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
_SECURITY_SCHEME = {"BearerToken": {"type": "apiKey", "description": "Bearer Token authentication",
                                    "name": "authorization", "in": "header"}}
_STREAMS = ("application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")
_STATUS_TEXT = {"200": "OK", "201": "Created", "202": "Accepted", "401": "Unauthorized"}


def _info(release: str) -> Obj:
    return {"title": "Kubernetes", "version": ".".join(release.split(".")[:2])}


# --- rendering ----------------------------------------------------------------------------------


def _v3_param(p: Param) -> Obj:
    out: Obj = {"name": p.name, "in": p.location, "description": p.description}
    if p.required:
        out["required"] = True
    out["schema"] = {"type": p.type, "uniqueItems": True}
    return out


def _v2_param(p: Param) -> Obj:
    out: Obj = {"uniqueItems": True, "type": p.type, "description": p.description, "name": p.name, "in": p.location}
    if p.required:
        out["required"] = True
    return out


def _extensions(op: Operation) -> Obj:
    out: Obj = {}
    if op.action:
        out["x-kubernetes-action"] = op.action
    if op.gvk is not None:
        out["x-kubernetes-group-version-kind"] = {"group": op.gvk[0], "version": op.gvk[1], "kind": op.gvk[2]}
    return out


def _media(op: Operation) -> tuple[str, ...]:
    return tuple(sorted((*op.produces, *(_STREAMS if op.streams else ()))))


def _v3_operation(op: Operation, tag: str) -> Obj:
    out: Obj = {**_extensions(op), "tags": [tag], "description": op.description, "operationId": op.operation_id}
    if op.params:
        out["parameters"] = [_v3_param(p) for p in op.params]
    if op.body is not None:
        body: Obj = {"content": {t: {"schema": {"$ref": V3_REF + op.body}} for t in op.body_types}}
        if op.body_required:
            body["required"] = True
        out["requestBody"] = body
    responses: Obj = {}
    for code, definition in op.responses:
        response: Obj = {"description": _STATUS_TEXT[code]}
        if definition is not None:
            response["content"] = {t: {"schema": {"$ref": V3_REF + definition}} for t in _media(op)}
        responses[code] = response
    out["responses"] = responses
    return out


def _v2_operation(op: Operation, tag: str) -> Obj:
    params = [_v2_param(p) for p in op.params]
    if op.body is not None:
        body: Obj = {"name": "body", "in": "body", "schema": {"$ref": V2_REF + op.body}}
        if op.body_required:
            body["required"] = True
        params.insert(0, body)
    out: Obj = {"description": op.description, "consumes": list(op.body_types), "produces": list(_media(op)),
                "schemes": ["https"], "tags": [tag], "operationId": op.operation_id}
    if params:
        out["parameters"] = params
    responses: Obj = {}
    for code, definition in op.responses:
        response: Obj = {"description": _STATUS_TEXT[code]}
        if definition is not None:
            response["schema"] = {"$ref": V2_REF + definition}
        responses[code] = response
    out["responses"] = responses
    out.update(_extensions(op))
    return out


def _render_paths(paths: Sequence[PathItem], v3: bool) -> Obj:
    out: Obj = {}
    for item in sorted(paths, key=lambda i: i.path):
        tag = tag_of(item.path)
        rendered: Obj = {}
        for method in ("get", "put", "post", "delete", "patch"):  # kube-openapi's field order
            for op in item.operations:
                if op.method == method:
                    rendered[method] = _v3_operation(op, tag) if v3 else _v2_operation(op, tag)
        if item.params:
            rendered["parameters"] = [_v3_param(p) if v3 else _v2_param(p) for p in item.params]
        out[item.path] = rendered
    return out


def v3_names(kinds: Iterable[KindSpec]) -> list[str]:
    """The names ``/openapi/v3`` lists: each served group-version and the discovery roots."""
    names = {"api", "apis", "version"}
    for spec in kinds:
        names.add(f"apis/{spec.group}/{spec.version}" if spec.group else f"api/{spec.version}")
        if spec.group:
            names.add(f"apis/{spec.group}")
    return sorted(names)


def v3_document(kinds: Sequence[KindSpec], name: str, release: str = _schema.KUBERNETES_VERSION,
                extra: Mapping[str, Obj] | None = None) -> Obj:
    """The OpenAPI v3 document ``/openapi/v3/<name>`` (``api/v1``, ``apis/apps/v1``, ``apis``...)
    with the schemas of ``release``."""
    parts = name.split("/")
    group_version: tuple[str, str] | None = None
    if parts[0] == "api" and len(parts) == 2:
        group_version = ("", parts[1])
    elif parts[0] == "apis" and len(parts) == 3:
        group_version = (parts[1], parts[2])
    paths = group_version_paths(kinds, *group_version) if group_version else discovery_paths(name)
    return {"openapi": "3.0.0", "info": _info(release), "paths": _render_paths(paths, True),
            "components": {"schemas": schemas(paths, True, group_version, release, extra),
                           "securitySchemes": _SECURITY_SCHEME}}


def v2_document(kinds: Sequence[KindSpec], release: str = _schema.KUBERNETES_VERSION,
                extra: Mapping[str, Obj] | None = None) -> Obj:
    """The Swagger 2.0 document of ``/openapi/v2``: every served path, every reachable definition
    (of ``release``)."""
    paths: list[PathItem] = []
    for name in v3_names(kinds):
        parts = name.split("/")
        if parts[0] == "api" and len(parts) == 2:
            paths.extend(group_version_paths(kinds, "", parts[1]))
        elif parts[0] == "apis" and len(parts) == 3:
            paths.extend(group_version_paths(kinds, parts[1], parts[2]))
        else:
            paths.extend(discovery_paths(name))
    return {"swagger": "2.0", "info": _info(release), "paths": _render_paths(paths, False),
            "definitions": schemas(paths, False, None, release, extra), "securityDefinitions": _SECURITY_SCHEME,
            "security": [{"BearerToken": []}]}


# --- serving ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoded:
    body: bytes
    etag: str  # SHA-512 of the body, upper-case hex (kube-openapi computeETag)
    last_modified: str


def _encode(document: Obj, now: str) -> Encoded:
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    return Encoded(body, hashlib.sha512(body).hexdigest().upper(), now)


class OpenAPIService:
    """One server's OpenAPI documents, each built and encoded on first request, then kept."""

    def __init__(self, kinds: Sequence[KindSpec], clock: Clock, release: str = _schema.KUBERNETES_VERSION,
                 extra: Mapping[str, Obj] | None = None) -> None:
        self.kinds = tuple(kinds)
        self.extra = dict(extra or {})
        self.release = release
        self.names = v3_names(self.kinds)
        self.clock = clock
        self._built = _http_date(clock.now())  # Last-Modified: when the documents took effect
        self._v3: dict[str, Encoded] = {}
        self._v2: Encoded | None = None

    def v3(self, name: str) -> Encoded:
        encoded = self._v3.get(name)
        if encoded is None:
            encoded = self._v3[name] = _encode(v3_document(self.kinds, name, self.release, self.extra), self._built)
        return encoded

    def v2(self) -> Encoded:
        if self._v2 is None:
            self._v2 = _encode(v2_document(self.kinds, self.release, self.extra), self._built)
        return self._v2

    def root(self) -> Obj:
        return {"paths": {name: {"serverRelativeURL": f"/openapi/v3/{name}?hash={self.v3(name).etag}"}
                          for name in self.names}}

    def respond(self, path: str, query: Mapping[str, str], headers: Mapping[str, str]) -> web.Response | None:
        """The answer to ``/openapi/v2``, ``/openapi/v3`` or ``/openapi/v3/<name>``; None for
        any other path."""
        if path == "/openapi/v3":
            body = json.dumps(self.root(), separators=(",", ":")).encode()
            return web.Response(body=body, headers={"Content-Type": "text/plain; charset=utf-8",
                                                    "Last-Modified": _http_date(self.clock.now())})
        if path.startswith("/openapi/v3/"):
            return self._group_version(path.removeprefix("/openapi/v3/"), query, headers)
        if path == "/openapi/v2":
            return self._v2_response(headers)
        return None

    def _group_version(self, name: str, query: Mapping[str, str], headers: Mapping[str, str]) -> web.Response:
        if name not in self.names:
            return web.Response(status=404)
        accept = headers.get("Accept", "") or "*/*"
        if not _accepts(accept, ("application/json", "application/*", "*/*")):
            # kube-openapi answers 406 when no clause matches; the protobuf form is not served
            return web.Response(status=406, headers={"Vary": "Accept"})
        encoded = self.v3(name)
        hash_ = query.get("hash", "")
        base = {"Vary": "Accept", "ETag": f'"{encoded.etag}"', "Content-Type": "application/json"}
        if hash_ and hash_ != encoded.etag:
            return web.Response(status=301, headers={**base, "Location": f"/openapi/v3/{name}?hash={encoded.etag}"})
        if hash_:
            expires = self.clock.now() + timedelta(days=365)  # Go: time.Now().AddDate(1, 0, 0), RFC 1123
            base.update({"Cache-Control": "public, immutable", "Expires": expires.strftime("%a, %d %b %Y %H:%M:%S UTC")})
        return _serve(encoded, base, headers)

    def _v2_response(self, headers: Mapping[str, str]) -> web.Response:
        accept = headers.get("Accept", "")
        if "protobuf" in accept and not _accepts(accept, ("application/json", "application/*", "*/*")):
            return web.Response(body=b"", headers={"Content-Type": PROTOBUF_V2, "Vary": "Accept"})
        encoded = self.v2()
        return _serve(encoded, {"Vary": "Accept", "ETag": f'"{encoded.etag}"', "Content-Type": "application/json"},
                      headers)


def _http_date(t: datetime) -> str:
    return t.strftime("%a, %d %b %Y %H:%M:%S GMT")


def _serve(encoded: Encoded, base: dict[str, str], headers: Mapping[str, str]) -> web.Response:
    """``http.ServeContent``: 304 for a matching ``If-None-Match``, else the body."""
    base["Last-Modified"] = encoded.last_modified
    if_none_match = headers.get("If-None-Match", "")
    if if_none_match and (if_none_match.strip() == "*" or
                          base["ETag"] in [t.strip().removeprefix("W/") for t in if_none_match.split(",")]):
        return web.Response(status=304, headers={k: v for k, v in base.items() if k != "Content-Type"})
    return web.Response(body=encoded.body, headers=base)


def _accepts(accept: str, types: Sequence[str]) -> bool:
    for clause in accept.split(","):
        media = clause.split(";", 1)[0].strip().lower()
        params = [p.strip().replace(" ", "") for p in clause.split(";")[1:]]
        if media in types and not any(p in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            return True
    return False
