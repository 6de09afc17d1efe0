"""Workload-aware scheduling (KEP-4671): gangs of ``scheduling.k8s.io/v1beta1`` PodGroups.

A pod joins a PodGroup by ``spec.schedulingGroup.podGroupName``; a PodGroup with
``schedulingPolicy.gang.minCount`` is a gang: none of its pods is bound until ``minCount`` of them
can all be placed, and then they all are. Every criterion is judged on effects at the API: which
pods were bound and when, which conditions the scheduler wrote on the pods and on the PodGroup,
which pods it deleted. The API server must serve the group (``--runtime-config
scheduling.k8s.io/v1beta1=true``) and every component must have ``GenericWorkload`` on (beta, off
by default in v1.37): each scenario asks for both, and on the fake they are its API server's.

Only the API's own strings are predicted: the condition type ``PodGroupInitiallyScheduled`` and
its reason ``Unschedulable`` (``k8s.io/api/scheduling/v1beta1``), the pod's ``PodScheduled``
reasons ``Unschedulable`` and ``NotReadyForScheduling`` (``k8s.io/api/core/v1``), the victim's
``DisruptionTarget``/``PreemptionByScheduler``. Where the KEP leaves a choice the criterion states
its reading (:mod:`suites._readings`, ``gang-*``) and says what kube-scheduler v1.37.2 does; the
sources are kube-scheduler's ``pkg/scheduler/schedule_one_podgroup.go`` (the pod group cycle, the
PodGroup condition), ``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go`` (quorum,
placement), ``pkg/scheduler/backend/queue/scheduling_queue.go`` (groups in the queue) and
``pkg/scheduler/framework/preemption/`` (pod group preemption).

Each negative ("never bound") is judged beside a positive in the same scenario (each marker's
``control=``): what the scheduler must then do once the missing condition is met.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness import Expectation, Scenario, format_writes
from suites._priorities import GRACE, classes, deleted, deleted_by_scheduler, victim
from suites._readings import READINGS
from suites._support import expect_not_ready_after, seen_by_scheduler, watch_span

__all__: list[str] = []

Obj = dict[str, Any]

GROUP = "scheduling.k8s.io/v1beta1"
RUNTIME = "scheduling.k8s.io/v1beta1=true"
GATES = {"GenericWorkload": True}
KEP5501 = {"GenericWorkload": True, "SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
#: How long a scheduler may take to act once it can (seconds).
ACT_WITHIN = 5.0
#: How long a gang that must not be bound is watched (virtual seconds; cut on real time).
QUIET = 30.0
INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"

KEP = "KEP-4671"
SOURCES = "kube-scheduler v1.37.2: schedule_one_podgroup.go, gangscheduling.go, scheduling_queue.go"


async def pod_group(scenario: Scenario, name: str, min_count: int | None = None, *, priority_class: str | None = None,
                    disrupt_all: bool = False) -> Obj:
    """A PodGroup: a gang of ``min_count`` (None: the ``basic`` policy)."""
    spec: Obj = {"schedulingPolicy": {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if disrupt_all:
        spec["disruptionMode"] = {"all": {}}
    return await scenario.create_object({"apiVersion": GROUP, "kind": "PodGroup", "metadata": {"name": name},
                                         "spec": spec})


async def member(scenario: Scenario, name: str, group: str, cpu: str = "1", *, priority_class: str | None = None,
                 gates: tuple[str, ...] = (), node: str | None = None) -> Obj:
    """A pod of ``group`` (``spec.schedulingGroup.podGroupName``), bound already to ``node`` if given."""
    spec: Obj = {"schedulingGroup": {"podGroupName": group}}
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node:
        spec["nodeName"] = node
        spec["terminationGracePeriodSeconds"] = GRACE
    return await scenario.create_pod(name, cpu, gates=gates, manifest={"spec": spec})


def bound(scenario: Scenario, *names: str) -> list[str]:
    return [n for n in names if ((scenario.pod(n) or {}).get("spec") or {}).get("nodeName")]


def any_bound(scenario: Scenario, *names: str) -> Expectation:
    return Expectation(f"one of {', '.join(names)} is bound", lambda: bool(bound(scenario, *names)),
                       lambda: f"bound: {bound(scenario, *names)}", names)


async def nodes(scenario: Scenario, *spec: tuple[str, str]) -> None:
    made = [await scenario.create_node(name, cpu=cpu) for name, cpu in spec]
    await seen_by_scheduler(scenario, *(("nodes", n) for n in made))


async def too_big(scenario: Scenario) -> None:
    """n1 (4 cpu) and a gang of 3, ``g``, whose pods ``a``, ``b``, ``c`` need 2 cpu each: room
    for two."""
    await nodes(scenario, ("n1", "4"))
    await pod_group(scenario, "g", 3)
    for name in ("a", "b", "c"):
        await member(scenario, name, "g", "2")


async def each_unschedulable(scenario: Scenario) -> None:
    """Each pod of :func:`too_big` shows ``PodScheduled=False``, reason ``Unschedulable``, within 5 s."""
    for name in ("a", "b", "c"):
        await scenario.eventually(scenario.pod_condition(name, "PodScheduled", status="False", reason="Unschedulable"),
                                  within=ACT_WITHIN)


# ---------------------------------------------------------------------- quorum and placement


@pytest.mark.kep(KEP, "Scheduler Changes: GangScheduling Plugin; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.quorum-then-whole",
                       control="feature: once the third pod exists, all three are bound")
async def test_no_pod_of_a_gang_is_bound_before_min_count_exist_then_all_are(scenario: Scenario) -> None:
    """A gang of 3 with two pods (room for all) binds none of them for 30 s; with the third, all
    three are bound within 5 s (v1.37: GangScheduling's PreEnqueue holds the group until
    ``minCount`` pods exist, then one pod group cycle places them together)."""
    await nodes(scenario, ("n1", "8"))
    await pod_group(scenario, "g", 3)
    for name in ("a", "b"):
        await seen_by_scheduler(scenario, ("pods", await member(scenario, name, "g")))
    await scenario.never(any_bound(scenario, "a", "b"), within=watch_span(scenario, QUIET))
    await member(scenario, "c", "g")
    await scenario.eventually(scenario.pods_bound("", count=3), within=ACT_WITHIN)


@pytest.mark.kep(KEP, "Scheduler Changes for v1.36: The Workload Scheduling Cycle, Failure Handling; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.cannot-fit-binds-none",
                       control="feature: once a second node gives the room, all three are bound")
async def test_a_gang_that_cannot_fit_whole_binds_none_and_says_so_on_each_pod(scenario: Scenario) -> None:
    """Room for two of a gang of 3 (4 cpu, pods of 2): none is bound for 30 s, and each shows
    ``PodScheduled=False`` with reason ``Unschedulable`` within 5 s (v1.37: every pod of a
    rejected group gets the group's failure). A second node brings all three."""
    await too_big(scenario)
    await each_unschedulable(scenario)
    await scenario.never(any_bound(scenario, "a", "b", "c"), within=watch_span(scenario, QUIET))
    await nodes(scenario, ("n2", "4"))
    await scenario.eventually(scenario.pods_bound("", count=3), within=ACT_WITHIN + 10)


@pytest.mark.kep(KEP, "Design Details: API; Scheduler Changes for v1.36: Failure Handling; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.podgroup-condition",
                       control="feature: the condition says True once the gang is placed")
async def test_the_pod_group_says_unschedulable_then_initially_scheduled(scenario: Scenario) -> None:
    """The PodGroup's condition ``PodGroupInitiallyScheduled`` (the API's: "status of the
    scheduling process for this PodGroup till first success") is ``False`` with the API's reason
    ``Unschedulable`` while the gang cannot be placed, and ``True`` once it is. (v1.37 writes it in
    each attempt that changes it; its message and its True reason are the scheduler's own.)"""
    await too_big(scenario)
    await scenario.expect_condition(GROUP, "PodGroup", "g", INITIALLY_SCHEDULED, status="False",
                                    reason="Unschedulable", within=ACT_WITHIN)
    await nodes(scenario, ("n2", "4"))
    await scenario.eventually(scenario.pods_bound("", count=3), within=ACT_WITHIN + 10)
    await scenario.expect_condition(GROUP, "PodGroup", "g", INITIALLY_SCHEDULED, status="True", within=ACT_WITHIN)


@pytest.mark.kep(KEP, "Scheduler Changes for v1.36: Scheduling Algorithm, Failure Handling; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.no-room-held",
                       reading=READINGS["gang-room"],
                       control="feature: the ordinary pod is bound into the room the gang could not use")
async def test_a_gang_that_failed_holds_no_room(scenario: Scenario) -> None:
    """After a gang of 3 failed for lack of room (it shows ``Unschedulable``), an ordinary pod
    that needs the whole node is bound within 5 s, and no pod of the gang is left nominated to a
    node (``status.nominatedNodeName``)."""
    await too_big(scenario)
    await each_unschedulable(scenario)
    await scenario.create_pod("o", "4")
    await scenario.eventually(scenario.pod_bound("o"), within=ACT_WITHIN)
    await scenario.settle()
    held = {n: ((scenario.pod(n) or {}).get("status") or {}).get("nominatedNodeName") for n in ("a", "b", "c")}
    assert not any(held.values()), f"expected no pod of the failed gang nominated to a node; nominated: {held}"
    assert not bound(scenario, "a", "b", "c"), f"expected no pod of the gang bound; bound: {bound(scenario, 'a', 'b', 'c')}"


#: kube-scheduler's longest wait of a gang's pods for their gang (GangScheduling's Permit timeout, seconds)
GANG_TIMEOUT = 300.0


@pytest.mark.kep(KEP, "Scheduler Changes: GangScheduling Plugin (the timeout); " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.no-room-held-after-the-timeout",
                       reading=READINGS["gang-room"],
                       control="feature: the ordinary pod is bound into the room the gang could not use")
async def test_a_gang_failing_past_the_timeout_holds_no_room(scenario: Scenario) -> None:
    """A gang's pods wait for their gang at most 300 s (kube-scheduler's GangScheduling Permit
    timeout). A gang of 3 with room for two keeps failing for 310 s; then an ordinary pod that
    needs the whole node is bound within 5 s, and no pod of the gang is nominated to a node."""
    await too_big(scenario)
    await each_unschedulable(scenario)
    await scenario.never(any_bound(scenario, "a", "b", "c"), within=watch_span(
        scenario, GANG_TIMEOUT + 10, whole="a room held past the timeout shows only after 300 s"))
    await scenario.create_pod("o", "4")
    await scenario.eventually(scenario.pod_bound("o"), within=ACT_WITHIN)
    await scenario.settle()
    held = {n: ((scenario.pod(n) or {}).get("status") or {}).get("nominatedNodeName") for n in ("a", "b", "c")}
    assert not any(held.values()), f"expected no pod of the failed gang nominated to a node; nominated: {held}"


@pytest.mark.kep(KEP, "Scheduler Changes: GangScheduling Plugin; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.late-member-alone")
async def test_a_pod_added_to_a_placed_gang_is_scheduled_alone(scenario: Scenario) -> None:
    """A gang of 2 placed; a third pod of it is bound on its own within 5 s (v1.37: the bound
    members count toward minCount, so the late pod passes alone)."""
    await nodes(scenario, ("n1", "8"))
    await pod_group(scenario, "g", 2)
    for name in ("a", "b"):
        await member(scenario, name, "g")
    await scenario.eventually(scenario.pods_bound("", count=2), within=ACT_WITHIN)
    await member(scenario, "c", "g")
    await scenario.eventually(scenario.pod_bound("c"), within=ACT_WITHIN)


@pytest.mark.kep(KEP, "Scheduler Changes for v1.36: Queuing and Ordering, Scheduling Algorithm; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.competing-whole-or-none",
                       control="feature: one of the two gangs is bound whole")
async def test_two_gangs_competing_for_one_gangs_room_end_one_whole_and_the_other_unbound(scenario: Scenario) -> None:
    """Two gangs of 3 (pods of 2 cpu) for 8 cpu, room for one gang and one pod more, their pods
    made in turn: one gang is bound whole within 5 s, and for 30 s no pod of the other is (no
    deadlock, no half-bound gang)."""
    await nodes(scenario, ("n1", "8"))
    for group in ("x", "y"):
        await pod_group(scenario, group, 3)
    for i in range(3):
        for group in ("x", "y"):
            await member(scenario, f"{group}{i}", group, "2")
    xs, ys = ("x0", "x1", "x2"), ("y0", "y1", "y2")

    def one_whole() -> bool:
        return len(bound(scenario, *xs)) == 3 or len(bound(scenario, *ys)) == 3

    await scenario.eventually(one_whole, within=ACT_WITHIN)
    other = ys if len(bound(scenario, *xs)) == 3 else xs
    await scenario.never(any_bound(scenario, *other), within=watch_span(scenario, QUIET))


@pytest.mark.kep(KEP, "Design Details: Associating Pod into PodGroups; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.waits-for-its-pod-group",
                       control="feature: once the PodGroup exists, its three pods are bound")
async def test_pods_whose_pod_group_does_not_exist_wait_for_it(scenario: Scenario) -> None:
    """Three pods name a PodGroup that does not exist: none is bound for 30 s (room for all);
    once the PodGroup (a gang of 3) is made, all three are bound within 5 s (v1.37 keeps such
    pods apart until the group appears)."""
    await nodes(scenario, ("n1", "8"))
    for name in ("a", "b", "c"):
        await seen_by_scheduler(scenario, ("pods", await member(scenario, name, "g")))
    await scenario.never(any_bound(scenario, "a", "b", "c"), within=watch_span(scenario, QUIET))
    await pod_group(scenario, "g", 3)
    await scenario.eventually(scenario.pods_bound("", count=3), within=ACT_WITHIN)


@pytest.mark.kep(KEP, "Scheduler Changes for v1.36: Queuing and Ordering; KEP-3521; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.gated-member-holds-the-group", reading=READINGS["gang-gated"],
                       control="feature: once the gate is removed, all three pods are bound")
async def test_a_gated_member_holds_its_whole_gang(scenario: Scenario) -> None:
    """A gang of 2 with three pods, the first made gated: none is bound for 30 s though the two
    others make the quorum; without the gate all three are bound within 5 s."""
    await nodes(scenario, ("n1", "8"))
    await pod_group(scenario, "g", 2)
    await seen_by_scheduler(scenario, ("pods", await member(scenario, "c", "g", gates=("example.com/hold",))))
    await member(scenario, "a", "g")
    await seen_by_scheduler(scenario, ("pods", await member(scenario, "b", "g")))
    await scenario.never(any_bound(scenario, "a", "b", "c"), within=watch_span(scenario, QUIET))
    await scenario.remove_gate("c", "example.com/hold")
    await scenario.eventually(scenario.pods_bound("", count=3), within=ACT_WITHIN)


# ---------------------------------------------------------------------- workload-aware preemption


async def _victim_gang(scenario: Scenario, low: str, *, disrupt_all: bool) -> None:
    """n1 and n2 (4 cpu each), each running one pod (3 cpu) of the low-priority gang ``v``."""
    await nodes(scenario, ("n1", "4"), ("n2", "4"))
    await pod_group(scenario, "v", 2, priority_class=low, disrupt_all=disrupt_all)
    await member(scenario, "v1", "v", "3", priority_class=low, node="n1")
    await member(scenario, "v2", "v", "3", priority_class=low, node="n2")


@pytest.mark.kep(KEP, "Scheduler Changes for v1.36: Workload-aware Preemption; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.preemption-takes-a-whole-victim-gang",
                       control="feature: the preemptor is bound once its victims are gone")
async def test_a_victim_gang_with_disruption_mode_all_is_preempted_whole(scenario: Scenario) -> None:
    """A high-priority gang of 1 (3 cpu) fits nowhere; the low-priority gang ``v`` (one pod on
    each node) has ``disruptionMode: all``: both of its pods are deleted by the scheduler though
    one node's room would do, and the preemptor is bound once they are gone (v1.37: a victim's
    group with ``disruptionMode.all`` is one victim)."""
    levels = await classes(scenario)
    await _victim_gang(scenario, levels["low"], disrupt_all=True)
    await pod_group(scenario, "p", 1, priority_class=levels["high"])
    await member(scenario, "p1", "p", "3", priority_class=levels["high"])
    await scenario.eventually(scenario.pod_bound("p1"), within=ACT_WITHIN + GRACE + ACT_WITHIN)
    await scenario.eventually(deleted(scenario, "v1", "v2"), within=ACT_WITHIN)
    removed = deleted_by_scheduler(scenario, "v1", "v2")
    assert sorted(removed) == ["v1", "v2"], (
        f"expected the scheduler to delete both pods of the victim gang; it deleted {sorted(removed)}\n"
        f"{format_writes(scenario.writes('v1'))}\n{format_writes(scenario.writes('v2'))}")


@pytest.mark.kep(KEP, "Scheduler Changes for v1.36: Workload-aware Preemption; " + SOURCES)
@pytest.mark.feature_gates(**GATES)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.preemption-takes-single-victims",
                       control="feature: the preemptor is bound once its victim is gone")
