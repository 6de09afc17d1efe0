"""The pytest plugin: scenarios as ``async def`` tests, one backend and one scheduler per test.

Loaded through the ``pytest11`` entry point ``schedharness`` (:mod:`harness.pytest_plugin`, which
registers this module); its options are in :mod:`harness._plugin.options` and its markers in
:mod:`harness._plugin.markers`. A test asks for what it needs::

    @pytest.mark.kep(5501, "Design Details")
    @pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True)
    @pytest.mark.criterion("kep5501-delay", reading="delay counted from the first rejection")
    async def test_condition_after_delay(scenario):
        await scenario.create_pod("p", claims=["missing"])
        ...

How a test runs, and why:

* **Its own loop.** The plugin runs each ``async def`` test that uses a schedharness fixture or
  marker on a fresh :class:`~harness.VirtualEventLoop` (:func:`harness.run`), so waiting is
  instant and the journal reproducible; when the scheduler adapter ``needs_real_time`` (an
  external process cannot follow a virtual clock) it gets an ordinary loop instead. Async tests
  with none of this plugin's fixtures or markers are left to whatever else handles them.
* **Fixtures live on that loop.** ``sh_backend``, ``sh_clock``, ``sh_journal``, ``sh_scheduler``
  and ``scenario`` are made, started and stopped inside the test's loop, so a synchronous test
  cannot use them (it gets a clear error). ``sh_adapter`` (the unstarted scheduler adapter, from
  ``--scheduler``) and ``sh_workdir`` are ordinary fixtures: override ``sh_adapter`` in a
  conftest to run an in-process scheduler (:class:`~harness._schedulers.adapters.CallableAdapter`).
* **Gates.** The run's ``--feature-gates`` are given to every scheduler; a test's
  ``feature_gates`` marker adds the gates it needs, and a test needing a gate the run sets the
  other way is skipped with a reason naming both.
* **The API server's gates.** ``--apiserver-feature-gates`` sets them: on the fake backend each
  scenario's fake API server has them (its release's defaults, alpha off, with these applied,
  and the fields of gates that are off dropped on write as kube-apiserver drops them), on
  envtest the kube-apiserver the run starts, on kind a cluster the run makes
  (``--kind-apiserver-feature-gates`` is the older name). Without it, on the fake, a scenario's
  scheduler gates (marker and ``--feature-gates``) that the fake's release registers are its API
  server's too, as an operator enables an alpha feature on every component of a cluster; gates
  the release does not register (``SchedulerPreEnqueuePodStatus``) are not passed
  (:mod:`harness._backends.apiserver_gates`). Each record names the API server's gates beside its
  ``server_version``.
* **The APIs the API server serves.** A test's ``runtime_config`` marker names group versions
  its API server must serve beyond its release's defaults (``scheduling.k8s.io/v1beta1=true``),
  as ``--runtime-config`` (repeatable) does for the run: on the fake each scenario's API server
  has both (the run's value wins on a key both set; a release without the group version skips the
  test), on envtest and kind the run's option goes to the kube-apiserver the run starts, and on
  every cluster a test whose marker asks for what the cluster's discovery does not serve is
  skipped, the reason naming the key and the option (:mod:`harness._backends.runtime_config`).
  Each record names the API server's runtime config beside its gates.
* **Strict.** After a passing test, a fault rule the scenario added that never fired fails it;
  a scheduler that died during the test fails it.
* **Backends.** ``--backend fake`` (default) is a fresh fake API server per test.
  ``--backend kind`` makes (or, with ``--kind-cluster NAME`` naming one that exists, reuses) a
  kind cluster once for the run, prepares it (:mod:`harness._backends.kind_setup`), and deletes it at the
  end unless ``--kind-keep``; ``--backend kubeconfig:PATH`` uses any cluster as it is;
  ``--backend envtest`` starts etcd and kube-apiserver as plain processes from
  ``KUBEBUILDER_ASSETS`` or ``--envtest-assets DIR`` (:mod:`harness._backends.envtest`), one control plane
  per process: under ``-n`` each xdist worker has its own, so envtest tests run in parallel. On
  all of them every test gets its own fault proxy (journal and fault rules as on the fake) and its
  own namespace, runs on real time, one test at a time on a cluster (nodes are cluster-wide, so
  tests in parallel would see each other's), and is skipped with the reason when the cluster is
  unavailable. Their logs are in ``<report-dir>/cluster`` (per worker for envtest).
  ``--scheduler cluster`` tests the cluster's own kube-scheduler; its requests bypass the proxy,
  so criteria that count them or fault them are skipped with that reason. On ``kubeconfig:PATH``,
  where the cluster's own scheduler may race the one under test, the scheduler under test and the
  scenario's pods get the scheduler name ``schedharness`` when the adapter can be told it
  (:func:`~harness._schedulers.adapters.scheduler_name_for`); otherwise a warning says the race is possible.
* **Records.** With ``--report-dir DIR``, each test writes ``DIR/<test id>/journal.jsonl``,
  ``timeline.svg`` (unless ``--no-timeline``) and ``scheduler.log``, and appends a record to
  ``DIR/results-<worker>.jsonl``; at the end of the session the controller merges them into
  ``DIR/results.jsonl`` (so it works under ``pytest -n``: each worker has its own servers and
  its own file). A failure's record and report name the seed and the command that replays it.
  A scenario's record also carries the timing slack its criteria were judged with (the
  backend's :attr:`~harness._backends.backend.Backend.slack`: virtual or real time), for the report.
* **YAML scenarios.** A YAML scenario file named on the command line is one test
  (:func:`pytest_collect_file`, :mod:`harness._plugin.yaml_items`), so ``python -m pytest my.yaml`` runs
  it with all of the above, as ``schedharness run my.yaml`` does.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import sys
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Coroutine, Generator

import pytest

from fake_apiserver import KUBERNETES_VERSION
from harness._backends.apiserver_gates import fake_apiserver_gates
from harness._backends.backend import EnvtestBackend, FakeBackend, KindBackend, KubeconfigBackend, Slack, Unsupported
from harness._backends.envtest import open_envtest_session
from harness._backends.kind_setup import ClusterSession, ClusterUnavailable, open_cluster_session
from harness._backends.runtime_config import (
    cluster_missing_api,
    fake_refusal,
    fake_runtime_config,
    format_runtime_config,
    marker_problem,
)
from harness._plugin.markers import MARKERS, criterion_facts, marker_gates, marker_runtime_config, register_markers
from harness._plugin.options import Settings, add_options, read_settings
from harness._plugin.timeline import render_timeline
from harness._plugin.yaml_items import YamlScenarioFile, ignore_collect, named_yaml_file, yaml_scenario_params
from harness._scenario.expectations import NOT_JUDGED, NotJudged
from harness._scenario.scenario import DEFAULT_REAL_TIME_WAIT, Scenario
from harness._schedulers.adapters import (
    AdapterError,
    ClusterSchedulerAdapter,
    ProcessAdapter,
    SchedulerAdapter,
    format_feature_gates,
    scheduler_name_for,
)
from harness._schedulers.reference import reference_adapter
from harness._time.virtual_time import VirtualEventLoop
from harness._time.virtual_time import run as run_virtual

__all__ = ["scenario_seconds"]

_log = logging.getLogger("schedharness.plugin")

DEFERRED = ("sh_backend", "sh_clock", "sh_journal", "sh_scheduler", "scenario")

_SETTINGS = pytest.StashKey[Settings]()
_RUN = pytest.StashKey["_TestRun"]()
_PHASES = pytest.StashKey[dict[str, pytest.TestReport]]()
_CLUSTER = pytest.StashKey["ClusterSession | ClusterUnavailable"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
    config.stash[_SETTINGS] = read_settings(config)
    report_dir = config.stash[_SETTINGS].report_dir
    if report_dir is not None and not hasattr(config, "workerinput"):
        report_dir.mkdir(parents=True, exist_ok=True)
        for stale in report_dir.glob("results-*.jsonl"):
            stale.unlink()


def scenario_seconds(item: pytest.Item) -> tuple[float | None, float | None]:
    """The virtual and the wall seconds a test's run took; None for what was not measured (a test
    using none of this plugin's loop fixtures, or not run yet; virtual seconds on a real loop)."""
    test_run = item.stash.get(_RUN, None)
    if test_run is None:
        return None, None
    return test_run.virtual_seconds, test_run.wall_seconds


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    settings = config.stash[_SETTINGS]
    run_gates = settings.feature_gates
    for item in items:
        if settings.scheduler == "cluster":  # its gates were set when the cluster started
            unknown = [f"{name}={'true' if need else 'false'}" for name, need in sorted(marker_gates(item).items())
                       if name not in run_gates]
            if unknown:
                item.add_marker(pytest.mark.skip(
                    reason=f"needs feature gate {', '.join(unknown)}; the cluster's scheduler runs with the gates "
                           "of --feature-gates only"))
                continue
        conflicts = [f"{name}={'true' if need else 'false'}" for name, need in sorted(marker_gates(item).items())
                     if name in run_gates and run_gates[name] != need]
        if conflicts:
            sets = ", ".join(f"{c.split('=')[0]}={'false' if c.endswith('true') else 'true'}" for c in conflicts)
            item.add_marker(pytest.mark.skip(
                reason=f"needs feature gate {', '.join(conflicts)}; this run sets {sets} (--feature-gates)"))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> YamlScenarioFile | None:
    """A YAML scenario file named on the command line (``python -m pytest my.yaml``; ``schedharness
    run`` names each YAML file it was given or found) is one test, ``my.yaml::my``, marked with the
    ``kep``, ``featureGates`` and ``criterion`` the file gives (:mod:`harness._plugin.yaml_items`). Other
    YAML files are left alone: the plugin is loaded wherever schedharness is installed."""
    if not named_yaml_file(file_path, parent.config):
        return None
    return YamlScenarioFile.from_parent(parent, path=file_path)


