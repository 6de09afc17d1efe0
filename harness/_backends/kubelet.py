"""A kubelet stand-in for the nodes a scenario makes (as KWOK plays one for its fake nodes).

No node a scenario creates has a kubelet: not on the fake API server, and not on a shared cluster
(``kubeconfig:``, kind), where its nodes are fake too. Yet preemption and eviction wait on one: a
pod deleted while bound stays, ``Terminating``, with a ``deletionTimestamp`` and a
``deletionGracePeriodSeconds`` (30 unless the pod or the request says otherwise), until its
kubelet has stopped it and confirms with a delete of grace 0, uid as precondition
(``pkg/kubelet/status/status_manager.go``, ``syncPod``: ``metav1.NewDeleteOptions(0)`` with
``Preconditions.UID``). Without that confirmation a victim would never go, and a preemptor never
bind.

:class:`Kubelet` says what one node's stand-in does:

* ``confirms``: whether it ever confirms a deletion (``False``: a kubelet that never does, so the
  pod stays ``Terminating`` for good);
* ``termination_delay``: seconds the pod's containers take to stop beyond its grace period
  (a slow termination: the confirmation comes at grace + delay; 0 by default, i.e. containers
  that use their whole grace period, the longest a real kubelet lets them run);
* ``starts_pods``: whether a pod bound to the node is marked ``Running`` (phase, ``Ready``
  conditions, a running container status with its ``allocatedResources`` and ``resources``), as a
  kubelet reports once the containers started;
* ``resizes``: how it answers an in-place resize (KEP-1287) of a pod it started: ``"actuate"``
  (the default: as a kubelet's allocation manager does, below), ``"refuse"`` (every resize
  ``Infeasible``) or ``"ignore"`` (never answers); ``resize_delay``: seconds before it answers.

A resize is a pod whose containers' requests differ from their ``allocatedResources``. The
stand-in answers as the kubelet's allocation manager (``pkg/kubelet/allocation``) does, from the
node's allocatable and the allocated requests of the other pods it holds:

* the pod's new requests exceed the node's allocatable: ``PodResizePending=True``, reason
  ``Infeasible``, ``Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000``
  (memory first, in bytes; cpu in millicores);
* they fit the node but not beside the other pods: ``PodResizePending=True``, reason
  ``Deferred``, ``Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity:
  4000``; retried whenever a pod on the node changes or goes (a victim's room);
* else actuated: ``allocatedResources`` and ``resources`` take the new values and the condition
  goes.

The node's allocatable is the stand-in's own, as a kubelet computes its node's and writes it to
the node's status: it is what :meth:`~harness.Scenario.create_node` made, until
:meth:`~harness.Scenario.set_allocatable` reports another (the stand-in then answers the node's
pending resizes again, from the new one). It does not watch nodes: nothing but a node's kubelet
writes its allocatable. :meth:`~harness.Scenario.reconfigure_kubelet` is the kubelet restarting
with another :class:`Kubelet`: from then on it does what that one says, and answers the pending
resizes again (a restarted kubelet re-admits its pods).

Conditions carry ``observedGeneration`` (the pod's generation the answer is for). Writes are merge
patches of ``/status`` guarded by the pod's resourceVersion, retried on a conflict.

It works from the scenario's pod informer, on the scenario's clock: the confirmation is due
grace period + delay after the stand-in first sees the pod marked, timed with ``asyncio.sleep``
(instant under virtual time, a real wait otherwise). A later delete that shortens the grace
period brings it forward, as it would a real kubelet's. Its requests are the scenario's own (not
the scheduler's: :meth:`~harness.Scenario.writes` leaves them out) and are journaled like any.

The scenario owns its stand-ins, so this module does not import it: the stand-ins ask for a
:class:`StandInScenario`, the few things they use of one (its pod informer, its clock and two pod
writes), which :class:`~harness.Scenario` is.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from fake_apiserver import parse_quantity as quantity

from harness._backends.backend import BackendClock
from harness._backends.scenario_client import ApiError, ScenarioInformer

__all__ = ["Kubelet", "KubeletStandIns", "RESIZE_ANSWERS", "StandInScenario"]

Obj = dict[str, Any]
log = logging.getLogger("harness.kubelet")

RESIZE_ANSWERS = ("actuate", "refuse", "ignore")
PENDING = "PodResizePending"
def _amounts(resources: Obj | None) -> tuple[int, int]:
    """(millicores rounded up, bytes) of a ResourceList."""
    resources = resources or {}
    cpu = quantity(resources.get("cpu", "0")) * 1000
    return int(cpu.to_integral_value(rounding="ROUND_CEILING")), int(quantity(resources.get("memory", "0")))


@dataclass(frozen=True)
class Kubelet:
    """What the kubelet stand-in of one node does (module docstring)."""

    confirms: bool = True
    termination_delay: float = 0.0
    starts_pods: bool = False
    resizes: str = "actuate"
    resize_delay: float = 0.0

    def __post_init__(self) -> None:
        if self.termination_delay < 0:
            raise ValueError(f"termination_delay must be 0 or more seconds, not {self.termination_delay}")
        if self.resize_delay < 0:
            raise ValueError(f"resize_delay must be 0 or more seconds, not {self.resize_delay}")
        if self.resizes not in RESIZE_ANSWERS:
            raise ValueError(f"resizes must be one of {', '.join(RESIZE_ANSWERS)}, not {self.resizes!r}")


class _Clocked(Protocol):
    @property
    def clock(self) -> BackendClock: ...


class StandInScenario(Protocol):
    """What the stand-ins use of their scenario (module docstring)."""

    @property
    def pods(self) -> ScenarioInformer:
        """The informer on the scenario's pods: what the stand-ins answer from."""
        ...

    @property
    def backend(self) -> _Clocked:
        """Whose clock stamps the conditions and times the stand-ins write."""
        ...

    @property
    def now(self) -> float:
        """Seconds on the scenario's clock."""
        ...

    async def patch(self, kind: str, name: str, body: Any, type: str = ..., subresource: str | None = ...) -> Obj:
        """A pod's status write."""
        ...

    async def delete(self, kind: str, name: str, *, options: Obj | None = ...) -> Any:
        """A pod's deletion confirmed: grace period 0, its uid as precondition."""
        ...


