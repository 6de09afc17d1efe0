"""Workload-aware preemption: DefaultPreemption's PodGroupPostFilter, for a PodGroup that cannot be placed.

kube-scheduler v1.37 runs it whenever ``GenericWorkload`` is on and a group's attempt is
unschedulable (``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go``
``PodGroupPostFilter``; ``pkg/scheduler/framework/preemption/podgrouppreemption.go``,
``types.go``, ``util.go``, ``executor.go``). Its message follows the group's after ``, `` with the
prefix ``pod group preemption: ``. The rules:

* eligibility: a group whose pods say ``preemptionPolicy: Never`` gets ``not eligible due to
  preemptionPolicy=Never.``; a group one of whose members is nominated to a node where a pod of
  lower priority is terminating because of a preemption gets ``ongoing preemption on nominated
  nodes`` (a success: the members keep their nominations);
* the domain is the whole cluster; the victims are units: a bound (or assumed) pod alone, or,
  when its PodGroup has ``spec.disruptionMode.all``, every scheduled pod of that PodGroup
  together; a unit's priority is its PodGroup's ``spec.priority`` for a member, else the pod's
  own; only units of a priority strictly below the group's (``spec.priority``) may go. None is
  ``No preemption victims found for incoming preemptor``;
* every such unit is removed, and the group's attempt is run again on what is left; if it still
  fails, its message is the preemption's. Otherwise the units are reprieved one by one, those
  whose pods would violate a PodDisruptionBudget first, each set most important first
  (``MoreImportantVictim``: higher priority, a PodGroup before a pod, more pods, earlier start): a
  unit stays when every placed pod of the group still passes the filters on its node with it back
  (and with the group's pods placed before it). The rest are the victims, and each placed pod is
  nominated to its node. Message: ``found a placement for podgroup, preempting <n> victims``, n
  the victims' pods;
* the API calls (:meth:`~reference_scheduler._preemption.DefaultPreemption.preempt_victim`, run
  by the scheduler in a task of their own): per victim pod not already terminating, the
  ``DisruptionTarget`` condition (``<scheduler>: preempting to accommodate a higher priority
  podgroup``), the DELETE and a ``Normal Preempted`` event ``Preempted by podgroup <PodGroup uid>
  on node cluster`` related to the PodGroup. No condition is written on a victim's PodGroup.

Not done: composite pod groups, topology domains, the ``PodGroupPreemptionPolicy`` gate (the pods'
own policy is used, as with it off), victims waiting at Permit or in PreBind.
``honours_disruption_all`` and ``every_group_whole`` are switches for the ``gang-preempted-piecemeal``
and ``gang-preempts-whole-groups`` mutants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from reference_scheduler._plugins import NodeInfo
from reference_scheduler._podinfo import group_key_of
from reference_scheduler._preemption import (
    NEVER_MESSAGE,
    priority,
    split_by_pdb_violation,
    start_time,
    terminating_by_preemption,
)
from reference_scheduler._writers import nominated_of

__all__ = [
    "NO_GROUP_VICTIMS",
    "ONGOING_MESSAGE",
    "PREFIX",
    "GroupAttempt",
    "GroupPostFilterResult",
    "PodGroupPreemption",
    "VictimUnit",
]

Obj = dict[str, Any]

PREFIX = "pod group preemption: "
NO_GROUP_VICTIMS = "No preemption victims found for incoming preemptor"
ONGOING_MESSAGE = "ongoing preemption on nominated nodes"


class GroupAttempt(Protocol):
    """What a rerun of the group's attempt gives (:class:`reference_scheduler._gang.GroupResult`)."""

    code: str

    @property
    def message(self) -> str: ...

    @property
    def placements(self) -> list[tuple[Obj, str]]: ...


@dataclass(frozen=True)
class VictimUnit:
    """Pods that go together, each with the node it is on."""

    pods: tuple[tuple[Obj, str], ...]
    priority: int
    is_group: bool
    start: datetime


@dataclass
class GroupPostFilterResult:
    """``message`` with its prefix; ``success``: room was found (or is being made); ``nominating``:
    pod key to node; ``victims``: the pods to preempt."""

    message: str
    success: bool = False
    nominating: dict[str, str] = field(default_factory=dict)
    victims: tuple[Obj, ...] = ()


