"""Each mutant breaks exactly the rule it names: the scenario that exposes it shows a difference
from the reference scheduler, and nothing else about that scenario changes. Each shape variant
changes only the request: the pod's condition goes through the same states at the same times,
with the same events. The controls do nothing but bind the probe pod: one watches, one polls."""

from __future__ import annotations

import asyncio
from typing import Any

import json

import pytest

from fake_apiserver import Delay, FaultRule, Match, kubeconfig_for
from fake_apiserver._storage.effects import sets_condition
from harness._time.virtual_time import run
from reference_scheduler import FeatureGateError, Scheduler, parse_feature_gates
from reference_scheduler._clock import WallClock
from harness._schedulers.adapters import PROBE_NAME as HARNESS_PROBE_NAME
from harness._schedulers.adapters import PROBE_NAMESPACE as HARNESS_PROBE_NAMESPACE
from harness._schedulers.adapters import _probe_node, _probe_pod
from reference_scheduler import MUTANTS, VARIANTS, ClusterEvent, KubeClient, UnknownMutant, get_mutant
from reference_scheduler._cli import main as cli_main
from reference_scheduler._mutants import POLL_PERIOD, PROBE_NAMESPACE, PROBE_NODE
from tests.support.reference_env import Env, gates, with_env

Obj = dict[str, Any]


class Block:
    """Rejects pods annotated ``block`` with the annotation's value as message."""

    name = "Block"
    events: frozenset[str] = frozenset()

    def pre_enqueue(self, pod: Obj) -> str | None:
        value = (pod["metadata"].get("annotations") or {}).get("block")
        return str(value) if value else None

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        return False


def _observe(env: Env, pod: str) -> Obj:
    return {
        "patches": [(r.time, r.code, (r.body["status"]["conditions"][0].get("reason"),
                                      r.body["status"]["conditions"][0].get("message"))) for r in env.status_patches(pod)],
        "events": [(r.time, r.body["reason"]) for r in env.events(pod) if r.body["reason"] != "Scheduled"],
        "bound": bool(env.bindings(pod)) and all(r.code == 201 for r in env.bindings(pod)),
    }


async def _claim_at_12(env: Env, **kw: Any) -> None:
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(12)
    await env.create_claim("claim")
    await asyncio.sleep(10)


async def _gated(env: Env, **kw: Any) -> None:
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", schedulingGates=[{"name": "example.com/a"}])
    await asyncio.sleep(20)


async def _changing(env: Env, **kw: Any) -> None:
    await env.create_node("n1")
    await env.start_scheduler(pre_enqueue=[Block()], **kw)
    await env.create_pod("p", annotations={"block": "m1"})
    await asyncio.sleep(3)
    await env.patch_pod("p", {"metadata": {"annotations": {"block": "m2"}}})
    await asyncio.sleep(7)
    await env.patch_pod("p", {"metadata": {"labels": {"touched": "1"}}})
    await asyncio.sleep(10)


async def _failing(env: Env, **kw: Any) -> None:
    failed: list[int] = []

    def first(info: Any) -> bool:
        if info.subresource == "status" and not failed:
            failed.append(1)
            return True
        return False

    env.fail.append(first)
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(8)
    await env.patch_pod("p", {"metadata": {"labels": {"touched": "1"}}})
    await asyncio.sleep(10)
    await env.create_claim("claim")
    await asyncio.sleep(5)


CLAIM = ("NotReadyForScheduling", 'could not find ResourceClaim "default/claim"')
REFERENCE = {
    "claim": {"patches": [(5.0, 200, CLAIM)], "events": [(5.0, "NotReadyForScheduling")], "bound": True},
    "gated": {"patches": [], "events": [], "bound": False},
    "changing": {"patches": [(5.0, 200, ("NotReadyForScheduling", "m2"))],
                 "events": [(5.0, "NotReadyForScheduling")], "bound": False},
    "failing": {"patches": [(5.0, 500, CLAIM), (13.0, 200, CLAIM)], "events": [(13.0, "NotReadyForScheduling")],
                "bound": True},
}
SCENARIOS = {"claim": _claim_at_12, "gated": _gated, "changing": _changing, "failing": _failing}


def _observed(scenario: str, **kw: Any) -> Obj:
    async def main(env: Env) -> Obj:
        await SCENARIOS[scenario](env, **kw)
        return _observe(env, "p")

    return dict(run(with_env(main)))

