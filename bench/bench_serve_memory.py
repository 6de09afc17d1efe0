"""Memory of a long-running fake under scheduling churn: ``python bench/bench_serve_memory.py``.

Issue 15: ``schedharness serve`` kept every journal entry, so an hour of kube-scheduler load grew
its memory without end. ``FakeApiServer(journal_limit=N)`` keeps the N most recent entries; this
bench shows the server's resident memory settle with a bound and keep growing without one.

An hour is compressed into a few minutes by driving churn far faster than a cluster sees it:

* The server runs in a child process of this script on real time (``FakeApiServer(journal_limit=N,
  taint_not_ready_nodes=False)``, as ``schedharness serve --ready-nodes`` runs it), on a free port.
* A scheduler schedules through it: the kube-scheduler binary of ``SCHEDHARNESS_KUBE_SCHEDULER``
  (its first path, ``clientConnection.contentType: application/json``, QPS and burst 5000, no
  leader election) when set, else the reference scheduler (``python -m reference_scheduler
  scheduler --kubeconfig PATH``).
* 20 ready nodes; ``--workers`` clients in this process each loop: create a pod, wait on a pod
  watch until the scheduler bound it, PATCH its status as a kubelet would, delete it at once
  (``gracePeriodSeconds=0``). Every node's Ready condition is patched every 10 s (a kubelet's
  heartbeat). The scheduler's Events are deleted every 5 s: a real kube-apiserver drops them
  after ``--event-ttl``, the fake never does, and their growth is not the journal's
  (``--keep-events`` keeps them, to see it).
* Every ``--interval`` s the server's ``VmRSS`` (``/proc/<pid>/status``) is sampled with the
  journal's window (the ``X-Schedharness-Journal-*`` headers of ``GET /schedharness/v1/journal``,
  asked ``?since=`` a seq past the end so that no entry is serialized).

Settling: the run is settled one sample after the journal first held ``--journal-limit`` entries
(for the unbounded run: had recorded that many, so that both are compared after the same
traffic). Printed per mode: the RSS where it settled, at the end, the largest drift after
settling (target: within 10 % with a bound), the growth per minute after settling, the pods cycled
and the journal entries recorded. ``--mode both`` (default) runs bounded then unbounded.

On a 2-core machine, 180 s a mode (about 70,000 pods cycled, over a million entries: a day of
one pod a second): with kube-scheduler v1.35, bounded at 100,000 entries settled at 268 MB and
drifted +0.3 % at most, unbounded went from 362 MB to 2,349 MB (+730 MB/min); with the reference
scheduler, 238 MB and +0.0 %, against 391 MB to 2,707 MB. A window of 100,000 entries costs about
220 MB: a write's entry holds the object before and after it. With ``--keep-events`` the bounded
run grows by about 120 MB/min: the fake keeps every Event, where a real server expires them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scheduler_throughput import node_body, stop_process  # noqa: E402
from fake_apiserver import FakeApiServer  # noqa: E402
from fake_apiserver._server.server import ADMIN_PREFIX, JOURNAL_DROPPED, JOURNAL_FIRST_SEQ, JOURNAL_LAST_SEQ  # noqa: E402

__all__ = ["main", "run_mode"]

NAMESPACE = "default"
PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"
NODES = "/api/v1/nodes"
EVENTS = f"/apis/events.k8s.io/v1/namespaces/{NAMESPACE}/events"
SMP = {"Content-Type": "application/strategic-merge-patch+json"}
NODE_COUNT = 20
HEARTBEAT = 10.0  # seconds between a node's Ready patches
EVENT_SWEEP = 5.0  # seconds between deletions of the scheduler's Events
BIND_TIMEOUT = 60.0  # seconds; only a stalled scheduler reaches it
PAST_THE_END = 10**15  # a seq no run reaches: the journal answers headers and no line


# ---------------------------------------------------------------------------- the server process

EVENT_TTL_ENV = "SCHEDHARNESS_BENCH_EVENT_TTL"


async def _serve(limit: int, kubeconfig: Path) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    ttl = float(os.environ.get(EVENT_TTL_ENV) or 0) or None
    async with FakeApiServer(taint_not_ready_nodes=False, journal_limit=limit or None, event_ttl=ttl) as server:
        server.write_kubeconfig(kubeconfig)
        print(server.url, flush=True)
        await stop.wait()


# ---------------------------------------------------------------------------- the churn

def pod_body(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": "churn"}},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]},
    }


def running_status() -> dict[str, Any]:
    return {"status": {"phase": "Running", "podIP": "10.0.0.1",
                       "conditions": [{"type": "Ready", "status": "True"}],
                       "containerStatuses": [{"name": "pause", "ready": True, "restartCount": 0,
                                              "image": "registry.k8s.io/pause:3.10", "imageID": "",
                                              "state": {"running": {}}}]}}


class BindWatch:
    """One pod watch in this process: tells the workers when the scheduler bound their pod."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session = session
        self.waiting: dict[str, asyncio.Future[None]] = {}
        self.bound: set[str] = set()

    async def run(self) -> None:
        rv = ""
        while True:
            if not rv:  # (re)list: a pod bound while no watch was open is seen here
                async with self.session.get(PODS) as r:
                    listing = await r.json()
                rv = listing["metadata"]["resourceVersion"]
                for item in listing["items"]:
                    self._seen(item)
            params = {"watch": "true", "resourceVersion": rv, "timeoutSeconds": "3600"}
            async with self.session.get(PODS, params=params, timeout=aiohttp.ClientTimeout(total=None)) as r:
                async for line in r.content:
                    event = json.loads(line)
                    if event["type"] == "ERROR":
                        rv = ""
                        break
                    rv = event["object"]["metadata"].get("resourceVersion", rv)
                    if event["type"] == "DELETED":
                        self.bound.discard(event["object"]["metadata"]["name"])
                    else:
                        self._seen(event["object"])

    def _seen(self, pod: dict[str, Any]) -> None:
        name = pod["metadata"]["name"]
        if pod.get("spec", {}).get("nodeName"):
            self.bound.add(name)
            future = self.waiting.pop(name, None)
            if future is not None and not future.done():
                future.set_result(None)

    async def wait_bound(self, name: str) -> None:
        if name in self.bound:
            return
        future = self.waiting.setdefault(name, asyncio.get_running_loop().create_future())
        await asyncio.wait_for(future, BIND_TIMEOUT)


