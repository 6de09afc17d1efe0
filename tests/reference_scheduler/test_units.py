"""Unit tests of the reference scheduler's parts under virtual time: gates, conditions, plugins,
queue, dispatcher and the KEP-5501 reporter."""

from __future__ import annotations

import asyncio
import threading
import json
from typing import Any

import pytest

import reference_scheduler
from harness._time.virtual_time import VirtualClock, run
from reference_scheduler import (
    DEPENDENCY_MESSAGE,
    ApiDispatcher,
    CallResult,
    ClusterEvent,
    DynamicResources,
    FeatureGateError,
    FeatureGates,
    GangQuorum,
    KubeClient,
    PodBindingCall,
    PodStatusPatchCall,
    PreEnqueueStatusReporter,
    SchedulingGates,
    SchedulingQueue,
    parse_feature_gates,
)
from reference_scheduler._conditions import status_patch, update_condition
from reference_scheduler._plugins import POD_GROUP_LABEL, ClusterEvent, NodeInfo, filter_node
from reference_scheduler._resources import pod_requests

Obj = dict[str, Any]


def _pod(name: str, uid: str = "", **spec: Any) -> Obj:
    return {"metadata": {"name": name, "namespace": "default", "uid": uid or f"uid-{name}", "resourceVersion": "1"},
            "spec": {"containers": [{"name": "c"}], **spec}, "status": {"phase": "Pending"}}


def test_public_api_is_pinned() -> None:
    assert reference_scheduler.__all__ == [
        "DEFAULT_DELAY", "DEPENDENCY_MESSAGE", "GANG_LABEL", "GANG_MIN_ANNOTATION", "GATED_MESSAGE", "MUTANTS",
        "POD_FIELD_SELECTOR", "VARIANTS", "ApiDispatcher", "ApiError", "BadRequestError", "CallResult", "Clock",
        "ClusterEvent", "ConditionWriter", "ConflictError", "DynamicResources", "ExpiredError", "FeatureGateError", "FeatureGates", "GangQuorum",
        "Informer", "KubeClient", "Mutant", "NotFoundError", "PodBindingCall", "PodStatusPatchCall",
        "PreEnqueuePlugin", "PreEnqueueStatusReporter", "QueuedPodInfo", "Scheduler", "SchedulingGates",
        "SchedulingQueue", "TransportError", "UnknownMutant", "WallClock", "get_mutant", "parse_feature_gates",
    ]


# -- gates -----------------------------------------------------------------------------------


def test_gates_default_on_and_parse() -> None:
    assert parse_feature_gates("") == FeatureGates(True, True)
    assert parse_feature_gates("SchedulerPreEnqueuePodStatus=false,SchedulerAsyncAPICalls=false") == FeatureGates(False, False)


def test_gate_dependency_is_a_startup_error() -> None:
    with pytest.raises(FeatureGateError, match=r"^invalid feature gates: SchedulerPreEnqueuePodStatus=true requires SchedulerAsyncAPICalls=true$"):
        parse_feature_gates("SchedulerAsyncAPICalls=false")
    assert DEPENDENCY_MESSAGE == "invalid feature gates: SchedulerPreEnqueuePodStatus=true requires SchedulerAsyncAPICalls=true"
    with pytest.raises(FeatureGateError, match=r"^unrecognized feature gate: Foo$"):
        parse_feature_gates("Foo=true")
    with pytest.raises(FeatureGateError, match=r'^invalid value of SchedulerAsyncAPICalls=yes, err: strconv.ParseBool: parsing "yes": invalid syntax$'):
        parse_feature_gates("SchedulerAsyncAPICalls=yes")


# -- conditions --------------------------------------------------------------------------------


