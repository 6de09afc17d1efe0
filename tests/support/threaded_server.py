"""The fake API server on a real-time loop in a background thread, for blocking clients.

Blocking clients (the official Python client, kubectl's subprocesses) cannot run on the virtual
loop, so these tests give the server a thread and an ordinary loop of its own and talk to it over
its socket, as any client would. Tests that drive the server with an aiohttp client run it on the
virtual loop instead (``harness.run``) and need none of this. The fixtures that make and stop
such servers are in ``tests/conftest.py``.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

from fake_apiserver import FakeApiServer

__all__ = ["STARTUP_TIMEOUT", "ThreadedServer"]

T = TypeVar("T")

STARTUP_TIMEOUT = 30.0  # seconds; only reached when something is broken


class ThreadedServer:
    """A :class:`~fake_apiserver.FakeApiServer` serving from a thread of its own.

    ``url`` and ``kubeconfig`` (a file written at start) are the way in; :meth:`call` runs a
    function on the server's loop thread, which is how a test may touch ``server.store`` without
    racing the server.
    """

    def __init__(self, workdir: Path, **options: Any) -> None:
        self.workdir = workdir
        self.server = FakeApiServer(**options)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="fake-apiserver", daemon=True)
        self._started = threading.Event()
        self._error: BaseException | None = None
        self.kubeconfig = workdir / "kubeconfig"

    @property
    def url(self) -> str:
        return self.server.url

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.start())
        except BaseException as e:  # reported by start()
            self._error = e
            self._started.set()
            return
        self._started.set()
        self.loop.run_forever()

    def start(self) -> ThreadedServer:
        self._thread.start()
        if not self._started.wait(STARTUP_TIMEOUT):
            raise RuntimeError(f"the fake API server did not start within {STARTUP_TIMEOUT} s")
        if self._error is not None:
            raise RuntimeError("the fake API server failed to start") from self._error
        self.server.write_kubeconfig(self.kubeconfig)
        return self

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on the server's loop thread; its result or its exception."""

        async def call() -> T:
            return fn(*args, **kwargs)

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(STARTUP_TIMEOUT)

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(STARTUP_TIMEOUT)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(STARTUP_TIMEOUT)
        self.loop.close()
