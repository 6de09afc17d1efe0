"""PodCertificateRequests (``certificates.k8s.io``): served by the generic strategy; selected on
the field labels their conversion accepts; the cells of their Table rows
(:func:`print_pod_certificate_request`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import FieldLabels, KindRules
from fake_apiserver._registry.printing import Cells, at, condition, format_labels, name_of

__all__ = ["KIND", "print_pod_certificate_request"]

Obj = dict[str, Any]


def print_pod_certificate_request(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    state = "Pending"
    for type_ in ("Denied", "Failed"):
        if condition(obj, type_) is not None:
            state = type_
    if at(obj, "status", "certificateChain"):
        state = "Issued"
    annotations = spec.get("unverifiedUserAnnotations") or {}
    return [name_of(obj), spec.get("podName", ""), spec.get("serviceAccountName", ""), spec.get("nodeName", ""),
            spec.get("signerName", ""), state, format_labels(annotations)], []


KIND = KindRules(group="certificates.k8s.io", kind="PodCertificateRequest",
                 field_labels=FieldLabels(("spec.signerName", "spec.podName", "spec.nodeName")),
                 printer=print_pod_certificate_request)
"""The PodCertificateRequest's declaration."""
