"""Kind clusters for running the suites on a real cluster: their config and their lifecycle.

Config
------

A kind cluster is described by one YAML document (``kind.x-k8s.io/v1alpha4``
``Cluster``). Feature gates for kube-apiserver and kube-scheduler are not
cluster-wide kind settings: they are flags of the control-plane components,
so they go in through a kubeadm ``ClusterConfiguration`` patch
(``apiServer.extraArgs`` / ``scheduler.extraArgs``, key ``feature-gates``),
which kind merges into the kubeadm config it writes for the control-plane node.

The output is deterministic (sorted gates, fixed key order) so it can be
compared with golden files.

The patch is unversioned (no ``apiVersion``) and uses the map form of
``extraArgs``, so it works whichever kubeadm API kind writes: kind uses kubeadm
``v1beta4`` only for Kubernetes 1.36.0+ and ``v1beta3`` before, and translates
unversioned patches that set ``extraArgs`` as a map into ``v1beta4``'s list of
``{name, value}`` for a ``v1beta4`` target (kubernetes-sigs/kind#4173).

Lifecycle
---------

Everything goes through the ``kind`` executable and the container engine's CLI (``docker`` or
``podman``), run by an injectable `CommandRunner`, so tests can record the exact command lines
with stand-in executables and no container engine. The code is synchronous; the caller runs it
off the event loop (creating a cluster takes minutes).

Why the scheduler is taken out after creation and not left out of it: since Kubernetes 1.33
``kubeadm init`` waits for every control-plane component, kube-scheduler included
(``WaitForAllControlPlaneComponents``, beta in 1.33, GA and locked on in 1.34;
kubernetes/kubernetes#129620, #132594), so skipping the scheduler at init (a ``skipPhases``
patch) would make init fail waiting for it. Instead `KindCluster.disable_scheduler` moves the
static Pod manifest out of ``/etc/kubernetes/manifests`` on the control-plane node container,
which makes the kubelet stop the Pod (and delete its mirror Pod);
`KindCluster.enable_scheduler` moves it back.

A cluster that exists already under the name is reused as it is: its node image and feature
gates are not compared with `KindOptions` (that would mean reading the kubeadm config back out
of the node), so a reused cluster may differ from what would be generated. Only a cluster that
this object created is deleted, and only unless ``keep``.

The node provider: kind uses docker unless ``KIND_EXPERIMENTAL_PROVIDER`` says ``podman``
(``pkg/internal/runtime/runtime.go`` in kind); ``engine=None`` follows the same rule. An
explicit ``engine`` (a name, or a path whose file name is ``docker`` or ``podman``) is passed on
to kind in that variable, so kind and the ``exec`` commands use the same engine. Node containers
are named as the nodes.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import NamedTuple, Protocol

import yaml

__all__ = [
    "CommandResult", "CommandRunner", "KindCluster", "KindError", "KindOptions", "SubprocessRunner",
    "kind_config", "kind_unavailable", "node_image",
]

_NODE_IMAGE_REPO = "kindest/node"


def node_image(image_or_version: str) -> str:
    """The node image for ``v1.35.0``-style versions, or the image itself.

    A bare version names kind's published image (``kindest/node:v1.35.0``);
    anything containing ``/`` or ``:`` is taken as an image reference.
    """
    if "/" in image_or_version or ":" in image_or_version:
        return image_or_version
    return f"{_NODE_IMAGE_REPO}:{image_or_version}"


@dataclass(frozen=True)
class KindOptions:
    """What the generated cluster config says.

    ``image`` is a node image or a Kubernetes version (see `node_image`);
    None keeps kind's default. Gate maps are component flag values:
    ``{"SchedulerQueueingHints": True}`` becomes
    ``feature-gates: SchedulerQueueingHints=true``.
    """

    image: str | None = None
    apiserver_feature_gates: Mapping[str, bool] = field(default_factory=dict)
    scheduler_feature_gates: Mapping[str, bool] = field(default_factory=dict)
    #: kube-apiserver's ``--runtime-config``, as kind's ``runtimeConfig`` (key to value)
    runtime_config: Mapping[str, str] = field(default_factory=dict)


class _Literal(str):
    """A multi-line string written as a YAML block (``|``), as kind docs show patches."""


class _Dumper(yaml.SafeDumper):
    pass


def _literal(dumper: yaml.SafeDumper, value: _Literal) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")


_Dumper.add_representer(_Literal, _literal)


def _gates(gates: Mapping[str, bool]) -> str:
    return ",".join(
        f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items())
    )


def kind_config(options: KindOptions) -> str:
    """The kind ``Cluster`` YAML for ``options``: one control-plane node."""
    node: dict[str, object] = {"role": "control-plane"}
    if options.image is not None:
        node["image"] = node_image(options.image)
    config: dict[str, object] = {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        "nodes": [node],
    }
    if options.runtime_config:
        config["runtimeConfig"] = {key: value for key, value in options.runtime_config.items()}
    cluster_configuration: dict[str, object] = {"kind": "ClusterConfiguration"}
    if options.apiserver_feature_gates:
        cluster_configuration["apiServer"] = {
            "extraArgs": {"feature-gates": _gates(options.apiserver_feature_gates)}
        }
    if options.scheduler_feature_gates:
        cluster_configuration["scheduler"] = {
            "extraArgs": {"feature-gates": _gates(options.scheduler_feature_gates)}
        }
    if len(cluster_configuration) > 1:
        config["kubeadmConfigPatches"] = [
            _Literal(yaml.safe_dump(cluster_configuration, sort_keys=False))
        ]
    return yaml.dump(config, Dumper=_Dumper, sort_keys=False)


# ---------------------------------------------------------------------- lifecycle

PROVIDER_VARIABLE = "KIND_EXPERIMENTAL_PROVIDER"
COMMAND_TIMEOUT = 120.0  # seconds, for every command but `kind create cluster`
ENGINE_INFO_TIMEOUT = 30.0  # seconds; `docker info` answers at once or the engine is not there
STDERR_TAIL_LINES = 10

_MANIFESTS = "/etc/kubernetes/manifests"
_ENABLED = f"{_MANIFESTS}/kube-scheduler.yaml"
_DISABLED = "/etc/kubernetes/kube-scheduler.yaml.disabled"  # outside the directory the kubelet watches
_DISABLE_SCRIPT = f"if [ -f {_ENABLED} ]; then mv {_ENABLED} {_DISABLED}; fi"
_ENABLE_SCRIPT = f"if [ -f {_DISABLED} ]; then mv {_DISABLED} {_ENABLED}; fi"


class CommandResult(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


class CommandRunner(Protocol):
    """Runs one command to its end and returns what it printed.

    ``env`` holds variables set on top of the inherited environment. A command that cannot be
    started or does not finish within ``timeout`` seconds raises `KindError`; a non-zero exit
    code is returned, not raised.
    """

    def __call__(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                 timeout: float | None = None) -> CommandResult: ...


class KindError(RuntimeError):
    """A kind or container-engine command failed; the message says which, how, and what it printed."""

    def __init__(self, message: str, *, argv: Sequence[str] = (), returncode: int | None = None,
                 stderr: str = "") -> None:
        super().__init__(message)
        self.argv = tuple(argv)
        self.returncode = returncode
        self.stderr = stderr

    @classmethod
    def failed(cls, argv: Sequence[str], result: CommandResult) -> KindError:
        """The error for a command that exited with a non-zero code."""
        command = shlex.join(argv)
        lines = result.stderr.rstrip().splitlines()[-STDERR_TAIL_LINES:]
        if lines:
            message = f"{command} exited with code {result.returncode}; its stderr ends:\n" + "\n".join(lines)
        else:
            message = f"{command} exited with code {result.returncode} and wrote nothing to stderr"
        return cls(message, argv=argv, returncode=result.returncode, stderr=result.stderr)


class SubprocessRunner:
    """The default `CommandRunner`: `subprocess.run`, text mode, output captured, stdin closed."""

    def __call__(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                 timeout: float | None = None) -> CommandResult:
        command = list(argv)
        environment = None if env is None else {**os.environ, **env}
        try:
            done = subprocess.run(command, env=environment, timeout=timeout, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, check=False)
        except subprocess.TimeoutExpired as e:
            raise KindError(f"{shlex.join(command)} did not finish within {timeout:g} s", argv=command) from e
        except OSError as e:
            raise KindError(f"cannot run {shlex.join(command)}: {e}", argv=command) from e
        return CommandResult(done.returncode, done.stdout, done.stderr)


def _engine(engine: str | None) -> str:
    if engine is not None:
        return engine
    return "podman" if os.environ.get(PROVIDER_VARIABLE) == "podman" else "docker"


def kind_unavailable(kind: str = "kind", engine: str | None = None,
                     runner: CommandRunner | None = None) -> str | None:
    """None when ``kind`` and a running container engine are there; otherwise why not.

    The reason is worded to follow "skipped: ..." or "cannot create a kind cluster: ...".
    ``engine`` None means podman if ``KIND_EXPERIMENTAL_PROVIDER=podman``, else docker; the
    engine is running when ``<engine> info`` succeeds (it asks the daemon or service).
    """
    if shutil.which(kind) is None:
        if os.sep in kind:
            return f"needs the kind executable (not an executable file: {kind})"
        return f"needs the kind executable on PATH (not found: {kind})"
    engine = _engine(engine)
    if shutil.which(engine) is None:
        return f"needs a container engine on PATH (not found: {engine})"
    argv = [engine, "info"]
    try:
        result = (runner or SubprocessRunner())(argv, timeout=ENGINE_INFO_TIMEOUT)
    except KindError as e:
        return f"needs a running container engine: {e}"
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        why = lines[0].strip() if lines else f"exit code {result.returncode}"
        return f"needs a running container engine: '{shlex.join(argv)}' failed: {why}"
    return None


@dataclass(kw_only=True)
class KindCluster:
    """One kind cluster, found or created by `up` and deleted by `down` if this object created it.

    ``workdir`` receives ``kind-config.yaml`` (when creating) and ``kubeconfig`` (always); kind
    writes the kubeconfig there instead of ``~/.kube/config``. ``wait`` is kind's ``--wait``: how
    long ``kind create cluster`` waits for the control plane to be ready. Creating has no timeout
    of its own, because pulling a node image has no sensible bound; kind deletes a cluster whose
    creation failed, so a failed `up` leaves nothing behind.
    """

    name: str = "schedharness"
    options: KindOptions = field(default_factory=KindOptions)
    workdir: Path
    keep: bool = False
    kind: str = "kind"
    engine: str | None = None
    wait: str = "300s"
    runner: CommandRunner = field(default_factory=SubprocessRunner)
    created: bool = field(default=False, init=False)
    """Whether `up` created the cluster (False when it reused one)."""
    reused: bool = field(default=False, init=False)
    """Whether `up` found the cluster already there and took it as it is."""
    _control_plane: str | None = field(default=None, init=False, repr=False)
    _scheduler_disabled: bool = field(default=False, init=False, repr=False)
    _deleted: bool = field(default=False, init=False, repr=False)

    @property
    def kubeconfig_path(self) -> Path:
        return self.workdir / "kubeconfig"

    @property
    def config_path(self) -> Path:
        return self.workdir / "kind-config.yaml"

    @property
    def container_engine(self) -> str:
        """The engine that runs the node containers (see the module docstring)."""
        return _engine(self.engine)

    def exists(self) -> bool:
        """Whether ``kind get clusters`` lists the name."""
        return self.name in self._kind("get", "clusters").splitlines()

    def up(self) -> Path:
        """Reuse the cluster if it exists, create it otherwise; return the kubeconfig path.

        Calling it again on the same object returns at once.
        """
        if (self.created or self.reused) and not self._deleted:
            return self.kubeconfig_path
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.created = self.reused = self._deleted = False
        if self.exists():
            self.kubeconfig_path.write_text(self._kind("get", "kubeconfig", "--name", self.name))
            self.reused = True
        else:
            self.config_path.write_text(kind_config(self.options))
            self._kind("create", "cluster", "--name", self.name, "--config", str(self.config_path),
                       "--wait", self.wait, "--kubeconfig", str(self.kubeconfig_path), timeout=None)
            self.created = True
        return self.kubeconfig_path

    @property
    def control_plane(self) -> str:
        """The control-plane node (and its container): the node named ``<name>-control-plane``."""
        if self._control_plane is None:
            argv = [self.kind, "get", "nodes", "--name", self.name]
            nodes = self._run(argv, env=self._kind_env()).splitlines()
            found = [node for node in nodes if node.endswith("-control-plane")]
            if not found:
                raise KindError(f"kind cluster {self.name!r} has no control-plane node: "
                                f"{shlex.join(argv)} printed {nodes!r}", argv=argv)
            self._control_plane = found[0]
        return self._control_plane

    def disable_scheduler(self) -> None:
        """Stop the cluster's kube-scheduler: move its static Pod manifest out of the kubelet's reach.

        Idempotent. The kubelet stops the Pod shortly after, not at once; wait for the
        ``kube-scheduler-<control plane>`` mirror Pod to go before relying on its absence.
        """
        self._exec_on_control_plane(_DISABLE_SCRIPT)
        self._scheduler_disabled = True

    def enable_scheduler(self) -> None:
        """Undo `disable_scheduler` (idempotent); the kubelet starts kube-scheduler again."""
        self._exec_on_control_plane(_ENABLE_SCRIPT)
        self._scheduler_disabled = False

    def down(self) -> bool:
        """Delete the cluster if this object created it and ``keep`` is false; return whether it did.

        A cluster that stays (kept or reused) gets its scheduler back if this object took it out.
        """
        if self.created and not self.keep and not self._deleted:
            self._kind("delete", "cluster", "--name", self.name)
            self._deleted = True
            self._scheduler_disabled = False
            return True
        if self._scheduler_disabled:
            self.enable_scheduler()
        return False

    def __enter__(self) -> KindCluster:
        self.up()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.down()

    # ------------------------------------------------------------------ commands

    def _kind_env(self) -> dict[str, str] | None:
        return None if self.engine is None else {PROVIDER_VARIABLE: Path(self.engine).name}

    def _kind(self, *args: str, timeout: float | None = COMMAND_TIMEOUT) -> str:
        return self._run([self.kind, *args], env=self._kind_env(), timeout=timeout)

    def _exec_on_control_plane(self, script: str) -> None:
        self._run([self.container_engine, "exec", self.control_plane, "sh", "-c", script])

    def _run(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
             timeout: float | None = COMMAND_TIMEOUT) -> str:
        result = self.runner(argv, env=env, timeout=timeout)
        if result.returncode != 0:
            raise KindError.failed(argv, result)
        return result.stdout
