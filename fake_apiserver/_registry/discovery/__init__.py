"""The ``discovery.k8s.io`` API group: EndpointSlices."""

from fake_apiserver._registry.discovery import endpointslice

__all__ = ["DECLARATIONS"]

DECLARATIONS = (endpointslice.KIND,)
"""The declarations of the group's kinds with rules of their own."""
