"""KEP-5501 message flip: the rejection message changes while a write is pending.

The changing message comes from a DRA rejection, so that any KEP-5501 scheduler produces one and
nothing here depends on an out-of-tree plugin: pod ``p`` names three claims, ``a``, ``b`` and
``c``, and exactly one of them is missing at any time ("only a missing", "only b missing", ...).
The pod therefore never passes PreEnqueue (every intermediate step of a flip deletes before it
creates, so at least one claim is always missing), every write of its ``PodScheduled`` condition
is a ``NotReadyForScheduling`` one, and no device allocation is needed.

Every flip also updates the pod's labels: a pod update re-runs PreEnqueue in any KEP-5501
scheduler (READINGS["reevaluation"]), while a claim change need not (kube-scheduler's
DynamicResources queueing hint skips a pod whose other claims are still missing). A window opens
between the scheduler seeing the first claim change and seeing the pod update, so a scheduler
that re-evaluates at either is on time.

The words of the messages are the scheduler's own and are never predicted. The scenario first
makes the scheduler report two states and learns their messages from the condition it wrote.
When the pod still shows the first message once the second state has been re-evaluated (the pod
updated) and the delay has passed, the criterion fails: the new rejection was never re-reported,
the stale message this suite exists to catch. The trade-off: a scheduler whose message does not
say which claim is missing cannot be told apart from that at the API, and fails too (the KEP's
own DRA story, and kube-scheduler's DynamicResources plugin, name the claim). Then the flips are
judged against the learned messages. Times start when the scheduler's watch was handed the first
flip.

Both criteria judge their negatives (no write before the due time, at most so many writes)
beside what the scheduler must have written in the same scenario: the two reports learned first,
then the write the flips lead to (the ``control=`` of each marker).
"""

from __future__ import annotations

import math

import pytest

from harness import Scenario
from suites._readings import READINGS
from suites._support import DELAY
from suites._support import NOT_READY_FOR_SCHEDULING as NOT_READY
from suites._support import (
    CLAIMS,
    ConditionHistory,
    condition_history,
    event_lines,
    events,
    expect_not_ready_after,
    format_writes,
    not_ready_writes,
    watch_span,
)

__all__: list[str] = []

GATES = {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
NAMES = ("a", "b", "c")
FLIP_LABEL = "schedharness.io/flip"


# ---------------------------------------------------------------------- local helpers


def not_ready_messages(history: ConditionHistory, since: float = 0.0) -> list[str]:
    """The messages the pod showed with reason NotReadyForScheduling from ``since`` on, in order
    (repeats folded)."""
    out: list[str] = []
    for t, c in history.states:
        if t >= since and c is not None and c.get("reason") == NOT_READY and out[-1:] != [str(c.get("message", ""))]:
            out.append(str(c.get("message", "")))
    return out


def shown_message(scenario: Scenario) -> str:
    condition = (scenario.pod("p") or {}).get("status", {}).get("conditions") or []
    return next((str(c.get("message", "")) for c in condition if c.get("type") == "PodScheduled"), "")


async def only_missing(scenario: Scenario, missing: str, present: set[str]) -> tuple[float, float]:
    """Make ``missing`` the only missing claim (deleting it first, then creating the others that
    are absent; ``present`` is updated), then update the pod's labels. Returns when the scheduler
    saw the first claim change and when it saw the pod update: the window in which any KEP-5501
    scheduler re-evaluates the pod (module docstring)."""
    since = scenario.now
    first = None
    if missing in present:
        await scenario.delete("resourceclaims", missing)
        present.discard(missing)
        first = await scenario.seen(CLAIMS, missing, since=since, deleted=True)
    for name in NAMES:
        if name != missing and name not in present:
            claim = await scenario.create_claim(name)
            present.add(name)
            if first is None:
                first = await scenario.seen(CLAIMS, claim)
    assert first is not None
    touched = await scenario.patch("pods", "p", {"metadata": {"labels": {FLIP_LABEL: f"only-{missing}-missing"}}})
    return first, await scenario.seen("pods", touched)


async def learn_two_messages(scenario: Scenario, first: str, second: str) -> tuple[str, str, set[str]]:
    """Pod ``p`` made with only ``first`` missing, reported; then only ``second`` missing,
    reported. Returns both messages (fails when the pod still shows the first: the second
    rejection was never re-reported) and the claims present."""
    await scenario.create_node("n1")
    present: set[str] = set()
    for name in NAMES:
        if name != first:
            await scenario.create_claim(name)
            present.add(name)
    seen = await scenario.seen("pods", await scenario.create_pod("p", claims=list(NAMES)))
    await expect_not_ready_after(scenario, "p", seen)
    one = shown_message(scenario)
    _, changed = await only_missing(scenario, second, present)
    due = changed + DELAY + scenario.slack.late
    await scenario.advance(due - scenario.now)
    await scenario.settle()
    two = shown_message(scenario)
    assert two != one, (
        f"expected the pod's new rejection reported within {DELAY:g} s of its re-evaluation: claim {first} was made "
        f"and claim {second} deleted, and the scheduler saw the pod updated after that at t={changed:.3f} (a "
        f"re-evaluation, READINGS['reevaluation']); at t={due:.3f} the pod still shows the message of the first "
        f"rejection, {one!r}: the message was never re-reported after the pod changed. The scheduler's condition "
        f"writes:\n{format_writes(not_ready_writes(scenario, 'p'))}")
    return one, two, present


# ---------------------------------------------------------------------- criteria


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.message-flip.overwrite-keeps-delay", reading=READINGS["delay-kept"],
                        control="feature: the pod's two rejections are reported, each with its message, and the "
                                "flips are written once")
