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
  conditions, a running container status), as a kubelet reports once the containers started.

It works from the scenario's pod informer, on the scenario's clock: the confirmation is due
grace period + delay after the stand-in first sees the pod marked, timed with ``asyncio.sleep``
(instant under virtual time, a real wait otherwise). A later delete that shortens the grace
period brings it forward, as it would a real kubelet's. Its requests are the scenario's own (not
the scheduler's: :meth:`~harness.Scenario.writes` leaves them out) and are journaled like any.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness._kubeclient import ApiError

if TYPE_CHECKING:
    from harness._scenario import Scenario

__all__ = ["Kubelet", "KubeletStandIns"]

Obj = dict[str, Any]
log = logging.getLogger("harness.kubelet")


@dataclass(frozen=True)
class Kubelet:
    """What the kubelet stand-in of one node does (module docstring)."""

    confirms: bool = True
    termination_delay: float = 0.0
    starts_pods: bool = False

    def __post_init__(self) -> None:
        if self.termination_delay < 0:
            raise ValueError(f"termination_delay must be 0 or more seconds, not {self.termination_delay}")


class KubeletStandIns:
    """The stand-ins of one scenario's nodes, fed by its pod informer."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.nodes: dict[str, Kubelet] = {}
        #: pod uid -> (grace period the pending confirmation was timed for, its task)
        self._pending: dict[str, tuple[int, asyncio.Task[None]]] = {}
        self._started: set[str] = set()
        self.confirmed: list[tuple[float, str]] = []  # (scenario time, pod name)

    def add(self, node: str, kubelet: Kubelet) -> None:
        self.nodes[node] = kubelet

    def on_pod(self, event: str, pod: Obj) -> None:
        """Informer listener: time a confirmation for a pod marked on one of our nodes; start a
        pod bound to a node whose stand-in starts pods."""
        if event == "SYNC":  # a relist: what changed meanwhile
            for obj in list(self.scenario.pods.objects.values()):
                self.on_pod("MODIFIED", obj)
            return
        if event not in ("ADDED", "MODIFIED"):
            return
        spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
        kubelet = self.nodes.get(spec.get("nodeName") or "")
        if kubelet is None:
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
            self._pending[uid + "/start"] = (0, task)

    async def _confirm(self, pod: Obj, after: float) -> None:
        meta = pod["metadata"]
        await asyncio.sleep(after)
        body = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0,
                "preconditions": {"uid": meta["uid"]}}
        try:
            await self.scenario._request("DELETE", self.scenario._path("pods", meta["name"]), body=body)
        except ApiError as e:  # gone already, or a new pod of that name (the uid precondition)
            if e.code not in (404, 409):
                raise
            log.debug("confirming the deletion of %s: %s", meta["name"], e)
        else:
            self.confirmed.append((self.scenario.now, meta["name"]))

    async def _start(self, pod: Obj) -> None:
        meta, spec = pod["metadata"], pod["spec"]
        now = self.scenario.backend.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        ready = [{"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now}
                 for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")]
        statuses = [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": True, "restartCount": 0,
                     "started": True, "state": {"running": {"startedAt": now}}}
                    for c in spec.get("containers") or []]
        body = {"status": {"phase": "Running", "startTime": now, "conditions": ready, "containerStatuses": statuses}}
        try:
            await self.scenario.patch("pods", meta["name"], body, subresource="status")
        except ApiError as e:
            if e.code not in (404, 409):
                raise

    async def stop(self) -> None:
        tasks = [task for _, task in self._pending.values()]
        self._pending.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
