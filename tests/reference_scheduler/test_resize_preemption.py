"""The reference scheduler's preemption for a Deferred in-place resize (KEP-5836) against the fake
API server under virtual time.

The scenarios are the upstream integration tests (kubernetes/kubernetes
``test/integration/scheduler/preemption/deferred_resize_preemption_test.go``:
``TestDeferredResizePodPreemption``, ``TestDeferredResizeQueueingHints``,
``TestDeferredResizeNodePreemptionPolicy``): a node of 300m cpu; the resizing pod bound there,
its spec asking 300m, its status (written as a kubelet would, through ``/status``) ``Running``,
``PodScheduled=True``, ``PodResizePending=True/Deferred`` and 100m allocated and actuated. The
expected values come from those tests and from the KEP ("Failure Handler Adjustments for
Deferred Pods": no ``PodScheduled`` update, no nominated node); victims get the ordinary
preemption writes (``docs/api-facts.md`` §status-write). The test plays the kubelet: it writes the resize's
status and deletes a terminating victim with ``gracePeriodSeconds: 0`` when it chooses.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from harness._time.virtual_time import run
from reference_scheduler import FeatureGateError, FeatureGates, parse_feature_gates
from reference_scheduler._gates import RESIZE_DEPENDENCY_MESSAGE
from reference_scheduler._resize import resize_preemption_disabled
from reference_scheduler._resources import pod_requests
from tests.support.reference_env import MERGE, Env, with_env

Obj = dict[str, Any]
Observed = dict[str, Any]

ON = FeatureGates(resize_preemption=True)
OFF = FeatureGates()
#: the API server's gates: KEP-5836's on, as on a cluster that tries it (else the Node field is dropped)
APISERVER = {"InPlacePodVerticalScalingSchedulerPreemption": True}
TARGET = {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
          "message": "default-scheduler: preempting to accommodate a higher priority pod"}


# -- the cluster --------------------------------------------------------------------------------


async def _classes(env: Env) -> None:
    for name, value, policy in (("low", 10, None), ("high", 100, None), ("high-never", 100, "Never")):
        cls: Obj = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                    "value": value}
        if policy:
            cls["preemptionPolicy"] = policy
        await env.post("/apis/scheduling.k8s.io/v1/priorityclasses", cls)


async def _node(env: Env, name: str, cpu: str = "300m", *, disabled_by: list[str] | None = None) -> None:
    allocatable = {"cpu": cpu, "memory": "300", "pods": "32"}
    spec: Obj = {"podPreemptionPolicy": {"disableResizePreemption": disabled_by}} if disabled_by else {}
    await env.post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": spec,
                                     "status": {"capacity": allocatable, "allocatable": allocatable}})


def _containers(cpu: str) -> list[Obj]:
    return [{"name": "c", "image": "busybox:1", "resources": {"requests": {"cpu": cpu}}}]


async def _running(env: Env, name: str, cls: str, cpu: str, node: str, *, labels: Obj | None = None) -> Obj:
    """A pod already bound and running on ``node`` (a possible victim)."""
    return await env.create_pod(name, labels=labels, nodeName=node, priorityClassName=cls, containers=_containers(cpu))


async def _kubelet_status(env: Env, name: str, status: Obj) -> None:
    async with env.http.patch(f"/api/v1/namespaces/default/pods/{name}/status", data=json.dumps({"status": status}),
                              headers=MERGE) as r:
        assert r.status == 200, await r.text()


async def _resizing(env: Env, name: str = "r", *, cls: str = "high", spec: str = "300m", allocated: str = "100m",
                    node: str = "n1", reason: str = "Deferred") -> Obj:
    """The resizing pod: bound to ``node`` asking ``spec``, then the kubelet's status: running with
    ``allocated`` allocated and actuated, the resize pending with ``reason``."""
    pod = await env.create_pod(name, nodeName=node, priorityClassName=cls, containers=_containers(spec))
    await _kubelet_status(env, name, {
        "phase": "Running",
        "conditions": [{"type": "PodScheduled", "status": "True"},
                       {"type": "PodResizePending", "status": "True", "reason": reason}],
        "containerStatuses": [{"name": "c", "image": "busybox:1", "imageID": "", "containerID": "", "ready": True,
                               "restartCount": 0, "started": True, "state": {"running": {}},
                               "allocatedResources": {"cpu": allocated},
                               "resources": {"requests": {"cpu": allocated}}}]})
    return pod


async def _kubelet_deletes(env: Env, name: str) -> None:
    async with env.http.delete(f"/api/v1/namespaces/default/pods/{name}", json={"gracePeriodSeconds": 0}) as r:
        assert r.status == 200, await r.text()


def _deleted_by_scheduler(env: Env) -> list[str]:
    """Pods the scheduler deleted (the test's own kubelet deletes carry a body)."""
    return [r.name for r in env.requests if r.verb == "delete" and r.resource == "pods" and r.body is None]


def _condition(pod: Obj, kind: str) -> Obj | None:
    found = [c for c in pod["status"].get("conditions", []) if c["type"] == kind]
    return {k: found[0].get(k) for k in ("type", "status", "reason", "message")} if found else None


def _kubelets(body: Any) -> bool:
    return isinstance(body, dict) and "containerStatuses" in (body.get("status") or {})


async def _resizer(env: Env, name: str = "r") -> Observed:
    """What the scheduler did to the resizing pod: its writes (not the test's create, nor the
    kubelet's status writes) and events, and its nomination and PodScheduled status now."""
    pod = await env.pod(name)
    writes = [(r.verb, r.subresource) for r in env.requests
              if r.resource == "pods" and r.name == name and r.verb != "create" and not _kubelets(r.body)]
    scheduled = _condition(pod, "PodScheduled")
    return {"writes": writes, "events": [r.body["reason"] for r in env.events(name)],
            "nominated": pod["status"].get("nominatedNodeName"),
            "PodScheduled": scheduled["status"] if scheduled else None}


UNTOUCHED: Observed = {"writes": [], "events": [], "nominated": None, "PodScheduled": "True"}

Scenario = Callable[[Env, "str | None"], Awaitable[Observed]]


def _observe(scenario: Scenario, mutant: str | None = None) -> Observed:
    async def main(env: Env) -> Observed:
        await _classes(env)
        return await scenario(env, mutant)

    result: Observed = run(with_env(main, feature_gates=APISERVER))
    return result


async def _settle(env: Env, seconds: float = 3.0) -> Observed:
    await asyncio.sleep(seconds)
    assert env.scheduler is not None
    return {"deleted": _deleted_by_scheduler(env), "attempts": env.scheduler.attempts,
            "resizer": await _resizer(env)}


# -- TestDeferredResizePodPreemption ------------------------------------------------------------


async def single_victim(env: Env, mutant: str | None, gates: FeatureGates = ON) -> Observed:
    """n1 (300m) runs victim-1 (low, 200m); r (high) asks 300m with 100m allocated."""
    await _node(env, "n1")
    await env.start_scheduler(mutant=mutant, gates=gates)
    await _running(env, "victim-1", "low", "200m", "n1")
    r = await _resizing(env)
    seen = await _settle(env)
    victim = await env.pod("victim-1")
    seen["victim"] = {"terminating": bool(victim["metadata"].get("deletionTimestamp")),
                      "condition": _condition(victim, "DisruptionTarget"),
                      "events": [(e.body["type"], e.body["reason"], e.body["action"], e.body["note"],
                                  e.body["related"]["name"]) for e in env.events("victim-1")]}
    seen["uid"] = r["metadata"]["uid"]
    return seen


def test_a_lower_priority_pod_on_the_node_is_preempted_for_the_resize() -> None:
    """"preempt single low priority pod": the resize needs 200m more, victim-1 holds 200m. It gets
    the ordinary preemption: DisruptionTarget, DELETE (graceful: it is only marked), ``Normal
    Preempted``/``Preempting`` related to r. r is untouched: NominatedNodeName "remains empty",
    PodScheduled "remains True", no FailedScheduling event (events are for beta)."""
    seen = _observe(single_victim)
    assert seen == {
        "deleted": ["victim-1"], "attempts": 1, "resizer": UNTOUCHED, "uid": seen["uid"],
        "victim": {"terminating": True, "condition": TARGET,
                   "events": [("Normal", "Preempted", "Preempting", f"Preempted by pod {seen['uid']} on node n1",
                               "r")]}}


def test_several_lower_priority_pods_are_preempted_for_the_resize() -> None:
    """"preempt multiple low priority pods": two pods of 100m, both needed."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await env.start_scheduler(mutant=mutant, gates=ON)
        await _running(env, "victim-1", "low", "100m", "n1")
        await _running(env, "victim-2", "low", "100m", "n1")
        await _resizing(env)
        return await _settle(env)

    seen = _observe(scenario)
    assert sorted(seen.pop("deleted")) == ["victim-1", "victim-2"]
    assert seen == {"attempts": 1, "resizer": UNTOUCHED}


def test_preemption_policy_never_preempts_nothing_for_the_resize() -> None:
    """"no preemption when preemptor policy is PreemptNever" (the KEP: "the existing preemption
    policies for scheduling new pods now also apply to Deferred resizes")."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await env.start_scheduler(mutant=mutant, gates=ON)
        await _running(env, "victim-1", "low", "200m", "n1")
        await _resizing(env, cls="high-never")
        return await _settle(env)

    assert _observe(scenario) == {"deleted": [], "attempts": 1, "resizer": UNTOUCHED}


async def already_fits(env: Env, mutant: str | None) -> Observed:
    """"parking strategy when deferred resize fits on node": n1 runs nothing else."""
    await _node(env, "n1")
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _resizing(env)
    seen = await _settle(env, 10.0)
    assert env.scheduler is not None
    pinfo = env.scheduler.queue.pods.get("default/r")
    seen["queue"] = (pinfo.state, pinfo.last_failure) if pinfo else None
    return seen


def test_a_resize_that_already_fits_is_parked_without_preemption_or_writes() -> None:
    """Permit: ``pod resize fits, waiting for Kubelet actuation`` (UnschedulableAndUnresolvable):
    the pod waits in the unschedulable set, nothing is written, no event moves it again."""
    assert _observe(already_fits) == {"deleted": [], "attempts": 1, "resizer": UNTOUCHED,
                                      "queue": ("unschedulable", "pod resize fits, waiting for Kubelet actuation")}


async def disabled_node(env: Env, mutant: str | None) -> Observed:
    """"node-level preemption policy disables preemption": n1 lists an owner in
    ``spec.podPreemptionPolicy.disableResizePreemption``; victim-1 (low, 200m) runs there."""
    await _node(env, "n1", disabled_by=["example.com/autoscaler"])
    node = await env.get("/api/v1/nodes/n1")
    assert resize_preemption_disabled(node), "the fake API server (gate on) dropped spec.podPreemptionPolicy"
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _running(env, "victim-1", "low", "200m", "n1")
    await _resizing(env)
    return await _settle(env)


def test_a_node_that_disables_resize_preemption_gets_none() -> None:
    """DeferredPodScheduling's Filter: ``node had resize preemption disabled``
    (UnschedulableAndUnresolvable), so DefaultPreemption skips the node; the pod is attempted once
    and waits (the newest upstream test: "parked in Unschedulable queue"); nothing is written."""
    assert _observe(disabled_node) == {"deleted": [], "attempts": 1, "resizer": UNTOUCHED}


def test_a_resize_larger_than_the_node_preempts_nothing() -> None:
    """A request above the node's allocatable is ``UnschedulableAndUnresolvable`` for
    NodeResourcesFit: no victim could make room."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await env.start_scheduler(mutant=mutant, gates=ON)
        await _running(env, "victim-1", "low", "200m", "n1")
        await _resizing(env, spec="400m")
        return await _settle(env)

    assert _observe(scenario) == {"deleted": [], "attempts": 1, "resizer": UNTOUCHED}


async def infeasible(env: Env, mutant: str | None) -> Observed:
    """As :func:`single_victim`, but the kubelet marked the resize ``Infeasible``."""
    await _node(env, "n1")
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _running(env, "victim-1", "low", "200m", "n1")
    await _resizing(env, reason="Infeasible")
    return await _settle(env)


def test_an_infeasible_resize_is_never_queued() -> None:
    """``IsPodResizeDeferred`` reads the reason ``Deferred`` only: the kubelet rejected this one."""
    assert _observe(infeasible) == {"deleted": [], "attempts": 0, "resizer": UNTOUCHED}


def test_pdbs_choose_the_victim_as_for_a_pending_pod() -> None:
    """r asks 100m more; v1 and v2 (low, 100m) both run on n1, a PDB allowing no disruption guards
    v2. The PDB-violating pod is reprieved first (``SelectVictimsOnNode``), so v1 goes."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
        await env.post(path, {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "guard"},
                              "spec": {"selector": {"matchLabels": {"app": "guarded"}}, "minAvailable": 1}})
        status = {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}
        async with env.http.patch(f"{path}/guard/status", data=json.dumps({"status": status}), headers=MERGE) as r:
            assert r.status == 200, await r.text()
        await env.start_scheduler(mutant=mutant, gates=ON)
        await _running(env, "v1", "low", "100m", "n1")
        await _running(env, "v2", "low", "100m", "n1", labels={"app": "guarded"})
        await _resizing(env, spec="200m")
        return await _settle(env)

    assert _observe(scenario) == {"deleted": ["v1"], "attempts": 1, "resizer": UNTOUCHED}
    assert _observe(scenario, "ignores-pdb")["deleted"] == ["v2"]


def test_the_gate_off_changes_nothing() -> None:
    """With ``InPlacePodVerticalScalingSchedulerPreemption=false`` a bound pod is never queued."""
    assert _observe(lambda env, mutant: single_victim(env, mutant, OFF)) == {
        "deleted": [], "attempts": 0, "resizer": UNTOUCHED, "uid": _ANY,
        "victim": {"terminating": False, "condition": None, "events": []}}


class _Any:
    def __eq__(self, other: object) -> bool:
        return True


_ANY = _Any()


def test_a_pod_deferred_before_the_scheduler_starts_is_queued() -> None:
    """"AddPod handler enqueues existing deferred pod on scheduler startup"."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await _running(env, "victim-1", "low", "200m", "n1")
        await _resizing(env)
        await env.start_scheduler(mutant=mutant, gates=ON)
        return await _settle(env)

    assert _observe(scenario) == {"deleted": ["victim-1"], "attempts": 1, "resizer": UNTOUCHED}


# -- requeueing (TestDeferredResizeQueueingHints) ----------------------------------------------


async def _hint_setup(env: Env, mutant: str | None) -> None:
    """The upstream hint tests' cluster: n1 (200m) runs other (high, 200m) and r (low, asking
    100m, 50m allocated): r cannot fit and has no victim; n2 (500m) runs irrelevant (high, 200m).
    """
    await _node(env, "n1", "200m")
    await _node(env, "n2", "500m")
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _running(env, "other", "high", "200m", "n1")
    await _running(env, "irrelevant", "high", "200m", "n2")
    await _resizing(env, cls="low", spec="100m", allocated="50m")
    await asyncio.sleep(15)  # past any backoff


async def _resize_pod(env: Env, name: str, cpu: str) -> None:
    body = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}
    async with env.http.patch(f"/api/v1/namespaces/default/pods/{name}/resize", data=json.dumps(body),
                              headers={"Content-Type": "application/strategic-merge-patch+json"}) as r:
        assert r.status == 200, await r.text()


async def _then(env: Env, seen: list[tuple[str, int]], what: str, action: Awaitable[Any]) -> None:
    """Do ``action``, wait past any backoff, note the attempts so far."""
    await action
    await asyncio.sleep(15)
    assert env.scheduler is not None
    seen.append((what, env.scheduler.attempts))


def test_events_on_other_nodes_or_without_room_do_not_requeue_and_a_deletion_on_the_node_does() -> None:
    """The upstream hints: an irrelevant pod's deletion, another node's capacity increase and a
    label change of a pod on n1 do not move r ("Expected attempts not to increment"); the
    deletion of the pod on n1 does (r then fits: parked)."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _hint_setup(env, mutant)
        assert env.scheduler is not None
        seen: list[tuple[str, int]] = [("waiting", env.scheduler.attempts)]
        await _then(env, seen, "irrelevant deleted", _kubelet_deletes(env, "irrelevant"))
        n2 = {"status": {"capacity": {"cpu": "1"}, "allocatable": {"cpu": "1"}}}
        await _then(env, seen, "n2 grows", _patch(env, "/api/v1/nodes/n2/status", n2))
        await _then(env, seen, "other relabelled",
                    env.patch_pod("other", {"metadata": {"labels": {"updated-by-test": "true"}}}))
        await _then(env, seen, "other deleted", _kubelet_deletes(env, "other"))
        return {"attempts": seen, "deleted": _deleted_by_scheduler(env), "resizer": await _resizer(env)}

    assert _observe(scenario) == {
        "attempts": [("waiting", 1), ("irrelevant deleted", 1), ("n2 grows", 1), ("other relabelled", 1),
                     ("other deleted", 2)],
        "deleted": [], "resizer": UNTOUCHED}


