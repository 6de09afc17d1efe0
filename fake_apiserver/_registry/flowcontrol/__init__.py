"""The ``flowcontrol.apiserver.k8s.io`` API group: FlowSchemas and PriorityLevelConfigurations,
whose Tables are their own (the fake limits no request's rate)."""

from fake_apiserver._registry.flowcontrol import flowschema, prioritylevelconfiguration

__all__ = ["DECLARATIONS"]

DECLARATIONS = (flowschema.KIND, prioritylevelconfiguration.KIND)
"""The declarations of the group's kinds with knowledge of their own."""
