"""The ``scheduling.k8s.io`` API group: PriorityClasses (:mod:`.priorityclass`)."""

from fake_apiserver._registry.scheduling import priorityclass

__all__ = ["DECLARATIONS"]

DECLARATIONS = (priorityclass.KIND,)
"""The declarations of the group's kinds with rules of their own."""