def test_a_resize_on_another_node_does_not_requeue_and_one_on_the_node_does() -> None:
    """"irrelevant pod scale down ignores queue"; "assigned pod scale down on same node wakes
    queue" (through ``pods/resize``; other still leaves no room: 150m + 100m > 200m)."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _hint_setup(env, mutant)
        assert env.scheduler is not None
        seen: list[tuple[str, int]] = [("waiting", env.scheduler.attempts)]
        await _then(env, seen, "irrelevant scales down", _resize_pod(env, "irrelevant", "100m"))
        await _then(env, seen, "other scales down", _resize_pod(env, "other", "150m"))
        return {"attempts": seen, "deleted": _deleted_by_scheduler(env), "resizer": await _resizer(env)}

    assert _observe(scenario) == {"attempts": [("waiting", 1), ("irrelevant scales down", 1),
                                               ("other scales down", 2)],
                                  "deleted": [], "resizer": UNTOUCHED}


async def _patch(env: Env, path: str, body: Obj) -> None:
    async with env.http.patch(path, data=json.dumps(body), headers=MERGE) as r:
        assert r.status == 200, await r.text()


async def room_taken_again(env: Env, mutant: str | None) -> Observed:
    """:func:`single_victim`; the kubelet deletes victim-1 at t=2 (r then fits and is parked);
    late (low, 200m) starts on n1 at t=15, taking the room before the kubelet actuated r."""
    await _node(env, "n1")
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _running(env, "victim-1", "low", "200m", "n1")
    await _resizing(env)
    await asyncio.sleep(2)
    await _kubelet_deletes(env, "victim-1")
    await asyncio.sleep(13)
    assert env.scheduler is not None
    parked = env.scheduler.attempts
    await _running(env, "late", "low", "200m", "n1")
    seen = await _settle(env, 15)
    seen["attempts"] = (parked, seen["attempts"])
    return seen


def test_a_victims_deletion_and_then_a_new_pod_on_the_node_requeue_the_resize() -> None:
    """The KEP's reconsideration race: the victim's deletion moves r (it now fits: parked); a pod
    that then takes the room on n1 moves it again, and it preempts that pod."""
    assert _observe(room_taken_again) == {"deleted": ["victim-1", "late"], "attempts": (2, 3),
                                          "resizer": UNTOUCHED}


def test_a_resize_the_kubelet_actuated_leaves_the_queue() -> None:
    """"If the deferred condition is removed: The Scheduler removes the pod from whatever queue
    it's currently in": after the kubelet actuates r, a pod event on n1 moves nothing."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _node(env, "n1")
        await env.start_scheduler(mutant=mutant, gates=ON)
        await _resizing(env)
        await asyncio.sleep(3)
        await _kubelet_status(env, "r", {
            "conditions": [{"type": "PodScheduled", "status": "True"}],
            "containerStatuses": [{"name": "c", "image": "busybox:1", "imageID": "", "containerID": "",
                                   "ready": True, "restartCount": 0, "started": True, "state": {"running": {}},
                                   "allocatedResources": {"cpu": "300m"}, "resources": {"requests": {"cpu": "300m"}}}]})
        await asyncio.sleep(1)
        await _running(env, "late", "low", "100m", "n1")
        seen = await _settle(env, 15)
        assert env.scheduler is not None
        seen["queued"] = "default/r" in env.scheduler.queue.pods
        return seen

    assert _observe(scenario) == {"deleted": [], "attempts": 1, "resizer": UNTOUCHED, "queued": False}


