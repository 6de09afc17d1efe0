"""KEP-5501 core: a PreEnqueue rejection is reflected in the pod's status after a delay, once.

The rejecting plugin is DynamicResources with a claim that does not exist, the KEP's own user
story ("Diagnosing the Pods using DRA"), so nothing here depends on a plugin only the reference
scheduler has. Where the pod must get through to a node once its claim exists, a DeviceClass and
a ResourceSlice publish a device on the node (:func:`~suites._support.add_devices`) and the claim
is made with :func:`~suites._support.create_claim`.

Everything is judged as an effect at the API (:mod:`harness._scenario.writes`): which condition a write of
the scheduler's left, when, whatever request carried it. Times start when the scheduler's watch
was handed the object (:meth:`~harness._scenario.scenario.Scenario.seen`) and allow the backend's slack,
printed in the report. The rejection message is the scheduler's own: it is never predicted, only
compared with what the scheduler wrote elsewhere.

No Kubernetes release implements KEP-5501 (``docs/api-facts.md`` §kep5501-releases): against a real
kube-scheduler these criteria fail, each saying which condition, write or event it expected and
what it saw instead.

Whatever a criterion says must not happen (no write, no event, no start) stands beside something
the scheduler must do in the same scenario, named in the ``control=`` of its marker: the report
itself, the pod bound once its claim comes, or, for the gate dependency, the same scheduler
started with both gates and binding a pod. Where that never happens the criterion is not judged
(:class:`harness.NotJudged`), never passed.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from fake_apiserver import Delay, FaultRule, JournalEntry, Match, binds
from harness import (
    AdapterError,
    Expectation,
    FakeBackend,
    NotJudged,
    ProcessAdapter,
    Scenario,
    SchedulerAdapter,
    Unsupported,
    is_probe_request,
    scheduler_name_for,
)
from suites._readings import READINGS
from suites._support import (
    CLAIMS,
    DELAY,
    NOT_READY_FOR_SCHEDULING,
    Control,
    allocation_hold,
    clears,
    condition_history,
    condition_writes,
    control_met,
    create_claim,
    dra_cluster,
    events,
    expect_no_condition_writes,
    expect_not_ready_after,
    expect_one_not_ready_event,
    format_writes,
    not_ready_writes,
    judged_only_if_held,
    liveness,
    require_faults,
    watch_span,
)


async def _rejected_pod(scenario: Scenario) -> float:
    """Node n1 with one device; pod p claims ``c``, which does not exist (yet). Returns when the
    scheduler saw the pod."""
    await dra_cluster(scenario, devices=1)
    created = await scenario.create_pod("p", "100m", claims=["c"])
    return await scenario.seen("pods", created)


def _not_ready(scenario: Scenario) -> Expectation:
    return scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY_FOR_SCHEDULING)


@pytest.mark.kep("KEP-5501", "Proposal; Proposal §3 (Delay configuration); Design Details §4")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.after-delay",
                        control="feature: the condition is written 5 s after the scheduler saw the pod")
async def test_persistent_rejection_is_reported_after_the_delay_not_before(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'the scheduler will not act on this immediately ... If the delay period
    expires, the scheduler will asynchronously patch the Pod's status with the last-captured
    rejection message, using the new reason NotReadyForScheduling.' No condition until 5 s after
    the scheduler saw the pod, then PodScheduled=False/NotReadyForScheduling with a message,
    written by exactly one stored write of the scheduler's, 5 s after it saw the pod (within the
    backend's slack). The "no condition before" stands beside that write, the feature itself:
    a scheduler that never writes fails."""
    seen = await _rejected_pod(scenario)
    await expect_not_ready_after(scenario, "p", seen)


@pytest.mark.kep("KEP-5501", "Proposal ('the pending update will be cancelled'); User Stories (DRA)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.resolved-within-delay", reading=READINGS["events"],
                        control="feature: the pod is bound once its claim comes, before the quiet is judged")
