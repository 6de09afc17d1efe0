"""The guide's Python examples (docs/scenarios.md): run by the project's tests, so they stay true."""

from __future__ import annotations

from pathlib import Path

import pytest

from fake_apiserver import FaultRule, Match, Respond, sets_condition
from harness import Kubelet, Scenario

HERE = Path(__file__).parent


@pytest.mark.kep("KEP-3521", "Proposal")
@pytest.mark.criterion("guide.gated-pod-waits")
async def test_a_gated_pod_waits_for_its_last_gate(scenario: Scenario) -> None:
    """A pod with two scheduling gates is never bound while one is left; it is once both are gone."""
    await scenario.create_node("n1")
    await scenario.create_pod("p", "1", gates=["example.com/a", "example.com/b"])
    await scenario.never(scenario.pod_bound("p"), within=30)
    await scenario.remove_gate("p", "example.com/a")
    await scenario.never(scenario.pod_bound("p"), within=10)
    await scenario.remove_gate("p", "example.com/b")
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=5)
    assert not scenario.writes("p")[:-1], "no scheduler write before the binding"


@pytest.mark.criterion("guide.unschedulable-then-node")
async def test_a_pod_that_fits_nowhere_waits_for_a_node(scenario: Scenario) -> None:
    """Unschedulable on a small node; bound to the node added for it."""
    await scenario.create_node("small", cpu="1")
    await scenario.create_pod("big", "2")
    await scenario.eventually(scenario.pod_condition("big", "PodScheduled", status="False", reason="Unschedulable"),
                              within=5)
    await scenario.create_node("large", cpu="4")
    await scenario.eventually(scenario.pod_bound("big"), within=60)
    assert (scenario.pod("big") or {})["spec"]["nodeName"] == "large"


@pytest.mark.criterion("guide.status-write-refused-once")
async def test_scheduling_goes_on_when_a_status_write_is_refused(scenario: Scenario) -> None:
    """The first write that would set PodScheduled=False is refused with 503, whatever request
    carries it; the pod is bound once a node fits."""
    await scenario.add_fault(FaultRule(
        Match(resource="pods", name="big", effect=sets_condition("PodScheduled", status="False")),
        Respond(503), times=1))
    await scenario.create_node("small", cpu="1")
    await scenario.create_pod("big", "2")
    await scenario.advance(5)
    await scenario.create_node("large", cpu="4")
    await scenario.eventually(scenario.pod_bound("big"), within=60)


@pytest.mark.criterion("guide.victim-terminates")
async def test_a_deleted_pod_terminates_on_its_kubelet(scenario: Scenario) -> None:
    """A bound pod deleted with the default grace period stays Terminating for 30 s, then its
    node's kubelet stand-in confirms; on a node whose kubelet is 10 s slow, it takes 40 s."""
    await scenario.create_node("n1", kubelet=Kubelet(termination_delay=10))
    await scenario.create_pod("v", "1", manifest={"spec": {"nodeName": "n1"}})
    await scenario.delete("pods", "v")
    await scenario.never(lambda: scenario.pod("v") is None, within=39)
    await scenario.eventually(lambda: scenario.pod("v") is None, within=2)


@pytest.mark.criterion("guide.gang-waits")
async def test_no_gang_member_is_bound_until_the_gang_is_complete(scenario: Scenario) -> None:
    """Two members of a PodGroup of three are never bound; once the third exists, all three are."""
    await scenario.create_objects(HERE / "podgroup-crd.yaml")
    await scenario.create_object({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                                  "metadata": {"name": "trio"}, "spec": {"minMember": 3}})
    await scenario.create_node("n1")
    member = {"scheduling.x-k8s.io/pod-group": "trio"}
    for name in ("m0", "m1"):
        await scenario.create_pod(name, "500m", labels=member)
    await scenario.never(scenario.pod_bound("m0") | scenario.pod_bound("m1"), within=30)
    await scenario.create_pod("m2", "500m", labels=member)
    await scenario.eventually(scenario.pods_bound("m", count=3), within=60)
