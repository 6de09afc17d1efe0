"""Backends: where the Kubernetes API a scenario talks to comes from.

A scenario and a scheduler only need a URL and a kubeconfig; the harness additionally wants the
request journal (to judge "exactly one status PATCH"), fault injection (to make the API server
misbehave) and a clock (to stamp reports). :class:`Backend` is that bundle. A backend that cannot
offer a piece says so with ``None`` (a real cluster has no journal and cannot inject faults), and
the scenario turns a step that needs it into a clear error instead of a silent no-op.

:class:`FakeBackend` is the in-process :class:`~fake_apiserver.FakeApiServer` on the running
loop. Its clock follows the loop: on a :class:`~harness.VirtualEventLoop` it is a
:class:`~harness.VirtualClock` (timestamps and journal times are virtual, so the journal is the
same byte for byte on every run with the same seed); on any other loop it is a
:class:`~harness.RealClock` (an external scheduler process cannot follow virtual time).

:class:`KubeconfigBackend` is any existing cluster, reached through a
:class:`~fake_apiserver.FaultProxy` started for the test: the scenario and the scheduler under test
talk to the proxy, so the journal and the fault rules work as on the fake, on real time.
:class:`KindBackend` is the same in front of a kind cluster the run made or reused
(:mod:`harness._backends.kind_setup`), :class:`EnvtestBackend` in front of an etcd and kube-apiserver the
run started as plain processes (:mod:`harness._backends.envtest`). All three are *shared*: the API outlives the test and other tests use it,
so a :class:`~harness.Scenario` on them works in a namespace of its own and deletes what it made.
Only on :class:`KubeconfigBackend` may another scheduler run (``other_schedulers``): the scheduler
under test and the scenario's pods then use a scheduler name of their own.

``taint_not_ready_nodes`` is off by default here, unlike the server's own default: a real cluster
taints a new node ``node.kubernetes.io/not-ready`` until its kubelet reports Ready, and nothing in
a scenario plays the kubelet, so with the taint on no pod would ever fit. A scenario that wants to
check the scheduler honours that taint turns it on, or adds the taint itself.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from fake_apiserver import FakeApiServer, FaultInjector, FaultProxy, FeatureGateError, Journal, RuntimeConfigError
from fake_apiserver import KUBERNETES_VERSION
from harness._time.virtual_time import RealClock, VirtualClock, VirtualEventLoop

__all__ = ["BACKENDS", "REAL_TIME_SLACK", "VIRTUAL_SLACK", "Backend", "BackendClock", "BackendError", "EnvtestBackend",
           "FakeBackend", "KindBackend", "KubeconfigBackend", "Slack", "Unsupported", "backend_problem"]

#: what ``--backend`` takes
BACKENDS = ("fake", "kind", "envtest", "kubeconfig:PATH")


def backend_problem(backend: str, scheduler: str, workers: int) -> str | None:
    """Why ``--backend`` cannot run with this ``--scheduler`` and ``workers`` (``-n``), worded as
    a usage error naming the option; None when it can. The pytest plugin and ``schedharness run``
    (before anything starts) ask the same question."""
    if backend not in ("fake", "kind", "envtest") and not (backend.startswith("kubeconfig:") and backend[11:].strip()):
        return f"--backend {backend}: unknown backend; available: {', '.join(BACKENDS)}"
    if scheduler == "cluster" and backend in ("fake", "envtest"):
        return (f"--scheduler cluster tests a cluster's own scheduler: use --backend kind or kubeconfig:PATH (the "
                f"{backend} backend has no scheduler)")
    if backend not in ("fake", "envtest") and workers > 0:
        return f"--backend {backend} runs one test at a time on one cluster (nodes are cluster-wide): drop -n"
    return None


class BackendClock(Protocol):
    """What a backend's clock offers: wall time for timestamps, seconds for journals and reports."""

    def now(self) -> datetime: ...

    def time(self) -> float: ...


