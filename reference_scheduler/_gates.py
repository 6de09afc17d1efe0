"""Feature gates of the reference scheduler and their one dependency.

Both gates default to on: KEP-5501 graduates ``SchedulerPreEnqueuePodStatus`` straight to beta,
"enabled by default", and "successfully enabling the ``SchedulerPreEnqueuePodStatus`` feature in
v1.35 will depend on re-enabling the ``SchedulerAsyncAPICalls`` feature" (KEP-5501, Proposal). Real
kube-scheduler has ``SchedulerAsyncAPICalls`` off by default since v1.35; the reference scheduler
follows the KEP's beta instead, so that the KEP's behaviour is what runs out of the box.

"The enablement of this feature will be dependent on the ``SchedulerAsyncAPICalls`` feature gate
being enabled" (KEP-5501, Proposal): enabling the first without the second is refused at startup
with :data:`DEPENDENCY_MESSAGE`, not silently ignored. The parse errors copy component-base's
``featuregate`` wording (``unrecognized feature gate: %s``, ``invalid value of %s=%s, err: %v``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ASYNC_API_CALLS",
    "DEPENDENCY_MESSAGE",
    "PRE_ENQUEUE_POD_STATUS",
    "FeatureGateError",
    "FeatureGates",
    "parse_feature_gates",
]

PRE_ENQUEUE_POD_STATUS = "SchedulerPreEnqueuePodStatus"
ASYNC_API_CALLS = "SchedulerAsyncAPICalls"
DEPENDENCY_MESSAGE = (
    "invalid feature gates: SchedulerPreEnqueuePodStatus=true requires SchedulerAsyncAPICalls=true"
)


class FeatureGateError(ValueError):
    """A ``--feature-gates`` value the scheduler refuses to start with."""


@dataclass(frozen=True)
class FeatureGates:
    pre_enqueue_pod_status: bool = True
    async_api_calls: bool = True

    def validate(self) -> FeatureGates:
        """Raise :class:`FeatureGateError` on the KEP's gate dependency; return self otherwise."""
        if self.pre_enqueue_pod_status and not self.async_api_calls:
            raise FeatureGateError(DEPENDENCY_MESSAGE)
        return self

    def format(self) -> str:
        return (
            f"{ASYNC_API_CALLS}={str(self.async_api_calls).lower()},"
            f"{PRE_ENQUEUE_POD_STATUS}={str(self.pre_enqueue_pod_status).lower()}"
        )


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
    values = {
        PRE_ENQUEUE_POD_STATUS: (base or FeatureGates()).pre_enqueue_pod_status,
        ASYNC_API_CALLS: (base or FeatureGates()).async_api_calls,
    }
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
    gates = FeatureGates(pre_enqueue_pod_status=values[PRE_ENQUEUE_POD_STATUS], async_api_calls=values[ASYNC_API_CALLS])
    return gates.validate() if validate else gates
