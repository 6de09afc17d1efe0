"""How the scheduler writes a pod's conditions: one strategy object, chosen once per scheduler.

Every status write of the scheduler (KEP-5501's ``NotReadyForScheduling`` condition, its clear,
the ``Unschedulable`` or ``SchedulerError`` condition of a failed attempt) is "take the pod's
``status.conditions`` to what :class:`~reference_scheduler._dispatcher.PodStatusPatchCall` wants".
A :class:`ConditionWriter` turns that into HTTP. The reference's is :data:`STRATEGIC`, the
request kube-scheduler sends (``PatchPodStatus``, ``docs/api-facts.md`` §status-write). The others are
*shape variants* (:mod:`reference_scheduler._mutants`): correct KEP-5501 behaviour with another
request, so the selftest can show a conformance verdict depends on what a write did, not on how
it was sent.

* :class:`PutWriter`: ``PUT pods/<name>/status`` with the whole pod as last known, its
  ``metadata.resourceVersion`` an optimistic lock (client-go ``UpdateStatus``).
* :class:`JsonPatchWriter`: RFC 6902 by index, each ``replace``/``remove`` of element ``i``
  guarded by a ``test`` of its ``type``; new elements appended (``/status/conditions/-``), or the
  whole list added when the pod has none, guarded by a ``test`` of ``metadata.resourceVersion``
  (an ``add`` of a member that exists replaces it: without the guard, a condition another writer
  added since the read would be lost).
* :class:`MergePatchWriter`: RFC 7386 replacing the whole list, with ``metadata.resourceVersion``
  in the body as a precondition. An emptied list is sent as ``null`` (a Go struct marshalled with
  ``omitempty`` would leave the key out, and the merge would keep the old list).

A write may also set or clear ``status.nominatedNodeName`` (the preemptor's nomination, which
kube-scheduler's ``updatePod`` sends in the same patch as the failure's condition): each writer
puts it in its own request (a strategic or merge patch's key, ``null`` to clear; the PUT's field;
a JSON patch ``add``, or ``test`` and ``remove``).

Each writer leaves the same conditions as the strategic patch: the new list is computed by the
call from the pod's current conditions (:func:`~reference_scheduler._conditions.update_condition`
and its ``lastTransitionTime`` rules, or ``clear_condition``), and only its own element changes.
The three that can be refused because the pod changed under them (409 Conflict for a stale
resourceVersion, 422 for a failed ``test``) re-read the pod and recompute the list from it, as
``retry.RetryOnConflict(retry.DefaultRetry, ...)`` does: at most :data:`RETRY_STEPS` attempts,
:data:`RETRY_INTERVAL` apart, without jitter so that a journal replays byte for byte. A refusal
that outlasts them, or any other error, is raised: the call failed, and the reporter's
retry-on-re-evaluation (``_reporting``) takes over as for a failed strategic patch. The strategic
patch has no precondition and kube-scheduler does not retry it, so neither does :data:`STRATEGIC`.

The last three writers are broken on purpose, for the mutants (:mod:`reference_scheduler._mutants`):
each writes the whole ``conditions`` list by JSON merge patch without a precondition, and so loses
conditions other writers own. :class:`DropsOtherConditionsWriter` sends only the ``PodScheduled``
element (and an element it adds, such as a preemption victim's ``DisruptionTarget``); :class:`StaleWholeListWriter` sends the list computed from the pod as it was when the call
was enqueued (``from_enqueued_copy``); :class:`UnguardedWholeListWriter` computes it from the
freshest pod it knows, and loses only what another writer adds while the write is in flight.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any, ClassVar

from kubeclient import JSON_PATCH, MERGE_PATCH, ApiError, KubeClient, resource_path
from reference_scheduler._conditions import conditions_of, status_patch

__all__ = [
    "DROPS_OTHER_CONDITIONS",
    "JSON_PATCH_WRITER",
    "MERGE_PATCH_WRITER",
    "NOMINATED",
    "PUT_WRITER",
    "RETRY_INTERVAL",
    "RETRY_STEPS",
    "STALE_WHOLE_LIST",
    "STRATEGIC",
    "UNGUARDED_WHOLE_LIST",
    "ConditionChange",
    "ConditionWriter",
    "DropsOtherConditionsWriter",
    "JsonPatchWriter",
    "MergePatchWriter",
    "PutWriter",
    "StaleWholeListWriter",
    "StrategicPatchWriter",
    "UnguardedWholeListWriter",
    "json_patch_ops",
    "nominated_of",
]

Obj = dict[str, Any]
ConditionChange = Callable[[list[Obj]], list[Obj] | None]
"""The pod's current conditions -> the list to write, or None when nothing would change."""
NOMINATED = "nominatedNodeName"

RETRY_STEPS = 5  # retry.DefaultRetry.Steps
RETRY_INTERVAL = 0.01  # retry.DefaultRetry.Duration, 10 ms; Factor 1.0; the 0.1 jitter left out
FORCED = frozenset({"PodScheduled"})  # the only type the scheduler writes


