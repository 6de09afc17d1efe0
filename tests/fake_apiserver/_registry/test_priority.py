"""Pod priority (``fake_apiserver/_registry/priority.py``): PriorityClasses and the Priority admission plugin.

Through the store (exact messages), over HTTP with aiohttp on the virtual loop (exact ``Status``
bodies), and with the official Python client's ``SchedulingV1Api`` on a real socket. The sources
of each rule are named in the module under test (Kubernetes v1.35: ``pkg/apis/scheduling``,
``plugin/pkg/admission/priority/admission.go``, ``pkg/registry/scheduling/priorityclass``).
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime, timezone
from typing import Any

import aiohttp
import pytest
from kubernetes import client
from kubernetes.client import ApiClient, ApiException

from fake_apiserver import FakeApiServer, Forbidden, Invalid, Store, StatusError, by_resource
from fake_apiserver._machinery.errors import AlreadyExists
from harness._time.virtual_time import VirtualClock, run

PCS = by_resource("scheduling.k8s.io", "v1", "priorityclasses")
PODS = by_resource("", "v1", "pods")
assert PCS is not None and PODS is not None
PC_PATH = "/apis/scheduling.k8s.io/v1/priorityclasses"
NODE_CRITICAL = "Used for system critical pods that must not be moved from their current node."
CLUSTER_CRITICAL = "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=timezone.utc)


def store() -> Store:
    return Store(FixedClock())


def pc(name: str, value: int = 1000, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **fields}


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox:1"}], **spec}}


def raises(error: type[StatusError], message: str) -> Any:
    return pytest.raises(error, match="^" + re.escape(message) + "$")


def priority_of(obj: dict[str, Any]) -> tuple[Any, Any, Any]:
    spec = obj["spec"]
    return spec.get("priorityClassName"), spec.get("priority"), spec.get("preemptionPolicy")


# ------------------------------------------------------------------------------ the system classes


# what kube-apiserver v1.37.2 shows of its post-start hook's write (its loopback client's manager)
HOOK_FIELDS = [{"manager": "kube-apiserver", "operation": "Update", "apiVersion": "scheduling.k8s.io/v1",
                "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                "fieldsV1": {"f:description": {}, "f:preemptionPolicy": {}, "f:value": {}}}]


def test_the_system_classes_exist_from_the_start_as_the_post_start_hook_makes_them() -> None:
    """``systemPriorityClasses`` (v1/helpers.go) created through the v1 API: defaulted
    ``preemptionPolicy``, ``generation`` 1, no labels, the hook's managed fields; made after the
    four namespaces."""
    s = store()
    items = s.list(PCS, None)["items"]
    assert [json.dumps(o) for o in items] == [json.dumps(o) for o in [
        {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": {
            "name": "system-cluster-critical", "uid": items[0]["metadata"]["uid"], "resourceVersion": "7",
            "generation": 1, "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": HOOK_FIELDS},
         "value": 2000000000, "description": CLUSTER_CRITICAL, "preemptionPolicy": "PreemptLowerPriority"},
        {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": {
            "name": "system-node-critical", "uid": items[1]["metadata"]["uid"], "resourceVersion": "6",
            "generation": 1, "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": HOOK_FIELDS},
         "value": 2000001000, "description": NODE_CRITICAL, "preemptionPolicy": "PreemptLowerPriority"}]]


def test_system_classes_cannot_be_deleted_one_by_one() -> None:
    s = store()
    for name in ("system-node-critical", "system-cluster-critical"):
        with raises(Forbidden, f'priorityclasses.scheduling.k8s.io "{name}" is forbidden: this is a system '
                               "priority class and cannot be deleted") as info:
            s.delete(PCS, None, name)
        assert info.value.details == {"name": name, "group": "scheduling.k8s.io", "kind": "priorityclasses"}
    s.create(PCS, None, pc("high"))
    answer = s.delete(PCS, None, "high")
    assert (answer["kind"], answer["details"]["name"], answer["details"]["kind"]) == ("Status", "high", "priorityclasses")


def test_a_delete_of_the_collection_passes_the_registry_check_as_in_go() -> None:
    """``genericregistry.Store.DeleteCollection`` calls the embedded store's ``Delete``, not
    ``REST.Delete``: the system classes go with the rest (and are then gone until a restart)."""
    s = store()
    s.create(PCS, None, pc("high"))
    deleted = s.delete_collection(PCS, None)
    assert [o["metadata"]["name"] for o in deleted["items"]] == ["high", "system-cluster-critical", "system-node-critical"]
    assert s.list(PCS, None)["items"] == []


def test_the_system_names_are_reserved() -> None:
    """``ValidatePriorityClass``: a ``system-`` name must be a known class with its value and no
    global default; the real one with the right value reaches storage and already exists."""
    s = store()
    reserved = "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: "
    with raises(Invalid, f'PriorityClass.scheduling.k8s.io "system-mine" is invalid: {reserved}'
                         "system-mine is not a known system priority class"):
        s.create(PCS, None, pc("system-mine"))
    with raises(Invalid, f'PriorityClass.scheduling.k8s.io "system-node-critical" is invalid: {reserved}'
                         "value of system-node-critical PriorityClass must be 2000001000"):
        s.create(PCS, None, pc("system-node-critical", 5))
    with raises(Invalid, f'PriorityClass.scheduling.k8s.io "system-cluster-critical" is invalid: {reserved}'
                         "globalDefault of system-cluster-critical PriorityClass must be false"):
        s.create(PCS, None, pc("system-cluster-critical", 2000000000, globalDefault=True))
    with raises(AlreadyExists, 'priorityclasses.scheduling.k8s.io "system-node-critical" already exists'):
        s.create(PCS, None, pc("system-node-critical", 2000001000))


# ------------------------------------------------------------------------------ user classes


def test_create_defaults_a_user_class() -> None:
    s = store()
    created = s.create(PCS, None, pc("zero", 0, globalDefault=False, description=""))
    assert list(created) == ["kind", "apiVersion", "metadata", "value", "preemptionPolicy"]
    assert (created["value"], created["preemptionPolicy"], created["metadata"]["generation"]) == (
        0, "PreemptLowerPriority", 1)
    never = s.create(PCS, None, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                 "preemptionPolicy": "Never", "description": "batch", "metadata": {"name": "batch"},
                                 "globalDefault": True, "value": -5})
    assert list(never) == ["kind", "apiVersion", "metadata", "value", "globalDefault", "description", "preemptionPolicy"]
    assert s.create(PCS, None, pc("top", 1000000000))["value"] == 1000000000


def test_validation_of_a_user_class() -> None:
    s = store()
    with raises(Invalid, 'PriorityClass.scheduling.k8s.io "too-high" is invalid: value: Forbidden: maximum allowed '
                         "value of a user defined priority is 1000000000"):
        s.create(PCS, None, pc("too-high", 1000000001))
    with raises(Invalid, 'PriorityClass.scheduling.k8s.io "p" is invalid: preemptionPolicy: Required value'):
        s.create(PCS, None, pc("p", preemptionPolicy=""))
    with raises(Invalid, 'PriorityClass.scheduling.k8s.io "p" is invalid: preemptionPolicy: Unsupported value: '
                         '"Sometimes": supported values: "PreemptLowerPriority", "Never"'):
        s.create(PCS, None, pc("p", preemptionPolicy="Sometimes"))
    with raises(Invalid, 'PriorityClass.scheduling.k8s.io "Bad_Name" is invalid: [metadata.name: Invalid value: '
                         '"Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
                         "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
                         "'example.com', regex used for validation is "
                         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), value: Forbidden: "
                         "maximum allowed value of a user defined priority is 1000000000]"):
        s.create(PCS, None, pc("Bad_Name", 2000000000))
    with raises(StatusError, 'PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot '
                             "unmarshal number 2147483648 into Go struct field PriorityClass.value of type int32"):
        s.create(PCS, None, pc("p", 2**31))
    assert s.resource_version == 7


def test_value_and_preemption_policy_are_immutable() -> None:
    s = store()
    created = s.create(PCS, None, pc("high", preemptionPolicy="Never"))
    with raises(Invalid, 'PriorityClass.scheduling.k8s.io "high" is invalid: value: Forbidden: may not be changed '
                         "in an update."):
        s.update(PCS, None, "high", pc("high", 2000, preemptionPolicy="Never"))
    # a body without the policy is defaulted first, so it reads as a change to PreemptLowerPriority
    with raises(Invalid, 'PriorityClass.scheduling.k8s.io "high" is invalid: preemptionPolicy: Invalid value: '
                         '"PreemptLowerPriority": field is immutable'):
        s.update(PCS, None, "high", pc("high"))
    updated = s.update(PCS, None, "high", pc("high", preemptionPolicy="Never", description="for the important"))
    assert (updated["description"], updated["metadata"]["generation"]) == ("for the important", 1)
    assert s.update(PCS, None, "high", pc("high", preemptionPolicy="Never", description="for the important")) is updated
    assert created["metadata"]["uid"] == updated["metadata"]["uid"]


def test_only_one_class_may_be_the_global_default() -> None:
    """The Priority plugin's ``validatePriorityClass`` (403, after validation)."""
    s = store()
    s.create(PCS, None, pc("default-low", 10, globalDefault=True))
    with raises(Forbidden, 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass default-low is '
                           "already marked as default. Only one default can exist") as info:
        s.create(PCS, None, pc("other", 20, globalDefault=True))
    assert info.value.details == {"name": "other", "group": "scheduling.k8s.io", "kind": "priorityclasses"}
    s.create(PCS, None, pc("other", 20))
    with raises(Forbidden, 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass default-low is '
                           "already marked as default. Only one default can exist"):
        s.patch(PCS, None, "other", b'{"globalDefault":true}', "application/merge-patch+json")
    s.patch(PCS, None, "default-low", b'{"description":"still the default"}', "application/merge-patch+json")
    s.patch(PCS, None, "default-low", b'{"globalDefault":false}', "application/merge-patch+json")
    assert s.patch(PCS, None, "other", b'{"globalDefault":true}', "application/merge-patch+json")["globalDefault"]


