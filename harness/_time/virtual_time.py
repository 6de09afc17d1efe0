"""Deterministic virtual time for asyncio.

A scenario that waits 300 s for a timeout should take milliseconds and give the same event log
every run. :class:`VirtualEventLoop` is an ordinary ``SelectorEventLoop`` whose ``time()`` is a
number it owns: it starts at 0 and moves only when nothing in the process can make progress,
and then straight to the next timer. I/O stays real (aiohttp servers and clients on 127.0.0.1
work unchanged); only waiting is skipped.

When the clock may jump is the whole design. Each time the loop would block in ``select``, it
checks, in this order (the rule under which every run gives one event log,
``bench/bench_virtual_time.py``):

1. poll the selector with timeout 0 and process any ready I/O;
2. callbacks are ready: do not jump;
3. work runs outside the loop (a ``run_in_executor`` future, tracked automatically, or a
   :meth:`~VirtualEventLoop.hold`): wait for real I/O with virtual time frozen;
4. wake the :meth:`~VirtualEventLoop.wait_all_tasks_blocked` waiters instead of jumping;
5. jump exactly to the next timer (its own ``when``, not ``now + delay`` recomputed);
6. no timer and nothing in flight: raise :class:`Deadlock`, naming every waiting task.

Why no real-time grace before a jump: a write on a loopback socket lands in the peer's kernel
buffer before ``send()`` returns, so the zero-timeout poll of step 1 already sees it; waiting
idle loop cycles or a millisecond of real time only slows runs (2.5x to 7x, measured) and fixes
nothing. The real risk is work outside the loop, which is why step 3 exists. Its knob is
:meth:`~VirtualEventLoop.hold`: code that waits on a thread the loop does not know about, a
subprocess without pipes or another process must take a hold, or the clock may jump past it
(or the loop may declare a deadlock). A ``run_in_executor`` future counts until it is done: if
it is cancelled (``wait_for`` timing out) the clock may move on while its thread still runs. A
scheduler in another process cannot follow virtual time at all: give it :class:`RealClock` and a
real loop.

A deadlock is declared only when no timer is left, and idle keep-alive timers count: with an
aiohttp connection open (server keep-alive 3630 s, client connector sweep every 15 s, aiohttp
3.14) it is raised at about t=3645, a few hundred jumps later, still in milliseconds.

Loop time starts at 0 and the epoch is mapped separately (wall = epoch + loop time): at loop
times near 1e8 the default 1e-9 clock resolution vanishes in float rounding and a due timer
never fires. The clock resolution is 1e-6, the grain of ``datetime``.

:func:`run` is ``asyncio.run`` on a fresh virtual loop, with the process wall clock following
virtual time (see :mod:`harness._time.wallclock` for why time-machine). ``time.monotonic`` and
``perf_counter`` stay real, so benchmarks still measure real time.
"""

from __future__ import annotations

import asyncio
import contextlib
import selectors
from collections.abc import Callable, Coroutine, Iterator, Mapping
from concurrent.futures import Executor
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from harness._time.wallclock import WallClockPatch

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike
    from typing import TypeVarTuple, Unpack

    _Ts = TypeVarTuple("_Ts")

__all__ = [
    "CLOCK_RESOLUTION",
    "DEFAULT_EPOCH",
    "Deadlock",
    "RealClock",
    "VirtualClock",
    "VirtualEventLoop",
    "run",
]

T = TypeVar("T")

DEFAULT_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)
CLOCK_RESOLUTION = 1e-6


class Deadlock(RuntimeError):
    """Every task waits, no timer is scheduled and nothing runs outside the loop: none can wake."""


