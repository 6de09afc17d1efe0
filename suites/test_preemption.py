"""Preemption: what a scheduler with kube-scheduler's DefaultPreemption does at the API.

Every criterion is judged on effects: which pods the scheduler deleted, which condition it wrote
on a victim, when it set the preemptor's ``status.nominatedNodeName``, when the binding came. Any
way of writing them (patch of any type, PUT) passes. The sources: kube-scheduler's
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` (eligibility, victim
selection with PDB reprieve), ``pkg/scheduler/framework/preemption/preemption.go`` (candidates,
``pickOneNodeForPreemption``, ``prepareCandidate``: the ``DisruptionTarget`` condition, then the
delete, then the ``Preempted`` event), and the API: ``DisruptionTarget`` and its reason
``PreemptionByScheduler`` are ``v1.PodConditionType``/``v1.PodReason*`` constants; a bound pod
deleted with default options stays ``Terminating`` until its kubelet confirms (the kubelet
stand-in of each node, :mod:`harness._backends.kubelet`), and the binding of a deleting pod is refused.

Each scenario makes its own PriorityClasses (``<namespace>-low``, ``-mid``, ``-high``, values 10,
100, 1000) and victims bound by ``spec.nodeName`` with a grace period of :data:`GRACE` seconds, so
a victim's termination is short on real time too.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness import Expectation, Kubelet, Scenario, Write, condition_of, format_writes
from suites._priorities import GRACE
from suites._priorities import classes as _classes
from suites._priorities import any_deleted, deleted
from suites._priorities import deleted_by_scheduler as _deleted_by_scheduler
from suites._priorities import preemptor as _preemptor
from suites._priorities import victim as _victim
from suites._support import events, seen_by_scheduler

Obj = dict[str, Any]

#: How long a scheduler may take to act on a pod it can place by preemption (seconds).
ACT_WITHIN = 5.0
#: kube-scheduler's victim condition (``preemption.go``, ``prepareCandidate``; docs/api-facts.md §preemption).
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

#: No KEP describes DefaultPreemption's choices: the criteria name the upstream behaviour and its
#: sources (``kep(None, <sources>, upstream=<behaviour>)``), and claim no KEP.
UPSTREAM = "kube-scheduler DefaultPreemption"
SOURCES = ("pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go; "
           "pkg/scheduler/framework/preemption/preemption.go; docs/api-facts.md §preemption")


def _nomination(scenario: Scenario, pod: str) -> Write | None:
    """The scheduler's first write that set the pod's ``status.nominatedNodeName``."""
    for write in scenario.writes(pod):
        if write.applied and ((write.after or {}).get("status") or {}).get("nominatedNodeName") and not (
                (write.before or {}).get("status") or {}).get("nominatedNodeName"):
            return write
    return None


def _nominated(scenario: Scenario, pod: str) -> Expectation:
    return Expectation(f"the scheduler sets {scenario.namespace}/{pod}'s status.nominatedNodeName",
                       lambda: _nomination(scenario, pod) is not None,
                       lambda: f"{pod}'s nominatedNodeName: "
                               f"{((scenario.pod(pod) or {}).get('status') or {}).get('nominatedNodeName')!r}", (pod,))


def _binding(scenario: Scenario, pod: str) -> Write | None:
    return next((w for w in scenario.writes(pod) if w.applied and w.binding), None)


def _gone_at(scenario: Scenario, pod: str) -> float | None:
    """When the pod was removed from the API (its kubelet's confirmation, or any delete)."""
    for write in scenario.writes(pod, include_own=True):
        if write.applied and write.after is None and write.before is not None:
            return write.time
    return None


async def _two_candidates(scenario: Scenario) -> dict[str, str]:
    """n1 runs a (low, 3 cpu), n2 runs b (mid, 3 cpu); each node has 4 cpu."""
    classes = await _classes(scenario)
    n1 = await scenario.create_node("n1", cpu="4")
    n2 = await scenario.create_node("n2", cpu="4")
    await _victim(scenario, "a", "n1", "3", classes["low"])
    await _victim(scenario, "b", "n2", "3", classes["mid"])
    await seen_by_scheduler(scenario, ("nodes", n1), ("nodes", n2))
    return classes


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.lowest-victim-best-node")
async def test_the_lowest_priority_victim_on_the_best_node_is_preempted(scenario: Scenario) -> None:
    """``SelectVictimsOnNode`` takes only pods of lower priority; ``pickOneNodeForPreemption``
    prefers the node whose most important victim has the lowest priority. p (high, 2 cpu) fits
    nowhere; removing a (low) from n1 or b (mid) from n2 would each make room: a is deleted, b is
    not, and p ends bound to n1 once a is gone."""
    classes = await _two_candidates(scenario)
    await _preemptor(scenario, "p", "2", classes["high"])
    await scenario.eventually(scenario.pod_bound("p"), within=ACT_WITHIN + GRACE + ACT_WITHIN)
    removed = _deleted_by_scheduler(scenario, "a", "b")
    assert list(removed) == ["a"], (
        f"expected the scheduler to delete a (low priority, on n1) and nothing else; it deleted: "
        f"{sorted(removed) or 'nothing'}\nwrites of a:\n{format_writes(scenario.writes('a'))}\n"
        f"writes of b:\n{format_writes(scenario.writes('b'))}")
    node = (scenario.pod("p") or {}).get("spec", {}).get("nodeName")
    assert node == "n1", f"expected p bound to n1, where its victim was; it is bound to {node}"


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.victim-condition-and-event")
async def test_a_victim_gets_the_disruption_target_condition_before_its_deletion_and_an_event(
        scenario: Scenario) -> None:
    """``prepareCandidate``: before deleting a victim the scheduler writes its condition
    ``DisruptionTarget=True``, reason ``PreemptionByScheduler`` (API constants), message
    ``<schedulerName>: preempting to accommodate a higher priority pod``; after the delete it emits a
    ``Normal`` event, reason ``Preempted``, regarding the victim. The event's note is the
    scheduler's own and is not predicted."""
    classes = await _classes(scenario)
    n1 = await scenario.create_node("n1", cpu="4")
    victim = await _victim(scenario, "v", "n1", "3", classes["low"])
    await seen_by_scheduler(scenario, ("nodes", n1))
    await _preemptor(scenario, "p", "2", classes["high"])
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    deletion = _deleted_by_scheduler(scenario, "v")["v"]
    scheduler_name = victim["spec"].get("schedulerName", "default-scheduler")
    wanted = {"type": DISRUPTION_TARGET, "status": "True", "reason": PREEMPTION_BY_SCHEDULER,
              "message": f"{scheduler_name}: preempting to accommodate a higher priority pod"}
    marked = [w for w in scenario.writes("v") if w.applied and w.time <= deletion.time and w.entry.seq < deletion.entry.seq
              and _has(condition_of(w.after, DISRUPTION_TARGET), wanted)]
    assert marked, (f"expected a write setting {wanted} on v before the scheduler deleted it "
                    f"(t={deletion.time:.3f}); the scheduler's writes of v:\n{format_writes(scenario.writes('v'), DISRUPTION_TARGET)}")

    def preempted_event_regarding_v() -> bool:  # a plain callable: polled (an event is no pod change)
        return bool(events(scenario, "v", "Preempted"))

    await scenario.eventually(preempted_event_regarding_v, within=ACT_WITHIN)
    preempted = events(scenario, "v", "Preempted")
    assert [e.type for e in preempted] == ["Normal"], f"expected one Normal Preempted event for v, got {preempted}"


def _has(condition: Obj | None, wanted: Obj) -> bool:
    return condition is not None and all(condition.get(k) == v for k, v in wanted.items())


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.nominated-then-bound-after-victim")
async def test_the_preemptor_is_nominated_then_bound_only_once_its_victim_is_gone(scenario: Scenario) -> None:
    """The scheduling failure that started the preemption records ``status.nominatedNodeName``
    (``handleSchedulingFailure`` with the nominating info); the victim stays ``Terminating`` for
    its grace period of 5 s (its kubelet confirms then), and the preemptor's room is not free
    before: its binding comes after the victim is gone, to the nominated node."""
    classes = await _classes(scenario)
    n1 = await scenario.create_node("n1", cpu="4")
    await _victim(scenario, "v", "n1", "3", classes["low"])
    await seen_by_scheduler(scenario, ("nodes", n1))
    p = await _preemptor(scenario, "p", "2", classes["high"])
    seen = await scenario.seen("pods", p)
    await scenario.eventually(scenario.pod_bound("p"), within=ACT_WITHIN + GRACE + ACT_WITHIN)
    nomination, binding, gone = _nomination(scenario, "p"), _binding(scenario, "p"), _gone_at(scenario, "v")
    writes = format_writes(scenario.writes("p"))
    assert nomination is not None, f"expected the scheduler to set p's status.nominatedNodeName; its writes of p:\n{writes}"
    assert nomination.time <= seen + ACT_WITHIN + scenario.slack.late, (
        f"expected the nomination within {ACT_WITHIN} s of the scheduler seeing p (t={seen:.3f}), "
        f"it came at t={nomination.time:.3f}")
    nominated = ((nomination.after or {}).get("status") or {}).get("nominatedNodeName")
    assert gone is not None and binding is not None
    assert binding.time >= gone - scenario.slack.early, (
        f"expected p bound only after its victim v was gone (t={gone:.3f}); the binding came at "
        f"t={binding.time:.3f}\n{writes}")
    bound_to = ((binding.after or {}).get("spec") or {}).get("nodeName")
    assert bound_to == nominated == "n1", f"expected p nominated to and bound on n1; nominated {nominated}, bound {bound_to}"


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.slow-kubelet-delays-binding-not-nomination",
                        control="feature: the scheduler nominates p and deletes its victim before the binding is watched for")
