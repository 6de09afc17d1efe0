"""The reference scheduler as a separate process binds a pod on ``schedharness serve`` (real time)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

SAFETY_TIMEOUT = 30.0  # a safety net for a hung process, not a timing assertion


def _request(url: str, method: str = "GET", body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as response:
        return json.loads(response.read())


def _wait_for(predicate: Any, what: str) -> Any:
    deadline = time.monotonic() + SAFETY_TIMEOUT
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what} after {SAFETY_TIMEOUT}s")


def test_scheduler_process_binds_a_pod(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kubeconfig = tmp_path / "kubeconfig"
    server = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--kubeconfig", str(kubeconfig), "--ready-nodes"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    scheduler: subprocess.Popen[str] | None = None
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith("schedharness: serving the Kubernetes API at http://127.0.0.1:"), first
        url = first.rsplit(" ", 1)[1].strip()
        _wait_for(kubeconfig.exists, "the kubeconfig")
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "reference_scheduler", "scheduler", "--kubeconfig", str(kubeconfig)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert scheduler.stdout is not None
        assert scheduler.stdout.readline() == (
            "schedharness scheduler: running (GenericWorkload=false,InPlacePodVerticalScaling=true,"
            "InPlacePodVerticalScalingSchedulerPreemption=false,SchedulerAsyncAPICalls=true,"
            "SchedulerPreEnqueuePodStatus=true, delay 5s)\n")
        _request(f"{url}/api/v1/nodes", "POST", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                                  "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}})
        _request(f"{url}/api/v1/namespaces/default/pods", "POST", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}})
        pod = _wait_for(lambda: (lambda p: p if p["spec"].get("nodeName") else None)(
            _request(f"{url}/api/v1/namespaces/default/pods/p")), "the pod to be bound")
        assert pod["spec"]["nodeName"] == "n1"
        assert [c["status"] for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"] == ["True"]
        events = _wait_for(lambda: _request(f"{url}/apis/events.k8s.io/v1/namespaces/default/events")["items"],
                           "the Scheduled event")
        assert [(e["reason"], e["note"]) for e in events] == [("Scheduled", "Successfully assigned default/p to n1")]
        scheduler.send_signal(signal.SIGTERM)
        out, _ = scheduler.communicate(timeout=SAFETY_TIMEOUT)
        assert scheduler.returncode == 0, out
        assert out.endswith("schedharness scheduler: stopped\n"), out
    finally:
        for proc in (scheduler, server):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
