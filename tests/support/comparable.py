"""An answer of an API server made comparable with another server's: an object without what two
servers never share (uid, resourceVersion, times), and any value whose JSON is too long to read in
a diff (a CRD's 300 kB schema, its managed fields) replaced by its SHA-256, the small facts beside
it (conditions, managers) kept so that a failure still says where the two differ."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

__all__ = ["DIGEST_ABOVE", "comparable"]

DIGEST_ABOVE = 1500  # characters of JSON: a longer value is compared by its SHA-256

_VOLATILE_META = ("uid", "resourceVersion", "creationTimestamp")


def comparable(obj: Any) -> Any:
    """``obj`` without what two servers never share (uid, resourceVersion, times) and with any
    value whose JSON is longer than :data:`DIGEST_ABOVE` replaced by ``sha256:<hex>``."""
    obj = copy.deepcopy(obj)
    meta = obj.get("metadata") or {}
    for key in _VOLATILE_META:
        meta.pop(key, None)
    for entry in meta.get("managedFields") or []:
        entry.pop("time", None)
    for condition in (obj.get("status") or {}).get("conditions") or []:
        condition.pop("lastTransitionTime", None)
    return _digest(obj)


def _digest(value: Any) -> Any:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    if len(text) > DIGEST_ABOVE:
        if isinstance(value, dict) and len(value) > 1:
            return {k: _digest(v) for k, v in value.items()}
        if isinstance(value, list) and len(value) > 1 and len(json.dumps(value[0])) <= DIGEST_ABOVE:
            return [_digest(v) for v in value]
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return value
