"""DefaultPreemption, kube-scheduler's PostFilter plugin, and the nominator it relies on.

When a pod fits no node (a fit error from the filters), kube-scheduler looks for a node where
removing lower-priority pods would make it fit, deletes those pods and nominates the node for the
pod (``status.nominatedNodeName``). The pod binds later, in an ordinary cycle, once the victims are
really gone. The rules, each from kubernetes/kubernetes:

* eligibility (``default_preemption.go`` ``PodEligibleToPreemptOthers``): ``preemptionPolicy:
  Never`` is ``not eligible due to preemptionPolicy=Never.``; a pod already nominated to a node
  where a lower-priority pod is terminating *because of a preemption* (``deletionTimestamp`` and
  ``DisruptionTarget=True``, reason ``PreemptionByScheduler``: ``podTerminatingByPreemption``) is
  ``not eligible due to a terminating pod on the nominated node.``, unless that node now fails
  with an unresolvable reason;
* candidates (``preemption.go`` ``findCandidates``/``DryRunPreemption``): only nodes whose filter
  failure is ``Unschedulable``, which removing pods may resolve (NodeResourcesFit's ``Insufficient
  cpu``/``memory`` for a request no larger than the node's allocatable, ``Too many pods``;
  DynamicResources' ``cannot allocate all claims``); the others (node name, unschedulable, taints,
  affinity: ``UnschedulableAndUnresolvable``) are ``Preemption is not helpful for scheduling``. Every potential node is tried (kube-scheduler tries at least
  100 from a random offset), in name order;
* victims (``SelectVictimsOnNode``): every pod on the node with a lower priority
  (``isPreemptionAllowed``), terminating ones included, is removed; no such pod is ``No
  preemption victims found for incoming pod``; if the pod still does not fit, the filter's reasons
  are the node's status; then the victims are reprieved one by one, PDB-violating ones first,
  each group most important first (``util.MoreImportantPod``: higher priority, then earlier start
  time), a reprieved pod staying if the pod still fits. A victim violates a PDB of its namespace
  whose selector matches its labels once the PDB's ``status.disruptionsAllowed``, decremented per
  matching victim, drops below zero (``filterPodsWithPDBViolation``; a pod in ``disruptedPods``
  does not count; an empty selector matches nothing);
* the node (``pickOneNodeForPreemption``): fewest PDB violations, lowest highest victim priority,
  smallest sum of ``priority + 2^31`` over the victims, fewest victims, latest start time of the
  highest-priority victims; then the first node, by name here (kube-scheduler's map order is
  random);
* the API calls (``executor.go`` ``prepareCandidateAsync``, async preemption being on by default):
  the ``nominatedNodeName`` of lower-priority pods nominated to that node is cleared, then per
  victim not already terminating, a ``DisruptionTarget`` condition (the scheduler's status write,
  so the shape variants apply), a ``DELETE`` with default options (graceful for a bound pod), and a
  ``Normal Preempted`` event, action ``Preempting``, ``Preempted by pod <uid> on node <node>``,
  regarding the victim and related to the preemptor;
* the message (``PostFilter``, ``FitError.Error``): ``preemption: `` and the evaluator's message
  is appended to the fit error after a space when the preemption did not succeed, e.g.
  ``0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No
  preemption victims found for incoming pod.``; a preemption that found no candidate clears the
  pod's nomination, an ineligible pod keeps it.

Nominated pods (:class:`Nominator`, ``nominator.go``; ``RunFilterPluginsWithNominatedPods``):
pods nominated to a node and not bound count on it, in every other pod's filters, when their
priority is at least that pod's; a node fits only if it fits both with and without them.

Not done: extenders, pods waiting at Permit, the DefaultPreemption PreEnqueue that
holds a preemptor while its API calls run (the calls here are sent in one task and done before any
event could move the pod), and claim deallocation in DynamicResources' own PostFilter (it runs
first and, having no allocated claim to free, says ``no new claims to deallocate``: the scheduler
puts that before ``preemption: ...``). A ``scheduling.k8s.io`` PodGroup preempts as a whole,
in :mod:`reference_scheduler._gangpreemption`, which calls :meth:`DefaultPreemption.preempt_victim`.
The reference's allocator does not see a victim's devices freed in the dry run, so a node short of
devices stays failing with the DRA reason. A PreFilter rejection (a claim missing or being deleted)
gets no preemption and no PostFilter message here, although kube-scheduler runs PostFilter after it
too (``preemption: 0/N nodes are available: N Preemption is not helpful for scheduling.``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubeclient import KubeClient, NotFoundError, resource_path
from reference_scheduler._dispatcher import CallResult, PodStatusPatchCall
from reference_scheduler._dra import REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE
from reference_scheduler._events import EventRecorder
from reference_scheduler._plugins import NodeInfo, match_expression
from reference_scheduler._resources import Resources
from reference_scheduler._writers import ConditionWriter, nominated_of

__all__ = [
    "DISRUPTION_TARGET",
    "NEVER_MESSAGE",
    "NOT_HELPFUL",
    "NO_VICTIMS",
    "PREEMPTION_BY_SCHEDULER",
    "TERMINATING_MESSAGE",
    "Candidate",
    "DefaultPreemption",
    "Nominator",
    "PostFilterResult",
    "filter_with_nominated",
    "fit_error",
    "pick_one_node",
    "priority",
    "resolvable",
    "split_by_pdb_violation",
    "start_time",
    "terminating",
    "terminating_by_preemption",
]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler.preemption")

NEVER_MESSAGE = "not eligible due to preemptionPolicy=Never."
TERMINATING_MESSAGE = "not eligible due to a terminating pod on the nominated node."
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
_MAX_INT32 = 2**31 - 1
#: Unschedulable (not UnschedulableAndUnresolvable) reasons, and the request a node must hold at all
_RESOLVABLE = {"Insufficient cpu": "milli_cpu", "Insufficient memory": "memory", "Too many pods": "",
               REASON_CANNOT_ALLOCATE: "", REASON_NOT_AVAILABLE: ""}

Filter = Callable[[Obj, Resources, NodeInfo], list[str]]


# -- pods ---------------------------------------------------------------------------------------


def priority(pod: Obj) -> int:
    return int((pod.get("spec") or {}).get("priority") or 0)


def _key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def terminating(pod: Obj) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def terminating_by_preemption(pod: Obj) -> bool:
    """``podTerminatingByPreemption``: being deleted, and the first ``DisruptionTarget`` condition
    is ``True`` with reason ``PreemptionByScheduler``."""
    if not terminating(pod):
        return False
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == DISRUPTION_TARGET:
            return cond.get("status") == "True" and cond.get("reason") == PREEMPTION_BY_SCHEDULER
    return False


def start_time(pod: Obj, now: datetime) -> datetime:
    """``GetPodStartTime``: ``status.startTime``, or now for a pod that has not started."""
    raw = (pod.get("status") or {}).get("startTime")
    if raw:
        try:
            return datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
        except ValueError:
            pass
    return now


def _importance(now: datetime) -> Callable[[Obj], tuple[int, datetime]]:
    """Sort key, most important first (``util.MoreImportantPod``)."""
    return lambda pod: (-priority(pod), start_time(pod, now))


# -- PodDisruptionBudgets -------------------------------------------------------------------------


def _selector_matches(selector: Obj | None, labels: Mapping[str, str]) -> bool:
    """``LabelSelectorAsSelector(...).Matches``, except that nil or empty matches nothing (the
    PDB rule); an operator it does not know matches nothing (an invalid selector)."""
    if not selector:
        return False
    match_labels = selector.get("matchLabels") or {}
    exprs = selector.get("matchExpressions") or []
    if not match_labels and not exprs:
        return False
    if any(labels.get(k) != v for k, v in match_labels.items()):
        return False
    return all(e.get("operator") in ("In", "NotIn", "Exists", "DoesNotExist") and match_expression(e, labels)
               for e in exprs)


def split_by_pdb_violation(pods: Sequence[Obj], pdbs: Sequence[Obj]) -> tuple[list[Obj], list[Obj]]:
    """``filterPodsWithPDBViolation``: (violating, non-violating), each in the order given."""
    allowed = [int((pdb.get("status") or {}).get("disruptionsAllowed") or 0) for pdb in pdbs]
    violating: list[Obj] = []
    non_violating: list[Obj] = []
    for pod in pods:
        meta = pod.get("metadata") or {}
        labels = meta.get("labels") or {}
        violated = False
        if labels:  # a pod with no labels matches no PDB
            for i, pdb in enumerate(pdbs):
                pdb_meta = pdb.get("metadata") or {}
                if pdb_meta.get("namespace") != meta.get("namespace"):
                    continue
                if not _selector_matches((pdb.get("spec") or {}).get("selector"), labels):
                    continue
                if meta.get("name") in ((pdb.get("status") or {}).get("disruptedPods") or {}):
                    continue  # already processed by the API server: not a violation
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


# -- filters and messages -------------------------------------------------------------------------


def filter_with_nominated(pod: Obj, req: Resources, info: NodeInfo, nominated: Sequence[Obj], run: Filter) -> list[str]:
    """``RunFilterPluginsWithNominatedPods``: the reasons ``info`` does not fit ``pod`` with the
    pods nominated to it whose priority is at least ``pod``'s, and then without them."""
    uid = (pod.get("metadata") or {}).get("uid")
    ours = [p for p in nominated if priority(p) >= priority(pod) and (p.get("metadata") or {}).get("uid") != uid]
    if ours:
        with_them = info.clone()
        for p in ours:
            with_them.add_pod(p)
        failed = run(pod, req, with_them)
        if failed:
            return failed
    return run(pod, req, info)


