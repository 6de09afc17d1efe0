"""``schedharness compatibility`` (harness._compatibility): the columns it runs, and the table it
writes from the runs' reports. The runs themselves are ``schedharness run``'s (tests/test_run.py);
here the reports are written out in full, as a run writes them."""

from __future__ import annotations

import json
from pathlib import Path

from harness._compatibility import COLUMNS, Column, Matrix, format_summary, format_table, run_matrix


def _report(*criteria: tuple[str, str, str]) -> dict[str, object]:
    records = [{"id": cid, "status": status, "message": message} for cid, status, message in criteria]
    summary = {s: sum(1 for _, status, _ in criteria if status == s) for s in ("passed", "failed", "skipped")}
    return {"criteria": records, "summary": summary}


def test_a_kube_scheduler_column_runs_the_built_binary_with_its_gates(tmp_path: Path) -> None:
    by_key = {c.key: c for c in COLUMNS}
    assert [c.key for c in COLUMNS] == ["reference", "v1.35", "v1.37", "v1.37-kep5836"]
    assert by_key["reference"].scheduler(tmp_path) == "reference"
    assert by_key["v1.37"].scheduler(tmp_path) == f"{tmp_path}/kube-scheduler --config={{config}} --secure-port=0 -v=2"
    assert by_key["v1.37-kep5836"].scheduler(tmp_path) == (
        f"{tmp_path}/kube-scheduler --config={{config}} --secure-port=0 -v=2 --feature-gates={{feature_gates}}")
    # the API server's gates are the same on both backends of a column, never the fake's default
    assert by_key["v1.37-kep5836"].apiserver_gates == "InPlacePodVerticalScalingSchedulerPreemption=true"
    assert by_key["v1.37"].apiserver_gates == ""


def test_the_table_holds_both_verdicts_and_marks_a_difference() -> None:
    column = Column("v1.37", "kube-scheduler v1.37", "1.37", k8s="1.37", note="default gates")
    matrix = Matrix((column,), versions={"v1.37": "v1.37.2"})
    matrix.reports[("v1.37", "fake")] = _report(("core.a", "passed", ""), ("kep.b", "failed", "harness._expectations.ExpectationFailed: expected x\nmore"))
    matrix.reports[("v1.37", "envtest")] = _report(("core.a", "passed", ""), ("kep.b", "skipped", "no field"))
    text = format_table(matrix, suite_version="2026.11", generated="2026-11-26")
    lines = text.splitlines()
    assert lines[0] == "# Compatibility: the criteria against real kube-scheduler releases"
    assert "| kube-scheduler v1.37.2 | 1 pass, 1 fail, 0 skip | 1 pass, 0 fail, 1 skip | 1 of 2 |" in lines
    assert "- **kube-scheduler v1.37.2**: default gates." in lines
    assert "| `core.a` | pass / pass |" in lines
    assert "| `kep.b` | FAIL / skip **differs** |" in lines
    assert "- kube-scheduler v1.37.2, `kep.b`, fake: expected x" in lines


def test_a_column_run_on_one_backend_only_agrees_on_nothing() -> None:
    column = Column("reference", "reference scheduler", "1.37")
    matrix = Matrix((column,))
    matrix.reports[("reference", "fake")] = _report(("core.a", "passed", ""))
    assert format_summary(matrix)[2] == "| reference scheduler | 1 pass, 0 fail, 0 skip | not run | 0 of 0 |"
    assert "| `core.a` | pass / · |" in format_table(matrix, suite_version="v", generated="d").splitlines()


def test_reuse_takes_the_reports_already_there(tmp_path: Path) -> None:
    column = Column("reference", "reference scheduler", "1.37")
    for backend in ("fake", "envtest"):
        (tmp_path / f"reference-{backend}").mkdir()
        (tmp_path / f"reference-{backend}" / "report.json").write_text(json.dumps(_report(("core.a", "passed", ""))))
    lines: list[str] = []
    matrix = run_matrix([column], tmp_path, reuse=True, assets=lambda release: tmp_path, progress=lines.append)
    assert lines == [f"compatibility: reference on fake: the report in {tmp_path / 'reference-fake'}",
                     f"compatibility: reference on envtest: the report in {tmp_path / 'reference-envtest'}"]
    assert matrix.cell("reference", "envtest", "core.a").status == "passed"
