"""A real kind cluster: created, reachable through its kubeconfig, its scheduler taken out, deleted.

Creating a cluster takes minutes, so this runs only when kind and a running container engine
are there (`kind_unavailable` is None) and ``SCHEDHARNESS_KIND=1`` is set; otherwise it is skipped
with the reason. The cluster is checked with the official Python client (a dependency, always
there) and, when ``kubectl`` is on PATH, with ``kubectl get nodes`` as a user would.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kubernetes import client, config

from harness._backends.kind_cluster import KindCluster, kind_unavailable

NAME = "schedharness-kind-test"
POLL_DEADLINE = 180.0  # seconds for the kubelet to stop or start a static Pod; only reached when broken
POLL_INTERVAL = 2.0


def _skip_reason() -> str | None:
    reason = kind_unavailable()
    if reason is not None:
        return reason
    if os.environ.get("SCHEDHARNESS_KIND") != "1":
        return "set SCHEDHARNESS_KIND=1 to create a real kind cluster (takes minutes)"
    return None


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[KindCluster]:
    reason = _skip_reason()
    if reason is not None:
        pytest.skip(reason)
    cluster = KindCluster(name=NAME, workdir=tmp_path)
    assert not cluster.exists(), (
        f"a kind cluster named {NAME} exists already; delete it (kind delete cluster --name {NAME}) to run this test")
    try:
        yield cluster
    finally:
        cluster.down()


def _kube_system_pods(kubeconfig: Path) -> set[str]:
    api = client.CoreV1Api(config.new_client_from_config(config_file=str(kubeconfig)))
    return {pod.metadata.name for pod in api.list_namespaced_pod("kube-system").items
            if pod.metadata is not None and pod.metadata.name is not None}


def _wait_until(what: str, state: Callable[[], set[str]], done: Callable[[set[str]], bool]) -> None:
    """Poll ``state`` until ``done`` holds, failing with the last state after `POLL_DEADLINE`."""
    deadline = time.monotonic() + POLL_DEADLINE
    while True:
        last = state()
        if done(last):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {POLL_DEADLINE:g} s; last seen: {sorted(last)}")
        time.sleep(POLL_INTERVAL)


def test_a_real_cluster_lifecycle(cluster: KindCluster) -> None:
    kubeconfig = cluster.up()
    assert (cluster.created, cluster.reused) == (True, False)
    assert kubeconfig == cluster.workdir / "kubeconfig"
    control_plane = cluster.control_plane
    assert control_plane == f"{NAME}-control-plane"
    if shutil.which("kubectl"):
        nodes = subprocess.run(["kubectl", "--kubeconfig", str(kubeconfig), "get", "nodes", "-o", "name"],
                               capture_output=True, text=True, check=True, timeout=60).stdout
        assert nodes.split() == [f"node/{control_plane}"]

    scheduler = f"kube-scheduler-{control_plane}"
    pods = functools.partial(_kube_system_pods, kubeconfig)
    _wait_until(f"{scheduler} did not appear", pods, lambda names: scheduler in names)
    cluster.disable_scheduler()
    _wait_until(f"{scheduler} did not go away after disable_scheduler", pods, lambda names: scheduler not in names)
    cluster.enable_scheduler()
    _wait_until(f"{scheduler} did not come back after enable_scheduler", pods, lambda names: scheduler in names)

    assert cluster.down() is True
    assert cluster.exists() is False
