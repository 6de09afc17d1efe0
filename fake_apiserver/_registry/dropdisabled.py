"""Fields a write drops while their feature gate is off, as kube-apiserver's strategies drop them.

A field an alpha (or switched-off) feature adds is stored only while its gate is on: the
registry strategies call ``dropDisabledFields`` in ``PrepareForCreate`` and ``PrepareForUpdate``
(``pkg/registry/core/node/strategy.go``; ``pkg/api/pod/util.go``'s ``DropDisabledPodFields``, which
every pod strategy calls: main resource, ``/status``, ``/resize``). A create drops it; an update
drops it unless the stored object already uses it (the ``...InUse(old)`` checks), so an object
written while the gate was on keeps its field when the gate goes off. Nothing is refused: the
field is silently not stored, which is what a client that sent it sees (the answer lacks it).

Each rule is one row (:data:`NODE_RULES`, :data:`POD_RULES`): the gates that keep the field, the
fields it clears, and what "in use" means on the stored object, all from kube-apiserver v1.37.
A gate the served release does not register is off (:meth:`~fake_apiserver._machinery.features.FeatureGates.enabled`),
which is how those releases behave: their code has no such field, or the gated behaviour off.

Covered, with the v1.37 function each row comes from:

* Node ``spec.podPreemptionPolicy`` (``InPlacePodVerticalScalingSchedulerPreemption``, KEP-5836,
  alpha, off); ``status.declaredFeatures`` (``NodeDeclaredFeatures``); ``status.features``
  (``SupplementalGroupsPolicy``); ``status.runtimeHandlers`` (``RecursiveReadOnlyMounts`` or
  ``UserNamespacesSupport``; no in-use check: dropped whenever both are off).
* Pod ``spec.resources`` (``PodLevelResources``); the containers' ``resizePolicy`` and the
  container statuses' ``resources`` and ``allocatedResources`` (``InPlacePodVerticalScaling``,
  in use when a container of the stored pod has a resize policy); pod-level ``status.resources``
  and ``status.allocatedResources`` (``InPlacePodLevelResourcesVerticalScaling``); the pod's
  ``spec.schedulingGroup`` (v1.36 on) and ``spec.workloadRef`` (v1.35), its reference to a gang
  (``GenericWorkload``).

The other ``dropDisabled*`` functions guard fields no scheduler test sets (host users, proc
mount, probe modes, volume projections, ...) and are not rows here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fake_apiserver._machinery.features import FeatureGates

__all__ = ["NODE_RULES", "POD_RULES", "DropRule", "drop_disabled_fields", "drop_field", "present"]

Obj = dict[str, Any]
Path = tuple[str, ...]

_CONTAINERS = ("containers", "initContainers", "ephemeralContainers")
_CONTAINER_STATUSES = ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses")


def _get(obj: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def present(path: Path) -> Callable[[Obj], bool]:
    """In use when the stored object has the field (Go: a non-nil pointer or slice)."""
    return lambda old: _get(old, path) is not None


def _each(obj: Obj, path: Path, lists: Sequence[str]) -> list[Obj]:
    """The items of the lists named ``lists`` under ``path`` (containers, container statuses)."""
    parent = _get(obj, path)
    if not isinstance(parent, dict):
        return []
    return [item for key in lists for item in (parent.get(key) or []) if isinstance(item, dict)]


def _pop(obj: Obj, path: Path) -> None:
    """Remove the field at ``path``. The maps on its way are copied first: below its top, the
    object a write prepares may share them with the stored one, which never changes."""
    parent = _get(obj, path[:-1])
    if not isinstance(parent, dict) or path[-1] not in parent:
        return
    for key in path[:-1]:
        obj[key] = obj = dict(obj[key])
    obj.pop(path[-1])


def _pop_in_items(obj: Obj, section: str, lists: Sequence[str], fields: Sequence[str]) -> None:
    """Remove ``fields`` from the items of the lists ``lists`` of ``obj[section]`` (containers,
    container statuses), copying what it changes as :func:`_pop` does."""
    parent = obj.get(section)
    if not isinstance(parent, dict):
        return
    copied = False
    for name in lists:
        items = parent.get(name)
        if not isinstance(items, list) or not any(isinstance(i, dict) and any(f in i for f in fields) for i in items):
            continue
        if not copied:
            obj[section] = parent = dict(parent)
            copied = True
        parent[name] = [{k: v for k, v in i.items() if k not in fields} if isinstance(i, dict) else i for i in items]


@dataclass(frozen=True)
class DropRule:
    """One gated field set: dropped unless one of ``gates`` is on or the stored object
    ``in_use`` (``None``: dropped whatever the stored object holds)."""

    gates: tuple[str, ...]
    drop: Callable[[Obj], None]
    in_use: Callable[[Obj], bool] | None
    source: str  # the v1.37 function the rule comes from

    def apply(self, obj: Obj, old: Obj | None, gates: FeatureGates) -> None:
        for gate in self.gates:  # a loop, not any() over a generator: three rules on every pod write
            if gates.enabled(gate):
                return
        if self.in_use is not None and old is not None and self.in_use(old):
            return
        self.drop(obj)


def drop_field(*path: str) -> Callable[[Obj], None]:
    """A rule's ``drop``: remove the field at ``path``."""
    return lambda obj: _pop(obj, path)


