"""A real cluster for a whole run: made or reused once, prepared for the suites, given back.

The scenarios of a run share one cluster (making one takes minutes), so what makes a test's
verdict depend on that cluster alone is done here, once, before the first test:

* **The scheduler under test is the only scheduler.** For an out-of-cluster scheduler, kind's own
  kube-scheduler is stopped (:meth:`~harness._backends.kind_cluster.KindCluster.disable_scheduler`) and the run
  waits until its mirror Pod is gone, so no pod is bound by anyone else. With
  ``--scheduler cluster`` it is kept, and is the scheduler under test.
* **The scenario's nodes are the only places to schedule.** The cluster's own nodes are cordoned
  (``spec.unschedulable``), so a scenario's pod never lands on the kind node; fit-error messages
  then count them as ``node(s) were unschedulable`` (:func:`suites._support.fit_error`).
* **DaemonSets keep off fake nodes.** Every DaemonSet in ``kube-system`` (kube-proxy, kindnet)
  gets a required node-affinity term that the label :data:`~harness._backends.shared_cluster.FAKE_NODE_LABEL`
  does not exist, as KWOK's documentation has its users do, so their pods neither take room on
  a scenario's nodes nor wait there for a kubelet. The change rolls their pods, and DaemonSet
  pods are placed by the scheduler: so it is made, and its rollout waited for, while the
  cluster's own scheduler runs (it is stopped only afterwards).
* **No leftovers.** Fake nodes and scenario namespaces an interrupted run left behind are deleted.

At the end the cluster is deleted if the run made it, unless told to keep it; a kept or reused
cluster gets its nodes uncordoned and its scheduler back.

``--backend kubeconfig:PATH`` gets none of this here: it is somebody's cluster, used as it is
(:func:`open_cluster_session` only checks the file); its DaemonSets get the same affinity from
the shared-cluster guard each scenario runs first (:mod:`harness._backends.shared_cluster`), its own
scheduler is kept out of the way by the run's scheduler name, and the suites skip a fit-error
criterion when schedulable nodes they did not make are there.

Everything here talks to the API through a :class:`~fake_apiserver.FaultProxy`, the one place
that knows the cluster's TLS and credentials.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from fake_apiserver import FaultProxy
from harness._backends.kind_cluster import KindCluster, KindError, KindOptions, kind_unavailable
from harness._backends.scenario_client import PATCH_TYPES, ApiError, ScenarioClient
from harness._backends.shared_cluster import FAKE_NODE_LABEL, SCENARIO_NAMESPACE_LABEL, poll_until

__all__ = ["ClusterSession", "ClusterUnavailable", "KindSettings", "open_cluster_session"]

Obj = dict[str, Any]
#: How long the cluster may take to settle (nodes Ready, the in-cluster scheduler gone).
SETTLE_TIMEOUT = 180.0


class ClusterUnavailable(RuntimeError):
    """No cluster for this run: kind or a container engine is missing, or it failed to start.
    The plugin skips the run's scenarios with this message."""


@dataclass(frozen=True)
class KindSettings:
    """The run's kind options (``--kind-*``)."""

    cluster: str = "schedharness"
    image: str | None = None
    keep: bool = False
    kind: str = "kind"
    apiserver_feature_gates: dict[str, bool] = field(default_factory=dict)
    runtime_config: dict[str, str] = field(default_factory=dict)  # kube-apiserver's --runtime-config


@dataclass
class ClusterSession:
    """The cluster of one run: where its kubeconfig is and what to undo at the end."""

    backend: str  # "kind" or "kubeconfig"
    kubeconfig: Path
    cluster: KindCluster | None = None
    cordoned: list[str] = field(default_factory=list)
    #: the kube-apiserver feature gates the run started the cluster with; None when it did not
    #: start it (an existing cluster, a kind cluster reused), so they are not known
    apiserver_feature_gates: dict[str, bool] | None = None
    #: the kube-apiserver --runtime-config the run started the cluster with; None when not known
    runtime_config: dict[str, str] | None = None
    #: what the cluster's discovery serves of the group versions scenarios asked for (each one's
    #: resources, or None when not served), asked once a run
    served_apis: dict[tuple[str, str], frozenset[str] | None] = field(default_factory=dict)

    def close(self) -> None:
        """Give the cluster back (module docstring); safe to call twice."""
        if self.cluster is None:
            return
        cluster, self.cluster = self.cluster, None
        if self.cordoned and (cluster.keep or not cluster.created):
            asyncio.run(_uncordon(self.kubeconfig, self.cordoned))
        cluster.down()


