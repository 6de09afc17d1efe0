"""Core sanity: the scheduler under test schedules at all, as kube-scheduler does.

Needed to trust any run: a scheduler that fails these makes every other verdict meaningless.
Every criterion here must pass against a real kube-scheduler (it does: ``docs/compatibility.md``).
No KEP describes this behaviour, so the criteria claim none: each names the upstream behaviour
and the kube-scheduler and API-server sources it is read from (``docs/api-facts.md`` §binding,
§fit-error, §requeue), as a ``kep(None, <sources>, upstream=<behaviour>)`` marker.

Each criterion is a positive first (bound, reported Unschedulable), and what it then says must
not happen (a second binding, a binding for a minute) stands beside it: its ``control=`` names
that positive, and a scheduler that does nothing fails every one.
"""

from __future__ import annotations

import re

import pytest

from harness import Expectation, Scenario, format_pod
from suites._readings import READINGS
from suites._support import events, fit_error, seen_by_scheduler, watch_span

#: kube-scheduler's fit-error format, '0/%v nodes are available: %v.' (docs/api-facts.md §fit-error);
#: a PostFilter (preemption) message may follow after a space, as the real kube-scheduler's does.
FIT_ERROR = re.compile(r"^0/(\d+) nodes are available: (.+?\.)(?: (.*))?$")


def _unschedulable(scenario: Scenario, pod: str, prefix: str) -> Expectation:
    """PodScheduled=False/Unschedulable whose message is ``prefix`` (``0/<nodes> nodes are
    available: <reasons>.``), optionally followed by a PostFilter sentence."""

    def test() -> bool:
        condition = next((c for c in (scenario.pod(pod) or {}).get("status", {}).get("conditions") or []
                          if c.get("type") == "PodScheduled"), None)
        if condition is None or (condition.get("status"), condition.get("reason")) != ("False", "Unschedulable"):
            return False
        message = str(condition.get("message", ""))
        return bool(FIT_ERROR.match(message)) and (message == prefix or message.startswith(prefix + " "))

    return Expectation(f"pod {scenario.namespace}/{pod} has PodScheduled=False reason=Unschedulable with a message "
                       f"starting {prefix!r} (0/N nodes are available: shape)",
                       test, lambda: format_pod(scenario.namespace, pod, scenario.pod(pod)), (pod,))


@pytest.mark.kep(None, "pkg/scheduler/framework/plugins/defaultbinder/default_binder.go; pkg/scheduler/schedule_one.go "
                 "(the Scheduled event); pkg/registry/core/pod/storage/storage.go (BindingREST); "
                 "docs/api-facts.md §binding", upstream="kube-scheduler binding a pod (DefaultBinder, pods/binding)")
@pytest.mark.feature_gates()
@pytest.mark.criterion("core.binds-fitting-node",
                        control="feature: the pod is bound to n2, before its bindings and events are counted")
async def test_pod_is_bound_to_a_fitting_node(scenario: Scenario) -> None:
    """kube-scheduler binds with POST pods/binding, the API server sets spec.nodeName and a
    PodScheduled=True condition without reason or message, and the scheduler emits a Normal
    'Scheduled' event 'Successfully assigned <namespace>/<pod> to <node>' (docs/api-facts.md
    §binding). Of two nodes only n2 has room
    for the pod's 2 CPUs: the pod is bound to n2 within 5 s, with one binding and one Scheduled event.
    The counts stand beside the binding, the criterion itself: a scheduler that never binds
    fails."""
    n1 = await scenario.create_node("n1", cpu="1")
    n2 = await scenario.create_node("n2", cpu="4")
    await seen_by_scheduler(scenario, ("nodes", n1), ("nodes", n2))
    await scenario.create_pod("p", "2")
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=5)
    pod = scenario.pod("p") or {}
    assert pod["spec"]["nodeName"] == "n2", f"expected p bound to n2 (the only node with 2 free CPUs), got {pod['spec']['nodeName']}"
    scenario.expect_requests(1, verb="create", resource="pods", subresource="binding", name="p")

    def scheduled_event_written() -> bool:
        return bool(events(scenario, "p", "Scheduled"))

    await scenario.eventually(scheduled_event_written, within=5)
    await scenario.advance(1)
    scheduled = events(scenario, "p", "Scheduled")
    assigned = f"Successfully assigned {scenario.namespace}/p to n2"
    assert [(e.type, e.message) for e in scheduled] == [("Normal", assigned)], (
        f"expected one Normal Scheduled event {assigned!r}, found: "
        f"{'; '.join(map(str, scheduled)) or '(none)'}")