EXPOSED: dict[str, tuple[str, dict[str, Any], Obj]] = {
    "no-delay": ("claim", {}, {"patches": [(0.0, 200, CLAIM)], "events": [(0.0, "NotReadyForScheduling")], "bound": True}),
    "delay-reset-on-overwrite": ("changing", {}, {"patches": [(8.0, 200, ("NotReadyForScheduling", "m2"))],
                                                  "events": [(8.0, "NotReadyForScheduling")], "bound": False}),
    "no-dedup": ("changing", {}, {"patches": [(5.0, 200, ("NotReadyForScheduling", "m2")),
                                              (15.0, 200, ("NotReadyForScheduling", "m2"))],
                                  "events": [(5.0, "NotReadyForScheduling"), (15.0, "NotReadyForScheduling")],
                                  "bound": False}),
    "dedup-not-seeded": ("gated", {}, {"patches": [(5.0, 200, ("NotReadyForScheduling", None))],
                                       "events": [(5.0, "NotReadyForScheduling")], "bound": False}),
    "redundant-gated-patch": ("gated", {}, {
        "patches": [(5.0, 200, ("NotReadyForScheduling", "waiting for scheduling gates: [example.com/a]"))],
        "events": [(5.0, "NotReadyForScheduling")], "bound": False}),
    "clears-immediately": ("claim", {}, {"patches": [(5.0, 200, CLAIM), (12.0, 200, (None, None))],
                                         "events": [(5.0, "NotReadyForScheduling")], "bound": True}),
    "no-event": ("claim", {}, {"patches": [(5.0, 200, CLAIM)], "events": [], "bound": True}),
    "wrong-reason": ("claim", {}, {"patches": [(5.0, 200, ("Unschedulable", CLAIM[1]))],
                                   "events": [(5.0, "NotReadyForScheduling")], "bound": True}),
    "ignores-feature-gate": ("claim", {"gates": gates(pre_enqueue_pod_status=False)}, REFERENCE["claim"]),
    "stops-on-patch-failure": ("failing", {}, {"patches": [(5.0, 500, CLAIM)], "events": [], "bound": False}),
    "never-retries": ("failing", {}, {"patches": [(5.0, 500, CLAIM)], "events": [], "bound": True}),
}


def test_every_mutant_has_a_kep_sentence_and_is_listed() -> None:
    assert len(MUTANTS) >= 10
    assert len({m.name for m in VARIANTS}) == len(VARIANTS)
    assert all(m.description and m.violates and m.kind == "mutant" and m.must_fail for m in MUTANTS)
    preemption = {"preempts-equal-priority", "binds-before-victims-gone", "ignores-preemption-policy-never",
                  "ignores-pdb", "no-disruption-target", "no-nomination", "prefers-higher-priority-victim",
                  "checks-gates-at-permit"}  # tests/reference_scheduler/test_preemption.py
    resize = {"resize-victims-on-other-nodes", "resize-counts-own-resources", "resize-preempts-with-gate-off",
              "resize-writes-pod-scheduled", "resize-preempts-for-infeasible",
              "resize-ignores-disable-policy", "resize-requeues-on-deletes-elsewhere",
              "resize-ignores-neighbour-scale-down", "resize-ignores-own-change", "resize-ignores-allocatable-up",
              "resize-ignores-policy-lifted", "resize-ignores-deferred-at-start", "resize-keeps-deleted-pod",
              "resize-keeps-infeasible-resize"}  # tests/reference_scheduler/test_resize_preemption.py
    gang = {"gang-partial-binding", "gang-min-count-off-by-one", "gang-reservation-leaked",
            "gang-preempted-piecemeal", "gang-timeout-ignored", "gang-ignores-gated-members", "gang-missing-group-ignored",
            "gang-late-member-held", "gang-preempts-whole-groups"}  # tests/reference_scheduler/test_gang.py
    assert set(EXPOSED) | set(OTHER_WRITERS_EXPOSED) | set(CORE_EXPOSED) | set(LEAKS_EXPOSED) | preemption | resize | gang | {
        "never-clears", "ignores-gate-dependency", "allocates-deleting-claim",
        "binds-without-allocating"} == {m.name for m in MUTANTS}  # the last: tests/harness/_runs/test_selftest.py
    assert [(m.name, m.kind, m.must_fail, bool(m.violates)) for m in VARIANTS if m.kind != "mutant"] == [
        ("status-by-put", "shape", False, False), ("status-by-json-patch", "shape", False, False),
        ("status-by-merge-patch", "shape", False, False), ("claim-hint-like-kube-scheduler", "shape", False, False),
        ("events-as-series", "shape", False, False), ("does-nothing", "control", True, False),
        ("never-watches", "control", True, False)]
    assert [m.name for m in VARIANTS] == [*(m.name for m in VARIANTS if m.kind == "shape"),
                                          *(m.name for m in MUTANTS), "does-nothing", "never-watches"]
    with pytest.raises(UnknownMutant,
                       match=r"^unknown mutant 'nope'; known: allocates-deleting-claim, any-gate-removal-ungates, "
                             r"binds-before-victims-gone, binds-without-allocating, checks-gates-at-permit, "
                             r"claim-hint-like-kube-scheduler, "):
        get_mutant("nope")


