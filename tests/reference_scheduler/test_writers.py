"""The condition writers (``reference_scheduler._writers``) against the real fake API server under
virtual time: every writer leaves a pod's conditions as the strategic patch does, keeps what other
writers wrote, and the writers with a precondition re-read and retry when the pod changed under
them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from fake_apiserver import FakeApiServer, FaultRule, Match, Respond
from harness._time.virtual_time import VirtualClock, run
from reference_scheduler import ConflictError, KubeClient, PodStatusPatchCall
from reference_scheduler._clock import format_time
from reference_scheduler._writers import (
    DROPS_OTHER_CONDITIONS,
    JSON_PATCH_WRITER,
    MERGE_PATCH_WRITER,
    PUT_WRITER,
    RETRY_STEPS,
    STALE_WHOLE_LIST,
    STRATEGIC,
    UNGUARDED_WHOLE_LIST,
    ConditionWriter,
    json_patch_ops,
)

Obj = dict[str, Any]
POD = "/api/v1/namespaces/default/pods/p"
STATUS = POD + "/status"
FOREIGN_TYPE = "example.com/Ready"
SHAPES = [PUT_WRITER, JSON_PATCH_WRITER, MERGE_PATCH_WRITER]
WRITERS = [STRATEGIC, *SHAPES]


def _t(second: int) -> str:
    return f"2026-01-01T00:00:{second:02d}Z"


def _scheduled(reason: str, message: str, since: int) -> Obj:
    return {"type": "PodScheduled", "status": "False", "reason": reason, "message": message,
            "lastProbeTime": None, "lastTransitionTime": _t(since)}


# Another writer's condition sent without times: kube-apiserver v1.36 stores both as null (captured with
# kubectl patch --subresource=status), and every writer must leave it so.
FOREIGN = {"type": FOREIGN_TYPE, "status": "True", "lastProbeTime": None, "lastTransitionTime": None}
GATED = _scheduled("SchedulingGated", "Scheduling is blocked due to non-empty scheduling gates", 0)
UNSCHEDULABLE = "0/1 nodes are available: 1 Insufficient cpu."

# What each step leaves, by hand from update_condition's rules: a False -> False change keeps
# lastTransitionTime; the clear removes only a NotReadyForScheduling PodScheduled element.
EXPECTED: dict[str, list[list[Obj]]] = {
    "plain": [
        [_scheduled("NotReadyForScheduling", "m1", 1)],
        [_scheduled("NotReadyForScheduling", "m2", 1)],
        [],
        [_scheduled("Unschedulable", UNSCHEDULABLE, 4)],
    ],
    "foreign": [
        [FOREIGN, _scheduled("NotReadyForScheduling", "m1", 1)],
        [FOREIGN, _scheduled("NotReadyForScheduling", "m2", 1)],
        [FOREIGN],
        [FOREIGN, _scheduled("Unschedulable", UNSCHEDULABLE, 4)],
    ],
    "gated": [
        [_scheduled("NotReadyForScheduling", "m1", 0)],
        [_scheduled("NotReadyForScheduling", "m2", 0)],
        [],
        [_scheduled("Unschedulable", UNSCHEDULABLE, 4)],
    ],
}


def _pod(gated: bool) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "busybox:1"}]}
    if gated:
        spec["schedulingGates"] = [{"name": "example.com/hold"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"}, "spec": spec}


class Env:
    """A fake API server on the virtual loop, the scheduler's client and another writer's."""

    __test__ = False

    def __init__(self, server: FakeApiServer, clock: VirtualClock, client: KubeClient, other: KubeClient) -> None:
        self.server = server
        self.clock = clock
        self.client = client
        self.other = other

    async def pod(self) -> Obj:
        return await self.client.get(POD)

    async def conditions(self) -> list[Obj]:
        return list((await self.pod())["status"].get("conditions") or [])

    async def write(self, writer: ConditionWriter, pod: Obj, **what: Any) -> Obj | None:
        """One call of the scheduler's (``condition=`` or ``clear_reason=``) through ``writer``."""
        call = PodStatusPatchCall(pod, writer=writer, **what)
        return await call.execute(self.client, pod, format_time(self.clock.now()))

    async def foreign(self, conditions: list[Obj]) -> None:
        """Another writer sets the whole list (a merge patch, no precondition)."""
        await self.other.patch(STATUS, {"status": {"conditions": conditions}}, "application/merge-patch+json")

    def requests(self) -> list[tuple[str, int]]:
        return [(e.verb, e.code) for e in self.server.journal.entries
                if e.type == "request" and e.resource == "pods" and e.name == "p" and e.verb != "create"]


