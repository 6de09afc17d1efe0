"""The whole conformance suite against the reference scheduler: ``python bench/bench_suite.py``.

Runs ``schedharness run`` (every suite, the in-process reference scheduler under virtual time) in
the configurations a developer and CI use, and prints each one's wall time, scenario count,
virtual seconds covered and the virtual/wall ratio. Target: the default run under 20 s on two
cores. ``--selftest`` also times ``schedharness selftest -n 2`` (the reference and every variant:
shape variants, mutants and controls, one run each).
Reports go to a temporary directory.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness._run import RunOptions, run_suites  # noqa: E402
from harness._selftest import GROUPS, run_selftest  # noqa: E402

__all__ = ["main"]

CONFIGS = [  # (label, jobs, timeline)
    ("default (one process, timelines)", 0, True),
    ("-n 2 (timelines)", 2, True),
    ("one process, --no-timeline", 0, False),
    ("-n 2, --no-timeline", 2, False),
]
TARGET = 20.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selftest", action="store_true", help="also time the selftest (-n 2)")
    args = parser.parse_args(argv)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, jobs, timeline) in enumerate(CONFIGS):
            begin = time.perf_counter()
            result = run_suites(RunOptions(report_dir=Path(tmp) / str(i), jobs=jobs, timeline=timeline),
                                progress=None)
            wall = time.perf_counter() - begin
            report = result.report
            s = report["summary"]
            mark = "" if i or wall < TARGET else f"  (over the {TARGET:g} s target)"
            print(f"{label:<34} {wall:6.2f} s wall  {len(report['criteria'])} scenarios "
                  f"({s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped)  "
                  f"{report['virtual_seconds']:g} virtual s  x{report['virtual_seconds'] / wall:.0f}{mark}")
            failed = failed or result.exit_code != 0
        if args.selftest:
            begin = time.perf_counter()
            selftest = run_selftest(report_dir=Path(tmp) / "selftest", jobs=2, progress=None)
            wall = time.perf_counter() - begin
            # one run for the reference and one for each variant of every kind (selftest.json's groups)
            kinds = {heading: len(selftest.selftest[key]) for _, heading, key in GROUPS}
            runs = 1 + sum(kinds.values())
            print(f"{'selftest -n 2':<34} {wall:6.2f} s wall  {runs} runs (reference, "
                  + ", ".join(f"{n} {heading if n != 1 else heading[:-1]}" for heading, n in kinds.items()) + ")  "
                  f"survivors: {', '.join(selftest.selftest['survivors']) or 'none'}")
            failed = failed or selftest.exit_code != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
