"""Events in two APIs: core v1 Events and ``events.k8s.io/v1`` Events are one stored object.

kube-apiserver stores both resources once (``AddCohabitatingResources``) and converts between
their shapes (``pkg/apis/events/v1/conversion.go``); the store serves each shape with
:func:`convert_event`, and validation reads an ``events.k8s.io/v1`` Event in the core shape.
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery.jsonutil import in_order

__all__ = ["convert_event"]

Obj = dict[str, Any]


# pkg/apis/events/v1/conversion.go: the core v1 field (JSON name) each events.k8s.io/v1 field maps to.
_EVENT_FIELDS_V1_TO_CORE = {
    "regarding": "involvedObject", "note": "message", "deprecatedSource": "source",
    "deprecatedFirstTimestamp": "firstTimestamp", "deprecatedLastTimestamp": "lastTimestamp",
    "deprecatedCount": "count", "reportingController": "reportingComponent",
}


_EVENT_FIELDS_CORE_TO_V1 = {v: k for k, v in _EVENT_FIELDS_V1_TO_CORE.items()}


# Field order of each Go struct (core/v1 Event, events/v1 Event), the order the server encodes.
_CORE_EVENT_ORDER = (
    "kind", "apiVersion", "metadata", "involvedObject", "reason", "message", "source", "firstTimestamp",
    "lastTimestamp", "count", "type", "eventTime", "series", "action", "related", "reportingComponent",
    "reportingInstance",
)


_V1_EVENT_ORDER = (
    "kind", "apiVersion", "metadata", "eventTime", "series", "reportingController", "reportingInstance", "action",
    "reason", "regarding", "related", "note", "type", "deprecatedSource", "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp", "deprecatedCount",
)


def convert_event(event: Obj, group: str) -> Obj:
    """An Event in the shape of ``group``'s API (``""`` for core v1, ``events.k8s.io`` for
    events.k8s.io/v1): the fields ``pkg/apis/events/v1/conversion.go`` renames, renamed; the
    rest, and the metadata, shared. Real servers also encode the zero values of fields the other
    shape lacks (``"firstTimestamp": null``, ``"reportingComponent": ""``); this leaves them out."""
    to_core = group == ""
    names = _EVENT_FIELDS_V1_TO_CORE if to_core else _EVENT_FIELDS_CORE_TO_V1
    out: Obj = {"kind": "Event", "apiVersion": "v1" if to_core else "events.k8s.io/v1"}
    for key, value in event.items():
        if key not in ("kind", "apiVersion"):
            out[names.get(key, key)] = value
    return in_order(out, _CORE_EVENT_ORDER if to_core else _V1_EVENT_ORDER)