async def test_rejection_resolved_inside_the_delay_leaves_no_trace(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the Pod is retried and the rejection reason is resolved or changes
    during this period, the pending update will be cancelled or overwritten'; User Stories: 'I
    also don't want to see transient errors that resolve in seconds.' The claim appears 2 s after
    the scheduler saw the pod: the pod is bound, with no scheduler write of its PodScheduled
    condition (the binding aside) and no NotReadyForScheduling event, then or in the next minute.
    The quiet stands beside the binding, the feature itself: a pod not bound within 5 s of its
    claim fails."""
    history = condition_history(scenario, "p")
    seen = await _rejected_pod(scenario)
    await scenario.advance(seen + 2 - scenario.now)
    await create_claim(scenario, "c")
    await scenario.eventually(scenario.pod_bound("p"), within=DELAY)
    await scenario.advance(watch_span(scenario, 60))
    expect_no_condition_writes(scenario, "p", "the rejection resolved within the delay")
    sent = events(scenario, "p", NOT_READY_FOR_SCHEDULING)
    assert sent == [], f"expected no NotReadyForScheduling event, found: {'; '.join(map(str, sent))}"
    assert history.reasons() == [None, "True"], (
        f"expected the pod to go from no PodScheduled condition straight to PodScheduled=True; {history}")


@pytest.mark.kep("KEP-5501", "Design Details §3 (Preventing redundant API calls); Design Details §5 (Rejection path)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.one-patch-one-event", reading=READINGS["events"],
                        control="feature: the condition is written 5 s after the scheduler saw the pod, before the "
                                "repeats are counted")
async def test_stable_message_gives_exactly_one_patch_and_one_event(scenario: Scenario) -> None:
    """KEP-5501 Design Details §3: 'The asynchronous call to the API server will only be enqueued
    if the status is new or different from the cached one'; §5: 'An Event is emitted for the Pod
    with the reason NotReadyForScheduling and the rejection message.' The claim never appears;
    the pod's labels change every 30 s for 5 minutes (each update re-runs PreEnqueue with the same
    message, READINGS["reevaluation"]): exactly one scheduler write of the condition (a redundant
    write that changes nothing counts too), and one event (either events API) with reason
    NotReadyForScheduling whose message is the condition's, sent no earlier than the write. The
    count of 1 stands beside that write, the feature itself: a scheduler that never writes fails.
    The re-evaluations come every 30 s, so a watch cut on real time still holds some."""
    seen = await _rejected_pod(scenario)
    write = await expect_not_ready_after(scenario, "p", seen)
    span = watch_span(scenario, 300)
    for tick in range(int(span // 30)):
        await scenario.advance(30)
        await scenario.patch("pods", "p", {"metadata": {"labels": {"tick": str(tick)}}})
    await scenario.advance(30)
    await scenario.settle()
    writes = condition_writes(scenario, "p")
    assert [w.entry.seq for w in writes] == [write.entry.seq], (
        f"expected one scheduler write of the PodScheduled condition over {span:g} s of re-evaluations with the "
        f"same message; found {len(writes)}:\n{format_writes(writes)}")
    expect_one_not_ready_event(scenario, "p", write)


async def _pass_with_hold(scenario: Scenario, hold: FaultRule) -> float:
    """The rejected pod shows the condition; then ``hold`` is added and the claim created.
    Returns when the scheduler saw the claim (the pod passes PreEnqueue from then on)."""
    seen = await _rejected_pod(scenario)
    await expect_not_ready_after(scenario, "p", seen)
    await scenario.add_fault(hold)
    claim = await create_claim(scenario, "c")
    return await scenario.seen(CLAIMS, claim)


@pytest.mark.kep("KEP-5501", "Design Details §4 ('This \"clear\" operation will also be delayed'); Design Details §5 (Success path)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.clear-delayed", reading=READINGS["clear-or-binding"],
                        control="feature: the pod is reported, then bound with PodScheduled=True")
async def test_condition_is_not_cleared_before_the_delay_after_the_pod_passes(scenario: Scenario) -> None:
    """KEP-5501 Design Details §4: 'If the Pod is re-evaluated and passes the PreEnqueue stage
    shortly after a rejection, a call to remove the NotReadyForScheduling condition will be
    enqueued. This "clear" operation will also be delayed to prevent status flickering.'

    The pod shows the condition; then the write that binds it is held 15 s by the server (a step
    every scheduler takes) and its claim is created. From when the scheduler saw the claim: the
    condition stays at least 5 s (no scheduler write removes it earlier); then either a clear
    removes it (no earlier than 5 s, leaving no PodScheduled condition, READINGS["clear-writes"])
    or the binding replaces it (the reading below); the pod ends bound with PodScheduled=True.
    "No clear before 5 s" stands beside the report and the binding, the feature itself: a
    scheduler that does neither fails."""
    require_faults(scenario)
    hold = FaultRule(Match(resource="pods", name="p", effect=binds()), Delay(15), name="slow-binding", times=1)
    passed = await _pass_with_hold(scenario, hold)
    slack = scenario.slack
    await scenario.never(~_not_ready(scenario), within=max(0.0, passed + DELAY - slack.early - scenario.now))
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=passed + 15 + DELAY + slack.late - scenario.now)
    removed = [w for w in clears(scenario, "p") if w.applied]
    early = [w for w in removed if w.time < passed + DELAY - slack.early]
    assert not early and len(removed) <= 1, (
        f"expected at most one clear, no earlier than t={passed + DELAY:.3f} ({DELAY:g} s after the scheduler saw "
        f"the claim at t={passed:.3f}); the scheduler's condition writes:\n{format_writes(condition_writes(scenario, 'p'))}")
    if removed:
        assert removed[0].condition_after() is None and removed[0].other_conditions_kept(), (
            f"expected the clear to leave no PodScheduled condition and every other condition as it was "
            f"(READINGS['clear-writes']): {removed[0].describe()}")


@pytest.mark.kep("KEP-5501", "Design Details §4; Alternatives §4 ('This ensures the condition is not stale'); KEP-4381 PreBind")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.clear-while-binding-waits", reading=READINGS["prebind-order"],
                        control="feature: the pod is reported, then its condition cleared while the allocation write "
                                "is held")
async def test_condition_is_cleared_5s_after_the_pass_while_the_binding_cycle_waits(scenario: Scenario) -> None:
    """KEP-5501 Design Details §4: 'a call to remove the NotReadyForScheduling condition will be
    enqueued. This "clear" operation will also be delayed'; Alternatives §4: 'This ensures the
    condition is not stale.'

    The pod shows the condition; then the write that records claim ``c``'s allocation (whatever
    request carries it) is held 15 s by the server, and the claim is created. The pod passes
    PreEnqueue when the scheduler sees the claim and waits in its binding cycle; nothing else
    writes PodScheduled, so the clear must come: exactly one scheduler write removes the condition,
    5 s after the scheduler saw the claim (within the slack), leaving no PodScheduled condition and
    the other conditions as they were (READINGS["clear-writes"]); then the pod is bound. The
    count of one clear stands beside the report and the clear, the feature itself; a scheduler
    that binds without recording the allocation through the held write leaves it not judged."""
    require_faults(scenario)
    hold = allocation_hold("c", 15)
    passed = await _pass_with_hold(scenario, hold)
    slack = scenario.slack
    await scenario.eventually(scenario.pod_bound("p") | ~_not_ready(scenario),
                              within=passed + DELAY + slack.late - scenario.now)
    await judged_only_if_held(scenario, hold, "p", "the clear cannot be told apart from the binding here")
    removed = [w for w in clears(scenario, "p") if w.applied]
    assert len(removed) == 1 and passed + DELAY - slack.early <= removed[0].time <= passed + DELAY + slack.late, (
        f"expected one clear at t={passed + DELAY:.3f} ({DELAY:g} s after the scheduler saw the claim at "
        f"t={passed:.3f}), while the allocation write is held; the scheduler's condition writes:\n"
        f"{format_writes(condition_writes(scenario, 'p'))}")
    assert removed[0].condition_after() is None and removed[0].other_conditions_kept(), (
        f"expected the clear to leave no PodScheduled condition and every other condition as it was: "
        f"{removed[0].describe()}")
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=15 + slack.late)


@pytest.mark.kep("KEP-5501", "Production Readiness: Feature Enablement and Rollback; Design Details §5")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=False, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.feature-gate-off",
                        control="feature: once its claim is made, the rejected pod is bound")
async def test_feature_gate_off_means_no_condition_and_no_event(scenario: Scenario) -> None:
    """KEP-5501 Design Details §5: 'if p.apiDispatcher == nil || !p.preEnqueuePodStatusEnabled {
    return // Gates are disabled, stop processing. }'; PRR: with the gate disabled 'The scheduler
    will stop adding or updating these conditions.' With SchedulerPreEnqueuePodStatus=false (and
    async API calls on), a pod rejected for 5 minutes, its labels changing every 30 s, gets no
    PodScheduled condition, no scheduler write of it and no NotReadyForScheduling event. The
    re-evaluations come every 30 s, so a watch cut on real time still holds some.

    Judged beside a control: then its claim is made and the pod must be bound (within 30 s): the
    scheduler held this very pod for its claim, silently, and lets it go; otherwise not judged."""
    history = condition_history(scenario, "p")
    await _rejected_pod(scenario)
    span = watch_span(scenario, 300)
    for tick in range(int(span // 30)):
        await scenario.advance(30)
        await scenario.patch("pods", "p", {"metadata": {"labels": {"tick": str(tick)}}})
    await scenario.advance(30)
    expect_no_condition_writes(scenario, "p", "SchedulerPreEnqueuePodStatus=false")
    sent = events(scenario, "p", NOT_READY_FOR_SCHEDULING)
    assert sent == [], f"expected no NotReadyForScheduling event, found: {'; '.join(map(str, sent))}"
    assert history.reasons() == [None], f"expected no PodScheduled condition at any time; {history}"
    await control_met(scenario, await _claim_made(scenario))


async def _claim_made(scenario: Scenario) -> Control:
    """The control of a criterion whose pod ``p`` waits for its missing claim ``c``
    (:func:`_rejected_pod`): the claim is made now, and the scheduler must bind the pod (n1 has
    its device)."""
    await create_claim(scenario, "c")
    return Control(scenario.pod_bound("p"),
                   f"bind {scenario.namespace}/p once its claim c exists (watch pods and claims, allocate the claim "
                   "from n1's device, bind)")


GATES = ("SchedulerPreEnqueuePodStatus", "SchedulerAsyncAPICalls")
#: The dependency off, then both on: the two starts of ``kep5501.core.gate-dependency``.
DEPENDENCY_OFF = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": False}
BOTH_ON = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
#: How a scheduler says it does not know a gate at all (kube-scheduler: "unrecognized feature gate: X").
UNKNOWN_GATE = re.compile(r"(unrecognized|unknown) feature gates?:?\s*\S*SchedulerPreEnqueuePodStatus", re.IGNORECASE)
WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})


def _scheduler_writes(backend: FakeBackend) -> list[JournalEntry]:
    """Every write the backend journaled that is not the readiness probe's (``is_probe_request``):
    before a scenario, what the scheduler wrote."""
    journal = backend.journal
    if journal is None:
        raise Unsupported(f"the {backend.name} backend keeps no journal of requests, so a write by the scheduler "
                          "before it exits cannot be told")
    return [e for e in journal.entries if e.type == "request" and e.verb in WRITE_VERBS and not is_probe_request(e)]


async def _refused(adapter: SchedulerAdapter, backend: FakeBackend) -> str:
    """Start ``adapter`` with :data:`DEPENDENCY_OFF`; return what it said when it refused (the
    exception in process, the log of a process that exited non-zero); fail if it started or
    exited otherwise."""
    try:
        await adapter.start(backend.kubeconfig_path, DEPENDENCY_OFF)
    except Exception as refused:  # any start failure counts; what it says is checked by the caller
        await adapter.stop()  # a no-op after a failed start
        if isinstance(adapter, ProcessAdapter):
            assert isinstance(refused, AdapterError) and adapter.early_exit not in (None, 0), (
                f"expected the scheduler process to exit with a non-zero code before it was ready; it did not: "
                f"{type(refused).__name__}: {refused}")
            return adapter.log_text()
        return f"{type(refused).__name__}: {refused}"
    await adapter.stop()
    pytest.fail(f"expected the scheduler {adapter.name} to refuse to start with SchedulerPreEnqueuePodStatus=true and "
                "SchedulerAsyncAPICalls=false, but it started", pytrace=False)


async def _starts_and_binds(adapter: SchedulerAdapter, backend: FakeBackend) -> None:
    """The control of ``kep5501.core.gate-dependency``: the same scheduler, started with
    :data:`BOTH_ON` on the same backend, starts and binds an ordinary pod to a node
    (:func:`~suites._support.liveness`); otherwise the criterion is not judged."""
    try:
        await adapter.start(backend.kubeconfig_path, BOTH_ON)
    except Exception as e:  # whatever kept it from starting, the control did not happen
        await adapter.stop()
        said = (str(e).splitlines() or [""])[0]
        raise NotJudged("the control this criterion is judged beside never happened: the scheduler must start with "
                        "both gates on and bind an ordinary pod (watch pods, list nodes, bind); it did not start: "
                        f"{type(e).__name__}: {said}") from None
    try:
        async with Scenario(backend, sees_scheduler=adapter.through_backend,
                            scheduler_name=adapter.scheduler_name) as scenario:
            await scenario.create_node("n1")
            alive = await liveness(scenario)
            await control_met(scenario, replace(alive, needs=f"start with both gates on and {alive.needs}"))
    finally:
        await adapter.stop()


@pytest.mark.kep("KEP-5501", "Proposal (Note: dependency on SchedulerAsyncAPICalls)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=False)
@pytest.mark.criterion("kep5501.core.gate-dependency", reading=READINGS["defaults"],
                        control="feature: with both gates on, the same scheduler starts and binds an ordinary pod")
async def test_enabling_pod_status_without_async_api_calls_fails_to_start(sh_adapter: SchedulerAdapter | None, sh_backend: FakeBackend) -> None:
    """KEP-5501 Proposal: 'The enablement of this feature will be dependent on the
    SchedulerAsyncAPICalls feature gate being enabled.' Started on the backend with
    SchedulerPreEnqueuePodStatus=true and SchedulerAsyncAPICalls=false, the scheduler must refuse
    to start before it is ready and before it writes anything (no write of its in the backend's
    journal; the readiness probe's own are left out), saying why: its error (an exception in
    process, or the output of a process that exited non-zero) names both gates. It fails when
    the scheduler starts, when it writes first, and when it refuses for another reason: a
    scheduler that does not know SchedulerPreEnqueuePodStatus ('unrecognized feature gate') does
    not implement the KEP.

    Judged beside a control: then the same scheduler, started on the same backend with both
    gates on, must start and bind an ordinary pod (within 30 s); otherwise not judged, so a
    scheduler that refuses whatever the gates, or never schedules, does not pass."""
    if sh_adapter is None:
        pytest.skip("needs a scheduler: this run has --scheduler none")
    if not sh_adapter.restartable:
        raise Unsupported(f"this criterion starts the scheduler twice with gates of its own, and the scheduler "
                          f"{sh_adapter.name} cannot be started by the harness (a cluster's own kube-scheduler)")
    sh_adapter.scheduler_name = scheduler_name_for(sh_backend, sh_adapter)
    words = await _refused(sh_adapter, sh_backend)
    written = _scheduler_writes(sh_backend)
    assert not written, (
        f"expected the scheduler to refuse to start before any write; it wrote {len(written)} time(s) first:\n"
        + "\n".join(f"  #{e.seq} {e.verb} {e.path} -> {e.code}" for e in written))
    assert not UNKNOWN_GATE.search(words), (
        f"expected a refusal because of the gate dependency; the scheduler does not know "
        f"SchedulerPreEnqueuePodStatus at all: {UNKNOWN_GATE.search(words).group(0)!r}")  # type: ignore[union-attr]
    assert all(gate in words for gate in GATES), (
        f"expected the start failure to name both gates {GATES}, it said: {words[-2000:]}")
    await _starts_and_binds(sh_adapter, sh_backend)


#: How long after the scheduler saw one pod the next is made, when several are rejected together:
#: short of the delay, so every pod's report is pending while the others' are.
TOGETHER_GAP = 1.5


async def _rejected_in_turn(scenario: Scenario, pods: dict[str, str], devices: int) -> dict[str, float]:
    """Node n1 with ``devices`` devices; each pod of ``pods`` (its name: the one claim it names,
    which does not exist yet) made :data:`TOGETHER_GAP` s after the scheduler saw the one before.
    Returns when the scheduler saw each pod."""
    await dra_cluster(scenario, devices=devices)
    seen: dict[str, float] = {}
    for name, claim in pods.items():
        if seen:
            await scenario.advance(TOGETHER_GAP)
        created = await scenario.create_pod(name, "100m", claims=[claim])
        seen[name] = await scenario.seen("pods", created)
    return seen


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §3 (Preventing redundant API calls), §4, §5 (Rejection path)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.pods-rejected-together-same-message", reading=READINGS["events"],
                        control="feature: each pod is reported 5 s after the scheduler saw it, before the repeats are "
                                "counted")
async def test_pods_rejected_together_with_one_message_each_get_their_own_report(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'A pending status update will be cached for the Pod for a configurable
    duration (e.g., 5 seconds) ... If the delay period expires, the scheduler will asynchronously
    patch the Pod's status with the last-captured rejection message'; Design Details §3: 'A new
    field will be added to the PodInfo struct within the queue, for example,
    lastPreEnqueueRejectionMessage' (PRR: 'cache the last-reported status for each Pod'). The
    cache, the pending call and its delay belong to each pod.

    Pods p1, p2 and p3 name the same missing claim ``c`` (so the same rejection message), each made
    1.5 s after the scheduler saw the one before: all three reports are pending together. Each pod
    gets exactly one stored write setting PodScheduled=False/NotReadyForScheduling, 5 s after the
    scheduler saw that pod (within the slack; another pod's delay does not shorten it), all three
    with the same message, and each one NotReadyForScheduling event with that message. Then every
    pod's labels change (a re-evaluation with the same message) and a minute passes: still exactly
    that one write per pod. The count stands beside each pod's report, the feature itself: a
    scheduler that never writes fails."""
    seen = await _rejected_in_turn(scenario, {"p1": "c", "p2": "c", "p3": "c"}, devices=3)
    written = {name: await expect_not_ready_after(scenario, name, at) for name, at in seen.items()}
    messages = {name: (w.condition_after() or {}).get("message") for name, w in written.items()}
    assert len(set(messages.values())) == 1, (
        f"expected the same message on every pod rejected for the same missing claim: {messages}")
    for name in seen:
        await scenario.patch("pods", name, {"metadata": {"labels": {"touched": "yes"}}})
    await scenario.advance(watch_span(scenario, 60))
    await scenario.settle()
    for name, write in written.items():
        writes = condition_writes(scenario, name)
        assert [w.entry.seq for w in writes] == [write.entry.seq], (
            f"expected exactly one scheduler write of {scenario.namespace}/{name}'s PodScheduled condition, its own "
            f"report at t={write.time:.3f}; found {len(writes)}:\n{format_writes(writes)}")
        expect_one_not_ready_event(scenario, name, write)


