"""Report rendering from crafted ``results.jsonl`` records: exact tables, failures, the HTML, the
verdict of each criterion, suite and run (passed, failed, not judged, skipped), the criteria not
judged in their own section and as ``<error>`` in ``junit.xml``, and the timing slack."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from importlib.metadata import version
import subprocess
from pathlib import Path
from typing import Any

import pytest

from suites import SUITE_VERSION

from harness._runs.report import (
    RunInfo,
    build_report,
    count_text,
    counts_of,
    criterion_status,
    gate_label,
    load_results,
    mark_not_judged,
    render_html,
    render_markdown,
    skip_summary,
    suite_name,
    write_report,
)

ON = {"SchedulerPreEnqueuePodStatus": True}
OFF = {"SchedulerPreEnqueuePodStatus": False}
VIRTUAL = {"early": 0.01, "late": 0.2,  # harness._backends.backend.VIRTUAL_SLACK
           "text": "a write may land 0.01 s before and 0.2 s after the time a criterion names"}
REAL_TIME = {"early": 0.05, "late": 2.0,  # harness._backends.backend.REAL_TIME_SLACK
             "text": "a write may land 0.05 s before and 2 s after the time a criterion names"}
GATE_SKIP = ("needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets SchedulerPreEnqueuePodStatus=true "
             "(--feature-gates)")
REPLAY = ("seed 7; replay: cd /src && python -m pytest suites/test_k.py::test_delay --scheduler=reference:no-delay "
          "--backend=fake --scenario-seed=7")


def _record(test: str, criterion: str | None, status: str, message: str = "", **extra: Any) -> dict[str, Any]:
    record = {"id": f"suites/test_k.py::{test}", "criterion": criterion, "kep": 5501, "section": "Design Details",
              "gates": {}, "reading": None, "status": status, "message": message, "scheduler": "reference:no-delay",
              "adapter": "reference:no-delay", "seed": 7, "virtual_seconds": 5.0, "wall_seconds": 0.01,
              "journal": f"suites_test_k.py_{test}/journal.jsonl", "timeline": f"suites_test_k.py_{test}/timeline.svg",
              "slack": VIRTUAL}
    record.update(extra)
    return record


RECORDS = [
    _record("test_delay", "kep5501.delay", "failed", "condition appeared at 0.1 s\nslice", gates=ON, needs=ON,
            reading="Q5 text", replay=REPLAY),
    _record("test_binds", "core.binds", "passed", kep="KEP-0", section="Core"),
    _record("test_off", "kep5501.off", "skipped", GATE_SKIP, gates=ON, needs=OFF, virtual_seconds=None, journal=None,
            timeline=None, slack=None),
    _record("test_once", "kep5501.once", "passed", gates=ON, needs=ON, reading="plain reading"),
    _record("test_setup", None, "error", "scheduler did not start", gates=ON, needs=ON, virtual_seconds=None),
]
INFO = RunInfo(scheduler="reference:no-delay", feature_gates=ON, started="2026-11-22T06:00:00Z",
               finished="2026-11-22T06:00:03Z", wall_seconds=3.25, seed=7, suites=("k",),
               command="python -m pytest suites/test_k.py", readings={"delay-kept": "Q5 text", "other": "unused"})


def test_gate_label() -> None:
    assert gate_label({"B": False, "A": True}) == "A=true, B=false"
    assert gate_label({}) == "no feature gate needed"


def test_report_json_records_and_summary() -> None:
    report = build_report(RECORDS, INFO)
    assert report["verdict"] == "failed"
    assert report["summary"] == {"passed": 2, "failed": 2, "not judged": 0, "skipped": 1}
    assert report["virtual_seconds"] == 15.0
    assert report["readings"] == {"delay-kept": "Q5 text"}
    assert [c["id"] for c in report["criteria"]] == [
        "core.binds", "kep5501.delay", "kep5501.off", "kep5501.once", "suites/test_k.py::test_setup"]
    delay = report["criteria"][1]
    assert delay == {
        "id": "kep5501.delay", "test": "suites/test_k.py::test_delay", "suite": "k", "kep": 5501,
        "section": "Design Details",
        "feature_gates": ON, "run_gates": ON, "status": "failed", "reason": None,
        "message": "condition appeared at 0.1 s\nslice", "reading": "delay-kept", "control": None,
        "scheduler": "reference:no-delay",
        "adapter": "reference:no-delay", "seed": 7, "replay": REPLAY, "virtual_seconds": 5.0, "wall_seconds": 0.01,
        "journal": "suites_test_k.py_test_delay/journal.jsonl", "timeline": "suites_test_k.py_test_delay/timeline.svg",
        "slack": VIRTUAL, "waits": None, "apiserver_feature_gates": None, "apiserver_runtime_config": None}
    off = report["criteria"][2]
    assert (off["status"], off["feature_gates"], off["run_gates"]) == ("skipped", OFF, ON)
    assert off["reason"] == ("needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets "
                             "SchedulerPreEnqueuePodStatus=true (--feature-gates)")
    assert report["criteria"][4]["message"] == "error outside the test body: scheduler did not start"
    assert report["suite_results"] == {"k": {
        "judged": True, "verdict": "failed", "summary": {"passed": 2, "failed": 2, "not judged": 0, "skipped": 1},
        "skip_reasons": [{"reason": GATE_SKIP, "count": 1}], "skipped_because": None}}
    assert (report["not_judged"], report["skipped_suites"], report["verdict_message"]) == ([], [], "")
    assert report["timing_slack"] == VIRTUAL


def test_passes_with_skips_but_not_with_nothing_judged() -> None:
    assert build_report(RECORDS[1:4], INFO)["verdict"] == "passed"
    only_skips = build_report(RECORDS[2:3], INFO)
    assert (only_skips["verdict"], only_skips["verdict_message"]) == (
        "not judged", f'no criterion was judged: every selected criterion was skipped (1 × "{GATE_SKIP}")')
    assert (only_skips["not_judged"], only_skips["skipped_suites"]) == ([], ["k"])
    nothing = build_report([], INFO)
    assert (nothing["verdict"], nothing["verdict_message"]) == (
        "not judged", "no criterion was judged: no criterion ran")
    assert (nothing["suite_results"]["k"]["verdict"], nothing["suite_results"]["k"]["skipped_because"]) == (
        "skipped", "no criterion of it ran")
    crashed = RunInfo(**{**INFO.__dict__, "pytest_exit_code": 3})
    assert (build_report(RECORDS[1:2], crashed)["verdict"], build_report(RECORDS[1:2], crashed)["verdict_message"]) == (
        "failed", "pytest could not run the suites (exit code 3): see pytest.log")


def test_suite_name() -> None:
    assert suite_name("suites/test_core_sanity.py::test_binds[a::b]") == "core_sanity"
    assert suite_name("test_gated.py::TestX::test_y") == "gated"


def test_skip_summary_counts_reasons_most_frequent_first() -> None:
    assert skip_summary(["b", "a", "b", "c", "a", "b"]) == '3 × "b", 2 × "a", 1 × "c"'
    assert skip_summary([]) == ""


def _in(suite: str, test: str, status: str, message: str = "", **extra: Any) -> dict[str, Any]:
    return _record(test, f"{suite}.{test}", status, message, id=f"suites/test_{suite}.py::{test}", **extra)


R1 = "needs feature gate SchedulerAsyncAPICalls=true; this run sets SchedulerAsyncAPICalls=false (--feature-gates)"
R2 = "needs a scheduler: this run has --scheduler none"
MIXED = [_in("a", "t1", "passed"), _in("a", "t2", "skipped", R1, slack=None),
         _in("b", "t1", "skipped", R1, slack=None), _in("b", "t2", "skipped", R2, slack=None),
         _in("b", "t3", "skipped", R1, slack=VIRTUAL)]  # skipped after its scenario started: slack recorded
MIXED_INFO = RunInfo(**{**INFO.__dict__, "suites": ("a", "b", "c"), "readings": {}})


def test_a_suite_with_every_criterion_skipped_is_skipped_and_the_run_still_passes() -> None:
    report = build_report(MIXED, MIXED_INFO)
    assert report["verdict"] == "passed"
    assert (report["skipped_suites"], report["not_judged"]) == (["b", "c"], [])
    assert report["verdict_message"] == "skipped: b, c (every criterion skipped)"
    assert report["suite_results"] == {
        "a": {"judged": True, "verdict": "passed", "summary": {"passed": 1, "failed": 0, "not judged": 0, "skipped": 1},
              "skip_reasons": [{"reason": R1, "count": 1}], "skipped_because": None},
        "b": {"judged": False, "verdict": "skipped",
              "summary": {"passed": 0, "failed": 0, "not judged": 0, "skipped": 3},
              "skip_reasons": [{"reason": R1, "count": 2}, {"reason": R2, "count": 1}],
              "skipped_because": f'every criterion was skipped (2 × "{R1}", 1 × "{R2}")'},
        "c": {"judged": False, "verdict": "skipped",
              "summary": {"passed": 0, "failed": 0, "not judged": 0, "skipped": 0},
              "skip_reasons": [], "skipped_because": "no criterion of it ran"},
    }
    assert [c["suite"] for c in report["criteria"]] == ["a", "a", "b", "b", "b"]
    md = render_markdown(report).splitlines()
    assert md[5] == ("- Verdict: **PASSED**: 1 passed, 0 failed, 0 not judged, 4 skipped; skipped: b, c (every "
                     "criterion skipped)")
    assert md[md.index("## Suites"):md.index("## Suites") + 7] == [
        "## Suites", "",
        "| Suite | Verdict | Passed | Failed | Not judged | Skipped | Skipped because |",
        "|---|---|---|---|---|---|---|",
        f'| a | passed | 1 | 0 | 0 | 1 | 1 × "{R1}" |',
        f'| b | skipped | 0 | 0 | 0 | 3 | 2 × "{R1}", 1 × "{R2}" |',
        "| c | skipped | 0 | 0 | 0 | 0 | no criterion of it ran |",
    ]
    page = render_html(report)
    assert ('<tr><td>b</td><td><span class="skipped">skipped</span></td><td>0</td><td>0</td><td>0</td><td>3</td>'
            f'<td>2 × &quot;{R1}&quot;, 1 × &quot;{R2}&quot;</td></tr>') in page
    assert ('<tr><td>a</td><td><span class="passed">passed</span></td><td>1</td><td>0</td><td>0</td><td>1</td>'
            in page)


def test_a_failure_is_failed_and_still_lists_the_skipped_suites() -> None:
    report = build_report([*MIXED, _in("a", "t3", "failed", "expected one patch")], MIXED_INFO)
    assert (report["verdict"], report["verdict_message"]) == ("failed", "skipped: b, c (every criterion skipped)")


def test_a_run_that_judged_nothing_is_not_judged_with_the_reasons() -> None:
    report = build_report(MIXED[1:], MIXED_INFO)
    assert report["verdict"] == "not judged"
    assert (report["skipped_suites"], report["not_judged"]) == (["a", "b", "c"], [])
    why = f'no criterion was judged: every selected criterion was skipped (3 × "{R1}", 1 × "{R2}")'
    assert report["verdict_message"] == why
    assert report["timing_slack"] == {"early": None, "late": None, "text": "none: no judged scenario ran on a backend"}
    md = render_markdown(report).splitlines()
    assert md[3] == "- Timing slack: none: no judged scenario ran on a backend"
    assert md[5] == f"- Verdict: **NOT JUDGED**: 0 passed, 0 failed, 0 not judged, 4 skipped; {why}"
    page = render_html(report)
    assert "<title>schedharness report: reference:no-delay not judged</title>" in page
    assert ('<li>Verdict: <span class="not-judged">NOT JUDGED</span>: 0 passed, 0 failed, 0 not judged, 4 skipped; no '
            "criterion was judged: every selected criterion was skipped (3 × &quot;") in page


def test_a_criterions_status_is_the_worst_of_its_scenarios() -> None:
    """failed > not judged > passed > skipped: a criterion checked by several scenarios."""
    assert criterion_status(["passed", "not judged", "skipped"]) == "not judged"
    assert criterion_status(["not judged", "failed", "passed"]) == "failed"
    assert criterion_status(["skipped", "passed"]) == "passed"
    assert criterion_status(["skipped", "skipped"]) == "skipped"
    assert criterion_status([]) == "skipped"


def test_counts_are_in_the_order_passed_failed_not_judged_skipped() -> None:
    statuses = ["skipped", "not judged", "passed", "not judged", "failed", "passed", "not judged"]
    counts = counts_of({"status": s} for s in statuses)
    assert list(counts.items()) == [("passed", 2), ("failed", 1), ("not judged", 3), ("skipped", 1)]
    assert count_text(counts) == "2 passed, 1 failed, 3 not judged, 1 skipped"
    assert count_text({}) == "0 passed, 0 failed, 0 not judged, 0 skipped"


NODE_NOT_SEEN = ("set-up: the scheduler must list and watch nodes: expected the scheduler's watch to be handed "
                 "nodes n1 (resourceVersion 12 or later) within 30 s of t=0.000; it was not (no LIST or GET of "
                 "nodes either)")
NJ_REPLAY = ("seed 7; replay: cd /src && python -m pytest suites/test_k.py::test_gated --scheduler=reference:no-delay "
             "--backend=fake --scenario-seed=7")
CUT = "real-time watches cut by --real-time-wait: 120 s as 30 s"
NOT_JUDGED_RECORDS = [
    _record("test_binds", "core.binds", "passed", kep="KEP-0", section="Core"),
    _record("test_gated", "kep5501.gated", "not judged", NODE_NOT_SEEN + "\n", gates=ON, needs=ON,
            replay=NJ_REPLAY),
    _record("test_once", "kep5501.once", "passed", gates=ON, needs=ON, waits=CUT),
]


def test_a_criterion_not_judged_makes_its_suite_and_the_run_not_judged() -> None:
    report = build_report(NOT_JUDGED_RECORDS, INFO)
    assert (report["verdict"], report["verdict_message"]) == (
        "not judged",
        "1 criterion was not judged: the scheduler did not do what judging them needs (see each one's message)")
    assert report["summary"] == {"passed": 2, "failed": 0, "not judged": 1, "skipped": 0}
    assert (report["not_judged"], report["skipped_suites"]) == (["kep5501.gated"], [])
    assert report["suite_results"] == {"k": {
        "judged": True, "verdict": "not judged", "summary": {"passed": 2, "failed": 0, "not judged": 1, "skipped": 0},
        "skip_reasons": [], "skipped_because": None}}
    gated = report["criteria"][1]
    assert (gated["status"], gated["message"], gated["reason"], gated["replay"]) == (
        "not judged", NODE_NOT_SEEN + "\n", None, NJ_REPLAY)
    assert report["criteria"][2]["waits"] == CUT
    two = build_report([*NOT_JUDGED_RECORDS, _record("test_more", "kep5501.more", "not judged", "x")], INFO)
    assert (two["verdict"], two["verdict_message"], two["not_judged"]) == (
        "not judged",
        "2 criteria were not judged: the scheduler did not do what judging them needs (see each one's message)",
        ["kep5501.gated", "kep5501.more"])


def test_a_failure_outweighs_a_criterion_not_judged() -> None:
    report = build_report([*NOT_JUDGED_RECORDS, RECORDS[0]], INFO)
    assert (report["verdict"], report["verdict_message"]) == ("failed", "1 not judged")
    assert report["suite_results"]["k"]["verdict"] == "failed"
    assert render_markdown(report).splitlines()[5] == (
        "- Verdict: **FAILED**: 2 passed, 1 failed, 1 not judged, 0 skipped; 1 not judged")
    skipped_too = build_report([*NOT_JUDGED_RECORDS, RECORDS[0], _in("b", "t1", "skipped", R1)],
                               RunInfo(**{**INFO.__dict__, "suites": ("k", "b")}))
    assert skipped_too["verdict_message"] == "1 not judged; skipped: b (every criterion skipped)"


def test_the_markdown_has_a_not_judged_section_and_the_cut_beside_the_verdict() -> None:
    md = render_markdown(build_report(NOT_JUDGED_RECORDS, INFO))
    assert "- Verdict: **NOT JUDGED**: 2 passed, 0 failed, 1 not judged, 0 skipped; 1 criterion was not judged: " \
        "the scheduler did not do what judging them needs (see each one's message)\n" in md
    assert "| k | **not judged** | 2 | 0 | 1 | 0 |  |\n" in md
    assert "met 1 · failed 0 · not judged 1 · skipped 0\n" in md
    assert ("| kep5501.gated | KEP-5501 | Design Details | not judged |  | "
            "[journal](suites_test_k.py_test_gated/journal.jsonl) · "
            "[timeline](suites_test_k.py_test_gated/timeline.svg) |\n") in md
    assert ("| kep5501.once | KEP-5501 | Design Details | passed (real-time watches cut by --real-time-wait: 120 s as "
            "30 s) |  | ") in md
    assert "## Failures" not in md
    assert md[md.index("## Not judged"):] == f"""\
