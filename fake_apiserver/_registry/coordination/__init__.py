"""The ``coordination.k8s.io`` API group: Leases."""

from fake_apiserver._registry.coordination import lease

__all__ = ["DECLARATIONS"]

DECLARATIONS = (lease.KIND,)
"""The declarations of the group's kinds with rules of their own."""
