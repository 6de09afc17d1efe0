"""``schedharness selftest``: the matrix and its four promises from crafted reports, and one real
selftest over one real suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness._selftest import build_matrix, render_matrix, run_selftest


def _report(verdict: str, **statuses: str) -> dict[str, Any]:
    return {"verdict": verdict, "criteria": [{"id": cid.replace("_", "."), "status": s} for cid, s in statuses.items()]}


def _variant(kind: str, description: str, violates: str = "") -> dict[str, str]:
    return {"kind": kind, "description": description, "violates": violates}


VARIANTS = {"s1": _variant("shape", "puts"), "m1": _variant("mutant", "breaks a", "A"),
            "m2": _variant("mutant", "breaks b", "B"), "c1": _variant("control", "does nothing")}
ALL_PASS = {"c_a": "passed", "c_b": "passed", "c_c": "passed"}


def _reports(**rows: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Reports by scheduler; a row not given passes everything."""
    out = {}
    for name in ["reference", *VARIANTS]:
        statuses = rows.get(name, ALL_PASS)
        verdict = "failed" if "failed" in statuses.values() else "passed"
        out["reference" if name == "reference" else f"reference:{name}"] = _report(verdict, **statuses)
    return out


def test_every_promise_kept_is_ok_and_the_rows_are_grouped() -> None:
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, m2={**ALL_PASS, "c_b": "failed"},
                       c1={"c_a": "failed", "c_b": "failed", "c_c": "failed"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is True
    assert (selftest["survivors"], selftest["shape_failures"], selftest["uncaught"]) == ([], {}, [])
    assert selftest["groups"] == [["reference", ["reference"]], ["shape variants", ["s1"]],
                                  ["mutants", ["m1", "m2"]], ["controls", ["c1"]]]
    assert selftest["mutants"]["m1"]["killed_by"] == ["c.a"]
    assert selftest["controls"]["c1"]["killed_by"] == ["c.a", "c.b", "c.c"]
    assert selftest["shapes"]["s1"]["failed"] == [] and "killed_by" not in selftest["shapes"]["s1"]
    assert render_matrix(selftest).splitlines() == [
        "            1  2  3",
        "reference   P  P  P",
        "-- shape variants",
        "s1          P  P  P",
        "-- mutants",
        "m1          F  P  P",
        "m2          P  F  P",
        "-- controls",
        "c1          F  F  F",
        "",
        " 1 c.a",
        " 2 c.b",
        " 3 c.c",
        "",
        "criteria no variant fails: none"]


def test_a_shape_variant_that_fails_a_criterion_fails_the_selftest() -> None:
    reports = _reports(s1={**ALL_PASS, "c_b": "failed"}, m1={**ALL_PASS, "c_a": "failed"},
                       m2={**ALL_PASS, "c_b": "failed"}, c1={**ALL_PASS, "c_c": "failed"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert selftest["shape_failures"] == {"s1": ["c.b"]}
    assert (selftest["survivors"], selftest["uncaught"]) == ([], [])


def test_a_survivor_and_a_criterion_nothing_fails_are_named() -> None:
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, c1={**ALL_PASS, "c_a": "failed", "c_c": "skipped"})
    selftest = build_matrix(reports, VARIANTS)
    assert selftest["ok"] is False
    assert selftest["survivors"] == ["m2"]
    assert selftest["uncaught"] == ["c.b", "c.c"]  # a skip catches nothing; the shape variant's rows count for none
    assert render_matrix(selftest).splitlines()[-1] == "criteria no variant fails: c.b, c.c"
    assert selftest["matrix"]["c1"] == {"c.a": "F", "c.b": "P", "c.c": "S"}


def test_a_control_that_fails_nothing_survives() -> None:
    reports = _reports(m1={**ALL_PASS, "c_a": "failed"}, m2={"c_b": "failed", "c_c": "failed"})
    selftest = build_matrix(reports, VARIANTS)
    assert (selftest["ok"], selftest["survivors"], selftest["uncaught"]) == (False, ["c1"], [])


def test_a_criterion_checked_twice_fails_if_either_scenario_fails() -> None:
    reports = {"reference": {"verdict": "passed", "criteria": [{"id": "x", "status": "passed"}] * 2},
               "reference:m1": {"verdict": "failed", "criteria": [{"id": "x", "status": "passed"},
                                                                  {"id": "x", "status": "failed"}]}}
    selftest = build_matrix(reports, {"m1": VARIANTS["m1"]})
    assert selftest["ok"] is True
    assert selftest["matrix"]["m1"] == {"x": "F"}


def test_reference_failure_fails_the_selftest() -> None:
    reports = {"reference": _report("failed", c_a="failed"), "reference:m1": _report("failed", c_a="failed")}
    selftest = build_matrix(reports, {"m1": VARIANTS["m1"]})
    assert (selftest["ok"], selftest["reference"]["failed"]) == (False, ["c.a"])


def test_a_real_selftest_over_one_suite(tmp_path: Path) -> None:
    """End to end on core_sanity (binding, Unschedulable with the real message, a node added):
    every kind of row, the files, and the run of each variant under its own report directory.
    The verdict itself depends on every suite and is the full selftest's (``schedharness
    selftest``), so only what this run shows for certain is asserted: the control, which binds
    nothing, fails the binding criteria."""
    lines: list[str] = []
    chosen = ["does-nothing", "status-by-put", "no-delay"]
    result = run_selftest(report_dir=tmp_path, jobs=2, suites=["core_sanity"], variants=chosen,
                          progress=lines.append)
    selftest = json.loads((tmp_path / "selftest.json").read_text())
    assert selftest == result.selftest
    assert selftest["groups"] == [["reference", ["reference"]], ["shape variants", ["status-by-put"]],
                                  ["mutants", ["no-delay"]], ["controls", ["does-nothing"]]]
    assert selftest["reference"]["failed"] == []
    assert selftest["controls"]["does-nothing"]["killed_by"] != []
    assert result.exit_code == (0 if selftest["ok"] else 1)
    md = (tmp_path / "selftest.md").read_text()
    assert "| does-nothing | binds only the adapter's probe pod" in md
    assert ("Criteria no variant fails: " + (", ".join(selftest["uncaught"]) or "none") + ".") in md
    for name in ["reference", "reference-does-nothing", "reference-status-by-put", "reference-no-delay"]:
        assert (tmp_path / name / "report.json").exists(), name
    printed = "\n".join(lines)
    assert "-- shape variants\nstatus-by-put " in printed and "-- controls\ndoes-nothing " in printed
    assert lines[-1].startswith("schedharness selftest: PASSED" if selftest["ok"] else "schedharness selftest: FAILED")
