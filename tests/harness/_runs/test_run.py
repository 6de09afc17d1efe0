"""``schedharness run``: pytest in a subprocess, progress lines, the report files, exit codes,
replay, the same verdict in-process and as an external process, suites whose criteria were all
skipped and a run that judged nothing, criteria not judged (exit 3, also under ``-n 2``), and
the timing slack the scenarios ran with."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

import pytest

from harness._runs.run import (
    EXIT_CODES,
    EXIT_FAILED,
    EXIT_NOT_JUDGED,
    EXIT_PASSED,
    EXIT_PYTEST,
    EXIT_USAGE,
    RunError,
    RunOptions,
    check_command,
    default_report_dir,
    normalize_scheduler,
    run_argv,
    run_suites,
    suite_paths,
    user_targets,
)
from harness.cli import main
from reference_scheduler import VARIANTS

TINY = '''\
import pytest


@pytest.mark.kep(0, "Core")
@pytest.mark.criterion("tiny.binds")
async def test_binds(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("p")
    await scenario.eventually(scenario.pod_bound("p"), within=5)


@pytest.mark.kep(5501, "Proposal")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True)
@pytest.mark.criterion("tiny.reason", reading="the reason is NotReadyForScheduling")
async def test_reason(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("p", claims=["c"])
    await scenario.eventually(
        scenario.pod_condition("p", "PodScheduled", status="False", reason="NotReadyForScheduling"), within=6)


@pytest.mark.kep(5501, "Feature gate")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=False)
@pytest.mark.criterion("tiny.gate-off")
async def test_gate_off(scenario):
    await scenario.create_pod("p", claims=["c"])
    await scenario.never(scenario.pod_condition("p", "PodScheduled"), within=10)
'''
GATED = '''\
import pytest


@pytest.mark.kep(5501, "Proposal")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True)
@pytest.mark.criterion("gated.one")
async def test_one(scenario):
    await scenario.advance(1)


@pytest.mark.kep(5501, "Proposal")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True)
@pytest.mark.criterion("gated.two")
async def test_two(scenario):
    await scenario.advance(1)


@pytest.mark.kep(0, "Core")
@pytest.mark.criterion("gated.never")
async def test_never(scenario):
    pytest.skip("this backend cannot drop a watch")
'''
GATE_SKIP = ("needs feature gate SchedulerPreEnqueuePodStatus=true; this run sets SchedulerPreEnqueuePodStatus=false "
             "(--feature-gates)")
GATED_REASONS = f'2 × "{GATE_SKIP}", 1 × "this backend cannot drop a watch"'
VIRTUAL = {"early": 0.01, "late": 0.2,  # harness._backends.backend.VIRTUAL_SLACK
           "text": "a write may land 0.01 s before and 0.2 s after the time a criterion names"}
REAL_TIME = {"early": 0.05, "late": 2.0,  # harness._backends.backend.REAL_TIME_SLACK
             "text": "a write may land 0.05 s before and 2 s after the time a criterion names"}
NO_NODE_FIELD = ("this API server does not store Node spec.podPreemptionPolicy (KEP-5836: served from Kubernetes v1.37 "
                 "with the API server's feature gate InPlacePodVerticalScalingSchedulerPreemption on; an older release "
                 "prunes it, a v1.37 API server with the gate off drops it)")


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_tiny.py").write_text(TINY)
    return suites


def _run(suites_dir: Path, out: Path, **options: object) -> tuple[int, dict, list[str]]:
    lines: list[str] = []
    result = run_suites(RunOptions(suites_dir=suites_dir, report_dir=out, **options),  # type: ignore[arg-type]
                        progress=lines.append, now=lambda: datetime(2026, 11, 22, 6, 0, tzinfo=timezone.utc))
    return result.exit_code, result.report, lines


def test_a_directory_run_leaves_out_manifest_files_but_not_a_named_one(tmp_path: Path) -> None:
    """A scenario's manifests (a CRD) may sit beside it: a directory run takes only the scenarios;
    named on its own, a manifest file is a scenario that does not load."""
    (tmp_path / "s.yaml").write_text("ops: [{op: createNodes}]\n")
    (tmp_path / "crd.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
                                       "apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n")
    assert user_targets([tmp_path]) == ([], [tmp_path / "s.yaml"])
    with pytest.raises(RunError, match=r"^crd\.yaml: line 4, column 1: not valid YAML: but found another document$"):
        user_targets([tmp_path / "crd.yaml"])


def test_normalize_scheduler() -> None:
    assert normalize_scheduler("reference") == "reference"
    assert normalize_scheduler("reference", "no-delay") == "reference:no-delay"
    assert normalize_scheduler("kube-scheduler --config={config}") == "cmd:kube-scheduler --config={config}"
    assert normalize_scheduler("cmd:x {kubeconfig}") == "cmd:x {kubeconfig}"
    with pytest.raises(RunError, match=r"^--mutant no-delay runs the reference scheduler; it cannot go with "
                                       r"--scheduler cmd:x$"):
        normalize_scheduler("cmd:x", "no-delay")
    known = ", ".join(sorted(v.name for v in VARIANTS))  # every variant, as others add them
    with pytest.raises(RunError, match=rf"^unknown mutant 'nope'; known: {re.escape(known)}$"):
        normalize_scheduler("reference", "nope")


def test_a_scheduler_command_that_cannot_start_stops_the_run_once(tmp_path: Path) -> None:
    """No scenario runs and no report is written: one message, exit code 2 from the command line."""
    missing = tmp_path / "no-such-scheduler"
    with pytest.raises(RunError, match=rf"^the scheduler command cannot start: {re.escape(str(missing))} is not an "
                                       r"executable file$"):
        run_suites(RunOptions(scheduler=f"cmd:{missing} --kubeconfig {{kubeconfig}}", report_dir=tmp_path / "r"),
                   progress=None)
    assert not (tmp_path / "r").exists()
    with pytest.raises(RunError, match=r"^the scheduler command cannot start: no-such-scheduler-xyz is not found on "
                                       r"PATH$"):
        check_command("cmd:no-such-scheduler-xyz --kubeconfig {kubeconfig}")
    check_command(f"cmd:{sys.executable} -c pass")
    check_command("reference")
    result = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--scheduler", f"cmd:{missing}"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"schedharness run: the scheduler command cannot start: {missing} is not an executable file\n")


def test_a_cluster_run_is_serial_and_passes_the_kind_options_on(tmp_path: Path) -> None:
    options = RunOptions(scheduler="cluster", backend="kind", jobs=8, kind_cluster="dev", kind_image="v1.35.0",
                         kind_keep=True, kind_apiserver_feature_gates="A=true", feature_gates="B=false")
    argv = run_argv([Path("suites/test_x.py")], tmp_path, "cluster", options)
    assert argv[3:] == [
        "suites/test_x.py", "-p", "no:cacheprovider", "--scheduler=cluster", f"--report-dir={tmp_path}",
        f"--junitxml={tmp_path / 'junit.xml'}", "-o", "junit_suite_name=schedharness", "--scenario-seed=0",
        "--backend=kind", "--kind-cluster=dev", "--kind-image=v1.35.0", "--kind-keep",
        "--kind-apiserver-feature-gates=A=true", "--feature-gates=B=false"]  # no -n: one cluster, one at a time
    fake = run_argv([Path("suites/test_x.py")], tmp_path, "cmd:x", RunOptions(scheduler="cmd:x", jobs=3))
    assert fake[-3:] == ["--backend=fake", "-n", "3"]


def test_default_report_dir() -> None:
    assert default_report_dir(datetime(2026, 11, 22, 6, 1, 2, tzinfo=timezone.utc)) == Path(
        "reports/20261122T060102Z")


def test_unknown_suite(tiny: Path) -> None:
    assert suite_paths(tiny, ["tiny"]) == [tiny / "test_tiny.py"]
    assert suite_paths(tiny, ["test_tiny.py"]) == [tiny / "test_tiny.py"]
    with pytest.raises(RunError, match=r"^unknown suite 'nope'; available: tiny$"):
        suite_paths(tiny, ["nope"])


def test_run_writes_every_report_file_consistent_with_the_results(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, report, lines = _run(tiny, out)
    assert code == 0
    assert lines[1:4] == ["[1/3] tiny.binds passed (0 virtual s)", "[2/3] tiny.reason passed (5 virtual s)",
                          "[3/3] tiny.gate-off passed (10 virtual s)"]
    assert lines[4] == "suite tiny: passed: 3 passed, 0 failed, 0 not judged, 0 skipped"
    assert re.fullmatch(r"schedharness run: PASSED: 3 passed, 0 failed, 0 not judged, 0 skipped in \d+\.\d s "
                        r"\(15 virtual s\)", lines[5]), lines[5]
    assert lines[6] == f"schedharness run: timing slack: {VIRTUAL['text']}"
    for name in ("report.json", "report.md", "report.html", "junit.xml", "results.jsonl", "pytest.log"):
        assert (out / name).stat().st_size > 0, name
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    on_disk = json.loads((out / "report.json").read_text())
    assert on_disk == report
    assert (report["started"], report["scheduler"], report["verdict"]) == ("2026-11-22T06:00:00Z", "reference",
                                                                            "passed")
    assert [(c["test"], c["status"]) for c in report["criteria"]] == sorted((r["id"], r["status"]) for r in records)
    assert {c["id"]: c["feature_gates"] for c in report["criteria"]} == {
        "tiny.binds": {}, "tiny.reason": {"SchedulerPreEnqueuePodStatus": True},
        "tiny.gate-off": {"SchedulerPreEnqueuePodStatus": False}}
    assert report["virtual_seconds"] == 15.0
    assert (report["timing_slack"], report["not_judged"], report["skipped_suites"]) == (VIRTUAL, [], [])
    assert report["suite_results"]["tiny"]["verdict"] == "passed"
    cases = ET.parse(out / "junit.xml").getroot().iter("testcase")
    props = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")} for c in cases}
    assert props["test_reason"]["criterion"] == "tiny.reason"
    assert props["test_reason"]["needs"] == "SchedulerPreEnqueuePodStatus=true"
    for c in report["criteria"]:
        assert (out / c["journal"]).stat().st_size > 0 and (out / c["timeline"]).read_text().startswith("<?xml")
    md = (out / "report.md").read_text()
    assert "| tiny.reason | KEP-5501 | Proposal | passed | the reason is NotReadyForScheduling |" in md
    assert f"- Timing slack: {VIRTUAL['text']}\n" in md
    assert "| tiny | passed | 3 | 0 | 0 | 0 |  |" in md
    assert '<img class="timeline" loading="lazy" src="suites_test_tiny.py_test_binds/timeline.svg"' in (
        out / "report.html").read_text()


def test_gate_excluded_criteria_are_skipped_not_failed(tiny: Path, tmp_path: Path) -> None:
    code, report, lines = _run(tiny, tmp_path / "out", feature_gates="SchedulerPreEnqueuePodStatus=false")
    assert code == 0
    assert lines[2] == ("[2/3] tiny.reason skipped: needs feature gate SchedulerPreEnqueuePodStatus=true; "
                        "this run sets SchedulerPreEnqueuePodStatus=false (--feature-gates)")
    assert report["summary"] == {"passed": 2, "failed": 0, "not judged": 0, "skipped": 1}


@pytest.fixture
def gated(tiny: Path) -> Path:
    """The tiny suite and one whose criteria this module's gate setting and backend all skip."""
    (tiny / "test_gated.py").write_text(GATED)
    return tiny