async def test_a_victim_gang_with_disruption_mode_single_loses_only_what_is_needed(scenario: Scenario) -> None:
    """As above with ``disruptionMode: single`` (the default): one pod of ``v`` is deleted, the
    other stays bound for 30 s, and the preemptor is bound."""
    levels = await classes(scenario)
    await _victim_gang(scenario, levels["low"], disrupt_all=False)
    await pod_group(scenario, "p", 1, priority_class=levels["high"])
    await member(scenario, "p1", "p", "3", priority_class=levels["high"])
    await scenario.eventually(scenario.pod_bound("p1"), within=ACT_WITHIN + GRACE + ACT_WITHIN)
    await scenario.never(deleted(scenario, "v1", "v2"), within=watch_span(scenario, QUIET))
    removed = deleted_by_scheduler(scenario, "v1", "v2")
    assert len(removed) == 1, f"expected exactly one pod of the victim gang deleted; deleted: {sorted(removed)}"


# ---------------------------------------------------------------------- KEP-5501 meets the gang


@pytest.mark.kep("KEP-5501", "Proposal; KEP-4671 Design Details: Associating Pod into PodGroups")
@pytest.mark.feature_gates(**KEP5501)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.kep5501.missing-pod-group-reported", reading=READINGS["gang-preenqueue"],
                       control="feature: once the PodGroup exists, the pod is bound")
