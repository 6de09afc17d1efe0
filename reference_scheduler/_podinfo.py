"""A queued pod's record: :class:`QueuedPodInfo`, and :func:`pod_key`, the key it is held by.

Both the scheduling queue (:mod:`reference_scheduler._queue`), which holds these records, and
KEP-5501's reporter (:mod:`reference_scheduler._reporting`), which the queue calls with them and
which reads and sets their ``last_message``, need this type; it lives here, below both, so the
queue can depend on the reporter without the reporter depending on the queue.
"""

from __future__ import annotations

from typing import Any

__all__ = ["QueuedPodInfo", "group_key_of", "pod_group_name", "pod_key"]

Obj = dict[str, Any]


def pod_key(pod: Obj) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def pod_group_name(pod: Obj) -> str:
    """The PodGroup the pod names (``spec.schedulingGroup.podGroupName``), or ``""``."""
    return str(((pod.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName") or "")


def group_key_of(pod: Obj) -> str:
    """``ns/name`` of the pod's PodGroup, or ``""``."""
    name = pod_group_name(pod)
    return f"{(pod.get('metadata') or {}).get('namespace', '')}/{name}" if name else ""


class QueuedPodInfo:
    """A pod the queue holds, and what the queue remembers of it.

    ``last_message`` is KEP-5501's ``lastPreEnqueueRejectionMessage``; ``seeded`` records that the
    first sight has happened (the cache is seeded once, never again)."""

    __slots__ = (
        "pod", "key", "attempts", "timestamp", "backoff_until", "state", "rejector",
        "last_message", "seeded", "unschedulable_since", "seq", "last_failure",
    )

    def __init__(self, pod: Obj, now: float, seq: int) -> None:
        self.pod = pod
        self.key = pod_key(pod)
        self.attempts = 0
        self.timestamp = now
        self.backoff_until = 0.0
        self.state = "new"  # active, backoff, unschedulable, gated, in-flight, lost
        self.rejector = ""
        self.last_message = ""
        self.seeded = False
        self.unschedulable_since = 0.0
        self.seq = seq
        self.last_failure = ""

    @property
    def uid(self) -> str:
        return str((self.pod.get("metadata") or {}).get("uid", ""))

    @property
    def priority(self) -> int:
        return int((self.pod.get("spec") or {}).get("priority") or 0)

    def __repr__(self) -> str:
        return f"QueuedPodInfo({self.key!r}, state={self.state!r}, attempts={self.attempts})"