def test_update_condition_keeps_transition_time_on_false_to_false() -> None:
    old = [{"type": "Ready", "status": "True"},
           {"type": "PodScheduled", "status": "False", "reason": "A", "message": "a", "lastProbeTime": None,
            "lastTransitionTime": "T0"}]
    new = update_condition(old, {"type": "PodScheduled", "status": "False", "reason": "B", "message": "b"}, "T1")
    assert new is not None and new[1]["lastTransitionTime"] == "T0"
    assert update_condition(new, {"type": "PodScheduled", "status": "False", "reason": "B", "message": "b"}, "T2") is None
    assert status_patch(old, new) == {"status": {
        "$setElementOrder/conditions": [{"type": "Ready"}, {"type": "PodScheduled"}],
        "conditions": [{"message": "b", "reason": "B", "type": "PodScheduled"}]}}
    assert status_patch(old, old[:1]) == {"status": {
        "$setElementOrder/conditions": [{"type": "Ready"}],
        "conditions": [{"$patch": "delete", "type": "PodScheduled"}]}}


def test_status_patch_sets_element_order_only_when_the_old_status_had_conditions() -> None:
    """``CreateTwoWayMergePatch`` of ``v1.PodStatus`` (``conditions,omitempty``): no old list, the
    new list whole (the shape kube-scheduler v1.35 sent, ``tests/data``); an old list, the changed
    fields and ``$setElementOrder/conditions``."""
    cond = {"type": "PodScheduled", "status": "False", "reason": "R", "message": "m", "lastProbeTime": None,
            "lastTransitionTime": "T0"}
    assert status_patch([], [cond]) == {"status": {"conditions": [cond]}}
    assert status_patch([], []) is None
    gated = {**cond, "reason": "SchedulingGated"}
    assert status_patch([gated], [cond]) == {"status": {"$setElementOrder/conditions": [{"type": "PodScheduled"}],
                                                        "conditions": [{"reason": "R", "type": "PodScheduled"}]}}


