"""The official ``kubernetes`` Python client, unchanged, against the fake (issue 2, "Must show" 2).

The server runs on a real-time loop in a thread of its own (``threaded_server`` in conftest); the
client talks to it through the kubeconfig the server wrote. Nothing here measures time: tests wait
for the state they expect, and watch timeouts are only safety nets (or, where a test needs the
pre-timeout bookmark, the reason the server sends one).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator

import pytest
from kubernetes import client, watch
from kubernetes.client import ApiClient, ApiException

from tests.support.threaded_server import ThreadedServer

SAFETY_TIMEOUT = 30  # seconds a watch may stay open; only reached when something hangs
GATED = "Scheduling is blocked due to non-empty scheduling gates"


def _pod(name: str, **spec: Any) -> client.V1Pod:
    return client.V1Pod(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1")], **spec),
    )


def _events(stream: Iterator[dict[str, Any]], count: int, w: watch.Watch) -> list[dict[str, Any]]:
    """The first ``count`` events of a watch stream; the watch is stopped after them."""
    seen: list[dict[str, Any]] = []
    for event in stream:
        seen.append(event)
        if len(seen) == count:
            w.stop()
            break
    assert len(seen) == count, seen
    return seen


def _summary(events: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return [(e["type"], e["raw_object"]["metadata"].get("name"), e["raw_object"]["metadata"]["resourceVersion"])
            for e in events]


def test_pod_crud(k8s_api: ApiClient) -> None:
    v1 = client.CoreV1Api(k8s_api)
    created = v1.create_namespaced_pod("default", _pod("p", scheduling_gates=[client.V1PodSchedulingGate(name="example.com/g")]))
    assert (created.metadata.name, created.metadata.generation, created.status.phase) == ("p", 1, "Pending")
    assert created.metadata.resource_version.isdigit()
    condition = created.status.conditions[0]
    assert (condition.type, condition.status, condition.reason, condition.message) == (
        "PodScheduled", "False", "SchedulingGated", GATED)
    read = v1.read_namespaced_pod("p", "default")
    assert read.metadata.uid == created.metadata.uid
    assert [p.metadata.name for p in v1.list_namespaced_pod("default").items] == ["p"]
    read.spec.scheduling_gates = None
    replaced = v1.replace_namespaced_pod("p", "default", read)
    assert (replaced.spec.scheduling_gates, replaced.metadata.generation) == (None, 2)
    assert int(replaced.metadata.resource_version) > int(created.metadata.resource_version)
    assert replaced.status.conditions[0].reason == "SchedulingGated"  # untouched by the update
    deleted = v1.delete_namespaced_pod("p", "default")
    assert (type(deleted), deleted.metadata.name) == (client.V1Pod, "p")
    with pytest.raises(ApiException) as missing:
        v1.read_namespaced_pod("p", "default")
    assert missing.value.status == 404
    assert json.loads(missing.value.body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": 'pods "p" not found',
        "reason": "NotFound", "details": {"name": "p", "kind": "pods"}, "code": 404}


def test_node_crud(k8s_api: ApiClient) -> None:
    v1 = client.CoreV1Api(k8s_api)
    created = v1.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="n1", labels={"zone": "a"})))
    assert [(t.key, t.effect) for t in created.spec.taints] == [("node.kubernetes.io/not-ready", "NoSchedule")]
    created.spec.taints = []
    created.spec.unschedulable = True
    replaced = v1.replace_node("n1", created)
    assert (replaced.spec.taints, replaced.spec.unschedulable) == (None, True)
    status = v1.patch_node_status("n1", {"status": {"conditions": [{"type": "Ready", "status": "True"}]}})
    assert [(c.type, c.status) for c in status.status.conditions] == [("Ready", "True")]
    listed = v1.list_node(field_selector="spec.unschedulable=true", label_selector="zone=a")
    assert [n.metadata.name for n in listed.items] == ["n1"]
    deleted = v1.delete_node("n1")
    assert deleted == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                       "details": {"name": "n1", "kind": "nodes", "uid": created.metadata.uid}}
    assert v1.list_node().items == []


def test_replace_with_a_stale_resource_version_is_409(k8s_api: ApiClient) -> None:
    v1 = client.CoreV1Api(k8s_api)
    stale = v1.create_namespaced_pod("default", _pod("p"))
    v1.patch_namespaced_pod("p", "default", {"metadata": {"labels": {"a": "b"}}})
    stale.metadata.labels = {"x": "y"}
    with pytest.raises(ApiException) as conflict:
        v1.replace_namespaced_pod("p", "default", stale)
    assert conflict.value.status == 409
    assert json.loads(conflict.value.body) == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'Operation cannot be fulfilled on pods "p": the object has been modified; please apply your '
                   "changes to the latest version and try again",
        "reason": "Conflict", "details": {"name": "p", "kind": "pods"}, "code": 409}
    assert v1.read_namespaced_pod("p", "default").metadata.labels == {"a": "b"}


def test_list_then_watch_from_the_list_version_with_bookmarks(k8s_api: ApiClient) -> None:
    v1 = client.CoreV1Api(k8s_api)
    v1.create_namespaced_pod("default", _pod("before"))
    listed = v1.list_namespaced_pod("default")
    rv = listed.metadata.resource_version
    assert [p.metadata.name for p in listed.items] == ["before"]
    v1.create_namespaced_pod("default", _pod("after"))
    v1.patch_namespaced_pod("before", "default", {"metadata": {"labels": {"a": "b"}}})
    w = watch.Watch()
    # timeoutSeconds=3: the server sends a bookmark 2 s before it ends the watch (cacher)
    stream = w.stream(v1.list_namespaced_pod, "default", resource_version=rv, allow_watch_bookmarks=True,
                      timeout_seconds=3)
    events = _events(stream, 3, w)
    assert _summary(events) == [("ADDED", "after", str(int(rv) + 1)), ("MODIFIED", "before", str(int(rv) + 2)),
                                ("BOOKMARK", None, str(int(rv) + 2))]
    assert isinstance(events[0]["object"], client.V1Pod)
    assert events[2]["raw_object"] == {"kind": "Pod", "apiVersion": "v1",
                                       "metadata": {"resourceVersion": str(int(rv) + 2)}}
    assert w.resource_version == str(int(rv) + 2)


def test_a_pod_leaving_the_phase_selector_arrives_as_deleted(k8s_api: ApiClient) -> None:
    """The kube-scheduler's pod informer selector (``apiserver/pkg/storage/cacher``)."""
    v1 = client.CoreV1Api(k8s_api)
    selector = "status.phase!=Succeeded,status.phase!=Failed"
    v1.create_namespaced_pod("default", _pod("p"))
    listed = v1.list_namespaced_pod("default", field_selector=selector)
    assert [p.metadata.name for p in listed.items] == ["p"]
    v1.patch_namespaced_pod_status("p", "default", {"status": {"phase": "Running"}})
    done = v1.patch_namespaced_pod_status("p", "default", {"status": {"phase": "Succeeded"}})
    w = watch.Watch()
    stream = w.stream(v1.list_namespaced_pod, "default", field_selector=selector,
                      resource_version=listed.metadata.resource_version, timeout_seconds=SAFETY_TIMEOUT)
    events = _events(stream, 2, w)
    assert _summary(events) == [("MODIFIED", "p", str(int(done.metadata.resource_version) - 1)),
                                ("DELETED", "p", done.metadata.resource_version)]
    assert events[1]["object"].status.phase == "Running"  # the last state that matched
    assert v1.list_namespaced_pod("default", field_selector=selector).items == []