async def test_a_slow_kubelet_delays_the_binding_not_the_nomination(scenario: Scenario) -> None:
    """The victim's node takes 10 s beyond the grace period to stop it: the nomination comes as
    fast as on a prompt node, the binding not before the victim is gone (grace + 10 s)."""
    classes = await _classes(scenario)
    n1 = await scenario.create_node("n1", cpu="4", kubelet=Kubelet(termination_delay=10))
    await _victim(scenario, "v", "n1", "3", classes["low"])
    await seen_by_scheduler(scenario, ("nodes", n1))
    p = await _preemptor(scenario, "p", "2", classes["high"])
    seen = await scenario.seen("pods", p)
    await scenario.eventually(_nominated(scenario, "p"), within=ACT_WITHIN)
    # the victim's deletion follows the nomination (on real time, a moment later)
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    deletion = _deleted_by_scheduler(scenario, "v").get("v")
    assert deletion is not None, f"expected the scheduler to delete v; its writes:\n{format_writes(scenario.writes('v'))}"
    await scenario.never(scenario.pod_bound("p"), within=max(0.0, deletion.time + GRACE + 10 - scenario.now - 0.5))
    await scenario.eventually(scenario.pod_bound("p"), within=ACT_WITHIN + 1)
    binding, gone = _binding(scenario, "p"), _gone_at(scenario, "v")
    assert binding is not None and gone is not None and binding.time >= gone - scenario.slack.early, (
        f"expected p bound after v was gone (t={gone}); bound at t={binding and binding.time}")
    nomination = _nomination(scenario, "p")
    assert nomination is not None and nomination.time <= seen + ACT_WITHIN + scenario.slack.late


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.policy-never", control="feature: p is reported PodScheduled=False/Unschedulable first "
                                                       "(the scheduler evaluated it and found no node)")