## Not judged

The scheduler did not do what judging these needs; each fails the run (exit code 3, or 1 when a criterion failed).

### kep5501.gated (`suites/test_k.py::test_gated`)

KEP-5501 Design Details

```
{NODE_NOT_SEEN}
```

Replay: `seed 7; replay: cd /src && python -m pytest suites/test_k.py::test_gated --scheduler=reference:no-delay \
--backend=fake --scenario-seed=7`

[journal](suites_test_k.py_test_gated/journal.jsonl) · [timeline](suites_test_k.py_test_gated/timeline.svg)
"""


def test_the_html_has_a_not_judged_section_in_its_own_colour() -> None:
    page = render_html(build_report(NOT_JUDGED_RECORDS, INFO))
    assert ".not-judged{color:#e65100;font-weight:600}" in page
    assert ('<li>Verdict: <span class="not-judged">NOT JUDGED</span>: 2 passed, 0 failed, 1 not judged, 0 skipped; 1 '
            "criterion was not judged: the scheduler did not do what judging them needs (see each one&#x27;s "
            "message)</li>") in page
    assert ('<tr><td>k</td><td><span class="not-judged">not judged</span></td><td>2</td><td>0</td><td>1</td><td>0</td>'
            "<td></td></tr>") in page
    assert ('<td>Design Details</td><td><span class="not-judged">not judged</span></td><td></td>'
            '<td><a href="suites_test_k.py_test_gated/journal.jsonl">journal</a>') in page
    assert ('<td><span class="passed">passed</span> (real-time watches cut by --real-time-wait: 120 s as 30 s)</td>'
            in page)
    assert "<h2>Failures</h2>" not in page
    section = page[page.index('<h2 class="not-judged">Not judged</h2>'):page.index("<h2>Scenarios</h2>")]
    assert section == (
        '<h2 class="not-judged">Not judged</h2>\n'
        "<p>The scheduler did not do what judging these needs; each fails the run (exit code 3, or 1 when a criterion "
        "failed).</p>\n"
        "<h3>kep5501.gated (<code>suites/test_k.py::test_gated</code>)</h3>\n"
        "<p>KEP-5501 Design Details</p>\n"
        "<pre>set-up: the scheduler must list and watch nodes: expected the scheduler&#x27;s watch to be handed "
        "nodes n1 (resourceVersion 12 or later) within 30 s of t=0.000; it was not (no LIST or GET of nodes "
        "either)\n</pre>\n"
        "<p>Replay: <code>seed 7; replay: cd /src &amp;&amp; python -m pytest suites/test_k.py::test_gated "
        "--scheduler=reference:no-delay --backend=fake --scenario-seed=7</code></p>\n")
    assert ('<details id="suites/test_k.py::test_gated" open><summary><span class="not-judged">not judged</span> '
            "kep5501.gated") in page


JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites name="pytest tests"><testsuite name="schedharness" errors="0" failures="3" skipped="1" tests="5">
<testcase classname="suites.test_k" name="test_binds" time="0.1" />
<testcase classname="suites.test_k" name="test_gated[a.b]" time="0.2"><failure message="harness._scenario.expectations.\
NotJudged: set-up: the scheduler must list and watch nodes">traceback</failure></testcase>
<testcase classname="suites.test_k" name="test_delay" time="0.3"><failure message="AssertionError: \
condition appeared at 0.1 s">traceback</failure></testcase>
<testcase classname="my.scenarios.test_user.TestC" name="test_alive" time="0.4"><failure message="NotJudged: \
the control">traceback</failure></testcase>
<testcase classname="suites.test_k" name="test_off" time="0.0"><skipped type="pytest.skip" message="needs feature \
gate">reason</skipped></testcase>
</testsuite></testsuites>
"""


