"""Reusable workloads for self-checks and benchmarks.

:func:`watch_delay_writers` is the determinism workload: five minutes of virtual time with a
reflector-like watcher (re-watching from its last resourceVersion, bookmarks on), a
scheduler-like task that patches each new pod's status 5 s after it sees it, three concurrent
writers on different cadences, and a fault rule that delays some of those patches. Its journal
must be identical, byte for byte, on every run with the same seed: in one process, across
processes and ``PYTHONHASHSEED`` values, and under ``pytest -n 2``.
"""

from __future__ import annotations

import asyncio
import json

import aiohttp

from fake_apiserver import Delay, FakeApiServer, FaultRule, Match
from harness._time.virtual_time import VirtualClock, run

__all__ = ["watch_delay_writers", "run_watch_delay_writers"]

SMP = {"Content-Type": "application/strategic-merge-patch+json"}


async def watch_delay_writers(*, seed: int = 0, duration: float = 300.0, periods: tuple[float, ...] = (20.0, 30.0, 45.0)) -> str:
    """Run the workload on the current (virtual) loop; return the server's journal as JSON lines."""
    loop = asyncio.get_running_loop()
    clock = VirtualClock(loop)
    async with FakeApiServer(clock=clock, time=clock.time, seed=seed) as server:
        server.faults.add(FaultRule(
            Match(verb="patch", resource="pods", subresource="status", name="w1-1"), Delay(5.0), name="slow-status"))
        async with aiohttp.ClientSession(server.url) as client:
            pending: set[asyncio.Task[None]] = set()

            async def patch_later(name: str) -> None:
                await asyncio.sleep(5.0)
                body = {"status": {"conditions": [{"type": "PodScheduled", "status": "False",
                                                   "reason": "NotReadyForScheduling", "message": f"waiting: {name}"}]}}
                async with client.patch(f"/api/v1/namespaces/default/pods/{name}/status",
                                        data=json.dumps(body), headers=SMP) as r:
                    await r.read()

            async def watcher() -> None:
                async with client.get("/api/v1/namespaces/default/pods") as r:
                    rv = (await r.json())["metadata"]["resourceVersion"]
                while loop.time() < duration:
                    params = {"watch": "1", "resourceVersion": rv, "allowWatchBookmarks": "true",
                              "timeoutSeconds": "60"}
                    async with client.get("/api/v1/namespaces/default/pods", params=params) as r:
                        async for line in r.content:
                            event = json.loads(line)
                            rv = event["object"]["metadata"]["resourceVersion"]
                            if event["type"] == "ADDED":
                                task = asyncio.create_task(patch_later(event["object"]["metadata"]["name"]))
                                pending.add(task)
                                task.add_done_callback(pending.discard)

            async def writer(index: int, period: float) -> None:
                n = 0
                while loop.time() + period < duration:
                    await asyncio.sleep(period)
                    name = f"w{index}-{n}"
                    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"writer": str(index)}},
                           "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}
                    async with client.post("/api/v1/namespaces/default/pods", json=pod) as r:
                        await r.read()
                    if n % 3 == 2:
                        patch = {"metadata": {"labels": {"third": "yes"}}}
                        async with client.patch(f"/api/v1/namespaces/default/pods/w{index}-{n - 1}",
                                                data=json.dumps(patch), headers=SMP) as r:
                            await r.read()
                    n += 1

            watch_task = asyncio.create_task(watcher())
            await asyncio.gather(*(writer(i, p) for i, p in enumerate(periods)))
            await asyncio.sleep(max(0.0, duration - loop.time()))
            if pending:
                await asyncio.gather(*pending)
            watch_task.cancel()
            try:
                await watch_task
            except asyncio.CancelledError:
                pass
        server.faults.check()
        return server.journal.to_jsonl()


def run_watch_delay_writers(seed: int = 0) -> str:
    """The workload on a fresh virtual loop."""
    return run(watch_delay_writers(seed=seed))
