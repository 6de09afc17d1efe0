"""The one wall clock the server writes timestamps from.

The server never reads the time itself: every ``creationTimestamp``, ``lastTransitionTime``,
``deletionTimestamp`` and event time comes from the injected :class:`Clock`. The harness passes a
virtual clock (a fixed epoch plus the virtual loop's time) so that journals are identical run after
run; :class:`SystemClock` is the real one, for ``schedharness serve`` and real-time backends.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Protocol

__all__ = ["Clock", "SystemClock", "format_time", "format_micro_time", "parse_time"]


class Clock(Protocol):
    def now(self) -> datetime:
        """The current wall time, timezone-aware (UTC)."""
        ...


class SystemClock:
    """Real wall time."""

    __slots__ = ("_second", "_text")

    def __init__(self) -> None:
        self._second = -1
        self._text = ""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def now_text(self) -> str:
        """``format_time(self.now())``, from the seconds since the epoch (a second's text made once):
        a write stamps a time or two, and a datetime costs several times more to make and read."""
        second = int(time.time())
        if second != self._second:
            self._text = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))
            self._second = second
        return self._text


def format_time(t: datetime) -> str:
    """``metav1.Time``: RFC 3339, seconds precision, ``Z`` (formatted field by field: every
    write stamps a few, and ``strftime`` costs several times more; the last second's text is
    kept, as most stamps fall in the same second)."""
    if t.tzinfo is not timezone.utc:
        t = t.astimezone(timezone.utc)
    global _last_second
    key = (t.year, t.month, t.day, t.hour, t.minute, t.second)
    last = _last_second  # one read: another thread may replace it
    if last[0] == key:
        return last[1]
    text = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z"
    _last_second = (key, text)
    return text


_last_second: tuple[tuple[int, ...], str] = ((), "")


def format_micro_time(t: datetime) -> str:
    """``metav1.MicroTime``: RFC 3339 with microseconds."""
    if t.tzinfo is not timezone.utc:
        t = t.astimezone(timezone.utc)
    return (f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
            f".{t.microsecond:06d}Z")


def parse_time(text: str) -> datetime:
    """A ``metav1.Time`` or ``MicroTime`` as written by :func:`format_time` (or a client)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