class BackendError(RuntimeError):
    """A backend was used before it started, or cannot do what was asked of it."""


class Unsupported(BackendError):
    """A step needs what this backend (or the scheduler's way to it) cannot give, e.g. the
    request journal of a scheduler that does not talk through it. The pytest plugin reports a
    test that raises it as skipped, with this message as the reason."""


@dataclass(frozen=True)
class Slack:
    """How far from a time a KEP names (``5 s after the scheduler saw the pod``) a scheduler's
    write may land and still be on time: ``early`` before it (clock granularity only: a scheduler
    cannot act on an object before its watch delivered it) and ``late`` after it (its queue,
    its dispatcher, the network). Tight under virtual time, where nothing takes time unless a
    timer says so; on real time, what a busy 2-core machine needs for a correct scheduler in
    another process. Written once here and printed in every report."""

    early: float
    late: float

    def describe(self) -> str:
        return f"a write may land {self.early:g} s before and {self.late:g} s after the time a criterion names"


VIRTUAL_SLACK = Slack(early=0.01, late=0.2)
REAL_TIME_SLACK = Slack(early=0.05, late=2.0)


class Backend(ABC):
    """A running Kubernetes API: where it is, how to reach it, and what it can record or fake.

    Start and stop it inside the event loop the scenario and an in-process scheduler run on.
    """

    name: str = "backend"

    @property
    @abstractmethod
    def url(self) -> str:
        """The API server's base URL, e.g. ``http://127.0.0.1:40123``."""

    @property
    @abstractmethod
    def kubeconfig_path(self) -> Path:
        """A kubeconfig file any client (kubectl, client-go, kube-scheduler) can use unchanged."""

    @property
    @abstractmethod
    def journal(self) -> Journal | None:
        """Every request and watch event, or ``None`` when the backend does not record them."""

    @property
    @abstractmethod
    def faults(self) -> FaultInjector | None:
        """The fault rules, or ``None`` when the backend cannot inject faults."""

    @property
    @abstractmethod
    def clock(self) -> BackendClock:
        """The clock stamping the API's timestamps and the journal's times."""

    @property
    @abstractmethod
    def is_virtual(self) -> bool:
        """Whether time is virtual (``advance`` is instant and the journal is reproducible)."""

    @property
    def slack(self) -> Slack:
        """The timing slack of this backend's criteria (:class:`Slack`)."""
        return VIRTUAL_SLACK if self.is_virtual else REAL_TIME_SLACK

    #: the API server's ``gitVersion`` once started (``v1.37.0-schedharness``, ``v1.36.0``), or None
    server_version: str | None = None
    #: the feature gates the API server was started with (``{}``: its release's defaults), or None
    #: when the harness does not know them (a cluster it did not start)
    apiserver_feature_gates: dict[str, bool] | None = None
    #: the ``--runtime-config`` the API server was started with (``{}``: its release's defaults),
    #: or None when the harness does not know it
    apiserver_runtime_config: dict[str, str] | None = None

    @property
    def shared(self) -> bool:
        """Whether the API outlives the test and is shared with other tests (a real cluster): a
        scenario then isolates itself in its own namespace and cleans up (module docstring)."""
        return False

    @property
    def other_schedulers(self) -> bool:
        """Whether a scheduler other than the one under test may run there and race it for the
        scenario's pods: a cluster the harness did not prepare (``kubeconfig:PATH``). The scheduler
        under test then gets a scheduler name of its own (:data:`~harness._backends.shared_cluster.SCHEDULER_NAME`).
        kind's own kube-scheduler is stopped by the run (or is the one under test), envtest and the
        fake have none."""
        return False

    @abstractmethod
    async def start(self) -> None:
        """Bring the API up on the running loop."""

    @abstractmethod
    async def stop(self) -> None:
        """Tear it down; safe to call twice and after a failed start."""

    async def __aenter__(self) -> Backend:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


