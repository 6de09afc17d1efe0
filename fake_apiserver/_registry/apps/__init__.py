"""The ``apps`` API group: one module per workload kind, and what they share (:mod:`.workload`);
ControllerRevisions, which have a Table's printer only (:mod:`.controllerrevision`).

A workload's pod template gets the pod template's defaults and rules
(:mod:`~fake_apiserver._registry.core.pod.template`)."""

from fake_apiserver._registry.apps import controllerrevision, daemonset, deployment, replicaset, statefulset

__all__ = ["DECLARATIONS"]

DECLARATIONS = (controllerrevision.KIND, daemonset.KIND, deployment.KIND, replicaset.KIND, statefulset.KIND)
"""The declarations of the group's kinds with knowledge of their own."""
