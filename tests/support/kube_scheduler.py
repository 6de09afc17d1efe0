"""A real kube-scheduler, unchanged, against the fake on a real-time loop in a thread: where the
binaries come from (``SCHEDHARNESS_KUBE_SCHEDULER``, ``SCHEDHARNESS_KUBE_SCHEDULER_V130``), how
one is started, the manifests of its node and pods, and what the journal says about its
informers. Shared by the tests of kube-scheduler against the fake and through the fault proxy."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

import pytest

from fake_apiserver import FakeApiServer, JournalEntry, KindSpec, by_resource
from fake_apiserver._storage.watch import INITIAL_EVENTS_END
from harness._schedulers.adapters import scheduler_config

__all__ = ["BASE_INFORMED", "BINARIES", "GATE", "JSON", "NAMESPACE", "NO_BINARY", "NODE", "NODES", "PODS", "POLL",
           "SAFETY_TIMEOUT", "ServerThread", "binary_minor", "binary_or_skip", "informed_resources", "kind_spec",
           "node_manifest", "pod_manifest", "start_kube_scheduler", "synced", "wait_until"]

SAFETY_TIMEOUT = 60.0  # seconds; only ever reached when something hangs
POLL = 0.05
NODE = "n1"
NAMESPACE = "default"
GATE = "example.com/hold"

# Informed by every version, as journal resource names.
BASE_INFORMED = frozenset({
    "pods", "nodes", "namespaces", "services", "replicationcontrollers", "persistentvolumes",
    "persistentvolumeclaims", "replicasets.apps", "statefulsets.apps", "poddisruptionbudgets.policy",
    "storageclasses.storage.k8s.io", "csinodes.storage.k8s.io", "csidrivers.storage.k8s.io",
    "csistoragecapacities.storage.k8s.io",
})

T = TypeVar("T")


def kind_spec(group: str, version: str, resource: str) -> KindSpec:
    spec = by_resource(group, version, resource)
    assert spec is not None, resource
    return spec


PODS = kind_spec("", "v1", "pods")
NODES = kind_spec("", "v1", "nodes")


def _binaries() -> list[str]:
    listed = [p for p in os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER", "").split(":") if p]
    extra = os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER_V130", "")
    if extra and extra not in listed:
        listed.append(extra)
    return listed


BINARIES = _binaries()

JSON = "application/json"

NO_BINARY = ("set SCHEDHARNESS_KUBE_SCHEDULER to a kube-scheduler binary (or several, ':'-separated) "
             "to run a real kube-scheduler against the fake")


def binary_minor(binary: str) -> int:
    """The minor version from ``kube-scheduler --version`` (``Kubernetes v1.35.4``)."""
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=SAFETY_TIMEOUT)
    found = re.search(r"v1\.(\d+)\.", out.stdout)
    assert found, f"{binary} --version said {out.stdout!r}"
    return int(found.group(1))


def wait_until(what: str, predicate: Callable[[], T | None], on_timeout: Callable[[], str]) -> T:
    """Poll ``predicate`` until it returns something; fail after the safety timeout."""
    deadline = time.monotonic() + SAFETY_TIMEOUT
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {SAFETY_TIMEOUT}s\n{on_timeout()}")
        time.sleep(POLL)


class ServerThread:
    """A :class:`FakeApiServer` on a real-time event loop in a daemon thread.

    The store and the journal belong to that loop; :meth:`call` runs a function there and returns
    its result, so the test thread never touches them concurrently.
    """

    __test__ = False

    def __init__(self, server: FakeApiServer) -> None:
        self.server = server
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fake-apiserver", daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(SAFETY_TIMEOUT)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(SAFETY_TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(SAFETY_TIMEOUT)
        self.loop.close()

    def call(self, fn: Callable[[], T]) -> T:
        async def run() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(SAFETY_TIMEOUT)


def node_manifest(name: str, cpu: str) -> dict[str, Any]:
    resources = {"cpu": cpu, "memory": "4Gi", "pods": "110"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "capacity": resources, "allocatable": resources,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "kubelet is posting ready status"}],
        },
    }


def pod_manifest(name: str, cpu: str, *, gated: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                            "resources": {"requests": {"cpu": cpu}}}]}
    if gated:
        spec["schedulingGates"] = [{"name": GATE}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}


def synced(entries: list[JournalEntry], resource: str) -> bool:
    """A successful LIST of ``resource``, or a streaming list of it whose initial-events-end
    bookmark reached the client."""
    for e in entries:
        if e.type != "request" or e.resource != resource or e.code != 200:
            continue
        if e.verb == "list":
            return True
        if e.verb == "watch" and e.query.get("sendInitialEvents") == "true":
            for ev in entries:
                if ev.type == "watch-event" and ev.watch == e.seq and ev.event == "BOOKMARK" and (
                        (ev.object or {}).get("metadata", {}).get("annotations", {}).get(INITIAL_EVENTS_END) == "true"):
                    return True
    return False


def informed_resources(entries: list[JournalEntry]) -> set[str]:
    return {e.resource for e in entries if e.type == "request" and e.verb in ("list", "watch")}


def binary_or_skip(request: pytest.FixtureRequest) -> str:
    """The fixture's kube-scheduler binary (its param, or the first item of a tuple param), or a
    skip with the reason."""
    binary = str(request.param[0] if isinstance(request.param, tuple) else request.param)
    if not BINARIES:
        pytest.skip(NO_BINARY)
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        pytest.skip(f"not an executable file: {binary}")
    return binary


def start_kube_scheduler(binary: str, kubeconfig: Path, tmp: Path, log: Path,
                         content_type: str | None = JSON) -> subprocess.Popen[bytes]:
    """A kube-scheduler on ``kubeconfig`` with ``content_type`` bodies (None: its default,
    protobuf) and no leader election, logging to ``log`` at -v=2."""
    config = tmp / "kube-scheduler.yaml"
    written = scheduler_config(kubeconfig, content_type)
    assert ("contentType" in written["clientConnection"]) == (content_type is not None)
    config.write_text(json.dumps(written))  # JSON is YAML
    with log.open("wb") as out:
        return subprocess.Popen([binary, f"--config={config}", "--secure-port=0", "-v=2"],
                                stdout=out, stderr=subprocess.STDOUT)