def test_expired_watch_then_relist_recovers(make_threaded_server: Callable[..., ThreadedServer]) -> None:
    from kubernetes import config

    server = make_threaded_server(history=5)
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        v1 = client.CoreV1Api(api)
        old = v1.list_namespaced_pod("default").metadata.resource_version
        for i in range(8):
            v1.create_namespaced_pod("default", _pod(f"p{i}"))
        with pytest.raises(ApiException) as expired:
            for _ in watch.Watch().stream(v1.list_namespaced_pod, "default", resource_version=old,
                                          timeout_seconds=SAFETY_TIMEOUT):
                pass
        assert (expired.value.status, expired.value.reason) == (410, f"Expired: too old resource version: {old} (10)")
        relisted = v1.list_namespaced_pod("default")
        assert len(relisted.items) == 8
        v1.delete_namespaced_pod("p0", "default")
        w = watch.Watch()
        stream = w.stream(v1.list_namespaced_pod, "default", resource_version=relisted.metadata.resource_version,
                          timeout_seconds=SAFETY_TIMEOUT)
        rv = int(relisted.metadata.resource_version)
        # an unscheduled pod is marked for deletion (grace 0), then deleted
        assert _summary(_events(stream, 2, w)) == [("MODIFIED", "p0", str(rv + 1)), ("DELETED", "p0", str(rv + 2))]
    finally:
        api.close()


