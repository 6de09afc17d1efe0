"""The scenario DSL: steps that read like the KEP sentence they check.

A test receives a :class:`Scenario` and awaits its steps::

    await s.create_node("n1")
    await s.create_pod("p", gates=["example.com/a"])
    await s.never(s.pod_bound("p"), within=30)
    await s.remove_gate("p", "example.com/a")
    await s.eventually(s.pod_bound("p"), within=5)
    s.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p")

Why it is built this way:

* **State is read through the API, never from the store.** The scenario keeps an informer on the
  pods of its namespace (LIST, then WATCH), so the same scenario can run against a real cluster,
  and waiting costs no polling requests: ``eventually`` and ``never`` re-evaluate on every watch
  event, synchronously, so a state that lasted one event is seen too.
* **Time is whatever the loop says.** ``advance`` and the ``within`` of an expectation are
  ``asyncio.sleep`` and timers: instant under a :class:`~harness.VirtualEventLoop`, real waits
  otherwise. The scenario never knows which scheduler adapter runs it.
* **Settling, not sleeping.** Before it judges, an expectation lets every pending event land: on
  a virtual loop it waits until every other task is blocked (nothing can change without time
  passing); on a real loop it waits until the informer has seen the scenario's last pod write.
* **Requests are judged on the journal, the scheduler's only.** :meth:`Scenario.expect_requests`
  counts journal entries since the scenario started, leaving out the scenario's own requests (it
  tracks them as it sends them), so "exactly one status PATCH" means one from the scheduler.
* **Failure messages say what was expected, what was seen, and show the journal** of requests
  touching the pods involved, so a failure can be read without rerunning it.
* **Strict.** A fault rule the scenario added that never fired fails :meth:`Scenario.verify`;
  a step refused by the API raises :class:`~harness._backends.scenario_client.ApiError` with the ``Status``.
* **Shared clusters.** On a backend that is ``shared`` (a real cluster, see
  :mod:`harness._backends.backend`), the scenario works in a namespace of its own, made at start and
  deleted at close with everything it created (its pods force-deleted first: no kubelet will
  confirm their graceful deletion). Its nodes are fake, as KWOK makes them
  (:mod:`harness._backends.shared_cluster`), deleted at close; the cluster's DaemonSets are kept off them.
  Where another scheduler may run (``scheduler_name`` given: the ``kubeconfig:`` backend), every
  pod the scenario creates, whatever step creates it, names that scheduler in
  ``spec.schedulerName`` unless its manifest names one (:func:`~harness._backends.shared_cluster.with_scheduler_name`).
* **What it cannot see.** When the scheduler under test does not talk through the backend (the
  cluster's own kube-scheduler, ``sees_scheduler=False``), its requests are in no journal and
  fault rules cannot reach it: :meth:`Scenario.requests` and :meth:`Scenario.add_fault` raise
  :class:`~harness._backends.backend.Unsupported`, which the pytest plugin reports as a skip with that
  reason rather than a verdict on the wrong evidence.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from fake_apiserver import FaultRule, UnfiredFaults
from harness._backends.backend import Backend, BackendError
from harness._backends.kubelet import Kubelet, KubeletStandIns
from harness._backends.scenario_client import PATCH_TYPES, ScenarioClient, ScenarioInformer, resolve_kind, resource_path
from harness._backends.shared_cluster import JOURNAL_CATCH_UP, SharedCluster, unjournaled, with_scheduler_name
from harness._scenario.expectations import (
    Expectation,
    ExpectationFailed,
    NotJudged,
    Predicate,
    condition_of,
    describe_predicate,
    format_pod,
)
from harness._scenario.journal_reading import JournalReading, seconds_text
from harness._scenario.manifests import load_manifests
from harness._scenario.objects import ObjectMaker
from harness._time.virtual_time import VirtualEventLoop

__all__ = ["DEFAULT_REAL_TIME_WAIT", "Expectation", "ExpectationFailed", "Scenario", "field_value", "parse_taint"]

Obj = dict[str, Any]
DEFAULT_IMAGE = "registry.k8s.io/pause:3.10"
DEFAULT_DEVICE_CLASS = "gpu.example.com"
#: The longest a criterion watches, on real time, for something that must not happen
#: (``--real-time-wait``): virtual time watches any span for free, real time pays for it.
DEFAULT_REAL_TIME_WAIT = 30.0


class Scenario(JournalReading):
    """Steps and expectations against one backend; ``async with Scenario(backend) as s:``.

    Objects go to ``namespace``; the pods informer watches that namespace only. ``namespace``
    defaults to ``default`` on a backend of its own (nothing is deleted: every run gets a fresh
    one) and to a new ``sh-<random>`` namespace on a shared backend (module docstring).
    ``sees_scheduler`` says whether the scheduler's requests pass through the backend;
    ``scheduler_name``, when given, goes into the ``spec.schedulerName`` of the pods it creates
    that name none (None: the API server's ``default-scheduler``).
    """

    def __init__(self, backend: Backend, *, namespace: str | None = None, poll: float = 0.1,
                 sees_scheduler: bool = True, scheduler_name: str | None = None,
                 real_time_wait: float = DEFAULT_REAL_TIME_WAIT) -> None:
        self.backend = backend
        self.real_time_wait = real_time_wait
        #: each watch :meth:`span` cut on real time: (the span asked, the span watched)
        self.cut_waits: list[tuple[float, float]] = []
        self.scheduler_name = scheduler_name
        self.shared = backend.shared
        if namespace is None:
            namespace = f"sh-{secrets.token_hex(4)}" if self.shared else "default"
        self.namespace = namespace
        self.sees_scheduler = sees_scheduler
        self.other_nodes: list[Obj] = []  # on a shared backend: the nodes there before the scenario
        self.poll = poll
        self.client = ScenarioClient(backend.url)
        self.client.on_request = self._on_request
        self.client.on_done = self._on_done
        self.pods = ScenarioInformer(self.client, resource_path(resolve_kind("pods"), namespace))
        self.own_requests: set[int] = set()
        self.start_seq = 0
        self.start_time = 0.0
        self._faults: list[FaultRule] = []
        self._last_pod_rv = 0
        self._cluster = SharedCluster(self._request, namespace, backend.name) if self.shared else None
        self.kubelets = KubeletStandIns(self)
        self.pods.listeners.append(self.kubelets.on_pod)
        self.objects = ObjectMaker(self._request, self.client, namespace,
                                   self._cluster.made if self._cluster is not None else None)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> Scenario:
        """Start the informer and mark where the scenario's window of the journal begins (on a
        shared backend, make the namespace first)."""
        if self._cluster is not None:
            try:
                await self._cluster.keep_daemonsets_off_fake_nodes()  # first: refused, it leaves nothing behind
            except BaseException:
                await self.client.close()
                raise
            await self._cluster.make_namespace()
            nodes = await self._request("GET", resource_path(resolve_kind("nodes"), None))
            self.other_nodes = list(nodes.get("items") or [])
        await self.pods.start()
        journal = self.backend.journal
        self.start_seq = len(journal) if journal is not None else 0
        self.start_time = self.now
        return self

    async def close(self) -> None:
        """Stop watching; on a shared backend, delete what the scenario made (module docstring)."""
        if self._cluster is not None:
            await self._cluster.stop_heartbeat()
        await self.kubelets.stop()
        await self.pods.stop()
        try:
            if self._cluster is not None:
                try:
                    await self.objects.clean_up()
                finally:
                    await self._cluster.clean_up()
        finally:
            await self.client.close()

    async def __aenter__(self) -> Scenario:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def verify(self) -> None:
        """Strict end of a scenario: every fault rule it added must have fired."""
        unfired = [rule for rule in self._faults if rule.fired == 0]
        if unfired:
            raise UnfiredFaults(
                "fault rules that never fired (the scenario did not exercise them):\n"
                + "\n".join(f"  {rule.describe()}" for rule in unfired)
            )

    # ------------------------------------------------------------------ own requests

    def _on_request(self, method: str, path: str) -> object:
        journal = self.backend.journal
        return len(journal) if journal is not None else 0

    def _on_done(self, method: str, path: str, token: object) -> None:
        """Claim the first journal entry for this request made since it was sent."""
        journal = self.backend.journal
        if journal is None or not isinstance(token, int):
            return
        verbs = _VERBS.get(method, ())
        path = path.partition("?")[0]
        for entry in journal.entries[token:]:
            if (entry.type == "request" and entry.path == path and entry.verb in verbs
                    and entry.seq not in self.own_requests):
                self.own_requests.add(entry.seq)
                return

    async def _request(self, method: str, path: str, *, body: Any = None,
                       content_type: str = "application/json") -> Any:
        if self.scheduler_name is not None and method == "POST" and isinstance(body, dict) \
                and body.get("kind") == "Pod" and path.partition("?")[0].endswith("/pods"):
            body = with_scheduler_name(body, self.scheduler_name)  # every pod create passes here
        result = await self.client.request(method, path, body=body, content_type=content_type)
        if isinstance(result, dict) and result.get("kind") == "Pod":
            rv = result.get("metadata", {}).get("resourceVersion", "")
            if rv.isdigit():
                self._last_pod_rv = max(self._last_pod_rv, int(rv))
        return result

    def _path(self, kind: str, name: str | None = None, subresource: str | None = None) -> str:
        return resource_path(resolve_kind(kind), self.namespace, name, subresource)

    # ------------------------------------------------------------------ steps

    async def create(self, kind: str, manifest: Obj) -> Obj:
        """Create any served kind from a manifest (its namespace defaults to the scenario's)."""
        spec = resolve_kind(kind)
        body = {"apiVersion": spec.api_version, "kind": spec.kind, **manifest}
        result: Obj = await self._request("POST", resource_path(spec, self.namespace), body=body)
        if not spec.namespaced and self._cluster is not None:
            self._cluster.made(spec, result["metadata"]["name"])
        return result

    async def create_object(self, manifest: Obj) -> Obj:
        """Create a whole manifest (``apiVersion``, ``kind``, ``metadata.name``, ...) of any kind
        the server serves, a custom one included: its resource comes from the server's discovery.
        A namespaced object goes to the scenario's namespace; a CustomResourceDefinition is
        returned once ``Established``, its kind then ready to create (:mod:`harness._scenario.objects`)."""
        return await self.objects.create(manifest)

    async def create_objects(self, manifests: Iterable[Obj] | str | Path) -> list[Obj]:
        """Create manifests in order (:meth:`create_object`): a list of them, or the path of a
        YAML file of one or more documents (``---``); a CRD first, then objects of its kind."""
        items = load_manifests(manifests) if isinstance(manifests, (str, Path)) else list(manifests)
        return [await self.objects.create(manifest, index) for index, manifest in enumerate(items)]

    async def get_object(self, api_version: str, kind: str, name: str) -> Obj:
        """GET one object of any served kind, custom ones included (found through discovery)."""
        result: Obj = await self._request("GET", await self.objects.path(api_version, kind, name))
        return result

    async def expect_field(self, api_version: str, kind: str, name: str, field: str, value: Any,
                           within: float = 0.0) -> Obj | None:
        """Wait until the object's ``field`` (a dotted path: ``spec.minMember``, ``status.phase``;
        ``None``: absent) equals ``value``, watching that object; fail after ``within`` seconds
        saying what it was. For objects of any kind, custom ones included; returns the object."""
        __tracebackhide__ = True  # a failure points at the scenario's line
        start = self.now
        met, obj = await self.objects.watch(await self.objects.path(api_version, kind), name,
                                            lambda now: field_value(now, field) == value, within)
        if not met:
            seen = "it does not exist" if obj is None else f"{field} is {json.dumps(field_value(obj, field))}"
            raise ExpectationFailed(f"expected within {seconds_text(within)} s (t={start:.3f}..{start + within:.3f}): "
                                    f"{kind} {name} has {field} {json.dumps(value)}\nobserved at t={self.now:.3f}: "
                                    f"{seen}")
        return obj

    async def expect_condition(self, api_version: str, kind: str, name: str, type: str, *, status: str | None = None,
                               reason: str | None = None, within: float = 0.0) -> Obj:
        """Wait until the object's ``status.conditions`` has one of ``type`` whose given fields
        (None: any) are these, watching that object (a PodGroup's ``PodGroupInitiallyScheduled``);
        fail after ``within`` seconds saying what it had. For objects of any kind; returns it."""
        __tracebackhide__ = True  # a failure points at the scenario's line
        start = self.now
        wanted = {k: v for k, v in (("status", status), ("reason", reason)) if v is not None}

        def met(obj: Obj | None) -> bool:
            found = condition_of(obj, type)
            return found is not None and all(found.get(k) == v for k, v in wanted.items())

        done, obj = await self.objects.watch(await self.objects.path(api_version, kind), name, met, within)
        if not done or obj is None:
            fields = "".join(f" {k}={v}" for k, v in wanted.items())
            seen = "it does not exist" if obj is None else (
                f"its conditions: {json.dumps((obj.get('status') or {}).get('conditions') or [])}")
            raise ExpectationFailed(f"expected within {seconds_text(within)} s (t={start:.3f}..{start + within:.3f}): "
                                    f"{kind} {name} has condition {type}{fields}\nobserved at t={self.now:.3f}: {seen}")
        return obj

    async def create_node(
        self, name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, *,
        labels: dict[str, str] | None = None, taints: Sequence[str | Obj] = (), unschedulable: bool = False,
        kubelet: Kubelet | None = Kubelet(),
    ) -> Obj:
        """A Ready node with this capacity (allocatable = capacity) and the hostname label.

        ``taints`` are dicts or ``key[=value]:Effect`` strings. On a shared backend it is a fake
        node (module docstring): labelled, heart-beating, and returned once the cluster has taken
        off the ``node.kubernetes.io/not-ready`` taint its admission puts on every new node.
        ``kubelet`` is what the node's kubelet stand-in does (:mod:`harness._backends.kubelet`; by default
        it confirms a deletion once the grace period has passed); ``None``: no stand-in at all.
        """
        if kubelet is not None:
            self.kubelets.add(name, kubelet, {"cpu": cpu, "memory": memory})
        spec: Obj = {}
        if taints:
            spec["taints"] = [parse_taint(t) for t in taints]
        if unschedulable:
            spec["unschedulable"] = True
        capacity = {"cpu": cpu, "memory": memory, "pods": str(pods)}
        node = {
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": spec,
            "status": {
                "capacity": capacity, "allocatable": dict(capacity),
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                "message": "kubelet is posting ready status"}],
            },
        }
        if self._cluster is None:
            return await self.create("nodes", node)
        return await self._cluster.create_node(node, self.create)

    async def create_pod(
        self, name: str, cpu: str | None = None, *, memory: str | None = None, gates: Sequence[str] = (),
        claims: Sequence[str] = (), node_selector: dict[str, str] | None = None,
        labels: dict[str, str] | None = None, manifest: Obj | None = None,
    ) -> Obj:
        """A pod with one pause container. ``claims`` reference ResourceClaims by name (each also
        claimed by the container); ``manifest`` is a base pod the other arguments are laid over."""
        pod: Obj = json.loads(json.dumps(manifest)) if manifest else {}
        meta = pod.setdefault("metadata", {})
        meta["name"] = name
        if labels:
            meta["labels"] = {**meta.get("labels", {}), **labels}
        spec = pod.setdefault("spec", {})
        containers = spec.setdefault("containers", [{"name": "c", "image": DEFAULT_IMAGE}])
        requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
        if requests:
            resources = containers[0].setdefault("resources", {})
            resources["requests"] = {**resources.get("requests", {}), **requests}
        if gates:
            spec["schedulingGates"] = [*spec.get("schedulingGates", []), *({"name": g} for g in gates)]
        if claims:
            spec["resourceClaims"] = [*spec.get("resourceClaims", []),
                                      *({"name": c, "resourceClaimName": c} for c in claims)]
            resources = containers[0].setdefault("resources", {})
            resources["claims"] = [*resources.get("claims", []), *({"name": c} for c in claims)]
        if node_selector:
            spec["nodeSelector"] = {**spec.get("nodeSelector", {}), **node_selector}
        return await self.create("pods", pod)

    async def create_claim(self, name: str, device_class: str = DEFAULT_DEVICE_CLASS) -> Obj:
        """A ResourceClaim (resource.k8s.io/v1) asking for one device of ``device_class``."""
        claim = {"metadata": {"name": name},
                 "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": device_class}}]}}}
        return await self.create("resourceclaims", claim)

    async def get(self, kind: str, name: str) -> Obj:
        """GET one object (a request in the journal, marked as the scenario's own)."""
        result: Obj = await self._request("GET", self._path(kind, name))
        return result

    async def remove_gate(self, pod: str, gate: str) -> Obj:
        """Remove one scheduling gate with a strategic merge patch (``$patch: delete``).

        Raises ``ValueError`` when the pod does not carry the gate: a delete directive for a
        missing element is a silent no-op in the API, which would hide a mistake in the scenario.
        """
        current = await self.get("pods", pod)
        gates = [g.get("name") for g in current.get("spec", {}).get("schedulingGates") or []]
        if gate not in gates:
            raise ValueError(f"pod {self.namespace}/{pod} has no scheduling gate {gate!r} (its gates: {gates})")
        body = {"spec": {"schedulingGates": [{"$patch": "delete", "name": gate}]}}
        return await self.patch("pods", pod, body)

    async def remove_all_gates(self, pod: str) -> Obj:
        """Remove every scheduling gate at once (merge patch ``schedulingGates: null``)."""
        return await self.patch("pods", pod, {"spec": {"schedulingGates": None}}, type="merge")

    async def patch(self, kind: str, name: str, body: Any, type: str = "strategic",
                    subresource: str | None = None, *, api_version: str | None = None) -> Obj:
        """PATCH with ``type`` ``strategic``, ``merge`` or ``json`` (RFC 6902, ``body`` a list).
        With ``api_version``, ``kind`` is found through discovery (a custom resource's kind; a
        custom resource takes no strategic merge patch)."""
        if type not in PATCH_TYPES:
            raise ValueError(f"unknown patch type {type!r}: use strategic, merge or json")
        result: Obj = await self._request("PATCH", await self._any_path(kind, name, subresource, api_version),
                                          body=body, content_type=PATCH_TYPES[type])
        return result

    async def _any_path(self, kind: str, name: str, subresource: str | None, api_version: str | None) -> str:
        if api_version is None:
            return self._path(kind, name, subresource)
        path = await self.objects.path(api_version, kind, name)
        return f"{path}/{subresource}" if subresource else path

    async def resize(self, pod: str, cpu: str | None = None, *, memory: str | None = None,
                     container: str | None = None) -> Obj:
        """Resize a running pod in place (KEP-1287): a strategic merge patch of ``pods/<pod>/resize``
        setting the requests of ``container`` (default: the pod's first)."""
        requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
        if not requests:
            raise ValueError("resize: give cpu, memory or both")
        if container is None:
            current = self.pod(pod) or await self.get("pods", pod)
            container = current["spec"]["containers"][0]["name"]
        body = {"spec": {"containers": [{"name": container, "resources": {"requests": requests}}]}}
        return await self.patch("pods", pod, body, subresource="resize")

    async def set_allocatable(self, node: str, cpu: str | None = None, *, memory: str | None = None) -> Obj:
        """The node's kubelet reports another capacity: a merge patch of ``nodes/<node>/status``
        setting ``capacity`` and ``allocatable`` of ``cpu`` and/or ``memory`` (as a kubelet writes
        its node's status); the node's stand-in then answers its pending resizes from them."""
        amounts = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
        if not amounts:
            raise ValueError("set_allocatable: give cpu, memory or both")
        result = await self.patch("nodes", node, {"status": {"capacity": amounts, "allocatable": amounts}},
                                  type="merge", subresource="status")
        if node in self.kubelets.nodes:
            self.kubelets.set_allocatable(node, (result.get("status") or {}).get("allocatable") or {})
        return result

    async def reconfigure_kubelet(self, node: str, kubelet: Kubelet) -> None:
        """The node's kubelet stand-in restarts as ``kubelet`` says (a kubelet restarted with another
        configuration): from now on it does what that says, and it answers the node's pending
        resizes again. No request: the kubelet's next writes are the change."""
        if node not in self.kubelets.nodes:
            raise ValueError(f"node {node} has no kubelet stand-in (created with kubelet=None, or not by this scenario)")
        self.kubelets.reconfigure(node, kubelet)

    async def delete(self, kind: str, name: str, *, options: Obj | None = None, api_version: str | None = None) -> Any:
        """DELETE with default options, or with ``options`` (a ``DeleteOptions`` body:
        ``gracePeriodSeconds``, ``preconditions``, ``propagationPolicy``); ``api_version`` as for
        :meth:`patch`."""
        return await self._request("DELETE", await self._any_path(kind, name, None, api_version), body=options)

    def span(self, seconds: float, *, whole: str | None = None) -> float:
        """How long to watch for something that must not happen, ``seconds`` wanted: all of it
        under virtual time (free) or when it is within :attr:`real_time_wait`; on real time past
        that, the cap, and the cut is kept in :attr:`cut_waits` (the report prints it beside the
        criterion's verdict). ``whole`` says why the criterion needs every second of the span (the
        event it waits for comes only at its end): then a cut would judge nothing, and the
        criterion is not judged, saying so."""
        if self.backend.is_virtual or seconds <= self.real_time_wait:
            return seconds
        if whole is not None:
            raise NotJudged(f"needs a {seconds:g} s watch on real time ({whole}), and this run's real-time wait is "
                            f"{self.real_time_wait:g} s: give --real-time-wait {seconds:g} to judge it")
        self.cut_waits.append((seconds, self.real_time_wait))
        return self.real_time_wait

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass: instant under virtual time, a real wait otherwise."""
        await asyncio.sleep(seconds)

    async def add_fault(self, rule: FaultRule) -> FaultRule:
        """Add a fault rule to the backend; :meth:`verify` later fails if it never fired.

        A coroutine like every step: a backend in another process takes rules over HTTP."""
        faults = self.backend.faults
        if faults is None:
            raise BackendError(
                f"the {self.backend.name} backend cannot inject faults; run this scenario on a backend "
                "with fault injection (--backend fake)")
        self._require_scheduler_traffic("inject faults into the scheduler's requests")
        self._faults.append(rule)
        return faults.add(rule)

    async def remove_fault(self, rule: FaultRule) -> None:
        """Remove a rule (it still counts for :meth:`verify`)."""
        faults = self.backend.faults
        if faults is not None:
            faults.remove(rule)

    # ------------------------------------------------------------------ what the scenario sees

    def pod(self, name: str) -> Obj | None:
        """The pod as the informer last saw it, or None."""
        return self.pods.objects.get(name)

    def pod_bound(self, name: str) -> Expectation:
        """The pod has ``spec.nodeName`` (bound by a scheduler)."""
        return Expectation(
            f"pod {self.namespace}/{name} is bound to a node",
            lambda: bool((self.pod(name) or {}).get("spec", {}).get("nodeName")),
            lambda: format_pod(self.namespace, name, self.pod(name)),
            (name,),
        )

    def pod_condition(self, name: str, type: str, status: str | None = None, reason: str | None = None,
                      message: str | None = None) -> Expectation:
        """The pod has a condition of ``type`` whose given fields (None: any) equal these."""
        wanted = {k: v for k, v in (("status", status), ("reason", reason), ("message", message)) if v is not None}

        def test() -> bool:
            condition = condition_of(self.pod(name), type)
            return condition is not None and all(condition.get(k, "") == v for k, v in wanted.items())

        fields = " ".join(f"{k}={json.dumps(v) if k == 'message' else v}" for k, v in wanted.items())
        return Expectation(
            f"pod {self.namespace}/{name} has condition {type}" + (f" with {fields}" if fields else ""),
            test, lambda: format_pod(self.namespace, name, self.pod(name)), (name,),
        )

    def pods_bound(self, prefix: str = "", count: int | None = None) -> Expectation:
        """Every pod whose name starts with ``prefix`` is bound (and there are ``count`` of them)."""
        def matching() -> list[Obj]:
            return [p for n, p in sorted(self.pods.objects.items()) if n.startswith(prefix)]

        def test() -> bool:
            pods = matching()
            return (count is None or len(pods) == count) and all(p["spec"].get("nodeName") for p in pods)

        def observe() -> str:
            pods = matching()
            unbound = [p["metadata"]["name"] for p in pods if not p["spec"].get("nodeName")]
            return f"{len(pods)} pods named {prefix}*, unbound: {unbound}"

        n = f"{count} " if count is not None else "all "
        return Expectation(f"{n}pods named {self.namespace}/{prefix}* are bound", test, observe)

    async def condition(self, pod: str, type: str) -> Obj | None:
        """The pod's current condition of ``type`` (None when absent), after settling."""
        await self.settle()
        return condition_of(self.pod(pod), type)

    # ------------------------------------------------------------------ expectations

    async def settle(self, timeout: float = 5.0) -> None:
        """Let pending events land before judging (module docstring)."""
        loop = asyncio.get_running_loop()
        if isinstance(loop, VirtualEventLoop):
            await loop.wait_all_tasks_blocked()
            return
        target = self._last_pod_rv
        if target:
            seen = asyncio.Event()

            def check(event: str, obj: Obj) -> None:
                if self.pods.rv.isdigit() and int(self.pods.rv) >= target:
                    seen.set()

            check("", {})
            self.pods.listeners.append(check)
            try:
                await asyncio.wait_for(seen.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            finally:
                self.pods.listeners.remove(check)
        journal = self.backend.journal
        if journal is not None and self.sees_scheduler:  # the writes behind what the informer saw
            deadline = loop.time() + JOURNAL_CATCH_UP
            while unjournaled(journal.entries[self.start_seq:], self.namespace, list(self.pods.objects.values())):
                if loop.time() >= deadline:
                    break
                await asyncio.sleep(0.01)

    async def eventually(self, predicate: Predicate, within: float) -> None:
        """Return as soon as ``predicate`` holds; fail if it does not within ``within`` seconds."""
        __tracebackhide__ = True  # a failure points at the scenario's line
        expectation = describe_predicate(predicate)
        start = self.now
        await self.settle()
        if expectation.test():
            return
        held = asyncio.Event()

        def check(event: str, obj: Obj) -> None:
            if not held.is_set() and expectation.test():
                held.set()

        self.pods.listeners.append(check)
        # on real time a named expectation is polled too: what it reads of the journal may land
        # after the pod event that made it true (settle)
        real_time = not isinstance(asyncio.get_running_loop(), VirtualEventLoop)
        poller = None if isinstance(predicate, Expectation) and not real_time else asyncio.create_task(self._poll(check))
        try:
            await asyncio.wait_for(held.wait(), within)
            if real_time:
                await self.settle()  # what follows may judge the writes behind what was just seen
        except asyncio.TimeoutError:
            raise ExpectationFailed(self._failure(
                f"expected within {seconds_text(within)} s (t={start:.3f}..{start + within:.3f}): {expectation.description}",
                f"observed at t={self.now:.3f}: {expectation.observe()}",
                expectation, start)) from None
        finally:
            self.pods.listeners.remove(check)
            if poller is not None:
                poller.cancel()

    async def never(self, predicate: Predicate, within: float) -> None:
        """Fail as soon as ``predicate`` holds during the next ``within`` seconds (checked at every
        event, at the start and at the end)."""
        __tracebackhide__ = True  # a failure points at the scenario's line
        expectation = describe_predicate(predicate)
        start = self.now
        violation: list[str] = []
        broke = asyncio.Event()

        def check(event: str, obj: Obj) -> None:
            if not violation and expectation.test():
                violation.append(f"but at t={self.now:.3f} it held: {expectation.observe()}")
                broke.set()

        await self.settle()
        check("", {})
        self.pods.listeners.append(check)
        real_time = not isinstance(asyncio.get_running_loop(), VirtualEventLoop)
        poller = None if isinstance(predicate, Expectation) and not real_time else asyncio.create_task(self._poll(check))
        try:
            try:
                await asyncio.wait_for(broke.wait(), within)
            except asyncio.TimeoutError:
                await self.settle()
                check("", {})
        finally:
            self.pods.listeners.remove(check)
            if poller is not None:
                poller.cancel()
        if violation:
            raise ExpectationFailed(self._failure(
                f"expected never within {seconds_text(within)} s (t={start:.3f}..{start + within:.3f}): "
                f"{expectation.description}", violation[0], expectation, start))

    async def _poll(self, check: Callable[[str, Obj], None]) -> None:
        """Plain callables may read more than the informer: re-check them every ``poll`` seconds."""
        while True:
            await asyncio.sleep(self.poll)
            check("", {})


_VERBS = {
    "GET": ("get", "list", "watch"), "POST": ("create",), "PUT": ("update",), "PATCH": ("patch",),
    "DELETE": ("delete", "deletecollection"),
}


def parse_taint(taint: str | Obj) -> Obj:
    """``key[=value]:Effect`` to a taint dict (dicts pass through)."""
    if isinstance(taint, dict):
        return taint
    key_value, sep, effect = taint.rpartition(":")
    if not sep or effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise ValueError(f"taint {taint!r}: write key[=value]:Effect with Effect NoSchedule, PreferNoSchedule or NoExecute")
    key, _, value = key_value.partition("=")
    out: Obj = {"key": key, "effect": effect}
    if value:
        out["value"] = value
    return out


def field_value(obj: Obj | None, field: str) -> Any:
    """The value at a dotted path of ``obj`` (``spec.minMember``); None where any step is absent."""
    value: Any = obj
    for step in field.split("."):
        value = value.get(step) if isinstance(value, dict) else None
    return value


