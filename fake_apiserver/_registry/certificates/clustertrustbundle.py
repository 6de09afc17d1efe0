"""ClusterTrustBundles (``certificates.k8s.io``): served by the generic strategy; selected on the
field labels their conversion accepts."""

from fake_apiserver._registry.generic import FieldLabels, KindRules

__all__ = ["KIND"]

KIND = KindRules(group="certificates.k8s.io", kind="ClusterTrustBundle",
                 field_labels=FieldLabels(("spec.signerName",)))
"""The ClusterTrustBundle's declaration."""
