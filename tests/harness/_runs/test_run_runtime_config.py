"""``schedharness run --runtime-config``: the option on pytest's command line, its usage errors
(exit code 2, one message naming the option) and a run whose report carries each scenario's API
server runtime config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._runs.run import RunOptions, run_argv
from harness.cli import main

GANG = '''
import pytest

GROUP = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"},
         "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}

@pytest.mark.criterion("mine.podgroup")
@pytest.mark.feature_gates(GenericWorkload=True)
@pytest.mark.runtime_config("scheduling.k8s.io/v1beta1=true")
async def test_a_podgroup_is_made(sh_backend):
    from harness._backends.scenario_client import ScenarioClient
    client = ScenarioClient(sh_backend.url)
    try:
        await client.request("POST", "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups", body=GROUP)
    finally:
        await client.close()

@pytest.mark.criterion("mine.plain")
async def test_plain(sh_backend):
    pass
'''


def test_each_value_is_passed_on_to_pytest(tmp_path: Path) -> None:
    options = RunOptions(runtime_config=("scheduling.k8s.io/v1beta1=true", "coordination.k8s.io/v1beta1"))
    argv = run_argv([Path("suites/test_x.py")], tmp_path, "reference", options)
    assert [a for a in argv if a.startswith("--runtime-config")] == [
        "--runtime-config=scheduling.k8s.io/v1beta1=true", "--runtime-config=coordination.k8s.io/v1beta1"]
    assert not [a for a in run_argv([], tmp_path, "reference", RunOptions()) if a.startswith("--runtime-config")]


@pytest.mark.parametrize(("argv", "message"), [
    (["--runtime-config", "scheduling.k8s.io/v9=true"],
     "--runtime-config: the fake API server (Kubernetes v1.37.0) refuses it: group version scheduling.k8s.io/v9 that "
     "has not been registered"),
    (["--runtime-config", "scheduling.k8s.io/v1beta1=true", "--kubernetes-version", "1.36"],
     "--runtime-config: the fake API server (Kubernetes v1.36.0) refuses it: group version scheduling.k8s.io/v1beta1 "
     "that has not been registered"),
    (["--runtime-config", "scheduling.k8s.io/v1beta1=true", "--runtime-config", "nosuch.example.com/v1"],
     "--runtime-config: the fake API server (Kubernetes v1.37.0) refuses it: unknown api groups nosuch.example.com/v1"),
    (["--runtime-config", "scheduling.k8s.io/v1beta1=true", "--backend", "kubeconfig:/nowhere"],
     "--runtime-config sets what an API server the run starts serves: with --backend kubeconfig:/nowhere the "
     "cluster's own kube-apiserver has its flags already"),
])
def test_a_runtime_config_that_cannot_be_used_is_a_usage_error(argv: list[str], message: str,
                                                               capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    assert main(["run", *argv, "--report-dir", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == f"schedharness run: {message}\n"
    assert not (tmp_path / "r").exists()


def test_a_run_records_each_scenarios_runtime_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_gang.py").write_text(GANG)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--scheduler", "none", "--runtime-config", "coordination.k8s.io/v1beta1=true",
                 "--report-dir", "r", "--no-timeline", "test_gang.py"]) == 0
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    configs = {c["id"]: c["apiserver_runtime_config"] for c in report["criteria"]}
    assert configs == {
        "mine.podgroup": {"scheduling.k8s.io/v1beta1": "true", "coordination.k8s.io/v1beta1": "true"},
        "mine.plain": {"coordination.k8s.io/v1beta1": "true"}}
    assert {c["id"]: c["status"] for c in report["criteria"]} == {"mine.podgroup": "passed", "mine.plain": "passed"}
    assert "--runtime-config=coordination.k8s.io/v1beta1=true" in report["command"]
    assert "; runtime config: per scenario: coordination.k8s.io/v1beta1=true,scheduling.k8s.io/v1beta1=true; " \
           "coordination.k8s.io/v1beta1=true\n" in (tmp_path / "r" / "report.md").read_text()
