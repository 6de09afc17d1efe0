"""Scenarios on a shared backend (a real cluster, here the fake API server behind the fault
proxy, exactly as a kind cluster is reached): their own namespace, fake nodes that heart-beat
through their Lease, cleanup; steps a cluster's own scheduler cannot support are skipped; the
suites' helpers that depend on what else is in the cluster."""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver import FakeApiServer, FaultRule, Match, Respond
from harness._adapters import CallableAdapter
from harness._backend import KubeconfigBackend, Unsupported
from harness._kind_setup import without_fake_nodes
from harness._kubeclient import ApiError, KubeClient
from harness._scenario import Scenario
from harness._shared_cluster import FAKE_NODE_LABEL, HEARTBEAT
from harness._virtual_time import run
from suites._support import fit_error, require_faults
from test_scenario import first_fit_scheduler

Obj = dict[str, Any]


async def _status(client: KubeClient, path: str) -> int:
    try:
        await client.request("GET", path)
    except ApiError as e:
        return e.code
    return 200


def test_a_scenario_on_a_shared_backend_works_in_its_own_namespace_and_cleans_up(tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeApiServer(taint_not_ready_nodes=False) as server:
            upstream = server.write_kubeconfig(tmp_path / "cluster.kubeconfig")
            direct = KubeClient(server.url)
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
    return json.loads((Path(__file__).resolve().parents[1] / "fake_apiserver" / "data" /
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
    assert affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][  # type: ignore[index]
        "nodeSelectorTerms"][0] == {"matchExpressions": [linux]}  # the input is left alone


def test_daemonsets_are_patched_and_their_rollout_awaited(tmp_path: Path) -> None:
    """Against a small stand-in of the apps/v1 DaemonSet API (the fake does not serve DaemonSets):
    the patch sent, and the rollout judged on observedGeneration, updated and available pods."""
    from aiohttp import web

    from harness._kind_setup import _keep_daemonsets_off_fake_nodes, _rolled_out

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
        client = KubeClient(f"http://127.0.0.1:{port}")
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
    from harness._shared_cluster import unjournaled

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
