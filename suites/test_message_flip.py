"""KEP-5501 message flip: the rejection message changes while a patch is pending.

The changing message comes from the DynamicResources PreEnqueue plugin, so that any KEP-5501
scheduler produces it and nothing here depends on an out-of-tree plugin: a pod names two claims,
``a`` and ``b``, and the plugin reports the first one missing (``k8s-semantics.md`` B.4:
``could not find ResourceClaim "<ns>/<claim>"``, checked in ``spec.resourceClaims`` order). With
both missing the message names ``a``; creating ``a`` while ``b`` is still missing turns it into the
message naming ``b``; deleting ``a`` turns it back. Claim ``b`` never exists, so the pod never
passes PreEnqueue: every status patch writing its ``PodScheduled`` condition is a
``NotReadyForScheduling`` patch, and no device allocation is needed.

What is judged is only what the API shows: the pod's ``PodScheduled`` condition as the scenario's
informer saw it, and the scheduler's status patches and events in the request journal.
"""

from __future__ import annotations

import math

import pytest

from fake_apiserver import JournalEntry
from harness import Scenario
from suites._readings import READINGS
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    ConditionHistory,
    condition_history,
    event_lines,
    events,
    journal_lines,
    missing_claim,
    status_patches,
    watch_span,
)

__all__: list[str] = []


DELAY = 5.0  # "The delay value will be hardcoded to a default of 5 seconds"
GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}


# ---------------------------------------------------------------------- local helpers


def succeeded(entries: list[JournalEntry]) -> list[JournalEntry]:
    return [e for e in entries if 200 <= e.code < 300]


def not_ready_messages(history: ConditionHistory) -> list[str]:
    """The messages the pod showed with reason NotReadyForScheduling, in order (repeats folded)."""
    out: list[str] = []
    for _, c in history.states:
        if c is not None and c.get("reason") == NOT_READY and out[-1:] != [str(c.get("message", ""))]:
            out.append(str(c.get("message", "")))
    return out


