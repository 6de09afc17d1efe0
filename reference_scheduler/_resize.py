"""KEP-5836: preemption for an in-place resize the kubelet deferred (alpha since v1.37).

When a running pod asks for more cpu or memory in place (KEP-1287) and its node has no room, the
kubelet marks the resize ``Deferred`` (condition ``PodResizePending``, reason ``Deferred``). With
``InPlacePodVerticalScalingSchedulerPreemption`` on (:mod:`reference_scheduler._gates`), the
scheduler queues such a pod and preempts lower-priority pods on *its own node* to make room, as
kubernetes/kubernetes PR #140000 does in v1.37 (``pkg/scheduler/framework/plugins/deferredpodscheduling``,
the integration tests ``test/integration/scheduler/preemption/deferred_resize_preemption_test.go``
``TestDeferredResizePodPreemption``, ``TestDeferredResizeQueueingHints``,
``TestDeferredResizeNodePreemptionPolicy``, ``TestDeferredResizeQueueingHandlers``; the KEP's
"Processing Deferred Resizes in the Scheduling Cycle" and "Failure Handler Adjustments for
Deferred Pods"):

* queued: a pod of this scheduler, bound, not terminating, whose first ``PodResizePending``
  condition has reason ``Deferred`` (``resource.IsPodResizeDeferred``, which reads the reason
  only), whether it turns Deferred while the scheduler watches or already is when it starts (the
  AddPod handler); it leaves the queue when the condition goes (the kubelet actuated the resize, or
  the user reverted it) or turns ``Infeasible`` (the kubelet's rejection: never queued), and when
  the pod is deleted;
* the cycle skips every plugin but the resource fit: the node the pod runs on only (NodeName's
  PreFilter), a node whose ``spec.podPreemptionPolicy.disableResizePreemption`` is non-empty fails
  with ``node had resize preemption disabled`` (DeferredPodScheduling's Filter,
  ``UnschedulableAndUnresolvable``: the pod is queued and tried, and waits), and the fit counts the
  node without the pod and the pod at ``max(spec, allocated, actual)`` (NodeResourcesFit on the
  scheduler cache's accounting, which already holds the pod's new size);
* a pod that fits is parked, ``pod resize fits, waiting for Kubelet actuation``, and nothing is
  preempted. That is DeferredPodScheduling's Permit in v1.37.2, which the real cycle never reaches:
  ``AssumePod`` comes first and fails for a pod already in the scheduler's cache, so kube-scheduler
  retries the pod on error backoff (1, 2, 4, 8, then every 10 s) until the kubelet actuates the
  resize. Neither writes anything; a retry that finds the node over-committed again preempts in
  both, on the next event here, on the next backoff there;
* otherwise DefaultPreemption runs as for a pending pod (:mod:`reference_scheduler._preemption`:
  eligibility, ``preemptionPolicy: Never``, victims by priority with PDB reprieve, the
  DisruptionTarget condition, delete and ``Preempted`` event), on that one node; a request larger
  than the node's allocatable is unresolvable, so nothing is preempted;
* the failure handler writes nothing for the pod: no ``PodScheduled`` condition, no
  ``nominatedNodeName``, and (the KEP leaves events to beta) no ``FailedScheduling`` event; the
  pod waits in the unschedulable set;
* a waiting pod goes back to the queue only on an event on its node (:meth:`ResizePreemption.requeue_on`,
  v1.37.2's queueing hints): another pod on that node added, bound, resized (its counted requests
  changed: for a downsize, when the kubelet actuates it) or deleted (NodeResourcesFit's
  ``AssignedPod/Delete``, ``UpdatePodScaleDown``, ``UpdatePodScaleUp``, made node-aware); its own
  resize changed (the queue re-runs every pod whose spec changed); its node added, or its node's
  allocatable raised (``Node/Add|UpdateNodeAllocatable``); its node's ``disableResizePreemption``
  emptied (DeferredPodScheduling's ``Node/UpdateNodePreemptionPolicy``, disabled to enabled only).
  Events elsewhere, a change of another pod that leaves its requests alone, a node's other
  changes and a policy set do not move it.

Where v1.37.2 differs, without an effect any criterion judges: it has no hint for a pod added on
the node (the reference requeues then; there the next error-backoff retry comes instead); any
node added anywhere requeues every waiting resize (NodeName registers ``Node/Add`` with no hint),
and the unschedulable pool is flushed every 5 minutes (a retry that finds no victim writes
nothing); and a terminating Deferred pod stays queued, so popping it emits a Warning
``FailedScheduling`` event ``skip schedule deleting pod: <ns>/<name>`` (the reference drops a
terminating pod, without an event).

Readings of the KEP's open questions (``docs/readings.md``): nothing tells the user
that a preemption for a resize failed (the implementation writes no status); nothing holds the
freed room but the scheduler's accounting, which already counts the pod at its new size; a
failed attempt is retried on a change on the pod's node (above), and once backoff is over; victims
are on the pod's node only. A node that disables resize preemption: the pod is queued, fails its
attempt without preempting and waits (v1.37.2's integration test finds it in the queue; an earlier
draft, when the kubelet was to report the policy through a ``PodResizePreemptionDisabled`` pod
condition, expected it not queued); writes are the same either way: none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reference_scheduler._plugins import ClusterEvent, NodeInfo, node_resources_fit
from reference_scheduler._preemption import (
    Candidate,
    DefaultPreemption,
    Nominator,
    filter_with_nominated,
    fit_error,
    terminating,
)
from reference_scheduler._resources import Resources, node_allocatable, pod_requests, resize_reason

__all__ = [
    "DEFERRED",
    "FITS_MESSAGE",
    "INFEASIBLE",
    "NODE_DISABLES",
    "ResizeOutcome",
    "ResizePreemption",
    "resize_preemption_disabled",
]

Obj = dict[str, Any]
Filter = Callable[[Obj, Resources, NodeInfo], list[str]]

DEFERRED = "Deferred"
INFEASIBLE = "Infeasible"
#: DeferredPodScheduling's Permit, for a resize that already fits its node
FITS_MESSAGE = "pod resize fits, waiting for Kubelet actuation"
#: DeferredPodScheduling's Filter (``ErrReasonNodeDisablesResizePreemption``)
NODE_DISABLES = "node had resize preemption disabled"
#: pod events on the pod's node that may change the outcome (a bound pod's update counts only
#: when its requests changed: the scheduler sends ``assigned-update`` then)
_POD_ACTIONS = frozenset({"add", "assigned", "assigned-update", "assigned-delete", "delete"})
_DELETES = frozenset({"assigned-delete", "delete"})


def resize_preemption_disabled(node: Obj) -> bool:
    """``len(node.Spec.PodPreemptionPolicy.DisableResizePreemption) > 0``."""
    policy = (node.get("spec") or {}).get("podPreemptionPolicy") or {}
    return bool(policy.get("disableResizePreemption"))


def _allocatable_grew(old: Obj, new: Obj) -> bool:
    """Some allocatable resource of the node is larger than before (``UpdateNodeAllocatable``
    that may let a pod fit)."""
    before, after = node_allocatable(old), node_allocatable(new)
    return (after.milli_cpu > before.milli_cpu or after.memory > before.memory or after.pods > before.pods)


def _node_of(pod: Obj) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


@dataclass(frozen=True)
class ResizeOutcome:
    """Why the attempt ends unschedulable (never written, but by the ``resize-writes-pod-scheduled``
    mutant), and what to preempt (None when nothing is)."""

    message: str
    candidate: Candidate | None = None


class ResizePreemption:
    """Which pods take a resize cycle (:meth:`wants`), the cycle (:meth:`cycle`) and when a waiting
    pod is queued again (:meth:`requeue_on`); ``enabled`` is the gate. The switches below exist
    only for the mutants (:mod:`reference_scheduler._mutants`); ``writes_pod_scheduled`` and the
    last four are read by the scheduler (:mod:`reference_scheduler._scheduler`: its pod handlers
    and its cycle)."""

    def __init__(self, preemption: DefaultPreemption, nominator: Nominator, *, enabled: bool) -> None:
        self.preemption = preemption
        self.nominator = nominator
        self.enabled = enabled
        self.victims_on_every_node = False
        self.counts_own_resources = False
        self.honours_disable_policy = True
        self.accepts_infeasible = False
        self.writes_pod_scheduled = False
        #: False: a pod deleted on another node requeues a waiting resize, one on its own node not
        self.requeues_on_deletes_here = True
        #: False: another pod on the node resized (its counted requests changed) requeues nothing
        self.requeues_on_neighbour_resize = True
        #: False: the node's allocatable raised requeues nothing
        self.requeues_on_allocatable_up = True
        #: False: the node's disableResizePreemption emptied requeues nothing
        self.requeues_on_policy_lifted = True
        #: False: the pod's own resize changed while it waits only updates the queued copy
        self.requeues_on_own_change = True
        #: False: a pod already Deferred when the scheduler starts is not queued
        self.queues_deferred_at_start = True
        #: False: a waiting resize stays queued when its pod is deleted, and is tried as queued
        self.forgets_deleted = True
        #: False: a waiting resize stays queued when its kubelet answers Infeasible, tried as queued
        self.forgets_infeasible = True

    def wants(self, pod: Obj) -> bool:
        """A bound, live pod with a Deferred resize (the caller checks it is this scheduler's)."""
        if not self.enabled or not _node_of(pod) or terminating(pod):
            return False
        reason = resize_reason(pod)
        return reason == DEFERRED or (self.accepts_infeasible and reason == INFEASIBLE)

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        """Whether ``event`` may change the outcome for ``pod``, a waiting resize: only events on
        its node (module docstring)."""
        node = _node_of(pod)
        if event.resource == "nodes":
            if (event.obj.get("metadata") or {}).get("name") != node:
                return False
            if event.action != "update":
                return event.action == "add"
            return event.old is None or self._node_change_helps(event.old, event.obj)  # no old: assume it may
        if event.resource != "pods" or event.action not in _POD_ACTIONS or _key(event.obj) == _key(pod):
            return False
        here = _node_of(event.obj) == node
        if event.action in _DELETES and not self.requeues_on_deletes_here:
            return not here  # only the resize-requeues-on-deletes-elsewhere mutant
        if event.action == "assigned-update" and not self.requeues_on_neighbour_resize:
            return False  # only the resize-ignores-neighbour-scale-down mutant
        return here

    def _node_change_helps(self, old: Obj, new: Obj) -> bool:
        """An update of the pod's node that may let preemption help now: its policy emptied
        (DeferredPodScheduling's hint) or its allocatable raised (NodeResourcesFit's)."""
        lifted = resize_preemption_disabled(old) and not resize_preemption_disabled(new)
        return ((lifted and self.requeues_on_policy_lifted)
                or (_allocatable_grew(old, new) and self.requeues_on_allocatable_up))

    def _fit(self, pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
        """The resource fit alone, with the nominated pods (``RunFilterPluginsWithNominatedPods``)."""
        return filter_with_nominated(pod, req, info, self.nominator.pods_for(info.name), node_resources_fit)

    def cycle(self, pod: Obj, nodes: Sequence[NodeInfo]) -> ResizeOutcome:
        """One attempt for a Deferred resize on ``nodes`` (the snapshot, the pod on its node)."""
        own = next((info for info in nodes if info.name == _node_of(pod)), None)
        if own is None:
            return ResizeOutcome(f'node "{_node_of(pod)}" not found')
        if self.honours_disable_policy and resize_preemption_disabled(own.node):
            return ResizeOutcome(fit_error(1, {own.name: [NODE_DISABLES]}))
        req = pod_requests(pod, use_status=own.use_status, infeasible=False)
        work = own.clone()
        work.remove_pod(pod)  # the snapshot adjustment: the pod counts once, at its new size
        failed = self._fit(pod, req, work)
        if not failed:
            return ResizeOutcome(FITS_MESSAGE)
        statuses: dict[str, Sequence[str]] = {own.name: failed}
        candidates = [work]
        if self.victims_on_every_node:
            for info in nodes:
                if info.name != own.name:
                    reasons = self._fit(pod, req, info)
                    if reasons:
                        statuses[info.name] = reasons
                        candidates.append(info)
        message = fit_error(len(candidates), statuses)
        run: Filter = self._with_old_resources(pod, own) if self.counts_own_resources else self._fit
        outcome = self.preemption.post_filter(pod, req, candidates, statuses, run)
        if outcome.candidate is None:
            return ResizeOutcome(f"{message} {outcome.message}")
        return ResizeOutcome(message, outcome.candidate)

    def _with_old_resources(self, pod: Obj, own: NodeInfo) -> Filter:
        """Only the ``resize-counts-own-resources`` mutant: the victim search on the pod's node
        still counts the pod's old (status) resources besides its new request."""
        old = pod_requests(pod, use_status=own.use_status, infeasible=True)
        old.pods = 0

        def run(p: Obj, r: Resources, info: NodeInfo) -> list[str]:
            if info.name != own.name:
                return self._fit(p, r, info)
            with_old = info.clone()
            with_old.requested.add(old)
            return self._fit(p, r, with_old)

        return run
