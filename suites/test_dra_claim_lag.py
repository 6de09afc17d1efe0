"""DRA claim lag: a pod waits for its ResourceClaim, which appears early, late, or never.

A DRA scheduler rejects a pod at PreEnqueue while its claim is not in its informer-backed cache
(kube-scheduler's DynamicResources plugin, ``docs/api-facts.md`` §dra-preenqueue; its words are not predicted
here, only compared with what the scheduler wrote). KEP-5501's user story "Diagnosing the Pods using DRA" is exactly this wait: a condition on
the pod when the claim stays missing, and no noise when it "resolves in seconds". The claim
appears before the pod, within the 5 s delay, after it, or never; with the fault
``WatchLag`` on ``resourceclaims.resource.k8s.io``, it exists at once but reaches the scheduler's
watch only seconds later (the "cache propagation delays" the delay is chosen for); and it goes
away after the scheduler saw it: deleted, or kept by a finalizer with a ``deletionTimestamp``
(being deleted), while the pod is held by a scheduling gate, then re-created.

The claims are allocatable, for any scheduler: a DeviceClass ``gpu.example.com`` selecting the
driver ``gpu.example.com`` with CEL, and a ResourceSlice publishing four devices of that driver on
node ``n1`` (valid ``resource.k8s.io/v1`` objects, as a real kube-scheduler's allocator needs
them); each claim asks for one device of that class, with the fields the real API server
defaults written out (:func:`create_claim`).

Times start when the scheduler's watch was handed the pod (or the claim), and what the scheduler
wrote is judged by its effect on the pod's ``PodScheduled`` condition, whatever request carried it.

The scheduling part (the pod is bound once the claim is visible, and a claim that shows up within
the delay costs no write of ``PodScheduled`` and no event) holds for today's kube-scheduler too;
the criteria that expect a ``NotReadyForScheduling`` condition hold only for a KEP-5501 scheduler.
"""

from __future__ import annotations

from typing import Any

import pytest

from fake_apiserver import FaultRule, Match, WatchLag
from harness import Scenario
from suites._readings import READINGS
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    CLAIMS,
    DELAY,
    FLUSH,
    Write,
    create_claim,
    dra_cluster,
    event_lines,
    events,
    expect_gone_for_good,
    expect_no_condition_writes,
    expect_not_ready_after,
    expect_one_not_ready_event,
    format_writes,
    condition_writes,
    not_ready_writes,
    require_faults,
    watch_span,
)

__all__: list[str] = []

GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
HOLD = "example.com/hold"
KEEP = "example.com/keep"
GATED_SPAN = 10.0  # seconds the pod stays gated after the scheduler saw its claim go


# ---------------------------------------------------------------------- local helpers


def expect_no_not_ready_events(scenario: Scenario, pod: str) -> None:
    seen = events(scenario, pod, NOT_READY)
    assert not seen, (
        f"expected no NotReadyForScheduling event for {scenario.namespace}/{pod} (the rejection resolved within the "
        f"delay); found {len(seen)}:\n{event_lines(seen)}")


async def pod_seen(scenario: Scenario) -> float:
    """Pod ``p`` claiming ``gpu``; returns when the scheduler saw it."""
    return await scenario.seen("pods", await scenario.create_pod("p", claims=["gpu"]))


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "Design Details §5 (Success path)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-before-pod", control="feature: the pod is bound first")
async def test_a_pod_whose_claim_exists_is_bound_without_a_status_patch(scenario: Scenario) -> None:
    """KEP-5501 Design Details §5: the reporting happens only 'if any plugin rejects the Pod'; on
    the success path 'If the pod had a status condition before, enqueue a PodStatusPatch to clear
    it' — a pod never rejected has nothing to clear.

    The claim exists before the pod: the pod is bound, never shows a ``PodScheduled=False``
    condition, and the scheduler writes nothing to ``PodScheduled`` (the binding aside) and sends
    no NotReadyForScheduling event."""
    await dra_cluster(scenario)
    await scenario.seen(CLAIMS, await create_claim(scenario, "gpu"))
    await scenario.create_pod("p", claims=["gpu"])
    unscheduled = scenario.pod_condition("p", "PodScheduled", status="False")
    await scenario.eventually(scenario.pod_bound("p"), within=2 + scenario.slack.late)
    await scenario.never(unscheduled, within=watch_span(scenario, 60))
    expect_no_condition_writes(scenario, "p", "the pod was never rejected")
    expect_no_not_ready_events(scenario, "p")


