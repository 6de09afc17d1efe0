"""The KEP-5836 suite passes nothing on inaction.

Each negative of ``suites/test_kep5836_resize_preemption.py`` ("nothing preempted", "no write")
is judged beside a positive control of the same scenario (the ``control=`` of its criterion
marker): a deferred resize on a node of its own that must preempt (the feature control), or, with
the gate off, an ordinary pod that must be bound (liveness). So the in-process ``does-nothing``
control, under virtual time, passes none of the 22 criteria: the 13 whose positive is what they
judge fail, and the 9 whose control never happened are not judged, each saying what the scheduler
had to do.
"""

from __future__ import annotations

from pathlib import Path

from harness._runs.run import RunOptions, run_suites

FEATURE = ("the control this criterion is judged beside never happened: the scheduler must preempt default/cv on "
           "node nc for default/cr's deferred resize (100m to 200m, a victim of lower priority on its own node: "
           "KEP-5836 with both its feature gates on); expected within 5 s ")
LIVENESS = ("the control this criterion is judged beside never happened: the scheduler must bind default/alive, an "
            "ordinary pod that fits a node (watch pods, list nodes, bind); expected within 5 s ")
NOT_JUDGED = {
    "kep5836.already-fits": FEATURE,
    "kep5836.deleted-while-waiting-quiet": FEATURE,
    "kep5836.disable-resize-preemption": FEATURE,
    "kep5836.gate-off": LIVENESS,
    "kep5836.infeasible-never": FEATURE,
    "kep5836.infeasible-while-waiting-quiet": FEATURE,
    "kep5836.own-node-only": FEATURE,
    "kep5836.policy-never": FEATURE,
    "kep5836.unrelated-events-quiet": FEATURE,
}
FAILED = {
    "kep5836.allocatable-up-wakes", "kep5836.changed-again", "kep5836.deferred-before-start",
    "kep5836.higher-priority-pod-scheduled", "kep5836.neighbour-delete-wakes", "kep5836.neighbour-scale-down-wakes",
    "kep5836.one-victim", "kep5836.own-scale-down-wakes", "kep5836.policy-lifted-wakes",
    "kep5836.room-kept-from-lower-priority", "kep5836.slow-victim-one-preemption", "kep5836.two-victims",
    "kep5836.victim-delete-refused",
}


def test_does_nothing_passes_no_criterion_of_the_kep5836_suite(tmp_path: Path) -> None:
    options = RunOptions(scheduler="reference:does-nothing", suites=("kep5836_resize_preemption",), timeline=False,
                         report_dir=tmp_path / "report")
    result = run_suites(options, progress=None)
    criteria = {str(c["id"]): c for c in result.report["criteria"]}
    assert {cid: c["status"] for cid, c in criteria.items()} == {
        **{cid: "not judged" for cid in NOT_JUDGED}, **{cid: "failed" for cid in FAILED}}
    for cid, message in NOT_JUDGED.items():
        assert str(criteria[cid]["message"]).startswith(message), cid
    assert result.exit_code == 1  # something failed; not judged alone would be 3
