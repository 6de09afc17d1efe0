"""ClusterTrustBundles (``certificates.k8s.io``): served by the generic strategy; selected on the
field labels their conversion accepts; the cells of their Table rows (:func:`print_cluster_trust_bundle`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import FieldLabels, KindRules
from fake_apiserver._registry.printing import Cells, at, name_of

__all__ = ["KIND", "print_cluster_trust_bundle"]

Obj = dict[str, Any]


def print_cluster_trust_bundle(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), at(obj, "spec", "signerName") or "<none>"], []


KIND = KindRules(group="certificates.k8s.io", kind="ClusterTrustBundle",
                 field_labels=FieldLabels(("spec.signerName",)), printer=print_cluster_trust_bundle)
"""The ClusterTrustBundle's declaration."""
