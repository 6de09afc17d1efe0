"""The reference scheduler's DefaultPreemption against the fake API server under virtual time.

Each scenario returns what it observed at the API (requests, pods, events); the reference must
observe exactly what kube-scheduler's source implies, and each preemption mutant something else in
at least one scenario. The expected values come from kubernetes/kubernetes:
``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` (eligibility, victims,
PDBs), ``pkg/scheduler/framework/preemption/preemption.go`` and ``executor.go`` (node choice, the
victim's condition, delete and event, the message), ``pkg/scheduler/framework/types.go``
(``FitError.Error``) and ``pkg/scheduler/framework/runtime/framework.go`` (nominated pods in
filters); ``docs/api-facts.md`` §status-write for the request shapes. The test plays the kubelet: it deletes a
terminating victim with ``gracePeriodSeconds: 0`` when it chooses.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any

import pytest

from harness._time.virtual_time import run
from reference_scheduler._mutants import SHAPES
from reference_scheduler._preemption import Candidate, pick_one_node, split_by_pdb_violation
from tests.support.reference_env import MERGE, Env, with_env

Obj = dict[str, Any]
Observed = dict[str, Any]

CLASSES = {"low": 10, "mid": 20, "high": 100}
TARGET = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
          "message": "default-scheduler: preempting to accommodate a higher priority pod"}


async def _classes(env: Env) -> None:
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


def _containers(cpu: str) -> list[Obj]:
    return [{"name": "c", "image": "busybox:1", "resources": {"requests": {"cpu": cpu}}}]


async def _pod(env: Env, name: str, cls: str, cpu: str, *, node: str | None = None,
               labels: Obj | None = None) -> Obj:
    spec: Obj = {"priorityClassName": cls, "containers": _containers(cpu)}
    if node:
        spec["nodeName"] = node  # already running there: a possible victim
    return await env.create_pod(name, labels=labels, **spec)


async def _kubelet_deletes(env: Env, name: str) -> None:
    async with env.http.delete(f"/api/v1/namespaces/default/pods/{name}", json={"gracePeriodSeconds": 0}) as r:
        assert r.status == 200, await r.text()


async def _pdb(env: Env, name: str, labels: Obj, allowed: int) -> None:
    """A PDB and its status as a disruption controller would write it (there is none)."""
    path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
    await env.post(path, {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
                          "spec": {"selector": {"matchLabels": labels}, "minAvailable": 1}})
    status = {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}
    async with env.http.patch(f"{path}/{name}/status", data=json.dumps({"status": status}), headers=MERGE) as r:
        assert r.status == 200, await r.text()


def _deleted_by_scheduler(env: Env) -> list[str]:
    """Pods the scheduler deleted (the test's own kubelet deletes carry a body)."""
    return [r.name for r in env.requests if r.verb == "delete" and r.resource == "pods" and r.body is None]


def _scheduled(pod: Obj) -> Obj:
    [cond] = [c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"]
    return cond


def _target(pod: Obj) -> Obj | None:
    found = [c for c in pod["status"].get("conditions", []) if c["type"] == "DisruptionTarget"]
    return {k: found[0][k] for k in ("type", "status", "reason", "message")} if found else None


Scenario = Callable[[Env, "str | None"], Awaitable[Observed]]


def _observe(scenario: Scenario, mutant: str | None) -> Observed:
    """Run ``scenario`` with the reference (``mutant`` None) or a mutant, after creating the
    classes of :data:`CLASSES` and ``high-never`` (100, ``preemptionPolicy: Never``)."""

    async def main(env: Env) -> Observed:
        await _classes(env)
        return await scenario(env, mutant)

    result: Observed = run(with_env(main))
    return result


# -- scenarios ----------------------------------------------------------------------------------


async def lowest_victim_on_the_best_node(env: Env, mutant: str | None) -> Observed:
    """n1 runs a (low, 2 cpu) and b (mid, 2 cpu); n2 runs c and d (mid, 2 cpu each); p (high,
    2 cpu) fits nowhere. On n1 only a is a victim (b is reprieved), on n2 one mid pod: the node
    with the lowest highest-priority victim is n1 (pickOneNodeForPreemption, criterion 2)."""
    await _node(env, "n1")
    await _node(env, "n2")
    await _pod(env, "a", "low", "2", node="n1")
    await _pod(env, "b", "mid", "2", node="n1")
    await _pod(env, "c", "mid", "2", node="n2")
    await _pod(env, "d", "mid", "2", node="n2")
    await env.start_scheduler(mutant=mutant)
    p = await _pod(env, "p", "high", "2")
    await asyncio.sleep(1)
    a = await env.pod("a")
    patches = env.status_patches("a")
    deletes = [r for r in env.requests if r.verb == "delete" and r.name == "a"]
    return {
        "deleted": _deleted_by_scheduler(env),
        "a terminating": bool(a["metadata"].get("deletionTimestamp")),
        "a condition": _target(a),
        "a writes": [(r.time, r.verb, r.subresource) for r in sorted([*patches, *deletes], key=env.requests.index)],
        "a events": [(r.body["type"], r.body["reason"], r.body["action"], r.body["note"], r.body["related"]["name"])
                     for r in env.events("a")],
        "uid": p["metadata"]["uid"],
        "p nominated": (await env.pod("p"))["status"].get("nominatedNodeName"),
    }


def test_the_lowest_priority_victim_on_the_best_node_is_preempted() -> None:
    """The victim gets DisruptionTarget (a status patch), then a DELETE with default options (it is
    bound, so it is only marked), then ``Normal Preempted``/``Preempting`` ``Preempted by pod <uid>
    on node n1`` related to the preemptor (``PreemptPod``); b, c and d are untouched."""
    seen = _observe(lowest_victim_on_the_best_node, None)
    assert seen == {
        "deleted": ["a"], "a terminating": True, "a condition": TARGET,
        "a writes": [(0.0, "patch", "status"), (0.0, "delete", "")],
        "a events": [("Normal", "Preempted", "Preempting", f"Preempted by pod {seen['uid']} on node n1", "p")],
        "uid": seen["uid"], "p nominated": "n1",
    }


async def bound_only_after_the_victim_is_gone(env: Env, mutant: str | None) -> Observed:
    """n1 (4 cpu) runs v (low, 4 cpu); p (high, 2 cpu) preempts v; the kubelet deletes v at t=5."""
    await _node(env, "n1")
    await _pod(env, "v", "low", "4", node="n1")
    await env.start_scheduler(mutant=mutant)
    await _pod(env, "p", "high", "2")
    await asyncio.sleep(1)
    mid = await env.pod("p")
    await asyncio.sleep(4)
    await _kubelet_deletes(env, "v")
    await asyncio.sleep(3)
    end = await env.pod("p")
    failure = [(r.time, r.verb, r.body) for r in env.requests if r.subresource == "status" and r.name == "p"][:1]
    return {
        "failure patch": failure,
        "p at 1 s": (mid["spec"].get("nodeName"), mid["status"].get("nominatedNodeName")),
        "bindings": [(r.time, r.body["target"]["name"]) for r in env.bindings("p") if r.code == 201],
        "p at the end": (end["spec"].get("nodeName"), end["status"].get("nominatedNodeName"),
                         _scheduled(end)["status"]),
    }


def test_the_preemptor_is_nominated_with_the_failure_and_bound_only_once_the_victim_is_gone() -> None:
    """The failure's status patch carries ``nominatedNodeName: n1`` with the fit error, without a
    PostFilter message (the preemption succeeded: ``FitError.Error`` appends none); the victim is
    counted while it terminates, so the binding waits for its deletion (the assigned-pod delete
    requeues p; its backoff is over); the binding clears the nomination."""
    assert _observe(bound_only_after_the_victim_is_gone, None) == {
        "failure patch": [(0.0, "patch", {"status": {
            "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastProbeTime": None,
                            "lastTransitionTime": "2026-01-01T00:00:00Z",
                            "message": "0/1 nodes are available: 1 Insufficient cpu."}],
            "nominatedNodeName": "n1"}})],
        "p at 1 s": (None, "n1"),
        "bindings": [(5.0, "n1")],
        "p at the end": ("n1", None, "True"),
    }


