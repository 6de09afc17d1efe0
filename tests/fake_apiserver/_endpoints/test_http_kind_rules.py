"""The server over HTTP, what it does for some kinds: nodes' not-ready taint and their delete's
answer, the protection finalizers of volumes, claims and attributes classes, Events as one resource
in two shapes, and where kinds differ as kube-apiserver v1.36 showed: which updates need a
resourceVersion, which objects have a generation, which metadata checks a kind skips, which PUTs
create, what a ``/status`` write changes of the metadata, and more.

An aiohttp client against :class:`FakeApiServer` on the virtual loop (``tests.support.http_api``);
every answer is compared with what a real kube-apiserver sends: status codes, ``Status`` bodies
field for field, object shapes. Time is virtual, so timestamps are exact (the epoch is
2026-01-01T00:00:00Z) and a 300-second watch takes milliseconds.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
import yarl

from tests.support.http_api import JSON_PATCH, MERGE, NODES, PODS, Api, node, pod, serve, status, watch_lines


# ------------------------------------------------------------------------------------ nodes


def test_nodes_created_through_the_api_get_the_not_ready_taint() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", NODES, node("n1", taints=[{"key": "gpu", "effect": "NoSchedule"}]))
        assert created["spec"]["taints"] == [{"key": "gpu", "effect": "NoSchedule"},
                                             {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]

    serve(scenario)


def test_the_not_ready_taint_can_be_turned_off() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", NODES, node("n1", taints=[{"key": "gpu", "effect": "NoSchedule"}]))
        assert created["spec"]["taints"] == [{"key": "gpu", "effect": "NoSchedule"}]
        assert "taints" not in (await api.ok("POST", NODES, node("n2"))).get("spec", {})

    serve(scenario, taint_not_ready_nodes=False)


def test_deleting_a_node_answers_with_a_status_and_a_pod_with_the_pod() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", NODES, node("n1"))
        deleted = await api.delete(f"{NODES}/n1")
        assert (deleted.status, deleted.body) == (200, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": "n1", "kind": "nodes", "uid": created["metadata"]["uid"]}})
        made = await api.ok("POST", PODS, pod("p"))
        gone = await api.delete(f"{PODS}/p")
        marked = {**made["metadata"], "resourceVersion": str(int(made["metadata"]["resourceVersion"]) + 1),
                  "generation": 2, "deletionTimestamp": made["metadata"]["creationTimestamp"],
                  "deletionGracePeriodSeconds": 0}
        assert (gone.status, gone.body) == (200, {**made, "metadata": marked})  # the pod as last stored

    serve(scenario)


# ------------------------------------------------------------------------- volumes and claims

PV = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
      "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}},
      "status": {"phase": "Bound"}}
PVC = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "c1", "finalizers": ["a.b/c"]},
       "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}


def test_volumes_and_claims_get_protection_finalizers_held_while_in_use() -> None:
    """The StorageObjectInUseProtection plugin (as kube-apiserver v1.36 answers: appended to a new
    claim's own finalizers, once to a volume that already names it; a strategic patch that mixes
    a directive into the finalizer strings fails as the real server's does), and the protection
    controllers a real cluster runs: a deleted claim stays while a scheduled pod mounts it and
    goes with the pod; a deleted volume that is not bound goes at once."""

    async def scenario(api: Api) -> None:
        claims = "/api/v1/namespaces/default/persistentvolumeclaims"
        claim = await api.ok("POST", claims, PVC)
        assert claim["metadata"]["finalizers"] == ["a.b/c", "kubernetes.io/pvc-protection"]
        assert claim["status"] == {"phase": "Pending"}
        pv = dict(PV, metadata={"name": "pv1", "finalizers": ["kubernetes.io/pv-protection"]})
        assert (await api.ok("POST", "/api/v1/persistentvolumes", pv))["metadata"]["finalizers"] == [
            "kubernetes.io/pv-protection"]
        mixed = await api.patch("/api/v1/persistentvolumes/pv1", {"metadata": {"finalizers": [{"$patch": "delete"}]}})
        assert (mixed.status, mixed.body["message"]) == (
            500, "list element types are not identical: [[kubernetes.io/pv-protection] [map[$patch:delete]]]")
        await api.ok("POST", "/api/v1/nodes", node("n1"))
        await api.ok("POST", PODS, pod("user", nodeName="n1",
                                       volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c1"}}]))
        await api.ok("PATCH", f"{claims}/c1", {"metadata": {"finalizers": ["kubernetes.io/pvc-protection"]}}, MERGE)
        deleted = await api.delete(f"{claims}/c1")
        assert deleted.status == 200 and deleted.body["metadata"]["deletionGracePeriodSeconds"] == 0
        assert (await api.get(f"{claims}/c1")).body["metadata"]["finalizers"] == ["kubernetes.io/pvc-protection"]
        await api.call("DELETE", f"{PODS}/user", {"gracePeriodSeconds": 0})
        assert (await api.get(f"{claims}/c1")).status == 404
        assert (await api.delete("/api/v1/persistentvolumes/pv1")).status == 200
        assert (await api.get("/api/v1/persistentvolumes/pv1")).status == 404

    serve(scenario)


def test_an_attributes_class_is_protected_while_a_claim_names_it() -> None:
    """kube-apiserver v1.37.2 gives a new VolumeAttributesClass the ``kubernetes.io/vac-protection``
    finalizer (tests/fake_apiserver/_registry/test_builtin_kinds.py); the vac-protection controller
    a real cluster runs lets a deleted one go once no claim or volume names it."""

    async def scenario(api: Api) -> None:
        classes = "/apis/storage.k8s.io/v1/volumeattributesclasses"
        vac = {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttributesClass", "metadata": {"name": "gold"},
               "driverName": "csi.example.com", "parameters": {"iops": "1000"}}
        assert (await api.ok("POST", classes, vac))["metadata"]["finalizers"] == ["kubernetes.io/vac-protection"]
        claims = "/api/v1/namespaces/default/persistentvolumeclaims"
        await api.ok("POST", claims, {**PVC, "metadata": {"name": "c1"},
                                      "spec": {**PVC["spec"], "volumeAttributesClassName": "gold"}})
        deleted = await api.delete(f"{classes}/gold")
        assert deleted.status == 200 and deleted.body["metadata"]["deletionTimestamp"]
        assert (await api.get(f"{classes}/gold")).status == 200  # the claim names it
        await api.ok("PATCH", f"{claims}/c1", {"metadata": {"finalizers": None}}, MERGE)
        await api.delete(f"{claims}/c1")
        assert (await api.get(f"{claims}/c1")).status == 404
        assert (await api.get(f"{classes}/gold")).status == 404

    serve(scenario)


def test_a_volume_phase_change_stamps_its_transition_time() -> None:
    """``persistentvolumeStatusStrategy`` on kube-apiserver v1.36: a new volume is Pending since
    its creation, whatever status it was sent with; a status write that changes the phase gets a
    new time, one that keeps it keeps the time, and removing the phase defaults it to Pending."""

    async def scenario(api: Api) -> None:
        created = await api.ok("POST", "/api/v1/persistentvolumes", PV)
        since = created["status"]["lastPhaseTransitionTime"]
        assert created["status"] == {"phase": "Pending", "lastPhaseTransitionTime": since}
        await asyncio.sleep(3)
        status = "/api/v1/persistentvolumes/pv1/status"
        available = (await api.ok("PATCH", status, {"status": {"phase": "Available"}}, content_type=MERGE))["status"]
        assert available["phase"] == "Available" and available["lastPhaseTransitionTime"] > since
        await asyncio.sleep(3)
        kept = (await api.ok("PATCH", status, {"status": {"message": "m"}}, content_type=MERGE))["status"]
        assert kept["lastPhaseTransitionTime"] == available["lastPhaseTransitionTime"]
        reply = await api.call("PATCH", status, [{"op": "remove", "path": "/status/phase"}], content_type=JSON_PATCH)
        assert reply.body["status"]["phase"] == "Pending"
        assert reply.body["status"]["lastPhaseTransitionTime"] > kept["lastPhaseTransitionTime"]

    serve(scenario)


# ------------------------------------------------------------------------------------ events


def test_events_are_one_resource_in_two_shapes() -> None:
    """The scheduler writes events.k8s.io/v1 Events; ``kubectl describe`` reads core v1 ones
    (the real server stores both as one resource, pkg/apis/events/v1/conversion.go)."""

    async def scenario(api: Api) -> None:
        core_watch = await api.session.get("/api/v1/namespaces/default/events", params={
            "watch": "true", "resourceVersion": "7", "timeoutSeconds": "5"})
        event = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "p.1"},
                 "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "default-scheduler",
                 "reportingInstance": "default-scheduler-host", "action": "Scheduling", "reason": "FailedScheduling",
                 "regarding": {"kind": "Pod", "namespace": "default", "name": "p", "uid": "u1"},
                 "note": "0/1 nodes are available", "type": "Warning"}
        created = await api.ok("POST", "/apis/events.k8s.io/v1/namespaces/default/events", event)
        core = (await api.get("/api/v1/namespaces/default/events", fieldSelector="involvedObject.name=p")).body
        assert core["items"] == [{
            "kind": "Event", "apiVersion": "v1", "metadata": created["metadata"],
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p", "uid": "u1"},
            "reason": "FailedScheduling", "message": "0/1 nodes are available", "source": {},
            "firstTimestamp": None, "lastTimestamp": None, "type": "Warning",
            "eventTime": "2026-01-01T00:00:00.000000Z", "action": "Scheduling",
            "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-host"}]
        again = await api.post("/api/v1/namespaces/default/events", dict(core["items"][0], metadata={"name": "p.1"}))
        assert (again.status, again.body) == (409, status(
            409, "AlreadyExists", 'events "p.1" already exists', {"name": "p.1", "kind": "events"}))
        await api.ok("DELETE", "/api/v1/namespaces/default/events/p.1")
        gone = await api.get("/apis/events.k8s.io/v1/namespaces/default/events/p.1")
        assert (gone.status, gone.body["message"]) == (404, 'events.events.k8s.io "p.1" not found')
        events = await watch_lines(core_watch)
        assert [(e["type"], e["object"]["apiVersion"], e["object"]["metadata"]["resourceVersion"]) for e in events] == [
            ("ADDED", "v1", "8"), ("DELETED", "v1", "9")]

    serve(scenario)


# ------------------------------------------------------------------- fidelity with kube-apiserver v1.36


LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases"


def test_an_update_needs_a_resource_version_where_the_kind_asks_for_one() -> None:
    """Leases (like PDBs, CSINodes, CSIDrivers, CSIStorageCapacities and VolumeAttachments) take
    no unconditional update; a resourceVersion that does not parse is the versioner's plain error.
    Both answers captured from kube-apiserver v1.36."""
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", LEASES, {"metadata": {"name": "l"}, "spec": {"holderIdentity": "h"}})
        unconditional = await api.put(f"{LEASES}/l", {"metadata": {"name": "l"}, "spec": {"holderIdentity": "i"}})
        assert (unconditional.status, unconditional.body) == (422, status(
            422, "Invalid", 'leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0: '
            "must be specified for an update", {"name": "l", "group": "coordination.k8s.io", "kind": "leases",
                                                "causes": [{"reason": "FieldValueInvalid", "field": "metadata.resourceVersion",
                                                            "message": "Invalid value: 0: must be specified for an update"}]}))
        garbled = await api.put(f"{LEASES}/l", {"metadata": {"name": "l", "resourceVersion": "abc"}})
        assert (garbled.status, garbled.body) == (500, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'strconv.ParseUint: parsing "abc": invalid syntax', "code": 500})
        meta = dict(created["metadata"])
        updated = await api.ok("PUT", f"{LEASES}/l", {"metadata": meta, "spec": {"holderIdentity": "i"}})
        assert updated["spec"] == {"holderIdentity": "i"}
        # a ConfigMap takes an update without one
        await api.ok("POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "c"}})
        await api.ok("PUT", "/api/v1/namespaces/default/configmaps/c", {"metadata": {"name": "c"}, "data": {"a": "b"}})

    serve(scenario)


def test_which_created_objects_have_a_generation() -> None:
    """Compared with the same objects created on kube-apiserver v1.36: a pod has generation 1, a
    Lease, a Service and a ResourceClaim have none (and a claim has an empty status)."""
    async def scenario(api: Api) -> None:
        assert (await api.ok("POST", PODS, pod("p")))["metadata"]["generation"] == 1
        lease = await api.ok("POST", LEASES, {"metadata": {"name": "l"}, "spec": {"holderIdentity": "h"}})
        service = await api.ok("POST", "/api/v1/namespaces/default/services",
                               {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}})
        claim = await api.ok("POST", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", {
            "metadata": {"name": "c"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}})
        assert [("generation" in o["metadata"]) for o in (lease, service, claim)] == [False, False, False]
        assert claim["status"] == {}

    serve(scenario)


def test_a_pod_condition_written_without_a_transition_time_keeps_none() -> None:
    """kube-apiserver v1.36 stores such a condition with "lastTransitionTime": null."""
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("p"))
        patched = await api.ok("PATCH", f"{PODS}/p/status", {"status": {"conditions": [
            {"type": "Ready", "status": "False"}, {"type": "example.com/Custom", "status": "True"}]}})
        assert [(c["type"], c["lastProbeTime"], c["lastTransitionTime"]) for c in patched["status"]["conditions"]] == [
            ("Ready", None, None), ("example.com/Custom", None, None)]

    serve(scenario)


def test_metadata_checks_some_kinds_skip() -> None:
    """Found by creating every served kind on kube-apiserver v1.36: a ConfigMap refuses a bad
    generateName and an unqualified finalizer, a PodDisruptionBudget takes both, a Lease takes
    the finalizer, a ReplicationController the generateName."""
    async def scenario(api: Api) -> None:
        bad_prefix = {"name": "x", "generateName": "Bad"}
        unqualified = {"name": "y", "finalizers": ["noslash"]}
        configmaps = "/api/v1/namespaces/default/configmaps"
        assert (await api.post(configmaps, {"metadata": bad_prefix})).status == 422
        assert (await api.post(configmaps, {"metadata": unqualified})).status == 422
        pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
        for meta in (bad_prefix, unqualified):
            reply = await api.post(pdbs, {"metadata": meta, "spec": {"minAvailable": 1}})
            assert reply.status == 201, reply.body
        assert (await api.post(LEASES, {"metadata": unqualified})).status == 201
        rc = {"metadata": bad_prefix, "spec": {"selector": {"app": "a"}, "template": {
            "metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
        assert (await api.post("/api/v1/namespaces/default/replicationcontrollers", rc)).status == 201

    serve(scenario)


def test_a_name_that_cannot_be_a_path_segment_is_a_400() -> None:
    """``Name parameter invalid`` (kube-apiserver v1.36, GET with the path sent as is)."""
    async def scenario(api: Api) -> None:
        for raw, name, why in (("..", "..", "may not be '..'"), (".", ".", "may not be '.'"),
                               ("%2E%2E", "..", "may not be '..'"), ("a%25b", "a%b", "may not contain '%'")):
            url = yarl.URL(f"{api.server.url}/api/v1/namespaces/default/configmaps/{raw}", encoded=True)
            async with aiohttp.ClientSession() as session, session.get(url) as reply:  # the path as is
                assert (reply.status, await reply.json()) == (400, status(
                    400, "BadRequest", f'Name parameter invalid: "{name}": {why}')), raw

    serve(scenario)


def test_a_put_creates_a_missing_lease_event_or_service() -> None:
    """``AllowCreateOnUpdate``: on kube-apiserver v1.36 a PUT of a missing Lease, Event or Service
    creates it (201); of a missing ConfigMap it is a 404."""
    async def scenario(api: Api) -> None:
        created = await api.put(f"{LEASES}/l", {"metadata": {"name": "l"}, "spec": {"holderIdentity": "h"}})
        assert (created.status, created.body["metadata"]["name"]) == (201, "l")
        again = await api.put(f"{LEASES}/l", {"metadata": created.body["metadata"], "spec": {"holderIdentity": "i"}})
        assert (again.status, again.body["spec"]) == (200, {"holderIdentity": "i"})
        missing = await api.put("/api/v1/namespaces/default/configmaps/c", {"metadata": {"name": "c"}})
        assert (missing.status, missing.body["message"]) == (404, 'configmaps "c" not found')

    serve(scenario)


def test_an_apply_body_is_checked_before_it_is_applied() -> None:
    """The 400s of ``applyPatcher`` come before anything else, for a missing object too
    (messages captured from kube-apiserver v1.36); a well-formed apply of the object's name alone
    is a 200 that changes nothing (tests/fake_apiserver/_storage/test_apply_http.py has the rest)."""
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", LEASES, {"metadata": {"name": "l"}})
        for name in ("l", "missing"):
            path = f"{LEASES}/{name}?fieldManager=m"
            for data, message in (
                (b"{}", "invalid object type: /, Kind="),
                (b"kind: Bogus\napiVersion: v1\nmetadata:\n  name: x\n", "invalid object type: /v1, Kind=Bogus"),
                (b"- a\n- b\n", "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
                                "unmarshal array into Go value of type map[string]interface {}"),
            ):
                reply = await api.call("PATCH", path, data=data, content_type="application/apply-patch+yaml")
                assert (reply.status, reply.body) == (400, status(400, "BadRequest", message)), (name, data)
        applied = await api.call("PATCH", f"{LEASES}/l?fieldManager=m", content_type="application/apply-patch+yaml",
                                 data=b"apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l\n")
        assert (applied.status, applied.body["metadata"]["resourceVersion"]) == (200, created["metadata"]["resourceVersion"])

    serve(scenario)


def test_a_resource_version_on_create_fails_only_when_it_parses() -> None:
    """etcd3's Create refuses a body with a resourceVersion only when the versioner reads one
    (kube-apiserver v1.36: "5" is a 500, "1Gi" and "0" are created)."""
    async def scenario(api: Api) -> None:
        configmaps = "/api/v1/namespaces/default/configmaps"
        refused = await api.post(configmaps, {"metadata": {"name": "a", "resourceVersion": "5"}})
        assert (refused.status, refused.body["message"]) == (500, "resourceVersion should not be set on objects to be created")
        for name, rv in (("b", "1Gi"), ("c", "0")):
            assert (await api.post(configmaps, {"metadata": {"name": name, "resourceVersion": rv}})).status == 201

    serve(scenario)


def test_an_apply_to_a_missing_objects_status_is_a_404() -> None:
    async def scenario(api: Api) -> None:
        # kube-apiserver v1.36: an apply may create its object, not through a subresource
        reply = await api.call("PATCH", f"{PODS}/missing/status?fieldManager=m", data=b"{}",
                               content_type="application/apply-patch+yaml")
        assert (reply.status, reply.body["message"]) == (404, 'pods "missing" not found')

    serve(scenario)


STATUS_META = {"finalizers": ["a.b/c"], "labels": {"x": "y"}, "annotations": {"x": "y"},
               "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "1234"}]}


# (collection, body, the metadata fields a /status merge patch of STATUS_META changed on
# kube-apiserver v1.36)
STATUS_WRITES = [
    ("/api/v1/namespaces/default/pods", pod("o"), {"finalizers", "labels", "annotations"}),
    ("/api/v1/nodes", node("o"), {"finalizers", "labels", "annotations", "ownerReferences"}),
    ("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
     {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "o"},
      "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}}, set()),
    ("/apis/storage.k8s.io/v1/volumeattachments",
     {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "o"},
      "spec": {"attacher": "a", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}}, set()),
]


@pytest.mark.parametrize(("collection", "body", "changed"), STATUS_WRITES, ids=[w[1]["kind"] for w in STATUS_WRITES])
def test_what_metadata_a_status_write_changes(collection: str, body: dict[str, Any], changed: set[str]) -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", collection, body)
        meta = (await api.ok("PATCH", f"{collection}/o/status", {"metadata": STATUS_META}, MERGE))["metadata"]
        assert {key for key, value in STATUS_META.items() if meta.get(key) == value} == changed
        if "finalizers" in changed:  # and is validated as on any write
            reply = await api.patch(f"{collection}/o/status", {"metadata": {"finalizers": ["x"]}}, MERGE)
            assert reply.status == 422 and reply.body["message"].endswith(
                'metadata.finalizers[0]: Invalid value: "x": name is neither a standard finalizer name nor is it '
                "fully qualified")

    serve(scenario)


def test_an_empty_affinity_is_a_change_to_a_pod() -> None:
    """kube-apiserver v1.36: ``affinity: {}`` sets a pointer (``Semantic.DeepEqual`` tells it from
    nil), so adding it to a created pod is a forbidden spec change, and a pod created with it
    keeps it and takes an update that sends it back."""
    forbidden = 'Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than'

    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("p"))
        reply = await api.put(f"{PODS}/p", pod("p", affinity={}))
        assert reply.status == 422 and reply.body["message"].startswith(forbidden)
        made = await api.ok("POST", PODS, pod("q", affinity={}, securityContext={}))
        assert (made["spec"]["affinity"], made["spec"]["securityContext"]) == ({}, {})
        await api.ok("PUT", f"{PODS}/q", made)

    serve(scenario)


def test_a_claim_gets_the_default_storage_class_and_keeps_its_spec() -> None:
    """kube-apiserver v1.36: the DefaultStorageClass plugin gives a claim naming no class the
    default one (either annotation; "" is a choice, kept); an update may set a volume name once
    but not change the class, the storage request of an unbound claim or the access modes."""
    immutable = ('PersistentVolumeClaim "c2" is invalid: spec: Forbidden: spec is immutable after creation except '
                 "resources.requests and volumeAttributesClassName for bound claims\n")
    claims = "/api/v1/namespaces/default/persistentvolumeclaims"

    async def scenario(api: Api) -> None:
        for name, annotation in (("sc1", "storageclass.kubernetes.io/is-default-class"),
                                 ("sc2", "storageclass.beta.kubernetes.io/is-default-class")):
            await api.ok("POST", "/apis/storage.k8s.io/v1/storageclasses", {
                "metadata": {"name": name, "annotations": {annotation: "true"}}, "provisioner": "x"})
        made = await api.ok("POST", claims, {**PVC, "metadata": {"name": "c1"}})
        assert made["spec"]["storageClassName"] == "sc1"  # two defaults made in one second: by name
        chosen = {**PVC, "metadata": {"name": "c2"}, "spec": {**PVC["spec"], "storageClassName": ""}}
        assert (await api.ok("POST", claims, chosen))["spec"]["storageClassName"] == ""
        for change in ({"storageClassName": "other"}, {"resources": {"requests": {"storage": "2Gi"}}},
                       {"accessModes": ["ReadWriteMany"]}, {"volumeAttributesClassName": "x"}):
            reply = await api.patch(f"{claims}/c2", {"spec": change}, MERGE)
            assert reply.status == 422 and reply.body["message"].startswith(immutable), change
        await api.ok("PATCH", f"{claims}/c2", {"spec": {"volumeName": "pv1"}}, MERGE)

    serve(scenario)