def resolvable(reasons: Sequence[str], req: Resources, info: NodeInfo) -> bool:
    """Whether a node's failure is ``Unschedulable`` (removing pods may help) rather than
    ``UnschedulableAndUnresolvable``: NodeResourcesFit's, for a request that fits the node's
    allocatable at all (``InsufficientResource.Unresolvable``), and DynamicResources' Filter's
    (``statusUnschedulable``); the other filters' are unresolvable."""
    if not reasons or any(r not in _RESOLVABLE for r in reasons):
        return False
    return all(not attr or getattr(req, attr) <= getattr(info.allocatable, attr)
               for attr in (_RESOLVABLE[r] for r in reasons))


def fit_error(num_nodes: int, statuses: Mapping[str, Sequence[str]], absent: str = "", *, counted: bool = True) -> str:
    """``FitError.Error`` without PreFilter or PostFilter messages: ``0/N nodes are available:``
    and the sorted ``<count> <reason>`` histogram, nodes without a status counted as ``absent``.
    ``counted`` False (only the ``fit-error-without-counts`` mutant) leaves the counts out."""
    counts: Counter[str] = Counter()
    for reasons in statuses.values():
        counts.update(reasons)
    if absent and len(statuses) < num_nodes:
        counts[absent] += num_nodes - len(statuses)
    histogram = sorted(f"{count} {reason}" if counted else reason for reason, count in counts.items())
    message = f"0/{num_nodes} nodes are available:"
    return f"{message} {', '.join(histogram)}." if histogram else message