async def never_preempts(env: Env, mutant: str | None) -> Observed:
    """n1 (4 cpu) runs v (low, 4 cpu); p (value 100, preemptionPolicy Never, 2 cpu)."""
    await _node(env, "n1")
    await _pod(env, "v", "low", "4", node="n1")
    await env.start_scheduler(mutant=mutant)
    await _pod(env, "p", "high-never", "2")
    await asyncio.sleep(2)
    p = await env.pod("p")
    return {"deleted": _deleted_by_scheduler(env), "message": _scheduled(p)["message"],
            "nominated": p["status"].get("nominatedNodeName")}


def test_a_pod_with_preemption_policy_never_preempts_nothing() -> None:
    """``PodEligibleToPreemptOthers``: ``not eligible due to preemptionPolicy=Never.``, after
    ``preemption: `` (``PostFilter``), after DynamicResources' PostFilter rejection (``no new
    claims to deallocate``, joined with ``, ``), after the fit error and a space (``FitError.Error``)."""
    assert _observe(never_preempts, None) == {
        "deleted": [], "nominated": None,
        "message": "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
    }


async def equal_priority(env: Env, mutant: str | None) -> Observed:
    """n1 (4 cpu) runs v (high, 4 cpu); p (high, 2 cpu)."""
    await _node(env, "n1")
    await _pod(env, "v", "high", "4", node="n1")
    await env.start_scheduler(mutant=mutant)
    await _pod(env, "p", "high", "2")
    await asyncio.sleep(2)
    p = await env.pod("p")
    return {"deleted": _deleted_by_scheduler(env), "message": _scheduled(p)["message"],
            "nominated": p["status"].get("nominatedNodeName")}


