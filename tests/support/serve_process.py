"""``schedharness serve`` in another process, as the cluster of the tests that run the suites on a
real cluster's backends, and the few short criteria they run against it (one of them injects
faults through the proxy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["CRITERIA", "Serve"]

CRITERIA = [
    "suites/test_core_sanity.py::test_pod_is_bound_to_a_fitting_node",
    "suites/test_kep5501_core.py::test_persistent_rejection_is_reported_after_the_delay_not_before",
    "suites/test_patch_failure.py::test_a_failed_status_patch_neither_stops_scheduling_nor_loses_the_pod[500]",
]


class Serve:
    """``schedharness serve`` in another process, and a plain client of it."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        """``args``: more options of ``schedharness serve`` (``--runtime-config X``)."""
        self.kubeconfig = tmp_path / "serve.kubeconfig"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "harness.cli", "serve", "--ready-nodes", "--kubeconfig", str(self.kubeconfig),
             *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        assert first.startswith("schedharness: serving the Kubernetes API at "), first
        self.url = first.split()[-1]
        self.process.stdout.readline()  # the kubeconfig line: the file is written

    def get(self, path: str) -> Any:
        import urllib.request

        with urllib.request.urlopen(self.url + path) as response:
            return json.loads(response.read())

    def post(self, path: str, body: Any) -> Any:
        import urllib.request

        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read())

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
