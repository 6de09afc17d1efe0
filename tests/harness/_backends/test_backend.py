"""FakeBackend: the fake API server on the running loop, with the clock that loop implies."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
import yaml

from harness._backends.backend import BackendError, FakeBackend
from harness._time.virtual_time import RealClock, VirtualClock, run


def test_virtual_loop_gives_virtual_clock_and_journal_times(tmp_path: Path) -> None:
    async def main() -> None:
        backend = FakeBackend(tmp_path)
        async with backend:
            assert backend.is_virtual is True
            assert isinstance(backend.clock, VirtualClock)
            assert backend.faults is backend.server.faults
            await asyncio.sleep(12.5)
            async with aiohttp.ClientSession() as client:
                async with client.get(f"{backend.url}/api/v1/namespaces/default/pods") as r:
                    assert r.status == 200
            assert [(e.time, e.verb, e.resource) for e in backend.journal] == [(12.5, "list", "pods")]
            assert backend.clock.now().isoformat() == "2026-01-01T00:00:12.500000+00:00"
        assert backend.journal.requests("list", "pods")[0].code == 200  # still readable after stop

    run(main())


def test_real_loop_gives_real_clock(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            assert backend.is_virtual is False
            assert isinstance(backend.clock, RealClock)

    asyncio.run(main())


def test_kubeconfig_points_at_the_server(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeBackend(tmp_path / "w") as backend:
            assert backend.kubeconfig_path == tmp_path / "w" / "kubeconfig"
            config = yaml.safe_load(backend.kubeconfig_path.read_text())
            assert config["clusters"][0]["cluster"]["server"] == backend.url
            assert backend.url.startswith("http://127.0.0.1:")

    run(main())


def test_nodes_are_not_tainted_by_default_and_can_be(tmp_path: Path) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}

    async def create(backend: FakeBackend) -> dict[str, object]:
        async with aiohttp.ClientSession() as client:
            async with client.post(f"{backend.url}/api/v1/nodes", json=node) as r:
                return dict(await r.json())

    async def main() -> None:
        async with FakeBackend(tmp_path / "a") as plain:
            assert "taints" not in (await create(plain)).get("spec", {})  # type: ignore[operator]
        async with FakeBackend(tmp_path / "b", taint_not_ready_nodes=True) as tainted:
            spec = (await create(tainted))["spec"]
            assert spec == {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]}

    run(main())


def test_same_seed_same_uids(tmp_path: Path) -> None:
    uids = []
    for attempt in range(2):
        async def main() -> None:
            async with FakeBackend(tmp_path / str(attempt), seed=7) as backend:
                async with aiohttp.ClientSession() as client:
                    async with client.post(f"{backend.url}/api/v1/nodes",
                                           json={"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}) as r:
                        uids.append((await r.json())["metadata"]["uid"])

        run(main())
    assert uids[0] == uids[1]


def test_use_before_start_and_double_start_are_errors(tmp_path: Path) -> None:
    backend = FakeBackend(tmp_path)
    assert backend.started is False
    with pytest.raises(BackendError, match=r"^the fake backend is not running: await backend.start\(\) first$"):
        backend.url
    with pytest.raises(BackendError, match=r"^the fake backend is not running: await backend.start\(\) first$"):
        backend.clock

    async def main() -> None:
        await backend.start()
        try:
            with pytest.raises(BackendError, match=r"^the fake backend was already started; make a new one per run$"):
                await backend.start()
        finally:
            await backend.stop()
            await backend.stop()

    run(main())
