"""KEP-5836: scheduler preemption for in-place pod resize, judged at the API.

A running pod is resized in place (``pods/<name>/resize``, KEP-1287); its node's kubelet (the
stand-in, :mod:`harness._backends.kubelet`, which answers as the kubelet's allocation manager does) marks
the resize ``PodResizePending=True`` reason ``Deferred`` when the node has no room now. With the
gate ``InPlacePodVerticalScalingSchedulerPreemption`` (alpha in v1.37; needs
``InPlacePodVerticalScaling``) the scheduler preempts lower-priority pods on that node; the kubelet
then actuates the resize once the victims are gone.

The cases of the upstream integration tests (v1.37.2
``test/integration/scheduler/preemption/deferred_resize_preemption_test.go``):
``TestDeferredResizePodPreemption`` (one victim, two, ``preemptionPolicy: Never``, a resize that
already fits, ``disableResizePreemption``); the "wakes queue" cases of
``TestDeferredResizeQueueingHints`` and ``TestDeferredResizeNodePreemptionPolicy`` (a pod deleted
or scaled down on the node, the resize made smaller, the node's allocatable raised, its policy
lifted), each seen as a preemption that was impossible before the change and happens within 5 s
of it; ``TestDeferredResizeQueueingHandlers`` (a resize Deferred before the scheduler starts; one
whose pod is deleted, or whose kubelet turns it Infeasible, while it waits is never preempted
for); and cases only a harness with time and a kubelet can script. The "ignores queue" cases are
not criteria: an attempt that can find no victim writes nothing, so no API effect tells a retry
from none (``kep5836.unrelated-events-quiet`` judges what can be seen: no write). Every upstream
case, with its criterion or the reason it has none: ``docs/kep5836-upstream-cases.md``.

Every criterion judges effects: which pods the scheduler deleted, what it wrote (nothing, on the
resizing pod: reading R1), when the resize was actuated. Where the KEP leaves a choice the
criterion names its reading (``suites/_readings.py``, R1-R9) and the report shows it.

What must not happen (nothing preempted, nothing written) holds for a scheduler that never acts,
so it counts only beside a positive control in the same scenario, which the criterion's
``control=`` names: its own preemption where it has one; otherwise a deferred resize on a node
of its own that must preempt (:data:`FEATURE`: a scheduler without KEP-5836 is then not judged
on the negative, never passed), or, with the gate off, an ordinary pod it must bind
(:func:`suites._support.liveness`). A control that never happens ends the criterion not judged.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from fake_apiserver import FaultRule, Match, Respond
from harness import ApiError, Backend, Expectation, Kubelet, Scenario, SchedulerAdapter, Unsupported, format_writes
from suites._priorities import GRACE, any_deleted, classes, deleted, deleted_by_scheduler, preemptor, victim
from suites._readings import READINGS
from suites._support import LIVENESS, Control, control_met, liveness, require_faults, seen_by_scheduler

Obj = dict[str, Any]

PREEMPTION_GATE = "InPlacePodVerticalScalingSchedulerPreemption"
GATES = {"InPlacePodVerticalScaling": True, PREEMPTION_GATE: True}
KEP = "KEP-5836"
#: How long a scheduler may take to act on a deferred resize it can help (seconds).
ACT_WITHIN = 5.0
#: How long a criterion watches for what must not happen.
WATCH = 15.0
STARTS = Kubelet(starts_pods=True)


def _allocated_cpu(scenario: Scenario, pod: str) -> str | None:
    statuses = ((scenario.pod(pod) or {}).get("status") or {}).get("containerStatuses") or []
    return ((statuses[0] if statuses else {}).get("allocatedResources") or {}).get("cpu")


def _pending_reason(scenario: Scenario, pod: str) -> str | None:
    for condition in ((scenario.pod(pod) or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == "PodResizePending" and condition.get("status") == "True":
            return str(condition.get("reason"))
    return None


def _actuated(scenario: Scenario, pod: str, cpu: str) -> Expectation:
    """The pod's kubelet has actuated its resize: its container holds ``cpu``."""
    return Expectation(f"the kubelet actuates {scenario.namespace}/{pod}'s resize: its container holds cpu {cpu}",
                       lambda: _allocated_cpu(scenario, pod) == cpu,
                       lambda: f"{pod} holds cpu {_allocated_cpu(scenario, pod)}, PodResizePending: "
                               f"{_pending_reason(scenario, pod)}", (pod,))


def _resize_pending(scenario: Scenario, pod: str, reason: str) -> Expectation:
    return Expectation(f"{scenario.namespace}/{pod} has PodResizePending=True reason {reason}",
                       lambda: _pending_reason(scenario, pod) == reason,
                       lambda: f"PodResizePending reason: {_pending_reason(scenario, pod)}", (pod,))


async def _running(scenario: Scenario, name: str, node: str, cpu: str, priority_class: str) -> None:
    await victim(scenario, name, node, cpu, priority_class)
    await scenario.eventually(scenario.pod_condition(name, "Ready", status="True"), within=ACT_WITHIN)


async def _deferred(scenario: Scenario, pod: str, cpu: str) -> None:
    """Resize ``pod`` to ``cpu`` and wait for its kubelet to defer it."""
    await scenario.resize(pod, cpu)
    await scenario.eventually(_resize_pending(scenario, pod, "Deferred"), within=ACT_WITHIN)


