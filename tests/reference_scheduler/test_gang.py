"""The reference scheduler's KEP-4671 gangs (``scheduling.k8s.io/v1beta1`` PodGroups) against the
fake API server under virtual time, and what each ``gang-*`` mutant changes.

The fake serves PodGroups with ``--runtime-config scheduling.k8s.io/v1beta1=true`` and
``GenericWorkload`` on; the scheduler gets ``GenericWorkload`` too unless a test says otherwise.
Expected values come from kubernetes/kubernetes v1.37.2: ``pkg/scheduler/schedule_one_podgroup.go``
(the group cycle, the pods' and the PodGroup's writes), ``pkg/scheduler/framework/plugins/
gangscheduling/gangscheduling.go`` (PreEnqueue and PlacementFeasible messages),
``pkg/scheduler/framework/preemption/podgrouppreemption.go``, ``types.go`` and ``executor.go``
(pod-group preemption), ``pkg/scheduler/backend/queue/scheduling_queue.go`` (gated groups, retries).
The test plays the kubelet: it deletes a terminating victim with ``gracePeriodSeconds: 0``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from harness._time.virtual_time import run
from reference_scheduler import FeatureGates, Scheduler
from tests.support.reference_env import Env, with_env

Obj = dict[str, Any]
Observed = dict[str, Any]

PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups"
ON = FeatureGates(generic_workload=True)
CLASSES = {"low": 10, "high": 100}
NO_VICTIMS = "pod group preemption: No preemption victims found for incoming preemptor"


async def _setup(env: Env) -> None:
    for name, value in CLASSES.items():
        await env.post("/apis/scheduling.k8s.io/v1/priorityclasses", {
            "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value})
    await env.post("/apis/scheduling.k8s.io/v1/priorityclasses", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high-never"},
        "value": 100, "preemptionPolicy": "Never"})


async def _node(env: Env, name: str, cpu: str = "4") -> None:
    capacity = {"cpu": cpu, "memory": "8Gi", "pods": "110"}
    await env.post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                                     "status": {"capacity": capacity, "allocatable": capacity}})


async def _group(env: Env, name: str, min_count: int | None = None, cls: str | None = None,
                 disrupt_all: bool = False) -> Obj:
    spec: Obj = {"schedulingPolicy": {"gang": {"minCount": min_count}} if min_count else {"basic": {}}}
    if cls:
        spec["priorityClassName"] = cls
    if disrupt_all:
        spec["disruptionMode"] = {"all": {}}
    return await env.post(PG_PATH, {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                    "metadata": {"name": name}, "spec": spec})


async def _pod(env: Env, name: str, group: str | None, cpu: str = "1", *, cls: str | None = None,
               node: str | None = None, gated: bool = False) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "busybox:1", "resources": {"requests": {"cpu": cpu}}}]}
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    if cls:
        spec["priorityClassName"] = cls
    if node:
        spec["nodeName"] = node
    if gated:
        spec["schedulingGates"] = [{"name": "example.com/hold"}]
    return await env.create_pod(name, **spec)


def _scheduled(pod: Obj) -> tuple[str, str, str] | None:
    for c in pod["status"].get("conditions", []):
        if c["type"] == "PodScheduled":
            return c["status"], c.get("reason", ""), c.get("message", "")
    return None


async def _state(env: Env, *names: str) -> dict[str, Any]:
    """Per pod: its node, its nominated node and its PodScheduled (status, reason, message)."""
    out = {}
    for name in names:
        pod = await env.pod(name)
        out[name] = (pod["spec"].get("nodeName"), pod["status"].get("nominatedNodeName"), _scheduled(pod))
    return out


async def _group_condition(env: Env, name: str) -> tuple[str, str, str] | None:
    pg = await env.get(f"{PG_PATH}/{name}")
    for c in (pg.get("status") or {}).get("conditions") or []:
        if c["type"] == "PodGroupInitiallyScheduled":
            return c["status"], c["reason"], c["message"]
    return None


def _group_patches(env: Env, name: str) -> list[Obj]:
    return [r.body for r in env.requests if r.resource == "podgroups" and r.subresource == "status" and r.name == name]


async def _kubelet_deletes(env: Env, name: str) -> None:
    async with env.http.delete(f"/api/v1/namespaces/default/pods/{name}", json={"gracePeriodSeconds": 0}) as r:
        assert r.status == 200, await r.text()


def _deleted_by_scheduler(env: Env) -> list[str]:
    return [r.name for r in env.requests if r.verb == "delete" and r.resource == "pods" and r.body is None]


Scenario = Callable[[Env, "str | None", FeatureGates], Awaitable[Observed]]


def _observe(scenario: Scenario, mutant: str | None = None, gates: FeatureGates = ON,
             apiserver_gate: bool = True) -> Observed:
    async def main(env: Env) -> Observed:
        await _setup(env)
        return await scenario(env, mutant, gates)

    result: Observed = run(with_env(main, feature_gates={"GenericWorkload": apiserver_gate},
                                    runtime_config="scheduling.k8s.io/v1beta1=true"))
    return result


# -- holding --------------------------------------------------------------------------------------


async def missing_then_created(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """p1, p2 name PodGroup g, which appears at t=10 (a gang of 2)."""
    await _node(env, "n1")
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "p1", "g")
    await _pod(env, "p2", "g")
    await asyncio.sleep(10)
    before = await _state(env, "p1", "p2")
    writes = [(r.verb, r.resource, r.subresource, r.name) for r in env.requests if r.name in ("p1", "p2")
              or r.resource == "events"]
    await _group(env, "g", 2)
    await asyncio.sleep(2)
    return {"before": before, "writes before": writes, "after": await _state(env, "p1", "p2"),
            "group": await _group_condition(env, "g")}


def test_a_pod_whose_pod_group_is_missing_is_held_silently_then_joins_it() -> None:
    """With ``SchedulerPreEnqueuePodStatus`` off nothing is written while the PodGroup is missing
    (the pods sit in ``incompletePodGroupPods``); once it appears the gang is bound and the
    PodGroup gets ``PodGroupInitiallyScheduled=True``, reason ``Scheduled``, message ``""``."""
    gates = FeatureGates(generic_workload=True, pre_enqueue_pod_status=False)
    seen = _observe(missing_then_created, gates=gates)
    assert seen["before"] == {"p1": (None, None, None), "p2": (None, None, None)}
    assert [w for w in seen["writes before"] if w[0] != "create" or w[1] != "pods"] == []
    assert {k: v[0] for k, v in seen["after"].items()} == {"p1": "n1", "p2": "n1"}
    assert seen["group"] == ("True", "Scheduled", "")


def test_with_kep_5501_on_a_missing_pod_group_is_reported_as_a_pre_enqueue_rejection() -> None:
    """GangScheduling's own message, ``NotReadyForScheduling`` after KEP-5501's 5 s delay."""
    seen = _observe(missing_then_created)
    message = 'waiting for pods\'s pod group "g" to appear in scheduling queue'
    assert seen["before"] == {p: (None, None, ("False", "NotReadyForScheduling", message)) for p in ("p1", "p2")}
    assert {k: v[0] for k, v in seen["after"].items()} == {"p1": "n1", "p2": "n1"}


async def quorum(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """A gang of 3; p1 and p2 at t=0, p3 at t=10."""
    await _node(env, "n1")
    await _group(env, "g", 3)
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "p1", "g")
    await _pod(env, "p2", "g")
    await asyncio.sleep(10)
    before = await _state(env, "p1", "p2")
    await _pod(env, "p3", "g")
    await asyncio.sleep(2)
    return {"before": before, "after": await _state(env, "p1", "p2", "p3")}


def test_a_gang_below_min_count_waits_at_pre_enqueue() -> None:
    seen = _observe(quorum)
    message = "waiting for minCount pods from a gang to appear in scheduling queue"
    assert seen["before"] == {p: (None, None, ("False", "NotReadyForScheduling", message)) for p in ("p1", "p2")}
    assert {k: v[0] for k, v in seen["after"].items()} == {"p1": "n1", "p2": "n1", "p3": "n1"}


def test_gang_missing_group_ignored_binds_the_pods_of_a_missing_group_one_by_one() -> None:
    gates = FeatureGates(generic_workload=True, pre_enqueue_pod_status=False)
    seen = _observe(missing_then_created, "gang-missing-group-ignored", gates=gates)
    assert {k: v[0] for k, v in seen["before"].items()} == {"p1": "n1", "p2": "n1"}


def test_gang_min_count_off_by_one_schedules_two_of_three() -> None:
    seen = _observe(quorum, "gang-min-count-off-by-one")
    assert {k: v[0] for k, v in seen["before"].items()} == {"p1": "n1", "p2": "n1"}


async def gated_member(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """A gang of 2: p1 gated, p2 not; p1's gate is removed at t=10."""
    await _node(env, "n1")
    await _group(env, "g", 2)
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "p1", "g", gated=True)
    await _pod(env, "p2", "g")
    await asyncio.sleep(10)
    before = await _state(env, "p1", "p2")
    await env.patch_pod("p1", {"spec": {"schedulingGates": None}})
    await asyncio.sleep(2)
    return {"before": before, "p2 writes": len(env.status_patches("p2")), "after": await _state(env, "p1", "p2")}


