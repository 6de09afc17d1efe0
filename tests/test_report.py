"""Report rendering from crafted ``results.jsonl`` records: exact tables, failures, the HTML."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness._report import RunInfo, build_report, gate_label, load_results, render_markdown, write_report

ON = {"SchedulerPreEnqueuePodStatus": True}
OFF = {"SchedulerPreEnqueuePodStatus": False}
REPLAY = ("seed 7; replay: cd /src && python -m pytest suites/test_k.py::test_delay --scheduler=reference:no-delay "
          "--backend=fake --scenario-seed=7")


def _record(test: str, criterion: str | None, status: str, message: str = "", **extra: Any) -> dict[str, Any]:
    record = {"id": f"suites/test_k.py::{test}", "criterion": criterion, "kep": 5501, "section": "Design Details",
              "gates": {}, "reading": None, "status": status, "message": message, "scheduler": "reference:no-delay",
              "adapter": "reference:no-delay", "seed": 7, "virtual_seconds": 5.0, "wall_seconds": 0.01,
              "journal": f"suites_test_k.py_{test}/journal.jsonl", "timeline": f"suites_test_k.py_{test}/timeline.svg"}
    record.update(extra)
    return record


RECORDS = [
    _record("test_delay", "kep5501.delay", "failed", "condition appeared at 0.1 s\nslice", gates=ON, needs=ON,
            reading="Q5 text", replay=REPLAY),
    _record("test_binds", "core.binds", "passed", kep="KEP-0", section="Core"),
    _record("test_off", "kep5501.off", "skipped",
            "needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets SchedulerPreEnqueuePodStatus=true "
            "(--feature-gates)", gates=ON, needs=OFF, virtual_seconds=None, journal=None, timeline=None),
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
    assert report["summary"] == {"passed": 2, "failed": 2, "skipped": 1}
    assert report["virtual_seconds"] == 15.0
    assert report["readings"] == {"delay-kept": "Q5 text"}
    assert [c["id"] for c in report["criteria"]] == [
        "core.binds", "kep5501.delay", "kep5501.off", "kep5501.once", "suites/test_k.py::test_setup"]
    delay = report["criteria"][1]
    assert delay == {
        "id": "kep5501.delay", "test": "suites/test_k.py::test_delay", "kep": 5501, "section": "Design Details",
        "feature_gates": ON, "run_gates": ON, "status": "failed", "reason": None,
        "message": "condition appeared at 0.1 s\nslice", "reading": "delay-kept", "scheduler": "reference:no-delay",
        "adapter": "reference:no-delay", "seed": 7, "replay": REPLAY, "virtual_seconds": 5.0, "wall_seconds": 0.01,
        "journal": "suites_test_k.py_test_delay/journal.jsonl", "timeline": "suites_test_k.py_test_delay/timeline.svg"}
    off = report["criteria"][2]
    assert (off["status"], off["feature_gates"], off["run_gates"]) == ("skipped", OFF, ON)
    assert off["reason"] == ("needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets "
                             "SchedulerPreEnqueuePodStatus=true (--feature-gates)")
    assert report["criteria"][4]["message"] == "error outside the test body: scheduler did not start"


def test_passes_with_skips_but_not_with_nothing_run() -> None:
    assert build_report(RECORDS[1:4], INFO)["verdict"] == "passed"
    assert build_report(RECORDS[2:3], INFO)["verdict"] == "failed"
    assert build_report([], INFO)["verdict"] == "failed"
    crashed = RunInfo(**{**INFO.__dict__, "pytest_exit_code": 3})
    assert build_report(RECORDS[1:2], crashed)["verdict"] == "failed"


def test_markdown_tables_failures_and_readings() -> None:
    md = render_markdown(build_report(RECORDS, INFO))
    assert md == """\
# schedharness report

- Scheduler: `reference:no-delay` on backend `fake`; feature gates: SchedulerPreEnqueuePodStatus=true; seed 7
- Started 2026-11-22T06:00:00Z, finished 2026-11-22T06:00:03Z: 3.25 s wall, 15 s virtual
- Verdict: **FAILED**: 2 passed, 2 failed, 1 skipped
- A skipped criterion is not a failure: the run's feature gates or scheduler adapter exclude it (the reason is \
shown). The run passes when no criterion failed and at least one ran.
- Command: `python -m pytest suites/test_k.py`

## no feature gate needed

met 1 · failed 0 · skipped 0

| Criterion | KEP | Section | Verdict | Reading | Artifacts |
|---|---|---|---|---|---|
| core.binds | KEP-0 | Core | passed |  | [journal](suites_test_k.py_test_binds/journal.jsonl) · \
[timeline](suites_test_k.py_test_binds/timeline.svg) |

## SchedulerPreEnqueuePodStatus=false

met 0 · failed 0 · skipped 1

| Criterion | KEP | Section | Verdict | Reading | Artifacts |
|---|---|---|---|---|---|
| kep5501.off | KEP-5501 | Design Details | skipped: needs feature gate SchedulerPreEnqueuePodStatus=false; \
this run sets SchedulerPreEnqueuePodStatus=true (--feature-gates) |  |  |

## SchedulerPreEnqueuePodStatus=true

met 1 · failed 2 · skipped 0

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
"""


def test_write_report_files_and_html(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    report = write_report(tmp_path, load_results(results), INFO)
    assert json.loads((tmp_path / "report.json").read_text()) == report
    page = (tmp_path / "report.html").read_text()
    assert page.count('<table class="criteria">') == 3
    assert ('<tr><td><a href="#suites/test_k.py::test_delay">kep5501.delay</a></td><td>KEP-5501</td>'
            '<td>Design Details</td><td><span class="failed">failed</span></td>'
            '<td><span title="Q5 text">delay-kept</span></td>'
            '<td><a href="suites_test_k.py_test_delay/journal.jsonl">journal</a> · '
            '<a href="suites_test_k.py_test_delay/timeline.svg">timeline</a></td></tr>') in page
    assert ('<img class="timeline" loading="lazy" src="suites_test_k.py_test_delay/timeline.svg" '
            'alt="timeline of suites/test_k.py::test_delay">') in page
    assert "<pre>condition appeared at 0.1 s\nslice</pre>" in page


def test_html_escapes_values() -> None:
    from harness._report import render_html

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