async def test_a_pod_waiting_for_its_pod_group_is_reported_not_ready(scenario: Scenario) -> None:
    """With KEP-5501 on, a pod whose PodGroup does not exist shows ``PodScheduled=False``, reason
    ``NotReadyForScheduling`` and the scheduler's message, 5 s after the scheduler saw it (one
    write); once a basic PodGroup of that name exists, the pod is bound."""
    await nodes(scenario, ("n1", "8"))
    seen = await scenario.seen("pods", await member(scenario, "a", "g"))
    await expect_not_ready_after(scenario, "a", seen)
    await pod_group(scenario, "g")
    await scenario.eventually(scenario.pod_bound("a"), within=ACT_WITHIN)


@pytest.mark.kep("KEP-5501", "Proposal; KEP-4671 Scheduler Changes: GangScheduling Plugin")
@pytest.mark.feature_gates(**KEP5501)
@pytest.mark.runtime_config(RUNTIME)
@pytest.mark.criterion("gang.kep5501.quorum-wait-reported", reading=READINGS["gang-preenqueue"],
                       control="feature: once the second pod exists, both are bound")
async def test_a_gang_pod_waiting_for_its_quorum_is_reported_not_ready(scenario: Scenario) -> None:
    """With KEP-5501 on, the one pod of a gang of 2 shows ``NotReadyForScheduling`` 5 s after the
    scheduler saw it; with the second pod both are bound."""
    await nodes(scenario, ("n1", "8"))
    await pod_group(scenario, "g", 2)
    seen = await scenario.seen("pods", await member(scenario, "a", "g"))
    await expect_not_ready_after(scenario, "a", seen)
    await member(scenario, "b", "g")
    await scenario.eventually(scenario.pods_bound("", count=2), within=ACT_WITHIN)