# ------------------------------------------------------------------------------ pod admission


def test_a_pod_without_a_class_gets_priority_zero_or_the_global_default() -> None:
    s = store()
    plain = s.create(PODS, "default", pod("plain"))
    assert priority_of(plain) == (None, 0, "PreemptLowerPriority")
    s.create(PCS, None, pc("batch", -5, globalDefault=True, preemptionPolicy="Never"))
    defaulted = s.create(PODS, "default", pod("defaulted"))
    assert priority_of(defaulted) == ("batch", -5, "Never")
    assert priority_of(s.get(PODS, "default", "plain")) == (None, 0, "PreemptLowerPriority")  # create only


def test_a_pod_gets_the_value_and_policy_of_its_class() -> None:
    s = store()
    s.create(PCS, None, pc("high", 1000))
    s.create(PCS, None, pc("waiting", 500, preemptionPolicy="Never"))
    assert priority_of(s.create(PODS, "default", pod("a", priorityClassName="high"))) == (
        "high", 1000, "PreemptLowerPriority")
    assert priority_of(s.create(PODS, "default", pod("b", priorityClassName="waiting"))) == ("waiting", 500, "Never")
    # the same values written by the client are accepted
    assert priority_of(s.create(PODS, "default", pod("c", priorityClassName="waiting", priority=500,
                                                     preemptionPolicy="Never"))) == ("waiting", 500, "Never")


