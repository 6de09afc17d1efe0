"""Scheduling gates (KEP-3521), and how KEP-5501 must leave them alone.

The gate rules are the API server's and kube-scheduler's of today (``docs/api-facts.md``
§gated-create, §gated-binding, §gated-scheduler), so
every criterion here that does not name KEP-5501 must pass against a real kube-scheduler. The
KEP-5501 ones check its message unification (Proposal §2): with ``SchedulerPreEnqueuePodStatus``
on, the SchedulingGates plugin's message equals the API server's, the de-duplication cache is
seeded from the pod's ``SchedulingGated`` condition, and a gated pod costs no status patch.

Waits for what must not happen are long (minutes) under virtual time, where they are free;
:func:`~suites._support.watch_span` caps them on real time, except the two 5-minute watches of a
gated pod, which need their end (``FLUSH``): on real time they are judged only with a
``--real-time-wait`` of 300 s or more. "No status patch" is judged as an effect: no write of the
scheduler's touched the pod, whatever its verb (a binding is counted on its own, as a request to
``pods/binding``, the API's only way to bind). That adding a gate is refused is the API server's
rule, not the scheduler's: the fake's own tests check it
(``tests/fake_apiserver/_endpoints/test_http_writes.py``,
``tests/fake_apiserver/_registry/test_pod_validation.py``).

"Never bound, never patched" holds for a scheduler that does nothing at all, so each such
criterion stands beside a positive control in the same scenario (the ``control=`` of its
marker), judged once the watch is over: the gated pod is bound once its gates are removed (the
scheduler held that very pod for its gates, and schedules), and with KEP-5501 on, a second pod
whose claim does not exist is reported with ``PodScheduled=False`` (the scheduler writes its
PreEnqueue rejections, so its silence on the gated pod is the de-duplication the KEP asks for).
A control that never happens leaves the criterion not judged
(:func:`~suites._support.control_met`).
"""

from __future__ import annotations

import pytest

from harness import Scenario
from suites._readings import READINGS
from suites._support import (
    FLUSH,
    GATED_MESSAGE,
    NOT_READY_FOR_SCHEDULING,
    Control,
    condition_history,
    control_met,
    events,
    format_writes,
    not_ready_writes,
    watch_span,
)

GATE_A = "example.com/a"
GATE_B = "example.com/b"
#: The control of the gated-pod criteria (module docstring).
RELEASED = "feature: once its gates are removed, the gated pod is bound"
#: The control of the criteria that remove the gates one by one: the positive half of the criterion itself.
BOUND_AFTER_LAST = "feature: the pod is bound within 10 s of its last gate's removal"
#: The control of the KEP-5501 gated-pod criteria (module docstring).
REPORTED_AND_RELEASED = ("feature: a pod whose claim does not exist is reported (PodScheduled=False), and once "
                         "its gates are removed the gated pod is bound")


def _bindings(scenario: Scenario, pod: str) -> int:
    return len(scenario.requests("create", "pods", subresource="binding", name=pod))


def _expect_no_writes(scenario: Scenario, pod: str, why: str) -> None:
    """No write of the scheduler's (other than a binding) reached the pod: no status write of any shape."""
    writes = [w for w in scenario.writes(pod) if not w.binding]
    assert not writes, (f"expected no write of {scenario.namespace}/{pod} by the scheduler ({why}); found {len(writes)}:\n"
                        f"{format_writes(writes)}")


async def _gated_pod_stays_gated(scenario: Scenario, seconds: float) -> None:
    """A node that fits, a pod with two gates; for ``seconds`` (all of them: ``FLUSH``): never
    bound, no binding attempt, no FailedScheduling event."""
    await scenario.create_node("n1")
    await scenario.create_pod("p", "100m", gates=[GATE_A, GATE_B])
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, seconds, whole=FLUSH))
    assert _bindings(scenario, "p") == 0, (
        f"expected no binding request for the gated pod p, found {_bindings(scenario, 'p')}")
    failed = events(scenario, "p", "FailedScheduling")
    assert failed == [], ("expected no scheduling attempt (no FailedScheduling event) for the gated pod p, found: "
                          + "; ".join(map(str, failed)))


async def _released(scenario: Scenario, pod: str = "p") -> Control:
    """The control :data:`RELEASED`: every gate of ``pod`` is removed now, and the scheduler must
    bind it (it fits n1): the scheduler held this very pod for its gates, and it schedules."""
    await scenario.remove_all_gates(pod)
    return Control(scenario.pod_bound(pod),
                   f"bind {scenario.namespace}/{pod} once its scheduling gates are removed (watch pods, list nodes, "
                   "bind)")


async def _reported(scenario: Scenario, pod: str = "rejected") -> Control:
    """Half of the control :data:`REPORTED_AND_RELEASED`: ``pod`` names a claim that does not
    exist, so any KEP-5501 scheduler rejects it at PreEnqueue and reports it after the delay
    with PodScheduled=False/NotReadyForScheduling (Proposal). The control asks only for
    PodScheduled=False, which the API server never writes on an ungated pod: that the scheduler
    writes its rejections to the pod is what the gated pod's silence stands beside; the reason
    is judged by ``kep5501.core.after-delay``. Make it beside the gated pod."""
    await scenario.create_pod(pod, "100m", claims=["absent"])
    return Control(scenario.pod_condition(pod, "PodScheduled", status="False"),
                   f"report the PreEnqueue rejection of {scenario.namespace}/{pod} (its claim 'absent' does not exist) "
                   "in its status, PodScheduled=False (watch pods and claims, patch the pod's status)")


