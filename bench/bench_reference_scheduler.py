"""KEP-5501 at scale: ``python bench/bench_reference_scheduler.py [--pods N] [--nodes N]``.

10,000 pods rejected by a PreEnqueue plugin with a stable message, 1,000 nodes, 60 virtual
seconds of the reference scheduler against the fake API server. Every pod is touched (a label
change, which re-runs PreEnqueue) at t=20 and t=40, so de-duplication is exercised, not just the
first report (``--mutant no-dedup`` shows 3 per pod). Status PATCHes are counted per pod by an interceptor on the server. Target: exactly
1 status PATCH per pod (and one ``NotReadyForScheduling`` event); wall time is printed.
Objects are created through the server's store (in-process, no HTTP) to keep setup out of the
measurement; everything the scheduler does goes over HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_apiserver import FakeApiServer, RequestInfo, by_resource  # noqa: E402
from harness._time.virtual_time import VirtualClock, run  # noqa: E402
from reference_scheduler import ClusterEvent, Scheduler  # noqa: E402

__all__ = ["StableReject", "scenario", "main"]

MESSAGE = "waiting for the bench quota to be granted"
PODS = by_resource("", "v1", "pods")
NODES = by_resource("", "v1", "nodes")


class StableReject:
    """Rejects every pod labelled ``bench=reject`` with one stable message."""

    name = "StableReject"
    events: frozenset[str] = frozenset()

    def pre_enqueue(self, pod: dict[str, Any]) -> str | None:
        return MESSAGE if (pod["metadata"].get("labels") or {}).get("bench") == "reject" else None

    def requeue_on(self, event: ClusterEvent, pod: dict[str, Any]) -> bool:
        return False


async def scenario(pods: int, nodes: int, duration: float, mutant: str | None = None) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    clock = VirtualClock(loop)
    patches: Counter[str] = Counter()
    events: Counter[str] = Counter()

    async def count(info: RequestInfo, request: web.Request, call_next: Any) -> web.StreamResponse:
        if info.verb == "patch" and info.resource == "pods" and info.subresource == "status":
            patches[info.name] += 1
        elif info.verb == "create" and info.resource == "events":
            events[json.loads(info.body)["reason"]] += 1
        return await call_next(info, request)

    assert PODS is not None and NODES is not None
    async with FakeApiServer(clock=clock, taint_not_ready_nodes=False, interceptors=[count],
                             history=4 * pods + nodes + 100) as server:
        store = server.store
        for i in range(nodes):
            store.create(NODES, None, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i:04d}"},
                                       "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"}}})
        for i in range(pods):
            store.create(PODS, "default", {"apiVersion": "v1", "kind": "Pod",
                                           "metadata": {"name": f"pod-{i:05d}", "labels": {"bench": "reject"}},
                                           "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}})
        wall = time.perf_counter()
        scheduler = Scheduler(server.kubeconfig, clock=clock, pre_enqueue=[StableReject()], mutant=mutant)
        await scheduler.start()
        for touch in (20.0, 40.0):
            await asyncio.sleep(touch - loop.time())
            for i in range(pods):
                body = json.dumps({"metadata": {"labels": {"touched": str(int(touch))}}}).encode()
                store.patch(PODS, "default", f"pod-{i:05d}", body, "application/merge-patch+json")
        await asyncio.sleep(duration - loop.time())
        runs = scheduler.queue.pre_enqueue_runs
        await scheduler.stop()
        wall = time.perf_counter() - wall
    per_pod = Counter(patches[f"pod-{i:05d}"] for i in range(pods))
    return {"pods": pods, "nodes": nodes, "virtual_seconds": duration, "status_patches": sum(patches.values()),
            "patches_per_pod": dict(sorted(per_pod.items())), "events": dict(events), "pre_enqueue_runs": runs,
            "wall_seconds": round(wall, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=1_000)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--mutant", default=None, help="run a broken variant instead (e.g. no-dedup: 3 per pod)")
    args = parser.parse_args(argv)
    result = run(scenario(args.pods, args.nodes, args.duration, args.mutant))
    for key, value in result.items():
        print(f"{key}: {value}")
    ok = result["patches_per_pod"] == {1: args.pods}
    print("target (exactly 1 status PATCH per pod):", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