async def set_claim(scenario: Scenario, name: str, present: bool) -> None:
    """Create or delete the (unallocated, finalizer-free) claim ``name``."""
    if present:
        await scenario.create_claim(name)
    else:
        await scenario.delete("resourceclaims", name)


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.message-flip.overwrite-keeps-delay", reading=READINGS["delay-kept"])
async def test_a_message_that_changes_inside_the_delay_is_sent_once_at_the_first_due_time(
        scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the Pod is retried and the rejection reason is resolved or changes
    during this period, the pending update will be cancelled or overwritten. If the delay period
    expires, the scheduler will asynchronously patch the Pod's status with the last-captured
    rejection message'; design discussion (k8s-semantics.md B.2): 'If a previous API call for the
    same Pod is already enqueued, its delay will not be reset.'

    The pod is rejected with the message naming claim ``a`` at t0; at t0+2 claim ``a`` appears and
    the message names ``b``. Expected: no condition before t0+5; exactly one status patch, at t0+5
    (5 s after the first rejection, not after the flip), carrying the message naming ``b``; the
    message naming ``a`` never reaches the pod; one ``NotReadyForScheduling`` event; and a minute
    later the pod still shows the last message with no further patch."""
    history = condition_history(scenario, "p")
    await scenario.create_node("n1")
    t0 = scenario.now
    await scenario.create_pod("p", claims=["a", "b"])
    await scenario.advance(2)
    await scenario.create_claim("a")  # the message flips from claim a to claim b
    not_ready = scenario.pod_condition("p", "PodScheduled", reason=NOT_READY)
    await scenario.never(not_ready, within=t0 + DELAY - 0.1 - scenario.now)
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "b")), within=0.2)
    await scenario.advance(watch_span(scenario, 60))
    await scenario.settle()

    patches = status_patches(scenario, "p")
    assert len(patches) == 1 and patches[0].code == 200 and t0 + DELAY - 0.1 <= patches[0].time <= t0 + DELAY + 0.2, (
        f"expected exactly one status patch of {scenario.namespace}/p, answered 200, at t0+5 = t={t0 + DELAY:.3f} "
        f"(5 s after the first rejection at t0={t0:.3f}; the flip at t0+2 must not reset the delay); "
        f"found {len(patches)}:\n{journal_lines(scenario, patches)}")
    assert not_ready_messages(history) == [missing_claim(scenario, "b")], (
        f"expected the pod to show only the last-captured message {missing_claim(scenario, 'b')!r} (the pending patch with "
        f"{missing_claim(scenario, 'a')!r} overwritten), seen:\n{history}")
    seen = events(scenario, "p", NOT_READY)
    assert len(seen) == 1, (
        f"expected exactly one NotReadyForScheduling event for {scenario.namespace}/p, the one sent with the patch; "
        f"found {len(seen)}:\n{event_lines(seen)}")
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "b")), within=0.1)


FLIP_PERIOD = 2.0
FLIP_DURATION = 58.0  # 29 flips: claim a created at t0+2, deleted at t0+4, ..., created at t0+58
FLIP_BOUND = math.ceil(FLIP_DURATION / DELAY) + 1  # 13


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §3, §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.message-flip.bounded-patches", reading=READINGS["delay-kept"])
async def test_a_message_flipping_back_and_forth_gives_a_bounded_number_of_patches(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'A pending status update will be cached for the Pod for a configurable
    duration (e.g., 5 seconds). If the Pod is retried and the rejection reason is resolved or
    changes during this period, the pending update will be cancelled or overwritten. If the delay
    period expires, the scheduler will asynchronously patch the Pod's status with the
    last-captured rejection message'; Design Details §3: 'The asynchronous call to the API server
    will only be enqueued if the status is new or different from the cached one'; and (B.2) 'If a
    previous API call for the same Pod is already enqueued, its delay will not be reset.'

    Claim ``a`` is created and deleted every 2 s for 58 s (29 flips, ending with ``a`` present), so
    the message alternates between the ones naming ``a`` and ``b`` faster than the delay.

    The bound: a patch is sent only when a delay window of 5 s expires with a changed message
    pending, and a window is opened by a changed message and never extended; so at most one patch
    per 5 s while the message keeps changing, plus the one carrying the last message:
    ``ceil(58 / 5) + 1 = 13`` successful status patches from t0 until a minute after the flipping
    stopped, and exactly one ``NotReadyForScheduling`` event per successful patch. Liveness, the
    other half: the first window is not reset by the flips, so the condition appears at t0+5 while
    the message is still changing, and in the end the pod shows the last message (naming ``b``)."""
    history = condition_history(scenario, "p")
    await scenario.create_node("n1")
    t0 = scenario.now
    await scenario.create_pod("p", claims=["a", "b"])
    present = False
    flips = int(FLIP_DURATION / FLIP_PERIOD)
    for _ in range(flips):
        await scenario.advance(FLIP_PERIOD)
        present = not present
        await set_claim(scenario, "a", present)
    assert present, "the flipping must end with claim a present (the last message names b)"
    last_flip = scenario.now
    await scenario.advance(DELAY + 0.5)
    await scenario.eventually(scenario.pod_condition("p", "PodScheduled", status="False", reason=NOT_READY,
                                                     message=missing_claim(scenario, "b")), within=0.1)
    await scenario.advance(watch_span(scenario, 60))
    await scenario.settle()

    patches = status_patches(scenario, "p")
    ok = succeeded(patches)
    first = ok[0].time if ok else None
    assert first is not None and t0 + DELAY - 0.1 <= first <= t0 + DELAY + 0.2, (
        f"expected the first status patch at t0+5 = t={t0 + DELAY:.3f}: the first delay window is not "
        f"reset by the flips every {FLIP_PERIOD:g} s; first successful patch at "
        f"{'never' if first is None else f't={first:.3f}'}:\n{journal_lines(scenario, patches)}")
    assert len(ok) <= FLIP_BOUND, (
        f"expected at most ceil({FLIP_DURATION:g}/{DELAY:g})+1 = {FLIP_BOUND} successful status patches of "
        f"{scenario.namespace}/p for {flips} flips over {FLIP_DURATION:g} s (one per delay window, plus the last message); "
        f"found {len(ok)}:\n{journal_lines(scenario, patches)}")
    late = [e for e in patches if e.time > last_flip + DELAY + 0.2]
    assert not late, (
        f"expected no status patch later than 5 s after the last flip (t={last_flip:.3f}); found "
        f"{len(late)}:\n{journal_lines(scenario, late)}")
    seen = events(scenario, "p", NOT_READY)
    assert len(seen) == len(ok), (
        f"expected exactly one NotReadyForScheduling event per successful status patch ({len(ok)}); "
        f"found {len(seen)} events:\n{event_lines(seen)}\npatches:\n{journal_lines(scenario, patches)}")
    assert not_ready_messages(history)[-1:] == [missing_claim(scenario, "b")], (
        f"expected the pod to end showing the last message {missing_claim(scenario, 'b')!r}; seen:\n{history}")