def test_a_suite_with_every_criterion_skipped_is_skipped_and_the_run_passes_saying_so(
        gated: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, report, lines = _run(gated, out, suites=("gated", "tiny"), feature_gates="SchedulerPreEnqueuePodStatus=false")
    assert code == 0
    assert lines[1:8] == [
        f"[1/6] gated.one skipped: {GATE_SKIP}",
        f"[2/6] gated.two skipped: {GATE_SKIP}",
        "[3/6] gated.never skipped: this backend cannot drop a watch",
        f"suite gated: skipped: every criterion was skipped ({GATED_REASONS})",
        "[4/6] tiny.binds passed (0 virtual s)",
        f"[5/6] tiny.reason skipped: {GATE_SKIP}",
        "[6/6] tiny.gate-off passed (10 virtual s)",
    ]
    assert lines[8] == "suite tiny: passed: 2 passed, 0 failed, 0 not judged, 1 skipped"
    assert re.fullmatch(r"schedharness run: PASSED: 2 passed, 0 failed, 0 not judged, 4 skipped in \d+\.\d s "
                        r"\(10 virtual s\)", lines[9]), lines[9]
    assert lines[10] == "schedharness run: skipped: gated (every criterion skipped)"
    assert (report["verdict"], report["skipped_suites"], report["not_judged"]) == ("passed", ["gated"], [])
    assert report["suite_results"]["gated"] == {
        "judged": False, "verdict": "skipped", "summary": {"passed": 0, "failed": 0, "not judged": 0, "skipped": 3},
        "skip_reasons": [{"reason": GATE_SKIP, "count": 2}, {"reason": "this backend cannot drop a watch", "count": 1}],
        "skipped_because": f"every criterion was skipped ({GATED_REASONS})"}
    assert report["timing_slack"] == VIRTUAL  # gated.never's scenario started, but it judged nothing
    md = (out / "report.md").read_text()
    assert ("- Verdict: **PASSED**: 2 passed, 0 failed, 0 not judged, 4 skipped; skipped: gated (every criterion "
            "skipped)\n") in md
    assert f"| gated | skipped | 0 | 0 | 0 | 3 | {GATED_REASONS} |" in md


def test_a_run_that_judged_nothing_is_not_judged_and_exits_3_saying_why(gated: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, report, lines = _run(gated, out, suites=("gated",), feature_gates="SchedulerPreEnqueuePodStatus=false",
                               jobs=2)  # under xdist: a suite's end is known from the workers' collection
    assert code == 3
    # the workers finish the three in any order; the suite's line comes after the last of them
    assert [line.split(" ", 1)[0] for line in lines[1:4]] == ["[1/3]", "[2/3]", "[3/3]"]
    assert sorted(line.split(" ", 1)[1] for line in lines[1:4]) == [
        "gated.never skipped: this backend cannot drop a watch", f"gated.one skipped: {GATE_SKIP}",
        f"gated.two skipped: {GATE_SKIP}"]
    assert lines[4] == f"suite gated: skipped: every criterion was skipped ({GATED_REASONS})"
    assert re.fullmatch(r"schedharness run: NOT JUDGED: 0 passed, 0 failed, 0 not judged, 3 skipped in \d+\.\d s",
                        lines[5]), lines[5]
    why = f"no criterion was judged: every selected criterion was skipped ({GATED_REASONS})"
    assert lines[6:8] == [f"schedharness run: {why}",
                          "schedharness run: timing slack: none: no judged scenario ran on a backend"]
    assert lines[8] == f"schedharness run: {out / 'report.html'} · report.md · report.json · junit.xml"
    assert (report["verdict"], report["verdict_message"], report["skipped_suites"], report["not_judged"]) == (
        "not judged", why, ["gated"], [])
    assert json.loads((out / "report.json").read_text())["verdict"] == "not judged"
    assert f"- Verdict: **NOT JUDGED**: 0 passed, 0 failed, 0 not judged, 3 skipped; {why}\n" in (
        out / "report.md").read_text()
    assert '<span class="not-judged">NOT JUDGED</span>' in (out / "report.html").read_text()


def test_a_failure_exits_1_names_seed_and_replay_and_the_replay_gives_the_same_journal(
        tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, report, lines = _run(tiny, out, scheduler="reference:wrong-reason", seed=3, suites=("tiny",))
    assert code == 1
    failed = [c for c in report["criteria"] if c["status"] == "failed"]
    assert [c["id"] for c in failed] == ["tiny.reason"]
    assert lines[2].startswith("[2/3] tiny.reason failed: ")
    replay = failed[0]["replay"]
    assert replay == (f"seed 3; replay: cd {shlex.quote(str(tiny.parent))} && {shlex.quote(sys.executable)} -m pytest "
                      "suites/test_tiny.py::test_reason --scheduler=reference:wrong-reason --backend=fake "
                      "--scenario-seed=3")
    assert f"Replay: `{replay}`" in (out / "report.md").read_text()
    directory, command = replay.split("replay: cd ", 1)[1].split(" && ", 1)
    argv = shlex.split(command)
    again = tmp_path / "again"
    done = subprocess.run([sys.executable, *argv[1:], "-p", "no:cacheprovider", f"--report-dir={again}"],
                          cwd=directory, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout
    journal = failed[0]["journal"]
    assert (again / journal).read_bytes() == (out / journal).read_bytes()


def test_a_suite_that_does_not_import_exits_4_whatever_pytests_own_code(tiny: Path, tmp_path: Path) -> None:
    """pytest exits 2 (interrupted by a collection error); ``schedharness run`` exits 4, its own
    code for "pytest could not run the suites", not 2, its usage error."""
    (tiny / "test_broken.py").write_text("import no_such_module\n")
    code, report, lines = _run(tiny, tmp_path / "out", suites=("broken",))
    assert code == 4
    assert (report["verdict"], report["pytest_exit_code"], report["criteria"]) == ("failed", 2, [])
    assert lines[1].startswith(f"schedharness run: pytest exited with code 2; the end of {tmp_path / 'out'}/pytest.log:")
    assert "ModuleNotFoundError: No module named 'no_such_module'" in lines[1]


VERDICTS = '''\
import pytest

from harness import NotJudged


@pytest.mark.kep(0, "Core")
@pytest.mark.criterion("verdicts.binds")
async def test_binds(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("p")
    await scenario.eventually(scenario.pod_bound("p"), within=5)


@pytest.mark.kep(0, "Core")
@pytest.mark.criterion("verdicts.unjudged")
async def test_unjudged(scenario):
    await scenario.advance(2)
    raise NotJudged("the scheduler must watch pods: it never did")
'''
FAILING = '''\
import pytest


@pytest.mark.kep(0, "Core")
@pytest.mark.criterion("failing.fails")
async def test_fails(scenario):
    await scenario.advance(1)
    assert False, "expected nothing of it"
'''
UNJUDGED = "the scheduler must watch pods: it never did"
NOT_JUDGED_WHY = ("1 criterion was not judged: the scheduler did not do what judging them needs (see each one's "
                  "message)")


@pytest.fixture
def verdicts(tiny: Path) -> Path:
    """The tiny suite, one with a criterion that passes and one not judged, and one that fails."""
    (tiny / "test_verdicts.py").write_text(VERDICTS)
    (tiny / "test_failing.py").write_text(FAILING)
    return tiny


def test_the_exit_codes_are_their_own_and_run_help_lists_them() -> None:
    assert (EXIT_PASSED, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_JUDGED, EXIT_PYTEST) == (0, 1, 2, 3, 4)
    help_text = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--help"], capture_output=True, text=True,
                               check=True, timeout=60).stdout
    listed = (
        "Exit codes: 0: passed (no criterion failed or was not judged, at least one passed); 1: a criterion failed; "
        "2: a mistake on the command line or in a scenario file (nothing ran); 3: not judged (none failed, but one "
        "was not judged: the scheduler left nothing to judge, or every criterion was skipped); 4: pytest could not "
        "run the suites (the end of pytest.log is printed).")
    assert listed in " ".join(help_text.split())
    assert f"Exit codes: {EXIT_CODES}." == listed


def test_a_criterion_not_judged_makes_the_run_not_judged_with_exit_3(verdicts: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, report, lines = _run(verdicts, out, suites=("verdicts",))
    assert code == 3
    assert lines[1:4] == ["[1/2] verdicts.binds passed (0 virtual s)",
                          f"[2/2] verdicts.unjudged not judged: {UNJUDGED}",
                          "suite verdicts: not judged: 1 passed, 0 failed, 1 not judged, 0 skipped"]
    assert re.fullmatch(r"schedharness run: NOT JUDGED: 1 passed, 0 failed, 1 not judged, 0 skipped in \d+\.\d s "
                        r"\(2 virtual s\)", lines[4]), lines[4]
    replay = (f"seed 0; replay: cd {shlex.quote(str(verdicts.parent))} && {shlex.quote(sys.executable)} -m pytest "
              "suites/test_verdicts.py::test_unjudged --scheduler=reference --backend=fake --scenario-seed=0")
    assert lines[5:] == [
        f"schedharness run: {NOT_JUDGED_WHY}",
        f"schedharness run: timing slack: {VIRTUAL['text']}",
        f"  NOT JUDGED verdicts.unjudged (suites/test_verdicts.py::test_unjudged): {UNJUDGED}",
        f"    {replay}",
        f"schedharness run: {out / 'report.html'} · report.md · report.json · junit.xml"]
    assert (report["verdict"], report["verdict_message"], report["not_judged"]) == (
        "not judged", NOT_JUDGED_WHY, ["verdicts.unjudged"])
    unjudged = report["criteria"][1]
    assert (unjudged["status"], unjudged["message"], unjudged["replay"]) == ("not judged", UNJUDGED, replay)
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("errors"), suite.get("failures"), suite.get("skipped")) == ("1", "0", "0")
    cases = {c.get("name"): [(e.tag, e.get("type"), e.get("message")) for e in c if e.tag != "properties"]
             for c in suite.iter("testcase")}
    assert cases == {"test_binds": [], "test_unjudged": [("error", "not judged", f"not judged: {UNJUDGED}")]}


def test_a_failure_beside_a_criterion_not_judged_exits_1_also_under_xdist(verdicts: Path, tmp_path: Path) -> None:
    """Under ``-n 2`` the status crosses from the worker: the progress line (the controller's) and
    the record (the worker's) both say "not judged"; a failed criterion beside it makes exit 1."""
    out = tmp_path / "out"
    code, report, lines = _run(verdicts, out, suites=("failing", "verdicts"), jobs=2)
    assert code == 1
    progress = sorted(line.split(" ", 1)[1] for line in lines if line.startswith("[") and "/3] " in line)
    assert progress == [
        "failing.fails failed: AssertionError: expected nothing of it", "verdicts.binds passed (0 virtual s)",
        f"verdicts.unjudged not judged: {UNJUDGED}"]
    assert "suite failing: failed: 0 passed, 1 failed, 0 not judged, 0 skipped" in lines
    assert "suite verdicts: not judged: 1 passed, 0 failed, 1 not judged, 0 skipped" in lines
    assert any(re.fullmatch(r"schedharness run: FAILED: 1 passed, 1 failed, 1 not judged, 0 skipped in \d+\.\d s "
                            r"\(3 virtual s\)", line) for line in lines), lines
    assert "schedharness run: 1 not judged" in lines
    assert f"  NOT JUDGED verdicts.unjudged (suites/test_verdicts.py::test_unjudged): {UNJUDGED}" in lines
    assert (report["verdict"], report["verdict_message"], report["summary"]) == (
        "failed", "1 not judged", {"passed": 1, "failed": 1, "not judged": 1, "skipped": 0})
    records = {r["criterion"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {name: r["status"] for name, r in records.items()} == {
        "failing.fails": "failed", "verdicts.binds": "passed", "verdicts.unjudged": "not judged"}
    assert records["verdicts.unjudged"]["message"] == UNJUDGED
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("errors"), suite.get("failures")) == ("1", "1")


def test_the_real_time_wait_goes_to_pytest_only_when_given(tmp_path: Path) -> None:
    given = run_argv([Path("suites/test_x.py")], tmp_path, "cmd:x", RunOptions(scheduler="cmd:x", real_time_wait=310))
    assert "--real-time-wait=310" in given
    assert [a for a in run_argv([Path("suites/test_x.py")], tmp_path, "cmd:x", RunOptions(scheduler="cmd:x"))
            if a.startswith("--real-time-wait")] == []


def test_cli_run_on_the_real_core_sanity_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    assert main(["run", "--suite", "core_sanity", "--report-dir", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["suites"] == ["core_sanity"] and report["summary"]["failed"] == 0
    assert report["summary"]["passed"] == len(report["criteria"]) > 0
    printed = capsys.readouterr().out.splitlines()
    n = len(report["criteria"])
    assert [line.split(" ", 1)[0] for line in printed[1:1 + n]] == [f"[{i}/{n}]" for i in range(1, n + 1)]
    for name in ("report.md", "report.html", "junit.xml"):
        assert (out / name).exists()


def test_in_process_and_external_process_give_the_same_verdicts(tmp_path: Path) -> None:
    inproc = run_suites(RunOptions(suites=("core_sanity",), report_dir=tmp_path / "in", timeline=False),
                        progress=None)
    command = (f"cmd:{shlex.quote(sys.executable)} -m reference_scheduler scheduler --kubeconfig {{kubeconfig}} "
               "--feature-gates {feature_gates}")
    external = run_suites(RunOptions(scheduler=command, suites=("core_sanity",), report_dir=tmp_path / "ext",
                                     jobs=3, timeline=False), progress=None)
    verdicts = {c["id"]: c["status"] for c in inproc.report["criteria"]}
    assert verdicts and set(verdicts.values()) == {"passed"}
    assert {c["id"]: c["status"] for c in external.report["criteria"]} == verdicts
    assert {c["adapter"] for c in external.report["criteria"]} == {"cmd"}
    assert all(c["virtual_seconds"] is None for c in external.report["criteria"])
    assert (inproc.report["timing_slack"], external.report["timing_slack"]) == (VIRTUAL, REAL_TIME)


def test_cli_refuses_an_unknown_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", "no_such_suite", "--report-dir", "unused"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedharness run: unknown suite 'no_such_suite'; available: ")
    assert "core_sanity" in err


# ------------------------------------------------------------------------ users' own scenarios

MY_PY = '''
import pytest
from harness import Scenario


@pytest.mark.criterion("mine.binds")
async def test_a_pod_is_bound(scenario: Scenario) -> None:
    """A pod that fits is bound within 5 s."""
    await scenario.create_node("n1")
    await scenario.create_pod("p", "1")
    await scenario.eventually(scenario.pod_bound("p"), within=5)


async def test_without_a_marker(scenario: Scenario) -> None:
    await scenario.create_node("n1")
    await scenario.create_pod("q", "64")
    await scenario.eventually(scenario.pod_bound("q"), within=5)
'''
MY_YAML = """name: a pod is bound
criterion: mine.yaml-binds
ops:
- {op: createNodes, count: 1}
- {op: createPods, count: 1, namePrefix: y-}
- {op: barrier, podPrefix: y-, within: 5s}
"""


def test_run_paths_runs_a_users_python_and_yaml_scenarios_with_the_same_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the directory above the scenarios, as plain pytest would be: the test ids are
    relative to it (pytest's rootdir: no configuration file there)."""
    mine = tmp_path / "my-scenarios"
    mine.mkdir()
    (mine / "test_mine.py").write_text(MY_PY)
    (mine / "bound.yaml").write_text(MY_YAML)
    out = tmp_path / "out"
    monkeypatch.chdir(tmp_path)
    result = run_suites(RunOptions(paths=(Path("my-scenarios"),), report_dir=out, timeline=True), progress=None)
    assert result.exit_code == 1  # the unmarked scenario fails: q fits nowhere
    verdicts = {c["id"]: (c["suite"], c["test"], c["status"]) for c in result.report["criteria"]}
    assert verdicts == {
        "mine.binds": ("mine", "my-scenarios/test_mine.py::test_a_pod_is_bound", "passed"),
        "mine.yaml-binds": ("yaml_scenarios", "my-scenarios/bound.yaml::bound", "passed"),
        "my-scenarios/test_mine.py::test_without_a_marker": (
            "mine", "my-scenarios/test_mine.py::test_without_a_marker", "failed"),
    }
    for c in result.report["criteria"]:
        assert (out / c["journal"]).is_file() and (out / c["timeline"]).is_file(), c["id"]
    failed = next(c for c in result.report["criteria"] if c["status"] == "failed")
    directory, command = failed["replay"].split("replay: cd ", 1)[1].split(" && ", 1)
    again = subprocess.run([*shlex.split(command), "-p", "no:cacheprovider"], cwd=directory, capture_output=True,
                           text=True)
    assert again.returncode == 1 and "1 failed" in again.stdout


def test_run_paths_refuses_what_it_cannot_run_before_running_anything(tmp_path: Path) -> None:
    with pytest.raises(RunError, match=r"^/nowhere: no such file or directory$"):
        run_suites(RunOptions(paths=(Path("/nowhere"),), report_dir=tmp_path / "a"), progress=None)
    notes = tmp_path / "notes.txt"
    notes.write_text("x")
    with pytest.raises(RunError, match=r"not a pytest file \(\.py\), a YAML scenario \(\.yaml, \.yml\) or a directory"):
        run_suites(RunOptions(paths=(notes,), report_dir=tmp_path / "b"), progress=None)
    bad = tmp_path / "bad.yaml"
    bad.write_text("ops:\n- {op: createNodez}\n")
    with pytest.raises(RunError, match=r"^bad\.yaml: line 2: ops\[0\]: unknown op 'createNodez'; known ops: addFault, "):
        run_suites(RunOptions(paths=(bad,), report_dir=tmp_path / "c"), progress=None)
    with pytest.raises(RunError, match=r"^give scenario paths or --suite, not both$"):
        run_suites(RunOptions(paths=(bad,), suites=("core_sanity",), report_dir=tmp_path / "d"), progress=None)
    assert main(["run", str(tmp_path / "missing")]) == 2
    assert not (tmp_path / "a").exists()


def test_a_scheduler_command_that_exits_at_once_stops_the_run_with_one_message(tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The command exists but exits before it is ready: one message, exit code 2, no scenario run."""
    out = tmp_path / "out"
    assert main(["run", "--scheduler", f"{sys.executable} -c 'raise SystemExit(3)'", "--report-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schedharness run: the scheduler command cannot start: scheduler ")
    assert "exited with code 3 before it was ready" in err
    assert not (out / "report.json").exists() and (out / "preflight").is_dir()


def test_the_fake_serves_as_an_older_release_when_asked(tmp_path: Path) -> None:
    """``--kubernetes-version 1.36``: the fake prunes KEP-5836's Node field as kube-apiserver v1.36
    does, so the criteria that need it are skipped with that reason, and the report names the
    release (as a v1.36 envtest run's report does)."""
    result = run_suites(RunOptions(suites=("kep5836_resize_preemption",), kubernetes_version="1.36",
                                   report_dir=tmp_path / "r", timeline=False), progress=None)
    report = result.report
    assert report["server_version"] == "v1.36.0-schedharness"
    assert report["api_schemas"].endswith("Kubernetes v1.36.0")
    skipped = {c["id"]: c["reason"] for c in report["criteria"] if c["status"] == "skipped"}
    assert skipped == {"kep5836.disable-resize-preemption": NO_NODE_FIELD, "kep5836.policy-lifted-wakes": NO_NODE_FIELD}


def test_the_api_server_takes_the_scenarios_known_gates_by_default(tmp_path: Path) -> None:
    """No ``--apiserver-feature-gates``: each KEP-5836 scenario's fake API server has the gates of
    its scheduler that v1.37 registers (both, for the scenarios that turn the feature on), so the
    Node field is stored and every criterion is judged; the report records each scenario's."""
    report = run_suites(RunOptions(suites=("kep5836_resize_preemption",), report_dir=tmp_path / "r",
                                   timeline=False), progress=None).report
    assert report["summary"] == {"passed": 22, "failed": 0, "not judged": 0, "skipped": 0}
    on = {"InPlacePodVerticalScaling": True, "InPlacePodVerticalScalingSchedulerPreemption": True}
    off = {"InPlacePodVerticalScalingSchedulerPreemption": False}
    gates = {c["id"]: c["apiserver_feature_gates"] for c in report["criteria"]}
    assert gates["kep5836.disable-resize-preemption"] == on and gates["kep5836.gate-off"] == off
    assert report["apiserver_feature_gates"] == [on, off]  # one per distinct set, in JSON text order
    assert "- API server: v1.37.0-schedharness; feature gates: per scenario: InPlacePodVerticalScaling=true," \
           "InPlacePodVerticalScalingSchedulerPreemption=true; InPlacePodVerticalScalingSchedulerPreemption=false\n" \
           in (tmp_path / "r" / "report.md").read_text()


def test_the_api_server_gate_off_skips_the_criterion_that_needs_its_field(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``--apiserver-feature-gates InPlacePodVerticalScalingSchedulerPreemption=false``: the
    scheduler's gate is on, the API server's off, so the fake drops the Node field as
    kube-apiserver v1.37 does and the criteria that set it are skipped, saying why; the others
    pass (the scheduler needs nothing else from the API server)."""
    out = tmp_path / "r"
    assert main(["run", "--apiserver-feature-gates", "InPlacePodVerticalScalingSchedulerPreemption=false",
                 "--suite", "kep5836_resize_preemption", "--report-dir", str(out), "--no-timeline"]) == 0
    report = json.loads((out / "report.json").read_text())
    skipped = {c["id"]: c["reason"] for c in report["criteria"] if c["status"] == "skipped"}
    assert skipped == {"kep5836.disable-resize-preemption": NO_NODE_FIELD, "kep5836.policy-lifted-wakes": NO_NODE_FIELD}
    assert report["summary"] == {"passed": 20, "failed": 0, "not judged": 0, "skipped": 2}
    assert report["apiserver_feature_gates"] == {"InPlacePodVerticalScalingSchedulerPreemption": False}
    assert "--apiserver-feature-gates=InPlacePodVerticalScalingSchedulerPreemption=false" in report["command"]
    assert "kep5836.disable-resize-preemption skipped: this API server does not store" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--apiserver-feature-gates", "Foo"],
     "--apiserver-feature-gates: feature gate 'Foo': write Name=true or Name=false, comma-separated"),
    (["--apiserver-feature-gates", "NoSuchGate=true"],
     "--apiserver-feature-gates: the fake API server (Kubernetes v1.37.0) refuses them: unrecognized feature gate: "
     "NoSuchGate"),
    (["--apiserver-feature-gates", "InPlacePodVerticalScaling=false", "--kubernetes-version", "1.36"],
     "--apiserver-feature-gates: the fake API server (Kubernetes v1.36.0) refuses them: cannot set feature gate "
     "InPlacePodVerticalScaling to false, feature is locked to true"),
    (["--apiserver-feature-gates", "InPlacePodVerticalScalingSchedulerPreemption=true", "--kubernetes-version", "1.36"],
     "--apiserver-feature-gates: the fake API server (Kubernetes v1.36.0) refuses them: unrecognized feature gate: "
     "InPlacePodVerticalScalingSchedulerPreemption"),
    (["--feature-gates", "InPlacePodVerticalScaling=false"],
     "--feature-gates: the fake API server (Kubernetes v1.37.0) takes the scheduler's gates it knows as its own and "
     "refuses them: cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true; give "
     "--apiserver-feature-gates to set its gates apart"),
    (["--apiserver-feature-gates", "A=true", "--backend", "kubeconfig:/nowhere"],
     "--apiserver-feature-gates sets the gates of an API server the run starts: with --backend kubeconfig:/nowhere "
     "the cluster's own kube-apiserver has its gates already"),
    (["--apiserver-feature-gates", "A=true", "--kind-apiserver-feature-gates", "B=true", "--backend", "kind"],
     "--kind-apiserver-feature-gates is the older name of --apiserver-feature-gates: give one of them"),
])
def test_bad_api_server_gates_are_a_usage_error(argv: list[str], message: str,
                                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["run", *argv, "--report-dir", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(message) and err.startswith("schedharness run")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--kubernetes-version", "1.20"], "schedharness run: --kubernetes-version: Kubernetes version '1.20' is not one "
                                       "this fake serves as (choose one of 1.34, 1.35, 1.36, 1.37)"),
    (["--kubernetes-version", "1.36", "--backend", "envtest"],
     "schedharness run: --kubernetes-version chooses the fake API server's release: with --backend envtest the "
     "cluster's own kube-apiserver decides it"),
])
def test_a_bad_kubernetes_version_is_a_usage_error(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", *argv]) == 2
    assert capsys.readouterr().err.strip() == message


# ------------------------------------------------------------------- refused before anything starts


@pytest.mark.parametrize(("argv", "message"), [
    (["--backend", "nope"], "--backend nope: unknown backend; available: fake, kind, envtest, kubeconfig:PATH"),
    (["--backend", "kubeconfig:"], "--backend kubeconfig:: unknown backend; available: fake, kind, envtest, "
                                   "kubeconfig:PATH"),
    (["--backend", "kubeconfig:{tmp}/missing"],
     "--backend kubeconfig:{tmp}/missing: no kubeconfig file at {tmp}/missing"),
    (["--scheduler", "cluster"], "--scheduler cluster tests a cluster's own scheduler: use --backend kind or "
                                 "kubeconfig:PATH (the fake backend has no scheduler)"),
    (["--backend", "kind", "-n", "2"],
     "--backend kind runs one test at a time on one cluster (nodes are cluster-wide): drop -n"),
    (["--backend", "envtest", "--envtest-assets", "{tmp}/missing"],
     "--backend envtest needs etcd and kube-apiserver binaries: {tmp}/missing (--envtest-assets) is not a directory"),
    (["--envtest-assets", "{tmp}"],
     "--envtest-assets names the binaries --backend envtest starts: with --backend fake none are started"),
    (["--kind-cluster", "dev", "--kind-keep"],
     "--kind-cluster and --kind-keep choose the cluster --backend kind makes or reuses: with --backend fake there "
     "is none"),
    (["--backend", "envtest", "--kind-image", "v1.35.0"],
     "--kind-image chooses the cluster --backend kind makes or reuses: with --backend envtest there is none"),
    (["--mutant", ""], "unknown mutant ''; known: "),
    (["--scheduler", "{python} --kubeconfig={kubeconfg} {flags}"],
     "the scheduler command names an unknown placeholder {flags} and {kubeconfg}: use {config}, {feature_gates}, "
     "{kubeconfig} or {scheduler_name}"),
    (["--report-dir", "{tmp}/file"], "--report-dir {tmp}/file: a file; give a directory"),
])
def test_a_bad_option_is_refused_before_anything_starts(argv: list[str], message: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing runs, no report directory is made: one message, exit code 2 (``--backend nope``
    used to start pytest, which exited 4; ``-n 2`` on kind was dropped without a word)."""
    (tmp_path / "file").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{python}", sys.executable) for a in argv]
    if "--report-dir" not in argv:
        argv += ["--report-dir", str(tmp_path / "r")]
    assert main(["run", "--suite", "core_sanity", *argv]) == 2
    captured = capsys.readouterr()
    expected = "schedharness run: " + message.replace("{tmp}", str(tmp_path))
    assert captured.out == ""
    if message.endswith("known: "):  # every variant follows, as others add them
        assert captured.err.startswith(expected)
    else:
        assert captured.err == expected + "\n"
    assert not (tmp_path / "r").exists()


def test_yaml_scenarios_with_wrong_values_are_refused_with_file_and_line(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26 §5: ``kep: {number: abc}`` and ``featureGates: [A]`` gave a traceback and exit 1."""
    cases = {
        "kep.yaml": ("name: k\nkep: {number: abc}\nops: []\n",
                     "kep.yaml: line 2: kep: number 'abc': give a whole number, 0 or more"),
        "gates.yaml": ("ops: []\nfeatureGates: [A]\n",
                       "gates.yaml: line 2: featureGates ['A']: give a mapping of gate names to true or false, e.g. "
                       "{SchedulerPreEnqueuePodStatus: true}"),
        "syntax.yaml": ("ops: [\n", "syntax.yaml: line 2, column 1: not valid YAML: expected the node content, but "
                                    "found '<stream end>'"),
        "count.yaml": ("ops:\n- {op: createNodes}\n- {op: createPods, count: two}\n",
                       "count.yaml: line 3: ops[1] createPods: count 'two': give a whole number, 0 or more"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        assert main(["run", str(path), "--report-dir", str(tmp_path / "r")]) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", f"schedharness run: {message}\n")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe")
    assert main(["run", str(binary), "--report-dir", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == "schedharness run: binary.yaml: not UTF-8 text: byte 0 cannot be decoded\n"
    assert not (tmp_path / "r").exists()
