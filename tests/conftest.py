"""Shared fixtures: the fake API server on a real-time loop in a background thread.

Blocking clients (the official Python client, kubectl's subprocesses) cannot run on the virtual
loop, so these tests give the server a thread and an ordinary loop of its own and talk to it over
its socket, as any client would. Tests that drive the server with an aiohttp client run it on the
virtual loop instead (``harness.run``) and need none of this.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import pytest

from fake_apiserver import FakeApiServer
from fake_apiserver._machinery.jsonutil import dumps
from fake_apiserver._storage.store import Store
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets

T = TypeVar("T")

STARTUP_TIMEOUT = 30.0  # seconds; only reached when something is broken


@pytest.fixture(autouse=True)
def stored_objects_stay_as_stored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The store's contract, checked in every test: an object, once stored, is never changed (a
    write builds a new one, which may share the parts it leaves alone). Each object a store commits
    is written down as JSON; at the end of the test every one must still read the same."""
    stored: dict[int, tuple[Any, bytes]] = {}
    commit_one = Store._commit_one

    def committing(self: Store, key: Any, spec: Any, change: Any) -> None:
        commit_one(self, key, spec, change)
        if change.new is not None:
            stored[id(change.new)] = (change.new, dumps(change.new))

    monkeypatch.setattr(Store, "_commit_one", committing)
    yield
    changed = [obj for obj, text in stored.values() if dumps(obj) != text]
    assert not changed, f"stored objects changed after they were stored: {changed[:3]}"


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


@pytest.fixture
def make_threaded_server(tmp_path: Path) -> Iterator[Callable[..., ThreadedServer]]:
    """A factory: ``make_threaded_server(history=5)`` starts a server with those
    :class:`~fake_apiserver.FakeApiServer` options; every server made is stopped at teardown."""
    servers: list[ThreadedServer] = []

    def make(**options: Any) -> ThreadedServer:
        workdir = tmp_path / f"server-{len(servers)}"
        workdir.mkdir()
        server = ThreadedServer(workdir, **options)
        servers.append(server)
        return server.start()

    yield make
    for server in reversed(servers):
        server.stop()


@pytest.fixture
def threaded_server(make_threaded_server: Callable[..., ThreadedServer]) -> ThreadedServer:
    """A fake API server with default options on a background thread."""
    return make_threaded_server()


@pytest.fixture
def k8s_api(threaded_server: ThreadedServer) -> Iterator[Any]:
    """A ``kubernetes.client.ApiClient`` configured from ``threaded_server``'s kubeconfig."""
    from kubernetes import config

    api = config.new_client_from_config(config_file=str(threaded_server.kubeconfig))
    yield api
    api.close()


def kube_apiserver_answers(tmp_path: Path, recorded: Path, run: Callable[[str, str, ssl.SSLContext], T]) -> T:
    """What a real kube-apiserver (``KUBEBUILDER_ASSETS``; the test is skipped without one) answers
    to ``run`` (called with its URL, token and TLS context). The answers are written to
    ``recorded`` when that file does not exist yet (a differential test's first capture); the
    caller checks them against the recording."""
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        answers = run(*plane.access())
    if not recorded.exists():
        recorded.parent.mkdir(parents=True, exist_ok=True)
        recorded.write_text(json.dumps(answers, indent=1) + "\n")
    return answers