@dataclass
class Churn:
    session: aiohttp.ClientSession
    watch: BindWatch
    deadline: float
    keep_events: bool
    pods: int = 0
    counter: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def _check(self, what: str, status: int, ok: tuple[int, ...] = (200, 201)) -> None:
        if status not in ok:
            key = f"{what} {status}"
            self.errors[key] = self.errors.get(key, 0) + 1

    async def worker(self) -> None:
        while time.monotonic() < self.deadline:
            self.counter += 1
            name = f"churn-{self.counter}"
            async with self.session.post(PODS, json=pod_body(name)) as r:
                self._check("create", r.status)
            await self.watch.wait_bound(name)
            async with self.session.patch(f"{PODS}/{name}/status", data=json.dumps(running_status()),
                                          headers=SMP) as r:
                self._check("status patch", r.status)
            async with self.session.delete(f"{PODS}/{name}", params={"gracePeriodSeconds": "0"}) as r:
                self._check("delete", r.status)
            self.pods += 1

    async def heartbeats(self) -> None:
        beat = 0
        while time.monotonic() < self.deadline:
            beat += 1
            for i in range(NODE_COUNT):
                body = {"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                                   "message": f"heartbeat {beat}"}]}}
                async with self.session.patch(f"{NODES}/node-{i:02d}/status", data=json.dumps(body),
                                              headers=SMP) as r:
                    self._check("node status patch", r.status)
            await asyncio.sleep(HEARTBEAT)

    async def sweep_events(self) -> None:
        while not self.keep_events and time.monotonic() < self.deadline:
            await asyncio.sleep(EVENT_SWEEP)
            async with self.session.delete(EVENTS) as r:
                self._check("event sweep", r.status)


# ---------------------------------------------------------------------------- sampling

@dataclass(frozen=True)
class Sample:
    t: float
    rss_kb: int
    last_seq: int
    held: int
    dropped: int


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


async def _sample(session: aiohttp.ClientSession, pid: int, start: float) -> Sample:
    async with session.get(f"{ADMIN_PREFIX}/journal", params={"since": str(PAST_THE_END)}) as r:
        first, last, dropped = (int(r.headers[h]) for h in (JOURNAL_FIRST_SEQ, JOURNAL_LAST_SEQ, JOURNAL_DROPPED))
    return Sample(time.monotonic() - start, _rss_kb(pid), last, last - first + 1, dropped)


@dataclass
class Result:
    mode: str
    samples: list[Sample]
    settle: int | None  # index of the settling sample
    pods: int
    seconds: float
    errors: dict[str, int]

    @property
    def entries(self) -> int:
        return self.samples[-1].last_seq

    def summary(self) -> str:
        end = self.samples[-1]
        rate = f"{self.pods} pods cycled ({self.pods / self.seconds:.0f}/s), {self.entries:,} journal entries " \
               f"({self.entries / self.seconds:.0f}/s), {end.held:,} held, {end.dropped:,} dropped"
        if self.settle is None:
            return f"{self.mode}: never settled (the journal never reached the limit: run longer); " \
                   f"RSS {_mb(self.samples[0].rss_kb)} -> {_mb(end.rss_kb)}; {rate}"
        base = self.samples[self.settle]
        after = self.samples[self.settle:]
        peak = max(after, key=lambda s: s.rss_kb)
        drift = peak.rss_kb / base.rss_kb - 1
        minutes = (end.t - base.t) / 60
        slope = (end.rss_kb - base.rss_kb) / 1024 / minutes if minutes > 0 else 0.0
        return (f"{self.mode}: settled at {_mb(base.rss_kb)} (t={base.t:.0f} s, {base.last_seq:,} entries), "
                f"end {_mb(end.rss_kb)} (t={end.t:.0f} s); max drift after settling {drift:+.1%} "
                f"({_mb(peak.rss_kb)} at t={peak.t:.0f} s), {slope:+.1f} MB/min; {rate}")


def _mb(kb: int) -> str:
    return f"{kb / 1024:.1f} MB"


# ---------------------------------------------------------------------------- one run

def _start_scheduler(scheduler: str, kubeconfig: Path, workdir: Path, log: Any) -> subprocess.Popen[bytes]:
    if scheduler:
        config = workdir / "kube-scheduler.yaml"
        config.write_text(
            "apiVersion: kubescheduler.config.k8s.io/v1\n"
            "kind: KubeSchedulerConfiguration\n"
            f"clientConnection: {{kubeconfig: {kubeconfig}, contentType: application/json, qps: 5000, burst: 5000}}\n"
            "leaderElection: {leaderElect: false}\n"
        )
        argv = [scheduler, f"--config={config}", "--secure-port=0", "-v=1"]
    else:
        argv = [sys.executable, "-m", "reference_scheduler", "scheduler", "--kubeconfig", str(kubeconfig)]
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=Path(__file__).resolve().parents[1])