def test_junit_shows_a_criterion_not_judged_as_an_error_of_its_own_type(tmp_path: Path) -> None:
    """pytest writes a <failure> for a test that raised NotJudged; the report makes it an <error>
    of type "not judged", found by the test's id however its folders and parameters are dotted,
    and counts the suite's failures and errors again. A judged failure and a skip stay."""
    junit = tmp_path / "junit.xml"
    junit.write_text(JUNIT)
    criteria: list[dict[str, Any]] = [
        {"test": "suites/test_k.py::test_gated[a.b]", "status": "not judged", "message": "set-up: x"},
        {"test": "my.scenarios/test_user.py::TestC::test_alive", "status": "not judged",
         "message": "the control never happened"},
        {"test": "suites/test_k.py::test_delay", "status": "failed", "message": "condition appeared"},
        {"test": "suites/test_k.py::test_off", "status": "skipped", "message": None}]
    assert mark_not_judged(junit, criteria) == 2
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert {k: suite.get(k) for k in ("errors", "failures", "skipped", "tests")} == {
        "errors": "2", "failures": "1", "skipped": "1", "tests": "5"}
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    gated = cases["test_gated[a.b]"]
    assert [(e.tag, e.get("type"), e.get("message"), e.text) for e in gated] == [
        ("error", "not judged", "not judged: set-up: x", "traceback")]
    assert [(e.tag, e.get("type"), e.get("message")) for e in cases["test_alive"]] == [
        ("error", "not judged", "not judged: the control never happened")]
    assert [(e.tag, e.get("message")) for e in cases["test_delay"]] == [
        ("failure", "AssertionError: condition appeared at 0.1 s")]
    assert [e.tag for e in cases["test_off"]] == ["skipped"]
    assert list(cases["test_binds"]) == []
    assert mark_not_judged(tmp_path / "missing.xml", criteria) == 0
    assert not (tmp_path / "missing.xml").exists()


