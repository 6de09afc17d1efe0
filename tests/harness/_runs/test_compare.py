"""``schedharness compare``: two reports' verdicts lined up by criterion, the differences and the
exit code. The reports are written here by hand (the fields ``report.json`` carries)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._runs.compare import CompareError, compare_reports, format_comparison, load_report
from harness.cli import main


def _report(directory: Path, backend: str, criteria: list[dict[str, Any]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "report.json").write_text(json.dumps({"backend": backend, "criteria": criteria}))
    return directory


def _c(cid: str, status: str, message: str | None = None) -> dict[str, Any]:
    return {"id": cid, "status": status, "message": message, "test": f"suites/test_x.py::{cid}"}


def test_same_verdicts_exit_0_and_print_a_line_per_criterion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = _report(tmp_path / "fake", "fake", [_c("core.b", "passed"), _c("core.a", "skipped")])
    envtest = _report(tmp_path / "envtest", "envtest", [_c("core.a", "skipped"), _c("core.b", "passed")])
    assert main(["compare", str(fake), str(envtest / "report.json")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "criterion  fake     envtest",
        "core.a     skipped  skipped",
        "core.b     passed   passed",
        "2 criteria in both: 2 same verdict, 0 different",
    ]


def test_a_different_verdict_exits_1_and_shows_both_messages(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    fake = _report(tmp_path / "fake", "fake", [_c("core.a", "passed"), _c("gates.x", "passed"), _c("only.fake", "passed")])
    envtest = _report(tmp_path / "envtest", "envtest", [
        _c("core.a", "passed"), _c("gates.x", "failed", "expected p bound within 5 s\nmore lines")])
    assert main(["compare", str(fake), str(envtest)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "criterion  fake     envtest",
        "core.a     passed   passed",
        "gates.x    passed   failed   DIFFERENT",
        "only.fake  passed   -",
        "gates.x: fake passed; envtest failed: expected p bound within 5 s",
        "2 criteria in both: 1 same verdict, 1 different; 1 in one report only",
    ]


def test_two_reports_of_one_backend_are_told_apart() -> None:
    comparison = compare_reports({"backend": "fake", "criteria": []}, {"backend": "fake", "criteria": []})
    assert (comparison.left_label, comparison.right_label) == ("fake (1)", "fake (2)")
    assert format_comparison(comparison)[-1] == "0 criteria in both: 0 same verdict, 0 different"


def test_an_unreadable_report_is_exit_2_with_the_file_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(CompareError, match=rf"^{tmp_path}/bad.json: not a schedharness report \(no criteria list\)$"):
        load_report(tmp_path / "bad.json")
    assert main(["compare", str(tmp_path / "missing"), str(tmp_path / "bad.json")]) == 2
    assert capsys.readouterr().err == (f"schedharness compare: {tmp_path}/missing: cannot be read: "
                                       "No such file or directory\n")


def test_the_servers_releases_are_shown_and_a_difference_noted(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    criteria = [_c("kep5836.disable", "passed")]
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "report.json").write_text(json.dumps({"backend": "fake", "server_version": "v1.37.0-schedharness",
                                                  "criteria": criteria}))
    envtest = tmp_path / "envtest"
    envtest.mkdir()
    (envtest / "report.json").write_text(json.dumps({"backend": "envtest", "server_version": "v1.36.0",
                                                     "criteria": [_c("kep5836.disable", "skipped", "no field")]}))
    assert main(["compare", str(fake), str(envtest)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "API servers: fake v1.37.0-schedharness; envtest v1.36.0",
        "note: the two API servers serve different Kubernetes releases (1.37 and 1.36): a criterion that needs a "
        "field one of them lacks is judged on one side only; run the fake with --kubernetes-version 1.36 to "
        "compare like with like",
    ]
    (fake / "report.json").write_text(json.dumps({"backend": "fake", "server_version": "v1.36.0-schedharness",
                                                  "criteria": [_c("kep5836.disable", "skipped", "no field")]}))
    assert main(["compare", str(fake), str(envtest)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "API servers: fake v1.36.0-schedharness; envtest v1.36.0", "criterion        fake     envtest"]


def test_not_judged_is_a_verdict_of_its_own_and_its_column_fits_it(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A criterion not judged on one backend and passed on the other is a difference, with the
    not-judged message; the column is as wide as "not judged"."""
    fake = _report(tmp_path / "fake", "fake", [
        _c("core.a", "passed"), _c("gates.x", "not judged", "set-up: the scheduler must list and watch nodes: x\ny")])
    envtest = _report(tmp_path / "envtest", "envtest", [_c("core.a", "passed"), _c("gates.x", "passed")])
    assert main(["compare", str(fake), str(envtest)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "criterion  fake        envtest",
        "core.a     passed      passed",
        "gates.x    not judged  passed   DIFFERENT",
        "gates.x: fake not judged: set-up: the scheduler must list and watch nodes: x; envtest passed",
        "2 criteria in both: 1 same verdict, 1 different",
    ]
    both = _report(tmp_path / "again", "envtest", [
        _c("core.a", "passed"), _c("gates.x", "not judged", "another message")])
    assert main(["compare", str(fake), str(both)]) == 0  # the same verdict, whatever the messages
