"""KEP-5501 patch failure: the status patch is refused, or its connection dropped.

KEP-5501 ("Risks and Mitigations: Stale or missing Pod status on patch failure" and
"Troubleshooting") promises three things when the asynchronous status patch fails: scheduling is
not affected ("This failure is logged, but it does not crash the scheduler or affect the
scheduling"), the pod is not lost ("The scheduler's internal Pod state will not be affected by a
failed API call"), and the status is retried ("any subsequent event that causes the Pod to be
re-evaluated by the PreEnqueue plugins will trigger a retry of the status patch"). Each promise is
checked for each way the write can fail, as its own criterion: answered ``500``, ``503``, ``429``
(with ``Retry-After: 1``) or ``409``, or the connection dropped without an answer.

The rejected pod waits for a missing DRA claim (the KEP's user story); the cluster has a
DeviceClass and a ResourceSlice so that the claim, once created, can be allocated by any
scheduler. Fault rules target exactly the write they mean by its *effect*, whatever request
carries it (a strategic, merge or JSON patch, or a PUT of the status): the write that would set
``PodScheduled`` with reason ``NotReadyForScheduling`` (:data:`~suites._support.SETS_NOT_READY`),
or the write other than a binding that would remove it (:data:`~suites._support.CLEARS_NOT_READY`).

Why the retry criterion keeps the fault on until the scenario removes it, where the others fail
the patch once: a scheduler built on kube-scheduler's ``util.PatchPodStatus`` retries 500 and 503
at once by itself (``retry.OnError(retry.DefaultBackoff, ...)``, ``docs/api-facts.md`` §status-write), and
client-go's REST client retries an answer carrying ``Retry-After``, and a scheduler that writes by
PUT re-reads and retries a 409; a one-shot fault would be absorbed by those retries and the
criterion would wrongly fail a correct scheduler. Held on for 30 s, every such immediate retry
fails too, so the only way for the status to reach the pod is the re-evaluation the KEP promises.
"""

from __future__ import annotations

from typing import Any

import pytest

from fake_apiserver import CloseConnection, FaultRule, Match, Respond
from harness import Scenario
from suites._readings import READINGS
from suites._support import CLAIMS, CLEARS_NOT_READY, DELAY, SETS_NOT_READY
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    allocation_hold,
    create_claim,
    dra_cluster,
    format_writes,
    not_ready_writes,
    require_faults,
    judged_only_if_held,
    watch_span,
)

__all__: list[str] = []

Action = Respond | CloseConnection

GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
SENT_NOT_READY = "the write setting p's NotReadyForScheduling condition, 5 s after the scheduler saw the pod"

#: (id, action): the five ways a write fails
FAILURES: list[tuple[str, Action]] = [
    ("500", Respond(500)),
    ("503", Respond(503)),
    ("429", Respond(429, retry_after=1)),
    ("409", Respond(409)),
    ("dropped-connection", CloseConnection()),
]


def params(family: str, reading: str | None, control: str | None = None) -> list[Any]:
    """One ``pytest.param`` per failure, each its own criterion ``kep5501.patch-failure.<family>.<id>``
    (``control``: what its negative is judged beside)."""
    return [pytest.param(action, id=ident, marks=pytest.mark.criterion(
        f"kep5501.patch-failure.{family}.{ident}", reading=reading, control=control)) for ident, action in FAILURES]


# ---------------------------------------------------------------------- local helpers


def expect_fired(scenario: Scenario, rule: FaultRule, what: str, pod: str = "p") -> None:
    assert rule.fired >= 1, (
        f"expected {what} by t={scenario.now:.3f}, so that fault rule {rule.describe()!r} refused it; the rule "
        f"never fired. The scheduler's writes of {scenario.namespace}/{pod}:\n"
        f"{format_writes(scenario.writes(pod))}")


async def rejected_pod(scenario: Scenario) -> float:
    """Pod ``p`` claiming ``gpu``, which does not exist yet; returns when the scheduler saw it."""
    return await scenario.seen("pods", await scenario.create_pod("p", claims=["gpu"]))


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "Risks and Mitigations: Stale or missing Pod status on patch failure; Troubleshooting")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.parametrize("failure", params("scheduling-goes-on", None))
async def test_a_failed_status_patch_neither_stops_scheduling_nor_loses_the_pod(
        scenario: Scenario, failure: Action) -> None:
    """KEP-5501 Troubleshooting: 'If the kube-apiserver is unavailable, the request will fail. This
    failure is logged, but it does not crash the scheduler or affect the scheduling.' Risks and
    Mitigations: 'The scheduler's internal Pod state will not be affected by a failed API call.'

    Pod ``p`` waits for a missing claim; the write of its ``NotReadyForScheduling`` condition, due
    5 s after the scheduler saw it, fails once (this criterion's failure). Then a pod ``q`` without
    claims is created: it is bound. Then the claim is created: ``p`` is bound too (the scheduler did
    not lose it), and it carries no ``NotReadyForScheduling`` condition."""
    require_faults(scenario)
    await dra_cluster(scenario)
    rule = await scenario.add_fault(FaultRule(Match(resource="pods", namespace=scenario.namespace, name="p",
                                                    effect=SETS_NOT_READY), failure, name="refuse-not-ready", times=1))
    seen = await rejected_pod(scenario)
    await scenario.advance(seen + DELAY + scenario.slack.late - scenario.now)
    expect_fired(scenario, rule, SENT_NOT_READY)
    await scenario.create_pod("q")
    await scenario.eventually(scenario.pod_bound("q"), within=2 + scenario.slack.late)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=2 + scenario.slack.late)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.eventually(~not_ready, within=DELAY + scenario.slack.late)


