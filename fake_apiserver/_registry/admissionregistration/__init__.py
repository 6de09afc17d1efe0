"""The ``admissionregistration.k8s.io`` API group: the two webhook configuration kinds, over one
shared strategy (:mod:`.webhookconfiguration`)."""

from fake_apiserver._registry.admissionregistration import (
    mutatingwebhookconfiguration,
    validatingwebhookconfiguration,
)

__all__ = ["DECLARATIONS"]

DECLARATIONS = (mutatingwebhookconfiguration.KIND, validatingwebhookconfiguration.KIND)
"""The declarations of the group's kinds with rules of their own."""