# -- choosing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A node and the victims to delete there, most important first."""

    node: str
    victims: tuple[Obj, ...]
    pdb_violations: int


def _latest_start(candidate: Candidate, now: datetime) -> float:
    """``GetEarliestPodStartTime``: the earliest start among the highest-priority victims."""
    top = max(priority(v) for v in candidate.victims)
    return min(start_time(v, now) for v in candidate.victims if priority(v) == top).timestamp()


def pick_one_node(candidates: Sequence[Candidate], now: datetime, *, lowest_top_victim: bool = True) -> Candidate:
    """``pickOneNodeForPreemption``: each score in turn keeps the best nodes, until one is left.
    ``lowest_top_victim`` False (only the ``prefers-higher-priority-victim`` mutant) turns the
    second rule round: the nodes whose most important victim has the highest priority are kept."""
    remaining = sorted(candidates, key=lambda c: c.node)
    top_victim = -1 if lowest_top_victim else 1
    scores: list[Callable[[Candidate], float]] = [
        lambda c: -c.pdb_violations,
        lambda c: top_victim * priority(c.victims[0]),
        lambda c: -sum(priority(v) + _MAX_INT32 + 1 for v in c.victims),
        lambda c: -len(c.victims),
        lambda c: _latest_start(c, now),
    ]
    for score in scores:
        if len(remaining) == 1:
            break
        best = max(score(c) for c in remaining)
        remaining = [c for c in remaining if score(c) == best]
    return remaining[0]


@dataclass(frozen=True)
class PostFilterResult:
    """``message``: the PostFilter message for the fit error (empty on success); ``nominated_node``:
    None leaves the pod's nomination alone, ``""`` clears it, else the node to nominate;
    ``candidate``: what to preempt (None when nothing is)."""

    message: str
    nominated_node: str | None = None
    candidate: Candidate | None = None