@pytest.hookimpl(wrapper=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> Generator[None, bool | None, bool | None]:
    """A YAML scenario named on the command line under a directory pytest does not walk
    (``norecursedirs``: ``build``, ``.hidden``), when a directory above it is named too, is reached
    all the same, and nothing else there: a scenario named is run (:func:`~harness._plugin.yaml_items.ignore_collect`)."""
    ignored = yield
    return ignore_collect(collection_path, config, ignored)


# ---------------------------------------------------------------------- fixtures


def _test_dirname(nodeid: str) -> str:
    """A test id as a directory name: ``tests/test_x.py::test_y[a]`` -> ``tests_test_x.py_test_y[a]``."""
    return re.sub(r"[^A-Za-z0-9_.\-\[\]=]+", "_", nodeid).strip("_")[:200]


@pytest.fixture
def sh_workdir(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where this test's kubeconfig, journal and scheduler log go: ``<report-dir>/<test id>``
    with ``--report-dir``, else a temporary directory."""
    settings = request.config.stash[_SETTINGS]
    if settings.report_dir is None:
        return tmp_path
    path = settings.report_dir / _test_dirname(request.node.nodeid)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def sh_adapter(request: pytest.FixtureRequest, sh_workdir: Path) -> SchedulerAdapter | None:
    """The scheduler adapter of this run (unstarted), from ``--scheduler``; None for ``none``.
    Override it in a conftest to run another scheduler."""
    settings = request.config.stash[_SETTINGS]
    scheduler = settings.scheduler
    if scheduler == "cluster":
        return ClusterSchedulerAdapter()
    if scheduler.startswith("cmd:"):
        return ProcessAdapter(scheduler[4:].strip(), sh_workdir, config_overlay=settings.scheduler_config)
    if scheduler == "reference" or scheduler.startswith("reference:"):
        return reference_adapter(scheduler.partition(":")[2] or None)
    return None


@dataclass
class _TestRun:
    """What the plugin starts on a test's loop, and what it measured."""

    adapter: SchedulerAdapter | None
    workdir: Path
    gates: dict[str, bool]
    seed: int
    kubernetes_version: str = KUBERNETES_VERSION
    apiserver_gates: dict[str, bool] = field(default_factory=dict)  # the fake API server's
    runtime_config: dict[str, str] = field(default_factory=dict)  # the fake API server's
    wanted: set[str] = field(default_factory=set)
    cluster: ClusterSession | None = None
    backend: FakeBackend | KubeconfigBackend | None = None
    scheduler: SchedulerAdapter | None = None
    scenario: Scenario | None = None
    slack: Slack | None = None  # the scenario's, when one ran
    timeline_title: str | None = None  # set when a timeline is wanted
    virtual_seconds: float | None = None
    wall_seconds: float | None = None
    journal_path: Path | None = None
    timeline_path: Path | None = None
    real_time_wait: float = DEFAULT_REAL_TIME_WAIT


@pytest.fixture
def _sh_run(request: pytest.FixtureRequest, sh_adapter: SchedulerAdapter | None, sh_workdir: Path) -> _TestRun:
    settings = request.config.stash[_SETTINGS]
    gates = {**marker_gates(request.node), **settings.feature_gates}
    apiserver = fake_apiserver_gates(settings.kubernetes_version, settings.apiserver_feature_gates, gates)
    wanted = marker_runtime_config(request.node)
    problem = marker_problem(wanted)
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    runtime = fake_runtime_config(wanted, settings.runtime_config)
    test_run = _TestRun(sh_adapter, sh_workdir, gates, settings.seed, settings.kubernetes_version, apiserver,
                        runtime, real_time_wait=settings.real_time_wait)
    if settings.real_cluster:
        test_run.cluster = _cluster_session(request.config)
    if wanted:  # an API the release lacks (the fake), or one the cluster does not serve
        missing = (fake_refusal(settings.kubernetes_version, runtime) if test_run.cluster is None
                   else cluster_missing_api(test_run.cluster, wanted))
        if missing is not None:
            pytest.skip(missing)
    if settings.report_dir is not None and settings.timeline:
        test_run.timeline_title = request.node.nodeid
    request.node.stash[_RUN] = test_run
    return test_run


def _cluster_session(config: pytest.Config) -> ClusterSession:
    """The run's cluster, made on first need; every test of the run skips with the reason when
    there is none (it is tried once)."""
    session = config.stash.get(_CLUSTER, None)
    if session is None:
        settings = config.stash[_SETTINGS]
        workdir = (settings.report_dir or Path(str(config.rootpath)) / ".schedharness") / "cluster"
        try:
            if settings.backend == "envtest":  # one control plane per process: each xdist worker has its own
                worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
                session = open_envtest_session(workdir / f"envtest-{worker}", assets=settings.envtest_assets,
                                               feature_gates=settings.apiserver_feature_gates,
                                               runtime_config=settings.runtime_config)
            else:
                session = open_cluster_session(
                    settings.backend, workdir, kind=settings.kind,
                    in_cluster_scheduler=settings.scheduler == "cluster", scheduler_feature_gates=settings.feature_gates)
        except ClusterUnavailable as e:
            session = e
        config.stash[_CLUSTER] = session
    if isinstance(session, ClusterUnavailable):
        pytest.skip(str(session))
    return session


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_CLUSTER, None)
    if isinstance(session, ClusterSession):
        session.close()


class _Deferred:
    """Stands for a fixture made on the test's loop; replaced before the test body runs."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}: made on the test's event loop, async def tests only>"


def _need(request: pytest.FixtureRequest, test_run: _TestRun, name: str) -> _Deferred:
    test_run.wanted.add(name)
    return _Deferred(name)


def _need_scheduler(request: pytest.FixtureRequest, test_run: _TestRun) -> None:
    adapter = test_run.adapter
    if adapter is None:
        pytest.skip("needs a scheduler: this run has --scheduler none")
    allowed = [name for mark in request.node.iter_markers("adapters") for name in mark.args]
    if allowed and adapter.name not in allowed:
        pytest.skip(f"applies to adapters {', '.join(allowed)}; this run uses {adapter.name}")


@pytest.fixture
def sh_backend(request: pytest.FixtureRequest, _sh_run: _TestRun) -> Any:
    """The running backend on the test's loop: a :class:`~harness._backends.backend.FakeBackend`, or with
    ``--backend kind|envtest|kubeconfig:PATH`` a :class:`~harness._backends.backend.KubeconfigBackend`."""
    return _need(request, _sh_run, "sh_backend")


@pytest.fixture
def sh_clock(request: pytest.FixtureRequest, _sh_run: _TestRun) -> Any:
    """The backend's clock: ``now()`` (datetime) and ``time()`` (seconds, virtual when virtual)."""
    return _need(request, _sh_run, "sh_clock")


@pytest.fixture
def sh_journal(request: pytest.FixtureRequest, _sh_run: _TestRun) -> Any:
    """The backend's request journal (:class:`~fake_apiserver.Journal`)."""
    return _need(request, _sh_run, "sh_journal")


@pytest.fixture
def sh_scheduler(request: pytest.FixtureRequest, _sh_run: _TestRun) -> Any:
    """The started scheduler adapter; the test is skipped when the run has no scheduler or the
    ``adapters`` marker leaves this one out."""
    _need_scheduler(request, _sh_run)
    return _need(request, _sh_run, "sh_scheduler")


@pytest.fixture
def scenario(request: pytest.FixtureRequest, _sh_run: _TestRun) -> Any:
    """A :class:`~harness._scenario.scenario.Scenario` on the backend, with the scheduler running."""
    _need_scheduler(request, _sh_run)
    return _need(request, _sh_run, "scenario")


# ---------------------------------------------------------------------- running a test


def _is_ours(item: pytest.Function) -> bool:
    return "_sh_run" in item.funcargs or any(item.get_closest_marker(m) for m in MARKERS)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    __tracebackhide__ = True
    func = pyfuncitem.obj
    deferred = [name for name, value in pyfuncitem.funcargs.items() if isinstance(value, _Deferred)]
    if not inspect.iscoroutinefunction(func):
        if deferred:
            pytest.fail(f"{', '.join(deferred)} live on the test's event loop: make the test 'async def'",
                        pytrace=False)
        return None
    if not _is_ours(pyfuncitem):
        return None
    test_run = pyfuncitem.stash.get(_RUN, None)
    kwargs = {name: pyfuncitem.funcargs[name] for name in inspect.signature(func).parameters
              if name in pyfuncitem.funcargs}
    if test_run is None:  # an async test with only markers: run it on a virtual loop
        _run_on_loop(_plain(func(**kwargs)), virtual=True)
        return True
    adapter = test_run.adapter if test_run.wanted & {"sh_scheduler", "scenario"} else None
    # a test that starts the adapter itself (sh_adapter) needs real time for a process just the same
    own = kwargs.get("sh_adapter")
    timed = adapter if adapter is not None else own if isinstance(own, SchedulerAdapter) else None
    virtual = test_run.cluster is None and not (timed is not None and timed.needs_real_time)
    _run_on_loop(_run_test(func, kwargs, test_run, adapter), virtual=virtual)
    return True


async def _plain(coro: Coroutine[Any, Any, Any]) -> None:
    await coro


def _run_on_loop(coro: Coroutine[Any, Any, None], *, virtual: bool) -> None:
    __tracebackhide__ = True
    if virtual:
        run_virtual(coro)
    else:
        with asyncio.Runner() as runner:
            runner.run(coro)


async def _run_test(func: Any, kwargs: dict[str, Any], test_run: _TestRun,
                    adapter: SchedulerAdapter | None) -> None:
    __tracebackhide__ = True
    loop = asyncio.get_running_loop()
    wall_start, loop_start = time.perf_counter(), loop.time()
    backend = _backend(test_run)
    test_run.backend = backend
    scenario: Scenario | None = None
    failure: str | None = None
    passed = False
    skipped: str | None = None
    unjudged: NotJudged | None = None
    try:
        await backend.start()
        scheduler_name = scheduler_name_for(backend, adapter)
        if adapter is not None:
            test_run.scheduler = adapter
            adapter.scheduler_name = scheduler_name
            if backend.other_schedulers and scheduler_name is None and adapter.through_backend:
                _log.warning("the scheduler under test (%s) cannot be given a scheduler name of its own, so a scheduler "
                             "of the %s backend's cluster may bind the scenario's pods before it does", adapter.name,
                             backend.name)
            await adapter.start(backend.kubeconfig_path, test_run.gates)
        if "scenario" in test_run.wanted:
            sees_scheduler = adapter is None or adapter.through_backend
            scenario = test_run.scenario = await Scenario(backend, sees_scheduler=sees_scheduler,
                                                          scheduler_name=scheduler_name,
                                                          real_time_wait=test_run.real_time_wait).start()
            test_run.slack = scenario.slack
        values = {"sh_backend": backend, "sh_clock": backend.clock, "sh_journal": backend.journal,
                  "sh_scheduler": adapter, "scenario": scenario}
        try:
            await func(**{name: values[value.name] if isinstance(value, _Deferred) else value
                          for name, value in kwargs.items()})
        except Unsupported as e:
            skipped = str(e)
        except NotJudged as e:
            unjudged = e
        else:
            passed = True
    finally:
        try:
            if scenario is not None:
                await scenario.close()
            failure = adapter.failure() if adapter is not None else None
            if adapter is not None:
                await adapter.stop()
            await backend.stop()
        finally:
            virtual = isinstance(loop, VirtualEventLoop)
            test_run.virtual_seconds = loop.time() - loop_start if virtual else None
            test_run.wall_seconds = time.perf_counter() - wall_start
            _write_artifacts(test_run)
    if skipped is not None:
        pytest.skip(skipped)
    if unjudged is not None:
        if failure is not None:  # a scheduler that crashed left nothing to judge: the crash is the verdict
            raise AdapterError(failure) from unjudged
        raise unjudged
    if passed:
        if failure is not None:
            raise AdapterError(failure)
        if scenario is not None:
            scenario.verify()


def _backend(test_run: _TestRun) -> FakeBackend | KubeconfigBackend:
    """The test's backend: a fresh fake, or a fault proxy in front of the run's cluster."""
    session = test_run.cluster
    if session is None:
        return FakeBackend(test_run.workdir, seed=test_run.seed, kubernetes_version=test_run.kubernetes_version,
                           feature_gates=test_run.apiserver_gates, runtime_config=test_run.runtime_config)
    kinds = {"kind": KindBackend, "envtest": EnvtestBackend}
    kind = kinds.get(session.backend, KubeconfigBackend)
    return kind(session.kubeconfig, test_run.workdir, seed=test_run.seed,
                apiserver_feature_gates=session.apiserver_feature_gates, apiserver_runtime_config=session.runtime_config)


def _write_artifacts(test_run: _TestRun) -> None:
    backend, scheduler = test_run.backend, test_run.scheduler
    if backend is not None and backend.started:
        test_run.journal_path = backend.journal.write(test_run.workdir / "journal.jsonl")
        if test_run.timeline_title is not None:
            test_run.timeline_path = render_timeline(
                backend.journal.entries, test_run.workdir / "timeline.svg", title=test_run.timeline_title,
                end=test_run.virtual_seconds if test_run.virtual_seconds is not None else test_run.wall_seconds)
    if scheduler is not None and not isinstance(scheduler, ProcessAdapter):  # a process writes its own
        (test_run.workdir / "scheduler.log").write_text(scheduler.log_text())


# ---------------------------------------------------------------------- records


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(NotJudged):
        report.not_judged = str(call.excinfo.value)  # type: ignore[attr-defined]  # crosses from an xdist worker
    item.stash.setdefault(_PHASES, {})[report.when] = report
    settings = item.config.stash[_SETTINGS]
    test_run = item.stash.get(_RUN, None)
    if report.when == "call" and report.failed and test_run is not None and test_run.backend is not None:
        report.sections.append(("schedharness replay", _replay(item, settings)))
    if report.when == "teardown" and settings.report_dir is not None:
        _append_record(item, settings)


def _replay(item: pytest.Item, settings: Settings) -> str:
    """The command that replays one scenario: this interpreter, the scenario's node id (a YAML
    scenario's names its file, so plain pytest collects it again) and the run's options."""
    target = item.nodeid
    if not item.path.is_relative_to(item.config.rootpath):  # a user's file outside the root: by its path
        target = "::".join([str(item.path), *item.nodeid.split("::")[1:]])
    args = [sys.executable, "-m", "pytest", target, f"--scheduler={settings.scheduler}",
            f"--backend={settings.backend}", f"--scenario-seed={settings.seed}"]
    if settings.backend == "kind":
        args += [f"--kind-cluster={settings.kind.cluster}", "--kind-keep"]
        if settings.kind.image:
            args.append(f"--kind-image={settings.kind.image}")
    if settings.backend == "envtest" and settings.envtest_assets:
        args.append(f"--envtest-assets={settings.envtest_assets}")
    if settings.feature_gates:
        args.append(f"--feature-gates={format_feature_gates(settings.feature_gates)}")
    if settings.apiserver_feature_gates is not None:
        args.append(f"--apiserver-feature-gates={format_feature_gates(settings.apiserver_feature_gates)}")
    if settings.runtime_config:
        args.append(f"--runtime-config={format_runtime_config(settings.runtime_config)}")
    if settings.backend == "fake" and settings.kubernetes_version != KUBERNETES_VERSION:
        args.append(f"--kubernetes-version={settings.kubernetes_version.rsplit('.', 1)[0]}")
    if settings.real_time_wait != DEFAULT_REAL_TIME_WAIT:  # a watch cut, or not, as in the run
        args.append(f"--real-time-wait={settings.real_time_wait:g}")
    return f"seed {settings.seed}; replay: cd {shlex.quote(str(item.config.rootpath))} && {shlex.join(args)}"


def _status(phases: dict[str, pytest.TestReport]) -> tuple[str, str]:
    for when in ("setup", "call", "teardown"):
        report = phases.get(when)
        if report is None:
            continue
        if report.skipped:
            if hasattr(report, "wasxfail"):
                return "xfailed", str(report.wasxfail)
            longrepr = report.longrepr
            reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
            return "skipped", reason.removeprefix("Skipped: ")
        if report.failed:
            not_judged = getattr(report, "not_judged", None)
            if not_judged is not None:
                return NOT_JUDGED, str(not_judged)
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr)
            return ("failed" if when == "call" else "error"), message
    return "passed", ""


