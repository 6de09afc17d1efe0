"""How fast virtual time runs a watch-shaped workload: ``python bench/bench_virtual_time.py``.

The scenario, 300 virtual seconds on one :class:`harness._time.virtual_time.VirtualEventLoop`: an
aiohttp server on 127.0.0.1 holding a versioned key-value store; a client watching it over a
chunked streaming response (one JSON line per event, as a Kubernetes watch); three writers PUTting
every 10, 15 and 20 s; one request whose handler answers after 5 s. Each run is timed with
``perf_counter`` (not patched) and its event log hashed: every run must give the same log.
Target: 300 virtual seconds in under 50 ms of wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

from aiohttp import ClientSession, ClientTimeout, web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness._time.virtual_time import VirtualEventLoop, run  # noqa: E402

__all__ = ["scenario", "main"]

DURATION = 300.0
WRITER_PERIODS = (10.0, 15.0, 20.0)


def _app(log: list[str]) -> web.Application:
    objects: dict[str, tuple[int, str]] = {}
    watchers: list[asyncio.Queue[bytes | None]] = []
    version = 0

    async def put(request: web.Request) -> web.Response:
        nonlocal version
        version += 1
        name = request.match_info["name"]
        kind = "MODIFIED" if name in objects else "ADDED"
        objects[name] = (version, await request.text())
        event = json.dumps({"type": kind, "object": {"name": name, "resourceVersion": str(version)}})
        for queue in watchers:
            queue.put_nowait(event.encode() + b"\n")
        return web.json_response({"resourceVersion": str(version)})

    async def watch(request: web.Request) -> web.StreamResponse:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        watchers.append(queue)
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        asyncio.get_running_loop().call_at(DURATION, queue.put_nowait, None)  # the watch times out
        while (chunk := await queue.get()) is not None:
            await response.write(chunk)
        watchers.remove(queue)
        await response.write_eof()
        return response

    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(5)
        return web.json_response({"slept": 5})

    app = web.Application()
    app.router.add_put("/objects/{name}", put)
    app.router.add_get("/watch", watch)
    app.router.add_get("/slow", slow)
    return app


async def scenario() -> tuple[list[str], int]:
    """The event log and the number of clock jumps of one run."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, VirtualEventLoop)
    log: list[str] = []
    runner = web.AppRunner(_app(log), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    base = f"http://127.0.0.1:{port}"

    async def watcher(session: ClientSession) -> None:
        async with session.get(f"{base}/watch", timeout=ClientTimeout(total=None)) as response:
            async for line in response.content:
                event = json.loads(line)
                log.append(f"{loop.time():.6f} watch {event['type']} {event['object']['name']} "
                           f"rv={event['object']['resourceVersion']}")

    async def writer(session: ClientSession, index: int, period: float) -> None:
        for n in range(int(DURATION // period) - 1):
            await asyncio.sleep(period)
            async with session.put(f"{base}/objects/w{index}", data=f"{n}") as response:
                rv = (await response.json())["resourceVersion"]
            log.append(f"{loop.time():.6f} writer {index} rv={rv}")

    async def delayed(session: ClientSession) -> None:
        async with session.get(f"{base}/slow", timeout=ClientTimeout(total=30)) as response:
            log.append(f"{loop.time():.6f} slow {await response.json()}")

    async with ClientSession() as session:
        await asyncio.gather(
            watcher(session),
            delayed(session),
            *(writer(session, i, period) for i, period in enumerate(WRITER_PERIODS)),
        )
    log.append(f"{loop.time():.6f} done")
    await runner.cleanup()
    return log, loop.jumps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    walls: list[float] = []
    cpus: list[float] = []
    hashes: set[str] = set()
    jumps = events = 0
    run(scenario())  # warm-up: imports, first-use caches
    for _ in range(args.runs):
        wall, cpu = time.perf_counter(), time.process_time()
        log, jumps = run(scenario())
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        hashes.add(hashlib.sha256("\n".join(log).encode()).hexdigest())
        events = len(log)
    median = statistics.median(walls)
    p95 = sorted(walls)[max(0, round(0.95 * len(walls)) - 1)]
    print(f"runs: {args.runs}, virtual seconds per run: {DURATION:g}, events: {events}, jumps: {jumps}")
    print(f"wall ms: median {median * 1e3:.1f}, p95 {p95 * 1e3:.1f}; cpu ms median {statistics.median(cpus) * 1e3:.1f}")
    print(f"virtual/wall: {DURATION / median:,.0f}x")
    print(f"distinct event logs: {len(hashes)}")


if __name__ == "__main__":
    main()
