"""The resource API's handlers: one branch per verb, each a call of the store and its rendering.

Once the router (:mod:`~fake_apiserver._endpoints.http`) has found a served resource, a request
comes here: get, list, watch, create, update, patch, delete and deletecollection of any kind,
and the ``binding`` and ``eviction`` subresources of pods. Each branch checks what the real
handler checks before it calls storage (``apiserver/pkg/endpoints/handlers/``: the name as a path
segment, the write options, ``?export``, a PATCH's content type, an apply's body), calls the one
generic :class:`~fake_apiserver._storage.store.Store`, and renders its answer; nothing here
decides API semantics.

A write is served and previewed by the same store call (:meth:`ResourceHandlers.preview` is a
dry run of it), so that the fault injector, which reports a write's effect before it lets it
through, can never disagree with what serving it would have done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Callable

from aiohttp import web

from fake_apiserver._endpoints.decoding import (
    check_apply_body,
    decode_object,
    delete_options,
    field_validation,
    parse_body,
)
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo, media_type
from fake_apiserver._endpoints.responses import EncodedObjects, json_response
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed, RouteNotFound, route_consumes_patch
from fake_apiserver._endpoints.tables import TableStream, negotiate_table, render_table
from fake_apiserver._endpoints.watchstream import DEFAULT_WATCH_TIMEOUT, error_stream, stream_watch
from fake_apiserver._machinery.decode import (
    decode_list_options,
    go_quote,
    parse_resource_version,
    query_bool,
    query_values,
    validate_write_options,
)
from fake_apiserver._machinery.errors import BadRequest, Expired, NotFound, StatusError, Timeout
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.managedfields import manager_name
from fake_apiserver._machinery.patch import custom_patch_media_type, patch_media_type
from fake_apiserver._machinery import typed
from fake_apiserver._machinery.fieldvalidation import decode_body
from fake_apiserver._registry.meta import path_segment_errors
from fake_apiserver._registry.reviews import answer_review, is_review
from fake_apiserver._storage.effects import Effect, is_write
from fake_apiserver._storage.eviction import evict
from fake_apiserver._storage.fieldmanager import Writer
from fake_apiserver._storage.scale import apply_scale, get_scale, patch_scale, paths_for, scale_of, update_scale
from fake_apiserver._storage.store import Store, kept_after_delete, too_large_resource_version
from fake_apiserver._storage.watch import Watcher

__all__ = ["ResourceHandlers"]

Obj = dict[str, Any]

_BLOCK_TIMEOUT = 3.0  # seconds the cacher waits for a resourceVersion it has not reached (blockTimeout)


def _warnings(info: RequestInfo) -> list[str]:
    """Where a request's warnings are kept until the response is rendered (``info.extra``, which
    interceptors see too): the ``Warning`` headers of the answer, whatever its status."""
    warnings: list[str] = info.extra.setdefault("warnings", [])
    return warnings


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


def _check_export(query: Mapping[str, str]) -> None:
    """``GetResource``: ``?export`` is refused since v1.14 (any value that reads as true)."""
    values = query_values(query, "export")
    if values and query_bool(values[0]):
        raise BadRequest("the export parameter, deprecated since v1.14, is no longer supported")


# Subresources the fake serves; the others a release lists (exec, attach, portforward, proxy, log,
# serviceaccounts/token, namespaces/finalize, certificatesigningrequests/approval,
# pods/ephemeralcontainers) answer 404: no kubelet runs behind the fake, and it signs no tokens.
SERVED_SUBRESOURCES = frozenset({"status", "binding", "eviction", "resize", "scale"})


def _check_verb(info: RequestInfo) -> None:
    """go-restful's 405 for a verb the resource (or its subresource) does not serve, as discovery
    lists them (``bindings`` and the reviews take only ``create``, ``componentstatuses`` only
    ``get`` and ``list``); a subresource the fake does not serve is a 404."""
    spec = info.spec
    assert spec is not None
    if info.subresource:
        if info.subresource not in SERVED_SUBRESOURCES:
            raise NotFound(f"the fake API server does not serve {spec.resource}/{info.subresource}: "
                           "no kubelet runs behind it")
        ref = spec.subresource(info.subresource)
        if ref is not None and info.verb not in ref.verbs:
            raise RouteMethodNotAllowed()
        return
    if info.name and not {"get", "update", "patch", "delete"} & set(spec.verbs):  # no item route at all
        raise RouteNotFound()
    if info.verb not in spec.verbs:
        raise RouteMethodNotAllowed()


def writer_of(info: RequestInfo) -> Writer:
    """The manager of a write (``?fieldManager=``, else the User-Agent's product) and, for an
    apply, whether ``?force=true`` forces its conflicts."""
    field_manager = query_values(info.query, "fieldManager")
    force = query_values(info.query, "force")
    return Writer(manager_name(field_manager[0] if field_manager else None, info.user_agent),
                  force=bool(force) and force[0].lower() in ("1", "t", "true"))


def _at_version(spec: KindSpec, obj: Obj) -> Obj:
    """A custom object (or a list of them) as served at ``spec``'s version: a CRD's versions
    share one storage, and ``None`` conversion changes only ``apiVersion``."""
    if not spec.custom or obj.get("kind") == "Status":
        return obj
    if isinstance(obj.get("items"), list):
        return {**obj, "items": [_at_version(spec, item) for item in obj["items"]]}
    return obj if obj.get("apiVersion") == spec.api_version else {**obj, "apiVersion": spec.api_version}


class ResourceHandlers:
    """The verbs of the resource API over one store, and the dry run of a write (:meth:`preview`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.encoded = EncodedObjects()

    async def serve(self, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
        """Serve a request the router has matched to a served resource (``info.spec`` is set, its
        subresource and scope are the kind's); an unserved method is go-restful's 405."""
        spec = info.spec
        assert spec is not None
        if info.name:
            _check_name_segment(info.name)
        store = self.store
        ns = info.namespace or None
        q = info.query
        verb = info.verb
        _check_verb(info)
        if info.subresource == "scale":
            return self._scale(info)
        if is_review(spec.group, spec.kind):  # answered, never stored
            validate_write_options("CreateOptions", q)
            fields = field_validation(info, _warnings(info))
            body = decode_object(info, spec.group, spec.version, spec.kind, store.release)
            node = typed.kind_node(spec.group, spec.version, spec.kind, store.release)
            body = decode_body(node, spec.kind, spec.version, body, fields)
            return json_response(answer_review(spec.group, spec.kind, body), 201)
        if spec.resource == "bindings" and not spec.group and verb == "create":  # the legacy form of pods/binding
            dry_run = validate_write_options("CreateOptions", q)
            fields = field_validation(info, _warnings(info))
            body = decode_object(info, "", "v1", "Binding", store.release)
            target = str((body.get("metadata") or {}).get("name") or "")
            return json_response(store.bind(info.namespace, target, body, dry_run=dry_run,
                                            field_validation=fields), 201)
        if info.subresource == "binding":
            if verb != "create":
                raise RouteMethodNotAllowed()
            dry_run = validate_write_options("CreateOptions", q)
            fields = field_validation(info, _warnings(info))
            body = decode_object(info, "", "v1", "Binding", store.release)
            return json_response(store.bind(info.namespace, info.name, body, dry_run=dry_run,
                                            field_validation=fields), 201)
        if info.subresource == "eviction":
            if verb != "create":
                raise RouteMethodNotAllowed()
            dry_run = validate_write_options("CreateOptions", q)
            fields = field_validation(info, _warnings(info))
            body = parse_body(info, "Eviction")
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
            listed = _at_version(spec, listed)
            return json_response(render_table(spec, listed, table, store.clock.now(),
                                             columns=store.printer_columns(spec)) if table else listed)
        if verb == "watch":
            if table is not None:
                info.extra["render"] = TableStream(spec, table, store.clock.now, store.printer_columns(spec))
            return await self._watch(info, request)
        if verb == "get":
            _check_export(q)
            wanted = parse_resource_version(spec, query_values(q, "resourceVersion")[0] if "resourceVersion" in q else "",
                                            named=True)
            if wanted > store.resource_version:
                await asyncio.sleep(_BLOCK_TIMEOUT)  # the cacher waits for a version it has not reached
                if wanted > store.resource_version:
                    raise too_large_resource_version(wanted, store.cache(spec).rv)
            got = _at_version(spec, store.get(spec, ns, info.name))
            return json_response(render_table(spec, got, table, store.clock.now(), columns=store.printer_columns(spec))) \
                if table else self.encoded.response(got)
        if verb == "create" and not info.name:
            if spec.namespaced and not ns:
                raise RouteMethodNotAllowed()
            dry_run = validate_write_options("CreateOptions", q)
            created = self._store_write(info, dry_run=dry_run, warnings=_warnings(info))
            return self.encoded.response(_at_version(spec, created), 201)
        if verb == "update" and info.name:
            dry_run = validate_write_options("UpdateOptions", q)
            creating = store.creates_on_update(spec) and not info.subresource \
                and not store.exists(spec, ns, info.name)
            updated = self._store_write(info, dry_run=dry_run, warnings=_warnings(info))
            return self.encoded.response(_at_version(spec, updated), 201 if creating else 200)
        if verb == "patch" and info.name:
            route_consumes_patch(info.content_type)
            patch_type = (custom_patch_media_type if spec.custom else patch_media_type)(info.content_type)
            dry_run = validate_write_options("PatchOptions", q, patch_type=patch_type)
            # an apply may create its object, not a subresource's: a missing one is a 404 first
            applying = patch_type == "application/apply-patch+yaml"
            creating = applying and not store.exists(spec, ns, info.name)
            if applying and (not info.subresource or not creating):
                check_apply_body(info.body, spec)
            patched = self._store_write(info, dry_run=dry_run, warnings=_warnings(info))
            return self.encoded.response(_at_version(spec, patched), 201 if creating and not info.subresource else 200)
        if verb == "delete" and not info.subresource:
            return self.encoded.response(_at_version(spec, self._store_write(info, dry_run=False)))
        if verb == "deletecollection":
            options = decode_list_options(q, spec)
            delete = delete_options(info)
            return json_response(store.delete_collection(
                spec, ns, label_selector=options.label_selector, field_selector=options.field_selector,
                options=delete, dry_run=bool(delete.get("dryRun")),
            ))
        raise RouteMethodNotAllowed()

    async def preview(self, info: RequestInfo) -> Effect | None:
        """The effect ``info`` would have if served now (the same store call as serving it, as a
        dry run), or ``None`` when it would be refused or writes no one object
        (:mod:`fake_apiserver._storage.effects`)."""
        spec = info.spec
        if spec is None or not is_write(info) or (info.subresource and info.subresource not in spec.subresources):
            return None
        store = self.store
        try:
            creates = info.verb == "patch" and media_type(info.content_type) == "application/apply-patch+yaml" \
                and not store.exists(spec, info.namespace or None, info.name)  # an apply may create its object
            before = store.get(spec, info.namespace or None, info.name) if info.name and not creates else None
            if info.subresource == "scale":
                if info.verb not in ("update", "patch"):
                    return None
                return Effect(*self._write_scale(info, dry_run=True))
            if info.subresource == "eviction":
                return None  # it writes a pod and a budget, not one object
            if info.subresource == "binding":
                if info.verb != "create":
                    return None
                binding = decode_object(info, "", "v1", "Binding", store.release)
                return Effect(before, store.bound(info.namespace, info.name, binding))
            if (info.verb == "create") == bool(info.name) or (info.verb == "delete" and info.subresource):
                return None  # not a write the resource route serves
            after = self._store_write(info, dry_run=True)
        except StatusError:
            return None
        if info.verb == "delete":  # an object still kept (finalizers, a grace period) is answered as it now is
            return Effect(before, after if kept_after_delete(after) else None)
        return Effect(before, after)

    def _scale(self, info: RequestInfo) -> web.StreamResponse:
        """``GET``, ``PUT`` or ``PATCH`` of a kind's ``scale`` (:mod:`~fake_apiserver._storage.scale`)."""
        spec = info.spec
        assert spec is not None
        paths = paths_for(self.store, spec)
        if info.verb == "get":
            return json_response(get_scale(self.store, spec, info.namespace or None, info.name, paths))
        if info.verb == "patch":
            route_consumes_patch(info.content_type)
        _, after = self._write_scale(info, dry_run=None, warnings=_warnings(info))
        return json_response(scale_of(spec, after, paths))

    def _write_scale(self, info: RequestInfo, *, dry_run: bool | None,
                     warnings: list[str] | None = None) -> tuple[Obj, Obj]:
        """The parent before and after a write of its Scale; ``dry_run`` None: as the request says."""
        spec = info.spec
        assert spec is not None
        q = info.query
        fields = field_validation(info, [] if warnings is None else warnings)
        ns = info.namespace or None
        if info.verb == "update":
            requested = validate_write_options("UpdateOptions", q)
            body = decode_object(info, "autoscaling", "v1", "Scale", self.store.release)
            return update_scale(self.store, spec, ns, info.name, body, field_validation=fields, writer=writer_of(info),
                                paths=paths_for(self.store, spec), dry_run=requested if dry_run is None else dry_run)
        if info.verb == "patch":
            patch_type = patch_media_type(info.content_type)
            requested = validate_write_options("PatchOptions", q, patch_type=patch_type)
            if patch_type == "application/apply-patch+yaml":
                return apply_scale(self.store, spec, ns, info.name, info.body, writer=writer_of(info),
                                   paths=paths_for(self.store, spec), dry_run=requested if dry_run is None else dry_run)
            return patch_scale(self.store, spec, ns, info.name, info.body, info.content_type, field_validation=fields,
                               writer=writer_of(info), paths=paths_for(self.store, spec),
                               dry_run=requested if dry_run is None else dry_run)
        raise RouteMethodNotAllowed()

    def _store_write(self, info: RequestInfo, *, dry_run: bool, warnings: list[str] | None = None) -> Obj:
        """The store's answer to a create, update, patch or delete of one object: what serving
        the request and previewing it (:meth:`preview`) both call. ``dry_run`` as the request's
        ``dryRun=All`` (a delete's may also come in its ``DeleteOptions``); the ``fieldValidation``
        warnings go to ``warnings`` (a preview's nowhere)."""
        spec = info.spec
        assert spec is not None
        store, ns, sub = self.store, info.namespace or None, info.subresource or None
        writer = writer_of(info)
        if info.verb in ("create", "update", "patch"):
            fields = field_validation(info, [] if warnings is None else warnings)
        if info.verb == "create":
            body = decode_object(info, spec.group, spec.version, spec.kind, store.release, store.serves_kind)
            return store.create(spec, ns, body, dry_run=dry_run, field_validation=fields, writer=writer)
        if info.verb == "update":
            body = decode_object(info, spec.group, spec.version, spec.kind, store.release, store.serves_kind)
            return store.update(spec, ns, info.name, body, subresource=sub, dry_run=dry_run, field_validation=fields,
                                writer=writer)
        if info.verb == "patch":
            return store.patch(spec, ns, info.name, info.body, info.content_type, subresource=sub, dry_run=dry_run,
                               field_validation=fields, writer=writer)
        options = delete_options(info)
        return store.delete(spec, ns, info.name, options=options, dry_run=dry_run or bool(options.get("dryRun")))

    async def _watch(self, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
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
        if spec.custom:
            watcher.api_version = spec.api_version  # None conversion, as for a GET
        info.extra["watcher"] = watcher
        try:
            return await stream_watch(
                request, watcher, timeout, allow_bookmarks, info.extra.get("on_events"), info.extra.get("render"),
                self.encoded.event_line,
            )
        finally:
            watcher.stop("client gone")
