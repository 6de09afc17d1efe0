"""The ``resource.k8s.io`` API group (dynamic resource allocation): one module per kind, and the
claim spec that claims and their templates share (:mod:`.claimspec`)."""

from fake_apiserver._registry.resource import (
    deviceclass,
    devicetaintrule,
    resourceclaim,
    resourceclaimtemplate,
    resourceslice,
)

__all__ = ["DECLARATIONS"]

DECLARATIONS = (
    deviceclass.KIND, devicetaintrule.KIND, resourceclaim.KIND, resourceclaimtemplate.KIND, resourceslice.KIND,
)
"""The declarations of the group's kinds with rules of their own."""
