"""The reference scheduler against the fake API server under virtual time (KEP-5501 scenarios).

Each test ends with the exact status and the exact number of status PATCHes and events the KEP
implies, counted from every request the server received. The requests the reference copies from
kube-scheduler (its status patch and its binding) are held to what a kube-scheduler of the v1.35
line sent, scheduler-plugins' ``cmd/scheduler`` built against ``k8s.io/kubernetes`` v1.35.4
(``tests/data/scheduler_plugins_k8s_v1.35.4_requests.json``), not to the reference's own output."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import yaml

from harness._time.virtual_time import run
from reference_scheduler import GANG_LABEL, GANG_MIN_ANNOTATION, GATED_MESSAGE
from reference_scheduler._plugins import POD_GROUP_LABEL
from tests.support.paths import ROOT
from tests.support.recorded_requests import RECORDED, recorded_body
from tests.support.reference_env import MERGE, Env, gates, with_env

CLAIM_MISSING = 'could not find ResourceClaim "default/claim"'


def _recorded_shape(name: str, **fields: Any) -> dict[str, Any]:
    """The recorded status patch ``name`` (the v1.35.4 scheduler's) with ``fields`` set in its
    one condition and without ``observedGeneration``: the reference does not implement KEP-5067
    (pod observedGeneration tracking), the one field of kube-scheduler's it knowingly leaves out."""
    body = copy.deepcopy(RECORDED[name]["body"])
    [cond] = body["status"]["conditions"]
    del cond["observedGeneration"]
    cond.update(fields)
    return body


def _not_ready_patch(message: str, when: str) -> dict[str, Any]:
    """For a pod with no conditions: kube-scheduler's patch for one, with KEP-5501's reason."""
    return _recorded_shape("unschedulable_without_conditions", reason="NotReadyForScheduling", message=message,
                           lastTransitionTime=when)


def _scheduled(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in pod["status"].get("conditions", []) if c["type"] == "PodScheduled"]


def test_gated_pod_gets_no_patch_and_is_bound_after_its_gates_go() -> None:
    """KEP-5501 "Handling the SchedulingGated conflict": the unified message makes a gated pod cost nothing."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler()
        await env.create_pod("g", schedulingGates=[{"name": "example.com/a"}, {"name": "example.com/b"}])
        await asyncio.sleep(30)
        pod = await env.pod("g")
        assert _scheduled(pod) == [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                    "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "SchedulingGated",
                                    "message": GATED_MESSAGE}]
        await env.patch_pod("g", {"spec": {"schedulingGates": None}})
        await asyncio.sleep(10)
        pod = await env.pod("g")
        assert pod["spec"]["nodeName"] == "n1"
        assert _scheduled(pod) == [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                    "lastTransitionTime": "2026-01-01T00:00:30Z"}]
        assert env.status_patches("g") == []
        assert [(r.time, r.body["reason"], r.body["type"], r.body["action"], r.body["note"]) for r in env.events("g")] == [
            (30.0, "Scheduled", "Normal", "Binding", "Successfully assigned default/g to n1")]
        assert [(r.time, r.body) for r in env.bindings("g")] == [(30.0, {
            "kind": "Binding", "apiVersion": "v1",
            "metadata": {"name": "g", "namespace": "default", "uid": pod["metadata"]["uid"]},
            "target": {"kind": "Node", "name": "n1"}})]

    run(with_env(main))


def test_claim_created_within_the_delay_costs_no_patch() -> None:
    """KEP-5501 Proposal: "If the Pod is retried and the rejection reason is resolved ... during this
    period, the pending update will be cancelled"."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(3)
        await env.create_claim("claim")
        await asyncio.sleep(20)
        pod = await env.pod("p")
        assert pod["spec"]["nodeName"] == "n1"
        assert _scheduled(pod)[0]["status"] == "True"
        assert env.status_patches("p") == []
        assert [(r.time, r.body["reason"]) for r in env.events("p")] == [(3.0, "Scheduled")]
        claim = await env.get("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/claim")
        assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": "p", "uid": pod["metadata"]["uid"]}]

    run(with_env(main))


def test_claim_created_after_the_delay_gives_one_patch_and_one_event() -> None:
    """KEP-5501 "If the delay period expires, the scheduler will asynchronously patch the Pod's status";
    the binding then replaces the condition, so the pending clear is never sent."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(12)
        mid = await env.pod("p")
        assert _scheduled(mid) == [{"lastProbeTime": None, "lastTransitionTime": "2026-01-01T00:00:05Z",
                                    "message": CLAIM_MISSING, "reason": "NotReadyForScheduling",
                                    "status": "False", "type": "PodScheduled"}]
        await env.create_claim("claim")
        await asyncio.sleep(20)
        pod = await env.pod("p")
        assert pod["spec"]["nodeName"] == "n1"
        assert _scheduled(pod) == [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                    "lastTransitionTime": "2026-01-01T00:00:12Z"}]
        assert [(r.time, r.body, r.code) for r in env.status_patches("p")] == [
            (5.0, _not_ready_patch(CLAIM_MISSING, "2026-01-01T00:00:05Z"), 200)]
        events = env.events("p")
        assert [(r.time, r.body["reason"], r.body["type"], r.body["action"], r.body["note"],
                 r.body["reportingController"]) for r in events] == [
            (5.0, "NotReadyForScheduling", "Warning", "PreEnqueue", CLAIM_MISSING, "default-scheduler"),
            (12.0, "Scheduled", "Normal", "Binding", "Successfully assigned default/p to n1")[:5] + ("default-scheduler",),
        ]

    run(with_env(main))


def test_changing_gang_message_keeps_the_first_due_time() -> None:
    """KEP-5501 "the pending update will be cancelled or overwritten" and "its delay will not be
    reset": a message that changes inside the window is sent once, at the original due time."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler()
        member: dict[str, Any] = {"labels": {GANG_LABEL: "g"}, "annotations": {GANG_MIN_ANNOTATION: "4"}}
        await env.create_pod("a", **member)
        await asyncio.sleep(7)
        await env.create_pod("b", **member)
        await asyncio.sleep(2)
        await env.create_pod("c", **member)
        await asyncio.sleep(11)
        msg = 'waiting for gang "default/g": {}/4 pods present'
        pods = {n: await env.pod(n) for n in "abc"}
        assert {n: (_scheduled(p)[0]["message"], _scheduled(p)[0]["lastTransitionTime"]) for n, p in pods.items()} == {
            "a": (msg.format(3), "2026-01-01T00:00:05Z"),
            "b": (msg.format(3), "2026-01-01T00:00:12Z"),
            "c": (msg.format(3), "2026-01-01T00:00:14Z"),
        }
        await env.create_pod("d", **member)
        await asyncio.sleep(20)
        for name in "abcd":
            assert (await env.pod(name))["spec"]["nodeName"] == "n1"
        patches = {n: [(r.time, r.body["status"]["conditions"][0].get("message")) for r in env.status_patches(n)]
                   for n in "abcd"}
        assert patches == {
            "a": [(5.0, msg.format(1)), (12.0, msg.format(3))],
            "b": [(12.0, msg.format(3))],
            "c": [(14.0, msg.format(3))],
            "d": [],
        }
        events = {n: [(r.time, r.body["reason"]) for r in env.events(n)] for n in "abcd"}
        assert events == {
            "a": [(5.0, "NotReadyForScheduling"), (12.0, "NotReadyForScheduling"), (20.0, "Scheduled")],
            "b": [(12.0, "NotReadyForScheduling"), (20.0, "Scheduled")],
            "c": [(14.0, "NotReadyForScheduling"), (20.0, "Scheduled")],
            "d": [(20.0, "Scheduled")],
        }

    run(with_env(main))


def test_failed_patch_is_retried_on_the_next_re_evaluation() -> None:
    """KEP-5501 Risks: "any subsequent event that causes the Pod to be re-evaluated by the PreEnqueue
    plugins will trigger a retry of the status patch" (decision 4: a failure resets the cache)."""

    async def main(env: Env) -> None:
        failed: list[float] = []

        def first_status_patch(info: Any) -> bool:
            if info.subresource == "status" and info.name == "p" and not failed:
                failed.append(env.now())
                return True
            return False

        env.fail.append(first_status_patch)
        await env.create_node("n1")
        await env.start_scheduler()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(8)
        assert _scheduled(await env.pod("p")) == []
        await env.patch_pod("p", {"metadata": {"labels": {"touched": "1"}}})
        await asyncio.sleep(10)
        assert [(r.time, r.code) for r in env.status_patches("p")] == [(5.0, 500), (13.0, 200)]
        assert [(r.time, r.body["reason"]) for r in env.events("p")] == [(13.0, "NotReadyForScheduling")]
        assert _scheduled(await env.pod("p"))[0]["message"] == CLAIM_MISSING
        await env.create_claim("claim")
        await asyncio.sleep(5)
        assert (await env.pod("p"))["spec"]["nodeName"] == "n1"

    run(with_env(main))


def test_unschedulable_pod_gets_the_real_message_and_is_bound_when_a_node_fits() -> None:
    """docs/api-facts.md §fit-error: ``0/N nodes are available: ...``, the exact patch shape, a FailedScheduling event."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.create_node("n2", unschedulable=True)
        await env.start_scheduler()
        await env.create_pod("u", nodeSelector={"disk": "ssd"})
        await asyncio.sleep(3)
        message = ("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                   "1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: "
                   "2 Preemption is not helpful for scheduling.")
        assert [(r.time, r.body) for r in env.status_patches("u")] == [(0.0, _recorded_shape(
            "unschedulable_without_conditions", message=message, lastTransitionTime="2026-01-01T00:00:00Z"))]
        assert [(r.body["type"], r.body["reason"], r.body["action"], r.body["note"]) for r in env.events("u")] == [
            ("Warning", "FailedScheduling", "Scheduling", message)]
        await env.create_node("n3", labels={"disk": "ssd"})
        await asyncio.sleep(3)
        pod = await env.pod("u")
        assert pod["spec"]["nodeName"] == "n3"
        assert len(env.status_patches("u")) == 1

    run(with_env(main))


def test_the_requests_kube_scheduler_sends_are_the_recorded_ones() -> None:
    """docs/api-facts.md §fit-error and §binding against kube-scheduler v1.35 in the same scenario (one node of 2
    cpu; ``big`` asks 3 and has no conditions, ``gated`` asks 3 and is released from its gate,
    ``fits`` asks 1): the same method, path, content type and body, but for the lastTransitionTime
    and uid of the run, kube-scheduler's ``observedGeneration`` (KEP-5067, not implemented here),
    and nothing else: the message too, the fit error followed by the PostFilter messages of
    DynamicResources and DefaultPreemption."""

    async def main(env: Env) -> dict[str, list[Any]]:
        capacity = {"cpu": "2", "memory": "4Gi", "pods": "110"}
        await env.post("/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"capacity": capacity, "allocatable": capacity, "conditions": [
                {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}]}})
        await env.start_scheduler()

        def containers(cpu: str) -> list[dict[str, Any]]:
            return [{"name": "c", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": cpu}}}]

        await env.create_pod("big", containers=containers("3"))
        await env.create_pod("gated", containers=containers("3"), schedulingGates=[{"name": "example.com/hold"}])
        await asyncio.sleep(1)
        await env.patch_pod("gated", {"spec": {"schedulingGates": None}})
        await env.create_pod("fits", containers=containers("1"))
        await asyncio.sleep(3)
        sent: dict[str, list[Any]] = {}
        for e in env.server.journal.entries:
            if e.type == "request" and e.subresource in ("status", "binding"):
                sent.setdefault(e.name, []).append((e.verb, e.path, e.content_type, e.code, e.body))
        return sent

    sent = run(with_env(main))
    assert {pod: len(requests) for pod, requests in sent.items()} == {"big": 1, "gated": 1, "fits": 1}
    for pod, name in (("big", "unschedulable_without_conditions"), ("gated", "unschedulable_released_from_its_gate")):
        recorded = RECORDED[name]
        [(verb, path, content_type, code, body)] = sent[pod]
        assert (verb, path, content_type, code) == ("patch", recorded["path"], recorded["content_type"], recorded["code"])
        expected = recorded_body(name, body)
        [cond] = expected["status"]["conditions"]
        del cond["observedGeneration"]
        assert cond["message"].startswith(recorded["fit_error"] + " ")
        assert body == expected, pod
    recorded = RECORDED["binding"]
    [(verb, path, content_type, code, body)] = sent["fits"]
    assert (verb, path, content_type, code) == ("create", recorded["path"], recorded["content_type"], recorded["code"])
    assert body == recorded_body("binding", body)
    assert list(body) == list(recorded["body"])  # the order of a typed object's fields


def test_feature_gate_off_reports_nothing_and_keeps_the_old_gate_message() -> None:
    """KEP-5501 rollback: with SchedulerPreEnqueuePodStatus off "the scheduler will stop adding or
    updating these conditions"."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        s = await env.start_scheduler(gates=gates(pre_enqueue_pod_status=False))
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await env.create_pod("g", schedulingGates=[{"name": "example.com/a"}])
        await asyncio.sleep(30)
        assert env.status_patches("p") == [] and env.status_patches("g") == []
        assert env.events("p") == [] and env.events("g") == []
        assert s.scheduling_gates.pre_enqueue(await env.pod("g")) == "waiting for scheduling gates: [example.com/a]"

    run(with_env(main))


def test_async_calls_off_binds_and_patches_directly() -> None:
    async def main(env: Env) -> None:
        await env.create_node("n1")
        s = await env.start_scheduler(gates=gates(pre_enqueue_pod_status=False, async_api_calls=False))
        assert s.dispatcher is None
        await env.create_pod("p")
        await env.create_pod("u", nodeSelector={"x": "y"})
        await asyncio.sleep(3)
        assert (await env.pod("p"))["spec"]["nodeName"] == "n1"
        assert _scheduled(await env.pod("u"))[0]["reason"] == "Unschedulable"

    run(with_env(main))


def test_dra_claim_is_allocated_from_a_slice_by_device_class() -> None:
    """DRA PreBind as far as the scenarios need (reference_scheduler._dra)."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.create_node("n2")
        await env.post("/apis/resource.k8s.io/v1/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
        await env.post("/apis/resource.k8s.io/v1/resourceslices", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n2-gpu"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n2", "pool": {"name": "n2", "generation": 1,
                     "resourceSliceCount": 1}, "devices": [{"name": "gpu-0"}]}})
        await env.create_claim("claim", [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}])
        await env.create_claim("other", [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}])
        await env.start_scheduler()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(2)
        await env.create_pod("q", resourceClaims=[{"name": "c", "resourceClaimName": "other"}])
        await asyncio.sleep(3)
        pod = await env.pod("p")
        assert pod["spec"]["nodeName"] == "n2"
        claim = await env.get("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/claim")
        assert claim["status"]["allocation"]["devices"]["results"] == [
            {"request": "gpu", "driver": "gpu.example.com", "pool": "n2", "device": "gpu-0"}]
        assert claim["status"]["reservedFor"] == [{"resource": "pods", "name": "p", "uid": pod["metadata"]["uid"]}]
        assert claim["metadata"]["finalizers"] == ["resource.kubernetes.io/delete-protection"]
        assert _scheduled(await env.pod("q"))[0]["message"] == (
            "0/2 nodes are available: 2 cannot allocate all claims. no new claims to deallocate, "
            "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")

    run(with_env(main))


def test_template_claim_waits_for_the_generated_claim_and_its_status() -> None:
    """B.4: ``ResourceClaim not created yet`` until ``status.resourceClaimStatuses`` names an owned claim."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler()
        pod = await env.create_pod("p", resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "t"}])
        await asyncio.sleep(6)
        assert _scheduled(await env.pod("p"))[0]["message"] == 'pod "default/p": ResourceClaim not created yet'
        owner = {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": pod["metadata"]["uid"], "controller": True}
        await env.post("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "p-gpu", "ownerReferences": [owner]}, "spec": {"devices": {"requests": []}}})
        async with env.http.patch("/api/v1/namespaces/default/pods/p/status", headers={
                "Content-Type": "application/strategic-merge-patch+json"},
                json={"status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu"}]}}) as r:
            assert r.status == 200, await r.text()
        await asyncio.sleep(3)
        assert (await env.pod("p"))["spec"]["nodeName"] == "n1"
        assert [(r.time, r.body["status"]["conditions"][0]["message"]) for r in env.status_patches("p")
                if "conditions" in r.body["status"]] == [(5.0, 'pod "default/p": ResourceClaim not created yet')]
        assert len(env.status_patches("p")) == 2  # the test's own resourceClaimStatuses write

    run(with_env(main))


