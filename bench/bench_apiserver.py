"""Throughput of ``schedharness serve`` on real time: ``python bench/bench_apiserver.py``.

Issue 2 asks for requests per second for GET pod, create pod and the scheduler's strategic-merge
status PATCH, and for watch events per second fanned out to 10 watchers, each driven by 16
concurrent aiohttp clients, next to what a real kube-apiserver v1.36 with etcd serves on the same
kind of 2-core machine driven the same way (about 1,150 GET/s, 495 creates/s and 374 status
PATCHes/s; the aim is three times that).

The server runs as ``schedharness serve --ready-nodes`` in a child process (its own core, real
time, the journal on as always), and the clients in this one, over loopback. Every phase is a
fixed number of requests, so a run is bounded:

0. ``floor`` (``--floor``): ``GET /healthz``, which reaches no resource: what any request costs
   the server (HTTP, routing, the journal), the part of every other figure no store work explains.
1. ``create``: POST ``N`` pods into namespace ``default``.
2. ``get``: GET those pods round-robin.
3. ``patch``: PATCH ``pods/<name>/status`` with the body kube-scheduler sends for an unschedulable
   pod (``util.PatchPodStatus``: a two-way strategic merge patch with ``$setElementOrder``), each
   with a new message so that every patch is a real write and fans out a MODIFIED event.
4. ``watch``: 10 streaming ``GET ...?watch=1`` from the current resourceVersion; 16 writers create
   and status-patch pods; the rate is the events all watchers received divided by the time from
   the first write to the last event received.

Every answer's status code is checked; the server's and this process's CPU time per phase are
shown too, to tell a saturated server (about 100 %) from a saturated client; the server's CPU
time per request (or per event delivered) is the figure to compare when other work shares the
machine. The clients run on uvloop, and the rate phases write their requests and parse the
answers themselves (:class:`Wire`, httptools), one kept-alive connection a client: aiohttp's
client cost this process more per GET than the fake spends answering it, so its core saturated
first and the GET figure was the client's. The watch phase reads its streams with aiohttp.
``--profile PATH`` runs the server under ``cProfile`` and writes its stats there;
``--url URL`` drives a server that is already running instead of starting one.

``--real-kubeconfig PATH`` also drives a real kube-apiserver (the kubeconfig's server, bearer
token and TLS settings; pods go to namespace ``default`` under a fresh name prefix and are deleted
afterwards) through the same create, GET and status-PATCH phases in the same run, and the ratios
are taken against those figures instead of the recorded ones. ``--real-envtest`` starts one for the
run instead: etcd and kube-apiserver from ``$KUBEBUILDER_ASSETS`` (or ``--envtest-assets``), as
``--backend envtest`` starts them (ServiceAccount admission on, so namespace ``default`` gets its
``default`` ServiceAccount first), and the fake then serves as that binary's release. The fake's per-request cost of
decoding and validating the bodies it is sent (JSON parse, kind checks, typed decoding and field
validation against the schemas) is measured in this process and printed below the table.

``--rounds K`` drives each server K times, alternately (fake then real, then real then fake, ...),
and sums each phase's requests, seconds and CPU seconds over the rounds: on a shared machine whose
speed drifts over minutes, the fake driven first and the real after would each meet a different
machine, where alternated rounds meet the same drift. Each round's ratio is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

import aiohttp
import httptools
from yarl import URL

from fake_apiserver import RequestInfo, Store, by_resource
from fake_apiserver._endpoints.decoding import decode_object  # the edge's decoding step, timed alone
from fake_apiserver._machinery.fieldvalidation import FieldValidation
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets

__all__ = ["main", "run_bench", "Result"]

ROOT = Path(__file__).resolve().parents[1]
CONCURRENCY = 16
WATCHERS = 10
NAMESPACE = "default"
SMP = "application/strategic-merge-patch+json"
# What a real kube-apiserver v1.36 with etcd serves on a 2-core machine, driven the same way.
REFERENCE = {"get": 1150.0, "create": 495.0, "patch": 374.0}
UNSCHEDULABLE = (
    "0/100 nodes are available: 100 Insufficient cpu. preemption: 0/100 nodes are available: "
    "100 No preemption victims found for incoming pod."
)


def pod_body(name: str, label: str = "bench") -> dict[str, Any]:
    """A pod like the ones scheduler_perf creates: one container with requests."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"app": label}},
        "spec": {
            "containers": [{
                "name": "pause",
                "image": "registry.k8s.io/pause:3.10",
                "resources": {"requests": {"cpu": "100m", "memory": "500Mi"},
                              "limits": {"cpu": "100m", "memory": "500Mi"}},
            }],
        },
    }