def test_streaming_list(k8s_api: ApiClient) -> None:
    """client-go's WatchList: ``sendInitialEvents`` with ``resourceVersionMatch=NotOlderThan``,
    which this client's ``list_*`` methods take as keyword arguments."""
    v1 = client.CoreV1Api(k8s_api)
    for name in ("a", "b"):
        v1.create_namespaced_pod("default", _pod(name))
    rv = v1.list_namespaced_pod("default").metadata.resource_version
    w = watch.Watch()
    stream = w.stream(v1.list_namespaced_pod, "default", send_initial_events=True,
                      resource_version_match="NotOlderThan", allow_watch_bookmarks=True, timeout_seconds=SAFETY_TIMEOUT)
    events = _events(stream, 3, w)
    assert _summary(events) == [("ADDED", "a", str(int(rv) - 1)), ("ADDED", "b", rv), ("BOOKMARK", None, rv)]
    assert events[2]["raw_object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}


def test_the_three_patch_types(k8s_api: ApiClient, threaded_server: ThreadedServer) -> None:
    v1 = client.CoreV1Api(k8s_api)
    v1.create_namespaced_pod("default", _pod("p", scheduling_gates=[client.V1PodSchedulingGate(name="a"),
                                                                    client.V1PodSchedulingGate(name="b")]))
    condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/0 nodes",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}
    strategic = v1.patch_namespaced_pod_status("p", "default", {"status": {"conditions": [condition]}})
    assert [(c.type, c.reason, c.message) for c in strategic.status.conditions] == [
        ("PodScheduled", "Unschedulable", "0/0 nodes")]  # merged by type over the SchedulingGated one
    json_patch = v1.patch_namespaced_pod("p", "default", [
        {"op": "test", "path": "/spec/schedulingGates/0/name", "value": "a"},
        {"op": "remove", "path": "/spec/schedulingGates/0"}])
    assert [g.name for g in json_patch.spec.scheduling_gates] == ["b"]
    merge = v1.patch_namespaced_pod("p", "default", {"metadata": {"labels": {"tier": "web"}}},
                                    _content_type="application/merge-patch+json")
    assert merge.metadata.labels == {"tier": "web"}
    with pytest.raises(ApiException) as failed:
        v1.patch_namespaced_pod("p", "default", [{"op": "test", "path": "/metadata/name", "value": "q"}])
    assert failed.value.status == 422
    sent = threaded_server.call(lambda: [(e.subresource, e.content_type)
                                         for e in threaded_server.server.journal.requests(verb="patch")])
    assert sent == [
        ("status", "application/strategic-merge-patch+json"),
        ("", "application/json-patch+json"),
        ("", "application/merge-patch+json"),
        ("", "application/json-patch+json")]


def test_resource_claims_through_the_typed_and_the_custom_objects_apis(k8s_api: ApiClient) -> None:
    resource = client.ResourceV1Api(k8s_api)
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "gpu"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
    created = resource.create_namespaced_resource_claim("default", claim)
    assert created.spec.devices.requests[0].exactly.device_class_name == "gpu.example.com"
    assert created.metadata.generation is None  # kube-apiserver v1.36 gives a claim no generation
    assert created.status.to_dict() == {"allocation": None, "devices": None, "reserved_for": None}
    reserved = resource.patch_namespaced_resource_claim_status("gpu", "default", {"status": {"reservedFor": [
        {"resource": "pods", "name": "p", "uid": "u-1"}]}})
    assert [(r.resource, r.name, r.uid) for r in reserved.status.reserved_for] == [("pods", "p", "u-1")]
    custom = client.CustomObjectsApi(k8s_api)
    read = custom.get_namespaced_custom_object("resource.k8s.io", "v1", "default", "resourceclaims", "gpu")
    assert read["status"] == {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u-1"}]}
    assert read["metadata"]["resourceVersion"] == reserved.metadata.resource_version
    listed = custom.list_namespaced_custom_object("resource.k8s.io", "v1", "default", "resourceclaims")
    assert (listed["kind"], [c["metadata"]["name"] for c in listed["items"]]) == ("ResourceClaimList", ["gpu"])
    deleted = resource.delete_namespaced_resource_claim("gpu", "default")
    assert deleted.metadata.name == "gpu"
