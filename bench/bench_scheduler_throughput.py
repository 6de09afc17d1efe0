"""A real kube-scheduler's throughput through the fake: ``python bench/bench_scheduler_throughput.py``.

Issue 2 asks that a real kube-scheduler schedule at least as fast through the fake as through a
real kube-apiserver: on a 2-core machine a real kube-scheduler v1.35 schedules 1,000 pods on 100
nodes through kube-apiserver v1.36 with etcd at about 210 pods/s.

The binary comes from ``SCHEDHARNESS_KUBE_SCHEDULER`` (the first path if it lists several, or
``--scheduler PATH``). The fake runs in this process on a real-time event loop
(``FakeApiServer(taint_not_ready_nodes=False)``, the journal on as always), the scheduler as a
subprocess with ``clientConnection.contentType: application/json``, ``leaderElect: false`` and
``--secure-port=0``.

1. 100 ready nodes (4 cpu, 32Gi, 110 pods) are created in the store, then the scheduler starts.
2. Readiness: a probe pod is bound (the scheduler binds only after every informer synced).
3. The clock starts; 1,000 pods (100m cpu, 500Mi, as scheduler_perf's default pod) are created
   in the store at once, a backlog the scheduler drains.
4. The clock stops when the fake has answered the 1,000th ``POST pods/<name>/binding`` with 201.

Printed: pods/s, the wall time, the CPU seconds of the fake (this process) and of the scheduler,
and the ratio to the reference figure. The scheduler's client QPS and burst default to 5000
(``--qps``): at kube-scheduler's default 50 QPS its one client, which sends every binding and
every status patch, caps throughput near 50 pods/s whatever the server does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_apiserver import FakeApiServer, KindSpec, RequestInfo, by_resource  # noqa: E402
from fake_apiserver._endpoints.request import Handler  # noqa: E402

__all__ = ["main", "run_bench"]

REFERENCE_PODS_PER_SECOND = 210.0
NAMESPACE = "default"
SAFETY_TIMEOUT = 600.0  # seconds; only a hang reaches it


def _kind(group: str, version: str, resource: str) -> KindSpec:
    spec = by_resource(group, version, resource)
    assert spec is not None, resource
    return spec


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


class BindingCounter:
    """An interceptor that counts bindings answered 201 and wakes the bench at a target."""

    def __init__(self) -> None:
        self.count = 0
        self.target = -1
        self.reached = asyncio.Event()

    async def __call__(self, info: RequestInfo, request: web.Request, call_next: Handler) -> web.StreamResponse:
        response = await call_next(info, request)
        if info.subresource == "binding" and response.status == 201:
            self.count += 1
            if self.count == self.target:
                self.reached.set()
        return response

    async def wait_for(self, total: int) -> None:
        self.target = total
        self.reached.clear()
        if self.count >= total:
            return
        await asyncio.wait_for(self.reached.wait(), SAFETY_TIMEOUT)


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


async def run_bench(scheduler: str, *, nodes: int, pods: int, qps: int, verbosity: int, workdir: Path) -> dict[str, float]:
    counter = BindingCounter()
    server = FakeApiServer(taint_not_ready_nodes=False, interceptors=[counter])
    await server.start()
    log = workdir / "kube-scheduler.log"
    proc: subprocess.Popen[bytes] | None = None
    try:
        kubeconfig = server.write_kubeconfig(workdir / "kubeconfig")
        config = workdir / "kube-scheduler.yaml"
        config.write_text(
            "apiVersion: kubescheduler.config.k8s.io/v1\n"
            "kind: KubeSchedulerConfiguration\n"
            f"clientConnection: {{kubeconfig: {kubeconfig}, contentType: application/json, qps: {qps}, burst: {qps}}}\n"
            "leaderElection: {leaderElect: false}\n"
        )
        for i in range(nodes):
            server.store.create(NODES, None, node_body(f"node-{i:03d}"))
        with log.open("wb") as out:
            proc = subprocess.Popen([scheduler, f"--config={config}", "--secure-port=0", f"-v={verbosity}"],
                                    stdout=out, stderr=subprocess.STDOUT)
        server.store.create(PODS, NAMESPACE, pod_body("probe"))
        await counter.wait_for(1)
        cpu_server, cpu_sched = _self_cpu(), _cpu_seconds(proc.pid)
        start = time.perf_counter()
        for i in range(pods):
            server.store.create(PODS, NAMESPACE, pod_body(f"pod-{i:04d}"))
        await counter.wait_for(pods + 1)
        elapsed = time.perf_counter() - start
        return {
            "pods_per_second": pods / elapsed,
            "seconds": elapsed,
            "server_cpu": _self_cpu() - cpu_server,
            "scheduler_cpu": _cpu_seconds(proc.pid) - cpu_sched,
        }
    except asyncio.TimeoutError:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"bindings stalled at {counter.count}; kube-scheduler log tail:\n{tail}") from None
    finally:
        if proc is not None:
            stop_process(proc)
        await server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    env = [p for p in os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER", "").split(":") if p]
    parser.add_argument("--scheduler", default=env[0] if env else "",
                        help="kube-scheduler binary (default: first of $SCHEDHARNESS_KUBE_SCHEDULER)")
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--qps", type=int, default=5000, help="scheduler client QPS and burst (default 5000)")
    parser.add_argument("-v", "--verbosity", type=int, default=2, help="kube-scheduler -v (default 2)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (kubeconfig, config, log)")
    args = parser.parse_args(argv)
    if not args.scheduler or not os.access(args.scheduler, os.X_OK):
        parser.error("set SCHEDHARNESS_KUBE_SCHEDULER or pass --scheduler PATH (an executable kube-scheduler)")
    version = subprocess.run([args.scheduler, "--version"], capture_output=True, text=True).stdout.strip()
    workdir = Path(tempfile.mkdtemp(prefix="schedharness-bench-"))
    result = asyncio.run(run_bench(args.scheduler, nodes=args.nodes, pods=args.pods, qps=args.qps,
                                   verbosity=args.verbosity, workdir=workdir))
    print(f"{version} (qps/burst {args.qps}, -v={args.verbosity}): {args.pods} pods on {args.nodes} nodes "
          f"in {result['seconds']:.2f} s")
    print(f"  {result['pods_per_second']:.0f} pods/s through the fake "
          f"({result['pods_per_second'] / REFERENCE_PODS_PER_SECOND:.2f}x the {REFERENCE_PODS_PER_SECOND:.0f} pods/s "
          "of a real kube-apiserver on a 2-core machine)")
    print(f"  CPU seconds: fake {result['server_cpu']:.2f}, kube-scheduler {result['scheduler_cpu']:.2f}")
    if args.keep:
        print(f"  work directory: {workdir}")
    else:
        for path in workdir.iterdir():
            path.unlink()
        workdir.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
