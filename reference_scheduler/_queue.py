"""The scheduling queue: activeQ, backoffQ, unschedulable pods and pods parked by PreEnqueue.

Modelled on ``pkg/scheduler/backend/queue/scheduling_queue.go``:

* every way into activeQ (a new pod, an update, a move after a cluster event, a backoff that
  expired) runs the PreEnqueue plugins first (``moveToActiveQ``/``runPreEnqueuePlugins``); a
  rejected pod is parked ("gated", ``pInfo.Gated``) and never attempted;
* a pod that failed a scheduling attempt waits in the unschedulable set until a cluster event
  that may help it (a node added or changed, a bound pod deleted, a DRA object changed; for a
  bound pod waiting on a Deferred resize, an event on its node, :attr:`SchedulingQueue.assigned_hint`) moves it
  to backoffQ (or straight to activeQ once its backoff is over); a pod unschedulable for 5 minutes
  is moved anyway (``podMaxInUnschedulablePodsDuration``); backoff is 1 s doubled per attempt,
  capped at 10 s (``PodInitialBackoffSeconds``/``PodMaxBackoffSeconds``);
* activeQ is ordered by priority, then by the time the pod entered the queue.

PreEnqueue re-runs (decision 8 of the suite, open question 8): on every update of the pod except
one that changes nothing but the ``PodScheduled`` condition or ``nominatedNodeName`` (what the
scheduler itself writes, and the binding sets; re-running then would only see its own patch), and for a parked pod on each cluster event the
rejecting plugin registers (:meth:`~reference_scheduler._plugins.PreEnqueuePlugin.requeue_on`:
ResourceClaim add/update/delete for DynamicResources, gang member add/delete and any change of the
member's PodGroup for GangQuorum).

A pod of a ``scheduling.k8s.io`` PodGroup (``GenericWorkload`` on, :mod:`reference_scheduler._gang`)
stays one entry here, but is never tried alone: popping one member takes every other member that
waits in activeQ, backoffQ or the unschedulable set with it (:meth:`SchedulingQueue.take`), and a
failed group goes back to backoffQ, never to the unschedulable set (kube-scheduler's
``AddAttemptedPodGroupIfNeeded``). :attr:`SchedulingQueue.hold` parks a pod that passed every
PreEnqueue plugin without a rejection of its own (a member of a group one of whose pods is gated:
the whole group waits, ``runPreEnqueuePlugins``), so KEP-5501 reports nothing for it.

KEP-5501's reporting lives in :mod:`reference_scheduler._reporting`; the queue calls it at the
points the KEP's ``runPreEnqueuePlugins`` names: first sight, rejection and success, with the
pod's :class:`~reference_scheduler._podinfo.QueuedPodInfo` (its own module, which both import).
"""

from __future__ import annotations

import asyncio
import copy
import heapq
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from reference_scheduler._clock import DUE_TOLERANCE
from reference_scheduler._plugins import ClusterEvent, PreEnqueuePlugin
from reference_scheduler._podinfo import QueuedPodInfo, pod_key
from reference_scheduler._reporting import PreEnqueueStatusReporter

__all__ = ["SchedulingQueue", "only_conditions_changed", "only_status_changed"]

Obj = dict[str, Any]

INITIAL_BACKOFF = 1.0
MAX_BACKOFF = 10.0
MAX_UNSCHEDULABLE = 300.0

#: Cluster events that may make a pod that failed filters fit (nodes, freed capacity, DRA).
_MOVE_EVENTS = frozenset({
    ("nodes", "add"), ("nodes", "update"), ("pods", "delete"), ("pods", "assigned-delete"),
    ("resourceclaims", "add"), ("resourceclaims", "update"), ("resourceclaims", "delete"),
    ("resourceslices", "add"), ("resourceslices", "update"), ("deviceclasses", "add"), ("deviceclasses", "update"),
})


def _strip(pod: Obj) -> Obj:
    out = copy.copy(pod)
    meta = dict(out.get("metadata") or {})
    meta.pop("resourceVersion", None)
    meta.pop("managedFields", None)
    out["metadata"] = meta
    status = dict(out.get("status") or {})
    status["conditions"] = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    status.pop("nominatedNodeName", None)
    out["status"] = status
    return out


