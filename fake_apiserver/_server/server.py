"""Running the fake: in-process (an async context manager) or standalone (``schedharness serve``).

:class:`FakeApiServer` binds loopback on a free port by default, serves the same
:class:`~fake_apiserver._storage.store.Store` that in-process callers read, and writes a kubeconfig that
any client (kubectl, client-go, the official Python client) can use unchanged: plain HTTP, no
credentials.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable

import yaml
from aiohttp import web

from fake_apiserver._machinery.clock import Clock
from fake_apiserver._server.faults import FaultInjector
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._endpoints.edge import Edge
from fake_apiserver._endpoints.http import ApiHandler
from fake_apiserver._endpoints.request import AdminRequest, AdminRoute, Interceptor
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._server.journal import Journal
from fake_apiserver._machinery.schema import KUBERNETES_VERSION
from fake_apiserver._storage.store import Store

__all__ = [
    "ADMIN_PREFIX", "FakeApiServer", "JOURNAL_DROPPED", "JOURNAL_FIRST_SEQ", "JOURNAL_LAST_SEQ", "JOURNAL_LIMIT",
    "add_admin_routes", "admin_routes", "kubeconfig_for",
]

ADMIN_PREFIX = "/schedharness/v1"


def kubeconfig_for(url: str, *, name: str = "schedharness", namespace: str = "default") -> dict[str, Any]:
    """A kubeconfig dict for a plain-HTTP server with no credentials."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": url}}],
        "users": [{"name": name, "user": {}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}],
        "current-context": name,
        "preferences": {},
    }


#: Headers of ``GET {ADMIN_PREFIX}/journal`` that tell which part of the journal the lines are: a
#: bounded journal (``journal_limit``) keeps only its most recent entries.
JOURNAL_FIRST_SEQ = "X-Schedharness-Journal-First-Seq"
JOURNAL_LAST_SEQ = "X-Schedharness-Journal-Last-Seq"
JOURNAL_DROPPED = "X-Schedharness-Journal-Dropped"
JOURNAL_LIMIT = "X-Schedharness-Journal-Limit"


def admin_routes(faults: FaultInjector, journal: Journal) -> dict[tuple[str, str], AdminRoute]:
    """The admin path by method and path: fault rules and the journal, never under ``/api`` or
    ``/apis`` (the fake's and the fault proxy's).

    ``GET {ADMIN_PREFIX}/journal`` answers the entries held as JSON lines, as it always has; its
    headers say which window that is (the oldest seq held, the newest seq recorded, how many
    entries were dropped, and the limit, ``none`` when unbounded), so a reader that polls with
    ``?since=<the last seq it read>`` gets only what is new and knows when it missed some
    (``First-Seq`` above its seq + 1). Headers, not a line of their own: the body stays one entry
    a line for every existing reader.
    """
    async def journal_lines(request: AdminRequest) -> web.Response:
        text = request.query.get("since", "0")
        try:
            since = int(text)
        except ValueError:
            return json_response({"error": f"invalid since {text!r}: give the seq of the last entry read, a whole number"}, 400)
        headers = {
            JOURNAL_FIRST_SEQ: str(journal.first_seq), JOURNAL_LAST_SEQ: str(journal.last_seq),
            JOURNAL_DROPPED: str(journal.dropped), JOURNAL_LIMIT: str(journal.limit or "none"),
        }
        return web.Response(text=journal.to_jsonl(since), content_type="application/jsonl", headers=headers)

    return {**faults.admin_routes(ADMIN_PREFIX), ("GET", f"{ADMIN_PREFIX}/journal"): journal_lines}


def add_admin_routes(app: web.Application, faults: FaultInjector, journal: Journal) -> None:
    """:func:`admin_routes` on an aiohttp application (the fault proxy's)."""
    for (method, path), handler in admin_routes(faults, journal).items():
        if method == "GET":
            app.router.add_get(path, handler)
        else:
            app.router.add_route(method, path, handler)


