"""The kubelet stand-in (``harness._kubelet``): a deleted bound pod goes when its grace period has
passed, later on a slow node, never on a node whose kubelet never confirms; a pod bound to a node
that starts pods is marked Running. Virtual time throughout: "30 s" is the loop's 30 s."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import Kubelet, Scenario
from harness._yaml_scenarios import YamlScenarioError, load_scenario
from test_scenario import with_scenario


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
        await s._request("DELETE", s._path("pods", "p"), body={"gracePeriodSeconds": 10})
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
    with pytest.raises(YamlScenarioError, match="kubelet must be none or a map of confirms, terminationDelay"):
        load_scenario(bad)