FOREIGN = "example.com/Audited"
STRATEGIC_PATCH = {"Content-Type": "application/strategic-merge-patch+json"}


async def _add_foreign(env: Env) -> None:
    """Another controller adds a condition to p (a strategic merge patch of its status)."""
    async with env.http.patch("/api/v1/namespaces/default/pods/p/status", headers=STRATEGIC_PATCH,
                              data=json.dumps({"status": {"conditions": [{"type": FOREIGN, "status": "True"}]}})) as r:
        assert r.status == 200, await r.text()


async def _foreign_while_pending(env: Env, **kw: Any) -> None:
    """The condition is added 2 s after p was rejected, while the delayed write is pending."""
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(2)
    await _add_foreign(env)
    await asyncio.sleep(8)


async def _foreign_while_in_flight(env: Env, **kw: Any) -> None:
    """The server holds the write of p's NotReadyForScheduling condition 2 s; the condition is
    added 1 s into the hold."""
    env.server.faults.add(FaultRule(Match(resource="pods", subresource="status", name="p",
                                          effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
                                    Delay(2), times=1))
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(6)
    await _add_foreign(env)
    await asyncio.sleep(10)


OTHER_WRITERS = {"pending": _foreign_while_pending, "in-flight": _foreign_while_in_flight}


def _final_conditions(scenario: str, **kw: Any) -> list[tuple[str, str]]:
    """Each of p's conditions at the end of ``scenario``: (type, reason or status)."""

    async def main(env: Env) -> list[tuple[str, str]]:
        await OTHER_WRITERS[scenario](env, **kw)
        return sorted((c["type"], c.get("reason") or c["status"]) for c in (await env.pod("p"))["status"]["conditions"])

    return list(run(with_env(main)))


KEPT = [("PodScheduled", "NotReadyForScheduling"), (FOREIGN, "True")]
LOST = [("PodScheduled", "NotReadyForScheduling")]
OTHER_WRITERS_REFERENCE = {"pending": KEPT, "in-flight": KEPT}
#: what each writer mutant leaves, per scenario (the reference's where it is not exposed)
OTHER_WRITERS_EXPOSED = {
    "drops-other-conditions": {"pending": LOST, "in-flight": LOST},
    "stale-whole-list": {"pending": LOST, "in-flight": LOST},
    "unguarded-whole-list": {"pending": KEPT, "in-flight": LOST},
}


@pytest.mark.parametrize("scenario", sorted(OTHER_WRITERS))
@pytest.mark.parametrize("variant", [None, *(m.name for m in VARIANTS if m.kind == "shape")])
def test_the_reference_and_the_shape_variants_keep_a_condition_other_writers_add(variant: str | None, scenario: str) -> None:
    assert _final_conditions(scenario, mutant=variant) == OTHER_WRITERS_REFERENCE[scenario]


@pytest.mark.parametrize("scenario", sorted(OTHER_WRITERS))
@pytest.mark.parametrize("mutant", sorted(OTHER_WRITERS_EXPOSED))
def test_a_writer_mutant_loses_the_condition_where_its_writes_have_no_guard(mutant: str, scenario: str) -> None:
    """drops-other-conditions and stale-whole-list lose a condition added while the write is
    pending; unguarded-whole-list only one added while the write is in flight."""
    assert _final_conditions(scenario, mutant=mutant) == OTHER_WRITERS_EXPOSED[mutant][scenario]


def test_allocates_deleting_claim_tries_to_allocate_a_claim_being_deleted() -> None:
    """The reference reports a claim kept by a finalizer after its deletion (PreEnqueue,
    ``resourceclaim "claim" is being deleted``) and never writes the claim; the mutant lets the
    pod through, reserves the claim (a claim with no device requests needs no allocation, so no
    finalizer of its own, which the API server would refuse) and binds the pod."""

    async def main(env: Env, mutant: str | None) -> Obj:
        await env.create_node("n1")
        await env.start_scheduler(mutant=mutant)
        await env.post("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "claim", "finalizers": ["example.com/keep"]}, "spec": {"devices": {"requests": []}}})
        async with env.http.delete("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/claim") as r:
            assert r.status == 200, await r.text()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(10)
        return {"reasons": [r.body["status"]["conditions"][0].get("reason") for r in env.status_patches("p")],
                "claim writes": sorted({(r.verb, r.code) for r in env.requests if r.resource == "resourceclaims"
                                        and r.verb == "update"}),
                "bound": bool((await env.pod("p"))["spec"].get("nodeName"))}

    assert run(with_env(lambda env: main(env, None))) == {
        "reasons": ["NotReadyForScheduling"], "claim writes": [], "bound": False}
    assert run(with_env(lambda env: main(env, "allocates-deleting-claim"))) == {
        "reasons": [], "claim writes": [("update", 200)], "bound": True}


# -- mutants of kube-scheduler's core, its scheduling gates and DRA's PreBind ---------------------


def _scheduled_events(env: Env, pod: str) -> list[tuple[float, str, str]]:
    return [(r.time, r.body["type"], r.body["note"]) for r in env.events(pod, "Scheduled")]


def _failures(env: Env, pod: str) -> list[tuple[float, str, str]]:
    """The scheduler's status writes of ``pod`` that set PodScheduled=False: (time, reason, message)."""
    return [(r.time, c.get("reason"), c.get("message")) for r in env.status_patches(pod) if r.code == 200
            for c in r.body["status"].get("conditions") or [] if c.get("type") == "PodScheduled"]


async def _bound_at_once(env: Env, mutant: str | None) -> Obj:
    """n1; p fits: bound at once, with its Scheduled event."""
    await env.create_node("n1")
    await env.start_scheduler(mutant=mutant)
    await env.create_pod("p")
    await asyncio.sleep(2)
    return {"bound": [(r.time, r.code) for r in env.bindings("p")], "scheduled events": _scheduled_events(env, "p")}


async def _node_added_after_3(env: Env, mutant: str | None) -> Obj:
    """n1 does not match p's nodeSelector; n2, which does, is added at t=3; watched until t=310."""
    await env.create_node("n1")
    await env.start_scheduler(mutant=mutant)
    await env.create_pod("p", nodeSelector={"disk": "ssd"})
    await asyncio.sleep(3)
    await env.create_node("n2", labels={"disk": "ssd"})
    await asyncio.sleep(307)
    return {"first failure": _failures(env, "p")[:1], "bound": [(r.time, r.code) for r in env.bindings("p")]}


async def _gates_removed_one_by_one(env: Env, mutant: str | None) -> Obj:
    """p has gates a and b; a is removed at t=5, b at t=10."""
    await env.create_node("n1")
    await env.start_scheduler(mutant=mutant)
    await env.create_pod("p", schedulingGates=[{"name": "example.com/a"}, {"name": "example.com/b"}])
    await asyncio.sleep(5)
    await env.patch_pod("p", {"spec": {"schedulingGates": [{"name": "example.com/b"}]}})
    await asyncio.sleep(5)
    await env.patch_pod("p", {"spec": {"schedulingGates": None}})
    await asyncio.sleep(5)
    return {"bindings": [(r.time, r.code) for r in env.bindings("p")],
            "failures": [(t, reason) for t, reason, _ in _failures(env, "p")]}


async def _claim_ready_before_the_pod(env: Env, mutant: str | None) -> Obj:
    """A DeviceClass, a ResourceSlice with one device on n1 and an unallocated claim for it exist
    before p, which uses the claim."""
    await env.create_node("n1")
    await env.post("/apis/resource.k8s.io/v1/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    await env.post("/apis/resource.k8s.io/v1/resourceslices", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpu"},
        "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "n1", "generation": 1,
                 "resourceSliceCount": 1}, "devices": [{"name": "gpu-0"}]}})
    await env.create_claim("claim", [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}])
    await env.start_scheduler(mutant=mutant)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(5)
    return {"bindings": [(r.time, r.code) for r in env.bindings("p")], "failures": _failures(env, "p"),
            "claim writes": [(r.time, r.subresource) for r in env.requests
                             if r.resource == "resourceclaims" and r.verb == "update"]}


