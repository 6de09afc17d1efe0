"""A real kube-scheduler through the fake, CPU beside CPU: ``python bench/bench_scheduler_throughput.py``.

Issue 27 sets the target: with a real kube-scheduler scheduling 5,000 pods on 500 nodes through
the fake, the fake spends at most half the CPU time of the scheduler it serves, both measured in
the same run, with pods/s beside the ratio, at kube-scheduler's default client QPS and burst and
at raised ones, and showing where kube-scheduler itself becomes the limit. (Issue 2's reference:
a real kube-apiserver v1.36 with etcd lets kube-scheduler v1.35 bind about 210 pods/s, 1,000 pods
on 100 nodes, on a 2-core machine.)

Three processes, so that each one's CPU is its own:

* the fake, ``schedharness serve --ready-nodes`` (``python -m harness.cli serve``, its default
  loop and journal), started afresh for every run;
* kube-scheduler, the binary of ``SCHEDHARNESS_KUBE_SCHEDULER`` (its first path) or ``--scheduler``,
  with ``leaderElect: false``, ``--secure-port=0``, ``-v=2`` (``--verbosity``; it then logs a line
  per bound pod, as clusters commonly run it) and ``clientConnection.contentType:
  application/json`` (``--content-type protobuf``: its own default);
* this script: it creates the nodes and pods over HTTP with ``--creators`` concurrent aiohttp
  clients and watches ``pods?fieldSelector=spec.nodeName!=`` (one event per binding: the cheapest
  way to see bindings from outside, charged to the fake like any client's watch).

One run: ``--nodes`` ready nodes (4 cpu, 32Gi, 110 pods) are created, then, by ``--window``:

* ``stream`` (default, the issue's measurement): kube-scheduler starts and binds a probe pod
  (its informers have synced), then the window opens and ``--pods`` pods (100m cpu, 500Mi, as
  scheduler_perf's default pod) are created as fast as the creators go while the scheduler binds
  them. The window covers pod creation as well as scheduling: the fake's CPU includes serving
  the creates.
* ``backlog``: the pods are created first, with no scheduler running; the window opens when
  kube-scheduler is started and covers its start-up (informer lists, the Go runtime's first CPU)
  and the scheduling of the backlog, not pod creation: the fake's CPU there is what serving one
  scheduler costs, and pods/s what kube-scheduler does when nothing has to feed it.

The window closes when the watch has seen every pod bound. CPU seconds are utime + stime from
``/proc/<pid>/stat`` at the window's start and end, for the fake and kube-scheduler, and
``os.times()`` for this process; each is also shown as utilisation (CPU s / wall s: 100% is one
core busy all the window; the fake, one Python thread, hardly passes it, kube-scheduler, Go, can use
every core), beside the busy share of all the machine's cores from ``/proc/stat`` and the CPU seconds
of that busy time that none of the three spent (``others``: other work on a shared machine), so
one sees which process saturates, and how much of the machine the run really had. The
creators' rate and CPU are printed too, so that a pods/s equal to the create rate shows that the
feed, not the scheduler, set the pace. The
``saturated`` column names what the figures say ran out: the client limiter (pods/s at 80% of
its QPS or more), a process at 90% of a core or more, the feed (pods/s at 90% of the create
rate), the machine (90% of all cores busy).

``--qps`` lists the client settings to run, each with a fresh fake and scheduler: ``default``
leaves ``clientConnection.qps``/``burst`` unset, so that kube-scheduler applies its own defaults,
qps 50 and burst 100 (``SetDefaults_KubeSchedulerConfiguration`` in
pkg/scheduler/apis/config/v1/defaults.go, the same in v1.35.4 and v1.37.2, and what both
binaries write with ``--write-config-to``); ``Q`` or ``Q/B`` sets
qps Q and burst B (default 2Q). Every binding is one request of the scheduler's client, so at qps
50 the limiter caps throughput near 50 pods/s whatever the server does; a sweep such as ``--qps
default 100 200 400 800 5000`` shows where the scheduler, or the machine, takes over. The default
invocation, ``default`` and ``5000/10000`` at 500 nodes and 5,000 pods, takes a little over two
minutes on two cores (2 min 11 s, twice), 100 s of it under the default limiter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_apiserver import KindSpec, by_resource  # noqa: E402

__all__ = ["ClientSetting", "Creation", "RunResult", "main", "node_body", "parse_client_setting", "pod_body",
           "run_bench", "scheduler_config", "stop_process"]

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_PODS_PER_SECOND = 210.0  # kube-scheduler v1.35 through kube-apiserver v1.36 + etcd, 1,000 pods
DEFAULT_QPS, DEFAULT_BURST = 50.0, 100  # kube-scheduler's own defaults (see the docstring)
NAMESPACE = "default"
PODS_PATH = f"/api/v1/namespaces/{NAMESPACE}/pods"
NODES_PATH = "/api/v1/nodes"
BOUND = "spec.nodeName!="
STALL = 60.0  # seconds without a new binding before the run is declared stuck
TARGET_RATIO = 0.5


def _kind(group: str, version: str, resource: str) -> KindSpec:
    spec = by_resource(group, version, resource)
    assert spec is not None, resource
    return spec


# Kept for bench_preemption.py, which creates objects straight in an in-process store.
PODS = _kind("", "v1", "pods")
NODES = _kind("", "v1", "nodes")


def node_body(name: str, cpu: str = "4", memory: str = "32Gi") -> dict[str, Any]:
    resources = {"cpu": cpu, "memory": memory, "pods": "110"}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": resources, "allocatable": resources,
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]},
    }


def pod_body(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]},
    }


def stop_process(proc: subprocess.Popen[bytes] | subprocess.Popen[str]) -> None:
    """SIGTERM, then SIGKILL after 30 s."""
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a process from ``/proc/<pid>/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _self_cpu() -> float:
    t = os.times()
    return t.user + t.system


def _machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all cores from ``/proc/stat``; idle and iowait count as not busy."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    total = sum(values[:8])  # guest time is already counted in user and nice
    return total - values[3] - values[4], total


# ---------------------------------------------------------------------------- client settings

@dataclass(frozen=True)
class ClientSetting:
    """kube-scheduler's ``clientConnection`` QPS and burst; ``None`` leaves them to its defaults."""

    qps: float | None = None
    burst: int | None = None

    def effective(self) -> tuple[float, int]:
        if self.qps is None or self.burst is None:
            return DEFAULT_QPS, DEFAULT_BURST
        return self.qps, self.burst

    def label(self) -> str:
        qps, burst = self.effective()
        which = "default" if self.qps is None else "raised" if qps > DEFAULT_QPS else "set"
        return f"{which} {qps:g}/{burst}"

    def config_fields(self) -> str:
        """The YAML flow-mapping entries to add to ``clientConnection`` (none for the defaults)."""
        return "" if self.qps is None else f", qps: {self.qps:g}, burst: {self.burst}"