@pytest.mark.kep(None, "pkg/scheduler/schedule_one.go (handleSchedulingFailure); pkg/scheduler/framework/types.go "
                 "(FitError); docs/api-facts.md §fit-error",
                 upstream="kube-scheduler reporting a failed scheduling attempt (Unschedulable, FailedScheduling)")
@pytest.mark.feature_gates()
@pytest.mark.criterion("core.unschedulable-message", reading=READINGS["fit-error"],
                        control="feature: the pod is reported Unschedulable with the fit error first")
async def test_pod_that_fits_nowhere_is_unschedulable_with_the_real_message(scenario: Scenario) -> None:
    """On a failed attempt kube-scheduler patches the pod's PodScheduled condition to False, reason
    Unschedulable, with its fit-error message ('0/<nodes> nodes are available: <reasons>.'), and
    emits a Warning FailedScheduling event (docs/api-facts.md §fit-error). One node with 1 CPU, a pod asking 2: the message starts with
    '0/1 nodes are available: 1 Insufficient cpu.'; only that prefix and the '0/N nodes are
    available:' shape are checked, because the real kube-scheduler appends its preemption
    sentence ('preemption: 0/1 nodes are available: ...'). The pod stays unbound for a minute
    after: "never bound" stands beside the report, the criterion itself: a scheduler that never
    reports fails."""
    await seen_by_scheduler(scenario, ("nodes", await scenario.create_node("n1", cpu="1")))
    await scenario.create_pod("p", "2")
    prefix = fit_error(scenario, 1, {"Insufficient cpu": 1})
    await scenario.eventually(_unschedulable(scenario, "p", prefix), within=5)
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, 60))
    failed = events(scenario, "p", "FailedScheduling")
    assert failed and all(e.type == "Warning" and e.message.startswith(prefix)
                          for e in failed), (
        f"expected Warning FailedScheduling events with the fit-error message, found: "
        f"{'; '.join(map(str, failed)) or '(none)'}")


@pytest.mark.kep(None, "pkg/scheduler/backend/queue/scheduling_queue.go (moving unschedulable pods on a cluster "
                 "event); pkg/scheduler/framework/plugins/noderesources/fit.go (its Node/Add queueing hint); "
                 "docs/api-facts.md §fit-error, §requeue, §binding",
                 upstream="kube-scheduler re-queueing an unschedulable pod when a Node is added")
@pytest.mark.feature_gates()
@pytest.mark.criterion("core.node-added", reading=READINGS["fit-error"],
                        control="feature: the pod is reported Unschedulable, then bound once a node that fits is "
                                "added")
async def test_unschedulable_pod_is_bound_after_a_node_is_added(scenario: Scenario) -> None:
    """A pod that fits nowhere is Unschedulable; kube-scheduler takes a Node added as an event that
    may make it fit and tries it again, and it is bound (docs/api-facts.md §fit-error, §requeue,
    §binding). The pod waits a minute Unschedulable on n1
    (1 CPU), then n2 (4 CPUs) is added: bound to n2 within 15 s. "Not bound for a minute"
    stands beside the report and the binding, the criterion itself: a scheduler that does
    neither fails."""
    await seen_by_scheduler(scenario, ("nodes", await scenario.create_node("n1", cpu="1")))
    await scenario.create_pod("p", "2")
    await scenario.eventually(_unschedulable(scenario, "p", fit_error(scenario, 1, {"Insufficient cpu": 1})), within=5)
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, 60))
    await scenario.create_node("n2", cpu="4")
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=15)
    pod = scenario.pod("p") or {}
    assert pod["spec"]["nodeName"] == "n2", f"expected p bound to the new node n2, got {pod['spec']['nodeName']}"
