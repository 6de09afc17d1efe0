"""DRA claim lag: a pod waits for its ResourceClaim, which appears early, late, or never.

The DynamicResources PreEnqueue plugin rejects a pod whose claim is not in the scheduler's
informer-backed cache with ``could not find ResourceClaim "<ns>/<claim>"`` (``k8s-semantics.md``
B.4). KEP-5501's user story "Diagnosing the Pods using DRA" is exactly this wait: a condition on
the pod when the claim stays missing, and no noise when it "resolves in seconds". The claim
appears before the pod, within the 5 s delay, after it, or never; and, with the fault
``WatchLag`` on ``resourceclaims.resource.k8s.io``, it exists at once but reaches the scheduler's
watch only seconds later (the "cache propagation delays" the delay is chosen for).

The claims are allocatable, for any scheduler: a DeviceClass ``gpu.example.com`` selecting the
driver ``gpu.example.com`` with CEL, and a ResourceSlice publishing four devices of that driver on
node ``n1`` (valid ``resource.k8s.io/v1`` objects, as a real kube-scheduler's allocator needs
them); each claim asks for one device of that class, with the fields the real API server
defaults written out (:func:`create_claim`).

The scheduling part (the pod is bound once the claim is visible, and a claim that shows up within
the delay costs no status patch of ``PodScheduled`` and no event) holds for today's
kube-scheduler too; the criteria that expect a ``NotReadyForScheduling`` condition hold only for a
KEP-5501 scheduler.
"""

from __future__ import annotations

from typing import Any

import pytest

from fake_apiserver import FaultRule, Match, WatchLag
from harness import Scenario
from suites._readings import READINGS
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    create_claim,
    dra_cluster,
    event_lines,
    events,
    journal_lines,
    missing_claim,
    require_faults,
    sets_not_ready,
    status_patches,
    watch_span,
    writes_pod_scheduled,
)

__all__: list[str] = []

Obj = dict[str, Any]

DELAY = 5.0  # "The delay value will be hardcoded to a default of 5 seconds"
GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
DEVICE_CLASS = "gpu.example.com"  # also the driver's name (suites._support.add_devices)
CLAIMS = "resourceclaims.resource.k8s.io"


# ---------------------------------------------------------------------- local helpers


def expect_no_not_ready_events(scenario: Scenario, pod: str) -> None:
    seen = events(scenario, pod, NOT_READY)
    assert not seen, (
        f"expected no NotReadyForScheduling event for {scenario.namespace}/{pod} (the rejection resolved within the "
        f"delay); found {len(seen)}:\n{event_lines(seen)}")


def expect_one_not_ready_patch_and_event(scenario: Scenario, pod: str, at: float) -> None:
    """Exactly one status patch writing the condition, answered 200, at ``at``; one event."""
    patches = status_patches(scenario, pod)
    setting = [e for e in patches if sets_not_ready(e)]
    assert len(setting) == 1 and setting[0].code == 200 and at - 0.1 <= setting[0].time <= at + 0.2, (
        f"expected exactly one status patch of {scenario.namespace}/{pod} writing reason {NOT_READY}, answered 200, "
        f"at t={at:.3f}; found {len(setting)} (all status patches below):\n{journal_lines(scenario, patches)}")
    seen = events(scenario, pod, NOT_READY)
    assert len(seen) == 1, (
        f"expected exactly one NotReadyForScheduling event for {scenario.namespace}/{pod}, sent with the patch; "
        f"found {len(seen)}:\n{event_lines(seen)}")


