"""The fake's routing table: which part of the server answers a request.

Every request is read once (:func:`~fake_apiserver._endpoints.request.read_request`), refused with
the real server's 406 if its ``Accept`` admits no JSON, passed through the ``interceptors`` (the
journal, the fault injector) and then routed here: a resource path to the verb handlers of
:mod:`~fake_apiserver._endpoints.handlers`, ``/openapi/...`` to
:mod:`~fake_apiserver._endpoints.openapi`, discovery, ``/version`` and the health checks to their
documents. The pieces live in their own modules by role (the request model and chain, body
decoding, response encoding, the watch stream, the router's errors, the handlers); this one only
decides which of them answers, so that the routes can be read in one place, as a table.

Errors the real server's router makes rather than a handler are copied too: a path under ``/api``
or a served ``/apis/<group>/<version>`` that names no resource, or a method the route does not
take, is go-restful's 404 or 405 turned into a ``Status`` by ``serviceErrorHandler`` (with an empty
``details`` object, ``NewGenericServerResponse``; see
:mod:`~fake_apiserver._endpoints.route_errors`); any other unknown path is Go's plain-text
``404 page not found`` (``http.NotFound`` behind the non-go-restful mux).
"""

from __future__ import annotations

from aiohttp import web

from fake_apiserver._endpoints import discovery
from fake_apiserver._endpoints.handlers import ResourceHandlers
from fake_apiserver._endpoints.openapi import OpenAPIService
from fake_apiserver._endpoints.request import Chain, HttpRequest, Interceptor, RequestInfo, answered, read_request
from fake_apiserver._endpoints.responses import json_response, page_not_found, status_response
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed, RouteNotFound, accepts_json, not_acceptable
from fake_apiserver._machinery.errors import StatusError
from fake_apiserver._machinery.fieldvalidation import warning_headers
from fake_apiserver._storage.store import Store

__all__ = ["ApiHandler"]


class ApiHandler:
    """The routes of one server: discovery, health, OpenAPI documents and the resource API."""

    def __init__(self, store: Store, interceptors: list[Interceptor]) -> None:
        self.store = store
        self.interceptors = interceptors
        self._chain = Chain(self.dispatch)
        self.server_address = ""
        self.resources = ResourceHandlers(store)
        self._openapi = OpenAPIService(store.kinds, store.clock, store.release)  # documents built on first request, then kept
        self._openapi_generation = store.kinds_generation

    @property
    def openapi(self) -> OpenAPIService:
        """The OpenAPI documents of what is served now: built again once the served kinds change
        (a CRD established or deleted), as kube-apiserver republishes its documents."""
        if self._openapi_generation != self.store.kinds_generation:
            self._openapi = OpenAPIService(self.store.kinds, self.store.clock, self.store.release,
                                           self.store.custom_resources.definitions())
            self._openapi_generation = self.store.kinds_generation
        return self._openapi

    async def handle(self, request: HttpRequest) -> web.StreamResponse:
        if not self.server_address and request.host:
            self.server_address = request.host
        return await answered(self._handle(request))

    async def _handle(self, request: HttpRequest) -> web.StreamResponse:
        info = await read_request(request, self.store.lookup)
        negotiated = info.path in ("/api", "/apis") or info.path.startswith(("/api/", "/apis/"))
        if negotiated and not accepts_json(request.headers.get("Accept", "")):  # health, version: raw
            refused = not_acceptable(info)
            if refused is not None:
                raise refused
        return await self._chain(self.interceptors, info, request)

    async def dispatch(self, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
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
        # The health checks, /apis and /apis/<group> are plain handlers that answer any method;
        # /version, /api, /api/v1 and /apis/<group>/<version> are go-restful routes of GET alone
        # (HEAD too is 405), as kube-apiserver v1.37.2 answers them.
        if path in ("/healthz", "/readyz", "/livez") or path.startswith(("/healthz/", "/readyz/", "/livez/")):
            return web.Response(text="ok", content_type="text/plain")
        if path == "/apis":
            return json_response(discovery.api_group_list(kinds))
        parts = [p for p in path.split("/") if p]
        if parts and parts[0] == "apis" and len(parts) == 2:
            doc = discovery.api_group(kinds, parts[1])
            if doc is not None:
                return json_response(doc)
        if info.method != "GET":
            if path in ("/version", "/api") or path.startswith("/api/") or self._served_group_version(path):
                raise RouteMethodNotAllowed()
            return page_not_found()
        if path == "/version":
            return json_response(discovery.version_info(self.store.release))
        if path == "/api":
            return json_response(discovery.api_versions(self.server_address))
        if path == "/api/v1":
            return json_response(discovery.api_resource_list(kinds, "", "v1"))
        if parts and parts[0] == "apis" and len(parts) == 3:
            doc = discovery.api_resource_list(kinds, parts[1], parts[2])
            if doc is not None:
                return json_response(doc)
        if path.startswith("/api/") or self._served_group_version(path):
            raise RouteNotFound()
        return page_not_found()

    def _served_group_version(self, path: str) -> bool:
        """Whether ``path`` lies under a served ``/apis/<group>/<version>`` (a go-restful root)."""
        parts = [p for p in path.split("/") if p]
        if len(parts) < 3 or parts[0] != "apis":
            return False
        return any(k.group == parts[1] and k.version == parts[2] for k in self.store.kinds)

    async def _resource(self, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
        """A resource path: go-restful's 404 unless the resource, its subresource and its scope
        are served (Go's plain 404 under an unserved group-version), then the verb's handler."""
        spec = info.spec
        if spec is None or not info.resource:
            if info.group and not self._served_group_version(info.path):
                return page_not_found()
            raise RouteNotFound()
        if info.subresource and info.subresource not in spec.subresources:
            raise RouteNotFound()
        if info.namespace and not spec.namespaced:
            raise RouteNotFound()
        return await self.resources.serve(info, request)
