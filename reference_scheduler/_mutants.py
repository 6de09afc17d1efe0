"""Variants of the reference scheduler, and what the selftest expects of each.

A variant is a name, a description, the KEP sentence it violates (if any), a small function that
flips one switch on an assembled :class:`~reference_scheduler._scheduler.Scheduler` (a reporter
flag, a dispatcher flag, a plugin option, the condition writer): no copies of the scheduler, and
its ``kind``, which says what the selftest (``harness._runs.selftest``) expects. The functions take
:class:`Switches`, the part of the scheduler a variant may touch, which the scheduler satisfies
structurally: the scheduler imports this module to resolve ``mutant=NAME``, so this module does
not import the scheduler.

* ``mutant`` (:data:`MUTANTS`): breaks exactly one KEP-5501 rule, one rule of kube-scheduler's
  core (the binding's event, the fit error, the queue's moves, scheduling gates, DRA's PreBind), the
  one rule of KEP-4381 the suites judge (a claim allocated from published devices before the
  binding: ``binds-without-allocating``, the scheduler also never reading ResourceSlices) or
  DefaultPreemption (:mod:`reference_scheduler._preemption`; ``violates`` names the source file),
  or one KEP-5836 rule of preemption for a Deferred resize (:mod:`reference_scheduler._resize`;
  these differ only with ``InPlacePodVerticalScalingSchedulerPreemption`` on, but
  ``resize-preempts-with-gate-off``, which differs only with it off), or one KEP-4671 rule of
  gang scheduling (:mod:`reference_scheduler._gang`, :mod:`reference_scheduler._gangpreemption`;
  the ``gang-*`` mutants differ only with ``GenericWorkload`` on, and do nothing with it off);
  must fail at least one criterion. Running the suites against each is how they prove they catch what they claim.
* ``control``: not a scheduler at all, by design; must pass no criterion, so a suite that passes
  whatever happens is caught. ``does-nothing`` watches everything and binds only an adapter's
  readiness probe pod; ``never-watches`` is a process that polls: it LISTs pods every second
  (:attr:`kubeclient.Informer.poll_period`), never WATCHes, never reads a
  node, and binds only the probe pod, to the node the probe's ``nodeSelector`` names, taken on
  trust. Both refuse the feature gates the reference refuses.
* ``shape``: correct KEP-5501 behaviour, only the HTTP request that writes the pod's conditions
  differs (:mod:`reference_scheduler._writers`), or the requests that record events (a repeat
  aggregated into a series by PATCH, :mod:`reference_scheduler._events`), or another correct
  choice; must pass every criterion, which shows a verdict depends on what a write did at the
  API, not on the request's shape.

Every variant is a name for ``--scheduler reference:<name>`` and ``--mutant <name>``
(:func:`get_mutant`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from reference_scheduler._conditions import UNSCHEDULABLE
from reference_scheduler._dra import ClaimAllocator
from reference_scheduler._dispatcher import ApiDispatcher
from reference_scheduler._gang import GangCycle
from reference_scheduler._events import EventRecorder
from kubeclient import Informer
from reference_scheduler._plugins import DynamicResources, SchedulingGates
from reference_scheduler._preemption import DefaultPreemption
from reference_scheduler._queue import SchedulingQueue
from reference_scheduler._reporting import PreEnqueueStatusReporter
from reference_scheduler._resize import ResizePreemption
from reference_scheduler._writers import (
    DROPS_OTHER_CONDITIONS,
    JSON_PATCH_WRITER,
    MERGE_PATCH_WRITER,
    PUT_WRITER,
    STALE_WHOLE_LIST,
    UNGUARDED_WHOLE_LIST,
    ConditionWriter,
)

__all__ = ["CONTROLS", "EXPECTATIONS", "GANG_PERMIT_TIMEOUT", "KINDS", "MUTANTS", "POLL_PERIOD", "PROBE_NAMESPACE", "PROBE_NODE", "SHAPES",
           "VARIANTS", "Mutant", "Switches", "UnknownMutant", "VariantKind", "get_mutant"]

VariantKind = Literal["mutant", "control", "shape"]
KINDS: tuple[VariantKind, ...] = ("shape", "mutant", "control")
EXPECTATIONS: dict[VariantKind, str] = {
    "mutant": "must fail at least one criterion",
    "control": "must pass no criterion, and fail every suite",
    "shape": "must pass every criterion",
}
# harness._schedulers.adapters.PROBE_NAMESPACE: where an adapter's readiness probe pod is (a test pins the two)
PROBE_NAMESPACE = "schedharness-probe"
# harness._schedulers.adapters.PROBE_NAME: the node the probe pod's nodeSelector names (a test pins the two)
PROBE_NODE = "schedharness-probe"
#: how often the never-watches control LISTs pods, in seconds
POLL_PERIOD = 1.0


class UnknownMutant(ValueError):
    """``--mutant`` names no known variant."""


class Switches(Protocol):
    """What a variant's function may touch on an assembled scheduler: the components whose
    one-rule switches it flips (the event recorder's way of writing repeats among them), the
    scheduler's own switches and its condition writer."""

    reporter: PreEnqueueStatusReporter
    recorder: EventRecorder
    pods: Informer
    nodes: Informer
    dispatcher: ApiDispatcher | None
    queue: SchedulingQueue
    scheduling_gates: SchedulingGates
    dynamic_resources: DynamicResources
    allocator: ClaimAllocator
    slices: Informer
    informers: list[Informer]
    preemption: DefaultPreemption
    resize: ResizePreemption
    counts_terminating_pods: bool
    records_scheduled_events: bool
    counts_fit_reasons: bool
    namespaces: frozenset[str] | None
    gang: GangCycle | None

    def use_writer(self, writer: ConditionWriter) -> None: ...


@dataclass(frozen=True)
class Mutant:
    """One variant; ``kind`` says what the selftest expects of it (module docstring)."""

    name: str
    description: str
    violates: str
    apply: Callable[[Switches], None]
    kind: VariantKind = "mutant"
    #: False only for the variant that starts despite KEP-5501's gate dependency
    checks_gates: bool = True

    @property
    def must_fail(self) -> bool:
        """True for a mutant (fails at least one criterion) or a control (passes none), False for a
        shape variant."""
        return self.kind != "shape"

    @property
    def expectation(self) -> str:
        return EXPECTATIONS[self.kind]


def _no_delay(s: Switches) -> None:
    s.reporter.clear_delay = s.reporter.delay  # the clear keeps its delay: that is clears-immediately
    s.reporter.delay = 0.0


def _delay_reset(s: Switches) -> None:
    if s.dispatcher is not None:
        s.dispatcher.reset_delay_on_overwrite = True


def _no_dedup(s: Switches) -> None:
    s.reporter.dedup = False


def _not_seeded(s: Switches) -> None:
    s.reporter.seed = False


def _never_clears(s: Switches) -> None:
    s.reporter.clears = False


def _clears_immediately(s: Switches) -> None:
    s.reporter.clear_delay = 0.0


def _redundant_gated(s: Switches) -> None:
    s.scheduling_gates.unified_message = False


def _no_event(s: Switches) -> None:
    s.reporter.emit_events = False


def _wrong_reason(s: Switches) -> None:
    s.reporter.reason = UNSCHEDULABLE


def _ignores_gate(s: Switches) -> None:
    s.reporter.enabled = True


def _stops(s: Switches) -> None:
    s.reporter.lose_on_failure = True


def _never_retries(s: Switches) -> None:
    s.reporter.reset_on_failure = False


def _shared_last_message(s: Switches) -> None:
    s.reporter.per_pod_message = False


def _shared_delayed_call(s: Switches) -> None:
    if s.dispatcher is not None:
        s.dispatcher.shares_delayed_call = True


def _shared_delay_start(s: Switches) -> None:
    if s.dispatcher is not None:
        s.dispatcher.shares_delay_start = True


def _allocates_deleting_claim(s: Switches) -> None:
    s.dynamic_resources.honours_deletion = False


def _binds_without_allocating(s: Switches) -> None:
    s.allocator.allocates = False
    s.informers.remove(s.slices)  # never LISTs or WATCHes ResourceSlices


def _preempts_equal_priority(s: Switches) -> None:
    s.preemption.preempts_equal_priority = True


def _binds_before_victims_gone(s: Switches) -> None:
    s.counts_terminating_pods = False


def _ignores_never(s: Switches) -> None:
    s.preemption.honours_never = False


def _ignores_pdbs(s: Switches) -> None:
    s.preemption.honours_pdbs = False


def _no_disruption_target(s: Switches) -> None:
    s.preemption.writes_disruption_target = False


def _no_nomination(s: Switches) -> None:
    s.preemption.nominates = False


def _no_scheduled_event(s: Switches) -> None:
    s.records_scheduled_events = False


def _ignores_node_add(s: Switches) -> None:
    s.queue.move_events = s.queue.move_events - {("nodes", "add")}


def _fit_error_without_counts(s: Switches) -> None:
    s.counts_fit_reasons = False


def _any_gate_removal_ungates(s: Switches) -> None:
    s.queue.ungates_on_any_removal = True


def _checks_gates_at_permit(s: Switches) -> None:
    s.scheduling_gates.at_pre_enqueue = False


def _prebind_waits_for_driver(s: Switches) -> None:
    s.dynamic_resources.binds_after_pre_bind = False


def _prefers_higher_priority_victim(s: Switches) -> None:
    s.preemption.lowest_top_victim = False


def _resize_victims_on_other_nodes(s: Switches) -> None:
    s.resize.victims_on_every_node = True


def _resize_counts_own_resources(s: Switches) -> None:
    s.resize.counts_own_resources = True


def _resize_with_gate_off(s: Switches) -> None:
    s.resize.enabled = True


def _resize_writes_pod_scheduled(s: Switches) -> None:
    s.resize.writes_pod_scheduled = True


def _resize_for_infeasible(s: Switches) -> None:
    s.resize.accepts_infeasible = True


def _resize_ignores_disable_policy(s: Switches) -> None:
    s.resize.honours_disable_policy = False


def _resize_requeues_on_deletes_elsewhere(s: Switches) -> None:
    s.resize.requeues_on_deletes_here = False


def _resize_ignores_neighbour_scale_down(s: Switches) -> None:
    s.resize.requeues_on_neighbour_resize = False


def _resize_ignores_own_change(s: Switches) -> None:
    s.resize.requeues_on_own_change = False


def _resize_ignores_allocatable_up(s: Switches) -> None:
    s.resize.requeues_on_allocatable_up = False


def _resize_ignores_policy_lifted(s: Switches) -> None:
    s.resize.requeues_on_policy_lifted = False


def _resize_ignores_deferred_at_start(s: Switches) -> None:
    s.resize.queues_deferred_at_start = False


def _resize_keeps_deleted_pod(s: Switches) -> None:
    s.resize.forgets_deleted = False


def _resize_keeps_infeasible_resize(s: Switches) -> None:
    s.resize.forgets_infeasible = False


def _gang_partial_binding(s: Switches) -> None:
    if s.gang is not None:
        s.gang.binds_partial = True


def _gang_min_count_off_by_one(s: Switches) -> None:
    if s.gang is not None:
        s.gang.plugin.min_count_slack = 1


def _gang_reservation_leaked(s: Switches) -> None:
    if s.gang is not None:
        s.gang.leaks_after = 0.0


def _gang_preempted_piecemeal(s: Switches) -> None:
    if s.gang is not None:
        s.gang.preemption.honours_disruption_all = False


def _gang_ignores_gated_members(s: Switches) -> None:
    if s.gang is not None:
        s.gang.plugin.holds_for_gated = False


def _gang_missing_group_ignored(s: Switches) -> None:
    if s.gang is not None:
        s.gang.plugin.waits_for_group = False


def _gang_late_member_held(s: Switches) -> None:
    if s.gang is not None:
        s.gang.counts_bound = False


def _gang_preempts_whole_groups(s: Switches) -> None:
    if s.gang is not None:
        s.gang.preemption.every_group_whole = True


#: kube-scheduler's Permit timeout of a gang (``permitTimeoutDuration``, gangscheduling.go)
GANG_PERMIT_TIMEOUT = 300.0


def _gang_timeout_ignored(s: Switches) -> None:
    if s.gang is not None:
        s.gang.leaks_after = GANG_PERMIT_TIMEOUT


def _writes_with(writer: ConditionWriter) -> Callable[[Switches], None]:
    def apply(s: Switches) -> None:
        s.use_writer(writer)

    return apply


#: KEP-5501 PRR (Scalability): what the feature's write does to a pod's conditions.
_ONE_ENTRY = ("it will add one entry to the .status.conditions array of a Pod object when it is in a "
              "NotReadyForScheduling state.")


MUTANTS: tuple[Mutant, ...] = (
    Mutant("no-delay", "patches the NotReadyForScheduling condition as soon as a pod is rejected",
           "To handle transient rejections and reduce API server load, the scheduler will not act on this "
           "immediately. Instead, it will use a delayed dispatch mechanism", _no_delay),
    Mutant("delay-reset-on-overwrite", "restarts the delay each time a pending patch is overwritten, so a pod "
           "whose message keeps changing is never reported",
           "If a previous API call for the same Pod is already enqueued, its delay will not be reset.", _delay_reset),
    Mutant("no-dedup", "enqueues and sends a status patch on every rejection, even with an unchanged message",
           "The asynchronous call to the API server will only be enqueued if the status is new or different "
           "from the cached one.", _no_dedup),
    Mutant("dedup-not-seeded", "does not seed the last message from the pod's condition on first sight, so a gated "
           "pod is patched from SchedulingGated to NotReadyForScheduling",
           "Set the last known message from the Pod object on first sight.", _not_seeded),
    Mutant("never-clears", "leaves the NotReadyForScheduling condition in place after the pod passes PreEnqueue",
           "On success: When a Pod is re-evaluated and successfully passes all PreEnqueue plugins, the "
           "NotReadyForScheduling condition should be removed.", _never_clears),
    Mutant("clears-immediately", "removes the condition without delay when the pod passes",
           'This "clear" operation will also be delayed to prevent status flickering if the Pod is immediately '
           "rejected for another reason.", _clears_immediately),
    Mutant("redundant-gated-patch", "keeps the old SchedulingGates message (waiting for scheduling gates: [...]), so "
           "every gated pod gets a redundant status patch",
           "SchedulingGates: Message will be made consistent with the kube-apiserver.", _redundant_gated),
    Mutant("no-event", "patches the condition but emits no event",
           "An Event is emitted for the Pod with the reason NotReadyForScheduling and the rejection message.", _no_event),
    Mutant("wrong-reason", "writes the condition with reason Unschedulable instead of NotReadyForScheduling",
           "the scheduler will asynchronously patch the Pod's status with the last-captured rejection message, "
           "using the new reason NotReadyForScheduling.", _wrong_reason),
    Mutant("ignores-feature-gate", "reports PreEnqueue rejections even with SchedulerPreEnqueuePodStatus=false",
           "The scheduler will stop adding or updating these conditions.", _ignores_gate),
    Mutant("stops-on-patch-failure", "loses the pod (never schedules it again) after a failed status patch",
           "This failure is logged, but it does not crash the scheduler or affect the scheduling.", _stops),
    Mutant("never-retries", "keeps the de-duplication cache after a failed patch, so the status is never retried",
           "any subsequent event that causes the Pod to be re-evaluated by the PreEnqueue plugins will trigger "
           "a retry of the status patch.", _never_retries),
    Mutant("shared-last-message", "keeps one last reported rejection message for every pod instead of one per pod: "
           "a pod rejected with the message another pod was last rejected with is taken as already reported",
           "A new field will be added to the PodInfo struct within the queue, for example, "
           "lastPreEnqueueRejectionMessage. (Design Details §3; PRR: 'cache the last-reported status for each Pod in "
           "the scheduling queue')", _shared_last_message),
    Mutant("shared-delayed-call", "holds one pending delayed status call for all pods: a pod's delayed patch or "
           "clear overwrites the one another pod is still waiting out",
           "A pending status update will be cached for the Pod for a configurable duration (e.g., 5 seconds). "
           "(Proposal; the dispatcher keeps at most one pending call per object, KEP-5229)", _shared_delayed_call),
    Mutant("shared-delay-start", "starts one delay for all pods: a pod rejected while another pod's delayed call "
           "is pending is written when that call is due, not 5 s after its own rejection",
           "A pending status update will be cached for the Pod for a configurable duration (e.g., 5 seconds). If "
           "the delay period expires, the scheduler will asynchronously patch the Pod's status with the "
           "last-captured rejection message (Proposal)", _shared_delay_start),
    Mutant("ignores-gate-dependency", "starts with SchedulerPreEnqueuePodStatus=true and SchedulerAsyncAPICalls=false "
           "instead of refusing", "The enablement of this feature will be dependent on the SchedulerAsyncAPICalls "
           "feature gate being enabled.", lambda s: None, checks_gates=False),
    Mutant("drops-other-conditions", "writes the PodScheduled condition with a JSON merge patch whose "
           "status.conditions holds only that element (null for a clear), without a resourceVersion: every "
           "condition other writers own is deleted", _ONE_ENTRY, _writes_with(DROPS_OTHER_CONDITIONS)),
    Mutant("stale-whole-list", "writes the whole status.conditions list with a JSON merge patch without a "
           "resourceVersion, computed from the pod as it was when the call was enqueued: a condition another writer "
           "added while the call waited out its delay is deleted", _ONE_ENTRY, _writes_with(STALE_WHOLE_LIST)),
    Mutant("unguarded-whole-list", "writes the whole status.conditions list with a JSON merge patch computed from "
           "the freshest pod it knows, without a resourceVersion precondition: a condition another writer adds while "
           "the write is in flight is deleted", _ONE_ENTRY, _writes_with(UNGUARDED_WHOLE_LIST)),
    Mutant("allocates-deleting-claim", "ignores a ResourceClaim's deletionTimestamp: a pod whose claim is being "
           "deleted passes PreEnqueue and PreFilter and the scheduler tries to allocate the claim and bind the pod",
           "This KEP will not change the core rejection logic of any existing PreEnqueue plugin, only how the "
           "outcome of that logic is communicated.", _allocates_deleting_claim),
    Mutant("binds-without-allocating", "gates pods on their claims at PreEnqueue but leaves device allocation to "
           "others: never reads ResourceSlices, writes nothing to a claim and binds the pod with its claim "
           "unallocated",
           "It is responsible for ensuring that a ResourceClaim is allocated and reserved for a Pod before the final "
           "binding of a Pod to a node. (KEP-4381, Design Details: kube-scheduler; since v1.32 structured parameters "
           "are the only DRA, the scheduler allocates from the devices ResourceSlices publish)",
           _binds_without_allocating),
    Mutant("prebind-waits-for-driver", "after PreBind writes a claim's allocation, ends the binding cycle as classic "
           "DRA did (Unschedulable, 'running PreBind plugin \"DynamicResources\": waiting for resource driver') and "
           "binds the pod in a later cycle, after its backoff: a pod whose claim was ready is reported unschedulable",
           "PreBind gets called in a separate goroutine after it has been determined that the pod should get bound "
           "to this node. Because Reserve did not actually reserve claims, we need to do it now. For claims with the "
           "builtin controller, we also handle the allocation. (kube-scheduler "
           "pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, PreBind; the binding follows in "
           "the same binding cycle)", _prebind_waits_for_driver),
    Mutant("any-gate-removal-ungates", "takes an update that removes one of a pod's scheduling gates for one that "
           "removes them all and sends the pod to activeQ without running PreEnqueue: a pod with a gate left is tried "
           "and its binding attempted (the API server refuses it); a claim missing when the last gate goes is seen "
           "only by PreFilter",
           "if len(newPod.Spec.SchedulingGates) == 0 && len(oldPod.Spec.SchedulingGates) != 0 { // A scheduling gate "
           "on the pod is completely removed. return fwk.UpdatePodSchedulingGatesEliminated } (kube-scheduler "
           "pkg/scheduler/framework/events.go; moveToActiveQ runs the PreEnqueue plugins again, "
           "pkg/scheduler/backend/queue/scheduling_queue.go)", _any_gate_removal_ungates),
    Mutant("checks-gates-at-permit", "holds a gated pod at Permit instead of PreEnqueue: the pod goes through Filter "
           "and, when it fits nowhere, PostFilter, which preempts for it; a gated pod that fits waits, nothing written",
           "SchedulingGates is an opaque list of values that if specified will block scheduling the pod. If "
           "schedulingGates is not empty, the pod will stay in the SchedulingGated state and the scheduler will not "
           "attempt to schedule the pod. (kubernetes/api core/v1 PodSpec; KEP-3521)", _checks_gates_at_permit),
    Mutant("no-scheduled-event", "binds the pod but emits no Scheduled event",
           'fwk.EventRecorder().Eventf(assumed, nil, v1.EventTypeNormal, "Scheduled", "Binding", "Successfully '
           'assigned %v/%v to %v", assumed.Namespace, assumed.Name, targetNode) (kube-scheduler '
           "pkg/scheduler/schedule_one.go, finishBinding; docs/api-facts.md §binding)", _no_scheduled_event),
    Mutant("ignores-node-add", "does not move a pod that fit no node when a Node is added (a node update, a pod "
           "deleted or a DRA object changed still does): the pod waits for the 5-minute flush of unschedulable pods",
           "{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: nodeActionType}, QueueingHintFn: "
           "f.isSchedulableAfterNodeChange} ... isSchedulableAfterNodeChange is invoked whenever a node added or "
           "changed. It checks whether that change could make a previously unschedulable pod schedulable. "
           "(kube-scheduler pkg/scheduler/framework/plugins/noderesources/fit.go, EventsToRegister; nodeActionType "
           "includes fwk.Add)", _ignores_node_add),
    Mutant("fit-error-without-counts", "writes the fit error's reasons without their node counts ('0/1 nodes are "
           "available: Insufficient cpu.'), a message of its own in the condition and the FailedScheduling event",
           'reasonStrings = append(reasonStrings, fmt.Sprintf("%v %v", v, k)) ... reasonMsg += fmt.Sprintf(" %v.", '
           'strings.Join(sortedFilterMsg, ", ")) (kube-scheduler pkg/scheduler/framework/types.go, FitError.Error; '
           "docs/api-facts.md §fit-error 'Fit-error message format: 0/%v nodes are available: %v.')", _fit_error_without_counts),
    Mutant("preempts-equal-priority", "takes pods of the preemptor's own priority as victims too",
           "The victim must have lower priority than the preemptor (kube-scheduler "
           "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, isPreemptionAllowed)",
           _preempts_equal_priority),
    Mutant("binds-before-victims-gone", "counts a terminating pod as gone, so the preemptor binds as soon as its "
           "victims are marked for deletion",
           "a terminating pod stays in the scheduler cache until it is deleted, so the preemptor fits only once its "
           "victims are gone (kube-scheduler pkg/scheduler/framework/preemption/preemption.go: the preemptor is "
           "nominated and waits for the victims' graceful termination)", _binds_before_victims_gone),
    Mutant("ignores-preemption-policy-never", "lets a pod with preemptionPolicy: Never preempt",
           'if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever { return false, '
           '"not eligible due to preemptionPolicy=Never." } (kube-scheduler '
           "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, PodEligibleToPreemptOthers)",
           _ignores_never),
    Mutant("ignores-pdb", "leaves PodDisruptionBudgets out of victim and node choice",
           "We first try to reprieve the PDB violating victims and then other non-violating ones; a node with a "
           "minimum number of PDB violations is preferable (kube-scheduler "
           "pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, SelectVictimsOnNode; "
           "pkg/scheduler/framework/preemption/preemption.go, pickOneNodeForPreemption)", _ignores_pdbs),
    Mutant("prefers-higher-priority-victim", "turns pickOneNodeForPreemption's second rule round: of the candidate "
           "nodes it keeps those whose most important victim has the highest priority, so a mid-priority pod is "
           "preempted where a low-priority one would do",
           "2. A node with minimum highest priority victim is picked. (kube-scheduler "
           "pkg/scheduler/framework/preemption/preemption.go, pickOneNodeForPreemption)",
           _prefers_higher_priority_victim),
    Mutant("no-disruption-target", "deletes victims without first adding the DisruptionTarget condition",
           "condition := &v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "
           "v1.PodReasonPreemptionByScheduler, ...} patched before the victim is deleted (kube-scheduler "
           "pkg/scheduler/framework/preemption/preemption.go, PreemptPod)", _no_disruption_target),
    Mutant("no-nomination", "deletes the victims but never nominates the node (no nominatedNodeName, in memory "
           "or in the pod's status), so a lower-priority pod can take the room",
           "the non-empty nominatedNodeName will be applied to the preemptor pod (kube-scheduler "
           "pkg/scheduler/framework/preemption/preemption.go, Evaluator.Preempt)", _no_nomination),
    Mutant("resize-victims-on-other-nodes", "looks for victims of a Deferred resize on every node, not only on the "
           "node the resizing pod runs on",
           "Victim Selection Constraint: The search for preemption victims is isolated exclusively to the deferred "
           "pod's active node. (KEP-5836, DefaultPreemption Plugin: Preemption Mechanism Adjustments)",
           _resize_victims_on_other_nodes),
    Mutant("resize-counts-own-resources", "leaves the resizing pod's old resources (its status) on its node during "
           "the victim search, besides its new request, so it preempts more than the resize needs",
           "Snapshot Adjustment: temporarily remove the Deferred pod from the node snapshot to compute the space "
           "needed. (KEP-5836, Summary of Scheduling Cycle Flow)", _resize_counts_own_resources),
    Mutant("resize-preempts-with-gate-off", "queues Deferred resizes and preempts for them with "
           "InPlacePodVerticalScalingSchedulerPreemption=false",
           "if !pl.enableInPlacePodVerticalScalingSchedulerPreemption || !resource.IsPodResizeDeferred(pod) { return "
           "nil, fwk.NewStatus(fwk.Skip) } (kube-scheduler pkg/scheduler/framework/plugins/deferredpodscheduling; the "
           "gate is alpha in v1.37, off by default)", _resize_with_gate_off),
    Mutant("resize-writes-pod-scheduled", "writes the resizing pod's PodScheduled condition (False, Unschedulable) "
           "with a FailedScheduling event after each attempt, and nominatedNodeName when it preempts, as for a "
           "pending pod",
           "Skipping PodScheduled Condition Updates: For a Deferred pod, updating this condition is skipped. No "
           "Nominated Node Name (NNN) Assignment: For a Deferred pod, no nominated node is set or updated. (KEP-5836, "
           "Failure Handler Adjustments for Deferred Pods)", _resize_writes_pod_scheduled),
    Mutant("resize-preempts-for-infeasible", "takes a resize the kubelet marked Infeasible for a Deferred one: queues "
           "it and preempts for its spec",
           "IsPodResizeDeferred returns true if the pod condition PodResizePending is set to deferred. (kubernetes "
           "component-helpers/resource; Infeasible: the proposed resize is not feasible and is rejected; it may not "
           "be re-evaluated)", _resize_for_infeasible),
    Mutant("resize-ignores-disable-policy", "preempts for a Deferred resize on a node whose "
           "spec.podPreemptionPolicy.disableResizePreemption is non-empty",
           "DisableResizePreemption lists the owners (e.g., autoscalers, operators, administrators) that have "
           "requested to disable scheduler and Kubelet preemption for in-place pod resize on this node. If this list "
           "is non-empty, resize-induced preemption is disabled on this node. (kubernetes/api core/v1 "
           "NodePodPreemptionPolicy)", _resize_ignores_disable_policy),
    Mutant("resize-requeues-on-deletes-elsewhere", "requeues a waiting resize on a pod deleted elsewhere but not on "
           "its own node",
           "if deletedPod.Spec.NodeName != pod.Spec.NodeName { ... return fwk.QueueSkip } // any deletion event to a "
           "scheduled pod could make the unscheduled pod schedulable. (kube-scheduler "
           "pkg/scheduler/framework/plugins/noderesources/fit.go, isSchedulableAfterAssignedPodDelete; upstream test "
           "'assigned pod deletion on same node wakes queue')", _resize_requeues_on_deletes_elsewhere),
    Mutant("resize-ignores-neighbour-scale-down", "does not requeue a waiting resize when another pod on its node is "
           "resized (its counted requests lowered or raised); only a pod added, bound or deleted there moves it",
           "UpdatePodScaleDown event should be registered for this plugin since a Pod update may free up resources "
           "that make other Pods schedulable. (kube-scheduler pkg/scheduler/framework/plugins/noderesources/fit.go, "
           "EventsToRegister; upstream test 'assigned pod scale down on same node wakes queue')",
           _resize_ignores_neighbour_scale_down),
    Mutant("resize-ignores-own-change", "ignores its own resize changed while it waits: the queued copy is updated, "
           "the pod is not tried again until something else on its node changes",
           "isSchedulableAfterTargetPodScaleDown is invoked when the target pod is scaled down, making itself "
           "schedulable. // If the pod's spec mutates while queued for a deferred resize (e.g., resource requests "
           "updated), update its queue representation. (kube-scheduler noderesources/fit.go and eventhandlers.go; "
           "upstream test 'target pod spec scale down wakes queue')", _resize_ignores_own_change),
    Mutant("resize-ignores-allocatable-up", "requeues a waiting resize when its node's disableResizePreemption is "
           "emptied, but not when its node's allocatable grows",
           "{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable}, "
           "QueueingHintFn: f.isSchedulableAfterNodeChange} ... node was updated, and may now fit the pod's resource "
           "requests (kube-scheduler pkg/scheduler/framework/plugins/noderesources/fit.go; upstream test 'assigned "
           "node capacity increase wakes queue')", _resize_ignores_allocatable_up),
    Mutant("resize-ignores-policy-lifted", "requeues a waiting resize when its node's allocatable grows, but not when "
           "its node's disableResizePreemption is emptied",
           "// If resize preemption was disabled and is now enabled, the pod may be schedulable. if oldNodeDisabled "
           "&& !newNodeDisabled { ... return fwk.Queue, nil } (kube-scheduler "
           "pkg/scheduler/framework/plugins/deferredpodscheduling, isSchedulableAfterNodeChange; upstream test "
           "'enabling node preemption policy wakes queue')", _resize_ignores_policy_lifted),
    Mutant("resize-ignores-deferred-at-start", "does not queue a pod whose resize is already Deferred when the "
           "scheduler starts: only one that turns Deferred while it watches",
           "isPodDeferred := ... resource.IsPodResizeDeferred(pod); if responsibleForPod(pod, sched.Profiles) && "
           "(!assignedPod(pod) || isPodDeferred) { sched.addPodToSchedulingQueue(pod) } (kube-scheduler "
           "pkg/scheduler/eventhandlers.go, addPod; upstream test 'AddPod handler enqueues existing deferred pod on "
           "scheduler startup')", _resize_ignores_deferred_at_start),
    Mutant("resize-keeps-deleted-pod", "keeps a waiting resize queued after its pod is deleted, and preempts for the "
           "copy it queued when room appears on the node",
           "if an assigned pod with a deferred resize is deleted from the cluster, we must explicitly remove it from "
           "the scheduling queue. (kube-scheduler pkg/scheduler/eventhandlers.go, deletePod; upstream test 'DeletePod "
           "handler removes pod from both cache and scheduling queue when deleted')", _resize_keeps_deleted_pod),
    Mutant("resize-keeps-infeasible-resize", "keeps a waiting resize queued after its kubelet answers Infeasible, and "
           "preempts for the Deferred copy it queued when room appears on the node",
           "When an assigned pod is no longer deferred, remove it from the scheduling queue so the scheduler stops "
           "evaluating preemption for it. (kube-scheduler pkg/scheduler/eventhandlers.go, updatePod; upstream test "
           "'UpdatePod handler removes pod from queue when deferred condition is cleared')",
           _resize_keeps_infeasible_resize),
    Mutant("gang-partial-binding", "binds the pods of a gang that fit even when the gang cannot reach its minCount",
           "If not success -> revert all. ... Unschedulable, not waitingOnPreemption, success (simulated): "
           "FailureHandler(NewStatus(Unschedulable, groupMsg).WithError(errPodGroupUnschedulable), clearNominatedNode) "
           "(kube-scheduler pkg/scheduler/schedule_one_podgroup.go, podGroupSchedulingDefaultAlgorithm and "
           "submitPodGroupAlgorithmResult: a gang is placed all or nothing)", _gang_partial_binding),
    Mutant("gang-min-count-off-by-one", "takes minCount-1 pods of a gang (minCount above 1) as enough, at PreEnqueue "
           "and in the placement",
           "if remaining+scheduled < minCount { ... cannot be satisfied } if scheduled < minCount { ... is not yet "
           "satisfied } (kube-scheduler pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go, "
           "PlacementFeasible; PreEnqueue: allPodsCount < int(policy.Gang.MinCount))", _gang_min_count_off_by_one),
    Mutant("gang-reservation-leaked", "after a failed attempt of a gang, leaves status.nominatedNodeName set on the "
           "pods it had placed, and their room nominated, out of the reach of pods of their priority or lower",
           "runRootSchedulingAlgorithm always reverts all assumptions at return; a placed pod of a rejected group is "
           "failed with clearNominatedNode (kube-scheduler pkg/scheduler/schedule_one_podgroup.go, "
           "runRootSchedulingAlgorithm and submitPodGroupAlgorithmResult)", _gang_reservation_leaked),
    Mutant("gang-preempted-piecemeal", "ignores a victim PodGroup's spec.disruptionMode.all: each of its pods is a "
           "victim of its own, so only the part of the victim gang that is in the way is evicted",
           "Pods that are part of a pod group or composite pod group with disruption mode All are grouped together "
           "into a single victim. (kube-scheduler pkg/scheduler/framework/preemption/types.go, "
           "newDomainForWorkloadPreemption)", _gang_preempted_piecemeal),
    Mutant("gang-timeout-ignored", "behaves like the reference until a gang has been failing for 300 s (the "
           "Permit timeout); from then on a failed attempt keeps its placed pods' room, nominated to their nodes "
           "(status.nominatedNodeName), as gang-reservation-leaked does from the start. kube-scheduler's Permit "
           "timeout has an API-visible effect only for a member that waits at Permit after its group was placed, "
           "which needs a Reserve or Permit failure of another member in the binding cycle's preparation; the "
           "reference has no such failure to model, so this mutant stands for a scheduler that never gives a "
           "waiting gang's room back once the timeout has passed",
           "permitTimeoutDuration = 5*time.Minute ... rejected due to timeout after waiting %v at plugin %v "
           "(kube-scheduler pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go and "
           "framework/runtime/waiting_pods_map.go: a gang's reservation does not outlive its timeout)",
           _gang_timeout_ignored),
    Mutant("gang-ignores-gated-members", "schedules a gang's ungated pods once they make minCount, though another "
           "of its pods still has scheduling gates",
           "if any pod of the entity is gated, the whole entity is gated (kube-scheduler "
           "pkg/scheduler/backend/queue/scheduling_queue.go, runPreEnqueuePlugins for a pod group entity)",
           _gang_ignores_gated_members),
    Mutant("gang-missing-group-ignored", "schedules a pod whose PodGroup does not exist as a pod of no group",
           "A pod whose pod group is not observed yet stays in incompletePodGroupPods until the PodGroup is added "
           "(kube-scheduler pkg/scheduler/backend/queue/scheduling_queue.go, addPodGroupMember)",
           _gang_missing_group_ignored),
    Mutant("gang-late-member-held", "does not count a gang's bound pods toward its minCount: a pod added to a "
           "placed gang waits for minCount new pods",
           "ScheduledPodsCount counts the assumed and assigned pods of the group; PlacementFeasible passes once "
           "scheduled >= minCount (kube-scheduler pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go; "
           "backend/cache/podgroupstate.go)", _gang_late_member_held),
    Mutant("gang-preempts-whole-groups", "takes every victim PodGroup as one victim, whatever its disruptionMode: a "
           "victim gang of mode single loses all its pods when one is in the way",
           "Pods that are part of a pod group or composite pod group with disruption mode All are grouped together "
           "into a single victim; other pods are victims of their own (kube-scheduler "
           "pkg/scheduler/framework/preemption/types.go, newDomainForWorkloadPreemption)",
           _gang_preempts_whole_groups),
)


def _does_nothing(s: Switches) -> None:
    s.namespaces = frozenset({PROBE_NAMESPACE})  # binds an adapter's probe pod, and nothing else


def _never_watches(s: Switches) -> None:
    _does_nothing(s)
    s.pods.poll_period = POLL_PERIOD  # LISTs pods again and again, never WATCHes them
    s.informers[:] = [s.pods]  # no LIST or WATCH of nodes, claims, slices, classes or PDBs
    # the probe pod's node, by the name its nodeSelector gives, never read from the API server
    s.nodes.cache[PROBE_NODE] = {"metadata": {"name": PROBE_NODE, "labels": {"kubernetes.io/hostname": PROBE_NODE}},
                                 "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}


def _kube_scheduler_claim_hint(s: Switches) -> None:
    s.dynamic_resources.kube_scheduler_hint = True


def _events_as_series(s: Switches) -> None:
    s.recorder.series = True


SHAPES: tuple[Mutant, ...] = (
    Mutant("status-by-put", "writes the PodScheduled condition with PUT pods/<name>/status (the whole pod with its "
           "resourceVersion, client-go UpdateStatus); on 409 re-reads the pod and retries", "",
           _writes_with(PUT_WRITER), "shape"),
    Mutant("status-by-json-patch", "writes the PodScheduled condition with a JSON patch (RFC 6902) by index, each "
           "replace or remove guarded by a test of the element's type (the whole list, on a pod with none, by a test "
           "of metadata.resourceVersion); on 422 re-reads the pod and retries", "",
           _writes_with(JSON_PATCH_WRITER), "shape"),
    Mutant("status-by-merge-patch", "writes the PodScheduled condition with a merge patch (RFC 7386) replacing the "
           "whole conditions list, metadata.resourceVersion as precondition; on 409 re-reads the pod and retries", "",
           _writes_with(MERGE_PATCH_WRITER), "shape"),
    Mutant("claim-hint-like-kube-scheduler", "re-runs PreEnqueue on a ResourceClaim event only as kube-scheduler's "
           "queueing hint does (an add or update after which every claim of the pod is usable; deletes ignored), so a "
           "changed rejection message reaches the pod only at its next re-evaluation (a pod update)", "",
           _kube_scheduler_claim_hint, "shape"),
    Mutant("events-as-series", "records a repeated event (the same type, action, reason, note and pod within 6 "
           "minutes of the last) in its first Event's series, as client-go's events.k8s.io broadcaster does: a "
           "strategic merge PATCH of events.k8s.io/v1 series.count and series.lastObservedTime, sent at each repeat",
           "", _events_as_series, "shape"),
)

CONTROLS: tuple[Mutant, ...] = (
    Mutant("does-nothing", f"binds only the adapter's probe pod (namespace {PROBE_NAMESPACE}); never binds, patches "
           "or emits an event for any other pod", "", _does_nothing, "control"),
    Mutant("never-watches", f"polls: LISTs pods every {POLL_PERIOD:g} s, never WATCHes, never reads a node, and binds "
           f"only the adapter's probe pod (namespace {PROBE_NAMESPACE}) to the node its nodeSelector names", "",
           _never_watches, "control"),
)

VARIANTS: tuple[Mutant, ...] = (*SHAPES, *MUTANTS, *CONTROLS)
"""Every variant, shape variants first, then mutants, then controls (the selftest's row order)."""

_BY_NAME = {m.name: m for m in VARIANTS}


def get_mutant(name: str) -> Mutant:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownMutant(f"unknown mutant {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None
