"""Fields dropped while their feature gate is off (``fake_apiserver._registry.dropdisabled``), over HTTP.

The same writes go to the fake and, in :func:`test_a_real_kube_apiserver_answers_as_recorded`
(with ``KUBEBUILDER_ASSETS``), to a real kube-apiserver started by ``harness._backends.envtest``: a Node
created with KEP-5836's ``spec.podPreemptionPolicy``, one that gets it by an update, one that had it
before the gate went off (the API server restarted with other ``--feature-gates`` over the same
etcd: :meth:`~fake_apiserver.Store.set_feature_gates` on the fake,
:meth:`~harness._backends.envtest.ControlPlane.restart_apiserver` on envtest), and a pod's pod-level
resources through ``/resize`` and ``/status`` with ``InPlacePodLevelResourcesVerticalScaling`` on
and off. Each step records its status code and the field as stored (``ABSENT`` when the answer
lacks it), or the refusal's message. The expected values are literal data: what kube-apiserver
v1.37.2 (built from k8s.io/kubernetes v1.37.2, etcd 3.7.0) answered to the same requests.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from fake_apiserver import FakeApiServer, FaultProxy, Store, by_resource
from fake_apiserver._registry.dropdisabled import NODE_RULES, POD_RULES
from harness._backends.envtest import ASSETS_VARIABLE, envtest_unavailable
from harness._time.virtual_time import VirtualClock, run

Obj = dict[str, Any]
Step = tuple[str, int, Any]
#: (method, path, body, content type) -> (status code, decoded body)
Call = Callable[[str, str, Any, str], Awaitable[tuple[int, Any]]]
Restart = Callable[[Mapping[str, bool]], Awaitable[None]]

NODES = "/api/v1/nodes"
PODS = "/api/v1/namespaces/default/pods"
MERGE = "application/merge-patch+json"
JSON = "application/json"
PREEMPTION = "InPlacePodVerticalScalingSchedulerPreemption"
POD_LEVEL_RESIZE = "InPlacePodLevelResourcesVerticalScaling"
ABSENT = "<absent>"
PODS_SPEC = by_resource("", "v1", "pods")
NODES_SPEC = by_resource("", "v1", "nodes")
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver v1.37")


def _node(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": spec}


def _policy(*owners: str) -> Obj:
    return {"disableResizePreemption": list(owners)}


def _field(answer: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(answer, dict) or key not in answer:
            return ABSENT
        answer = answer[key]
    return answer


def _outcome(code: int, answer: Any, *path: str) -> Any:
    """The field as stored when the write succeeded, else the refusal's message."""
    return _field(answer, *path) if code < 300 else answer.get("message")


async def node_writes(call: Call) -> list[Step]:
    """A Node created with the field, one that gets it by an update, one created with an empty
    policy, then changes of the first: a label (the field kept as it is), the field changed."""
    steps: list[Step] = []

    async def step(what: str, method: str, path: str, body: Any, content_type: str = JSON) -> Any:
        code, answer = await call(method, path, body, content_type)
        steps.append((what, code, _outcome(code, answer, "spec", "podPreemptionPolicy")))
        return answer

    await step("create with the field", "POST", NODES, _node("n1", podPreemptionPolicy=_policy("example.com/a")))
    await call("POST", NODES, _node("n2"), JSON)
    await step("update adding the field", "PATCH", f"{NODES}/n2",
               {"spec": {"podPreemptionPolicy": _policy("example.com/b")}}, MERGE)
    await step("create with an empty policy", "POST", NODES, _node("n3", podPreemptionPolicy={}))
    await step("update of a label", "PATCH", f"{NODES}/n1", {"metadata": {"labels": {"a": "1"}}}, MERGE)
    await step("update changing the field", "PATCH", f"{NODES}/n1",
               {"spec": {"podPreemptionPolicy": _policy("example.com/c")}}, MERGE)
    return steps


