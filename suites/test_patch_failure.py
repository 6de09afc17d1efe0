"""KEP-5501 patch failure: the status patch is refused, or its connection dropped.

KEP-5501 ("Risks and Mitigations: Stale or missing Pod status on patch failure" and
"Troubleshooting") promises three things when the asynchronous status patch fails: scheduling is
not affected ("This failure is logged, but it does not crash the scheduler or affect the
scheduling"), the pod is not lost ("The scheduler's internal Pod state will not be affected by a
failed API call"), and the status is retried ("any subsequent event that causes the Pod to be
re-evaluated by the PreEnqueue plugins will trigger a retry of the status patch"). Each promise is
checked for each way the patch can fail, as its own criterion: answered ``500``, ``503``, ``429``
(with ``Retry-After: 1``) or ``409``, or the connection dropped without an answer.

The rejected pod waits for a missing DRA claim (``could not find ResourceClaim "<namespace>/gpu"``,
``k8s-semantics.md`` B.4); the cluster has a DeviceClass and a ResourceSlice so that the claim,
once created, can be allocated by any scheduler. Fault rules target exactly the patch they mean
with a body predicate: the ``NotReadyForScheduling`` patch (a body writing that reason) or the
clear (a body deleting the ``PodScheduled`` element, the suite's reading of what the clear writes).

Why the retry criterion keeps the fault on until the scenario removes it, where the others fail
the patch once: a scheduler built on kube-scheduler's ``util.PatchPodStatus`` retries 500 and 503
at once by itself (``retry.OnError(retry.DefaultBackoff, ...)``, ``k8s-semantics.md`` C), and
client-go's REST client retries an answer carrying ``Retry-After``; a one-shot fault would be absorbed by those retries
and the criterion would wrongly fail a correct scheduler. Held on for 30 s, every such immediate
retry fails too, so the only way for the status to reach the pod is the re-evaluation the KEP
promises.
"""

from __future__ import annotations

from typing import Any

import pytest

from fake_apiserver import CloseConnection, Delay, FaultRule, JournalEntry, Match, Respond, body_contains
from harness import Scenario
from suites._readings import READINGS
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    create_claim,
    dra_cluster,
    journal_lines,
    missing_claim,
    require_faults,
    sets_not_ready,
    status_patches,
    watch_span,
)

__all__: list[str] = []

Obj = dict[str, Any]
Action = Respond | CloseConnection

DELAY = 5.0  # "The delay value will be hardcoded to a default of 5 seconds"
GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
DEVICE_CLASS = "gpu.example.com"  # also the driver's name (suites._support.add_devices)
CLAIMS = "resourceclaims.resource.k8s.io"
SENT_NOT_READY = "the NotReadyForScheduling status patch of p to be sent 5 s after the rejection"

#: the NotReadyForScheduling patch: a status patch writing that reason
NOT_READY_BODY = {"status": {"conditions": [{"reason": NOT_READY}]}}
#: the clear (READINGS["clear-writes"]): a status patch deleting the PodScheduled element
CLEAR_BODY = {"status": {"conditions": [{"$patch": "delete", "type": "PodScheduled"}]}}

#: (id, action): the five ways a status patch fails
FAILURES: list[tuple[str, Action]] = [
    ("500", Respond(500)),
    ("503", Respond(503)),
    ("429", Respond(429, retry_after=1)),
    ("409", Respond(409)),
    ("dropped-connection", CloseConnection()),
]


def params(family: str, reading: str | None) -> list[Any]:
    """One ``pytest.param`` per failure, each its own criterion ``kep5501.patch-failure.<family>.<id>``."""
    return [pytest.param(action, id=ident, marks=pytest.mark.criterion(
        f"kep5501.patch-failure.{family}.{ident}", reading=reading)) for ident, action in FAILURES]


# ---------------------------------------------------------------------- local helpers


def status_patch_of(scenario: Scenario, pod: str, body: Obj) -> Match:
    return Match(verb="patch", resource="pods", subresource="status", namespace=scenario.namespace, name=pod,
                 body=body_contains(body))


def ok(entry: JournalEntry) -> bool:
    """Answered 2xx (a dropped connection is journaled with code 0)."""
    return 200 <= entry.code < 300


def expect_fired(scenario: Scenario, rule: FaultRule, what: str, pod: str = "p") -> None:
    assert rule.fired >= 1, (
        f"expected {what} by t={scenario.now:.3f}, so that fault rule {rule.describe()!r} refused it; the rule "
        f"never fired. Status patches of {scenario.namespace}/{pod}:\n{journal_lines(scenario, status_patches(scenario, pod))}")


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "Risks and Mitigations: Stale or missing Pod status on patch failure; Troubleshooting")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.parametrize("failure", params("scheduling-goes-on", None))
async def test_a_failed_status_patch_neither_stops_scheduling_nor_loses_the_pod(
        scenario: Scenario, failure: Action) -> None:
    """KEP-5501 Troubleshooting: 'If the kube-apiserver is unavailable, the request will fail. This
    failure is logged, but it does not crash the scheduler or affect the scheduling.' Risks and
    Mitigations: 'The scheduler's internal Pod state will not be affected by a failed API call.'

    Pod ``p`` waits for a missing claim; its ``NotReadyForScheduling`` patch, due 5 s later, fails
    once (this criterion's failure). Then a pod ``q`` without claims is created: it is bound. Then
    the claim is created: ``p`` is bound too (the scheduler did not lose it), and it carries no
    ``NotReadyForScheduling`` condition."""
    require_faults(scenario)
    await dra_cluster(scenario)
    rule = await scenario.add_fault(FaultRule(status_patch_of(scenario, "p", NOT_READY_BODY), failure, name="refuse-not-ready",
                                              times=1))
    await scenario.create_pod("p", claims=["gpu"])
    await scenario.advance(DELAY + 0.5)
    expect_fired(scenario, rule, SENT_NOT_READY)
    await scenario.create_pod("q")
    await scenario.eventually(scenario.pod_bound("q"), within=2)
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=2)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.eventually(~not_ready, within=DELAY + 0.5)


