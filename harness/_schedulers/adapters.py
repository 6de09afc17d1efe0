"""Scheduler adapters: one interface for every way of running the scheduler under test.

A scenario never knows which scheduler runs against it; the plugin picks an adapter per run and
starts it, for each test, on the backend's kubeconfig with the test's feature gates. Two kinds
live here:

* :class:`ProcessAdapter`: any external command (a kube-scheduler binary, a scheduler written in
  another language). It runs on real time, since another process cannot follow a virtual clock,
  so ``needs_real_time`` is True and the plugin gives the test a real event loop.
* :class:`CallableAdapter`: a scheduler written as coroutines in this process, on the test's own
  loop, so under virtual time. The reference scheduler's adapter is built on it.
* :class:`ClusterSchedulerAdapter`: a cluster's own kube-scheduler (kind's static Pod). There is
  nothing to start; it does not talk through the backend's fault proxy (``through_backend`` is
  False), so the scenario cannot journal or fault its requests.

Readiness is observed, not assumed: :func:`probe_scheduler` creates a probe node and a probe pod
in the namespace ``schedharness-probe`` and waits until a scheduler binds the pod (its informers
have synced and it schedules), then deletes both. The probe node carries a taint only the probe
pod tolerates, so a scheduler whose cache still holds the node after the delete cannot place a
scenario's pod on it. The pod also tolerates ``node.kubernetes.io/not-ready``, which a real
cluster's admission puts on every new node until its controller sees the node Ready, and its
creation is retried while a new namespace has no ``default`` ServiceAccount yet (a real API
server refuses pods until then). The namespace is left in place (deleting one is asynchronous in
a real cluster).

**A scheduler name of its own.** Where another scheduler may run (the ``kubeconfig:`` backend,
:attr:`~harness._backends.backend.Backend.other_schedulers`), :func:`scheduler_name_for` gives the
scheduler under test the name :data:`~harness._backends.shared_cluster.SCHEDULER_NAME` for the run: the
scenario's pods and the probe pod carry it in ``spec.schedulerName``, and the scheduler must
schedule exactly those pods (``scheduler_name``, set before ``start``). An adapter says whether
it can be told (``takes_scheduler_name``): :class:`ProcessAdapter` can when its command names
``{config}`` (the KubeSchedulerConfiguration's profile takes the name) or ``{scheduler_name}``
(for a scheduler with a flag of its own, e.g. the reference scheduler's ``--scheduler-name``);
a :class:`CallableAdapter` when it is made with ``takes_scheduler_name=True`` (its start
function reads ``adapter.scheduler_name``); the cluster's own scheduler never (it is the one
under test, and schedules ``default-scheduler`` pods). An adapter that cannot be told keeps
``default-scheduler`` pods, and the run logs that another scheduler may race it.

A scenario may stop the scheduler and start it again (``restartable``; a criterion about what a
scheduler does with objects it finds when it starts). :class:`ProcessAdapter` then appends the
second run's output to the same log, and a crash after the restart is reported as one before it
would be. The cluster's own scheduler cannot be restarted from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import signal
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Awaitable, Callable, Generic, IO, Mapping, TypeVar

import yaml

from fake_apiserver import JournalEntry
from harness._backends.backend import Backend
from harness._backends.scenario_client import ApiError, ScenarioClient, ScenarioInformer, server_from_kubeconfig
from harness._backends.shared_cluster import (
    DEFAULT_SCHEDULER_NAME,
    FAKE_NODE_LABEL,
    SCHEDULER_NAME,
    make_default_service_account,
    with_scheduler_name,
)

__all__ = [
    "AdapterError",
    "CallableAdapter",
    "ClusterSchedulerAdapter",
    "PLACEHOLDERS",
    "PROBE_NAMESPACE",
    "ProcessAdapter",
    "SchedulerAdapter",
    "format_feature_gates",
    "is_probe_request",
    "load_scheduler_config",
    "parse_feature_gates",
    "probe_scheduler",
    "scheduler_name_for",
]

T = TypeVar("T")
Obj = dict[str, Any]

PROBE_NAMESPACE = "schedharness-probe"
PROBE_NAME = "schedharness-probe"
PROBE_TAINT = "schedharness.io/probe"


def is_probe_request(entry: JournalEntry) -> bool:
    """Whether a journaled request is the readiness probe's own, not the scheduler's: the probe
    (:func:`probe_scheduler`) makes and deletes its namespace, ServiceAccount, node and pod; a
    binding or a status write of the probe pod, or an event about it, is the scheduler's. A
    criterion that judges what the scheduler wrote before it was ready leaves these out."""
    body = entry.body if isinstance(entry.body, dict) else {}
    name = entry.name or str((body.get("metadata") or {}).get("name", ""))  # a create names it in its body
    if entry.subresource:
        return False
    if entry.resource == "namespaces":
        return name == PROBE_NAMESPACE
    if entry.resource == "nodes":
        return name == PROBE_NAME
    if entry.namespace != PROBE_NAMESPACE:
        return False
    return entry.resource == "serviceaccounts" or (entry.resource == "pods" and name == PROBE_NAME)


class AdapterError(RuntimeError):
    """The scheduler under test could not be started, did not become ready, or died."""


def parse_feature_gates(text: str) -> dict[str, bool]:
    """``A=true,B=false`` to ``{"A": True, "B": False}`` (the kube-scheduler flag's syntax)."""
    gates: dict[str, bool] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or value.strip().lower() not in ("true", "false"):
            raise ValueError(f"feature gate {item!r}: write Name=true or Name=false, comma-separated")
        gates[name.strip()] = value.strip().lower() == "true"
    return gates


def format_feature_gates(gates: dict[str, bool]) -> str:
    """The inverse of :func:`parse_feature_gates`, names sorted."""
    return ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items()))


