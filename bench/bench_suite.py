"""The whole conformance suite against the reference scheduler: ``python bench/bench_suite.py``.

Runs ``schedharness run`` (every suite, the in-process reference scheduler under virtual time) in
the configurations a developer and CI use, and prints each one's wall time, scenario count,
virtual seconds covered and the virtual/wall ratio, then the cost of the pictures: the ratio
"timelines / --no-timeline" for the one-process pair and for the ``-n 2`` pair, each measured in
this same run, the two runs of a pair one after the other (the machine's load changes from one run
to the next; a ratio within one run is what compares). Targets: the default run under 20 s on two
cores; each wall-time ratio at most 1.3 (issue 27). Beside it the ratio of CPU seconds (this
process and the pytest processes it waited for), which other work on a shared machine sways far
less than wall time. ``--repeat N`` runs the four configurations N times in turn and takes each
one's fastest run (the one least disturbed) for the ratios.
``--selftest`` also times ``schedharness selftest -n 2`` (the reference and every variant:
shape variants, mutants and controls, one run each).
Reports go to a temporary directory.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness._runs.run import RunOptions, run_suites  # noqa: E402
from harness._runs.selftest import GROUPS, run_selftest  # noqa: E402

__all__ = ["main"]

CONFIGS = [  # (label, jobs, timeline); each pair side by side, so that a ratio sees the same load
    ("default (one process, timelines)", 0, True),
    ("one process, --no-timeline", 0, False),
    ("-n 2 (timelines)", 2, True),
    ("-n 2, --no-timeline", 2, False),
]
TARGET = 20.0
RATIO_TARGET = 1.3
PAIRS = [("one process", 0), ("-n 2", 2)]  # (label, jobs): timelines against --no-timeline


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selftest", action="store_true", help="also time the selftest (-n 2)")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run the configurations N times in turn; ratios from each one's fastest run")
    args = parser.parse_args(argv)
    failed = False
    walls: dict[tuple[int, bool], float] = {}
    cpus: dict[tuple[int, bool], float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.repeat):
            for i, (label, jobs, timeline) in enumerate(CONFIGS):
                cpu_begin, begin = _cpu_seconds(), time.perf_counter()
                result = run_suites(RunOptions(report_dir=Path(tmp) / f"{round_}-{i}", jobs=jobs, timeline=timeline),
                                    progress=None)
                wall, cpu = time.perf_counter() - begin, _cpu_seconds() - cpu_begin
                walls[jobs, timeline] = min(wall, walls.get((jobs, timeline), wall))
                cpus[jobs, timeline] = min(cpu, cpus.get((jobs, timeline), cpu))
                report = result.report
                s = report["summary"]
                mark = "" if i or wall < TARGET else f"  (over the {TARGET:g} s target)"
                print(f"{label:<40} {wall:6.2f} s wall  {cpu:6.2f} s CPU  {len(report['criteria'])} scenarios "
                      f"({s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped)  "
                      f"{report['virtual_seconds']:g} virtual s  x{report['virtual_seconds'] / wall:.0f}{mark}")
                failed = failed or result.exit_code != 0
        for label, jobs in PAIRS:
            ratio, cpu_ratio = walls[jobs, True] / walls[jobs, False], cpus[jobs, True] / cpus[jobs, False]
            over = f"  (over the {RATIO_TARGET:g} target)" if ratio > RATIO_TARGET else ""
            print(f"{'timelines / --no-timeline, ' + label:<40} {ratio:6.2f} wall "
                  f"({walls[jobs, True]:.2f} s / {walls[jobs, False]:.2f} s){over}, {cpu_ratio:.2f} CPU "
                  f"({cpus[jobs, True]:.2f} s / {cpus[jobs, False]:.2f} s)")
        if args.selftest:
            begin = time.perf_counter()
            selftest = run_selftest(report_dir=Path(tmp) / "selftest", jobs=2, progress=None)
            wall = time.perf_counter() - begin
            # one run for the reference and one for each variant of every kind (selftest.json's groups)
            kinds = {heading: len(selftest.selftest[key]) for _, heading, key in GROUPS}
            runs = 1 + sum(kinds.values())
            print(f"{'selftest -n 2':<40} {wall:6.2f} s wall  {runs} runs (reference, "
                  + ", ".join(f"{n} {heading if n != 1 else heading[:-1]}" for heading, n in kinds.items()) + ")  "
                  f"survivors: {', '.join(selftest.selftest['survivors']) or 'none'}")
            failed = failed or selftest.exit_code != 0
    return 1 if failed else 0


def _cpu_seconds() -> float:
    """CPU seconds used so far by this process and by the children it waited for (pytest, its workers)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


if __name__ == "__main__":
    sys.exit(main())
