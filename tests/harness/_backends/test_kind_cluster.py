"""A kind cluster's configuration and lifecycle (``harness._backends.kind_cluster``): the generated
config against golden files, and create, reuse, take the scheduler out and back, delete, run
against stand-in ``kind``, ``docker`` and ``podman`` executables; why kind is unavailable, when it
is. The real kind cluster is ``test_kind_cluster_real.py``'s."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from harness._backends.kind_cluster import (
    CommandResult, KindCluster, KindError, KindOptions, SubprocessRunner, kind_config, kind_unavailable, node_image,
)
from tests.support.kind_stand_ins import DISABLE, ENABLE, StandIns
from tests.support.paths import GOLDEN


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("kind-default.yaml", KindOptions()),
        ("kind-image.yaml", KindOptions(image="v1.35.0")),
        (
            "kind-feature-gates.yaml",
            KindOptions(
                apiserver_feature_gates={"DynamicResourceAllocation": True},
                scheduler_feature_gates={
                    "SchedulerQueueingHints": False,
                    "DynamicResourceAllocation": True,
                },
            ),
        ),
    ],
)
def test_kind_config_matches_golden(name: str, options: KindOptions) -> None:
    assert kind_config(options) == (GOLDEN / name).read_text()


def test_node_image_from_version_or_image() -> None:
    assert node_image("v1.35.0") == "kindest/node:v1.35.0"
    assert node_image("example.com/node:dev") == "example.com/node:dev"


# ---------------------------------------------------------------------- the cluster lifecycle


@pytest.fixture
def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StandIns:
    stand_ins = StandIns(tmp_path / "stand-ins")
    monkeypatch.setenv("PATH", f"{stand_ins.bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("KIND_EXPERIMENTAL_PROVIDER", raising=False)
    return stand_ins


def _cluster(stand_ins: StandIns, tmp_path: Path, **kwargs: Any) -> KindCluster:
    kwargs.setdefault("name", "sh-test")
    return KindCluster(workdir=tmp_path / "work", kind=stand_ins.kind, runner=SubprocessRunner(), **kwargs)


def test_up_creates_a_cluster_from_the_generated_config(stand_ins: StandIns, tmp_path: Path) -> None:
    options = KindOptions(image="v1.35.0", scheduler_feature_gates={"SchedulerQueueingHints": False})
    cluster = _cluster(stand_ins, tmp_path, options=options, wait="120s")
    work = tmp_path / "work"
    assert cluster.up() == work / "kubeconfig"
    assert stand_ins.calls() == [
        [stand_ins.kind, "get", "clusters"],
        [stand_ins.kind, "create", "cluster", "--name", "sh-test", "--config", str(work / "kind-config.yaml"),
         "--wait", "120s", "--kubeconfig", str(work / "kubeconfig")],
    ]
    assert (work / "kind-config.yaml").read_text() == kind_config(options)
    assert (work / "kubeconfig").read_text() == "apiVersion: v1\nkind: Config\ncurrent-context: kind-sh-test\n"
    assert (cluster.created, cluster.reused) == (True, False)
    assert stand_ins.clusters() == ["sh-test"]
    assert cluster.up() == work / "kubeconfig"
    assert stand_ins.calls() == []


def test_up_reuses_an_existing_cluster_as_it_is(stand_ins: StandIns, tmp_path: Path) -> None:
    stand_ins.add_cluster("other")
    stand_ins.add_cluster("sh-test")
    cluster = _cluster(stand_ins, tmp_path, options=KindOptions(image="v1.35.0"))
    assert cluster.exists() is True
    assert cluster.up() == tmp_path / "work" / "kubeconfig"
    assert stand_ins.calls() == [
        [stand_ins.kind, "get", "clusters"],
        [stand_ins.kind, "get", "clusters"],
        [stand_ins.kind, "get", "kubeconfig", "--name", "sh-test"],
    ]
    assert (tmp_path / "work" / "kubeconfig").read_text() == (
        "apiVersion: v1\nkind: Config\ncurrent-context: kind-sh-test\n")
    assert not (tmp_path / "work" / "kind-config.yaml").exists()
    assert (cluster.created, cluster.reused) == (False, True)


def test_disable_and_enable_scheduler_move_the_manifest_idempotently(stand_ins: StandIns, tmp_path: Path) -> None:
    stand_ins.add_cluster("sh-test")
    cluster = _cluster(stand_ins, tmp_path)
    cluster.up()
    stand_ins.calls()
    cluster.disable_scheduler()
    cluster.disable_scheduler()
    assert stand_ins.calls() == [
        [stand_ins.kind, "get", "nodes", "--name", "sh-test"],
        [stand_ins.docker, "exec", "sh-test-control-plane", "sh", "-c", DISABLE],
        [stand_ins.docker, "exec", "sh-test-control-plane", "sh", "-c", DISABLE],
    ]
    assert stand_ins.scheduler_manifest("sh-test") == "kube-scheduler.yaml.disabled"
    cluster.enable_scheduler()
    cluster.enable_scheduler()
    assert stand_ins.calls() == [
        [stand_ins.docker, "exec", "sh-test-control-plane", "sh", "-c", ENABLE],
        [stand_ins.docker, "exec", "sh-test-control-plane", "sh", "-c", ENABLE],
    ]
    assert stand_ins.scheduler_manifest("sh-test") == "manifests/kube-scheduler.yaml"
    assert cluster.control_plane == "sh-test-control-plane"


def test_down_deletes_a_cluster_it_created(stand_ins: StandIns, tmp_path: Path) -> None:
    cluster = _cluster(stand_ins, tmp_path)
    cluster.up()
    cluster.disable_scheduler()
    stand_ins.calls()
    assert cluster.down() is True
    assert stand_ins.calls() == [[stand_ins.kind, "delete", "cluster", "--name", "sh-test"]]
    assert stand_ins.clusters() == []
    assert cluster.down() is False
    assert stand_ins.calls() == []


def test_down_leaves_a_reused_cluster_with_its_scheduler_back(stand_ins: StandIns, tmp_path: Path) -> None:
    stand_ins.add_cluster("sh-test")
    cluster = _cluster(stand_ins, tmp_path)
    cluster.up()
    stand_ins.calls()
    assert cluster.down() is False
    assert stand_ins.calls() == []
    cluster.disable_scheduler()
    stand_ins.calls()
    assert cluster.down() is False
    assert stand_ins.calls() == [[stand_ins.docker, "exec", "sh-test-control-plane", "sh", "-c", ENABLE]]
    assert stand_ins.scheduler_manifest("sh-test") == "manifests/kube-scheduler.yaml"
    assert stand_ins.clusters() == ["sh-test"]


def test_keep_leaves_a_created_cluster_with_its_scheduler_back(stand_ins: StandIns, tmp_path: Path) -> None:
    cluster = _cluster(stand_ins, tmp_path, keep=True)
    cluster.up()
    cluster.disable_scheduler()
    stand_ins.calls()
    assert cluster.down() is False
    assert stand_ins.calls() == [[stand_ins.docker, "exec", "sh-test-control-plane", "sh", "-c", ENABLE]]
    assert stand_ins.scheduler_manifest("sh-test") == "manifests/kube-scheduler.yaml"
    assert stand_ins.clusters() == ["sh-test"]


def test_context_manager_creates_and_deletes(stand_ins: StandIns, tmp_path: Path) -> None:
    with _cluster(stand_ins, tmp_path) as cluster:
        assert stand_ins.clusters() == ["sh-test"]
        assert cluster.created is True
    assert stand_ins.clusters() == []
    assert stand_ins.calls()[-1] == [stand_ins.kind, "delete", "cluster", "--name", "sh-test"]


def test_an_explicit_engine_is_kinds_provider_too(stand_ins: StandIns, tmp_path: Path) -> None:
    cluster = _cluster(stand_ins, tmp_path, engine="podman", wait="60s")
    cluster.up()
    cluster.disable_scheduler()
    work = tmp_path / "work"
    assert stand_ins.calls() == [
        ["KIND_EXPERIMENTAL_PROVIDER=podman", stand_ins.kind, "get", "clusters"],
        ["KIND_EXPERIMENTAL_PROVIDER=podman", stand_ins.kind, "create", "cluster", "--name", "sh-test",
         "--config", str(work / "kind-config.yaml"), "--wait", "60s", "--kubeconfig", str(work / "kubeconfig")],
        ["KIND_EXPERIMENTAL_PROVIDER=podman", stand_ins.kind, "get", "nodes", "--name", "sh-test"],
        [stand_ins.podman, "exec", "sh-test-control-plane", "sh", "-c", DISABLE],
    ]


def test_the_default_engine_follows_kinds_provider_variable(stand_ins: StandIns, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIND_EXPERIMENTAL_PROVIDER", "podman")
    cluster = _cluster(stand_ins, tmp_path)
    assert cluster.container_engine == "podman"
    cluster.up()
    cluster.disable_scheduler()
    assert stand_ins.calls()[-1] == [stand_ins.podman, "exec", "sh-test-control-plane", "sh", "-c", DISABLE]


def test_a_failing_create_raises_with_the_command_and_its_stderr(stand_ins: StandIns, tmp_path: Path) -> None:
    stand_ins.flag("create-fails")
    cluster = _cluster(stand_ins, tmp_path)
    work = tmp_path / "work"
    command = (f"{stand_ins.kind} create cluster --name sh-test --config {work}/kind-config.yaml --wait 300s "
               f"--kubeconfig {work}/kubeconfig")
    expected = (f"{command} exited with code 1; its stderr ends:\n"
                + "".join(f"progress line {i}\n" for i in range(2, 11))
                + "ERROR: failed to create cluster: failed to pull image")
    with pytest.raises(KindError, match=f"^{re.escape(expected)}$") as raised:
        cluster.up()
    assert raised.value.returncode == 1
    assert raised.value.argv == tuple(shlex.split(command))
    assert (cluster.created, cluster.reused) == (False, False)
    assert cluster.down() is False


def test_a_failing_command_without_stderr(tmp_path: Path) -> None:
    result = CommandResult(3, "", "")
    assert str(KindError.failed(["kind", "get", "clusters"], result)) == (
        "kind get clusters exited with code 3 and wrote nothing to stderr")


def test_a_command_that_cannot_start(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    expected = f"cannot run {missing} get clusters: [Errno 2] No such file or directory: '{missing}'"
    with pytest.raises(KindError, match=f"^{re.escape(expected)}$"):
        SubprocessRunner()([missing, "get", "clusters"])


def test_a_cluster_without_nodes_has_no_control_plane(stand_ins: StandIns, tmp_path: Path) -> None:
    cluster = _cluster(stand_ins, tmp_path, name="ghost")
    expected = f"kind cluster 'ghost' has no control-plane node: {stand_ins.kind} get nodes --name ghost printed []"
    with pytest.raises(KindError, match=f"^{re.escape(expected)}$"):
        cluster.disable_scheduler()
    assert cluster.down() is False


def test_kind_unavailable_without_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert kind_unavailable() == "needs the kind executable on PATH (not found: kind)"
    missing = str(tmp_path / "kind")
    assert kind_unavailable(missing) == f"needs the kind executable (not an executable file: {missing})"


def test_kind_unavailable_without_the_engine(stand_ins: StandIns, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIND_EXPERIMENTAL_PROVIDER", "podman")
    (stand_ins.bin / "podman").unlink()
    assert kind_unavailable(stand_ins.kind) == "needs a container engine on PATH (not found: podman)"


def test_kind_unavailable_with_a_stopped_engine(stand_ins: StandIns) -> None:
    stand_ins.flag("engine-down")
    assert kind_unavailable(stand_ins.kind, engine=stand_ins.docker) == (
        f"needs a running container engine: '{stand_ins.docker} info' failed: Cannot connect to the Docker "
        "daemon at unix:///var/run/docker.sock. Is the docker daemon running?")
    assert stand_ins.calls() == [[stand_ins.docker, "info"]]


def test_kind_unavailable_when_all_is_there(stand_ins: StandIns) -> None:
    assert kind_unavailable(stand_ins.kind) is None
    assert stand_ins.calls() == [[stand_ins.docker, "info"]]
