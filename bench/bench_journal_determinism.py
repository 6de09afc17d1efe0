"""Issue 3's determinism workload, timed: 300 virtual seconds with a watch, a 5 s delayed patch
and three concurrent writers (``harness._time.workloads.watch_delay_writers``).

Prints the median and p95 wall time of one run, the virtual/wall ratio and the number of distinct
journals over the runs (must be 1). Target: 300 virtual s in under 50 ms on 2 cores.

    python bench/bench_journal_determinism.py [RUNS]
"""

from __future__ import annotations

import hashlib
import statistics
import sys
import time

from harness._time.workloads import run_watch_delay_writers


def main(runs: int = 100) -> None:
    run_watch_delay_writers()  # warm imports and code paths
    walls = []
    digests = set()
    lines = 0
    for _ in range(runs):
        t0 = time.perf_counter()
        journal = run_watch_delay_writers()
        walls.append(time.perf_counter() - t0)
        digests.add(hashlib.sha256(journal.encode()).hexdigest())
        lines = journal.count("\n")
    walls.sort()
    median = statistics.median(walls)
    p95 = walls[int(0.95 * (len(walls) - 1))]
    print(f"runs: {runs}, journal lines per run: {lines}")
    print(f"wall per run: median {median * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms (target: < 50 ms)")
    print(f"virtual/wall ratio: {300.0 / median:,.0f}x")
    print(f"distinct journals: {len(digests)} of {runs} runs (must be 1)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