def test_a_criterion_not_judged_in_a_fixture_keeps_its_error_with_the_type(tmp_path: Path) -> None:
    """pytest writes a set-up's exception as an untyped <error>: it gets the type and message."""
    junit = tmp_path / "junit.xml"
    junit.write_text('<testsuites><testsuite name="schedharness" errors="1" failures="0" skipped="0" tests="1">'
                     '<testcase classname="scen.x.yaml" name="binds"><error message="failed on setup with '
                     '&quot;NotJudged&quot;">tb</error></testcase></testsuite></testsuites>')
    assert mark_not_judged(junit, [{"test": "scen/x.yaml::binds", "status": "not judged", "message": "m"}]) == 1
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("errors"), suite.get("failures")) == ("1", "0")
    assert [(e.tag, e.get("type"), e.get("message")) for e in suite.iter("error")] == [
        ("error", "not judged", "not judged: m")]


def test_timing_slack_is_the_judged_scenarios_and_says_so_when_it_varies() -> None:
    real = build_report([_in("a", "t1", "passed", slack=REAL_TIME), _in("a", "t2", "skipped", R2, slack=VIRTUAL)],
                        MIXED_INFO)
    assert real["timing_slack"] == REAL_TIME
    md = render_markdown(real).splitlines()
    assert md[2:4] == ["- Scheduler: `reference:no-delay` on backend `fake`; feature gates: "
                       "SchedulerPreEnqueuePodStatus=true; seed 7",
                       "- Timing slack: a write may land 0.05 s before and 2 s after the time a criterion names"]
    assert ("<li>Timing slack: a write may land 0.05 s before and 2 s after the time a criterion names</li>"
            in render_html(real))
    mixed = build_report([_in("a", "t1", "passed", slack=REAL_TIME), _in("a", "t2", "failed", "x", slack=VIRTUAL),
                          _in("a", "t3", "passed", slack=VIRTUAL)], MIXED_INFO)
    assert mixed["timing_slack"] == {
        "early": None, "late": None,
        "text": "varies by scenario: a write may land 0.01 s before and 0.2 s after the time a criterion names "
                "(2 scenarios); a write may land 0.05 s before and 2 s after the time a criterion names (1 scenario)"}