def parse_client_setting(text: str) -> ClientSetting:
    """``default``, ``Q`` (burst 2Q) or ``Q/B``, as ``--qps`` takes them."""
    if text == "default":
        return ClientSetting()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(?:/(\d+))?", text)
    if m is None or float(m.group(1)) <= 0 or (m.group(2) is not None and int(m.group(2)) < 1):
        raise argparse.ArgumentTypeError(f"{text!r}: give 'default', QPS or QPS/BURST (positive numbers)")
    qps = float(m.group(1))
    return ClientSetting(qps, int(m.group(2)) if m.group(2) else max(1, round(2 * qps)))


# ---------------------------------------------------------------------------- processes

def start_fake(workdir: Path, log: IO[bytes]) -> tuple[subprocess.Popen[str], str, Path]:
    """``schedharness serve --ready-nodes`` on a free port; returns it, its URL and kubeconfig."""
    kubeconfig = workdir / "fake.kubeconfig"
    cmd = [sys.executable, "-m", "harness.cli", "serve", "--port", "0", "--kubeconfig", str(kubeconfig),
           "--ready-nodes"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True)
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        m = re.search(r"serving the Kubernetes API at (\S+)", line)
        if m:
            proc.stdout.readline()  # "kubeconfig written to": the file is there
            return proc, m.group(1), kubeconfig
    raise SystemExit(f"schedharness serve did not start (exit code {proc.wait()}); see {workdir}/fake.log")


def scheduler_config(kubeconfig: Path, setting: ClientSetting, content_type: str) -> str:
    """The KubeSchedulerConfiguration of a run, as YAML."""
    return (
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        f"clientConnection: {{kubeconfig: {kubeconfig}, contentType: {content_type}{setting.config_fields()}}}\n"
        "leaderElection: {leaderElect: false}\n"
    )


def start_scheduler(binary: str, kubeconfig: Path, setting: ClientSetting, *, content_type: str,
                    verbosity: int, workdir: Path, log: IO[bytes]) -> subprocess.Popen[bytes]:
    config = workdir / "kube-scheduler.yaml"
    config.write_text(scheduler_config(kubeconfig, setting, content_type))
    return subprocess.Popen([binary, f"--config={config}", "--secure-port=0", f"-v={verbosity}"],
                            stdout=log, stderr=subprocess.STDOUT)


