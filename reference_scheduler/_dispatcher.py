"""The asynchronous API dispatcher of KEP-5229, with KEP-5501's delayed calls.

KEP-5229 rules (``pkg/scheduler/backend/api_dispatcher/call_queue.go``):

* at most one pending call per object (pod uid); a new call for an object whose call is in flight
  waits until that one finishes;
* a less relevant new call is skipped (``a more relevant call is already enqueued for this object:
  call skipped``); a more relevant one of another type overwrites the pending call (``a more
  relevant call was enqueued for this object: call overwritten``); a call of the same type is
  merged into the new one, which replaces it (``a call of the same type was enqueued for this
  object: call overwritten``). Relevance: status patch 1, binding 2;
* a call that would change nothing is skipped (``call does not need to be executed because it has
  no effect: call skipped``), checked when it is added and again when it is about to run against
  the freshest pod known (the informer's copy or the answer to the last write, whichever has the
  newer resourceVersion) — the latter stands for ``SyncObject``;
* no retry: the result goes to the call's ``on_finish`` callbacks, and whoever cares decides.

KEP-5501 adds delays ("The API dispatcher will be modified to handle delayed API calls"). A call
carries a due time, ``now + delay``. When a call overwrites or is merged with a pending one, the
result is due at the earlier of the two: a newer delayed call keeps the pending call's due time
(the delay is not reset: "If a previous API call for the same Pod is already enqueued, its delay
will not be reset", KEP-5501 design discussion), and an immediate call
(a binding, an ``Unschedulable`` patch) that meets a pending delayed call overwrites it and runs
without delay (open question 5, decision 5). Everything is kept per pod: a pod's delayed call and
its due time never touch another pod's. ``reset_delay_on_overwrite``, ``noop_check``,
``shares_delayed_call`` (one pending delayed call for all pods: a new one overwrites another
pod's) and ``shares_delay_start`` (a new delayed call is due no later than any other pod's
pending one) exist only for the mutants.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from kubeclient import KubeClient, resource_path
from reference_scheduler._clock import DUE_TOLERANCE, Clock, format_time
from reference_scheduler._conditions import clear_condition, conditions_of, update_condition
from reference_scheduler._writers import STRATEGIC, ConditionWriter, nominated_of

__all__ = [
    "ApiCall",
    "ApiDispatcher",
    "CallResult",
    "MSG_CLOSED",
    "MSG_LESS_RELEVANT",
    "MSG_MORE_RELEVANT",
    "MSG_NO_EFFECT",
    "MSG_SAME_TYPE",
    "PodBindingCall",
    "PodStatusPatchCall",
    "fresher",
]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler.dispatcher")

MSG_LESS_RELEVANT = "a more relevant call is already enqueued for this object: call skipped"
MSG_MORE_RELEVANT = "a more relevant call was enqueued for this object: call overwritten"
MSG_SAME_TYPE = "a call of the same type was enqueued for this object: call overwritten"
MSG_NO_EFFECT = "call does not need to be executed because it has no effect: call skipped"
MSG_CLOSED = "api dispatcher is closed"


@dataclass(frozen=True)
class CallResult:
    """``outcome``: ``executed``, ``failed``, ``skipped``, ``overwritten`` or ``closed``."""

    outcome: str
    message: str = ""
    error: BaseException | None = None
    response: Obj | None = None


def fresher(a: Obj | None, b: Obj | None) -> Obj | None:
    """The object with the newer resourceVersion (compared as integers when both are)."""
    if a is None or b is None:
        return a if b is None else b
    ra = str((a.get("metadata") or {}).get("resourceVersion", ""))
    rb = str((b.get("metadata") or {}).get("resourceVersion", ""))
    if ra.isdigit() and rb.isdigit():
        return a if int(ra) >= int(rb) else b
    return a


class ApiCall:
    """One API call about one pod."""

    call_type: ClassVar[str] = ""
    relevance: ClassVar[int] = 0

    def __init__(self, pod: Obj) -> None:
        meta = pod.get("metadata") or {}
        self.uid = str(meta.get("uid", ""))
        self.namespace = str(meta.get("namespace", ""))
        self.name = str(meta.get("name", ""))
        self.key = f"{self.namespace}/{self.name}"
        self.check_noop = True  # False only for the no-dedup mutant's calls
        self.on_finish: list[Callable[[CallResult], None]] = []

    def merge(self, old: ApiCall) -> None:
        """Take over what ``old`` (same type, pending) still had to do; default: nothing."""

    def is_noop(self, pod: Obj | None) -> bool:
        raise NotImplementedError

    async def execute(self, client: KubeClient, pod: Obj | None, now: str, *, force: bool = False) -> Obj | None:
        """Send the request; return the server's answer, or None if nothing had to be sent."""
        raise NotImplementedError

    def finish(self, result: CallResult) -> None:
        for callback in self.on_finish:
            try:
                callback(result)
            except Exception:  # a callback bug must not stop the dispatcher
                log.exception("on_finish callback of %s %s failed", self.call_type, self.key)