async def _delete_now(scenario: Scenario, pod: str) -> None:
    """Delete ``pod`` at once (``gracePeriodSeconds: 0``), as the upstream tests delete."""
    await scenario._request("DELETE", scenario._path("pods", pod), body={"gracePeriodSeconds": 0})


@contextlib.asynccontextmanager
async def _scheduler_stopped(adapter: SchedulerAdapter, backend: Backend) -> AsyncIterator[None]:
    """The scheduler under test stopped for the block, then started again on the same backend
    with the same feature gates (a restart: it finds the cluster as the block left it)."""
    if not adapter.restartable:
        raise Unsupported(f"this criterion restarts the scheduler, and the scheduler {adapter.name} cannot be "
                          "restarted by the harness (a cluster's own kube-scheduler)")
    await adapter.stop()
    yield
    await adapter.start(backend.kubeconfig_path, adapter.feature_gates)


def _no_writes_on(scenario: Scenario, pod: str) -> None:
    """Reading R1: the scheduler changes nothing on the resizing pod (no PodScheduled, no
    nominatedNodeName, no condition of its own). Judged on effects: a write the server stored
    without a change (a no-op patch) or refused is not a change."""
    writes = [w for w in scenario.writes(pod) if w.applied and w.after != w.before]
    assert not writes, (f"expected no scheduler change on the resizing pod {pod} (reading R1: status untouched, "
                        f"no nomination); it wrote:\n{format_writes(writes)}")


async def _node(scenario: Scenario, name: str, cpu: str, levels: dict[str, str], pods: dict[str, tuple[str, str]],
                kubelet: Kubelet = STARTS, spec: Obj | None = None) -> None:
    """Node ``name`` (``cpu``, ``spec`` merged in) running ``pods`` (name: (cpu, priority level)),
    once the scheduler has seen the node."""
    node = await scenario.create_node(name, cpu=cpu, kubelet=kubelet)
    if spec:
        # a release before v1.37 prunes the fields KEP-5836 adds (or refuses them under strict
        # field validation), and kube-apiserver v1.37 drops them while its own gate is off: the
        # criterion cannot be judged there
        unsupported = (f"this API server does not store Node spec.{', spec.'.join(sorted(spec))} (KEP-5836: "
                       f"served from Kubernetes v1.37 with the API server's feature gate {PREEMPTION_GATE} on; "
                       "an older release prunes it, a v1.37 API server with the gate off drops it)")
        try:
            node = await scenario.patch("nodes", name, {"spec": spec}, type="merge")
        except ApiError as e:
            if e.code == 422 and "unknown field" in str(e):
                raise Unsupported(unsupported) from None
            raise
        if set(spec) - set(node.get("spec") or {}):
            raise Unsupported(unsupported)
    for pod, (pod_cpu, level) in pods.items():
        await _running(scenario, pod, name, pod_cpu, levels[level])
    await seen_by_scheduler(scenario, ("nodes", node))


async def _one_victim_node(scenario: Scenario, kubelet: Kubelet = STARTS) -> dict[str, str]:
    """n1 (300m) runs r (mid, 100m) and v (low, 200m); r is to grow to 300m."""
    levels = await classes(scenario)
    await _node(scenario, "n1", "300m", levels, {"r": ("100m", "mid"), "v": ("200m", "low")}, kubelet)
    return levels


# -- the control a negative is judged beside -----------------------------------------------------
#
# "Nothing preempted" and "nothing written" hold for a scheduler that never acts. So a criterion
# that judges what must not happen has, in the same scenario, a control the scheduler must meet
# before the negative counts (suites._support.control_met; otherwise the criterion is not judged):
# where the feature can show, a deferred resize on a node of its own, where it must preempt (a
# scheduler without KEP-5836, or with its gate off, is then not judged on the negative, never
# passed); with the gate off, an ordinary pod it must bind. A negative is watched before its
# control is checked: a scheduler that breaks the negative fails whatever the control did.
#
# No control can disturb what a criterion watches. Its pods are its own, on a node of their own, and
# deletions and writes are read per pod. In the feature control, cr is of high priority, so none of
# the criteria's resizing pods (mid) may take it, and with it nc never has the 300m one of them asks
# for, so none of them can use cv either, even looking on other nodes. cv has priority 1, below
# every pod a criterion watches, so preempting it is cr's first choice even for a scheduler that
# looks for victims on other nodes. And nc is sized so that preempting cv makes room for cr even for
# a scheduler that also counts cr's old 100m beside its new 200m: any scheduler that preempts for a
# deferred resize at all meets the control, and its negative is judged. The liveness pod asks for no
# cpu and is selected onto nc, where no pending pod a criterion watches fits (q's 200m against nc's
# 100m in kep5836.room-kept-from-lower-priority).

#: The node of a scenario's control: the feature control's, or the liveness pod's.
CONTROL_NODE = "nc"
#: The ``control=`` of a criterion judged beside :func:`_control_resize`.
FEATURE = (f"feature: a deferred resize on a node of its own, where it must preempt: {CONTROL_NODE} (300m) runs cr "
           "(high, 100m) and cv (priority 1, 200m); cr grows to 200m and the scheduler must preempt cv before the "
           "negative counts")