async def test_a_pod_with_preemption_policy_never_preempts_nothing(scenario: Scenario) -> None:
    """``PodEligibleToPreemptOthers``: a pod whose ``spec.preemptionPolicy`` is ``Never`` (from its
    PriorityClass, by priority admission) is not eligible: no victim is deleted, the pod is not
    nominated, and it stays ``PodScheduled=False`` reason ``Unschedulable``."""
    classes = await _classes(scenario, never="high")
    n1 = await scenario.create_node("n1", cpu="4")
    await _victim(scenario, "v", "n1", "3", classes["low"])
    await seen_by_scheduler(scenario, ("nodes", n1))
    await _preemptor(scenario, "p", "2", classes["high"])
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason="Unschedulable"),
                              within=ACT_WITHIN)
    await scenario.never(any_deleted(scenario, "v") | _nominated(scenario, "p"),
                         within=GRACE + ACT_WITHIN)
    victim = scenario.pod("v")
    assert victim is not None and not victim["metadata"].get("deletionTimestamp"), "v was marked for deletion"


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.pdb-avoided")
async def test_a_victim_a_disruption_budget_protects_is_avoided_when_another_choice_exists(
        scenario: Scenario) -> None:
    """``pickOneNodeForPreemption`` puts the fewest PodDisruptionBudget violations first. n1 runs
    v1 (low) whose PDB allows no disruption (``status.disruptionsAllowed: 0``, set by the scenario,
    as Kubernetes' own scheduler tests do: there is no disruption controller); n2 runs v2 (mid).
    Without the PDB, n1 would win (its victim has the lower priority); with it, v2 on n2 is
    preempted and v1 is left alone."""
    classes = await _classes(scenario)
    n1 = await scenario.create_node("n1", cpu="4")
    n2 = await scenario.create_node("n2", cpu="4")
    await _victim(scenario, "v1", "n1", "3", classes["low"], labels={"app": "guarded"})
    await _victim(scenario, "v2", "n2", "3", classes["mid"])
    pdb = await scenario.create("poddisruptionbudgets", {
        "metadata": {"name": "guard"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}}})
    pdb = await scenario.patch("poddisruptionbudgets", "guard", {"status": {
        "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1,
        "observedGeneration": pdb["metadata"].get("generation", 1)}}, type="merge", subresource="status")
    await seen_by_scheduler(scenario, ("nodes", n1), ("nodes", n2), ("poddisruptionbudgets", pdb))
    await _preemptor(scenario, "p", "2", classes["high"])
    await scenario.eventually(any_deleted(scenario, "v1", "v2"), within=ACT_WITHIN)
    await scenario.advance(1)
    removed = _deleted_by_scheduler(scenario, "v1", "v2")
    assert list(removed) == ["v2"], (f"expected the scheduler to preempt v2 (no budget) and spare v1 (budget allows "
                                     f"no disruption); it deleted {sorted(removed)}")