def test_a_pod_of_equal_priority_is_never_a_victim() -> None:
    """``isPreemptionAllowed`` wants a strictly lower priority; no victim on the one potential node
    is ``No preemption victims found for incoming pod`` in the evaluator's own fit error."""
    assert _observe(equal_priority, None) == {
        "deleted": [], "nominated": None,
        "message": "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: "
                   "1 No preemption victims found for incoming pod.",
    }


def test_nodes_preemption_cannot_help_are_named() -> None:
    """A node p's request exceeds (``InsufficientResource.Unresolvable``) and a node whose selector
    p does not match are not candidates: ``Preemption is not helpful for scheduling``."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1", cpu="1")
        await env.post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
                                         "spec": {"unschedulable": True},
                                         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
        await env.start_scheduler(mutant=mutant)
        await _pod(env, "p", "high", "2")
        await asyncio.sleep(2)
        return {"message": _scheduled(await env.pod("p"))["message"], "deleted": _deleted_by_scheduler(env)}

    assert _observe(scenario, None) == {"deleted": [], "message": (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. "
        "no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")}


async def pdb_avoided(env: Env, mutant: str | None) -> Observed:
    """n1 runs v1 (low, 4 cpu, guarded by a PDB allowing no disruption), n2 runs v2 (mid, 4 cpu);
    p (high, 2 cpu). n1 has one PDB violation, n2 none: n2 wins (criterion 1) although its victim
    has the higher priority."""
    await _node(env, "n1")
    await _node(env, "n2")
    await _pdb(env, "guard", {"app": "guarded"}, 0)
    await _pod(env, "v1", "low", "4", node="n1", labels={"app": "guarded"})
    await _pod(env, "v2", "mid", "4", node="n2", labels={"app": "free"})
    await env.start_scheduler(mutant=mutant)
    await _pod(env, "p", "high", "2")
    await asyncio.sleep(1)
    return {"deleted": _deleted_by_scheduler(env), "nominated": (await env.pod("p"))["status"].get("nominatedNodeName")}


def test_a_pdb_protected_victim_is_avoided_when_another_node_violates_none() -> None:
    assert _observe(pdb_avoided, None) == {"deleted": ["v2"], "nominated": "n2"}


def test_a_pdb_protected_victim_is_taken_when_it_is_the_only_choice() -> None:
    """A PDB only orders the choice (``filterPodsWithPDBViolation``, then reprieve): a violating
    victim is still a victim when nothing else makes room."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await _pdb(env, "guard", {"app": "guarded"}, 0)
        await _pod(env, "v1", "low", "4", node="n1", labels={"app": "guarded"})
        await env.start_scheduler(mutant=mutant)
        await _pod(env, "p", "high", "2")
        await asyncio.sleep(1)
        return {"deleted": _deleted_by_scheduler(env),
                "nominated": (await env.pod("p"))["status"].get("nominatedNodeName")}

    assert _observe(scenario, None) == {"deleted": ["v1"], "nominated": "n1"}


async def nominated_room_kept(env: Env, mutant: str | None) -> Observed:
    """n1 (4 cpu) runs v (low, 4 cpu); p (high, 3 cpu) preempts v at t=0 and backs off until t=1;
    the kubelet deletes v at t=0.5; l (mid, 3 cpu) arrives at t=0.6, while p is nominated to n1."""
    await _node(env, "n1")
    await _pod(env, "v", "low", "4", node="n1")
    await env.start_scheduler(mutant=mutant)
    await _pod(env, "p", "high", "3")
    await asyncio.sleep(0.5)
    await _kubelet_deletes(env, "v")
    await asyncio.sleep(0.1)
    await _pod(env, "l", "mid", "3")
    await asyncio.sleep(3)
    p, l_pod = await env.pod("p"), await env.pod("l")
    return {"p": p["spec"].get("nodeName"), "l": l_pod["spec"].get("nodeName"),
            "l message": _scheduled(l_pod).get("message")}