#: The ``control=`` of a "wakes" criterion: nothing preempted before the change counts only beside
#: the preemption after it, which the criterion requires too.
WAKES = ("feature: its own positive: v preempted within 5 s of the change; the 5 s without a preemption before "
         "the change count only with it")


def _own(positive: str, negative: str) -> str:
    """The ``control=`` of a criterion whose negative is judged after its own positive."""
    return f"feature: its own positive first ({positive}); then {negative}"


async def _control_node(scenario: Scenario, levels: dict[str, str]) -> None:
    """The feature control's node (:data:`FEATURE`), with cv's PriorityClass (value 1). Made
    before the criterion's resize is deferred where the scenario allows: kube-scheduler v1.37.2
    brings every waiting resize back when a node is added (a retry that finds no victim writes
    nothing, but the fewer retries a scenario causes, the plainer its journal)."""
    lowest = f"{scenario.namespace}-control-victim"
    await scenario.create("priorityclasses", {"metadata": {"name": lowest}, "value": 1})
    await _node(scenario, CONTROL_NODE, "300m", {**levels, "lowest": lowest},
                {"cr": ("100m", "high"), "cv": ("200m", "lowest")})


async def _control_resize(scenario: Scenario) -> Control:
    """cr's resize to 200m (400m of nc's 300m with cv), deferred by its kubelet: the scheduler
    must preempt cv for it (checked by :func:`control_met`, after the negative was watched)."""
    await _deferred(scenario, "cr", "200m")
    return Control(deleted(scenario, "cv"),
                   f"preempt {scenario.namespace}/cv on node {CONTROL_NODE} for {scenario.namespace}/cr's deferred "
                   "resize (100m to 200m, a victim of lower priority on its own node: KEP-5836 with both its "
                   "feature gates on)", ACT_WITHIN)


@pytest.mark.kep(KEP, "Proposal: Trigger Preemption, Isolate Node; upstream TestDeferredResizePodPreemption (one victim)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.one-victim", reading=READINGS["5836-status"],
                       control=_own("v preempted for r's resize", "no write on r"))
async def test_a_deferred_resize_preempts_the_lower_priority_pod_on_its_node(scenario: Scenario) -> None:
    """r (mid) grows from 100m to 300m on a 300m node that v (low, 200m) shares: the kubelet defers
    it; the scheduler preempts v (its condition, its deletion), writes nothing on r, and once v is
    gone the kubelet actuates the resize."""
    await _one_victim_node(scenario)
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)
    _no_writes_on(scenario, "r")


@pytest.mark.kep(KEP, "upstream TestDeferredResizePodPreemption (two victims)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.two-victims", reading=READINGS["5836-status"],
                       control=_own("v1 and v2 preempted for r's resize", "no write on r"))
async def test_a_deferred_resize_preempts_as_many_pods_as_it_needs(scenario: Scenario) -> None:
    """Two low-priority pods of 100m each share the node with r (100m to 300m): both go."""
    levels = await classes(scenario)
    await _node(scenario, "n1", "300m", levels, {"r": ("100m", "mid"), "v1": ("100m", "low"), "v2": ("100m", "low")})
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v1", "v2"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)
    _no_writes_on(scenario, "r")