def test_a_recreated_pod_is_not_patched_for_its_predecessor() -> None:
    async def main(env: Env) -> None:
        await env.create_node("n1", unschedulable=True)
        await env.start_scheduler()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(2)
        async with env.http.delete("/api/v1/namespaces/default/pods/p") as r:
            assert r.status == 200
        await asyncio.sleep(1)
        await env.create_pod("p", schedulingGates=[{"name": "example.com/a"}])
        await asyncio.sleep(10)
        assert env.status_patches("p") == []
        assert _scheduled(await env.pod("p"))[0]["reason"] == "SchedulingGated"

    run(with_env(main))


def test_same_scenario_same_requests() -> None:
    """Deterministic by default: two runs send the same requests, byte for byte, at the same times."""

    async def main(env: Env) -> list[Any]:
        await env.create_node("n1")
        await env.start_scheduler()
        member: dict[str, Any] = {"labels": {GANG_LABEL: "g"}, "annotations": {GANG_MIN_ANNOTATION: "2"}}
        await env.create_pod("a", **member)
        await env.create_pod("u", nodeSelector={"x": "y"})
        await asyncio.sleep(7)
        await env.create_pod("b", **member)
        await asyncio.sleep(5)
        return [(r.time, r.verb, r.resource, r.subresource, r.name, r.body, r.code) for r in env.requests]

    first = run(with_env(main))
    assert len(first) > 8
    assert run(with_env(main)) == first


