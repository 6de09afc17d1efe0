"""PodCertificateRequests (``certificates.k8s.io``): served by the generic strategy; selected on
the field labels their conversion accepts."""

from fake_apiserver._registry.generic import FieldLabels, KindRules

__all__ = ["KIND"]

KIND = KindRules(group="certificates.k8s.io", kind="PodCertificateRequest",
                 field_labels=FieldLabels(("spec.signerName", "spec.podName", "spec.nodeName")))
"""The PodCertificateRequest's declaration."""