def _resize_policies_in_use(old: Obj) -> bool:
    """``inPlacePodVerticalScalingInUse``: a container or init container has a resize policy."""
    return any(c.get("resizePolicy") for c in _each(old, ("spec",), _CONTAINERS[:2]))


def _drop_resize_fields(pod: Obj) -> None:
    _pop_in_items(pod, "spec", _CONTAINERS, ("resizePolicy",))
    _pop_in_items(pod, "status", _CONTAINER_STATUSES, ("resources", "allocatedResources"))


def _pod_level_resources_in_use(old: Obj) -> bool:
    """``podLevelResourcesInUse``: pod-level requests or limits."""
    resources = _get(old, ("spec", "resources"))
    return isinstance(resources, dict) and bool(resources.get("requests") or resources.get("limits"))


def _pod_level_status_in_use(old: Obj) -> bool:
    """``podLevelStatusResourcesInUse``."""
    return _get(old, ("status", "resources")) is not None or _get(old, ("status", "allocatedResources")) is not None


def _drop_pod_level_status(pod: Obj) -> None:
    _pop(pod, ("status", "resources"))
    _pop(pod, ("status", "allocatedResources"))


#: ``dropDisabledFields`` of ``pkg/registry/core/node/strategy.go`` (node create and update).
NODE_RULES = (
    DropRule(("InPlacePodVerticalScalingSchedulerPreemption",), drop_field("spec", "podPreemptionPolicy"),
             present(("spec", "podPreemptionPolicy")), "nodePodPreemptionPolicyInUse"),
    DropRule(("NodeDeclaredFeatures",), drop_field("status", "declaredFeatures"),
             present(("status", "declaredFeatures")), "nodeDeclaredFeaturesInUse"),
    DropRule(("SupplementalGroupsPolicy",), drop_field("status", "features"),
             present(("status", "features")), "supplementalGroupsPolicyInUse"),
    DropRule(("RecursiveReadOnlyMounts", "UserNamespacesSupport"), drop_field("status", "runtimeHandlers"), None,
             "dropDisabledFields (no in-use check)"),
)

#: ``DropDisabledPodFields`` of ``pkg/api/pod/util.go``, as far as resizing and scheduling go.
POD_RULES = (
    DropRule(("PodLevelResources",), drop_field("spec", "resources"), _pod_level_resources_in_use,
             "dropDisabledPodLevelResources"),
    DropRule(("InPlacePodVerticalScaling",), _drop_resize_fields, _resize_policies_in_use,
             "dropDisabledFields, dropDisabledPodStatusFields"),
    DropRule(("InPlacePodLevelResourcesVerticalScaling",), _drop_pod_level_status, _pod_level_status_in_use,
             "dropDisabledPodStatusFields"),
    DropRule(("GenericWorkload",), drop_field("spec", "schedulingGroup"), present(("spec", "schedulingGroup")),
             "dropDisabledSchedulingGroup"),
    DropRule(("GenericWorkload",), drop_field("spec", "workloadRef"), present(("spec", "workloadRef")),
             "dropDisabledWorkloadRef (v1.35)"),
)


def drop_disabled_fields(rules: Sequence[DropRule], obj: Obj, old: Obj | None, gates: FeatureGates) -> None:
    """Apply ``rules`` to ``obj`` (a create when ``old`` is None), in place."""
    for rule in rules:
        rule.apply(obj, old, gates)
