"""Events through ``events.k8s.io/v1``, as the scheduler's event broadcaster writes them.

Fields follow ``k8s-semantics.md`` F.3: ``regarding`` the pod, ``note`` the message (cut to the
1024-byte ``NoteLengthLimit`` with the scheduler's ``" ..."`` suffix), ``reason``, ``action``,
``type``, ``eventTime`` (MicroTime from the injected clock), ``reportingController``
(``default-scheduler``) and ``reportingInstance``; the name is ``GenerateEventName``'s
``<pod>.<hex nanoseconds>``, bumped by one nanosecond when two events for one pod share an instant
(virtual time makes that common). Events are sent in order by one task and never retried; a
failure is logged, as the real broadcaster drops events it cannot write. Series aggregation (the
broadcaster's PATCH of an existing event) is not done: each event is a create; nor is the fallback
to core ``v1`` events for servers without ``events.k8s.io/v1``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from reference_scheduler._client import ApiError, KubeClient, TransportError, resource_path
from reference_scheduler._clock import Clock, format_micro_time

__all__ = ["EventRecorder", "NOTE_LENGTH_LIMIT", "truncate_note"]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler.events")

NOTE_LENGTH_LIMIT = 1024


def truncate_note(message: str) -> str:
    """The scheduler's ``truncateMessage``."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix


@dataclass(frozen=True)
class _Pending:
    body: Obj
    namespace: str


class EventRecorder:
    def __init__(
        self,
        client: KubeClient,
        clock: Clock,
        *,
        reporting_controller: str = "default-scheduler",
        reporting_instance: str = "default-scheduler-reference",
    ) -> None:
        self.client = client
        self.clock = clock
        self.reporting_controller = reporting_controller
        self.reporting_instance = reporting_instance
        self.sent = 0
        self.failed = 0
        self._queue: asyncio.Queue[_Pending | None] = asyncio.Queue()
        self._last_nanos: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="event-recorder")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    def emit(self, pod: Obj, type_: str, reason: str, action: str, note: str, *, related: Obj | None = None) -> None:
        """An event ``regarding`` ``pod``; ``related`` names a second pod (a preemption's preemptor,
        ``Eventf(victim, preemptor, ...)``)."""
        meta = pod.get("metadata") or {}
        now = self.clock.now()
        name = str(meta.get("name", ""))
        nanos = int(now.timestamp()) * 1_000_000_000 + now.microsecond * 1000
        nanos = max(nanos, self._last_nanos.get(name, -1) + 1)
        self._last_nanos[name] = nanos
        regarding = _reference(pod)
        body: Obj = {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": f"{name}.{nanos:x}", "namespace": meta.get("namespace", "")},
            "eventTime": format_micro_time(now),
            "reportingController": self.reporting_controller,
            "reportingInstance": self.reporting_instance,
            "action": action,
            "reason": reason,
            "regarding": regarding,
            "note": truncate_note(note),
            "type": type_,
        }
        if related is not None:
            body["related"] = _reference(related)
        self._queue.put_nowait(_Pending(body, str(meta.get("namespace", ""))))

    async def _run(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            path = resource_path("events.k8s.io", "v1", "events", item.namespace)
            try:
                await self.client.create(path, item.body)
                self.sent += 1
            except (ApiError, TransportError) as e:
                self.failed += 1
                log.warning("event %s/%s not written: %s", item.namespace, item.body["metadata"]["name"], e)
            finally:
                self._queue.task_done()

    async def flush(self) -> None:
        """Wait until every event emitted so far has been attempted (tests)."""
        await self._queue.join()


def _reference(pod: Obj) -> Obj:
    meta = pod.get("metadata") or {}
    return {
        "kind": "Pod", "namespace": meta.get("namespace", ""), "name": meta.get("name", ""),
        "uid": meta.get("uid", ""), "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion", ""),
    }