@pytest.mark.kep("KEP-5501", "Proposal ('the pending update will be cancelled'); Design Details §4, §5 (Success path)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("kep5501.core.pods-released-apart", reading=READINGS["events"],
                        control="feature: pa is bound once its claim comes; pb is reported, then bound")
async def test_pods_rejected_together_and_released_apart_keep_their_own_writes(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'A pending status update will be cached for the Pod for a configurable
    duration (e.g., 5 seconds). If the Pod is retried and the rejection reason is resolved or
    changes during this period, the pending update will be cancelled or overwritten'; Design
    Details §4: the clear 'will also be delayed'. What one pod's pass cancels or delays is that
    pod's own update, never another's.

    Pod pa names missing claim ``a``; 1.5 s after the scheduler saw it, pod pb names missing claim
    ``b`` (another message). Claim ``a`` is made 2 s after the scheduler saw pa, inside pa's delay
    and while pb's report is pending: pa is bound with no scheduler write of its PodScheduled
    condition (the binding aside) and no NotReadyForScheduling event. pb gets exactly one stored
    NotReadyForScheduling write, 5 s after the scheduler saw pb (within the slack), and one event
    with its message. 10 s later claim ``b`` is made: pb is bound, with at most one clear, none
    earlier than 5 s after the scheduler saw the claim; a minute later neither pod has any other
    condition write. pa's quiet stands beside pa bound and pb reported, the feature itself: a
    scheduler that does neither fails."""
    seen = await _rejected_in_turn(scenario, {"pa": "a", "pb": "b"}, devices=2)
    await scenario.advance(max(0.0, seen["pa"] + 2 - scenario.now))
    await create_claim(scenario, "a")
    await scenario.eventually(scenario.pod_bound("pa"), within=DELAY)
    write = await expect_not_ready_after(scenario, "pb", seen["pb"])
    await scenario.advance(10)
    passed = await scenario.seen(CLAIMS, await create_claim(scenario, "b"))
    slack = scenario.slack
    await scenario.eventually(scenario.pod_bound("pb") & scenario.pod_condition("pb", "PodScheduled", status="True"),
                              within=max(0.0, passed + DELAY + slack.late - scenario.now))
    await scenario.advance(watch_span(scenario, 60))
    await scenario.settle()
    expect_no_condition_writes(scenario, "pa", "its rejection resolved within its own delay, while pb's was pending")
    sent = events(scenario, "pa", NOT_READY_FOR_SCHEDULING)
    assert sent == [], f"expected no NotReadyForScheduling event for pa, found: {'; '.join(map(str, sent))}"
    stored = [w for w in not_ready_writes(scenario, "pb") if w.applied]
    assert [w.entry.seq for w in stored] == [write.entry.seq], (
        f"expected pb's own report at t={write.time:.3f} as its only NotReadyForScheduling write; found "
        f"{len(stored)}:\n{format_writes(condition_writes(scenario, 'pb'))}")
    removed = [w for w in clears(scenario, "pb") if w.applied]
    early = [w for w in removed if w.time < passed + DELAY - slack.early]
    assert not early and len(removed) <= 1, (
        f"expected at most one clear of pb, no earlier than t={passed + DELAY:.3f} ({DELAY:g} s after the scheduler "
        f"saw claim b at t={passed:.3f}); pb's condition writes:\n{format_writes(condition_writes(scenario, 'pb'))}")
    expect_one_not_ready_event(scenario, "pb", write)
