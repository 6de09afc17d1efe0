"""PreEnqueue plugins and Filter plugins, with the real kube-scheduler's messages.

PreEnqueue (``pkg/scheduler/framework/plugins``; ``docs/api-facts.md`` §gated-scheduler, §dra-preenqueue):

* :class:`SchedulingGates` rejects a pod with ``spec.schedulingGates``. With
  ``SchedulerPreEnqueuePodStatus`` on its message is the API server's,
  ``Scheduling is blocked due to non-empty scheduling gates``, because KEP-5501 says
  "SchedulingGates: Message will be made consistent with the kube-apiserver" — so the cache seeded
  from the pod's ``SchedulingGated`` condition equals it and a gated pod costs no patch. With the
  gate off it is today's ``waiting for scheduling gates: [a b]`` (Go's ``%v`` of a slice).
* :class:`DynamicResources` checks that each claim exists in the informer cache, is not being
  deleted and, when generated from a template, is owned by the pod — with the exact messages of
  ``dynamicresources.go``/``resourceclaim.go``. kube-scheduler runs the same check
  (``foreachPodResourceClaim``) in PreEnqueue and again in PreFilter, where a claim that started
  to be deleted after the pod passed PreEnqueue makes the attempt fail with
  ``0/N nodes are available: resourceclaim "<name>" is being deleted.``; the scheduler calls
  :meth:`DynamicResources.pre_filter` for that. Allocation is in :mod:`reference_scheduler._dra`.
* :class:`GangQuorum` is the example of an out-of-tree plugin (KEP-5501 user story "Using custom
  Gang Scheduling implementation"): a pod labelled ``scheduling.x-k8s.io/pod-group: <name>`` waits
  until the number of non-terminal pods of that PodGroup in its namespace reaches the PodGroup's
  ``spec.minMember`` (a custom resource, the one scheduler-plugins' Coscheduling reads); pods
  labelled ``gang.schedharness.io/name`` wait until their gang reaches the
  ``gang.schedharness.io/min-available`` annotation.

Each plugin says which cluster events may make a rejected pod pass (:meth:`requeue_on`, the
``EventsToRegister`` of the real framework); the queue re-runs PreEnqueue for pods that plugin
rejected when one arrives. Every update of the pod itself re-runs PreEnqueue anyway (see
:mod:`reference_scheduler._queue`). DynamicResources re-runs on every ResourceClaim add, update
and delete, more often than kube-scheduler, which registers only add and update with a queueing
hint that skips the pod while any of its claims is still missing or being deleted
(``isSchedulableAfterClaimChange``) and ignores deletes. The extra runs never let a pod through
that kube-scheduler would hold (PreEnqueue decides either way) and cost nothing when the message
is unchanged (de-duplicated); they only let a changed message reach the pod at once (a claim
deleted while another is missing), which KEP-5501 wants ("the user always sees the most recent
rejection reason"). The ``claim-hint-like-kube-scheduler`` variant re-runs as kube-scheduler does
(``kube_scheduler_hint``); the suites must pass it too (the message-flip suite updates the pod after
each flip, which re-runs PreEnqueue in either).

Filters, in the default profile's order: NodeUnschedulable, NodeName, TaintToleration,
NodeAffinity (``nodeSelector`` and required node affinity), NodeResourcesFit (cpu, memory, pods).
Each returns the reasons a node does not fit, the strings ``FitError`` counts into
``0/N nodes are available: ...`` (``docs/api-facts.md`` §fit-error).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reference_scheduler._resources import Resources, node_allocatable, pod_requests

__all__ = [
    "GANG_LABEL",
    "GANG_MIN_ANNOTATION",
    "GATED_MESSAGE",
    "POD_GROUP_LABEL",
    "POD_GROUP_RESOURCE",
    "ClusterEvent",
    "DynamicResources",
    "FILTERS",
    "FilterPlugin",
    "GangQuorum",
    "NodeInfo",
    "PreEnqueuePlugin",
    "SchedulingGates",
    "filter_node",
    "least_allocated",
    "match_expression",
    "match_term",
    "tolerates",
]

Obj = dict[str, Any]

GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


@dataclass(frozen=True)
class ClusterEvent:
    """``resource`` (``pods``, ``nodes``, ``resourceclaims``, ...) and ``action``
    (``add``, ``update``, ``delete``), with the object (the new one for updates) and, for an
    update, the object before it (a queueing hint may compare the two, as kube-scheduler's get
    ``oldObj`` and ``newObj``)."""

    resource: str
    action: str
    obj: Obj
    old: Obj | None = None


class PreEnqueuePlugin(Protocol):
    name: str
    #: resources whose events may make a rejected pod pass (``EventsToRegister``)
    events: frozenset[str]

    def pre_enqueue(self, pod: Obj) -> str | None:
        """None when the pod may enter the active queue, else the rejection message."""
        ...

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        """Whether ``event`` may make ``pod``, which this plugin rejected, pass."""
        ...


class SchedulingGates:
    name = "SchedulingGates"
    events: frozenset[str] = frozenset()

    def __init__(self, *, unified_message: bool = True) -> None:
        self.unified_message = unified_message
        #: False only for the ``checks-gates-at-permit`` mutant: PreEnqueue lets a gated pod through
        #: and the scheduler holds it at Permit (:meth:`permit`), after Filter and PostFilter
        self.at_pre_enqueue = True

    def pre_enqueue(self, pod: Obj) -> str | None:
        return self.permit(pod) if self.at_pre_enqueue else None

    def permit(self, pod: Obj) -> str | None:
        """The rejection message while the pod has gates, else None (PreEnqueue's check)."""
        gates = (pod.get("spec") or {}).get("schedulingGates") or []
        if not gates:
            return None
        if self.unified_message:
            return GATED_MESSAGE
        return f"waiting for scheduling gates: [{' '.join(str(g.get('name', '')) for g in gates)}]"

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        return False  # only the pod's own update (gates removed) helps


class DynamicResources:
    """PreEnqueue of ``dynamicresources.go``: existence and ownership of the pod's claims."""

    name = "DynamicResources"
    events = frozenset({"resourceclaims"})

    def __init__(self, claims: Callable[[str], Obj | None]) -> None:
        self.claims = claims  # "ns/name" -> claim from the informer
        #: True only for the ``claim-hint-like-kube-scheduler`` variant: re-run PreEnqueue on a claim
        #: event only as kube-scheduler's queueing hint does (module docstring)
        self.kube_scheduler_hint = False
        #: False only for the ``allocates-deleting-claim`` mutant: a claim being deleted passes
        self.honours_deletion = True
        #: False only for the ``prebind-waits-for-driver`` mutant: after PreBind wrote a claim's
        #: allocation, the binding cycle ends and a later cycle binds the pod
        self.binds_after_pre_bind = True

    def pre_enqueue(self, pod: Obj) -> str | None:
        meta = pod.get("metadata") or {}
        ns, pod_name = meta.get("namespace", ""), meta.get("name", "")
        statuses = {s.get("name"): s for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []}
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            owned_by_pod = False
            if entry.get("resourceClaimName"):
                claim_name = entry["resourceClaimName"]
            elif entry.get("resourceClaimTemplateName"):
                status = statuses.get(entry.get("name"))
                if status is None:
                    return f'pod "{ns}/{pod_name}": ResourceClaim not created yet'
                if not status.get("resourceClaimName"):
                    continue  # "not needed"
                claim_name, owned_by_pod = status["resourceClaimName"], True
            else:
                return f'pod "{ns}/{pod_name}", spec.resourceClaim "{entry.get("name", "")}": none of the supported fields are set'
            claim = self.claims(f"{ns}/{claim_name}")
            if claim is None:
                return f'could not find ResourceClaim "{ns}/{claim_name}"'
            if self.honours_deletion and (claim.get("metadata") or {}).get("deletionTimestamp"):
                return f'resourceclaim "{claim_name}" is being deleted'
            if owned_by_pod and not _controlled_by(claim, meta.get("uid", "")):
                return f"ResourceClaim {ns}/{claim_name} was not created for Pod {ns}/{pod_name} (Pod is not owner)"
        return None

    def pre_filter(self, pod: Obj) -> str | None:
        """PreFilter's first step, the same check at the start of a scheduling attempt
        (``podResourceClaims``): the pod passed PreEnqueue, but a claim may have gone or started to
        be deleted since. None, or the message the attempt fails with (``UnschedulableAndUnresolvable``)."""
        return self.pre_enqueue(pod)

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        if event.resource != "resourceclaims":
            return False
        if not self.kube_scheduler_hint:
            return True
        # isSchedulableAfterClaimChange: adds and updates only, and only once every claim is usable
        return event.action in ("add", "update") and self.pre_enqueue(pod) is None


def _controlled_by(obj: Obj, uid: str) -> bool:
    return any(
        ref.get("controller") and ref.get("uid") == uid
        for ref in (obj.get("metadata") or {}).get("ownerReferences") or []
    )


GANG_LABEL = "gang.schedharness.io/name"
GANG_MIN_ANNOTATION = "gang.schedharness.io/min-available"
#: The label that makes a pod a member of a PodGroup of its namespace (scheduler-plugins' API).
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
#: Where PodGroups are served: group, version, resource.
POD_GROUP_RESOURCE = ("scheduling.x-k8s.io", "v1alpha1", "podgroups")


class GangQuorum:
    """Reject a gang member until enough members exist (an example out-of-tree plugin).

    A gang is named one of two ways:

    * **a PodGroup** (``scheduling.x-k8s.io/v1alpha1``, the custom resource scheduler-plugins'
      Coscheduling reads): a pod labelled ``scheduling.x-k8s.io/pod-group: <name>`` belongs to the
      PodGroup ``<name>`` of its namespace and waits until ``spec.minMember`` such pods exist. A pod
      whose PodGroup is not (yet) known waits too, as Coscheduling's Permit denies it
      ("PodGroup not found"); it is looked at again when a PodGroup of that name is added or
      changed. Message: ``waiting for PodGroup "ns/name": 2/3 pods present`` or
      ``waiting for PodGroup "ns/name": not found``.
    * **labels** (this project's own, kept for the suites that use it): ``gang.schedharness.io/name``
      names the gang and the ``gang.schedharness.io/min-available`` annotation its size. Message:
      ``waiting for gang "ns/name": 1/3 pods present``.

    The PodGroup label wins when a pod carries both. Either message changes as members arrive, which
    is what makes this plugin the suites' example of a changing rejection. ``podgroup`` looks a
    PodGroup up by ``ns/name`` in the scheduler's cache (None: unknown)."""

    name = "GangQuorum"
    events = frozenset({"pods", "podgroups"})

    def __init__(self, pods: Callable[[], list[Obj]], podgroup: Callable[[str], Obj | None] = lambda key: None) -> None:
        self.pods = pods  # every non-terminal pod the informer holds
        self.podgroup = podgroup

    @staticmethod
    def gang_of(pod: Obj) -> tuple[str, str] | None:
        """``(namespace, name)`` of the pod's gang by labels (:data:`GANG_LABEL`), or None."""
        meta = pod.get("metadata") or {}
        name = (meta.get("labels") or {}).get(GANG_LABEL)
        return (str(meta.get("namespace", "")), str(name)) if name else None

    @staticmethod
    def pod_group_of(pod: Obj) -> tuple[str, str] | None:
        """``(namespace, name)`` of the pod's PodGroup (:data:`POD_GROUP_LABEL`), or None."""
        meta = pod.get("metadata") or {}
        name = (meta.get("labels") or {}).get(POD_GROUP_LABEL)
        return (str(meta.get("namespace", "")), str(name)) if name else None

    def pre_enqueue(self, pod: Obj) -> str | None:
        group = self.pod_group_of(pod)
        if group is not None:
            return self._pod_group_check(group)
        gang = self.gang_of(pod)
        if gang is None:
            return None
        try:
            need = int((pod["metadata"].get("annotations") or {}).get(GANG_MIN_ANNOTATION, "1"))
        except ValueError:
            need = 1
        have = sum(1 for p in self.pods() if self.gang_of(p) == gang)
        if have >= need:
            return None
        return f'waiting for gang "{gang[0]}/{gang[1]}": {have}/{need} pods present'

    def _pod_group_check(self, group: tuple[str, str]) -> str | None:
        key = f"{group[0]}/{group[1]}"
        found = self.podgroup(key)
        if found is None:
            return f'waiting for PodGroup "{key}": not found'
        need = (found.get("spec") or {}).get("minMember", 1)
        need = need if isinstance(need, int) and not isinstance(need, bool) else 1
        have = sum(1 for p in self.pods() if self.pod_group_of(p) == group)
        if have >= need:
            return None
        return f'waiting for PodGroup "{key}": {have}/{need} pods present'

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        group = self.pod_group_of(pod)
        if event.resource == "podgroups":
            meta = event.obj.get("metadata") or {}
            return group == (str(meta.get("namespace", "")), str(meta.get("name", "")))
        if event.resource != "pods" or event.action not in ("add", "delete"):
            return False
        if group is not None:
            return self.pod_group_of(event.obj) == group
        return self.gang_of(event.obj) == self.gang_of(pod)


# ---- Filters -----------------------------------------------------------------------------


class NodeInfo:
    """A node, the pods on it (bound or assumed, by ``ns/name``) and what they request;
    ``use_status`` is the ``InPlacePodVerticalScaling`` gate (:func:`pod_requests`)."""

    __slots__ = ("node", "name", "allocatable", "requested", "pods", "use_status")

    def __init__(self, node: Obj, *, use_status: bool = True) -> None:
        self.node = node
        self.name = str(node["metadata"]["name"])
        self.allocatable = node_allocatable(node)
        self.requested = Resources()
        self.pods: dict[str, Obj] = {}
        self.use_status = use_status

    def add_pod(self, pod: Obj) -> None:
        self.pods[_key(pod)] = pod
        self.requested.add(pod_requests(pod, use_status=self.use_status))

    def remove_pod(self, pod: Obj) -> None:
        removed = self.pods.pop(_key(pod), None)
        if removed is not None:
            self.requested.sub(pod_requests(removed, use_status=self.use_status))

    def clone(self) -> NodeInfo:
        """A copy whose pods and requests can change without touching this one (``Snapshot``)."""
        out = NodeInfo.__new__(NodeInfo)
        out.node, out.name, out.allocatable = self.node, self.name, self.allocatable
        out.use_status = self.use_status
        out.requested = Resources(self.requested.milli_cpu, self.requested.memory, self.requested.pods)
        out.pods = dict(self.pods)
        return out


def _key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


FilterPlugin = Callable[[Obj, Resources, NodeInfo], list[str]]


def tolerates(tolerations: list[Obj], taint: Obj) -> bool:
    """``v1helper.TolerationsTolerateTaint``."""
    for t in tolerations:
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        op = t.get("operator") or "Equal"
        if op == "Exists":
            if not t.get("key") or t.get("key") == taint.get("key"):
                return True
        elif t.get("key") == taint.get("key") and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def node_unschedulable(pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
    if not (info.node.get("spec") or {}).get("unschedulable"):
        return []
    taint = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    if tolerates((pod.get("spec") or {}).get("tolerations") or [], taint):
        return []
    return ["node(s) were unschedulable"]


def node_name(pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
    wanted = (pod.get("spec") or {}).get("nodeName")
    return ["node(s) didn't match the requested node name"] if wanted and wanted != info.name else []


def taint_toleration(pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
    tolerations = (pod.get("spec") or {}).get("tolerations") or []
    for taint in (info.node.get("spec") or {}).get("taints") or []:
        if taint.get("effect") not in ("NoSchedule", "NoExecute"):
            continue
        if not tolerates(tolerations, taint):
            return [f"node(s) had untolerated taint {{{taint.get('key', '')}: {taint.get('value', '')}}}"]
    return []


def match_expression(expr: Obj, labels: Mapping[str, str]) -> bool:
    key, op, values = expr.get("key", ""), expr.get("operator", ""), expr.get("values") or []
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if op in ("Gt", "Lt") and key in labels and len(values) == 1:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want
    return False


def match_term(term: Obj, node: Obj) -> bool:
    exprs = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not exprs and not fields:
        return False  # an empty term matches no objects
    labels = (node.get("metadata") or {}).get("labels") or {}
    if not all(match_expression(e, labels) for e in exprs):
        return False
    return all(match_expression(f, {"metadata.name": node["metadata"]["name"]}) for f in fields)


def node_affinity(pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
    spec = pod.get("spec") or {}
    labels = (info.node.get("metadata") or {}).get("labels") or {}
    reason = ["node(s) didn't match Pod's node affinity/selector"]
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return reason
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if required is not None:
        terms = required.get("nodeSelectorTerms") or []
        if not any(match_term(t, info.node) for t in terms):
            return reason
    return []


def node_resources_fit(pod: Obj, req: Resources, info: NodeInfo) -> list[str]:
    """``noderesources.fitsRequest``: pod count first, then cpu and memory when requested."""
    reasons = []
    if info.requested.pods + 1 > info.allocatable.pods:
        reasons.append("Too many pods")
    if req.milli_cpu > 0 and req.milli_cpu > info.allocatable.milli_cpu - info.requested.milli_cpu:
        reasons.append("Insufficient cpu")
    if req.memory > 0 and req.memory > info.allocatable.memory - info.requested.memory:
        reasons.append("Insufficient memory")
    return reasons


FILTERS: tuple[tuple[str, FilterPlugin], ...] = (
    ("NodeUnschedulable", node_unschedulable),
    ("NodeName", node_name),
    ("TaintToleration", taint_toleration),
    ("NodeAffinity", node_affinity),
    ("NodeResourcesFit", node_resources_fit),
)


def filter_node(pod: Obj, req: Resources, info: NodeInfo, extra: tuple[tuple[str, FilterPlugin], ...] = ()) -> list[str]:
    """The reasons ``info`` does not fit ``pod``: the first failing plugin's, as the framework stops there."""
    for _, plugin in FILTERS + extra:
        reasons = plugin(pod, req, info)
        if reasons:
            return reasons
    return []



def least_allocated(info: NodeInfo, req: Resources) -> float:
    """NodeResourcesFit's LeastAllocated strategy, lower is better: the mean of the cpu and memory
    fractions of the node's allocatable requested once the pod is placed."""
    fractions = []
    for used, extra, total in ((info.requested.milli_cpu, req.milli_cpu, info.allocatable.milli_cpu),
                               (info.requested.memory, req.memory, info.allocatable.memory)):
        fractions.append((used + extra) / total if total > 0 else 1.0)
    return sum(fractions) / len(fractions)
