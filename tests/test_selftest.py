"""``schedharness selftest``: the matrix from crafted reports, and the real selftest over the real
suites (the reference passes everything, every mutant fails at least one criterion)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._selftest import build_matrix, render_matrix, run_selftest


def _report(verdict: str, **statuses: str) -> dict[str, Any]:
    return {"verdict": verdict, "criteria": [{"id": cid.replace("_", "."), "status": s} for cid, s in statuses.items()]}


MUTANTS = {"m1": {"description": "breaks a", "violates": "A"}, "m2": {"description": "breaks nothing", "violates": "B"}}


def test_matrix_names_killers_and_survivors() -> None:
    reports = {"reference": _report("passed", c_a="passed", c_b="passed", c_c="skipped"),
               "reference:m1": _report("failed", c_a="failed", c_b="passed", c_c="skipped"),
               "reference:m2": _report("passed", c_a="passed", c_b="passed")}
    selftest = build_matrix(reports, MUTANTS)
    assert selftest["ok"] is False
    assert selftest["survivors"] == ["m2"]
    assert selftest["mutants"]["m1"]["killed_by"] == ["c.a"]
    assert selftest["reference"]["not_passed"] == ["c.c"]
    assert selftest["matrix"] == {"reference": {"c.a": "P", "c.b": "P", "c.c": "S"},
                                  "m1": {"c.a": "F", "c.b": "P", "c.c": "S"},
                                  "m2": {"c.a": "P", "c.b": "P", "c.c": "-"}}
    assert render_matrix(selftest).splitlines() == [
        "            1  2  3",
        "reference   P  P  S",
        "m1          F  P  S",
        "m2          P  P  -",
        "",
        " 1 c.a",
        " 2 c.b",
        " 3 c.c"]


def test_a_criterion_checked_twice_fails_if_either_scenario_fails() -> None:
    reports = {"reference": {"verdict": "passed", "criteria": [{"id": "x", "status": "passed"}] * 2},
               "reference:m1": {"verdict": "failed", "criteria": [{"id": "x", "status": "passed"},
                                                                  {"id": "x", "status": "failed"}]}}
    selftest = build_matrix(reports, {"m1": MUTANTS["m1"]})
    assert selftest["ok"] is True
    assert selftest["matrix"]["m1"] == {"x": "F"}


def test_reference_failure_fails_the_selftest() -> None:
    reports = {"reference": _report("failed", c_a="failed"), "reference:m1": _report("failed", c_a="failed")}
    assert build_matrix(reports, {"m1": MUTANTS["m1"]})["ok"] is False


def test_the_real_selftest_holds(tmp_path: Path) -> None:
    """The proof of the suites: a broken variant that no criterion catches fails this test."""
    from reference_scheduler import MUTANTS as ALL

    lines: list[str] = []
    result = run_selftest(report_dir=tmp_path, jobs=2, progress=lines.append)
    selftest = json.loads((tmp_path / "selftest.json").read_text())
    assert selftest == result.selftest
    assert sorted(selftest["mutants"]) == sorted(m.name for m in ALL)
    assert selftest["reference"]["not_passed"] == []
    assert selftest["survivors"] == [], "\n".join(lines)
    assert result.exit_code == 0
    md = (tmp_path / "selftest.md").read_text()
    for m in ALL:
        assert f"| {m.name} | {m.description} | {', '.join(selftest['mutants'][m.name]['killed_by'])} |" in md
    assert (tmp_path / "reference" / "report.json").exists()