def test_a_clear_that_empties_the_list_deletes_the_element_with_the_effect_of_null() -> None:
    """``CreateTwoWayMergePatch`` would send ``"conditions": null`` for an emptied list; the
    reference deletes the element instead (``status_patch``'s docstring), which leaves the pod it
    read exactly as ``null`` would, and keeps a condition another writer added since."""
    from fake_apiserver import Store, by_resource

    pods = by_resource("", "v1", "pods")
    assert pods is not None
    cond = {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling", "message": "m",
            "lastProbeTime": None, "lastTransitionTime": "2026-01-01T00:00:00Z"}
    body = status_patch([cond], [])
    assert body == {"status": {"conditions": [{"$patch": "delete", "type": "PodScheduled"}]}}
    smp = "application/strategic-merge-patch+json"

    def after(*patches: Obj) -> Obj:
        store = Store()
        store.create(pods, "default", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                       "spec": {"containers": [{"name": "c", "image": "i"}]}})
        for patch in patches:
            store.patch(pods, "default", "p", json.dumps(patch).encode(), smp, subresource="status")
        return dict(store.get(pods, "default", "p")["status"])

    set_it = {"status": {"conditions": [cond]}}
    assert after(set_it, body) == after(set_it, {"status": {"conditions": None}}) == {
        "phase": "Pending", "qosClass": "BestEffort"}
    other = {"type": "example.com/Ready", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": "2026-01-01T00:00:00Z"}
    added = {"status": {"$setElementOrder/conditions": [{"type": "PodScheduled"}, {"type": other["type"]}],
                        "conditions": [other]}}
    assert after(set_it, added, body)["conditions"] == [other]
    assert "conditions" not in after(set_it, added, {"status": {"conditions": None}})


# -- plugins -----------------------------------------------------------------------------------


def test_scheduling_gates_messages() -> None:
    pod = _pod("p", schedulingGates=[{"name": "example.com/a"}, {"name": "example.com/b"}])
    assert SchedulingGates().pre_enqueue(pod) == "Scheduling is blocked due to non-empty scheduling gates"
    assert SchedulingGates(unified_message=False).pre_enqueue(pod) == "waiting for scheduling gates: [example.com/a example.com/b]"
    assert SchedulingGates().pre_enqueue(_pod("q")) is None


def test_dynamic_resources_messages() -> None:
    claims: dict[str, Obj] = {
        "default/deleting": {"metadata": {"name": "deleting", "deletionTimestamp": "x"}},
        "default/foreign": {"metadata": {"name": "foreign", "ownerReferences": [{"uid": "other", "controller": True}]}},
    }
    plugin = DynamicResources(claims.get)

    def msg(entry: Obj, statuses: list[Obj] | None = None) -> str | None:
        pod = _pod("p", resourceClaims=[entry])
        pod["status"]["resourceClaimStatuses"] = statuses or []
        return plugin.pre_enqueue(pod)

    assert msg({"name": "c", "resourceClaimName": "missing"}) == 'could not find ResourceClaim "default/missing"'
    assert msg({"name": "c", "resourceClaimTemplateName": "t"}) == 'pod "default/p": ResourceClaim not created yet'
    assert msg({"name": "c"}) == 'pod "default/p", spec.resourceClaim "c": none of the supported fields are set'
    assert msg({"name": "c", "resourceClaimName": "deleting"}) == 'resourceclaim "deleting" is being deleted'
    assert msg({"name": "c", "resourceClaimTemplateName": "t"}, [{"name": "c", "resourceClaimName": "foreign"}]) == (
        "ResourceClaim default/foreign was not created for Pod default/p (Pod is not owner)")
    assert msg({"name": "c", "resourceClaimTemplateName": "t"}, [{"name": "c"}]) is None
    assert plugin.requeue_on(ClusterEvent("resourceclaims", "add", {}), _pod("p"))


def test_dynamic_resources_pre_filter_repeats_the_check_and_the_mutant_switch_lets_a_deleting_claim_through() -> None:
    """PreFilter runs ``foreachPodResourceClaim`` again (``podResourceClaims``); the
    ``allocates-deleting-claim`` mutant turns the deletionTimestamp check off in both."""
    claims: dict[str, Obj] = {"default/deleting": {"metadata": {"name": "deleting", "deletionTimestamp": "x"}},
                              "default/ok": {"metadata": {"name": "ok"}}}
    plugin = DynamicResources(claims.get)
    deleting = _pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "deleting"}])
    missing = _pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "missing"}])
    ok = _pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "ok"}])
    assert [plugin.pre_filter(p) for p in (deleting, missing, ok)] == [
        'resourceclaim "deleting" is being deleted', 'could not find ResourceClaim "default/missing"', None]
    plugin.honours_deletion = False
    assert [plugin.pre_enqueue(deleting), plugin.pre_filter(deleting), plugin.pre_filter(missing)] == [
        None, None, 'could not find ResourceClaim "default/missing"']


def test_gang_quorum_message_counts_members() -> None:
    def member(name: str) -> Obj:
        pod = _pod(name)
        pod["metadata"]["labels"] = {"gang.schedharness.io/name": "g"}
        pod["metadata"]["annotations"] = {"gang.schedharness.io/min-available": "3"}
        return pod

    pods = [member("a"), member("b"), _pod("x")]
    plugin = GangQuorum(lambda: pods)
    assert plugin.pre_enqueue(pods[0]) == 'waiting for gang "default/g": 2/3 pods present'
    pods.append(member("c"))
    assert plugin.pre_enqueue(pods[0]) is None
    assert plugin.pre_enqueue(pods[2]) is None