# ---------------------------------------------------------------------------- this process's clients

class BindWatch:
    """A watch of bound pods (``spec.nodeName!=``): a pod enters it, as ADDED, when it is bound."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self.session = session
        self.bound: set[str] = set()
        self.changed = asyncio.Event()
        self.first_at: float | None = None  # perf_counter of the first binding seen
        self.last_at = time.perf_counter()

    async def start(self) -> asyncio.Task[None]:
        """List, then watch from the list's resourceVersion in a task; the list is read on return."""
        async with self.session.get(PODS_PATH, params={"fieldSelector": BOUND}) as r:
            assert r.status == 200, (r.status, await r.text())
            listing = await r.json()
        for item in listing["items"]:
            self.bound.add(item["metadata"]["name"])
        return asyncio.create_task(self._watch(listing["metadata"]["resourceVersion"]))

    async def _watch(self, rv: str) -> None:
        params = {"watch": "true", "resourceVersion": rv, "fieldSelector": BOUND, "timeoutSeconds": "3600"}
        async with self.session.get(PODS_PATH, params=params, timeout=aiohttp.ClientTimeout(total=None)) as r:
            assert r.status == 200, (r.status, await r.text())
            async for line in r.content:
                event = json.loads(line)
                if event["type"] == "ERROR":
                    raise RuntimeError(f"bind watch: {event['object']}")
                name = event["object"]["metadata"]["name"]
                if event["type"] != "DELETED" and name not in self.bound:
                    self.bound.add(name)
                    self.last_at = time.perf_counter()
                    if self.first_at is None:
                        self.first_at = self.last_at
                    self.changed.set()

    async def wait_for(self, names: set[str], scheduler: subprocess.Popen[bytes], log: Path) -> None:
        """Until every name is bound; a scheduler that exits or binds nothing for STALL s ends the run."""
        while not names <= self.bound:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), 1.0)
            except asyncio.TimeoutError:
                pass
            stalled = time.perf_counter() - self.last_at > STALL
            if scheduler.poll() is not None or stalled:
                tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
                why = f"bound nothing for {STALL:.0f} s" if stalled else f"exited ({scheduler.returncode})"
                raise SystemExit(f"kube-scheduler {why} at {len(names & self.bound)}/{len(names)} pods; "
                                 f"its log's tail:\n{tail}")


@dataclass
class Creation:
    """What the creators did: wall seconds, this process's CPU seconds over them, and answers."""

    count: int
    seconds: float = 0.0
    cpu: float = 0.0
    errors: dict[int, int] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0


async def create_all(session: aiohttp.ClientSession, path: str, bodies: list[dict[str, Any]],
                     creators: int) -> Creation:
    """POST every body with ``creators`` concurrent clients; the clock and CPU are this call's."""
    result = Creation(len(bodies))
    queue = iter(bodies)

    async def creator() -> None:
        for body in queue:  # one shared iterator: each body goes to whichever client is free
            async with session.post(path, json=body) as r:
                await r.read()
                if r.status != 201:
                    result.errors[r.status] = result.errors.get(r.status, 0) + 1

    cpu, start = _self_cpu(), time.perf_counter()
    await asyncio.gather(*(creator() for _ in range(creators)))
    result.seconds, result.cpu = time.perf_counter() - start, _self_cpu() - cpu
    if result.errors:
        raise SystemExit(f"creating {path}: answers other than 201: {result.errors}")
    return result


# ---------------------------------------------------------------------------- one run

@dataclass
class RunResult:
    setting: ClientSetting
    window: str
    pods: int
    seconds: float  # the window's wall time
    fake_cpu: float
    scheduler_cpu: float
    self_cpu: float  # this process over the window (the creators in stream, the bind watch in both)
    machine_busy: float  # share of all cores busy over the window, any process's work
    other_cpu: float  # CPU seconds of the machine's busy time not spent by the three processes
    creation: Creation
    first_bind_after: float  # seconds from the window's start to the first binding

    @property
    def pods_per_second(self) -> float:
        return self.pods / self.seconds

    @property
    def ratio(self) -> float:
        return self.fake_cpu / self.scheduler_cpu if self.scheduler_cpu else float("inf")

    def saturated(self) -> str:
        """What ran out, as far as the figures tell (thresholds in the module docstring); ``-`` when
        nothing did (latency-bound)."""
        qps, _ = self.setting.effective()
        found = []
        if self.pods_per_second >= 0.8 * qps:
            found.append(f"client QPS {qps:g}")
        if self.scheduler_cpu / self.seconds >= 0.9:
            found.append("kube-scheduler CPU")
        if self.fake_cpu / self.seconds >= 0.9:
            found.append("fake CPU")
        if self.window == "stream" and self.pods_per_second >= 0.9 * self.creation.rate:
            found.append("feed")
        if self.machine_busy >= 0.9:
            found.append("machine")
        return ", ".join(found) or "-"


