"""Fixtures of every test: the store's contract checked in each, and the fake API server on a
real-time loop in a background thread (:class:`~tests.support.threaded_server.ThreadedServer`),
for the blocking clients that cannot run on the virtual loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from fake_apiserver._machinery.jsonutil import dumps
from fake_apiserver._storage.store import Store
from tests.support.threaded_server import ThreadedServer


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