class PodStatusPatchCall(ApiCall):
    """Set ``condition`` (a ``PodScheduled`` condition, or a preemption victim's
    ``DisruptionTarget``), or with ``clear_reason`` remove the ``PodScheduled`` condition if it has
    that reason; and with ``nominated_node`` set ``status.nominatedNodeName`` in the same write
    (``""`` clears it). Merging: the newer call wins whole (each call carries one complete desired
    state of the one condition type the scheduler writes), except that a call without a
    nomination keeps the pending call's, and a call with no condition keeps the pending call's
    (``PodStatusPatchCall.Merge``).

    ``writer`` sends it (:mod:`reference_scheduler._writers`; the scheduler's one writer, by
    default the strategic merge patch kube-scheduler sends); the call type stays
    ``pod_status_patch`` whatever the request, as it is one kind of call to the dispatcher."""

    call_type = "pod_status_patch"
    relevance = 1

    def __init__(self, pod: Obj, *, condition: Obj | None = None, clear_reason: str | None = None, kind: str = "",
                 writer: ConditionWriter = STRATEGIC, nominated_node: str | None = None) -> None:
        super().__init__(pod)
        if condition is not None and clear_reason is not None:
            raise ValueError("at most one of condition and clear_reason")
        if condition is None and clear_reason is None and nominated_node is None:
            raise ValueError("one of condition, clear_reason and nominated_node")
        self.condition = condition
        self.clear_reason = clear_reason
        self.nominated_node = nominated_node
        self.kind = kind  # why: "not-ready", "clear", "unschedulable" (for callbacks and logs)
        self.writer = writer
        self.enqueued = pod  # the pod as the call was made from (only a mutant's writer reads it)

    def merge(self, old: ApiCall) -> None:
        if not isinstance(old, PodStatusPatchCall):
            return
        if self.nominated_node is None:
            self.nominated_node = old.nominated_node
        if self.condition is None and self.clear_reason is None:
            self.condition, self.clear_reason = old.condition, old.clear_reason

    def change(self, conditions: list[Obj], now: str) -> list[Obj] | None:
        """The conditions to write instead of ``conditions``; None when nothing would change."""
        if self.condition is not None:
            return update_condition(conditions, self.condition, now)
        if self.clear_reason is not None:
            return clear_condition(conditions, self.clear_reason)
        return None

    def desired(self, pod: Obj | None, now: str) -> list[Obj] | None:
        return None if pod is None else self.change(conditions_of(pod), now)

    def is_noop(self, pod: Obj | None) -> bool:
        if pod is None:
            return True
        nominating = self.nominated_node is not None and self.nominated_node != nominated_of(pod)
        return self.desired(pod, "") is None and not nominating

    async def execute(self, client: KubeClient, pod: Obj | None, now: str, *, force: bool = False) -> Obj | None:
        if pod is None:
            return None
        base = self.enqueued if self.writer.from_enqueued_copy else pod
        return await self.writer.write(client, base, lambda conditions: self.change(conditions, now), force=force,
                                       nominated=self.nominated_node)