class SchedulerAdapter(ABC):
    """How the harness runs one scheduler for one test."""

    name: str = "scheduler"
    needs_real_time: bool = False
    through_backend: bool = True  # its requests pass through the backend (journal, faults)
    #: ``stop`` then ``start`` runs it again on the same backend (module docstring)
    restartable: bool = True
    feature_gates: dict[str, bool] = {}  # what the last start was given (for reports and tests)
    #: the ``spec.schedulerName`` it must schedule, set before ``start`` (module docstring);
    #: None: ``default-scheduler``, what the API server gives a pod that names none
    scheduler_name: str | None = None

    @property
    def takes_scheduler_name(self) -> bool:
        """Whether ``scheduler_name`` reaches the scheduler (module docstring)."""
        return False

    @abstractmethod
    async def start(self, kubeconfig_path: Path, feature_gates: dict[str, bool]) -> None:
        """Start the scheduler against this kubeconfig; return once it is ready to schedule."""

    @abstractmethod
    async def stop(self) -> None:
        """Stop it; safe after a failed start and when called twice."""

    @abstractmethod
    def log_text(self) -> str:
        """What the scheduler logged (for the report)."""

    def failure(self) -> str | None:
        """Why the scheduler is no longer running when nobody stopped it, else None."""
        return None


def scheduler_name_for(backend: Backend, adapter: SchedulerAdapter | None) -> str | None:
    """The scheduler name of the run's pods and scheduler on ``backend`` (module docstring):
    :data:`~harness._backends.shared_cluster.SCHEDULER_NAME` where another scheduler may run and the
    adapter can be told, else None (``default-scheduler``)."""
    if adapter is None or not backend.other_schedulers or not adapter.takes_scheduler_name:
        return None
    return SCHEDULER_NAME