@pytest.mark.kep("KEP-5501", "User Stories: Diagnosing the Pods using DRA; Proposal")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-within-delay", reading=READINGS["events"],
                        control="feature: the pod is bound once its claim comes, before the quiet is judged")
async def test_a_claim_created_within_the_delay_costs_no_patch_and_no_event(scenario: Scenario) -> None:
    """KEP-5501 User Stories: 'I also don't want to see transient errors that resolve in seconds.
    The delayed dispatch mechanism is crucial for filtering out this noise.' Proposal: 'If the Pod
    is retried and the rejection reason is resolved ... during this period, the pending update will
    be cancelled'.

    The claim is created 3 s after the scheduler saw the pod: the pod is bound once the claim is
    seen, never shows a ``NotReadyForScheduling`` condition, and the scheduler writes nothing to
    ``PodScheduled`` (the binding aside) and sends no NotReadyForScheduling event, also in the
    minute after."""
    await dra_cluster(scenario)
    seen = await pod_seen(scenario)
    await scenario.advance(seen + 3 - scenario.now)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=1.5 + scenario.slack.late)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=watch_span(scenario, 60))
    expect_no_condition_writes(scenario, "p", "the rejection resolved within the delay")
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
    a message appears 5 s after the scheduler saw the pod, not before (one write, one event with
    the condition's message). The claim is then created: the pod is bound, and the condition does
    not linger (the binding replaces it, or a clear removes it within the delay) and does not come
    back."""
    await dra_cluster(scenario)
    seen = await pod_seen(scenario)
    write = await expect_not_ready_after(scenario, "p", seen)
    await scenario.advance(seen + 10 - scenario.now)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=1.5 + scenario.slack.late)
    await expect_gone_for_good(scenario, "p")
    expect_one_not_ready_event(scenario, "p", write)


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §3")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-never", reading=READINGS["events"],
                        control="feature: the condition is written 5 s after the scheduler saw the pod")
async def test_a_claim_that_never_comes_gives_one_condition_one_patch_and_one_event(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the delay period expires, the scheduler will asynchronously patch the
    Pod's status with the last-captured rejection message, using the new reason
    NotReadyForScheduling'; Design Details §3: 'To prevent API server flooding when a pod is
    rejected for the same reason repeatedly, message caching will be introduced.'

    The claim never exists: the condition with a message appears 5 s after the scheduler saw the
    pod, not before, and stays as written; over 5 minutes the scheduler writes ``PodScheduled``
    exactly once and sends one NotReadyForScheduling event with the condition's message, and
    never binds the pod."""
    await dra_cluster(scenario)
    write = await expect_not_ready_after(scenario, "p", await pod_seen(scenario))
    message = (write.condition_after() or {}).get("message")
    shown = scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY, message=message)
    # a binding would replace the condition, so this also checks that the pod is never bound
    await scenario.never(~shown, within=watch_span(scenario, 300, whole=FLUSH))
    writes = condition_writes(scenario, "p")
    assert [w.entry.seq for w in writes] == [write.entry.seq], (
        f"expected one scheduler write of {scenario.namespace}/p's PodScheduled condition; found {len(writes)}:\n"
        f"{format_writes(writes)}")
    expect_one_not_ready_event(scenario, "p", write)


@pytest.mark.kep("KEP-5501", "Proposal §3 (Delay configuration); User Stories: Diagnosing the Pods using DRA")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.watch-lag-within-delay", reading=READINGS["events"],
                        control="feature: the pod is bound once the claim is visible, before the quiet is judged")