def unschedulable_patch(attempt: int) -> bytes:
    """kube-scheduler's status patch for an unschedulable pod, byte for byte as Go marshals it
    (sorted keys, no spaces); ``attempt`` varies the message so each patch changes the pod."""
    condition = {
        "lastProbeTime": None,
        "lastTransitionTime": "2025-01-01T00:00:00Z",
        "message": f"{UNSCHEDULABLE} attempt {attempt}",
        "reason": "Unschedulable",
        "status": "False",
        "type": "PodScheduled",
    }
    patch = {"status": {"$setElementOrder/conditions": [{"type": "PodScheduled"}], "conditions": [condition]}}
    return json.dumps(patch, separators=(",", ":")).encode()


@dataclass
class Result:
    name: str
    unit: str
    count: int
    seconds: float
    server_cpu: float
    client_cpu: float

    @property
    def rate(self) -> float:
        return self.count / self.seconds if self.seconds > 0 else 0.0


def _cpu_seconds(pid: int | None) -> float:
    """User plus system CPU seconds of a process (this one when ``pid`` is None)."""
    if pid is None:
        t = os.times()
        return t.user + t.system
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Wire:
    """One kept-alive HTTP/1.1 connection of a worker: each request written in one call, its answer
    parsed by httptools. The rate phases drive both servers through these rather than through
    aiohttp's client, whose own cost per request (about twice the fake's for a GET) saturated this
    process's core before the fake's was: the figures would have been the client's."""

    def __init__(self, url: str, headers: dict[str, str], verify_tls: bool | ssl.SSLContext) -> None:
        parsed = URL(url)
        self.host, self.port = parsed.host or "127.0.0.1", parsed.port or 443
        self.tls: ssl.SSLContext | None = None
        if parsed.scheme == "https":
            self.tls = verify_tls if isinstance(verify_tls, ssl.SSLContext) else ssl.create_default_context()
            if verify_tls is False:
                self.tls.check_hostname, self.tls.verify_mode = False, ssl.CERT_NONE
        fixed = {"Host": f"{self.host}:{self.port}", "User-Agent": "bench_apiserver", "Accept": "application/json",
                 **headers}
        self.fixed = "".join(f"{k}: {v}\r\n" for k, v in fixed.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.status = 0
        self.body: list[bytes] = []
        self.done = False
        self.keep = True
        self.parser: httptools.HttpResponseParser | None = None

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.done = True
        assert self.parser is not None
        self.keep = self.parser.should_keep_alive()  # asked after the message, the parser has forgotten

    async def request(self, method: str, path: str, body: bytes = b"", content_type: str = "") -> tuple[int, bytes]:
        if self.writer is None or self.reader is None or not self.keep:
            if self.writer is not None:
                self.writer.close()
            self.reader, self.writer = await asyncio.open_connection(
                self.host, self.port, ssl=self.tls, server_hostname=self.host if self.tls else None)
        typed = f"Content-Type: {content_type}\r\n" if content_type else ""
        head = f"{method} {path} HTTP/1.1\r\n{self.fixed}{typed}Content-Length: {len(body)}\r\n\r\n"
        self.writer.write(head.encode() + body)
        parser = self.parser = httptools.HttpResponseParser(self)
        self.body, self.done = [], False
        while not self.done:
            data = await self.reader.read(262144)
            if not data:
                raise RuntimeError(f"{method} {path}: the server closed the connection")
            parser.feed_data(data)
        return parser.get_status_code(), b"".join(self.body)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _pool(count: int, wires: list[Wire], work: Callable[[int, Wire], Awaitable[None]]) -> None:
    """Run ``work(0..count-1)`` on CONCURRENCY workers, each with its connection."""
    counter = iter(range(count))

    async def worker(wire: Wire) -> None:
        for i in counter:
            await work(i, wire)

    await asyncio.gather(*(worker(wire) for wire in wires))


def _expect(method: str, path: str, answer: tuple[int, bytes], code: int) -> None:
    status, body = answer
    if status != code:
        raise RuntimeError(f"{method} {path}: {status} (want {code}): {body[:300]!r}")


class Bench:
    def __init__(self, session: aiohttp.ClientSession, wires: list[Wire], server_pid: int | None,
                 label: str = "bench") -> None:
        self.session = session
        self.wires = wires
        self.server_pid = server_pid
        self.label = label
        self.results: list[Result] = []

    async def phase(self, name: str, unit: str, count: int, body: Callable[[], Awaitable[int]]) -> Result:
        pid = self.server_pid
        s0, c0, t0 = _cpu_seconds(pid) if pid else 0.0, _cpu_seconds(None), time.perf_counter()
        done = await body()
        seconds = time.perf_counter() - t0
        server_cpu = _cpu_seconds(pid) - s0 if pid else 0.0  # a server not started here: unknown
        result = Result(name, unit, done or count, seconds, server_cpu, _cpu_seconds(None) - c0)
        self.results.append(result)
        return result

    async def create(self, prefix: str, count: int) -> int:
        path = f"/api/v1/namespaces/{NAMESPACE}/pods"

        async def one(i: int, wire: Wire) -> None:
            data = json.dumps(pod_body(f"{prefix}-{i}", self.label), separators=(",", ":")).encode()
            _expect("POST", path, await wire.request("POST", path, data, "application/json"), 201)

        await _pool(count, self.wires, one)
        return count

    async def get(self, prefix: str, pods: int, count: int) -> int:
        async def one(i: int, wire: Wire) -> None:
            path = f"/api/v1/namespaces/{NAMESPACE}/pods/{prefix}-{i % pods}"
            _expect("GET", path, await wire.request("GET", path), 200)

        await _pool(count, self.wires, one)
        return count

    async def healthz(self, count: int) -> int:
        async def one(i: int, wire: Wire) -> None:
            _expect("GET", "/healthz", await wire.request("GET", "/healthz"), 200)

        await _pool(count, self.wires, one)
        return count

    async def patch(self, prefix: str, pods: int, count: int, first_attempt: int = 0) -> int:
        async def one(i: int, wire: Wire) -> None:
            path = f"/api/v1/namespaces/{NAMESPACE}/pods/{prefix}-{i % pods}/status"
            _expect("PATCH", path, await wire.request("PATCH", path, unschedulable_patch(first_attempt + i), SMP), 200)

        await _pool(count, self.wires, one)
        return count

    async def watch(self, writes: int) -> int:
        """10 watchers, ``writes`` writes (half creates, half status patches); all events received."""
        async with self.session.get(f"/api/v1/namespaces/{NAMESPACE}/pods", params={"limit": "1"}) as r:
            rv = (await r.json())["metadata"]["resourceVersion"]
        creates = writes // 2
        expected = WATCHERS * writes
        received = [0] * WATCHERS
        all_in = asyncio.Event()
        total = 0
        params = {"watch": "1", "resourceVersion": rv, "timeoutSeconds": "600"}
        streams = [await self.session.get(f"/api/v1/namespaces/{NAMESPACE}/pods", params=params)
                   for _ in range(WATCHERS)]

        async def read(i: int, stream: aiohttp.ClientResponse) -> None:
            nonlocal total
            async for chunk in stream.content.iter_any():
                n = chunk.count(b"\n")
                received[i] += n
                total += n
                if total >= expected:
                    all_in.set()

        readers = [asyncio.create_task(read(i, s)) for i, s in enumerate(streams)]
        try:
            await self.create("watch", creates)
            await self.patch("watch", creates, writes - creates, first_attempt=10**6)
            await asyncio.wait_for(all_in.wait(), 120)
        finally:
            for s in streams:
                s.close()
            for t in readers:
                t.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
        if total != expected:
            raise RuntimeError(f"watchers received {total} events, expected {expected}: {received}")
        return total


async def run_bench(url: str, server_pid: int | None, pods: int, gets: int, patches: int, writes: int,
                    *, headers: dict[str, str] | None = None, verify_tls: bool | ssl.SSLContext = True,
                    prefix: str = "bench", floor: int = 0) -> list[Result]:
    connector = aiohttp.TCPConnector(limit=CONCURRENCY + WATCHERS, ssl=verify_tls)
    wires = [Wire(url, headers or {}, verify_tls) for _ in range(CONCURRENCY)]
    async with aiohttp.ClientSession(url, connector=connector, headers=headers) as session:
        try:
            return await _run_phases(Bench(session, wires, server_pid, label=prefix), prefix, pods, gets, patches,
                                     writes, floor)
        finally:
            for wire in wires:
                wire.close()


async def _run_phases(bench: Bench, prefix: str, pods: int, gets: int, patches: int, writes: int,
                      floor: int) -> list[Result]:
    warm = f"{prefix}-warm"
    await bench.create(warm, 200)  # first requests pay for imports and caches
    await bench.get(warm, 200, 400)
    await bench.patch(warm, 200, 200)
    if floor:
        await bench.phase("GET /healthz", "req/s", floor, lambda: bench.healthz(floor))
    await bench.phase("create pod", "req/s", pods, lambda: bench.create(prefix, pods))
    if gets:
        await bench.phase("GET pod", "req/s", gets, lambda: bench.get(prefix, pods, gets))
    if patches:
        await bench.phase("SMP status PATCH", "req/s", patches, lambda: bench.patch(prefix, pods, patches))
    if writes:
        await bench.phase(f"watch events ({WATCHERS} watchers)", "events/s", WATCHERS * writes,
                          lambda: bench.watch(writes))
    return bench.results


def format_table(results: list[Result], real: list[Result] | None = None, *, compare: bool = True) -> str:
    """The fake's phases beside a real kube-apiserver's: measured in this run when ``real`` is
    given, else the recorded :data:`REFERENCE` figures; ``compare=False`` leaves both out."""
    keys = {"GET pod": "get", "create pod": "create", "SMP status PATCH": "patch", "GET /healthz": "healthz"}
    reference: dict[str, float] = {} if not compare else (
        REFERENCE if real is None else {keys[r.name]: r.rate for r in real if r.name in keys})
    column = "real apiserver" if real is None else "real apiserver (this run)"
    rows = [("phase", "count", "seconds", "rate", column, "ratio", "server CPU", "server CPU/op", "client CPU")]
    for r in results:
        ref = reference.get(keys.get(r.name, ""))
        rows.append((
            r.name, f"{r.count}", f"{r.seconds:.2f}", f"{r.rate:,.0f} {r.unit}",
            f"{ref:,.0f} {r.unit}" if ref else "-", f"{r.rate / ref:.2f}x" if ref else "-",
            f"{100 * r.server_cpu / r.seconds:.0f} %" if r.server_cpu else "-",
            f"{1e6 * r.server_cpu / r.count:.0f} us" if r.server_cpu else "-",
            f"{100 * r.client_cpu / r.seconds:.0f} %",
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _real_server(kubeconfig: Path) -> tuple[str, dict[str, str], bool | ssl.SSLContext]:
    """The current context's server URL, its bearer-token header and how to verify TLS (a context
    trusting the kubeconfig's CA where it names one)."""
    import yaml

    config = yaml.safe_load(kubeconfig.read_text())
    context_name = config.get("current-context")
    context = next(c["context"] for c in config["contexts"] if c["name"] == context_name)
    cluster = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
    user: dict[str, Any] = next((u["user"] for u in config.get("users", []) if u["name"] == context.get("user")), {})
    headers = {"Authorization": f"Bearer {user['token']}"} if user.get("token") else {}
    if cluster.get("insecure-skip-tls-verify", False):
        return cluster["server"], headers, False
    if cluster.get("certificate-authority-data"):
        ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
        return cluster["server"], headers, ssl.create_default_context(cadata=ca)
    if cluster.get("certificate-authority"):
        return cluster["server"], headers, ssl.create_default_context(cafile=cluster["certificate-authority"])
    return cluster["server"], headers, True


async def _delete_pods(url: str, headers: dict[str, str], verify_tls: bool | ssl.SSLContext, label: str) -> None:
    connector = aiohttp.TCPConnector(ssl=verify_tls)
    async with aiohttp.ClientSession(url, connector=connector, headers=headers) as session:
        for app in (label, f"{label}-warm", "watch"):
            params = {"labelSelector": f"app={app}", "gracePeriodSeconds": "0"}
            async with session.delete(f"/api/v1/namespaces/{NAMESPACE}/pods", params=params) as r:
                await r.read()


def decode_costs(rounds: int = 2000) -> list[tuple[str, float]]:
    """Microseconds per request that the fake spends on the benched bodies, in this process:
    decoding alone (parsing, kind checks, typed decoding into the kind's schema and field
    validation, under the default ``Warn``), then the whole store write that includes it
    (defaults, validation, the write). The patch is applied to a stored pod each round."""

    spec = by_resource("", "v1", "pods")
    assert spec is not None
    store = Store()
    create = json.dumps(pod_body("cost-0"), separators=(",", ":")).encode()

    def decode_create() -> object:
        info = RequestInfo(method="POST", path="/api/v1/namespaces/default/pods", query={},
                           content_type="application/json", body=create)
        body = decode_object(info, "", "v1", "Pod")
        return store._check_body(spec, body, NAMESPACE, field_validation=FieldValidation(body=create))

    names = iter(range(10**9))

    def whole_create() -> object:
        body = pod_body(f"cost-{next(names)}")
        return store.create(spec, NAMESPACE, body, field_validation=FieldValidation())

    store.create(spec, NAMESPACE, pod_body("patched"))
    attempts = iter(range(10**9))

    def whole_patch() -> object:
        return store.patch(spec, NAMESPACE, "patched", unschedulable_patch(next(attempts)), SMP, subresource="status",
                           field_validation=FieldValidation())

    cases: list[tuple[str, Callable[[], object]]] = [
        ("create pod: decoding and field validation", decode_create),
        ("create pod: the whole store create", whole_create),
        ("status PATCH (SMP): apply, decode, validate, write", whole_patch),
    ]
    costs = []
    for name, call in cases:
        call()
        t0 = time.perf_counter()
        for _ in range(rounds):
            call()
        costs.append((name, 1e6 * (time.perf_counter() - t0) / rounds))
    return costs


def _start_server(kubeconfig: Path, profile: str | None, loop: str,
                  release: str | None = None) -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable]
    if profile:
        cmd += ["-m", "cProfile", "-o", profile]
    cmd += ["-m", "harness.cli", "serve", "--port", "0", "--kubeconfig", str(kubeconfig), "--ready-nodes", "--loop", loop]
    if release is not None:
        cmd += ["--kubernetes-version", release]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"serving the Kubernetes API at (\S+)", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise RuntimeError(f"schedharness serve did not start (exit code {proc.poll()})")


def _client_runner() -> Callable[[Any], Any]:
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    return uvloop.run


_run = _client_runner()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pods", type=int, default=3000, help="pods created (default 3000, at least 1)")
    parser.add_argument("--gets", type=int, default=10000, help="GETs (default 10000)")
    parser.add_argument("--patches", type=int, default=6000, help="status PATCHes (default 6000)")
    parser.add_argument("--writes", type=int, default=2000, help="writes during the watch phase (default 2000)")
    parser.add_argument("--floor", type=int, default=10000,
                        help="GET /healthz first, the cost of a request that reaches no resource (default 10000; 0: none)")
    parser.add_argument("--url", help="drive this running server instead of starting one")
    parser.add_argument("--profile", metavar="PATH", help="run the server under cProfile, stats to PATH")
    parser.add_argument("--server-loop", choices=("auto", "asyncio", "uvloop"), default="auto",
                        help="the server's event loop (schedharness serve --loop; default auto)")
    parser.add_argument("--real-kubeconfig", metavar="PATH", type=Path,
                        help="also drive the real kube-apiserver of this kubeconfig in the same run")
    parser.add_argument("--real-envtest", action="store_true",
                        help="start etcd and kube-apiserver from the envtest assets and drive them in the same run")
    parser.add_argument("--envtest-assets", type=Path, default=None, help="default: $KUBEBUILDER_ASSETS")
    parser.add_argument("--rounds", type=int, default=1,
                        help="drive the fake and the real server this many times each, alternately, and sum each "
                             "phase's figures (default 1)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds: at least 1, got {args.rounds}")
    if args.real_kubeconfig is not None and not args.real_kubeconfig.is_file():
        parser.error(f"--real-kubeconfig: no such file: {args.real_kubeconfig}")
    if args.real_envtest and args.real_kubeconfig is not None:
        parser.error("--real-envtest and --real-kubeconfig: choose one")
    with contextlib.ExitStack() as stack:
        release = None
        if args.real_envtest:
            missing = envtest_unavailable(args.envtest_assets)
            if missing:
                parser.exit(2, f"bench_apiserver: --real-envtest: {missing}\n")
            assets = find_assets(args.envtest_assets)
            logdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-envtest-")))
            plane = stack.enter_context(ControlPlane(assets=assets, logdir=logdir))
            args.real_kubeconfig = plane.kubeconfig_path
            _run(_default_service_account(*_real_server(args.real_kubeconfig)))
            release = _envtest_release(assets)
        return _bench(args, release)


def _summed(rounds: list[list[Result]]) -> list[Result]:
    """Each phase's figures over every round: its requests, seconds and CPU seconds added up."""
    summed: dict[str, Result] = {}
    for results in rounds:
        for r in results:
            s = summed.get(r.name)
            summed[r.name] = r if s is None else Result(r.name, r.unit, s.count + r.count, s.seconds + r.seconds,
                                                        s.server_cpu + r.server_cpu, s.client_cpu + r.client_cpu)
    return list(summed.values())


def _envtest_release(assets: Path) -> str | None:
    """The minor release (``1.NN``) of the envtest kube-apiserver, from its ``--version``."""
    out = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"v(1\.\d+)\.", out)
    return m.group(1) if m else None


async def _default_service_account(url: str, headers: dict[str, str], verify_tls: bool | ssl.SSLContext) -> None:
    connector = aiohttp.TCPConnector(ssl=verify_tls)
    async with aiohttp.ClientSession(url, connector=connector, headers=headers) as session:
        body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}
        async with session.post(f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", json=body) as r:
            if r.status not in (201, 409):
                raise RuntimeError(f"creating ServiceAccount {NAMESPACE}/default: {r.status} {await r.text()}")


def _bench(args: argparse.Namespace, release: str | None) -> int:
    proc: subprocess.Popen[str] | None = None
    fake_rounds: list[list[Result]] = []
    real_rounds: list[list[Result]] = []
    labels: list[str] = []
    real_url, headers, verify = _real_server(args.real_kubeconfig) if args.real_kubeconfig is not None \
        else ("", {}, True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.url:
            url, pid = args.url, None
        else:
            proc, url = _start_server(Path(tmp) / "kubeconfig", args.profile, args.server_loop, release)
            pid = proc.pid
        try:
            for r in range(args.rounds):
                last = r == args.rounds - 1
                prefix = "bench" if args.rounds == 1 else f"bench{r}"

                def drive_fake() -> None:
                    fake_rounds.append(_run(run_bench(url, pid, args.pods, args.gets, args.patches,
                                                      args.writes if last else 0, floor=args.floor, prefix=prefix)))

                def drive_real() -> None:
                    labels.append(f"bench-{os.getpid()}-{int(time.time())}-{r}")
                    real_rounds.append(_run(run_bench(real_url, None, args.pods, args.gets, args.patches, 0,
                                                      headers=headers, verify_tls=verify, prefix=labels[-1],
                                                      floor=args.floor)))

                # alternated, so that the machine's speed drifting during the run weighs on both alike
                for step in ((drive_fake, drive_real) if r % 2 == 0 else (drive_real, drive_fake)) if real_url \
                        else (drive_fake,):
                    step()
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)
            for label in labels:
                _run(_delete_pods(real_url, headers, verify, label))
    results = _summed(fake_rounds)
    real = _summed(real_rounds) if real_rounds else None
    server = url if args.url else f"schedharness serve --loop {args.server_loop}, journal on"
    if release is not None:
        server += f", serving as {release}"
    rounds = f"; {args.rounds} rounds, each phase's figures summed over them" if args.rounds > 1 else ""
    print(f"{server}; {CONCURRENCY} concurrent clients on {_run.__module__.split('.')[0]}; "
          f"Python {sys.version.split()[0]}; {os.cpu_count()} CPUs{rounds}")
    print(format_table(results, real))
    if real is not None and args.rounds > 1:
        print("\nthe ratio of each round (fake and real driven one after the other, their order alternating):")
        for name in [r.name for r in real]:
            ratios = [next(f.rate for f in fr if f.name == name) / next(x.rate for x in rr if x.name == name)
                      for fr, rr in zip(fake_rounds, real_rounds)]
            print(f"  {name}: " + " ".join(f"{ratio:.2f}x" for ratio in ratios))
    if real is not None:
        print(f"\nreal kube-apiserver at {real_url}, driven the same way:")
        print(format_table(real, compare=False))
    print("\nthe fake's decoding and validation per request (in this process):")
    for name, micros in decode_costs():
        print(f"  {name}: {micros:.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