def test_system_classes_are_allowed_in_any_namespace() -> None:
    """v1.35's ``admitPod`` has no namespace rule for the system classes (the old
    ``priorityClassPermittedInNamespace`` is gone; ResourceQuota limits them instead)."""
    s = store()
    assert priority_of(s.create(PODS, "kube-system", pod("a", priorityClassName="system-node-critical"))) == (
        "system-node-critical", 2000001000, "PreemptLowerPriority")
    assert priority_of(s.create(PODS, "default", pod("b", priorityClassName="system-cluster-critical"))) == (
        "system-cluster-critical", 2000000000, "PreemptLowerPriority")


def test_admission_refusals() -> None:
    """403 before validation (the plugin is mutating), naming the pod, else its ``generateName``."""
    s = store()
    s.create(PCS, None, pc("waiting", 500, preemptionPolicy="Never"))
    with raises(Forbidden, 'pods "a" is forbidden: no PriorityClass with name nope was found') as info:
        s.create(PODS, "default", pod("a", priorityClassName="nope"))
    assert info.value.details == {"name": "a", "kind": "pods"}
    with raises(Forbidden, 'pods "a" is forbidden: the integer value of priority (7) must not be provided in pod '
                           "spec; priority admission controller computed 0 from the given PriorityClass name"):
        s.create(PODS, "default", pod("a", priority=7))
    with raises(Forbidden, 'pods "a" is forbidden: the integer value of priority (0) must not be provided in pod '
                           "spec; priority admission controller computed 500 from the given PriorityClass name"):
        s.create(PODS, "default", pod("a", priorityClassName="waiting", priority=0))
    with raises(Forbidden, 'pods "a" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must '
                           "not be provided in pod spec; priority admission controller computed Never from the given "
                           "PriorityClass name"):
        s.create(PODS, "default", pod("a", priorityClassName="waiting", preemptionPolicy="PreemptLowerPriority"))
    with raises(Forbidden, 'pods "a" is forbidden: the string value of PreemptionPolicy (Never) must not be provided '
                           "in pod spec; priority admission controller computed PreemptLowerPriority from the given "
                           "PriorityClass name"):
        s.create(PODS, "default", pod("a", preemptionPolicy="Never"))
    generated = pod("ignored", priorityClassName="nope", containers=[])
    generated["metadata"] = {"generateName": "web-"}
    with raises(Forbidden, 'pods "web-" is forbidden: no PriorityClass with name nope was found'):
        s.create(PODS, "default", generated)
    assert s.resource_version == 8


