"""The field labels a pod is selected on (``pkg/apis/core/v1`` field label conversion) and how the
labels that are no plain path read a pod (``pod.ToSelectableFields``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.kindspec import FieldValue
from fake_apiserver._machinery.selectors import go_value_field, render_value, value_at
from fake_apiserver._registry.generic import FieldLabels

__all__ = ["FIELD_LABELS", "FIELD_VALUES"]

FIELD_LABELS = FieldLabels(
    ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
     "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"),
    aliases={"spec.host": "spec.nodeName"})
"""The labels a pod's conversion accepts beyond ``metadata.*``."""


def _pod_ip(obj: Mapping[str, Any]) -> str:
    ips = value_at(obj, "status.podIPs") or []
    if ips and isinstance(ips[0], Mapping):
        return render_value(ips[0].get("ip"))
    return render_value(value_at(obj, "status.podIP"))  # v1 -> internal conversion fills podIPs from podIP


FIELD_VALUES: Mapping[str, FieldValue] = {
    "spec.hostNetwork": go_value_field("spec.hostNetwork", "false"),
    "status.podIP": _pod_ip,
    "status.podIPs": lambda obj: "",  # accepted by conversion, absent from ToSelectableFields
}
"""The labels whose value is not the text at their path."""
