"""The kubelet stand-in (``harness._backends.kubelet``): a deleted bound pod goes when its grace period has
passed, later on a slow node, never on a node whose kubelet never confirms; a pod bound to a node
that starts pods is marked Running. Virtual time throughout: "30 s" is the loop's 30 s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import Kubelet, Scenario
from harness._scenario.yaml_scenarios import YamlScenarioError, load_scenario
from tests.support.scenarios import with_scenario


def _gone(s: Scenario, name: str) -> Any:
    return lambda: s.pod(name) is None


def _deletion_confirmations(s: Scenario, name: str) -> list[Any]:
    """The stand-in's confirmations: DELETEs of the pod with grace 0 and the uid as precondition."""
    return [e for e in s.backend.journal.requests(verb="delete", resource="pods", name=name)
            if isinstance(e.body, dict) and e.body.get("gracePeriodSeconds") == 0
            and "uid" in (e.body.get("preconditions") or {})]


async def _bound_pod(s: Scenario, name: str, node: str, **extra: Any) -> None:
    await s.create_pod(name, cpu="1", manifest={"spec": {"nodeName": node, **extra}})


@pytest.mark.parametrize(("grace", "delay", "due"), [(None, 0.0, 30.0), (7, 0.0, 7.0), (7, 5.0, 12.0)])
def test_a_deleted_bound_pod_goes_when_its_grace_period_and_the_nodes_delay_have_passed(
        tmp_path: Path, grace: int | None, delay: float, due: float) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", kubelet=Kubelet(termination_delay=delay))
        extra = {} if grace is None else {"terminationGracePeriodSeconds": grace}
        await _bound_pod(s, "p", "n1", **extra)
        start = s.now
        await s.delete("pods", "p")
        await s.settle()
        assert s.pod("p") is not None and s.pod("p")["metadata"]["deletionTimestamp"]
        await s.never(_gone(s, "p"), within=due - 0.5)
        await s.eventually(_gone(s, "p"), within=1.0)
        [confirmation] = _deletion_confirmations(s, "p")
        assert confirmation.time - start == pytest.approx(due, abs=0.01)

    with_scenario(body, tmp_path, scheduler=False)