async def run_mode(mode: str, *, limit: int, scheduler: str, duration: float, interval: float, workers: int,
                   keep_events: bool, workdir: Path, verbose: bool) -> Result:
    """One run: ``mode`` ``bounded`` (``journal_limit=limit``) or ``unbounded``."""
    kubeconfig = workdir / f"{mode}.kubeconfig"
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve-child", str(limit if mode == "bounded" else 0), str(kubeconfig)],
        stdout=subprocess.PIPE, text=True,
    )
    scheduler_proc: subprocess.Popen[bytes] | None = None
    log_path = workdir / f"{mode}-scheduler.log"
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        if not url:
            raise SystemExit(f"{mode}: the server process exited before serving")
        async with aiohttp.ClientSession(url, timeout=aiohttp.ClientTimeout(total=120)) as session:
            for i in range(NODE_COUNT):
                async with session.post(NODES, json=node_body(f"node-{i:02d}")) as r:
                    assert r.status == 201, (r.status, await r.text())
            with log_path.open("wb") as log:
                scheduler_proc = _start_scheduler(scheduler, kubeconfig, workdir, log)
            watch = BindWatch(session)
            watching = asyncio.create_task(watch.run())
            async with session.post(PODS, json=pod_body("probe")) as r:
                assert r.status == 201, (r.status, await r.text())
            try:
                await watch.wait_bound("probe")
            except asyncio.TimeoutError:
                tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-30:])
                raise SystemExit(f"{mode}: the scheduler bound no probe pod in {BIND_TIMEOUT:.0f} s; log tail:\n{tail}") from None
            start = time.monotonic()
            churn = Churn(session, watch, start + duration, keep_events)
            tasks = [asyncio.create_task(churn.worker()) for _ in range(workers)]
            tasks += [asyncio.create_task(churn.heartbeats()), asyncio.create_task(churn.sweep_events())]
            samples = [await _sample(session, server.pid, start)]
            while (remaining := start + duration - time.monotonic()) > 0:
                await asyncio.sleep(min(interval, remaining))
                samples.append(await _sample(session, server.pid, start))
                if verbose:
                    s = samples[-1]
                    print(f"  {mode:9} t={s.t:6.1f} s  RSS {_mb(s.rss_kb):>9}  entries {s.last_seq:>9,}  "
                          f"held {s.held:>9,}  dropped {s.dropped:>9,}", flush=True)
            await asyncio.gather(*tasks)
            seconds = time.monotonic() - start
            watching.cancel()
        threshold = next((i for i, s in enumerate(samples) if s.last_seq >= limit), None)
        settle = None if threshold is None or threshold + 1 >= len(samples) else threshold + 1
        return Result(mode, samples, settle, churn.pods, seconds, churn.errors)
    finally:
        if scheduler_proc is not None:
            stop_process(scheduler_proc)
        stop_process(server)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve-child"]:
        asyncio.run(_serve(int(argv[1]), Path(argv[2])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    env = [p for p in os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER", "").split(":") if p]
    parser.add_argument("--scheduler", default=env[0] if env else "",
                        help="kube-scheduler binary (default: first of $SCHEDHARNESS_KUBE_SCHEDULER, "
                             "else the reference scheduler)")
    parser.add_argument("--mode", choices=("both", "bounded", "unbounded"), default="both")
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of churn per mode (default 180)")
    parser.add_argument("--journal-limit", type=int, default=100_000,
                        help="the bounded run's journal_limit, and the entry count both runs settle at (default 100000)")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between RSS samples (default 5)")
    parser.add_argument("--workers", type=int, default=16, help="concurrent pod create/bind/patch/delete loops (default 16)")
    parser.add_argument("--keep-events", action="store_true", help="never delete the scheduler's Events")
    parser.add_argument("--event-ttl", type=float, default=0.0, metavar="SECONDS",
                        help="the server's event_ttl (as `schedharness serve --event-ttl`; default 0: none); with "
                             "--keep-events, a short one is the compressed equivalent of an hour under the real 1 h")
    parser.add_argument("--verbose", action="store_true", help="print every sample")
    args = parser.parse_args(argv)
    if args.scheduler and not os.access(args.scheduler, os.X_OK):
        parser.error(f"--scheduler {args.scheduler}: not an executable file")
    if args.event_ttl:
        os.environ[EVENT_TTL_ENV] = str(args.event_ttl)
    if args.journal_limit < 1:
        parser.error(f"--journal-limit {args.journal_limit}: give at least 1 entry")
    who = subprocess.run([args.scheduler, "--version"], capture_output=True, text=True).stdout.strip() \
        if args.scheduler else "the reference scheduler"
    print(f"{who}; {args.workers} workers, {NODE_COUNT} nodes, {args.duration:.0f} s per mode, "
          f"journal limit {args.journal_limit:,}, events {'kept' if args.keep_events else f'swept every {EVENT_SWEEP:g} s'}",
          flush=True)
    modes = ("bounded", "unbounded") if args.mode == "both" else (args.mode,)
    results = []
    with tempfile.TemporaryDirectory(prefix="schedharness-bench-") as tmp:
        for mode in modes:
            results.append(asyncio.run(run_mode(
                mode, limit=args.journal_limit, scheduler=args.scheduler, duration=args.duration,
                interval=args.interval, workers=args.workers, keep_events=args.keep_events,
                workdir=Path(tmp), verbose=args.verbose)))
    for result in results:
        print(result.summary())
        if result.errors:
            print(f"  unexpected answers: {result.errors}")
    print("RSS samples (MB), side by side:")
    print("   t (s)  " + "".join(f"{r.mode:>12}" for r in results))
    for i in range(max(len(r.samples) for r in results)):
        row = [r.samples[i] if i < len(r.samples) else None for r in results]
        t = next(s.t for s in row if s is not None)
        print(f"  {t:6.0f}  " + "".join(f"{s.rss_kb / 1024:12.1f}" if s is not None else " " * 12 for s in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
