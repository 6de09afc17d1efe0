"""Scenarios on a shared backend (a real cluster, here the fake API server behind the fault
proxy, exactly as a kind cluster is reached): their own namespace, fake nodes that heart-beat
through their Lease, cleanup; steps a cluster's own scheduler cannot support are skipped; the
suites' helpers that depend on what else is in the cluster; on ``kubeconfig:`` a scheduler name of
the run's own, so a cluster's scheduler does not race the one under test; the DaemonSet guard on
every shared cluster (against kube-apiserver v1.37.2, where the binaries are)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver import FakeApiServer, FaultProxy, FaultRule, Match, Respond
from harness._backends.backend import BackendError, EnvtestBackend, FakeBackend, KindBackend, KubeconfigBackend, Unsupported
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from harness._backends.kind_setup import without_fake_nodes
from harness._backends.scenario_client import ApiError, ScenarioClient, ScenarioInformer
from harness._backends.shared_cluster import FAKE_NODE_LABEL, HEARTBEAT, SCHEDULER_NAME, off_fake_nodes
from harness._scenario.scenario import Scenario
from harness._schedulers.adapters import CallableAdapter, ClusterSchedulerAdapter, ProcessAdapter, scheduler_name_for
from harness._time.virtual_time import VirtualClock, run
from reference_scheduler import Scheduler
from suites._support import fit_error, require_faults
from tests.support.paths import ROOT
from tests.support.schedulers import first_fit_scheduler
from tests.support.serve_process import CRITERIA, Serve

Obj = dict[str, Any]


async def _status(client: ScenarioClient, path: str) -> int:
    try:
        await client.request("GET", path)
    except ApiError as e:
        return e.code
    return 200


def test_a_scenario_on_a_shared_backend_works_in_its_own_namespace_and_cleans_up(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeApiServer(taint_not_ready_nodes=False) as server:
            upstream = server.write_kubeconfig(tmp_path / "cluster.kubeconfig")
            direct = ScenarioClient(server.url)
            backend = KubeconfigBackend(upstream, tmp_path / "test")
            await backend.start()
            scheduler = CallableAdapter(first_fit_scheduler, name="first-fit")
            await scheduler.start(backend.kubeconfig_path, {})
            scenario = await Scenario(backend).start()
            ns = scenario.namespace
            assert ns.startswith("sh-") and len(ns) == 11
            assert scenario.shared and scenario.other_nodes == []
            node = await scenario.create_node("n1")
            assert node["metadata"]["labels"] == {"kubernetes.io/hostname": "n1", FAKE_NODE_LABEL: ns}
            await scenario.create_pod("p", "1")
            await scenario.eventually(scenario.pod_bound("p"), within=5)
            lease = await direct.request("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1")
            assert lease["spec"]["holderIdentity"] == "n1"
            assert lease["metadata"]["ownerReferences"][0]["name"] == "n1"
            await scenario.advance(2.5 * HEARTBEAT)  # virtual: two renewals
            renewals = scenario.requests("patch", "leases", name="n1", include_own=True)
            assert [e.body for e in renewals][0].keys() == {"spec"} and len(renewals) == 2
            assert scenario.requests("create", "pods", subresource="binding", name="p")[0].code == 201
            await scenario.close()
            await scheduler.stop()
            await backend.stop()
            assert await _status(direct, f"/api/v1/namespaces/{ns}") == 404
            assert await _status(direct, f"/api/v1/namespaces/{ns}/pods/p") == 404
            assert await _status(direct, "/api/v1/nodes/n1") == 404
            assert await _status(direct, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1") == 404
            cleanup = [(e.verb, e.path, e.query) for e in backend.journal.entries
                       if e.seq in scenario.own_requests and e.verb in ("delete", "deletecollection")]
            # the namespace controller's stand-in: every namespaced kind kube-apiserver v1.37.2
            # serves (its discovery, captured) that can be deleted as a collection, but pods (done
            # first, grace 0) and events.k8s.io Events (the core ones), each at its preferred version
            namespaced = {(verb, path) for verb, path, _ in cleanup[1:-3]}
            expected = {}
            for group in _discovery("1.37")["groups"]:
                for version in group["versions"]:
                    for r in version["resources"]:
                        if r["scope"] == "Namespaced" and "deletecollection" in r["verbs"] and \
                                (group["group"], r["resource"]) not in (("", "pods"), ("events.k8s.io", "events")):
                            gv = f"/apis/{group['group']}/{version['version']}" if group["group"] else "/api/v1"
                            expected.setdefault((group["group"], r["resource"]),
                                                ("deletecollection", f"{gv}/namespaces/{ns}/{r['resource']}"))
            assert namespaced == set(expected.values())
            assert cleanup[:1] + cleanup[-3:] == [
                ("deletecollection", f"/api/v1/namespaces/{ns}/pods", {"gracePeriodSeconds": "0"}),
                ("delete", "/api/v1/nodes/n1", {}),
                ("delete", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", {}),
                ("delete", f"/api/v1/namespaces/{ns}", {}),
            ]
            await direct.close()

    run(main())


def _discovery(minor: str) -> dict[str, Any]:
    return json.loads((ROOT / "fake_apiserver" / "data" /
                       f"discovery-v{minor}.json").read_text())


def test_steps_the_clusters_own_scheduler_cannot_support_raise_unsupported(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeApiServer() as server:
            backend = KubeconfigBackend(server.write_kubeconfig(tmp_path / "kc"), tmp_path / "test")
            await backend.start()
            scenario = await Scenario(backend, sees_scheduler=False).start()
            with pytest.raises(Unsupported, match=(
                    r"^cannot count the scheduler's requests: the scheduler under test does not talk through the "
                    r"kubeconfig backend's proxy \(the cluster's own kube-scheduler\); run one out of the cluster "
                    r"with --scheduler reference or cmd:\.\.\. to check this$")):
                scenario.expect_requests(1, verb="patch", resource="pods")
            with pytest.raises(Unsupported, match=r"^cannot inject faults into the scheduler's requests: "):
                await scenario.add_fault(FaultRule(Match(verb="patch"), Respond(500)))
            with pytest.raises(pytest.skip.Exception, match=r"^needs fault injection into the scheduler's requests; "
                               r"the cluster's own kube-scheduler does not talk through the fault proxy"):
                require_faults(scenario)
            assert scenario.requests("get", "pods", include_own=True) == []  # its own requests stay countable
            await scenario.close()
            await backend.stop()

    run(main())


def test_a_missing_kubeconfig_is_a_backend_error(tmp_path: Path) -> None:
    async def main() -> None:
        backend = KubeconfigBackend(tmp_path / "nope", tmp_path)
        with pytest.raises(Exception, match=rf"^the kubeconfig backend: no kubeconfig at {tmp_path}/nope$"):
            await backend.start()
        await backend.stop()

    run(main())


def _scenario(namespace: str, other_nodes: list[Obj]) -> Any:
    return types.SimpleNamespace(namespace=namespace, other_nodes=other_nodes)


def test_fit_error_counts_the_clusters_cordoned_nodes_as_unschedulable() -> None:
    assert fit_error(_scenario("default", []), 1, {"Insufficient cpu": 1}) == (
        "0/1 nodes are available: 1 Insufficient cpu.")
    cordoned = {"metadata": {"name": "kind-control-plane"}, "spec": {"unschedulable": True}}
    assert fit_error(_scenario("sh-1", [cordoned]), 1, {"Insufficient cpu": 1}) == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable.")
    assert fit_error(_scenario("sh-1", [cordoned]), 2, {"node(s) were unschedulable": 1, "Insufficient cpu": 1}) == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable.")


def test_fit_error_skips_when_a_node_the_scenario_did_not_make_is_schedulable() -> None:
    free = {"metadata": {"name": "worker"}, "spec": {}}
    with pytest.raises(pytest.skip.Exception, match=(
            r"^the cluster has schedulable nodes this scenario did not make \(worker\); its fit-error message "
            r"cannot be predicted \(cordon them, or use --backend kind\)$")):
        fit_error(_scenario("sh-1", [free]), 1, {"Insufficient cpu": 1})


def test_daemonsets_get_a_requirement_in_every_node_selector_term() -> None:
    keep_off = {"key": FAKE_NODE_LABEL, "operator": "DoesNotExist"}
    assert without_fake_nodes(None) == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [keep_off]}]}}}
    linux = {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}
    arm = {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [linux]}, {"matchExpressions": [arm]}]}},
        "podAntiAffinity": {"x": 1}}
    patched = without_fake_nodes(affinity)
    assert patched == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [linux, keep_off]}, {"matchExpressions": [arm, keep_off]}]}},
        "podAntiAffinity": {"x": 1}}
    assert without_fake_nodes(patched) == patched  # once only
    # the DaemonSet guard of every shared cluster gives the same as kind's preparation
    assert off_fake_nodes(None) == without_fake_nodes(None)
    assert off_fake_nodes(affinity) == patched and off_fake_nodes(patched) == patched
    assert affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][  # type: ignore[index]
        "nodeSelectorTerms"][0] == {"matchExpressions": [linux]}  # the input is left alone


def test_daemonsets_are_patched_and_their_rollout_awaited(tmp_path: Path) -> None:
    """Against a small stand-in of the apps/v1 DaemonSet API (the fake does not serve DaemonSets):
    the patch sent, and the rollout judged on observedGeneration, updated and available pods."""
    from aiohttp import web

    from harness._backends.kind_setup import _keep_daemonsets_off_fake_nodes, _rolled_out

    base = "/apis/apps/v1/namespaces/kube-system/daemonsets"
    ds: Obj = {"metadata": {"name": "kube-proxy", "generation": 1}, "spec": {"template": {"spec": {}}},
               "status": {"observedGeneration": 1, "desiredNumberScheduled": 1, "updatedNumberScheduled": 1,
                          "numberAvailable": 1}}
    patches: list[Any] = []

    async def daemonsets(request: web.Request) -> web.Response:
        return web.json_response({"items": [ds]})

    async def daemonset(request: web.Request) -> web.Response:
        if request.method == "PATCH":
            patches.append((request.content_type, await request.json()))
            ds["metadata"]["generation"] = 2
            ds["status"].update(updatedNumberScheduled=0, numberAvailable=0)
        return web.json_response(ds)

    async def main() -> None:
        app = web.Application()
        app.router.add_get(base, daemonsets)
        app.router.add_route("*", f"{base}/kube-proxy", daemonset)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        client = ScenarioClient(f"http://127.0.0.1:{port}")
        try:
            assert await _keep_daemonsets_off_fake_nodes(client) == ["kube-proxy"]
            assert patches == [("application/merge-patch+json", {"spec": {"template": {"spec": {
                "affinity": without_fake_nodes(None)}}}})]
            assert not await _rolled_out(client, "kube-proxy")  # the controller has not seen generation 2
            ds["status"]["observedGeneration"] = 2
            assert not await _rolled_out(client, "kube-proxy")  # seen, the new pod not there yet
            ds["status"].update(updatedNumberScheduled=1, numberAvailable=1)
            assert await _rolled_out(client, "kube-proxy")
            ds["spec"]["template"]["spec"]["affinity"] = without_fake_nodes(None)
            assert await _keep_daemonsets_off_fake_nodes(client) == []  # already there: no second patch
            assert len(patches) == 1
        finally:
            await client.close()
            await runner.cleanup()

    run(main())


def test_a_pod_change_is_unjournaled_until_a_write_accounts_for_its_resource_version() -> None:
    """A watch event can beat the answer to the write behind it on a real API server: the pod's
    resourceVersion is accounted for by a journaled write that left it (or a later one), and a
    bound pod by any journaled binding of it (a binding's result has no resourceVersion)."""
    from fake_apiserver import JournalEntry
    from harness._backends.shared_cluster import unjournaled

    def pod(name: str, rv: str, node: str = "") -> Obj:
        return {"metadata": {"name": name, "resourceVersion": rv}, "spec": {"nodeName": node} if node else {}}

    def write(seq: int, verb: str, name: str, rv: str, subresource: str = "", ns: str = "ns") -> JournalEntry:
        return JournalEntry(seq=seq, time=0.0, type="request", verb=verb, resource="pods", subresource=subresource,
                            namespace=ns, name=name, after={"metadata": {"name": name, "resourceVersion": rv}})

    created = JournalEntry(seq=1, time=0.0, type="request", verb="create", resource="pods", namespace="ns",
                           after={"metadata": {"name": "p", "resourceVersion": "10"}})
    assert unjournaled([created], "ns", [pod("p", "10")]) == []
    assert unjournaled([created], "ns", [pod("p", "12")]) == ["p"]  # the status patch's answer not in yet
    assert unjournaled([created, write(2, "patch", "p", "12", "status")], "ns", [pod("p", "12")]) == []
    assert unjournaled([created, write(2, "patch", "p", "12", "status", ns="other")], "ns", [pod("p", "12")]) == ["p"]
    assert unjournaled([created], "ns", [pod("p", "13", node="n1")]) == ["p"]
    assert unjournaled([created, write(3, "create", "p", "10", "binding")], "ns", [pod("p", "13", node="n1")]) == []



# ---------------------------------------------------------------------- a scheduler name of its own

async def default_scheduler_stand_in(url: str, bound: list[str]) -> None:
    """The cluster's own scheduler, as far as the race goes: it binds every pending pod whose
    ``spec.schedulerName`` is ``default-scheduler`` (what kube-scheduler's only profile takes) to
    the first node whose taints it tolerates, as soon as its watch shows the pod. It talks to the
    cluster directly, not through the test's proxy, as a cluster's own kube-scheduler does.
    ``bound`` collects ``namespace/name`` of what it bound."""
    client = ScenarioClient(url)
    pods = ScenarioInformer(client, "/api/v1/pods")
    wake = asyncio.Event()
    pods.listeners.append(lambda event, obj: wake.set())
    await pods.start()
    try:
        while True:
            await wake.wait()
            wake.clear()
            nodes = sorted((await client.request("GET", "/api/v1/nodes"))["items"], key=lambda n: n["metadata"]["name"])
            for pod in sorted(pods.objects.values(), key=lambda p: p["metadata"]["name"]):
                meta, spec = pod["metadata"], pod["spec"]
                if spec.get("nodeName") or spec.get("schedulerName") != "default-scheduler":
                    continue
                tolerated = {t.get("key") for t in spec.get("tolerations") or []}
                node = next((n for n in nodes if all(t["key"] in tolerated for t in n["spec"].get("taints") or [])),
                            None)
                if node is None:
                    continue
                await client.request("POST", f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}/binding",
                                     body={"apiVersion": "v1", "kind": "Binding", "metadata": {"name": meta["name"]},
                                           "target": {"kind": "Node", "name": node["metadata"]["name"]}})
                bound.append(f"{meta['namespace']}/{meta['name']}")
    finally:
        await pods.stop()
        await client.close()


