"""The clock the scheduler stamps times with, injected like the fake API server's.

Waiting uses only the running loop (``asyncio.sleep``, ``call_later``, ``loop.time()``), so under
the harness's virtual loop every delay is virtual. Timestamps (``lastTransitionTime``, event
``eventTime``, event names) come from an object with ``now()``: the harness passes
``harness.VirtualClock(loop)``; :class:`WallClock` is the real one, used only by the command line.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Protocol

__all__ = ["DUE_TOLERANCE", "Clock", "WallClock", "format_micro_time", "format_time"]

#: A deadline within this many seconds counts as reached: asyncio fires a timer once it is within
#: the loop's clock resolution of its time (the virtual loop's is 1e-6 s), and a timer set for
#: ``due - now`` may fire a few float ulps short of ``due``; waiting again for that remainder
#: would spin without the clock moving.
DUE_TOLERANCE = 1e-6


class Clock(Protocol):
    def now(self) -> datetime:
        """The current wall time, timezone-aware (UTC)."""
        ...


class WallClock:
    """Real wall time, for ``schedharness scheduler`` against a real or standalone server."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


def format_time(t: datetime) -> str:
    """``metav1.Time``: RFC 3339, seconds precision, ``Z``."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_micro_time(t: datetime) -> str:
    """``metav1.MicroTime``: RFC 3339 with microseconds."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