class Nominator:
    """The pods nominated to nodes (``nominator.go``): a pod's ``status.nominatedNodeName``, or
    a nomination this scheduler made and the watch has not brought back yet."""

    def __init__(self) -> None:
        self._nominated: dict[str, tuple[str, Obj]] = {}  # pod key -> (node, pod)

    def add(self, pod: Obj, node: str | None = None) -> None:
        """``AddNominatedPod``: ``node`` overrides; None takes the pod's own ``nominatedNodeName``."""
        self.delete(pod)
        node = nominated_of(pod) if node is None else node
        if node and not (pod.get("spec") or {}).get("nodeName"):
            self._nominated[_key(pod)] = (node, pod)

    def update(self, old: Obj, new: Obj) -> None:
        """``updateNominatedPod``: an update carrying no nomination either side keeps the one in memory."""
        kept = None
        if not nominated_of(old) and not nominated_of(new) and _key(new) in self._nominated:
            kept = self._nominated[_key(new)][0]
        self.add(new, kept)

    def delete(self, pod: Obj) -> None:
        self._nominated.pop(_key(pod), None)

    def node_of(self, pod: Obj) -> str:
        entry = self._nominated.get(_key(pod))
        return entry[0] if entry else ""

    def pods_for(self, node: str) -> list[Obj]:
        return [pod for n, pod in self._nominated.values() if n == node]


# -- the plugin ---------------------------------------------------------------------------------