# -- what a deferred upsize holds (InPlacePodVerticalScaling) -----------------------------------


def _pod(spec: str, allocated: str | None, actual: str | None, reason: str = "") -> Obj:
    status: Obj = {"name": "c"}
    if allocated:
        status["allocatedResources"] = {"cpu": allocated}
    if actual:
        status["resources"] = {"requests": {"cpu": actual}}
    conditions = [{"type": "PodResizePending", "status": "True", "reason": reason}] if reason else []
    return {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": spec, "memory": "1Ki"}}}]},
            "status": {"containerStatuses": [status], "conditions": conditions}}


def test_a_pod_counts_the_largest_of_spec_allocated_and_actual_per_container() -> None:
    """``resourcehelper.PodRequests`` with ``UseStatusResources``: ``max(container.Resources.
    Requests, cs.Resources.Requests, cs.AllocatedResources)``; Infeasible: ``max(cs.Resources.
    Requests, cs.AllocatedResources)``; without the gate, the spec."""

    def cpu(pod: Obj, **kw: Any) -> tuple[int, int]:
        r = pod_requests(pod, **kw)
        return r.milli_cpu, r.memory

    assert cpu(_pod("300m", "100m", "100m", "Deferred")) == (300, 1024)
    assert cpu(_pod("100m", "300m", "200m")) == (300, 1024)
    assert cpu(_pod("100m", "150m", "250m")) == (250, 1024)
    assert cpu(_pod("300m", "100m", "100m", "Infeasible")) == (100, 0)
    assert cpu(_pod("100m", "300m", "300m"), use_status=False) == (100, 1024)
    assert cpu({"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]},
                "status": {"containerStatuses": [{"name": "other", "allocatedResources": {"cpu": "1"}}]}}) == (100, 0)


