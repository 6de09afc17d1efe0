"""What several suites need and the scenario DSL does not offer (yet): events, condition
histories, the scheduler's condition writes, DRA devices, fault gating and real-time spans.

Everything here reads and writes only through the API and the journal, like the DSL, so a
criterion built on it stays honest against any scheduler. What a scheduler wrote is read as an
*effect* (:mod:`harness._scenario.writes`): which condition became what, and when, whatever verb or patch
type carried it. The API is small on purpose; each piece is a candidate for
:mod:`harness._scenario.scenario`:

* :func:`events` reads the events a scheduler recorded about a pod, from either API
  (``events.k8s.io/v1`` with ``note``, core ``v1`` with ``message``), as :class:`SeenEvent`: one
  per occurrence, read from the effect of every write to an Event (a create, or a PATCH or PUT
  that aggregates a repeat into a series by raising ``series.count`` or ``count``);
* :func:`condition_writes` lists the scheduler's writes of a pod that changed its ``PodScheduled``
  condition or changed nothing at all (a redundant write is an API call the KEP counts), stored
  or refused by a fault, leaving out bindings and writes that changed only other fields (such as
  the ``status.nominatedNodeName`` kube-scheduler v1.35 sets before a PreBind that does work);
  :func:`not_ready_writes` and :func:`clears` pick the ones that set or removed the
  ``NotReadyForScheduling`` condition;
* :class:`ConditionHistory` (:func:`condition_history`) records every distinct state of one pod
  condition the scenario's informer saw, so "left untouched until the binding" is one equality;
* :data:`SETS_NOT_READY` and :data:`CLEARS_NOT_READY` are effect predicates for fault rules that
  refuse exactly those writes, whatever their shape;
* :func:`add_devices` publishes a DeviceClass and a ResourceSlice so a claim made with
  :func:`create_claim` can be allocated on a node;
* :func:`create_claim` makes a ResourceClaim for one device with ``allocationMode`` and ``count``
  written out (the real API server defaults them; kube-scheduler's allocator needs them);
* :func:`require_faults` skips a criterion on a backend that cannot inject faults, or when the
  scheduler under test does not talk through the backend (the cluster's own kube-scheduler): a
  declared reason that does not depend on what the scheduler does;
* :func:`fit_error` is the start of kube-scheduler's fit-error message for the scenario's nodes
  plus the nodes a shared cluster had before (cordoned by the kind backend, so they count as
  ``node(s) were unschedulable``);
* :func:`watch_span` is how long to watch for something that must not happen: the full span under
  virtual time (free); on real time at most the run's ``--real-time-wait``, the cut printed in the
  report, or not judged where the criterion needs the whole span (``Scenario.span``);
* :func:`seen_by_scheduler` and :func:`dra_cluster` are set-up: they wait until the scheduler has
  seen what a scenario made, and a wait that times out ends the criterion as **not judged**
  (:class:`harness.NotJudged`, :func:`not_judged_set_up`) saying what the scheduler had to do
  (watch pods, list nodes, read ResourceSlices) and what was seen: neither a verdict on the
  behaviour the criterion judges nor a skip, so it fails the run. :func:`dra_cluster` waits for
  the ResourceSlice only when the scheduler reads ResourceSlices at all (:func:`reads_slices`);
* :func:`liveness` and :func:`control_met` are the positive control a negative criterion is
  judged beside ("never bound while gated" holds for a scheduler that does nothing at all): an
  ordinary pod the scheduler must bind in the same scenario, and the check that it did, before
  "nothing happened" counts; otherwise the criterion is not judged. A criterion names its control
  in its ``criterion`` marker (``control=``), and the catalog shows it.

Rejection messages are never predicted: the KEP defines the reason ``NotReadyForScheduling`` and
that the message is the last-captured rejection message, not its words (those belong to a plugin).
A criterion compares the condition's message with what the scheduler itself wrote elsewhere (its
event) or earlier (a state the scenario made it report).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NoReturn

import pytest

from fake_apiserver import Delay, EffectPredicate, FaultRule, JournalEntry, Match, binds, removes_condition, sets_condition, sets_field
from harness import (
    DEFAULT_DEVICE_CLASS,
    ApiError,
    Expectation,
    ExpectationFailed,
    NotJudged,
    Scenario,
    Write,
    condition_of,
    format_condition,
    format_writes,
)

__all__ = [
    "CLAIMS",
    "CLEARS_NOT_READY",
    "DELAY",
    "FLUSH",
    "GATED_MESSAGE",
    "LIVENESS",
    "NOT_READY_FOR_SCHEDULING",
    "SETS_NOT_READY",
    "SET_UP",
    "SLICES",
    "ConditionHistory",
    "Control",
    "SeenEvent",
    "Write",
    "add_devices",
    "allocation_hold",
    "clears",
    "condition_history",
    "condition_writes",
    "control_met",
    "create_claim",
    "dra_cluster",
    "event_lines",
    "events",
    "expect_gone_for_good",
    "expect_no_condition_writes",
    "expect_not_ready_after",
    "expect_one_not_ready_event",
    "fit_error",
    "format_writes",
    "judged_only_if_held",
    "liveness",
    "not_judged_set_up",
    "not_ready_writes",
    "reads_slices",
    "require_faults",
    "seen_by_scheduler",
    "skip_if_other_nodes_schedulable",
    "watch_span",
]

Obj = dict[str, Any]

#: The API server's SchedulingGated message (docs/api-facts.md §gated-create), which KEP-5501 makes the
#: SchedulingGates plugin's message too.
GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
#: KEP-5501's new PodScheduled reason (Design Details §2).
NOT_READY_FOR_SCHEDULING = "NotReadyForScheduling"
#: "The delay value will be hardcoded to a default of 5 seconds" (KEP-5501 Proposal §3).
DELAY = 5.0
CLAIMS = "resourceclaims.resource.k8s.io"
SLICES = "resourceslices.resource.k8s.io"
#: How the message of a criterion ended by a set-up step that timed out begins.
SET_UP = "set-up: "
#: Why a 5-minute "never" watch needs every second of it (``watch_span(..., whole=FLUSH)``).
FLUSH = ("kube-scheduler moves a pod that stayed unschedulable for 5 minutes back to be tried again "
         "(podMaxInUnschedulablePodsDuration), so a repeated write would come only at the end of the span")
#: The ``control=`` of a criterion judged beside :func:`liveness`.
LIVENESS = ("liveness: an ordinary pod the scheduler must bind in the same scenario, before the negative counts "
            "(suites._support.liveness)")


@dataclass(frozen=True)
class SeenEvent:
    """One occurrence of an event a scheduler recorded: when the write carrying it reached the
    API, through which API, and what it said; ``via`` is the verb of that write and ``count``
    the number the occurrence has in its Event's series (1 for an Event's first)."""

    time: float
    api: str  # "events.k8s.io/v1" or "v1"
    type: str
    reason: str
    message: str
    pod: str
    via: str = "create"
    count: int = 1

    def __str__(self) -> str:
        said = f"t={self.time:.3f} {self.api} {self.type} {self.reason} {json.dumps(self.message)}"
        return said if (self.via, self.count) == ("create", 1) else f"{said} ({self.via}, occurrence {self.count})"


#: What an Event says, per API: a write that changes one of these without raising the count
#: rewrote the record for a new occurrence.
_EVENT_SAYS = {"v1": ("type", "reason", "message", "involvedObject"),
               "events.k8s.io/v1": ("type", "reason", "note", "regarding")}


def _occurrences(event: Obj | None) -> int:
    """How many times an Event says it happened: its ``series.count`` (``events.k8s.io/v1``, or
    core ``v1``), or the ``count`` core ``v1`` keeps (``deprecatedCount`` in
    ``events.k8s.io/v1``); once for an Event without either, none for no Event."""
    if event is None:
        return 0
    series = event.get("series")
    counts = (series.get("count") if isinstance(series, dict) else None, event.get("count"), event.get("deprecatedCount"))
    return max([1, *(c for c in counts if isinstance(c, int) and not isinstance(c, bool))])


def _event_effect(entry: JournalEntry) -> tuple[Obj | None, Obj | None] | None:
    """The Event before and after a stored write, or ``None`` when it was not stored or its
    effect is unknown; a create journaled without its effect is taken as its body, as created."""
    if not 200 <= entry.code < 300:
        return None
    if entry.applied:
        before = entry.before if isinstance(entry.before, dict) else None
        after = entry.after if isinstance(entry.after, dict) else None
        return before, after
    if entry.verb == "create" and isinstance(entry.body, dict):
        return None, entry.body
    return None


def events(scenario: Scenario, pod: str, reason: str | None = None) -> list[SeenEvent]:
    """Every occurrence of an event the scheduler recorded (and the server stored) regarding
    ``pod`` since the scenario started, oldest first; only those with ``reason`` when given.

    Judged by effect, whatever request carried it and in either API: each stored write to an
    Event (create, patch of any type, update) adds as many occurrences as it raised the Event's
    count (:func:`_occurrences`: a create adds one, a series' PATCH from ``count: n`` to
    ``n + 1`` one more), each with what the Event says after the write and the write's time. A
    write that changes what the Event says (type, reason, message, regarding object) without
    raising the count is one occurrence too; a write that changes neither (a refresh of a series,
    a label) is none. So a scheduler that aggregates a repeat into a series, as client-go's
    broadcasters do (``events.k8s.io/v1``: ``series.count`` and ``lastObservedTime`` by strategic
    merge PATCH; core ``v1``: ``count`` and ``lastTimestamp``), is judged as one that creates an
    Event per occurrence. A series client-go writes only on its periodic refresh counts when the
    write comes; an Event re-created with its series after it expired counts its series again.
    """
    out = []
    for entry in scenario.requests(resource="events", where=lambda e: e.verb in ("create", "update", "patch")):
        effect = _event_effect(entry)
        if effect is None:
            continue
        before, after = effect
        if after is None:
            continue
        api = "events.k8s.io/v1" if entry.resource.endswith(".events.k8s.io") else "v1"
        ref = after.get("regarding") or after.get("involvedObject") or {}
        if ref.get("kind") != "Pod" or ref.get("name") != pod:
            continue
        if reason is not None and after.get("reason") != reason:
            continue
        total, grew = _occurrences(after), _occurrences(after) - _occurrences(before)
        if grew <= 0 and before is not None and any(before.get(k) != after.get(k) for k in _EVENT_SAYS[api]):
            grew = 1
        message = after.get("note") if api != "v1" else after.get("message")
        for count in range(total - grew + 1, total + 1):
            out.append(SeenEvent(entry.time, api, str(after.get("type", "")), str(after.get("reason", "")),
                                 str(message or ""), pod, entry.verb, count))
    return out


def condition_writes(scenario: Scenario, pod: str, type_: str = "PodScheduled") -> list[Write]:
    """The scheduler's writes of ``pod`` since the scenario started that changed condition
    ``type_`` or changed nothing (stored, or refused by a fault with a known intent), oldest first;
    bindings left out (module docstring)."""
    return [w for w in scenario.writes(pod) if not w.binding and w.known and (w.changes(type_) or w.redundant)]


def _not_ready(condition: Obj | None) -> bool:
    return condition is not None and condition.get("reason") == NOT_READY_FOR_SCHEDULING


def not_ready_writes(scenario: Scenario, pod: str) -> list[Write]:
    """The scheduler's writes of ``pod`` that set (or would have set) ``PodScheduled`` with reason
    NotReadyForScheduling, or changed nothing while it showed that reason (redundant)."""
    return [w for w in condition_writes(scenario, pod) if _not_ready(w.condition_after())]


def clears(scenario: Scenario, pod: str) -> list[Write]:
    """The scheduler's writes of ``pod``, other than a binding, that removed (or would have
    removed) a NotReadyForScheduling ``PodScheduled`` condition."""
    return [w for w in condition_writes(scenario, pod)
            if _not_ready(w.condition_before()) and not _not_ready(w.condition_after())]


#: A write that sets ``PodScheduled`` with reason NotReadyForScheduling (any verb, any patch type).
SETS_NOT_READY: EffectPredicate = sets_condition("PodScheduled", reason="NotReadyForScheduling")
#: A write other than a binding that removes a NotReadyForScheduling ``PodScheduled`` condition.
CLEARS_NOT_READY: EffectPredicate = removes_condition("PodScheduled", reason="NotReadyForScheduling") & ~binds()


@dataclass
class ConditionHistory:
    """Every distinct state of one condition of one pod, as the scenario's informer saw it.

    ``states`` holds ``(time, condition or None)`` pairs; a state is recorded when status, reason,
    message or lastTransitionTime changes (None: the pod has no such condition).
    """

    pod: str
    type: str
    states: list[tuple[float, Obj | None]] = field(default_factory=list)

    def reasons(self) -> list[str | None]:
        """``reason`` of each state, ``"True"``/``"False"`` for one without a reason, None when absent."""
        return [None if c is None else (c.get("reason") or c.get("status")) for _, c in self.states]

    def __str__(self) -> str:
        rows = [f"t={t:.3f} {format_condition(c, self.type)}" for t, c in self.states]
        return f"{self.type} of pod {self.pod}, every state seen: " + ("; ".join(rows) or "(none)")

    def _see(self, scenario: Scenario) -> None:
        condition = condition_of(scenario.pod(self.pod), self.type)
        if not self.states or _key(self.states[-1][1]) != _key(condition):
            self.states.append((scenario.now, condition))


def _key(condition: Obj | None) -> tuple[Any, ...] | None:
    if condition is None:
        return None
    return tuple(condition.get(k) for k in ("status", "reason", "message", "lastTransitionTime"))


def condition_history(scenario: Scenario, pod: str, type: str = "PodScheduled") -> ConditionHistory:
    """Start recording ``type`` of ``pod`` (from its current state) at every watch event."""
    history = ConditionHistory(pod, type)
    history._see(scenario)
    scenario.pods.listeners.append(lambda event, obj: history._see(scenario))
    return history


async def add_devices(scenario: Scenario, node: str, count: int = 1,
                      device_class: str = DEFAULT_DEVICE_CLASS) -> Obj:
    """Publish ``count`` devices of driver ``device_class`` on ``node`` (a ResourceSlice named
    ``<node>-<class>``), and the DeviceClass ``device_class`` selecting that driver if it does not
    exist yet, so that claims from ``create_claim`` can be allocated there (docs/api-facts.md §dra-preenqueue)."""
    try:
        await scenario.create("deviceclasses", {
            "metadata": {"name": device_class},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{device_class}"'}}]}})
    except ApiError as e:
        if e.code != 409:
            raise
    return await scenario.create("resourceslices", {
        "metadata": {"name": f"{node}-{device_class}"},
        "spec": {"driver": device_class, "nodeName": node,
                 "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": [{"name": f"dev-{i}"} for i in range(count)]}})


async def create_claim(scenario: Scenario, name: str, device_class: str = DEFAULT_DEVICE_CLASS) -> Obj:
    """A ResourceClaim (``resource.k8s.io/v1``) asking for exactly one device of ``device_class``,
    defaults written out (module docstring)."""
    return await scenario.create("resourceclaims", {
        "metadata": {"name": name},
        "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {
            "deviceClassName": device_class, "allocationMode": "ExactCount", "count": 1}}]}}})


def require_faults(scenario: Scenario) -> None:
    """Skip the calling criterion when the backend cannot inject faults into the scheduler's
    requests (it needs them)."""
    if scenario.backend.faults is None:
        pytest.skip(f"needs fault injection; the {scenario.backend.name} backend has none (--backend fake has it)")
    if not scenario.sees_scheduler:
        pytest.skip("needs fault injection into the scheduler's requests; the cluster's own kube-scheduler does "
                    "not talk through the fault proxy (run one out of the cluster: --scheduler reference or cmd:...)")


def skip_if_other_nodes_schedulable(scenario: Scenario, why: str) -> None:
    """Skip the calling criterion when a node of a shared cluster that the scenario did not make
    is schedulable (``why``: what that node would spoil)."""
    schedulable = [n["metadata"]["name"] for n in scenario.other_nodes if not n.get("spec", {}).get("unschedulable")]
    if schedulable:
        pytest.skip(f"the cluster has schedulable nodes this scenario did not make ({', '.join(schedulable)}); "
                    f"{why} (cordon them, or use --backend kind)")


def allocation_hold(claim: str, seconds: float) -> FaultRule:
    """A fault rule holding, ``seconds`` long, the write that records ``claim``'s allocation
    (whatever request carries it): the binding cycle of a pod using it waits there
    (READINGS["prebind-order"])."""
    return FaultRule(Match(resource=CLAIMS, name=claim, effect=sets_field("status", "allocation")), Delay(seconds),
                     name="slow-allocation-write", times=1)


async def judged_only_if_held(scenario: Scenario, hold: FaultRule, pod: str, why: str) -> None:
    """End the calling criterion as not judged, saying so, when ``hold`` (an
    :func:`allocation_hold`) never held anything or ``pod`` is already bound: the scheduler binds
    without recording the claim's allocation first, outside READINGS["prebind-order"] (``why``:
    what that hides). What the criterion judges happens while the binding cycle waits, and this
    scheduler has no such wait to judge it in; the criterion that judges allocation itself
    (``dra.allocated-before-binding``) fails it."""
    if hold.fired == 0 or (scenario.pod(pod) or {}).get("spec", {}).get("nodeName"):
        await scenario.remove_fault(hold)
        raise NotJudged(f"expected the scheduler to record the allocation of {scenario.namespace}/{pod}'s claim "
                        "before binding it, through a write the scenario holds (READINGS['prebind-order']); "
                        f"{'it bound the pod first' if hold.fired else 'no such write came'}: {why}")


#: NodeUnschedulable's reason (``ErrReasonUnschedulable``).
UNSCHEDULABLE_NODES = "node(s) were unschedulable"


def fit_error(scenario: Scenario, nodes: int, reasons: dict[str, int]) -> str:
    """``0/<n> nodes are available: <reasons>.`` for ``nodes`` made by the scenario failing with
    ``reasons`` (``{"Insufficient cpu": 1}``), counting the nodes a shared cluster already had:
    cordoned ones add to ``node(s) were unschedulable``. Reasons are sorted as kube-scheduler
    sorts them. Skips the criterion when a node the scenario did not make is schedulable: the
    message (and where the pod goes) would depend on that node."""
    counts = dict(reasons)
    skip_if_other_nodes_schedulable(scenario, "its fit-error message cannot be predicted")
    if scenario.other_nodes:
        counts[UNSCHEDULABLE_NODES] = counts.get(UNSCHEDULABLE_NODES, 0) + len(scenario.other_nodes)
    total = nodes + len(scenario.other_nodes)
    listed = ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))
    return f"0/{total} nodes are available: {listed}."


def watch_span(scenario: Scenario, seconds: float, whole: str | None = None) -> float:
    """``seconds`` under virtual time; on real time (a real scheduler process) at most the run's
    ``--real-time-wait``, so "never within minutes" costs seconds of a real-time run, the cut
    printed beside the verdict; when ``whole`` says why the criterion needs every second (what
    could go wrong comes only at the end of the span), a cut ends it not judged instead
    (``Scenario.span``)."""
    return scenario.span(seconds, whole=whole)


async def dra_cluster(scenario: Scenario, node: str = "n1", devices: int = 4,
                      device_class: str = DEFAULT_DEVICE_CLASS) -> None:
    """Node ``node`` with ``devices`` devices of driver ``device_class``, and the DeviceClass of
    that name selecting them, once the scheduler has seen the node and, if it reads ResourceSlices
    at all (:func:`reads_slices`), the ResourceSlice. A scheduler that never asked for
    ResourceSlices cannot race on one, so it is not waited for: the criteria that only use a claim
    to cause a PreEnqueue rejection judge such a scheduler too, and the one that judges allocation
    (``dra.allocated-before-binding``) fails it, saying why. A wait that times out ends the
    criterion as not judged (:func:`seen_by_scheduler`)."""
    made = await scenario.create_node(node)
    published = await add_devices(scenario, node, count=devices, device_class=device_class)
    await seen_by_scheduler(scenario, ("nodes", made))
    if reads_slices(scenario):
        await seen_by_scheduler(scenario, ("resourceslices", published))


def reads_slices(scenario: Scenario) -> bool:
    """Whether the scheduler has asked for ResourceSlices at all: a LIST or WATCH of
    ``resourceslices.resource.k8s.io`` of its own anywhere in the journal (its informers start
    before the scenario does, so the whole journal is read, not the scenario's window). True when
    the backend keeps no journal or the scheduler's requests do not pass through it: then nothing
    says it does not read them."""
    journal = scenario.backend.journal
    if journal is None or not scenario.sees_scheduler:
        return True
    return any(e.type == "request" and e.resource == SLICES and e.verb in ("list", "watch")
               and e.seq not in scenario.own_requests for e in journal.entries)


def not_judged_set_up(failure: ExpectationFailed, needs: str) -> NoReturn:
    """End the calling criterion as not judged because a set-up step timed out: the message is
    :data:`SET_UP`, what the scheduler had to do (``needs``: "watch nodes") and what the step
    expected and saw (the failure's first two lines; the journal slice stays out, so that equal
    messages count together in the report). A set-up wait is the scenario getting ready, not the
    behaviour a criterion judges, so its timeout is no verdict on that behaviour; but it is the
    scheduler's doing, so it is never a skip either (:class:`harness.NotJudged`)."""
    __tracebackhide__ = True
    said = "; ".join(line for line in str(failure).splitlines()[:2] if not line.startswith("journal,"))
    raise NotJudged(f"{SET_UP}the scheduler must {needs}: {said}") from None


#: What the scheduler must do for its watch to be handed an object of a kind, for set-up messages.
_TO_SEE = {"pods": "watch pods", "nodes": "list and watch nodes", "resourceslices": "list and watch ResourceSlices",
           "resourceclaims": "list and watch ResourceClaims"}


async def seen_by_scheduler(scenario: Scenario, *objects: tuple[str, Obj]) -> None:
    """Set-up: wait until the scheduler's watches were handed each ``(kind, object)``: on real
    time a pod made right after its node could otherwise meet a scheduler that has no node yet
    ("no nodes available"), a race no criterion means to judge. A wait that times out ends the
    criterion as not judged (:func:`not_judged_set_up`), neither failed nor skipped. A scheduler whose
    requests the backend does not see (a cluster's own) cannot be waited for: then this returns
    at once."""
    if not scenario.sees_scheduler:
        return
    for kind, obj in objects:
        try:
            await scenario.seen(kind, obj)
        except ExpectationFailed as timed_out:
            not_judged_set_up(timed_out, _TO_SEE.get(kind, f"list and watch {kind}"))


def event_lines(seen: list[SeenEvent]) -> str:
    """Events formatted for a failure message."""
    return "\n".join(f"  {e}" for e in seen) or "  (none)"


async def expect_not_ready_after(scenario: Scenario, pod: str, seen_at: float) -> Write:
    """KEP-5501's delayed report, timed from the scheduler's view: the pod shows no
    NotReadyForScheduling condition until ``seen_at + DELAY`` (``seen_at``: when the scheduler's
    watch was handed the state it rejects), then ``PodScheduled=False`` with that reason and a
    non-empty message, written by exactly one stored scheduler write landing within the backend's
    slack of that time. Returns the write."""
    __tracebackhide__ = True
    slack, due = scenario.slack, seen_at + DELAY
    not_ready = scenario.pod_condition(pod, "PodScheduled", reason=NOT_READY_FOR_SCHEDULING)
    await scenario.never(not_ready, within=max(0.0, due - slack.early - scenario.now))
    await scenario.eventually(scenario.pod_condition(pod, "PodScheduled", status="False", reason=NOT_READY_FOR_SCHEDULING),
                              within=max(0.0, due + slack.late - scenario.now))
    writes = [w for w in not_ready_writes(scenario, pod) if w.applied]
    assert len(writes) == 1 and due - slack.early <= writes[0].time <= due + slack.late, (
        f"expected exactly one stored write of {scenario.namespace}/{pod} setting PodScheduled=False/"
        f"{NOT_READY_FOR_SCHEDULING} at t={due:.3f} ({DELAY:g} s after the scheduler saw it at t={seen_at:.3f}; "
        f"slack: {slack.describe()}); found {len(writes)}; the scheduler's condition writes:\n"
        f"{format_writes(condition_writes(scenario, pod))}")
    message = (writes[0].condition_after() or {}).get("message")
    assert message, (f"expected the condition to carry the last-captured rejection message (KEP-5501 Proposal), "
                     f"it has none: {writes[0].describe()}")
    return writes[0]


async def expect_gone_for_good(scenario: Scenario, pod: str, within: float = DELAY) -> None:
    """The NotReadyForScheduling condition does not linger (replaced by the binding, or removed
    by a clear within ``within`` s plus the slack) and does not come back."""
    __tracebackhide__ = True
    not_ready = scenario.pod_condition(pod, "PodScheduled", reason=NOT_READY_FOR_SCHEDULING)
    await scenario.eventually(~not_ready, within=within + scenario.slack.late)
    await scenario.never(not_ready, within=watch_span(scenario, 60))


def expect_no_condition_writes(scenario: Scenario, pod: str, why: str) -> None:
    """The scheduler wrote nothing to the pod's ``PodScheduled`` condition (no stored or refused
    write changing it, and no redundant write); bindings and other fields do not count."""
    __tracebackhide__ = True
    writes = condition_writes(scenario, pod)
    assert not writes, (f"expected no scheduler write of {scenario.namespace}/{pod}'s PodScheduled condition ({why}); "
                        f"found {len(writes)}:\n{format_writes(writes)}")


def expect_one_not_ready_event(scenario: Scenario, pod: str, write: Write) -> SeenEvent:
    """Exactly one NotReadyForScheduling event regarding ``pod``, its message the one the
    condition got (both are the scheduler's own words), sent no earlier than ``write``
    (READINGS["events"])."""
    __tracebackhide__ = True
    seen = events(scenario, pod, NOT_READY_FOR_SCHEDULING)
    message = (write.condition_after() or {}).get("message")
    assert [e.message for e in seen] == [message], (
        f"expected exactly one {NOT_READY_FOR_SCHEDULING} event for {scenario.namespace}/{pod} with the condition's "
        f"message {message!r}; found {len(seen)}:\n{event_lines(seen)}")
    assert seen[0].time >= write.time - scenario.slack.early, (
        f"expected the event sent with the delayed write (t={write.time:.3f}), it was sent at t={seen[0].time:.3f}")
    return seen[0]


@dataclass(frozen=True)
class Control:
    """What a negative criterion stands on: something the scheduler must have done in the same
    scenario (``expectation``, met within ``within`` s) before "nothing happened" counts.
    ``needs`` completes "the scheduler must ..." in the not-judged message."""

    expectation: Expectation
    needs: str
    within: float = 30.0


async def liveness(scenario: Scenario, name: str = "alive", *, cpu: str | None = None,
                   node_selector: dict[str, str] | None = None, within: float = 30.0) -> Control:
    """The liveness control: an ordinary pod ``name`` (no gate, no claim, no request unless
    ``cpu``) that any scheduler must bind to a node the scenario made; await
    :func:`control_met` with it before judging a negative. Make it after the nodes, beside what
    the criterion watches, so that it is pending while the negative is watched."""
    await scenario.create_pod(name, cpu, node_selector=node_selector)
    return Control(scenario.pod_bound(name),
                   f"bind {scenario.namespace}/{name}, an ordinary pod that fits a node (watch pods, list nodes, bind)",
                   within)


async def control_met(scenario: Scenario, control: Control) -> None:
    """Judge the calling criterion only if ``control`` happened: wait for it (at most its
    ``within`` s from now; at once when it already holds) and, if it never does, end the
    criterion as not judged, saying what the scheduler had to do and what was seen."""
    __tracebackhide__ = True
    try:
        await scenario.eventually(control.expectation, within=control.within)
    except ExpectationFailed as e:
        said = "; ".join(line for line in str(e).splitlines()[:2] if not line.startswith("journal,"))
        raise NotJudged(f"the control this criterion is judged beside never happened: the scheduler must "
                        f"{control.needs}; {said}") from None
