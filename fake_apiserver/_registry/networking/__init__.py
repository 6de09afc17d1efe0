"""The ``networking.k8s.io`` API group: Ingresses, IngressClasses, IPAddresses, NetworkPolicies and
ServiceCIDRs."""

from fake_apiserver._registry.networking import ingress, ingressclass, ipaddress, networkpolicy, servicecidr

__all__ = ["DECLARATIONS"]

DECLARATIONS = (ingress.KIND, ingressclass.KIND, ipaddress.KIND, networkpolicy.KIND, servicecidr.KIND)
"""The declarations of the group's kinds with knowledge of their own."""
