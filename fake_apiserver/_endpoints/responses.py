"""Response encoding: the JSON bytes the real server writes, for objects, ``Status`` and unknown paths.

Answers are JSON only (the edge refuses an ``Accept`` that admits none, see
:mod:`~fake_apiserver._endpoints.route_errors`), so encoding one is
:func:`~fake_apiserver._machinery.jsonutil.dumps` plus the newline ``json.Encoder.Encode`` ends
with. It sits apart from the handlers because every layer of the edge renders with it: the
handlers their objects, the request chain (:func:`~fake_apiserver._endpoints.request.answered`)
and the fault proxy their errors, the fault injector its canned answers. Tables are rendered by
:mod:`~fake_apiserver._endpoints.tables` and then encoded here like any object.

:class:`EncodedObjects` is the one cache of the edge: a stored object's bytes, shared by its
response and every watch event that carries it, which is the trade-off kube-apiserver's watch
cache makes too (memory for a few thousand serializations against encoding each write once per
watcher).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aiohttp import web

from fake_apiserver._machinery.errors import StatusError
from fake_apiserver._machinery.jsonutil import ByIdentity, dumps
from fake_apiserver._storage.watch import WatchEvent

__all__ = ["EncodedObjects", "json_response", "page_not_found", "status_response"]

Obj = dict[str, Any]


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


def page_not_found() -> web.Response:
    """Go's ``http.NotFound``: what the real server answers outside every API root."""
    return web.Response(
        text="404 page not found\n", status=404, content_type="text/plain", charset="utf-8",
        headers={"X-Content-Type-Options": "nosniff"},
    )


_SHARED_EVENTS = ("ADDED", "MODIFIED", "DELETED")  # their objects are the store's, shared by watchers
_JSON_TYPE = {"Content-Type": "application/json"}  # web.Response copies it


class EncodedObjects:
    """The JSON bytes of recently served store objects, each object encoded once.

    A write used to be encoded once for its response and once more for every watcher it fans out
    to (11 times with 10 watchers), always to the same bytes: stored objects are never mutated
    (see :mod:`~fake_apiserver._storage.store`), and DELETED events share one object too
    (:attr:`~fake_apiserver._storage.watch.Change.deleted`). The memo is kept by identity
    (:class:`~fake_apiserver._machinery.jsonutil.ByIdentity`): the ``size`` most recent objects,
    enough for a write to reach every watcher and for a GET of any of a few thousand objects to be
    served from it (as kube-apiserver's watch cache keeps each object's serialization), while bounding how many superseded versions it keeps alive (a few
    megabytes). The bytes are :func:`~fake_apiserver._machinery.jsonutil.dumps`'s, hit or miss, so
    responses and watch streams do not change.
    """

    def __init__(self, size: int = 4096) -> None:
        self._memo: ByIdentity[bytes] = ByIdentity(size)
        self._prefixes: dict[str, bytes] = {}

    def encode(self, obj: Obj) -> bytes:
        data = self._memo.get(obj)
        if data is None:
            data = dumps(obj)
            self._memo.put(obj, data)
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
        return web.Response(body=self.encode(obj) + b"\n", status=status, headers=_JSON_TYPE)