def _with_server(body: Callable[[Env], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        clock = VirtualClock(asyncio.get_running_loop())
        async with FakeApiServer(clock=clock, time=clock.time) as server:
            async with KubeClient(server.kubeconfig) as client, KubeClient(server.kubeconfig) as other:
                return await body(Env(server, clock, client, other))

    return run(main())


def _not_ready(message: str) -> Obj:
    return {"condition": {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling",
                          "message": message}}


STEPS: list[Obj] = [
    _not_ready("m1"),
    _not_ready("m2"),
    {"clear_reason": "NotReadyForScheduling"},
    {"condition": {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": UNSCHEDULABLE}},
]


def _steps(writer: ConditionWriter, start: str) -> list[list[Obj]]:
    """Each step's stored conditions, one step a virtual second, the first at t=1."""

    async def body(env: Env) -> list[list[Obj]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=start == "gated"))
        if start == "foreign":
            await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        seen = []
        for step in STEPS:
            await asyncio.sleep(1)
            assert await env.write(writer, await env.pod(), **step) is not None
            seen.append(await env.conditions())
        return seen

    return list(_with_server(body))


@pytest.mark.parametrize("start", sorted(EXPECTED))
def test_the_strategic_writer_leaves_what_update_condition_says(start: str) -> None:
    assert _steps(STRATEGIC, start) == EXPECTED[start]


@pytest.mark.parametrize("start", sorted(EXPECTED))
@pytest.mark.parametrize("writer", SHAPES, ids=lambda w: w.name)
def test_every_writer_leaves_the_conditions_the_strategic_patch_leaves(writer: ConditionWriter, start: str) -> None:
    assert _steps(writer, start) == _steps(STRATEGIC, start) == EXPECTED[start]


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.name)
def test_a_write_that_changes_nothing_sends_nothing(writer: ConditionWriter) -> None:
    async def body(env: Env) -> list[tuple[str, int]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=True))
        assert await env.write(writer, await env.pod(), clear_reason="NotReadyForScheduling") is None
        return env.requests()

    assert _with_server(body) == [("get", 200)]


def _requests_of(writer: ConditionWriter) -> tuple[str, str]:
    return {"put": ("update", ""), "json-patch": ("patch", "application/json-patch+json"),
            "merge-patch": ("patch", "application/merge-patch+json"),
            "strategic-merge-patch": ("patch", "application/strategic-merge-patch+json")}[writer.name]


@pytest.mark.parametrize("writer", [PUT_WRITER, MERGE_PATCH_WRITER], ids=lambda w: w.name)
def test_a_conflict_is_retried_from_a_fresh_read_keeping_the_other_writers_condition(writer: ConditionWriter) -> None:
    """client-go ``retry.RetryOnConflict``: the pod changed between the scheduler's read and its
    write (another writer added a condition), the write is refused with 409, the pod is read
    again and the new list is computed from it."""

    async def body(env: Env) -> tuple[list[Obj], list[tuple[str, int]]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        known = await env.pod()
        await asyncio.sleep(1)
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        await env.write(writer, known, **_not_ready("m1"))
        return await env.conditions(), env.requests()

    conditions, requests = _with_server(body)
    verb, _ = _requests_of(writer)
    assert conditions == [FOREIGN, _scheduled("NotReadyForScheduling", "m1", 1)]
    assert requests == [("get", 200), ("patch", 200), (verb, 409), ("get", 200), (verb, 200), ("get", 200)]


def test_a_json_patch_whose_test_fails_is_retried_from_a_fresh_read() -> None:
    """The list changed under the scheduler (another writer removed the element before its
    ``PodScheduled``): the ``test`` of index 1 fails with 422, the pod is read again and the
    ``replace`` goes to index 0."""

    async def body(env: Env) -> tuple[list[Obj], list[tuple[str, int]]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        await env.write(STRATEGIC, await env.pod(), **_not_ready("m1"))
        known = await env.pod()
        await asyncio.sleep(1)
        await env.foreign([c for c in known["status"]["conditions"] if c["type"] == "PodScheduled"])
        await env.write(JSON_PATCH_WRITER, known, **_not_ready("m2"))
        return await env.conditions(), env.requests()[-4:]

    conditions, requests = _with_server(body)
    assert conditions == [_scheduled("NotReadyForScheduling", "m2", 0)]
    assert requests == [("patch", 422), ("get", 200), ("patch", 200), ("get", 200)]


@pytest.mark.parametrize("writer", [PUT_WRITER, MERGE_PATCH_WRITER], ids=lambda w: w.name)
def test_a_conflict_that_persists_fails_the_write(writer: ConditionWriter) -> None:
    """A 409 after every one of the retries is a failed call (the reporter's retry on the next
    re-evaluation takes over): ``RETRY_STEPS`` attempts, then the ``ConflictError``."""
    verb, content_type = _requests_of(writer)

    async def body(env: Env) -> list[tuple[str, int]]:
        env.server.faults.add(FaultRule(Match(verb=verb, resource="pods", subresource="status"), Respond(409)))
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        with pytest.raises(ConflictError, match=r"^409 Conflict: injected fault: 409 for "):
            await env.write(writer, await env.pod(), **_not_ready("m1"))
        env.server.faults.check()
        return env.requests()

    assert _with_server(body) == [("get", 200)] + [(verb, 409), ("get", 200)] * (RETRY_STEPS - 1) + [(verb, 409)]


def test_the_strategic_writer_does_not_retry() -> None:
    """kube-scheduler's ``PatchPodStatus`` sends once; a refusal is the call's failure."""

    async def body(env: Env) -> list[tuple[str, int]]:
        env.server.faults.add(FaultRule(Match(verb="patch", resource="pods", subresource="status"), Respond(409),
                                        times=1))
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        with pytest.raises(ConflictError):
            await env.write(STRATEGIC, await env.pod(), **_not_ready("m1"))
        return env.requests()

    assert _with_server(body) == [("get", 200), ("patch", 409)]


def test_each_writer_sends_its_own_request() -> None:
    """The request each writer sends for the first NotReadyForScheduling condition of a pod with
    one foreign condition, as the server received it."""

    async def body(env: Env) -> list[tuple[str, str, Any]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        sent = []
        for writer in WRITERS:
            before = len(env.server.journal.entries)
            await env.write(writer, await env.pod(), **_not_ready(f"by {writer.name}"))
            [entry] = [e for e in env.server.journal.entries[before:] if e.type == "request"
                       and e.verb in ("update", "patch")]
            sent.append((entry.verb, entry.content_type, entry.body))
            await env.write(STRATEGIC, await env.pod(), clear_reason="NotReadyForScheduling")
        return sent

    strategic, put, json_patch, merge = _with_server(body)
    condition = {"lastProbeTime": None, "lastTransitionTime": _t(0), "reason": "NotReadyForScheduling",
                 "status": "False", "type": "PodScheduled"}
    assert strategic == ("patch", "application/strategic-merge-patch+json", {"status": {
        "$setElementOrder/conditions": [{"type": FOREIGN_TYPE}, {"type": "PodScheduled"}],
        "conditions": [{**condition, "message": "by strategic-merge-patch"}]}})
    assert put[:2] == ("update", "application/json")
    assert (put[2]["kind"], put[2]["metadata"]["name"], put[2]["spec"]["containers"][0]["name"]) == ("Pod", "p", "c")
    assert put[2]["metadata"]["resourceVersion"].isdigit()
    assert put[2]["status"]["conditions"] == [FOREIGN, {**condition, "message": "by put"}]
    assert json_patch == ("patch", "application/json-patch+json", [
        {"op": "add", "path": "/status/conditions/-", "value": {**condition, "message": "by json-patch"}}])
    assert merge[:2] == ("patch", "application/merge-patch+json")
    assert merge[2]["metadata"]["resourceVersion"].isdigit()
    assert merge[2] == {"metadata": {"resourceVersion": merge[2]["metadata"]["resourceVersion"]}, "status": {
        "conditions": [FOREIGN, {**condition, "message": "by merge-patch"}]}}


def test_json_patch_ops_by_index_with_tests() -> None:
    a, b, c = ({"type": t, "status": "True"} for t in "ABC")
    b2 = {**b, "status": "False"}
    assert json_patch_ops([], [a]) == [{"op": "add", "path": "/status/conditions", "value": [a]}]
    assert json_patch_ops([], [a], has_status=False) == [{"op": "add", "path": "/status", "value": {"conditions": [a]}}]
    assert json_patch_ops([], []) == []
    assert json_patch_ops([a, b, c], [a, b2, c]) == [
        {"op": "test", "path": "/status/conditions/1/type", "value": "B"},
        {"op": "replace", "path": "/status/conditions/1", "value": b2}]
    assert json_patch_ops([a, b, c], [b]) == [
        {"op": "test", "path": "/status/conditions/2/type", "value": "C"},
        {"op": "remove", "path": "/status/conditions/2"},
        {"op": "test", "path": "/status/conditions/0/type", "value": "A"},
        {"op": "remove", "path": "/status/conditions/0"}]
    assert json_patch_ops([a], [a, b]) == [{"op": "add", "path": "/status/conditions/-", "value": b}]
    assert json_patch_ops([a], [a], force=frozenset({"A"})) == [
        {"op": "test", "path": "/status/conditions/0/type", "value": "A"},
        {"op": "replace", "path": "/status/conditions/0", "value": a}]
    with pytest.raises(ValueError, match=r"^json_patch_ops: \['B', 'A'\] reorders \['A', 'B'\]$"):
        json_patch_ops([a, b], [b, a])
    guard = {"op": "test", "path": "/metadata/resourceVersion", "value": "7"}
    assert json_patch_ops([], [a], resource_version="7") == [
        guard, {"op": "add", "path": "/status/conditions", "value": [a]}]
    assert json_patch_ops([], [a], has_status=False, resource_version="7") == [
        guard, {"op": "add", "path": "/status", "value": {"conditions": [a]}}]
    assert json_patch_ops([a], [a, b], resource_version="7") == [
        {"op": "add", "path": "/status/conditions/-", "value": b}]


def test_a_json_patch_adding_the_whole_list_is_guarded_by_the_resource_version() -> None:
    """A pod with no conditions gets the list whole (``add /status/conditions``), which would
    replace a list another writer made since the read: the ``test`` of the resourceVersion fails
    with 422 instead, the pod is read again and the condition appended, keeping the other one."""

    async def body(env: Env) -> tuple[list[Obj], list[tuple[str, int]]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        known = await env.pod()
        await asyncio.sleep(1)
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        await env.write(JSON_PATCH_WRITER, known, **_not_ready("m1"))
        return await env.conditions(), env.requests()[-4:]

    conditions, requests = _with_server(body)
    assert conditions == [FOREIGN, _scheduled("NotReadyForScheduling", "m1", 1)]
    assert requests == [("patch", 422), ("get", 200), ("patch", 200), ("get", 200)]


@pytest.mark.parametrize(("writer", "kept"), [(DROPS_OTHER_CONDITIONS, False), (UNGUARDED_WHOLE_LIST, False),
                                              (STALE_WHOLE_LIST, False), (STRATEGIC, True)], ids=lambda v: str(v))
def test_the_mutants_writers_lose_a_condition_added_since_their_read(writer: ConditionWriter, kept: bool) -> None:
    """The mutants' writers send the whole list by merge patch without a resourceVersion: a
    condition another writer added after the pod they were handed was read is deleted (the
    strategic patch, by merge key, keeps it)."""

    async def body(env: Env) -> list[str]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        known = await env.pod()
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        await env.write(writer, known, **_not_ready("m1"))
        return sorted(c["type"] for c in await env.conditions())

    assert _with_server(body) == (["PodScheduled", FOREIGN_TYPE] if kept else ["PodScheduled"])


def test_drops_other_conditions_deletes_them_even_from_a_fresh_read_and_a_clear_deletes_every_condition() -> None:
    async def body(env: Env) -> list[list[str]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        seen = []
        await env.write(DROPS_OTHER_CONDITIONS, await env.pod(), **_not_ready("m1"))
        seen.append([c["type"] for c in await env.conditions()])
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}, *await env.conditions()])
        await env.write(DROPS_OTHER_CONDITIONS, await env.pod(), clear_reason="NotReadyForScheduling")
        seen.append([c["type"] for c in await env.conditions()])
        return seen

    assert _with_server(body) == [["PodScheduled"], []]


def test_the_stale_writer_is_handed_the_pod_its_call_was_enqueued_with() -> None:
    """``from_enqueued_copy``: the call gives the writer the pod it was made from, not the one the
    dispatcher hands it at execution (only the ``stale-whole-list`` mutant's writer)."""

    async def body(env: Env) -> list[list[str]]:
        await env.client.create("/api/v1/namespaces/default/pods", _pod(gated=False))
        enqueued = await env.pod()
        await env.foreign([{"type": FOREIGN_TYPE, "status": "True"}])
        seen = []
        for writer in (UNGUARDED_WHOLE_LIST, STALE_WHOLE_LIST):
            call = PodStatusPatchCall(enqueued, writer=writer, **_not_ready(f"by {writer.name}"))
            await call.execute(env.client, await env.pod(), format_time(env.clock.now()))
            seen.append([c["type"] for c in await env.conditions()])
        return seen

    assert _with_server(body) == [[FOREIGN_TYPE, "PodScheduled"], ["PodScheduled"]]