class ConditionWriter:
    """Writes ``change(conditions)`` to a pod's status; subclasses say how (:meth:`send`)."""

    name: ClassVar[str] = ""
    retry_codes: ClassVar[frozenset[int]] = frozenset()  # refusals that mean "re-read and retry"
    #: True: the call hands the writer the pod it was enqueued with, not the freshest one (only
    #: the ``stale-whole-list`` mutant's writer)
    from_enqueued_copy: ClassVar[bool] = False

    async def write(self, client: KubeClient, pod: Obj, change: ConditionChange, *, force: bool = False,
                    nominated: str | None = None) -> Obj | None:
        """The server's answer to the write, or None when nothing had to be sent (``change`` gave
        None and ``status.nominatedNodeName`` needs no change, or the pod was re-created under a
        retry). ``force`` sends an unchanged ``PodScheduled`` anyway (only the ``no-dedup`` mutant).

        ``nominated`` sets ``status.nominatedNodeName`` in the same write (``""`` clears it; None
        leaves it alone): kube-scheduler's ``updatePod`` puts the failure's condition and the
        preemption's nomination in one status patch."""
        meta = pod.get("metadata") or {}
        namespace, name, uid = str(meta.get("namespace", "")), str(meta.get("name", "")), meta.get("uid")
        current = pod
        for step in range(1, RETRY_STEPS + 1):
            old = conditions_of(current)
            new = change(old)
            forced = False
            nominate = nominated if nominated is not None and nominated != nominated_of(current) else None
            if new is None:
                if not force and nominate is None:
                    return None
                new, forced = old, force
            try:
                return await self.send(client, resource_path("", "v1", "pods", namespace, name, "status"),
                                       current, old, new, forced=forced, nominated=nominate)
            except ApiError as e:
                if e.code not in self.retry_codes or step == RETRY_STEPS:
                    raise
            await asyncio.sleep(RETRY_INTERVAL)
            current = await client.get(resource_path("", "v1", "pods", namespace, name))
            if uid and (current.get("metadata") or {}).get("uid") != uid:
                return None  # a new pod of the same name: not this call's pod
        raise AssertionError("unreachable: the last step returns or raises")

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        """One request taking ``pod``'s conditions ``old`` to ``new``; None if there is nothing to send."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class StrategicPatchWriter(ConditionWriter):
    """``PATCH pods/<name>/status``, ``application/strategic-merge-patch+json``, the body of
    :func:`~reference_scheduler._conditions.status_patch`; no retry (none in kube-scheduler)."""

    name = "strategic-merge-patch"

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        body = status_patch(old, new, force=FORCED if forced else frozenset()) or {"status": {}}
        _nominate(body["status"], nominated)
        return await client.patch(path, body) if body["status"] else None


class PutWriter(ConditionWriter):
    """``PUT pods/<name>/status`` with the whole pod and the new list (an empty list left out,
    as Go's ``omitempty`` does); 409 Conflict re-reads and retries."""

    name = "put"
    retry_codes = frozenset({409})

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        body = {"kind": "Pod", "apiVersion": "v1", **copy.deepcopy(pod)}
        status = body.setdefault("status", {})
        if new:
            status["conditions"] = copy.deepcopy(new)
        else:
            status.pop("conditions", None)
        if nominated is not None:
            _nominate(status, nominated)
            if not nominated:
                status.pop(NOMINATED)  # omitempty
        return await client.put(path, body)


class JsonPatchWriter(ConditionWriter):
    """``PATCH``, ``application/json-patch+json``, the operations of :func:`json_patch_ops`;
    422 (a ``test`` failed: the list changed since the read) re-reads and retries."""

    name = "json-patch"
    retry_codes = frozenset({422})

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        ops = json_patch_ops(old, new, force=FORCED if forced else frozenset(), has_status="status" in pod,
                             resource_version=(pod.get("metadata") or {}).get("resourceVersion"))
        if nominated:
            if "status" in pod or ops:
                ops.append({"op": "add", "path": f"/status/{NOMINATED}", "value": nominated})
            else:
                ops.append({"op": "add", "path": "/status", "value": {NOMINATED: nominated}})
        elif nominated is not None and nominated_of(pod):
            ops += [{"op": "test", "path": f"/status/{NOMINATED}", "value": nominated_of(pod)},
                    {"op": "remove", "path": f"/status/{NOMINATED}"}]
        return await client.patch(path, ops, JSON_PATCH) if ops else None


class MergePatchWriter(ConditionWriter):
    """``PATCH``, ``application/merge-patch+json``: ``{"metadata": {"resourceVersion": rv},
    "status": {"conditions": new}}`` (``null`` for an empty list); 409 re-reads and retries."""

    name = "merge-patch"
    retry_codes = frozenset({409})

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        body: Obj = {"status": {"conditions": copy.deepcopy(new) or None}}
        _nominate(body["status"], nominated)
        rv = (pod.get("metadata") or {}).get("resourceVersion")
        if rv:
            body["metadata"] = {"resourceVersion": rv}
        return await client.patch(path, body, MERGE_PATCH)


def nominated_of(pod: Obj | None) -> str:
    return str(((pod or {}).get("status") or {}).get(NOMINATED) or "")


def _nominate(status: Obj, nominated: str | None) -> None:
    """Set ``nominatedNodeName`` in a status body: the node, ``null`` to clear (a merge patch's
    and a strategic patch's delete), nothing when ``nominated`` is None."""
    if nominated is not None:
        status[NOMINATED] = nominated or None


def json_patch_ops(old: list[Obj], new: list[Obj], *, force: frozenset[str] = frozenset(),
                   has_status: bool = True, resource_version: str | None = None) -> list[Obj]:
    """RFC 6902 operations taking ``/status/conditions`` from ``old`` to ``new`` (empty: no change).

    By index, each guarded by a ``test`` of the element's ``type`` so that a list changed since
    the read fails with 422 instead of hitting the wrong element: ``replace`` of changed elements,
    then ``remove`` from the highest index down (the lower indices stay valid), then ``add`` of
    new elements at ``/status/conditions/-``; a pod with no conditions gets the list whole, after a
    ``test`` of ``/metadata/resourceVersion`` when ``resource_version`` is given (the ``add`` would
    replace a list another writer made since the read; the ``test`` fails with 422 instead).
    ``new`` must keep ``old``'s order for the types it keeps and put new types last, which is what
    ``update_condition`` and ``clear_condition`` give; a reordering raises ``ValueError``."""
    old_types = [c.get("type") for c in old]
    new_by_type = {c.get("type"): c for c in new}
    kept = [t for t in old_types if t in new_by_type]
    added = [c for c in new if c.get("type") not in old_types]
    if [c.get("type") for c in new] != kept + [c.get("type") for c in added]:
        raise ValueError(f"json_patch_ops: {[c.get('type') for c in new]} reorders {old_types}")
    if not old:
        if not new:
            return []
        guard = ([{"op": "test", "path": "/metadata/resourceVersion", "value": resource_version}]
                 if resource_version else [])
        if not has_status:
            return [*guard, {"op": "add", "path": "/status", "value": {"conditions": copy.deepcopy(new)}}]
        return [*guard, {"op": "add", "path": "/status/conditions", "value": copy.deepcopy(new)}]
    ops: list[Obj] = []
    for i, cond in enumerate(old):
        t = cond.get("type")
        if t in new_by_type and (new_by_type[t] != cond or t in force):
            ops += [{"op": "test", "path": f"/status/conditions/{i}/type", "value": t},
                    {"op": "replace", "path": f"/status/conditions/{i}", "value": copy.deepcopy(new_by_type[t])}]
    for i in reversed(range(len(old))):
        t = old[i].get("type")
        if t not in new_by_type:
            ops += [{"op": "test", "path": f"/status/conditions/{i}/type", "value": t},
                    {"op": "remove", "path": f"/status/conditions/{i}"}]
    ops += [{"op": "add", "path": "/status/conditions/-", "value": copy.deepcopy(c)} for c in added]
    return ops


class DropsOtherConditionsWriter(ConditionWriter):
    """Broken: ``PATCH``, ``application/merge-patch+json``, ``{"status": {"conditions": [the
    PodScheduled element, and an element the write adds]}}`` (``null`` when it is removed), no
    resourceVersion: a merge patch replaces a list whole, so every other condition of the pod is
    deleted."""

    name = "drops-other-conditions"

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        mine = [copy.deepcopy(c) for c in new if c.get("type") in FORCED or c not in old]
        status: Obj = {"conditions": mine or None}
        _nominate(status, nominated)
        return await client.patch(path, {"status": status}, MERGE_PATCH)


class UnguardedWholeListWriter(ConditionWriter):
    """Broken: :class:`MergePatchWriter` without its ``metadata.resourceVersion`` precondition (and
    so without a retry): the whole list as computed from the pod the call was handed, which loses
    a condition another writer adds between that read and the write."""

    name = "unguarded-whole-list"

    async def send(self, client: KubeClient, path: str, pod: Obj, old: list[Obj], new: list[Obj], *,
                   forced: bool, nominated: str | None = None) -> Obj | None:
        status: Obj = {"conditions": copy.deepcopy(new) or None}
        _nominate(status, nominated)
        return await client.patch(path, {"status": status}, MERGE_PATCH)


class StaleWholeListWriter(UnguardedWholeListWriter):
    """Broken: :class:`UnguardedWholeListWriter` handed the pod as it was when the call was
    enqueued (``from_enqueued_copy``), so a condition another writer added while the call waited
    out its delay is lost too."""

    name = "stale-whole-list"
    from_enqueued_copy = True


STRATEGIC = StrategicPatchWriter()
PUT_WRITER = PutWriter()
JSON_PATCH_WRITER = JsonPatchWriter()
MERGE_PATCH_WRITER = MergePatchWriter()
DROPS_OTHER_CONDITIONS = DropsOtherConditionsWriter()
UNGUARDED_WHOLE_LIST = UnguardedWholeListWriter()
STALE_WHOLE_LIST = StaleWholeListWriter()
