"""The ``node.k8s.io`` API group: RuntimeClasses."""

from fake_apiserver._registry.node import runtimeclass

__all__ = ["DECLARATIONS"]

DECLARATIONS = (runtimeclass.KIND,)
"""The declarations of the group's kinds with knowledge of their own."""