class PodBindingCall(ApiCall):
    """``POST pods/{name}/binding`` with the ``DefaultBinder`` body (``docs/api-facts.md`` §binding)."""

    call_type = "pod_binding"
    relevance = 2

    def __init__(self, pod: Obj, node: str) -> None:
        super().__init__(pod)
        self.node = node

    def is_noop(self, pod: Obj | None) -> bool:
        return pod is None or bool((pod.get("spec") or {}).get("nodeName"))

    async def execute(self, client: KubeClient, pod: Obj | None, now: str, *, force: bool = False) -> Obj | None:
        body = {
            "kind": "Binding",
            "apiVersion": "v1",
            "metadata": {"name": self.name, "namespace": self.namespace, "uid": self.uid},
            "target": {"kind": "Node", "name": self.node},
        }
        return await client.post(resource_path("", "v1", "pods", self.namespace, self.name, "binding"), body)


@dataclass
class _Entry:
    call: ApiCall
    due: float
    seq: int
    queued: bool = field(default=True)


class ApiDispatcher:
    """Runs calls on the loop, at most ``parallelism`` at a time, each when due."""

    def __init__(
        self,
        client: KubeClient,
        clock: Clock,
        lookup: Callable[[str], Obj | None],
        *,
        parallelism: int = 16,
        reset_delay_on_overwrite: bool = False,
        noop_check: bool = True,
        shares_delayed_call: bool = False,
        shares_delay_start: bool = False,
    ) -> None:
        self.client = client
        self.clock = clock
        self.lookup = lookup
        self.parallelism = parallelism
        self.reset_delay_on_overwrite = reset_delay_on_overwrite
        self.noop_check = noop_check
        self.shares_delayed_call = shares_delayed_call
        self.shares_delay_start = shares_delay_start
        self.executed = 0
        self.failed = 0
        self._pending: dict[str, _Entry] = {}
        self._in_flight: set[str] = set()
        self._heap: list[tuple[float, int, str]] = []
        self._seq = 0
        self._written: dict[str, Obj] = {}
        self._wake = asyncio.Event()
        self._slots = asyncio.Semaphore(parallelism)
        self._tasks: set[asyncio.Task[None]] = set()
        self._worker: asyncio.Task[None] | None = None
        self._closed = False

    # -- adding -----------------------------------------------------------------------------

    def pending(self, uid: str) -> ApiCall | None:
        entry = self._pending.get(uid)
        return entry.call if entry else None

    def due(self, uid: str) -> float | None:
        entry = self._pending.get(uid)
        return entry.due if entry else None

    def add(self, call: ApiCall, delay: float = 0.0) -> None:
        """Enqueue ``call`` to run ``delay`` seconds from now (module docstring for the rules)."""
        if self._closed:
            call.finish(CallResult("closed", MSG_CLOSED))
            return
        loop = asyncio.get_running_loop()
        due = loop.time() + delay
        if delay > 0 and (self.shares_delayed_call or self.shares_delay_start):
            due = self._leak_across_pods(call, due, loop.time())
        existing = self._pending.get(call.uid)
        if existing is not None:
            old = existing.call
            if call.relevance < old.relevance:
                call.finish(CallResult("skipped", MSG_LESS_RELEVANT))
                return
            if call.call_type == old.call_type:
                call.merge(old)
                old.finish(CallResult("overwritten", MSG_SAME_TYPE))
            else:
                old.finish(CallResult("overwritten", MSG_MORE_RELEVANT))
            del self._pending[call.uid]
            both_delayed = delay > 0 and existing.due > loop.time()
            if not (self.reset_delay_on_overwrite and both_delayed):
                due = min(due, existing.due)
        if self._checks(call) and call.uid not in self._in_flight and call.is_noop(self._fresh(call)):
            call.finish(CallResult("skipped", MSG_NO_EFFECT))
            return
        self._seq += 1
        self._pending[call.uid] = _Entry(call, due, self._seq)
        heapq.heappush(self._heap, (due, self._seq, call.uid))
        self._wake.set()

    def _leak_across_pods(self, call: ApiCall, due: float, now: float) -> float:
        """The mutants' leak; returns the new call's due time. With ``shares_delay_start`` it is
        due no later than any other pod's call still waiting out its delay (one delay start for
        all); with ``shares_delayed_call`` the new call overwrites those calls (one slot for all)."""
        waiting = [(uid, entry) for uid, entry in self._pending.items() if uid != call.uid and entry.due > now]
        if self.shares_delay_start:
            due = min([due, *(entry.due for _, entry in waiting)])
        if self.shares_delayed_call:
            for uid, entry in waiting:
                del self._pending[uid]
                entry.call.finish(CallResult("overwritten", MSG_SAME_TYPE))
        return due

    def _checks(self, call: ApiCall) -> bool:
        return self.noop_check and call.check_noop

    def _fresh(self, call: ApiCall) -> Obj | None:
        """The freshest copy of the call's pod; None if it is gone or was re-created (new uid)."""
        informer = self.lookup(call.key)
        if informer is None or str((informer.get("metadata") or {}).get("uid", "")) != call.uid:
            return None  # deleted, never seen, or a new pod of the same name: nothing to do
        written = self._written.get(call.key)
        if written is not None and str((written.get("metadata") or {}).get("uid", "")) != call.uid:
            written = None
        return fresher(informer, written)

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        self._worker = asyncio.get_running_loop().create_task(self._run(), name="api-dispatcher")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            now = loop.time()
            while self._heap and self._heap[0][0] <= now + DUE_TOLERANCE:
                _, seq, uid = heapq.heappop(self._heap)
                entry = self._pending.get(uid)
                if entry is None or entry.seq != seq:
                    continue
                if uid in self._in_flight:
                    entry.queued = False  # re-queued when the call in flight finishes
                    continue
                await self._slots.acquire()
                del self._pending[uid]
                self._in_flight.add(uid)
                task = loop.create_task(self._execute(entry.call), name=f"api-call-{entry.call.call_type}-{entry.call.key}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                now = loop.time()
            timeout = self._heap[0][0] - now if self._heap else None
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except asyncio.TimeoutError:
                pass

    async def _execute(self, call: ApiCall) -> None:
        result: CallResult
        try:
            pod = self._fresh(call)
            if self._checks(call) and call.is_noop(pod):
                result = CallResult("skipped", MSG_NO_EFFECT)
            else:
                now = format_time(self.clock.now())
                response = await call.execute(self.client, pod, now, force=not self._checks(call))
                if response is None:
                    result = CallResult("skipped", MSG_NO_EFFECT)
                else:
                    self.executed += 1
                    if response.get("kind") == "Pod":
                        self._written[call.key] = response
                    result = CallResult("executed", response=response)
        except asyncio.CancelledError:
            result = CallResult("closed", MSG_CLOSED)
            raise
        except Exception as e:
            self.failed += 1
            log.warning("%s for %s failed: %s", call.call_type, call.key, e)
            result = CallResult("failed", str(e), error=e)
        finally:
            self._in_flight.discard(call.uid)
            self._slots.release()
            entry = self._pending.get(call.uid)
            if entry is not None and not entry.queued:
                entry.queued = True
                heapq.heappush(self._heap, (entry.due, entry.seq, call.uid))
            self._wake.set()
            if not self._closed:
                call.finish(result)

    def forget(self, key: str) -> None:
        """The pod is gone: drop what was remembered of its writes."""
        self._written.pop(key, None)

    async def close(self) -> None:
        """Stop: pending calls finish with ``api dispatcher is closed``; calls in flight are cancelled."""
        self._closed = True
        if self._worker is not None:
            self._worker.cancel()
            try:
                await self._worker
            except asyncio.CancelledError:
                pass
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            try:
                await task
            except asyncio.CancelledError:
                pass
        for entry in list(self._pending.values()):
            entry.call.finish(CallResult("closed", MSG_CLOSED))
        self._pending.clear()

    async def idle(self) -> None:
        """Wait until nothing is pending or in flight (tests)."""
        while self._pending or self._in_flight:
            await asyncio.sleep(0.01)
