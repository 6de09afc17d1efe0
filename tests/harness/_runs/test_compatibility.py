"""``schedharness compatibility`` (harness._runs.compatibility): the columns it runs, the digest each run
leaves, and the table rendered from the digests alone; the committed table is what the committed
digests say. The runs themselves are ``schedharness run``'s (tests/harness/_runs/test_run.py); here
the reports are written out as a run writes them."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness._runs.compatibility import COLUMNS, Column, agreement, digest_of, format_summary, format_table, run_matrix
from harness._runs.report import STATUSES
from harness._runs.run import RunOptions
from harness._runs.verdict_digest import EACH_SCENARIO, Digest, Verdict, read_digests
from tests.support.paths import ROOT

DOCS = ROOT / "docs"
MANIFEST = {"version": "v1.37.2", "etcd_version": "v3.6.6", "source": "k8s.io/kubernetes v1.37.2",
            "staging_version": "v0.37.2", "staging_modules": ["k8s.io/api"], "go": "go1.26.0",
            "versions": {"kube-scheduler": "Kubernetes v1.37.2"}, "step_seconds": {"download": 80.0},
            "seconds": 900.5, "built_at": "2026-12-07T15:40:00Z"}


def _report(*criteria: tuple[str, str, str], started: str = "2026-11-27T01:02:03Z") -> dict[str, Any]:
    return {"started": started, "suite_version": "2026.11.3", "server_version": "v1.37.2",
            "apiserver_feature_gates": {"B": False, "A": True},
            "criteria": [{"id": cid, "status": status, "message": message if status != "skipped" else None,
                          "reason": message if status == "skipped" else None}
                         for cid, status, message in criteria]}


def _digest(column: str, backend: str, title: str, wait: float | None = 30.0, **verdicts: Verdict) -> Digest:
    return Digest(column, title, "default gates", backend, "2026-11-27", "2026.11.3", "0.1.0",
                  {"name": "kube-scheduler", "version": "v1.37.2", "build": {"source": "k8s.io/kubernetes v1.37.2",
                                                                         "staging_version": "v0.37.2"}},
                  {"release": "1.37"}, verdicts, real_time_wait=wait)


def test_a_kube_scheduler_column_runs_the_built_binary_with_its_gates(tmp_path: Path) -> None:
    by_key = {c.key: c for c in COLUMNS}
    assert [c.key for c in COLUMNS] == ["reference", "v1.35", "v1.37", "v1.37-kep5836", "v1.37-kep5501",
                                        "v1.37-kep5501-off", "v1.37-gang"]
    assert (by_key["v1.37-gang"].runtime_config, by_key["v1.37-gang"].apiserver_gates) == (
        "scheduling.k8s.io/v1beta1=true", "GenericWorkload=true")
    assert by_key["reference"].scheduler(tmp_path) == "reference"
    assert by_key["v1.37"].scheduler(tmp_path) == f"{tmp_path}/kube-scheduler --config={{config}} --secure-port=0 -v=2"
    assert by_key["v1.37-kep5836"].scheduler(tmp_path) == (
        f"{tmp_path}/kube-scheduler --config={{config}} --secure-port=0 -v=2 --feature-gates={{feature_gates}}")
    # the API server's gates are the same on both backends of a column, never the fake's default
    assert by_key["v1.37-kep5836"].apiserver_gates == "InPlacePodVerticalScalingSchedulerPreemption=true"
    assert by_key["v1.37"].apiserver_gates == ""
    assert [c.each_scenario_gates for c in COLUMNS] == [True, False, False, True, True, False, True]
    # only the reference scheduler on the fake runs on virtual time
    assert [(c.real_time("fake"), c.real_time("envtest")) for c in COLUMNS] == [(False, True)] + [(True, True)] * 6
    # the prototype's columns build the release its series is cut for, with the series applied
    assert {(c.build, c.patches) for c in COLUMNS if c.patches} == {("1.37.2", ("prototypes/kep5501",))}


def test_a_kube_scheduler_digest_names_its_build_and_gates_not_the_machine() -> None:
    column = Column("v1.37", "kube-scheduler v1.37", "1.37", k8s="1.37", scheduler_gates="Z=false,Y=true",
                    note="two gates")
    report = _report(("core.a", "passed", ""), ("kep.b", "failed", "AssertionError: expected x\nmore"),
                     ("kep.c", "not judged", "never bound p0"), ("kep.d", "skipped", "no field"))
    digest = digest_of(column, "envtest", report, MANIFEST, "0.1.0", 310.0)
    assert (digest.column, digest.title, digest.note, digest.backend) == ("v1.37", "kube-scheduler v1.37.2",
                                                                         "two gates", "envtest")
    assert (digest.date, digest.suite_version, digest.harness, digest.real_time_wait) == (
        "2026-11-27", "2026.11.3", "0.1.0", 310.0)
    build = {"source": "k8s.io/kubernetes v1.37.2", "staging_version": "v0.37.2", "etcd_version": "v3.6.6",
             "go": "go1.26.0"}
    assert digest.scheduler == {"name": "kube-scheduler", "version": "v1.37.2", "build": build,
                                "command": "kube-scheduler --config={config} --secure-port=0 -v=2 "
                                           "--feature-gates=Z=false,Y=true",
                                "feature_gates": {"Y": True, "Z": False}}
    assert digest.apiserver == {"release": "1.37", "version": "v1.37.2", "feature_gates": {"A": True, "B": False},
                                "build": {"version": "v1.37.2", **build}}
    assert list(json.loads(digest.to_json())["apiserver"]["feature_gates"]) == ["A", "B"]
    assert digest.verdicts == {"core.a": Verdict("passed"), "kep.b": Verdict("failed", "expected x"),
                               "kep.c": Verdict("not judged", "never bound p0"), "kep.d": Verdict("skipped", "no field")}
    assert digest.summary == {"passed": 1, "failed": 1, "not judged": 1, "skipped": 1}


def test_the_reference_digest_on_the_fake_has_the_project_version_and_no_build() -> None:
    digest = digest_of(COLUMNS[0], "fake", _report(("core.a", "passed", "")), MANIFEST, "9.9.9")
    assert digest.title == "reference scheduler"
    assert digest.scheduler == {"name": "reference scheduler", "version": "9.9.9", "command": "reference",
                                "feature_gates": EACH_SCENARIO}
    assert "build" not in digest.apiserver
    assert digest.real_time_wait is None


def test_the_table_holds_both_verdicts_marks_a_difference_and_says_what_each_said() -> None:
    title = "kube-scheduler v1.37.2"
    digests = [
        _digest("v1.37", "fake", title, **{"core.a": Verdict("passed"), "kep.b": Verdict("failed", "expected x"),
                                           "kep.c": Verdict("not judged", "never bound p0")}),
        _digest("v1.37", "envtest", title, **{"core.a": Verdict("passed"), "kep.b": Verdict("skipped", "no field"),
                                              "kep.c": Verdict("not judged", "never bound p0")}),
    ]
    lines = format_table(digests).splitlines()
    assert lines[0] == "# Compatibility: the criteria against real kube-scheduler releases"
    assert lines[2].startswith("Generated by `schedharness compatibility` from the verdict digests in "
                               "[`compatibility/`](compatibility/), one per column and backend")
    assert ("| kube-scheduler v1.37.2 | 1 passed, 1 failed, 1 not judged, 0 skipped | "
            "1 passed, 0 failed, 1 not judged, 1 skipped | 2 of 3 |") in lines
    assert ("- **kube-scheduler v1.37.2**: default gates. Run on 2026-11-27 at suites 2026.11.3 (schedharness "
            "0.1.0); real-time watches up to 30 s; kube-scheduler, and envtest's kube-apiserver and etcd, built from "
            "k8s.io/kubernetes v1.37.2 (staging modules v0.37.2).") in lines
    assert "| `core.a` | pass / pass |" in lines
    assert "| `kep.b` | FAIL / skip **differs** |" in lines
    assert "| `kep.c` | not judged / not judged |" in lines
    said = [line for line in lines if line.startswith(("## ", "- kube-scheduler"))]
    assert said == ["## Per criterion",
                    "## What each failure said", "- kube-scheduler v1.37.2, `kep.b`, fake: expected x",
                    "## Why each criterion not judged was not judged",
                    "- kube-scheduler v1.37.2, `kep.c`, fake: never bound p0",
                    "- kube-scheduler v1.37.2, `kep.c`, envtest: never bound p0",
                    "## Why each skipped criterion was skipped", "- kube-scheduler v1.37.2, `kep.b`, envtest: no field",
                    "## How"]
    assert agreement(digests, "v1.37") == (2, 3)


def test_columns_in_their_order_one_backend_only_agrees_on_nothing() -> None:
    digests = [_digest("zz-old", "fake", "an old column", a=Verdict("passed")),
               _digest("v1.37", "envtest", "kube-scheduler v1.37.2", a=Verdict("passed")),
               _digest("reference", "fake", "reference scheduler", None, a=Verdict("passed"))]
    assert format_summary(digests)[2:] == [
        "| reference scheduler | 1 passed, 0 failed, 0 not judged, 0 skipped | not run | 0 of 0 |",
        "| kube-scheduler v1.37.2 | not run | 1 passed, 0 failed, 0 not judged, 0 skipped | 0 of 0 |",
        "| an old column | 1 passed, 0 failed, 0 not judged, 0 skipped | not run | 0 of 0 |"]
    assert "| `a` | pass / · | · / pass | pass / · |" in format_table(digests).splitlines()


def test_reuse_takes_the_reports_already_there_and_writes_their_digests(tmp_path: Path) -> None:
    column = Column("reference", "reference scheduler", "1.37")
    for backend in ("fake", "envtest"):
        (tmp_path / f"reference-{backend}").mkdir()
        (tmp_path / f"reference-{backend}" / "report.json").write_text(json.dumps(_report(("core.a", "passed", ""))))
    (tmp_path / "build.json").write_text(json.dumps(MANIFEST))
    lines: list[str] = []
    digests = run_matrix([column], tmp_path, digests_dir=tmp_path / "digests", reuse=True,
                         assets=lambda column: tmp_path, progress=lines.append)
    assert lines == [f"compatibility: reference on fake: the report in {tmp_path / 'reference-fake'}",
                     f"compatibility: reference on envtest: the report in {tmp_path / 'reference-envtest'}"]
    assert [d.file_name for d in digests] == ["reference-fake.json", "reference-envtest.json"]
    assert read_digests(tmp_path / "digests") == digests[::-1]  # by file name
    assert digests[1].apiserver["build"]["source"] == "k8s.io/kubernetes v1.37.2"
    # the reports' commands name no --real-time-wait: the pytest plugin's default, on real time only
    assert [d.real_time_wait for d in digests] == [None, 30.0]


def test_docs_compatibility_md_is_what_the_committed_digests_say() -> None:
    """The committed table is rendered from the committed digests, byte for byte; when it is not,
    ``schedharness compatibility --from-digests`` writes it again (or a digest was edited alone)."""
    digests = read_digests(DOCS / "compatibility")
    assert {d.file_name for d in digests} == {f"{c.key}-{b}.json" for c in COLUMNS for b in ("fake", "envtest")}
    assert format_table(digests) == (DOCS / "compatibility.md").read_text()


def test_the_kep5836_page_counts_what_the_v1_37_digests_say() -> None:
    """docs/kep5836-v1.37.md gives the KEP-5836 criteria's counts for kube-scheduler v1.37.2
    with its default gates; they are the committed digests' on both backends."""
    def counts(backend: str) -> dict[str, int]:
        digest = next(d for d in read_digests(DOCS / "compatibility") if d.file_name == f"v1.37-{backend}.json")
        kep = [v for cid, v in digest.verdicts.items() if cid.startswith("kep5836.")]
        return {status: n for status in STATUSES if (n := sum(v.status == status for v in kep))}

    assert counts("fake") == counts("envtest")
    total = sum(counts("fake").values())
    said = ", ".join(f"{n} {status}" for status, n in counts("fake").items()) + f" of the {total}, on both backends"
    page = " ".join((DOCS / "kep5836-v1.37.md").read_text().split())
    assert said in page


def test_the_runs_on_real_time_get_the_wait_and_their_digests_say_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, str, float | None]] = []

    def run_suites(options: RunOptions, progress: None) -> SimpleNamespace:
        seen.append((options.scheduler.split()[0], options.backend, options.real_time_wait))
        wait = f" --real-time-wait={options.real_time_wait:g}" if options.real_time_wait is not None else ""
        return SimpleNamespace(report={**_report(("core.a", "passed", "")), "command": "python -m pytest" + wait})

    monkeypatch.setattr("harness._runs.compatibility.run_suites", run_suites)
    (tmp_path / "build.json").write_text(json.dumps(MANIFEST))
    columns = [COLUMNS[0], COLUMNS[2]]
    digests = run_matrix(columns, tmp_path / "reports", assets=lambda column: tmp_path, real_time_wait=120.0,
                         progress=lambda line: None)
    binary = str(tmp_path / "kube-scheduler")
    assert seen == [("reference", "fake", None), ("reference", "envtest", 120.0),
                    (binary, "fake", 120.0), (binary, "envtest", 120.0)]
    assert [d.real_time_wait for d in digests] == [None, 120.0, 120.0, 120.0]
