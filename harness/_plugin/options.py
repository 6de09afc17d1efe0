"""The plugin's command-line options, and :class:`Settings`, the run's options read and checked once.

The options form one group, ``schedharness``, in ``pytest --help``. :func:`read_settings` refuses
a combination that cannot run (a ``--scheduler`` that names no adapter or mutant, a backend that
cannot run that scheduler, API server gates the backend cannot set) with a usage error that names
the option, before any test is collected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver import KUBERNETES_VERSION
from fake_apiserver import served_release as schema_release
from harness._backends.apiserver_gates import options_problem
from harness._backends.backend import backend_problem
from harness._backends.runtime_config import options_problem as runtime_config_problem
from harness._backends.runtime_config import parse_option
from harness._backends.kind_setup import KindSettings
from harness._scenario.scenario import DEFAULT_REAL_TIME_WAIT
from harness._schedulers.adapters import load_scheduler_config, parse_feature_gates
from reference_scheduler import UnknownMutant, get_mutant

__all__ = ["Settings", "add_options", "read_settings"]


@dataclass(frozen=True)
class Settings:
    """The run's options, parsed once."""

    scheduler: str
    feature_gates: dict[str, bool]
    backend: str
    report_dir: Path | None
    seed: int
    timeline: bool = True
    kind: KindSettings = KindSettings()
    envtest_assets: str | None = None
    kubernetes_version: str = KUBERNETES_VERSION  # the fake's release (--kubernetes-version)
    #: --apiserver-feature-gates (None: not given; on the fake, the scheduler's known gates instead)
    apiserver_feature_gates: dict[str, bool] | None = None
    #: --runtime-config, its values joined ({}: not given; the release's defaults)
    runtime_config: dict[str, str] = field(default_factory=dict)
    #: --scheduler-config: keys a ``cmd:`` scheduler's ``{config}`` gets beside the harness's
    scheduler_config: dict[str, Any] | None = None
    real_time_wait: float = DEFAULT_REAL_TIME_WAIT  # --real-time-wait

    @property
    def real_cluster(self) -> bool:
        return self.backend != "fake"


def add_options(parser: pytest.Parser) -> None:
    """The plugin's options, in their own group (``pytest_addoption``)."""
    group = parser.getgroup("schedharness", "schedharness: scheduler conformance scenarios")
    group.addoption(
        "--scheduler", default="reference", metavar="ADAPTER",
        help="the scheduler under test: 'reference' (default: the built-in reference scheduler, "
             "in-process under virtual time), 'reference:<mutant>' (one of its broken variants, see "
             "'schedharness mutants'), 'cmd:<command template>' with {kubeconfig}, {feature_gates} and "
             "{config} placeholders (any scheduler process, on real time), 'cluster' (the cluster's own "
             "kube-scheduler; --backend kind or kubeconfig:PATH only), or 'none' (tests that need a "
             "scheduler are skipped)")
    group.addoption(
        "--scheduler-config", default=None, metavar="FILE",
        help="with --scheduler cmd:...: a KubeSchedulerConfiguration (its profiles, plugin args...) whose keys "
             "join the one {config} writes; the harness keeps clientConnection and leaderElection")
    group.addoption(
        "--feature-gates", default="", metavar="A=true,B=false",
        help="feature gates given to the scheduler; tests needing the opposite value are skipped")
    group.addoption(
        "--backend", default="fake", metavar="NAME",
        help="where the Kubernetes API comes from: 'fake' (default: a fresh in-process fake API server per "
             "test), 'kind' (a kind cluster made or reused for the run), 'envtest' (etcd and kube-apiserver "
             "started as processes, one per xdist worker) or 'kubeconfig:PATH' (any cluster)")
    group.addoption(
        "--kubernetes-version", default=None, metavar="1.NN",
        help=f"with --backend fake: the Kubernetes release the fake API server serves as (its schemas prune "
             f"the fields added since; default {KUBERNETES_VERSION.rsplit('.', 1)[0]}); run it at a real server's "
             "release to compare verdicts with that server (schedharness compare)")
    group.addoption(
        "--apiserver-feature-gates", default=None, metavar="A=true,B=false",
        help="the API server's feature gates: each scenario's fake API server's, the kube-apiserver envtest "
             "starts, or a new kind cluster's (as --kind-apiserver-feature-gates). Default on the fake: the "
             "scenario's scheduler gates (marker and --feature-gates) that the fake's release knows, as an "
             "operator enables a feature on every component")
    group.addoption(
        "--runtime-config", action="append", default=[], metavar="GROUP/VERSION=true",
        help="kube-apiserver's --runtime-config (repeatable, the values joined with commas): API group versions or "
             "resources each scenario's fake API server serves beyond its release's defaults (with a scenario's "
             "runtime_config marker; this option wins on a key both set), the kube-apiserver envtest starts, or a "
             "new kind cluster's; a scenario whose marker asks for what the cluster does not serve is skipped")
    group.addoption(
        "--envtest-assets", default=None, metavar="DIR",
        help="with --backend envtest: the directory holding etcd and kube-apiserver (default: $KUBEBUILDER_ASSETS, "
             "as `setup-envtest use -p path` prints it)")
    group.addoption(
        "--kind-cluster", default="schedharness", metavar="NAME",
        help="with --backend kind: the cluster's name; an existing cluster of that name is reused as it is")
    group.addoption(
        "--kind-image", default=None, metavar="IMAGE|VERSION",
        help="with --backend kind: node image or Kubernetes version (v1.35.0 means kindest/node:v1.35.0)")
    group.addoption(
        "--kind-keep", action="store_true", default=False,
        help="with --backend kind: keep the cluster at the end (reuse it with the same --kind-cluster)")
    group.addoption(
        "--kind-apiserver-feature-gates", default="", metavar="A=true,B=false",
        help="with --backend kind: kube-apiserver feature gates of a new cluster (the kube-scheduler's are "
             "--feature-gates, with --scheduler cluster); the older name of --apiserver-feature-gates")
    group.addoption(
        "--report-dir", default=None, metavar="DIR",
        help="write DIR/results.jsonl and, per test, DIR/<test id>/journal.jsonl and scheduler.log")
    group.addoption(
        "--no-timeline", action="store_true", default=False,
        help="with --report-dir, do not draw DIR/<test id>/timeline.svg (under 1 ms a test)")
    group.addoption(
        "--real-time-wait", type=float, default=DEFAULT_REAL_TIME_WAIT, metavar="SECONDS",
        help=f"on real time, the longest a criterion watches for something that must not happen (default "
             f"{DEFAULT_REAL_TIME_WAIT:g}); a longer watch is cut to it and the report says so, and a criterion "
             "that needs the whole watch (kube-scheduler's 5-minute flush) is not judged")
    group.addoption(
        "--scenario-seed", type=int, default=0, metavar="N",
        help="seed of the fake API server (uids, generated names, probabilistic faults); default 0")


