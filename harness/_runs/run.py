"""``schedharness run``: the suites through pytest, a progress line per scenario, and the report.

The suites run in a pytest subprocess (``python -m pytest <suite files> -p no:cacheprovider
--report-dir DIR --junitxml DIR/junit.xml``), so a run is exactly what a developer gets from
pytest by hand, the replay command in a failure is exact, and ``-n`` (pytest-xdist) can spread
real-time scenarios over workers. pytest's own output goes to ``DIR/pytest.log``; this process
prints one progress line per scenario instead.

Progress and the criteria's needs travel on a pipe: this module is also a small pytest plugin
(loaded in the subprocess and its xdist workers through ``PYTEST_PLUGINS``). On each test it
adds the criterion, KEP section, reading, the feature gates the test *needs* and its virtual
seconds to the test's ``user_properties`` (so they are in ``junit.xml`` too, and cross from an
xdist worker to the controller with the report); the controller writes one JSON line per
finished test to the pipe named by ``SCHEDHARNESS_PROGRESS_FD``, and :func:`run_suites` reads
them while pytest runs. The first line counts the collected tests of each suite, so a suite's
verdict (judged, or not judged: every criterion skipped, see :mod:`harness._runs.report`) is printed
as soon as its last test is done.

The only wall-clock read is the start timestamp (the default report directory's name and
``started``); durations come from the monotonic clock, so ``finished`` is ``started`` plus the
run's duration.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver import KUBERNETES_VERSION
from fake_apiserver import served_release as schema_release
from harness._backends.apiserver_gates import options_problem
from harness._backends.backend import FakeBackend, backend_problem
from harness._backends.envtest import EnvtestError, find_assets
from harness._backends.runtime_config import options_problem as runtime_config_problem
from harness._backends.runtime_config import parse_option
from harness._criteria.suite_registry import SuiteCollection, SuiteRegistryError, builtin_suites, registered_readings
from harness._plugin.markers import criterion_facts, marker_gates
from harness._plugin.plugin import scenario_seconds
from harness._runs.report import RunInfo, count_text, judge_suite, load_results, suite_name, write_report
from harness._scenario.expectations import NOT_JUDGED
from harness._scenario.manifests import is_manifest_file
from harness._scenario.yaml_scenarios import YamlScenarioError, load_scenario
from harness._schedulers.adapters import (
    PLACEHOLDERS,
    AdapterError,
    ProcessAdapter,
    format_feature_gates,
    load_scheduler_config,
    parse_feature_gates,
)
from reference_scheduler import UnknownMutant, get_mutant

__all__ = [
    "EXIT_CODES",
    "EXIT_FAILED",
    "EXIT_NOT_JUDGED",
    "EXIT_PASSED",
    "EXIT_PYTEST",
    "EXIT_USAGE",
    "PROGRESS_FD_ENV",
    "RunError",
    "RunOptions",
    "RunResult",
    "available_suites",
    "builtin_collection",
    "default_report_dir",
    "make_report_dir",
    "normalize_scheduler",
    "run_argv",
    "run_suites",
    "suite_paths",
    "suites_directory",
]

PROGRESS_FD_ENV = "SCHEDHARNESS_PROGRESS_FD"

#: ``schedharness run``'s exit codes (``--help`` and README print :data:`EXIT_CODES`).
EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_JUDGED = 3
EXIT_PYTEST = 4
EXIT_CODES = (
    f"{EXIT_PASSED}: passed (no criterion failed or was not judged, at least one passed); "
    f"{EXIT_FAILED}: a criterion failed; "
    f"{EXIT_USAGE}: a mistake on the command line or in a scenario file (nothing ran); "
    f"{EXIT_NOT_JUDGED}: not judged (none failed, but one was not judged: the scheduler left nothing to judge, "
    "or every criterion was skipped); "
    f"{EXIT_PYTEST}: pytest could not run the suites (the end of pytest.log is printed)")
_PLUGIN = "harness._runs.run"
_PROPS = ("criterion", "kep", "section", "reading", "needs", "virtual_seconds", "wall_seconds")


class RunError(Exception):
    """The run cannot start: an unknown suite, a bad option."""


@dataclass(frozen=True)
class RunOptions:
    """One ``schedharness run``."""

    scheduler: str = "reference"
    feature_gates: str = ""
    suites: tuple[str, ...] = ()  # names: ``core_sanity`` selects test_core_sanity.py; () = all
    report_dir: Path | None = None  # default: reports/<UTC timestamp>/
    jobs: int | None = None  # pytest-xdist workers; None: 0 under virtual time, more on real time
    seed: int = 0
    timeline: bool = True
    suites_dir: Path | None = None  # default: the built-in suites' directory, as registered
    pytest_args: tuple[str, ...] = ()
    backend: str = "fake"  # or "kind", "envtest", "kubeconfig:PATH" (the plugin's --backend)
    kind_cluster: str | None = None
    kind_image: str | None = None
    kind_keep: bool = False
    kind_apiserver_feature_gates: str = ""
    envtest_assets: Path | None = None  # default: $KUBEBUILDER_ASSETS
    kubernetes_version: str | None = None  # the fake's release (1.36); None: the pinned one
    #: the API server's gates (``A=true,B=false``); None: on the fake, the scheduler's known gates
    apiserver_feature_gates: str | None = None
    #: kube-apiserver's ``--runtime-config`` values (the option given several times); (): the defaults
    runtime_config: tuple[str, ...] = ()
    #: the user's own scenarios instead of the built-in suites: pytest files, YAML scenario files,
    #: directories of either
    paths: tuple[Path, ...] = ()
    #: a KubeSchedulerConfiguration whose keys a ``cmd:`` scheduler's ``{config}`` gets (profiles)
    scheduler_config: Path | None = None
    #: on real time, the longest watch for something that must not happen (None: the plugin's default)
    real_time_wait: float | None = None


@dataclass(frozen=True)
class RunResult:
    report_dir: Path
    report: dict[str, Any]
    exit_code: int


def builtin_collection() -> SuiteCollection:
    """The built-in suites as they registered themselves (:mod:`harness._criteria.suite_registry`);
    :class:`RunError` when they did not."""
    try:
        collection = builtin_suites()
    except SuiteRegistryError as e:
        raise RunError(str(e)) from None
    if not collection.directory.is_dir():
        raise RunError(f"the built-in suites have no directory: {collection.directory}")
    return collection


def suites_directory() -> Path:
    """The built-in suites' directory."""
    return builtin_collection().directory.resolve()