def open_cluster_session(backend: str, workdir: Path, *, kind: KindSettings, in_cluster_scheduler: bool,
                         scheduler_feature_gates: dict[str, bool]) -> ClusterSession:
    """Make or reuse the run's cluster and prepare it (``kind``), or check the kubeconfig
    (``kubeconfig:PATH``). Raises :class:`ClusterUnavailable` with the reason when there is none."""
    if backend.startswith("kubeconfig:"):
        path = Path(backend.partition(":")[2]).expanduser().resolve()
        if not path.is_file():
            raise ClusterUnavailable(f"--backend {backend}: no kubeconfig file at {path}")
        return ClusterSession("kubeconfig", path)
    reason = kind_unavailable(kind.kind)
    if reason is not None:
        raise ClusterUnavailable(f"--backend kind {reason}")
    workdir.mkdir(parents=True, exist_ok=True)
    options = KindOptions(image=kind.image, apiserver_feature_gates=kind.apiserver_feature_gates,
                          runtime_config=kind.runtime_config,
                          scheduler_feature_gates=scheduler_feature_gates if in_cluster_scheduler else {})
    cluster = KindCluster(name=kind.cluster, options=options, workdir=workdir, keep=kind.keep, kind=kind.kind)
    try:
        kubeconfig = cluster.up()
        cluster.enable_scheduler()  # a kept cluster may have it stopped; the DaemonSet rollout needs it
        session = ClusterSession("kind", kubeconfig, cluster,
                                 apiserver_feature_gates=dict(kind.apiserver_feature_gates) if cluster.created else None,
                                 runtime_config=dict(kind.runtime_config) if cluster.created else None)
        session.cordoned = asyncio.run(prepare_cluster(kubeconfig))
        if not in_cluster_scheduler:
            cluster.disable_scheduler()
        asyncio.run(settle_scheduler(kubeconfig, running=in_cluster_scheduler))
    except (KindError, ApiError, TimeoutError) as e:
        cluster.down()
        raise ClusterUnavailable(f"--backend kind: the cluster {kind.cluster!r} could not be prepared: {e}") from None
    return session


async def prepare_cluster(kubeconfig: Path) -> list[str]:
    """Prepare a kind cluster for the suites, its own scheduler running (module docstring);
    return the nodes it cordoned."""
    async with FaultProxy(kubeconfig) as proxy:
        client = ScenarioClient(proxy.url)
        try:
            await _delete_leftovers(client)
            await _until("every node of the cluster is Ready", lambda: _all_ready(client))
            patched = await _keep_daemonsets_off_fake_nodes(client)
            for name in patched:
                await _until(f"the rollout of DaemonSet kube-system/{name}", lambda: _rolled_out(client, name))
            return await _cordon(client)
        finally:
            await client.close()


async def settle_scheduler(kubeconfig: Path, *, running: bool) -> None:
    """Wait until the cluster's own kube-scheduler is Ready (``running``) or gone."""
    async with FaultProxy(kubeconfig) as proxy:
        client = ScenarioClient(proxy.url)
        try:
            if running:
                await _until("the cluster's own kube-scheduler is Ready", lambda: _cluster_scheduler_ready(client))
            else:
                await _until("the cluster's own kube-scheduler is gone", lambda: _no_cluster_scheduler(client))
        finally:
            await client.close()


async def _delete_leftovers(client: ScenarioClient) -> None:
    """What an interrupted run left: its fake nodes, and its namespaces (pods force-deleted first:
    no kubelet will confirm a graceful deletion on a fake node)."""
    await client.request("DELETE", f"/api/v1/nodes?labelSelector={FAKE_NODE_LABEL}")
    namespaces = await client.request("GET", f"/api/v1/namespaces?labelSelector={SCENARIO_NAMESPACE_LABEL}")
    for ns in namespaces.get("items") or []:
        name = ns["metadata"]["name"]
        await client.request("DELETE", f"/api/v1/namespaces/{name}/pods?gracePeriodSeconds=0")
        await client.request("DELETE", f"/api/v1/namespaces/{name}")


async def _until(what: str, check: Callable[[], Awaitable[bool]]) -> None:
    await poll_until(what, check, timeout=SETTLE_TIMEOUT, every=1.0)


async def _nodes(client: ScenarioClient) -> list[Obj]:
    return list((await client.request("GET", "/api/v1/nodes")).get("items") or [])