async def probe_scheduler(kubeconfig_path: Path, *, timeout: float = 30.0, scheduler_name: str | None = None) -> None:
    """Wait until a scheduler binds a probe pod (module docstring), one naming ``scheduler_name``
    when given; raise ``TimeoutError`` if not."""
    client = ScenarioClient(server_from_kubeconfig(kubeconfig_path))
    node_path = f"/api/v1/nodes/{PROBE_NAME}"
    pods_path = f"/api/v1/namespaces/{PROBE_NAMESPACE}/pods"
    try:
        with contextlib.suppress(ApiError):  # AlreadyExists from an earlier probe
            await client.request("POST", "/api/v1/namespaces", body={
                "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": PROBE_NAMESPACE}})
        # the ServiceAccount controller's stand-in: a cluster without one refuses the probe pod for
        # good; the fake serves no ServiceAccounts (404) and needs none
        with contextlib.suppress(ApiError):
            await make_default_service_account(client.request, PROBE_NAMESPACE)
        await client.request("POST", "/api/v1/nodes", body=_probe_node())
        informer = ScenarioInformer(client, pods_path, params={"fieldSelector": f"metadata.name={PROBE_NAME}"})
        bound = asyncio.Event()

        def check(event: str, obj: Obj) -> None:
            if (informer.objects.get(PROBE_NAME) or {}).get("spec", {}).get("nodeName"):
                bound.set()

        informer.listeners.append(check)
        await informer.start()
        try:
            await asyncio.wait_for(_create_probe_pod(client, pods_path, scheduler_name), timeout)
            await asyncio.wait_for(bound.wait(), timeout)
        finally:
            await informer.stop()
            with contextlib.suppress(ApiError):
                await client.request("DELETE", f"{pods_path}/{PROBE_NAME}", body={
                    "apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
            with contextlib.suppress(ApiError):
                await client.request("DELETE", node_path)
    finally:
        await client.close()


async def _create_probe_pod(client: ScenarioClient, pods_path: str, scheduler_name: str | None) -> None:
    pod = _probe_pod() if scheduler_name is None else with_scheduler_name(_probe_pod(), scheduler_name)
    while True:
        try:
            await client.request("POST", pods_path, body=pod)
            return
        except ApiError as e:
            if not (e.code == 403 and "service account" in e.message):
                raise
        await asyncio.sleep(0.2)


def _probe_node() -> Obj:
    capacity = {"cpu": "1", "memory": "1Gi", "pods": "10"}
    return {"apiVersion": "v1", "kind": "Node",
            # the fake-node label keeps a kind cluster's DaemonSets off it (harness._backends.kind_setup)
            "metadata": {"name": PROBE_NAME, "labels": {"kubernetes.io/hostname": PROBE_NAME,
                                                        FAKE_NODE_LABEL: PROBE_NAMESPACE}},
            "spec": {"taints": [{"key": PROBE_TAINT, "effect": "NoSchedule"}]},
            "status": {"capacity": capacity, "allocatable": dict(capacity),
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "message": "kubelet is posting ready status"}]}}


def _probe_pod() -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": PROBE_NAME, "namespace": PROBE_NAMESPACE},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}],
                     "nodeSelector": {"kubernetes.io/hostname": PROBE_NAME},
                     "tolerations": [{"key": PROBE_TAINT, "operator": "Exists", "effect": "NoSchedule"},
                                     {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                      "effect": "NoSchedule"}]}}


def scheduler_config(kubeconfig_path: Path, content_type: str | None = None, *,
                     scheduler_name: str | None = None, profiles: list[Obj] | None = None) -> Obj:
    """A KubeSchedulerConfiguration with no leader election (no Lease traffic, no wait). Its
    client sends ``content_type`` bodies; by default (None) ``contentType`` is left out, so
    kube-scheduler sends what it sends in a cluster, protobuf (its configuration's default
    ``clientConnection.contentType``), which the fake decodes. kube-scheduler v1.35.4 and v1.30.0 get the same verdict on every criterion of the
    suites either way; ``"application/json"`` is the configuration runs used before.

    With ``scheduler_name`` (module docstring) the configuration has ``profiles``: ``profiles``
    (a ``--scheduler-config``'s) with the one for ``default-scheduler`` (named so, or naming none)
    renamed, or else one profile of that name and kube-scheduler's default plugins."""
    connection = {"kubeconfig": str(kubeconfig_path)}
    if content_type is not None:
        connection["contentType"] = content_type
    config: Obj = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": connection,
        "leaderElection": {"leaderElect": False},
    }
    if scheduler_name is not None:
        config["profiles"] = [
            {**profile, "schedulerName": scheduler_name}
            if profile.get("schedulerName", DEFAULT_SCHEDULER_NAME) == DEFAULT_SCHEDULER_NAME else profile
            for profile in profiles or [{}]]
    return config


