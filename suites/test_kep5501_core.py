"""KEP-5501 core: a PreEnqueue rejection is reflected in the pod's status after a delay, once.

The rejecting plugin is DynamicResources with a claim that does not exist: its message is the
real kube-scheduler's, ``could not find ResourceClaim "<ns>/<claim>"`` (``k8s-semantics.md`` B.4),
so nothing here depends on a plugin only the reference scheduler has. Where the pod must get
through to a node once its claim exists, a DeviceClass and a ResourceSlice publish a device on the
node (:func:`~suites._support.add_devices`) and the claim is made with
:func:`~suites._support.create_claim`.

No Kubernetes release implements KEP-5501 (``k8s-semantics.md`` B.1): against a real
kube-scheduler these criteria fail, each saying which condition, patch or event it expected and
what it saw instead.
"""

from __future__ import annotations


import pytest

from fake_apiserver import Delay, FaultRule, Match
from harness import Expectation, FakeBackend, ProcessAdapter, SchedulerAdapter
from harness._scenario import Scenario
from suites._readings import READINGS
from suites._support import (
    NOT_READY_FOR_SCHEDULING,
    add_devices,
    condition_history,
    condition_patches,
    create_claim,
    events,
    missing_claim,
    patched_conditions,
    require_faults,
    watch_span,
)

DELAY = 5.0  # "The delay value will be hardcoded to a default of 5 seconds" (Proposal §3)


async def _rejected_pod(scenario: Scenario) -> None:
    """Node n1 with one device; pod p claims ``c``, which does not exist (yet)."""
    await scenario.create_node("n1")
    await add_devices(scenario, "n1")
    await scenario.create_pod("p", "100m", claims=["c"])


def _not_ready(scenario: Scenario, **fields: str) -> Expectation:
    return scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY_FOR_SCHEDULING, **fields)