async def node_writes_after_the_gate_went_off(call: Call, restart: Restart) -> list[Step]:
    """With the gate on, n1 is created with the field; the API server restarts with the gate
    off; then updates of n1 (which already uses the field) and of n2 (which does not)."""
    steps: list[Step] = []

    async def step(what: str, method: str, path: str, body: Any, content_type: str = MERGE) -> Any:
        code, answer = await call(method, path, body, content_type)
        steps.append((what, code, _outcome(code, answer, "spec", "podPreemptionPolicy")))
        return answer

    await step("create with the field, gate on", "POST", NODES,
               _node("n1", podPreemptionPolicy=_policy("example.com/a")), JSON)
    await call("POST", NODES, _node("n2"), JSON)
    await restart({PREEMPTION: False})
    await step("update of a label", "PATCH", f"{NODES}/n1", {"metadata": {"labels": {"a": "1"}}})
    code, current = await call("GET", f"{NODES}/n1", None, JSON)
    current["metadata"]["labels"]["b"] = "2"
    await step("PUT of the node as read, a label added", "PUT", f"{NODES}/n1", current, JSON)
    await step("update changing the field", "PATCH", f"{NODES}/n1",
               {"spec": {"podPreemptionPolicy": _policy("example.com/c")}})
    await step("update removing the field", "PATCH", f"{NODES}/n1", {"spec": {"podPreemptionPolicy": None}})
    await step("update adding it back", "PATCH", f"{NODES}/n1",
               {"spec": {"podPreemptionPolicy": _policy("example.com/a")}})
    await step("update adding it to a node that never had it", "PATCH", f"{NODES}/n2",
               {"spec": {"podPreemptionPolicy": _policy("example.com/b")}})
    return steps


POD_RESOURCES = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}
RESIZED = {"requests": {"cpu": "150m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}


async def pod_level_resize(call: Call, *, service_account: bool = False) -> list[Step]:
    """A pod with pod-level resources: created, resized through ``/resize``, its pod-level
    ``status.resources`` and ``status.allocatedResources`` written through ``/status``.
    ``service_account``: make the namespace's ``default`` ServiceAccount first (a real server's
    admission needs it; no controller-manager runs on envtest, the fake has no such admission)."""
    steps: list[Step] = []
    if service_account:
        await call("POST", "/api/v1/namespaces/default/serviceaccounts",
                   {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}, JSON)
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}], "resources": POD_RESOURCES}}
    code, answer = await call("POST", PODS, body, JSON)
    steps.append(("create", code, _outcome(code, answer, "spec", "resources")))
    code, answer = await call("PATCH", f"{PODS}/p/resize", {"spec": {"resources": RESIZED}}, MERGE)
    steps.append(("resize of the pod-level resources", code, _outcome(code, answer, "spec", "resources")))
    status = {"status": {"resources": POD_RESOURCES, "allocatedResources": POD_RESOURCES["requests"]}}
    code, answer = await call("PATCH", f"{PODS}/p/status", status, MERGE)
    steps.append(("status write of pod-level resources", code,
                  _outcome(code, answer, "status", "resources") if code >= 300 else
                  [_field(answer, "status", "resources"), _field(answer, "status", "allocatedResources")]))
    return steps


# ------------------------------------------------------------------- what kube-apiserver v1.37.2 did

A = {"disableResizePreemption": ["example.com/a"]}
#: kube-apiserver v1.37.2 (etcd 3.7.0), by InPlacePodVerticalScalingSchedulerPreemption: on
#: stores the field (an empty policy as ``{}``); off (its default) drops it on create and update.
EXPECTED_NODE_WRITES: dict[bool, list[Step]] = {
    True: [
        ("create with the field", 201, A),
        ("update adding the field", 200, {"disableResizePreemption": ["example.com/b"]}),
        ("create with an empty policy", 201, {}),
        ("update of a label", 200, A),
        ("update changing the field", 200, {"disableResizePreemption": ["example.com/c"]}),
    ],
    False: [
        ("create with the field", 201, ABSENT),
        ("update adding the field", 200, ABSENT),
        ("create with an empty policy", 201, ABSENT),
        ("update of a label", 200, ABSENT),
        ("update changing the field", 200, ABSENT),
    ],
}
#: kube-apiserver v1.37.2, started with the gate on, restarted with it off over the same etcd: a
#: node that uses the field keeps it through updates that leave it alone; changing it is
#: Forbidden (``+k8s:ifDisabled(...)=+k8s:forbidden``); once removed it is not in use any more.
EXPECTED_AFTER_THE_GATE_WENT_OFF: list[Step] = [
    ("create with the field, gate on", 201, A),
    ("update of a label", 200, A),
    ("PUT of the node as read, a label added", 200, A),
    ("update changing the field", 422, 'Node "n1" is invalid: spec.podPreemptionPolicy: Forbidden'),
    ("update removing the field", 200, ABSENT),
    ("update adding it back", 200, ABSENT),
    ("update adding it to a node that never had it", 200, ABSENT),
]
PLR = {"limits": {"cpu": "200m", "memory": "200Mi"}, "requests": {"cpu": "100m", "memory": "100Mi"}}
#: kube-apiserver v1.37.2, by InPlacePodLevelResourcesVerticalScaling (beta, on by default).
EXPECTED_POD_LEVEL_RESIZE: dict[bool, list[Step]] = {
    True: [
        ("create", 201, PLR),
        ("resize of the pod-level resources", 200,
         {"limits": {"cpu": "200m", "memory": "200Mi"}, "requests": {"cpu": "150m", "memory": "100Mi"}}),
        ("status write of pod-level resources", 200, [PLR, {"cpu": "100m", "memory": "100Mi"}]),
    ],
    False: [
        ("create", 201, PLR),
        ("resize of the pod-level resources", 422,
         'Pod "p" is invalid: []: Forbidden: resize of pods with pod-level resources is forbidden when '
         "InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled"),
        ("status write of pod-level resources", 200, [ABSENT, ABSENT]),
    ],
}


