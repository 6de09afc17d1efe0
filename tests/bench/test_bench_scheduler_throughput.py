"""``bench/bench_scheduler_throughput.py``'s client settings, without timing anything.

The bench runs kube-scheduler once per ``--qps`` setting and labels each run with the QPS and
burst its client used. Those labels are only right if ``default`` really leaves kube-scheduler
its own defaults and a raised setting really reaches its client: checked here against the real
binary, which writes the configuration it would run with (defaults applied) on
``--write-config-to`` and exits. The expected 50 and 100 are kube-scheduler's
(``SetDefaults_KubeSchedulerConfiguration``, pkg/scheduler/apis/config/v1/defaults.go, v1.35.4
and v1.37.2), and what the binaries wrote when asked.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from bench_scheduler_throughput import ClientSetting, parse_client_setting, scheduler_config  # noqa: E402

SCHEDULERS = [p for p in os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER", "").split(":") if p]


@pytest.mark.parametrize(("text", "qps", "burst", "label"), [
    ("default", None, None, "default 50/100"),
    ("5000/10000", 5000.0, 10000, "raised 5000/10000"),
    ("200", 200.0, 400, "raised 200/400"),  # --help: QPS alone means burst 2*QPS
    ("12.5/20", 12.5, 20, "set 12.5/20"),
])
def test_settings_parse_as_the_help_says(text: str, qps: float | None, burst: int | None, label: str) -> None:
    setting = parse_client_setting(text)
    assert (setting.qps, setting.burst, setting.label()) == (qps, burst, label)


@pytest.mark.parametrize("text", ["0", "-5", "fast", "100/0", "100/", "/100", ""])
def test_a_setting_that_is_no_rate_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError,
                       match=rf"^{text!r}: give 'default', QPS or QPS/BURST \(positive numbers\)$"):
        parse_client_setting(text)


def test_the_default_setting_names_no_qps_or_burst() -> None:
    config = yaml.safe_load(scheduler_config(Path("/k"), ClientSetting(), "application/json"))
    assert config["clientConnection"] == {"kubeconfig": "/k", "contentType": "application/json"}


@pytest.mark.skipif(not SCHEDULERS, reason="no kube-scheduler binary: set SCHEDHARNESS_KUBE_SCHEDULER")
@pytest.mark.parametrize("binary", SCHEDULERS)
@pytest.mark.parametrize("text", ["default", "5000/10000", "200"])
def test_kube_scheduler_runs_with_the_labelled_qps_and_burst(binary: str, text: str, tmp_path: Path) -> None:
    setting = parse_client_setting(text)
    config, written, kubeconfig = tmp_path / "in.yaml", tmp_path / "out.yaml", tmp_path / "kubeconfig"
    kubeconfig.write_text(  # read, never dialled: the binary writes its configuration and exits
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:1'}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n")
    config.write_text(scheduler_config(kubeconfig, setting, "application/json"))
    subprocess.run([binary, f"--config={config}", f"--write-config-to={written}"],
                   check=True, capture_output=True, timeout=60)
    client = yaml.safe_load(written.read_text())["clientConnection"]
    assert setting.label().endswith(f" {client['qps']:g}/{client['burst']}")
    if text == "default":
        assert (client["qps"], client["burst"]) == (50, 100)