def test_gang_quorum_reads_the_pod_group_of_a_member() -> None:
    """A pod labelled with a PodGroup waits for the group (held while it is unknown) and for
    ``spec.minMember`` members of it in its namespace; the PodGroup label wins over the gang label;
    group events and member adds and deletes of the same group re-queue it, others do not."""
    def member(name: str, group: str = "g", namespace: str = "default") -> Obj:
        pod = _pod(name)
        pod["metadata"].update(namespace=namespace, labels={POD_GROUP_LABEL: group, "gang.schedharness.io/name": "x"})
        return pod

    groups: dict[str, Obj] = {}
    pods = [member("a"), member("b"), member("c", namespace="other"), member("d", group="h")]
    plugin = GangQuorum(lambda: pods, groups.get)
    assert plugin.pre_enqueue(pods[0]) == 'waiting for PodGroup "default/g": not found'
    groups["default/g"] = {"metadata": {"namespace": "default", "name": "g"}, "spec": {"minMember": 3}}
    assert plugin.pre_enqueue(pods[0]) == 'waiting for PodGroup "default/g": 2/3 pods present'
    pods.append(member("e"))
    assert plugin.pre_enqueue(pods[0]) is None
    group_event = ClusterEvent("podgroups", "update", groups["default/g"])
    other_group = ClusterEvent("podgroups", "add", {"metadata": {"namespace": "other", "name": "g"}})
    assert [plugin.requeue_on(e, pods[0]) for e in (
        group_event, other_group, ClusterEvent("pods", "add", member("f")), ClusterEvent("pods", "delete", member("f")),
        ClusterEvent("pods", "add", member("f", group="h")), ClusterEvent("pods", "update", member("f")),
    )] == [True, False, True, True, False, False]


def test_filters_and_reasons() -> None:
    node = {"metadata": {"name": "n1", "labels": {"zone": "a"}},
            "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "2"}}}
    info = NodeInfo(node)
    pod = _pod("p")
    assert filter_node(pod, pod_requests(pod), info) == ["node(s) had untolerated taint {k: v}"]
    pod["spec"]["tolerations"] = [{"key": "k", "operator": "Exists"}]
    assert filter_node(pod, pod_requests(pod), info) == []
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1500m", "memory": "2Gi"}}
    assert filter_node(pod, pod_requests(pod), info) == ["Insufficient cpu", "Insufficient memory"]
    pod["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}}}
    assert filter_node(pod, pod_requests(pod), info) == ["node(s) didn't match Pod's node affinity/selector"]


# -- queue -------------------------------------------------------------------------------------


class _Block:
    """A PreEnqueue plugin rejecting pods with annotation ``block`` (message: its value)."""

    name = "Block"
    events = frozenset({"nodes"})

    def pre_enqueue(self, pod: Obj) -> str | None:
        value = (pod["metadata"].get("annotations") or {}).get("block")
        return str(value) if value else None

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        return True


def test_queue_backoff_doubles_to_ten_seconds_and_gated_pods_wait() -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        q = SchedulingQueue([_Block()])
        q.add(_pod("p"))
        blocked = _pod("b")
        blocked["metadata"]["annotations"] = {"block": "no"}
        q.add(blocked)
        times = []
        for _ in range(6):
            pinfo = await q.pop()
            times.append((loop.time(), pinfo.key, pinfo.attempts))
            q.unschedulable(pinfo, "nope")
            q.on_event(ClusterEvent("nodes", "add", {}))
        assert q.pods["default/b"].state == "gated"
        return times

    assert run(main()) == [(0.0, "default/p", 1), (1.0, "default/p", 2), (3.0, "default/p", 3),
                           (7.0, "default/p", 4), (15.0, "default/p", 5), (25.0, "default/p", 6)]


def test_queue_reruns_pre_enqueue_on_pod_updates_but_not_on_condition_only_updates() -> None:
    async def main() -> None:
        q = SchedulingQueue([_Block()])
        pod = _pod("b")
        pod["metadata"]["annotations"] = {"block": "x"}
        q.add(pod)
        assert q.pre_enqueue_runs == 1
        with_condition = {**pod, "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled"}]}}
        with_condition["metadata"] = {**pod["metadata"], "resourceVersion": "2"}
        q.update(pod, with_condition)
        assert q.pre_enqueue_runs == 1
        unblocked = {**with_condition, "metadata": {**with_condition["metadata"], "annotations": {}, "resourceVersion": "3"}}
        q.update(with_condition, unblocked)
        assert q.pre_enqueue_runs == 2
        assert (await q.pop()).key == "default/b"

    run(main())


