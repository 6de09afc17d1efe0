"""Deterministic time, scheduler adapters, scenarios, the pytest plugin and reports.

The public API is this flat list; everything else lives in private modules.
"""

from harness._virtual_time import (
    DEFAULT_EPOCH,
    Deadlock,
    RealClock,
    VirtualClock,
    VirtualEventLoop,
    run,
)

__all__ = [
    "DEFAULT_EPOCH",
    "Deadlock",
    "RealClock",
    "VirtualClock",
    "VirtualEventLoop",
    "run",
]