async def expect_condition_gone_for_good(scenario: Scenario, pod: str) -> None:
    """The condition does not linger: replaced by the binding or removed by a (delayed) clear
    within the delay, and it does not come back."""
    not_ready = scenario.pod_condition(pod, "PodScheduled", reason=NOT_READY)
    await scenario.eventually(~not_ready, within=DELAY + 0.5)
    await scenario.never(not_ready, within=watch_span(scenario, 60))


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "Design Details §5 (Success path)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-before-pod")
async def test_a_pod_whose_claim_exists_is_bound_without_a_status_patch(scenario: Scenario) -> None:
    """KEP-5501 Design Details §5: the reporting happens only 'if any plugin rejects the Pod'; on
    the success path 'If the pod had a status condition before, enqueue a PodStatusPatch to clear
    it' — a pod never rejected has nothing to clear.

    The claim exists before the pod: the pod is bound, never shows a ``PodScheduled=False``
    condition, and the scheduler sends no status patch writing ``PodScheduled`` and no
    NotReadyForScheduling event."""
    await dra_cluster(scenario)
    await create_claim(scenario, "gpu")
    await scenario.advance(1)
    await scenario.create_pod("p", claims=["gpu"])
    unscheduled = scenario.pod_condition("p", "PodScheduled", status="False")
    await scenario.eventually(scenario.pod_bound("p"), within=2)
    await scenario.never(unscheduled, within=watch_span(scenario, 60))
    scenario.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p",
                             where=writes_pod_scheduled)
    expect_no_not_ready_events(scenario, "p")


@pytest.mark.kep("KEP-5501", "User Stories: Diagnosing the Pods using DRA; Proposal")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-within-delay", reading=READINGS["events"])
async def test_a_claim_created_within_the_delay_costs_no_patch_and_no_event(scenario: Scenario) -> None:
    """KEP-5501 User Stories: 'I also don't want to see transient errors that resolve in seconds.
    The delayed dispatch mechanism is crucial for filtering out this noise.' Proposal: 'If the Pod
    is retried and the rejection reason is resolved ... during this period, the pending update will
    be cancelled'.

    The claim is created 3 s after the pod: the pod is bound once the claim is seen, never shows a
    ``NotReadyForScheduling`` condition, and the scheduler sends no status patch writing
    ``PodScheduled`` and no NotReadyForScheduling event, also in the minute after."""
    await dra_cluster(scenario)
    await scenario.create_pod("p", claims=["gpu"])
    await scenario.advance(3)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=1.5)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=watch_span(scenario, 60))
    scenario.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p",
                             where=writes_pod_scheduled)
    expect_no_not_ready_events(scenario, "p")