@pytest.mark.kep(KEP, "upstream TestDeferredResizePodPreemption (preemptionPolicy Never)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.policy-never", reading=READINGS["5836-eligibility"], control=FEATURE)
async def test_a_resizing_pod_with_preemption_policy_never_preempts_nothing(scenario: Scenario) -> None:
    """r (mid, 100m) grows to 300m on a 300m node that v (low, 200m) shares, as in
    ``kep5836.one-victim``, but r's PriorityClass has ``preemptionPolicy: Never``: the kubelet defers
    the resize, and in the 15 s that follow the scheduler deletes nothing (v is neither marked for
    deletion nor removed), r's resize stays ``PodResizePending=True`` reason ``Deferred``, and the
    scheduler changes nothing on r. A resizing pod that may not preempt as a pending pod does not
    preempt for its resize either (reading R6; upstream: "no preemption when preemptor policy is
    PreemptNever").

    Feature control (:data:`FEATURE`): on node nc (300m), cr (high, a class that may preempt; 100m)
    grows to 200m beside cv (priority 1, 200m), deferred right after r: cv must be preempted, else
    not judged."""
    levels = await classes(scenario, never="mid")
    await _node(scenario, "n1", "300m", levels, {"r": ("100m", "mid"), "v": ("200m", "low")})
    await _control_node(scenario, levels)
    await _deferred(scenario, "r", "300m")
    control = await _control_resize(scenario)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    assert _pending_reason(scenario, "r") == "Deferred"
    _no_writes_on(scenario, "r")
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "upstream TestDeferredResizePodPreemption (resize already fits)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.already-fits", reading=READINGS["5836-status"], control=FEATURE)
async def test_a_deferred_resize_that_now_fits_preempts_nothing(scenario: Scenario) -> None:
    """n1 (400m) runs r (mid, 100m) and w (high, 200m); r grows to 300m and is deferred (300m + 200m
    of 400m), with no victim (w has the higher priority). Then w goes and v (low, 100m) comes: r's
    300m now fits beside v, but the node's kubelet is slow (10 s) and the condition still says
    Deferred. The scheduler must not preempt v: the resize fits; only its kubelet has not caught
    up. (kube-scheduler v1.37.2 finds that it fits; the Permit that would park it, 'pod resize fits,
    waiting for Kubelet actuation', is never reached, since assuming a pod already in its cache
    fails, so it retries the pod on error backoff, 1 s doubling to 10 s, until the kubelet actuates
    the resize: nothing is written either way.)

    Feature control (:data:`FEATURE`): on node nc (300m), cr (high, 100m) grows to 200m beside cv
    (priority 1, 200m), deferred once v runs: there the resize does not fit, and cv must be
    preempted, else not judged."""
    levels = await classes(scenario)
    await _node(scenario, "n1", "400m", levels, {"r": ("100m", "mid"), "w": ("200m", "high")},
                Kubelet(starts_pods=True, resize_delay=10))
    await _control_node(scenario, levels)
    await scenario.resize("r", "300m")
    await scenario.eventually(_resize_pending(scenario, "r", "Deferred"), within=10 + ACT_WITHIN)
    await scenario._request("DELETE", scenario._path("pods", "w"), body={"gracePeriodSeconds": 0})
    await victim(scenario, "v", "n1", "100m", levels["low"])
    control = await _control_resize(scenario)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    assert _allocated_cpu(scenario, "r") == "300m", "expected the kubelet to actuate r's resize once it fit"
    _no_writes_on(scenario, "r")
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "API: NodeSpec.podPreemptionPolicy.disableResizePreemption; upstream TestDeferredResizePodPreemption")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.disable-resize-preemption", reading=READINGS["5836-off"], control=FEATURE)
async def test_a_node_that_disables_resize_preemption_gets_none(scenario: Scenario) -> None:
    """The node of ``kep5836.one-victim`` (300m: r mid 100m growing to 300m, v low 200m) with
    ``spec.podPreemptionPolicy.disableResizePreemption: [example.com/stateful-owner]``: the kubelet
    defers r's resize, and in the 15 s that follow the scheduler deletes nothing (v stays) and
    changes nothing on r. "If this list is non-empty, resize-induced preemption is disabled on this
    node" (the field's API documentation; reading R8). An API server that does not store the field
    (a release before v1.37, or v1.37 with its gate off) cannot judge this: the criterion is then
    skipped, saying why.

    Feature control (:data:`FEATURE`): on node nc (300m), which does not disable resize preemption,
    cr (high, 100m) grows to 200m beside cv (priority 1, 200m), deferred right after r: cv must be
    preempted, else not judged."""
    levels = await classes(scenario)
    await _node(scenario, "n1", "300m", levels, {"r": ("100m", "mid"), "v": ("200m", "low")},
                spec={"podPreemptionPolicy": {"disableResizePreemption": ["example.com/stateful-owner"]}})
    await _control_node(scenario, levels)
    await _deferred(scenario, "r", "300m")
    control = await _control_resize(scenario)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    _no_writes_on(scenario, "r")
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Proposal: Isolate Node ('narrow the victim search to the pod's node')")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.own-node-only", reading=READINGS["5836-own-node"], control=FEATURE)
async def test_victims_are_never_taken_on_another_node(scenario: Scenario) -> None:
    """"Isolate Node: within the preemption plugin, narrow the victim search to the pod's node."
    n1 (300m) runs r (mid, 100m) and w (high, 200m); r grows to 300m and is deferred: nothing on
    n1 may go. n2 (300m) runs v (low, 200m): it is not on r's node, so in the 15 s that follow
    neither v nor w is deleted, and the scheduler changes nothing on r.

    Feature control (:data:`FEATURE`): on node nc (300m), cr (high, 100m) grows to 200m beside cv
    (priority 1, 200m), deferred right after r: cv, on cr's own node, must be preempted, else not
    judged. (nc cannot help r even from another node: with cr it never has r's 300m.)"""
    levels = await classes(scenario)
    await _node(scenario, "n1", "300m", levels, {"r": ("100m", "mid"), "w": ("200m", "high")})
    await _node(scenario, "n2", "300m", levels, {"v": ("200m", "low")})
    await _control_node(scenario, levels)
    await _deferred(scenario, "r", "300m")
    control = await _control_resize(scenario)
    await scenario.never(any_deleted(scenario, "v", "w"), within=WATCH)
    _no_writes_on(scenario, "r")
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Open question: an Infeasible resize")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.infeasible-never", reading=READINGS["5836-infeasible"], control=FEATURE)
async def test_an_infeasible_resize_preempts_nothing(scenario: Scenario) -> None:
    """The node of ``kep5836.one-victim`` (300m: r mid 100m, v low 200m), whose kubelet answers r's
    resize (100m to 300m, which would fit once v went) ``Infeasible``: "the proposed resize is not
    feasible and is rejected; it may not be re-evaluated" (KEP-1287's reason), so in the 15 s that
    follow the scheduler deletes nothing (v stays) and changes nothing on r (reading R7). (A resize
    beyond the node's allocatable never gets that far: the API server's PodResizeValidator refuses
    it with 403.)

    Feature control (:data:`FEATURE`): on node nc (300m), whose kubelet defers what does not fit, cr
    (high, 100m) grows to 200m beside cv (priority 1, 200m), once r's resize is Infeasible: cv must
    be preempted, else not judged."""
    levels = await _one_victim_node(scenario, kubelet=Kubelet(starts_pods=True, resizes="refuse"))
    await _control_node(scenario, levels)
    await scenario.resize("r", "300m")
    await scenario.eventually(_resize_pending(scenario, "r", "Infeasible"), within=ACT_WITHIN)
    control = await _control_resize(scenario)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    _no_writes_on(scenario, "r")
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Feature gate InPlacePodVerticalScalingSchedulerPreemption (alpha, default off)")
@pytest.mark.feature_gates(InPlacePodVerticalScalingSchedulerPreemption=False)
@pytest.mark.criterion("kep5836.gate-off", reading=READINGS["5836-off"], control=LIVENESS)
async def test_with_the_gate_off_a_deferred_resize_preempts_nothing(scenario: Scenario) -> None:
    """With ``InPlacePodVerticalScalingSchedulerPreemption`` off (alpha, "default off"), today's
    behaviour: on the node of ``kep5836.one-victim`` (300m: r mid 100m growing to 300m, v low
    200m) the kubelet defers r's resize, and in the 15 s that follow the scheduler deletes nothing
    (v stays) and changes nothing on r (reading R8).

    Liveness control (with the gate off no resize may preempt, so the feature cannot show): alive,
    an ordinary pod with no request, selected onto node nc (300m, empty), made right after r's
    resize is deferred: it must be bound, else not judged."""
    levels = await _one_victim_node(scenario)
    await _node(scenario, CONTROL_NODE, "300m", levels, {})
    await _deferred(scenario, "r", "300m")
    control = await liveness(scenario, node_selector={"kubernetes.io/hostname": CONTROL_NODE}, within=ACT_WITHIN)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    _no_writes_on(scenario, "r")
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Proposal: Calculate Victims; a victim's graceful termination")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.slow-victim-one-preemption", reading=READINGS["5836-retry"],
                       control=_own("v1 preempted, r's resize actuated", "v2 kept"))