def test_a_downsize_the_kubelet_has_not_actuated_still_holds_its_room() -> None:
    """r asks 100m but still holds 300m (allocated and actuated), its resize Deferred, the gate
    off: p (100m) does not fit n1 (300m) while ``InPlacePodVerticalScaling`` is on, and fits with it off."""

    def scenario(gates: FeatureGates) -> Scenario:
        async def body(env: Env, mutant: str | None) -> Observed:
            await _node(env, "n1")
            await _resizing(env, spec="100m", allocated="300m")
            await env.start_scheduler(mutant=mutant, gates=gates)
            await env.create_pod("p", priorityClassName="low", containers=_containers("100m"))
            await asyncio.sleep(1)
            p = await env.pod("p")
            return {"node": p["spec"].get("nodeName"), "PodScheduled": _condition(p, "PodScheduled")}

        return body

    assert _observe(scenario(OFF)) == {"node": None, "PodScheduled": {
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 "
                   "nodes are available: 1 No preemption victims found for incoming pod."}}
    assert _observe(scenario(FeatureGates(in_place_pod_vertical_scaling=False)))["node"] == "n1"


# -- the gates ----------------------------------------------------------------------------------


def test_the_resize_gates_parse_with_their_defaults_and_dependency() -> None:
    """``InPlacePodVerticalScaling`` GA (on), ``InPlacePodVerticalScalingSchedulerPreemption``
    alpha (off); the second needs the first (component-base's dependency error)."""
    assert parse_feature_gates("") == FeatureGates(True, True, True, False)
    assert parse_feature_gates("InPlacePodVerticalScaling=true,InPlacePodVerticalScalingSchedulerPreemption=true") == ON
    assert parse_feature_gates("InPlacePodVerticalScaling=false") == FeatureGates(in_place_pod_vertical_scaling=False)
    assert RESIZE_DEPENDENCY_MESSAGE == (
        "invalid feature gates: InPlacePodVerticalScalingSchedulerPreemption is enabled, but depends on features "
        "that are disabled: [InPlacePodVerticalScaling]")
    with pytest.raises(FeatureGateError, match=r"^invalid feature gates: InPlacePodVerticalScalingSchedulerPreemption "
                                               r"is enabled, but depends on features that are disabled: "
                                               r"\[InPlacePodVerticalScaling\]$"):
        parse_feature_gates("InPlacePodVerticalScaling=false,InPlacePodVerticalScalingSchedulerPreemption=true")
    assert ON.format() == ("GenericWorkload=false,InPlacePodVerticalScaling=true,InPlacePodVerticalScalingSchedulerPreemption=true,"
                           "SchedulerAsyncAPICalls=true,SchedulerPreEnqueuePodStatus=true")


