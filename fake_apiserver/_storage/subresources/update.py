"""The steps of an update, by the subresource it is written through.

An update of a stored object (``rest.BeforeUpdate``) prepares the new object from the body and the
stored one, validates it, and runs the validating admission plugins; which rules do each depends on
where the write comes in, as kube-apiserver serves each subresource with a strategy of its own.
:func:`update_steps` gives the store the steps of a write through the main resource (the kind's
strategy and its admission), ``status`` (:mod:`.status`), ``resize`` (:mod:`.resize`), or another
subresource written as an object (``ephemeralcontainers``, ``approval``, ``finalize``: the
kind's update rules, without the main resource's admission).

Each step is handed what it may need: the kind's strategy, the server's feature gates and, for
admission, the stored objects of a resource (``objects((group, plural))``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._storage.subresources.resize import RESIZE
from fake_apiserver._storage.subresources.status import STATUS

__all__ = ["MAIN", "Objects", "UpdateSteps", "update_steps"]

Obj = dict[str, Any]
Objects = Callable[[tuple[str, str]], Mapping[tuple[str, str], Obj]]
"""The stored objects of a resource (group, plural) by namespace and name."""


class UpdateSteps(Protocol):
    """How an update through one (sub)resource prepares, validates and admits the new object."""

    def prepare(self, strategy: Strategy, obj: Obj, old: Obj, now: str, features: FeatureGates) -> None:
        """Make ``obj`` what is written from the body and the stored ``old`` (``PrepareForUpdate``)."""

    def validate(self, strategy: Strategy, obj: Obj, old: Obj, features: FeatureGates) -> list[FieldError]:
        """The write's errors (``ValidateUpdate``), after the ObjectMeta checks."""
        ...

    def admit(self, strategy: Strategy, obj: Obj, old: Obj, objects: Objects) -> None:
        """The validating admission plugins: raise to refuse."""


class MainSteps:
    """A write of the object itself: the kind's strategy, then its validating admission."""

    def prepare(self, strategy: Strategy, obj: Obj, old: Obj, now: str, features: FeatureGates) -> None:
        strategy.prepare_for_update(obj, old)

    def validate(self, strategy: Strategy, obj: Obj, old: Obj, features: FeatureGates) -> list[FieldError]:
        return strategy.validate_update(obj, old)

    def admit(self, strategy: Strategy, obj: Obj, old: Obj, objects: Objects) -> None:
        strategy.validate_admission(obj, old)


class OtherSteps(MainSteps):
    """A write through a subresource without rules of its own: the kind's update rules, and
    none of the main resource's admission."""

    def admit(self, strategy: Strategy, obj: Obj, old: Obj, objects: Objects) -> None:
        pass


MAIN = MainSteps()
_OTHER = OtherSteps()
_STEPS: dict[str | None, UpdateSteps] = {None: MAIN, "status": STATUS, "resize": RESIZE}


def update_steps(subresource: str | None) -> UpdateSteps:
    """The steps of an update through ``subresource`` (None: the main resource)."""
    return _STEPS.get(subresource, _OTHER)
