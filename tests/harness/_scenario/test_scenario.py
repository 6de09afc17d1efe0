"""The scenario DSL: steps go through the API, expectations read an informer and fail with the
journal slice that explains them; ``span`` says how long a negative is watched (all of it on
virtual time, at most ``--real-time-wait`` on real time, or not judged when it must be whole)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

import pytest

from fake_apiserver import FaultRule, Match, Respond, UnfiredFaults, WatchLag
from harness._backends.backend import BackendError, FakeBackend
from harness._backends.scenario_client import ApiError
from harness._scenario.expectations import NotJudged
from harness._scenario.scenario import DEFAULT_REAL_TIME_WAIT, ExpectationFailed, Scenario
from harness._schedulers.adapters import CallableAdapter
from harness._time.virtual_time import run
from tests.support.scenarios import with_scenario
from tests.support.schedulers import first_fit_scheduler


def test_gated_pod_is_never_bound_and_is_bound_after_the_last_gate(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1")
        await s.create_pod("p", cpu="1", gates=["example.com/a", "example.com/b"])
        await s.never(s.pod_bound("p"), within=30)
        assert s.now == 30.0
        await s.remove_gate("p", "example.com/b")
        await s.never(s.pod_bound("p"), within=10)
        await s.remove_gate("p", "example.com/a")
        await s.eventually(s.pod_bound("p"), within=5)
        assert (await s.condition("p", "PodScheduled") or {}).get("status") == "True"
        assert s.pod("p")["spec"]["nodeName"] == "n1"  # type: ignore[index]
        s.expect_requests(1, verb="create", resource="pods", subresource="binding", name="p")
        s.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p")
        s.expect_requests(0, verb="patch", resource="pods", name="p")
        assert len(s.requests("patch", "pods", name="p", include_own=True)) == 2

    with_scenario(body, tmp_path)


def test_condition_returns_the_api_servers_scheduling_gated_condition(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_pod("p", gates=["example.com/a"])
        condition = await s.condition("p", "PodScheduled")
        assert condition == {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                             "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "SchedulingGated",
                             "message": "Scheduling is blocked due to non-empty scheduling gates"}
        assert await s.condition("p", "Ready") is None

    with_scenario(body, tmp_path, scheduler=False)


def test_eventually_failure_names_expectation_observation_and_journal(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        await s.create_pod("p", cpu="2")
        await s.eventually(s.pod_condition("p", "PodScheduled", status="False", reason="Unschedulable"), within=5)
        with pytest.raises(ExpectationFailed) as info:
            await s.eventually(s.pod_bound("p"), within=5)
        lines = str(info.value).splitlines()
        assert lines[:3] == [
            "expected within 5 s (t=0.000..5.000): pod default/p is bound to a node",
            'observed at t=5.000: pod default/p: not bound (spec.nodeName unset), conditions: PodScheduled=False '
            'reason=Unschedulable message="0/1 nodes are available: 1 Insufficient cpu."',
            "journal, requests touching pod p up to t=5.000:",
        ]
        assert lines[3].startswith("t=    0.000 #") and " CREATE pods default -> 201 " in lines[3]
        assert " PATCH pods/status default/p -> 200 " in lines[4]
        assert len(lines) == 5

    with_scenario(body, tmp_path)


def test_never_fails_at_the_first_event_where_the_predicate_holds(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_pod("p", cpu="1")

        async def add_node_later() -> None:
            await s.advance(7)
            await s.create_node("n1")

        task = asyncio.create_task(add_node_later())
        with pytest.raises(ExpectationFailed) as info:
            await s.never(s.pod_bound("p"), within=20)
        await task
        lines = str(info.value).splitlines()
        assert lines[0] == "expected never within 20 s (t=0.000..20.000): pod default/p is bound to a node"
        assert lines[1].startswith("but at t=7.000 it held: pod default/p: bound to node n1, conditions: PodScheduled=True")
        assert s.now == 7.0

    with_scenario(body, tmp_path)


def test_pod_condition_expectation_and_negation(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_pod("p", gates=["example.com/a"])
        gated = s.pod_condition("p", "PodScheduled", status="False", reason="SchedulingGated",
                                message="Scheduling is blocked due to non-empty scheduling gates")
        assert gated.description == ('pod default/p has condition PodScheduled with status=False '
                                     'reason=SchedulingGated message="Scheduling is blocked due to non-empty '
                                     'scheduling gates"')
        await s.eventually(gated, within=1)
        with pytest.raises(ExpectationFailed, match=r"^expected within 1 s \(t=0\.000\.\.1\.000\): not \(pod "):
            await s.eventually(~gated, within=1)
        await s.remove_all_gates("p")
        # the API server leaves the stale condition when gates go (docs/api-facts.md §gated-create)
        await s.never(~gated, within=3)

    with_scenario(body, tmp_path, scheduler=False)


def test_expect_requests_failure_lists_what_matched(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1")
        await s.create_pod("p", cpu="1")
        await s.eventually(s.pod_bound("p"), within=5)
        with pytest.raises(ExpectationFailed) as info:
            s.expect_requests(2, verb="create", resource="pods", subresource="binding", name="p")
        lines = str(info.value).splitlines()
        assert lines[0] == ("expected exactly 2 requests matching verb=create resource=pods subresource=binding "
                            "name=p (the scenario's own requests left out) since t=0.000, found 1 at t=0.000")
        assert lines[1] == "matching requests:"
        assert " CREATE pods/binding default/p -> 201 " in lines[2]
        assert lines[3] == "journal, requests touching pod p up to t=0.000:"

    with_scenario(body, tmp_path)


def test_expect_requests_plain_resource_matches_every_group(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create("events", {"metadata": {"name": "e1"}, "involvedObject": {"kind": "Pod", "name": "p"},
                                  "reason": "R", "message": "m"})
        await s.create("events.events.k8s.io", {"metadata": {"name": "e2"}, "eventTime": "2026-01-01T00:00:00.000000Z",
                                                "reportingController": "c", "reportingInstance": "i",
                                                "action": "A", "reason": "R", "type": "Normal",
                                                "regarding": {"kind": "Pod", "name": "p"}})
        assert [e.resource for e in s.requests("create", "events", include_own=True)] == [
            "events", "events.events.k8s.io"]
        assert [e.resource for e in s.requests("create", "events.events.k8s.io", include_own=True)] == [
            "events.events.k8s.io"]
        s.expect_requests(0, verb="create", resource="events")

    with_scenario(body, tmp_path, scheduler=False)


def test_remove_gate_refuses_a_gate_the_pod_does_not_have(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_pod("p", gates=["example.com/a"])
        with pytest.raises(ValueError, match=r"^pod default/p has no scheduling gate 'example.com/b' "
                                             r"\(its gates: \['example.com/a'\]\)$"):
            await s.remove_gate("p", "example.com/b")

    with_scenario(body, tmp_path, scheduler=False)


def test_api_refusal_raises_api_error_with_the_status(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_pod("p", gates=["example.com/a"])
        with pytest.raises(ApiError) as info:
            await s.patch("pods", "p", {"spec": {"schedulingGates": [{"name": "example.com/a"}, {"name": "example.com/b"}]}})
        assert info.value.code == 422
        assert info.value.reason == "Invalid"
        assert info.value.message == ('Pod "p" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion '
                                      "is allowed, but found new scheduling gate 'example.com/b'")

    with_scenario(body, tmp_path, scheduler=False)


def test_fault_rules_fire_and_unfired_ones_fail_verify(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        refuse = await s.add_fault(FaultRule(Match(verb="patch", resource="pods", subresource="status"), Respond(503),
                                       name="refuse-status", times=1))
        unused = await s.add_fault(FaultRule(Match(verb="delete", resource="nodes"), Respond(500), name="never-used"))
        await s.create_pod("p", cpu="2")
        await s.advance(1)
        await s.create_node("n0", cpu="1")  # a node event: the scheduler re-evaluates and patches again
        await s.eventually(s.pod_condition("p", "PodScheduled", reason="Unschedulable"), within=5)
        assert refuse.fired == 1
        patches = s.requests("patch", "pods", subresource="status")
        assert [(e.code, e.fault, e.body["status"]["conditions"][0]["message"]) for e in patches] == [
            (503, "refuse-status", "0/1 nodes are available: 1 Insufficient cpu."),
            (200, "", "0/1 nodes are available: 1 Insufficient cpu."),
            (200, "", "0/2 nodes are available: 2 Insufficient cpu."),
        ]
        await s.remove_fault(unused)
        with pytest.raises(UnfiredFaults, match=r"^fault rules that never fired \(the scenario did not exercise "
                                                r"them\):\n  never-used: Respond\(500, None, None, None\) on "
                                                r"verb=delete resource=nodes$"):
            s.verify()

    with_scenario(body, tmp_path)


def test_plain_callable_predicates_are_polled(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        flag: list[bool] = []

        async def later() -> None:
            await s.advance(2.5)
            flag.append(True)

        task = asyncio.create_task(later())

        def flag_set() -> bool:
            return bool(flag)

        await s.eventually(flag_set, within=10)
        await task
        assert s.now == pytest.approx(2.5, abs=1e-6)  # the poll after the flag's timer, same instant
        with pytest.raises(ExpectationFailed, match=r"^expected within 1 s \(t=2\.500\.\.3\.500\): never_true\(\) "
                                                    r"is true\nobserved at t=3\.500: never_true\(\) returned false\n"
                                                    r"journal, requests from t=2\.500 to t=3\.500:\n\(none\)$"):
            def never_true() -> bool:
                return False
            await s.eventually(never_true, within=1)

    with_scenario(body, tmp_path, scheduler=False)


def test_pods_bound_counts_pods_by_prefix(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1")
        for i in range(3):
            await s.create_pod(f"web-{i}", cpu="1")
        await s.eventually(s.pods_bound("web-", count=3), within=5)
        await s.create_pod("web-big", cpu="8")
        with pytest.raises(ExpectationFailed, match=r"observed at t=2\.000: 4 pods named web-\*, unbound: \['web-big'\]"):
            await s.eventually(s.pods_bound("web-"), within=2)

    with_scenario(body, tmp_path)


def test_create_node_and_pod_shapes(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        node = await s.create_node("n1", cpu="2", memory="4Gi", pods=10, labels={"zone": "a"},
                                   taints=["dedicated=gpu:NoSchedule", {"key": "k", "effect": "NoExecute"}],
                                   unschedulable=True)
        assert node["metadata"]["labels"] == {"kubernetes.io/hostname": "n1", "zone": "a"}
        assert node["spec"] == {"taints": [{"key": "dedicated", "effect": "NoSchedule", "value": "gpu"},
                                           {"key": "k", "effect": "NoExecute"}], "unschedulable": True}
        assert node["status"]["allocatable"] == {"cpu": "2", "memory": "4Gi", "pods": "10"}
        await s.create_claim("c1")
        pod = await s.create_pod("p", cpu="500m", memory="1Gi", claims=["c1"], node_selector={"zone": "a"},
                                 labels={"app": "x"})
        assert pod["spec"]["resourceClaims"] == [{"name": "c1", "resourceClaimName": "c1"}]
        assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "500m", "memory": "1Gi"}
        assert pod["spec"]["containers"][0]["resources"]["claims"] == [{"name": "c1"}]
        assert pod["spec"]["nodeSelector"] == {"zone": "a"}
        assert pod["metadata"]["labels"] == {"app": "x"}
        claim = await s.get("resourceclaims", "c1")
        assert claim["spec"]["devices"]["requests"] == [{"name": "req-0", "exactly": {
            "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]  # the API's defaults
        await s.delete("resourceclaims", "c1")
        with pytest.raises(ApiError, match=r'^GET /apis/resource\.k8s\.io/v1/namespaces/default/resourceclaims/c1: '
                                           r'404 NotFound: resourceclaims\.resource\.k8s\.io "c1" not found$'):
            await s.get("resourceclaims", "c1")
        with pytest.raises(ValueError, match=r"^taint 'oops': write key\[=value\]:Effect with Effect NoSchedule, "
                                             r"PreferNoSchedule or NoExecute$"):
            await s.create_node("n2", taints=["oops"])

    with_scenario(body, tmp_path, scheduler=False)


def test_delete_sends_the_delete_options_given(tmp_path: Path) -> None:
    """``delete`` with ``options``: the body is the ``DeleteOptions``; a bound pod deleted with grace
    0 goes at once, where one deleted with default options waits for its kubelet."""
    async def body(s: Scenario) -> None:
        await s.create_node("n1", kubelet=None)
        for name in ("slow", "now"):
            await s.create_pod(name, manifest={"spec": {"nodeName": "n1"}})
        await s.delete("pods", "slow")
        gone = await s.delete("pods", "now", options={"gracePeriodSeconds": 0})
        assert gone["metadata"]["name"] == "now"
        await s.settle()
        assert s.pod("now") is None and s.pod("slow")["metadata"]["deletionGracePeriodSeconds"] == 30
        deletes = s.backend.journal.requests(verb="delete", resource="pods")
        assert [(e.name, e.body) for e in deletes] == [("slow", None), ("now", {"gracePeriodSeconds": 0})]

    with_scenario(body, tmp_path, scheduler=False)


def test_add_fault_on_a_backend_without_faults_is_a_clear_error(tmp_path: Path) -> None:
    class NoFaults(FakeBackend):
        name = "nofaults"

        @property
        def faults(self) -> Any:
            return None

    async def main() -> None:
        backend = NoFaults(tmp_path)
        await backend.start()
        try:
            async with Scenario(backend) as s:
                with pytest.raises(BackendError, match=r"^the nofaults backend cannot inject faults; run this "
                                                       r"scenario on a backend with fault injection \(--backend fake\)$"):
                    await s.add_fault(FaultRule(Match(verb="get"), Respond(500)))
        finally:
            await backend.stop()

    run(main())


def test_scenario_journal_is_deterministic(tmp_path: Path) -> None:
    journals = []
    for i in range(2):
        async def main() -> None:
            backend = FakeBackend(tmp_path / str(i), seed=3)
            await backend.start()
            adapter = CallableAdapter(first_fit_scheduler)
            await adapter.start(backend.kubeconfig_path, {})
            async with Scenario(backend) as s:
                await s.create_node("n1", cpu="2")
                for j in range(4):
                    await s.create_pod(f"p{j}", cpu="1", gates=["g"] if j == 1 else ())
                await s.advance(10)
                await s.remove_gate("p1", "g")
                await s.eventually(s.pod_condition("p3", "PodScheduled", reason="Unschedulable"), within=5)
            await adapter.stop()
            await backend.stop()
            journals.append(backend.journal.to_jsonl())

        run(main())
    assert journals[0] == journals[1]
    assert journals[0].count('"subresource":"binding"') == 2


def test_writes_are_the_schedulers_with_their_effects(tmp_path: Path) -> None:
    """The scaffolding scheduler's Unschedulable patch is a write of the pod with its effect; the
    scenario's own create is left out unless asked for."""

    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        await s.create_pod("p", cpu="2")
        await s.eventually(s.pod_condition("p", "PodScheduled", reason="Unschedulable"), within=5)
        [write] = s.writes("p")
        assert (write.applied, write.binding, write.entry.subresource) == (True, False, "status")
        assert write.condition_before() is None
        assert (write.condition_after() or {}).get("message") == "0/1 nodes are available: 1 Insufficient cpu."
        assert [w.entry.verb for w in s.writes("p", include_own=True)] == ["create", "patch"]

    with_scenario(body, tmp_path)


