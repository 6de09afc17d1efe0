"""Schedulers for the tests only, not schedulers under test: scaffolding that binds pods so that a
test of the harness has something to watch. :func:`first_fit_scheduler` runs on the test's loop
(its source is also written into the pytest plugin tests' conftest); :data:`BIND_FIRST_NODE` is a
script run as a process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["BIND_FIRST_NODE", "first_fit_scheduler"]


async def first_fit_scheduler(kubeconfig_path: Path, feature_gates: dict[str, bool]) -> None:
    """Test scaffolding, not a scheduler under test: binds each pending, ungated pod to the first
    node (by name) that is schedulable, untainted (or tolerated), matches its nodeSelector and has
    the CPU; otherwise patches ``PodScheduled=False/Unschedulable`` once per message. Re-evaluates
    everything on every pod or node watch event. Self-contained (imports inside) so that the
    plugin tests can write its source into a conftest."""
    import asyncio
    import json
    import logging

    import aiohttp
    import yaml

    log = logging.getLogger("schedharness.scheduler")
    config = yaml.safe_load(Path(kubeconfig_path).read_text())
    url = config["clusters"][0]["cluster"]["server"]
    wake = asyncio.Event()

    def millicpu(value: str) -> int:
        return int(value[:-1]) if value.endswith("m") else int(float(value) * 1000)

    def cpu_request(pod: dict[str, Any]) -> int:
        return sum(millicpu(c.get("resources", {}).get("requests", {}).get("cpu", "0"))
                   for c in pod["spec"]["containers"])

    def fits(pod: dict[str, Any], node: dict[str, Any]) -> bool:
        tolerated = {t.get("key") for t in pod["spec"].get("tolerations") or []}
        labels = node["metadata"].get("labels", {})
        return (not node["spec"].get("unschedulable")
                and all(t["key"] in tolerated for t in node["spec"].get("taints") or [])
                and all(labels.get(k) == v for k, v in (pod["spec"].get("nodeSelector") or {}).items()))

    async with aiohttp.ClientSession(url) as client:
        async def watch(path: str) -> None:
            while True:
                async with client.get(path) as r:
                    rv = (await r.json())["metadata"]["resourceVersion"]
                wake.set()
                async with client.get(path, params={"watch": "1", "resourceVersion": rv}) as r:
                    async for _ in r.content:
                        wake.set()

        watchers = [asyncio.create_task(watch("/api/v1/pods")), asyncio.create_task(watch("/api/v1/nodes"))]
        reported: dict[str, str] = {}
        try:
            while True:
                await wake.wait()
                wake.clear()
                async with client.get("/api/v1/nodes") as r:
                    nodes = sorted((await r.json())["items"], key=lambda n: n["metadata"]["name"])
                async with client.get("/api/v1/pods") as r:
                    pods = sorted((await r.json())["items"], key=lambda p: p["metadata"]["name"])
                free = {n["metadata"]["name"]: millicpu(n["status"]["allocatable"]["cpu"]) for n in nodes}
                for pod in pods:
                    if pod["spec"].get("nodeName") in free:
                        free[pod["spec"]["nodeName"]] -= cpu_request(pod)
                for pod in pods:
                    meta, spec = pod["metadata"], pod["spec"]
                    if spec.get("nodeName") or spec.get("schedulingGates") or meta.get("deletionTimestamp"):
                        continue
                    need = cpu_request(pod)
                    node = next((n for n in nodes if fits(pod, n) and free[n["metadata"]["name"]] >= need), None)
                    path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}"
                    if node is not None:
                        name = node["metadata"]["name"]
                        binding = {"apiVersion": "v1", "kind": "Binding",
                                   "metadata": {"name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"]},
                                   "target": {"kind": "Node", "name": name}}
                        async with client.post(f"{path}/binding", json=binding) as r:
                            if r.status < 300:
                                free[name] -= need
                                log.info("bound %s/%s to %s", meta["namespace"], meta["name"], name)
                        continue
                    message = f"0/{len(nodes)} nodes are available: {len(nodes)} Insufficient cpu."
                    if reported.get(meta["uid"]) == message:
                        continue
                    body = {"status": {"conditions": [{"type": "PodScheduled", "status": "False",
                                                       "reason": "Unschedulable", "message": message}]}}
                    async with client.patch(f"{path}/status", data=json.dumps(body),
                                            headers={"Content-Type": "application/strategic-merge-patch+json"}) as r:
                        if r.status < 300:
                            reported[meta["uid"]] = message
        finally:
            for task in watchers:
                task.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)


# A scheduler in another process, for the tests only: binds every pending pod to the first node.
BIND_FIRST_NODE = r'''
import asyncio, os, signal, sys
import aiohttp, yaml

def main() -> None:
    args = dict(a.split("=", 1) for a in sys.argv[1:])
    if "--config" in args:
        config = yaml.safe_load(open(args["--config"]))
        print("config", config["clientConnection"].get("contentType", "default"), config["leaderElection"], flush=True)
        args["--kubeconfig"] = config["clientConnection"]["kubeconfig"]
    print("feature gates:", args.get("--feature-gates", ""), flush=True)
    if args.get("--mode") == "exit":
        print("giving up", flush=True)
        sys.exit(3)
    if args.get("--mode") == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    url = yaml.safe_load(open(args["--kubeconfig"]))["clusters"][0]["cluster"]["server"]
    asyncio.run(schedule(url, args.get("--mode", "")))

async def schedule(url: str, mode: str) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    if mode != "stubborn":
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with aiohttp.ClientSession(url) as client:
        async def run() -> None:
            async with client.get("/api/v1/pods") as r:
                rv = (await r.json())["metadata"]["resourceVersion"]
            await reconcile()
            async with client.get("/api/v1/pods", params={"watch": "1", "resourceVersion": rv}) as r:
                async for line in r.content:
                    if mode == "crash-on-pod" and b'"name":"crash"' in line:
                        print("crashing", flush=True)
                        os._exit(5)
                    await reconcile()

        async def reconcile() -> None:
            if mode == "idle":
                return
            async with client.get("/api/v1/nodes") as nr:
                nodes = sorted(n["metadata"]["name"] for n in (await nr.json())["items"])
            async with client.get("/api/v1/pods") as pr:
                pods = (await pr.json())["items"]
            for pod in pods:
                meta = pod["metadata"]
                if pod["spec"].get("nodeName") or not nodes:
                    continue
                if mode == "crash-on-pod" and meta["name"] == "crash":
                    continue  # it crashes on its watch event, whichever it sees first
                binding = {"apiVersion": "v1", "kind": "Binding",
                           "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                           "target": {"kind": "Node", "name": nodes[0]}}
                path = f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}/binding"
                async with client.post(path, json=binding) as br:
                    if br.status == 201:
                        print(f"bound {meta['namespace']}/{meta['name']} to {nodes[0]}", flush=True)
        task = asyncio.create_task(run())
        await asyncio.wait([task, asyncio.create_task(stop.wait())], return_when=asyncio.FIRST_COMPLETED)
        task.cancel()
    print("stopped", flush=True)

main()
'''