async def test_a_slow_victim_is_waited_for_not_joined_by_another(scenario: Scenario) -> None:
    """n1 (400m) runs r (mid, 100m), v1 (low, 200m) and v2 (low, 100m); r grows to 300m: removing
    v1 alone makes room (v2 is reprieved). v1's kubelet takes 10 s beyond its grace period; in that
    time the resize is deferred still and the node's pods change (v1 terminating), yet v2 is never
    taken: the room is coming. The resize is actuated once v1 is gone."""
    levels = await classes(scenario)
    await _node(scenario, "n1", "400m", levels, {"r": ("100m", "mid"), "v1": ("200m", "low"), "v2": ("100m", "low")},
                Kubelet(starts_pods=True, termination_delay=10))
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v1"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + 10 + ACT_WITHIN)
    assert "v2" not in deleted_by_scheduler(scenario, "v2"), (
        f"expected v2 kept (removing v1 was enough); the scheduler's writes of v2:\n{format_writes(scenario.writes('v2'))}")


@pytest.mark.kep(KEP, "Resource accounting: max(spec, allocated, actual); open question: the freed room")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.room-kept-from-lower-priority", reading=READINGS["5836-nomination"],
                       control=_own("v preempted for r's resize", "q never bound, beside the liveness control "
                                    "alive: an ordinary pod bound to a node of its own (nc, 100m, too small for q)"))
async def test_the_freed_room_is_not_given_to_a_lower_priority_pending_pod(scenario: Scenario) -> None:
    """The scheduler "already counts a pod as max(spec, allocated, actual)", so a deferred upsize
    holds its new size on its node. On the node of ``kep5836.one-victim`` (300m: r mid 100m growing
    to 300m, v low 200m), once v is preempted and while it terminates, q (low, 200m) is created
    pending: the room v leaves is the resize's (300m of 300m), so in the 15 s that follow q is
    never bound, and r's resize is actuated.

    Controls: the preemption of v, which the criterion requires (so the scheduler acts on the
    resize); and, since q is a pending pod, liveness: alive, an ordinary pod with no request made
    right after q and selected onto node nc (100m, where q's 200m never fits), must be bound, else
    not judged."""
    levels = await _one_victim_node(scenario)
    await _node(scenario, CONTROL_NODE, "100m", levels, {})
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await preemptor(scenario, "q", "200m", levels["low"])
    control = await liveness(scenario, node_selector={"kubernetes.io/hostname": CONTROL_NODE}, within=ACT_WITHIN)
    await scenario.never(scenario.pod_bound("q"), within=WATCH)
    assert _allocated_cpu(scenario, "r") == "300m", "expected r's resize actuated once v was gone"
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Risks: throughput with many deferred pods ('reconsider only on node changes')")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.unrelated-events-quiet", reading=READINGS["5836-retry"], control=FEATURE)
async def test_many_deferred_resizes_and_unrelated_events_cost_no_writes(scenario: Scenario) -> None:
    """"Reconsider only on node changes" (the KEP's risk of many deferred pods): five nodes (300m)
    each hold a deferred resize no preemption can help (ri, mid, 100m to 300m, beside wi, high,
    200m); a burst of twenty pods (100m each) then comes and goes on a sixth node. In the 15 s
    that follow the scheduler writes nothing on the ten pods of the five nodes, and deletes
    nothing.

    Feature control (:data:`FEATURE`): on node nc (300m), cr (high, 100m) grows to 200m beside cv
    (priority 1, 200m), deferred after the burst: cv must be preempted (a deletion on another node,
    one more unrelated event for the five), else not judged."""
    levels = await classes(scenario)
    for i in range(5):
        await _node(scenario, f"n{i}", "300m", levels, {f"r{i}": ("100m", "mid"), f"w{i}": ("200m", "high")})
    await _node(scenario, "busy", "64", levels, {})
    await _control_node(scenario, levels)
    for i in range(5):
        await _deferred(scenario, f"r{i}", "300m")
    for i in range(20):
        await scenario.create_pod(f"noise-{i}", "100m", manifest={"spec": {"nodeName": "busy"}})
    for i in range(20):
        await scenario._request("DELETE", scenario._path("pods", f"noise-{i}"), body={"gracePeriodSeconds": 0})
    control = await _control_resize(scenario)
    await scenario.advance(WATCH)
    written = {pod: scenario.writes(pod) for i in range(5) for pod in (f"r{i}", f"w{i}")}
    assert not any(written.values()), "expected no scheduler write on the deferred pods or their neighbours:\n" + "\n".join(
        f"{pod}:\n{format_writes(w)}" for pod, w in written.items() if w)
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Proposal: Calculate Victims; the victim's delete refused by the API server")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.victim-delete-refused", reading=READINGS["5836-retry"],
                       control=_own("v preempted after the refused delete, r's resize actuated", "no write on r"))