def test_priority_is_immutable_on_update() -> None:
    """``ValidatePodUpdate`` forbids changing ``spec.priority`` (and the class name); an update
    that leaves them out keeps the stored ones (``admitPod`` on update)."""
    s = store()
    s.create(PCS, None, pc("high", 1000))
    created = s.create(PODS, "default", pod("p", priorityClassName="high"))
    with pytest.raises(Invalid) as info:
        s.patch(PODS, "default", "p", b'{"spec":{"priority":5}}', "application/strategic-merge-patch+json")
    assert info.value.message.startswith('Pod "p" is invalid: spec: Forbidden: pod updates may not change fields '
                                         "other than `spec.containers[*].image`")
    assert '+ \tpriority: 5,' in info.value.message
    body = pod("p", priorityClassName="high", activeDeadlineSeconds=60)
    updated = s.update(PODS, "default", "p", body)
    assert priority_of(updated) == priority_of(created) == ("high", 1000, "PreemptLowerPriority")


# ------------------------------------------------------------------------------ over HTTP


async def _call(session: aiohttp.ClientSession, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    async with session.request(method, path, data=data, headers={"Content-Type": "application/json"}) as r:
        return r.status, json.loads(await r.read())


def serve_http(scenario: Any) -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop)) as server:
            async with aiohttp.ClientSession(server.url) as session:
                await scenario(session)

    run(main())


