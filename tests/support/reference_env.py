"""The world of the reference scheduler's tests (and of its informer's): a fake API server under
virtual time, with every request recorded by an interceptor, and helpers to create and read
objects."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from fake_apiserver import FakeApiServer, RequestInfo
from harness._time.virtual_time import VirtualClock
from reference_scheduler import FeatureGates, Scheduler

Obj = dict[str, Any]
MERGE = {"Content-Type": "application/merge-patch+json"}


@dataclass
class Req:
    time: float
    verb: str
    resource: str
    subresource: str
    name: str
    body: Any
    code: int


@dataclass
class Env:
    server: FakeApiServer
    http: aiohttp.ClientSession
    clock: VirtualClock
    requests: list[Req]
    fail: list[Callable[[RequestInfo], bool]] = field(default_factory=list)
    scheduler: Scheduler | None = None

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def status_patches(self, pod: str) -> list[Req]:
        return [r for r in self.requests if r.verb == "patch" and r.resource == "pods"
                and r.subresource == "status" and r.name == pod]

    def events(self, pod: str, reason: str | None = None) -> list[Req]:
        return [r for r in self.requests if r.verb == "create" and r.resource == "events" and r.code == 201
                and r.body["regarding"]["name"] == pod and (reason is None or r.body["reason"] == reason)]

    def bindings(self, pod: str) -> list[Req]:
        return [r for r in self.requests if r.subresource == "binding" and r.name == pod]

    async def create_node(self, name: str, labels: Obj | None = None, **spec: Any) -> Obj:
        node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels or {}},
                "spec": spec, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
        async with self.http.post("/api/v1/nodes", json=node) as r:
            assert r.status == 201, await r.text()
            return dict(await r.json())

    async def create_pod(self, name: str, *, labels: Obj | None = None, annotations: Obj | None = None, **spec: Any) -> Obj:
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "labels": labels or {}, "annotations": annotations or {}},
               "spec": {"containers": [{"name": "c", "image": "busybox:1"}], **spec}}
        async with self.http.post("/api/v1/namespaces/default/pods", json=pod) as r:
            assert r.status == 201, await r.text()
            return dict(await r.json())

    async def patch_pod(self, name: str, body: Obj) -> Obj:
        async with self.http.patch(f"/api/v1/namespaces/default/pods/{name}", data=json.dumps(body), headers=MERGE) as r:
            assert r.status == 200, await r.text()
            return dict(await r.json())

    async def create_claim(self, name: str, requests: list[Obj] | None = None) -> Obj:
        claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
                 "spec": {"devices": {"requests": requests or []}}}
        async with self.http.post("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", json=claim) as r:
            assert r.status == 201, await r.text()
            return dict(await r.json())

    async def post(self, path: str, obj: Obj) -> Obj:
        async with self.http.post(path, json=obj) as r:
            assert r.status == 201, await r.text()
            return dict(await r.json())

    async def get(self, path: str) -> Obj:
        async with self.http.get(path) as r:
            return dict(await r.json())

    async def pod(self, name: str) -> Obj:
        return await self.get(f"/api/v1/namespaces/default/pods/{name}")

    async def start_scheduler(self, **kwargs: Any) -> Scheduler:
        self.scheduler = Scheduler(self.server.kubeconfig, clock=self.clock, **kwargs)
        await self.scheduler.start()
        return self.scheduler


async def with_env(body: Callable[[Env], Awaitable[Any]], *, feature_gates: dict[str, bool] | None = None,
                   runtime_config: str | None = None) -> Any:
    """Run ``body`` against a fake API server (with these API server ``feature_gates`` and
    ``runtime_config``) on the current (virtual) loop."""
    loop = asyncio.get_running_loop()
    clock = VirtualClock(loop)
    requests: list[Req] = []
    fail: list[Callable[[RequestInfo], bool]] = []

    async def record(info: RequestInfo, request: web.Request, call_next: Any) -> web.StreamResponse:
        if info.verb in ("list", "watch", "get"):
            return await call_next(info, request)
        t = loop.time()
        body = json.loads(info.body) if info.body else None
        if any(rule(info) for rule in fail):
            status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": "Internal error occurred: injected", "reason": "InternalError", "code": 500}
            requests.append(Req(t, info.verb, info.resource, info.subresource, info.name, body, 500))
            return web.json_response(status, status=500)
        response = await call_next(info, request)
        requests.append(Req(t, info.verb, info.resource, info.subresource, info.name, body, response.status))
        return response

    async with FakeApiServer(clock=clock, taint_not_ready_nodes=False, interceptors=[record],
                             feature_gates=feature_gates, runtime_config=runtime_config) as server:
        async with aiohttp.ClientSession(server.url) as http:
            env = Env(server, http, clock, requests, fail)
            try:
                return await body(env)
            finally:
                if env.scheduler is not None:
                    await env.scheduler.stop()


def gates(**kw: bool) -> FeatureGates:
    return FeatureGates(**kw)
