"""ClusterRoleBindings (``rbac.authorization.k8s.io/v1``): served by the generic strategy; their
Table rows have a RoleBinding's cells (:func:`~.rolebinding.print_role_binding`)."""

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.rbac.rolebinding import print_role_binding

__all__ = ["KIND"]

KIND = KindRules(group="rbac.authorization.k8s.io", kind="ClusterRoleBinding", printer=print_role_binding)
"""The ClusterRoleBinding's declaration."""