def reference_taking_a_name() -> CallableAdapter[Scheduler]:
    """The reference scheduler told the run's scheduler name, as a ``takes_scheduler_name``
    adapter does it: its start function reads ``adapter.scheduler_name`` (the reference scheduler
    takes the pods whose ``spec.schedulerName`` is its ``scheduler_name``)."""
    async def start(path: Path, gates: dict[str, bool]) -> Scheduler:
        scheduler = Scheduler(str(path), clock=VirtualClock(asyncio.get_running_loop()),
                              scheduler_name=adapter.scheduler_name or "default-scheduler")
        await scheduler.start()
        return scheduler

    async def stop(scheduler: Scheduler) -> None:
        await scheduler.stop()

    adapter = CallableAdapter(start, stop, name="reference", logger_name="reference_scheduler", probe=True,
                              takes_scheduler_name=True)
    return adapter


def test_on_a_cluster_with_its_own_scheduler_the_one_under_test_gets_the_scenarios_pods(tmp_path: Path) -> None:
    """kubeconfig: the cluster's own scheduler (a stand-in binding every ``default-scheduler``
    pod at once) runs all along; the scheduler under test, named ``schedharness`` for the run,
    binds the probe pod and every pod the scenario creates, whichever step creates it; the other
    scheduler binds only the pod whose manifest names ``default-scheduler`` itself."""
    async def main() -> None:
        async with FakeApiServer(taint_not_ready_nodes=False) as server:
            upstream = server.write_kubeconfig(tmp_path / "cluster.kubeconfig")
            theirs: list[str] = []

            async def cluster_scheduler(path: Path, gates: dict[str, bool]) -> None:
                await default_scheduler_stand_in(server.url, theirs)

            other = CallableAdapter(cluster_scheduler, name="the cluster's own")
            await other.start(upstream, {})
            backend = KubeconfigBackend(upstream, tmp_path / "test")
            await backend.start()
            adapter = reference_taking_a_name()
            adapter.scheduler_name = scheduler_name_for(backend, adapter)
            assert adapter.scheduler_name == SCHEDULER_NAME == "schedharness"
            await adapter.start(backend.kubeconfig_path, {})  # the probe pod is bound by it, not by the other
            scenario = await Scenario(backend, scheduler_name=adapter.scheduler_name).start()
            ns = scenario.namespace
            await scenario.create_node("n1")
            await scenario.create_pod("p", "1")
            await scenario.create_objects([{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q"},
                                            "spec": {"containers": [{"name": "c", "image": "pause"}]}}])
            await scenario.create_pod("r", "1", manifest={"spec": {"schedulerName": "default-scheduler"}})
            await scenario.eventually(scenario.pods_bound(count=3), within=10)
            assert {name: scenario.pod(name)["spec"]["schedulerName"] for name in "pqr"} == {  # type: ignore[index]
                "p": "schedharness", "q": "schedharness", "r": "default-scheduler"}
            assert sorted(e.name for e in scenario.requests("create", "pods", subresource="binding")) == ["p", "q"]
            assert theirs == [f"{ns}/r"]
            await scenario.close()
            await adapter.stop()
            await backend.stop()
            await other.stop()
            assert other.failure() is None

    run(main())


