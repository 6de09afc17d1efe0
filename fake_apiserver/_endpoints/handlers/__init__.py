"""The resource API's handlers, as a table: a verb (and a subresource, where it has handlers of its
own) to the function that serves it, each verb family in a module of its own, as
``apiserver/pkg/endpoints/handlers/`` has them.

Once the router (:mod:`~fake_apiserver._endpoints.http`) has found a served resource, a request
comes here. :meth:`ResourceHandlers.serve` checks what comes before any handler (the name as a
path segment, the verbs the resource and its subresource serve) and looks the handler up in
:data:`HANDLERS`:

* ``get`` and ``list`` (:mod:`.get`), ``watch`` (:mod:`.watch`), ``create`` (:mod:`.create`),
  ``update`` (:mod:`.update`), ``patch`` (:mod:`.patch`), ``delete`` and ``deletecollection``
  (:mod:`.delete`), for a resource and for the subresources without handlers of their own
  (``status``, ``resize``: the store writes them with the subresource's rules);
* ``scale`` (:mod:`.scale`), ``binding`` (:mod:`.binding`) and ``eviction`` (:mod:`.eviction`),
  whose bodies are kinds of their own.

Two kinds of resource are served by a handler of their own whatever the table says: the review
kinds the registry answers without storing (:func:`~fake_apiserver._registry.reviews.is_review`),
and a resource whose kind declares it the legacy form of a subresource (``legacy_subresource``):
a create of ``bindings`` is served by :data:`LEGACY_CREATES` as ``pods/binding`` of the pod its
body names.
Each handler checks what the real one checks before it calls storage (the write options,
``?export``, a PATCH's content type, an apply's body), calls the one generic
:class:`~fake_apiserver._storage.store.Store`, and renders its answer; nothing here decides API
semantics. A verb the table does not hold (for the subresource, where it has its own) is
go-restful's 405.

A write is served and previewed by the same store call (:meth:`ResourceHandlers.preview` is a
dry run of it, through :data:`PREVIEWS`), so that the fault injector, which reports a write's
effect before it lets it through, can never disagree with what serving it would have done.
"""

from __future__ import annotations

from typing import Awaitable

from aiohttp import web

from fake_apiserver._endpoints.handlers import binding, create, delete, eviction, get, patch, scale, update, watch
from fake_apiserver._endpoints.handlers.rest import Handler, Preview, Scope, check_name_segment, check_verb
from fake_apiserver._endpoints.request import HttpRequest, RequestInfo, media_type
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed
from fake_apiserver._machinery.errors import StatusError
from fake_apiserver._registry.kinds import declaration
from fake_apiserver._registry.reviews import is_review
from fake_apiserver._storage.effects import Effect, is_write
from fake_apiserver._storage.store import Store

__all__ = ["HANDLERS", "LEGACY_CREATES", "OWN_SUBRESOURCES", "PREVIEWS", "ResourceHandlers"]

#: (verb, subresource) -> its handler; the subresource is "" for a resource and for a subresource
#: that has no handlers of its own (``status``, ``resize``).
HANDLERS: dict[tuple[str, str], Handler] = {
    ("get", ""): get.get_resource,
    ("list", ""): get.list_resource,
    ("watch", ""): watch.watch_resource,
    ("create", ""): create.create_resource,
    ("update", ""): update.update_resource,
    ("patch", ""): patch.patch_resource,
    ("delete", ""): delete.delete_resource,
    ("deletecollection", ""): delete.delete_collection,
    ("get", "scale"): scale.get_scale_of,
    ("update", "scale"): scale.update_scale_of,
    ("patch", "scale"): scale.patch_scale_of,
    ("create", "binding"): binding.create_binding,
    ("create", "eviction"): eviction.create_eviction,
}

#: (verb, subresource) -> the dry run of its write, keyed as :data:`HANDLERS`. An eviction writes
#: a pod and a budget, not one object, and has none.
PREVIEWS: dict[tuple[str, str], Preview] = {
    ("create", ""): create.preview,
    ("update", ""): update.preview,
    ("patch", ""): patch.preview,
    ("delete", ""): delete.preview,
    ("update", "scale"): scale.preview,
    ("patch", "scale"): scale.preview,
    ("create", "binding"): binding.preview,
}

#: The subresources with handlers of their own; the others are served by their verb's.
OWN_SUBRESOURCES = frozenset(sub for _, sub in HANDLERS if sub)

#: subresource -> the handler of a create of a resource whose kind declares it the legacy form of
#: that subresource (its ``legacy_subresource``)
LEGACY_CREATES: dict[str, Handler] = {"binding": binding.create_legacy_binding}


class ResourceHandlers:
    """The verbs of the resource API over one store, and the dry run of a write (:meth:`preview`)."""

    def __init__(self, store: Store) -> None:
        self.scope = Scope(store)

    def serve(self, info: RequestInfo, request: HttpRequest) -> Awaitable[web.StreamResponse]:
        """Serve a request the router has matched to a served resource (``info.spec`` is set, its
        subresource and scope are the kind's); an unserved method is go-restful's 405.

        What comes back is the handler's own coroutine, for the caller to await: the dispatch is
        a lookup, with no coroutine of its own on every request's way."""
        spec = info.spec
        assert spec is not None
        if info.name:
            check_name_segment(info.name)
        check_verb(info)
        sub = info.subresource
        if sub in OWN_SUBRESOURCES:
            handler = HANDLERS.get((info.verb, sub))
        elif is_review(spec.group, spec.kind):  # answered, never stored
            handler = create.create_review
        elif info.verb == "create" and (legacy := declaration(spec.group, spec.kind).legacy_subresource):
            handler = LEGACY_CREATES.get(legacy)
        else:
            handler = HANDLERS.get((info.verb, ""))
        if handler is None:
            raise RouteMethodNotAllowed()
        return handler(self.scope, info, request)

    async def preview(self, info: RequestInfo) -> Effect | None:
        """The effect ``info`` would have if served now (the same store call as serving it, as a
        dry run), or ``None`` when it would be refused or writes no one object
        (:mod:`fake_apiserver._storage.effects`)."""
        spec = info.spec
        if spec is None or not is_write(info) or (info.subresource and info.subresource not in spec.subresources):
            return None
        store = self.scope.store
        sub = info.subresource
        try:
            creates = info.verb == "patch" and media_type(info.content_type) == "application/apply-patch+yaml" \
                and not store.exists(spec, info.namespace or None, info.name)  # an apply may create its object
            before = store.get(spec, info.namespace or None, info.name) if info.name and not creates else None
            previewer = PREVIEWS.get((info.verb, sub if sub in OWN_SUBRESOURCES else ""))
            return previewer(self.scope, info, before) if previewer is not None else None
        except StatusError:
            return None
