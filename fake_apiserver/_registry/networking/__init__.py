"""The ``networking.k8s.io`` API group: Ingresses and NetworkPolicies."""

from fake_apiserver._registry.networking import ingress, networkpolicy

__all__ = ["DECLARATIONS"]

DECLARATIONS = (ingress.KIND, networkpolicy.KIND)
"""The declarations of the group's kinds with rules of their own."""