def test_a_scheduler_name_is_given_only_where_another_scheduler_may_run(tmp_path: Path) -> None:
    """kubeconfig only (kind's is stopped, envtest and the fake have none), and only to an adapter
    that can be told: a command naming {config} or {scheduler_name}, a callable made to take it."""
    command = ProcessAdapter("my-scheduler --config={config}", tmp_path)
    flag = ProcessAdapter("my-scheduler --kubeconfig={kubeconfig} --scheduler-name={scheduler_name}", tmp_path)
    blind = ProcessAdapter("my-scheduler --kubeconfig={kubeconfig}", tmp_path)
    told = reference_taking_a_name()
    backends = {"kubeconfig": KubeconfigBackend(tmp_path / "kc", tmp_path), "kind": KindBackend(tmp_path / "kc", tmp_path),
                "envtest": EnvtestBackend(tmp_path / "kc", tmp_path), "fake": FakeBackend(tmp_path)}
    names = {(backend, adapter.name if adapter is not None else None): scheduler_name_for(b, adapter)
             for backend, b in backends.items() for adapter in (command, told, None)}
    assert {key for key, name in names.items() if name is not None} == {("kubeconfig", "cmd"),
                                                                       ("kubeconfig", "reference")}
    assert set(names.values()) == {None, "schedharness"}
    assert scheduler_name_for(backends["kubeconfig"], flag) == "schedharness"
    assert scheduler_name_for(backends["kubeconfig"], blind) is None
    assert scheduler_name_for(backends["kubeconfig"], CallableAdapter(first_fit_scheduler)) is None
    assert scheduler_name_for(backends["kubeconfig"], ClusterSchedulerAdapter()) is None


@pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))
def test_every_daemonset_of_a_shared_cluster_is_kept_off_fake_nodes(tmp_path: Path) -> None:
    """On kube-apiserver v1.37.2 (envtest, no controller-manager): at the scenario's start every
    DaemonSet of the cluster, in any namespace, whose pod template could land on a fake node gets
    the requirement; one that has it already is left alone; one a DaemonSet controller had seen
    (``status.observedGeneration``) is waited for until the controller has seen the change."""
    def daemonset(name: str, affinity: Obj | None = None) -> Obj:
        template: Obj = {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}
        if affinity is not None:
            template["spec"]["affinity"] = affinity
        return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name},
                "spec": {"selector": {"matchLabels": {"app": name}}, "template": template}}

    async def controller_stand_in(client: ScenarioClient, path: str) -> None:
        """Writes status.observedGeneration once the DaemonSet's generation has moved on."""
        while True:
            ds = await client.request("GET", path)
            if ds["metadata"]["generation"] > 1:
                await client.request("PATCH", f"{path}/status", body={"status": {
                    "observedGeneration": ds["metadata"]["generation"], "currentNumberScheduled": 0,
                    "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}},
                    content_type="application/merge-patch+json")
                return
            await asyncio.sleep(0.1)

    async def main(kubeconfig: Path) -> None:
        async with FaultProxy(kubeconfig) as proxy:
            direct = ScenarioClient(proxy.url)
            base = "/apis/apps/v1/namespaces"
            await direct.request("POST", f"{base}/kube-system/daemonsets", body=daemonset("proxy"))
            await direct.request("POST", f"{base}/default/daemonsets", body=daemonset("kept", without_fake_nodes(None)))
            seen = await direct.request("POST", f"{base}/default/daemonsets", body=daemonset("agent"))
            await direct.request("PATCH", f"{base}/default/daemonsets/agent/status", body={"status": {
                "observedGeneration": seen["metadata"]["generation"], "currentNumberScheduled": 0,
                "numberMisscheduled": 0, "desiredNumberScheduled": 0, "numberReady": 0}},
                content_type="application/merge-patch+json")
            controller = asyncio.create_task(controller_stand_in(direct, f"{base}/default/daemonsets/agent"))
            backend = EnvtestBackend(kubeconfig, tmp_path / "test")
            await backend.start()
            scenario = await Scenario(backend).start()
            assert controller.done() and controller.exception() is None  # the scenario waited for it
            def patched() -> list[tuple[str, str]]:  # made while the scenario starts: before its window
                return sorted((e.namespace, e.name) for e in backend.journal.entries
                              if e.type == "request" and e.verb == "patch" and e.resource == "daemonsets.apps")

            assert patched() == [("default", "agent"), ("kube-system", "proxy")]
            for namespace, name in (("kube-system", "proxy"), ("default", "agent"), ("default", "kept")):
                ds = await direct.request("GET", f"{base}/{namespace}/daemonsets/{name}")
                assert ds["spec"]["template"]["spec"]["affinity"] == without_fake_nodes(None)
            again = await Scenario(backend).start()  # the next scenario: nothing left to patch
            assert patched() == [("default", "agent"), ("kube-system", "proxy")]
            await again.close()
            # a user who may not patch DaemonSets: the scenario is refused, saying what to add
            await direct.request("POST", f"{base}/default/daemonsets", body=daemonset("late"))
            backend.faults.add(FaultRule(Match(verb="patch", resource="daemonsets"), Respond(403, "forbidden here")))
            namespaces = (await direct.request("GET", "/api/v1/namespaces"))["items"]
            with pytest.raises(BackendError, match=(
                    r"^DaemonSet default/late would put a pod on every fake node of the scenario and could not be "
                    r"kept off them \(PATCH /apis/apps/v1/namespaces/default/daemonsets/late: 403 Forbidden: "
                    r"forbidden here\): let the kubeconfig's user patch daemonsets, or give its pod template the "
                    r"required node affinity schedharness\.io/fake-node DoesNotExist yourself$")):
                await Scenario(backend).start()
            assert (await direct.request("GET", "/api/v1/namespaces"))["items"] == namespaces  # refused first
            await scenario.close()
            await backend.stop()
            await direct.close()

    with ControlPlane(assets=find_assets(), logdir=tmp_path / "logs") as control_plane:
        assert control_plane.kubeconfig_path is not None
        asyncio.run(main(control_plane.kubeconfig_path))


def test_through_the_plugin_a_scheduler_command_on_kubeconfig_is_given_the_name(tmp_path: Path) -> None:
    """End to end, in other processes: ``--backend kubeconfig:`` against ``schedharness serve`` and
    a command naming ``{scheduler_name}`` (the reference scheduler's CLI, which takes only pods
    naming ``--scheduler-name``): the probe and the criterion pass, so it got ``schedharness`` and
    the scenario's pods name it."""
    serve = Serve(tmp_path)
    try:
        report = tmp_path / "report"
        command = (f"cmd:{sys.executable} -m harness.cli scheduler --kubeconfig={{kubeconfig}} "
                   f"--scheduler-name={{scheduler_name}}")
        result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", CRITERIA[0],
                                 f"--backend=kubeconfig:{serve.kubeconfig}", f"--scheduler={command}",
                                 f"--report-dir={report}", "--no-timeline"],
                                cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-3000:]
        test_dir = next(path for path in report.iterdir() if path.name.startswith("suites_test_core_sanity.py"))
        journal = [json.loads(line) for line in (test_dir / "journal.jsonl").read_text().splitlines()]
        created = {e["after"]["metadata"]["name"]: e["after"]["spec"]["schedulerName"] for e in journal
                   if e["type"] == "request" and e["verb"] == "create" and e["resource"] == "pods"
                   and not e.get("subresource")}
        assert created and set(created.values()) == {"schedharness"}, created
        assert serve.get("/api/v1/nodes")["items"] == []  # the scenario's and the probe's are gone
    finally:
        serve.stop()
