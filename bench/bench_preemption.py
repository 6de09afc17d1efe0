"""Preemption at scale through the fake: ``python bench/bench_preemption.py``.

Issue 13's workload: 100 full nodes, 1,000 high-priority pods that each must preempt.

1. PriorityClasses ``bench-low`` (10) and ``bench-high`` (1000); 100 ready nodes of 10 cpu, each
   running ten 1-cpu ``bench-low`` pods (bound by ``spec.nodeName``, grace period 0, so a victim's
   delete removes it at once: no kubelet is needed and the figure is the scheduler's alone).
2. The scheduler starts (a subprocess on real time, ``--qps`` 5000); readiness as in
   ``bench_scheduler_throughput.py``: the fake answers a first binding (here of the first
   preemptor, created alone).
3. The clock starts; the 999 other ``bench-high`` pods (1 cpu) are created at once.
4. The clock stops when the fake has answered the 1,000th preemptor's binding with 201.

Printed for each scheduler: preemptors bound per second, the wall time, the victims the scheduler
deleted, and CPU seconds of the fake and the scheduler. The reference scheduler always runs
(``python -m reference_scheduler scheduler``); kube-scheduler too when ``SCHEDHARNESS_KUBE_SCHEDULER``
names one (or ``--kube-scheduler PATH``), on the same workload, printed beside it.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scheduler_throughput import NODES, PODS, _cpu_seconds, _kind, _self_cpu, node_body, stop_process  # noqa: E402
from fake_apiserver import FakeApiServer, RequestInfo  # noqa: E402
from fake_apiserver._endpoints.request import Handler  # noqa: E402

NAMESPACE = "default"
PRIORITY_CLASSES = _kind("scheduling.k8s.io", "v1", "priorityclasses")
SAFETY_TIMEOUT = 900.0  # seconds; only a hang reaches it


def pod_body(name: str, priority_class: str, node: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "priorityClassName": priority_class, "terminationGracePeriodSeconds": 0,
        "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                        "resources": {"requests": {"cpu": "1", "memory": "100Mi"}}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}


class Counter:
    """Counts preemptors' bindings answered 201 and the deletes of victims."""

    def __init__(self) -> None:
        self.bound = 0
        self.deleted = 0
        self.target = -1
        self.reached = asyncio.Event()

    async def __call__(self, info: RequestInfo, request: web.Request, call_next: Handler) -> web.StreamResponse:
        response = await call_next(info, request)
        if response.status < 300 and info.resource == "pods":
            if info.subresource == "binding" and info.name.startswith("high-"):
                self.bound += 1
                if self.bound == self.target:
                    self.reached.set()
            elif info.verb == "delete" and info.name.startswith("low-"):
                self.deleted += 1
        return response

    async def wait_for(self, total: int) -> None:
        self.target = total
        self.reached.clear()
        if self.bound < total:
            await asyncio.wait_for(self.reached.wait(), SAFETY_TIMEOUT)


async def run_one(name: str, argv: list[str], *, nodes: int, per_node: int, workdir: Path) -> dict[str, float]:
    counter = Counter()
    server = FakeApiServer(taint_not_ready_nodes=False, interceptors=[counter])
    await server.start()
    log = workdir / f"{name}.log"
    proc: subprocess.Popen[bytes] | None = None
    try:
        kubeconfig = server.write_kubeconfig(workdir / "kubeconfig")
        config = workdir / "kube-scheduler.yaml"
        config.write_text(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            f"clientConnection: {{kubeconfig: {kubeconfig}, contentType: application/json, qps: 5000, burst: 5000}}\n"
            "leaderElection: {leaderElect: false}\n")
        store = server.store
        store.create(PRIORITY_CLASSES, None, {"metadata": {"name": "bench-low"}, "value": 10})
        store.create(PRIORITY_CLASSES, None, {"metadata": {"name": "bench-high"}, "value": 1000})
        for n in range(nodes):
            store.create(NODES, None, node_body(f"node-{n:03d}", cpu="10", memory="64Gi"))
            for i in range(per_node):
                store.create(PODS, NAMESPACE, pod_body(f"low-{n:03d}-{i:02d}", "bench-low", f"node-{n:03d}"))
        command = [a.replace("{kubeconfig}", str(kubeconfig)).replace("{config}", str(config)) for a in argv]
        with log.open("wb") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        total = nodes * per_node
        store.create(PODS, NAMESPACE, pod_body("high-0000", "bench-high"))
        await counter.wait_for(1)
        cpu_server, cpu_sched = _self_cpu(), _cpu_seconds(proc.pid)
        start = time.perf_counter()
        for i in range(1, total):
            store.create(PODS, NAMESPACE, pod_body(f"high-{i:04d}", "bench-high"))
        await counter.wait_for(total)
        elapsed = time.perf_counter() - start
        return {"pods_per_second": (total - 1) / elapsed, "seconds": elapsed, "victims": counter.deleted,
                "server_cpu": _self_cpu() - cpu_server, "scheduler_cpu": _cpu_seconds(proc.pid) - cpu_sched}
    except asyncio.TimeoutError:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise SystemExit(f"{name}: bindings stalled at {counter.bound}; log tail:\n{tail}") from None
    finally:
        if proc is not None:
            stop_process(proc)
        await server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    env = [p for p in os.environ.get("SCHEDHARNESS_KUBE_SCHEDULER", "").split(":") if p]
    parser.add_argument("--kube-scheduler", default=env[0] if env else "",
                        help="kube-scheduler binary (default: first of $SCHEDHARNESS_KUBE_SCHEDULER; none: reference only)")
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--per-node", type=int, default=10, help="victims per node, one cpu each (default 10)")
    args = parser.parse_args(argv)
    if args.kube_scheduler and not os.access(args.kube_scheduler, os.X_OK):
        parser.error(f"--kube-scheduler {args.kube_scheduler}: not an executable file")
    runs = [("reference", [sys.executable, "-m", "reference_scheduler", "scheduler", "--kubeconfig", "{kubeconfig}"])]
    if args.kube_scheduler:
        version = subprocess.run([args.kube_scheduler, "--version"], capture_output=True, text=True).stdout.strip()
        runs.append((f"kube-scheduler {version}",
                     [args.kube_scheduler, "--config={config}", "--secure-port=0", "-v=1"]))
    total = args.nodes * args.per_node
    print(f"{total} high-priority pods preempting on {args.nodes} full nodes ({args.per_node} low-priority 1-cpu pods each)")
    for name, command in runs:
        with tempfile.TemporaryDirectory(prefix="schedharness-bench-") as workdir:
            r = asyncio.run(run_one(name, command, nodes=args.nodes, per_node=args.per_node, workdir=Path(workdir)))
        print(f"  {name}: {r['pods_per_second']:.1f} preemptors bound/s ({r['seconds']:.2f} s), "
              f"{r['victims']:.0f} victims deleted; CPU s: fake {r['server_cpu']:.2f}, scheduler {r['scheduler_cpu']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
