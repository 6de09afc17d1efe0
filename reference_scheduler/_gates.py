"""Feature gates of the reference scheduler and their dependencies.

Both gates default to on: KEP-5501 graduates ``SchedulerPreEnqueuePodStatus`` straight to beta,
"enabled by default", and "successfully enabling the ``SchedulerPreEnqueuePodStatus`` feature in
v1.35 will depend on re-enabling the ``SchedulerAsyncAPICalls`` feature" (KEP-5501, Proposal). Real
kube-scheduler has ``SchedulerAsyncAPICalls`` off by default since v1.35; the reference scheduler
follows the KEP's beta instead, so that the KEP's behaviour is what runs out of the box.

"The enablement of this feature will be dependent on the ``SchedulerAsyncAPICalls`` feature gate
being enabled" (KEP-5501, Proposal): enabling the first without the second is refused at startup
with :data:`DEPENDENCY_MESSAGE`, not silently ignored. The parse errors copy component-base's
``featuregate`` wording (``unrecognized feature gate: %s``, ``invalid value of %s=%s, err: %v``).

KEP-5836 adds two gates of kube-scheduler (``pkg/features/kube_features.go``):
``InPlacePodVerticalScaling`` (KEP-1287, GA since v1.35, on by default: the scheduler counts a
pod's status resources, :func:`reference_scheduler._resources.pod_requests`) and
``InPlacePodVerticalScalingSchedulerPreemption`` (alpha since v1.37, off by default: preemption for
a Deferred resize, :mod:`reference_scheduler._resize`), which needs the first. Enabling it without
``InPlacePodVerticalScaling`` is refused with :data:`RESIZE_DEPENDENCY_MESSAGE`, component-base's
dependency error (``%s is enabled, but depends on features that are disabled: %v``) after the
prefix of the KEP-5501 one.

``GenericWorkload`` (KEP-4671, beta and off by default in v1.37, ``pkg/features/kube_features.go``)
turns on gang scheduling of ``scheduling.k8s.io/v1beta1`` PodGroups
(:mod:`reference_scheduler._gang`): off, a pod's ``spec.schedulingGroup`` is ignored and the
scheduler neither lists nor watches PodGroups, as kube-scheduler registers no PodGroup informer then.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ASYNC_API_CALLS",
    "DEPENDENCY_MESSAGE",
    "GENERIC_WORKLOAD",
    "IN_PLACE_POD_VERTICAL_SCALING",
    "PRE_ENQUEUE_POD_STATUS",
    "RESIZE_DEPENDENCY_MESSAGE",
    "RESIZE_PREEMPTION",
    "FeatureGateError",
    "FeatureGates",
    "parse_feature_gates",
]

PRE_ENQUEUE_POD_STATUS = "SchedulerPreEnqueuePodStatus"
ASYNC_API_CALLS = "SchedulerAsyncAPICalls"
IN_PLACE_POD_VERTICAL_SCALING = "InPlacePodVerticalScaling"
RESIZE_PREEMPTION = "InPlacePodVerticalScalingSchedulerPreemption"
GENERIC_WORKLOAD = "GenericWorkload"
DEPENDENCY_MESSAGE = (
    "invalid feature gates: SchedulerPreEnqueuePodStatus=true requires SchedulerAsyncAPICalls=true"
)
RESIZE_DEPENDENCY_MESSAGE = (
    "invalid feature gates: InPlacePodVerticalScalingSchedulerPreemption is enabled, but depends on features "
    "that are disabled: [InPlacePodVerticalScaling]"
)


class FeatureGateError(ValueError):
    """A ``--feature-gates`` value the scheduler refuses to start with."""


@dataclass(frozen=True)
class FeatureGates:
    pre_enqueue_pod_status: bool = True
    async_api_calls: bool = True
    in_place_pod_vertical_scaling: bool = True
    resize_preemption: bool = False
    generic_workload: bool = False

    def validate(self) -> FeatureGates:
        """Raise :class:`FeatureGateError` on a gate dependency; return self otherwise."""
        if self.pre_enqueue_pod_status and not self.async_api_calls:
            raise FeatureGateError(DEPENDENCY_MESSAGE)
        if self.resize_preemption and not self.in_place_pod_vertical_scaling:
            raise FeatureGateError(RESIZE_DEPENDENCY_MESSAGE)
        return self

    def values(self) -> dict[str, bool]:
        """Every gate by its name."""
        return {
            PRE_ENQUEUE_POD_STATUS: self.pre_enqueue_pod_status,
            ASYNC_API_CALLS: self.async_api_calls,
            IN_PLACE_POD_VERTICAL_SCALING: self.in_place_pod_vertical_scaling,
            RESIZE_PREEMPTION: self.resize_preemption,
            GENERIC_WORKLOAD: self.generic_workload,
        }

    def format(self) -> str:
        """``A=true,B=false``, every gate, names sorted."""
        return ",".join(f"{name}={str(on).lower()}" for name, on in sorted(self.values().items()))


def _parse_bool(name: str, raw: str) -> bool:
    """Go's ``strconv.ParseBool``, which component-base uses."""
    if raw in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if raw in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise FeatureGateError(
        f'invalid value of {name}={raw}, err: strconv.ParseBool: parsing "{raw}": invalid syntax'
    )


def parse_feature_gates(spec: str, base: FeatureGates | None = None, *, validate: bool = True) -> FeatureGates:
    """``A=true,B=false`` on top of ``base`` (the defaults), validated unless ``validate`` is
    False (only the ``ignores-gate-dependency`` mutant)."""
    values = (base or FeatureGates()).values()
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep:
            raise FeatureGateError(f"missing bool value for {name}")
        if name not in values:
            raise FeatureGateError(f"unrecognized feature gate: {name}")
        values[name] = _parse_bool(name, raw.strip())
    gates = FeatureGates(
        pre_enqueue_pod_status=values[PRE_ENQUEUE_POD_STATUS],
        async_api_calls=values[ASYNC_API_CALLS],
        in_place_pod_vertical_scaling=values[IN_PLACE_POD_VERTICAL_SCALING],
        resize_preemption=values[RESIZE_PREEMPTION],
        generic_workload=values[GENERIC_WORKLOAD],
    )
    return gates.validate() if validate else gates