class FakeApiServer:
    """A fake kube-apiserver on a real socket.

    ``async with FakeApiServer() as server:`` starts it on ``127.0.0.1`` and a free port;
    ``server.url`` and ``server.write_kubeconfig(path)`` give clients the way in, ``server.store``
    the objects. ``clock`` stamps every timestamp (the harness passes its virtual clock);
    ``seed`` makes uids and generated names reproducible; ``taint_not_ready_nodes`` (default on,
    like a real cluster) gives nodes created through the API the ``node.kubernetes.io/not-ready``
    NoSchedule taint; ``storage_protection`` (default on, like a real cluster) gives created
    PersistentVolumes and PersistentVolumeClaims their protection finalizers, and removes them
    from a deleted one once no pod uses it (a claim) or it is not bound (a volume), as
    kube-controller-manager's protection controllers do; ``kubernetes_version`` (default
    :data:`~fake_apiserver._machinery.schema.KUBERNETES_VERSION`, or ``1.34`` to ``1.36``) is the release
    whose API it serves: its schemas decode and prune what is written, its OpenAPI documents and
    ``/version`` describe it (ValueError for a release it cannot serve as). ``feature_gates``
    (``{"GateName": True}``) are the API server's ``--feature-gates``: the release's defaults
    (alpha off, beta and GA as it defines them) with these applied, and a field whose gate is off
    dropped on write as kube-apiserver drops it; a gate the release does not register, or a value
    kube-apiserver refuses (a gate locked to its default, a dependency left off), is a
    :class:`~fake_apiserver.FeatureGateError` with kube-apiserver's message
    (``server.feature_gates`` is the result). ``runtime_config`` is kube-apiserver's
    ``--runtime-config`` (``"scheduling.k8s.io/v1beta1=true"``, or its map): the API group
    versions and resources served beyond the release's defaults, or fewer, each served only where
    its gates are on as well; a value kube-apiserver refuses is a
    :class:`~fake_apiserver.RuntimeConfigError` with its message. ``server.journal`` records every request and watch event;
    ``server.faults`` holds fault rules. ``time`` is the journal's and the fault rules' clock in
    seconds (default: the event loop's time, virtual under the harness). ``event_ttl`` expires an
    Event that many seconds after its last write, as kube-apiserver's ``--event-ttl`` (default here:
    never, so a scenario's Events stay to be read). ``journal_limit`` keeps
    only that many most recent journal entries (default ``None``: every one, as a scenario reads
    them; a long-running ``schedharness serve`` bounds it). ``admin`` serves the fault rules and
    the journal over HTTP under ``/schedharness/v1``. ``idle_timeout`` closes a connection idle
    that many seconds of the loop's clock, as kube-apiserver's ``IdleTimeout`` (90 s) does
    (default here: never, so that virtual time never jumps to a client's idleness;
    ``schedharness serve`` sets 90).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Clock | None = None,
        seed: int = 0,
        history: int = 1000,
        taint_not_ready_nodes: bool = True,
        storage_protection: bool = True,
        kubernetes_version: str = KUBERNETES_VERSION,
        feature_gates: Mapping[str, bool] | None = None,
        runtime_config: str | Mapping[str, str] | None = None,
        interceptors: list[Interceptor] | None = None,
        time: Callable[[], float] | None = None,
        admin: bool = True,
        journal_limit: int | None = None,
        event_ttl: float | None = None,
        idle_timeout: float | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.store = Store(
            clock, seed=seed, history=history, taint_not_ready_nodes=taint_not_ready_nodes,
            storage_protection=storage_protection, kubernetes_version=kubernetes_version,
            feature_gates=feature_gates, runtime_config=runtime_config, schedule=self._schedule,
            event_ttl=event_ttl,
        )
        self.feature_gates: FeatureGates = self.store.features
        self.journal = Journal(time, limit=journal_limit)
        self.faults = FaultInjector(self.store, seed=seed, time=time)
        self.faults.on_close = self.journal.record_closed
        self.interceptors: list[Interceptor] = [self.journal, self.faults, *(interceptors or [])]
        self.handler = ApiHandler(self.store, self.interceptors)
        self.edge = Edge(self.handler.handle, admin_routes(self.faults, self.journal) if admin else None,
                         idle_timeout=idle_timeout)
        self.faults.preview = self.handler.resources.preview
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _schedule(self, delay: float, fn: Any) -> object:
        loop = self._loop or asyncio.get_running_loop()
        return loop.call_later(delay, fn)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def kubeconfig(self) -> dict[str, Any]:
        return kubeconfig_for(self.url)

    def write_kubeconfig(self, path: str | os.PathLike[str]) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(yaml.safe_dump(self.kubeconfig, sort_keys=False))
        return p

    async def start(self) -> FakeApiServer:
        self._loop = asyncio.get_running_loop()
        server = await self._loop.create_server(self.edge.protocol, self.host, self.port, reuse_address=True)
        if server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        self._server = server
        return self

    async def stop(self) -> None:
        """Stop the watches (each ends its stream), stop accepting, and close every connection once
        its request is answered."""
        self.store.close()
        server, self._server = self._server, None
        if server is not None:
            server.close()
            await self.edge.close()
            await server.wait_closed()

    async def __aenter__(self) -> FakeApiServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