# -- dispatcher ----------------------------------------------------------------------------------


class _Client(KubeClient):
    """Records calls instead of sending them; ``fail`` makes the next call raise."""

    def __init__(self, pods: dict[str, Obj]) -> None:
        super().__init__({"clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}]})
        self.pods = pods
        self.calls: list[tuple[float, str, str, Any]] = []
        self.fail = False

    async def request(self, method: str, path: str, *, params: Any = None, body: Any = None,
                      content_type: str = "application/json") -> Obj:
        self.calls.append((asyncio.get_running_loop().time(), method, path, body))
        await asyncio.sleep(0.1)
        if self.fail:
            self.fail = False
            raise RuntimeError("boom")
        return {"kind": "Status"}


def _not_ready(pod: Obj, message: str) -> PodStatusPatchCall:
    return PodStatusPatchCall(pod, condition={"type": "PodScheduled", "status": "False",
                                              "reason": "NotReadyForScheduling", "message": message})


def _dispatch(script: Any, **kw: Any) -> Any:
    async def main() -> Any:
        loop = asyncio.get_running_loop()
        pods = {"default/p": _pod("p")}
        client = _Client(pods)
        d = ApiDispatcher(client, VirtualClock(loop), pods.get, **kw)
        d.start()
        results: list[tuple[float, str, str]] = []
        try:
            await script(d, pods, results)
            await asyncio.sleep(30)
        finally:
            await d.close()
        return [(t, m, b["status"]["conditions"][0].get("message") if m == "PATCH" else b["target"]["name"])
                for t, m, _, b in client.calls], results

    return run(main())


def _record(call: Any, results: list[tuple[float, str, str]], tag: str) -> Any:
    call.on_finish.append(lambda r: results.append((asyncio.get_running_loop().time(), tag, r.outcome)))
    return call


def test_dispatcher_delay_is_not_reset_by_an_overwrite() -> None:
    async def script(d: ApiDispatcher, pods: dict[str, Obj], results: list[Any]) -> None:
        d.add(_record(_not_ready(pods["default/p"], "a"), results, "a"), 5)
        await asyncio.sleep(3)
        d.add(_record(_not_ready(pods["default/p"], "b"), results, "b"), 5)

    calls, results = _dispatch(script)
    assert calls == [(5.0, "PATCH", "b")]
    assert results == [(3.0, "a", "overwritten"), (5.1, "b", "executed")]


def test_dispatcher_runs_a_call_due_within_the_clock_resolution_instead_of_spinning() -> None:
    """Pod q's call runs 0.5 us before pod p's is due: the dispatcher must not wait again for a
    remainder below the loop's clock resolution (asyncio would fire that timer at once, the virtual
    clock would never move, and the loop would spin). A thread bounds the run: only a regression
    reaches its safety timeout."""
    async def script(d: ApiDispatcher, pods: dict[str, Obj], results: list[Any]) -> None:
        pods["default/q"] = _pod("q")
        d.add(_record(_not_ready(pods["default/p"], "p"), results, "p"), 5.0)
        d.add(_record(_not_ready(pods["default/q"], "q"), results, "q"), 5.0 - 5e-7)

    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(_dispatch(script)), daemon=True)
    worker.start()
    worker.join(60)
    assert done, "the dispatcher spun on a call due within the clock resolution"
    calls, results = done[0]
    assert [message for _, _, message in calls] == ["q", "p"]
    assert [(tag, outcome) for _, tag, outcome in results] == [("q", "executed"), ("p", "executed")]


def test_dispatcher_delay_reset_variant_moves_the_due_time() -> None:
    async def script(d: ApiDispatcher, pods: dict[str, Obj], results: list[Any]) -> None:
        d.add(_not_ready(pods["default/p"], "a"), 5)
        await asyncio.sleep(3)
        d.add(_not_ready(pods["default/p"], "b"), 5)

    calls, _ = _dispatch(script, reset_delay_on_overwrite=True)
    assert calls == [(8.0, "PATCH", "b")]


def test_dispatcher_immediate_binding_overwrites_a_delayed_patch() -> None:
    async def script(d: ApiDispatcher, pods: dict[str, Obj], results: list[Any]) -> None:
        d.add(_record(_not_ready(pods["default/p"], "a"), results, "patch"), 5)
        await asyncio.sleep(1)
        d.add(_record(PodBindingCall(pods["default/p"], "n1"), results, "bind"))
        d.add(_record(_not_ready(pods["default/p"], "c"), results, "late"), 5)

    calls, results = _dispatch(script)
    assert calls == [(1.0, "POST", "n1")]
    assert results[:2] == [(1.0, "patch", "overwritten"), (1.0, "late", "skipped")]


def test_dispatcher_skips_no_op_and_reports_failures() -> None:
    async def script(d: ApiDispatcher, pods: dict[str, Obj], results: list[Any]) -> None:
        pods["default/p"]["status"]["conditions"] = [{"type": "PodScheduled", "status": "False",
                                                      "reason": "NotReadyForScheduling", "message": "a"}]
        d.add(_record(_not_ready(pods["default/p"], "a"), results, "same"), 5)
        d.client.fail = True  # type: ignore[attr-defined]
        d.add(_record(PodStatusPatchCall(pods["default/p"], clear_reason="NotReadyForScheduling"), results, "clear"), 5)

    calls, results = _dispatch(script)
    assert results == [(0.0, "same", "skipped"), (5.1, "clear", "failed")]
    assert calls == [(5.0, "PATCH", None)]


# -- reporter ------------------------------------------------------------------------------------


def test_reporter_seeds_dedups_and_retries_after_failure() -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        pod = _pod("p")
        pod["metadata"]["annotations"] = {"block": "m1"}
        pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling",
                                        "message": "m1"}]
        pods = {"default/p": pod}
        client = _Client(pods)
        d = ApiDispatcher(client, VirtualClock(loop), pods.get)
        d.start()
        reporter = PreEnqueueStatusReporter(d, None, enabled=True)
        q = SchedulingQueue([_Block()], reporter)
        q.add(pod)  # seeded with m1: nothing to send
        await asyncio.sleep(10)
        client.fail = True
        q.on_event(ClusterEvent("nodes", "add", {}))
        pods["default/p"] = changed = {**pod, "metadata": {**pod["metadata"], "annotations": {"block": "m2"}}}
        q.update(pod, changed)  # m2: a patch at t=15, which fails
        await asyncio.sleep(10)
        assert q.pods["default/p"].last_message == ""
        q.on_event(ClusterEvent("nodes", "add", {}))  # re-evaluation: the patch again, t=25
        await asyncio.sleep(10)
        await d.close()
        return [(t, b["status"]["conditions"][0]["message"]) for t, _, _, b in client.calls]

    assert run(main()) == [(15.0, "m2"), (25.0, "m2")]