async def test_a_refused_victim_delete_is_tried_again(scenario: Scenario) -> None:
    """The API server refuses the first deletion of v (500): the scheduler tries again, v goes, and
    the resize is actuated, all within 30 s. (kube-scheduler v1.37.2: the preemption's failed API
    call activates the preemptor, whose next attempt, at once, chooses v again and deletes it; the
    refusal carries no Retry-After, so its client does not retry the call itself.)"""
    require_faults(scenario)
    await _one_victim_node(scenario)
    refused = await scenario.add_fault(FaultRule(
        Match(verb="delete", resource="pods", namespace=scenario.namespace, name="v"), Respond(500), times=1))
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v"), within=30)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)
    assert refused.fired == 1
    _no_writes_on(scenario, "r")


@pytest.mark.kep(KEP, "Open question: a resize changed again while its preemption is under way")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.changed-again", reading=READINGS["5836-changed-again"],
                       control=_own("v1, then v2, preempted for r's resize", "no write on r"))
async def test_a_resize_changed_again_during_preemption_gets_its_final_size(scenario: Scenario) -> None:
    """n1 (400m, a kubelet 10 s slow to stop pods) runs r (mid, 100m), v1 (low, 200m) and v2 (low,
    100m). r grows to 300m: v1 is preempted (v2 reprieved). While v1 terminates, r grows again, to
    400m: v2 must go too, and r ends holding 400m."""
    levels = await classes(scenario)
    await _node(scenario, "n1", "400m", levels, {"r": ("100m", "mid"), "v1": ("200m", "low"), "v2": ("100m", "low")},
                Kubelet(starts_pods=True, termination_delay=10))
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v1"), within=ACT_WITHIN)
    await scenario.resize("r", "400m")
    await scenario.eventually(deleted(scenario, "v2"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "400m"), within=2 * (GRACE + 10) + ACT_WITHIN)
    _no_writes_on(scenario, "r")


@pytest.mark.kep(KEP, "Open question: a higher-priority pod taking the freed room")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.higher-priority-pod-scheduled", reading=READINGS["5836-nomination"])
async def test_a_higher_priority_pending_pod_is_scheduled_whatever_the_resize(scenario: Scenario) -> None:
    """While r's resize (100m to 300m) waits for its victim v, h (high, 200m) comes pending on the
    one node. The resize holds no room against a pod of higher priority: h is bound to n1 (by
    taking the room, or by preempting the resizing pod itself) within two grace periods."""
    levels = await _one_victim_node(scenario)
    await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await preemptor(scenario, "h", "200m", levels["high"])
    await scenario.eventually(scenario.pod_bound("h"), within=2 * GRACE + 2 * ACT_WITHIN)


# -- what brings a waiting resize back (upstream TestDeferredResizeQueueingHints,
#    TestDeferredResizeNodePreemptionPolicy, TestDeferredResizeQueueingHandlers) -----------------
#
# The upstream tests read the scheduling queue's attempt count; a harness sees only effects. So
# each of these starts where no preemption can help (a higher-priority neighbour holds too much),
# checks that nothing is preempted for ACT_WITHIN, then makes one change after which preempting v
# helps: v preempted within ACT_WITHIN of that change shows the resize was tried again.


async def _waiting(scenario: Scenario, pods: dict[str, tuple[str, str]], cpu: str = "400m", size: str = "300m",
                   spec: Obj | None = None) -> dict[str, str]:
    """n1 (``cpu``) running ``pods``; r grows to ``size`` and is deferred, and no preemption helps:
    nothing is preempted for ACT_WITHIN (time enough for the scheduler to have tried). The
    PriorityClasses by level."""
    levels = await classes(scenario)
    await _node(scenario, "n1", cpu, levels, pods, spec=spec)
    await _deferred(scenario, "r", size)
    await scenario.never(any_deleted(scenario, *(pod for pod in pods if pod != "r")), within=ACT_WITHIN)
    return levels


@pytest.mark.kep(KEP, "Open question: retry; upstream TestDeferredResizeQueueingHints (assigned pod deletion on same "
                      "node wakes queue)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.neighbour-delete-wakes", reading=READINGS["5836-requeue"], control=WAKES)
