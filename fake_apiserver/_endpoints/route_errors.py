"""What the real server's router refuses before any handler runs: 404, 405, 406 and 415.

These errors are go-restful's, not a handler's: a path under ``/api`` or a served
``/apis/<group>/<version>`` that names no resource, a method the route does not take, an
``Accept`` the route produces nothing for, a PATCH ``Content-Type`` the route does not consume.
``serviceErrorHandler`` turns each into a ``Status`` with an empty ``details`` object
(``NewGenericServerResponse``), which is why they are their own classes rather than the plain
typed errors of :mod:`~fake_apiserver._machinery.errors` that the handlers raise.

Content negotiation lives here because its only outcome at this server is a refusal: answers are
JSON only, so an ``Accept`` that admits no JSON gets the real server's 406 (under ``/api`` and
``/apis``, where it negotiates) with a hint on how to let the client accept JSON; clients that
ask for protobuf, such as kube-scheduler (``protobuf,json``), all admit JSON.
"""

from __future__ import annotations

import functools

from fake_apiserver._endpoints.request import BODY_TYPES, RequestInfo, media_type
from fake_apiserver._machinery.errors import (
    GenericServerResponse,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    StatusError,
    UnsupportedMediaType,
)
from fake_apiserver._machinery.patch import PATCH_TYPES

__all__ = [
    "RouteMethodNotAllowed",
    "RouteNotAcceptable",
    "RouteNotFound",
    "RouteUnsupportedMediaType",
    "accepts_json",
    "not_acceptable",
    "route_consumes_patch",
]

_JSON_HINT = (
    "; this fake API server answers in JSON only: let the client accept application/json "
    "(client-go: rest.Config.AcceptContentTypes)"
)
_WATCH_TYPES = ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
_NOT_FOUND_MESSAGE = "the server could not find the requested resource"
_METHOD_NOT_ALLOWED_MESSAGE = "the server does not allow this method on the requested resource"


class RouteNotFound(GenericServerResponse, NotFound):
    """go-restful's 404 under a served API root."""

    def __init__(self) -> None:
        super().__init__(_NOT_FOUND_MESSAGE)


class RouteUnsupportedMediaType(GenericServerResponse, UnsupportedMediaType):
    """go-restful's 415: a PATCH whose Content-Type none of the route's patch types matches."""

    def __init__(self) -> None:
        super().__init__("415: Unsupported Media Type")


def route_consumes_patch(content_type: str) -> None:
    """go-restful's ``Route.matchesContentType`` for the PATCH route, before any handler: each
    comma-separated type, cut at ``;`` and trimmed, must be one the route consumes (an absent
    Content-Type counts as ``application/octet-stream``)."""
    consumes = PATCH_TYPES[:4]
    for part in (content_type or "application/octet-stream").split(","):
        media = part.split(";", 1)[0].strip(" \t")
        if media in consumes:
            return
    raise RouteUnsupportedMediaType()


class RouteMethodNotAllowed(GenericServerResponse, MethodNotAllowed):
    """go-restful's 405: the route exists, the method does not."""

    def __init__(self) -> None:
        super().__init__(_METHOD_NOT_ALLOWED_MESSAGE)


class RouteNotAcceptable(GenericServerResponse, NotAcceptable):
    """go-restful's 406: the route produces nothing the ``Accept`` admits. A collection's GET
    route (list and watch) also produces the watch stream types."""

    def __init__(self, watchable: bool) -> None:
        listed = BODY_TYPES + (_WATCH_TYPES if watchable else "")
        super().__init__(f"406: Not Acceptable\n\nAvailable representations: {listed}{_JSON_HINT}")


def not_acceptable(info: RequestInfo) -> StatusError | None:
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
        return NotAcceptable(f"only the following media types are accepted: {BODY_TYPES}{_JSON_HINT}")
    return RouteNotAcceptable(False)


@functools.lru_cache(maxsize=256)  # a client sends the same Accept with each request
def accepts_json(accept: str) -> bool:
    """Whether ``Accept`` admits ``application/json`` (a ``q=0`` entry excludes its type)."""
    if not accept.strip():
        return True
    for part in accept.split(","):
        media = media_type(part)
        params = [p.strip().replace(" ", "") for p in part.split(";")[1:]]
        if any(p in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            continue
        if media in ("application/json", "application/*", "*/*"):
            return True
    return False
