"""The KEP-5501 prototype (``prototypes/kep5501``): its Go unit tests pass, and kube-scheduler
v1.37.2 built with it meets the KEP-5501 suites on the fake.

* The Go unit tests of every package the series changes run with ``schedharness k8s test``
  (``go test`` on the release's module source with the series applied, Go's build cache shared
  with the build). Skipped without ``go`` on the path, or when the Go module proxy cannot be
  reached (the release's source comes from it).
* The suites run against the binary named by ``SCHEDHARNESS_KEP5501_SCHEDULER`` (``.ci/run``
  names the one ``schedharness k8s build 1.37.2 --patch prototypes/kep5501`` made), with each
  scenario's gates, on real time with watches up to 310 s so that every criterion is judged; the
  scenarios run in parallel, so the run takes about six minutes. Skipped without the binary.
* With the gate off the prototype judges as v1.37.2 does: the committed verdict digests of its
  columns (``docs/compatibility/``) agree criterion by criterion.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from harness._backends.k8sbuild import BuildError
from harness._backends.k8spatch import read_patches, run_go_tests, touched_packages
from harness._runs.compatibility import KEP5501_SUITES
from harness._runs.run import RunOptions, run_suites
from tests.support.paths import ROOT

SERIES = ROOT / "prototypes" / "kep5501"
RELEASE = "1.37.2"
BINARY = os.environ.get("SCHEDHARNESS_KEP5501_SCHEDULER") or ""
#: Criteria the prototype does not meet as written, each a finding of docs/kep5501-prototype.md.
FINDINGS: dict[str, str] = {}
#: Steps of the build whose failure means the Go module proxy could not be reached.
OFFLINE_STEPS = {"resolve version", "download", "resolve modules"}


def test_the_series_changes_the_packages_its_readme_names() -> None:
    series = read_patches([SERIES])
    assert [Path(p.path).name[:4] for p in series] == [f"{n:04d}" for n in range(1, len(series) + 1)]
    packages = touched_packages(series, ["k8s.io/api", "k8s.io/kube-scheduler"])
    readme = (SERIES / "README.md").read_text()
    for package in ("pkg/features", "pkg/scheduler/backend/api_dispatcher", "pkg/scheduler/backend/queue",
                    "pkg/scheduler/framework/api_calls"):
        assert f"k8s.io/kubernetes/{package}" in packages
        assert package.rsplit("/", 1)[-1] in readme, f"the README does not say what the series does to {package}"


@pytest.mark.skipif(shutil.which("go") is None, reason="no `go` on the path: the series is Go")
def test_the_prototypes_go_unit_tests_pass(capfd: pytest.CaptureFixture[str]) -> None:
    try:
        code = run_go_tests(RELEASE, [SERIES])
    except BuildError as e:
        if e.step in OFFLINE_STEPS:
            pytest.skip(f"the Go module proxy could not be reached: {e}")
        raise
    out, err = capfd.readouterr()
    assert code == 0, f"go test failed (exit {code}):\n{(out + err)[-6000:]}"
    assert "FAIL" not in out and out.count("ok  \t") >= 6, out[-3000:]


@pytest.mark.skipif(not (BINARY and os.access(BINARY, os.X_OK)),
                    reason="set SCHEDHARNESS_KEP5501_SCHEDULER to the prototype's kube-scheduler "
                           "(schedharness k8s build 1.37.2 --patch prototypes/kep5501)")
def test_the_prototype_meets_the_kep5501_suites_on_the_fake(tmp_path: Path) -> None:
    command = f"cmd:{BINARY} --config={{config}} --secure-port=0 -v=2 --feature-gates={{feature_gates}}"
    result = run_suites(RunOptions(scheduler=command, suites=KEP5501_SUITES, report_dir=tmp_path / "report",
                                   timeline=False, jobs=12, real_time_wait=310.0), progress=lambda line: None)
    records = {r["id"]: r for r in result.report["criteria"]}
    assert len(records) >= 45
    verdicts = {cid: r["status"] for cid, r in records.items()}
    expected = {cid: "failed" if cid in FINDINGS else "passed" for cid in records}
    differ = {cid: f"{verdicts[cid]}: {records[cid]['message'][:600]}" for cid in records
              if verdicts[cid] != expected[cid]}
    assert differ == {}, f"the prototype's verdicts differ from docs/kep5501-prototype.md: {json.dumps(differ, indent=1)}"


def _column(key: str, backend: str) -> dict[str, str]:
    digest = json.loads((ROOT / "docs" / "compatibility" / f"{key}-{backend}.json").read_text())
    return {cid: v["status"] for cid, v in digest["criteria"].items()}


@pytest.mark.parametrize("backend", ["fake", "envtest"])
def test_with_the_gate_off_the_prototype_judges_as_v1_37_2_does(backend: str) -> None:
    release, prototype = _column("v1.37", backend), _column("v1.37-kep5501-off", backend)
    assert len(prototype) == len(release) >= 79
    assert {cid: (release.get(cid), verdict) for cid, verdict in prototype.items() if release.get(cid) != verdict} == {}


@pytest.mark.parametrize("backend", ["fake", "envtest"])
def test_the_committed_column_matches_the_findings(backend: str) -> None:
    verdicts = _column("v1.37-kep5501", backend)
    assert len(verdicts) >= 45
    assert {cid: v for cid, v in verdicts.items() if v != ("failed" if cid in FINDINGS else "passed")} == {}