class FakeBackend(Backend):
    """The fake API server in this process, on the running loop (module docstring).

    ``workdir`` receives the kubeconfig; ``seed`` makes uids, generated names and probabilistic
    fault rules reproducible; ``kubernetes_version`` is the release the fake serves as (to be
    compared with a real server of that release, see ``schedharness compare``); ``feature_gates``
    are its API server's (``--feature-gates`` of kube-apiserver: the release's defaults with these
    applied) and ``runtime_config`` its ``--runtime-config`` (key to value); :meth:`start` raises
    :class:`BackendError` with kube-apiserver's message for gates or a runtime config it would refuse.
    """

    name = "fake"

    def __init__(self, workdir: str | Path, *, seed: int = 0, taint_not_ready_nodes: bool = False,
                 kubernetes_version: str = KUBERNETES_VERSION, feature_gates: dict[str, bool] | None = None,
                 runtime_config: dict[str, str] | None = None) -> None:
        self.workdir = Path(workdir)
        self.seed = seed
        self.taint_not_ready_nodes = taint_not_ready_nodes
        self.kubernetes_version = kubernetes_version
        self.feature_gates = dict(feature_gates or {})
        self.apiserver_feature_gates = self.feature_gates
        self.runtime_config = dict(runtime_config or {})
        self.apiserver_runtime_config = self.runtime_config
        self._server: FakeApiServer | None = None
        self._clock: VirtualClock | RealClock | None = None
        self._kubeconfig: Path | None = None
        self._stopped = False

    @property
    def server(self) -> FakeApiServer:
        """The :class:`~fake_apiserver.FakeApiServer` (its store, for harness internals)."""
        if self._server is None:
            raise BackendError("the fake backend is not running: await backend.start() first")
        return self._server

    @property
    def started(self) -> bool:
        """Whether :meth:`start` succeeded (the journal is readable from then on, also after stop)."""
        return self._server is not None

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def kubeconfig_path(self) -> Path:
        if self._kubeconfig is None:
            raise BackendError("the fake backend is not running: await backend.start() first")
        return self._kubeconfig

    @property
    def journal(self) -> Journal:
        return self.server.journal

    @property
    def faults(self) -> FaultInjector:
        return self.server.faults

    @property
    def clock(self) -> VirtualClock | RealClock:
        if self._clock is None:
            raise BackendError("the fake backend is not running: await backend.start() first")
        return self._clock

    @property
    def is_virtual(self) -> bool:
        return isinstance(self.clock, VirtualClock)

    async def start(self) -> None:
        if self._server is not None:
            raise BackendError("the fake backend was already started; make a new one per run")
        loop = asyncio.get_running_loop()
        clock: VirtualClock | RealClock
        clock = VirtualClock(loop) if isinstance(loop, VirtualEventLoop) else RealClock(loop)
        try:
            server = FakeApiServer(
                clock=clock, time=clock.time, seed=self.seed, taint_not_ready_nodes=self.taint_not_ready_nodes,
                kubernetes_version=self.kubernetes_version, feature_gates=self.feature_gates,
                runtime_config=self.runtime_config,
            )
        except FeatureGateError as e:
            gates = ",".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(self.feature_gates.items()))
            raise BackendError(f"the fake API server (Kubernetes v{self.kubernetes_version}) refuses the feature gates "
                               f"{gates}: {e}") from None
        except RuntimeConfigError as e:
            config = ",".join(f"{k}={v}" for k, v in self.runtime_config.items())
            raise BackendError(f"the fake API server (Kubernetes v{self.kubernetes_version}) refuses the runtime config "
                               f"{config}: {e}") from None
        await server.start()
        self._server, self._clock = server, clock
        self.server_version = f"v{server.store.release}-schedharness"
        self._kubeconfig = server.write_kubeconfig(self.workdir / "kubeconfig")

    async def stop(self) -> None:
        """Stop serving; the journal and fault rules stay readable for the report."""
        if self._server is not None and not self._stopped:
            self._stopped = True
            await self._server.stop()