def test_one_gated_member_holds_the_whole_group_and_only_it_is_reported() -> None:
    """The whole group entity is gated; p2 passed its own PreEnqueue, so it shows nothing."""
    seen = _observe(gated_member)
    assert seen["before"]["p1"][2] == ("False", "SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates")
    assert seen["before"]["p2"] == (None, None, None)
    assert seen["p2 writes"] == 0
    assert {k: v[0] for k, v in seen["after"].items()} == {"p1": "n1", "p2": "n1"}


def test_gang_ignores_gated_members_binds_the_ungated_pod_of_a_gang_of_one_more() -> None:
    """p2 alone is not the quorum of 2 here: the mutant passes it only with a third pod, so the
    gated member is left out of a gang of 2 made of p2 and p3."""
    async def three(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
        await _node(env, "n1")
        await _group(env, "g", 2)
        await env.start_scheduler(gates=gates, mutant=mutant)
        await _pod(env, "p1", "g", gated=True)
        await _pod(env, "p2", "g")
        await _pod(env, "p3", "g")
        await asyncio.sleep(10)
        return {k: v[0] for k, v in (await _state(env, "p1", "p2", "p3")).items()}

    assert _observe(three) == {"p1": None, "p2": None, "p3": None}
    assert _observe(three, "gang-ignores-gated-members") == {"p1": None, "p2": "n1", "p3": "n1"}


# -- placement ------------------------------------------------------------------------------------


async def too_big(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """n1 (4 cpu); a gang of 3 pods of 2 cpu: two fit, the third does not. n2 joins at t=20."""
    await _node(env, "n1")
    await _group(env, "g", 3)
    await env.start_scheduler(gates=gates, mutant=mutant)
    for name in ("p1", "p2", "p3"):
        await _pod(env, name, "g", "2")
    await asyncio.sleep(20)
    failed = await _state(env, "p1", "p2", "p3")
    events = len(env.events("p1", "FailedScheduling"))
    condition = await _group_condition(env, "g")
    await _node(env, "n2")
    await asyncio.sleep(11)
    return {"failed": failed, "p1 failures": events, "group failed": condition,
            "after": await _state(env, "p1", "p2", "p3"), "group": await _group_condition(env, "g"),
            "patches": len(_group_patches(env, "g")), "bindings": sum(len(env.bindings(p)) for p in ("p1", "p2", "p3"))}


GROUP_MESSAGE = f"minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, {NO_VICTIMS}"


def test_a_gang_that_cannot_reach_min_count_binds_nothing_and_is_retried() -> None:
    """p1 and p2 fit but the gang needs 3: nothing is bound, the placed pods get the group's
    message after ``pod group is unschedulable, `` (``errPodGroupUnschedulable``), p3 its own fit
    error; nobody keeps a nominated node. The group is retried with backoff (not parked: several
    ``FailedScheduling`` events in 20 s) and bound once n2 joins, the PodGroup condition turning True."""
    seen = _observe(too_big)
    assert seen["failed"] == {
        "p1": (None, None, ("False", "Unschedulable", f"pod group is unschedulable, {GROUP_MESSAGE}")),
        "p2": (None, None, ("False", "Unschedulable", f"pod group is unschedulable, {GROUP_MESSAGE}")),
        "p3": (None, None, ("False", "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.")),
    }
    assert seen["p1 failures"] >= 3
    assert seen["group failed"] == ("False", "Unschedulable", GROUP_MESSAGE)
    assert sorted(v[0] for v in seen["after"].values()) == ["n1", "n1", "n2"]
    assert seen["group"] == ("True", "Scheduled", "")
    assert seen["patches"] == 2  # False once (the message never changes), then True
    assert seen["bindings"] == 3


def test_gang_partial_binding_binds_the_pods_that_fit() -> None:
    seen = _observe(too_big, "gang-partial-binding")
    assert [v[0] for v in seen["failed"].values()] == ["n1", "n1", None]


def test_gang_reservation_leaked_leaves_the_placed_pods_nominated() -> None:
    seen = _observe(too_big, "gang-reservation-leaked")
    assert [v[1] for v in seen["failed"].values()] == ["n1", "n1", None]


async def too_big_for_long(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """As :func:`too_big` without n2, looked at after 200 s and after 320 s."""
    await _node(env, "n1")
    await _group(env, "g", 3)
    await env.start_scheduler(gates=gates, mutant=mutant)
    for name in ("p1", "p2", "p3"):
        await _pod(env, name, "g", "2")
    await asyncio.sleep(200)
    early = await _state(env, "p1", "p2", "p3")
    await asyncio.sleep(120)
    return {"early": [v[1] for v in early.values()],
            "late": [v[1] for v in (await _state(env, "p1", "p2", "p3")).values()]}


def test_gang_timeout_ignored_keeps_the_room_only_after_the_timeout() -> None:
    assert _observe(too_big_for_long) == {"early": [None, None, None], "late": [None, None, None]}
    assert _observe(too_big_for_long, "gang-timeout-ignored") == {"early": [None, None, None],
                                                                  "late": ["n1", "n1", None]}


async def basic(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """n1 (4 cpu); a basic group of 3 pods of 2 cpu."""
    await _node(env, "n1")
    await _group(env, "g")
    await env.start_scheduler(gates=gates, mutant=mutant)
    for name in ("p1", "p2", "p3"):
        await _pod(env, name, "g", "2")
    await asyncio.sleep(3)
    return {"pods": await _state(env, "p1", "p2", "p3"), "group": await _group_condition(env, "g")}


def test_a_basic_group_places_what_fits() -> None:
    """minCount is 1 for a basic group: the group succeeds, p3 gets its own fit error (no
    per-pod PostFilter in a group cycle: no preemption message)."""
    assert _observe(basic) == {
        "pods": {"p1": ("n1", None, ("True", "", "")), "p2": ("n1", None, ("True", "", "")),
                 "p3": (None, None, ("False", "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu."))},
        "group": ("True", "Scheduled", ""),
    }


async def late_member(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """A gang of 2 bound on n1 (4 cpu); p3 (1 cpu) joins at t=5."""
    await _node(env, "n1")
    await _group(env, "g", 2)
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "p1", "g")
    await _pod(env, "p2", "g")
    await asyncio.sleep(5)
    await _pod(env, "p3", "g")
    await asyncio.sleep(2)
    return {"pods": {k: v[0] for k, v in (await _state(env, "p1", "p2", "p3")).items()},
            "patches": len(_group_patches(env, "g"))}


def test_a_pod_joining_a_gang_that_reached_min_count_is_scheduled_alone() -> None:
    assert _observe(late_member) == {"pods": {"p1": "n1", "p2": "n1", "p3": "n1"}, "patches": 1}


def test_gang_late_member_held_keeps_the_late_pod_unbound() -> None:
    assert _observe(late_member, "gang-late-member-held")["pods"] == {"p1": "n1", "p2": "n1", "p3": None}


async def wrong_priority(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """A gang of 2 whose PodGroup has class high (100); its pods have no class (0)."""
    await _node(env, "n1")
    await _group(env, "g", 2, cls="high")
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "p1", "g")
    await _pod(env, "p2", "g")
    await asyncio.sleep(2)
    return {"pods": await _state(env, "p1", "p2"), "group": await _group_condition(env, "g")}


def test_a_pod_priority_other_than_the_groups_is_a_scheduler_error() -> None:
    message = ("all pods in a single pod group should have the same priority as the pod group's priority, "
               "got 0 and 100")
    assert _observe(wrong_priority) == {"pods": {p: (None, None, ("False", "SchedulerError", message))
                                                 for p in ("p1", "p2")},
                                        "group": ("False", "SchedulerError", message)}


async def gate_off(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """The API server keeps spec.schedulingGroup, the scheduler's gate is off; PodGroup g never exists."""
    await _node(env, "n1")
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "p1", "g")
    await _pod(env, "p2", "g")
    await asyncio.sleep(2)
    return {k: v[0] for k, v in (await _state(env, "p1", "p2")).items()}


def test_with_the_gate_off_scheduling_group_is_ignored() -> None:
    assert _observe(gate_off, gates=FeatureGates()) == {"p1": "n1", "p2": "n1"}


def test_without_podgroups_served_pods_of_a_group_wait_quietly() -> None:
    """The API server without GenericWorkload drops spec.schedulingGroup and serves no PodGroups;
    the scheduler with the gate on still schedules every pod (it has no group to wait for)."""
    assert _observe(gate_off, apiserver_gate=False) == {"p1": "n1", "p2": "n1"}


# -- preemption -----------------------------------------------------------------------------------


async def preempts(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """n1 (4 cpu) runs v1 (2 cpu) and v2 (1 cpu) of victim gang vg (low, disruptionMode all)
    and x (low, 1 cpu, alone). Gang hg (high, minCount 1) has h1 (2 cpu). Reprieving vg first
    (a PodGroup before a pod at equal priority) fails, x is reprieved: v1 and v2 go."""
    await _node(env, "n1")
    await _group(env, "vg", 2, cls="low", disrupt_all=True)
    hg = await _group(env, "hg", 1, cls="high")
    await _pod(env, "v1", "vg", "2", cls="low", node="n1")
    await _pod(env, "v2", "vg", "1", cls="low", node="n1")
    await _pod(env, "x", None, "1", cls="low", node="n1")
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "h1", "hg", "2", cls="high")
    await asyncio.sleep(0.5)
    deleted = _deleted_by_scheduler(env)
    v1 = await env.pod("v1")
    events = [(r.body["note"], r.body["related"]["kind"], r.body["related"]["name"]) for r in env.events("v1", "Preempted")]
    mid = await _state(env, "h1")
    group_mid = await _group_condition(env, "hg")
    await asyncio.sleep(1)
    group_retried = await _group_condition(env, "hg")
    for name in deleted:
        await _kubelet_deletes(env, name)
    await asyncio.sleep(11)
    return {"deleted": deleted, "uid": hg["metadata"]["uid"], "group retried": group_retried,
            "v1 target": [(c["status"], c["reason"], c["message"]) for c in v1["status"].get("conditions", [])
                          if c["type"] == "DisruptionTarget"],
            "v1 events": events, "h1": mid, "group": group_mid,
            "h1 at the end": (await env.pod("h1"))["spec"].get("nodeName"),
            "group at the end": await _group_condition(env, "hg")}


def test_a_gang_preempts_a_whole_victim_gang_and_binds_once_it_is_gone() -> None:
    """h1 is nominated to n1 with its own fit error (it did not fit in the attempt itself); the
    victims get DisruptionTarget, a DELETE and an event related to the PodGroup; the retry after
    the backoff finds the preemption going on; h1 binds once the kubelet removed the victims."""
    seen = _observe(preempts)
    message = ("minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, "
               "pod group preemption: found a placement for podgroup, preempting 2 victims")
    assert seen == {
        "deleted": ["v1", "v2"], "uid": seen["uid"],
        "v1 target": [("True", "PreemptionByScheduler",
                       "default-scheduler: preempting to accommodate a higher priority podgroup")],
        "v1 events": [(f"Preempted by podgroup {seen['uid']} on node cluster", "PodGroup", "hg")],
        "h1": {"h1": (None, "n1", ("False", "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu."))},
        "group": ("False", "Unschedulable", message),
        "group retried": ("False", "Unschedulable", "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, "
                                                    "pod group preemption: ongoing preemption on nominated nodes"),
        "h1 at the end": "n1", "group at the end": ("True", "Scheduled", ""),
    }


def test_gang_preempted_piecemeal_evicts_part_of_the_victim_gang() -> None:
    assert _observe(preempts, "gang-preempted-piecemeal")["deleted"] == ["v2", "x"]


async def single_victims(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """n1 and n2 (4 cpu) each run one pod (3 cpu) of victim gang vg (low, disruptionMode single);
    gang hg (high, minCount 1) has h1 (3 cpu)."""
    await _node(env, "n1")
    await _node(env, "n2")
    await _group(env, "vg", 2, cls="low")
    await _group(env, "hg", 1, cls="high")
    await _pod(env, "v1", "vg", "3", cls="low", node="n1")
    await _pod(env, "v2", "vg", "3", cls="low", node="n2")
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "h1", "hg", "3", cls="high")
    await asyncio.sleep(0.5)
    return {"deleted": len(_deleted_by_scheduler(env))}


def test_a_victim_gang_of_mode_single_loses_one_pod_and_gang_preempts_whole_groups_takes_both() -> None:
    assert _observe(single_victims) == {"deleted": 1}
    assert _observe(single_victims, "gang-preempts-whole-groups") == {"deleted": 2}


async def never(env: Env, mutant: str | None, gates: FeatureGates) -> Observed:
    """n1 (4 cpu) runs v (low, 4 cpu); gang hg (high-never, minCount 1) has h1 (2 cpu)."""
    await _node(env, "n1")
    await _group(env, "hg", 1, cls="high-never")
    await _pod(env, "v", None, "4", cls="low", node="n1")
    await env.start_scheduler(gates=gates, mutant=mutant)
    await _pod(env, "h1", "hg", "2", cls="high-never")
    await asyncio.sleep(2)
    return {"deleted": _deleted_by_scheduler(env), "group": await _group_condition(env, "hg")}


def test_a_gang_of_policy_never_preempts_nothing() -> None:
    assert _observe(never) == {"deleted": [], "group": (
        "False", "Unschedulable", "minCount (1) cannot be satisfied: 0 scheduled, 0 remaining, "
                                  "pod group preemption: not eligible due to preemptionPolicy=Never.")}


def test_never_watches_leaves_the_podgroups_unwatched_with_the_gate_on() -> None:
    """The control's informers are the pods' alone, the gate on or off; the reference with the
    gate on watches PodGroups, and only then."""

    async def main(env: Env) -> Observed:
        out = {}
        for name, gates, mutant in (("reference on", ON, None), ("reference off", FeatureGates(), None),
                                    ("never-watches on", ON, "never-watches")):
            s = Scheduler(env.server.kubeconfig, clock=env.clock, gates=gates, mutant=mutant)
            out[name] = sorted(i.path for i in s.informers if i.path.startswith("/apis/scheduling.k8s.io"))
            await s.client.close()
        return out

    assert run(with_env(main, feature_gates={"GenericWorkload": True},
                        runtime_config="scheduling.k8s.io/v1beta1=true")) == {
        "reference on": ["/apis/scheduling.k8s.io/v1beta1/podgroups"], "reference off": [], "never-watches on": []}
