"""Fixtures of the fake's tests: ``schedharness serve`` started as a user starts it, with kubectl
pointed at it (one server per module that asks for it), and a namespace per test."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from typing import Iterator

import pytest

from tests.support.kubectl import SAFETY_TIMEOUT, Kubectl, Lines, stop_process
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kubectl]:
    """``schedharness serve`` on a free port, and kubectl pointed at it."""
    tmp = tmp_path_factory.mktemp("kubectl")
    kubeconfig = tmp / "kubeconfig"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", "0", "--kubeconfig", str(kubeconfig)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines = Lines(proc.stdout)
    try:
        while not lines.next().startswith("schedharness: serving the Kubernetes API at http://127.0.0.1:"):
            pass
        yield Kubectl(kubeconfig, tmp / "cache")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=SAFETY_TIMEOUT)
        except subprocess.TimeoutExpired:
            stop_process(proc)


@pytest.fixture
def ns(kubectl: Kubectl, request: pytest.FixtureRequest) -> str:
    """A namespace of the test's own."""
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.removeprefix("test_").lower())[:63].strip("-")
    manifest = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    assert kubectl.out("create", "-f", "-", input=manifest) == f"namespace/{name} created\n"
    return name
