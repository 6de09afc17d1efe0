"""Copying JSON-shaped data.

Objects in the store are plain JSON values (dicts, lists, strings, numbers, booleans, None), so
a copy needs none of ``copy.deepcopy``'s generality (memo, reducers, cycles); this recursive copy
is several times faster, and copies are on every write path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["json_copy"]


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value."""
    if type(value) is dict:
        return {k: json_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [json_copy(v) for v in value]
    return value