def test_no_nodes_is_a_scheduler_error_retried_with_backoff() -> None:
    """``ErrNoNodesAvailable``: reason SchedulerError, backoff 1, 2, 4, 8 s; one patch, an event per attempt."""

    async def main(env: Env) -> None:
        await env.start_scheduler()
        await env.create_pod("p")
        await asyncio.sleep(20)
        assert _scheduled(await env.pod("p")) == [{"lastProbeTime": None, "lastTransitionTime": "2026-01-01T00:00:00Z",
                                                   "message": "no nodes available to schedule pods",
                                                   "reason": "SchedulerError", "status": "False", "type": "PodScheduled"}]
        assert len(env.status_patches("p")) == 1
        assert [r.time for r in env.events("p", "FailedScheduling")] == [0.0, 1.0, 3.0, 7.0, 15.0]

    run(with_env(main))


def test_delay_is_configurable() -> None:
    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler(delay=1.5)
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(5)
        assert [r.time for r in env.status_patches("p")] == [1.5]

    run(with_env(main))


CLAIMS_PATH = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"


async def _finalized_claim(env: Env, name: str, requests: list[dict[str, Any]] | None = None) -> None:
    """Claim ``name`` with the finalizer ``example.com/keep``."""
    await env.post(CLAIMS_PATH, {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                 "metadata": {"name": name, "finalizers": ["example.com/keep"]},
                                 "spec": {"devices": {"requests": requests or []}}})


