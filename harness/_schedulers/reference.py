"""The reference scheduler as an adapter: in-process, on the test's loop, under virtual time.

``--scheduler reference`` (the default) runs :class:`reference_scheduler.Scheduler` through
:class:`~harness._schedulers.adapters.CallableAdapter`, with the run's feature gates and, for
``--scheduler reference:<name>``, one of its variants (a mutant, a control or a shape variant,
:data:`reference_scheduler.VARIANTS`). Its clock is the loop's: a
:class:`~harness._time.virtual_time.VirtualClock` on the virtual loop, a
:class:`~harness._time.virtual_time.RealClock` otherwise. Feature gates the reference scheduler does
not know are refused at start, as kube-scheduler refuses them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness._schedulers.adapters import CallableAdapter, format_feature_gates
from harness._time.virtual_time import RealClock, VirtualClock, VirtualEventLoop
from reference_scheduler import DEFAULT_DELAY, Scheduler, get_mutant, parse_feature_gates

__all__ = ["reference_adapter"]


def reference_adapter(mutant: str | None = None, *, delay: float | None = None) -> CallableAdapter[object]:
    """An unstarted adapter running the reference scheduler (or the named variant)."""
    checks_gates = get_mutant(mutant).checks_gates if mutant else True  # an unknown name fails here

    async def start(kubeconfig_path: Path, gates: dict[str, bool]) -> object:
        loop = asyncio.get_running_loop()
        clock = VirtualClock(loop) if isinstance(loop, VirtualEventLoop) else RealClock(loop)
        scheduler = Scheduler(
            str(kubeconfig_path),
            clock=clock,
            gates=parse_feature_gates(format_feature_gates(gates), validate=checks_gates),
            delay=DEFAULT_DELAY if delay is None else delay,
            mutant=mutant,
            scheduler_name=adapter.scheduler_name or "default-scheduler",
        )
        await scheduler.start()
        return scheduler

    async def stop(scheduler: object) -> None:
        await scheduler.stop()  # type: ignore[attr-defined]

    name = f"reference:{mutant}" if mutant else "reference"
    # told the run's scheduler name on a shared cluster (harness._backends.shared_cluster), it schedules only those pods
    adapter: CallableAdapter[object] = CallableAdapter(start, stop, name=name, logger_name="reference_scheduler",
                                                       takes_scheduler_name=True)
    return adapter
