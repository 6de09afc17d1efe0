"""Tests for harness._time.virtual_time and harness._time.wallclock: virtual time, event order, never wall time."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from harness._time.virtual_time import (
    DEFAULT_EPOCH,
    Deadlock,
    RealClock,
    VirtualClock,
    VirtualEventLoop,
    run,
)
from harness._time.wallclock import WallClockPatch
from tests.support.paths import ROOT

Log = list[tuple[float, str]]


def _loop() -> VirtualEventLoop:
    loop = asyncio.get_running_loop()
    assert isinstance(loop, VirtualEventLoop)
    return loop


def test_a_virtual_clock_starts_at_2026_01_01_utc_by_default() -> None:
    async def main() -> datetime:
        return VirtualClock(_loop()).now()

    assert run(main()) == DEFAULT_EPOCH == datetime(2026, 1, 1, tzinfo=timezone.utc)


def test_loop_time_starts_at_zero_with_microsecond_resolution() -> None:
    async def main() -> tuple[float, float]:
        loop = _loop()
        return loop.time(), loop._clock_resolution

    assert run(main()) == (0.0, 1e-6)


def test_sleep_300_is_one_jump_to_exactly_300() -> None:
    async def main() -> tuple[float, int]:
        await asyncio.sleep(300)
        return _loop().time(), _loop().jumps

    assert run(main()) == (300.0, 1)


def test_many_timers_fire_in_order_at_their_times() -> None:
    delays = [round(0.25 * i, 2) for i in range(1, 41)]
    random.Random(7).shuffle(delays)

    async def main() -> Log:
        loop = _loop()
        log: Log = []
        done = loop.create_future()
        def fire(label: str) -> None:
            log.append((loop.time(), label))

        for delay in delays:
            loop.call_later(delay, fire, f"later {delay}")
        loop.call_at(3.125, fire, "at 3.125")
        loop.call_at(10.5, done.set_result, None)
        await done
        return log

    expected = sorted([(d, f"later {d}") for d in delays] + [(3.125, "at 3.125")])
    assert run(main()) == expected


def test_wait_for_times_out_at_the_virtual_deadline() -> None:
    async def main() -> float:
        loop = _loop()
        await asyncio.sleep(1.5)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(loop.create_future(), timeout=2.5)
        return loop.time()

    assert run(main()) == 4.0


def _app() -> web.Application:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(float(request.query.get("delay", "5")))
        return web.Response(text=f"slept {request.query.get('delay', '5')}")

    async def watch(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse()
        await response.prepare(request)
        for name in ("ADDED", "MODIFIED", "DELETED"):
            await asyncio.sleep(1)
            await response.write(f"{name}\n".encode())
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_get("/slow", slow)
    app.router.add_get("/watch", watch)
    return app


def test_aiohttp_request_to_a_handler_sleeping_5_s_completes_at_5() -> None:
    async def main() -> Log:
        loop = _loop()
        async with TestClient(TestServer(_app(), host="127.0.0.1")) as client:
            response = await client.get("/slow", params={"delay": "5"})
            return [(loop.time(), await response.text())]

    assert run(main()) == [(5.0, "slept 5")]


def test_aiohttp_streaming_response_lines_arrive_at_their_virtual_times() -> None:
    async def main() -> Log:
        loop = _loop()
        log: Log = []
        async with TestClient(TestServer(_app(), host="127.0.0.1")) as client:
            async with client.get("/watch") as response:
                assert response.headers["Transfer-Encoding"] == "chunked"
                async for line in response.content:
                    log.append((loop.time(), line.decode().strip()))
        return log

    assert run(main()) == [(1.0, "ADDED"), (2.0, "MODIFIED"), (3.0, "DELETED")]


def test_clock_does_not_jump_past_a_timer_while_an_executor_job_runs() -> None:
    released = threading.Event()

    def blocking() -> str:
        threading.Timer(0.01, released.set).start()
        released.wait()
        return "executor result"

    async def main() -> Log:
        loop = _loop()
        log: Log = []
        loop.call_later(10, lambda: log.append((loop.time(), "timer")))
        log.append((loop.time(), await loop.run_in_executor(None, blocking)))
        await asyncio.sleep(20)
        return log

    assert run(main()) == [(0.0, "executor result"), (10.0, "timer")]


def test_virtual_time_is_frozen_while_held() -> None:
    async def main() -> Log:
        loop = _loop()
        log: Log = []
        loop.call_later(1, lambda: log.append((loop.time(), "timer")))
        from_thread: asyncio.Future[str] = loop.create_future()

        def work() -> None:
            time.sleep(0.01)
            loop.call_soon_threadsafe(from_thread.set_result, "thread result")

        with loop.hold():
            threading.Thread(target=work).start()
            log.append((loop.time(), await from_thread))
        await asyncio.sleep(2)
        return log

    assert run(main()) == [(0.0, "thread result"), (1.0, "timer")]


def test_a_hold_covers_a_subprocess_without_pipes() -> None:
    async def main() -> Log:
        loop = _loop()
        log: Log = []
        loop.call_later(1, lambda: log.append((loop.time(), "timer")))
        with loop.hold():
            process = await asyncio.create_subprocess_exec(sys.executable, "-c", "raise SystemExit(3)")
            log.append((loop.time(), f"exit {await process.wait()}"))
        await asyncio.sleep(2)
        return log

    assert run(main()) == [(0.0, "exit 3"), (1.0, "timer")]


def test_wait_all_tasks_blocked_wakes_before_the_clock_jumps() -> None:
    async def main() -> list[tuple[float, str]]:
        loop = _loop()
        log: Log = []

        async def busy() -> None:
            for i in range(5):
                await asyncio.sleep(0)
                log.append((loop.time(), f"busy {i}"))
            await asyncio.sleep(5)
            log.append((loop.time(), "busy slept"))

        task = asyncio.create_task(busy())
        await loop.wait_all_tasks_blocked()
        log.append((loop.time(), "all blocked"))
        await task
        await loop.wait_all_tasks_blocked()  # nothing scheduled: it wakes, it is no deadlock
        log.append((loop.time(), "all blocked again"))
        return log

    assert run(main()) == [
        (0.0, "busy 0"),
        (0.0, "busy 1"),
        (0.0, "busy 2"),
        (0.0, "busy 3"),
        (0.0, "busy 4"),
        (0.0, "all blocked"),
        (5.0, "busy slept"),
        (5.0, "all blocked again"),
    ]


def test_deadlock_names_the_virtual_time_and_every_waiting_task() -> None:
    cleaned_up: list[str] = []

    async def waiter(future: asyncio.Future[None]) -> None:
        try:
            await future
        finally:
            cleaned_up.append("waiter")

    async def main() -> None:
        await asyncio.sleep(2.5)
        await asyncio.create_task(waiter(_loop().create_future()), name="waiter")

    with pytest.raises(
        Deadlock,
        match=(
            r"^virtual time 2\.5: every task is waiting and nothing can wake them "
            r"\(no timer, no ready I/O, no work outside the loop\); 2 waiting:\n"
            r"  task 'main' in main\(\) at \S+/test_virtual_time\.py:\d+, awaiting task 'waiter'\n"
            r"  task 'waiter' in waiter\(\) at \S+/test_virtual_time\.py:\d+, "
            r"awaiting <Future pending cb=\[Task\.task_wakeup\(\)\]>$"
        ),
    ):
        run(main())
    assert cleaned_up == ["waiter"]


def test_deadlock_with_an_idle_server_and_connection_open() -> None:
    async def main() -> None:
        async with TestClient(TestServer(_app(), host="127.0.0.1")) as client:
            await client.get("/slow", params={"delay": "0"})
            await _loop().create_future()

    # aiohttp's idle keep-alive timers (server 3630 s, client connector sweep every 15 s) are timers:
    # they run out first, in virtual time, then the deadlock is certain
    with pytest.raises(
        Deadlock,
        match=(
            r"^virtual time \d+\.\d+: every task is waiting and nothing can wake them "
            r"\(no timer, no ready I/O, no work outside the loop\); 1 waiting:\n"
            r"  task 'main' in main\(\) at \S+/test_virtual_time\.py:\d+, "
            r"awaiting <Future pending cb=\[Task\.task_wakeup\(\)\]>$"
        ),
    ):
        run(main())


def test_wall_clock_follows_virtual_time_inside_run_only() -> None:
    epoch = datetime(2001, 2, 3, 4, 5, 6, tzinfo=timezone.utc)

    async def main() -> list[tuple[float, float, datetime, datetime]]:
        loop = _loop()
        clock = VirtualClock(loop, epoch)
        seen = []
        for delay in (0, 12.345, 0.000001, 86400 * 3):
            await asyncio.sleep(delay)
            assert clock.now() == epoch + timedelta(seconds=loop.time())
            seen.append((time.time(), epoch.timestamp() + loop.time(), datetime.now(timezone.utc), clock.now()))
        return seen

    for wall_seconds, expected_seconds, wall_now, clock_now in run(main(), epoch=epoch):
        assert wall_seconds == pytest.approx(expected_seconds, abs=1e-6)
        assert wall_now == clock_now
    assert wall_now == datetime(2001, 2, 6, 4, 5, 18, 345001, tzinfo=timezone.utc)
    assert datetime.now(timezone.utc).year > 2001
    assert time.time() > datetime(2020, 1, 1, tzinfo=timezone.utc).timestamp()


def test_wall_clock_is_left_alone_without_patch_wall_clock() -> None:
    async def main() -> int:
        await asyncio.sleep(60)
        return datetime.now(timezone.utc).year

    assert run(main(), epoch=datetime(2001, 1, 1, tzinfo=timezone.utc), patch_wall_clock=False) > 2001


def test_monotonic_clocks_stay_real_under_the_wall_clock_patch() -> None:
    with WallClockPatch(datetime(2001, 1, 1, tzinfo=timezone.utc)) as patch:
        patch.move_to(5.5)
        assert datetime.now(timezone.utc) == datetime(2001, 1, 1, 0, 0, 5, 500000, tzinfo=timezone.utc)
        before = time.monotonic_ns()
        time.sleep(0.001)
        assert time.monotonic_ns() > before


def test_naive_epochs_are_refused() -> None:
    naive = datetime(2026, 1, 1)
    with pytest.raises(ValueError, match=r"^epoch must be timezone-aware, got naive 2026-01-01T00:00:00$"):
        WallClockPatch(naive)
    with pytest.raises(ValueError, match=r"^epoch must be timezone-aware, got naive 2026-01-01T00:00:00$"):
        VirtualClock(VirtualEventLoop(), naive)


def test_real_clock_counts_loop_seconds_from_its_creation() -> None:
    async def main() -> tuple[float, float, object]:
        await asyncio.sleep(3)
        clock = RealClock(_loop())
        await asyncio.sleep(7)
        return _loop().time(), clock.time(), clock.now().tzinfo

    assert run(main(), patch_wall_clock=False) == (10.0, 7.0, timezone.utc)


def test_run_refuses_what_is_not_a_coroutine() -> None:
    with pytest.raises(ValueError, match=r"^a coroutine was expected, got 42$"):
        run(42)  # type: ignore[arg-type]


def _record_scenario() -> Log:
    """Three tasks interleaving sleeps, one of them a request loop against an aiohttp server."""

    async def work(request: web.Request) -> web.Response:
        n = int(request.match_info["n"])
        log.append((round(_loop().time(), 6), f"server got {n}"))
        await asyncio.sleep(0.5 * (n % 3))
        return web.Response(text=f"r{n}")

    async def sleeper(name: str, step: float, count: int) -> None:
        for i in range(count):
            await asyncio.sleep(step)
            log.append((round(_loop().time(), 6), f"{name} {i}"))

    async def requester(client: TestClient[web.Request, web.Application]) -> None:
        for n in range(8):
            response = await client.get(f"/work/{n}")
            log.append((round(_loop().time(), 6), f"client got {await response.text()}"))

    async def main() -> None:
        app = web.Application()
        app.router.add_get("/work/{n}", work)
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            await asyncio.gather(sleeper("A", 0.5, 8), sleeper("B", 1.1, 4), requester(client))

    log: Log = []
    run(main())
    return log


def test_a_scenario_gives_one_event_log_in_20_runs_and_under_another_hash_seed() -> None:
    first = _record_scenario()
    assert first[:4] == [(0.0, "server got 0"), (0.0, "client got r0"), (0.0, "server got 1"), (0.5, "A 0")]
    assert len(first) == 8 + 4 + 16
    for _ in range(19):
        assert _record_scenario() == first

    script = "import tests.harness._time.test_virtual_time as t; print(t._record_scenario())"
    env = {**os.environ, "PYTHONHASHSEED": "4242", "PYTHONPATH": str(ROOT)}
    child = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert child.stdout == f"{first}\n"
