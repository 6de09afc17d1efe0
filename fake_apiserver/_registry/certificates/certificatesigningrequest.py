"""CertificateSigningRequests (``certificates.k8s.io``): served by the generic strategy; selected
on the field labels their conversion accepts; the cells of their Table rows
(:func:`print_certificate_signing_request`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import FieldLabels, KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, count_of, human_duration, name_of

__all__ = ["KIND", "print_certificate_signing_request"]

Obj = dict[str, Any]


def print_certificate_signing_request(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    types = {c.get("type") for c in at(obj, "status", "conditions") or []}
    state = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        state += ",Failed"
    if at(obj, "status", "certificate"):
        state += ",Issued"
    seconds = spec.get("expirationSeconds")
    return [name_of(obj), age_of(obj, now), spec.get("signerName") or "<none>", spec.get("username", ""),
            "<none>" if seconds is None else human_duration(count_of(seconds)), state], []


KIND = KindRules(group="certificates.k8s.io", kind="CertificateSigningRequest",
                 field_labels=FieldLabels(("spec.signerName",)), printer=print_certificate_signing_request)
"""The CertificateSigningRequest's declaration."""