def test_the_api_servers_gates_are_named_beside_its_version() -> None:
    """One set for every scenario: that set; several (the fake follows each scenario's scheduler
    gates): each once; none known (a cluster the run did not start): null."""
    kep5836 = {"InPlacePodVerticalScalingSchedulerPreemption": True}
    same = [{**r, "server_version": "v1.37.0-schedharness", "apiserver_feature_gates": kep5836} for r in RECORDS]
    report = build_report(same, INFO)
    assert report["apiserver_feature_gates"] == kep5836
    assert report["criteria"][0]["apiserver_feature_gates"] == kep5836
    assert "- API server: v1.37.0-schedharness; feature gates: InPlacePodVerticalScalingSchedulerPreemption=true\n" \
        in render_markdown(report)
    mixed = [{**r, "apiserver_feature_gates": kep5836 if i % 2 else {}} for i, r in enumerate(RECORDS)]
    report = build_report(mixed, INFO)
    assert report["apiserver_feature_gates"] == [kep5836, {}]
    assert "feature gates: per scenario: InPlacePodVerticalScalingSchedulerPreemption=true; release defaults" \
        in render_markdown(report)
    assert "<li>API server: ?; feature gates: per scenario: " in render_html(report)
    assert build_report(RECORDS, INFO)["apiserver_feature_gates"] is None


