"""``schedharness selftest``: the matrix and its five promises from crafted reports (a criterion
only a control fails is not proven; a control passes nothing), the rows and the process command,
one real selftest over one real suite with a control as a process, and each mutant made for a
criterion failing it in a real run."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from harness._schedulers.adapters import PLACEHOLDERS
from harness._runs.run import RunOptions, run_suites
from harness._runs.selftest import (
    Row,
    build_matrix,
    process_scheduler,
    render_markdown,
    render_matrix,
    render_summary,
    rows_for,
    run_selftest,
)
from reference_scheduler._cli import build_parser


def _report(verdict: str, exit_code: int, suites: dict[str, str] | None = None, **statuses: str) -> dict[str, Any]:
    return {"verdict": verdict, "exit_code": exit_code,
            "suite_results": {name: {"verdict": v} for name, v in (suites or {}).items()},
            "criteria": [{"id": cid.replace("_", "."), "status": s} for cid, s in statuses.items()]}


def _variant(kind: str, description: str, violates: str = "") -> dict[str, str]:
    return {"kind": kind, "description": description, "violates": violates}


VARIANTS = {"s1": _variant("shape", "puts"), "m1": _variant("mutant", "breaks a", "A"),
            "m2": _variant("mutant", "breaks b", "B"), "c1": _variant("control", "does nothing"),
            "c1 (process)": _variant("process", "does nothing; as a process")}
ALL_PASS = {"c_a": "passed", "c_b": "passed", "c_c": "passed"}
#: what a control must do: fail or leave not judged everything (c.a failed, the rest not judged)
NOTHING = {"c_a": "failed", "c_b": "not judged", "c_c": "not judged"}


def _reports(**rows: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Reports by row name (``c1_process`` for ``c1 (process)``); a row not given passes everything,
    but a control's, which does what a control must. The exit code and the one suite's verdict are
    what ``schedharness run`` gives for such statuses: 1 failed, 3 not judged, 0 passed."""
    out = {}
    for name in ["reference", *VARIANTS]:
        given = rows.get(name.replace(" (process)", "_process"))
        statuses = given if given is not None else NOTHING if VARIANTS.get(name, {}).get("kind") in (
            "control", "process") else ALL_PASS
        verdict = next((v for v in ("failed", "not judged", "passed") if v in statuses.values()), "skipped")
        code = {"failed": 1, "not judged": 3, "passed": 0, "skipped": 3}[verdict]
        out[name] = _report(verdict, code, {"c": verdict}, **statuses)
    return out


