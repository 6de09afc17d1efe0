"""KEP-5501 and conditions other writers own: the scheduler's writes change ``PodScheduled`` only.

A pod's ``status.conditions`` is shared: the kubelet, readiness-gate controllers
(``spec.readinessGates`` name condition types that an external controller sets through the status
subresource) and any other controller write their own condition types next to the scheduler's
``PodScheduled``. KEP-5501 adds writes of the scheduler's to that list ("it will add one entry to
the ``.status.conditions`` array of a Pod object", PRR, Scalability), delayed by 5 s, so the
other writers' conditions may be there before the scheduler decides, or appear while its write
waits out the delay, or while the write is in flight. A scheduler that writes the whole list
(a JSON merge patch or a PUT of the status) from the copy it had, without a resourceVersion
precondition, deletes them; one that patches by the merge key ``type`` (kube-scheduler's strategic
merge patch, ``docs/api-facts.md`` §status-write) or refuses and redoes a write whose copy is stale does not.

Each criterion has the scenario write foreign conditions through ``pods/<name>/status`` as another
controller would (a strategic merge patch: it adds its own elements and keeps the others) and
judges every stored write of the scheduler's to the pod by its effect
(:meth:`~harness._scenario.writes.Write.other_conditions_kept`): every condition other than ``PodScheduled``
is the same after the write as before it, and at the end every foreign condition is on the pod
exactly as the API server stored it. The rejection is DynamicResources' for a missing claim (the
KEP's user story); messages are not predicted.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fake_apiserver import Delay, FaultRule, Match
from harness import Scenario, condition_of
from suites._readings import READINGS
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    CLAIMS,
    DELAY,
    SETS_NOT_READY,
    Write,
    allocation_hold,
    clears,
    condition_writes,
    create_claim,
    dra_cluster,
    expect_gone_for_good,
    expect_not_ready_after,
    format_writes,
    not_ready_writes,
    require_faults,
    seen_by_scheduler,
    skip_if_other_nodes_schedulable,
    judged_only_if_held,
)

__all__: list[str] = []

Obj = dict[str, Any]

GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
HOLD = "example.com/hold"
FEATURE_READY = "example.com/FeatureReady"
AUDITED = "example.com/Audited"
#: When the foreign conditions say they last changed: a fixed time, as another controller's clock set it.
SET_AT = "2026-01-01T00:00:00Z"
READINESS_GATE: Obj = {"spec": {"readinessGates": [{"conditionType": FEATURE_READY}]}}


def _foreign(type_: str, reason: str, message: str) -> Obj:
    return {"type": type_, "status": "True", "reason": reason, "message": message, "lastTransitionTime": SET_AT}


FEATURE_READY_CONDITION = _foreign(FEATURE_READY, "FeatureProvisioned", "the example.com feature is provisioned")
AUDITED_CONDITION = _foreign(AUDITED, "PolicyAccepted", "admitted by the example.com audit controller")


# ---------------------------------------------------------------------- local helpers


async def write_foreign(scenario: Scenario, pod: str, *conditions: Obj) -> dict[str, Obj]:
    """Set ``conditions`` on ``pod`` as another controller would: a strategic merge patch of
    ``pods/<pod>/status`` (merge key ``type``: the pod's other conditions stay). Returns them as
    the API server stored them, by type: what every later state must show."""
    stored = await scenario.patch("pods", pod, {"status": {"conditions": list(conditions)}}, subresource="status")
    wanted = {c["type"] for c in conditions}
    return {str(c["type"]): c for c in (stored.get("status") or {}).get("conditions") or [] if c.get("type") in wanted}


def _others(obj: Obj | None) -> str:
    rows = [c for c in ((obj or {}).get("status") or {}).get("conditions") or [] if c.get("type") != "PodScheduled"]
    return ", ".join(f"{c.get('type')}={c.get('status')}" for c in rows) or "none"


def _lines(writes: list[Write]) -> str:
    return "\n".join(f"  {w.describe()}\n    other conditions before: {_others(w.before)}; after: {_others(w.after)}"
                     for w in writes) or "  (none)"


def expect_foreign_kept(scenario: Scenario, pod: str, shown: dict[str, Obj]) -> None:
    """Every stored write of the scheduler's to ``pod`` (status writes, the binding, any other)
    left the conditions other than ``PodScheduled`` as they were, and the pod shows each of
    ``shown`` exactly as stored (READINGS["other-conditions"])."""
    __tracebackhide__ = True
    writes = [w for w in scenario.writes(pod) if w.applied]
    lost = [w for w in writes if not w.other_conditions_kept("PodScheduled")]
    assert not lost, (
        f"expected every stored write of the scheduler's to {scenario.namespace}/{pod} to leave the conditions other "
        f"than PodScheduled as they were (READINGS['other-conditions']); {len(lost)} of {len(writes)} did not:\n"
        f"{_lines(lost)}")
    current = {t: condition_of(scenario.pod(pod), t) for t in shown}
    assert current == shown, (
        f"expected {scenario.namespace}/{pod} to still carry the conditions other writers set, exactly as stored:\n"
        f"  {json.dumps(shown, sort_keys=True)}\nit carries:\n  {json.dumps(current, sort_keys=True)}\n"
        f"the scheduler's stored writes:\n{_lines(writes)}")


async def claim_arrives_and_pod_is_bound(scenario: Scenario) -> None:
    """Claim ``gpu`` is created: the pod is bound, and its NotReadyForScheduling condition does
    not linger and does not come back."""
    await create_claim(scenario, "gpu")
    await scenario.eventually(scenario.pod_bound("p"), within=2 + scenario.slack.late)
    await expect_gone_for_good(scenario, "p")


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "PRR: Scalability ('it will add one entry to the .status.conditions array'); Proposal; "
                 "Design Details §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.foreign-conditions.kept-from-release-to-binding", reading=READINGS["other-conditions"])
async def test_conditions_set_before_the_pod_is_released_survive_every_scheduler_write(scenario: Scenario) -> None:
    """KEP-5501 PRR (Scalability): 'it will add one entry to the .status.conditions array of a Pod
    object when it is in a NotReadyForScheduling state'; Proposal: 'the scheduler will
    asynchronously patch the Pod's status with the last-captured rejection message'.

    Pod ``p`` names a readiness gate ``example.com/FeatureReady`` and claim ``gpu``, which does not
    exist, and is created held by a scheduling gate (the API server's ``SchedulingGated``
    condition). While it is gated another controller sets ``example.com/FeatureReady=True`` and
    ``example.com/Audited=True`` through the status subresource, so both are on the pod the
    scheduler evaluates when the gate is removed. Expected: ``PodScheduled=False/
    NotReadyForScheduling`` 5 s after the scheduler saw the release (one stored write); the claim
    is then created and the pod bound, the condition gone for good; every stored write of the
    scheduler's to the pod (the condition, a clear if any, the binding) leaves both foreign
    conditions as they were, and at the end the pod carries both exactly as stored."""
    await dra_cluster(scenario)
    await scenario.create_pod("p", claims=["gpu"], gates=[HOLD], manifest=READINESS_GATE)
    shown = await write_foreign(scenario, "p", FEATURE_READY_CONDITION, AUDITED_CONDITION)
    released = await scenario.seen("pods", await scenario.remove_gate("p", HOLD))
    await expect_not_ready_after(scenario, "p", released)
    await claim_arrives_and_pod_is_bound(scenario)
    expect_foreign_kept(scenario, "p", shown)


@pytest.mark.kep("KEP-5501", "PRR: Scalability ('it will add one entry to the .status.conditions array'); Proposal "
                 "('A pending status update will be cached for the Pod')")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.foreign-conditions.added-while-the-write-is-pending",
                       reading=READINGS["other-conditions"])
async def test_a_condition_added_while_the_delayed_write_is_pending_survives_it(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'A pending status update will be cached for the Pod for a configurable
    duration (e.g., 5 seconds) ... If the delay period expires, the scheduler will asynchronously
    patch the Pod's status'; PRR (Scalability): 'it will add one entry to the .status.conditions
    array'.

    Pod ``p`` claims ``gpu``, which does not exist; 2 s after the scheduler saw the pod, while its
    delayed write is pending, another controller adds ``example.com/Audited=True`` through the
    status subresource. Expected: ``PodScheduled=False/NotReadyForScheduling`` 5 s after the
    scheduler saw the pod (one stored write), and that write keeps ``example.com/Audited`` (a
    write of the whole list as the scheduler knew it when it enqueued the call would delete it);
    the claim is then created and the pod bound; every stored write of the scheduler's to the pod
    keeps the condition, and at the end it is there exactly as stored."""
    await dra_cluster(scenario)
    seen = await scenario.seen("pods", await scenario.create_pod("p", claims=["gpu"]))
    await scenario.advance(seen + 2 - scenario.now)
    shown = await write_foreign(scenario, "p", AUDITED_CONDITION)
    await expect_not_ready_after(scenario, "p", seen)
    await claim_arrives_and_pod_is_bound(scenario)
    expect_foreign_kept(scenario, "p", shown)


IN_FLIGHT = 2.0  # seconds the server holds the scheduler's write before serving it


@pytest.mark.kep("KEP-5501", "PRR: Scalability ('it will add one entry to the .status.conditions array'); "
                 "Design Details §4 (Asynchronous dispatch)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.foreign-conditions.added-while-the-write-is-in-flight",
                       reading=READINGS["other-conditions"])
async def test_a_condition_added_while_the_write_is_in_flight_survives_it(scenario: Scenario) -> None:
    """KEP-5501 Design Details §4: 'The status patch will be sent using the existing asynchronous
    API dispatcher'; PRR (Scalability): 'it will add one entry to the .status.conditions array of
    a Pod object when it is in a NotReadyForScheduling state.'

    Pod ``p`` claims ``gpu``, which never exists. The server holds the scheduler's write that sets
    ``NotReadyForScheduling`` (whatever request carries it) 2 s before serving it; while it is
    held, another controller adds ``example.com/Audited=True`` through the status subresource.
    The write was computed before that condition existed, so it must not carry a list without it
    unconditionally: a patch by merge key keeps it, a write with a resourceVersion precondition is
    refused (409 or 422) and may be redone from a fresh read. Expected: by 5 s + 2 s after the
    scheduler saw the pod (plus the slack) the pod shows ``PodScheduled=False/
    NotReadyForScheduling`` and ``example.com/Audited`` exactly as stored; every stored write of
    the scheduler's to the pod kept the conditions other than ``PodScheduled``."""
    require_faults(scenario)
    await dra_cluster(scenario)
    hold = await scenario.add_fault(FaultRule(Match(resource="pods", namespace=scenario.namespace, name="p",
                                                    effect=SETS_NOT_READY), Delay(IN_FLIGHT),
                                              name="not-ready-write-in-flight", times=1))
    seen = await scenario.seen("pods", await scenario.create_pod("p", claims=["gpu"]))
    slack = scenario.slack

    def write_held() -> bool:
        return hold.fired >= 1

    await scenario.eventually(write_held, within=seen + DELAY + slack.late - scenario.now)
    shown = await write_foreign(scenario, "p", AUDITED_CONDITION)
    not_ready = scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY)
    await scenario.eventually(not_ready, within=seen + DELAY + IN_FLIGHT + slack.late - scenario.now)
    await scenario.settle()
    stored = [w for w in not_ready_writes(scenario, "p") if w.applied]
    assert len(stored) == 1, (
        f"expected one stored write of {scenario.namespace}/p's NotReadyForScheduling condition; found {len(stored)}:\n"
        f"{format_writes(condition_writes(scenario, 'p'))}")
    expect_foreign_kept(scenario, "p", shown)


