"""The ``status`` subresource: a write of an object's status, the same for every kind that has one.

kube-apiserver serves ``<kind>/status`` with the kind's status strategy (``PrepareForUpdate``
keeps the stored object but its status, ``ValidateUpdate`` checks the status), and runs no
admission plugin of the main resource on it. :data:`STATUS` is that write's steps for the store
(:mod:`~fake_apiserver._storage.subresources.update`): each kind's strategy says what its status
write keeps and checks (:meth:`~fake_apiserver._registry.generic.Strategy.prepare_for_status_update`,
:meth:`~fake_apiserver._registry.generic.Strategy.validate_status_update`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._registry.generic import Strategy

__all__ = ["STATUS", "StatusSteps"]

Obj = dict[str, Any]


class StatusSteps:
    """A write through ``/status``: the strategy's status rules, no admission."""

    def prepare(self, strategy: Strategy, obj: Obj, old: Obj, now: str, features: FeatureGates) -> None:
        strategy.prepare_for_status_update(obj, old, now)

    def validate(self, strategy: Strategy, obj: Obj, old: Obj, features: FeatureGates) -> list[FieldError]:
        return strategy.validate_status_update(obj, old)

    def admit(self, strategy: Strategy, obj: Obj, old: Obj,
              objects: Callable[[tuple[str, str]], Mapping[tuple[str, str], Obj]]) -> None:
        pass


STATUS = StatusSteps()
