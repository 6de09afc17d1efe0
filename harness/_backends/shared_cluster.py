"""What a scenario does on a shared backend (a real cluster), apart from its steps.

A :class:`~harness._scenario.scenario.Scenario` on a backend that is ``shared`` hands this part to
:class:`SharedCluster`:

* **Its own namespace**, labelled :data:`SCENARIO_NAMESPACE_LABEL` (so the leftovers of an
  interrupted run can be found), made at start; pods are created only once its ``default``
  ServiceAccount exists, since a real API server refuses them before ("error looking up service
  account").
* **Fake nodes, as KWOK makes them:** Node objects with no kubelet, labelled
  :data:`FAKE_NODE_LABEL` (value: the namespace), Ready with a heartbeat time, kept Ready by
  renewing their Lease in ``kube-node-lease`` every :data:`HEARTBEAT` seconds (the node
  lifecycle controller would otherwise mark them unreachable after its grace period), and handed
  back only once the ``node.kubernetes.io/not-ready`` taint that admission puts on every new node
  is off.
* **A scheduler name of its own** on a cluster where another scheduler may run (the
  ``kubeconfig:`` backend, :attr:`~harness._backends.backend.Backend.other_schedulers`): the cluster's own
  kube-scheduler schedules every pod whose ``spec.schedulerName`` is ``default-scheduler``, so
  it would race the scheduler under test for every scenario pod. The run's pods name
  :data:`SCHEDULER_NAME` instead and the scheduler under test is told to take those
  (:mod:`harness._schedulers.adapters`). The name is fixed, not per run: runs on one cluster do not run
  side by side anyway (nodes are cluster-wide), and a fixed name is one a user can put in a
  scheduler's own configuration once. kind (its scheduler stopped by the run), envtest and the
  fake (none there) keep ``default-scheduler``, so their journals are as before.
* **DaemonSets keep off fake nodes**, on every shared cluster: first thing at start, every
  DaemonSet of the cluster (all namespaces) whose pod template could land on a node labelled
  :data:`FAKE_NODE_LABEL` gets a required node-affinity requirement that the label does not
  exist (what :mod:`harness._backends.kind_setup` does to kind's ``kube-system`` ones before the run), and
  the scenario waits until the DaemonSet controller has seen it, where one runs. Otherwise the
  controller makes a pod for each fake node, a cluster scheduler binds it, and it takes room
  there that the scenario did not plan for. The change is harmless (no real node has the label)
  and kept at the end; on a cluster with many DaemonSets it rolls their pods once. A user who
  may not patch a DaemonSet gets the scenario refused (:class:`~harness._backends.backend.BackendError`
  naming it and the affinity to add) before its namespace is made.
* **Cleanup** at close: the namespace's pods force-deleted (no kubelet will confirm a graceful
  deletion), the rest of what the namespace holds, the cluster-scoped objects it made, the
  leases, the namespace (its deletion is not waited for). Every step is tried; a failed one is
  logged, so a cleanup problem never hides the test's own outcome.

**Controller stand-ins.** A cluster without a controller-manager (``--backend envtest``, or a
bare kube-apiserver behind ``kubeconfig:``) would leave a scenario waiting for what its
controllers do, so the harness does it itself, in a way that is harmless where the real
controller runs (it only does what that controller would, and takes "already done" as done):

* *the ServiceAccount controller*: the namespace's ``default`` ServiceAccount is created right
  after the namespace (an ``AlreadyExists`` answer, the controller having been first, is fine);
* *the node-lifecycle controller*: the ``node.kubernetes.io/not-ready:NoSchedule`` taint is taken
  off a new node whose ``Ready`` condition is ``True`` (a merge patch guarded by the node's
  resourceVersion, read again on a conflict, done when the taint is gone whoever took it);
* *the namespace controller*: cleanup deletes the namespace's objects of every namespaced kind
  the harness knows (a delete-collection each, as the controller's deletion does) before the
  namespace, so nothing the scenario made outlives it, finalized or not;
* *the ResourceClaim controller*: a deleted claim's ``resource.kubernetes.io/delete-protection``
  finalizer is taken off once its pods are gone, so its devices are free again;
* the disruption controller is not played: the scenarios that need a PodDisruptionBudget's
  status write it themselves, as Kubernetes' own scheduler tests do.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Iterable

from fake_apiserver import KINDS, JournalEntry, KindSpec
from harness._backends.backend import BackendError
from harness._backends.scenario_client import PATCH_TYPES, ApiError, resolve_kind, resource_path

__all__ = ["FAKE_NODE_LABEL", "HEARTBEAT", "SCENARIO_NAMESPACE_LABEL", "SCHEDULER_NAME", "SharedCluster",
           "make_default_service_account", "off_fake_nodes", "poll_until", "unjournaled", "with_scheduler_name"]

Obj = dict[str, Any]
Request = Callable[..., Awaitable[Any]]
log = logging.getLogger("schedharness.scenario")

#: The label of the Node objects a scenario makes on a shared cluster; its value is the
#: scenario's namespace, so leftovers of an interrupted run can be told apart.
FAKE_NODE_LABEL = "schedharness.io/fake-node"
#: The label of the namespaces scenarios make on a shared cluster (value: ``"true"``).
SCENARIO_NAMESPACE_LABEL = "schedharness.io/scenario"
#: The ``spec.schedulerName`` of the scenario's pods, and the name the scheduler under test
#: schedules, on a cluster where another scheduler may run (module docstring).
SCHEDULER_NAME = "schedharness"
#: What a pod without ``spec.schedulerName`` gets from the API server.
DEFAULT_SCHEDULER_NAME = "default-scheduler"
DAEMONSETS = "/apis/apps/v1/daemonsets"
#: Seconds between node Lease renewals (the kubelet's default ``nodeLeaseDurationSeconds`` is
#: 40 and it renews every quarter of that).
HEARTBEAT = 10.0
NODE_LEASE_NAMESPACE = "kube-node-lease"
NOT_READY_TAINT = "node.kubernetes.io/not-ready"
#: How long a shared cluster may take to make a namespace usable or untaint a new node.
SETUP_TIMEOUT = 60.0
#: How long a judgement on real time waits for the journal to hold the writes behind the pod
#: changes it has seen (:func:`unjournaled`); a change made by nobody the journal sees (a
#: cluster's own controller) costs this much once per judgement.
JOURNAL_CATCH_UP = 1.0
#: The finalizer a scheduler puts on a ResourceClaim it allocates, which the ResourceClaim
#: controller takes off once the claim is deleted and no pod uses it.
CLAIM_FINALIZER = "resource.kubernetes.io/delete-protection"
#: What the namespace controller's stand-in deletes in a scenario's namespace after its pods: the
#: other namespaced kinds of the release that can be deleted as a collection (``events.k8s.io``
#: Events are the core ones).
NAMESPACE_CONTENTS: tuple[KindSpec, ...] = tuple(
    spec for spec in KINDS if spec.namespaced and "deletecollection" in spec.verbs and spec.resource != "pods"
    and not (spec.group == "events.k8s.io" and spec.resource == "events"))


def unjournaled(entries: Iterable[JournalEntry], namespace: str, pods: Iterable[Obj]) -> list[str]:
    """The pods of ``namespace`` whose resourceVersion (as a watch delivered it) no journaled write
    accounts for yet. On real time a watch event can reach the scenario before the answer to the
    write that caused it has reached the journal's server (a real API server sends the event to
    its watchers before it answers the writer), so a judgement made as soon as the pod changed
    could miss the write. A write accounts for a resourceVersion when the object it left has that
    one or a later one; a binding's result is computed, not read (no resourceVersion), so a bound
    pod is accounted for by any journaled binding of it."""
    latest: dict[str, int] = {}
    bound: set[str] = set()
    for e in entries:
        if e.type != "request" or e.resource != "pods" or e.namespace != namespace or \
                e.verb not in ("create", "update", "patch", "delete"):
            continue
        after = e.after if isinstance(e.after, dict) else {}
        name = e.name or str((after.get("metadata") or {}).get("name", ""))
        if e.subresource == "binding":
            bound.add(name)
            continue
        rv = str((after.get("metadata") or {}).get("resourceVersion", ""))
        if rv.isdigit():
            latest[name] = max(latest.get(name, 0), int(rv))
    missing = []
    for pod in pods:
        meta = pod.get("metadata") or {}
        name, rv = str(meta.get("name", "")), str(meta.get("resourceVersion", ""))
        if not rv.isdigit() or latest.get(name, 0) >= int(rv):
            continue
        if (pod.get("spec") or {}).get("nodeName") and name in bound:
            continue
        missing.append(name)
    return missing


def off_fake_nodes(affinity: Obj | None) -> Obj:
    """``affinity`` (not changed) with the requirement that :data:`FAKE_NODE_LABEL` does not exist
    in every required node-selector term (the terms are ORed, so each needs it), or in a new one:
    what the DaemonSet guard gives a pod template (the same requirement as
    :func:`harness._backends.kind_setup.without_fake_nodes`, which kind's preparation applies; kept apart
    since that module builds on this one)."""
    requirement = {"key": FAKE_NODE_LABEL, "operator": "DoesNotExist"}
    node_affinity = dict((affinity or {}).get("nodeAffinity") or {})
    required = dict(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = []
    for term in required.get("nodeSelectorTerms") or [{}]:
        expressions = list(term.get("matchExpressions") or [])
        terms.append({**term, "matchExpressions": expressions + ([] if requirement in expressions else [requirement])})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {**required, "nodeSelectorTerms": terms}
    return {**(affinity or {}), "nodeAffinity": node_affinity}


def with_scheduler_name(pod: Obj, name: str) -> Obj:
    """``pod`` (a Pod manifest, not changed) with ``spec.schedulerName`` ``name``, unless it names
    a scheduler of its own: a pod that chose one (a criterion about another scheduler's pods, say)
    keeps it."""
    spec = pod.get("spec")
    if not isinstance(spec, dict) or spec.get("schedulerName"):
        return pod
    return {**pod, "spec": {**spec, "schedulerName": name}}


async def poll_until(what: str, ready: Callable[[], Awaitable[bool]], *, timeout: float, every: float) -> None:
    """Await ``ready()`` every ``every`` seconds until it is true; ``TimeoutError`` naming ``what``
    after ``timeout`` seconds. For a real cluster's controllers, which nothing can be told to wait on."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await ready():
        if loop.time() >= deadline:
            raise TimeoutError(f"{what}: not after {timeout:g} s")
        await asyncio.sleep(every)


async def make_default_service_account(request: Request, namespace: str) -> None:
    """The ServiceAccount controller's stand-in (module docstring): ``namespace``'s ``default``
    ServiceAccount, unless it is there already."""
    try:
        await request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", body={
            "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}})
    except ApiError as e:
        if e.code != 409:
            raise


class SharedCluster:
    """A scenario's namespace, fake nodes and cleanup on a shared backend (module docstring).

    ``request(method, path, *, body=None, content_type=...)`` is the scenario's own request
    function, so that these requests are journaled as the scenario's."""

    def __init__(self, request: Request, namespace: str, backend: str) -> None:
        self.request = request
        self.namespace = namespace
        self.backend = backend
        self.made_namespace = False
        self.cluster_objects: list[tuple[str, str]] = []  # (resource[.group], name) of cluster-scoped objects
        self.leases: list[str] = []
        self.heartbeat: asyncio.Task[None] | None = None
        self.lease_namespace: bool | None = None  # whether kube-node-lease exists (None: not asked yet)

    def made(self, spec: KindSpec, name: str) -> None:
        """Record a cluster-scoped object the scenario made, to delete it at close."""
        self.cluster_objects.append((f"{spec.resource}.{spec.group}" if spec.group else spec.resource, name))

    async def create_node(self, node: Obj, create: Callable[[str, Obj], Awaitable[Obj]]) -> Obj:
        """Create ``node`` (a Ready Node manifest) as a fake node with ``create``."""
        name = node["metadata"]["name"]
        node["metadata"].setdefault("labels", {})[FAKE_NODE_LABEL] = self.namespace
        now = _rfc3339()
        for condition in node.get("status", {}).get("conditions") or []:
            condition.update(lastHeartbeatTime=now, lastTransitionTime=now)
        created = await create("nodes", node)
        await self.start_heartbeat(created)
        ready = await self._take_off_not_ready(created)
        if ready is None:
            await self._wait_for(f"node {name} without the {NOT_READY_TAINT} taint", lambda: self._untainted(name))
            ready = await self.request("GET", resource_path(resolve_kind("nodes"), None, name))
        return ready

    async def _take_off_not_ready(self, node: Obj) -> Obj | None:
        """The node-lifecycle controller's stand-in (module docstring): the node without the
        not-ready taint, or None when its Ready condition is not True (then it is left to a real
        controller)."""
        path = resource_path(resolve_kind("nodes"), None, node["metadata"]["name"])
        while True:
            taints = (node.get("spec") or {}).get("taints") or []
            if not any(t.get("key") == NOT_READY_TAINT for t in taints):
                return node
            if not any(c.get("type") == "Ready" and c.get("status") == "True"
                       for c in (node.get("status") or {}).get("conditions") or []):
                return None
            rest = [t for t in taints if t.get("key") != NOT_READY_TAINT]
            body = {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"]}, "spec": {"taints": rest or None}}
            try:
                result: Obj = await self.request("PATCH", path, body=body, content_type=PATCH_TYPES["merge"])
                return result
            except ApiError as e:
                if e.code != 409:
                    raise
            node = await self.request("GET", path)

    async def stop_heartbeat(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            await asyncio.gather(self.heartbeat, return_exceptions=True)

    async def make_namespace(self) -> None:
        """Create the namespace, and wait for its ``default`` ServiceAccount where the API serves
        them: a real API server refuses pods until the controller has made it ("error looking up
        service account")."""
        await self.request("POST", resource_path(resolve_kind("namespaces"), None), body={
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": self.namespace, "labels": {SCENARIO_NAMESPACE_LABEL: "true"}}})
        self.made_namespace = True
        core = await self.request("GET", "/api/v1")
        if not any(r.get("name") == "serviceaccounts" for r in core.get("resources") or []):
            return
        path = f"/api/v1/namespaces/{self.namespace}/serviceaccounts/default"
        await make_default_service_account(self.request, self.namespace)
        await self._wait_for(f"the default ServiceAccount of namespace {self.namespace}",
                             lambda: self._exists(path))

    async def keep_daemonsets_off_fake_nodes(self) -> None:
        """The DaemonSet guard (module docstring): every DaemonSet of the cluster whose template
        could place a pod on a fake node gets the requirement; then wait until the DaemonSet
        controller has seen each change, for those it had seen before (on a control plane
        without one, envtest, nothing would ever see them)."""
        try:
            daemonsets = (await self.request("GET", DAEMONSETS)).get("items") or []
        except ApiError as e:
            if e.code != 404:  # an API without DaemonSets has none to keep off
                raise
            return
        for ds in daemonsets:
            meta = ds["metadata"]
            template_spec = ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
            affinity = off_fake_nodes(template_spec.get("affinity"))
            if affinity == template_spec.get("affinity"):
                continue
            path = f"/apis/apps/v1/namespaces/{meta['namespace']}/daemonsets/{meta['name']}"
            observed = (ds.get("status") or {}).get("observedGeneration", 0) >= meta.get("generation", 1)
            try:
                patched = await self.request("PATCH", path, body={"spec": {"template": {"spec": {
                    "affinity": affinity}}}}, content_type=PATCH_TYPES["merge"])
            except ApiError as e:
                raise BackendError(
                    f"DaemonSet {meta['namespace']}/{meta['name']} would put a pod on every fake node of the scenario "
                    f"and could not be kept off them ({e}): let the kubeconfig's user patch daemonsets, or give its pod "
                    f"template the required node affinity {FAKE_NODE_LABEL} DoesNotExist yourself") from e
            log.info("kept DaemonSet %s/%s off fake nodes", meta["namespace"], meta["name"])
            if observed:
                generation = patched["metadata"].get("generation", 0)
                await self._wait_for(f"the DaemonSet controller to see DaemonSet {meta['namespace']}/{meta['name']} "
                                     f"kept off fake nodes", lambda: self._observed(path, generation))

    async def _observed(self, path: str, generation: int) -> bool:
        ds = await self.request("GET", path)
        return bool((ds.get("status") or {}).get("observedGeneration", 0) >= generation)

    async def _exists(self, path: str) -> bool:
        try:
            await self.request("GET", path)
        except ApiError as e:
            if e.code == 404:
                return False
            raise
        return True

    async def _wait_for(self, what: str, ready: Callable[[], Awaitable[bool]]) -> None:
        try:
            await poll_until(what, ready, timeout=SETUP_TIMEOUT, every=0.2)
        except TimeoutError:
            raise BackendError(f"{what} was not ready after {SETUP_TIMEOUT:g} s on the {self.backend} backend") from None

    async def clean_up(self) -> None:
        """Delete what the scenario made on a shared backend; every step is tried, and a failed
        one is logged, so that a cleanup problem never hides the test's own outcome."""
        steps: list[Callable[[], Awaitable[Any]]] = []

        def delete(path: str) -> None:
            steps.append(lambda: self.request("DELETE", path))

        if self.made_namespace:
            delete(f"/api/v1/namespaces/{self.namespace}/pods?gracePeriodSeconds=0")
            for spec in NAMESPACE_CONTENTS:
                delete(resource_path(spec, self.namespace))
            steps.append(self._release_claims)
        for kind, name in reversed(self.cluster_objects):
            delete(resource_path(resolve_kind(kind), None, name))
        lease = resolve_kind("leases")
        for name in self.leases:
            delete(resource_path(lease, NODE_LEASE_NAMESPACE, name))
        if self.made_namespace:
            delete(resource_path(resolve_kind("namespaces"), None, self.namespace))
        for step in steps:
            try:
                await step()
            except ApiError as e:
                if e.code == 405:  # a kind this server cannot delete as a collection
                    log.debug("cleanup of namespace %s: %s", self.namespace, e)
                elif e.code != 404:
                    log.warning("cleanup of namespace %s: %s", self.namespace, e)

    async def _release_claims(self) -> None:
        """The ResourceClaim controller's stand-in: a deleted claim of the namespace still held by
        its ``resource.kubernetes.io/delete-protection`` finalizer (its pods are gone) loses it, so
        its devices are free for the next scenario, as they are once that controller has run."""
        spec = resolve_kind("resourceclaims")
        claims = await self.request("GET", resource_path(spec, self.namespace))
        for claim in claims.get("items") or []:
            meta = claim["metadata"]
            finalizers = meta.get("finalizers") or []
            if not meta.get("deletionTimestamp") or CLAIM_FINALIZER not in finalizers:
                continue
            rest = [f for f in finalizers if f != CLAIM_FINALIZER]
            await self.request("PATCH", resource_path(spec, self.namespace, meta["name"]),
                               body={"metadata": {"resourceVersion": meta["resourceVersion"], "finalizers": rest or None}},
                               content_type=PATCH_TYPES["merge"])

    async def start_heartbeat(self, node: Obj) -> None:
        """A Lease for ``node`` in kube-node-lease, renewed every :data:`HEARTBEAT` seconds (what a
        kubelet does; owned by the node, so the garbage collector removes it with the node)."""
        name = node["metadata"]["name"]
        spec = resolve_kind("leases")
        if self.lease_namespace is None:  # asked once: every node of the scenario gets the same answer
            self.lease_namespace = await self._exists(resource_path(resolve_kind("namespaces"), None, NODE_LEASE_NAMESPACE))
        if not self.lease_namespace:
            return
        await self.request("POST", resource_path(spec, NODE_LEASE_NAMESPACE), body={
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"].get("uid", "")}]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": int(HEARTBEAT * 4), "renewTime": _micro_time()}})
        self.leases.append(name)
        if self.heartbeat is None:
            self.heartbeat = asyncio.create_task(self._renew_leases(), name=f"heartbeat {self.namespace}")

    async def _renew_leases(self) -> None:
        spec = resolve_kind("leases")
        while True:
            await asyncio.sleep(HEARTBEAT)
            for name in list(self.leases):
                try:
                    await self.request("PATCH", resource_path(spec, NODE_LEASE_NAMESPACE, name),
                                        body={"spec": {"renewTime": _micro_time()}},
                                        content_type=PATCH_TYPES["merge"])
                except ApiError as e:
                    log.warning("renewing the Lease of fake node %s: %s", name, e)

    async def _untainted(self, name: str) -> bool:
        node = await self.request("GET", resource_path(resolve_kind("nodes"), None, name))
        return not any(t.get("key") == NOT_READY_TAINT for t in node.get("spec", {}).get("taints") or [])


def _rfc3339() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _micro_time() -> str:
    """``metav1.MicroTime`` as the API writes it (RFC 3339 with microseconds)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