async def run_bench(scheduler: str, setting: ClientSetting, *, nodes: int, pods: int, window: str,
                    creators: int, content_type: str, verbosity: int, workdir: Path) -> RunResult:
    """One fresh fake and kube-scheduler; ``window`` is ``stream`` or ``backlog`` (see the docstring)."""
    sched_log = workdir / "kube-scheduler.log"
    with (workdir / "fake.log").open("wb") as fake_log:
        fake, url, kubeconfig = start_fake(workdir, fake_log)
    proc: subprocess.Popen[bytes] | None = None
    watching: asyncio.Task[None] | None = None

    def start() -> subprocess.Popen[bytes]:
        with sched_log.open("wb") as log:
            return start_scheduler(scheduler, kubeconfig, setting, content_type=content_type,
                                   verbosity=verbosity, workdir=workdir, log=log)

    try:
        connector = aiohttp.TCPConnector(limit=creators + 2)
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as session:
            await create_all(session, NODES_PATH, [node_body(f"node-{i:03d}") for i in range(nodes)], creators)
            bodies = [pod_body(f"pod-{i:05d}") for i in range(pods)]
            names = {b["metadata"]["name"] for b in bodies}
            watch = BindWatch(session)
            if window == "stream":
                proc = start()
                watching = await watch.start()
                await create_all(session, PODS_PATH, [pod_body("probe")], 1)
                await watch.wait_for({"probe"}, proc, sched_log)
                busy0 = _machine_ticks()
                t0, cpu0 = time.perf_counter(), (_cpu_seconds(fake.pid), _cpu_seconds(proc.pid), _self_cpu())
                watch.first_at = None  # the probe's binding is not the window's
                creation = await create_all(session, PODS_PATH, bodies, creators)
            else:
                creation = await create_all(session, PODS_PATH, bodies, creators)
                watching = await watch.start()
                busy0 = _machine_ticks()
                t0, fake0, self0 = time.perf_counter(), _cpu_seconds(fake.pid), _self_cpu()
                proc = start()
                cpu0 = (fake0, 0.0, self0)  # the scheduler's whole life is inside the window
            await watch.wait_for(names, proc, sched_log)
            cpu1 = (_cpu_seconds(fake.pid), _cpu_seconds(proc.pid), _self_cpu())
            busy1 = _machine_ticks()
            assert watch.first_at is not None
            ours = sum(cpu1) - sum(cpu0)
            return RunResult(
                setting=setting, window=window, pods=pods, seconds=watch.last_at - t0,
                fake_cpu=cpu1[0] - cpu0[0], scheduler_cpu=cpu1[1] - cpu0[1], self_cpu=cpu1[2] - cpu0[2],
                machine_busy=(busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]),
                other_cpu=max(0.0, (busy1[0] - busy0[0]) / os.sysconf("SC_CLK_TCK") - ours),
                creation=creation, first_bind_after=watch.first_at - t0,
            )
    finally:
        if watching is not None:
            watching.cancel()
        if proc is not None:
            stop_process(proc)
        stop_process(fake)


# ---------------------------------------------------------------------------- output

