"""The ``pods/resize`` subresource (in-place pod resize): a write of a pod's container resources.

The rules are the pod's (:mod:`~fake_apiserver._registry.core.pod.resize`): what the write keeps of the
body (``podResizeStrategy.PrepareForUpdate``), how it is validated (``ValidatePodResize``) and the
``PodResizeValidator`` admission plugin, which reads the pod's node
(:data:`~fake_apiserver._registry.serverkinds.NODES`). :data:`RESIZE` is that write's steps for
the store (:mod:`~fake_apiserver._storage.subresources.update`); the server's feature gates decide
what may be resized.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._registry.core.pod import resize as rules
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.serverkinds import NODES

__all__ = ["RESIZE", "ResizeSteps"]

Obj = dict[str, Any]


class ResizeSteps:
    """A write through ``/resize``: the resize rules in place of the strategy's."""

    def prepare(self, strategy: Strategy, obj: Obj, old: Obj, now: str, features: FeatureGates) -> None:
        rules.prepare_for_resize(obj, old, features)

    def validate(self, strategy: Strategy, obj: Obj, old: Obj, features: FeatureGates) -> list[FieldError]:
        return rules.validate_resize(obj, old, features)

    def admit(self, strategy: Strategy, obj: Obj, old: Obj,
              objects: Callable[[tuple[str, str]], Mapping[tuple[str, str], Obj]]) -> None:
        nodes = objects((NODES.group, NODES.resource))
        rules.admit_resize(obj, old, lambda name: nodes.get(("", name)))


RESIZE = ResizeSteps()
