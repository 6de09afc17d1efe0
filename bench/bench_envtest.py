"""The suites on the fake and on envtest in one run: ``KUBEBUILDER_ASSETS=DIR python bench/bench_envtest.py``.

Runs ``schedharness run`` twice with the same scheduler and suites, once on ``--backend envtest``
(a real etcd and kube-apiserver per worker, real time) and once on ``--backend fake`` serving as
the same Kubernetes release as that kube-apiserver (``--kubernetes-version``, read from the envtest
run's report; ``--fake-version`` overrides it), prints each run's wall time and counts side by
side, then the verdicts criterion by criterion (:mod:`harness._runs.compare`). A reference-scheduler run on the fake is under virtual time, so its
wall time is the harness's own cost; on envtest every wait is a real one. ``--scheduler`` takes
what ``schedharness run`` takes (a command runs on real time on both backends).

Exit code 0 when the verdicts agree, 1 when one differs, 2 without the binaries.
Reports go to ``--report-dir`` (default: a temporary directory).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_apiserver import RELEASES  # noqa: E402
from harness._runs.compare import compare_reports, format_comparison  # noqa: E402
from harness._backends.envtest import envtest_unavailable  # noqa: E402
from harness._runs.run import RunOptions, normalize_scheduler, run_suites  # noqa: E402

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", default="reference", help="as schedharness run --scheduler (default reference)")
    parser.add_argument("--suite", action="append", default=[], help="a suite (repeatable; default: every suite)")
    parser.add_argument("-n", "--jobs", type=int, default=None,
                        help="envtest workers, each with its own control plane (default: schedharness run's)")
    parser.add_argument("--envtest-assets", type=Path, default=None, help="default: $KUBEBUILDER_ASSETS")
    parser.add_argument("--report-dir", type=Path, default=None, help="default: a temporary directory")
    parser.add_argument("--fake-version", default=None, metavar="1.NN",
                        help="the fake's release (default: the envtest kube-apiserver's, when the fake serves as it)")
    args = parser.parse_args(argv)
    reason = envtest_unavailable(args.envtest_assets)
    if reason is not None:
        print(f"bench_envtest: {reason}", file=sys.stderr)
        return 2
    scheduler = normalize_scheduler(args.scheduler)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.report_dir or Path(tmp)
        reports = {}
        for backend in ("envtest", "fake"):
            version = None
            if backend == "fake":
                version = args.fake_version or _release_of(reports["envtest"])
            options = RunOptions(scheduler=scheduler, suites=tuple(args.suite), report_dir=root / backend,
                                 timeline=False, backend=backend, envtest_assets=args.envtest_assets,
                                 jobs=args.jobs if backend == "envtest" else None, kubernetes_version=version)
            begin = time.perf_counter()
            result = run_suites(options, progress=None)
            wall = time.perf_counter() - begin
            report = reports[backend] = result.report
            s = report["summary"]
            virtual = f", {report['virtual_seconds']:g} virtual s" if report["virtual_seconds"] else ""
            command = shlex.split(report["command"])
            workers = f", -n {command[command.index('-n') + 1]}" if "-n" in command else ", one process"
            print(f"{backend:<8} {wall:8.1f} s wall  {len(report['criteria'])} criteria ({s['passed']} passed, "
                  f"{s['failed']} failed, {s['skipped']} skipped{virtual}{workers}), API server "
                  f"{report.get('server_version') or 'unrecorded'}")
        comparison = compare_reports(reports["fake"], reports["envtest"])  # the fake first, as before
        for line in format_comparison(comparison):
            print(line)
    return 1 if comparison.differences else 0


def _release_of(report: dict[str, object]) -> str | None:
    """The ``1.NN`` release of a report's API server, if the fake can serve as it (else None:
    the fake's own default, and ``schedharness compare`` notes the difference)."""

    server = str(report.get("server_version") or "").removeprefix("v")
    minor = ".".join(server.split(".")[:2])
    return minor if f"{minor}.0" in RELEASES else None


if __name__ == "__main__":
    sys.exit(main())
