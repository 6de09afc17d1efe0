"""The ``rbac.authorization.k8s.io`` API group: its role bindings' Tables (:mod:`.rolebinding`,
:mod:`.clusterrolebinding`); roles and cluster roles have nothing of their own here."""

from fake_apiserver._registry.rbac import clusterrolebinding, rolebinding

__all__ = ["DECLARATIONS"]

DECLARATIONS = (clusterrolebinding.KIND, rolebinding.KIND)
"""The declarations of the group's kinds with knowledge of their own."""