# -- every resize mutant differs ----------------------------------------------------------------


async def victim_elsewhere(env: Env, mutant: str | None) -> Observed:
    """n1 (300m) runs peer (high, 200m: not a victim) beside r; n2 (300m) runs far (low, 300m)."""
    await _node(env, "n1")
    await _node(env, "n2")
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _running(env, "peer", "high", "200m", "n1")
    await _running(env, "far", "low", "300m", "n2")
    await _resizing(env)
    return await _settle(env)


async def just_enough(env: Env, mutant: str | None) -> Observed:
    """n1 (500m) runs v1 and v2 (low, 150m each) beside r (asks 300m, 100m allocated): one
    victim is enough (300 + 150 fits 500)."""
    await _node(env, "n1", "500m")
    await env.start_scheduler(mutant=mutant, gates=ON)
    await _running(env, "v1", "low", "150m", "n1")
    await _running(env, "v2", "low", "150m", "n1")
    await _resizing(env)
    return await _settle(env)


def test_victims_are_on_the_resizing_pods_node_only() -> None:
    assert _observe(victim_elsewhere) == {"deleted": [], "attempts": 1, "resizer": UNTOUCHED}


def test_the_resizing_pod_counts_once_so_one_victim_is_enough() -> None:
    """The reprieve keeps v1 (the first, both being alike), so only v2 goes."""
    assert _observe(just_enough) == {"deleted": ["v2"], "attempts": 1, "resizer": UNTOUCHED}


