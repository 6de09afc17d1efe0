"""The ``scheduling.k8s.io`` API group: PriorityClasses (:mod:`.priorityclass`); the gangs of
workload-aware scheduling, Workloads (:mod:`.workload`) and PodGroups (:mod:`.podgroup`), with
the declarative rules they share (:mod:`.workloadrules`)."""

from fake_apiserver._registry.scheduling import podgroup, priorityclass, workload

__all__ = ["DECLARATIONS"]

DECLARATIONS = (priorityclass.KIND, workload.KIND, podgroup.KIND)
"""The declarations of the group's kinds with rules of their own."""
