"""The suites scheduling_gates, kep5501_core, message_flip and core_sanity pass nothing on inaction.

Each negative of these suites ("never bound", "no write", "refuses to start") is judged beside a
positive control of the same scenario (the ``control=`` of its criterion marker), so a scheduler
that does nothing fails or leaves unjudged every criterion and passes none:

* the ``does-nothing`` control, in process under virtual time, over the four suites: 0 passed,
  each criterion failed or not judged as pinned below;
* ``kep5501.core.gate-dependency`` judged both ways: a process that refuses whatever the gates is
  not judged (the second start, with both gates on, never happens); one that writes before it
  exits fails; the reference scheduler as a process passes;
* ``kep5501.message-flip.*``: a scheduler whose rejection message never changes fails, saying the
  message was never re-reported after the pod changed (it was a skip);
* the two 5-minute watches of a gated pod need their end (``FLUSH``): on real time with a shorter
  ``--real-time-wait`` they are not judged, never passed on a cut watch.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from harness._backends.backend import FakeBackend
from harness._schedulers.reference import reference_adapter
from harness._runs.run import RunOptions, run_suites
from harness._scenario.scenario import Scenario
from harness._runs.selftest import process_scheduler
from harness._time.virtual_time import run
from reference_scheduler._plugins import DynamicResources
from suites.test_message_flip import learn_two_messages

SUITES = ("scheduling_gates", "kep5501_core", "message_flip", "core_sanity")
#: What ``does-nothing`` gets on each criterion of the four suites: a negative without its control
#: is not judged; a criterion whose positive is part of what it judges fails.
DOES_NOTHING = {
    "gates.gated-pod-untouched.kep5501-off": "not judged",
    "gates.gated-pod-untouched.kep5501-on": "not judged",
    "gates.kep5501.no-redundant-patch": "not judged",
    "gates.removal-order.first-then-second": "failed",
    "gates.removal-order.second-then-first": "failed",
    "gates.schedulinggated-condition": "failed",
    "kep5501.core.after-delay": "failed",
    "kep5501.core.resolved-within-delay": "failed",
    "kep5501.core.one-patch-one-event": "failed",
    "kep5501.core.clear-delayed": "failed",
    "kep5501.core.clear-while-binding-waits": "failed",
    "kep5501.core.feature-gate-off": "not judged",
    "kep5501.core.gate-dependency": "not judged",
    "kep5501.core.pods-rejected-together-same-message": "failed",
    "kep5501.core.pods-released-apart": "failed",
    "kep5501.message-flip.overwrite-keeps-delay": "failed",
    "kep5501.message-flip.bounded-patches": "failed",
    "core.binds-fitting-node": "failed",
    "core.unschedulable-message": "failed",
    "core.node-added": "failed",
}
NEVER_HAPPENED = "the control this criterion is judged beside never happened: the scheduler must "
GATE_DEPENDENCY = "test_enabling_pod_status_without_async_api_calls_fails_to_start"
#: What a stand-in process prints before it exits: both gates named, as a refusal must.
REFUSAL = "SchedulerPreEnqueuePodStatus=true requires SchedulerAsyncAPICalls=true"


def _criteria(tmp_path: Path, scheduler: str, suites: tuple[str, ...], *pytest_args: str,
              real_time_wait: float | None = None) -> dict[str, dict[str, object]]:
    options = RunOptions(scheduler=scheduler, suites=suites, pytest_args=pytest_args, timeline=False, jobs=0,
                         report_dir=tmp_path / "report", real_time_wait=real_time_wait)
    return {str(c["id"]): c for c in run_suites(options, progress=None).report["criteria"]}


def test_does_nothing_passes_no_criterion_of_the_four_suites(tmp_path: Path) -> None:
    criteria = _criteria(tmp_path, "reference:does-nothing", SUITES)
    assert {cid: c["status"] for cid, c in criteria.items()} == DOES_NOTHING
    messages = {cid: str(c["message"]) for cid, c in criteria.items()}
    assert messages["gates.gated-pod-untouched.kep5501-off"].startswith(
        NEVER_HAPPENED + "bind default/p once its scheduling gates are removed (watch pods, list nodes, bind); ")
    for cid in ("gates.gated-pod-untouched.kep5501-on", "gates.kep5501.no-redundant-patch"):
        assert messages[cid].startswith(
            NEVER_HAPPENED + "report the PreEnqueue rejection of default/rejected (its claim 'absent' does not exist) "
            "in its status, PodScheduled=False (watch pods and claims, patch the pod's status); "), cid
    assert messages["kep5501.core.feature-gate-off"].startswith(
        NEVER_HAPPENED + "bind default/p once its claim c exists (watch pods and claims, allocate the claim from n1's "
        "device, bind); ")
    assert messages["kep5501.core.gate-dependency"].startswith(
        NEVER_HAPPENED + "start with both gates on and bind default/alive, an ordinary pod that fits a node (watch "
        "pods, list nodes, bind); ")
    assert all(criteria[cid]["control"] for cid in DOES_NOTHING), "every criterion names its control"


def _stand_in(tmp_path: Path, refuses: str) -> str:
    """``--scheduler`` for a stand-in that runs the reference scheduler as a process, except that
    it first runs ``refuses`` (Python, given ``gates``, the ``--feature-gates`` text, and
    ``kubeconfig``, its path), which may print and exit. The run's preflight starts it with the
    run's gates (none), so it must start then."""
    script = tmp_path / "stand_in.py"
    script.write_text(f"""import os, sys
kubeconfig, gates = sys.argv[1], sys.argv[2]
{refuses}
os.execv(sys.executable, [sys.executable, "-m", "reference_scheduler", "scheduler", "--kubeconfig", kubeconfig,
                          "--feature-gates", gates])
""")
    return "cmd:" + shlex.join([sys.executable, str(script), "{kubeconfig}", "{feature_gates}"])