# -- what brings a waiting resize back, and what does not ----------------------------------------


async def _waiting(env: Env, mutant: str | None, others: list[tuple[str, str, str]], *, cpu: str = "400m",
                   spec: str = "300m", disabled_by: list[str] | None = None) -> None:
    """n1 (``cpu``) runs ``others`` (name, class, cpu); r (high) asks ``spec`` with 100m allocated,
    Deferred, and no preemption helps; 3 s pass (it was tried)."""
    await _node(env, "n1", cpu, disabled_by=disabled_by)
    await env.start_scheduler(mutant=mutant, gates=ON)
    for name, cls, request in others:
        await _running(env, name, cls, request, "n1")
    await _resizing(env, spec=spec)
    await asyncio.sleep(3)


async def neighbour_deleted(env: Env, mutant: str | None) -> Observed:
    """n1 (400m): peer-1, peer-2 (high, 100m) and v (low, 100m) beside r (asks 300m): 500m without
    v. The kubelet deletes peer-1: now v alone is enough."""
    await _waiting(env, mutant, [("peer-1", "high", "100m"), ("peer-2", "high", "100m"), ("v", "low", "100m")])
    await _kubelet_deletes(env, "peer-1")
    return await _settle(env)


async def neighbour_scaled_down(env: Env, mutant: str | None) -> Observed:
    """n1 (400m): peer (high, 200m) and v (low, 100m) beside r: 500m without v. peer is resized to
    100m (no kubelet status: the scheduler counts its spec)."""
    await _waiting(env, mutant, [("peer", "high", "200m"), ("v", "low", "100m")])
    await _resize_pod(env, "peer", "100m")
    return await _settle(env)