@pytest.mark.kep("KEP-5501", "Proposal; Proposal §3 (Delay configuration); Design Details §4")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.after-delay")
async def test_persistent_rejection_is_reported_after_the_delay_not_before(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'the scheduler will not act on this immediately ... If the delay period
    expires, the scheduler will asynchronously patch the Pod's status with the last-captured
    rejection message, using the new reason NotReadyForScheduling.' No condition for 4.9 s, then
    PodScheduled=False/NotReadyForScheduling with the DynamicResources message by 5.2 s, in one
    status patch."""
    await _rejected_pod(scenario)
    await scenario.never(scenario.pod_condition("p", "PodScheduled"), within=DELAY - 0.1)
    await scenario.eventually(_not_ready(scenario, message=missing_claim(scenario, "c")), within=0.3)
    scenario.expect_requests(1, verb="patch", resource="pods", subresource="status", name="p")


@pytest.mark.kep("KEP-5501", "Proposal ('the pending update will be cancelled'); User Stories (DRA)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.resolved-within-delay", reading=READINGS["events"])
async def test_rejection_resolved_inside_the_delay_leaves_no_trace(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the Pod is retried and the rejection reason is resolved or changes
    during this period, the pending update will be cancelled or overwritten'; User Stories: 'I
    also don't want to see transient errors that resolve in seconds.' The claim appears 2 s after
    the pod: the pod is bound, with no status patch writing conditions and no NotReadyForScheduling
    event, then or in the next minute (a patch of nominatedNodeName alone, which kube-scheduler
    v1.35 sends before the DRA PreBind, is not a condition patch)."""
    history = condition_history(scenario, "p")
    await _rejected_pod(scenario)
    await scenario.advance(2)
    await create_claim(scenario, "c")
    await scenario.eventually(scenario.pod_bound("p"), within=5)
    await scenario.advance(watch_span(scenario, 60))
    patches = condition_patches(scenario, "p")
    assert patches == [], ("expected no status patch writing conditions, found: "
                           + "; ".join(f"t={e.time:.3f} {e.body}" for e in patches))
    seen = events(scenario, "p", NOT_READY_FOR_SCHEDULING)
    assert seen == [], f"expected no NotReadyForScheduling event, found: {'; '.join(map(str, seen))}"
    assert history.reasons() == [None, "True"], (
        f"expected the pod to go from no PodScheduled condition straight to PodScheduled=True; {history}")


@pytest.mark.kep("KEP-5501", "Design Details §3 (Preventing redundant API calls); Design Details §5 (Rejection path)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.one-patch-one-event", reading=READINGS["events"])
async def test_stable_message_gives_exactly_one_patch_and_one_event(scenario: Scenario) -> None:
    """KEP-5501 Design Details §3: 'The asynchronous call to the API server will only be enqueued
    if the status is new or different from the cached one'; §5: 'An Event is emitted for the Pod
    with the reason NotReadyForScheduling and the rejection message.' The claim never appears;
    the pod's labels change every 30 s for 5 minutes (each update re-runs PreEnqueue with the same
    message, READINGS["reevaluation"]): exactly one status patch and one event (created through
    events.k8s.io/v1 or core v1; reason NotReadyForScheduling, the rejection message as its
    note/message, sent no earlier than the patch, as the reading says)."""
    await _rejected_pod(scenario)
    span = watch_span(scenario, 300)
    for tick in range(int(span // 30)):
        await scenario.advance(30)
        await scenario.patch("pods", "p", {"metadata": {"labels": {"tick": str(tick)}}})
    await scenario.advance(30)
    await scenario.eventually(_not_ready(scenario, message=missing_claim(scenario, "c")), within=1)
    [patch] = scenario.expect_requests(1, verb="patch", resource="pods", subresource="status", name="p")
    seen = events(scenario, "p", NOT_READY_FOR_SCHEDULING)
    assert [(e.reason, e.message) for e in seen] == [(NOT_READY_FOR_SCHEDULING, missing_claim(scenario, "c"))], (
        f"expected exactly one event with reason {NOT_READY_FOR_SCHEDULING} and message {missing_claim(scenario, 'c')!r}, found "
        f"{len(seen)}: {'; '.join(map(str, seen)) or '(none)'}")
    assert seen[0].time >= patch.time, (
        f"expected the event sent with the delayed patch (t={patch.time:.3f}), it was sent at t={seen[0].time:.3f}")


@pytest.mark.kep("KEP-5501", "Design Details §4 ('This \"clear\" operation will also be delayed'); Design Details §5 (Success path)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.clear-delayed", reading=READINGS["clear-writes"])
async def test_condition_is_cleared_after_the_pod_passes_and_the_clear_is_delayed(scenario: Scenario) -> None:
    """KEP-5501 Design Details §4: 'If the Pod is re-evaluated and passes the PreEnqueue stage
    shortly after a rejection, a call to remove the NotReadyForScheduling condition will be
    enqueued. This "clear" operation will also be delayed to prevent status flickering.'

    To make the clear observable, nothing else may write PodScheduled for 5 s after the pass: the
    claim appears at t=20 (after the condition), the pod passes PreEnqueue and fits n1, and the
    server holds the DRA PreBind write of the claim's status for 15 s (a fault; shorter than a
    client's usual 30 s request timeout), so the binding, which replaces PodScheduled, comes at
    about t=35. Expected: the condition stays for 4.9 s after the pass, is gone by 5.3 s (one
    status patch writing conditions, no earlier than 5 s after the pass, removing the element as
    the reading says), and the pod is bound once the write is served."""
    require_faults(scenario)
    history = condition_history(scenario, "p")
    await _rejected_pod(scenario)
    await scenario.eventually(_not_ready(scenario, message=missing_claim(scenario, "c")), within=DELAY + 1)
    await scenario.advance(20 - scenario.now + scenario.start_time)
    await scenario.add_fault(FaultRule(Match(resource="resourceclaims", subresource="status", name="c"),
                                       Delay(15), name="slow-prebind", times=1))
    await create_claim(scenario, "c")
    passed = scenario.now
    await scenario.never(~_not_ready(scenario), within=DELAY - 0.1)
    await scenario.eventually(~scenario.pod_condition("p", "PodScheduled", reason=NOT_READY_FOR_SCHEDULING),
                              within=0.4)
    clears = [e for e in condition_patches(scenario, "p") if e.time >= passed]
    assert len(clears) == 1 and clears[0].time >= passed + DELAY, (
        f"expected one clearing status patch, no earlier than t={passed + DELAY:.3f}; found "
        f"{[(round(e.time, 3), e.body) for e in clears]}")
    assert await scenario.condition("p", "PodScheduled") is None, (
        f"expected the PodScheduled element deleted by the clear {patched_conditions(clears[0])}; {history}")
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=25)
    assert history.reasons() == [None, NOT_READY_FOR_SCHEDULING, None, "True"], (
        f"expected: absent, NotReadyForScheduling, absent (cleared), True (bound); {history}")


@pytest.mark.kep("KEP-5501", "Production Readiness: Feature Enablement and Rollback; Design Details §5")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=False, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.feature-gate-off")
async def test_feature_gate_off_means_no_condition_and_no_event(scenario: Scenario) -> None:
    """KEP-5501 Design Details §5: 'if p.apiDispatcher == nil || !p.preEnqueuePodStatusEnabled {
    return // Gates are disabled, stop processing. }'; PRR: with the gate disabled 'The scheduler
    will stop adding or updating these conditions.' With SchedulerPreEnqueuePodStatus=false (and
    async API calls on), a pod rejected for 5 minutes, its labels changing every 30 s, gets no
    PodScheduled condition, no status patch and no NotReadyForScheduling event."""
    history = condition_history(scenario, "p")
    await _rejected_pod(scenario)
    span = watch_span(scenario, 300)
    for tick in range(int(span // 30)):
        await scenario.advance(30)
        await scenario.patch("pods", "p", {"metadata": {"labels": {"tick": str(tick)}}})
    await scenario.advance(30)
    scenario.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p")
    seen = events(scenario, "p", NOT_READY_FOR_SCHEDULING)
    assert seen == [], f"expected no NotReadyForScheduling event, found: {'; '.join(map(str, seen))}"
    assert history.reasons() == [None], f"expected no PodScheduled condition at any time; {history}"


@pytest.mark.kep("KEP-5501", "Proposal (Note: dependency on SchedulerAsyncAPICalls)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=False)
@pytest.mark.criterion("kep5501.core.gate-dependency", reading=READINGS["defaults"])
async def test_enabling_pod_status_without_async_api_calls_fails_to_start(sh_adapter: SchedulerAdapter | None, sh_backend: FakeBackend) -> None:
    """KEP-5501 Proposal: 'The enablement of this feature will be dependent on the
    SchedulerAsyncAPICalls feature gate being enabled.' Started on the backend with
    SchedulerPreEnqueuePodStatus=true and SchedulerAsyncAPICalls=false, the scheduler must refuse
    to start, saying why (its error names both gates). Skipped for a process adapter: a real
    kube-scheduler does not know the gate and would refuse it for that reason instead."""
    if sh_adapter is None:
        pytest.skip("needs a scheduler: this run has --scheduler none")
    if isinstance(sh_adapter, ProcessAdapter):
        pytest.skip("a process adapter (a real kube-scheduler) does not know SchedulerPreEnqueuePodStatus: "
                    "a refusal would not show the dependency")
    gates = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": False}
    try:
        await sh_adapter.start(sh_backend.kubeconfig_path, gates)
    except Exception as refused:  # any start failure counts; what it says is checked below
        words = str(refused)
        assert "SchedulerPreEnqueuePodStatus" in words and "SchedulerAsyncAPICalls" in words, (
            f"expected the start failure to name both gates, it said: {type(refused).__name__}: {words}")
        await sh_adapter.stop()  # a no-op after a failed start
        return
    await sh_adapter.stop()
    pytest.fail(f"expected the scheduler {sh_adapter.name} to refuse to start with "
                "SchedulerPreEnqueuePodStatus=true and SchedulerAsyncAPICalls=false, but it started")
