"""The suites on a real cluster's backends, end to end, in other processes: ``--backend
kubeconfig:PATH`` against ``schedharness serve``, and ``--backend kind`` with stand-in ``kind`` and
``docker`` executables whose "cluster" is ``schedharness serve`` (the whole lifecycle: create,
prepare, a fault proxy per scenario, delete), and without kind (every scenario skipped with the
reason). The scheduler is the reference scheduler running out of the cluster, on real time: a
few short criteria are chosen, including one that injects faults through the proxy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from fake_apiserver import DEFAULT_NAMESPACES
from tests.support.kind_stand_ins import DISABLE, ENABLE, StandIns
from tests.support.paths import ROOT
from tests.support.serve_process import CRITERIA, Serve


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    server = Serve(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def _pytest(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=600)


def _records(report_dir: Path) -> dict[str, dict[str, Any]]:
    lines = (report_dir / "results.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def _leftovers(server: Serve) -> tuple[list[str], list[str]]:
    namespaces = [n["metadata"]["name"] for n in server.get("/api/v1/namespaces")["items"]]
    nodes = [n["metadata"]["name"] for n in server.get("/api/v1/nodes")["items"]]
    return sorted(set(namespaces) - set(DEFAULT_NAMESPACES)), nodes


def test_kubeconfig_backend_runs_criteria_against_serve_in_another_process(serve: Serve, tmp_path: Path) -> None:
    report = tmp_path / "report"
    result = _pytest(*CRITERIA, f"--backend=kubeconfig:{serve.kubeconfig}", "--scheduler=reference",
                     f"--report-dir={report}", "--no-timeline")
    assert result.returncode == 0, result.stdout[-3000:]
    records = _records(report)
    assert {r["status"] for r in records.values()} == {"passed"} and sorted(records) == sorted(CRITERIA)
    assert all(r["virtual_seconds"] is None and r["wall_seconds"] > 0 for r in records.values())
    journal = [json.loads(line) for line in (report / Path(
        "suites_test_patch_failure.py_test_a_failed_status_patch_neither_stops_scheduling_nor_loses_the_pod[500]")
        / "journal.jsonl").read_text().splitlines()]
    refused = [e for e in journal if e.get("fault") == "refuse-not-ready"]
    assert refused and {(e["verb"], e["resource"], e["subresource"], e["code"]) for e in refused} == {
        ("patch", "pods", "status", 500)}
    assert refused[0]["namespace"].startswith("sh-")
    assert _leftovers(serve) == ([], [])  # every scenario deleted its namespace and nodes


def _control_plane(server: Serve, name: str) -> None:
    capacity = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    server.post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": name, "labels": {"kubernetes.io/hostname": name}}, "spec": {},
        "status": {"capacity": capacity, "allocatable": capacity,
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}})


def test_kind_backend_makes_prepares_uses_and_deletes_the_cluster(serve: Serve, tmp_path: Path) -> None:
    stand_ins = StandIns(tmp_path / "stand-ins")
    (stand_ins.home / "upstream.kubeconfig").write_text(serve.kubeconfig.read_text())
    _control_plane(serve, "sh-e2e-control-plane")
    serve.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {  # an earlier run's
        "name": "sh-left", "labels": {"schedharness.io/scenario": "true"}}})
    serve.post("/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "left", "labels": {"schedharness.io/fake-node": "sh-left"}}})
    report = tmp_path / "report"
    result = _pytest(*CRITERIA[:2], "--backend=kind", "--kind-cluster=sh-e2e", "--kind-image=v1.35.0",
                     "--scheduler=reference", f"--report-dir={report}", "--no-timeline",
                     env={"PATH": f"{stand_ins.bin}{os.pathsep}{os.environ['PATH']}"})
    assert result.returncode == 0, result.stdout[-3000:]
    assert {r["status"] for r in _records(report).values()} == {"passed"}
    workdir = report / "cluster"
    calls = [[Path(c[0]).name, *c[1:]] for c in stand_ins.calls()]
    assert calls == [
        ["docker", "info"],
        ["kind", "get", "clusters"],
        ["kind", "create", "cluster", "--name", "sh-e2e", "--config", str(workdir / "kind-config.yaml"),
         "--wait", "300s", "--kubeconfig", str(workdir / "kubeconfig")],
        ["kind", "get", "nodes", "--name", "sh-e2e"],
        ["docker", "exec", "sh-e2e-control-plane", "sh", "-c", ENABLE],
        ["docker", "exec", "sh-e2e-control-plane", "sh", "-c", DISABLE],
        ["kind", "delete", "cluster", "--name", "sh-e2e"],
    ]
    config = yaml.safe_load((workdir / "kind-config.yaml").read_text())
    assert config["nodes"] == [{"role": "control-plane", "image": "kindest/node:v1.35.0"}]
    assert stand_ins.clusters() == []
    node = serve.get("/api/v1/nodes/sh-e2e-control-plane")
    assert node["spec"]["unschedulable"] is True  # cordoned for the run; the cluster is gone after it
    assert _leftovers(serve) == ([], ["sh-e2e-control-plane"])


def test_kind_backend_without_kind_skips_every_scenario_with_the_reason(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    report = tmp_path / "report"
    result = _pytest(*CRITERIA[:2], "--backend=kind", f"--report-dir={report}", env={"PATH": str(empty)})
    assert result.returncode == 0, result.stdout[-3000:]
    records = _records(report)
    assert [(r["status"], r["message"]) for r in records.values()] == [
        ("skipped", "--backend kind needs the kind executable on PATH (not found: kind)")] * 2


def test_schedharness_proxy_forwards_faults_and_journals_in_front_of_serve(serve: Serve, tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    kubeconfig = tmp_path / "proxy.kubeconfig"
    proxy = subprocess.Popen([sys.executable, "-m", "harness.cli", "proxy", "--upstream", str(serve.kubeconfig),
                              "--kubeconfig", str(kubeconfig)], stdout=subprocess.PIPE, text=True)
    try:
        assert proxy.stdout is not None
        first = proxy.stdout.readline()
        assert first.startswith(f"schedharness: proxying {serve.url} at http://127.0.0.1:"), first
        url = first.split()[-1]
        assert proxy.stdout.readline() == f"schedharness: kubeconfig written to {kubeconfig}\n"
        assert yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"] == url
        rule = {"name": "no-nodes", "match": {"verb": "list", "resource": "nodes"}, "action": {"type": "respond",
                "code": 503}, "times": 1}
        request = urllib.request.Request(f"{url}/schedharness/v1/faults", data=json.dumps(rule).encode(),
                                         method="POST", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            assert response.status == 201
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/api/v1/nodes")
        assert refused.value.code == 503
        assert json.loads(refused.value.read())["reason"] == "ServiceUnavailable"
        with urllib.request.urlopen(f"{url}/api/v1/nodes") as response:
            assert json.loads(response.read())["kind"] == "NodeList"
        with urllib.request.urlopen(f"{url}/schedharness/v1/journal") as response:
            journal = [json.loads(line) for line in response.read().decode().splitlines()]
        assert [(e["verb"], e["resource"], e["code"], e.get("fault", "")) for e in journal] == [
            ("list", "nodes", 503, "no-nodes"), ("list", "nodes", 200, "")]
    finally:
        proxy.terminate()
        assert proxy.wait(timeout=30) == 0


def test_the_clusters_own_scheduler_skips_what_needs_its_requests(serve: Serve, tmp_path: Path) -> None:
    """``--scheduler cluster``: here the "cluster's own" scheduler is the reference scheduler in its
    own process, talking to ``schedharness serve`` directly, as kind's kube-scheduler talks to its
    API server: the scenario sees its effects but not its requests."""
    scheduler = subprocess.Popen([sys.executable, "-m", "harness.cli", "scheduler", "--kubeconfig",
                                  str(serve.kubeconfig)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        report = tmp_path / "report"
        result = _pytest(*CRITERIA[::2], f"--backend=kubeconfig:{serve.kubeconfig}", "--scheduler=cluster",
                         "--feature-gates=SchedulerAsyncAPICalls=true,SchedulerPreEnqueuePodStatus=true",
                         f"--report-dir={report}", "--no-timeline")
        assert result.returncode == 0, result.stdout[-3000:]
        assert [(r["status"], r["message"]) for r in _records(report).values()] == [
            ("skipped", "cannot count the scheduler's requests: the scheduler under test does not talk through the "
                        "kubeconfig backend's proxy (the cluster's own kube-scheduler); run one out of the cluster "
                        "with --scheduler reference or cmd:... to check this"),
            ("skipped", "needs fault injection into the scheduler's requests; the cluster's own kube-scheduler does "
                        "not talk through the fault proxy (run one out of the cluster: --scheduler reference or "
                        "cmd:...)"),
        ]
    finally:
        scheduler.terminate()
        scheduler.wait(timeout=30)
    assert _leftovers(serve) == ([], [])