# ------------------------------------------------------------------- the fake


def _on_fake(body: Callable[[Call, FakeApiServer], Awaitable[Any]], gates: Mapping[str, bool]) -> Any:
    async def main() -> Any:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop), feature_gates=gates) as server:
            async with aiohttp.ClientSession(server.url) as session:
                return await body(_caller(session), server)

    return run(main())


def _caller(session: aiohttp.ClientSession) -> Call:
    async def call(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        async with session.request(method, path, data=data, headers={"Content-Type": content_type}) as r:
            return r.status, await r.json(content_type=None)

    return call


@pytest.mark.parametrize("on", [True, False], ids=["gate on", "gate off"])
def test_a_node_field_is_stored_only_while_its_gate_is_on(on: bool) -> None:
    steps = _on_fake(lambda call, server: node_writes(call), {PREEMPTION: on})
    assert steps == EXPECTED_NODE_WRITES[on]


def test_the_gate_is_off_by_default_in_v1_37() -> None:
    """KEP-5836's gate is alpha in v1.37: a fake given no gates drops the field."""
    assert _on_fake(lambda call, server: node_writes(call), {}) == EXPECTED_NODE_WRITES[False]


def test_a_node_that_had_the_field_before_the_gate_went_off_keeps_it() -> None:
    async def body(call: Call, server: FakeApiServer) -> list[Step]:
        async def restart(gates: Mapping[str, bool]) -> None:
            server.store.set_feature_gates(gates)

        return await node_writes_after_the_gate_went_off(call, restart)

    assert _on_fake(body, {PREEMPTION: True}) == EXPECTED_AFTER_THE_GATE_WENT_OFF


@pytest.mark.parametrize("on", [True, False], ids=["gate on", "gate off"])
def test_pod_level_resources_resize_only_with_its_gate(on: bool) -> None:
    steps = _on_fake(lambda call, server: pod_level_resize(call), {POD_LEVEL_RESIZE: on})
    assert steps == EXPECTED_POD_LEVEL_RESIZE[on]


# ------------------------------------------------------------------- rules the real server was not asked


def _store(release: str = "1.37", **gates: bool) -> Store:
    return Store(kubernetes_version=release, feature_gates=gates, taint_not_ready_nodes=False)


def _pod_body(**spec: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "busybox:1", **spec.pop("container", {})}], **spec}}


def test_pod_level_resources_are_dropped_with_their_gate_off() -> None:
    """``dropDisabledPodLevelResources``: off (with the gates that need it), a create drops
    ``spec.resources``; a pod that has them keeps them."""
    off = dict(PodLevelResources=False, InPlacePodLevelResourcesVerticalScaling=False,
               PodLevelResourcesFixDefaulting=False, PodLevelResourcesFixKubeletQOSClass=False)
    store = _store(**off)
    created = store.create(PODS_SPEC, "default", _pod_body(resources=POD_RESOURCES))
    assert "resources" not in created["spec"]
    store = _store()
    created = store.create(PODS_SPEC, "default", _pod_body(resources=POD_RESOURCES))
    store.set_feature_gates(off)
    updated = store.patch(PODS_SPEC, "default", "p", b'{"metadata": {"labels": {"a": "1"}}}', MERGE)
    assert updated["spec"]["resources"] == created["spec"]["resources"]