async def _delete(env: Env, path: str) -> dict[str, Any]:
    async with env.http.delete(path) as r:
        assert r.status == 200, await r.text()
        return dict(await r.json())


def _messages(env: Env, pod: str) -> list[tuple[float, str]]:
    """When the scheduler's status patches of ``pod`` set a ``PodScheduled`` message, and which."""
    return [(r.time, c["message"]) for r in env.status_patches(pod)
            for c in r.body["status"].get("conditions", []) if c.get("type") == "PodScheduled" and "message" in c]


def test_a_claim_being_deleted_is_a_pre_enqueue_rejection_until_it_is_replaced() -> None:
    """B.4 ``resourceclaim "<name>" is being deleted``: a claim kept by a finalizer after its
    deletion is a PreEnqueue rejection, reported after the delay; the claim is never written
    (no allocation, no reservation); once the finalizer goes and a new claim of that name comes,
    the pod is bound and the pending report of the claim's absence is never sent."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.start_scheduler()
        await _finalized_claim(env, "claim")
        deleting = await _delete(env, f"{CLAIMS_PATH}/claim")
        assert deleting["metadata"]["deletionTimestamp"] and deleting["metadata"]["finalizers"] == ["example.com/keep"]
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(30)
        assert (await env.pod("p"))["spec"].get("nodeName") is None
        async with env.http.patch(f"{CLAIMS_PATH}/claim", data=json.dumps({"metadata": {"finalizers": None}}),
                                  headers=MERGE) as r:
            assert r.status == 200, await r.text()
        await env.create_claim("claim")
        await asyncio.sleep(10)
        assert (await env.pod("p"))["spec"]["nodeName"] == "n1"
        assert _messages(env, "p") == [(5.0, 'resourceclaim "claim" is being deleted')]
        assert [r.body["status"]["conditions"][0]["reason"] for r in env.status_patches("p")] == ["NotReadyForScheduling"]
        assert [r.time for r in env.events("p", "NotReadyForScheduling")] == [5.0]
        writes = [(r.time, r.verb, r.subresource) for r in env.requests if r.resource == "resourceclaims"
                  and r.verb in ("update", "patch") and r.time < 30]
        assert writes == []

    run(with_env(main))


def test_a_claim_that_starts_being_deleted_after_pre_enqueue_fails_the_attempt_at_pre_filter() -> None:
    """kube-scheduler's PreFilter runs ``foreachPodResourceClaim`` again: a pod that passed
    PreEnqueue (here moved to backoffQ by a new ResourceSlice) whose claim then starts to be
    deleted fails its attempt with the PreFilter message (FitError ``0/%v nodes are available:
    %v.``), instead of having the claim allocated (whose finalizer write the API server would
    refuse on a claim being deleted)."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        await env.post("/apis/resource.k8s.io/v1/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
        await _finalized_claim(env, "claim", [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}])
        await env.start_scheduler()
        await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
        await asyncio.sleep(0.4)  # failed at t=0 (no device): backoff until t=1
        await env.post("/apis/resource.k8s.io/v1/resourceslices", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n1-gpu"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n1", "pool": {"name": "n1", "generation": 1,
                     "resourceSliceCount": 1}, "devices": [{"name": "gpu-0"}]}})
        await asyncio.sleep(0.1)  # the slice moved the pod: PreEnqueue passed, backoffQ until t=1
        await _delete(env, f"{CLAIMS_PATH}/claim")
        await asyncio.sleep(2)
        pod = await env.pod("p")
        assert pod["spec"].get("nodeName") is None and _scheduled(pod)[0]["reason"] == "Unschedulable"
        assert _messages(env, "p") == [(0.0, "0/1 nodes are available: 1 cannot allocate all claims. no new claims "
                                             "to deallocate, preemption: 0/1 nodes are available: 1 No preemption "
                                             "victims found for incoming pod."),
                                       (1.0, '0/1 nodes are available: resourceclaim "claim" is being deleted.')]
        claim = await env.get(f"{CLAIMS_PATH}/claim")
        assert claim["metadata"]["finalizers"] == ["example.com/keep"] and "allocation" not in claim.get("status", {})

    run(with_env(main))