class DefaultPreemption:
    """Choosing (:meth:`post_filter`) and acting (:meth:`prepare_candidate`); the switches below
    exist only for the mutants (:mod:`reference_scheduler._mutants`)."""

    def __init__(
        self,
        pdbs: Callable[[], list[Obj]],
        nominator: Nominator,
        now: Callable[[], datetime],
    ) -> None:
        self.pdbs = pdbs
        self.nominator = nominator
        self.now = now
        self.preempts_equal_priority = False
        self.honours_never = True
        self.honours_pdbs = True
        self.writes_disruption_target = True
        self.nominates = True
        self.lowest_top_victim = True

    def may_preempt(self, victim: Obj, preemptor: Obj) -> bool:
        """``isPreemptionAllowed``: strictly lower priority."""
        if self.preempts_equal_priority:
            return priority(victim) <= priority(preemptor)
        return priority(victim) < priority(preemptor)

    def ineligible(self, pod: Obj, nodes: Sequence[NodeInfo], resolvable_nodes: Iterable[str]) -> str:
        """``PodEligibleToPreemptOthers``: "" or why ``pod`` may not preempt."""
        if self.honours_never and (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return NEVER_MESSAGE
        nominated = nominated_of(pod)
        if nominated:
            if nominated not in set(resolvable_nodes):
                return ""  # the nominated node is UnschedulableAndUnresolvable (or gone): try again
            for info in nodes:
                if info.name == nominated and any(
                        self.may_preempt(p, pod) and terminating_by_preemption(p) for p in info.pods.values()):
                    return TERMINATING_MESSAGE
        return ""

    def post_filter(self, pod: Obj, req: Resources, nodes: Sequence[NodeInfo],
                    statuses: Mapping[str, Sequence[str]], run: Filter) -> PostFilterResult:
        """``Evaluator.Preempt`` for a pod that fit no node; ``statuses`` are the nodes' filter
        reasons, ``run`` the filters (with nominated pods) to dry-run victims against."""
        potential = [info for info in nodes if resolvable(statuses.get(info.name, ()), req, info)]
        why = self.ineligible(pod, nodes, (info.name for info in potential))
        if why:
            return PostFilterResult(f"preemption: {why}")
        pdbs = self.pdbs() if self.honours_pdbs else []
        failed: dict[str, Sequence[str]] = {}
        candidates: list[Candidate] = []
        for info in potential:
            victims, violations, reasons = self.select_victims_on_node(pod, req, info, pdbs, run)
            if reasons:
                failed[info.name] = reasons
            else:
                candidates.append(Candidate(info.name, tuple(victims), violations))
        if not candidates:
            return PostFilterResult(f"preemption: {fit_error(len(nodes), failed, NOT_HELPFUL)}", "")
        best = pick_one_node(candidates, self.now(), lowest_top_victim=self.lowest_top_victim)
        return PostFilterResult("", best.node if self.nominates else None, best)

    def select_victims_on_node(self, pod: Obj, req: Resources, info: NodeInfo, pdbs: Sequence[Obj],
                               run: Filter) -> tuple[list[Obj], int, list[str]]:
        """``SelectVictimsOnNode``: (victims most important first, PDB violations, []), or the
        node's failure reasons."""
        work = info.clone()
        importance = _importance(self.now())
        potential = sorted((p for p in info.pods.values() if self.may_preempt(p, pod)), key=importance)
        if not potential:
            return [], 0, [NO_VICTIMS]
        for p in potential:
            work.remove_pod(p)
        still = run(pod, req, work)
        if still:
            return [], 0, still
        victims: list[Obj] = []

        def reprieve(p: Obj) -> bool:
            work.add_pod(p)
            if run(pod, req, work):
                work.remove_pod(p)
                victims.append(p)
                return False
            return True

        violating, non_violating = split_by_pdb_violation(potential, pdbs)
        violations = sum(1 for p in violating if not reprieve(p))
        for p in non_violating:
            reprieve(p)
        if not victims:
            return [], 0, [f'expected at least one victim pod on node "{info.name}"']
        if violating and non_violating:
            victims.sort(key=importance)
        return victims, violations, []

    async def prepare_candidate(
        self,
        candidate: Candidate,
        preemptor: Obj,
        *,
        client: KubeClient,
        recorder: EventRecorder,
        writer: ConditionWriter,
        run_call: Callable[[PodStatusPatchCall], Any],
        latest: Callable[[str], Obj | None],
        now: str,
        scheduler_name: str,
    ) -> bool:
        """``prepareCandidateAsync``: clear lower-priority nominations on the node, then preempt
        each victim not already terminating. False if an API call failed (the caller activates the
        preemptor again, as kube-scheduler does)."""
        ok = True
        for other in self.nominator.pods_for(candidate.node):
            if priority(other) < priority(preemptor):
                result: CallResult = await run_call(PodStatusPatchCall(other, nominated_node="", writer=writer))
                ok = ok and result.outcome != "failed"
        for victim in candidate.victims:
            if terminating(victim):
                continue  # graceful deletion already started: no API call
            try:
                await self._preempt_pod(victim, preemptor, candidate.node, client, recorder, writer, latest, now,
                                        scheduler_name)
            except Exception as e:
                log.warning("preempting %s for %s failed: %s", _key(victim), _key(preemptor), e)
                ok = False
        return ok

    async def _preempt_pod(self, victim: Obj, preemptor: Obj, node: str, client: KubeClient, recorder: EventRecorder,
                           writer: ConditionWriter, latest: Callable[[str], Obj | None], now: str,
                           scheduler_name: str) -> None:
        await self.preempt_victim(victim, preemptor, node, client=client, recorder=recorder, writer=writer,
                                  latest=latest, now=now, scheduler_name=scheduler_name)

    async def preempt_victim(self, victim: Obj, preemptor: Obj, node: str, *, client: KubeClient,
                             recorder: EventRecorder, writer: ConditionWriter, latest: Callable[[str], Obj | None],
                             now: str, scheduler_name: str, preemptor_type: str = "pod") -> None:
        """``PreemptPod``: the DisruptionTarget condition, the DELETE, the event; a victim already
        gone ends it quietly. ``preemptor_type`` is ``pod``, or ``podgroup`` for a PodGroup
        preemptor (``node`` is then the domain's name, ``cluster``); it is in both messages."""
        meta = victim.get("metadata") or {}
        if self.writes_disruption_target:
            condition = {"type": DISRUPTION_TARGET, "status": "True", "reason": PREEMPTION_BY_SCHEDULER,
                         "message": f"{scheduler_name}: preempting to accommodate a higher priority {preemptor_type}"}
            call = PodStatusPatchCall(victim, condition=condition, kind="disruption-target", writer=writer)
            try:
                await call.execute(client, latest(_key(victim)) or victim, now)
            except NotFoundError:
                return
        try:
            await client.delete(resource_path("", "v1", "pods", str(meta.get("namespace", "")), str(meta.get("name", ""))))
        except NotFoundError:
            return
        uid = (preemptor.get("metadata") or {}).get("uid", "")
        recorder.emit(victim, "Normal", "Preempted", "Preempting", f"Preempted by {preemptor_type} {uid} on node {node}",
                      related=preemptor)