async def test_a_pod_deleted_on_the_node_brings_a_waiting_resize_back(scenario: Scenario) -> None:
    """Upstream 'assigned pod deletion on same node wakes queue': a pod deleted on the resizing
    pod's node re-queues it. n1 (400m) runs r (mid, 100m), w1 and w2 (high, 100m each) and v (low,
    100m); r grows to 300m and is deferred: 600m of 400m, 500m without v, so nothing is preempted
    for 5 s. Then w1 is deleted at once (grace 0): now 400m without v, so v is preempted within 5 s
    of the deletion (w2 stays), and r holds 300m within 5 s of v's grace period (5 s)."""
    await _waiting(scenario, {"r": ("100m", "mid"), "w1": ("100m", "high"), "w2": ("100m", "high"),
                              "v": ("100m", "low")})
    await _delete_now(scenario, "w1")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)
    assert not deleted_by_scheduler(scenario, "w2"), f"expected w2 kept:\n{format_writes(scenario.writes('w2'))}"


@pytest.mark.kep(KEP, "Resource accounting: max(spec, allocated, actual); upstream TestDeferredResizeQueueingHints "
                      "(assigned pod scale down on same node wakes queue)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.neighbour-scale-down-wakes", reading=READINGS["5836-requeue"], control=WAKES)
async def test_a_pod_scaled_down_on_the_node_brings_a_waiting_resize_back(scenario: Scenario) -> None:
    """Upstream 'assigned pod scale down on same node wakes queue': a pod on the resizing pod's
    node scaled down re-queues it. n1 (400m) runs r (mid, 100m), w (high, 200m) and v (low, 100m);
    r grows to 300m and is deferred: 600m of 400m, 500m without v, so nothing is preempted for 5 s.
    Then w is resized to 100m and its kubelet actuates that (the scheduler counts a pod as max(spec,
    allocated, actual), so the room is there from the actuation): v is preempted within 5 s of it,
    and r holds 300m within 5 s of v's grace period (5 s)."""
    await _waiting(scenario, {"r": ("100m", "mid"), "w": ("200m", "high"), "v": ("100m", "low")})
    await scenario.resize("w", "100m")
    await scenario.eventually(_actuated(scenario, "w", "100m"), within=ACT_WITHIN)
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)


@pytest.mark.kep(KEP, "Open question: a resize changed again; upstream TestDeferredResizeQueueingHints (target pod "
                      "spec scale down wakes queue)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.own-scale-down-wakes", reading=READINGS["5836-requeue"], control=WAKES)
async def test_a_waiting_resize_made_smaller_is_tried_again(scenario: Scenario) -> None:
    """Upstream 'target pod spec scale down wakes queue': the resizing pod's own resize made
    smaller, still deferred, re-queues it. n1 (400m) runs r (mid, 100m), w (high, 100m) and v (low,
    100m); r grows to 400m and is deferred: 600m of 400m, 500m without v, so nothing is preempted
    for 5 s. Then r's resize is changed to 300m (still more than the 100m it holds; its kubelet
    defers it again): 400m without v, so v is preempted within 5 s of the change, and r holds 300m
    within 5 s of v's grace period (5 s)."""
    await _waiting(scenario, {"r": ("100m", "mid"), "w": ("100m", "high"), "v": ("100m", "low")}, size="400m")
    await scenario.resize("r", "300m")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)


@pytest.mark.kep(KEP, "Open question: retry; upstream TestDeferredResizeQueueingHints (assigned node capacity "
                      "increase wakes queue)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.allocatable-up-wakes", reading=READINGS["5836-requeue"], control=WAKES)
async def test_a_larger_allocatable_on_the_node_brings_a_waiting_resize_back(scenario: Scenario) -> None:
    """Upstream 'assigned node capacity increase wakes queue': the node's allocatable raised
    re-queues the resize. n1 (400m) runs r (mid, 100m), w (high, 200m) and v (low, 100m); r grows to
    300m and is deferred: 600m of 400m, 500m without v, so nothing is preempted for 5 s. Then n1's
    kubelet reports 500m (capacity and allocatable, in the node's status): 500m without v, so v is
    preempted within 5 s of the report, and r holds 300m within 5 s of v's grace period (5 s)."""
    await _waiting(scenario, {"r": ("100m", "mid"), "w": ("200m", "high"), "v": ("100m", "low")})
    await scenario.set_allocatable("n1", "500m")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)


@pytest.mark.kep(KEP, "API: NodeSpec.podPreemptionPolicy.disableResizePreemption; upstream "
                      "TestDeferredResizeNodePreemptionPolicy (enabling node preemption policy wakes queue)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.policy-lifted-wakes", reading=READINGS["5836-requeue"], control=WAKES)
async def test_a_node_that_allows_resize_preemption_again_brings_a_waiting_resize_back(scenario: Scenario) -> None:
    """Upstream 'enabling node preemption policy wakes queue': emptying the node's
    disableResizePreemption re-queues a resize that waits there. n1 (300m, disableResizePreemption
    [example.com/stateful-owner]) runs r (mid, 100m) and v (low, 200m); r grows to 300m and is
    deferred; nothing is preempted for 5 s (the policy). Then the policy goes (a merge patch setting
    spec.podPreemptionPolicy to null): v is preempted within 5 s of that, and r holds 300m within
    5 s of v's grace period (5 s)."""
    await _waiting(scenario, {"r": ("100m", "mid"), "v": ("200m", "low")}, cpu="300m",
                   spec={"podPreemptionPolicy": {"disableResizePreemption": ["example.com/stateful-owner"]}})
    await scenario.patch("nodes", "n1", {"spec": {"podPreemptionPolicy": None}}, type="merge")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)