def test_every_promise_kept_is_ok_and_the_rows_are_grouped() -> None:
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, m2={**ALL_PASS, "c_b": "failed", "c_c": "failed"},
                       c1={"c_a": "failed", "c_b": "failed", "c_c": "not judged"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is True
    assert (selftest["survivors"], selftest["shape_failures"], selftest["shape_not_judged"], selftest["uncaught"],
            selftest["only_controls"], selftest["control_breaches"]) == ([], {}, {}, [], [], {})
    assert selftest["groups"] == [["reference", ["reference"]], ["shape variants", ["s1"]],
                                  ["mutants", ["m1", "m2"]], ["controls", ["c1"]],
                                  ["controls as processes", ["c1 (process)"]]]
    assert selftest["mutants"]["m1"]["killed_by"] == ["c.a"]
    assert selftest["controls"]["c1"] == {
        "failed": ["c.a", "c.b"], "not_judged": ["c.c"], "passed": [], "exit_code": 1, "breaches": [],
        "description": "does nothing", "violates": "", "report": None,
        "expected": "fail every suite with a non-zero exit and pass no criterion"}
    assert selftest["processes"]["c1 (process)"]["not_judged"] == ["c.b", "c.c"]
    assert selftest["shapes"]["s1"]["failed"] == [] and "killed_by" not in selftest["shapes"]["s1"]
    # the process row is held to the controls' promise, not counted in caught_by
    assert selftest["caught_by"] == {"c.a": {"mutants": ["m1"], "controls": ["c1"]},
                                     "c.b": {"mutants": ["m2"], "controls": ["c1"]},
                                     "c.c": {"mutants": ["m2"], "controls": []}}
    assert render_matrix(selftest).splitlines() == [
        "               1  2  3",
        "reference      P  P  P",
        "-- shape variants",
        "s1             P  P  P",
        "-- mutants",
        "m1             F  P  P",
        "m2             P  F  F",
        "-- controls",
        "c1             F  F  N",
        "-- controls as processes",
        "c1 (process)   F  N  N",
        "",
        " 1 c.a",
        " 2 c.b",
        " 3 c.c",
        "",
        "criteria only a control fails (no mutant: not proven): none",
        "criteria no variant fails: none"]
    assert render_summary(selftest)[-2:] == ["c1: passes nothing: 2 failed, 1 not judged, exit code 1",
                                             "c1 (process): passes nothing: 1 failed, 2 not judged, exit code 1"]
    md = render_markdown(selftest)
    assert ("## Controls as processes: must fail every suite with a non-zero exit and pass no criterion\n\n"
            "| Control | What it is | What it did |\n|---|---|---|\n"
            "| c1 (process) | does nothing; as a process | passes nothing: 1 failed, 2 not judged, exit code 1 |\n") in md
    assert "## Matrix (P passed, F failed, N not judged, S skipped, - not run)" in md


def test_a_control_that_passes_a_criterion_breaks_its_promise_and_is_named_with_it() -> None:
    """Issue 40: a control must pass no criterion, in process or as a process; the selftest fails
    naming the control and what it passed."""
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, m2={**ALL_PASS, "c_b": "failed", "c_c": "failed"},
                       c1_process={"c_a": "failed", "c_b": "passed", "c_c": "passed"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert selftest["control_breaches"] == {"c1 (process)": ["passed c.b, c.c"]}
    assert selftest["processes"]["c1 (process)"]["passed"] == ["c.b", "c.c"]
    assert render_summary(selftest)[-1] == "c1 (process): BREAKS THE CONTROLS' PROMISE: passed c.b, c.c"
    assert "| c1 (process) | does nothing; as a process | **passed c.b, c.c** |" in render_markdown(selftest)


def test_a_control_whose_run_exits_0_or_leaves_a_suite_unfailed_breaks_its_promise() -> None:
    """Passing nothing is not enough: the run must exit non-zero and every suite must be failed or
    not judged (a suite all of whose criteria were skipped is not failed)."""
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, m2={**ALL_PASS, "c_b": "failed", "c_c": "failed"})
    reports["c1"] = _report("passed", 0, {"c": "failed", "d": "skipped"}, **NOTHING)
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert selftest["control_breaches"] == {"c1": ["exit code 0", "suite d skipped"]}


def test_a_criterion_only_a_control_fails_is_not_proven() -> None:
    """A control fails whatever needs a scheduler at all: a criterion no mutant fails is named, marked
    in the matrix's key, listed in selftest.md, and fails the selftest. A mutant that leaves a
    criterion not judged has not caught it."""
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, m2={**ALL_PASS, "c_a": "failed", "c_c": "not judged"},
                       c1={"c_a": "failed", "c_b": "failed", "c_c": "not judged"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert (selftest["survivors"], selftest["only_controls"], selftest["uncaught"]) == ([], ["c.b"], ["c.c"])
    assert selftest["caught_by"]["c.b"] == {"mutants": [], "controls": ["c1"]}
    assert render_matrix(selftest).splitlines()[-6:] == [
        " 1 c.a",
        " 2 c.b  (only a control fails it)",
        " 3 c.c  (nothing fails it)",
        "",
        "criteria only a control fails (no mutant: not proven): c.b",
        "criteria no variant fails: c.c"]
    md = render_markdown(selftest)
    assert "Criteria only a control fails (no mutant: not proven): c.b.\nCriteria no variant fails: c.c.\n" in md
    assert "| c.a | m1, m2 | c1 |\n| c.b | **none: not proven** | c1 |\n| c.c | **none: not proven** | none |\n" in md
    assert render_summary(selftest)[-2:] == ["c.b: NOT PROVEN, failed only by c1", "c.c: NOT PROVEN, failed by nothing"]


def test_a_shape_variant_that_fails_or_leaves_a_criterion_not_judged_fails_the_selftest() -> None:
    reports = _reports(s1={**ALL_PASS, "c_b": "failed", "c_c": "not judged"}, m1={**ALL_PASS, "c_a": "failed"},
                       m2={**ALL_PASS, "c_b": "failed", "c_c": "failed"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert (selftest["shape_failures"], selftest["shape_not_judged"]) == ({"s1": ["c.b"]}, {"s1": ["c.c"]})
    assert (selftest["survivors"], selftest["uncaught"]) == ([], [])
    assert "s1: FAILS c.b; NOT JUDGED c.c" in render_summary(selftest)
    assert "| s1 | puts | c.b | c.c |" in render_markdown(selftest)


def test_a_survivor_and_a_criterion_nothing_fails_are_named() -> None:
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, c1={"c_a": "failed", "c_b": "not judged", "c_c": "skipped"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert selftest["survivors"] == ["m2"]
    assert selftest["uncaught"] == ["c.b", "c.c"]  # a skip or a not judged catches nothing; shapes count for none
    assert render_matrix(selftest).splitlines()[-2:] == [
        "criteria only a control fails (no mutant: not proven): none", "criteria no variant fails: c.b, c.c"]
    assert selftest["matrix"]["c1"] == {"c.a": "F", "c.b": "N", "c.c": "S"}
    assert "m2: SURVIVES" in render_summary(selftest)


def test_a_criterion_checked_twice_fails_if_either_scenario_fails() -> None:
    reports = {"reference": {"verdict": "passed", "criteria": [{"id": "x", "status": "passed"}] * 2},
               "m1": {"verdict": "failed", "criteria": [{"id": "x", "status": "passed"},
                                                        {"id": "x", "status": "failed"}]}}
    selftest = build_matrix(reports, {"m1": VARIANTS["m1"]})
    assert selftest["ok"] is True
    assert selftest["matrix"]["m1"] == {"x": "F"}


@pytest.mark.parametrize("status", ["failed", "not judged"])
def test_reference_failure_or_not_judged_fails_the_selftest(status: str) -> None:
    reports = {"reference": _report("failed" if status == "failed" else "not judged", 1, c_a=status),
               "m1": _report("failed", 1, c_a="failed")}
    selftest = build_matrix(reports, {"m1": VARIANTS["m1"]})
    assert selftest["ok"] is False
    assert (selftest["reference"]["failed"], selftest["reference"]["not_judged"]) == (
        (["c.a"], []) if status == "failed" else ([], ["c.a"]))
    assert render_summary(selftest)[0] == ("reference: FAILS c.a" if status == "failed" else "reference: NOT JUDGED c.a")


def test_the_rows_are_the_reference_the_variants_and_each_control_as_a_process() -> None:
    rows = rows_for(["no-delay", "does-nothing", "status-by-put", "never-watches"])
    assert [(r.name, r.kind, r.directory) for r in rows] == [
        ("reference", "reference", "reference"), ("status-by-put", "shape", "reference-status-by-put"),
        ("no-delay", "mutant", "reference-no-delay"), ("does-nothing", "control", "reference-does-nothing"),
        ("never-watches", "control", "reference-never-watches"),
        ("does-nothing (process)", "process", "process-does-nothing"),
        ("never-watches (process)", "process", "process-never-watches")]
    assert [r.scheduler for r in rows[:5]] == ["reference", "reference:status-by-put", "reference:no-delay",
                                               "reference:does-nothing", "reference:never-watches"]
    assert rows[5] == Row("does-nothing (process)", "process", process_scheduler("does-nothing"),
                          "process-does-nothing", rows[3].description + "; as a process (python -m "
                          "reference_scheduler), on real time")
    assert [r.name for r in rows_for(["does-nothing"], processes=False)] == ["reference", "does-nothing"]
    every = rows_for()
    assert [r.name for r in every if r.kind == "process"] == ["does-nothing (process)", "never-watches (process)"]


def test_a_control_as_a_process_is_the_reference_schedulers_own_command() -> None:
    """The command names only the process adapter's placeholders, and the reference scheduler's
    command line takes it once they are filled in."""
    scheduler = process_scheduler("never-watches", "/opt/py thon/bin/python3")
    assert scheduler == ("cmd:'/opt/py thon/bin/python3' -m reference_scheduler scheduler --kubeconfig {kubeconfig} "
                         "--feature-gates {feature_gates} --mutant never-watches")
    argv = shlex.split(scheduler.removeprefix("cmd:"))
    assert {a for a in argv if a.startswith("{")} <= set(PLACEHOLDERS)
    filled = [{"{kubeconfig}": "/k", "{feature_gates}": "SchedulerAsyncAPICalls=true"}.get(a, a) for a in argv]
    assert filled[:3] == ["/opt/py thon/bin/python3", "-m", "reference_scheduler"]
    args = build_parser().parse_args(filled[3:])
    assert (args.command, args.kubeconfig, args.feature_gates, args.mutant) == (
        "scheduler", "/k", "SchedulerAsyncAPICalls=true", "never-watches")


def test_a_real_selftest_over_one_suite(tmp_path: Path) -> None:
    """End to end on core_sanity (binding, Unschedulable with the real message, a node added):
    every kind of row, both controls as processes among them (run at the same time, each starting
    a fake API server for its preflight), the files, and the run of each under its own report
    directory. The verdict itself depends on every suite and is the full selftest's
    (``schedharness selftest``), so only what this run shows for certain is asserted: the
    controls, in process and as processes, pass none of these criteria, which all need a
    scheduler that binds."""
    lines: list[str] = []
    chosen = ["does-nothing", "never-watches", "status-by-put", "no-delay"]
    result = run_selftest(report_dir=tmp_path, jobs=2, suites=["core_sanity"], variants=chosen,
                          progress=lines.append)
    selftest = json.loads((tmp_path / "selftest.json").read_text())
    assert selftest == result.selftest
    assert selftest["groups"] == [["reference", ["reference"]], ["shape variants", ["status-by-put"]],
                                  ["mutants", ["no-delay"]], ["controls", ["does-nothing", "never-watches"]],
                                  ["controls as processes", ["does-nothing (process)", "never-watches (process)"]]]
    assert selftest["reference"]["failed"] == selftest["reference"]["not_judged"] == []
    controls = [*selftest["controls"].values(), *selftest["processes"].values()]
    assert len(controls) == 4
    for row in controls:
        assert (row["passed"], row["breaches"]) == ([], [])
        assert row["exit_code"] in (1, 3) and row["failed"] + row["not_judged"]
    assert result.exit_code == (0 if selftest["ok"] else 1)
    md = (tmp_path / "selftest.md").read_text()
    assert "| does-nothing | binds only the adapter's probe pod" in md
    assert ("Criteria no variant fails: " + (", ".join(selftest["uncaught"]) or "none") + ".") in md
    for name in ["reference", "reference-does-nothing", "reference-never-watches", "reference-status-by-put",
                 "reference-no-delay", "process-does-nothing", "process-never-watches"]:
        assert (tmp_path / name / "report.json").exists(), name
    process_report = json.loads((tmp_path / "process-does-nothing" / "report.json").read_text())
    assert process_report["scheduler"] == process_scheduler("does-nothing")
    printed = "\n".join(lines)
    assert "-- shape variants\nstatus-by-put " in printed and "-- controls\ndoes-nothing " in printed
    assert "-- controls as processes\ndoes-nothing (process) " in printed
    assert lines[-1].startswith("schedharness selftest: PASSED" if selftest["ok"] else "schedharness selftest: FAILED")


#: The mutants made for the criteria only the does-nothing control failed before them (issue 26):
#: mutant -> (suite, the criteria's test functions as a ``-k`` expression, the criteria it must fail).
MADE_FOR: dict[str, tuple[str, str, list[str]]] = {
    "no-scheduled-event": ("core_sanity", "test_pod_is_bound_to_a_fitting_node", ["core.binds-fitting-node"]),
    "ignores-node-add": ("core_sanity", "test_unschedulable_pod_is_bound_after_a_node_is_added", ["core.node-added"]),
    "fit-error-without-counts": ("core_sanity", "test_pod_that_fits_nowhere_is_unschedulable_with_the_real_message",
                                 ["core.unschedulable-message"]),
    "any-gate-removal-ungates": ("scheduling_gates", "test_pod_is_bound_only_after_its_last_gate_is_removed",
                                 ["gates.removal-order.first-then-second", "gates.removal-order.second-then-first"]),
    "prebind-waits-for-driver": ("dra_claim_lag", "test_a_pod_whose_claim_exists_is_bound_without_a_status_patch",
                                 ["kep5501.dra-claim-lag.claim-before-pod"]),
    "checks-gates-at-permit": ("preemption", "test_a_gated_pod_never_preempts", ["preemption.gated-pod-never-preempts"]),
    "prefers-higher-priority-victim": ("preemption", "test_the_lowest_priority_victim_on_the_best_node_is_preempted",
                                       ["preemption.lowest-victim-best-node"]),
    "binds-without-allocating": ("dra_allocation", "test_a_claim_is_allocated_from_published_devices_before_the_binding",
                                 ["dra.allocated-before-binding"]),
}


def _verdicts(tmp_path: Path, scheduler: str, suite: str, tests: str) -> dict[str, str]:
    result = run_suites(RunOptions(scheduler=scheduler, suites=(suite,), pytest_args=("-k", tests),
                                   report_dir=tmp_path / scheduler.replace(":", "-"), timeline=False), progress=None)
    return {str(c["id"]): str(c["status"]) for c in result.report["criteria"]}


@pytest.mark.parametrize("mutant", sorted(MADE_FOR))
def test_a_mutant_fails_the_criteria_it_was_made_for(mutant: str, tmp_path: Path) -> None:
    """The criterion passes against the reference and fails against the mutant, in a real run of
    its suite (``schedharness run --mutant NAME``, its test selected)."""
    suite, tests, criteria = MADE_FOR[mutant]
    assert _verdicts(tmp_path, "reference", suite, tests) == {cid: "passed" for cid in criteria}
    assert _verdicts(tmp_path, f"reference:{mutant}", suite, tests) == {cid: "failed" for cid in criteria}


#: The suites of KEP-5501's criteria: each makes claims and, through ``dra_cluster``, ResourceSlices.
KEP5501_SUITES = ("dra_claim_lag", "foreign_conditions", "kep5501_core", "message_flip", "patch_failure")


def test_a_scheduler_that_never_allocates_fails_the_allocation_criterion_not_the_kep5501_ones(tmp_path: Path) -> None:
    """Issue 26 §0: a KEP-5501 scheduler that gates pods on their claims but never reads
    ResourceSlices (``binds-without-allocating``) fails ``dra.allocated-before-binding``, its
    message saying it never asked for ResourceSlices, and no KEP-5501 criterion: those it cannot
    be judged by (they hold the write recording a claim's allocation, READINGS["prebind-order"])
    are not judged saying so (never skipped: it is the scheduler's doing), the others pass. The
    reference passes all of them."""
    suites = ("dra_allocation", *KEP5501_SUITES)
    options = RunOptions(scheduler="reference:binds-without-allocating", suites=suites,
                         report_dir=tmp_path / "mutant", timeline=False)
    criteria = run_suites(options, progress=None).report["criteria"]
    failed = {str(c["id"]): str(c["message"]) for c in criteria if c["status"] == "failed"}
    assert list(failed) == ["dra.allocated-before-binding"]
    assert ("the scheduler never asked for ResourceSlices (no LIST or WATCH of resourceslices.resource.k8s.io in "
            "the journal), so it cannot have allocated from the devices they publish") in failed["dra.allocated-before-binding"]
    not_judged = [str(c["message"]) for c in criteria if c["status"] == "not judged"]
    assert not_judged and all(m.startswith(
        "expected the scheduler to record the allocation of default/p's claim before binding it, through a write the "
        "scenario holds (READINGS['prebind-order']); no such write came: ") for m in not_judged), not_judged
    assert [c["id"] for c in criteria if c["status"] == "skipped"] == []
    assert sum(c["status"] == "passed" for c in criteria) == len(criteria) - 1 - len(not_judged)
    reference = run_suites(RunOptions(suites=suites, report_dir=tmp_path / "reference", timeline=False), progress=None)
    assert {c["status"] for c in reference.report["criteria"]} == {"passed"}