async def own_scaled_down(env: Env, mutant: str | None) -> Observed:
    """n1 (400m): peer (high, 100m) and v (low, 100m) beside r asking 400m: 500m without v. r's
    resize is made 300m, still Deferred."""
    await _waiting(env, mutant, [("peer", "high", "100m"), ("v", "low", "100m")], spec="400m")
    await _resize_pod(env, "r", "300m")
    return await _settle(env)


async def allocatable_up(env: Env, mutant: str | None) -> Observed:
    """n1 (400m): peer (high, 200m) and v (low, 100m) beside r: 500m without v. n1's allocatable
    becomes 500m."""
    await _waiting(env, mutant, [("peer", "high", "200m"), ("v", "low", "100m")])
    await _patch(env, "/api/v1/nodes/n1/status", {"status": {"allocatable": {"cpu": "500m"}}})
    return await _settle(env)


async def policy_lifted(env: Env, mutant: str | None) -> Observed:
    """n1 (300m) disables resize preemption; v (low, 200m) beside r. The policy goes."""
    await _waiting(env, mutant, [("v", "low", "200m")], cpu="300m", disabled_by=["example.com/autoscaler"])
    await _patch(env, "/api/v1/nodes/n1", {"spec": {"podPreemptionPolicy": None}})
    return await _settle(env)


async def deferred_at_start(env: Env, mutant: str | None) -> Observed:
    """As the upstream AddPod case: r is Deferred and v (low, 200m) runs before the scheduler starts."""
    await _node(env, "n1")
    await _running(env, "v", "low", "200m", "n1")
    await _resizing(env)
    await env.start_scheduler(mutant=mutant, gates=ON)
    return await _settle(env)


async def _room_for_late(env: Env) -> Observed:
    """peer goes, late (low, 300m) starts on n1."""
    await asyncio.sleep(1)
    await _kubelet_deletes(env, "peer")
    await _running(env, "late", "low", "300m", "n1")
    await asyncio.sleep(3)
    assert env.scheduler is not None
    return {"deleted": _deleted_by_scheduler(env), "attempts": env.scheduler.attempts}


async def deleted_while_waiting(env: Env, mutant: str | None) -> Observed:
    """n1 (400m): peer (high, 200m) beside r (no victim); r is deleted at once, then room appears."""
    await _waiting(env, mutant, [("peer", "high", "200m")])
    await _kubelet_deletes(env, "r")
    return await _room_for_late(env)


async def infeasible_while_waiting(env: Env, mutant: str | None) -> Observed:
    """As :func:`deleted_while_waiting`, but r's kubelet turns the resize Infeasible instead."""
    await _waiting(env, mutant, [("peer", "high", "200m")])
    await _kubelet_status(env, "r", {"conditions": [{"type": "PodScheduled", "status": "True"},
                                                    {"type": "PodResizePending", "status": "True",
                                                     "reason": "Infeasible"}]})
    return await _room_for_late(env)


@pytest.mark.parametrize("scenario", [neighbour_deleted, neighbour_scaled_down, own_scaled_down, allocatable_up,
                                      policy_lifted, deferred_at_start])
def test_a_change_that_lets_preemption_help_brings_the_waiting_resize_back(scenario: Scenario) -> None:
    """The upstream "wakes queue" cases and the AddPod handler: the one victim goes (r's own
    resize, in ``own_scaled_down``, is the test's write)."""
    seen = _observe(scenario)
    resizer = {**seen["resizer"], "writes": [w for w in seen["resizer"]["writes"] if w != ("patch", "resize")]}
    assert (seen["deleted"], resizer) == (["v"], UNTOUCHED)


@pytest.mark.parametrize("scenario", [deleted_while_waiting, infeasible_while_waiting])
def test_a_resize_that_stopped_waiting_is_never_preempted_for(scenario: Scenario) -> None:
    """The DeletePod and UpdatePod handlers: r leaves the queue; late fits beside what r holds."""
    assert _observe(scenario) == {"deleted": [], "attempts": 1}