@pytest.mark.kep(KEP, "Proposal: Identify Deferred Status; upstream TestDeferredResizeQueueingHandlers (AddPod "
                      "handler enqueues existing deferred pod on scheduler startup)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.deferred-before-start")
async def test_a_resize_deferred_before_the_scheduler_starts_preempts(
        scenario: Scenario, sh_scheduler: SchedulerAdapter, sh_backend: Backend) -> None:
    """Upstream 'AddPod handler enqueues existing deferred pod on scheduler startup': a pod whose
    resize is already Deferred when the scheduler starts is acted on. n1 (300m) runs r (mid, 100m)
    and v (low, 200m). The scheduler stops; r grows to 300m and its kubelet defers it; the
    scheduler starts again: v is preempted within 5 s of the start (of the scheduler binding its
    readiness probe, for a process), and r holds 300m within 5 s of v's grace period (5 s)."""
    await _one_victim_node(scenario)
    async with _scheduler_stopped(sh_scheduler, sh_backend):
        await _deferred(scenario, "r", "300m")
    await scenario.eventually(deleted(scenario, "v"), within=ACT_WITHIN)
    await scenario.eventually(_actuated(scenario, "r", "300m"), within=GRACE + ACT_WITHIN)


# -- a resize that stops waiting leaves no trace (upstream TestDeferredResizeQueueingHandlers) ---


async def _room_appears(scenario: Scenario, levels: dict[str, str]) -> None:
    """w (high, 200m) deleted at once, then v (low, 300m) started on n1."""
    await _delete_now(scenario, "w")
    await _running(scenario, "v", "n1", "300m", levels["low"])


@pytest.mark.kep(KEP, "Proposal: Identify Deferred Status; upstream TestDeferredResizeQueueingHandlers (DeletePod "
                      "handler removes pod from both cache and scheduling queue when deleted)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.deleted-while-waiting-quiet", control=FEATURE)
async def test_a_resizing_pod_deleted_while_it_waits_is_never_preempted_for(scenario: Scenario) -> None:
    """Upstream 'DeletePod handler removes pod from both cache and scheduling queue when deleted':
    a resizing pod deleted while its resize waits is forgotten. n1 (400m) runs r (mid, 100m) and w
    (high, 200m); r grows to 300m and is deferred, with no victim (w has the higher priority), and
    waits 5 s. r is deleted at once (grace 0); then w is deleted and v (low, 300m) starts on n1,
    alone there. v is not preempted in 15 s (a scheduler still holding r's resize, 300m, would
    preempt it).

    Feature control (:data:`FEATURE`): on node nc (300m), cr (high, 100m) grows to 200m beside cv
    (priority 1, 200m), deferred once r has waited, before r is deleted (so that cr has its room
    before v comes): cv must be preempted, else not judged."""
    levels = await _waiting(scenario, {"r": ("100m", "mid"), "w": ("200m", "high")})
    await _control_node(scenario, levels)
    control = await _control_resize(scenario)
    await _delete_now(scenario, "r")
    await _room_appears(scenario, levels)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    await control_met(scenario, control)


@pytest.mark.kep(KEP, "Open question: an Infeasible resize; upstream TestDeferredResizeQueueingHandlers (UpdatePod "
                      "handler removes pod from queue when deferred condition is cleared)")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5836.infeasible-while-waiting-quiet", reading=READINGS["5836-infeasible"],
                       control=FEATURE)
async def test_a_resize_turned_infeasible_while_it_waits_is_never_preempted_for(scenario: Scenario) -> None:
    """Upstream 'UpdatePod handler removes pod from queue when deferred condition is cleared', in
    the form an API can show: a resize that stops being Deferred while it waits is no longer
    preempted for. n1 (400m) runs r (mid, 100m) and w (high, 200m); r grows to 300m and is
    deferred, with no victim, and waits 5 s. n1's kubelet restarts refusing resizes: r's resize
    turns Infeasible (the scheduler counts r at the 100m it holds). Then w is deleted and v (low,
    300m) starts on n1 (100m + 300m of 400m). v is not preempted in 15 s (a scheduler still holding
    r's Deferred resize, 300m, would preempt it).

    Feature control (:data:`FEATURE`): on node nc (300m, its kubelet unchanged), cr (high, 100m)
    grows to 200m beside cv (priority 1, 200m), deferred once r has waited, before n1's kubelet
    restarts (so that cr has its room before v comes): cv must be preempted, else not judged."""
    levels = await _waiting(scenario, {"r": ("100m", "mid"), "w": ("200m", "high")})
    await _control_node(scenario, levels)
    control = await _control_resize(scenario)
    await scenario.reconfigure_kubelet("n1", Kubelet(starts_pods=True, resizes="refuse"))
    await scenario.eventually(_resize_pending(scenario, "r", "Infeasible"), within=ACT_WITHIN)
    await _room_appears(scenario, levels)
    await scenario.never(any_deleted(scenario, "v"), within=WATCH)
    await control_met(scenario, control)