def _strip_status(pod: Obj) -> Obj:
    out = copy.copy(pod)
    meta = {k: v for k, v in (out.get("metadata") or {}).items()
            if k not in ("resourceVersion", "generation", "managedFields", "finalizers")}
    out["metadata"] = meta
    out["status"] = {"resize": (pod.get("status") or {}).get("resize")}
    return out


def only_status_changed(old: Obj, new: Obj) -> bool:
    """True when ``old`` and ``new`` differ in nothing but their status (``status.resize`` aside),
    resourceVersion, generation, managed fields and finalizers: kube-scheduler's ``isPodUpdated``
    is false, so a queued pod is not moved (a kubelet rewriting a Deferred resize's condition)."""
    return _strip_status(old) == _strip_status(new)


def _gate_removed(old: Obj, new: Obj) -> bool:
    """True when ``new`` has fewer scheduling gates than ``old`` (the API only lets gates be removed)."""
    return len((new.get("spec") or {}).get("schedulingGates") or []) < len(
        (old.get("spec") or {}).get("schedulingGates") or [])


def only_conditions_changed(old: Obj, new: Obj) -> bool:
    """True when ``old`` and ``new`` differ in nothing but the ``PodScheduled`` condition and
    ``nominatedNodeName`` (what the scheduler writes: a preemptor's own nomination does not make
    it schedulable, and kube-scheduler ignores status-only updates, ``isPodUpdated``) and the
    resourceVersion."""
    return _strip(old) == _strip(new)