def test_a_lower_priority_pod_cannot_take_the_nominated_room() -> None:
    """``addGENominatedPods``: p, nominated to n1 with a priority >= l's, counts on n1 in l's
    filters; l cannot preempt (its only lower-priority pod is gone)."""
    assert _observe(nominated_room_kept, None) == {
        "p": "n1", "l": None,
        "l message": "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: "
                     "1 No preemption victims found for incoming pod.",
    }


def test_a_higher_priority_pod_may_take_a_lower_priority_pods_nominated_room() -> None:
    """Only nominated pods of at least the filtered pod's priority count: with l (mid) nominated
    to n1, h (high, 3 cpu) created after the victim is gone binds there at once."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await _pod(env, "v", "low", "4", node="n1")
        await env.start_scheduler(mutant=mutant)
        await _pod(env, "l", "mid", "3")
        await asyncio.sleep(0.5)
        nominated = (await env.pod("l"))["status"].get("nominatedNodeName")
        await _kubelet_deletes(env, "v")
        await asyncio.sleep(0.1)
        await _pod(env, "h", "high", "3")
        await asyncio.sleep(0.1)
        return {"l nominated": nominated, "h": (await env.pod("h"))["spec"].get("nodeName"),
                "h bound at": [r.time for r in env.bindings("h")]}

    assert _observe(scenario, None) == {"l nominated": "n1", "h": "n1", "h bound at": [0.6]}


@pytest.mark.parametrize("variant", [m.name for m in SHAPES])
def test_the_shape_variants_preempt_alike(variant: str) -> None:
    """The victim's condition and the nomination go through the scheduler's condition writer, so a
    shape variant's other request has the same effect on the pods."""

    def effects(seen: Observed, *requests: str) -> Observed:
        return {k: v for k, v in seen.items() if k not in ("uid", "a events", *requests)}

    for scenario, requests in ((lowest_victim_on_the_best_node, "a writes"),
                               (bound_only_after_the_victim_is_gone, "failure patch")):
        assert effects(_observe(scenario, variant), requests) == effects(_observe(scenario, None), requests)


async def gated_preemptor(env: Env, mutant: str | None) -> Observed:
    """n1 (4 cpu) runs v (low, 4 cpu); p (high, 2 cpu) is created with a scheduling gate, removed at t=10."""
    await _node(env, "n1")
    await _pod(env, "v", "low", "4", node="n1")
    await env.start_scheduler(mutant=mutant)
    await env.create_pod("p", priorityClassName="high", containers=_containers("2"),
                         schedulingGates=[{"name": "example.com/hold"}])
    await asyncio.sleep(10)
    gated = {"deleted": _deleted_by_scheduler(env), "nominated": (await env.pod("p"))["status"].get("nominatedNodeName")}
    await env.patch_pod("p", {"spec": {"schedulingGates": None}})
    await asyncio.sleep(1)
    return {"while gated": gated, "after": _deleted_by_scheduler(env)}


def test_a_gated_pod_preempts_only_once_its_gate_is_gone() -> None:
    """A gated pod never reaches a scheduling cycle, so never PostFilter."""
    assert _observe(gated_preemptor, None) == {"while gated": {"deleted": [], "nominated": None}, "after": ["v"]}


# -- every mutant differs ---------------------------------------------------------------------

REFERENCE: dict[str, Scenario] = {
    "no-disruption-target": lowest_victim_on_the_best_node,
    "binds-before-victims-gone": bound_only_after_the_victim_is_gone,
    "no-nomination": nominated_room_kept,
    "ignores-preemption-policy-never": never_preempts,
    "preempts-equal-priority": equal_priority,
    "ignores-pdb": pdb_avoided,
    "prefers-higher-priority-victim": lowest_victim_on_the_best_node,
    "checks-gates-at-permit": gated_preemptor,
}


@pytest.mark.parametrize("mutant", sorted(REFERENCE))
def test_each_preemption_mutant_observes_something_else(mutant: str) -> None:
    scenario = REFERENCE[mutant]
    reference, broken = _observe(scenario, None), _observe(scenario, mutant)
    reference.pop("uid", None)
    broken.pop("uid", None)
    assert broken != reference


