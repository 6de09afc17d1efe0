"""The ``apiregistration.k8s.io`` API group: APIServices (the fake aggregates no other server)."""

from fake_apiserver._registry.apiregistration import apiservice

__all__ = ["DECLARATIONS"]

DECLARATIONS = (apiservice.KIND,)
"""The declarations of the group's kinds with knowledge of their own."""
