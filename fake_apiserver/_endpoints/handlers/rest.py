"""What every verb's handler shares, as ``apiserver/pkg/endpoints/handlers/rest.go`` holds it.

:class:`Scope` is the handlers' ``RequestScope``: the one generic
:class:`~fake_apiserver._storage.store.Store` they call and the encoded answers they share
(:class:`~fake_apiserver._endpoints.responses.EncodedObjects`). :data:`Handler` and
:data:`Preview` are the two shapes of a row of the dispatch table
(:mod:`~fake_apiserver._endpoints.handlers`): serving a request, and the dry run of the one write
it would make.

The checks the real handlers make before they call storage are here too, because more than one
verb makes them: the name as a path segment (``Namer.Name``), go-restful's 405 for a verb the
resource does not serve, ``?export`` on a read. So are the writer of a write (its field manager),
the version a custom object is served at, the warnings kept for the answer, and the cacher's wait
for a resourceVersion it has not reached.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from aiohttp import web

from fake_apiserver._endpoints.request import HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import EncodedObjects
from fake_apiserver._endpoints.route_errors import RouteMethodNotAllowed, RouteNotFound
from fake_apiserver._machinery.decode import go_quote, query_bool, query_values
from fake_apiserver._machinery.errors import BadRequest, NotFound, Timeout
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.managedfields import manager_name
from fake_apiserver._registry.meta import path_segment_errors
from fake_apiserver._storage.effects import Effect
from fake_apiserver._storage.fieldmanager import Writer
from fake_apiserver._storage.store import Store

__all__ = [
    "BLOCK_TIMEOUT",
    "SERVED_SUBRESOURCES",
    "Handler",
    "Preview",
    "Scope",
    "at_version",
    "blocking",
    "body_kind",
    "check_export",
    "check_name_segment",
    "check_verb",
    "warnings_of",
    "writer_of",
]

Obj = dict[str, Any]

BLOCK_TIMEOUT = 3.0  # seconds the cacher waits for a resourceVersion it has not reached (blockTimeout)

# Subresources the fake serves; the others a release lists (exec, attach, portforward, proxy, log,
# serviceaccounts/token, namespaces/finalize, certificatesigningrequests/approval,
# pods/ephemeralcontainers) answer 404: no kubelet runs behind the fake, and it signs no tokens.
SERVED_SUBRESOURCES = frozenset({"status", "binding", "eviction", "resize", "scale"})


@dataclass
class Scope:
    """What a handler works with: the store, and the encoded objects its answers share with the
    watch streams."""

    store: Store
    encoded: EncodedObjects = field(default_factory=EncodedObjects)


Handler = Callable[[Scope, RequestInfo, HttpRequest], Awaitable[web.StreamResponse]]
"""Serves one request the router matched to a served resource (``info.spec`` is set)."""

Preview = Callable[[Scope, RequestInfo, "Obj | None"], "Effect | None"]
"""The effect a write would have if served now, given the object before it (None when it would
create one), as a dry run of the same store call; None when it writes no one object."""


def warnings_of(info: RequestInfo) -> list[str]:
    """Where a request's warnings are kept until the response is rendered (``info.extra``, which
    interceptors see too): the ``Warning`` headers of the answer, whatever its status."""
    warnings: list[str] = info.extra.setdefault("warnings", [])
    return warnings


async def blocking(read: Callable[[], Obj]) -> Obj:
    """``read()``, tried once more after the cacher's ``blockTimeout`` when it asks for a
    resourceVersion the store has not reached (``Too large resource version``, 504)."""
    try:
        return read()
    except Timeout:
        await asyncio.sleep(BLOCK_TIMEOUT)
        return read()


def check_name_segment(name: str) -> None:
    """The handlers' ``Namer.Name``: a name that cannot be a path segment
    (``path.IsValidPathSegmentName``) is a 400 before anything is looked up."""
    problems = path_segment_errors(name)
    if problems:
        raise BadRequest(f"Name parameter invalid: {go_quote(name)}: {';'.join(problems)}")


def check_export(query: Mapping[str, str]) -> None:
    """``GetResource``: ``?export`` is refused since v1.14 (any value that reads as true)."""
    values = query_values(query, "export")
    if values and query_bool(values[0]):
        raise BadRequest("the export parameter, deprecated since v1.14, is no longer supported")


def check_verb(info: RequestInfo) -> None:
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


def body_kind(spec: KindSpec, subresource: str) -> tuple[str, str, str]:
    """The group, version and kind of a subresource's body, as the kind's row describes it
    (discovery's ``responseKind``: a ``v1`` ``Binding`` for ``pods/binding``, an
    ``autoscaling/v1`` ``Scale`` for ``deployments/scale``). Every served row has it."""
    ref = spec.subresource(subresource)
    assert ref is not None, f"the row of {spec.resource} does not describe its {subresource}"
    return ref.group, ref.version, ref.kind


def at_version(spec: KindSpec, obj: Obj) -> Obj:
    """A custom object (or a list of them) as served at ``spec``'s version: a CRD's versions
    share one storage, and ``None`` conversion changes only ``apiVersion``."""
    if not spec.custom or obj.get("kind") == "Status":
        return obj
    if isinstance(obj.get("items"), list):
        return {**obj, "items": [at_version(spec, item) for item in obj["items"]]}
    return obj if obj.get("apiVersion") == spec.api_version else {**obj, "apiVersion": spec.api_version}
