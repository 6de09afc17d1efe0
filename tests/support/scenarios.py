"""A scenario on a fresh virtual loop with a fake backend, and optionally the scaffolding
scheduler (:func:`~tests.support.schedulers.first_fit_scheduler`) running beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Awaitable, Callable

from harness._backends.backend import FakeBackend
from harness._scenario.scenario import Scenario
from harness._schedulers.adapters import CallableAdapter
from harness._time.virtual_time import run
from tests.support.schedulers import first_fit_scheduler

__all__ = ["with_scenario"]


def with_scenario(body: Callable[[Scenario], Awaitable[None]], tmp_path: Path, *, scheduler: bool = True) -> None:
    """Run ``body`` on a fresh virtual loop with a fake backend and (optionally) the scaffolding scheduler."""

    async def main() -> None:
        backend = FakeBackend(tmp_path)
        await backend.start()
        adapter = CallableAdapter(first_fit_scheduler, name="first-fit")
        try:
            if scheduler:
                await adapter.start(backend.kubeconfig_path, {})
            async with Scenario(backend) as s:
                await body(s)
        finally:
            await adapter.stop()
            await backend.stop()

    run(main())
