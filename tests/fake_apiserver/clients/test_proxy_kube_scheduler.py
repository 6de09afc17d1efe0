"""A real kube-scheduler, unchanged, through the fault proxy in front of the fake.

The binaries come from the environment as for ``test_kube_scheduler`` (``SCHEDHARNESS_KUBE_SCHEDULER``,
one path or several ``:``-separated, plus ``SCHEDHARNESS_KUBE_SCHEDULER_V130``); without them these
tests are skipped. Per binary, a :class:`~fake_apiserver.FakeApiServer` and a
:class:`~fake_apiserver.FaultProxy` in front of it share a real-time loop in a background thread;
the scheduler (leader election off, JSON, ``--secure-port=0``) is given the proxy's kubeconfig, so
the proxy's journal sees everything it asks and its rules can refuse it. Readiness is a state (a
probe pod bound); waits poll with a safety timeout only a hang reaches.
"""

from __future__ import annotations

import asyncio
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from fake_apiserver import FakeApiServer, FaultProxy, FaultRule, JournalEntry, Match, Respond
from tests.support.kube_scheduler import (
    BASE_INFORMED,
    BINARIES,
    NAMESPACE,
    NODE,
    NODES,
    PODS,
    SAFETY_TIMEOUT,
    ServerThread,
    binary_minor,
    binary_or_skip,
    informed_resources,
    node_manifest,
    pod_manifest,
    start_kube_scheduler,
    synced,
    wait_until,
)


@dataclass
class ProxiedScheduler:
    """A running kube-scheduler, the proxy it talks to and the fake behind the proxy."""

    binary: str
    fake: ServerThread
    proxy: FaultProxy
    proc: subprocess.Popen[bytes]
    log: Path

    def journal(self) -> list[JournalEntry]:
        return self.fake.call(lambda: list(self.proxy.journal.entries))

    def explain(self) -> str:
        tail = "\n".join(self.log.read_text(errors="replace").splitlines()[-60:]) if self.log.exists() else ""
        journal = self.fake.call(lambda: self.proxy.journal.format(limit=30))
        return (f"--- kube-scheduler ({self.binary}) exit={self.proc.poll()} log tail ({self.log}):\n{tail}\n"
                f"--- proxy journal tail:\n{journal}")

    def create_pod(self, name: str) -> dict[str, Any]:
        body = pod_manifest(name, "100m")
        return self.fake.call(lambda: self.fake.server.store.create(PODS, NAMESPACE, body))

    def node_of(self, name: str) -> str:
        pod = self.fake.call(lambda: self.fake.server.store.get(PODS, NAMESPACE, name))
        return str(pod["spec"].get("nodeName") or "")

    def wait_bound(self, name: str) -> str:
        return wait_until(f"pod {name} bound", lambda: self.proc.poll() is None and self.node_of(name), self.explain)

    def bindings(self, name: str) -> list[JournalEntry]:
        return [e for e in self.journal() if e.type == "request" and e.verb == "create" and e.resource == "pods"
                and e.subresource == "binding" and e.name == name]


@pytest.fixture(scope="module", params=BINARIES or ["<unset>"])
def scheduler(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxiedScheduler]:
    binary = binary_or_skip(request)
    tmp = tmp_path_factory.mktemp(f"proxied-kube-scheduler-v1.{binary_minor(binary)}")
    server = FakeApiServer(taint_not_ready_nodes=False)
    with ServerThread(server) as fake:
        proxy = FaultProxy(server.kubeconfig)
        proxy.journal.keep_watch_objects = True  # the initial-events-end bookmark is read from them
        asyncio.run_coroutine_threadsafe(proxy.start(), fake.loop).result(SAFETY_TIMEOUT)
        kubeconfig = proxy.write_kubeconfig(tmp / "kubeconfig")
        fake.call(lambda: server.store.create(NODES, None, node_manifest(NODE, "2")))
        log = tmp / "kube-scheduler.log"
        proc = start_kube_scheduler(binary, kubeconfig, tmp, log)
        sched = ProxiedScheduler(binary, fake, proxy, proc, log)
        try:
            sched.create_pod("probe")
            sched.wait_bound("probe")
            yield sched
        finally:
            proc.terminate()
            try:
                proc.wait(SAFETY_TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(SAFETY_TIMEOUT)
            asyncio.run_coroutine_threadsafe(proxy.stop(), fake.loop).result(SAFETY_TIMEOUT)


def test_the_scheduler_syncs_and_binds_through_the_proxy(scheduler: ProxiedScheduler) -> None:
    """Every informer syncs through the proxy (a LIST, or a streaming list whose end bookmark
    passed it), the pod's ADDED reaches a pods watch, and the binding is journaled as sent."""
    try:
        created = scheduler.create_pod("fits")
        assert scheduler.wait_bound("fits") == NODE
        entries = scheduler.journal()
        informed = informed_resources(entries)
        assert BASE_INFORMED <= informed
        assert sorted(r for r in informed if not synced(entries, r)) == []
        watches = {e.seq for e in entries if e.type == "request" and e.verb == "watch" and e.resource == "pods"}
        seen = [e.event for e in entries if e.type == "watch-event" and e.watch in watches and e.name == "fits"]
        assert seen[:1] == ["ADDED"]
        [binding] = scheduler.bindings("fits")
        assert (binding.path, binding.content_type, binding.code, binding.fault) == (
            "/api/v1/namespaces/default/pods/fits/binding", "application/json", 201, "")
        assert (binding.body["metadata"]["uid"], binding.body["target"]) == (
            created["metadata"]["uid"], {"kind": "Node", "name": NODE})
        assert [(e.verb, e.path, e.code) for e in entries if e.type == "request" and e.code >= 400] == []
    except BaseException:
        print(scheduler.explain())
        raise


def test_a_refused_binding_is_retried(scheduler: ProxiedScheduler) -> None:
    """A 500 on the first binding sends the pod back to the queue; the retry binds it."""
    rule = scheduler.fake.call(lambda: scheduler.proxy.faults.add(FaultRule(
        Match(verb="create", resource="pods", subresource="binding", name="retried"), Respond(500),
        name="refuse-binding", times=1)))
    try:
        scheduler.create_pod("retried")
        assert scheduler.wait_bound("retried") == NODE
        assert [(e.code, e.reason, e.fault) for e in scheduler.bindings("retried")] == [
            (500, "InternalError", "refuse-binding"), (201, "", "")]
        assert (rule.matched, rule.fired) == (2, 1)
        upstream = scheduler.fake.call(lambda: scheduler.fake.server.journal.requests(
            "create", "pods", subresource="binding", name="retried"))
        assert [e.code for e in upstream] == [201]  # the refused one never left the proxy
    except BaseException:
        print(scheduler.explain())
        raise
