"""``time.Parse`` for the two layouts a Kubernetes object's times are decoded with.

``metav1.Time`` reads its JSON string with ``time.Parse(time.RFC3339, s)`` and ``metav1.MicroTime``
with ``time.Parse(RFC3339Micro, s)``; a body whose time does not parse is refused with Go's
``*time.ParseError`` text (``parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot
parse "" as "T"``), and a time that parses is stored in UTC, as ``MarshalJSON`` writes it back
(seconds for ``Time``, six fraction digits for ``MicroTime``). Python's ``datetime.fromisoformat``
takes other forms and words its errors differently, so the general ``parse`` loop of Go's
``time/format.go`` is followed here, element by element, for just these two layouts.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

__all__ = ["MICRO_LAYOUT", "RFC3339", "TimeError", "normalize"]

RFC3339 = "2006-01-02T15:04:05Z07:00"
MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00"

# The form every server-written Time already has; anything else is parsed the long way.
_PLAIN_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_PLAIN_MICRO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")

# (literal prefix, element) pairs as nextStdChunk splits each layout.
_CHUNKS = {
    RFC3339: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"), ("", "Z07:00")),
    MICRO_LAYOUT: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"),
                   ("", ".000000"), ("", "Z07:00")),
}


class TimeError(ValueError):
    """Go's ``*time.ParseError``; ``str()`` is its ``Error()``."""


def _quote(s: str) -> str:
    """``time.quote``: double quotes, ``"`` and ``\\`` escaped, other bytes outside printable
    ASCII as ``\\x`` escapes."""
    out = ['"']
    for char in s:
        if char >= "\x80" or char < " ":
            out.extend(f"\\x{b:02x}" for b in char.encode("utf-8", "surrogatepass"))
        else:
            if char in '"\\':
                out.append("\\")
            out.append(char)
    out.append('"')
    return "".join(out)


def _error(layout: str, value: str, layout_elem: str, value_elem: str, message: str = "") -> TimeError:
    if message:
        return TimeError(f"parsing time {_quote(value)}{message}")
    return TimeError(f"parsing time {_quote(value)} as {_quote(layout)}: cannot parse "
                     f"{_quote(value_elem)} as {_quote(layout_elem)}")


def _digit(s: str, i: int) -> bool:
    return i < len(s) and "0" <= s[i] <= "9"


def _getnum(s: str, fixed: bool) -> tuple[int, str] | None:
    if not _digit(s, 0):
        return None
    if not _digit(s, 1):
        return None if fixed else (int(s[0]), s[1:])
    return int(s[:2]), s[2:]


def _days_in(month: int, year: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def parse(value: str, layout: str) -> datetime | None:
    """``time.Parse(layout, value)`` for :data:`RFC3339` or :data:`MICRO_LAYOUT`, in UTC; None for
    a time Go reads but ``datetime`` cannot hold (year 0, an offset of 24 hours)."""
    original = value
    year = month = day = hour = minute = second = micro = 0
    offset: int | None = None
    for prefix, elem in _CHUNKS[layout]:
        rest = value
        for char in prefix:  # skip
            if not rest or rest[0] != char:
                raise _error(layout, original, prefix, rest)
            rest = rest[1:]
        value = hold = rest
        bad = False
        range_error = ""
        if elem == "2006":
            if len(value) < 4 or not _digit(value, 0) or not value[:4].isascii() or not value[:4].isdigit():
                bad = True
            else:
                year, value = int(value[:4]), value[4:]
        elif elem in ("01", "02", "04", "05", "15"):
            got = _getnum(value, elem != "15")
            if got is None:
                bad = True
            else:
                number, value = got
                if elem == "01":
                    month = number
                    range_error = "month" if not 1 <= number <= 12 else ""
                elif elem == "02":
                    day = number
                elif elem == "15":
                    hour = number
                    range_error = "hour" if number >= 24 else ""
                elif elem == "04":
                    minute = number
                    range_error = "minute" if number >= 60 else ""
                else:
                    second = number
                    if number >= 60:
                        range_error = "second"
                    elif layout == RFC3339 and len(value) >= 2 and value[0] in ".," and _digit(value, 1):
                        n = 2  # a fraction the layout does not name is read anyway
                        while _digit(value, n):
                            n += 1
                        micro = int(value[1:min(n, 10)].ljust(9, "0")) // 1000
                        value = value[n:]
        elif elem == ".000000":
            if len(value) < 7 or value[0] not in ".," or not all(_digit(value, i) for i in range(1, 7)):
                bad = True
            else:
                micro, value = int(value[1:7]), value[7:]
        else:  # Z07:00
            if value[:1] == "Z":
                offset, value = 0, value[1:]
            elif len(value) < 6 or value[3] != ":":
                bad = True
            else:
                hours, minutes = _getnum(value[1:3], True), _getnum(value[4:6], True)
                if hours is None or minutes is None or value[0] not in "+-":
                    bad = True
                else:
                    if hours[0] > 24:
                        range_error = "time zone offset hour"
                    if minutes[0] > 60:
                        range_error = "time zone offset minute"
                    offset = (hours[0] * 60 + minutes[0]) * 60 * (-1 if value[0] == "-" else 1)
                    value = value[6:]
        if range_error:
            raise _error(layout, original, elem, value, f": {range_error} out of range")
        if bad:
            raise _error(layout, original, elem, hold)
    if value:
        raise _error(layout, original, "", value, f": extra text: {_quote(value)}")
    if day < 1 or day > _days_in(month, year):
        raise _error(layout, original, "", value, ": day out of range")
    try:
        stamp = datetime(year, month, day, hour, minute, second, micro, tzinfo=timezone(timedelta(seconds=offset or 0)))
        return stamp.astimezone(timezone.utc)
    except (ValueError, OverflowError):  # year 0, a +24:00 offset: Go takes them, datetime does not
        return None


def normalize(value: str, micro: bool) -> str:
    """The stored form of a time the client sent: ``Time`` (``micro`` False) or ``MicroTime``
    written back in UTC; :class:`TimeError` with Go's text when it does not parse."""
    if (_PLAIN_MICRO if micro else _PLAIN_TIME).fullmatch(value):
        try:  # the common form only needs its ranges checked
            datetime(int(value[:4]), int(value[5:7]), int(value[8:10]), int(value[11:13]),
                     int(value[14:16]), int(value[17:19]))
            return value
        except ValueError:
            pass
    stamp = parse(value, MICRO_LAYOUT if micro else RFC3339)
    if stamp is None:
        return value
    text = (f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}T{stamp.hour:02d}:{stamp.minute:02d}:"
            f"{stamp.second:02d}")
    return f"{text}.{stamp.microsecond:06d}Z" if micro else f"{text}Z"
