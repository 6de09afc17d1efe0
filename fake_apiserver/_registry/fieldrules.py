"""Field rules several kinds share, with the real server's messages: ``metav1.Condition``
lists, label maps, a workload's selector against its template (and a label selector as Go prints
it), non-negative counts, container ports, qualified names, and the small helpers every rule module
uses (an error list without repeats: :func:`dedupe`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fake_apiserver._machinery.equality import semantic_omitzero
from fake_apiserver._machinery.errors import BadRequest, FieldError, GoJSON
from fake_apiserver._machinery.names import is_label_value, is_qualified_name
from fake_apiserver._machinery.selectors import label_selector_from_dict

__all__ = ["condition_errors", "container_port_errors", "dedupe", "get_in", "go_selector", "immutable_errors",
           "invalid_each", "labels_errors", "non_negative_errors", "qualified_name_errors", "selector_matches",
           "selector_template_errors", "template_mismatch",
           "unsupported_errors"]

Obj = dict[str, Any]


def get_in(obj: Any, *keys: str) -> Any:
    for key in keys:
        if type(obj) is not dict and not isinstance(obj, Mapping):  # a dict is told at once
            return None
        obj = obj.get(key)
    return obj


def invalid_each(path: str, value: Any, messages: Sequence[str]) -> list[FieldError]:
    if not messages:  # most values are valid: no comprehension to run
        return []
    return [FieldError.invalid(path, value, m) for m in messages]


def qualified_name_errors(value: str, path: str) -> list[FieldError]:
    """``ValidateQualifiedName``: one ``Invalid`` per reason."""
    return invalid_each(path, value, is_qualified_name(value))


def dedupe(errors: list[FieldError]) -> list[FieldError]:
    """``ErrorList.ToAggregate`` drops errors whose text repeats; so do we, keeping the first."""
    seen: set[str] = set()
    out = []
    for error in errors:
        if error.render() not in seen:
            seen.add(error.render())
            out.append(error)
    return out


def immutable_errors(new: Any, old: Any, path: str) -> list[FieldError]:
    if semantic_omitzero(new) != semantic_omitzero(old):
        return [FieldError.invalid(path, new, "field is immutable")]
    return []


_CONDITION_STATUSES = ["False", "True", "Unknown"]


_REASON = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")


_REASON_ERROR = ("a condition reason must start with alphabetic character, optionally followed by a string of "
                 "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
                 "'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used "
                 "for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')")


def condition_errors(conditions: Any, path: str) -> list[FieldError]:
    """``ValidateConditions`` of ``metav1.Condition`` lists (a budget's status, among others):
    each condition's type (a qualified name, once), status, observed generation, transition
    time, reason and message."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions if isinstance(conditions, list) else []):
        condition = condition if isinstance(condition, Mapping) else {}
        at = f"{path}[{i}]"
        kind = str(condition.get("type") or "")
        if kind in seen:
            errors.append(FieldError.duplicate(f"{at}.type", kind))
        seen.add(kind)
        errors += invalid_each(f"{at}.type", kind, is_qualified_name(kind))
        status = condition.get("status") or ""
        if status not in _CONDITION_STATUSES:
            errors.append(FieldError.not_supported(f"{at}.status", status, _CONDITION_STATUSES))
        generation = condition.get("observedGeneration") or 0
        if isinstance(generation, int) and generation < 0:
            errors.append(FieldError.invalid(f"{at}.observedGeneration", generation, "must be greater than or equal to zero"))
        if not condition.get("lastTransitionTime"):
            errors.append(FieldError.required(f"{at}.lastTransitionTime"))
        reason = str(condition.get("reason") or "")
        if not reason:
            errors.append(FieldError.required(f"{at}.reason"))
        else:
            if not _REASON.fullmatch(reason):
                errors.append(FieldError.invalid(f"{at}.reason", reason, _REASON_ERROR))
            if len(reason.encode()) > 1024:
                errors.append(FieldError("FieldValueTooLong", f"{at}.reason", "may not be more than 1024 bytes"))
        if len(str(condition.get("message") or "").encode()) > 32768:
            errors.append(FieldError("FieldValueTooLong", f"{at}.message", "may not be more than 32768 bytes"))
    return errors


def labels_errors(labels: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: keys and values, reported at the map's path (no key subscript)."""
    errors: list[FieldError] = []
    for key, value in (labels or {}).items():
        key_messages, value_messages = _label_messages(key, str(value))
        if key_messages:
            errors += invalid_each(path, key, key_messages)
        if value_messages:
            errors += invalid_each(path, value, value_messages)
    return errors


@functools.lru_cache(maxsize=4096)
def _label_messages(key: str, value: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What is wrong with a label's key and with its value: the labels of one workload's objects
    are checked once."""
    return tuple(is_qualified_name(key)), tuple(is_label_value(value))


def template_mismatch(labels: Any) -> FieldError:
    return FieldError.invalid("spec.template.metadata.labels", labels or {}, "`selector` does not match template `labels`")


def selector_template_errors(obj: Mapping[str, Any], kind: str) -> list[FieldError]:
    """A workload's ``spec.selector`` (a LabelSelector) is not empty and selects its template's
    labels; ``kind`` names the workload in the empty-selector message."""
    spec = get_in(obj, "spec") or {}
    selector = spec.get("selector")
    if not isinstance(selector, Mapping):
        return []
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return [FieldError.invalid("spec.selector", dict(selector), f"empty selector is invalid for {kind}")]
    labels = get_in(spec, "template", "metadata", "labels") or {}
    try:
        matches = label_selector_from_dict(selector).matches(labels)
    except BadRequest:
        matches = True  # a selector that does not parse is reported by its own rule, not here
    return [] if matches else [template_mismatch(labels)]


def selector_matches(selector: Any, labels: Any) -> bool:
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``: a missing selector matches
    nothing; one that does not parse counts as matching (its own rule reports it)."""
    if not isinstance(selector, Mapping):
        return False
    try:
        return label_selector_from_dict(selector).matches(labels if isinstance(labels, Mapping) else {})
    except BadRequest:
        return True


def go_selector(selector: Any) -> GoJSON:
    """A ``*metav1.LabelSelector`` as Go encodes it (its JSON tags: ``matchLabels`` first)."""
    parts = []
    if isinstance(selector, Mapping):
        for key in ("matchLabels", "matchExpressions"):
            if selector.get(key):
                parts.append(f"{json.dumps(key)}:{json.dumps(selector[key], sort_keys=True, separators=(',', ':'))}")
    return GoJSON("{" + ",".join(parts) + "}")


def non_negative_errors(obj: Mapping[str, Any], *keys: str) -> list[FieldError]:
    """``ValidateNonnegativeField`` on each ``spec.<key>``, in the order given (each kind's
    validator checks ``replicas`` and ``minReadySeconds`` in its own order)."""
    errors: list[FieldError] = []
    for key in keys:
        value = get_in(obj, "spec", key)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            errors.append(FieldError.invalid(f"spec.{key}", value, "must be greater than or equal to 0"))
    return errors


_PROTOCOLS = ["SCTP", "TCP", "UDP"]


def container_port_errors(ports: Any, path: str) -> list[FieldError]:
    """``validateContainerPorts``: a container port in range, a host port in range when set, a
    known protocol."""
    errors: list[FieldError] = []
    for i, port in enumerate(ports if isinstance(ports, list) else []):
        if not isinstance(port, Mapping):
            continue
        number = port.get("containerPort") or 0
        if number == 0:
            errors.append(FieldError.required(f"{path}[{i}].containerPort"))
        elif isinstance(number, int) and not 1 <= number <= 65535:
            errors.append(FieldError.invalid(f"{path}[{i}].containerPort", number, "must be between 1 and 65535, inclusive"))
        host = port.get("hostPort") or 0
        if isinstance(host, int) and host != 0 and not 1 <= host <= 65535:
            errors.append(FieldError.invalid(f"{path}[{i}].hostPort", host, "must be between 1 and 65535, inclusive"))
        protocol = port.get("protocol")
        if protocol is not None and protocol not in _PROTOCOLS:
            errors.append(FieldError.not_supported(f"{path}[{i}].protocol", protocol, _PROTOCOLS))
    return errors


def unsupported_errors(obj: Mapping[str, Any], dotted: str, supported: list[str]) -> list[FieldError]:
    value = get_in(obj, *dotted.split("."))
    if value is None or value in supported:
        return []
    return [FieldError.not_supported(dotted, value, supported)]
