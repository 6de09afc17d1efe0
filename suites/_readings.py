"""The suites' readings of the points where a KEP's text leaves a choice (KEP-5501's Q1-Q13,
KEP-5836's R1-R9).

``docs/readings.md`` states each point as a question (KEP-5501's Q1-Q8 where its text allows
more than one behaviour, Q9-Q13 where the suites met another, KEP-5836's R1-R9 where its review
left points open) and shows the reading chosen. A criterion that depends on one names
the reading here in its ``criterion(..., reading=...)`` marker, and the report shows it next to
the verdict, so a KEP reviewer can confirm the reading or ask for the other. Where another KEP
sentence forces a reading, the text cites it.
"""

from __future__ import annotations

__all__ = ["READINGS"]

READINGS: dict[str, str] = {
    "seeding": (
        "Q1 seeding: the de-duplication cache is seeded from the pod's PodScheduled condition "
        "(reason NotReadyForScheduling or SchedulingGated) on first sight only, never after a "
        "success; a rejection that follows a success therefore enqueues a patch, which overwrites "
        "the pending delayed clear, and no patch is sent if the pod already shows that condition. "
        "Forced by: 'Set the last known message from the Pod object on first sight.'"
    ),
    "gated-clear": (
        "Q2 gated pods and the clear: the delayed clear removes only a condition with reason "
        "NotReadyForScheduling; when the gates of a gated pod go, its SchedulingGated condition is "
        "left to the binding, so no extra patch is sent. Forced by: the message unification "
        "'preserves the current scheduler performance when processing pods with scheduling gates'."
    ),
    "events": (
        "Q3 events: one event, reason NotReadyForScheduling, the rejection message as its note, "
        "type Warning, sent when the delayed patch is sent and succeeds; none when the patch is "
        "cancelled, skipped or fails. Read from: the review answer that the event is sent together "
        "with the (delayed) patch."
    ),
    "retry": (
        "Q4 the retry promise: a failed status patch resets the de-duplication cache, so the next "
        "re-evaluation of the pod by the PreEnqueue plugins enqueues the patch again. Forced by: "
        "'any subsequent event that causes the Pod to be re-evaluated by the PreEnqueue plugins will "
        "trigger a retry of the status patch'."
    ),
    "delay-kept": (
        "Q5 delayed and immediate calls: a newer delayed call that overwrites a pending one keeps "
        "the original due time (the delay is not reset); an immediate call (binding, Unschedulable "
        "patch) overwrites a pending delayed call and runs at once. Read from: 'If a previous API "
        "call for the same Pod is already enqueued, its delay will not be reset.' (design discussion)"
    ),
    "clear-writes": (
        "Q6 what the clear writes: after the clear the pod has no PodScheduled condition at all (the "
        "element is removed, by whatever request), and every other condition is as it was, so the "
        "pod looks like a fresh ungated pod until scheduled."
    ),
    "clear-or-binding": (
        "Q9 a clear pending when the binding comes: the clear is due 5 s after the pod passed "
        "PreEnqueue; if the scheduler's binding for the pod is issued before that, the binding may "
        "take the pending clear's place (KEP-5229's call queue: a more relevant call for the same "
        "object overwrites a pending one) and the API server's PodScheduled=True replaces the "
        "condition. Both outcomes are accepted: a clear no earlier than 5 s after the pass, or no "
        "clear and the binding. Removing the condition earlier is not."
    ),
    "prebind-order": (
        "Q10 the binding cycle's order: a scheduler that allocates a ResourceClaim records the "
        "allocation in the claim's status before it binds the pod (KEP-4381, PreBind), and the "
        "binding call is issued only after that write is answered; so while that write is held, a "
        "pending clear is not overwritten and is sent 5 s after the pass. A scheduler that binds "
        "before recording the allocation is outside this reading: the criterion is skipped for it, "
        "saying so."
    ),
    "defaults": (
        "Q7 defaults: the suite runs with SchedulerPreEnqueuePodStatus=true and "
        "SchedulerAsyncAPICalls=true unless a criterion says otherwise (the KEP's beta), and a run "
        "states its gates; enabling the first without the second must fail at start."
    ),
    "other-conditions": (
        "Q11 conditions other writers own: every write of the scheduler's changes only the pod's "
        "PodScheduled condition and leaves every other condition (a readiness gate's, a controller's) "
        "exactly as it is when the write is stored, including one added while the delayed write was "
        "pending or while it was in flight; a write that would lose one must be refused and redone "
        "(a precondition) or not carry the others at all (a patch by merge key, as kube-scheduler's "
        "strategic merge patch). Read from: 'it will add one entry to the .status.conditions array of "
        "a Pod object when it is in a NotReadyForScheduling state' (PRR, Scalability) and the API's "
        "merge key 'type' on status.conditions (docs/api-facts.md §status-write)."
    ),
    "gate-first": (
        "Q12 a gated pod's other rejections: while a pod has scheduling gates its PreEnqueue outcome is "
        "the SchedulingGates rejection, whatever a later plugin would say (SchedulingGates is the first "
        "PreEnqueue plugin of kube-scheduler's default profile), so it gets no status write; a claim "
        "deleted while the pod is gated counts from when the gates go. Forced by: 'When a gated Pod is "
        "rejected, the scheduler will generate the unified message, compare it to the message already "
        "on the Pod object, see that they are identical, and skip sending a redundant patch.'"
    ),
    "claim-deleting": (
        "Q13 a ResourceClaim being deleted (deletionTimestamp set, held by a finalizer) is a "
        "PreEnqueue rejection like a missing one, so KEP-5501 reports it after the delay as "
        "NotReadyForScheduling (kube-scheduler's DynamicResources PreEnqueue: 'resourceclaim \"<name>\" "
        "is being deleted', docs/api-facts.md §dra-preenqueue), and the pod is neither allocated nor bound while it "
        "lasts. Forced by: 'This KEP will not change the core rejection logic of any existing "
        "PreEnqueue plugin, only how the outcome of that logic is communicated.' (Non-Goals)"
    ),
    "reevaluation": (
        "Q8 re-evaluation and timestamps: a pod update event re-runs PreEnqueue; lastTransitionTime "
        "is kept on a False to False change of PodScheduled (UpdatePodCondition semantics, "
        "docs/api-facts.md §condition-update)."
    ),
    "fit-error": (
        "Core sanity, the fit-error message: no KEP defines the words of an Unschedulable message; "
        "the criterion reads kube-scheduler's format as the expected one ('0/<nodes> nodes are "
        "available: <count> <reason>.' with its reasons sorted, docs/api-facts.md §fit-error, optionally followed "
        "by a PostFilter sentence), since users and tools read it. A scheduler with other words fails "
        "only this criterion, and the report says which reading it failed."
    ),
    "5836-status": (
        "R1 status reporting (KEP-5836): the scheduler writes nothing on the resizing pod, neither "
        "PodScheduled nor nominatedNodeName nor a ResizeUnschedulable condition; the outcome shows in "
        "the victims' writes and in the kubelet's PodResizePending condition. Settled by kube-scheduler "
        "v1.37.2: its failure handler returns for a deferred resize before any nomination, event or "
        "status patch (pkg/scheduler/schedule_one.go, 'Return early to avoid binding operations or "
        "setting nominated node status'); the KEP draft's ResizeUnschedulable condition was dropped in "
        "review, so the KEP's step 6 ('Update Status') has no API (docs/kep5836-v1.37.md, finding 1)."
    ),
    "5836-nomination": (
        "R2 nomination: none; the freed room is not held for the resize against pods of higher "
        "priority, which may take it first (the upstream integration test asserts an empty "
        "nominatedNodeName). A pending pod of lower priority than the resizing pod must not take it: "
        "the scheduler counts a pod as max(spec, allocated, actual), so the deferred resize already "
        "holds the room."
    ),
    "5836-retry": (
        "R3 retry: a deferred resize that preemption could not help is tried again when pods on its "
        "node change (one goes, one is resized), and not on events elsewhere (a pod or node on another "
        "node). Read from: the implementation's queueing hints and the KEP's throughput mitigation "
        "('reconsider only on node changes'). kube-scheduler v1.37.2 also retries on any node added "
        "anywhere and every 5 minutes; such a retry finds no victim and writes nothing, so no criterion "
        "can see it (docs/kep5836-v1.37.md, finding 3)."
    ),
    "5836-changed-again": (
        "R4 a resize changed again (larger) while its preemption is under way: the victims already "
        "chosen stay chosen (their deletion is not undone), and the new size is judged on the next "
        "attempt, which takes what the final size needs beyond them; the resize is actuated at its "
        "final size."
    ),
    "5836-own-node": (
        "R5 victims: on the resizing pod's own node only (KEP: 'narrow the victim search to the "
        "pod's node'); workload-aware preemption across nodes is out of scope."
    ),
    "5836-eligibility": (
        "R6 eligibility: the resizing pod's preemptionPolicy: Never means no preemption; victims are "
        "chosen as for a pending pod (lower priority only, PodDisruptionBudgets reprieved first)."
    ),
    "5836-infeasible": (
        "R7 a resize its kubelet answered Infeasible (the node can never hold it) is never a reason "
        "to preempt: only a Deferred one is. (One larger than the node's allocatable does not get that "
        "far: the API server's PodResizeValidator refuses it with 403.)"
    ),
    "5836-requeue": (
        "R9 what brings back a deferred resize that no preemption could help (R3 in full): a change on "
        "its node after which preemption may help: a pod there deleted; a pod there scaled down, counted "
        "from its kubelet's actuation (the scheduler counts a pod as max(spec, allocated, actual)); its "
        "own resize changed, smaller too; its node's allocatable raised; its node's "
        "disableResizePreemption emptied. The scheduler then preempts within 5 s of the change; a "
        "scheduler that also retries on a timer passes when a retry comes within those 5 s. Read from: "
        "the review's 'only if something on the node changes that could cause preemption to succeed' "
        "and the upstream tests' 'wakes queue' cases (TestDeferredResizeQueueingHints, "
        "TestDeferredResizeNodePreemptionPolicy), which kube-scheduler v1.37.2 implements as queueing "
        "hints: NodeResourcesFit's AssignedPod/Delete, AssignedPod/UpdatePodScaleDown and "
        "Node/UpdateNodeAllocatable made node-aware, DeferredPodScheduling's "
        "Node/UpdateNodePreemptionPolicy from disabled to enabled."
    ),
    "5836-off": (
        "R8 the gate off, or the node's spec.podPreemptionPolicy.disableResizePreemption non-empty: "
        "nothing changes compared with today: no victim for a deferred resize. Settled by Kubernetes "
        "v1.37.2: the scheduler reads the Node field itself (DeferredPodScheduling's Filter, 'node had "
        "resize preemption disabled'); no pod condition carries the policy and the kubelet does not read "
        "it; the pod is still queued and tried, without a write. kube-apiserver drops the field while "
        "its gate is off, and the criterion is then not judged."
    ),
    "gang-room": (
        "G1 no room held: a gang that cannot be placed whole holds no room for later; an ordinary pod "
        "that fits is bound at once and no pod of the gang is left nominated to a node. Settled by "
        "kube-scheduler v1.37.2: the pod group cycle reverts every tentative placement before it ends "
        "(schedule_one_podgroup.go) and clears the nomination of a rejected group's pods; its Permit "
        "wait (at most 300 s) only follows a placement of the whole gang."
    ),
    "gang-gated": (
        "G2 a gated member: while any pod of a gang has scheduling gates, the whole gang waits, even "
        "when its other pods would make minCount. Settled by kube-scheduler v1.37.2: the queue gates the "
        "group entity when one of its pods is gated (scheduling_queue.go), for gang and basic groups."
    ),
    "gang-preenqueue": (
        "G3 a gang pod held before scheduling (its PodGroup not there yet, or fewer than minCount pods) "
        "is a PreEnqueue rejection, so with KEP-5501 on it is reported as NotReadyForScheduling with the "
        "scheduler's message after the delay, as any other. kube-scheduler v1.37.2 writes nothing for "
        "such a pod (no KEP-5501), and keeps a pod whose PodGroup is missing out of PreEnqueue altogether "
        "(scheduling_queue.go's incompletePodGroupPods); a KEP-5501 implementation in it would have to "
        "report from there too."
    ),
}