def test_a_shorter_delete_brings_the_confirmation_forward(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1")
        await _bound_pod(s, "p", "n1")
        await s.delete("pods", "p")
        await s.advance(2)
        await s.delete("pods", "p", options={"gracePeriodSeconds": 10})
        await s.eventually(_gone(s, "p"), within=10.5)
        assert len(_deletion_confirmations(s, "p")) == 1

    with_scenario(body, tmp_path, scheduler=False)


def test_a_kubelet_that_never_confirms_leaves_the_pod_terminating(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("stuck", kubelet=Kubelet(confirms=False))
        await s.create_node("bare", kubelet=None)
        await _bound_pod(s, "p", "stuck")
        await _bound_pod(s, "q", "bare")
        await s.delete("pods", "p")
        await s.delete("pods", "q")
        await s.never(lambda: s.pod("p") is None or s.pod("q") is None, within=60)
        assert _deletion_confirmations(s, "p") == _deletion_confirmations(s, "q") == []

    with_scenario(body, tmp_path, scheduler=False)


def test_an_unbound_pod_needs_no_kubelet(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1")
        await s.create_pod("p", cpu="1")
        await s.delete("pods", "p")
        await s.eventually(_gone(s, "p"), within=0)
        assert _deletion_confirmations(s, "p") == []

    with_scenario(body, tmp_path, scheduler=False)


def test_a_node_that_starts_pods_marks_a_bound_pod_running(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", kubelet=Kubelet(starts_pods=True))
        await s.create_node("n2")
        await _bound_pod(s, "p", "n1")
        await _bound_pod(s, "q", "n2")
        await s.eventually(s.pod_condition("p", "Ready", status="True"), within=1)
        pod = s.pod("p")
        assert pod is not None and pod["status"]["phase"] == "Running"
        assert pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"] == pod["status"]["startTime"]
        await s.settle()
        assert s.pod("q")["status"]["phase"] == "Pending"

    with_scenario(body, tmp_path, scheduler=False)


def test_kubelet_rejects_a_negative_delay() -> None:
    with pytest.raises(ValueError, match="termination_delay must be 0 or more seconds"):
        Kubelet(termination_delay=-1)


def test_yaml_create_nodes_takes_a_kubelet(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("name: n\nops:\n- {op: createNodes, kubelet: {confirms: false, terminationDelay: 10s}}\n"
                    "- {op: createNodes, namePrefix: bare-, kubelet: none}\n")
    assert [op.get("kubelet") for op in load_scenario(good).ops] == [
        {"confirms": False, "terminationDelay": "10s"}, "none"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: n\nops:\n- {op: createNodes, kubelet: {slow: true}}\n")
    with pytest.raises(YamlScenarioError, match="kubelet must be none or a map of confirms, resizeDelay, resizes"):
        load_scenario(bad)


# ------------------------------------------------------------------------------------ resizes


async def _running(s: Scenario, name: str, node: str, spec_cpu: str, allocated_cpu: str, **extra: Any) -> None:
    """A pod on ``node`` asking ``spec_cpu`` whose containers hold ``allocated_cpu`` (a resize from
    one to the other is pending when they differ), its status written as a kubelet would."""
    await s.create_pod(name, spec_cpu, manifest={"spec": {"nodeName": node, **extra}})
    await s.patch("pods", name, {"status": {"phase": "Running", "containerStatuses": [{
        "name": "c", "image": "registry.k8s.io/pause:3.10", "imageID": "", "ready": True, "restartCount": 0,
        "state": {"running": {}}, "allocatedResources": {"cpu": allocated_cpu},
        "resources": {"requests": {"cpu": allocated_cpu}}}]}}, type="merge", subresource="status")


def _pending(s: Scenario, name: str) -> dict[str, Any] | None:
    return next((c for c in (s.pod(name) or {}).get("status", {}).get("conditions") or []
                 if c.get("type") == "PodResizePending"), None)


def _allocated_cpu(s: Scenario, name: str) -> str:
    return (s.pod(name) or {})["status"]["containerStatuses"][0]["allocatedResources"]["cpu"]


def test_a_resize_that_does_not_fit_beside_the_other_pods_is_deferred_until_room_appears(tmp_path: Path) -> None:
    """The allocation manager's answers (pkg/kubelet/allocation): Deferred with "Node didn't have
    enough resource: cpu, requested: <new>, used: <others>, capacity: <allocatable>" in
    millicores, then actuated once a pod on the node is gone."""
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        await _running(s, "v", "n1", "800m", "800m", terminationGracePeriodSeconds=0)
        await _running(s, "r", "n1", "300m", "100m")
        await s.eventually(lambda: _pending(s, "r") is not None, within=1)
        pending = _pending(s, "r")
        assert pending is not None
        assert (pending["status"], pending["reason"], pending["message"], pending["observedGeneration"]) == (
            "True", "Deferred", "Node didn't have enough resource: cpu, requested: 300, used: 800, capacity: 1000",
            s.pod("r")["metadata"]["generation"])
        assert _allocated_cpu(s, "r") == "100m"
        await s.advance(30)
        assert _pending(s, "r") == pending  # nothing changed on the node: the same answer, no rewrite
        await s.delete("pods", "v")
        await s.eventually(lambda: _pending(s, "r") is None, within=1)
        status = s.pod("r")["status"]["containerStatuses"][0]
        assert (status["allocatedResources"], status["resources"]) == ({"cpu": "300m"}, {"requests": {"cpu": "300m"}})

    with_scenario(body, tmp_path, scheduler=False)


def test_a_resize_beyond_the_nodes_allocatable_is_infeasible(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        await _running(s, "r", "n1", "2", "100m")
        await s.eventually(lambda: _pending(s, "r") is not None, within=1)
        pending = _pending(s, "r")
        assert pending is not None and (pending["reason"], pending["message"]) == (
            "Infeasible", "Node didn't have enough capacity: cpu, requested: 2000, capacity: 1000")

    with_scenario(body, tmp_path, scheduler=False)


@pytest.mark.parametrize(("resizes", "reason"), [("refuse", "Infeasible"), ("ignore", None), ("actuate", None)])
def test_a_node_can_refuse_or_ignore_resizes(tmp_path: Path, resizes: str, reason: str | None) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="4", kubelet=Kubelet(resizes=resizes, resize_delay=2))
        await _running(s, "r", "n1", "300m", "100m")
        await s.advance(1.5)
        assert _pending(s, "r") is None and _allocated_cpu(s, "r") == "100m"  # not yet: the delay
        await s.advance(1)
        assert (_pending(s, "r") or {}).get("reason") == reason
        assert _allocated_cpu(s, "r") == ("300m" if resizes == "actuate" else "100m")

    with_scenario(body, tmp_path, scheduler=False)


def test_a_started_pod_holds_its_requests(tmp_path: Path) -> None:
    async def body(s: Scenario) -> None:
        await s.create_node("n1", kubelet=Kubelet(starts_pods=True))
        await _bound_pod(s, "p", "n1")
        await s.eventually(s.pod_condition("p", "Ready", status="True"), within=1)
        status = s.pod("p")["status"]["containerStatuses"][0]
        assert (status["allocatedResources"], status["resources"]) == ({"cpu": "1"}, {"requests": {"cpu": "1"}})

    with_scenario(body, tmp_path, scheduler=False)


def test_kubelet_rejects_an_unknown_resize_answer() -> None:
    with pytest.raises(ValueError, match="resizes must be one of actuate, refuse, ignore"):
        Kubelet(resizes="maybe")


def test_a_larger_allocatable_reported_by_the_kubelet_lets_a_deferred_resize_through(tmp_path: Path) -> None:
    """``set_allocatable``: the node's status says so (capacity and allocatable), and the stand-in
    answers the pending resize from it at once: Deferred again with the new capacity while it
    still does not fit, then actuated once it does."""
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        await _running(s, "v", "n1", "800m", "800m")
        await _running(s, "r", "n1", "300m", "100m")
        await s.eventually(lambda: (_pending(s, "r") or {}).get("message", "").endswith("capacity: 1000"), within=1)
        node = await s.set_allocatable("n1", "1050m")
        assert (node["status"]["capacity"]["cpu"], node["status"]["allocatable"]["cpu"]) == ("1050m", "1050m")
        assert node["status"]["capacity"]["memory"] == "8Gi"  # a merge patch: the rest stays
        await s.eventually(lambda: (_pending(s, "r") or {}).get("message") ==
                           "Node didn't have enough resource: cpu, requested: 300, used: 800, capacity: 1050", within=1)
        await s.set_allocatable("n1", "1100m")
        await s.eventually(lambda: _pending(s, "r") is None, within=1)
        assert _allocated_cpu(s, "r") == "300m"
        with pytest.raises(ValueError, match=r"^set_allocatable: give cpu, memory or both$"):
            await s.set_allocatable("n1")

    with_scenario(body, tmp_path, scheduler=False)


def test_a_reconfigured_kubelet_answers_the_pending_resizes_again(tmp_path: Path) -> None:
    """``reconfigure_kubelet``: a kubelet restarted to refuse resizes turns a Deferred resize
    Infeasible; one restarted to ignore them leaves the answer as it was."""
    async def body(s: Scenario) -> None:
        await s.create_node("n1", cpu="1")
        await _running(s, "v", "n1", "800m", "800m")
        await _running(s, "r", "n1", "300m", "100m")
        await s.eventually(lambda: (_pending(s, "r") or {}).get("reason") == "Deferred", within=1)
        await s.reconfigure_kubelet("n1", Kubelet(resizes="ignore"))
        await s.advance(5)
        assert (_pending(s, "r") or {}).get("reason") == "Deferred"
        await s.reconfigure_kubelet("n1", Kubelet(resizes="refuse", resize_delay=2))
        await s.advance(1.5)
        assert (_pending(s, "r") or {}).get("reason") == "Deferred"  # not yet: the new delay
        await s.eventually(lambda: (_pending(s, "r") or {}).get("reason") == "Infeasible", within=1)
        with pytest.raises(ValueError, match=r"^node n2 has no kubelet stand-in \(created with kubelet=None, or not "
                                             r"by this scenario\)$"):
            await s.reconfigure_kubelet("n2", Kubelet())

    with_scenario(body, tmp_path, scheduler=False)
