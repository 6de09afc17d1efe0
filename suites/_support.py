"""What several suites need and the scenario DSL does not offer (yet): events, condition
histories, DRA devices, fault gating and real-time spans.

Everything here reads and writes only through the API and the journal, like the DSL, so a
criterion built on it stays honest against any scheduler. The API is small on purpose; each piece
is a candidate for :mod:`harness._scenario`:

* :func:`events` reads the events a scheduler wrote about a pod, from either API
  (``events.k8s.io/v1`` with ``note``, core ``v1`` with ``message``), as :class:`SeenEvent`;
* :func:`patched_conditions` reads the ``status.conditions`` a status PATCH sent, and
  :func:`condition_patches` lists the scheduler's status PATCHes of a pod that write conditions
  (leaving out one that only sets ``nominatedNodeName``, which kube-scheduler v1.35 sends before
  a PreBind that does work, e.g. DRA allocation);
* :class:`ConditionHistory` (:func:`condition_history`) records every distinct state of one pod
  condition the scenario's informer saw, so "left untouched until the binding" is one equality;
* :func:`add_devices` publishes a DeviceClass and a ResourceSlice so a claim made with
  :func:`create_claim` can be allocated on a node;
* :func:`create_claim` makes a ResourceClaim for one device with ``allocationMode`` and ``count``
  written out: the real API server defaults them (``ExactCount``, 1) and kube-scheduler's
  DynamicResources filter refuses a request without them (``unsupported count mode``), while the
  fake does not default them yet;
* :func:`require_faults` skips a criterion on a backend that cannot inject faults, or when the
  scheduler under test does not talk through the backend (the cluster's own kube-scheduler);
* :func:`missing_claim` is the DynamicResources PreEnqueue message for a claim not (yet) seen,
  in the scenario's namespace (its own one on a shared cluster);
* :func:`fit_error` is the start of kube-scheduler's fit-error message for the scenario's nodes
  plus the nodes a shared cluster had before (cordoned by the kind backend, so they count as
  ``node(s) were unschedulable``);
* :func:`watch_span` is how long to watch for something that must not happen: the full span under
  virtual time (free), capped on real time so a run against a real scheduler stays short.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from fake_apiserver import JournalEntry
from harness._expectations import condition_of, format_condition
from harness._kubeclient import ApiError
from harness._scenario import DEFAULT_DEVICE_CLASS, Scenario

__all__ = [
    "GATED_MESSAGE",
    "NOT_READY_FOR_SCHEDULING",
    "REAL_TIME_CAP",
    "ConditionHistory",
    "SeenEvent",
    "add_devices",
    "condition_history",
    "condition_patches",
    "create_claim",
    "dra_cluster",
    "event_lines",
    "events",
    "fit_error",
    "missing_claim",
    "journal_lines",
    "patched_conditions",
    "require_faults",
    "sets_not_ready",
    "status_patches",
    "watch_span",
    "writes_pod_scheduled",
]

Obj = dict[str, Any]

#: The API server's SchedulingGated message (k8s-semantics A.3), which KEP-5501 makes the
#: SchedulingGates plugin's message too.
GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"
#: KEP-5501's new PodScheduled reason (Design Details §2).
NOT_READY_FOR_SCHEDULING = "NotReadyForScheduling"
#: Longest "must not happen" watch on real time, in seconds.
REAL_TIME_CAP = 30.0


@dataclass(frozen=True)
class SeenEvent:
    """One event a scheduler created: when, through which API, and what it said."""

    time: float
    api: str  # "events.k8s.io/v1" or "v1"
    type: str
    reason: str
    message: str
    pod: str

    def __str__(self) -> str:
        return f"t={self.time:.3f} {self.api} {self.type} {self.reason} {json.dumps(self.message)}"


def events(scenario: Scenario, pod: str, reason: str | None = None) -> list[SeenEvent]:
    """Events the scheduler created (and the server accepted) regarding ``pod`` since the scenario
    started, oldest first; only those with ``reason`` when given.

    Only creates count: an event series the real broadcaster aggregates with a PATCH is one event.
    """
    out = []
    for entry in scenario.requests("create", "events"):
        body = entry.body if isinstance(entry.body, dict) else {}
        if not 200 <= entry.code < 300:
            continue
        ref = body.get("regarding") or body.get("involvedObject") or {}
        if ref.get("kind") != "Pod" or ref.get("name") != pod:
            continue
        if reason is not None and body.get("reason") != reason:
            continue
        api = "events.k8s.io/v1" if entry.resource.endswith(".events.k8s.io") else "v1"
        message = body.get("note") if api != "v1" else body.get("message")
        out.append(SeenEvent(entry.time, api, str(body.get("type", "")), str(body.get("reason", "")),
                             str(message or ""), pod))
    return out


def patched_conditions(entry: JournalEntry) -> list[Obj]:
    """The ``status.conditions`` elements a status PATCH sent (strategic or merge patch; a
    ``$patch: delete`` element is returned as sent)."""
    body = entry.body if isinstance(entry.body, dict) else {}
    conditions = (body.get("status") or {}).get("conditions") or []
    return [c for c in conditions if isinstance(c, dict)]


def condition_patches(scenario: Scenario, pod: str) -> list[JournalEntry]:
    """The scheduler's status PATCHes of ``pod`` since the scenario started that write
    ``status.conditions`` (any answer code), oldest first."""
    return scenario.requests("patch", "pods", subresource="status", name=pod,
                             where=lambda entry: bool(patched_conditions(entry)))


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
                      device_class: str = DEFAULT_DEVICE_CLASS) -> None:
    """Publish ``count`` devices of driver ``device_class`` on ``node`` (a ResourceSlice named
    ``<node>-<class>``), and the DeviceClass ``device_class`` selecting that driver if it does not
    exist yet, so that claims from ``create_claim`` can be allocated there (k8s-semantics G)."""
    try:
        await scenario.create("deviceclasses", {
            "metadata": {"name": device_class},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{device_class}"'}}]}})
    except ApiError as e:
        if e.code != 409:
            raise
    await scenario.create("resourceslices", {
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


def missing_claim(scenario: Scenario, claim: str) -> str:
    """The DynamicResources PreEnqueue message for a ResourceClaim not found (k8s-semantics G)."""
    return f'could not find ResourceClaim "{scenario.namespace}/{claim}"'


#: NodeUnschedulable's reason (``ErrReasonUnschedulable``).
UNSCHEDULABLE_NODES = "node(s) were unschedulable"


def fit_error(scenario: Scenario, nodes: int, reasons: dict[str, int]) -> str:
    """``0/<n> nodes are available: <reasons>.`` for ``nodes`` made by the scenario failing with
    ``reasons`` (``{"Insufficient cpu": 1}``), counting the nodes a shared cluster already had:
    cordoned ones add to ``node(s) were unschedulable``. Reasons are sorted as kube-scheduler
    sorts them. Skips the criterion when a node the scenario did not make is schedulable: the
    message (and where the pod goes) would depend on that node."""
    counts = dict(reasons)
    schedulable = [n["metadata"]["name"] for n in scenario.other_nodes if not n.get("spec", {}).get("unschedulable")]
    if schedulable:
        pytest.skip(f"the cluster has schedulable nodes this scenario did not make ({', '.join(schedulable)}); "
                    "its fit-error message cannot be predicted (cordon them, or use --backend kind)")
    if scenario.other_nodes:
        counts[UNSCHEDULABLE_NODES] = counts.get(UNSCHEDULABLE_NODES, 0) + len(scenario.other_nodes)
    total = nodes + len(scenario.other_nodes)
    listed = ", ".join(sorted(f"{count} {reason}" for reason, count in counts.items()))
    return f"0/{total} nodes are available: {listed}."


def watch_span(scenario: Scenario, seconds: float) -> float:
    """``seconds`` under virtual time; at most :data:`REAL_TIME_CAP` on real time (a real
    scheduler process), so "never within minutes" costs seconds of a real-time run."""
    return seconds if scenario.backend.is_virtual else min(seconds, REAL_TIME_CAP)


async def dra_cluster(scenario: Scenario, node: str = "n1", devices: int = 4,
                      device_class: str = DEFAULT_DEVICE_CLASS) -> None:
    """Node ``node`` with ``devices`` devices of driver ``device_class``, and the DeviceClass of
    that name selecting them."""
    await scenario.create_node(node)
    await add_devices(scenario, node, count=devices, device_class=device_class)


def writes_pod_scheduled(entry: JournalEntry) -> bool:
    """A status patch that writes (or deletes) the ``PodScheduled`` condition: the patches KEP-5501
    is about. Other status patches are left out: kube-scheduler v1.35 sets
    ``status.nominatedNodeName`` alone before a binding cycle with PreBind work (a DRA claim), as
    seen in the suites' runs against it."""
    return any(c.get("type") == "PodScheduled" for c in patched_conditions(entry))


def status_patches(scenario: Scenario, pod: str) -> list[JournalEntry]:
    """The scheduler's ``PATCH pods/<pod>/status`` requests writing ``PodScheduled`` since the
    scenario started (any answer code), oldest first."""
    return scenario.requests("patch", "pods", subresource="status", name=pod, where=writes_pod_scheduled)


def sets_not_ready(entry: JournalEntry) -> bool:
    """A status patch whose body writes a ``PodScheduled`` element with reason NotReadyForScheduling."""
    return any(c.get("reason") == NOT_READY_FOR_SCHEDULING for c in patched_conditions(entry))


def journal_lines(scenario: Scenario, entries: list[JournalEntry]) -> str:
    """Journal entries formatted for a failure message (``(none)`` when there are none)."""
    journal = scenario.backend.journal
    if journal is None or not entries:
        return "  (none)"
    return journal.format(entries)


def event_lines(seen: list[SeenEvent]) -> str:
    """Events formatted for a failure message."""
    return "\n".join(f"  {e}" for e in seen) or "  (none)"
