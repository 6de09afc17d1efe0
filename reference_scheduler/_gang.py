"""KEP-4671 gangs: ``scheduling.k8s.io/v1beta1`` PodGroups, scheduled all or nothing.

Only with ``GenericWorkload`` on (:mod:`reference_scheduler._gates`); off, a pod's
``spec.schedulingGroup`` is ignored and its pods are scheduled one by one. With it on, as
kube-scheduler v1.37 does it (``pkg/scheduler/schedule_one_podgroup.go``, the GangScheduling
plugin ``pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go``, the queue's pod-group
entities ``pkg/scheduler/backend/queue/scheduling_queue.go``):

* a pod whose ``spec.schedulingGroup.podGroupName`` names a PodGroup belongs to that PodGroup of
  its namespace. :class:`GangScheduling` is the PreEnqueue plugin: a pod whose PodGroup is not in
  the informer's cache is rejected with ``waiting for pods's pod group "<name>" to appear in
  scheduling queue``; a gang (``spec.schedulingPolicy.gang.minCount``) with fewer pods than
  ``minCount`` (unscheduled ones, gated ones included, and bound ones) with ``waiting for minCount
  pods from a gang to appear in scheduling queue``; a ``basic`` group has no quorum. kube-scheduler
  keeps a pod of a missing PodGroup out of the queue without running PreEnqueue at all, so with
  ``SchedulerPreEnqueuePodStatus`` off nothing is written either way; with it on, the rejection is
  reported like any other (:mod:`reference_scheduler._reporting`). A member of a group one of whose
  pods has scheduling gates is parked without a rejection of its own (the whole entity is gated);
  ungating or deleting that pod brings the group back;
* a group is scheduled in one cycle (:class:`GangCycle`): popping one member takes the others
  that wait (:meth:`~reference_scheduler._queue.SchedulingQueue.take`); every pod's priority must
  equal the PodGroup's ``spec.priority`` (nil is 0), else ``all pods in a single pod group should
  have the same priority as the pod group's priority, got <pod> and <group>`` fails the group with
  ``SchedulerError``; the pods are ordered (priority, attempts, then queue time and name) and
  placed one by one on a copy of the nodes with the filters and the scoring single pods get (the
  nominated node first), each placed pod counted on its node for the next, PlacementFeasible
  checked before the first pod and after each (:func:`place_group`, ``minCount`` 1 for a basic
  group): ``minCount (m) cannot be satisfied: s scheduled, r remaining`` ends the attempt. The
  per-pod PostFilter is not run; when the group is unschedulable, pod-group preemption is
  (:mod:`reference_scheduler._gangpreemption`) and its message follows after ``, ``;
* the outcome, per pod (``submitPodGroupAlgorithmResult``): a placed pod of a successful group is
  bound; a pod that did not fit gets its own fit error; a placed pod of a failed group gets
  ``pod group is unschedulable, <group message>`` and its ``nominatedNodeName`` cleared (nothing
  stays reserved), or, when preemption made room, the group message and the node preemption found
  for it; a pod not looked at gets the group's message as it stood before preemption. Each failure
  is a ``FailedScheduling`` event and a ``PodScheduled=False`` patch, as for a single pod, and
  the pod goes to backoffQ (a group is retried after its backoff, never parked). A pod joining a
  gang that already has ``minCount`` bound members is placed alone;
* the PodGroup's ``PodGroupInitiallyScheduled`` condition (``updatePodGroupCondition``): True,
  ``Scheduled``, ``""`` when the group is placed; False, ``Unschedulable`` and the group message
  when it is not; False, ``SchedulerError`` and the error on an error; never from True back to
  False; ``observedGeneration`` the PodGroup's generation; patched through ``/status`` with the
  strategic merge patch of ``status.conditions`` (``PatchPodGroupStatus``) only when it changes
  (``meta.SetStatusCondition``: ``lastTransitionTime`` moves only with the status). The PodGroup
  read is the fresher of the informer's copy and the answer to the last patch.

Not done: composite pod groups, topology-aware placement, the Permit wait (the group's quorum is
reached in the cycle itself, so kube-scheduler's Permit only waits when a member fails Reserve
after its group was placed, which cannot happen here), the DefaultPreemption PreEnqueue that holds
a group while its victims' API calls run, and the checks of scheduler name and preemption policy.

The attributes marked as switches exist only for the mutants (:mod:`reference_scheduler._mutants`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kubeclient import Informer, KubeClient, STRATEGIC_MERGE_PATCH, resource_path
from reference_scheduler._clock import Clock, format_time
from reference_scheduler._conditions import UNSCHEDULABLE, status_patch
from reference_scheduler._dispatcher import fresher
from reference_scheduler._gangpreemption import GroupPostFilterResult, PodGroupPreemption
from reference_scheduler._plugins import (
    ClusterEvent,
    DynamicResources,
    FilterPlugin,
    NodeInfo,
    filter_node,
    least_allocated,
)
from reference_scheduler._podinfo import QueuedPodInfo, group_key_of, pod_group_name, pod_key
from reference_scheduler._preemption import Nominator, filter_with_nominated, fit_error, terminating
from reference_scheduler._queue import SchedulingQueue
from reference_scheduler._resources import pod_requests
from reference_scheduler._writers import nominated_of

__all__ = [
    "GANG_SCHEDULING",
    "GROUP_UNSCHEDULABLE",
    "INITIALLY_SCHEDULED",
    "NO_NODES_GROUP_MESSAGE",
    "PODGROUPS",
    "PODGROUP_EVENTS",
    "QUORUM_MESSAGE",
    "GangCycle",
    "GangHost",
    "GangScheduling",
    "GroupResult",
    "PodResult",
    "group_key_of",
    "missing_message",
    "place_group",
]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler.gang")

#: Where PodGroups are served: group, version, resource.
PODGROUPS = ("scheduling.k8s.io", "v1beta1", "podgroups")
#: The resource name of the PodGroups' cluster events (the custom resource's are ``podgroups``).
PODGROUP_EVENTS = "workload-podgroups"
GANG_SCHEDULING = "GangScheduling"
QUORUM_MESSAGE = "waiting for minCount pods from a gang to appear in scheduling queue"
GROUP_UNSCHEDULABLE = "pod group is unschedulable"  # errPodGroupUnschedulable
INITIALLY_SCHEDULED = "PodGroupInitiallyScheduled"
SCHEDULER_ERROR = "SchedulerError"
NO_NODES_GROUP_MESSAGE = "failed to schedule other pod from a pod group: no nodes available to schedule pods"


def missing_message(name: str) -> str:
    return f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'


def group_priority(pg: Obj) -> int:
    return int((pg.get("spec") or {}).get("priority") or 0)


def min_count(pg: Obj) -> int:
    """``getMinCount``: the gang's ``minCount``, 1 for a basic group."""
    gang = ((pg.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
    return int(gang.get("minCount") or 0) if isinstance(gang, dict) else 1


def _bound(pod: Obj) -> bool:
    return bool((pod.get("spec") or {}).get("nodeName"))


class GangScheduling:
    """GangScheduling's PreEnqueue (module docstring); ``pods`` is every pod the informer holds,
    ``podgroup`` looks a PodGroup up by ``ns/name``."""

    name = GANG_SCHEDULING
    events = frozenset({"pods", PODGROUP_EVENTS})

    def __init__(self, pods: Callable[[], list[Obj]], podgroup: Callable[[str], Obj | None]) -> None:
        self.pods = pods
        self.podgroup = podgroup
        #: switch: taken off every gang's minCount (1 only for the gang-min-count-off-by-one mutant)
        self.min_count_slack = 0
        #: switch: False only for the gang-ignores-gated-members mutant (a gated member holds nobody)
        self.holds_for_gated = True
        #: switch: False only for the gang-missing-group-ignored mutant (a pod of a missing PodGroup is a plain pod)
        self.waits_for_group = True

    def need(self, pg: Obj) -> int:
        return min_count(pg) - self.min_count_slack if min_count(pg) > 1 else min_count(pg)

    def members(self, key: str) -> list[Obj]:
        return [p for p in self.pods() if group_key_of(p) == key]

    def pre_enqueue(self, pod: Obj) -> str | None:
        key = group_key_of(pod)
        if not key:
            return None
        pg = self.podgroup(key)
        if pg is None:
            return missing_message(pod_group_name(pod)) if self.waits_for_group else None
        if not isinstance(((pg.get("spec") or {}).get("schedulingPolicy") or {}).get("gang"), dict):
            return None  # basic
        if len(self.members(key)) < self.need(pg):
            return QUORUM_MESSAGE
        return None

    def holds(self, pod: Obj) -> str | None:
        """The queue's hold: :data:`GANG_SCHEDULING` while another unbound member has gates."""
        key = group_key_of(pod)
        if not key or not self.holds_for_gated:
            return None
        for other in self.members(key):
            if not _bound(other) and (other.get("spec") or {}).get("schedulingGates"):
                return GANG_SCHEDULING
        return None

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        key = group_key_of(pod)
        if event.resource == PODGROUP_EVENTS:
            meta = event.obj.get("metadata") or {}
            return key == f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        return event.resource == "pods" and bool(key) and group_key_of(event.obj) == key


# -- the algorithm ------------------------------------------------------------------------------


@dataclass
class PodResult:
    """One pod's outcome in a group attempt: ``node`` it was placed on (None: not placed), the
    message it fails with when not placed, and whether it was looked at."""

    pinfo: QueuedPodInfo
    node: NodeInfo | None = None
    message: str = ""
    evaluated: bool = True


@dataclass
class GroupResult:
    """``code``: ``success``, ``unschedulable`` or ``error``; ``wrapped``: the status carries
    ``errPodGroupUnschedulable``, whose text then leads the message (``Status.Reasons``)."""

    code: str
    reasons: list[str] = field(default_factory=list)
    wrapped: bool = False
    results: list[PodResult] = field(default_factory=list)

    @property
    def message(self) -> str:
        return ", ".join(([GROUP_UNSCHEDULABLE] if self.wrapped else []) + self.reasons)

    @property
    def placements(self) -> list[tuple[Obj, str]]:
        """Each placed pod and its node, in the attempt's order."""
        return [(r.pinfo.pod, r.node.name) for r in self.results if r.node is not None]


Fit = Callable[[Obj, list[NodeInfo]], "tuple[NodeInfo | None, str]"]


def _feasible(need: int, scheduled: int, remaining: int) -> tuple[str, str]:
    """GangScheduling's PlacementFeasible: ``unschedulable``, ``wait`` or ``ok``, and the message."""
    if remaining + scheduled < need:
        return "unschedulable", f"minCount ({need}) cannot be satisfied: {scheduled} scheduled, {remaining} remaining"
    if scheduled < need:
        return "wait", f"minCount ({need}) is not yet satisfied: {scheduled} scheduled, {remaining} remaining"
    return "ok", ""


def place_group(pinfos: Sequence[QueuedPodInfo], nodes: list[NodeInfo], bound: int, need: int,
                fit: Fit) -> GroupResult:
    """``podGroupSchedulingDefaultAlgorithm`` and ``runRootSchedulingAlgorithm`` on ``nodes`` (a
    copy: each placed pod is added to its node). Every pod has a result (unlooked-at ones carry
    the group's message, ``completePodGroupAlgorithmResult``)."""
    scheduled, remaining = bound, len(pinfos)
    code, message = _feasible(need, scheduled, remaining)
    result = GroupResult("unschedulable", [message], wrapped=True)
    if code != "unschedulable":
        result = GroupResult("success" if code == "ok" else "wait", [message] if message else [])
        any_scheduled = False
        for pinfo in pinfos:
            node, why = fit(pinfo.pod, nodes)
            if node is not None:
                node.add_pod(pinfo.pod)
            result.results.append(PodResult(pinfo, node, why))
            remaining -= 1
            scheduled += node is not None
            code, message = _feasible(need, scheduled, remaining)
            result.code, result.reasons = ("success", []) if code == "ok" else (code, [message])
            if code == "unschedulable":
                break
            any_scheduled = any_scheduled or node is not None
        if result.code == "wait":
            result.code, result.wrapped = "unschedulable", True
        elif result.code == "success" and not any_scheduled:
            result.code, result.reasons, result.wrapped = "unschedulable", [], True
    for pinfo in pinfos[len(result.results):]:
        result.results.append(PodResult(pinfo, None, result.message, evaluated=False))
    return result


# -- the cycle ----------------------------------------------------------------------------------


class GangHost(Protocol):
    """What :class:`GangCycle` uses of the scheduler (which satisfies it structurally)."""

    client: KubeClient
    clock: Clock
    pods: Informer
    queue: SchedulingQueue
    nominator: Nominator
    dynamic_resources: DynamicResources
    filters: tuple[tuple[str, FilterPlugin], ...]
    counts_fit_reasons: bool
    scheduler_name: str
    assumed: dict[str, tuple[str, Obj]]

    def snapshot(self) -> list[NodeInfo]: ...

    def responsible_for(self, pod: Obj) -> bool: ...

    def record_failure(self, pinfo: QueuedPodInfo, reason: str, message: str, *, error: bool = False,
                       nominated: str | None = None, backoff: bool = False) -> None: ...

    def bind_on(self, pinfo: QueuedPodInfo, pod: Obj, node: NodeInfo, num_nodes: int) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None: ...

    def preempt_victims(self, victims: Sequence[Obj], preemptor: Obj, members: Sequence[str]) -> None: ...


class GangCycle:
    """The PodGroups' informer, their PreEnqueue plugin, their scheduling cycle and their status."""

    def __init__(self, host: GangHost, podgroups: Informer, preemption: PodGroupPreemption) -> None:
        self.host = host
        self.podgroups = podgroups
        self.plugin = GangScheduling(host.pods.values, self.podgroup)
        self.preemption = preemption
        self._written: dict[str, Obj] = {}  # ns/name -> the answer to the last status patch
        self._failing_since: dict[str, float] = {}  # ns/name -> when its attempts started failing
        self.patches = 0
        #: switch: a failed gang's placed pods are bound anyway (gang-partial-binding)
        self.binds_partial = False
        #: switch: False only for the gang-late-member-held mutant (bound members do not count to minCount)
        self.counts_bound = True
        #: switch: seconds a gang must have been failing before a failed attempt keeps its pods'
        #: room, nominated to their nodes (gang-reservation-leaked: 0; gang-timeout-ignored: 300)
        self.leaks_after: float | None = None

    def podgroup(self, key: str) -> Obj | None:
        cached = self.podgroups.get(key)
        return fresher(self._written.get(key), cached) if cached is not None else None

    def member(self, pod: Obj) -> bool:
        key = group_key_of(pod)
        return bool(key) and (self.plugin.waits_for_group or self.podgroup(key) is not None)

    def forget(self, pg: Obj) -> None:
        """The PodGroup was deleted."""
        meta = pg.get("metadata") or {}
        self._written.pop(f"{meta.get('namespace', '')}/{meta.get('name', '')}", None)

    # -- one attempt --------------------------------------------------------------------------

    def schedule(self, popped: QueuedPodInfo) -> None:
        """``scheduleOnePodGroup`` for the group of ``popped`` (whose pod is current)."""
        h = self.host
        key = group_key_of(popped.pod)
        pg = self.podgroup(key)
        if pg is None:  # deleted since: back to PreEnqueue, which holds it
            h.queue.requeue(popped)
            return
        others = [pod_key(p) for p in self.plugin.members(key) if not _bound(p) and pod_key(p) != popped.key]
        pinfos: list[QueuedPodInfo] = []
        for pinfo in [popped, *h.queue.take(others)]:
            pod = h.pods.get(pinfo.key)
            if pod is None or not h.responsible_for(pod) or pinfo.key in h.assumed or terminating(pod):
                h.queue.done(pinfo)  # skipPodGroupPodSchedule
                continue
            pinfo.pod = pod
            pinfos.append(pinfo)
        if not pinfos:
            return
        if self.plugin.holds(popped.pod):
            for pinfo in pinfos:
                h.queue.park(pinfo, GANG_SCHEDULING)
            return
        want = group_priority(pg)
        for pinfo in pinfos:
            if pinfo.priority != want:
                self._error(pg, pinfos, "all pods in a single pod group should have the same priority as the pod "
                                        f"group's priority, got {pinfo.priority} and {want}")
                return
        pinfos.sort(key=lambda p: (-p.priority, -p.attempts, p.timestamp, p.key))
        nodes = h.snapshot()
        if not nodes:
            self._error(pg, pinfos, NO_NODES_GROUP_MESSAGE)
            return
        keys = frozenset(p.key for p in pinfos)
        bound = self._scheduled_count(key) if self.counts_bound else 0
        need = self.plugin.need(pg)
        result = place_group(pinfos, nodes, bound, need, lambda pod, ns: self.fit(pod, ns, keys))
        post: GroupPostFilterResult | None = None
        if result.code == "unschedulable":
            post = self.preemption.post_filter(
                pg, [p.pod for p in pinfos], h.snapshot(),
                lambda ns: place_group(pinfos, [n.clone() for n in ns], bound, need,
                                       lambda pod, nn: self.fit(pod, nn, keys)),
                lambda pod, info: self.check(pod, info, keys))
            result.reasons.append(post.message)
            if post.victims:
                h.preempt_victims(post.victims, pg, sorted(keys))
        self._submit(pg, result, post, len(nodes))

    def _scheduled_count(self, key: str) -> int:
        """``ScheduledPodsCount``: bound and assumed members."""
        bound = {pod_key(p) for p in self.plugin.members(key) if _bound(p)}
        assumed = {k for k, (_, p) in self.host.assumed.items() if group_key_of(p) == key}
        return len(bound | assumed)

    def check(self, pod: Obj, info: NodeInfo, members: frozenset[str]) -> list[str]:
        """The filters with the pods nominated to the node, the group's own left out (they are
        placed in the attempt itself)."""
        h = self.host
        nominated = [p for p in h.nominator.pods_for(info.name) if pod_key(p) not in members]
        return filter_with_nominated(pod, pod_requests(pod), info, nominated,
                                     lambda p, r, i: filter_node(p, r, i, h.filters))

    def fit(self, pod: Obj, nodes: list[NodeInfo], members: frozenset[str]) -> tuple[NodeInfo | None, str]:
        """One pod's ``schedulingAlgorithm``: its node, or None and its fit error."""
        h = self.host
        if (pod.get("spec") or {}).get("resourceClaims"):
            problem = h.dynamic_resources.pre_filter(pod)
            if problem:
                return None, f"0/{len(nodes)} nodes are available: {problem}."
        nominated = next((i for i in nodes if i.name == nominated_of(pod)), None)
        if nominated is not None and not self.check(pod, nominated, members):
            return nominated, ""
        statuses: dict[str, list[str]] = {}
        feasible = []
        for info in nodes:
            failed = self.check(pod, info, members)
            if failed:
                statuses[info.name] = failed
            else:
                feasible.append(info)
        if not feasible:
            return None, fit_error(len(nodes), statuses, counted=h.counts_fit_reasons)
        req = pod_requests(pod)
        return min(feasible, key=lambda i: (least_allocated(i, req), i.name)), ""

    def _error(self, pg: Obj, pinfos: Sequence[QueuedPodInfo], message: str) -> None:
        """``handlePodGroupFailureBeforeScheduling``."""
        for pinfo in pinfos:
            self.host.record_failure(pinfo, SCHEDULER_ERROR, message, error=True)
        self.set_condition(pg, "False", SCHEDULER_ERROR, message)

    def _submit(self, pg: Obj, result: GroupResult, post: GroupPostFilterResult | None, num_nodes: int) -> None:
        """``submitPodGroupAlgorithmResult``."""
        h = self.host
        key = f"{pg['metadata'].get('namespace', '')}/{pg['metadata'].get('name', '')}"
        waiting = post is not None and post.success
        now = h.queue.now()
        if result.code == "success":
            self._failing_since.pop(key, None)
        else:
            self._failing_since.setdefault(key, now)
        leaks = self.leaks_after is not None and now - self._failing_since.get(key, now) >= self.leaks_after
        for r in result.results:
            nominated = post.nominating.get(r.pinfo.key) if waiting and post is not None else None
            if r.node is None:
                h.record_failure(r.pinfo, UNSCHEDULABLE, r.message, nominated=nominated, backoff=True)
            elif result.code == "success" or (self.binds_partial and not waiting):
                h.bind_on(r.pinfo, r.pinfo.pod, r.node, num_nodes)
            elif waiting:
                h.record_failure(r.pinfo, UNSCHEDULABLE, result.message, nominated=nominated, backoff=True)
            else:
                h.record_failure(r.pinfo, UNSCHEDULABLE, f"{GROUP_UNSCHEDULABLE}, {result.message}",
                                 nominated=r.node.name if leaks else "", backoff=True)
        if result.code == "success":
            self.set_condition(pg, "True", "Scheduled", "")
        else:
            self.set_condition(pg, "False", UNSCHEDULABLE, result.message)

    # -- the PodGroup's condition -------------------------------------------------------------

    def set_condition(self, pg: Obj, status: str, reason: str, message: str) -> None:
        """``updatePodGroupCondition`` (module docstring); the patch is sent in a task."""
        meta = pg.get("metadata") or {}
        key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        current = self.podgroup(key) or pg
        old = list((current.get("status") or {}).get("conditions") or [])
        existing = next((c for c in old if c.get("type") == INITIALLY_SCHEDULED), None)
        if existing is not None and existing.get("status") == "True" and status != "True":
            return
        condition: Obj = {"type": INITIALLY_SCHEDULED, "status": status, "reason": reason, "message": message}
        generation = meta.get("generation")
        if generation:
            condition["observedGeneration"] = generation
        now = format_time(self.host.clock.now())
        if existing is None:
            new = [*old, {**condition, "lastTransitionTime": now}]
        else:
            changed = any(existing.get(k) != condition.get(k) for k in ("status", "reason", "message", "observedGeneration"))
            if not changed:
                return
            moved = existing.get("status") != status
            updated = {**existing, **condition, "lastTransitionTime": now if moved else existing.get("lastTransitionTime")}
            if "observedGeneration" not in condition:
                updated.pop("observedGeneration", None)
            new = [updated if c is existing else c for c in old]
        body = status_patch(old, new)
        if body is None:
            return
        self._written[key] = {**current, "status": {**(current.get("status") or {}), "conditions": new}}
        path = resource_path(*PODGROUPS, str(meta.get("namespace", "")), str(meta.get("name", ""))) + "/status"

        async def send() -> None:
            try:
                answer = await self.host.client.patch(path, body, STRATEGIC_MERGE_PATCH)
            except Exception as e:  # logged, as kube-scheduler's HandleError does; the next attempt writes again
                log.warning("PodGroup %s status not written: %s", key, e)
                self._written.pop(key, None)
                return
            self.patches += 1
            if isinstance(answer, dict):
                self._written[key] = answer

        self.host.spawn(send(), f"podgroup-status-{key}")