def _key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class PodGroupPreemption:
    """``PodGroupEvaluator``; ``podgroup`` looks a PodGroup up by ``ns/name``."""

    def __init__(self, pdbs: Callable[[], list[Obj]], podgroup: Callable[[str], Obj | None],
                 now: Callable[[], datetime]) -> None:
        self.pdbs = pdbs
        self.podgroup = podgroup
        self.now = now
        #: switch: False only for the gang-preempted-piecemeal mutant (every victim pod alone)
        self.honours_disruption_all = True
        #: switch: True only for the gang-preempts-whole-groups mutant (every victim group is one victim)
        self.every_group_whole = False

    def effective_priority(self, pod: Obj) -> int:
        """``GetPodPriority``: a member's PodGroup priority, else the pod's."""
        key = group_key_of(pod)
        pg = self.podgroup(key) if key else None
        return int((pg.get("spec") or {}).get("priority") or 0) if pg is not None else priority(pod)

    def units(self, nodes: Sequence[NodeInfo]) -> list[VictimUnit]:
        """``getCrossNodesVictims``: every pod on a node, grouped by disruption mode."""
        now = self.now()
        seen: set[str] = set()
        units: list[VictimUnit] = []
        by_group: dict[str, list[tuple[Obj, str]]] = {}
        for info in nodes:
            for pod in info.pods.values():
                key = group_key_of(pod)
                pg = self.podgroup(key) if key else None
                if pg is not None and (self.every_group_whole or self.honours_disruption_all and (
                        (pg.get("spec") or {}).get("disruptionMode") or {}).get("all") is not None):
                    by_group.setdefault(key, []).append((pod, info.name))
                    if f"group:{key}" not in seen:
                        seen.add(f"group:{key}")
                        units.append(VictimUnit((), 0, True, now))  # filled below, in first-seen order
                    continue
                if _key(pod) not in seen:
                    seen.add(_key(pod))
                    units.append(VictimUnit(((pod, info.name),), self.effective_priority(pod), False,
                                            start_time(pod, now)))
        groups = iter(by_group.values())
        out = []
        for unit in units:
            if unit.is_group:
                pods = tuple(next(groups))
                out.append(VictimUnit(pods, self.effective_priority(pods[0][0]), True,
                                      min(start_time(p, now) for p, _ in pods)))
            else:
                out.append(unit)
        return out

    def post_filter(self, pg: Obj, members: Sequence[Obj], nodes: list[NodeInfo],
                    rerun: Callable[[list[NodeInfo]], GroupAttempt],
                    check: Callable[[Obj, NodeInfo], list[str]]) -> GroupPostFilterResult:
        """``PodGroupPostFilter`` for ``pg`` whose unscheduled ``members`` failed; ``nodes`` a
        fresh copy of the cluster, ``rerun`` the group's attempt on a copy of given nodes, ``check``
        the filters for one pod on one node."""
        own = int((pg.get("spec") or {}).get("priority") or 0)
        if any((p.get("spec") or {}).get("preemptionPolicy") == "Never" for p in members[:1]):
            return GroupPostFilterResult(PREFIX + NEVER_MESSAGE)
        by_name = {info.name: info for info in nodes}
        nominated = {nominated_of(p) for p in members if nominated_of(p)}
        for name in sorted(nominated):
            info = by_name.get(name)
            if info is not None and any(self.effective_priority(p) < own and terminating_by_preemption(p)
                                        for p in info.pods.values()):
                return GroupPostFilterResult(PREFIX + ONGOING_MESSAGE, True,
                                             {_key(p): nominated_of(p) for p in members})
        potential = [u for u in self.units(nodes) if u.priority < own]
        if not potential:
            return GroupPostFilterResult(PREFIX + NO_GROUP_VICTIMS)
        for unit in potential:
            for pod, node in unit.pods:
                by_name[node].remove_pod(pod)
        attempt = rerun(nodes)
        if attempt.code != "success":
            return GroupPostFilterResult(PREFIX + attempt.message)
        placements = attempt.placements
        potential.sort(key=lambda u: (-u.priority, not u.is_group, -len(u.pods), u.start))
        flat = [pod for unit in potential for pod, _ in unit.pods]
        violating_pods, _ = split_by_pdb_violation(flat, self.pdbs())
        violating_keys = {_key(p) for p in violating_pods}
        violating = [u for u in potential if any(_key(p) in violating_keys for p, _ in u.pods)]
        others = [u for u in potential if u not in violating]

        def reprieve(unit: VictimUnit) -> bool:
            for pod, node in unit.pods:
                by_name[node].add_pod(pod)
            added: list[tuple[Obj, NodeInfo]] = []
            fits = True
            for pod, node in placements:
                info = by_name[node]
                if check(pod, info):
                    fits = False
                    break
                info.add_pod(pod)
                added.append((pod, info))
            for pod, info in reversed(added):
                info.remove_pod(pod)
            if not fits:
                for pod, node in unit.pods:
                    by_name[node].remove_pod(pod)
            return fits

        chosen = [u for u in [*violating, *others] if not reprieve(u)]
        chosen.sort(key=lambda u: (-u.priority, not u.is_group, -len(u.pods), u.start))
        victims = tuple(pod for unit in chosen for pod, _ in unit.pods)
        return GroupPostFilterResult(
            PREFIX + f"found a placement for podgroup, preempting {len(victims)} victims", True,
            {_key(pod): node for pod, node in placements}, victims)