FIT_MESSAGE = ("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. no new claims to "
               "deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
CORE_REFERENCE = {
    "bound at once": (_bound_at_once, {"bound": [(0.0, 201)], "scheduled events": [
        (0.0, "Normal", "Successfully assigned default/p to n1")]}),
    "node added": (_node_added_after_3, {"first failure": [(0.0, "Unschedulable", FIT_MESSAGE)],
                                         "bound": [(3.0, 201)]}),
    "gates removed one by one": (_gates_removed_one_by_one, {"bindings": [(10.0, 201)], "failures": []}),
    "claim ready": (_claim_ready_before_the_pod, {"bindings": [(0.0, 201)], "failures": [],
                                                  "claim writes": [(0.0, ""), (0.0, "status")]}),
}
#: what each mutant observes instead, in the scenario made for it (the criterion it fails in brackets)
CORE_EXPOSED: dict[str, tuple[str, Obj]] = {
    # core.binds-fitting-node
    "no-scheduled-event": ("bound at once", {"bound": [(0.0, 201)], "scheduled events": []}),
    # core.node-added: bound only by the flush of pods unschedulable for 5 minutes
    "ignores-node-add": ("node added", {"first failure": [(0.0, "Unschedulable", FIT_MESSAGE)],
                                        "bound": [(300.0, 201)]}),
    # core.unschedulable-message (the evaluator's own fit error, after "preemption: ", keeps its counts)
    "fit-error-without-counts": ("node added", {"first failure": [(0.0, "Unschedulable", FIT_MESSAGE.replace(
        "available: 1 node(s)", "available: node(s)"))], "bound": [(3.0, 201)]}),
    # gates.removal-order.*: tried with gate b left, the binding refused, then gated again by PreEnqueue
    "any-gate-removal-ungates": ("gates removed one by one", {"bindings": [(5.0, 409), (10.0, 201)],
                                                              "failures": [(5.0, "SchedulerError")]}),
    # kep5501.dra-claim-lag.claim-before-pod: the allocation written at t=0, the binding after the 1 s backoff
    "prebind-waits-for-driver": ("claim ready", {
        "bindings": [(1.0, 201)],
        "failures": [(0.0, "Unschedulable", 'running PreBind plugin "DynamicResources": waiting for resource driver')],
        "claim writes": [(0.0, ""), (0.0, "status"), (1.0, "status")]}),
}


def _core_observed(scenario: str, mutant: str | None) -> Obj:
    observe = CORE_REFERENCE[scenario][0]
    return dict(run(with_env(lambda env: observe(env, mutant))))


@pytest.mark.parametrize("scenario", sorted(CORE_REFERENCE))
def test_the_reference_in_the_core_mutants_scenarios(scenario: str) -> None:
    assert _core_observed(scenario, None) == CORE_REFERENCE[scenario][1]


@pytest.mark.parametrize("mutant", sorted(CORE_EXPOSED))
def test_a_core_mutant_is_exposed_by_its_scenario(mutant: str) -> None:
    scenario, expected = CORE_EXPOSED[mutant]
    assert _core_observed(scenario, mutant) == expected != CORE_REFERENCE[scenario][1]


def test_reference_scenarios() -> None:
    for name, scenario in SCENARIOS.items():
        assert _observed(name) == REFERENCE[name], name


def test_ignores_feature_gate_reference_reports_nothing_with_gate_off() -> None:
    observed = _observed("claim", gates=gates(pre_enqueue_pod_status=False))
    assert observed == {"patches": [], "events": [], "bound": True}


@pytest.mark.parametrize("mutant", sorted(EXPOSED))
def test_mutant_is_exposed_by_its_scenario(mutant: str) -> None:
    scenario, kwargs, expected = EXPOSED[mutant]
    observed = _observed(scenario, mutant=mutant, **kwargs)
    assert observed == expected
    if "gates" not in kwargs:
        assert observed != REFERENCE[scenario]


def test_only_the_gate_dependency_mutant_starts_with_pod_status_on_and_async_calls_off() -> None:
    """The reference refuses SchedulerPreEnqueuePodStatus=true with SchedulerAsyncAPICalls=false
    (KEP-5501's dependency); the ``ignores-gate-dependency`` mutant takes it and has no dispatcher."""
    bad = "SchedulerPreEnqueuePodStatus=true,SchedulerAsyncAPICalls=false"
    with pytest.raises(FeatureGateError, match=r"^invalid feature gates: SchedulerPreEnqueuePodStatus=true requires "
                                               r"SchedulerAsyncAPICalls=true$"):
        Scheduler(kubeconfig_for("http://127.0.0.1:1"), clock=WallClock(), gates=parse_feature_gates(bad, validate=False))
    started = Scheduler(kubeconfig_for("http://127.0.0.1:1"), clock=WallClock(), gates=parse_feature_gates(bad, validate=False),
                        mutant="ignores-gate-dependency")
    assert (started.gates.pre_enqueue_pod_status, started.gates.async_api_calls, started.dispatcher) == (True, False, None)


@pytest.mark.parametrize(("mutant", "clear_delay", "clears"), [
    (None, None, True), ("clears-immediately", 0.0, True), ("never-clears", None, False), ("no-delay", 5.0, True)])
def test_clear_mutants_flip_one_switch(mutant: str | None, clear_delay: float | None, clears: bool) -> None:
    """The delayed clear is superseded by the binding end to end, so never-clears is checked on the
    switch it flips (and no-delay leaves the clear's delay alone)."""

    async def main(env: Env) -> tuple[float | None, bool]:
        s = await env.start_scheduler(mutant=mutant)
        return s.reporter.clear_delay, s.reporter.clears

    assert run(with_env(main)) == (clear_delay, clears)


def test_cli_lists_the_variants_by_kind_with_what_is_expected(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["mutants"]) == 0
    out = capsys.readouterr().out
    shapes, mutants, controls = out.split("\n\n")
    assert shapes.splitlines()[:4] == [
        "Shape variants: correct KEP-5501 behaviour, another request shape or another correct choice (when a claim "
        "event re-runs PreEnqueue)",
        "status-by-put",
        "    writes the PodScheduled condition with PUT pods/<name>/status (the whole pod with its resourceVersion, "
        "client-go UpdateStatus); on 409 re-reads the pod and retries",
        "    expected: must pass every criterion"]
    assert shapes.count("expected: must pass every criterion") == 5 and "violates" not in shapes
    assert mutants.splitlines()[:5] == [
        "Mutants: each breaks one rule it names (of KEP-5501, kube-scheduler's core, DefaultPreemption or KEP-5836)",
        "no-delay",
        "    patches the NotReadyForScheduling condition as soon as a pod is rejected",
        "    violates: \"To handle transient rejections and reduce API server load, the scheduler will not act on "
        "this immediately. Instead, it will use a delayed dispatch mechanism\"",
        "    expected: must fail at least one criterion"]
    assert mutants.count("violates:") == mutants.count("expected: must fail at least one criterion") == len(MUTANTS)
    assert controls == (
        "Controls: not a scheduler, by design\n"
        "does-nothing\n"
        "    binds only the adapter's probe pod (namespace schedharness-probe); never binds, patches or emits an "
        "event for any other pod\n"
        "    expected: must pass no criterion, and fail every suite\n"
        "never-watches\n"
        "    polls: LISTs pods every 1 s, never WATCHes, never reads a node, and binds only the adapter's probe pod "
        "(namespace schedharness-probe) to the node its nodeSelector names\n"
        "    expected: must pass no criterion, and fail every suite\n")


def test_cli_refuses_the_gate_dependency(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["scheduler", "--kubeconfig", "x", "--feature-gates", "SchedulerAsyncAPICalls=false"]) == 2
    assert capsys.readouterr().err == (
        "schedharness scheduler: invalid feature gates: SchedulerPreEnqueuePodStatus=true requires "
        "SchedulerAsyncAPICalls=true\n")


# -- shape variants and the control ------------------------------------------------------------


def _pod_scheduled_states(scenario: str, **kw: Any) -> Obj:
    """What a scenario did at the API, whatever the requests: every state of the pod's
    PodScheduled condition as a watch delivered it, the events, the binding."""

    async def main(env: Env) -> Obj:
        states: list[tuple[float, Obj | None]] = [(0.0, None)]

        async def watch() -> None:
            async with KubeClient(env.server.kubeconfig) as client:
                async for event in client.watch("/api/v1/namespaces/default/pods",
                                                {"fieldSelector": "metadata.name=p"}):
                    cond = next((c for c in event["object"]["status"].get("conditions") or []
                                 if c["type"] == "PodScheduled"), None)
                    if states[-1][1] != cond:
                        states.append((env.now(), cond))

        watcher = asyncio.get_running_loop().create_task(watch())
        try:
            await STATE_SCENARIOS[scenario](env, **kw)
        finally:
            watcher.cancel()
        return {"states": states, "events": [(r.time, r.body["reason"]) for r in env.events("p")],
                "bound": [(r.time, r.code) for r in env.bindings("p")],
                "status writes": [(r.time, r.verb, r.code) for r in env.requests
                                  if r.subresource == "status" and r.name == "p"]}

    return dict(run(with_env(main)))


async def _unschedulable(env: Env, **kw: Any) -> None:
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", nodeSelector={"disk": "ssd"})
    await asyncio.sleep(3)
    await env.create_node("n2", labels={"disk": "ssd"})
    await asyncio.sleep(3)


STATE_SCENARIOS = {"claim": _claim_at_12, "changing": _changing, "failing": _failing, "unschedulable": _unschedulable}


@pytest.mark.parametrize("scenario", STATE_SCENARIOS)
def test_the_reference_scenarios_go_through_these_states(scenario: str) -> None:
    """The yardstick of the shape variants, pinned: when the condition appears and changes."""
    observed = _pod_scheduled_states(scenario)
    reasons = [(t, c and (c.get("reason") or c["status"]), c and c.get("message")) for t, c in observed["states"]]
    assert reasons == {
        "claim": [(0.0, None, None), (5.0, "NotReadyForScheduling", CLAIM[1]), (12.0, "True", None)],
        "changing": [(0.0, None, None), (5.0, "NotReadyForScheduling", "m2")],
        "failing": [(0.0, None, None), (13.0, "NotReadyForScheduling", CLAIM[1]), (18.0, "True", None)],
        "unschedulable": [(0.0, None, None), (0.0, "Unschedulable",
                                              "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. "
                                              "no new claims to deallocate, preemption: 0/1 nodes are available: "
                                              "1 Preemption is not helpful for scheduling."),
                          (3.0, "True", None)],
    }[scenario]


@pytest.mark.parametrize("scenario", STATE_SCENARIOS)
@pytest.mark.parametrize("variant", [m.name for m in VARIANTS if m.kind == "shape"])
def test_a_shape_variant_leaves_the_same_states_with_other_requests(variant: str, scenario: str) -> None:
    reference = _pod_scheduled_states(scenario)
    shaped = _pod_scheduled_states(scenario, mutant=variant)
    assert {k: v for k, v in shaped.items() if k != "status writes"} == {
        k: v for k, v in reference.items() if k != "status writes"}
    assert [(t, code) for t, _, code in shaped["status writes"]] == [(t, code) for t, _, code in reference["status writes"]]
    assert {verb for _, verb, _ in shaped["status writes"]} == {"update" if variant == "status-by-put" else "patch"}


def test_probe_namespace_and_node_are_the_harness_probes() -> None:
    assert (PROBE_NAMESPACE, PROBE_NODE) == (HARNESS_PROBE_NAMESPACE, HARNESS_PROBE_NAME)


def test_does_nothing_binds_the_probe_pod_and_touches_no_other_pod() -> None:
    async def main(env: Env) -> Obj:
        await env.create_node("n1")
        await env.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": PROBE_NAMESPACE}})
        await env.start_scheduler(mutant="does-nothing")
        await env.create_pod("p")
        await env.create_pod("u", nodeSelector={"x": "y"})
        await env.create_pod("c", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await env.post(f"/api/v1/namespaces/{PROBE_NAMESPACE}/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}})
        await asyncio.sleep(30)
        probe = await env.get(f"/api/v1/namespaces/{PROBE_NAMESPACE}/pods/probe")
        mine = [r for r in env.requests if r.subresource or r.resource not in ("nodes", "namespaces", "pods")]
        return {"probe": probe["spec"].get("nodeName"),
                "scheduler's writes": [(r.verb, r.resource, r.subresource, r.name or r.body["regarding"]["name"])
                                       for r in mine],
                "others": [(await env.pod(n))["spec"].get("nodeName") for n in "puc"]}

    assert run(with_env(main)) == {"probe": "n1", "others": [None, None, None], "scheduler's writes": [
        ("create", "pods", "binding", "probe"), ("create", "events", "", "probe")]}


def _reads_and_writes_of(mutant: str) -> Obj:
    """A control against the adapter's own probe node and pod, beside two other pods (one a node
    fits, one none fits): every LIST and WATCH the scheduler sent, each write, and where the pods
    are after 30 s. The test itself only creates (POST) and GETs, so every LIST and WATCH in the
    fake's journal is the scheduler's."""

    async def main(env: Env) -> Obj:
        await env.create_node("n1")
        await env.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                              "metadata": {"name": PROBE_NAMESPACE}})
        await env.post("/api/v1/nodes", _probe_node())
        await env.start_scheduler(mutant=mutant)
        await env.create_pod("p")
        await env.create_pod("u", nodeSelector={"x": "y"})
        await env.post(f"/api/v1/namespaces/{PROBE_NAMESPACE}/pods", _probe_pod())
        created = env.now()
        await asyncio.sleep(30)
        probe = await env.get(f"/api/v1/namespaces/{PROBE_NAMESPACE}/pods/{HARNESS_PROBE_NAME}")
        journal = env.server.journal
        return {"reads": [(e.time, e.verb, e.resource) for e in journal.requests() if e.verb in ("list", "watch")],
                "writes": [(r.time - created, r.verb, r.resource, r.subresource) for r in env.requests
                           if r.subresource or r.resource not in ("nodes", "namespaces", "pods")],
                "probe": probe["spec"].get("nodeName"),
                "others": [(await env.pod(n))["spec"].get("nodeName") for n in "pu"]}

    return dict(run(with_env(main)))


def test_never_watches_polls_pods_reads_no_node_and_binds_only_the_probe_pod() -> None:
    """The process of issue 40 as a control: a LIST of pods each POLL_PERIOD seconds from its start
    and no other read (no WATCH at all, no node, claim, slice, class or PDB); the probe pod bound at
    the first poll after it was made, to the node its nodeSelector names; no other pod touched."""
    observed = _reads_and_writes_of("never-watches")
    assert POLL_PERIOD == 1.0
    assert observed["reads"] == [(float(t), "list", "pods") for t in range(31)]
    assert observed == {"reads": observed["reads"], "probe": PROBE_NODE, "others": [None, None], "writes": [
        (1.0, "create", "pods", "binding"), (1.0, "create", "events", "")]}


def test_does_nothing_watches_every_kind_it_reads_where_never_watches_polls() -> None:
    """The two controls differ where issue 40 says they do: does-nothing lists and watches pods and
    nodes (and binds the probe pod as soon as it is made), never-watches does not."""
    observed = _reads_and_writes_of("does-nothing")
    reads = {(verb, resource) for _, verb, resource in observed["reads"]}
    assert {("list", "pods"), ("watch", "pods"), ("list", "nodes"), ("watch", "nodes")} <= reads
    assert (observed["probe"], observed["others"]) == (PROBE_NODE, [None, None])
    assert observed["writes"] == [(0.0, "create", "pods", "binding"), (0.0, "create", "events", "")]


def test_never_watches_refuses_the_gate_dependency_as_the_reference_does(capsys: pytest.CaptureFixture[str]) -> None:
    bad = "SchedulerPreEnqueuePodStatus=true,SchedulerAsyncAPICalls=false"
    with pytest.raises(FeatureGateError, match=r"^invalid feature gates: SchedulerPreEnqueuePodStatus=true requires "
                                               r"SchedulerAsyncAPICalls=true$"):
        Scheduler(kubeconfig_for("http://127.0.0.1:1"), clock=WallClock(), gates=parse_feature_gates(bad, validate=False),
                  mutant="never-watches")
    assert cli_main(["scheduler", "--kubeconfig", "x", "--feature-gates", bad, "--mutant", "never-watches"]) == 2
    assert capsys.readouterr().err == (
        "schedharness scheduler: invalid feature gates: SchedulerPreEnqueuePodStatus=true requires "
        "SchedulerAsyncAPICalls=true\n")


# -- mutants whose per-pod KEP-5501 state leaks between pods --------------------------------------


async def _rejected_together(env: Env, mutant: str | None) -> Obj:
    """p1 and p2 rejected with message m, p3 with n, made at t=0, 1 and 2 (all three reports
    pending at once); p1 passes at t=3, inside its delay. Each pod's status writes, until t=20."""
    await env.create_node("n1")
    await env.start_scheduler(pre_enqueue=[Block()], mutant=mutant)
    for name, message in (("p1", "m"), ("p2", "m"), ("p3", "n")):
        if name != "p1":
            await asyncio.sleep(1)
        await env.create_pod(name, annotations={"block": message})
    await asyncio.sleep(1)
    await env.patch_pod("p1", {"metadata": {"annotations": {"block": None}}})
    await asyncio.sleep(17)
    return {name: _observe(env, name)["patches"] for name in ("p1", "p2", "p3")}


#: KEP-5501, per pod: p1's rejection resolved within its delay leaves nothing; p2 and p3 are
#: written 5 s after their own rejection, each with its own message.
LEAKS_REFERENCE: Obj = {"p1": [], "p2": [(6.0, 200, ("NotReadyForScheduling", "m"))],
                        "p3": [(7.0, 200, ("NotReadyForScheduling", "n"))]}
#: what each mutant writes instead (the criteria it fails: kep5501.core.pods-rejected-together-same-message,
#: and for the last two kep5501.core.pods-released-apart)
LEAKS_EXPOSED: dict[str, Obj] = {
    # p2's message is the one last reported (for p1): taken as already reported
    "shared-last-message": {"p1": [], "p2": [], "p3": [(7.0, 200, ("NotReadyForScheduling", "n"))]},
    # each new delayed call overwrites the others' (p3's by p1's clear, which changes nothing)
    "shared-delayed-call": {"p1": [], "p2": [], "p3": []},
    # p2 and p3 are due when p1's report was
    "shared-delay-start": {"p1": [], "p2": [(5.0, 200, ("NotReadyForScheduling", "m"))],
                           "p3": [(5.0, 200, ("NotReadyForScheduling", "n"))]},
}


def test_the_reference_keeps_each_pods_state_to_itself() -> None:
    assert dict(run(with_env(lambda env: _rejected_together(env, None)))) == LEAKS_REFERENCE


@pytest.mark.parametrize("mutant", sorted(LEAKS_EXPOSED))
def test_a_mutant_leaking_state_between_pods_is_exposed(mutant: str) -> None:
    observed = dict(run(with_env(lambda env: _rejected_together(env, mutant))))
    assert observed == LEAKS_EXPOSED[mutant] != LEAKS_REFERENCE