def _append_record(item: pytest.Item, settings: Settings) -> None:
    assert settings.report_dir is not None
    status, message = _status(item.stash.get(_PHASES, {}))
    test_run = item.stash.get(_RUN, None)
    record: dict[str, Any] = {
        "id": item.nodeid,
        **criterion_facts(item),
        "gates": test_run.gates if test_run is not None else {**marker_gates(item), **settings.feature_gates},
        "status": status,
        "message": message,
        "scheduler": settings.scheduler,
        "adapter": test_run.adapter.name if test_run is not None and test_run.adapter is not None else None,
        "seed": settings.seed,
        "virtual_seconds": _round(test_run.virtual_seconds if test_run else None),
        "wall_seconds": _round(test_run.wall_seconds if test_run else None),
        "journal": _relative(test_run.journal_path if test_run is not None else None, settings.report_dir),
        "timeline": _relative(test_run.timeline_path if test_run is not None else None, settings.report_dir),
        "slack": _slack(test_run.slack if test_run is not None else None),
        "waits": _waits(test_run.scenario if test_run is not None else None),
        "server_version": test_run.backend.server_version if test_run is not None and test_run.backend else None,
        "apiserver_feature_gates": (test_run.backend.apiserver_feature_gates
                                    if test_run is not None and test_run.backend else None),
        "apiserver_runtime_config": (test_run.backend.apiserver_runtime_config
                                     if test_run is not None and test_run.backend else None),
    }
    if status in ("failed", "error", NOT_JUDGED):
        record["replay"] = _replay(item, settings)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(settings.report_dir / f"results-{worker}.jsonl", "a") as out:
        out.write(json.dumps(record, sort_keys=True) + "\n")