async def test_a_message_that_changes_inside_the_delay_is_sent_once_at_the_first_due_time(
        scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'If the Pod is retried and the rejection reason is resolved or changes
    during this period, the pending update will be cancelled or overwritten. If the delay period
    expires, the scheduler will asynchronously patch the Pod's status with the last-captured
    rejection message'; the KEP's design discussion (docs/readings.md Q5): a previous call for the
    same pod that is already enqueued keeps its delay.

    The scheduler reports "only a missing" (message A) and then "only c missing" (message C).
    At T the state becomes "only b missing", and 2 s later "only a missing" again. Expected: no
    write until 5 s after the scheduler saw the first flip; then exactly one write, at that time
    (the second flip does not reset the delay), carrying A, the last-captured message; the
    intermediate message never reaches the pod; one event per write, with its message; and a
    minute later the pod still shows A with no further write.

    Judged beside a control, the feature itself: the two reports before the flips (a pod still
    showing A after the change to C fails, the message never re-reported), and the one write
    the flips must lead to."""
    history = condition_history(scenario, "p")
    message_a, _, present = await learn_two_messages(scenario, "a", "c")
    before = len(not_ready_writes(scenario, "p"))
    t_flip = scenario.now
    flip, flip_last = await only_missing(scenario, "b", present)
    await scenario.advance(2)
    await only_missing(scenario, "a", present)
    slack = scenario.slack
    await scenario.advance(flip_last + DELAY + slack.late - scenario.now)
    await scenario.advance(watch_span(scenario, 60))
    await scenario.settle()

    writes = [w for w in not_ready_writes(scenario, "p")[before:] if w.applied]
    assert len(writes) == 1 and flip + DELAY - slack.early <= writes[0].time <= flip_last + DELAY + slack.late, (
        f"expected exactly one write of {scenario.namespace}/p's condition at t={flip + DELAY:.3f}..{flip_last + DELAY:.3f} "
        f"({DELAY:g} s after the scheduler saw the first flip, t={flip:.3f}..{flip_last:.3f}; the flip 2 s later must not "
        f"reset the delay); found {len(writes)}:\n{format_writes(writes)}")
    message = (writes[0].condition_after() or {}).get("message")
    assert message == message_a, (
        f"expected the write to carry the last-captured message {message_a!r} (the state after the second flip, "
        f"reported before), it carried {message!r}")
    assert not_ready_messages(history, since=t_flip)[-1:] == [message_a] and shown_message(scenario) == message_a, (
        f"expected the pod to show {message_a!r} from the write on, the intermediate message never; seen:\n{history}")
    sent = events(scenario, "p", NOT_READY)
    stored = [w for w in not_ready_writes(scenario, "p") if w.applied]
    assert [e.message for e in sent] == [(w.condition_after() or {}).get("message") for w in stored], (
        f"expected one NotReadyForScheduling event per stored write, with its message; events:\n{event_lines(sent)}\n"
        f"writes:\n{format_writes(stored)}")


FLIP_PERIOD = 2.0
FLIP_DURATION = 58.0  # 29 flips, ending with only b missing
FLIP_BOUND = math.ceil(FLIP_DURATION / DELAY) + 1  # 13


@pytest.mark.kep("KEP-5501", "Proposal; Design Details §3, §4")
@pytest.mark.feature_gates(**GATES)
@pytest.mark.criterion("kep5501.message-flip.bounded-patches", reading=READINGS["delay-kept"],
                        control="feature: the pod's two rejections are reported, each with its message, and the "
                                "first flip is written 5 s after the scheduler saw it")
async def test_a_message_flipping_back_and_forth_gives_a_bounded_number_of_patches(scenario: Scenario) -> None:
    """KEP-5501 Proposal: 'A pending status update will be cached for the Pod for a configurable
    duration (e.g., 5 seconds). If the Pod is retried and the rejection reason is resolved or
    changes during this period, the pending update will be cancelled or overwritten. If the delay
    period expires, the scheduler will asynchronously patch the Pod's status with the
    last-captured rejection message'; Design Details §3: 'The asynchronous call to the API server
    will only be enqueued if the status is new or different from the cached one'; and (B.2) 'If a
    previous API call for the same Pod is already enqueued, its delay will not be reset.'

    The scheduler reports "only a missing" (message A) and then "only c missing" (message C). Then
    the state flips between "only a missing" and "only b missing" every 2 s for 58 s (29 flips,
    starting and ending with only a missing, A), faster than the delay; every state of the first
    window differs from what the pod shows (C), so no reading of "a message back to the shown one"
    matters before the first write.

    The bound: a write is sent only when a delay window of 5 s expires with a changed message
    pending, and a window is opened by a changed message and never extended; so at most one write
    per 5 s while the message keeps changing, plus the one carrying the last message:
    ``ceil(58 / 5) + 1 = 13`` stored writes from the first flip until a minute after the flipping
    stopped, none later than 5 s after the scheduler saw the last flip, and one
    ``NotReadyForScheduling`` event per stored write. Liveness, the other half: the first window
    is not reset by the flips, so a write comes 5 s after the scheduler saw the first flip while
    the message is still changing, and in the end the pod shows A.

    Judged beside a control, the feature itself: the two reports before the flips (a pod still
    showing A after the change to C fails, the message never re-reported), and the first write
    5 s after the first flip."""
    history = condition_history(scenario, "p")
    message_a, message_c, present = await learn_two_messages(scenario, "a", "c")
    before = len(not_ready_writes(scenario, "p"))
    events_before = len(events(scenario, "p", NOT_READY))
    flips = int(FLIP_DURATION / FLIP_PERIOD)
    first: tuple[float, float] | None = None
    last = 0.0
    missing = "b"
    for i in range(flips):
        if i:
            await scenario.advance(FLIP_PERIOD)
        missing = "a" if missing == "b" else "b"
        seen = await only_missing(scenario, missing, present)
        first, last = first or seen, seen[1]
    assert first is not None
    assert missing == "a", "the flipping must end with only a missing (message A)"
    slack = scenario.slack
    await scenario.advance(last + DELAY + slack.late - scenario.now)
    await scenario.advance(watch_span(scenario, 60))
    await scenario.settle()

    writes = [w for w in not_ready_writes(scenario, "p")[before:] if w.applied]
    assert writes and first[0] + DELAY - slack.early <= writes[0].time <= first[1] + DELAY + slack.late, (
        f"expected the first write at t={first[0] + DELAY:.3f}..{first[1] + DELAY:.3f} ({DELAY:g} s after the scheduler "
        f"saw the first flip): the first window is not reset by the flips every {FLIP_PERIOD:g} s; found:\n"
        f"{format_writes(writes)}")
    assert len(writes) <= FLIP_BOUND, (
        f"expected at most ceil({FLIP_DURATION:g}/{DELAY:g})+1 = {FLIP_BOUND} stored writes of {scenario.namespace}/p's "
        f"condition for {flips} flips over {FLIP_DURATION:g} s (one per delay window, plus the last message); "
        f"found {len(writes)}:\n{format_writes(writes)}")
    late = [w for w in writes if w.time > last + DELAY + slack.late]
    assert not late, (
        f"expected no write later than {DELAY:g} s after the scheduler saw the last flip (t={last:.3f}); found "
        f"{len(late)}:\n{format_writes(late)}")
    sent = events(scenario, "p", NOT_READY)[events_before:]
    assert len(sent) == len(writes), (
        f"expected exactly one NotReadyForScheduling event per stored write ({len(writes)}); "
        f"found {len(sent)} events:\n{event_lines(sent)}\nwrites:\n{format_writes(writes)}")
    assert shown_message(scenario) == message_a != message_c, (
        f"expected the pod to end showing the last message {message_a!r}; seen:\n{history}")