def test_call_result_defaults() -> None:
    assert CallResult("executed") == CallResult("executed", "", None, None)


def _reporter_env(pod: Obj, script: Any) -> list[Any]:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        pods = {"default/p": pod}
        client = _Client(pods)
        d = ApiDispatcher(client, VirtualClock(loop), pods.get)
        d.start()
        q = SchedulingQueue([_Block()], PreEnqueueStatusReporter(d, None, enabled=True))
        await script(q, pods)
        await asyncio.sleep(20)
        await d.close()
        return [(t, (b["status"]["conditions"][0].get("message"), b["status"]["conditions"][0].get("$patch")))
                for t, _, _, b in client.calls]

    return run(main())


def _annotated(pod: Obj, block: str | None, rv: str) -> Obj:
    return {**pod, "metadata": {**pod["metadata"], "resourceVersion": rv,
                                "annotations": {"block": block} if block else {}}}


def _showing(message: str) -> Obj:
    pod = _pod("p")
    pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling",
                                    "message": message}]
    return pod


def test_rejection_after_success_with_the_shown_message_sends_nothing() -> None:
    """Decision 1: never re-seeded after a success; the patch overwrites the pending clear and the
    dispatcher's no-op check skips it because the pod already shows exactly that condition."""

    async def script(q: SchedulingQueue, pods: dict[str, Obj]) -> None:
        pod = _annotated(_showing("m1"), "m1", "1")
        pods["default/p"] = pod
        q.add(pod)  # seeded m1: no patch
        await asyncio.sleep(1)
        passing = pods["default/p"] = _annotated(pod, None, "2")
        q.update(pod, passing)  # success: a clear due at t=6
        assert q.pods["default/p"].last_message == ""
        await asyncio.sleep(2)
        again = pods["default/p"] = _annotated(passing, "m1", "3")
        q.update(passing, again)  # rejected again with m1: patch m1 merges with the clear, a no-op

    assert _reporter_env(_pod("p"), script) == []


