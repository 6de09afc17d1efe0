"""Semantic equality: JSON values compared as ``apiequality.Semantic.DeepEqual`` compares their Go values.

Go cannot tell a nil list or map from an empty one once decoded, nor an absent non-pointer field
from its zero value, so rules that compare an old and a new object (immutable fields, generation
bumps, update validation) compare these normal forms. :func:`semantic` drops null and empty
fields; :func:`semantic_omitzero` drops every zero value (``false``, ``0``, ``""`` too), as a
struct of non-pointer fields compares. :func:`spec_diff` words a difference for a message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["semantic", "semantic_omitzero", "spec_diff"]


def semantic(value: Any) -> Any:
    """``value`` with empty and null fields dropped, recursively: what two JSON values compare
    on under ``apiequality.Semantic.DeepEqual``, which holds a nil and an empty list (or map)
    equal, and which a Go struct cannot tell from a missing field once decoded."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            normal = semantic(item)
            if normal is not None and normal != [] and normal != {}:
                out[key] = normal
        return out
    if isinstance(value, list):
        return [semantic(item) for item in value]
    return value


def _is_zero(value: Any) -> bool:
    if value is None or value is False:
        return True
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == 0
    return isinstance(value, (str, list, dict)) and len(value) == 0


def semantic_omitzero(value: Any) -> Any:
    """Normalise for ``apiequality.Semantic.DeepEqual``: drop zero-valued fields, recursively."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            normal = semantic_omitzero(item)
            if not _is_zero(normal):
                out[key] = normal
        return out
    if isinstance(value, list):
        return [semantic_omitzero(item) for item in value]
    return value


def spec_diff(old: Mapping[str, Any], new: Mapping[str, Any], type_name: str = "core.PodSpec") -> str:
    """A readable stand-in for go-cmp's diff: one ``-``/``+`` pair per top-level spec field."""
    lines = [f"  {type_name}{{"]
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            for sign, side in (("-", old), ("+", new)):
                lines.append(f"{sign} \t{key}: {json.dumps(side.get(key), sort_keys=True, separators=(',', ':'))},")
    lines.append("  }")
    return "\n".join(lines) + "\n"