class SchedulingQueue:
    def __init__(
        self,
        plugins: Sequence[PreEnqueuePlugin],
        reporter: PreEnqueueStatusReporter | None = None,
        *,
        time: Callable[[], float] | None = None,
        initial_backoff: float = INITIAL_BACKOFF,
        max_backoff: float = MAX_BACKOFF,
        max_unschedulable: float = MAX_UNSCHEDULABLE,
    ) -> None:
        self.plugins = list(plugins)
        self.reporter = reporter
        self._time = time
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self.max_unschedulable = max_unschedulable
        self.pods: dict[str, QueuedPodInfo] = {}
        self._active: list[tuple[int, float, int, str]] = []
        self._backoff: list[tuple[float, int, str]] = []
        self._seq = itertools.count()
        self._gated: dict[str, set[str]] = {}  # rejecting plugin -> keys
        self._unschedulable: set[str] = set()
        self._wake = asyncio.Event()
        self.pre_enqueue_runs = 0
        #: the queueing hint for a waiting pod that is already bound (a KEP-5836 Deferred resize,
        #: :meth:`reference_scheduler._resize.ResizePreemption.requeue_on`); None: never moved
        self.assigned_hint: Callable[[ClusterEvent, Obj], bool] | None = None
        #: the (resource, action) pairs that move a pod that failed filters; the ``ignores-node-add``
        #: mutant leaves out ("nodes", "add")
        self.move_events = _MOVE_EVENTS
        #: True only for the ``any-gate-removal-ungates`` mutant: an update that removes one gate
        #: sends the pod to activeQ without PreEnqueue, as if no gate were left
        self.ungates_on_any_removal = False
        #: after a pod passed every plugin: the name of the plugin that parks it anyway, without a
        #: rejection to report (module docstring), or None
        self.hold: Callable[[Obj], str | None] | None = None

    def now(self) -> float:
        return self._time() if self._time is not None else asyncio.get_running_loop().time()

    # -- PreEnqueue ---------------------------------------------------------------------

    def run_pre_enqueue(self, pinfo: QueuedPodInfo) -> bool:
        """Run the plugins in order; the first rejection wins (``runPreEnqueuePlugins``)."""
        self.pre_enqueue_runs += 1
        for plugin in self.plugins:
            message = plugin.pre_enqueue(pinfo.pod)
            if message is not None:
                pinfo.rejector = plugin.name
                if self.reporter is not None:
                    self.reporter.rejected(pinfo, message)
                return False
        pinfo.rejector = ""
        if self.reporter is not None:
            self.reporter.passed(pinfo)
        holder = self.hold(pinfo.pod) if self.hold is not None else None
        if holder:
            pinfo.rejector = holder
            return False
        return True

    def backoff_duration(self, attempts: int) -> float:
        if attempts <= 0:
            return 0.0
        return min(self.initial_backoff * 2 ** (attempts - 1), self.max_backoff)

    def _set_state(self, pinfo: QueuedPodInfo, state: str) -> None:
        """Change state, keeping the gated and unschedulable indexes current."""
        if pinfo.state == "gated":
            self._gated.get(pinfo.rejector, set()).discard(pinfo.key)
        elif pinfo.state == "unschedulable":
            self._unschedulable.discard(pinfo.key)
        pinfo.state = state
        if state == "gated":
            self._gated.setdefault(pinfo.rejector, set()).add(pinfo.key)
        elif state == "unschedulable":
            self._unschedulable.add(pinfo.key)

    def _place(self, pinfo: QueuedPodInfo) -> None:
        """``moveToActiveQ``: PreEnqueue, then activeQ, or backoffQ while backing off."""
        self._set_state(pinfo, "moving")
        if not self.run_pre_enqueue(pinfo):
            self._set_state(pinfo, "gated")
            return
        if pinfo.backoff_until > self.now():
            self._set_state(pinfo, "backoff")
            heapq.heappush(self._backoff, (pinfo.backoff_until, pinfo.seq, pinfo.key))
            self._wake.set()  # the popper recomputes its timeout
            return
        self._activate(pinfo)

    def _activate(self, pinfo: QueuedPodInfo) -> None:
        self._set_state(pinfo, "active")
        pinfo.seq = next(self._seq)
        heapq.heappush(self._active, (-pinfo.priority, pinfo.timestamp, pinfo.seq, pinfo.key))
        self._wake.set()

    # -- informer events ----------------------------------------------------------------

    def add(self, pod: Obj) -> QueuedPodInfo:
        key = pod_key(pod)
        existing = self.pods.get(key)
        if existing is not None:
            self.update(existing.pod, pod)
            return existing
        pinfo = QueuedPodInfo(pod, self.now(), next(self._seq))
        self.pods[key] = pinfo
        if self.reporter is not None:
            self.reporter.first_sight(pinfo)
        pinfo.seeded = True
        self._place(pinfo)
        return pinfo

    def update(self, old: Obj, new: Obj) -> None:
        pinfo = self.pods.get(pod_key(new))
        if pinfo is None:
            self.add(new)
            return
        if pinfo.state == "lost":
            return
        pinfo.pod = new
        if only_conditions_changed(old, new) or pinfo.state == "in-flight":
            return
        self._take_out(pinfo)
        if self.ungates_on_any_removal and _gate_removed(old, new):
            self._activate(pinfo)  # the any-gate-removal-ungates mutant: no PreEnqueue
            return
        self._place(pinfo)

    def delete(self, pod: Obj) -> None:
        pinfo = self.pods.pop(pod_key(pod), None)
        if pinfo is not None:
            self._set_state(pinfo, "deleted")

    def _take_out(self, pinfo: QueuedPodInfo) -> None:
        """Leave the heaps lazily: stale entries are recognised by ``state``/``seq``."""
        pinfo.seq = next(self._seq)
        self._set_state(pinfo, "moving")

    def on_event(self, event: ClusterEvent) -> None:
        """A cluster event: re-run PreEnqueue for parked pods whose rejector registered it, and
        move unschedulable pods if the event may make them fit."""
        for plugin in self.plugins:
            keys = self._gated.get(plugin.name)
            if not keys or event.resource not in plugin.events:
                continue
            for key in sorted(keys):
                pinfo = self.pods.get(key)
                if pinfo is not None and pinfo.state == "gated" and plugin.requeue_on(event, pinfo.pod):
                    self._take_out(pinfo)
                    self._place(pinfo)
        moves = (event.resource, event.action) in self.move_events
        for key in sorted(self._unschedulable):
            pinfo = self.pods.get(key)
            if pinfo is None or pinfo.state != "unschedulable":
                continue
            if (pinfo.pod.get("spec") or {}).get("nodeName"):  # bound: only its own hint moves it
                if self.assigned_hint is None or not self.assigned_hint(event, pinfo.pod):
                    continue
            elif not moves:
                continue
            self._take_out(pinfo)
            self._place(pinfo)

    # -- the scheduling cycle -----------------------------------------------------------

    def _flush_backoff(self) -> None:
        now = self.now()
        while self._backoff and self._backoff[0][0] <= now + DUE_TOLERANCE:
            _, seq, key = heapq.heappop(self._backoff)
            pinfo = self.pods.get(key)
            if pinfo is None or pinfo.state != "backoff" or pinfo.seq != seq:
                continue
            self._activate(pinfo)

    def flush_unschedulable_leftover(self) -> None:
        now = self.now()
        for key in sorted(self._unschedulable):
            pinfo = self.pods[key]
            if now - pinfo.unschedulable_since >= self.max_unschedulable:
                self._take_out(pinfo)
                self._place(pinfo)

    def pop_nowait(self) -> QueuedPodInfo | None:
        self._flush_backoff()
        while self._active:
            _, _, seq, key = heapq.heappop(self._active)
            pinfo = self.pods.get(key)
            if pinfo is None or pinfo.state != "active" or pinfo.seq != seq:
                continue
            self._set_state(pinfo, "in-flight")
            pinfo.attempts += 1
            return pinfo
        return None

    async def pop(self) -> QueuedPodInfo:
        while True:
            pinfo = self.pop_nowait()
            if pinfo is not None:
                return pinfo
            timeout = None
            while self._backoff:
                due, seq, key = self._backoff[0]
                p = self.pods.get(key)
                if p is None or p.state != "backoff" or p.seq != seq:
                    heapq.heappop(self._backoff)
                    continue
                timeout = max(due - self.now(), 0.0)
                break
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except asyncio.TimeoutError:
                pass

    def done(self, pinfo: QueuedPodInfo) -> None:
        """The pod is bound (or no longer ours): forget it."""
        if self.pods.get(pinfo.key) is pinfo:
            del self.pods[pinfo.key]
        self._set_state(pinfo, "done")

    def unschedulable(self, pinfo: QueuedPodInfo, message: str) -> None:
        """After a failed attempt: wait for a cluster event, with backoff."""
        if self.pods.get(pinfo.key) is not pinfo:
            return
        pinfo.last_failure = message
        pinfo.backoff_until = self.now() + self.backoff_duration(pinfo.attempts)
        pinfo.unschedulable_since = self.now()
        pinfo.seq = next(self._seq)
        self._set_state(pinfo, "unschedulable")

    def retry_after_error(self, pinfo: QueuedPodInfo) -> None:
        """After an error (binding failed): straight to backoffQ."""
        if self.pods.get(pinfo.key) is not pinfo:
            return
        pinfo.backoff_until = self.now() + self.backoff_duration(pinfo.attempts)
        self._take_out(pinfo)
        self._place(pinfo)

    def take(self, keys: Sequence[str]) -> list[QueuedPodInfo]:
        """The pods of ``keys`` waiting in activeQ, backoffQ or the unschedulable set, now in flight
        with the pod just popped (one attempt of their group each)."""
        taken = []
        for key in keys:
            pinfo = self.pods.get(key)
            if pinfo is not None and pinfo.state in ("active", "backoff", "unschedulable"):
                self._take_out(pinfo)
                self._set_state(pinfo, "in-flight")
                pinfo.attempts += 1
                taken.append(pinfo)
        return taken

    def park(self, pinfo: QueuedPodInfo, rejector: str) -> None:
        """Park an in-flight pod as ``rejector`` rejected it, reporting nothing (its group waits
        for a gated member); that plugin's events bring it back."""
        if self.pods.get(pinfo.key) is not pinfo:
            return
        pinfo.rejector = rejector
        self._take_out(pinfo)
        self._set_state(pinfo, "gated")

    def requeue(self, pinfo: QueuedPodInfo) -> None:
        """Through PreEnqueue again now, keeping its backoff (a member whose PodGroup is gone)."""
        if self.pods.get(pinfo.key) is not pinfo:
            return
        self._take_out(pinfo)
        self._place(pinfo)

    def activate(self, key: str) -> None:
        """``Activate``: an unschedulable or backing-off pod goes to activeQ now (after a preemption
        whose API calls failed, so that it does not wait for an event that may never come)."""
        pinfo = self.pods.get(key)
        if pinfo is not None and pinfo.state in ("unschedulable", "backoff"):
            pinfo.backoff_until = 0.0
            self._take_out(pinfo)
            self._place(pinfo)

    def lose(self, pinfo: QueuedPodInfo) -> None:
        """Only the ``stops-on-patch-failure`` mutant: the pod is never scheduled again."""
        self._set_state(pinfo, "lost")

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for pinfo in self.pods.values():
            out[pinfo.state] = out.get(pinfo.state, 0) + 1
        return out