def test_rejection_after_success_with_a_new_message_replaces_the_clear_at_its_due_time() -> None:
    async def script(q: SchedulingQueue, pods: dict[str, Obj]) -> None:
        pod = _annotated(_showing("m1"), "m1", "1")
        pods["default/p"] = pod
        q.add(pod)
        await asyncio.sleep(1)
        passing = pods["default/p"] = _annotated(pod, None, "2")
        q.update(pod, passing)
        await asyncio.sleep(2)
        again = pods["default/p"] = _annotated(passing, "m2", "3")
        q.update(passing, again)

    assert _reporter_env(_pod("p"), script) == [(6.0, ("m2", None))]


def test_a_pending_clear_is_sent_when_nothing_supersedes_it() -> None:
    async def script(q: SchedulingQueue, pods: dict[str, Obj]) -> None:
        pod = _annotated(_showing("m1"), "m1", "1")
        pods["default/p"] = pod
        q.add(pod)
        await asyncio.sleep(1)
        passing = pods["default/p"] = _annotated(pod, None, "2")
        q.update(pod, passing)

    assert _reporter_env(_pod("p"), script) == [(6.0, (None, "delete"))]


def test_kube_scheduler_claim_hint_requeues_only_once_every_claim_is_usable() -> None:
    """``isSchedulableAfterClaimChange``: a claim add or update re-runs PreEnqueue only when every
    claim of the pod is then usable; deletes never do. The reference's own default re-runs on any
    claim event."""
    claims: dict[str, Obj] = {"default/a": {"metadata": {"name": "a"}}}
    plugin = DynamicResources(claims.get)
    pod = _pod("p", resourceClaims=[{"name": "a", "resourceClaimName": "a"}, {"name": "b", "resourceClaimName": "b"}])
    add = ClusterEvent("resourceclaims", "add", claims["default/a"])
    delete = ClusterEvent("resourceclaims", "delete", claims["default/a"])
    assert plugin.requeue_on(add, pod) and plugin.requeue_on(delete, pod)
    plugin.kube_scheduler_hint = True
    assert not plugin.requeue_on(add, pod)  # b is still missing
    claims["default/b"] = {"metadata": {"name": "b"}}
    assert plugin.requeue_on(add, pod) and not plugin.requeue_on(delete, pod)
    assert not plugin.requeue_on(ClusterEvent("nodes", "add", {}), pod)
