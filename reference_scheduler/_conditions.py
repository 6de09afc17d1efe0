"""Pod condition arithmetic and the strategic merge patch the scheduler sends (pure functions).

:func:`update_condition` is ``podutil.UpdatePodCondition``: it replaces the element of that type
and keeps ``lastTransitionTime`` when the status is unchanged (so a ``False`` to ``False`` change of
``PodScheduled`` keeps the time the pod first became unscheduled: the suite's reading of
open question 8). :func:`status_patch` is what ``strategicpatch.CreateTwoWayMergePatch`` gives for
the ``conditions`` list of ``v1.PodStatus`` (merge key ``type``, ``omitempty``), with one
deliberate difference for a list that becomes empty (its docstring). Keys are sorted, as Go's
``json.Marshal`` of a map sorts them. The other ways of writing the same condition (PUT, JSON
patch, merge patch) are in :mod:`reference_scheduler._writers`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "NOT_READY_FOR_SCHEDULING",
    "SCHEDULING_GATED",
    "UNSCHEDULABLE",
    "clear_condition",
    "pod_scheduled",
    "rejection_message_of",
    "status_patch",
    "update_condition",
]

Obj = dict[str, Any]

NOT_READY_FOR_SCHEDULING = "NotReadyForScheduling"
SCHEDULING_GATED = "SchedulingGated"
UNSCHEDULABLE = "Unschedulable"


def conditions_of(pod: Obj | None) -> list[Obj]:
    return list(((pod or {}).get("status") or {}).get("conditions") or [])


def pod_scheduled(pod: Obj | None) -> Obj | None:
    for cond in conditions_of(pod):
        if cond.get("type") == "PodScheduled":
            return dict(cond)
    return None


def rejection_message_of(pod: Obj | None) -> str:
    """KEP-5501's ``getMessageFromPod``: the message of a ``PodScheduled=False`` condition whose
    reason is ``NotReadyForScheduling`` or ``SchedulingGated`` (the two PreEnqueue outcomes a pod
    can show), else ``""``."""
    cond = pod_scheduled(pod)
    if cond and cond.get("status") == "False" and cond.get("reason") in (NOT_READY_FOR_SCHEDULING, SCHEDULING_GATED):
        return str(cond.get("message", ""))
    return ""


def update_condition(conditions: list[Obj], condition: Obj, now: str) -> list[Obj] | None:
    """The new list with ``condition`` set, or None when nothing would change (the no-op test of
    ``PodStatusPatchCall.IsNoOp``: status, reason, message and lastProbeTime)."""
    new = {"type": condition["type"], "status": condition["status"], "lastProbeTime": condition.get("lastProbeTime"),
           "lastTransitionTime": now}
    for key in ("reason", "message"):
        if condition.get(key):
            new[key] = condition[key]
    result = []
    found = False
    for cond in conditions:
        if cond.get("type") != new["type"]:
            result.append(cond)
            continue
        found = True
        same = all(cond.get(k) == new.get(k) for k in ("status", "reason", "message", "lastProbeTime"))
        if same:
            return None
        if cond.get("status") == new["status"] and cond.get("lastTransitionTime"):
            new["lastTransitionTime"] = cond["lastTransitionTime"]
        result.append(new)
    if not found:
        result.append(new)
    return result


def clear_condition(conditions: list[Obj], reason: str) -> list[Obj] | None:
    """The list without a ``PodScheduled`` element whose reason is ``reason``, or None if there is none."""
    result = [c for c in conditions if not (c.get("type") == "PodScheduled" and c.get("reason") == reason)]
    return None if len(result) == len(conditions) else result


def status_patch(old: list[Obj], new: list[Obj], *, force: frozenset[str] = frozenset()) -> Obj | None:
    """The strategic merge patch taking ``status.conditions`` from ``old`` to ``new``; None if empty.

    As ``CreateTwoWayMergePatch`` of two ``v1.PodStatus`` (``docs/api-facts.md`` §status-write): when
    ``old`` is empty, Go's ``omitempty`` leaves ``conditions`` out of the original, so the patch
    carries the new list whole and no ``$setElementOrder`` (recorded from scheduler-plugins'
    ``cmd/scheduler`` built against ``k8s.io/kubernetes`` v1.35.4, whose release kube-scheduler
    sends the same body, for a pod with no conditions); otherwise changed fields of changed elements with their ``type``,
    whole new elements, ``{"$patch":"delete","type":...}`` for removed ones, and
    ``$setElementOrder/conditions`` naming the final order (recorded for a gated pod).

    When ``new`` is empty (the clear removing a pod's only condition), ``CreateTwoWayMergePatch``
    would see no ``conditions`` key in the modified status and send ``{"conditions": null}``,
    which deletes the whole list. This sends ``{"conditions": [{"$patch": "delete", "type": ...}]}``
    instead: on the pod the scheduler read, the stored result is the same (no ``conditions`` key;
    ``tests/reference_scheduler/test_units.py`` checks both bodies against the fake's store), but a strategic patch
    carries no resourceVersion, and ``null`` would also delete a condition another writer added
    after that read, where the element delete removes only what the scheduler meant to remove.
    No ``$setElementOrder``: there is no order left to give.

    ``force`` names condition types sent whole even when unchanged (only the ``no-dedup`` mutant)."""
    if not old:
        return {"status": {"conditions": [dict(c) for c in new]}} if new else None
    old_by_type = {c.get("type"): c for c in old}
    new_types = {c.get("type") for c in new}
    entries: list[Obj] = []
    for cond in new:
        t = cond.get("type")
        prev = old_by_type.get(t)
        if prev is None or t in force:
            entries.append(dict(cond))
            continue
        diff = {k: v for k, v in cond.items() if prev.get(k) != v}
        diff.update({k: None for k in prev if k not in cond})
        if diff:
            diff["type"] = t
            entries.append(diff)
    for cond in old:
        if cond.get("type") not in new_types:
            entries.append({"$patch": "delete", "type": cond.get("type")})
    if not entries:
        return None
    entries.sort(key=lambda e: str(e.get("type", "")))
    if not new:
        return {"status": {"conditions": entries}}
    return {"status": {"$setElementOrder/conditions": [{"type": c.get("type")} for c in new], "conditions": entries}}