def test_resize_fields_are_dropped_where_in_place_resize_is_off() -> None:
    """``InPlacePodVerticalScaling`` is beta in v1.34 and can be off there: a container's
    ``resizePolicy`` and a container status's ``allocatedResources`` are dropped unless the
    stored pod has a resize policy (locked on from v1.35:
    :mod:`tests.fake_apiserver._machinery.test_features`)."""
    store = _store("1.34", InPlacePodVerticalScaling=False)
    policy = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    created = store.create(PODS_SPEC, "default", _pod_body(container={"resizePolicy": policy}))
    assert "resizePolicy" not in created["spec"]["containers"][0]
    status = {"status": {"containerStatuses": [{"name": "c", "image": "busybox:1", "imageID": "", "ready": False,
                                                "restartCount": 0, "allocatedResources": {"cpu": "100m"}}]}}
    written = store.patch(PODS_SPEC, "default", "p", json.dumps(status).encode(), MERGE, subresource="status")
    assert "allocatedResources" not in written["status"]["containerStatuses"][0]
    kept = _store("1.34")
    kept.create(PODS_SPEC, "default", _pod_body(container={"resizePolicy": policy}))
    kept.set_feature_gates({"InPlacePodVerticalScaling": False})
    written = kept.patch(PODS_SPEC, "default", "p", json.dumps(status).encode(), MERGE, subresource="status")
    assert written["status"]["containerStatuses"][0]["allocatedResources"] == {"cpu": "100m"}


def test_node_status_fields_of_gates_that_are_off_are_dropped_on_create_not_through_status() -> None:
    """v1.35 has ``NodeDeclaredFeatures`` alpha (off): a kubelet registering its node loses
    ``status.declaredFeatures``; ``/status`` writes keep it (``nodeStatusStrategy`` drops nothing)."""
    store = _store("1.35")
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"declaredFeatures": ["GuaranteedQoSPodCPUResize"]}}
    assert "declaredFeatures" not in store.create(NODES_SPEC, None, node)["status"]
    written = store.patch(NODES_SPEC, None, "n", b'{"status": {"declaredFeatures": ["GuaranteedQoSPodCPUResize"]}}',
                          MERGE, subresource="status")
    assert written["status"]["declaredFeatures"] == ["GuaranteedQoSPodCPUResize"]
    assert "declaredFeatures" in _store("1.36").create(NODES_SPEC, None, node)["status"]


def test_every_rule_names_a_gate_a_served_release_registers() -> None:
    from fake_apiserver._machinery.features import known_gates

    for rule in (*NODE_RULES, *POD_RULES):
        assert all(gate in known_gates("1.37") for gate in rule.gates), rule.source


# ------------------------------------------------------------------- the same writes to kube-apiserver


def _kube_apiserver_version() -> str:
    from harness._backends.envtest import find_assets

    done = subprocess.run([str(find_assets() / "kube-apiserver"), "--version"], capture_output=True, text=True,
                          timeout=60, check=False)
    return done.stdout.strip()


@needs_binaries
def test_a_real_kube_apiserver_answers_as_recorded(tmp_path: Path) -> None:
    """The expectations above, against the kube-apiserver of ``KUBEBUILDER_ASSETS`` (v1.37 only:
    the gate is alpha there, and an older release does not know it)."""
    from harness._backends.envtest import ControlPlane, find_assets

    version = _kube_apiserver_version()
    if not version.startswith("Kubernetes v1.37."):
        pytest.skip(f"the expected answers are kube-apiserver v1.37's; {ASSETS_VARIABLE} holds {version}")

    def on_control_plane(gates: Mapping[str, bool], body: Callable[[Call, Restart], Awaitable[Any]]) -> Any:
        control_plane = ControlPlane(assets=find_assets(), logdir=tmp_path / str(len(list(tmp_path.iterdir()))),
                                     feature_gates=gates)
        kubeconfig = control_plane.start()
        try:
            async def main() -> Any:
                async with FaultProxy(kubeconfig) as proxy:
                    async with aiohttp.ClientSession(proxy.url) as session:
                        async def restart(new: Mapping[str, bool]) -> None:
                            await asyncio.get_running_loop().run_in_executor(None, control_plane.restart_apiserver, new)

                        return await body(_caller(session), restart)

            return asyncio.run(main())
        finally:
            control_plane.stop()

    async def both(call: Call, restart: Restart) -> tuple[list[Step], list[Step]]:
        return await node_writes(call), await pod_level_resize(call, service_account=True)

    assert on_control_plane({PREEMPTION: True}, both) == (EXPECTED_NODE_WRITES[True], EXPECTED_POD_LEVEL_RESIZE[True])
    assert on_control_plane({POD_LEVEL_RESIZE: False}, both) == (EXPECTED_NODE_WRITES[False],
                                                                 EXPECTED_POD_LEVEL_RESIZE[False])
    assert on_control_plane({PREEMPTION: True}, node_writes_after_the_gate_went_off) == EXPECTED_AFTER_THE_GATE_WENT_OFF