def test_seen_is_when_the_schedulers_watch_got_the_pod_not_when_it_was_made(tmp_path: Path) -> None:
    """With pods reaching watches 3 s late, the scheduler sees a pod made at t=1 at t=4 (the
    scenario's own informer is not the scheduler)."""

    async def body(s: Scenario) -> None:
        await s.advance(1)
        await s.add_fault(FaultRule(Match(resource="pods"), WatchLag(3.0), name="pods-3s-late"))
        created = await s.create_pod("p")
        assert await s.seen("pods", created) == 4.0
        assert s.now >= 4.0

    with_scenario(body, tmp_path)


def test_seen_fails_when_no_scheduler_ever_gets_the_object(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        created = await s.create_pod("p")
        with pytest.raises(ExpectationFailed, match=r"^expected the scheduler's watch to be handed pods p "
                                                    r"\(resourceVersion \d+ or later\) within 2 s of t=0\.000; it was "
                                                    r"not \(no LIST or GET of pods either\)$"):
            await s.seen("pods", created, within=2)

    with_scenario(body, tmp_path, scheduler=False)


# ------------------------------------------------------------------ how long a negative is watched


def _span_on(tmp_path: Path, *, virtual: bool, real_time_wait: float,
             body: Callable[[Scenario], None]) -> Scenario:
    """Run ``body`` with a scenario (not started: ``span`` reads only its backend's clock) on a
    fake backend whose time is virtual or real; returns the scenario."""
    made: list[Scenario] = []

    async def main() -> None:
        backend = FakeBackend(tmp_path)
        await backend.start()
        try:
            assert backend.is_virtual is virtual
            scenario = Scenario(backend, real_time_wait=real_time_wait)
            made.append(scenario)
            try:
                body(scenario)
            finally:
                await scenario.client.close()
        finally:
            await backend.stop()

    if virtual:
        run(main())
    else:
        asyncio.run(main())  # an ordinary loop: the backend's clock is real
    return made[0]


FLUSH = "kube-scheduler's flush of unschedulable pods comes only after 5 minutes"


def test_virtual_time_watches_the_whole_span_for_free(tmp_path: Path) -> None:
    def body(scenario: Scenario) -> None:
        assert scenario.span(600) == 600
        assert scenario.span(310, whole=FLUSH) == 310
        assert scenario.span(0.5) == 0.5

    assert _span_on(tmp_path, virtual=True, real_time_wait=1, body=body).cut_waits == []


def test_real_time_cuts_a_longer_watch_to_the_real_time_wait_and_keeps_the_cut(tmp_path: Path) -> None:
    def body(scenario: Scenario) -> None:
        assert scenario.span(20) == 20
        assert scenario.span(30) == 30  # at the wait: not cut
        assert scenario.span(120) == 30
        assert scenario.span(45.5) == 30

    scenario = _span_on(tmp_path, virtual=False, real_time_wait=30, body=body)
    assert scenario.cut_waits == [(120, 30), (45.5, 30)]


def test_a_watch_that_must_be_whole_is_not_judged_when_real_time_would_cut_it(tmp_path: Path) -> None:
    def body(scenario: Scenario) -> None:
        with pytest.raises(NotJudged, match=(
                r"^needs a 310 s watch on real time \(kube-scheduler's flush of unschedulable pods comes only after "
                r"5 minutes\), and this run's real-time wait is 30 s: give --real-time-wait 310 to judge it$")):
            scenario.span(310, whole=FLUSH)
        assert scenario.span(25, whole=FLUSH) == 25  # within the wait: judged whole

    assert _span_on(tmp_path, virtual=False, real_time_wait=30, body=body).cut_waits == []

    def long_enough(scenario: Scenario) -> None:
        assert scenario.span(310, whole=FLUSH) == 310

    assert _span_on(tmp_path / "long", virtual=False, real_time_wait=310, body=long_enough).cut_waits == []


def test_the_default_real_time_wait_is_30_seconds() -> None:
    assert DEFAULT_REAL_TIME_WAIT == 30.0