def _waits(scenario: Scenario | None) -> str | None:
    """The real-time watches a scenario cut (``Scenario.span``), as the report prints them."""
    if scenario is None or not scenario.cut_waits:
        return None
    cuts = ", ".join(f"{asked:g} s as {watched:g} s" for asked, watched in scenario.cut_waits)
    return f"real-time watches cut by --real-time-wait: {cuts}"


def _slack(slack: Slack | None) -> dict[str, Any] | None:
    if slack is None:
        return None
    return {"early": slack.early, "late": slack.late, "text": slack.describe()}


def _relative(path: Path | None, base: Path) -> str | None:
    return str(path.relative_to(base)) if path is not None else None


def _round(value: float | None) -> float | None:
    return round(value, 6) if value is not None else None


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller (or the only process) merges the workers' records into ``results.jsonl``."""
    config = session.config
    settings = config.stash.get(_SETTINGS, None)
    if settings is None or settings.report_dir is None or hasattr(config, "workerinput"):
        return
    partials = sorted(settings.report_dir.glob("results-*.jsonl"))
    records = [line for path in partials for line in path.read_text().splitlines() if line.strip()]
    records.sort(key=lambda line: json.loads(line)["id"])
    (settings.report_dir / "results.jsonl").write_text("".join(line + "\n" for line in records))
    for path in partials:
        path.unlink()

