"""Events in two APIs: core v1 Events and ``events.k8s.io/v1`` Events are one stored object.

kube-apiserver stores both resources once (``AddCohabitatingResources``) and converts between
their shapes (``pkg/apis/events/v1/conversion.go``); the store serves each shape with
:func:`convert_event`, and validation reads an ``events.k8s.io/v1`` Event in the core shape. As in
kube-apiserver, whose ``events.k8s.io`` storage is ``pkg/registry/core/event``'s, this module
declares both kinds: :data:`KIND` (core) and :data:`EVENTS_KIND` (``events.k8s.io``).

Both kinds' Tables have the same cells (:func:`print_event`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.jsonutil import in_order
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.kindspec import FieldValue
from fake_apiserver._machinery.names import is_qualified_name
from fake_apiserver._machinery.selectors import go_value_field, render_value, value_at
from fake_apiserver._registry.fieldrules import get_in, invalid_each
from fake_apiserver._registry.generic import Cohabitant, FieldLabels, KindRules
from fake_apiserver._registry.printing import Cells, count_of, name_of, since

__all__ = ["EVENTS_KIND", "KIND", "convert_event", "print_event"]

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


def _event_errors(event: Mapping[str, Any], *, strict: bool) -> list[FieldError]:
    """``ValidateEventCreate`` on an Event in core v1 shape: ``legacyValidateEvent`` always, the
    strict rules for a write through events.k8s.io/v1 (``strict``)."""
    namespace = get_in(event, "metadata", "namespace") or ""
    involved = str(get_in(event, "involvedObject", "namespace") or "")
    errors: list[FieldError] = []
    mismatch = FieldError.invalid("involvedObject.namespace", involved, "does not match event.namespace")
    if not event.get("eventTime"):
        if (not involved and namespace not in ("", "default")) or (involved and involved != namespace):
            errors.append(mismatch)
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errors.append(mismatch)
        controller_field = "reportingController" if strict else "reportingComponent"
        controller = str(event.get("reportingComponent") or "")
        if not controller:
            errors.append(FieldError.required(controller_field))
        errors += invalid_each(controller_field, controller, is_qualified_name(controller))
        for key, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128)):
            value = str(event.get(key) or "")
            if not value:
                errors.append(FieldError.required(key))
            elif len(value) > limit:
                errors.append(FieldError.invalid(key, "", f"can have at most {limit} characters"))
        if len(str(event.get("message") or "")) > 1024:
            errors.append(FieldError.invalid("message", "", "can have at most 1024 characters"))
    if not strict:
        return errors
    if not event.get("eventTime"):
        errors.append(FieldError.required("eventTime"))
    kind = str(event.get("type") or "")
    if kind not in ("Normal", "Warning"):
        errors.append(FieldError.invalid("type", "", f"has invalid value: {kind}"))
    series = event.get("series")
    if isinstance(series, dict):  # validateV1EventSeries
        if not isinstance(series.get("count"), int) or series["count"] < 2:
            errors.append(FieldError.invalid("series.count", "", "should be at least 2"))
        if not series.get("lastObservedTime"):
            errors.append(FieldError.required("series.lastObservedTime"))
    return errors


# ValidateEventUpdate: through events.k8s.io/v1 these keep their value (core v1 field names)
_IMMUTABLE = ("involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count",
              "type", "eventTime", "action", "related", "reportingComponent", "reportingInstance")
_IMMUTABLE_PATHS = {"reportingComponent": "reportingController"}


def _core_event_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return _event_errors(obj, strict=False)


def _events_v1_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return _event_errors(convert_event(dict(obj), ""), strict=True)


def _events_v1_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateEventUpdate``'s rules for a write through events.k8s.io/v1: what an Event
    records stays as it was (a series grows through ``series``, nothing else)."""
    now, before = convert_event(dict(new), ""), convert_event(dict(old), "")
    errors = []
    for key in _IMMUTABLE:
        if semantic(now.get(key)) != semantic(before.get(key)):
            value = now.get(key)
            shown = value if value is None or isinstance(value, (str, int, bool)) else GoJSON(value)
            errors.append(FieldError.invalid(_IMMUTABLE_PATHS.get(key, key), shown, "field is immutable"))
    return errors


_INVOLVED = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")

# pkg/apis/core/v1 field label conversion of Events
_CORE_FIELD_LABELS = FieldLabels((
    *(f"involvedObject.{key}" for key in _INVOLVED), "reason", "reportingComponent", "source", "type"))

# events.k8s.io/v1 selects on its own JSON names (pkg/apis/events/v1 field label conversion).
_EVENTS_FIELD_LABELS = FieldLabels((
    *(f"regarding.{key}" for key in _INVOLVED), "reason", "reportingController", "type"))


def _core_field_values() -> dict[str, FieldValue]:
    """``event.ToSelectableFields`` on a core v1 Event: the involved object's fields as Go strings
    (absent: ``""``), and a ``source`` that falls back to the reporting component."""
    values: dict[str, FieldValue] = {
        f"involvedObject.{key}": go_value_field(f"involvedObject.{key}", "") for key in _INVOLVED}
    values["reportingComponent"] = lambda obj: render_value(obj.get("reportingComponent"))
    values["source"] = lambda obj: (render_value(value_at(obj, "source.component"))
                                    or render_value(obj.get("reportingComponent")))
    return values


def print_event(event: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printEvent`` (wide); an events.k8s.io/v1 Event is read in its core v1 shape, as the server
    converts it to the internal Event before printing."""
    if str(event.get("apiVersion", "")).startswith("events.k8s.io/"):
        event = convert_event(event, "")
    first = since(event.get("firstTimestamp"), now) if event.get("firstTimestamp") else since(event.get("eventTime"), now)
    last = since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first
    count = count_of(event.get("count"))
    series = event.get("series")
    if series:
        last = since(series.get("lastObservedTime"), now)
        count = count_of(series.get("count"))
    elif count == 0:
        count = 1  # singleton events of the new API carry no count
    involved: Obj = event.get("involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source: Obj = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent") or ""
    instance = source.get("host") or event.get("reportingInstance") or ""
    return [
        last, event.get("type", ""), event.get("reason", ""), target, involved.get("fieldPath", ""),
        f"{component}, {instance}" if instance else component, str(event.get("message", "")).strip(),
        first, count, name_of(event),
    ], []


KIND = KindRules(group="", kind="Event",
                 name_rule="path_segment", qualified_finalizers=False, create=_core_event_errors, create_on_update=True,
                 field_labels=_CORE_FIELD_LABELS, field_values=_core_field_values(), watch_cache=False,
                 printer=print_event, cohabitant=Cohabitant(("events.k8s.io", "events"), convert_event), expires=True)
"""The core v1 Event's declaration (Events are served without a watch cache). Its storage is the
``events.k8s.io`` Event's too, and its objects expire (``--event-ttl``)."""

EVENTS_KIND = KindRules(group="events.k8s.io", kind="Event", invalid_group="", create=_events_v1_errors,
                        update=_events_v1_update_errors, create_on_update=True,
                        field_labels=_EVENTS_FIELD_LABELS, watch_cache=False, printer=print_event,
                        cohabitant=Cohabitant(("", "events"), convert_event))
"""The ``events.k8s.io/v1`` Event's declaration (listed by :mod:`fake_apiserver._registry.events`)."""
