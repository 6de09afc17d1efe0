"""The ``policy`` API group: PodDisruptionBudgets."""

from fake_apiserver._registry.policy import poddisruptionbudget

__all__ = ["DECLARATIONS"]

DECLARATIONS = (poddisruptionbudget.KIND,)
"""The declarations of the group's kinds with rules of their own."""