def test_what_the_mutants_do_instead() -> None:
    """The difference each mutant makes, in the scenario that shows it."""
    assert _observe(lowest_victim_on_the_best_node, "no-disruption-target")["a writes"] == [(0.0, "delete", "")]
    broken = _observe(bound_only_after_the_victim_is_gone, "binds-before-victims-gone")
    assert broken["bindings"] == [(1.0, "n1")]  # at the end of its 1 s backoff, the victim still terminating
    assert _observe(never_preempts, "ignores-preemption-policy-never")["deleted"] == ["v"]
    assert _observe(equal_priority, "preempts-equal-priority")["deleted"] == ["v"]
    assert _observe(pdb_avoided, "ignores-pdb") == {"deleted": ["v1"], "nominated": "n1"}
    assert _observe(nominated_room_kept, "no-nomination")["l"] == "n1"
    assert _observe(bound_only_after_the_victim_is_gone, "no-nomination")["p at 1 s"] == (None, None)
    worse = _observe(lowest_victim_on_the_best_node, "prefers-higher-priority-victim")
    assert (worse["deleted"], worse["p nominated"]) == (["d"], "n2")  # a mid-priority victim, not a (low) on n1
    assert _observe(gated_preemptor, "checks-gates-at-permit") == {
        "while gated": {"deleted": ["v"], "nominated": "n1"}, "after": ["v"]}


# -- the pure rules -----------------------------------------------------------------------------


def _victim(name: str, prio: int, *, labels: Obj | None = None, started: str | None = None,
            namespace: str = "default") -> Obj:
    status = {"startTime": started} if started else {}
    return {"metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
            "spec": {"priority": prio}, "status": status}


def _budget(labels: Obj | None, allowed: int, *, disrupted: Obj | None = None, namespace: str = "default") -> Obj:
    return {"metadata": {"name": "b", "namespace": namespace},
            "spec": {"selector": {"matchLabels": labels} if labels is not None else {}},
            "status": {"disruptionsAllowed": allowed, "disruptedPods": disrupted or {}}}


def test_pdb_violation_is_counted_down_per_matching_victim() -> None:
    """``filterPodsWithPDBViolation``: the budget drops by one per matching pod and violates below
    zero; a pod in ``disruptedPods``, of another namespace, without labels, or under an empty
    selector does not count; the order given is kept."""
    a, b, c = (_victim(n, 1, labels={"app": "x"}) for n in "abc")
    assert split_by_pdb_violation([a, b, c], [_budget({"app": "x"}, 1)]) == ([b, c], [a])
    assert split_by_pdb_violation([a, b], [_budget({"app": "x"}, 0, disrupted={"a": "2026-01-01T00:00:00Z"})]) == ([b], [a])
    assert split_by_pdb_violation([a], [_budget({"app": "x"}, 0, namespace="other")]) == ([], [a])
    assert split_by_pdb_violation([a], [_budget(None, 0)]) == ([], [a])
    assert split_by_pdb_violation([_victim("n", 1)], [_budget({"app": "x"}, 0)]) == ([], [_victim("n", 1)])


def test_the_node_choice_goes_down_the_criteria_in_order() -> None:
    """``pickOneNodeForPreemption``: fewest PDB violations, lowest highest priority, smallest sum of
    priorities (each + MaxInt32 + 1, so three pods of -10 weigh more than one), fewest victims,
    latest start of the highest-priority victims, then the first node (by name here)."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    early, late = "2025-12-01T00:00:00Z", "2025-12-31T00:00:00Z"

    def pick(*candidates: Candidate) -> str:
        return pick_one_node(candidates, now).node

    assert pick(Candidate("n1", (_victim("a", 1),), 1), Candidate("n2", (_victim("b", 50),), 0)) == "n2"
    assert pick(Candidate("n1", (_victim("a", 5),), 0), Candidate("n2", (_victim("b", 4), _victim("c", 4)), 0)) == "n2"
    assert pick(Candidate("n1", (_victim("a", 5), _victim("b", 3)), 0),
                Candidate("n2", (_victim("c", 5), _victim("d", 1)), 0)) == "n2"
    assert pick(Candidate("n1", tuple(_victim(f"a{i}", -10) for i in range(3)), 0),
                Candidate("n2", (_victim("b", -10),), 0)) == "n2"
    assert pick(Candidate("n1", (_victim("a", 5, started=early),), 0),
                Candidate("n2", (_victim("b", 5, started=late),), 0)) == "n2"
    assert pick(Candidate("n2", (_victim("a", 5, started=late),), 0),
                Candidate("n1", (_victim("b", 5, started=late),), 0)) == "n1"
