"""kubectl, unchanged, against ``schedharness serve``: a process's output read line by line with a
safety timeout, kubectl run through one kubeconfig, and the manifests and tables of its tests.
The fixtures that start the server and make a namespace per test are in
``tests/fake_apiserver/conftest.py``."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

__all__ = ["SAFETY_TIMEOUT", "Kubectl", "Lines", "binding", "pod_manifest", "stop_process", "table"]

SAFETY_TIMEOUT = 60.0  # seconds; only ever reached when something hangs


class Lines:
    """Reads a process's output on a thread, so a test can wait for lines with a safety timeout."""

    def __init__(self, stream: IO[str] | None) -> None:
        assert stream is not None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next(self) -> str:
        """The next line; fails if the stream ends or nothing comes within the safety timeout."""
        try:
            line = self.lines.get(timeout=SAFETY_TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no output within {SAFETY_TIMEOUT}s") from None
        if line is None:
            raise AssertionError("the stream ended")
        return line

    def until(self, wanted: list[str]) -> list[str]:
        """Every line read until the lines of ``wanted`` have appeared in that order."""
        seen: list[str] = []
        pending = list(wanted)
        while pending:
            seen.append(self.next())
            if seen[-1] == pending[0]:
                pending.pop(0)
        return seen


@dataclass
class Kubectl:
    """Runs kubectl against the module's server."""

    kubeconfig: Path
    cache_dir: Path

    def argv(self, *args: str) -> list[str]:
        return ["kubectl", f"--kubeconfig={self.kubeconfig}", f"--cache-dir={self.cache_dir}",
                "--request-timeout=30s", *args]

    def run(self, *args: str, input: str | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(self.argv(*args), input=input, capture_output=True, text=True,
                              timeout=SAFETY_TIMEOUT)
        if ok:
            assert done.returncode == 0, f"kubectl {' '.join(args)} failed: {done.stderr}"
        return done

    def out(self, *args: str, input: str | None = None) -> str:
        return self.run(*args, input=input).stdout

    def fail(self, *args: str, input: str | None = None) -> str:
        """Run a command that must fail; its stderr."""
        done = self.run(*args, input=input, ok=False)
        assert done.returncode == 1, f"kubectl {' '.join(args)} exited {done.returncode}: {done.stdout}"
        return done.stderr

    def start(self, *args: str) -> tuple[subprocess.Popen[str], Lines]:
        """A long-running command and its stdout, line by line."""
        proc = subprocess.Popen(self.argv(*args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return proc, Lines(proc.stdout)

    def start_watching(self, *args: str) -> subprocess.Popen[str]:
        """A long-running command, returned once its watch is open: with ``-v=6`` kubectl logs
        each response, and a watch's response comes as soon as the server starts streaming."""
        proc = subprocess.Popen(self.argv(*args, "-v=6"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        log = Lines(proc.stderr)
        while not re.search(r"GET \S*watch=true\S* 200 OK", log.next()):
            pass
        return proc


def stop_process(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=SAFETY_TIMEOUT)


def table(text: str) -> list[list[str]]:
    """kubectl's human output as rows of cells (columns are at least three spaces apart)."""
    return [re.split(r"\s{2,}", line.strip()) for line in text.splitlines() if line.strip()]


def pod_manifest(name: str, **spec: Any) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                       "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}], **spec}})


def binding(name: str, node: str) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name},
                       "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