@pytest.mark.kep("KEP-3521", "Proposal (a gated pod is not considered for scheduling); docs/api-facts.md "
                 "§gated-scheduler")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=False)
@pytest.mark.criterion("gates.gated-pod-untouched.kep5501-off", control=RELEASED)
async def test_gated_pod_is_never_bound_and_never_patched_with_kep5501_off(scenario: Scenario) -> None:
    """kube-scheduler parks a gated pod without trying it: no scheduling attempt, no
    FailedScheduling event, no status write (docs/api-facts.md §gated-scheduler). Checked over
    5 minutes with a node that fits, SchedulerPreEnqueuePodStatus=false: 0 bindings, 0
    FailedScheduling events, 0 writes of the pod.

    Judged beside a control: then both gates are removed and the pod must be bound (within 30 s);
    otherwise not judged."""
    await _gated_pod_stays_gated(scenario, 300)
    _expect_no_writes(scenario, "p", "a gated pod")
    await control_met(scenario, await _released(scenario))


@pytest.mark.kep("KEP-5501", "Proposal §2 (Handling the SchedulingGated conflict); KEP-3521 as kube-scheduler "
                 "implements it (docs/api-facts.md §gated-scheduler)")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("gates.gated-pod-untouched.kep5501-on", reading=READINGS["seeding"],
                        control=REPORTED_AND_RELEASED)
async def test_gated_pod_is_never_bound_and_keeps_schedulinggated_with_kep5501_on(scenario: Scenario) -> None:
    """KEP-5501 Proposal §2: 'When a gated Pod is rejected, the scheduler will generate the
    unified message, compare it to the message already on the Pod object, see that they are
    identical, and skip sending a redundant patch.' Over 5 minutes: never bound, the API server's
    SchedulingGated condition kept as created, no NotReadyForScheduling patch and no status patch
    (0 writes of the pod).

    Judged beside a control: a second pod, made with the gated one, names a claim that does not
    exist and must be reported with PodScheduled=False (the scheduler writes its PreEnqueue
    rejections); then both gates are removed and the gated pod must be bound (within 30 s);
    otherwise not judged."""
    history = condition_history(scenario, "p")
    reported = await _reported(scenario)
    await _gated_pod_stays_gated(scenario, 300)
    assert history.reasons() == [None, "SchedulingGated"], (
        f"expected the SchedulingGated condition from the create, never changed; {history}")
    not_ready = not_ready_writes(scenario, "p")
    assert not_ready == [], (
        f"expected no write of a {NOT_READY_FOR_SCHEDULING} condition for the gated pod p, found {len(not_ready)}:\n"
        f"{format_writes(not_ready)}")
    _expect_no_writes(scenario, "p", "a gated pod, its message unified with the API server's")
    await control_met(scenario, reported)
    await control_met(scenario, await _released(scenario))


async def _remove_in_order(scenario: Scenario, first: str, last: str) -> None:
    await scenario.create_node("n1")
    await scenario.create_pod("p", "100m", gates=[GATE_A, GATE_B])
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, 60))
    await scenario.remove_gate("p", first)
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, 120))
    assert _bindings(scenario, "p") == 0, (
        f"expected no binding request while gate {last} remains, found {_bindings(scenario, 'p')}")
    await scenario.remove_gate("p", last)
    await scenario.eventually(scenario.pod_bound("p") & scenario.pod_condition("p", "PodScheduled", status="True"),
                              within=10)
    scenario.expect_requests(1, verb="create", resource="pods", subresource="binding", name="p")


@pytest.mark.kep("KEP-3521", "Proposal: Restricted state transition ('each schedulingGate can be removed in arbitrary order')")
@pytest.mark.feature_gates()
@pytest.mark.criterion("gates.removal-order.second-then-first", control=BOUND_AFTER_LAST)
async def test_pod_is_bound_only_after_its_last_gate_is_removed_second_then_first(scenario: Scenario) -> None:
    """KEP-3521: 'After creation, each schedulingGate can be removed in arbitrary order'; a pod is
    ready for scheduling only when 'the .spec.schedulingGates is empty'. Two gates, the second
    removed first: no binding (not even an attempt) for 2 minutes; bound within 10 s of the last.
    The binding after the last removal is the control the "no binding" stands beside, and part
    of the criterion: a scheduler that never binds fails it."""
    await _remove_in_order(scenario, GATE_B, GATE_A)