def test_node_changes_and_kubelet_rewrites_that_cannot_help_do_not_requeue() -> None:
    """Only an allocatable raised or a policy emptied on r's node moves it (NodeResourcesFit's
    ``UpdateNodeAllocatable``, DeferredPodScheduling's disabled-to-enabled hint): a label, a policy
    set, a smaller allocatable, and the kubelet rewriting r's condition (kube-scheduler's
    ``isPodUpdated`` ignores the status) do not."""

    async def scenario(env: Env, mutant: str | None) -> Observed:
        await _hint_setup(env, mutant)
        assert env.scheduler is not None
        seen: list[tuple[str, int]] = [("waiting", env.scheduler.attempts)]
        await _then(env, seen, "n1 relabelled", _patch(env, "/api/v1/nodes/n1", {"metadata": {"labels": {"a": "b"}}}))
        await _then(env, seen, "n1 disables", _patch(env, "/api/v1/nodes/n1", {
            "spec": {"podPreemptionPolicy": {"disableResizePreemption": ["example.com/x"]}}}))
        await _then(env, seen, "n1 enables", _patch(env, "/api/v1/nodes/n1", {"spec": {"podPreemptionPolicy": None}}))
        await _then(env, seen, "n1 shrinks", _patch(env, "/api/v1/nodes/n1/status", {
            "status": {"allocatable": {"cpu": "190m"}}}))
        await _then(env, seen, "r rewritten", _kubelet_status(env, "r", {"conditions": [
            {"type": "PodScheduled", "status": "True"},
            {"type": "PodResizePending", "status": "True", "reason": "Deferred", "message": "again"}]}))
        await _then(env, seen, "n1 grows", _patch(env, "/api/v1/nodes/n1/status", {
            "status": {"allocatable": {"cpu": "250m"}}}))
        return {"attempts": seen, "deleted": _deleted_by_scheduler(env)}

    assert _observe(scenario) == {"attempts": [
        ("waiting", 1), ("n1 relabelled", 1), ("n1 disables", 1), ("n1 enables", 2), ("n1 shrinks", 2),
        ("r rewritten", 2), ("n1 grows", 3)], "deleted": []}


MUTANT_SCENARIOS: dict[str, tuple[Scenario, Callable[[Observed], object], object]] = {
    "resize-victims-on-other-nodes": (victim_elsewhere, lambda seen: seen["deleted"], ["far"]),
    "resize-counts-own-resources": (just_enough, lambda seen: sorted(seen["deleted"]), ["v1", "v2"]),
    "resize-preempts-with-gate-off": (lambda env, mutant: single_victim(env, mutant, OFF),
                                      lambda seen: (seen["deleted"], seen["attempts"]), (["victim-1"], 1)),
    "resize-writes-pod-scheduled": (single_victim, lambda seen: seen["resizer"], {
        "writes": [("patch", "status")], "events": ["FailedScheduling"], "nominated": "n1",
        "PodScheduled": "False"}),
    "resize-preempts-for-infeasible": (infeasible, lambda seen: (seen["deleted"], seen["attempts"]),
                                       (["victim-1"], 1)),
    "resize-ignores-disable-policy": (disabled_node, lambda seen: seen["deleted"], ["victim-1"]),
    "resize-requeues-on-deletes-elsewhere": (neighbour_deleted, lambda seen: seen["deleted"], []),
    "resize-ignores-neighbour-scale-down": (neighbour_scaled_down, lambda seen: seen["deleted"], []),
    "resize-ignores-own-change": (own_scaled_down, lambda seen: seen["deleted"], []),
    "resize-ignores-allocatable-up": (allocatable_up, lambda seen: seen["deleted"], []),
    "resize-ignores-policy-lifted": (policy_lifted, lambda seen: seen["deleted"], []),
    "resize-ignores-deferred-at-start": (deferred_at_start, lambda seen: (seen["deleted"], seen["attempts"]), ([], 0)),
    "resize-keeps-deleted-pod": (deleted_while_waiting, lambda seen: seen["deleted"], ["late"]),
    "resize-keeps-infeasible-resize": (infeasible_while_waiting, lambda seen: seen["deleted"], ["late"]),
}


@pytest.mark.parametrize("mutant", sorted(MUTANT_SCENARIOS))
def test_each_resize_mutant_observes_something_else(mutant: str) -> None:
    """The reference's observation of the scenario (asserted above) differs from the mutant's, and
    in the way the mutant's description says."""
    scenario, pick, expected = MUTANT_SCENARIOS[mutant]
    reference, broken = _observe(scenario), _observe(scenario, mutant)
    assert pick(broken) == expected
    assert pick(reference) != expected
