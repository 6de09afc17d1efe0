from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness._backends.kind_cluster import (
    CommandResult, KindCluster, KindError, KindOptions, SubprocessRunner, kind_config, kind_unavailable, node_image,
)

GOLDEN = Path(__file__).parent / "golden"


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

STAND_IN = '''#!{python}
"""Stand-in for `{role}`: logs its argv as one JSON line, answers like the real one."""
import json, os, shutil, subprocess, sys
from pathlib import Path

HOME = Path({home!r})
argv = sys.argv[1:]
provider = os.environ.get("KIND_EXPERIMENTAL_PROVIDER")
env = ["KIND_EXPERIMENTAL_PROVIDER=" + provider] if provider and "{role}" == "kind" else []
with open(HOME / "calls.jsonl", "a") as log:
    log.write(json.dumps(env + sys.argv) + "\\n")
state = HOME / "clusters.json"
clusters = json.loads(state.read_text()) if state.exists() else []
nodes = HOME / "nodes"


def fail(*lines, code=1):
    sys.stderr.write("".join(line + "\\n" for line in lines))
    sys.exit(code)


def opt(flag):
    return argv[argv.index(flag) + 1]


def kubeconfig(name):
    if (HOME / "upstream.kubeconfig").exists():  # a test's API server plays the cluster
        return (HOME / "upstream.kubeconfig").read_text()
    return "apiVersion: v1\\nkind: Config\\ncurrent-context: kind-" + name + "\\n"


if "{role}" == "kind":
    if argv == ["get", "clusters"]:
        print("\\n".join(clusters)) if clusters else fail("No kind clusters found.", code=0)
    elif argv[:2] == ["create", "cluster"]:
        name = opt("--name")
        if (HOME / "create-fails").exists():
            fail('Creating cluster "' + name + '" ...', *["progress line %d" % i for i in range(1, 11)],
                 "ERROR: failed to create cluster: failed to pull image")
        if name in clusters:
            fail('ERROR: failed to create cluster: node(s) already exist for a cluster with the name "'
                 + name + '"')
        manifests = nodes / (name + "-control-plane") / "etc/kubernetes/manifests"
        manifests.mkdir(parents=True)
        for component in ("kube-apiserver", "kube-scheduler"):
            (manifests / (component + ".yaml")).write_text(component + "\\n")
        state.write_text(json.dumps(clusters + [name]))
        Path(opt("--kubeconfig")).write_text(kubeconfig(name))
    elif argv[:2] == ["get", "kubeconfig"]:
        name = opt("--name")
        if name not in clusters:
            fail("ERROR: could not locate any control plane nodes for cluster named '" + name + "'.")
        sys.stdout.write(kubeconfig(name))
    elif argv[:2] == ["get", "nodes"]:
        name = opt("--name")
        found = sorted((p.name for p in nodes.glob(name + "-*")), reverse=True)
        print("\\n".join(found)) if found else fail('No kind nodes found for cluster "' + name + '".', code=0)
    elif argv[:2] == ["delete", "cluster"]:
        name = opt("--name")
        sys.stderr.write('Deleting cluster "' + name + '" ...\\n')
        for node in nodes.glob(name + "-*"):
            shutil.rmtree(node)
        state.write_text(json.dumps([c for c in clusters if c != name]))
    else:
        fail("ERROR: unknown command", code=2)
else:
    if argv == ["info"]:
        if (HOME / "engine-down").exists():
            fail("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                 "Is the docker daemon running?")
        print("Server Version: 28.2.2")
    elif argv[:1] == ["exec"] and argv[2:4] == ["sh", "-c"]:
        root = nodes / argv[1]
        if not root.is_dir():
            fail("Error response from daemon: No such container: " + argv[1])
        script = argv[4].replace("/etc/kubernetes", str(root / "etc/kubernetes"))
        sys.exit(subprocess.run(["sh", "-c", script]).returncode)
    else:
        fail("unknown command", code=125)
'''

DISABLE = ("if [ -f /etc/kubernetes/manifests/kube-scheduler.yaml ]; then mv /etc/kubernetes/manifests/kube-scheduler.yaml"
           " /etc/kubernetes/kube-scheduler.yaml.disabled; fi")
ENABLE = ("if [ -f /etc/kubernetes/kube-scheduler.yaml.disabled ]; then mv /etc/kubernetes/kube-scheduler.yaml.disabled"
          " /etc/kubernetes/manifests/kube-scheduler.yaml; fi")


class StandIns:
    """Stand-in ``kind``, ``docker`` and ``podman`` executables sharing one log and one state.

    Each call appends its argv (preceded by ``KIND_EXPERIMENTAL_PROVIDER=...`` when kind sees that
    variable) to ``calls.jsonl``; node containers are directories under ``nodes/``, and ``exec ...
    sh -c`` runs the script with ``/etc/kubernetes`` mapped into the node's directory.
    """

    __test__ = False

    def __init__(self, home: Path) -> None:
        self.home = home
        self.bin = home / "bin"
        self.bin.mkdir(parents=True)
        for role in ("kind", "docker", "podman"):
            path = self.bin / role
            path.write_text(STAND_IN.format(python=sys.executable, role=role, home=str(home)))
            path.chmod(0o755)
        self.kind, self.docker, self.podman = (str(self.bin / role) for role in ("kind", "docker", "podman"))

    def calls(self) -> list[list[str]]:
        """The commands run since the last call."""
        log = self.home / "calls.jsonl"
        if not log.exists():
            return []
        calls = [json.loads(line) for line in log.read_text().splitlines()]
        log.unlink()
        return calls

    def clusters(self) -> list[str]:
        state = self.home / "clusters.json"
        return json.loads(state.read_text()) if state.exists() else []

    def add_cluster(self, name: str) -> None:
        subprocess.run([self.kind, "create", "cluster", "--name", name, "--kubeconfig", str(self.home / "kc")],
                       check=True)
        self.calls()

    def scheduler_manifest(self, cluster: str) -> str:
        """Where the kube-scheduler manifest is on the control-plane node."""
        etc = self.home / "nodes" / f"{cluster}-control-plane" / "etc/kubernetes"
        found = [str(p.relative_to(etc)) for p in etc.rglob("kube-scheduler.yaml*")]
        assert len(found) == 1, found
        return found[0]

    def flag(self, name: str) -> None:
        (self.home / name).touch()


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