RETRY_HOLD = 30.0  # seconds the fault stays on after the first failure


@pytest.mark.kep("KEP-5501", "Risks and Mitigations: Stale or missing Pod status on patch failure")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.parametrize("failure", params("retried-on-re-evaluation", READINGS["retry"]))
async def test_a_failed_status_patch_is_retried_when_the_pod_is_re_evaluated(
        scenario: Scenario, failure: Action) -> None:
    """KEP-5501 Risks and Mitigations: 'Furthermore, any subsequent event that causes the Pod to be
    re-evaluated by the PreEnqueue plugins will trigger a retry of the status patch.'

    Pod ``p`` waits for a claim that never comes. Every ``NotReadyForScheduling`` patch of ``p``
    fails (this criterion's failure) until the scenario removes the rule, 30 s after the first
    failure; until then the pod shows no such condition. Then the pod is updated (a label added,
    an update event that re-runs PreEnqueue: READINGS["reevaluation"]). Expected: the condition
    with the real message appears within the delay after the update, and the journal shows the
    failed patch(es), all before the update, then exactly one successful one, after it."""
    require_faults(scenario)
    await dra_cluster(scenario)
    rule = await scenario.add_fault(FaultRule(status_patch_of(scenario, "p", NOT_READY_BODY), failure, name="refuse-not-ready"))
    await scenario.create_pod("p", claims=["gpu"])
    await scenario.advance(DELAY + 0.5)
    expect_fired(scenario, rule, SENT_NOT_READY)
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=RETRY_HOLD)
    await scenario.remove_fault(rule)
    updated = scenario.now
    await scenario.patch("pods", "p", {"metadata": {"labels": {"schedharness.io/touched": "1"}}})
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "gpu")), within=DELAY + 0.5)

    patches = [e for e in status_patches(scenario, "p") if sets_not_ready(e)]
    failed = [e for e in patches if not ok(e)]
    succeeded = [e for e in patches if ok(e)]
    assert failed and all(e.time < updated for e in failed), (
        f"expected the refused NotReadyForScheduling patch(es) of {scenario.namespace}/p before the update at t={updated:.3f}; "
        f"found:\n{journal_lines(scenario, patches)}")
    assert len(succeeded) == 1 and succeeded[0].time >= updated, (
        f"expected exactly one successful NotReadyForScheduling patch of {scenario.namespace}/p, sent after the update at "
        f"t={updated:.3f} (the retry on re-evaluation); found {len(succeeded)}:\n{journal_lines(scenario, patches)}")


@pytest.mark.kep("KEP-5501", "Risks and Mitigations: Stale or missing Pod status on patch failure; Design Details §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.parametrize("failure", params("failed-clear-not-stale", READINGS["clear-writes"]))
async def test_a_failed_clear_leaves_no_stale_condition_once_the_pod_is_re_evaluated(
        scenario: Scenario, failure: Action) -> None:
    """KEP-5501 Design Details §4: 'If the Pod is re-evaluated and passes the PreEnqueue stage
    shortly after a rejection, a call to remove the NotReadyForScheduling condition will be
    enqueued. This "clear" operation will also be delayed'; Alternatives §4: 'This ensures the
    condition is not stale.' Risks and Mitigations: 'The scheduler's internal Pod state will not be
    affected by a failed API call.'

    A clear goes out only when nothing overwrites it within the delay: a binding or an
    ``Unschedulable`` patch for the pod replaces a pending delayed call (READINGS["delay-kept"]).
    So the scheduling cycle after the pass is held up: the DRA PreBind write of the claim's status
    (``PUT resourceclaims/gpu/status``) is answered only after 10 s. Pod ``p`` shows the condition
    from +5 s; at +10 s its claim is created and it passes PreEnqueue; the delayed clear (a status
    patch deleting the ``PodScheduled`` element, READINGS["clear-writes"]) is sent while PreBind
    waits and fails once (this criterion's failure). Expected: once the pod is re-evaluated (its
    scheduling cycle completes) it is bound and carries no ``NotReadyForScheduling`` condition, for
    good."""
    require_faults(scenario)
    await dra_cluster(scenario)
    t0 = scenario.now
    await scenario.create_pod("p", claims=["gpu"])
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "gpu")), within=DELAY + 0.5)
    clear = await scenario.add_fault(FaultRule(status_patch_of(scenario, "p", CLEAR_BODY), failure, name="refuse-clear", times=1))
    await scenario.add_fault(FaultRule(Match(verb="update", resource=CLAIMS, subresource="status", name="gpu"),
                                       Delay(10.0), name="slow-prebind", times=1))
    await scenario.advance(t0 + 10 - scenario.now)
    await create_claim(scenario, "gpu")
    await scenario.advance(DELAY + 0.5)
    expect_fired(scenario, clear, f"the delayed clear of {scenario.namespace}/p to be sent 5 s after it passed PreEnqueue")
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.eventually(scenario.pod_bound("p") & ~not_ready, within=10)
    await scenario.never(not_ready, within=watch_span(scenario, 60))