class KubeconfigBackend(Backend):
    """An existing cluster from a kubeconfig, behind a fault proxy started for this test.

    The proxy's kubeconfig (plain HTTP on loopback, no credentials: the proxy holds them) is
    written to ``workdir/kubeconfig``; the scheduler under test is given that one, so its requests
    are journaled and can be faulted. Time is real: a cluster cannot follow a virtual clock.
    """

    name = "kubeconfig"

    def __init__(self, kubeconfig: str | Path, workdir: str | Path, *, seed: int = 0,
                 context: str | None = None, apiserver_feature_gates: dict[str, bool] | None = None,
                 apiserver_runtime_config: dict[str, str] | None = None) -> None:
        self.upstream_kubeconfig = Path(kubeconfig)
        self.apiserver_feature_gates = apiserver_feature_gates  # what the run started it with, if it did
        self.apiserver_runtime_config = apiserver_runtime_config
        self.workdir = Path(workdir)
        self.seed = seed
        self.context = context
        self._proxy: FaultProxy | None = None
        self._clock: RealClock | None = None
        self._kubeconfig: Path | None = None
        self._stopped = False

    @property
    def proxy(self) -> FaultProxy:
        if self._proxy is None:
            raise BackendError(f"the {self.name} backend is not running: await backend.start() first")
        return self._proxy

    @property
    def started(self) -> bool:
        return self._proxy is not None

    @property
    def url(self) -> str:
        return self.proxy.url

    @property
    def kubeconfig_path(self) -> Path:
        if self._kubeconfig is None:
            raise BackendError(f"the {self.name} backend is not running: await backend.start() first")
        return self._kubeconfig

    @property
    def journal(self) -> Journal:
        return self.proxy.journal

    @property
    def faults(self) -> FaultInjector:
        return self.proxy.faults

    @property
    def clock(self) -> RealClock:
        if self._clock is None:
            raise BackendError(f"the {self.name} backend is not running: await backend.start() first")
        return self._clock

    @property
    def is_virtual(self) -> bool:
        return False

    @property
    def shared(self) -> bool:
        return True

    @property
    def other_schedulers(self) -> bool:
        return True

    async def start(self) -> None:
        if self._proxy is not None:
            raise BackendError(f"the {self.name} backend was already started; make a new one per run")
        if not self.upstream_kubeconfig.is_file():
            raise BackendError(f"the {self.name} backend: no kubeconfig at {self.upstream_kubeconfig}")
        loop = asyncio.get_running_loop()
        clock = RealClock(loop)
        try:
            proxy = FaultProxy(self.upstream_kubeconfig, context=self.context, time=clock.time, seed=self.seed)
        except ValueError as e:
            raise BackendError(f"the {self.name} backend: {e}") from None
        await proxy.start()
        self._proxy, self._clock = proxy, clock
        self.server_version = await proxy.server_version()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._kubeconfig = proxy.write_kubeconfig(self.workdir / "kubeconfig")

    async def stop(self) -> None:
        """Stop the proxy; the journal and fault rules stay readable for the report."""
        if self._proxy is not None and not self._stopped:
            self._stopped = True
            await self._proxy.stop()


class KindBackend(KubeconfigBackend):
    """A kind cluster (made or reused once per run, see :mod:`harness._backends.kind_setup`) behind a fault
    proxy started for this test."""

    name = "kind"

    @property
    def other_schedulers(self) -> bool:
        return False  # the run stopped kind's own kube-scheduler, unless it is the one under test


class EnvtestBackend(KubeconfigBackend):
    """An etcd and kube-apiserver started for the run (or the xdist worker) as plain processes
    (:mod:`harness._backends.envtest`), behind a fault proxy started for this test: only how the control
    plane starts differs from :class:`KubeconfigBackend`."""

    name = "envtest"

    @property
    def other_schedulers(self) -> bool:
        return False  # a bare control plane: no scheduler but the one under test