class _VirtualSelector(selectors.BaseSelector):
    """A real selector whose ``select`` is decided by the loop (the only place a loop blocks)."""

    def __init__(
        self,
        inner: selectors.BaseSelector,
        select: Callable[[float | None], list[tuple[selectors.SelectorKey, int]]],
    ) -> None:
        self._inner = inner
        self._select = select

    def register(self, fileobj: FileDescriptorLike, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: FileDescriptorLike) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(self, fileobj: FileDescriptorLike, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        return self._select(timeout)

    def close(self) -> None:
        self._inner.close()

    def get_key(self, fileobj: FileDescriptorLike) -> selectors.SelectorKey:
        return self._inner.get_key(fileobj)

    def get_map(self) -> Mapping[FileDescriptorLike, selectors.SelectorKey]:
        return self._inner.get_map()


class VirtualEventLoop(asyncio.SelectorEventLoop):
    """``time()`` is virtual; when nothing can run it jumps to the next timer (module docstring).

    ``jumps`` counts clock jumps; ``jump_listeners`` are called with the new time after each.
    """

    def __init__(self) -> None:
        self._vt = 0.0
        self._holds = 0
        self._in_flight = 0
        self._blocked_waiters: list[asyncio.Future[None]] = []
        self.jumps = 0
        self.jump_listeners: list[Callable[[float], None]] = []
        self._real_selector = selectors.DefaultSelector()
        super().__init__(_VirtualSelector(self._real_selector, self._virtual_select))
        self._clock_resolution = CLOCK_RESOLUTION

    def time(self) -> float:
        return self._vt

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Freeze virtual time while work outside the loop runs (a thread, a subprocess).

        While held no timer fires, so wait for the outside work with something that wakes the
        loop (``run_in_executor``, an asyncio subprocess's pipes, ``call_soon_threadsafe``), not
        by polling with ``asyncio.sleep``: the loop blocks on real I/O until woken.
        """
        self._holds += 1
        try:
            yield
        finally:
            self._holds -= 1

    async def wait_all_tasks_blocked(self) -> None:
        """Return once every other task is blocked, before the clock jumps (as in trio)."""
        waiter: asyncio.Future[None] = self.create_future()
        self._blocked_waiters.append(waiter)
        try:
            await waiter
        finally:
            with contextlib.suppress(ValueError):
                self._blocked_waiters.remove(waiter)

    def run_in_executor(
        self, executor: Executor | None, func: Callable[[Unpack[_Ts]], T], *args: Unpack[_Ts]
    ) -> asyncio.Future[T]:
        future = super().run_in_executor(executor, func, *args)
        self._in_flight += 1
        future.add_done_callback(self._executor_done)
        return future

    def _executor_done(self, future: asyncio.Future[Any]) -> None:
        self._in_flight -= 1

    async def shutdown_default_executor(self, *args: Any) -> None:
        with self.hold():  # it waits on a thread through a future run_in_executor does not see
            await super().shutdown_default_executor(*args)

    def _virtual_select(self, timeout: float | None) -> list[tuple[selectors.SelectorKey, int]]:
        """The jump rule; ``timeout`` is what ``_run_once`` asked for (0: callbacks ready)."""
        events = self._real_selector.select(0)
        if events or timeout == 0:
            return events
        if self._holds or self._in_flight:
            # frozen: a real timeout could only spin (no timer can come due), so block until the
            # outside work wakes the loop (executor results arrive through the self-pipe)
            return self._real_selector.select(None)
        waiters = [waiter for waiter in self._blocked_waiters if not waiter.done()]
        self._blocked_waiters.clear()
        if waiters:
            for waiter in waiters:
                waiter.set_result(None)
            return []
        if timeout is None:
            raise Deadlock(self._deadlock_message())
        self._jump(timeout)
        return []

    def _jump(self, timeout: float) -> None:
        target = self._vt + timeout
        scheduled: list[asyncio.TimerHandle] = self._scheduled  # type: ignore[attr-defined]
        if scheduled:  # the heap top set ``timeout``; take its own float so it fires exactly then
            target = min(target, scheduled[0].when())
        self._vt = max(self._vt, target)
        self.jumps += 1
        for listener in self.jump_listeners:
            listener(self._vt)

    def _deadlock_message(self) -> str:
        tasks = sorted(asyncio.all_tasks(self), key=lambda task: task.get_name())
        lines = [
            f"virtual time {round(self._vt, 6)}: every task is waiting and nothing can wake them "
            f"(no timer, no ready I/O, no work outside the loop); {len(tasks)} waiting:"
        ]
        lines += [f"  {_describe(task)}" for task in tasks]
        return "\n".join(lines)


def _describe(task: asyncio.Task[Any]) -> str:
    """``task 'name' in func() at file:line, awaiting <what>``: the innermost suspended frame."""
    where = "?"
    awaitable: Any = task.get_coro()
    while awaitable is not None:
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "gi_frame", None)
        if frame is not None:
            where = f"{frame.f_code.co_name}() at {frame.f_code.co_filename}:{frame.f_lineno}"
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "gi_yieldfrom", None)
    waiting_on = getattr(task, "_fut_waiter", None)  # what Task.__repr__ shows as wait_for=
    if isinstance(waiting_on, asyncio.Task):
        what = f"task {waiting_on.get_name()!r}"
    else:
        what = repr(waiting_on)
    return f"task {task.get_name()!r} in {where}, awaiting {what}"


class VirtualClock:
    """A ``fake_apiserver._machinery.clock.Clock`` (structurally) on a loop's time: ``now() = epoch + loop.time()``."""

    def __init__(self, loop: asyncio.AbstractEventLoop, epoch: datetime = DEFAULT_EPOCH) -> None:
        if epoch.tzinfo is None:
            raise ValueError(f"epoch must be timezone-aware, got naive {epoch.isoformat()}")
        self._loop = loop
        self._epoch = epoch

    def now(self) -> datetime:
        return self._epoch + timedelta(seconds=self._loop.time())

    def time(self) -> float:
        """Loop seconds since start (a virtual loop starts at 0)."""
        return self._loop.time()


class RealClock:
    """The same interface on real time, for schedulers in other processes (external, kind)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._start = loop.time()

    def now(self) -> datetime:
        return datetime.now(timezone.utc)  # the injected real clock; no import of the server package

    def time(self) -> float:
        """Loop seconds since this clock was made."""
        return self._loop.time() - self._start


def run(
    main: Coroutine[Any, Any, T], *, epoch: datetime = DEFAULT_EPOCH, patch_wall_clock: bool = True
) -> T:
    """Run ``main`` on a fresh :class:`VirtualEventLoop`, like ``asyncio.run``.

    With ``patch_wall_clock``, ``time.time()`` and ``datetime.now()`` read ``epoch + loop time``
    from start to close of the loop (cleanup included), and real time again afterwards.
    """
    if not asyncio.iscoroutine(main):
        raise ValueError(f"a coroutine was expected, got {main!r}")
    loop = VirtualEventLoop()
    wall = WallClockPatch(epoch) if patch_wall_clock else contextlib.nullcontext()
    if isinstance(wall, WallClockPatch):
        loop.jump_listeners.append(wall.move_to)
    with wall, asyncio.Runner(loop_factory=lambda: loop) as runner:
        return runner.run(_named_main(main))


async def _named_main(main: Coroutine[Any, Any, T]) -> T:
    """Name the main task ``main``: task numbers are process-wide, names in reports should not be."""
    task = asyncio.current_task()
    if task is not None:
        task.set_name("main")
    return await main