def test_http_discovery_status_bodies_and_table() -> None:
    async def scenario(session: aiohttp.ClientSession) -> None:
        code, resources = await _call(session, "GET", "/apis/scheduling.k8s.io/v1")
        assert code == 200
        assert [r for r in resources["resources"] if r["name"] == "priorityclasses"] == [{
            "name": "priorityclasses", "singularName": "priorityclass", "namespaced": False, "kind": "PriorityClass",
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            "shortNames": ["pc"]}]
        assert await _call(session, "POST", PC_PATH, pc("too-high", 1000000001)) == (422, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'PriorityClass.scheduling.k8s.io "too-high" is invalid: value: Forbidden: maximum allowed value '
                       "of a user defined priority is 1000000000",
            "reason": "Invalid", "details": {"name": "too-high", "group": "scheduling.k8s.io", "kind": "PriorityClass",
                                             "causes": [{"reason": "FieldValueForbidden", "message": "Forbidden: "
                                                         "maximum allowed value of a user defined priority is "
                                                         "1000000000", "field": "value"}]},
            "code": 422})
        assert await _call(session, "DELETE", f"{PC_PATH}/system-node-critical") == (403, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system '
                       "priority class and cannot be deleted",
            "reason": "Forbidden",
            "details": {"name": "system-node-critical", "group": "scheduling.k8s.io", "kind": "priorityclasses"},
            "code": 403})
        assert await _call(session, "POST", "/api/v1/namespaces/default/pods", pod("p", priorityClassName="nope")) == (
            403, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": 'pods "p" is forbidden: no PriorityClass with name nope was found', "reason": "Forbidden",
                  "details": {"name": "p", "kind": "pods"}, "code": 403})
        await asyncio.sleep(90)
        code, created = await _call(session, "POST", PC_PATH, pc("high", 1000, globalDefault=True))
        assert code == 201
        async with session.get(PC_PATH, headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}) as r:
            table = json.loads(await r.read())
        assert [c["name"] for c in table["columnDefinitions"]] == [
            "Name", "Value", "Global-Default", "Age", "PreemptionPolicy"]
        assert [c["type"] for c in table["columnDefinitions"]] == ["string", "integer", "boolean", "string", "string"]
        assert [row["cells"] for row in table["rows"]] == [
            ["high", 1000, True, "0s", "PreemptLowerPriority"],
            ["system-cluster-critical", 2000000000, False, "90s", "PreemptLowerPriority"],
            ["system-node-critical", 2000001000, False, "90s", "PreemptLowerPriority"]]

    serve_http(scenario)


# ------------------------------------------------------------------------------ the Python client


def test_the_python_client_scheduling_v1_api(k8s_api: ApiClient) -> None:
    scheduling = client.SchedulingV1Api(k8s_api)
    core = client.CoreV1Api(k8s_api)
    listed = scheduling.list_priority_class()
    assert [(c.metadata.name, c.value, c.preemption_policy, c.description) for c in listed.items] == [
        ("system-cluster-critical", 2000000000, "PreemptLowerPriority", CLUSTER_CRITICAL),
        ("system-node-critical", 2000001000, "PreemptLowerPriority", NODE_CRITICAL)]
    made = scheduling.create_priority_class(client.V1PriorityClass(
        metadata=client.V1ObjectMeta(name="batch"), value=100, preemption_policy="Never"))
    assert (made.value, made.preemption_policy, made.global_default) == (100, "Never", None)
    pod_made = core.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="p"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1")],
                              priority_class_name="batch")))
    assert (pod_made.spec.priority, pod_made.spec.preemption_policy) == (100, "Never")
    with pytest.raises(ApiException) as refused:
        scheduling.delete_priority_class("system-cluster-critical")
    assert refused.value.status == 403
    assert json.loads(refused.value.body)["message"] == (
        'priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class '
        "and cannot be deleted")
    with pytest.raises(ApiException) as twice:
        scheduling.patch_priority_class("batch", {"value": 101})
    assert (twice.value.status, json.loads(twice.value.body)["message"]) == (
        422, 'PriorityClass.scheduling.k8s.io "batch" is invalid: value: Forbidden: may not be changed in an update.')
    scheduling.delete_priority_class("batch")
    assert [c.metadata.name for c in scheduling.list_priority_class().items] == [
        "system-cluster-critical", "system-node-critical"]