def read_settings(config: pytest.Config) -> Settings:
    """The run's options from the command line; a :class:`pytest.UsageError` for a combination that
    cannot run."""
    scheduler = str(config.getoption("--scheduler", "none"))
    if scheduler not in ("none", "reference", "cluster") and not (scheduler.startswith("cmd:") and scheduler[4:].strip()):
        if not scheduler.startswith("reference:"):
            raise pytest.UsageError(
                f"--scheduler {scheduler}: use 'reference', 'reference:<mutant>', 'cmd:<command template>', "
                "'cluster' or 'none'")
        try:
            get_mutant(scheduler.partition(":")[2])
        except UnknownMutant as e:
            raise pytest.UsageError(f"--scheduler {scheduler}: {e}") from None
    backend = str(config.getoption("--backend", "fake"))
    problem = backend_problem(backend, scheduler, int(getattr(config.option, "numprocesses", 0) or 0))
    if problem is not None:
        raise pytest.UsageError(problem)
    options = {}
    for option in ("--feature-gates", "--kind-apiserver-feature-gates", "--apiserver-feature-gates"):
        try:
            options[option] = parse_feature_gates(str(config.getoption(option, "") or ""))
        except ValueError as e:
            raise pytest.UsageError(f"{option}: {e}") from None
    gates = options["--feature-gates"]
    given = config.getoption("--apiserver-feature-gates", None)
    apiserver = options["--apiserver-feature-gates"] if given is not None else None
    kind_gates = options["--kind-apiserver-feature-gates"]
    runtime = parse_option([str(v) for v in config.getoption("--runtime-config", None) or ()])
    kind = KindSettings(cluster=str(config.getoption("--kind-cluster", "schedharness")),
                        image=config.getoption("--kind-image", None), keep=bool(config.getoption("--kind-keep", False)),
                        apiserver_feature_gates=apiserver if apiserver is not None else kind_gates,
                        runtime_config=runtime)
    version = config.getoption("--kubernetes-version", None)
    if version is not None and backend != "fake":
        raise pytest.UsageError(f"--kubernetes-version chooses the fake API server's release: with --backend {backend} "
                                "the cluster's own kube-apiserver decides it")
    try:
        release = schema_release(str(version)) if version is not None else KUBERNETES_VERSION
    except ValueError as e:
        raise pytest.UsageError(f"--kubernetes-version: {e}") from None
    problem = (options_problem(backend=backend, release=release, given=apiserver, kind_gates=kind_gates,
                               scheduler_gates=gates)
               or runtime_config_problem(backend=backend, release=release, given=runtime))
    if problem is not None:
        raise pytest.UsageError(problem)
    overlay = None
    overlay_path = config.getoption("--scheduler-config", None)
    if overlay_path is not None:
        if not scheduler.startswith("cmd:"):
            raise pytest.UsageError(f"--scheduler-config is for a --scheduler cmd:..., not {scheduler}")
        try:
            overlay = load_scheduler_config(str(overlay_path))
        except ValueError as e:
            raise pytest.UsageError(f"--scheduler-config {e}") from None
    report = config.getoption("--report-dir", None)
    report_dir = Path(str(report)).resolve() if report else None
    return Settings(scheduler, gates, backend, report_dir, int(config.getoption("--scenario-seed", 0) or 0),
                    timeline=not config.getoption("--no-timeline", False), kind=kind,
                    envtest_assets=config.getoption("--envtest-assets", None), kubernetes_version=release,
                    apiserver_feature_gates=apiserver, runtime_config=runtime, scheduler_config=overlay,
                    real_time_wait=_real_time_wait(config))


def _real_time_wait(config: pytest.Config) -> float:
    wait = float(config.getoption("--real-time-wait", DEFAULT_REAL_TIME_WAIT))
    if not wait > 0:
        raise pytest.UsageError(f"--real-time-wait {wait:g}: give a number of seconds above 0")
    return wait