@pytest.mark.kep("KEP-3521", "Proposal: Restricted state transition ('each schedulingGate can be removed in arbitrary order')")
@pytest.mark.feature_gates()
@pytest.mark.criterion("gates.removal-order.first-then-second", control=BOUND_AFTER_LAST)
async def test_pod_is_bound_only_after_its_last_gate_is_removed_first_then_second(scenario: Scenario) -> None:
    """KEP-3521: 'After creation, each schedulingGate can be removed in arbitrary order'. Two
    gates, the first removed first: no binding (not even an attempt) for 2 minutes; bound within
    10 s of the last. The binding after the last removal is the control the "no binding" stands
    beside, and part of the criterion: a scheduler that never binds fails it."""
    await _remove_in_order(scenario, GATE_A, GATE_B)


@pytest.mark.kep("KEP-3521", "Design Details (apiserver strategy); docs/api-facts.md §gated-create; "
                 "docs/readings.md Q2")
@pytest.mark.feature_gates()
@pytest.mark.criterion("gates.schedulinggated-condition", reading=READINGS["gated-clear"], control=BOUND_AFTER_LAST)
async def test_schedulinggated_condition_is_set_on_create_and_left_until_binding(scenario: Scenario) -> None:
    """The API server gives a pod created with gates the condition {type: PodScheduled, status:
    False, reason: SchedulingGated, message: 'Scheduling is blocked due to non-empty scheduling
    gates'}, and leaves it when the gates are removed, until the binding replaces it with
    PodScheduled=True without reason or message (docs/api-facts.md §gated-create). With KEP-5501 on, the scheduler
    must not clear it either (the reading below): the only states ever seen are SchedulingGated,
    then True, and no status patch is sent. The binding after the last removal is the control
    the "untouched" stands beside, and part of the criterion: a scheduler that never binds fails
    it."""
    history = condition_history(scenario, "p")
    await scenario.create_node("n1")
    await scenario.create_pod("p", "100m", gates=[GATE_A, GATE_B])
    gated = await scenario.condition("p", "PodScheduled")
    expected = {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated", "message": GATED_MESSAGE,
                "lastProbeTime": None}
    assert gated is not None and {k: gated.get(k) for k in expected} == expected, (
        f"expected the API server's condition {expected} on create, got {gated}")
    assert gated.get("lastTransitionTime"), f"expected lastTransitionTime set on create, got {gated}"
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, 60))
    assert await scenario.condition("p", "PodScheduled") == gated, (
        f"expected the condition as created while both gates remain; {history}")
    await scenario.remove_gate("p", GATE_A)
    await scenario.never(scenario.pod_bound("p"), within=watch_span(scenario, 60))
    assert await scenario.condition("p", "PodScheduled") == gated, (
        f"expected the condition untouched after removing {GATE_A}; {history}")
    await scenario.remove_gate("p", GATE_B)
    await scenario.eventually(scenario.pod_bound("p"), within=10)
    await scenario.advance(watch_span(scenario, 30))
    final = await scenario.condition("p", "PodScheduled")
    assert final is not None and (final.get("status"), final.get("reason", ""), final.get("message", "")) == (
        "True", "", ""), f"expected the binding's PodScheduled=True without reason or message, got {final}"
    assert [c for _, c in history.states] == [None, gated, final], (
        f"expected exactly: absent, SchedulingGated (from create to binding), True; {history}")
    _expect_no_writes(scenario, "p", "the SchedulingGated condition is left to the binding")


@pytest.mark.kep("KEP-5501", "Proposal §2 (Handling the SchedulingGated conflict); Design Details §3")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
@pytest.mark.criterion("gates.kep5501.no-redundant-patch", reading=READINGS["seeding"],
                        control=REPORTED_AND_RELEASED)
async def test_gated_pod_gets_no_redundant_patch_when_reevaluated(scenario: Scenario) -> None:
    """KEP-5501 Proposal §2: the unified message 'effectively de-duplicates the updates, doesn't
    require any change to the kube-apiserver, and preserves the current scheduler performance
    when processing pods with scheduling gates'. A gated pod whose labels change every 30 s (each
    update re-runs PreEnqueue, READINGS["reevaluation"]) gets exactly 0 status patches over 5
    minutes and keeps its SchedulingGated condition. The re-evaluations come every 30 s, so a
    watch cut on real time still holds some.

    Judged beside a control: a second pod, made with the gated one, names a claim that does not
    exist and must be reported with PodScheduled=False (the scheduler writes its PreEnqueue
    rejections); then the gate is removed and the gated pod must be bound (within 30 s);
    otherwise not judged."""
    history = condition_history(scenario, "p")
    await scenario.create_node("n1")
    reported = await _reported(scenario)
    await scenario.create_pod("p", "100m", gates=[GATE_A])
    span = watch_span(scenario, 300)
    for tick in range(int(span // 30)):
        await scenario.advance(30)
        await scenario.patch("pods", "p", {"metadata": {"labels": {"tick": str(tick)}}})
    await scenario.advance(30)
    _expect_no_writes(scenario, "p", "a gated pod re-evaluated with an unchanged message")
    assert history.reasons() == [None, "SchedulingGated"], (
        f"expected the SchedulingGated condition kept as created; {history}")
    assert not (await scenario.get("pods", "p"))["spec"].get("nodeName"), "expected the gated pod p unbound"
    await control_met(scenario, reported)
    await control_met(scenario, await _released(scenario))