def available_suites(suites_dir: Path) -> list[str]:
    """Suite names in a directory: ``test_<name>.py`` files, sorted."""
    return sorted(p.stem.removeprefix("test_") for p in suites_dir.glob("test_*.py"))


def suite_paths(suites_dir: Path, names: Sequence[str]) -> list[Path]:
    """The files of the named suites (all when none is named); :class:`RunError` for an unknown
    name. ``core_sanity``, ``test_core_sanity`` and ``core-sanity`` name the same file."""
    known = available_suites(suites_dir)
    if not names:
        if not known:
            raise RunError(f"no suites (test_*.py files) in {suites_dir}")
        return [suites_dir / f"test_{name}.py" for name in known]
    paths = []
    for name in names:
        stem = name.removesuffix(".py").removeprefix("test_").replace("-", "_")
        if stem not in known:
            raise RunError(f"unknown suite {name!r}; available: {', '.join(known) or 'none'}")
        paths.append(suites_dir / f"test_{stem}.py")
    return paths


YAML_SUFFIXES = (".yaml", ".yml")


def user_targets(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """``schedharness run PATH...``: the pytest targets and the YAML scenarios among ``paths``.

    A directory contributes itself as a pytest target when it holds ``test_*.py`` files, and its
    YAML files as scenarios, but for those holding Kubernetes manifests (a CRD a scenario creates);
    each YAML file is loaded (and validated) here, so a mistake in one is one :class:`RunError`
    before anything runs."""
    targets: list[Path] = []
    yaml: list[Path] = []
    for raw in paths:
        path = raw.resolve()
        if path.is_dir():
            if any(path.rglob("test_*.py")):
                targets.append(path)
            yaml += sorted(p for suffix in YAML_SUFFIXES for p in path.rglob(f"*{suffix}")
                           if not is_manifest_file(p))  # a scenario's manifests beside it are not scenarios
        elif path.is_file() and path.suffix == ".py":
            targets.append(path)
        elif path.is_file() and path.suffix in YAML_SUFFIXES:
            yaml.append(path)
        elif not path.exists():
            raise RunError(f"{raw}: no such file or directory")
        else:
            raise RunError(f"{raw}: not a pytest file (.py), a YAML scenario (.yaml, .yml) or a directory")
    for file in yaml:
        try:
            load_scenario(file)
        except (YamlScenarioError, OSError) as e:
            raise RunError(str(e)) from None
    if not targets and not yaml:
        raise RunError(f"no scenarios in {', '.join(map(str, paths))}: no test_*.py, .yaml or .yml file")
    return targets, yaml


def normalize_scheduler(scheduler: str, mutant: str | None = None) -> str:
    """``--scheduler`` and ``--mutant`` as the plugin's ``--scheduler`` value: ``reference``,
    ``reference:<mutant>``, ``cluster``, ``none`` or ``cmd:<template>`` (a bare command gets ``cmd:``)."""
    scheduler = scheduler.strip()
    if mutant is not None:
        if scheduler not in ("reference", f"reference:{mutant}"):
            raise RunError(f"--mutant {mutant} runs the reference scheduler; it cannot go with --scheduler {scheduler}")
        scheduler = f"reference:{mutant}"
    if not scheduler:
        raise RunError("--scheduler is empty")
    if scheduler.startswith("reference:"):
        try:
            get_mutant(scheduler.partition(":")[2])
        except UnknownMutant as e:
            raise RunError(str(e)) from None
    if scheduler in ("reference", "none", "cluster") or scheduler.startswith(("reference:", "cmd:")):
        return scheduler
    return f"cmd:{scheduler}"


def check_command(scheduler: str) -> None:
    """A ``cmd:`` scheduler whose program cannot be found stops the run before its first scenario
    with one message (not one failure per scenario)."""
    if not scheduler.startswith("cmd:"):
        return
    try:
        argv = shlex.split(scheduler[4:])
    except ValueError as e:
        raise RunError(f"the scheduler command {scheduler[4:]!r} cannot be split into arguments: {e}") from None
    if not argv:
        raise RunError("the scheduler command is empty")
    unknown = sorted(set(re.findall(r"\{[a-z_]+\}", scheduler[4:])) - set(PLACEHOLDERS))
    if unknown:
        raise RunError(f"the scheduler command names an unknown placeholder {_and(unknown)}: use "
                       f"{_and(PLACEHOLDERS, 'or')}")
    program = argv[0]
    if shutil.which(program) is None:
        where = "is not an executable file" if os.sep in program else "is not found on PATH"
        raise RunError(f"the scheduler command cannot start: {program} {where}")


def preflight(scheduler: str, gates: dict[str, bool], workdir: Path, overlay: dict[str, Any] | None = None) -> None:
    """Start a ``cmd:`` scheduler once against a fake API server before the first scenario, so a
    command that exits at once (a bad flag, a feature gate it does not know) or never gets ready
    stops the run with one message instead of failing every scenario. Its log stays in
    ``workdir``."""
    if not scheduler.startswith("cmd:"):
        return

    async def start_once() -> None:
        backend = FakeBackend(workdir)
        await backend.start()
        adapter = ProcessAdapter(scheduler[4:], workdir, name="preflight", config_overlay=overlay)
        try:
            await adapter.start(backend.kubeconfig_path, gates)
        finally:
            await adapter.stop()
            await backend.stop()

    workdir.mkdir(parents=True, exist_ok=True)
    try:
        asyncio.run(start_once())
    except AdapterError as e:
        raise RunError(f"the scheduler command cannot start: {e}") from None


def check_backend_options(options: RunOptions) -> None:
    """The options that go with one backend, checked before anything starts (a missing kubeconfig
    or binaries directory would otherwise skip every scenario, an option for another backend be
    ignored): :class:`RunError` saying which option is wrong."""
    backend = options.backend
    kind = [name for name, given in (("--kind-cluster", options.kind_cluster), ("--kind-image", options.kind_image),
                                     ("--kind-keep", options.kind_keep),
                                     ("--kind-apiserver-feature-gates", options.kind_apiserver_feature_gates))
            if given]
    if kind and backend != "kind":
        raise RunError(f"{_and(kind)} {'choose' if len(kind) > 1 else 'chooses'} the cluster --backend kind makes or "
                       f"reuses: with --backend {backend} there is none")
    if options.envtest_assets is not None:
        if backend != "envtest":
            raise RunError(f"--envtest-assets names the binaries --backend envtest starts: with --backend {backend} "
                           "none are started")
        try:
            find_assets(options.envtest_assets)
        except EnvtestError as e:
            raise RunError(f"--backend envtest {e}") from None
    if backend.startswith("kubeconfig:"):
        path = Path(backend.partition(":")[2]).expanduser()
        if not path.is_file():
            raise RunError(f"--backend {backend}: no kubeconfig file at {path.resolve()}")


def _and(names: Sequence[str], word: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return f"{', '.join(names[:-1])} {word} {names[-1]}" if len(names) > 1 else "".join(names)


def make_report_dir(path: Path) -> None:
    """``--report-dir`` and its parents, made; :class:`RunError` when it cannot be."""
    if path.exists() and not path.is_dir():
        raise RunError(f"--report-dir {path}: a file; give a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"--report-dir {path}: cannot be made: {e.strerror or e}") from None


def default_report_dir(now: datetime) -> Path:
    """``reports/<UTC timestamp>`` (relative to the working directory)."""
    return Path("reports") / now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def _jobs(options: RunOptions, scheduler: str) -> int:
    if options.backend == "envtest":
        # a control plane per worker, each one test at a time; an API server and etcd cost a core
        # for the 3 s they take to start and a few percent of one after, while real-time scenarios
        # mostly wait: two workers a core, at most 8
        return options.jobs if options.jobs is not None else min(8, 2 * (os.cpu_count() or 1))
    if options.backend != "fake":
        return 0  # one cluster: one test at a time (the plugin refuses -n there)
    if options.jobs is not None:
        return options.jobs
    if not scheduler.startswith("cmd:"):
        return 0  # virtual time: one process is fastest (an xdist worker costs more than it saves)
    # real-time scenarios mostly wait (the longest for minutes): many workers a core
    return min(16, 8 * (os.cpu_count() or 1))


def run_argv(paths: Sequence[Path], report_dir: Path, scheduler: str, options: RunOptions) -> list[str]:
    """The pytest command line of a run."""
    argv = [sys.executable, "-m", "pytest", *map(str, paths), "-p", "no:cacheprovider",
            f"--scheduler={scheduler}", f"--report-dir={report_dir}",
            f"--junitxml={report_dir / 'junit.xml'}", "-o", "junit_suite_name=schedharness",
            f"--scenario-seed={options.seed}", f"--backend={options.backend}"]
    if options.kind_cluster:
        argv.append(f"--kind-cluster={options.kind_cluster}")
    if options.kind_image:
        argv.append(f"--kind-image={options.kind_image}")
    if options.kind_keep:
        argv.append("--kind-keep")
    if options.kind_apiserver_feature_gates:
        argv.append(f"--kind-apiserver-feature-gates={options.kind_apiserver_feature_gates}")
    if options.envtest_assets is not None:
        argv.append(f"--envtest-assets={options.envtest_assets.expanduser().resolve()}")
    if options.kubernetes_version:
        argv.append(f"--kubernetes-version={options.kubernetes_version}")
    if options.apiserver_feature_gates is not None:
        argv.append(f"--apiserver-feature-gates={options.apiserver_feature_gates}")
    argv += [f"--runtime-config={value}" for value in options.runtime_config]
    if options.feature_gates:
        argv.append(f"--feature-gates={options.feature_gates}")
    if options.scheduler_config is not None:
        argv.append(f"--scheduler-config={options.scheduler_config.expanduser().resolve()}")
    if not options.timeline:
        argv.append("--no-timeline")
    if options.real_time_wait is not None:
        argv.append(f"--real-time-wait={options.real_time_wait:g}")
    jobs = _jobs(options, scheduler)
    if jobs > 0:
        argv += ["-n", str(jobs)]
    return argv + list(options.pytest_args)


def _environment(progress_fd: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}  # when run from inside pytest
    plugins = [p for p in env.get("PYTEST_PLUGINS", "").split(",") if p.strip()]
    env["PYTEST_PLUGINS"] = ",".join([*plugins, _PLUGIN] if _PLUGIN not in plugins else plugins)
    env[PROGRESS_FD_ENV] = str(progress_fd)
    return env


def _suite_line(name: str, results: Sequence[Mapping[str, Any]]) -> str:
    """A suite's verdict once its last test is done, with its counts, or, when every criterion
    was skipped, the skip reasons summed up."""
    suite = judge_suite(results)
    if suite["skipped_because"]:
        return f"suite {name}: skipped: {suite['skipped_because']}"
    return f"suite {name}: {suite['verdict']}: {count_text(suite['summary'])}"


def _progress_line(event: Mapping[str, Any], done: int, total: int | None) -> str:
    label = event.get("criterion") or event["nodeid"]
    status = event["status"]
    if status == "passed":
        if event.get("virtual_seconds") is not None:
            tail = f" ({float(event['virtual_seconds']):g} virtual s)"
        else:
            tail = f" ({float(event.get('wall_seconds') or event.get('duration') or 0):.2f} s)"
    else:
        first = str(event.get("message") or "").strip().splitlines()
        tail = f": {first[0][:160]}" if first else ""
    return f"[{done}/{total if total is not None else '?'}] {label} {status}{tail}"


def run_suites(options: RunOptions, *, progress: Callable[[str], None] | None = print,
               now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> RunResult:
    """Run the suites as ``options`` say, write the report, and return it with the exit code:
    :data:`EXIT_PASSED` when no selected criterion failed or was not judged and at least one
    passed (suites whose criteria were all skipped are then listed in the verdict line),
    :data:`EXIT_FAILED` when one failed, :data:`EXIT_NOT_JUDGED` when none failed but one was not
    judged or none passed (the verdict is "not judged" and the next line says why),
    :data:`EXIT_PYTEST` when pytest could not run them (the tail of ``pytest.log`` is printed)."""
    started = now()  # the one wall-clock read
    begin = time.monotonic()
    scheduler = normalize_scheduler(options.scheduler)
    check_command(scheduler)
    problem = backend_problem(options.backend, scheduler, options.jobs or 0)  # pytest would refuse it, later
    if problem is not None:
        raise RunError(problem)
    try:
        gates = parse_feature_gates(options.feature_gates)
    except ValueError as e:
        raise RunError(f"--feature-gates: {e}") from None
    if options.kubernetes_version is not None:
        if options.backend != "fake":
            raise RunError(f"--kubernetes-version chooses the fake API server's release: with --backend "
                           f"{options.backend} the cluster's own kube-apiserver decides it")
        try:
            schema_release(options.kubernetes_version)
        except ValueError as e:
            raise RunError(f"--kubernetes-version: {e}") from None
    given: dict[str, bool] | None = None
    try:
        kind_gates = parse_feature_gates(options.kind_apiserver_feature_gates)
    except ValueError as e:
        raise RunError(f"--kind-apiserver-feature-gates: {e}") from None
    if options.apiserver_feature_gates is not None:
        try:
            given = parse_feature_gates(options.apiserver_feature_gates)
        except ValueError as e:
            raise RunError(f"--apiserver-feature-gates: {e}") from None
    release = schema_release(options.kubernetes_version or KUBERNETES_VERSION)
    problem = (options_problem(backend=options.backend, release=release, given=given, kind_gates=kind_gates,
                               scheduler_gates=gates)
               or runtime_config_problem(backend=options.backend, release=release,
                                         given=parse_option(options.runtime_config)))
    if problem is not None:
        raise RunError(problem)
    check_backend_options(options)
    overlay = None
    if options.scheduler_config is not None:
        if not scheduler.startswith("cmd:"):
            raise RunError(f"--scheduler-config is for a --scheduler command, not {scheduler}")
        try:
            overlay = load_scheduler_config(options.scheduler_config)
        except ValueError as e:
            raise RunError(f"--scheduler-config {e}") from None
    suites_dir = (options.suites_dir or suites_directory()).resolve()
    readings = _readings()  # read now: a registry problem stops the run before its first scenario
    yaml: list[Path] = []
    if options.paths:
        if options.suites:
            raise RunError("give scenario paths or --suite, not both")
        paths, yaml = user_targets(options.paths)
        cwd = Path.cwd()
    else:
        paths = suite_paths(suites_dir, options.suites)
        cwd = suites_dir.parent
    report_dir = (options.report_dir or default_report_dir(started)).resolve()
    make_report_dir(report_dir)
    if options.backend == "fake":
        preflight(scheduler, gates, report_dir / "preflight", overlay)
    (report_dir / "results.jsonl").unlink(missing_ok=True)
    argv = run_argv([*paths, *yaml], report_dir, scheduler, options)  # the plugin collects YAML files it is given
    say = progress or (lambda line: None)
    count = len(paths) + bool(yaml)  # the YAML scenarios are one suite, yaml_scenarios
    say(f"schedharness run: {count} suite(s) against {scheduler} on {options.backend}, report in {report_dir}")
    needs: dict[str, dict[str, bool]] = {}
    read_fd, write_fd = os.pipe()
    with open(report_dir / "pytest.log", "wb") as log:
        try:
            process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, env=_environment(write_fd), pass_fds=(write_fd,))
        finally:
            os.close(write_fd)
        total: int | None = None
        done = 0
        remaining: dict[str, int] = {}  # suite -> tests not yet done
        results: dict[str, list[dict[str, Any]]] = {}  # suite -> its tests' statuses so far
        try:
            with os.fdopen(read_fd, "r") as events:
                for line in events:
                    event = json.loads(line)
                    if "total" in event:
                        if total is None:
                            total = int(event["total"])
                            remaining = {name: int(n) for name, n in (event.get("suites") or {}).items()}
                        continue
                    done += 1
                    needs[event["nodeid"]] = event.get("needs") or {}
                    say(_progress_line(event, done, total))
                    suite = suite_name(event["nodeid"])
                    status = {"error": "failed", "passed": "passed", "failed": "failed",
                              NOT_JUDGED: NOT_JUDGED}.get(event["status"], "skipped")
                    results.setdefault(suite, []).append({"status": status, "reason": event.get("message")})
                    if suite in remaining:
                        remaining[suite] -= 1
                        if remaining[suite] == 0:
                            say(_suite_line(suite, results[suite]))
        except BaseException:  # e.g. Ctrl-C: leave no pytest (and no scheduler) behind
            process.terminate()
            process.wait()
            raise
        code = process.wait()
    results_file = report_dir / "results.jsonl"
    records = load_results(results_file) if results_file.exists() else []
    for record in records:
        if record["id"] in needs:
            record["needs"] = needs[record["id"]]
    wall = time.monotonic() - begin
    info = RunInfo(
        scheduler=scheduler, feature_gates=gates, seed=options.seed,
        started=_iso(started), finished=_iso(started + timedelta(seconds=wall)), wall_seconds=wall,
        suites=() if options.paths else tuple(p.stem.removeprefix("test_") for p in paths), command=shlex.join(argv),
        pytest_exit_code=code, readings=readings, backend=options.backend,
        kubernetes_version=options.kubernetes_version)
    report = write_report(report_dir, records, info)
    if code not in (0, 1):
        tail = "\n".join((report_dir / "pytest.log").read_text(errors="replace").splitlines()[-30:])
        say(f"schedharness run: pytest exited with code {code}; the end of {report_dir / 'pytest.log'}:\n{tail}")
        return RunResult(report_dir, report, EXIT_PYTEST)
    virtual = f" ({report['virtual_seconds']:g} virtual s)" if report["virtual_seconds"] else ""
    counts = f"{count_text(report['summary'])} in {wall:.1f} s{virtual}"
    say(f"schedharness run: {report['verdict'].upper()}: {counts}")
    if report["verdict_message"]:
        say(f"schedharness run: {report['verdict_message']}")
    say(f"schedharness run: timing slack: {report['timing_slack']['text']}")
    for c in report["criteria"]:
        if c["status"] in ("failed", NOT_JUDGED):
            first = str(c["message"]).strip().splitlines()[0][:200] if c["message"] else ""
            say(f"  {c['status'].upper()} {c['id']} ({c['test']}): {first}")
            if c.get("replay"):
                say(f"    {c['replay']}")
    say(f"schedharness run: {report_dir / 'report.html'} · report.md · report.json · junit.xml")
    codes = {"passed": EXIT_PASSED, "failed": EXIT_FAILED, NOT_JUDGED: EXIT_NOT_JUDGED}
    return RunResult(report_dir, report, codes[report["verdict"]])


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _readings() -> dict[str, str]:
    """The readings of every registered suite collection, for the report to show by key."""
    try:
        return registered_readings()
    except SuiteRegistryError as e:
        raise RunError(str(e)) from None


# ---------------------------------------------------------------------- the plugin in the subprocess


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Before the teardown report is made: the scenario's facts as user properties (so the
    controller gets them from any xdist worker, and ``junit.xml`` lists them)."""
    virtual_seconds, wall_seconds = scenario_seconds(item)
    values: dict[str, Any] = {
        **criterion_facts(item),
        "needs": format_feature_gates(marker_gates(item)),
        "virtual_seconds": virtual_seconds,
        "wall_seconds": wall_seconds,
    }
    item.user_properties.extend((name, value) for name, value in values.items() if value is not None)


class _Progress:
    """Registered on the controller only: one JSON line per finished test on the progress pipe."""

    def __init__(self, fd: int) -> None:
        self.out = os.fdopen(fd, "w", buffering=1)
        self.phases: dict[str, list[pytest.TestReport]] = {}
        self.total_sent = False

    def _send(self, event: Mapping[str, Any]) -> None:
        self.out.write(json.dumps(event, sort_keys=True) + "\n")

    def _total(self, ids: Sequence[str]) -> None:
        """The number of tests, and of each suite's (so the controller knows when a suite is done)."""
        if not self.total_sent:
            self.total_sent = True
            suites: dict[str, int] = {}
            for nodeid in ids:
                suites[suite_name(nodeid)] = suites.get(suite_name(nodeid), 0) + 1
            self._send({"total": len(ids), "suites": suites})

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if not getattr(session.config.option, "numprocesses", None):
            self._total([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        self._total(ids)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        phases = self.phases.setdefault(report.nodeid, [])
        phases.append(report)
        if report.when != "teardown":
            return
        del self.phases[report.nodeid]
        status, message = "passed", ""
        for phase in phases:
            if phase.skipped and status == "passed":
                longrepr = phase.longrepr
                status = "skipped"
                message = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr).removeprefix("Skipped: ")
            elif phase.failed:
                crash = getattr(phase.longrepr, "reprcrash", None)
                status = "failed" if phase.when == "call" else "error"
                message = crash.message if crash is not None else str(phase.longrepr)
                if getattr(phase, "not_judged", None) is not None:
                    status, message = NOT_JUDGED, str(getattr(phase, "not_judged"))
                break
        props = {name: value for name, value in report.user_properties if name in _PROPS}
        needs = parse_feature_gates(str(props.pop("needs", "") or ""))
        self._send({"nodeid": report.nodeid, "status": status, "message": message, "needs": needs,
                    "duration": round(sum(p.duration for p in phases), 6), **props})

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        self.out.close()


def pytest_configure(config: pytest.Config) -> None:
    fd = os.environ.get(PROGRESS_FD_ENV)
    if fd and not hasattr(config, "workerinput"):
        try:
            progress = _Progress(int(fd))
        except (OSError, ValueError):
            return  # not started by run_suites: no progress channel
        config.pluginmanager.register(progress, "schedharness-progress")
