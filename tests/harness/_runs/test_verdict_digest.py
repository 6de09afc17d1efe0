"""A verdict digest (harness._runs.verdict_digest): one verdict per criterion from a report's scenarios,
the file's exact text, and a reader that refuses what it cannot trust, naming the file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness._runs.verdict_digest import Digest, DigestError, Verdict, first_line, read_digests, verdicts_of, write_digest


def _digest(**verdicts: Verdict) -> Digest:
    return Digest(column="v1.37", title="kube-scheduler v1.37.2", note="default gates", backend="fake",
                  date="2026-11-27", suite_version="2026.11.3", harness="0.1.0",
                  scheduler={"name": "kube-scheduler", "version": "v1.37.2", "feature_gates": {}},
                  apiserver={"release": "1.37", "version": "v1.37.0-schedharness", "feature_gates": {}},
                  verdicts=verdicts, real_time_wait=30.0)


def test_one_verdict_per_criterion_from_its_scenarios() -> None:
    criteria = [
        {"id": "a", "status": "passed", "message": None, "reason": None,
         "waits": "real-time watches cut by --real-time-wait: 60 s as 30 s"},
        {"id": "a", "status": "skipped", "message": None, "reason": "needs feature gate X=false"},
        {"id": "b", "status": "passed", "message": None, "reason": None},
        {"id": "b", "status": "failed", "message": "harness._scenario.expectations.ExpectationFailed: expected x\nseen y"},
        {"id": "b", "status": "not judged", "message": "the scheduler never bound p0"},
        {"id": "c", "status": "not judged", "message": "the scheduler never watched pods\nseen: no watch"},
        {"id": "d", "status": "skipped", "message": None, "reason": "this API server does not store Node spec.x"},
        {"id": None, "status": "failed", "message": "a record without a criterion is no verdict"},
    ]
    assert verdicts_of(criteria) == {
        "a": Verdict("passed", waits="real-time watches cut by --real-time-wait: 60 s as 30 s"),
        "b": Verdict("failed", "expected x"),
        "c": Verdict("not judged", "the scheduler never watched pods"),
        "d": Verdict("skipped", "this API server does not store Node spec.x"),
    }


@pytest.mark.parametrize(("message", "line"), [
    ("AssertionError: expected 1 write\nseen 2", "expected 1 write"),
    ("harness._scenario.expectations.ExpectationFailed: expected within 5 s", "expected within 5 s"),
    ("\n  error outside the test body: boom\n", "error outside the test body: boom"),
    ("Failed: on the first line: kept", "on the first line: kept"),
    (None, ""),
])
def test_first_line_drops_the_harness_exception_class(message: str | None, line: str) -> None:
    assert first_line(message) == line


def test_the_file_has_one_line_per_criterion_and_counts_them() -> None:
    digest = _digest(b=Verdict("failed", "expected x"), a=Verdict("passed", waits="60 s as 30 s"),
                     c=Verdict("not judged", "never bound"))
    assert digest.to_json() == """{
  "format": 1,
  "column": {
    "key": "v1.37",
    "title": "kube-scheduler v1.37.2",
    "note": "default gates"
  },
  "backend": "fake",
  "date": "2026-11-27",
  "suite_version": "2026.11.3",
  "harness": "0.1.0",
  "real_time_wait": 30.0,
  "scheduler": {
    "name": "kube-scheduler",
    "version": "v1.37.2",
    "feature_gates": {}
  },
  "apiserver": {
    "release": "1.37",
    "version": "v1.37.0-schedharness",
    "feature_gates": {}
  },
  "summary": {"passed": 1, "failed": 1, "not judged": 1, "skipped": 0},
  "criteria": {
    "a": {"status": "passed", "waits": "60 s as 30 s"},
    "b": {"status": "failed", "message": "expected x"},
    "c": {"status": "not judged", "message": "never bound"}
  }
}
"""
    assert Digest.from_json(digest.to_json()) == digest
    assert json.loads(_digest().to_json())["criteria"] == {}


def test_written_and_read_back_by_column_and_backend(tmp_path: Path) -> None:
    digest = _digest(a=Verdict("skipped", "needs X"))
    assert write_digest(tmp_path / "d", digest) == tmp_path / "d" / "v1.37-fake.json"
    assert read_digests(tmp_path / "d") == [digest]
    assert read_digests(tmp_path) == []


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: "[", "not JSON: Expecting value: line 1 column 2 (char 1)"),
    (lambda d: "[]", "not a JSON object"),
    (lambda d: json.dumps({k: v for k, v in d.items() if k not in ("date", "real_time_wait")}),
     "no date, real_time_wait"),
    (lambda d: json.dumps({**d, "format": 2}), "format 2; this harness reads format 1"),
    (lambda d: json.dumps({**d, "criteria": {"a": {"status": "xfailed"}}}),
     "criterion a: status 'xfailed', not one of passed, failed, not judged, skipped"),
    (lambda d: json.dumps({**d, "criteria": {"a": {"status": "failed", "message": "x"}}}),
     'summary {"passed": 1, "failed": 0, "not judged": 0, "skipped": 0} but the criteria count '
     '{"passed": 0, "failed": 1, "not judged": 0, "skipped": 0}'),
    (lambda d: json.dumps({**d, "backend": "envtest"}), "holds column v1.37 on envtest, which belongs in "
     "v1.37-envtest.json"),
])
def test_a_digest_that_cannot_be_trusted_is_refused_naming_its_file(
        edit: Callable[[dict[str, Any]], str], message: str, tmp_path: Path) -> None:
    path = write_digest(tmp_path, _digest(a=Verdict("passed")))
    path.write_text(edit(json.loads(path.read_text())))
    with pytest.raises(DigestError) as caught:
        read_digests(tmp_path)
    assert str(caught.value) == f"{path}: {message}"
