"""``schedharness run`` against a real kube-scheduler: the report is honest.

No Kubernetes release implements KEP-5501, KEP-5836 is alpha in v1.37 (off by default; before
v1.37 absent), and KEP-4671's gangs are beta but off by default (``GenericWorkload``), so a real
kube-scheduler run with its default gates (CI's v1.37, or v1.35, v1.30) must pass the scheduling
gates, core sanity, preemption and the scheduling part of the DRA claim-lag criteria, and may fail
only KEP-5501's, KEP-5836's and the gang criteria, each with a message that says what
was expected and what happened. The negatives judged beside a feature it lacks (a gated pod's
silence beside a reported KEP-5501 rejection, "nothing preempted" beside a resize preemption) are
not judged, never passed, and so is the gated-pod watch that needs 5 minutes of real time. Needs a kube-scheduler binary named by
``SCHEDHARNESS_KUBE_SCHEDULER`` (the first, if several are ``:``-separated; ``.ci/run`` names the
v1.37 one ``schedharness k8s build`` made); skipped otherwise. The scenarios run on real time, in parallel, so the run takes minutes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness._runs.run import RunError, RunOptions, run_suites
from tests.support.paths import ROOT

BINARY = (os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER") or "").split(":")[0]

pytestmark = pytest.mark.skipif(
    not (BINARY and os.access(BINARY, os.X_OK)),
    reason="set SCHEDHARNESS_KUBE_SCHEDULER to a kube-scheduler binary to run the suites against it",
)

# Criteria that need neither KEP: a real kube-scheduler must meet them.
SCHEDULING = ("core.", "gates.", "preemption.")
# KEP-5501 is in no release, KEP-5836 and KEP-4671's gangs (GenericWorkload) are off by default in v1.37.
UNIMPLEMENTED = ("kep5501.", "kep5836.", "gang.")
SCHEDULING_PART_OF_DRA = {
    "kep5501.dra-claim-lag.claim-before-pod",
    "kep5501.dra-claim-lag.claim-within-delay",
    "kep5501.dra-claim-lag.watch-lag-within-delay",
}
# A gate criterion judged beside a KEP-5501 control (a pod whose claim is missing must be reported): a
# scheduler without KEP-5501 leaves it not judged, never passed.
GATED_BESIDE_KEP5501 = {"gates.kep5501.no-redundant-patch"}
# Need their whole 5-minute watch, which the default --real-time-wait (30 s) does not give: not judged.
WHOLE_WATCH = {"gates.gated-pod-untouched.kep5501-off", "gates.gated-pod-untouched.kep5501-on"}
# KEP-5836 negatives judged beside a resize that must preempt, which v1.37's default gates never do.
KEP5836_BESIDE_A_PREEMPTION = {"kep5836.already-fits", "kep5836.own-node-only", "kep5836.policy-never",
                               "kep5836.unrelated-events-quiet"}


def test_a_real_kube_scheduler_gets_an_honest_report(tmp_path: Path) -> None:
    # No {feature_gates}: a real kube-scheduler refuses the KEP-5501 gates it does not know.
    command = f"cmd:{BINARY} --config={{config}} --secure-port=0 -v=2"
    result = run_suites(RunOptions(scheduler=command, report_dir=tmp_path / "report", timeline=False, jobs=16),
                        progress=lambda line: None)
    records = {r["id"]: r for r in result.report["criteria"]}
    must_pass = [cid for cid in records if (cid.startswith(SCHEDULING) or cid in SCHEDULING_PART_OF_DRA)
                 and cid not in GATED_BESIDE_KEP5501 | WHOLE_WATCH]
    assert len(must_pass) >= 17  # core 3, gates 3, preemption 8, the scheduling part of DRA 3
    not_met = {cid: records[cid]["message"] for cid in must_pass if records[cid]["status"] != "passed"}
    assert not_met == {}, f"a real kube-scheduler must meet these criteria: {not_met}"
    not_judged = {cid: r["message"] for cid, r in records.items() if r["status"] == "not judged"}
    assert set(not_judged) >= GATED_BESIDE_KEP5501 | WHOLE_WATCH | KEP5836_BESIDE_A_PREEMPTION, not_judged
    for cid in WHOLE_WATCH:
        assert not_judged[cid].startswith("needs a 300 s watch on real time"), not_judged[cid]
    for cid in GATED_BESIDE_KEP5501 | KEP5836_BESIDE_A_PREEMPTION:
        assert not_judged[cid].startswith("the control this criterion is judged beside never happened: "), (
            not_judged[cid])
    assert all(cid.startswith(UNIMPLEMENTED) or cid in GATED_BESIDE_KEP5501 | WHOLE_WATCH for cid in not_judged), (
        not_judged)
    failed = {cid: r for cid, r in records.items() if r["status"] == "failed"}
    assert failed, "a real kube-scheduler cannot meet KEP-5501's criteria; the report says it does"
    for cid, record in failed.items():
        assert cid.startswith(UNIMPLEMENTED), f"{cid} failed: {record['message']}"
        assert "expected" in record["message"], f"{cid}: the failure must say what was expected: {record['message']}"
    assert result.exit_code == 1


# The gang criteria that need KEP-5501 too, whose gate no release registers (kube-scheduler refuses it).
GANG_WITH_KEP5501 = {"gang.kep5501.missing-pod-group-reported", "gang.kep5501.quorum-wait-reported"}
# Needs its whole 310 s watch, which the default --real-time-wait (30 s) does not give: not judged.
GANG_WHOLE_WATCH = {"gang.no-room-held-after-the-timeout"}


def test_a_real_kube_scheduler_with_generic_workload_meets_the_gang_suite(tmp_path: Path) -> None:
    """With each scenario's gates (``GenericWorkload`` on; the fake serves ``scheduling.k8s.io/v1beta1``
    by each scenario's ``runtime_config`` marker) kube-scheduler v1.37 meets every gang criterion but
    the two that also need KEP-5501 (docs/kep4671-v1.37.md)."""
    command = f"cmd:{BINARY} --config={{config}} --secure-port=0 -v=2 --feature-gates={{feature_gates}}"
    result = run_suites(RunOptions(scheduler=command, suites=("workload_gang",), report_dir=tmp_path / "report",
                                   timeline=False, jobs=12), progress=lambda line: None)
    verdicts = {r["id"]: r["status"] for r in result.report["criteria"]}
    assert len(verdicts) >= 13
    expected = {cid: "failed" if cid in GANG_WITH_KEP5501 else "not judged" if cid in GANG_WHOLE_WATCH else "passed"
                for cid in verdicts}
    messages = {r["id"]: (r["message"] or "")[:400] for r in result.report["criteria"]}
    assert {cid: (v, messages[cid]) for cid, v in verdicts.items() if v != expected[cid]} == {}


EXAMPLES = ROOT / "docs" / "examples"


def test_a_scheduler_config_reaches_the_real_kube_scheduler(tmp_path: Path) -> None:
    """``--scheduler-config`` joins a profile to the configuration kube-scheduler is started with:
    one that enables a plugin kube-scheduler does not have stops the run before the first scenario
    (kube-scheduler refuses it), and a valid one runs the scenarios."""
    command = f"cmd:{BINARY} --config={{config}} --secure-port=0"
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("profiles:\n- schedulerName: default-scheduler\n  plugins:\n    filter:\n"
                       "      enabled: [{name: NoSuchPlugin}]\n")
    with pytest.raises(RunError) as refused:
        run_suites(RunOptions(scheduler=command, report_dir=tmp_path / "refused", timeline=False,
                              paths=(EXAMPLES / "gated-pods.yaml",), scheduler_config=unknown), progress=lambda line: None)
    assert "NoSuchPlugin" in (tmp_path / "refused" / "preflight" / "scheduler.log").read_text(), str(refused.value)
    valid = tmp_path / "valid.yaml"
    valid.write_text("profiles:\n- schedulerName: default-scheduler\n  percentageOfNodesToScore: 100\n")
    result = run_suites(RunOptions(scheduler=command, report_dir=tmp_path / "valid", timeline=False,
                                   paths=(EXAMPLES / "gated-pods.yaml",), scheduler_config=valid), progress=lambda line: None)
    assert result.exit_code == 0
    written = (tmp_path / "valid" / "preflight" / "scheduler-config.yaml").read_text()
    assert "percentageOfNodesToScore: 100" in written