@pytest.mark.kep(None, SOURCES, upstream=UPSTREAM)
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.never-equal-or-higher", control="feature: p is reported PodScheduled=False/"
                                                                  "Unschedulable first (the scheduler evaluated it)")
async def test_pods_of_equal_or_higher_priority_are_never_victims(scenario: Scenario) -> None:
    """``SelectVictimsOnNode`` considers only pods of strictly lower priority. n1 (4 cpu) runs e
    (high, as the preemptor) and h (higher still, 1 cpu): p (high, 2 cpu) preempts nothing, is not
    nominated, and stays ``Unschedulable``."""
    classes = await _classes(scenario)
    top = f"{scenario.namespace}-top"
    await scenario.create("priorityclasses", {"metadata": {"name": top}, "value": 10000})
    n1 = await scenario.create_node("n1", cpu="4")
    await _victim(scenario, "e", "n1", "3", classes["high"])
    await _victim(scenario, "h", "n1", "1", top)
    await seen_by_scheduler(scenario, ("nodes", n1))
    await _preemptor(scenario, "p", "2", classes["high"])
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason="Unschedulable"),
                              within=ACT_WITHIN)
    await scenario.never(any_deleted(scenario, "e", "h") | _nominated(scenario, "p"),
                         within=GRACE + ACT_WITHIN)


@pytest.mark.kep("KEP-3521", "Proposal: a gated pod is not considered for scheduling (so not for preemption)")
@pytest.mark.feature_gates()
@pytest.mark.criterion("preemption.gated-pod-never-preempts",
                        control="feature: once its gate is removed, the same pod preempts v")
async def test_a_gated_pod_never_preempts(scenario: Scenario) -> None:
    """A pod with scheduling gates never reaches a scheduling cycle, so never PostFilter: while it
    is gated no pod is deleted for it; once its gate is removed it preempts like any other."""
    classes = await _classes(scenario)
    n1 = await scenario.create_node("n1", cpu="4")
    await _victim(scenario, "v", "n1", "3", classes["low"])
    await seen_by_scheduler(scenario, ("nodes", n1))
    p = await _preemptor(scenario, "p", "2", classes["high"], gates=["example.com/hold"])
    await scenario.seen("pods", p)
    await scenario.never(any_deleted(scenario, "v") | _nominated(scenario, "p"),
                         within=GRACE + ACT_WITHIN)
    await scenario.remove_gate("p", "example.com/hold")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
