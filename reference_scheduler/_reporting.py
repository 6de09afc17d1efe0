"""KEP-5501: reflect PreEnqueue rejections in the pod's status.

The queue calls three hooks, at the points of the KEP's ``runPreEnqueuePlugins``:

* :meth:`first_sight` seeds ``lastPreEnqueueRejectionMessage`` from the pod ("Set the last known
  message from the Pod object on first sight"): the message of a ``PodScheduled=False``
  condition with reason ``NotReadyForScheduling`` or ``SchedulingGated``. Decision 1 (open
  question 1): seeded once, when the queue first sees the pod, and never re-seeded after a
  success. A rejection after a success therefore enqueues a patch; it overwrites the pending
  delayed clear, and the dispatcher's no-op check skips it if the pod already shows exactly that
  condition.
* :meth:`rejected`: "The asynchronous call to the API server will only be enqueued if the status
  is new or different from the cached one". The cache is set at once; the patch
  (``PodScheduled=False``, reason ``NotReadyForScheduling``, the plugin's message) is enqueued
  with the delay ("enqueues it with a delay into the asynchronous API dispatcher").
* :meth:`passed`: "If a cached message exists ... the scheduler immediately clears its internal
  state ... It then constructs a request to clear the condition and enqueues that request with a
  delay". Decision 2 (open question 2): the clear removes only a ``PodScheduled`` condition whose
  reason is ``NotReadyForScheduling``; a gated pod whose gates are removed shows
  ``SchedulingGated``, so its clear is a no-op and no patch is sent (the binding replaces the
  condition), as the KEP's message unification intends. Decision 6 (open question 6): the clear
  removes the element, so the pod looks like a fresh ungated pod; the reference sends a strategic
  merge patch deleting it (``{"$patch":"delete","type":"PodScheduled"}``, with
  ``$setElementOrder/conditions`` when other conditions remain; ``_conditions.status_patch`` says
  why not ``"conditions": null`` when none remain). The shape variants remove it with another
  request (:mod:`reference_scheduler._writers`); the pod ends the same.

Events (decision 3, open question 3): "An Event is emitted for the Pod with the reason
``NotReadyForScheduling`` and the rejection message". It is sent when the delayed patch is
actually sent and succeeds, never when it is overwritten, skipped or fails, so the event and the
condition always agree. Type ``Warning`` (the pod cannot make progress, like
``FailedScheduling``); action ``PreEnqueue``: the extension point that rejected the pod, which
tells it apart from ``FailedScheduling``'s ``Scheduling`` (no scheduling attempt was made, the very
distinction the KEP draws between ``NotReadyForScheduling`` and ``Unschedulable``);
``reportingController`` ``default-scheduler``.

Failures (decision 4, open question 4): the KEP promises that "any subsequent event that causes
the Pod to be re-evaluated by the PreEnqueue plugins will trigger a retry of the status patch",
which cannot hold if the cache keeps a message that never reached the pod. So a failed rejection
patch resets the cache to ``""`` (if it still holds that message) and the next rejection enqueues
the patch again; a failed clear puts the cleared message back (if the cache is still empty) so the
next re-evaluation that passes enqueues the clear again. Scheduling carries on regardless: "This
failure is logged, but it does not crash the scheduler or affect the scheduling".

Feature gate: nothing happens unless ``SchedulerPreEnqueuePodStatus`` is on and the dispatcher
exists ("if p.apiDispatcher == nil || !p.preEnqueuePodStatusEnabled { return }").

The attributes below the constructor are the one-rule switches the mutants flip
(:mod:`reference_scheduler._mutants`). ``per_pod_message`` keeps the cache on each pod's record,
as the KEP keeps ``lastPreEnqueueRejectionMessage`` on ``QueuedPodInfo``; off, one message held
by the reporter stands for every pod (the leak a mutant checks the suites catch).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from reference_scheduler._conditions import NOT_READY_FOR_SCHEDULING, rejection_message_of
from reference_scheduler._dispatcher import ApiDispatcher, CallResult, PodStatusPatchCall
from reference_scheduler._events import EventRecorder
from reference_scheduler._podinfo import QueuedPodInfo
from reference_scheduler._writers import STRATEGIC, ConditionWriter

__all__ = ["DEFAULT_DELAY", "EVENT_ACTION", "EVENT_TYPE", "PreEnqueueStatusReporter"]

Obj = dict[str, Any]
log = logging.getLogger("reference_scheduler.reporting")

DEFAULT_DELAY = 5.0  # "The delay value will be hardcoded to a default of 5 seconds"
EVENT_TYPE = "Warning"
EVENT_ACTION = "PreEnqueue"


class PreEnqueueStatusReporter:
    def __init__(
        self,
        dispatcher: ApiDispatcher | None,
        recorder: EventRecorder | None,
        *,
        enabled: bool,
        delay: float = DEFAULT_DELAY,
        on_lost: Callable[[QueuedPodInfo], None] | None = None,
        writer: ConditionWriter = STRATEGIC,
    ) -> None:
        self.dispatcher = dispatcher
        self.writer = writer
        self.recorder = recorder
        self.enabled = enabled
        self.delay = delay
        self.on_lost = on_lost
        # one-rule switches for the mutants
        self.reason = NOT_READY_FOR_SCHEDULING
        self.clear_delay: float | None = None  # None: the same delay as rejections
        self.seed = True
        self.dedup = True
        self.clears = True
        self.emit_events = True
        self.reset_on_failure = True
        self.lose_on_failure = False
        self.per_pod_message = True  # False: one "last message" for every pod (a mutant's leak)
        self._shared_message = ""
        self.patches_enqueued = 0
        self.clears_enqueued = 0

    @property
    def active(self) -> bool:
        return self.enabled and self.dispatcher is not None

    def _last(self, pinfo: QueuedPodInfo) -> str:
        return pinfo.last_message if self.per_pod_message else self._shared_message

    def _remember(self, pinfo: QueuedPodInfo, message: str) -> None:
        if self.per_pod_message:
            pinfo.last_message = message
        else:
            self._shared_message = message

    def first_sight(self, pinfo: QueuedPodInfo) -> None:
        if self.active and self.seed and not pinfo.seeded and pinfo.last_message == "":
            seeded = rejection_message_of(pinfo.pod)
            if self.per_pod_message or seeded:  # the shared message is seeded only by a pod that shows one
                self._remember(pinfo, seeded)

    def rejected(self, pinfo: QueuedPodInfo, message: str) -> None:
        if not self.active:
            return
        assert self.dispatcher is not None
        if self.dedup and self._last(pinfo) == message:
            return
        self._remember(pinfo, message)
        condition = {"type": "PodScheduled", "status": "False", "reason": self.reason, "message": message}
        call = PodStatusPatchCall(pinfo.pod, condition=condition, kind="not-ready", writer=self.writer)
        call.check_noop = self.dedup
        call.on_finish.append(lambda result: self._rejection_finished(pinfo, message, result))
        self.patches_enqueued += 1
        self.dispatcher.add(call, self.delay)

    def passed(self, pinfo: QueuedPodInfo) -> None:
        if not self.active or self._last(pinfo) == "":
            return
        assert self.dispatcher is not None
        cleared = self._last(pinfo)
        self._remember(pinfo, "")
        if not self.clears:
            return
        call = PodStatusPatchCall(pinfo.pod, clear_reason=self.reason, kind="clear", writer=self.writer)
        call.on_finish.append(lambda result: self._clear_finished(pinfo, cleared, result))
        self.clears_enqueued += 1
        self.dispatcher.add(call, self.delay if self.clear_delay is None else self.clear_delay)

    def _rejection_finished(self, pinfo: QueuedPodInfo, message: str, result: CallResult) -> None:
        if result.outcome == "executed":
            if self.emit_events and self.recorder is not None:
                self.recorder.emit(result.response or pinfo.pod, EVENT_TYPE, NOT_READY_FOR_SCHEDULING, EVENT_ACTION, message)
        elif result.outcome == "failed":
            log.warning("status patch for %s failed (%s); retried on the next re-evaluation", pinfo.key, result.message)
            if self.reset_on_failure and self._last(pinfo) == message:
                self._remember(pinfo, "")
            if self.lose_on_failure and self.on_lost is not None:
                self.on_lost(pinfo)

    def _clear_finished(self, pinfo: QueuedPodInfo, cleared: str, result: CallResult) -> None:
        if result.outcome == "failed":
            log.warning("clearing the condition of %s failed (%s); retried on the next pass", pinfo.key, result.message)
            if self.reset_on_failure and self._last(pinfo) == "":
                self._remember(pinfo, cleared)
            if self.lose_on_failure and self.on_lost is not None:
                self.on_lost(pinfo)
