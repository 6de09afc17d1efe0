"""The reference scheduler: informers, queue, filters, binding, KEP-5501 reporting.

:class:`Scheduler` runs in-process on the current event loop (``await start()``, ``await stop()``)
and talks to the API server only over HTTP, like kube-scheduler. One scheduling cycle at a time
pops a pod, checks its ResourceClaims again (DynamicResources' PreFilter: a claim gone or being
deleted since PreEnqueue fails the attempt), runs the filters on every node (no sampling, no
scoring plugins beyond "least requested cpu+memory, then name", so results are deterministic),
and either records the failure (``PodScheduled=False``, reason ``Unschedulable`` with
``0/N nodes are available: ...``, or ``SchedulerError``; a ``Warning FailedScheduling`` event,
action ``Scheduling``; ``docs/api-facts.md`` §status-write) or assumes the pod on the chosen node and
starts a binding cycle (DRA PreBind, then ``POST pods/binding``, then a ``Normal Scheduled``
event, action ``Binding``, ``Successfully assigned ns/p to node``; D.4). The filters count the
pods nominated to a node with at least the pod's priority, and a pod's own nominated node is tried
first. When no node fits, DefaultPreemption runs (:mod:`reference_scheduler._preemption`): it may
delete lower-priority victims in a task of its own and nominate a node, which the failure's status
patch records in ``nominatedNodeName``; when it cannot help, its ``preemption: ...`` message follows
the fit error. A terminating pod keeps its room until it is deleted, so a preemptor binds only once
its victims are gone. A PreFilter rejection (DRA) gets no preemption and no PostFilter message.

With ``SchedulerAsyncAPICalls`` on, status patches and bindings go through the
:class:`~reference_scheduler._dispatcher.ApiDispatcher`; off, they are sent directly. KEP-5501
reporting needs both gates (:mod:`reference_scheduler._gates`).

With ``InPlacePodVerticalScalingSchedulerPreemption`` on, a bound pod of this scheduler whose
resize the kubelet deferred is queued too, and its cycle only preempts on its own node, writing
nothing for the pod itself (:mod:`reference_scheduler._resize`, KEP-5836). The nodes count every
pod at ``max(spec, allocated, actual)`` while ``InPlacePodVerticalScaling`` is on
(:mod:`reference_scheduler._resources`).

PodGroups (``scheduling.x-k8s.io/v1alpha1``, a custom resource that GangQuorum reads) have an
informer like every kind a plugin reads, with one difference: it starts when a pod first asks for
its PodGroup. A cluster without the PodGroup CRD, which is most of them, thus costs no request and
no journal entry, and the conformance runs see the traffic they always saw. Until its first list,
and while the CRD is absent (the informer then looks again every 30 s), a pod of a PodGroup is
held as one whose group is not found; the list's adds re-queue it.

With ``GenericWorkload`` on, ``scheduling.k8s.io/v1beta1`` PodGroups have an informer from the
start, if the server's discovery lists them (else none is ever found, and the pods naming one
wait for it), and a popped member of one is scheduled with its whole group
(:mod:`reference_scheduler._gang`); an update that removes a member's scheduling gates is a
cluster event for the rest of its group.

A failed status patch never stops scheduling: "This failure is logged, but it does not crash the
scheduler or affect the scheduling" (KEP-5501, Troubleshooting); see
:mod:`reference_scheduler._reporting` for the retry.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any

from kubeclient import Informer, KubeClient, NotFoundError
from reference_scheduler._clock import Clock, format_time
from reference_scheduler._conditions import UNSCHEDULABLE
from reference_scheduler._dispatcher import ApiCall, ApiDispatcher, CallResult, PodBindingCall, PodStatusPatchCall
from reference_scheduler._dra import ClaimAllocator, pod_claim_names
from reference_scheduler._events import EventRecorder, truncate_note
from reference_scheduler._gang import PODGROUP_EVENTS, PODGROUPS, GangCycle, group_key_of
from reference_scheduler._gangpreemption import PodGroupPreemption
from reference_scheduler._gates import FeatureGates
from reference_scheduler._mutants import get_mutant
from reference_scheduler._plugins import (
    ClusterEvent,
    DynamicResources,
    FilterPlugin,
    POD_GROUP_RESOURCE,
    GangQuorum,
    NodeInfo,
    PreEnqueuePlugin,
    SchedulingGates,
    filter_node,
    least_allocated,
)
from reference_scheduler._preemption import (
    Candidate,
    DefaultPreemption,
    Nominator,
    filter_with_nominated,
    fit_error,
    terminating,
)
from reference_scheduler._podinfo import QueuedPodInfo, pod_key
from reference_scheduler._queue import SchedulingQueue, only_status_changed
from reference_scheduler._reporting import DEFAULT_DELAY, PreEnqueueStatusReporter
from reference_scheduler._resize import INFEASIBLE, ResizePreemption
from reference_scheduler._resources import Resources, pod_requests, resize_reason
from reference_scheduler._writers import STRATEGIC, ConditionWriter, nominated_of

__all__ = ["Scheduler", "SCHEDULER_ERROR", "NO_NODES_MESSAGE", "POD_FIELD_SELECTOR"]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler")
#: where the informers' warnings go, among the scheduler's own
INFORMER_LOG = logging.getLogger("reference_scheduler.informer")
#: the pod informer's field selector, kube-scheduler's (``newPodInformer``): a pod that turns
#: terminal arrives as ``DELETED``
POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"

SCHEDULER_ERROR = "SchedulerError"
#: DynamicResources' PostFilter when it has no allocated claim to free (``dynamicresources.go``),
#: which is always so here: the reference never deallocates a claim to make room.
DRA_POST_FILTER_MESSAGE = "no new claims to deallocate"
NO_NODES_MESSAGE = "no nodes available to schedule pods"
LEFTOVER_FLUSH_PERIOD = 30.0


class Scheduler:
    """``Scheduler(kubeconfig, clock=VirtualClock(loop))``; ``await s.start()`` ... ``await s.stop()``.

    ``pre_enqueue`` adds PreEnqueue plugins after the built-in ones (SchedulingGates,
    DynamicResources, GangQuorum); ``mutant`` names a variant
    (:data:`reference_scheduler._mutants.VARIANTS`: a broken mutant, a control or a shape variant).

    ``writer`` sends every status condition write (:meth:`use_writer`); ``namespaces``, when
    set, limits the pods the scheduler takes to those namespaces (None: every namespace)."""

    def __init__(
        self,
        kubeconfig: str | Path | Mapping[str, Any] | KubeClient,
        *,
        clock: Clock,
        gates: FeatureGates | None = None,
        delay: float = DEFAULT_DELAY,
        mutant: str | None = None,
        scheduler_name: str = "default-scheduler",
        pre_enqueue: Sequence[PreEnqueuePlugin] = (),
        parallelism: int = 16,
        reporting_instance: str = "default-scheduler-reference",
    ) -> None:
        self.mutant = get_mutant(mutant) if mutant else None
        self.gates = gates or FeatureGates()
        if self.mutant is None or self.mutant.checks_gates:
            self.gates = self.gates.validate()
        self.clock = clock
        self.delay = delay
        self.scheduler_name = scheduler_name
        self.parallelism = parallelism
        self.client = kubeconfig if isinstance(kubeconfig, KubeClient) else KubeClient(kubeconfig)
        self._own_client = not isinstance(kubeconfig, KubeClient)
        self.pods = Informer(self.client, "", "v1", "pods", field_selector=POD_FIELD_SELECTOR,
                            logger=INFORMER_LOG)
        self.nodes = Informer(self.client, "", "v1", "nodes", logger=INFORMER_LOG)
        self.claims = Informer(self.client, "resource.k8s.io", "v1", "resourceclaims", logger=INFORMER_LOG)
        self.slices = Informer(self.client, "resource.k8s.io", "v1", "resourceslices", logger=INFORMER_LOG)
        self.classes = Informer(self.client, "resource.k8s.io", "v1", "deviceclasses", logger=INFORMER_LOG)
        self.pdbs = Informer(self.client, "policy", "v1", "poddisruptionbudgets", logger=INFORMER_LOG)
        self.informers = [self.pods, self.nodes, self.claims, self.slices, self.classes, self.pdbs]
        # started on demand (module docstring)
        self.podgroups = Informer(self.client, *POD_GROUP_RESOURCE, logger=INFORMER_LOG)
        self.recorder = EventRecorder(self.client, clock, reporting_instance=reporting_instance)
        self.dispatcher: ApiDispatcher | None = None
        if self.gates.async_api_calls:
            self.dispatcher = ApiDispatcher(self.client, clock, self.pods.get, parallelism=parallelism)
        self.scheduling_gates = SchedulingGates(unified_message=self.gates.pre_enqueue_pod_status)
        self.dynamic_resources = DynamicResources(self.claims.get)
        self.assumed: dict[str, tuple[str, Obj]] = {}  # pod key -> (node, pod)
        #: KEP-4671's PodGroups, only with GenericWorkload on (:mod:`reference_scheduler._gang`)
        self.gang: GangCycle | None = None
        if self.gates.generic_workload:
            self.gang = GangCycle(self, Informer(self.client, *PODGROUPS, logger=INFORMER_LOG),
                                  PodGroupPreemption(self.pdbs.values, self._workload_podgroup, clock.now))
            self.informers.append(self.gang.podgroups)
        self.plugins: list[PreEnqueuePlugin] = [
            self.scheduling_gates,
            self.dynamic_resources,
            GangQuorum(self._unassigned_and_assigned_pods, self._podgroup),
            *([self.gang.plugin] if self.gang is not None else []),
            *pre_enqueue,
        ]
        self.writer: ConditionWriter = STRATEGIC
        self.namespaces: frozenset[str] | None = None
        self.reporter = PreEnqueueStatusReporter(
            self.dispatcher, self.recorder, enabled=self.gates.pre_enqueue_pod_status, delay=delay,
            on_lost=self._lose, writer=self.writer,
        )
        self.queue = SchedulingQueue(self.plugins, self.reporter)
        if self.gang is not None:
            self.queue.hold = self.gang.plugin.holds
        self.allocator = ClaimAllocator(self.claims.get, self.claims.values, self.slices.values, self.classes.get)
        self.filters: tuple[tuple[str, FilterPlugin], ...] = (("DynamicResources", self.allocator.filter),)
        self.nominator = Nominator()
        self.preemption = DefaultPreemption(self.pdbs.values, self.nominator, clock.now)
        self.resize = ResizePreemption(self.preemption, self.nominator, enabled=self.gates.resize_preemption)
        self.queue.assigned_hint = self.resize.requeue_on
        #: False only for the ``binds-before-victims-gone`` mutant: a terminating pod frees its node at once
        self.counts_terminating_pods = True
        #: False only for the ``no-scheduled-event`` mutant: a binding gets no ``Scheduled`` event
        self.records_scheduled_events = True
        #: False only for the ``fit-error-without-counts`` mutant: the fit error's reasons lose their counts
        self.counts_fit_reasons = True
        self.bound = 0
        self.attempts = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._podgroups_started = False
        self._bindings: set[asyncio.Task[None]] = set()
        self._direct: set[asyncio.Task[Any]] = set()
        if self.mutant is not None:
            self.mutant.apply(self)

    def use_writer(self, writer: ConditionWriter) -> None:
        """Send every status condition write (KEP-5501's patch and clear, a failed attempt's
        condition) through ``writer``: the one switch of the shape variants."""
        self.writer = writer
        self.reporter.writer = writer

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self, *, sync_timeout: float = 60.0) -> Scheduler:
        loop = asyncio.get_running_loop()
        self.pods.on_add.append(self._pod_added)
        self.pods.on_update.append(self._pod_updated)
        self.pods.on_delete.append(self._pod_deleted)
        for informer in (self.nodes, self.claims, self.slices, self.classes, self.podgroups):
            self._forward(informer)
        self.recorder.start()
        if self.dispatcher is not None:
            self.dispatcher.start()
        # other informers first, pods last: PreEnqueue of the first pods sees the claims
        first = self.informers[1:]
        if self.gang is not None and self.gang.podgroups in first:
            if await self._serves_podgroups():
                self._forward(self.gang.podgroups, PODGROUP_EVENTS)
                self.gang.podgroups.on_delete.append(self.gang.forget)
            else:
                first.remove(self.gang.podgroups)
        for informer in first:
            informer.start()
        await asyncio.wait_for(asyncio.gather(*(i.synced.wait() for i in first)), sync_timeout)
        self.pods.start()
        await asyncio.wait_for(self.pods.synced.wait(), sync_timeout)
        self._tasks.append(loop.create_task(self._schedule_loop(), name="scheduling-loop"))
        self._tasks.append(loop.create_task(self._housekeeping(), name="queue-housekeeping"))
        log.info("scheduler started (%s%s)", self.gates.format(), f", mutant {self.mutant.name}" if self.mutant else "")
        return self

    async def stop(self) -> None:
        for task in [*self._tasks, *self._bindings, *self._direct]:
            task.cancel()
        for task in [*self._tasks, *self._bindings, *self._direct]:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        self._tasks.clear()
        for informer in {id(i): i for i in [*self.informers, self.podgroups,
                                             *([self.gang.podgroups] if self.gang else [])]}.values():
            await informer.stop()
        if self.dispatcher is not None:
            await self.dispatcher.close()
        await self.recorder.stop()
        if self._own_client:
            await self.client.close()

    async def __aenter__(self) -> Scheduler:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- event handlers ---------------------------------------------------------------------

    async def _serves_podgroups(self) -> bool:
        """Whether the server serves ``scheduling.k8s.io/v1beta1`` PodGroups (its discovery); if
        not, none is ever found and the scheduler does not ask again."""
        try:
            found = await self.client.get(f"/apis/{PODGROUPS[0]}/{PODGROUPS[1]}")
        except NotFoundError:
            found = {}
        except Exception as e:  # noqa: BLE001 - an unreachable discovery is the informer's to retry
            log.warning("discovery of %s/%s failed (%s); watching PodGroups anyway", *PODGROUPS[:2], e)
            return True
        served = any(r.get("name") == PODGROUPS[2] for r in found.get("resources") or [])
        if not served:
            log.info("%s/%s %s are not served; pods of a PodGroup wait for it", *PODGROUPS)
        return served

    def _forward(self, informer: Informer, resource: str = "") -> None:
        resource = resource or informer.resource

        def added(obj: Obj) -> None:
            self._cluster_event(resource, "add", obj)

        def updated(old: Obj, new: Obj) -> None:
            self._cluster_event(resource, "update", new, old)

        def deleted(obj: Obj) -> None:
            self._cluster_event(resource, "delete", obj)

        informer.on_add.append(added)
        informer.on_update.append(updated)
        informer.on_delete.append(deleted)

    def _mine(self, pod: Obj) -> bool:
        if self.namespaces is not None and (pod.get("metadata") or {}).get("namespace") not in self.namespaces:
            return False
        return bool((pod.get("spec") or {}).get("schedulerName", "default-scheduler") == self.scheduler_name)

    def _ours(self, pod: Obj) -> bool:
        """A pod to place: this scheduler's and not bound."""
        return self._mine(pod) and not (pod.get("spec") or {}).get("nodeName")

    def _resizing(self, pod: Obj) -> bool:
        """A bound pod of this scheduler with a Deferred resize to preempt for (KEP-5836)."""
        return self._mine(pod) and self.resize.wants(pod)

    def _counted(self, pod: Obj) -> tuple[int, int]:
        r = pod_requests(pod, use_status=self.gates.in_place_pod_vertical_scaling)
        return r.milli_cpu, r.memory

    def _unassigned_and_assigned_pods(self) -> list[Obj]:
        return self.pods.values()

    def _podgroup(self, key: str) -> Obj | None:
        """The PodGroup ``ns/name`` in the cache; the first ask starts the informer (module docstring)."""
        if not self._podgroups_started:
            self._podgroups_started = True
            self.podgroups.start()
        return self.podgroups.get(key)

    def _pod_added(self, pod: Obj) -> None:
        if self._ours(pod) and pod_key(pod) not in self.assumed:
            self.nominator.add(pod)
            self.queue.add(pod)
        elif self._resizing(pod) and self.resize.queues_deferred_at_start:
            self.queue.add(pod)  # already Deferred when first seen (a restart: the AddPod handler)
        self._cluster_event("pods", "add", pod)

    def _pod_updated(self, old: Obj, new: Obj) -> None:
        key = pod_key(new)
        if (new.get("spec") or {}).get("nodeName"):
            pinfo = self.queue.pods.get(key)
            if self._resizing(new):
                if pinfo is None:
                    self.queue.add(new)  # the resize was just deferred
                elif only_status_changed(old, new) or not self.resize.requeues_on_own_change:
                    pinfo.pod = new  # its kubelet's rewrite (isPodUpdated); or the resize-ignores-own-change mutant
                else:
                    self.queue.update(old, new)  # its resize changed: tried again
            elif pinfo is not None and pinfo.state != "in-flight" and not self._kept_stale(pinfo.pod, new):
                self.queue.done(pinfo)  # bound, or its resize actuated, reverted or Infeasible
            self.assumed.pop(key, None)
            self.nominator.delete(new)
            if not (old.get("spec") or {}).get("nodeName"):
                self._cluster_event("pods", "assigned", new)
            elif not self.counts_terminating_pods and terminating(new) and not terminating(old):
                self._cluster_event("pods", "assigned-delete", new)  # its room is free for this mutant
            elif self._counted(old) != self._counted(new):
                self._cluster_event("pods", "assigned-update", new)  # resized: its node's room changed
            return
        if self._ours(new) and key not in self.assumed:  # assumed: bound or being bound (skipPodUpdate)
            self.nominator.update(old, new)
            self.queue.update(old, new)
        if self.gang is not None and group_key_of(new) and len((new.get("spec") or {}).get("schedulingGates") or []) < len(
                (old.get("spec") or {}).get("schedulingGates") or []):
            self._cluster_event("pods", "gates-removed", new, old)  # the rest of its group may go

    def _pod_deleted(self, pod: Obj) -> None:
        pinfo = self.queue.pods.get(pod_key(pod))
        if pinfo is None or not self._kept_stale(pinfo.pod, None):
            self.queue.delete(pod)
        self.nominator.delete(pod)
        self.assumed.pop(pod_key(pod), None)
        if self.dispatcher is not None:
            self.dispatcher.forget(pod_key(pod))
        self._cluster_event("pods", "assigned-delete" if (pod.get("spec") or {}).get("nodeName") else "delete", pod)

    def _kept_stale(self, queued: Obj, current: Obj | None) -> bool:
        """Only the ``resize-keeps-*`` mutants: a waiting resize (``queued``, the copy in the queue)
        whose pod is now gone or being deleted, or Infeasible (``current``), stays queued and is
        tried as that copy."""
        if not self._resizing(queued) or (current is not None and self._resizing(current)):
            return False
        if current is None or terminating(current):
            return not self.resize.forgets_deleted
        return not self.resize.forgets_infeasible and resize_reason(current) == INFEASIBLE

    def _cluster_event(self, resource: str, action: str, obj: Obj, old: Obj | None = None) -> None:
        self.queue.on_event(ClusterEvent(resource, action, obj, old))

    def _lose(self, pinfo: QueuedPodInfo) -> None:
        self.queue.lose(pinfo)

    # -- scheduling -------------------------------------------------------------------------

    async def _housekeeping(self) -> None:
        while True:
            await asyncio.sleep(LEFTOVER_FLUSH_PERIOD)
            self.queue.flush_unschedulable_leftover()

    async def _schedule_loop(self) -> None:
        while True:
            pinfo = await self.queue.pop()
            try:
                self._schedule_one(pinfo)
            except Exception as e:  # a bug in one cycle must not stop scheduling
                log.exception("scheduling %s failed", pinfo.key)
                self._record_failure(pinfo, SCHEDULER_ERROR, str(e), error=True)
            await asyncio.sleep(0)  # let informer events in between cycles

    def snapshot(self) -> list[NodeInfo]:
        """Every node with its bound and assumed pods; a terminating pod stays on its node until it
        is deleted, as in kube-scheduler's cache (its room is not free before)."""
        use_status = self.gates.in_place_pod_vertical_scaling
        infos = {str(n["metadata"]["name"]): NodeInfo(n, use_status=use_status) for n in self.nodes.values()}
        counted: set[str] = set()
        for pod in self.pods.values():
            node = (pod.get("spec") or {}).get("nodeName")
            if node in infos and (self.counts_terminating_pods or not terminating(pod)):
                infos[node].add_pod(pod)
                counted.add(pod_key(pod))
        for key, (node, pod) in self.assumed.items():
            if node in infos and key not in counted:
                infos[node].add_pod(pod)
        return [infos[name] for name in sorted(infos)]

    def _filter(self, pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
        """The filters, with the pods nominated to the node counted (``RunFilterPluginsWithNominatedPods``)."""
        return filter_with_nominated(pod, req, info, self.nominator.pods_for(info.name),
                                     lambda p, r, i: filter_node(p, r, i, self.filters))

    def _schedule_one(self, pinfo: QueuedPodInfo) -> None:
        pod = self.pods.get(pinfo.key)
        if self._kept_stale(pinfo.pod, pod):
            pod = pinfo.pod
        if pod is not None and self._resizing(pod):
            pinfo.pod = pod
            self.attempts += 1
            self._resize_one(pinfo, pod)
            return
        if pod is None or not self._ours(pod):
            self.queue.done(pinfo)
            return
        pinfo.pod = pod
        self.attempts += 1
        if self.gang is not None and self.gang.member(pod):
            self.gang.schedule(pinfo)
            return
        nodes = self.snapshot()
        if not nodes:
            self._record_failure(pinfo, SCHEDULER_ERROR, NO_NODES_MESSAGE, error=True)
            return
        if (pod.get("spec") or {}).get("resourceClaims"):
            problem = self.dynamic_resources.pre_filter(pod)
            if problem:  # FitError with a PreFilter message: "0/%v nodes are available: %v."
                self._record_failure(pinfo, UNSCHEDULABLE, f"0/{len(nodes)} nodes are available: {problem}.")
                return
        req = pod_requests(pod)
        statuses: dict[str, list[str]] = {}
        feasible: list[NodeInfo] = []
        nominated = next((i for i in nodes if i.name == nominated_of(pod)), None)
        if nominated is not None and not self._filter(pod, req, nominated):
            feasible.append(nominated)  # evaluateNominatedNode: the node preempted for, tried first
        for info in nodes if not feasible else ():
            failed = self._filter(pod, req, info)
            if failed:
                statuses[info.name] = failed
            else:
                feasible.append(info)
        if not feasible:
            message = fit_error(len(nodes), statuses, counted=self.counts_fit_reasons)
            outcome = self.preemption.post_filter(pod, req, nodes, statuses, self._filter)
            if outcome.message:  # RunPostFilterPlugins joins the rejections: DynamicResources' first
                message = f"{message} {DRA_POST_FILTER_MESSAGE}, {outcome.message}"
            if outcome.candidate is not None:
                self._preempt(pinfo, pod, outcome.candidate)
            self._record_failure(pinfo, UNSCHEDULABLE, message, nominated=outcome.nominated_node)
            return
        chosen = min(feasible, key=lambda i: (least_allocated(i, req), i.name))
        held = None if self.scheduling_gates.at_pre_enqueue else self.scheduling_gates.permit(pod)
        if held:  # only the checks-gates-at-permit mutant: the pod waits, nothing is written
            self.queue.unschedulable(pinfo, held)
            return
        self.bind_on(pinfo, pod, chosen, len(nodes))

    def bind_on(self, pinfo: QueuedPodInfo, pod: Obj, chosen: NodeInfo, num_nodes: int) -> None:
        """Assume ``pod`` on ``chosen`` (its claims' allocation planned first) and start its
        binding cycle; a claim that cannot be allocated there fails the attempt instead."""
        plans: list[tuple[str, list[Obj]]] = []
        if pod_claim_names(pod):
            plans, reason = self.allocator.plan(pod, chosen.node)
            if reason:
                self._record_failure(pinfo, UNSCHEDULABLE, f"0/{num_nodes} nodes are available: 1 {reason}.")
                return
            self.allocator.assume(pod, plans)
        self.assumed[pinfo.key] = (chosen.name, pod)
        self.nominator.delete(pod)  # assume: an assumed pod is no longer only nominated
        task = asyncio.get_running_loop().create_task(self._bind(pinfo, pod, chosen.name, plans), name=f"bind-{pinfo.key}")
        self._bindings.add(task)
        task.add_done_callback(self._bindings.discard)

    async def _bind(self, pinfo: QueuedPodInfo, pod: Obj, node: str, plans: list[tuple[str, list[Obj]]]) -> None:
        try:
            if plans:
                await self.allocator.reserve(self.client, pod, node, plans)
                if not self.dynamic_resources.binds_after_pre_bind and any(results for _, results in plans):
                    self._wait_for_driver(pinfo, pod, plans)  # only the prebind-waits-for-driver mutant
                    return
            result = await self._run_call(PodBindingCall(pod, node))
            if result.outcome == "failed":
                assert result.error is not None
                raise result.error
            if result.outcome == "executed":
                self.bound += 1
                meta = pod["metadata"]
                if self.records_scheduled_events:
                    self.recorder.emit(pod, "Normal", "Scheduled", "Binding",
                                       f"Successfully assigned {meta.get('namespace', '')}/{meta['name']} to {node}")
            self.queue.done(pinfo)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("binding %s to %s failed: %s", pinfo.key, node, e)
            self.assumed.pop(pinfo.key, None)
            self.allocator.forget(pod, plans)
            message = getattr(e, "message", "") or str(e)
            self._record_failure(pinfo, SCHEDULER_ERROR, f'binding rejected: running Bind plugin "DefaultBinder": {message}', error=True)

    def _wait_for_driver(self, pinfo: QueuedPodInfo, pod: Obj, plans: list[tuple[str, list[Obj]]]) -> None:
        """Only the ``prebind-waits-for-driver`` mutant: PreBind wrote the claims' allocations, but
        the binding cycle ends as classic DRA's PreBind ended it (``statusPending``, "waiting for
        resource driver"): the pod is unassumed, reported Unschedulable and retried after its
        backoff, when its claims show the allocation and it binds."""
        self.assumed.pop(pinfo.key, None)
        self.allocator.forget(pod, plans)
        self._record_failure(pinfo, UNSCHEDULABLE, 'running PreBind plugin "DynamicResources": waiting for resource driver',
                             error=True)

    def _resize_one(self, pinfo: QueuedPodInfo, pod: Obj) -> None:
        """A Deferred resize's cycle (:mod:`reference_scheduler._resize`): preempt on its node if
        that helps, then wait, writing nothing for the pod ("For a Deferred pod, updating this
        condition is skipped"; "no nominated node is set or updated")."""
        outcome = self.resize.cycle(pod, self.snapshot())
        if outcome.candidate is not None:
            self._preempt(pinfo, pod, outcome.candidate)
        self.queue.unschedulable(pinfo, outcome.message)
        if self.resize.writes_pod_scheduled:  # only the resize-writes-pod-scheduled mutant
            nominated = outcome.candidate.node if outcome.candidate is not None else ""
            self.recorder.emit(pod, "Warning", "FailedScheduling", "Scheduling", truncate_note(outcome.message))
            condition = {"type": "PodScheduled", "status": "False", "reason": UNSCHEDULABLE, "message": outcome.message}
            self._send(pinfo.key, PodStatusPatchCall(pod, condition=condition, kind="unschedulable",
                                                     writer=self.writer, nominated_node=nominated))

    def _preempt(self, pinfo: QueuedPodInfo, pod: Obj, candidate: Candidate) -> None:
        """The preemption's API calls, in a task of their own (``prepareCandidateAsync``)."""

        async def run() -> None:
            ok = await self.preemption.prepare_candidate(
                candidate, pod, client=self.client, recorder=self.recorder, writer=self.writer,
                run_call=self._run_call, latest=self.pods.get, now=format_time(self.clock.now()),
                scheduler_name=str((pod.get("spec") or {}).get("schedulerName") or self.scheduler_name))
            if not ok:
                self.queue.activate(pinfo.key)

        task = asyncio.get_running_loop().create_task(run(), name=f"preempt-{pinfo.key}")
        self._direct.add(task)
        task.add_done_callback(self._direct.discard)

    def responsible_for(self, pod: Obj) -> bool:
        """A pod to place: this scheduler's and not bound."""
        return self._ours(pod)

    def record_failure(self, pinfo: QueuedPodInfo, reason: str, message: str, *, error: bool = False,
                       nominated: str | None = None, backoff: bool = False) -> None:
        self._record_failure(pinfo, reason, message, error=error, nominated=nominated, backoff=backoff)

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coro`` in a task the scheduler cancels when it stops."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._direct.add(task)
        task.add_done_callback(self._direct.discard)

    def preempt_victims(self, victims: Sequence[Obj], preemptor: Obj, members: Sequence[str]) -> None:
        """A PodGroup's preemption's API calls, in a task of their own; if one fails, the group's
        ``members`` are activated (``prepareCandidateAsync``)."""
        group = {**preemptor, "kind": "PodGroup", "apiVersion": "/".join(PODGROUPS[:2])}

        async def run() -> None:
            ok = True
            for victim in victims:
                if terminating(victim):
                    continue
                try:
                    await self.preemption.preempt_victim(
                        victim, group, "cluster", client=self.client, recorder=self.recorder, writer=self.writer,
                        latest=self.pods.get, now=format_time(self.clock.now()), scheduler_name=self.scheduler_name,
                        preemptor_type="podgroup")
                except Exception as e:
                    log.warning("preempting %s for a PodGroup failed: %s", pod_key(victim), e)
                    ok = False
            if not ok:
                for key in members:
                    self.queue.activate(key)

        self.spawn(run(), f"preempt-podgroup-{(preemptor.get('metadata') or {}).get('name', '')}")

    def _workload_podgroup(self, key: str) -> Obj | None:
        return self.gang.podgroup(key) if self.gang is not None else None

    def _record_failure(self, pinfo: QueuedPodInfo, reason: str, message: str, *, error: bool = False,
                        nominated: str | None = None, backoff: bool = False) -> None:
        """``handleSchedulingFailure``: requeue, event, then the status patch, which also sets or
        clears ``nominatedNodeName`` when ``nominated`` is not None (an error clears it). With
        ``backoff`` (a pod of a PodGroup) the pod goes to backoffQ rather than the unschedulable set."""
        pod = self.pods.get(pinfo.key)
        if pod is not None and self._resizing(pod):  # a Deferred resize's cycle failed: no writes
            if error:
                self.queue.retry_after_error(pinfo)
            else:
                self.queue.unschedulable(pinfo, message)
            return
        if pod is None or (pod.get("spec") or {}).get("nodeName"):
            self.queue.done(pinfo)
            return
        if error:
            nominated = ""  # clearNominatedNode
        if nominated is not None:
            self.nominator.add(pod, nominated)  # AddNominatedPod: no race with the status patch
        if error or backoff:
            self.queue.retry_after_error(pinfo)
        else:
            self.queue.unschedulable(pinfo, message)
        self.recorder.emit(pod, "Warning", "FailedScheduling", "Scheduling", truncate_note(message))
        condition = {"type": "PodScheduled", "status": "False", "reason": reason, "message": message}
        self._send(pinfo.key, PodStatusPatchCall(pod, condition=condition, kind="unschedulable", writer=self.writer,
                                                 nominated_node=nominated))

    def _send(self, key: str, call: PodStatusPatchCall) -> None:
        """A status patch nobody waits for: through the dispatcher, or in a task of its own."""
        if self.dispatcher is not None:
            self.dispatcher.add(call)
        else:
            task = asyncio.get_running_loop().create_task(self._run_call(call), name=f"status-{key}")
            self._direct.add(task)
            task.add_done_callback(lambda t: self._direct.discard(t))

    async def _run_call(self, call: ApiCall) -> CallResult:
        """Through the dispatcher when ``SchedulerAsyncAPICalls`` is on, else directly."""
        if self.dispatcher is not None:
            done: asyncio.Future[CallResult] = asyncio.get_running_loop().create_future()

            def finished(result: CallResult) -> None:
                if not done.done():
                    done.set_result(result)

            call.on_finish.append(finished)
            self.dispatcher.add(call)
            return await done
        pod = self.pods.get(call.key)
        try:
            if call.is_noop(pod):
                return CallResult("skipped")
            response = await call.execute(self.client, pod, format_time(self.clock.now()))
        except Exception as e:
            result = CallResult("failed", str(e), error=e)
        else:
            result = CallResult("executed" if response is not None else "skipped", response=response)
        call.finish(result)
        return result