PODGROUP_CRD = ROOT / "docs" / "examples" / "podgroup-crd.yaml"
PODGROUPS = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups"


def test_pod_group_members_wait_for_their_group_and_its_min_member() -> None:
    """GangQuorum reads a PodGroup: a member whose group does not exist waits; once the group
    exists, members wait until ``spec.minMember`` of them exist; a change of the group (its
    minMember lowered) re-queues them and they are bound. A scheduler that has seen no member has
    sent no request for PodGroups."""

    async def main(env: Env) -> None:
        await env.create_node("n1")
        scheduler = await env.start_scheduler()
        await env.create_pod("solo")
        await asyncio.sleep(1)
        assert scheduler.podgroups.lists == 0
        await env.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", yaml.safe_load(PODGROUP_CRD.read_text()))
        member: dict[str, Any] = {"labels": {POD_GROUP_LABEL: "g"}}
        await env.create_pod("a", **member)
        await asyncio.sleep(10)
        assert _scheduled(await env.pod("a"))[0]["message"] == 'waiting for PodGroup "default/g": not found'
        await env.post(PODGROUPS, {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                                   "metadata": {"name": "g"}, "spec": {"minMember": 3}})
        await env.create_pod("b", **member)
        await asyncio.sleep(10)
        for name in "ab":
            pod = await env.pod(name)
            assert not pod["spec"].get("nodeName")
            assert _scheduled(pod)[0]["message"] == 'waiting for PodGroup "default/g": 2/3 pods present'
        async with env.http.patch(f"{PODGROUPS}/g", data=json.dumps({"spec": {"minMember": 2}}), headers=MERGE) as r:
            assert r.status == 200, await r.text()
        await asyncio.sleep(1)
        assert [(await env.pod(n))["spec"].get("nodeName") for n in ("solo", "a", "b")] == ["n1", "n1", "n1"]

    run(with_env(main))