def test_markdown_tables_failures_and_readings() -> None:
    md = render_markdown(build_report(RECORDS, INFO))
    assert md == """\
# schedharness report

- Scheduler: `reference:no-delay` on backend `fake`; feature gates: SchedulerPreEnqueuePodStatus=true; seed 7
- Timing slack: a write may land 0.01 s before and 0.2 s after the time a criterion names
- Started 2026-11-22T06:00:00Z, finished 2026-11-22T06:00:03Z: 3.25 s wall, 15 s virtual
- Verdict: **FAILED**: 2 passed, 2 failed, 0 not judged, 1 skipped
- A criterion is skipped only for a declared reason that does not depend on the scheduler (the run's feature \
gates, the API server's release, the backend's capabilities, an absent tool); the reason is shown. A criterion the \
scheduler left nothing to judge (a set-up wait that timed out, a control that never happened, a wait cut short) is \
not judged: that fails the run (exit code 3), as a failed criterion does (exit code 1). The run passes (exit code \
0) when no criterion failed or was not judged and at least one passed; the suites whose criteria were all skipped \
are listed with its verdict.
- Suites version {SUITE_VERSION} (criteria catalog: `schedharness criteria`)
- The fake API server's schemas: kubernetes-validate {SCHEMA_PACKAGE_VERSION}, Kubernetes v1.37.0
- API server: ?; feature gates: not known
- Command: `python -m pytest suites/test_k.py`

## Suites

| Suite | Verdict | Passed | Failed | Not judged | Skipped | Skipped because |
|---|---|---|---|---|---|---|
| k | **failed** | 2 | 2 | 0 | 1 | 1 × "needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets \
SchedulerPreEnqueuePodStatus=true (--feature-gates)" |

## no feature gate needed

met 1 · failed 0 · not judged 0 · skipped 0

| Criterion | KEP | Section | Verdict | Reading | Artifacts |
|---|---|---|---|---|---|
| core.binds | KEP-0 | Core | passed |  | [journal](suites_test_k.py_test_binds/journal.jsonl) · \
[timeline](suites_test_k.py_test_binds/timeline.svg) |

## SchedulerPreEnqueuePodStatus=false

met 0 · failed 0 · not judged 0 · skipped 1

| Criterion | KEP | Section | Verdict | Reading | Artifacts |
|---|---|---|---|---|---|
| kep5501.off | KEP-5501 | Design Details | skipped: needs feature gate SchedulerPreEnqueuePodStatus=false; \
this run sets SchedulerPreEnqueuePodStatus=true (--feature-gates) |  |  |

## SchedulerPreEnqueuePodStatus=true

met 1 · failed 2 · not judged 0 · skipped 0

| Criterion | KEP | Section | Verdict | Reading | Artifacts |
|---|---|---|---|---|---|
| kep5501.delay | KEP-5501 | Design Details | failed | delay-kept | \
[journal](suites_test_k.py_test_delay/journal.jsonl) · [timeline](suites_test_k.py_test_delay/timeline.svg) |
| kep5501.once | KEP-5501 | Design Details | passed | plain reading | \
[journal](suites_test_k.py_test_once/journal.jsonl) · [timeline](suites_test_k.py_test_once/timeline.svg) |
| suites/test_k.py::test_setup | KEP-5501 | Design Details | failed |  | \
[journal](suites_test_k.py_test_setup/journal.jsonl) · [timeline](suites_test_k.py_test_setup/timeline.svg) |

## Failures

### kep5501.delay (`suites/test_k.py::test_delay`)

KEP-5501 Design Details

```
condition appeared at 0.1 s
slice
```

Replay: `seed 7; replay: cd /src && python -m pytest suites/test_k.py::test_delay --scheduler=reference:no-delay \
--backend=fake --scenario-seed=7`

[journal](suites_test_k.py_test_delay/journal.jsonl) · [timeline](suites_test_k.py_test_delay/timeline.svg)

### suites/test_k.py::test_setup (`suites/test_k.py::test_setup`)

KEP-5501 Design Details

```
error outside the test body: scheduler did not start
```

[journal](suites_test_k.py_test_setup/journal.jsonl) · [timeline](suites_test_k.py_test_setup/timeline.svg)

## Readings

- **delay-kept**: Q5 text
""".replace("{SUITE_VERSION}", SUITE_VERSION).replace("{SCHEMA_PACKAGE_VERSION}", version("kubernetes-validate"))