def load_scheduler_config(path: str | Path) -> dict[str, Any]:
    """A ``--scheduler-config`` file: a KubeSchedulerConfiguration (or a fragment of one: its
    ``profiles``, ``extenders``...) whose keys join the configuration ``{config}`` writes;
    ValueError with one line saying what is wrong."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror or e}") from None
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: give a KubeSchedulerConfiguration (a YAML mapping)")
    kind = data.get("kind", "KubeSchedulerConfiguration")
    if kind != "KubeSchedulerConfiguration":
        raise ValueError(f"{path}: kind {kind!r}: give a KubeSchedulerConfiguration")
    return data


#: what a scheduler command template may name, replaced in each argument
PLACEHOLDERS = ("{config}", "{feature_gates}", "{kubeconfig}", "{scheduler_name}")


class ProcessAdapter(SchedulerAdapter):
    """An external scheduler command, e.g. ``kube-scheduler --config={config} --secure-port=0
    --feature-gates={feature_gates}``.

    The template is split like a shell would (no shell runs); in each argument ``{kubeconfig}``,
    ``{feature_gates}`` (``A=true,B=false``), ``{scheduler_name}`` (the ``spec.schedulerName`` of
    the pods to schedule: ``scheduler_name``, else ``default-scheduler``) and ``{config}`` are
    replaced. ``{config}`` makes the
    adapter write :func:`scheduler_config` to ``workdir/scheduler-config.yaml``, with
    ``content_type`` as its client's body type (None: the client's default, protobuf), and
    ``config_overlay``'s keys beside the harness's (``profiles``, ``percentageOfNodesToScore``...:
    what an out-of-tree plugin needs; the harness keeps ``clientConnection`` and
    ``leaderElection``, so the scheduler talks to the run's API server; with ``scheduler_name``
    set, the profile for ``default-scheduler`` schedules that name instead). Output and errors
    go to ``workdir/scheduler.log``. Ready when the probe pod is bound within ``ready_timeout``;
    stopped with SIGTERM, then SIGKILL after ``stop_grace`` seconds.
    """

    needs_real_time = True

    def __init__(self, command_template: str, workdir: str | Path, *, name: str = "cmd",
                 ready_timeout: float = 30.0, stop_grace: float = 5.0, probe: bool = True,
                 content_type: str | None = None, config_overlay: Mapping[str, Any] | None = None) -> None:
        if not shlex.split(command_template):
            raise ValueError("the scheduler command template is empty")
        self.command_template = command_template
        self.content_type = content_type
        #: what the run's ``--scheduler-config`` adds to the configuration ``{config}`` writes
        self.config_overlay = dict(config_overlay or {})
        self.workdir = Path(workdir)
        self.name = name
        self.ready_timeout = ready_timeout
        self.stop_grace = stop_grace
        self.probe = probe
        self.argv: list[str] = []
        self.log_path = self.workdir / "scheduler.log"
        self.returncode: int | None = None
        #: the exit code when the process ended by itself before it was ready, else None
        self.early_exit: int | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._log: IO[bytes] | None = None
        self._stopping = False
        self._starts = 0

    @property
    def takes_scheduler_name(self) -> bool:
        return "{config}" in self.command_template or "{scheduler_name}" in self.command_template

    def command(self, kubeconfig_path: Path, feature_gates: dict[str, bool]) -> list[str]:
        """The argv for this kubeconfig and these gates (writes the config file if named)."""
        values = {"{kubeconfig}": str(kubeconfig_path), "{feature_gates}": format_feature_gates(feature_gates),
                  "{scheduler_name}": self.scheduler_name or DEFAULT_SCHEDULER_NAME}
        if "{config}" in self.command_template:
            path = self.workdir / "scheduler-config.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            profiles = self.config_overlay.get("profiles")
            written = {**self.config_overlay, **scheduler_config(
                kubeconfig_path, self.content_type, scheduler_name=self.scheduler_name,
                profiles=profiles if isinstance(profiles, list) else None)}
            path.write_text(yaml.safe_dump(written, sort_keys=False))
            values["{config}"] = str(path)
        argv = []
        for part in shlex.split(self.command_template):
            for placeholder, value in values.items():
                part = part.replace(placeholder, value)
            argv.append(part)
        return argv

    async def start(self, kubeconfig_path: Path, feature_gates: dict[str, bool]) -> None:
        self.feature_gates = dict(feature_gates)
        self.early_exit = None
        self.argv = self.command(kubeconfig_path, feature_gates)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._stopping = False
        self._log = open(self.log_path, "ab" if self._starts else "wb")  # a restart: the log goes on
        if self._starts:
            self._log.write(f"--- schedharness: the scheduler started again ({shlex.join(self.argv)})\n".encode())
            self._log.flush()
        self._starts += 1
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.DEVNULL, stdout=self._log, stderr=asyncio.subprocess.STDOUT)
        except OSError as e:
            self._close_log()
            raise AdapterError(f"cannot start the scheduler command {shlex.join(self.argv)}: {e}") from e
        if not self.probe:
            return
        process = self._process
        probe = asyncio.create_task(probe_scheduler(kubeconfig_path, timeout=self.ready_timeout,
                                                    scheduler_name=self.scheduler_name))
        exited = asyncio.create_task(process.wait())
        await asyncio.wait({probe, exited}, return_when=asyncio.FIRST_COMPLETED)
        if probe.done() and probe.exception() is None:
            exited.cancel()
            return
        probe.cancel()
        exited.cancel()
        await asyncio.gather(probe, exited, return_exceptions=True)
        if process.returncode is not None:
            self.early_exit = process.returncode
            why = f"exited with code {process.returncode} before it was ready"
        elif probe.done() and isinstance(probe.exception(), (asyncio.TimeoutError, TimeoutError)):
            why = (f"did not bind the probe pod {PROBE_NAMESPACE}/{PROBE_NAME} within "
                   f"{self.ready_timeout:g} s (is it watching {kubeconfig_path} with JSON content type?)")
        else:
            why = f"could not be probed: {probe.exception()!r}"
        await self.stop()
        raise AdapterError(f"scheduler {shlex.join(self.argv)} {why}; its log ends:\n{self._tail()}")

    async def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        self._stopping = True
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), self.stop_grace)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):  # it exited after the grace, before the kill
                    process.kill()
                await process.wait()
        self.returncode = process.returncode
        self._close_log()

    def failure(self) -> str | None:
        process = self._process
        if process is not None and process.returncode is not None and not self._stopping:
            return (f"scheduler {shlex.join(self.argv)} exited with code {process.returncode} during the "
                    f"scenario; its log ends:\n{self._tail()}")
        return None

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _tail(self, lines: int = 20) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:]) or "(empty)"


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


class CallableAdapter(SchedulerAdapter, Generic[T]):
    """A scheduler made of coroutines in this process, on the test's loop.

    ``start(kubeconfig_path, feature_gates)``: with ``stop`` given, it starts the scheduler and
    returns a handle that ``stop(handle)`` later stops; without ``stop``, it *is* the scheduler,
    running until cancelled (the adapter runs it as a task and cancels it on stop). Records of the
    logger ``logger_name`` (and its children) are the log. ``probe`` waits for the probe pod to
    be bound, as :class:`ProcessAdapter` does. ``takes_scheduler_name``: ``start`` schedules the
    pods that name ``adapter.scheduler_name`` (``default-scheduler`` when None), so the run may
    give it a name of its own (module docstring).
    """

    def __init__(self, start: Callable[[Path, dict[str, bool]], Awaitable[T]],
                 stop: Callable[[T], Awaitable[None]] | None = None, *, name: str = "callable",
                 needs_real_time: bool = False, logger_name: str = "schedharness.scheduler",
                 probe: bool = False, ready_timeout: float = 30.0, takes_scheduler_name: bool = False) -> None:
        self._start = start
        self._takes_scheduler_name = takes_scheduler_name
        self._stop = stop
        self.name = name
        self.needs_real_time = needs_real_time
        self.logger_name = logger_name
        self.probe = probe
        self.ready_timeout = ready_timeout
        self._capture = _Capture()
        self._task: asyncio.Task[Any] | None = None
        self._handle: Any = None
        self._started = False
        self._stopping = False

    @property
    def takes_scheduler_name(self) -> bool:
        return self._takes_scheduler_name

    async def start(self, kubeconfig_path: Path, feature_gates: dict[str, bool]) -> None:
        self.feature_gates = dict(feature_gates)
        self.early_exit = None
        logger = logging.getLogger(self.logger_name)
        logger.addHandler(self._capture)
        if logger.level == logging.NOTSET or logger.level > logging.INFO:
            logger.setLevel(logging.INFO)
        self._started = True
        self._stopping = False  # a restart: a crash from now on is reported again
        if self._stop is not None:
            try:
                self._handle = await self._start(kubeconfig_path, dict(feature_gates))
            except BaseException:
                self._started = False  # nothing to stop: stop() after a failed start is a no-op
                logger.removeHandler(self._capture)
                raise
        else:
            self._task = asyncio.create_task(_run(self._start, kubeconfig_path, dict(feature_gates)),
                                             name=f"scheduler {self.name}")
        if self.probe:
            try:
                await probe_scheduler(kubeconfig_path, timeout=self.ready_timeout, scheduler_name=self.scheduler_name)
            except (asyncio.TimeoutError, TimeoutError):
                failure = self.failure()
                await self.stop()
                raise AdapterError(failure or f"scheduler {self.name} did not bind the probe pod "
                                   f"{PROBE_NAMESPACE}/{PROBE_NAME} within {self.ready_timeout:g} s") from None

    async def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        self._stopping = True
        try:
            if self._task is not None:
                self._task.cancel()  # a task that already crashed keeps its exception for failure()
                await asyncio.gather(self._task, return_exceptions=True)
            elif self._stop is not None:
                await self._stop(self._handle)
        finally:
            logging.getLogger(self.logger_name).removeHandler(self._capture)

    def failure(self) -> str | None:
        task = self._task
        if task is None or not task.done() or self._stopping or task.cancelled():
            return None
        error = task.exception()
        if error is None:
            return f"scheduler {self.name} returned during the scenario instead of running until stopped"
        return f"scheduler {self.name} crashed during the scenario: {type(error).__name__}: {error}"

    def log_text(self) -> str:
        return "".join(line + "\n" for line in self._capture.lines)


async def _run(main: Callable[[Path, dict[str, bool]], Awaitable[Any]], path: Path, gates: dict[str, bool]) -> Any:
    return await main(path, gates)


class ClusterSchedulerAdapter(SchedulerAdapter):
    """The cluster's own kube-scheduler (``--scheduler cluster``): already running, nothing to
    start or stop. Its feature gates were set when the cluster was made (``--feature-gates`` of
    a run that makes a kind cluster); ``start`` only records what the test asked for."""

    name = "cluster"
    needs_real_time = True
    through_backend = False
    restartable = False

    async def start(self, kubeconfig_path: Path, feature_gates: dict[str, bool]) -> None:
        self.feature_gates = dict(feature_gates)
        self.early_exit = None

    async def stop(self) -> None:
        return None

    def log_text(self) -> str:
        return ("the cluster's own kube-scheduler: its log is the static Pod's, "
                "kubectl logs -n kube-system -l component=kube-scheduler\n")
