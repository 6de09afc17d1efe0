"""Stand-ins for ``kind``, ``docker`` and ``podman``: scripts that log every call and keep a
cluster's state in files, so a kind cluster's whole lifecycle runs without kind or a container
engine. ``DISABLE`` and ``ENABLE`` are the commands the harness runs on the control-plane node to
take kube-scheduler out and put it back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

__all__ = ["DISABLE", "ENABLE", "STAND_IN", "StandIns"]

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
