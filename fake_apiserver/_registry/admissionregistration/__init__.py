"""The ``admissionregistration.k8s.io`` API group: the two webhook configuration kinds, over one
shared strategy (:mod:`.webhookconfiguration`), and the admission policies and their bindings,
whose Tables share their cells (:mod:`.admissionpolicy`). The fake calls no webhook and evaluates
no policy."""

from fake_apiserver._registry.admissionregistration import (
    mutatingadmissionpolicy,
    mutatingadmissionpolicybinding,
    mutatingwebhookconfiguration,
    validatingadmissionpolicy,
    validatingadmissionpolicybinding,
    validatingwebhookconfiguration,
)

__all__ = ["DECLARATIONS"]

DECLARATIONS = (
    mutatingadmissionpolicy.KIND, mutatingadmissionpolicybinding.KIND, mutatingwebhookconfiguration.KIND,
    validatingadmissionpolicy.KIND, validatingadmissionpolicybinding.KIND, validatingwebhookconfiguration.KIND,
)
"""The declarations of the group's kinds with knowledge of their own."""