async def _all_ready(client: ScenarioClient) -> bool:
    nodes = [n for n in await _nodes(client) if FAKE_NODE_LABEL not in (n["metadata"].get("labels") or {})]
    return bool(nodes) and all(
        any(c.get("type") == "Ready" and c.get("status") == "True" for c in n.get("status", {}).get("conditions") or [])
        for n in nodes)


async def _cordon(client: ScenarioClient) -> list[str]:
    cordoned = []
    for node in await _nodes(client):
        name = node["metadata"]["name"]
        if FAKE_NODE_LABEL in (node["metadata"].get("labels") or {}) or node.get("spec", {}).get("unschedulable"):
            continue
        await client.request("PATCH", f"/api/v1/nodes/{name}", body={"spec": {"unschedulable": True}},
                             content_type=PATCH_TYPES["merge"])
        cordoned.append(name)
    return cordoned


async def _uncordon(kubeconfig: Path, names: list[str]) -> None:
    async with FaultProxy(kubeconfig) as proxy:
        client = ScenarioClient(proxy.url)
        try:
            for name in names:
                await client.request("PATCH", f"/api/v1/nodes/{name}", body={"spec": {"unschedulable": None}},
                                     content_type=PATCH_TYPES["merge"])
        finally:
            await client.close()


def without_fake_nodes(affinity: Obj | None) -> Obj:
    """``affinity`` with the requirement that :data:`FAKE_NODE_LABEL` does not exist added to
    every required node-selector term (terms are ORed, so each one needs it), or a new term."""
    requirement = {"key": FAKE_NODE_LABEL, "operator": "DoesNotExist"}
    out: Obj = dict(affinity or {})
    node_affinity = dict(out.get("nodeAffinity") or {})
    required = dict(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = [dict(t) for t in required.get("nodeSelectorTerms") or []] or [{}]
    for term in terms:
        expressions = list(term.get("matchExpressions") or [])
        if requirement not in expressions:
            expressions.append(requirement)
        term["matchExpressions"] = expressions
    required["nodeSelectorTerms"] = terms
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required
    out["nodeAffinity"] = node_affinity
    return out


async def _keep_daemonsets_off_fake_nodes(client: ScenarioClient) -> list[str]:
    """Patch the kube-system DaemonSets that lack the requirement; return their names."""
    path = "/apis/apps/v1/namespaces/kube-system/daemonsets"
    patched: list[str] = []
    try:
        daemonsets = (await client.request("GET", path)).get("items") or []
    except ApiError as e:
        if e.code != 404:  # an API without DaemonSets has none to keep off
            raise
        daemonsets = []
    for ds in daemonsets:
        template_spec = ds.get("spec", {}).get("template", {}).get("spec", {})
        affinity = without_fake_nodes(template_spec.get("affinity"))
        if affinity == template_spec.get("affinity"):
            continue
        await client.request("PATCH", f"{path}/{ds['metadata']['name']}",
                             body={"spec": {"template": {"spec": {"affinity": affinity}}}},
                             content_type=PATCH_TYPES["merge"])
        patched.append(ds["metadata"]["name"])
    return patched


async def _rolled_out(client: ScenarioClient, name: str) -> bool:
    """``kubectl rollout status`` for a DaemonSet: the controller saw the change, and every pod it
    wants is updated and available."""
    ds = await client.request("GET", f"/apis/apps/v1/namespaces/kube-system/daemonsets/{name}")
    status = ds.get("status") or {}
    desired = status.get("desiredNumberScheduled", 0)
    return (status.get("observedGeneration", 0) >= ds["metadata"].get("generation", 0)
            and status.get("updatedNumberScheduled", 0) == desired and status.get("numberAvailable", 0) == desired)


async def _scheduler_pods(client: ScenarioClient) -> list[Obj]:
    """The mirror Pods of kubeadm's kube-scheduler static Pod (label ``component=kube-scheduler``)."""
    pods = await client.request("GET", "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Dkube-scheduler")
    return list(pods.get("items") or [])


async def _no_cluster_scheduler(client: ScenarioClient) -> bool:
    return not await _scheduler_pods(client)


async def _cluster_scheduler_ready(client: ScenarioClient) -> bool:
    pods = await _scheduler_pods(client)
    return bool(pods) and all(any(c.get("type") == "Ready" and c.get("status") == "True"
                                  for c in p.get("status", {}).get("conditions") or []) for p in pods)