@pytest.mark.kep("KEP-5501", "User Stories: Diagnosing the Pods using DRA; Proposal; Design Details §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-after-delay", reading=READINGS["events"])
async def test_a_claim_created_after_the_delay_shows_the_condition_then_the_pod_is_bound(scenario: Scenario) -> None:
    """KEP-5501 User Stories: 'The corresponding resource claim is still pending (not being
    detected). Instead of the Pod sitting in a generic Pending state, I want to see a condition on
    the Pod'; Proposal: 'If the delay period expires, the scheduler will asynchronously patch the
    Pod's status with the last-captured rejection message, using the new reason
    NotReadyForScheduling'; Design Details §4: 'If the Pod is re-evaluated and passes the
    PreEnqueue stage shortly after a rejection, a call to remove the NotReadyForScheduling
    condition will be enqueued.'

    No claim for 10 s: the condition ``PodScheduled=False``, reason ``NotReadyForScheduling``, with
    the plugin's real message appears at +5 s, not before (one patch, one event). The claim is then
    created: the pod is bound, and the condition does not linger (the binding replaces it, or a
    clear removes it within the delay) and does not come back."""
    await dra_cluster(scenario)
    t0 = scenario.now
    await scenario.create_pod("p", claims=["gpu"])
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=DELAY - 0.1)
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "gpu")), within=0.2)
    await scenario.advance(t0 + 10 - scenario.now)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=1.5)
    await expect_condition_gone_for_good(scenario, "p")
    expect_one_not_ready_patch_and_event(scenario, "p", at=t0 + DELAY)


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §3")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-never", reading=READINGS["events"])
async def test_a_claim_that_never_comes_gives_one_condition_one_patch_and_one_event(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the delay period expires, the scheduler will asynchronously patch the
    Pod's status with the last-captured rejection message, using the new reason
    NotReadyForScheduling'; Design Details §3: 'To prevent API server flooding when a pod is
    rejected for the same reason repeatedly, message caching will be introduced.'

    The claim never exists: the condition with the real message appears at +5 s, not before, and
    stays; over 5 minutes the scheduler sends exactly one status patch writing ``PodScheduled``
    and one NotReadyForScheduling event, and never binds it."""
    await dra_cluster(scenario)
    t0 = scenario.now
    await scenario.create_pod("p", claims=["gpu"])
    await scenario.never(scenario.pod_condition("p", "PodScheduled", reason=NOT_READY), within=DELAY - 0.1)
    shown = scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY, message=missing_claim(scenario, "gpu"))
    await scenario.eventually(shown, within=0.2)
    # a binding would replace the condition, so this also checks that the pod is never bound
    await scenario.never(~shown, within=watch_span(scenario, 300))
    scenario.expect_requests(1, verb="patch", resource="pods", subresource="status", name="p",
                             where=writes_pod_scheduled)
    expect_one_not_ready_patch_and_event(scenario, "p", at=t0 + DELAY)


@pytest.mark.kep("KEP-5501", "Proposal §3 (Delay configuration); User Stories: Diagnosing the Pods using DRA")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.watch-lag-within-delay", reading=READINGS["events"])
async def test_a_claim_seen_late_within_the_delay_costs_no_patch(scenario: Scenario) -> None:
    """KEP-5501 Proposal §3: the 5 s delay 'is chosen to provide a reasonable balance between
    handling common transient errors (e.g., cache propagation delays) and providing timely feedback
    for persistent issues'; Alternatives: 'the DynamicResources plugin might observe a rejection
    because the scheduler processes a Pod faster than a ResourceClaim becomes visible through the
    watcher'.

    Claims reach LIST and WATCH 3 s after they are written (fault WatchLag); the claim is created
    right after the pod. The pod is bound once the claim is visible (about 3 s), never shows a
    ``NotReadyForScheduling`` condition, and no status patch writing ``PodScheduled`` and no
    NotReadyForScheduling event is sent."""
    require_faults(scenario)
    await dra_cluster(scenario)
    await scenario.add_fault(FaultRule(Match(resource=CLAIMS), WatchLag(3.0), name="claims-seen-3s-late"))
    await scenario.create_pod("p", claims=["gpu"])
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=3 + 1.5)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=watch_span(scenario, 60))
    scenario.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p",
                             where=writes_pod_scheduled)
    expect_no_not_ready_events(scenario, "p")


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §4; User Stories: Diagnosing the Pods using DRA")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.watch-lag-beyond-delay", reading=READINGS["events"])
async def test_a_claim_seen_after_the_delay_shows_the_condition_until_the_pod_is_bound(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the delay period expires, the scheduler will asynchronously patch the
    Pod's status with the last-captured rejection message, using the new reason
    NotReadyForScheduling'; Design Details §4: 'If the Pod is re-evaluated and passes the
    PreEnqueue stage shortly after a rejection, a call to remove the NotReadyForScheduling
    condition will be enqueued.'

    Claims reach LIST and WATCH 8 s after they are written (fault WatchLag); the claim is created
    right after the pod. The wait outlasts the delay: the condition with the real message appears
    at +5 s, not before (one patch, one event); the pod is bound once the claim is visible (about
    8 s), and the condition does not linger (replaced by the binding or cleared within the delay)
    and does not come back."""
    require_faults(scenario)
    await dra_cluster(scenario)
    await scenario.add_fault(FaultRule(Match(resource=CLAIMS), WatchLag(8.0), name="claims-seen-8s-late"))
    t0 = scenario.now
    await scenario.create_pod("p", claims=["gpu"])
    await create_claim(scenario, "gpu")
    await scenario.never(scenario.pod_condition("p", "PodScheduled", reason=NOT_READY), within=DELAY - 0.1)
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "gpu")), within=0.2)
    await scenario.eventually(scenario.pod_bound("p"), within=t0 + 8 + 1.5 - scenario.now)
    await expect_condition_gone_for_good(scenario, "p")
    expect_one_not_ready_patch_and_event(scenario, "p", at=t0 + DELAY)
