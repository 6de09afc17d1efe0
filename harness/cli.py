"""The ``schedharness`` command."""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import signal
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from fake_apiserver import FakeApiServer, FaultProxy, FeatureGateError, RuntimeConfigError
from fake_apiserver import KUBERNETES_VERSION
from fake_apiserver import served_release as release
from harness._backends.k8sbuild import BuildError, build, parse_release
from harness._backends.k8spatch import build_patched, run_go_tests
from harness._criteria.catalog import CatalogError, check_caught_by, collect, format_json, format_md, load_caught_by
from harness._runs.compare import CompareError, compare_reports, format_comparison, load_report
from harness._runs.compatibility import COLUMNS, REAL_TIME_WAIT, agreement, format_summary, format_table, run_matrix
from harness._runs.run import (
    EXIT_CODES,
    RunError,
    RunOptions,
    builtin_collection,
    normalize_scheduler,
    run_suites,
    suite_paths,
)
from harness._runs.selftest import run_selftest
from harness._runs.verdict_digest import DigestError, read_digests
from harness._schedulers.adapters import parse_feature_gates
from reference_scheduler._cli import add_subcommands

__all__ = ["main"]


def _port(text: str) -> int:
    """``--port``: a TCP port, 0 for a free one (an argparse type: a bad value is a usage error)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: give a number from 0 to 65535") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {port}: give a number from 0 to 65535 (0: a free port)")
    return port


def _release(text: str) -> str:
    """``--kubernetes-version``: a release the fake serves as (an argparse type)."""
    try:
        return release(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _gates(text: str) -> str:
    """``--apiserver-feature-gates``: ``A=true,B=false`` (an argparse type: a bad value is a usage
    error); kept as text, checked against the release's gates once the release is known."""
    try:
        parse_feature_gates(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _default_release() -> str:
    return KUBERNETES_VERSION.rsplit(".", 1)[0]


def _positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid seconds {text!r}: give a number above 0") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"invalid seconds {text!r}: give a number above 0")
    return value


def _whole(what: str, least: int = 0) -> Callable[[str], int]:
    """An argparse type: a whole number, ``least`` or more (a bad value is a usage error naming
    ``what`` it is)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: give a whole number, {least} or more") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"invalid {what} {value}: give a whole number, {least} or more")
        return value

    return parse


_count = _whole("count")
#: a seed of 0 or more: Python's random.seed() takes -7 as 7, so a negative seed would replay as another's
_seed = _whole("seed")


def _k8s_version(text: str) -> str:
    """``k8s build VERSION``: 1.NN or 1.NN.P (an argparse type: checked before Go is looked for)."""
    try:
        parse_release(text)
    except BuildError as e:
        raise argparse.ArgumentTypeError(e.detail) from None
    return text


def _serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the fake kube-apiserver until SIGINT/SIGTERM",
        description="Run the fake kube-apiserver on real time until SIGINT or SIGTERM, write a "
        "kubeconfig for it and print its URL.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=_port, default=0, help="port to bind (default: a free port)")
    p.add_argument(
        "--kubeconfig",
        default="schedharness.kubeconfig",
        help="where to write the kubeconfig (default: ./schedharness.kubeconfig)",
    )
    p.add_argument("--seed", type=_seed, default=0, help="seed for uids and generated names")
    p.add_argument("--kubernetes-version", type=_release, default=None, metavar="1.NN",
                   help=f"the Kubernetes release to serve as: its schemas, OpenAPI and /version (default "
                        f"{_default_release()})")
    p.add_argument("--apiserver-feature-gates", type=_gates, default="", metavar="A=true,B=false",
                   help="kube-apiserver's --feature-gates: the release's defaults (alpha off) with these applied; a "
                        "field whose gate is off is dropped on write")
    p.add_argument("--runtime-config", action="append", default=[], metavar="GROUP/VERSION=true",
                   help="kube-apiserver's --runtime-config (repeatable): API group versions or resources served "
                        "beyond the release's defaults, or fewer ('scheduling.k8s.io/v1beta1=true', 'api/beta=true'); "
                        "a resource behind a feature gate is served only with its gate on as well")
    p.add_argument(
        "--ready-nodes",
        action="store_true",
        help="do not give nodes created through the API the node.kubernetes.io/not-ready taint",
    )
    p.add_argument(
        "--journal-limit", type=_count, default=100_000, metavar="N",
        help="keep the N most recent journal entries, so a long run stays bounded; GET "
        "/schedharness/v1/journal says how many were dropped (default 100000; 0: keep everything)",
    )
    p.add_argument(
        "--event-ttl", type=_count, default=3600, metavar="SECONDS",
        help="delete an Event this long after its last write, as kube-apiserver's --event-ttl (default 3600; "
        "0: keep Events for good)",
    )
    p.add_argument(
        "--loop",
        choices=("auto", "asyncio", "uvloop"),
        default="auto",
        help="event loop (default auto: uvloop, which schedharness installs on CPython outside Windows; else asyncio's)",
    )
    p.set_defaults(func=_serve)


def _run_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run",
        help="run the conformance suites and write a report",
        description="Run the conformance suites through pytest against a scheduler and write report.json, "
        "report.md, report.html and junit.xml, with each scenario's journal and timeline. A criterion is "
        "passed, failed, not judged (the scheduler left nothing to judge: a set-up wait timed out, a control "
        "never happened, a wait was cut short) or skipped (only for a declared reason: the run's gates, the "
        "release, the backend, an absent tool). Exit codes: " + EXIT_CODES + ".",
    )
    p.add_argument(
        "--scheduler", default="reference", metavar="ADAPTER",
        help="'reference' (default: the reference scheduler in-process under virtual time), "
        "'reference:<mutant>', a command template with {kubeconfig}, {feature_gates} and {config} "
        "placeholders ('cmd:' prefix optional), run on real time, or 'cluster' (the cluster's own "
        "kube-scheduler, with --backend kind or kubeconfig:PATH)")
    p.add_argument("--backend", default="fake", metavar="NAME",
                   help="'fake' (default: a fresh fake API server per scenario), 'kind' (a kind cluster made "
                   "or reused for the run; real time, one scenario at a time), 'envtest' (etcd and kube-apiserver "
                   "from $KUBEBUILDER_ASSETS started as processes, one per worker; real time, no container engine) "
                   "or 'kubeconfig:PATH' (any cluster)")
    p.add_argument("--envtest-assets", type=Path, default=None, metavar="DIR",
                   help="with --backend envtest: the directory holding etcd and kube-apiserver (default: "
                   "$KUBEBUILDER_ASSETS; `setup-envtest use -p path` prints one)")
    p.add_argument("--kind-cluster", default=None, metavar="NAME",
                   help="with --backend kind: the cluster's name (default schedharness); an existing one is reused")
    p.add_argument("--kind-image", default=None, metavar="IMAGE|VERSION",
                   help="with --backend kind: node image or Kubernetes version of a new cluster")
    p.add_argument("--kind-keep", action="store_true", help="with --backend kind: keep the cluster at the end")
    p.add_argument("--kind-apiserver-feature-gates", default="", metavar="A=true,B=false",
                   help="with --backend kind: kube-apiserver feature gates of a new cluster (the older name of "
                        "--apiserver-feature-gates)")
    p.add_argument("--apiserver-feature-gates", default=None, metavar="A=true,B=false",
                   help="the API server's feature gates: each scenario's fake API server's (default: the scenario's "
                        "scheduler gates that the fake's release knows, as an operator enables a feature on every "
                        "component), the kube-apiserver envtest starts, or a new kind cluster's")
    p.add_argument("--runtime-config", action="append", default=[], metavar="GROUP/VERSION=true",
                   help="kube-apiserver's --runtime-config (repeatable, the values joined with commas): API group "
                        "versions served beyond the release's defaults by each scenario's fake API server (beside a "
                        "scenario's runtime_config marker; this wins on a key both set), the kube-apiserver envtest "
                        "starts, or a new kind cluster; a scenario asking for what the cluster does not serve is skipped")
    p.add_argument("--mutant", default=None, metavar="NAME",
                   help="run a variant of the reference scheduler: a mutant, a control or a shape variant "
                   "(see 'schedharness mutants')")
    p.add_argument("--feature-gates", default="", metavar="A=true,B=false",
                   help="feature gates for the scheduler; criteria needing the other value are skipped")
    p.add_argument("--scheduler-config", type=Path, default=None, metavar="FILE",
                   help="with a scheduler command: a KubeSchedulerConfiguration (its profiles, plugin args...) "
                        "whose keys join the one {config} writes (an out-of-tree plugin's profile)")
    p.add_argument("--suite", action="append", default=[], metavar="NAME",
                   help="run suites/test_<NAME>.py only (repeatable; default: every suite)")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="your own scenarios instead of the built-in suites: pytest files, YAML scenario files, "
                   "or directories of either, with the same adapters, backends, report, journals and timelines")
    p.add_argument("--report-dir", type=Path, default=None, metavar="DIR",
                   help="where the report goes (default: reports/<UTC timestamp>/)")
    p.add_argument("-n", "--jobs", type=_count, default=None, metavar="N",
                   help="pytest-xdist workers (default: none for the reference scheduler; for a command, "
                   "which runs on real time, eight a core, at most 16; on envtest, two a core, at most 8, each with "
                   "its own control plane)")
    p.add_argument("--seed", type=_seed, default=0, help="the fake API server's seed (default 0)")
    p.add_argument("--kubernetes-version", default=None, metavar="1.NN",
                   help="with --backend fake: the Kubernetes release the fake serves as (default "
                        f"{_default_release()}); give a real server's release to compare verdicts with it")
    p.add_argument("--no-timeline", action="store_true", help="do not draw timeline.svg per scenario")
    p.add_argument("--real-time-wait", type=_positive_seconds, default=None, metavar="SECONDS",
                   help="on real time (a scheduler command, envtest, kind), the longest a criterion watches for "
                   "something that must not happen (default 30): a longer watch is cut to it and the report says so "
                   "beside the verdict; a criterion that needs the whole watch (kube-scheduler's 5-minute flush of "
                   "unschedulable pods) is not judged unless this is at least its span (310 judges every one)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    try:
        options = RunOptions(
            scheduler=normalize_scheduler(args.scheduler, args.mutant), feature_gates=args.feature_gates,
            suites=tuple(args.suite), report_dir=args.report_dir, jobs=args.jobs, seed=args.seed,
            timeline=not args.no_timeline, backend=args.backend, kind_cluster=args.kind_cluster,
            kind_image=args.kind_image, kind_keep=args.kind_keep,
            kind_apiserver_feature_gates=args.kind_apiserver_feature_gates, envtest_assets=args.envtest_assets,
            kubernetes_version=args.kubernetes_version, apiserver_feature_gates=args.apiserver_feature_gates,
            runtime_config=tuple(args.runtime_config), paths=tuple(args.paths), scheduler_config=args.scheduler_config,
            real_time_wait=args.real_time_wait)
        return run_suites(options).exit_code
    except RunError as e:
        print(f"schedharness run: {e}", file=sys.stderr)
        return 2


def _selftest_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "selftest",
        help="prove the suites: the reference and its shape variants pass everything, every mutant fails "
        "something, every control passes nothing, every criterion fails for a mutant",
        description="Run the suites against the reference scheduler and each of its variants (shape variants, "
        "mutants, controls: 'schedharness mutants'; one pytest run each, in process under virtual time), and "
        "against each control as a process too (python -m reference_scheduler scheduler --mutant NAME, on real "
        "time; a row '<control> (process)'), print the scheduler x criterion matrix grouped by kind (P passed, "
        "F failed, N not judged, S skipped) and write selftest.json and selftest.md. Exit code 0 only when the "
        "reference and every shape variant fail no criterion and leave none not judged, every mutant fails at "
        "least one, every control (in process and as a process) fails every suite with a non-zero exit and passes "
        "no criterion, and every criterion fails for at least one mutant: a criterion only a control fails is not "
        "proven. Exit code 1 otherwise, naming what broke its promise; 2 on a usage error.",
    )
    p.add_argument("-n", "--jobs", type=_whole("count", 1), default=None, metavar="N",
                   help="in-process pytest runs at a time (default: one a core); the controls' process runs go "
                        "beside them, one each")
    p.add_argument("--report-dir", type=Path, default=None, metavar="DIR",
                   help="where the reports go (default: reports/selftest-<UTC timestamp>/)")
    p.add_argument("--suite", action="append", default=[], metavar="NAME",
                   help="prove these suites only (repeatable; default: every suite)")
    p.set_defaults(func=_selftest)


def _selftest(args: argparse.Namespace) -> int:
    try:
        return run_selftest(report_dir=args.report_dir, jobs=args.jobs, suites=tuple(args.suite)).exit_code
    except RunError as e:
        print(f"schedharness selftest: {e}", file=sys.stderr)
        return 2


async def _serve_async(args: argparse.Namespace) -> int:
    try:
        server = FakeApiServer(
            host=args.host, port=args.port, seed=args.seed, taint_not_ready_nodes=not args.ready_nodes,
            journal_limit=args.journal_limit or None, event_ttl=args.event_ttl or None,
            feature_gates=parse_feature_gates(args.apiserver_feature_gates), idle_timeout=IDLE_TIMEOUT,
            runtime_config=",".join(args.runtime_config),
            **({"kubernetes_version": args.kubernetes_version} if args.kubernetes_version else {}),
        )
    except FeatureGateError as e:
        print(f"schedharness serve: --apiserver-feature-gates: {e}", file=sys.stderr)
        return 2
    except RuntimeConfigError as e:
        print(f"schedharness serve: --runtime-config: {e}", file=sys.stderr)
        return 2
    return await _until_signalled(server, Path(args.kubeconfig), lambda: f"serving the Kubernetes API at {server.url}")


GC_THRESHOLDS = (50_000, 20, 100)
IDLE_TIMEOUT = 90.0  # kube-apiserver's http.Server IdleTimeout: a long-running server drops idle clients


def _settle_collector() -> None:
    """A long-running server's garbage collection: what start-up loaded (the release's schemas,
    compiled types, the routes) moves to the permanent generation, so that a full collection no
    longer walks it, and the first generation is collected every 50,000 allocations rather than
    700. Measured with bench/bench_apiserver.py (3,000 creates, 6,000 status patches, server CPU
    read from /proc): the collector took about a tenth of the server's CPU, nearly all of which
    this gives back. Only for ``serve``: the harness's in-process runs keep Python's defaults."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def _until_signalled(server: Any, kubeconfig: Path, announce: Callable[[], str]) -> int:
    """Start ``server`` (the fake or the proxy), write its kubeconfig, print where it is, and
    serve until SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # before the URL is printed: a caller may signal at once
        loop.add_signal_handler(sig, stop.set)
    if kubeconfig.is_dir():  # before the server starts
        print(f"schedharness: --kubeconfig {kubeconfig}: a directory; give the file to write", file=sys.stderr)
        return 2
    try:
        await server.start()
    except OSError as e:  # the address is taken or cannot be bound: the user's to change
        print(f"schedharness: cannot listen on {server.host}:{server.port}: {e.strerror or e}", file=sys.stderr)
        return 2
    try:
        path = server.write_kubeconfig(kubeconfig)
    except OSError as e:  # a directory that cannot be made, no permission: the user's to change
        await server.stop()
        print(f"schedharness: cannot write the kubeconfig to {kubeconfig}: {e.strerror or e}", file=sys.stderr)
        return 2
    _settle_collector()
    print(f"schedharness: {announce()}", flush=True)
    print(f"schedharness: kubeconfig written to {path.resolve()}", flush=True)
    try:
        await stop.wait()
    finally:
        await server.stop()
    print("schedharness: stopped", flush=True)
    return 0


def _serve(args: argparse.Namespace) -> int:
    """Serve on real time, on uvloop when it is there (a dependency wherever it builds): the same
    server answers 35-60% more requests a second on it (``bench/bench_apiserver.py --server-loop``).
    Only here: the harness's virtual-time loop is asyncio's, never uvloop."""
    main = _serve_async(args)
    if args.loop != "asyncio":
        try:
            # uvloop: a dependency, but not there on Windows or PyPy
            import uvloop
        except ImportError:
            if args.loop == "uvloop":
                main.close()
                print("schedharness serve: --loop uvloop needs uvloop (CPython outside Windows): pip install uvloop",
                      file=sys.stderr)
                return 2
        else:
            return int(uvloop.run(main))
    return asyncio.run(main)


def _proxy_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "proxy",
        help="run the fault proxy in front of a real cluster until SIGINT/SIGTERM",
        description="Forward to the cluster of a kubeconfig through the fake's fault rules and request journal, "
        "on real time, until SIGINT or SIGTERM. Point a scheduler at the kubeconfig it writes (plain HTTP on "
        "loopback; the proxy holds the credentials); add fault rules with POST /schedharness/v1/faults and read "
        "the journal at GET /schedharness/v1/journal.",
    )
    p.add_argument("--upstream", required=True, metavar="KUBECONFIG", help="the real cluster's kubeconfig")
    p.add_argument("--context", default=None, help="its context to use (default: current-context)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=_port, default=0, help="port to bind (default: a free port)")
    p.add_argument("--kubeconfig", default="schedharness-proxy.kubeconfig",
                   help="where to write the proxy's kubeconfig (default: ./schedharness-proxy.kubeconfig)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of probabilistic fault rules")
    p.set_defaults(func=_proxy)


async def _proxy_async(args: argparse.Namespace) -> int:
    try:
        proxy = FaultProxy(args.upstream, context=args.context, seed=args.seed, host=args.host, port=args.port,
                           admin=True)
    except ValueError as e:
        print(f"schedharness proxy: {e}", file=sys.stderr)
        return 2
    return await _until_signalled(proxy, Path(args.kubeconfig), lambda: f"proxying {proxy.upstream_url} at {proxy.url}")


def _proxy(args: argparse.Namespace) -> int:
    return asyncio.run(_proxy_async(args))


def _criteria_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "criteria",
        help="print the criteria catalog (IDs, KEP sections, readings, gates, what each catches)",
        description="Print every criterion of the suites with its stable ID, KEP and section, the sentence it "
        "checks, its reading, the feature gates it needs and, with --selftest, the mutants that fail it (caught "
        "by) apart from the controls that fail it. A KEP's Test Plan can cite the IDs with the suites' version. "
        "With --check CATALOG --selftest DIR, print nothing of the catalog but compare its caught_by and "
        "failed_by_controls with a selftest's: exit code 0 when they agree, 1 when one differs (each difference "
        "printed), 2 when a file cannot be read.",
    )
    p.add_argument("--suite", action="append", default=[], metavar="NAME", help="only this suite (repeatable)")
    p.add_argument("--format", choices=("md", "json"), default="md", help="output format (default md)")
    p.add_argument("--selftest", type=Path, default=None, metavar="PATH",
                   help="a selftest.json (or its report directory), or a catalog written with --format json, "
                        "to say which mutants, and apart from them which controls, fail each criterion")
    p.add_argument("--check", type=Path, default=None, metavar="CATALOG",
                   help="a catalog written with --format json --selftest (docs/criteria.json) to compare with the "
                        "selftest --selftest names")
    p.set_defaults(func=_criteria)


def _criteria(args: argparse.Namespace) -> int:
    if args.check is not None:
        return _check_criteria(args)
    try:
        caught = load_caught_by(args.selftest) if args.selftest is not None else None
        builtin = builtin_collection()
        records = collect(suite_paths(builtin.directory.resolve(), args.suite))
    except (CatalogError, RunError) as e:
        print(f"schedharness criteria: {e}", file=sys.stderr)
        return 2
    if caught is not None:
        for record in records:
            fails = caught.get(record["id"], {})
            record["caught_by"] = fails.get("mutants", [])  # what proves the criterion
            record["failed_by_controls"] = fails.get("controls", [])
    if args.format == "json":
        sys.stdout.write(format_json(records, builtin.version))
    else:
        sys.stdout.write(format_md(records, builtin.version, selftest=str(args.selftest or "")))
    return 0


def _check_criteria(args: argparse.Namespace) -> int:
    """``criteria --check CATALOG --selftest DIR``: the committed catalog's caught_by against a
    measured one."""
    problem = None
    if args.selftest is None:
        problem = "--check compares a catalog with a selftest: give --selftest DIR"
    elif args.suite:
        problem = "--check compares every criterion: --suite does not apply"
    if problem is None:
        try:
            count, differences = check_caught_by(args.check, args.selftest)
        except CatalogError as e:
            problem = str(e)
    if problem is not None:
        print(f"schedharness criteria: {problem}", file=sys.stderr)
        return 2
    if not differences:
        print(f"schedharness criteria: caught_by and failed_by_controls of {count} criteria in {args.check} agree "
              f"with the selftest {args.selftest}")
        return 0
    for line in differences:
        print(line)
    print(f"schedharness criteria: {len(differences)} difference(s) between {args.check} and the selftest "
          f"{args.selftest}: if the selftest is right, write the catalog again with schedharness criteria "
          f"--format json --selftest {args.selftest}")
    return 1


def _compare_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "compare",
        help="line two runs' verdicts up, criterion by criterion (e.g. the fake beside envtest)",
        description="Read two reports (report.json or the directory holding it) and print each criterion's "
        "verdict in both, then the differences with their messages. Exit code 0 when every criterion in both "
        "reports has the same verdict, 1 when one differs, 2 when a report cannot be read. The same scheduler "
        "on --backend fake and --backend envtest should get the same verdicts: a difference is a fidelity bug "
        "in the fake or a timing assumption in the criterion.",
    )
    p.add_argument("left", type=Path, metavar="REPORT", help="the first report (e.g. a --backend fake run)")
    p.add_argument("right", type=Path, metavar="OTHER", help="the second report (e.g. a --backend envtest run)")
    p.set_defaults(func=_compare)


def _compare(args: argparse.Namespace) -> int:
    try:
        comparison = compare_reports(load_report(args.left), load_report(args.right))
    except CompareError as e:
        print(f"schedharness compare: {e}", file=sys.stderr)
        return 2
    for line in format_comparison(comparison):
        print(line)
    return 1 if comparison.differences else 0


def _compatibility_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "compatibility",
        help="the criteria against the reference and real kube-scheduler releases, on the fake and on envtest",
        description="Run the suites for each column (the reference scheduler, kube-scheduler v1.35, v1.37 with its "
        "default gates, v1.37 with the KEP-5836 gates on, v1.37.2 with the KEP-5501 prototype of "
        "prototypes/kep5501 applied, its gate on and off) on the fake serving that release and on envtest of that "
        "release (binaries from `schedharness k8s build`, with --patch for the prototype), write each run's verdict digest into --digests, then "
        "write the table from every digest there. --from-digests writes the table again from the digests, "
        "running nothing. Exit code 0 when every criterion got the same verdict on both backends, 1 when one "
        "differs, 2 on a usage error or a digest that cannot be read. On two cores the whole matrix took 35 minutes "
        "with --real-time-wait 30, the reference column alone 22 minutes with the default 310; --reuse takes the "
        "reports already in --reports.",
    )
    p.add_argument("--output", type=Path, default=Path("docs/compatibility.md"), metavar="FILE",
                   help="the table to write (default docs/compatibility.md)")
    p.add_argument("--digests", type=Path, default=Path("docs/compatibility"), metavar="DIR",
                   help="where each run's verdict digest goes, as <column>-<backend>.json, and what the table is "
                        "written from (default docs/compatibility)")
    p.add_argument("--from-digests", action="store_true",
                   help="write the table from the digests in --digests, running nothing")
    p.add_argument("--reports", type=Path, default=Path("reports/compatibility"), metavar="DIR",
                   help="where each run's report goes, as <column>-<backend>/ (default reports/compatibility)")
    p.add_argument("--reuse", action="store_true", help="take a report already in --reports instead of running again")
    p.add_argument("--column", action="append", default=[], choices=[c.key for c in COLUMNS], metavar="KEY",
                   help=f"only this column (repeatable): {', '.join(c.key for c in COLUMNS)}")
    p.add_argument("--real-time-wait", type=_positive_seconds, default=REAL_TIME_WAIT, metavar="SECONDS",
                   help=f"the runs on real time (kube-scheduler, envtest): the longest watch for something that must "
                        f"not happen (default {REAL_TIME_WAIT:g}, which judges every criterion; a shorter one leaves "
                        "those that need more not judged), recorded in each digest")
    p.set_defaults(func=_compatibility)


def _compatibility(args: argparse.Namespace) -> int:
    columns = [c for c in COLUMNS if not args.column or c.key in args.column]
    problem = None  # found before the first run, not an hour later
    if args.output.is_dir():
        problem = f"--output {args.output}: a directory; give the file to write"
    elif args.reports.exists() and not args.reports.is_dir():
        problem = f"--reports {args.reports}: a file; give a directory"
    elif args.digests.exists() and not args.digests.is_dir():
        problem = f"--digests {args.digests}: a file; give a directory"
    elif args.from_digests and (args.column or args.reuse):
        problem = "--from-digests runs nothing: --column and --reuse do not apply"
    elif args.from_digests and not args.digests.is_dir():
        problem = f"--digests {args.digests}: no such directory"
    if problem is not None:
        print(f"schedharness compatibility: {problem}", file=sys.stderr)
        return 2
    try:
        if not args.from_digests:
            builtin_collection()
            run_matrix(columns, args.reports, digests_dir=args.digests, reuse=args.reuse,
                       real_time_wait=args.real_time_wait,
                       progress=lambda line: print(line, file=sys.stderr, flush=True))
        digests = read_digests(args.digests)
    except (BuildError, RunError, DigestError) as e:
        print(f"schedharness compatibility: {e}", file=sys.stderr)
        return 2
    if not digests:
        print(f"schedharness compatibility: no digests in {args.digests}", file=sys.stderr)
        return 2
    args.output.parent.mkdir(parents=True, exist_ok=True)
    link = os.path.relpath(args.digests.resolve(), args.output.resolve().parent)
    args.output.write_text(format_table(digests, digests_at=Path(link).as_posix()))
    for line in format_summary(digests):
        print(line)
    print(f"schedharness compatibility: wrote {args.output} from {len(digests)} digests in {args.digests}")
    keys = sorted({d.column for d in digests})
    return 0 if all(same == both for same, both in (agreement(digests, key) for key in keys)) else 1


def _k8s_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "k8s",
        help="real Kubernetes components: build kube-scheduler, kube-apiserver and etcd from their Go modules",
        description="Real Kubernetes components for --backend envtest and --scheduler.",
    )
    verbs = p.add_subparsers(dest="k8s_command", metavar="VERB")
    b = verbs.add_parser(
        "build",
        help="build (or reuse) kube-scheduler, kube-apiserver and etcd of a release",
        description="Build kube-scheduler and kube-apiserver of a Kubernetes release from k8s.io/kubernetes and its "
        "staging modules through the Go module proxy, and etcd of the version the release is tested with, into "
        "$XDG_CACHE_HOME/schedharness/k8s/<version>/ (laid out as KUBEBUILDER_ASSETS). A second call reuses it. "
        "Progress goes to stderr; the last line, on stdout, is the directory, as `setup-envtest use -p path` "
        "prints it: KUBEBUILDER_ASSETS=$(schedharness k8s build).",
    )
    b.add_argument("version", nargs="?", type=_k8s_version, default=None, metavar="VERSION",
                   help="1.NN (its newest patch release on the proxy) or 1.NN.P (default: the newest 1.37)")
    b.add_argument("--source", type=Path, default=None, metavar="DIR",
                   help="build from this kubernetes checkout instead (e.g. a KEP implementation's branch); "
                        "its version is `git describe`'s")
    b.add_argument("--patch", type=Path, action="append", default=[], metavar="FILE_OR_DIR",
                   help="apply this unified diff (from a kubernetes checkout's root, as `git diff` makes it; a "
                        "directory: its *.patch files in name order) to the release first; repeatable, applied in "
                        "order; into <cache>/<version>+patch.<digest>/, stamped <version>+patch.<digest>")
    b.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="where builds are kept (default: $XDG_CACHE_HOME/schedharness/k8s, ~/.cache without it)")
    b.set_defaults(func=_k8s_build)
    t = verbs.add_parser(
        "test",
        help="run go test on a release with patches applied",
        description="Apply the patches (as `k8s build --patch` does) to the release in a scratch tree and run "
        "`go test` on the PACKAGEs (default: every package the patches change), with the build's flags so Go's build "
        "cache is shared. Exit code: go test's (0 passed, 1 failed), 2 when the patches do not apply.",
    )
    t.add_argument("version", type=_k8s_version, metavar="VERSION", help="1.NN (its newest patch release) or 1.NN.P")
    t.add_argument("packages", nargs="*", metavar="PACKAGE",
                   help="import paths, e.g. k8s.io/kubernetes/pkg/scheduler/backend/queue or k8s.io/api/core/v1")
    t.add_argument("--patch", type=Path, action="append", required=True, metavar="FILE_OR_DIR",
                   help="a unified diff, or a directory of *.patch files (repeatable, applied in order)")
    t.add_argument("--run", default=None, metavar="REGEX", help="go test -run: only the tests matching REGEX")
    t.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                   help="the cache the scratch tree is made in (default: as `k8s build`)")
    t.set_defaults(func=_k8s_test)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: give a verb (build or test)", file=sys.stderr)
    return 2


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _k8s_build(args: argparse.Namespace) -> int:
    if args.source is not None and args.version is not None:
        print("schedharness k8s build: give a VERSION or --source DIR, not both "
              "(a checkout's version is its own)", file=sys.stderr)
        return 2
    if args.source is not None and args.patch:
        print("schedharness k8s build: give --patch or --source DIR, not both "
              "(commit the patches to the checkout instead)", file=sys.stderr)
        return 2
    if args.cache_dir is not None and args.cache_dir.exists() and not args.cache_dir.is_dir():
        print(f"schedharness k8s build: --cache-dir {args.cache_dir}: a file; give a directory", file=sys.stderr)
        return 2
    try:
        if args.patch:
            result = build_patched(args.version, args.patch, root=args.cache_dir, progress=_progress)
        else:
            result = build(args.version, source=args.source, root=args.cache_dir, progress=_progress)
    except BuildError as e:
        print(f"schedharness k8s build: {e}", file=sys.stderr)
        return 2
    print(result.directory, flush=True)
    return 0


def _k8s_test(args: argparse.Namespace) -> int:
    if args.cache_dir is not None and args.cache_dir.exists() and not args.cache_dir.is_dir():
        print(f"schedharness k8s test: --cache-dir {args.cache_dir}: a file; give a directory", file=sys.stderr)
        return 2
    try:
        return run_go_tests(args.version, args.patch, args.packages, run=args.run, root=args.cache_dir,
                            progress=_progress)
    except BuildError as e:
        print(f"schedharness k8s test: {e}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schedharness",
        description="A fake kube-apiserver, a test harness and a conformance suite for Kubernetes schedulers.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _run_parser(sub)
    _selftest_parser(sub)
    _criteria_parser(sub)
    _compare_parser(sub)
    _serve_parser(sub)
    _proxy_parser(sub)
    _k8s_parser(sub)
    _compatibility_parser(sub)
    add_subcommands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