@pytest.mark.kep("KEP-5501", "PRR: Scalability; Design Details §4; Alternatives §4 ('either the PodScheduled condition "
                 "becoming True or the Unschedulable condition being added')")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.foreign-conditions.kept-through-unschedulable", reading=READINGS["other-conditions"])
async def test_conditions_of_other_writers_survive_the_unschedulable_write(scenario: Scenario) -> None:
    """KEP-5501 Alternatives §4: once the pod passes PreEnqueue, the scheduling cycle 'will then
    result in a new state: either the PodScheduled condition becoming True or the Unschedulable
    condition being added' (docs/api-facts.md §status-write: that write is a status patch of
    PodScheduled only);
    PRR (Scalability) on the feature's own write: 'one entry to the .status.conditions array'.

    Node ``n1`` has 1 CPU; pod ``p`` asks for 2, names a readiness gate ``example.com/FeatureReady``
    and is created gated; while gated another controller sets ``example.com/FeatureReady=True``
    and ``example.com/Audited=True``. The gate is removed: the pod passes PreEnqueue, fits no
    node, and shows ``PodScheduled=False/Unschedulable`` within 5 s. Node ``n2`` with 4 CPUs is
    added: the pod is bound within 15 s. Every stored write of the scheduler's to the pod (the
    Unschedulable condition, the binding, any other) leaves both foreign conditions as they were,
    and at the end the pod carries both exactly as stored."""
    skip_if_other_nodes_schedulable(scenario, "the pod could fit there")
    await seen_by_scheduler(scenario, ("nodes", await scenario.create_node("n1", cpu="1")))
    await scenario.create_pod("p", "2", gates=[HOLD], manifest=READINESS_GATE)
    shown = await write_foreign(scenario, "p", FEATURE_READY_CONDITION, AUDITED_CONDITION)
    await scenario.remove_gate("p", HOLD)
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason="Unschedulable"),
                              within=5)
    await scenario.create_node("n2", cpu="4")
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=15)
    expect_foreign_kept(scenario, "p", shown)


