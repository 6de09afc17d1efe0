"""The ``autoscaling`` API group: HorizontalPodAutoscalers (served at ``autoscaling/v2``)."""

from fake_apiserver._registry.autoscaling import horizontalpodautoscaler

__all__ = ["DECLARATIONS"]

DECLARATIONS = (horizontalpodautoscaler.KIND,)
"""The declarations of the group's kinds with rules of their own."""
