"""The fake over HTTP on the virtual loop: a fresh :class:`~fake_apiserver.FakeApiServer` per
scenario and an aiohttp client of it, for the tests that compare its answers with a real
kube-apiserver's. Time is virtual, so timestamps are exact (the epoch is 2026-01-01T00:00:00Z)
and a 300-second watch takes milliseconds.

:func:`serve` hands the scenario an :class:`Api` (JSON in, :class:`Reply` out); :func:`with_server`
hands it the server and a plain session, on a clock the server also reads its time from. The
bodies and ``Status`` built here are the real server's, field order included.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

import aiohttp

from fake_apiserver import FakeApiServer
from harness._time.virtual_time import VirtualClock, run

__all__ = ["JSON_PATCH", "MERGE", "NODES", "PODS", "SMP", "Api", "Reply", "binding", "node", "pod", "serve",
           "status", "watch_lines", "with_server"]

T = TypeVar("T")

PODS = "/api/v1/namespaces/default/pods"
NODES = "/api/v1/nodes"
SMP = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"


@dataclass
class Reply:
    status: int
    body: Any  # the decoded JSON, or the text when the answer is not JSON
    content_type: str


class Api:
    """A thin JSON client over an aiohttp session (``server.url`` as base)."""

    def __init__(self, session: aiohttp.ClientSession, server: FakeApiServer) -> None:
        self.session = session
        self.server = server

    async def call(self, method: str, path: str, body: Any = None, *, data: bytes | None = None,
                   content_type: str = "application/json", headers: dict[str, str] | None = None,
                   params: dict[str, str] | None = None) -> Reply:
        hdrs = {"Content-Type": content_type, **(headers or {})}
        if body is not None:
            data = json.dumps(body).encode()
        async with self.session.request(method, path, data=data, headers=hdrs, params=params) as r:
            raw = await r.read()
            ctype = r.headers.get("Content-Type", "")
        decoded: Any = json.loads(raw) if ctype.startswith("application/json") and raw else raw.decode()
        return Reply(r.status, decoded, ctype)

    async def get(self, path: str, **params: str) -> Reply:
        return await self.call("GET", path, params=params or None)

    async def post(self, path: str, body: Any) -> Reply:
        return await self.call("POST", path, body)

    async def put(self, path: str, body: Any) -> Reply:
        return await self.call("PUT", path, body)

    async def patch(self, path: str, body: Any, content_type: str = SMP) -> Reply:
        return await self.call("PATCH", path, body, content_type=content_type)

    async def delete(self, path: str) -> Reply:
        return await self.call("DELETE", path)

    async def ok(self, method: str, path: str, body: Any = None, content_type: str = SMP) -> Any:
        """The body of a request that must succeed."""
        reply = await self.call(method, path, body, content_type=content_type if method == "PATCH" else "application/json")
        assert reply.status in (200, 201), reply
        return reply.body


def serve(scenario: Callable[[Api], Awaitable[T]], **options: Any) -> T:
    """Run ``scenario`` against a fresh server on the virtual loop."""

    async def main() -> T:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop), **options) as server:
            async with aiohttp.ClientSession(server.url, timeout=aiohttp.ClientTimeout(total=None)) as session:
                return await scenario(Api(session, server))

    return run(main())


def with_server(body: Callable[[FakeApiServer, aiohttp.ClientSession], Awaitable[None]]) -> None:
    """Run ``body`` with a fresh server whose clock and time are the virtual loop's, and a session."""

    async def main() -> None:
        clock = VirtualClock(asyncio.get_running_loop())
        async with FakeApiServer(clock=clock, time=clock.time) as server:
            async with aiohttp.ClientSession(server.url) as client:
                await body(server, client)

    run(main())


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}], **spec}}


def node(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, **({"spec": spec} if spec else {})}


def binding(name: str, node_name: str = "n1") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
            "target": {"kind": "Node", "name": node_name}}


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A failure ``Status`` as the real server encodes it (field order included)."""
    out: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason}
    if details is not None:
        out["details"] = details
    out["code"] = code
    return out


async def watch_lines(response: aiohttp.ClientResponse) -> list[dict[str, Any]]:
    """Every event of a watch stream, read until the server ends it."""
    return [json.loads(line) for line in (await response.read()).splitlines()]