@pytest.mark.kep("KEP-5501", "Design Details §4 ('This \"clear\" operation will also be delayed'); PRR: Scalability")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.foreign-conditions.added-while-the-clear-is-pending",
                       reading=READINGS["other-conditions"])
async def test_a_condition_added_while_the_delayed_clear_is_pending_survives_it(scenario: Scenario) -> None:
    """KEP-5501 Design Details §4: 'a call to remove the NotReadyForScheduling condition will be
    enqueued. This "clear" operation will also be delayed'; PRR (Scalability): the feature adds
    'one entry to the .status.conditions array', so removing it removes that entry only.

    Pod ``p`` shows ``PodScheduled=False/NotReadyForScheduling`` (its claim ``gpu`` missing). The
    write that records ``gpu``'s allocation is then held 15 s by the server, so the binding cycle
    waits (READINGS["prebind-order"]; a scheduler that binds without such a write is skipped,
    saying so), and the claim is created: the pod passes PreEnqueue and a clear is due 5 s after
    the scheduler saw the claim. 2 s after it saw the claim, while the clear is pending, another
    controller adds ``example.com/Audited=True``. Expected: a stored write of the scheduler's
    removes the NotReadyForScheduling condition by 5 s after the scheduler saw the claim (plus the
    slack) and keeps ``example.com/Audited`` (a clear computed from the pod as it was when it was
    enqueued, sent as a whole list, or a strategic patch ``"conditions": null``, would delete it);
    the pod is then bound; every stored write of the scheduler's to the pod keeps the condition,
    and at the end it is there exactly as stored."""
    require_faults(scenario)
    await dra_cluster(scenario)
    seen = await scenario.seen("pods", await scenario.create_pod("p", claims=["gpu"]))
    await expect_not_ready_after(scenario, "p", seen)
    hold = await scenario.add_fault(allocation_hold("gpu", 15))
    passed = await scenario.seen(CLAIMS, await create_claim(scenario, "gpu"))
    await scenario.advance(passed + 2 - scenario.now)
    await judged_only_if_held(scenario, hold, "p", "no clear is pending while the binding waits")
    shown = await write_foreign(scenario, "p", AUDITED_CONDITION)
    slack = scenario.slack
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.eventually(~not_ready, within=passed + DELAY + slack.late - scenario.now)
    removed = [w for w in clears(scenario, "p") if w.applied]
    assert removed, (f"expected a stored write of the scheduler's removing {scenario.namespace}/p's NotReadyForScheduling "
                     f"condition while the binding waited; the scheduler's condition writes:\n"
                     f"{format_writes(condition_writes(scenario, 'p'))}")
    await scenario.eventually(scenario.pod_bound("p"), within=15 + slack.late)
    expect_foreign_kept(scenario, "p", shown)