RETRY_HOLD = 30.0  # seconds the fault stays on after the first failure


@pytest.mark.kep("KEP-5501", "Risks and Mitigations: Stale or missing Pod status on patch failure")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.parametrize("failure", params("retried-on-re-evaluation", READINGS["retry"],
                                           "feature: the scheduler sent the write the fault refused"))
async def test_a_failed_status_patch_is_retried_when_the_pod_is_re_evaluated(
        scenario: Scenario, failure: Action) -> None:
    """KEP-5501 Risks and Mitigations: 'Furthermore, any subsequent event that causes the Pod to be
    re-evaluated by the PreEnqueue plugins will trigger a retry of the status patch.'

    Pod ``p`` waits for a claim that never comes. Every write setting its ``NotReadyForScheduling``
    condition fails (this criterion's failure) until the scenario removes the rule, 30 s after the
    first failure; until then the pod shows no such condition. Then the pod is updated (a label
    added, an update event that re-runs PreEnqueue: READINGS["reevaluation"]). Expected: the
    condition appears within the delay after the update, and the journal shows the refused
    write(s), all before the update, then exactly one stored one, after it."""
    require_faults(scenario)
    await dra_cluster(scenario)
    rule = await scenario.add_fault(FaultRule(Match(resource="pods", namespace=scenario.namespace, name="p",
                                                    effect=SETS_NOT_READY), failure, name="refuse-not-ready"))
    seen = await rejected_pod(scenario)
    await scenario.advance(seen + DELAY + scenario.slack.late - scenario.now)
    expect_fired(scenario, rule, SENT_NOT_READY)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=RETRY_HOLD)
    await scenario.remove_fault(rule)
    updated = scenario.now
    await scenario.patch("pods", "p", {"metadata": {"labels": {"schedharness.io/touched": "1"}}})
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY),
                              within=DELAY + scenario.slack.late)

    writes = not_ready_writes(scenario, "p")
    failed = [w for w in writes if not w.applied]
    stored = [w for w in writes if w.applied]
    assert failed and all(w.time < updated for w in failed), (
        f"expected the refused write(s) of {scenario.namespace}/p's NotReadyForScheduling condition before the update at "
        f"t={updated:.3f}; found:\n{format_writes(writes)}")
    assert len(stored) == 1 and stored[0].time >= updated, (
        f"expected exactly one stored write of {scenario.namespace}/p's NotReadyForScheduling condition, after the "
        f"update at t={updated:.3f} (the retry on re-evaluation); found {len(stored)}:\n{format_writes(writes)}")


@pytest.mark.kep("KEP-5501", "Risks and Mitigations: Stale or missing Pod status on patch failure; Design Details §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.parametrize("failure", params("failed-clear-not-stale", READINGS["clear-writes"],
                                           "feature: the pod is bound before the quiet is judged"))
async def test_a_failed_clear_leaves_no_stale_condition_once_the_pod_is_re_evaluated(
        scenario: Scenario, failure: Action) -> None:
    """KEP-5501 Design Details §4: 'If the Pod is re-evaluated and passes the PreEnqueue stage
    shortly after a rejection, a call to remove the NotReadyForScheduling condition will be
    enqueued. This "clear" operation will also be delayed'; Alternatives §4: 'This ensures the
    condition is not stale.' Risks and Mitigations: 'The scheduler's internal Pod state will not be
    affected by a failed API call.'

    A clear goes out only when nothing overwrites it within the delay: a binding for the pod may
    replace a pending clear (READINGS["clear-or-binding"]). So the binding cycle after the pass is
    held up: the write recording the claim's allocation (READINGS["prebind-order"]) is answered
    only after 10 s. Pod ``p`` shows the condition 5 s after the scheduler saw it; then its claim
    is created and it passes PreEnqueue; the delayed clear (a write removing the condition,
    whatever its shape) is sent while the allocation write waits, and fails once (this
    criterion's failure). Expected: once the pod is re-evaluated (its scheduling cycle completes)
    it is bound and carries no ``NotReadyForScheduling`` condition, for good."""
    require_faults(scenario)
    await dra_cluster(scenario)
    seen = await rejected_pod(scenario)
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY),
                              within=seen + DELAY + scenario.slack.late - scenario.now)
    clear = await scenario.add_fault(FaultRule(Match(resource="pods", namespace=scenario.namespace, name="p",
                                                     effect=CLEARS_NOT_READY), failure, name="refuse-clear", times=1))
    hold = await scenario.add_fault(allocation_hold("gpu", 10.0))
    passed = await scenario.seen(CLAIMS, await create_claim(scenario, "gpu"))
    await scenario.advance(passed + DELAY + scenario.slack.late - scenario.now)
    await judged_only_if_held(scenario, hold, "p", "a clear cannot be told apart from the binding here")
    expect_fired(scenario, clear, f"the delayed clear of {scenario.namespace}/p, 5 s after the scheduler saw the claim")
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.eventually(scenario.pod_bound("p") & ~not_ready, within=10 + scenario.slack.late)
    await scenario.never(not_ready, within=watch_span(scenario, 60))