async def test_a_claim_seen_late_within_the_delay_costs_no_patch(scenario: Scenario) -> None:
    """KEP-5501 Proposal §3: the 5 s delay 'is chosen to provide a reasonable balance between
    handling common transient errors (e.g., cache propagation delays) and providing timely feedback
    for persistent issues'; Alternatives: 'the DynamicResources plugin might observe a rejection
    because the scheduler processes a Pod faster than a ResourceClaim becomes visible through the
    watcher'.

    Claims reach LIST and WATCH 3 s after they are written (fault WatchLag); the claim is created
    right after the scheduler saw the pod. The pod is bound once the claim is visible (about 3 s),
    never shows a ``NotReadyForScheduling`` condition, and the scheduler writes nothing to
    ``PodScheduled`` (the binding aside) and sends no NotReadyForScheduling event."""
    require_faults(scenario)
    await dra_cluster(scenario)
    await scenario.add_fault(FaultRule(Match(resource=CLAIMS), WatchLag(3.0), name="claims-seen-3s-late"))
    await pod_seen(scenario)
    claim = await create_claim(scenario, "gpu")
    await scenario.seen(CLAIMS, claim, within=3 + 1 + scenario.slack.late)
    await scenario.eventually(scenario.pod_bound("p"), within=1.5 + scenario.slack.late)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=watch_span(scenario, 60))
    expect_no_condition_writes(scenario, "p", "the claim reached the scheduler within the delay")
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
    right after the scheduler saw the pod. The wait outlasts the delay: the condition with a
    message appears 5 s after the scheduler saw the pod, not before (one write, one event with the
    condition's message); the pod is bound once the claim is visible to the scheduler (about 8 s),
    and the condition does not linger (replaced by the binding or cleared within the delay) and
    does not come back."""
    require_faults(scenario)
    await dra_cluster(scenario)
    await scenario.add_fault(FaultRule(Match(resource=CLAIMS), WatchLag(8.0), name="claims-seen-8s-late"))
    seen = await pod_seen(scenario)
    claim = await create_claim(scenario, "gpu")
    write = await expect_not_ready_after(scenario, "p", seen)
    visible = await scenario.seen(CLAIMS, claim, within=8 + 1 + scenario.slack.late)
    await scenario.eventually(scenario.pod_bound("p"), within=visible + 1.5 + scenario.slack.late - scenario.now)
    await expect_gone_for_good(scenario, "p")
    expect_one_not_ready_event(scenario, "p", write)


async def gated_pod_whose_claim_goes(scenario: Scenario, finalizer: str | None = None) -> float:
    """Claim ``gpu`` (with ``finalizer`` when given) exists and the scheduler saw it; pod ``p``
    claiming it is created gated and seen; the claim is deleted (with a finalizer it stays, being
    deleted) and the scheduler saw that. The pod stays gated 10 s more, with no scheduler write of
    its ``PodScheduled`` condition (READINGS["gate-first"]); then its gate is removed. Returns
    when the scheduler saw the release."""
    claim = await create_claim(scenario, "gpu")
    if finalizer is not None:
        claim = await scenario.patch("resourceclaims", "gpu", {"metadata": {"finalizers": [finalizer]}}, type="merge")
    await scenario.seen(CLAIMS, claim)
    await scenario.seen("pods", await scenario.create_pod("p", claims=["gpu"], gates=[HOLD]))
    deleted_at = scenario.now
    answer = await scenario.delete("resourceclaims", "gpu")
    if finalizer is None:
        gone = await scenario.seen(CLAIMS, "gpu", since=deleted_at, deleted=True)
    else:
        assert (answer.get("metadata") or {}).get("deletionTimestamp"), (
            f"expected the API server to keep claim gpu, held by finalizer {finalizer}, with a deletionTimestamp; "
            f"it answered the DELETE with {answer}")
        gone = await scenario.seen(CLAIMS, answer)
    await scenario.advance(gone + GATED_SPAN - scenario.now)
    expect_no_condition_writes(scenario, "p", "the pod is gated: its rejection is the SchedulingGated one the API "
                                              "server already shows")
    return await scenario.seen("pods", await scenario.remove_gate("p", HOLD))


async def expect_reported_and_held(scenario: Scenario, released: float) -> Write:
    """NotReadyForScheduling 5 s after the scheduler saw the release (one stored write), then for
    a minute the pod keeps exactly that condition (a binding would replace it) and one
    NotReadyForScheduling event with its message. Returns the write."""
    write = await expect_not_ready_after(scenario, "p", released)
    message = (write.condition_after() or {}).get("message")
    shown = scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY, message=message)
    await scenario.never(~shown, within=watch_span(scenario, 60))
    expect_one_not_ready_event(scenario, "p", write)
    return write


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §4, §5; Non-Goals; User Stories: Diagnosing the Pods using DRA")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-deleted-before-binding", reading=READINGS["gate-first"],
                        control="feature: once released, the pod's rejection is reported")
async def test_a_claim_deleted_after_the_scheduler_saw_it_is_reported_and_the_pod_waits(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the delay period expires, the scheduler will asynchronously patch the
    Pod's status with the last-captured rejection message, using the new reason
    NotReadyForScheduling'; Design Details §4: 'If the Pod is re-evaluated and passes the
    PreEnqueue stage shortly after a rejection, a call to remove the NotReadyForScheduling
    condition will be enqueued'; Non-Goals: 'This KEP will not change the core rejection logic of
    any existing PreEnqueue plugin' (DynamicResources rejects a pod whose claim is not in its
    informer cache, docs/api-facts.md §dra-preenqueue).

    Claim ``gpu`` exists and the scheduler saw it; pod ``p`` claiming it is created held by a
    scheduling gate, so that no scheduler may bind it yet (the API server refuses to bind a gated
    pod, docs/api-facts.md §gated-binding) whatever it does with the claim; the claim is deleted, and the scheduler
    saw the deletion. Expected while gated (10 s): no scheduler write of ``PodScheduled``, the pod
    showing the API server's SchedulingGated condition (READINGS["gate-first"]). The gate is
    removed: the first moment PreEnqueue can reject the pod for its claim, so the delay counts
    from when the scheduler saw the release. ``PodScheduled=False/NotReadyForScheduling`` with a
    message 5 s after that (one stored write, not before), and for a minute after the pod keeps
    exactly that condition, unbound, with one NotReadyForScheduling event carrying its message. A
    scheduler that kept the deleted claim in its cache would let the pod through and try to
    allocate or bind it instead. Then the claim is created again: the pod is bound within 2 s, the
    condition does not linger (the binding replaces it, or a clear removes it within the delay)
    and does not come back, and no further NotReadyForScheduling write is stored."""
    await dra_cluster(scenario)
    released = await gated_pod_whose_claim_goes(scenario)
    write = await expect_reported_and_held(scenario, released)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=2 + scenario.slack.late)
    await expect_gone_for_good(scenario, "p")
    stored = [w for w in not_ready_writes(scenario, "p") if w.applied]
    assert [w.entry.seq for w in stored] == [write.entry.seq], (
        f"expected one stored NotReadyForScheduling write of {scenario.namespace}/p; found {len(stored)}:\n"
        f"{format_writes(condition_writes(scenario, 'p'))}")