class KubeletStandIns:
    """The stand-ins of one scenario's nodes, fed by its pod informer."""

    def __init__(self, scenario: StandInScenario) -> None:
        self.scenario = scenario
        self.nodes: dict[str, Kubelet] = {}
        self.allocatable: dict[str, tuple[int, int]] = {}
        self._resizing: dict[str, asyncio.Task[None]] = {}  # node -> its resize passes
        self._again: set[str] = set()  # nodes with an event since their last pass began
        #: pod uid -> (grace period the pending confirmation was timed for, its task)
        self._pending: dict[str, tuple[int, asyncio.Task[None]]] = {}
        self._started: set[str] = set()
        self._starting: set[asyncio.Task[None]] = set()
        self.confirmed: list[tuple[float, str]] = []  # (scenario time, pod name)

    def add(self, node: str, kubelet: Kubelet, allocatable: Obj | None = None) -> None:
        self.nodes[node] = kubelet
        self.allocatable[node] = _amounts(allocatable)

    def set_allocatable(self, node: str, allocatable: Obj) -> None:
        """The node's kubelet now has ``allocatable`` (it wrote it to the node's status): the
        node's pending resizes are answered again from it."""
        self.allocatable[node] = _amounts(allocatable)
        self._answer_again(node)

    def reconfigure(self, node: str, kubelet: Kubelet) -> None:
        """The node's kubelet restarts as ``kubelet`` says: the pending resizes are answered again."""
        self.nodes[node] = kubelet
        self._answer_again(node)

    def _answer_again(self, node: str) -> None:
        kubelet = self.nodes[node]
        if kubelet.resizes != "ignore" and any(_holds(p) for p in self._on_node(node)):
            self._resize_pass(node)

    def on_pod(self, event: str, pod: Obj) -> None:
        """ScenarioInformer listener: time a confirmation for a pod marked on one of our nodes; start a
        pod bound to a node whose stand-in starts pods."""
        if event == "SYNC":  # a relist: what changed meanwhile
            for obj in list(self.scenario.pods.objects.values()):
                self.on_pod("MODIFIED", obj)
            return
        spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
        node = spec.get("nodeName") or ""
        kubelet = self.nodes.get(node)
        if kubelet is None:
            return
        if kubelet.resizes != "ignore" and any(_holds(p) for p in self._on_node(node)):
            self._resize_pass(node)  # a pod on the node changed or went: answer resizes again
        if event not in ("ADDED", "MODIFIED"):
            return
        uid = str(meta.get("uid", ""))
        if meta.get("deletionTimestamp"):
            grace = int(meta.get("deletionGracePeriodSeconds") or 0)
            pending = self._pending.get(uid)
            if not kubelet.confirms or grace == 0 or (pending is not None and pending[0] <= grace):
                return
            if pending is not None:
                pending[1].cancel()
            task = asyncio.get_running_loop().create_task(
                self._confirm(pod, grace + kubelet.termination_delay), name=f"kubelet-confirm-{meta.get('name')}")
            self._pending[uid] = (grace, task)
        elif kubelet.starts_pods and uid not in self._started and (pod.get("status") or {}).get("phase") == "Pending":
            self._started.add(uid)
            task = asyncio.get_running_loop().create_task(self._start(pod), name=f"kubelet-start-{meta.get('name')}")
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)

    # -- resizes -------------------------------------------------------------------------------

    def _resize_pass(self, node: str) -> None:
        """Answer the node's pending resizes once the events in flight have landed (one pass per
        node at a time; another event meanwhile asks for one more)."""
        self._again.add(node)
        task = self._resizing.get(node)
        if task is not None and not task.done():
            return
        self._resizing[node] = asyncio.get_running_loop().create_task(
            self._answer_resizes(node), name=f"kubelet-resize-{node}")

    def _on_node(self, node: str) -> list[Obj]:
        return [p for p in self.scenario.pods.objects.values()
                if (p.get("spec") or {}).get("nodeName") == node
                and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]

    async def _answer_resizes(self, node: str) -> None:
        while node in self._again:
            self._again.discard(node)
            await asyncio.sleep(self.nodes[node].resize_delay)
            kubelet = self.nodes[node]  # as it is now: it may have been reconfigured meanwhile
            if kubelet.resizes == "ignore":
                continue
            for pod in sorted(self._on_node(node), key=lambda p: p["metadata"].get("creationTimestamp", "")):
                answer = self._answer(node, kubelet, pod)
                if answer is not None:
                    await self._write_status(pod, answer)

    def _answer(self, node: str, kubelet: Kubelet, pod: Obj) -> Obj | None:
        """The status patch answering ``pod``'s resize, or None (no resize, or the same answer)."""
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            return None
        statuses = {s.get("name"): s for s in (pod.get("status") or {}).get("containerStatuses") or []}
        containers = (pod.get("spec") or {}).get("containers") or []
        if not statuses or any("allocatedResources" not in statuses.get(c["name"], {}) for c in containers):
            return None  # not started by a kubelet: nothing allocated to resize from
        wanted = [((c.get("resources") or {}).get("requests") or {}) for c in containers]
        if all(_amounts(w) == _amounts(statuses[c["name"]]["allocatedResources"]) for w, c in zip(wanted, containers)):
            return self._without_pending(pod)
        cpu, memory = (sum(v) for v in zip(*(_amounts(w) for w in wanted)))
        cap_cpu, cap_memory = self.allocatable[node]
        if kubelet.resizes == "refuse" or memory > cap_memory or cpu > cap_cpu:
            what = (f"memory, requested: {memory}, capacity: {cap_memory}" if memory > cap_memory
                    else f"cpu, requested: {cpu}, capacity: {cap_cpu}")
            return self._pending_condition(pod, "Infeasible", f"Node didn't have enough capacity: {what}")
        used_cpu = used_memory = 0
        for other in self._on_node(node):
            if other["metadata"]["uid"] != pod["metadata"]["uid"]:
                other_cpu, other_memory = _allocated(other)
                used_cpu, used_memory = used_cpu + other_cpu, used_memory + other_memory
        if memory + used_memory > cap_memory or cpu + used_cpu > cap_cpu:
            what = (f"memory, requested: {memory}, used: {used_memory}, capacity: {cap_memory}"
                    if memory + used_memory > cap_memory else f"cpu, requested: {cpu}, used: {used_cpu}, capacity: {cap_cpu}")
            return self._pending_condition(pod, "Deferred", f"Node didn't have enough resource: {what}")
        actuated = []
        for container, requests in zip(containers, wanted):
            status = dict(statuses[container["name"]])
            status["allocatedResources"] = dict(requests)
            status["resources"] = {k: v for k, v in (container.get("resources") or {}).items() if k in ("requests", "limits")}
            actuated.append(status)
        conditions = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") != PENDING]
        return {"containerStatuses": actuated, "conditions": conditions}

    def _pending_condition(self, pod: Obj, reason: str, message: str) -> Obj | None:
        generation = (pod.get("metadata") or {}).get("generation")
        conditions = list((pod.get("status") or {}).get("conditions") or [])
        current = next((c for c in conditions if c.get("type") == PENDING), None)
        if current is not None and (current.get("reason"), current.get("message"), current.get("observedGeneration")) == (
                reason, message, generation):
            return None
        condition: Obj = {"type": PENDING, "status": "True", "lastProbeTime": None,
                          "lastTransitionTime": _stamp(self.scenario), "reason": reason, "message": message}
        if generation is not None:
            condition["observedGeneration"] = generation
        if current is not None and current.get("status") == "True":
            condition["lastTransitionTime"] = current.get("lastTransitionTime", condition["lastTransitionTime"])
        return {"conditions": [c for c in conditions if c.get("type") != PENDING] + [condition]}

    @staticmethod
    def _without_pending(pod: Obj) -> Obj | None:
        conditions = (pod.get("status") or {}).get("conditions") or []
        if not any(c.get("type") == PENDING for c in conditions):
            return None
        return {"conditions": [c for c in conditions if c.get("type") != PENDING]}

    async def _write_status(self, pod: Obj, status: Obj) -> None:
        """A merge patch of ``/status`` guarded by the resourceVersion the answer was computed on;
        on a conflict the next pass (the event that moved the pod) answers again."""
        meta = pod["metadata"]
        body = {"metadata": {"resourceVersion": meta["resourceVersion"]}, "status": status}
        try:
            await self.scenario.patch("pods", meta["name"], body, type="merge", subresource="status")
        except ApiError as e:
            if e.code not in (404, 409):
                raise

    async def _confirm(self, pod: Obj, after: float) -> None:
        meta = pod["metadata"]
        await asyncio.sleep(after)
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0,
                "preconditions": {"uid": meta["uid"]}}
        try:
            await self.scenario.delete("pods", meta["name"], options=body)
        except ApiError as e:  # gone already, or a new pod of that name (the uid precondition)
            if e.code not in (404, 409):
                raise
            log.debug("confirming the deletion of %s: %s", meta["name"], e)
        else:
            self.confirmed.append((self.scenario.now, meta["name"]))

    async def _start(self, pod: Obj) -> None:
        meta, spec = pod["metadata"], pod["spec"]
        now = _stamp(self.scenario)
        ready = [{"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
                 for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")]
        statuses = [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": True, "restartCount": 0,
                     "started": True, "state": {"running": {"startedAt": now}},
                     "allocatedResources": dict((c.get("resources") or {}).get("requests") or {}),
                     "resources": {k: v for k, v in (c.get("resources") or {}).items() if k in ("requests", "limits")}}
                    for c in spec.get("containers") or []]
        body = {"status": {"phase": "Running", "startTime": now, "conditions": ready, "containerStatuses": statuses}}
        try:
            await self.scenario.patch("pods", meta["name"], body, subresource="status")
        except ApiError as e:
            if e.code not in (404, 409):
                raise

    async def stop(self) -> None:
        tasks = [task for _, task in self._pending.values()] + list(self._resizing.values()) + list(self._starting)
        self._pending.clear()
        self._resizing.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass


def _stamp(scenario: StandInScenario) -> str:
    return scenario.backend.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")


def _holds(pod: Obj) -> bool:
    """A pod a kubelet started: its containers hold ``allocatedResources`` (only such a pod has a
    resize to answer)."""
    return any("allocatedResources" in s for s in (pod.get("status") or {}).get("containerStatuses") or [])


def _allocated(pod: Obj) -> tuple[int, int]:
    """What the kubelet holds for a pod: its containers' ``allocatedResources``, else their requests."""
    statuses = {s.get("name"): s for s in (pod.get("status") or {}).get("containerStatuses") or []}
    cpu = memory = 0
    for container in (pod.get("spec") or {}).get("containers") or []:
        held = statuses.get(container["name"], {}).get("allocatedResources")
        c, m = _amounts(held if held is not None else (container.get("resources") or {}).get("requests"))
        cpu, memory = cpu + c, memory + m
    return cpu, memory
