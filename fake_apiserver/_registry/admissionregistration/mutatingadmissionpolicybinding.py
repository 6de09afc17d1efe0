"""MutatingAdmissionPolicyBindings (``admissionregistration.k8s.io/v1``): served by the generic
strategy; their Table rows are the shared
:func:`~.admissionpolicy.print_admission_policy_binding`."""

from fake_apiserver._registry.admissionregistration.admissionpolicy import print_admission_policy_binding
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(group="admissionregistration.k8s.io", kind="MutatingAdmissionPolicyBinding",
                 printer=print_admission_policy_binding)
"""The MutatingAdmissionPolicyBinding's declaration."""