def print_table(results: list[RunResult]) -> None:
    print(f"{'client qps/burst':<19}{'pods/s':>7}{'wall s':>8}{'1st bind':>9}  {'fake CPU s':>13}  "
          f"{'sched CPU s':>13}  {'fake/sched':>10}  {'bench CPU s':>13}  {'machine':>7}  {'others CPU s':>13}  "
          f"{'creates/s':>9}  "
          f"{'creator CPU s':>13}  saturated")
    for r in results:
        c = r.creation

        def util(cpu: float, wall: float) -> str:
            return f"{cpu:6.2f} ({cpu / wall:4.0%})"

        mark = "ok" if r.ratio <= TARGET_RATIO else "  "
        print(f"{r.setting.label():<19}{r.pods_per_second:7.0f}{r.seconds:8.2f}{r.first_bind_after:8.2f}s  "
              f"{util(r.fake_cpu, r.seconds):>13}  {util(r.scheduler_cpu, r.seconds):>13}  {r.ratio:7.2f} {mark}  "
              f"{util(r.self_cpu, r.seconds):>13}  {r.machine_busy:7.0%}  {util(r.other_cpu, r.seconds):>13}  "
              f"{c.rate:9.0f}  "
              f"{util(c.cpu, c.seconds):>13}  {r.saturated()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    env = [p for p in os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER", "").split(":") if p]
    parser.add_argument("--scheduler", default=env[0] if env else "",
                        help="kube-scheduler binary (default: first of $SCHEDHARNESS_KUBE_SCHEDULER)")
    parser.add_argument("--nodes", type=int, default=500, help="nodes (default 500; issue 2's case: 100)")
    parser.add_argument("--pods", type=int, default=5000, help="pods (default 5000; issue 2's case: 1000)")
    parser.add_argument("--qps", type=parse_client_setting, nargs="+", metavar="default|QPS[/BURST]",
                        default=[ClientSetting(), ClientSetting(5000, 10000)],
                        help="kube-scheduler client settings, one run each; 'default' leaves kube-scheduler's "
                             "own (50/100); QPS alone means burst 2*QPS (default: default 5000/10000)")
    parser.add_argument("--window", choices=("stream", "backlog"), default="stream",
                        help="stream: pods created while the scheduler binds them, the window covers both "
                             "(default); backlog: pods created first, the window covers scheduling only")
    parser.add_argument("--creators", type=int, default=16, help="concurrent pod-creating clients (default 16)")
    parser.add_argument("--content-type", choices=("json", "protobuf"), default="json",
                        help="kube-scheduler's clientConnection.contentType (default json; protobuf is its own)")
    parser.add_argument("-v", "--verbosity", type=int, default=2, help="kube-scheduler -v (default 2)")
    parser.add_argument("--keep", action="store_true", help="keep the work directories (kubeconfig, config, logs)")
    args = parser.parse_args(argv)
    if not args.scheduler or not os.access(args.scheduler, os.X_OK):
        parser.error("set SCHEDHARNESS_KUBE_SCHEDULER or pass --scheduler PATH (an executable kube-scheduler)")
    if args.nodes < 1 or args.pods < 1 or args.creators < 1:
        parser.error("--nodes, --pods and --creators: at least 1")
    content_type = {"json": "application/json", "protobuf": "application/vnd.kubernetes.protobuf"}[args.content_type]
    version = subprocess.run([args.scheduler, "--version"], capture_output=True, text=True).stdout.strip()
    covers = ("pod creation and scheduling (pods created while kube-scheduler binds them)" if args.window == "stream"
              else "kube-scheduler's start-up and scheduling, not pod creation (pods created beforehand)")
    print(f"{version} through schedharness serve: {args.pods} pods on {args.nodes} nodes, -v={args.verbosity}, "
          f"contentType {content_type}, {args.creators} creators; kube-scheduler's default client qps/burst: "
          f"{DEFAULT_QPS:g}/{DEFAULT_BURST}")
    print(f"window ({args.window}): {covers}", flush=True)
    results = []
    for setting in args.qps:
        tmp = Path(tempfile.mkdtemp(prefix="schedharness-bench-"))
        try:
            results.append(asyncio.run(run_bench(
                args.scheduler, setting, nodes=args.nodes, pods=args.pods, window=args.window,
                creators=args.creators, content_type=content_type, verbosity=args.verbosity, workdir=tmp)))
        finally:
            if args.keep:
                print(f"  work directory: {tmp}")
            else:
                shutil.rmtree(tmp)
        r = results[-1]
        print(f"  {setting.label()}: {r.pods_per_second:.0f} pods/s, fake/sched CPU {r.ratio:.2f}", flush=True)
    print()
    print_table(results)
    print(f"\nCPU s (utilisation = CPU s / window wall s; 100% = one core). fake/sched: target <= {TARGET_RATIO}, "
          f"'ok' when met. machine: busy share of all {os.cpu_count()} cores; others: the part of it no process "
          f"of the bench spent (other work on the machine). bench: this "
          f"process over the window ({'the creators and ' if args.window == 'stream' else ''}the bind watch). "
          f"creates/s, creator CPU s: over the creation alone"
          f"{'' if args.window == 'stream' else ', before the window'}. Reference: "
          f"{REFERENCE_PODS_PER_SECOND:.0f} pods/s through a real kube-apiserver (1,000 pods, 100 nodes).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