@pytest.mark.kep("KEP-5501", "Proposal; Non-Goals; Design Details §4; User Stories: Diagnosing the Pods using DRA")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.dra-claim-lag.claim-being-deleted", reading=READINGS["claim-deleting"],
                        control="feature: once released, the pod's rejection is reported")
async def test_a_claim_held_by_a_finalizer_while_being_deleted_is_reported_and_never_used(scenario: Scenario) -> None:
    """KEP-5501 Non-Goals: 'This KEP will not change the core rejection logic of any existing
    PreEnqueue plugin, only how the outcome of that logic is communicated' (kube-scheduler's
    DynamicResources PreEnqueue rejects a claim with a deletionTimestamp: 'resourceclaim
    \"<name>\" is being deleted', docs/api-facts.md §dra-preenqueue); Proposal: 'If the delay period expires, the
    scheduler will asynchronously patch the Pod's status with the last-captured rejection message,
    using the new reason NotReadyForScheduling.'

    Claim ``gpu`` carries the finalizer ``example.com/keep`` and the scheduler saw it; pod ``p``
    claiming it is created gated; the claim is deleted: the API server keeps it, with a
    ``deletionTimestamp``, and the scheduler saw that. Gated 10 s more (no scheduler write of
    ``PodScheduled``), then released. Expected: ``PodScheduled=False/NotReadyForScheduling`` with a
    message (not predicted) 5 s after the scheduler saw the release, one stored write, and for a
    minute after the pod keeps exactly that condition, unbound, with one NotReadyForScheduling
    event; no stored write of the scheduler's to the claim while it is being deleted (a scheduler
    writes a claim only to allocate or reserve it, in PreBind). Then the finalizer is removed (the claim goes) and a new
    claim ``gpu`` is created: the pod is bound within 2 s and the condition does not linger and
    does not come back."""
    await dra_cluster(scenario)
    released = await gated_pod_whose_claim_goes(scenario, finalizer=KEEP)
    await expect_reported_and_held(scenario, released)
    used = [w for w in scenario.writes("gpu", kind="resourceclaims") if w.applied]
    assert not used, (
        f"expected no stored write of the scheduler's to claim gpu while it is being deleted; found {len(used)}:\n"
        + "\n".join(f"  t={w.time:.3f} #{w.entry.seq} {w.entry.verb} {w.entry.resource}"
                    f"{'/' + w.entry.subresource if w.entry.subresource else ''} -> {w.code}" for w in used))
    finalized_at = scenario.now
    await scenario.patch("resourceclaims", "gpu", {"metadata": {"finalizers": None}}, type="merge")
    await scenario.seen(CLAIMS, "gpu", since=finalized_at, deleted=True)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=2 + scenario.slack.late)
    await expect_gone_for_good(scenario, "p")