def test_write_report_files_and_html(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    report = write_report(tmp_path, load_results(results), INFO)
    assert json.loads((tmp_path / "report.json").read_text()) == report
    page = (tmp_path / "report.html").read_text()
    assert page.count('<table class="criteria">') == 3
    assert "<li>Timing slack: a write may land 0.01 s before and 0.2 s after the time a criterion names</li>" in page
    assert ('<li>Verdict: <span class="failed">FAILED</span>: 2 passed, 2 failed, 0 not judged, 1 skipped</li>') in page
    assert ('<tr><td>k</td><td><span class="failed">failed</span></td><td>2</td><td>2</td><td>0</td><td>1</td>'
            f'<td>1 × &quot;{GATE_SKIP}&quot;</td></tr>') in page
    assert ('<tr><td><a href="#suites/test_k.py::test_delay">kep5501.delay</a></td><td>KEP-5501</td>'
            '<td>Design Details</td><td><span class="failed">failed</span></td>'
            '<td><span title="Q5 text">delay-kept</span></td>'
            '<td><a href="suites_test_k.py_test_delay/journal.jsonl">journal</a> · '
            '<a href="suites_test_k.py_test_delay/timeline.svg">timeline</a></td></tr>') in page
    assert ('<img class="timeline" loading="lazy" src="suites_test_k.py_test_delay/timeline.svg" '
            'alt="timeline of suites/test_k.py::test_delay">') in page
    assert "<pre>condition appeared at 0.1 s\nslice</pre>" in page


def test_html_escapes_values() -> None:
    evil = _record("test_x", "<script>", "failed", "a < b & c", needs={})
    page = render_html(build_report([evil], INFO))
    assert "<script>" not in page
    assert "&lt;script&gt;" in page and "<pre>a &lt; b &amp; c</pre>" in page


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.mark.skipif(_chromium() is None, reason="no Chromium: install Debian's chromium for the screenshot test")
def test_html_opens_in_headless_chromium(tmp_path: Path) -> None:
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="50"><rect width="200" height="50" '
           'fill="#81c784"/></svg>')
    for r in RECORDS:
        if r["timeline"]:
            (tmp_path / r["timeline"]).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / r["timeline"]).write_text(svg)
    write_report(tmp_path, RECORDS, INFO)
    page = (tmp_path / "report.html").read_text()
    assert '<table class="criteria">' in page and '<img class="timeline"' in page
    shot = tmp_path / "report.png"
    chromium = _chromium()
    assert chromium is not None
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1280,2000",
                    (tmp_path / "report.html").as_uri()], check=True, capture_output=True, timeout=120)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_the_api_servers_runtime_config_is_named_beside_its_gates() -> None:
    """Records carry each scenario's runtime config; the report gives the one set, or each set
    once, and the header names it beside the gates when one was set (release defaults and not
    known say nothing there)."""
    beta = {"scheduling.k8s.io/v1beta1": "true"}
    same = [{**r, "apiserver_feature_gates": {}, "apiserver_runtime_config": beta} for r in RECORDS]
    report = build_report(same, INFO)
    assert report["apiserver_runtime_config"] == beta
    assert report["criteria"][0]["apiserver_runtime_config"] == beta
    assert "- API server: ?; feature gates: release defaults; runtime config: scheduling.k8s.io/v1beta1=true\n" \
        in render_markdown(report)
    assert "<li>API server: ?; feature gates: release defaults; runtime config: scheduling.k8s.io/v1beta1=true</li>" \
        in render_html(report)
    mixed = [{**r, "apiserver_runtime_config": beta if i % 2 else {}} for i, r in enumerate(RECORDS)]
    report = build_report(mixed, INFO)
    assert report["apiserver_runtime_config"] == [beta, {}]  # one per distinct set, in JSON text order
    assert "runtime config: per scenario: scheduling.k8s.io/v1beta1=true; release defaults\n" in render_markdown(report)
    defaults = build_report([{**r, "apiserver_runtime_config": {}} for r in RECORDS], INFO)
    assert defaults["apiserver_runtime_config"] == {}
    assert "runtime config" not in render_markdown(defaults)
    assert build_report(RECORDS, INFO)["apiserver_runtime_config"] is None