def test_a_process_that_refuses_whatever_the_gates_is_not_judged_on_the_gate_dependency(tmp_path: Path) -> None:
    """It exits non-zero naming both gates whenever SchedulerPreEnqueuePodStatus is on, with
    SchedulerAsyncAPICalls on too: the refusal holds, its control never happens."""
    refuses = f"if 'SchedulerPreEnqueuePodStatus=true' in gates:\n    print({REFUSAL!r})\n    sys.exit(1)"
    [record] = _criteria(tmp_path, _stand_in(tmp_path, refuses), ("kep5501_core",), "-k", GATE_DEPENDENCY).values()
    assert record["status"] == "not judged"
    assert str(record["message"]).startswith(
        NEVER_HAPPENED + "start with both gates on and bind an ordinary pod (watch pods, list nodes, bind); it did not "
        f"start: AdapterError: scheduler {shlex.join([sys.executable, str(tmp_path / 'stand_in.py')])} ")
    assert ("SchedulerAsyncAPICalls=true,SchedulerPreEnqueuePodStatus=true exited with code 1 before it was ready; "
            "its log ends:") in str(record["message"])


WRITES_FIRST = f"""if gates == "SchedulerAsyncAPICalls=false,SchedulerPreEnqueuePodStatus=true":
    import json, re, urllib.request
    server = re.search(r"server: (\\S+)", open(kubeconfig).read()).group(1)
    body = json.dumps({{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "started"}}}}).encode()
    urllib.request.urlopen(urllib.request.Request(server + "/api/v1/namespaces/default/configmaps", data=body,
                                                  headers={{"Content-Type": "application/json"}}, method="POST"))
    print({REFUSAL!r})
    sys.exit(1)"""


def test_a_process_that_writes_before_it_refuses_fails_the_gate_dependency(tmp_path: Path) -> None:
    [record] = _criteria(tmp_path, _stand_in(tmp_path, WRITES_FIRST), ("kep5501_core",), "-k",
                         GATE_DEPENDENCY).values()
    assert record["status"] == "failed"
    assert str(record["message"]).startswith(
        "AssertionError: expected the scheduler to refuse to start before any write; it wrote 1 time(s) first:\n")


def test_the_reference_as_a_process_passes_the_gate_dependency_both_ways(tmp_path: Path) -> None:
    [record] = _criteria(tmp_path, process_scheduler("status-by-put"), ("kep5501_core",), "-k",
                         GATE_DEPENDENCY).values()
    assert record["status"] == "passed", record["message"]
    log = (tmp_path / "report" / f"suites_test_kep5501_core.py_{GATE_DEPENDENCY}" / "scheduler.log").read_text()
    assert "SchedulerPreEnqueuePodStatus=true requires SchedulerAsyncAPICalls=true" in log
    assert "--- schedharness: the scheduler started again" in log


def test_the_gated_pod_watches_are_not_judged_when_real_time_cuts_them(tmp_path: Path) -> None:
    criteria = _criteria(tmp_path, process_scheduler("status-by-put"), ("scheduling_gates",), "-k",
                         "never_bound", real_time_wait=1)
    assert {cid: c["status"] for cid, c in criteria.items()} == {
        "gates.gated-pod-untouched.kep5501-off": "not judged", "gates.gated-pod-untouched.kep5501-on": "not judged"}
    for record in criteria.values():
        assert str(record["message"]).startswith(
            "needs a 300 s watch on real time (kube-scheduler moves a pod that stayed unschedulable for 5 minutes back "
            "to be tried again (podMaxInUnschedulablePodsDuration), so a repeated write would come only at the end of "
            "the span), and this run's real-time wait is 1 s: give --real-time-wait 300 to judge it")


def test_a_message_never_re_reported_after_the_pod_changed_fails_the_flip(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A scheduler whose DRA rejection says the same words whichever claim is missing reports the
    first state and nothing after it: the flip's set-up fails, saying so (it was a skip)."""
    rejects = DynamicResources.pre_enqueue
    monkeypatch.setattr(DynamicResources, "pre_enqueue",
                        lambda self, pod: None if rejects(self, pod) is None else "a claim is missing")

    async def main() -> None:
        backend = FakeBackend(tmp_path)
        await backend.start()
        adapter = reference_adapter()
        try:
            await adapter.start(backend.kubeconfig_path, {"SchedulerPreEnqueuePodStatus": True,
                                                          "SchedulerAsyncAPICalls": True})
            async with Scenario(backend) as scenario:
                await learn_two_messages(scenario, "a", "c")
        finally:
            await adapter.stop()
            await backend.stop()

    with pytest.raises(AssertionError) as failed:
        run(main())
    assert re.match(
        r"^expected the pod's new rejection reported within 5 s of its re-evaluation: claim a was made and claim c "
        r"deleted, and the scheduler saw the pod updated after that at t=\d+\.\d{3} \(a re-evaluation, "
        r"READINGS\['reevaluation'\]\); at t=\d+\.\d{3} the pod still shows the message of the first rejection, "
        r"'a claim is missing': the message was never re-reported after the pod changed\. The scheduler's condition "
        r"writes:\n", str(failed.value))

