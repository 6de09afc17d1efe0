"""``pods/resize`` (in-place pod resize, KEP-1287) and the node's ``spec.podPreemptionPolicy``
(KEP-5836), over HTTP and with kubectl.

Every expected status code, message and stored value was captured from a real kube-apiserver
v1.36.0 (with etcd, default feature gates) given the same requests. The one difference kept on
purpose: a resize that carries only dropped changes (an image, a label) makes the real server
write anyway, to record its field manager in ``managedFields``; the fake keeps no managedFields
and writes nothing.

``disableResizePreemption`` is alpha in v1.37 behind ``InPlacePodVerticalScalingSchedulerPreemption``;
the v1.36 server does not know the field (it drops it, with the warning ``unknown field
"spec.podPreemptionPolicy"``), so its rules and messages come from the upstream source: the
declarative tags ``+k8s:maxItems=20``, ``+k8s:listType=set``, ``+k8s:eachVal=+k8s:format=k8s-label-key``
and the generated validator's order. The node test's statuses and messages were since checked
against kube-apiserver v1.37.2 with the gate on (the order of ``n3``'s two errors corrected to
its); the test runs the fake with the gate on (with it off, the default, the field is dropped:
``tests/fake_apiserver/_registry/test_dropdisabled.py``).
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from fake_apiserver import FaultRule, Match, Respond
from fake_apiserver._registry.core.pod.validation import POD_UPDATE_FORBIDDEN_PREFIX
from tests.support.http_api import JSON_PATCH, MERGE, NODES, PODS, SMP, Api, node, pod, serve, status
from tests.support.kubectl import Kubectl

BURSTABLE = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}
GUARANTEED = {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": {"cpu": "100m", "memory": "100Mi"}}
OWNERS = "spec.podPreemptionPolicy.disableResizePreemption"


def sized(name: str, resources: Any = BURSTABLE, **spec: Any) -> dict[str, Any]:
    """A pod of one container ``c`` with ``resources`` and a label."""
    body = pod(name, **spec)
    body["metadata"]["labels"] = {"a": "1"}
    if resources is not None:
        body["spec"]["containers"][0]["resources"] = json.loads(json.dumps(resources))
    return body


def resources(**fields: Any) -> dict[str, Any]:
    """The strategic merge patch of container ``c``'s resources."""
    return {"spec": {"containers": [{"name": "c", "resources": fields}]}}


def invalid(name: str, *errors: tuple[str, str, str], kind: str = "Pod") -> dict[str, Any]:
    """A 422: ``errors`` as (field, reason, message body)."""
    rendered = [f"{f}: {body}" for f, _, body in errors]
    message = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    return status(422, "Invalid", f'{kind} "{name}" is invalid: {message}', {
        "name": name, "kind": kind,
        "causes": [{"reason": reason, "message": body, "field": f} for f, reason, body in errors]})


def forbidden(name: str, why: str, reason: str | None = None) -> dict[str, Any]:
    """The PodResizeValidator admission plugin's 403."""
    details: dict[str, Any] = {"name": name, "kind": "pods"}
    if reason:
        details["causes"] = [{"reason": reason}]
    return status(403, "Forbidden", f'pods "{name}" is forbidden: {why}', details)


def container(obj: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = obj["spec"]["containers"][0]
    return first


async def create(api: Api, body: dict[str, Any]) -> dict[str, Any]:
    created: dict[str, Any] = await api.ok("POST", PODS, body)
    return created


# --------------------------------------------------------------------------------- discovery


def test_discovery_lists_pods_resize_as_the_real_server_does() -> None:
    async def scenario(api: Api) -> None:
        v1 = (await api.get("/api/v1")).body
        by_name = {r["name"]: r for r in v1["resources"]}
        assert by_name["pods/resize"] == {"name": "pods/resize", "singularName": "", "namespaced": True,
                                          "kind": "Pod", "verbs": ["get", "patch", "update"]}

    serve(scenario)


# ------------------------------------------------------------------------------- the success path


def plain(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its managedFields (what a write's manager owns is test_managedfields.py's)."""
    meta = {k: v for k, v in obj["metadata"].items() if k != "managedFields"}
    return {**obj, "metadata": meta}


def unversioned(obj: dict[str, Any]) -> dict[str, Any]:
    out = plain(obj)
    out["metadata"] = {k: v for k, v in out["metadata"].items() if k != "resourceVersion"}
    return out


def test_a_resize_changes_the_resources_and_the_generation_and_nothing_else() -> None:
    async def scenario(api: Api) -> None:
        created = await create(api, sized("p"))
        got = await api.get(f"{PODS}/p/resize")
        assert (got.status, got.body) == (200, created)
        resized = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": "150m"}))
        assert resized.status == 200
        expected = json.loads(json.dumps(created))
        expected["metadata"]["generation"] = 2
        expected["metadata"]["resourceVersion"] = resized.body["metadata"]["resourceVersion"]
        container(expected)["resources"] = {"limits": {"cpu": "200m", "memory": "200Mi"},
                                            "requests": {"cpu": "150m", "memory": "100Mi"}}
        assert plain(resized.body) == plain(expected)
        assert int(resized.body["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
        assert (await api.get(f"{PODS}/p")).body == resized.body

    serve(scenario)


def test_a_resize_by_json_patch_merge_patch_and_put_bumps_the_generation_each_time() -> None:
    async def scenario(api: Api) -> None:
        created = await create(api, sized("p"))
        by_json = await api.patch(f"{PODS}/p/resize", [
            {"op": "replace", "path": "/spec/containers/0/resources/requests/cpu", "value": "120m"}], JSON_PATCH)
        assert (by_json.status, by_json.body["metadata"]["generation"]) == (200, 2)
        assert container(by_json.body)["resources"]["requests"] == {"cpu": "120m", "memory": "100Mi"}
        whole = {"name": "c", "image": "busybox:1", "resources": {
            "requests": {"cpu": "130m", "memory": "100Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}}
        by_merge = await api.patch(f"{PODS}/p/resize", {"spec": {"containers": [whole]}}, MERGE)
        assert (by_merge.status, by_merge.body["metadata"]["generation"]) == (200, 3)
        assert container(by_merge.body)["resources"]["requests"] == {"cpu": "130m", "memory": "100Mi"}
        body = json.loads(json.dumps(by_merge.body))
        container(body)["resources"]["requests"]["cpu"] = "140m"
        by_put = await api.put(f"{PODS}/p/resize", body)
        assert (by_put.status, by_put.body["metadata"]["generation"]) == (200, 4)
        assert by_put.body["spec"] | {"containers": []} == created["spec"] | {"containers": []}

    serve(scenario)


def test_changes_other_than_resources_are_dropped_without_an_error() -> None:
    """The image, labels and annotations, the status, other spec fields: taken from the stored pod
    (``dropNonResizeUpdates``), 200, generation unchanged. With a resource change beside them,
    only the resources change."""

    async def scenario(api: Api) -> None:
        created = await create(api, sized("p"))
        for dropped in (
            {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}},
            {"metadata": {"labels": {"a": "2"}, "annotations": {"x": "y"}}},
            {"status": {"phase": "Running"}},
            {"spec": {"activeDeadlineSeconds": 5}},
            {"spec": {"nodeName": "n1"}},
        ):
            reply = await api.patch(f"{PODS}/p/resize", dropped)
            # the resize's manager still gets what it sent (its managedFields entry is computed
            # before the strategy drops the change), so the pod is written: kube-apiserver
            # v1.37.2 moves the resourceVersion too
            assert (reply.status, unversioned(reply.body)) == (200, unversioned(created)), dropped
        mixed = await api.patch(f"{PODS}/p/resize", {
            "metadata": {"labels": {"a": "2", "b": "x"}, "annotations": {"x": "y"}}, "status": {"phase": "Running"},
            **resources(requests={"cpu": "150m"})})
        assert mixed.status == 200
        assert (mixed.body["metadata"]["generation"], mixed.body["metadata"]["labels"]) == (2, {"a": "1"})
        assert "annotations" not in mixed.body["metadata"]
        assert mixed.body["status"] == {"phase": "Pending", "qosClass": "Burstable"}
        assert container(mixed.body)["resources"]["requests"] == {"cpu": "150m", "memory": "100Mi"}
        same = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": "150m"}))
        assert (same.status, same.body) == (200, mixed.body)  # a no-op (managed fields too) writes nothing

    serve(scenario)


def test_a_request_dropped_beside_its_limit_comes_back_as_the_limit() -> None:
    """Defaulting runs on the body: a request removed where a limit is set is the limit again."""

    async def scenario(api: Api) -> None:
        await create(api, sized("p"))
        reply = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": None}))
        assert reply.status == 200
        assert container(reply.body)["resources"] == {"limits": {"cpu": "200m", "memory": "200Mi"},
                                                      "requests": {"cpu": "200m", "memory": "100Mi"}}
        assert reply.body["metadata"]["generation"] == 2

    serve(scenario)


def test_allowed_resizes_unscheduled_restart_never_limits_added_init_containers_pod_level_terminating() -> None:
    async def scenario(api: Api) -> None:
        await create(api, sized("never", restartPolicy="Never"))
        reply = await api.patch(f"{PODS}/never/resize", resources(requests={"cpu": "150m"}))
        assert (reply.status, reply.body["metadata"]["generation"]) == (200, 2)

        await create(api, sized("requests-only", {"requests": {"cpu": "100m"}}))
        reply = await api.patch(f"{PODS}/requests-only/resize", resources(limits={"cpu": "500m"}))
        assert (reply.status, container(reply.body)["resources"]) == (
            200, {"limits": {"cpu": "500m"}, "requests": {"cpu": "100m"}})

        init = [{"name": "i", "image": "busybox:1", "resources": BURSTABLE}]
        await create(api, sized("init", initContainers=init))
        reply = await api.patch(f"{PODS}/init/resize", {"spec": {"initContainers": [
            {"name": "i", "resources": {"requests": {"cpu": "150m"}}}]}})
        assert reply.status == 200
        assert reply.body["spec"]["initContainers"][0]["resources"] == {
            "limits": {"cpu": "200m", "memory": "200Mi"}, "requests": {"cpu": "150m", "memory": "100Mi"}}

        pod_level = sized("pod-level", {"requests": {"cpu": "100m"}})
        pod_level["spec"]["resources"] = {
            "requests": {"cpu": "200m", "memory": "100Mi"}, "limits": {"cpu": "400m", "memory": "200Mi"}}
        await create(api, pod_level)
        reply = await api.patch(f"{PODS}/pod-level/resize", {"spec": {"resources": {"requests": {"cpu": "300m"}}}})
        assert (reply.status, reply.body["metadata"]["generation"], reply.body["spec"]["resources"]) == (
            200, 2, {"limits": {"cpu": "400m", "memory": "200Mi"}, "requests": {"cpu": "300m", "memory": "100Mi"}})
        reply = await api.patch(f"{PODS}/pod-level/resize", resources(requests={"cpu": "150m"}))
        assert (reply.status, reply.body["metadata"]["generation"], container(reply.body)["resources"]) == (
            200, 3, {"requests": {"cpu": "150m"}})

        await create(api, sized("going"))
        await api.ok("POST", f"{PODS}/going/binding", {"apiVersion": "v1", "kind": "Binding",
                                                      "metadata": {"name": "going"}, "target": {"name": "n1"}})
        await api.ok("POST", NODES, node("n1") | {"status": {"allocatable": {"cpu": "1", "memory": "1Gi"}}})
        assert (await api.delete(f"{PODS}/going")).status == 200  # graceful: generation 2
        reply = await api.patch(f"{PODS}/going/resize", resources(requests={"cpu": "150m"}))
        assert (reply.status, reply.body["metadata"]["generation"]) == (200, 3)

    serve(scenario)


# ------------------------------------------------------------------------------------- refusals

REFUSALS: list[tuple[str, Any, Any, tuple[tuple[str, str, str], ...]]] = [
    ("ephemeral-storage", BURSTABLE, resources(requests={"ephemeral-storage": "1Gi"}),
     (("spec", "FieldValueForbidden", "Forbidden: only cpu and memory resources are mutable"),)),
    ("extended-resource", BURSTABLE, resources(limits={"nvidia.com/gpu": "1"}),
     (("spec", "FieldValueForbidden", "Forbidden: only cpu and memory resources are mutable"),)),
    ("resize-policy", BURSTABLE,
     {"spec": {"containers": [{"name": "c", "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}]}},
     (("spec", "FieldValueForbidden", "Forbidden: only cpu and memory resources are mutable"),)),
    ("guaranteed-to-burstable", GUARANTEED, resources(requests={"cpu": "50m"}),
     (("spec", "FieldValueInvalid", 'Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing'),)),
    ("burstable-to-guaranteed", BURSTABLE, resources(requests={"cpu": "200m", "memory": "200Mi"}),
     (("spec", "FieldValueInvalid", 'Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing'),)),
    ("besteffort-to-burstable", None, resources(requests={"cpu": "50m"}),
     (("spec", "FieldValueInvalid", 'Invalid value: "BestEffort": Pod QOS Class may not change as a result of resizing'),)),
    ("above-limit", BURSTABLE, resources(requests={"cpu": "300m"}),
     (("spec.containers[0].resources.requests", "FieldValueInvalid",
       'Invalid value: "300m": must be less than or equal to cpu limit of 200m'),)),
    ("limit-below-request", BURSTABLE, resources(limits={"cpu": "50m"}),
     (("spec.containers[0].resources.requests", "FieldValueInvalid",
       'Invalid value: "100m": must be less than or equal to cpu limit of 50m'),)),
    ("negative", BURSTABLE, resources(requests={"cpu": "-1"}),
     (("spec.containers[0].resources.requests[cpu]", "FieldValueInvalid",
       'Invalid value: "-1": must be greater than or equal to 0'),)),
    ("negative-limit", BURSTABLE, resources(limits={"memory": "-1Gi"}),
     (("spec.containers[0].resources.limits[memory]", "FieldValueInvalid",
       'Invalid value: "-1Gi": must be greater than or equal to 0'),
      ("spec.containers[0].resources.requests", "FieldValueInvalid",
       'Invalid value: "100Mi": must be less than or equal to memory limit of -1Gi'))),
    ("canonical-and-storage", BURSTABLE, resources(requests={"cpu": "0.3", "ephemeral-storage": "1Gi"}),
     (("spec.containers[0].resources.requests", "FieldValueInvalid",
       'Invalid value: "300m": must be less than or equal to cpu limit of 200m'),
      ("spec", "FieldValueForbidden", "Forbidden: only cpu and memory resources are mutable"))),
    ("remove-limit", BURSTABLE, resources(limits={"memory": None}),
     (("spec.containers[0].resources.limits", "FieldValueForbidden", "Forbidden: resource limits cannot be removed"),)),
    ("add-container", BURSTABLE, {"spec": {"containers": [{"name": "d", "image": "busybox:1"}]}},
     (("spec.containers", "FieldValueForbidden", "Forbidden: containers may not be added or removed on resize"),)),
    ("windows", BURSTABLE, resources(requests={"cpu": "150m"}),
     (("[]", "FieldValueForbidden", "Forbidden: windows pods cannot be resized"),)),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_a_refused_resize_gets_the_real_message_and_changes_nothing(
        case: tuple[str, Any, Any, tuple[tuple[str, str, str], ...]]) -> None:
    name, initial, patch, errors = case

    async def scenario(api: Api) -> None:
        extra = {"os": {"name": "windows"}} if name == "windows" else {}
        created = await create(api, sized(name, initial, **extra))
        reply = await api.patch(f"{PODS}/{name}/resize", patch)
        assert (reply.status, reply.body) == (422, invalid(name, *errors))
        assert (await api.get(f"{PODS}/{name}")).body == created

    serve(scenario)


def test_more_refusals_json_patch_rename_merge_patch_list_sidecar_and_a_node_without_resize() -> None:
    async def scenario(api: Api) -> None:
        await create(api, sized("p"))
        renamed = await api.patch(f"{PODS}/p/resize", [
            {"op": "replace", "path": "/spec/containers/0/name", "value": "d"}], JSON_PATCH)
        assert (renamed.status, renamed.body) == (422, invalid("p", (
            "spec.containers[0].name", "FieldValueForbidden",
            "Forbidden: containers may not be renamed or reordered on resize")))
        # A merge patch replaces the whole list: the memory request and the limits are gone.
        replaced = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": "300m"}), MERGE)
        assert (replaced.status, replaced.body) == (422, invalid(
            "p",
            ("spec.containers[0].resources.requests", "FieldValueForbidden", "Forbidden: resource requests cannot be removed"),
            ("spec.containers[0].resources.limits", "FieldValueForbidden", "Forbidden: resource limits cannot be removed")))
        both = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": "300m", "memory": "1Gi"}))
        assert both.status == 422  # Go walks the requests map in random order: compare as a set
        assert sorted(json.dumps(c) for c in both.body["details"]["causes"]) == sorted(json.dumps(c) for c in [
            {"reason": "FieldValueInvalid", "message": 'Invalid value: "1Gi": must be less than or equal to memory limit of 200Mi',
             "field": "spec.containers[0].resources.requests"},
            {"reason": "FieldValueInvalid", "message": 'Invalid value: "300m": must be less than or equal to cpu limit of 200m',
             "field": "spec.containers[0].resources.requests"}])

        sidecar = [{"name": "i", "image": "busybox:1", "restartPolicy": "Always", "resources": BURSTABLE}]
        await create(api, sized("side", initContainers=sidecar))
        storage = await api.patch(f"{PODS}/side/resize", {"spec": {"initContainers": [
            {"name": "i", "resources": {"requests": {"cpu": "150m", "ephemeral-storage": "1Gi"}}}]}})
        assert (storage.status, storage.body) == (422, invalid("side", (
            "spec.initContainers[0]", "FieldValueForbidden",
            "Forbidden: only cpu and memory resources for init or sidecar containers are mutable")))

        await create(api, sized("old-node"))
        running = {"name": "c", "image": "busybox:1", "imageID": "", "ready": True, "restartCount": 0,
                   "started": True, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}
        await api.ok("PATCH", f"{PODS}/old-node/status", {"status": {"phase": "Running", "containerStatuses": [running]}})
        unsupported = await api.patch(f"{PODS}/old-node/resize", resources(requests={"cpu": "150m"}))
        assert (unsupported.status, unsupported.body) == (422, invalid("old-node", (
            "spec", "FieldValueForbidden", "Forbidden: Pod running on node without support for resize")))

    serve(scenario)


def test_a_bound_pod_is_resized_only_within_its_nodes_allocatable() -> None:
    """The PodResizeValidator admission plugin, for pods on a node: 403 with its cause."""

    async def scenario(api: Api) -> None:
        await api.ok("POST", NODES, node("rn1") | {"status": {
            "allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}, "capacity": {"cpu": "1", "memory": "1Gi", "pods": "10"}}})
        await api.ok("POST", NODES, {**node("rn2"), "metadata": {"name": "rn2", "labels": {"kubernetes.io/os": "windows"}}})
        for name, target in (("b1", "rn1"), ("b2", "ghost"), ("b3", "rn2")):
            limits = {"cpu": "4", "memory": "4Gi"} if name == "b1" else BURSTABLE["limits"]
            await create(api, sized(name, {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": limits}))
            await api.ok("POST", f"{PODS}/{name}/binding", {"apiVersion": "v1", "kind": "Binding",
                                                            "metadata": {"name": name}, "target": {"name": target}})
        big = await api.patch(f"{PODS}/b1/resize", resources(requests={"cpu": "2", "memory": "2Gi"}))
        assert (big.status, big.body) == (403, forbidden(
            "b1", "node didn't have enough allocatable resources: cpu, requested: 2000, allocatable: 1000; "
            "memory, requested: 2147483648, allocatable: 1073741824", "NodeCapacity"))
        cpu = await api.patch(f"{PODS}/b1/resize", resources(requests={"cpu": "1500m"}))
        assert (cpu.status, cpu.body) == (403, forbidden(
            "b1", "node didn't have enough allocatable resources: cpu, requested: 1500, allocatable: 1000", "NodeCapacity"))
        fits = await api.patch(f"{PODS}/b1/resize", resources(requests={"cpu": "1"}))
        assert (fits.status, fits.body["metadata"]["generation"]) == (200, 2)
        assert container(fits.body)["resources"]["requests"] == {"cpu": "1", "memory": "100Mi"}

        ghost = await api.patch(f"{PODS}/b2/resize", resources(requests={"cpu": "150m"}))
        assert (ghost.status, ghost.body) == (403, forbidden("b2", 'node "ghost" not found'))
        unchanged = await api.patch(f"{PODS}/b2/resize", resources(requests={"cpu": "100m"}))
        assert (unchanged.status, unchanged.body["metadata"]["generation"]) == (200, 1)  # no spec change: not checked
        windows = await api.patch(f"{PODS}/b3/resize", resources(requests={"cpu": "150m"}))
        assert (windows.status, windows.body) == (403, forbidden(
            "b3", 'pod resize is only supported on linux nodes, node "rn2" is "windows"', "UnsupportedPlatform"))

    serve(scenario)


# ------------------------------------------------------------------- PUT, the main resource, status


def test_put_with_a_stale_resource_version_conflicts_and_without_one_is_unconditional() -> None:
    async def scenario(api: Api) -> None:
        created = await create(api, sized("p"))
        body = json.loads(json.dumps(created))
        container(body)["resources"]["requests"]["cpu"] = "150m"
        first = await api.put(f"{PODS}/p/resize", body)
        assert (first.status, first.body["metadata"]["generation"]) == (200, 2)
        container(body)["resources"]["requests"]["cpu"] = "160m"
        stale = await api.put(f"{PODS}/p/resize", body)
        assert (stale.status, stale.body) == (409, status(
            409, "Conflict", 'Operation cannot be fulfilled on pods "p": the object has been modified; '
            "please apply your changes to the latest version and try again", {"name": "p", "kind": "pods"}))
        del body["metadata"]["resourceVersion"]
        unconditional = await api.put(f"{PODS}/p/resize", body)
        assert (unconditional.status, unconditional.body["metadata"]["generation"]) == (200, 3)
        assert container(unconditional.body)["resources"]["requests"] == {"cpu": "160m", "memory": "100Mi"}
        container(body)["resizePolicy"] = "x"
        wrong = await api.put(f"{PODS}/p/resize", body)
        assert (wrong.status, wrong.body) == (400, status(
            400, "BadRequest", 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into '
            "Go struct field Container.spec.containers.resizePolicy of type []v1.ContainerResizePolicy"))

    serve(scenario)


def test_the_main_resource_and_status_cannot_change_resources_and_a_dry_run_stores_nothing() -> None:
    async def scenario(api: Api) -> None:
        created = await create(api, sized("p"))
        body = json.loads(json.dumps(created))
        container(body)["resources"]["requests"]["cpu"] = "150m"
        for reply in (await api.put(f"{PODS}/p", body), await api.patch(f"{PODS}/p", resources(requests={"cpu": "150m"}))):
            assert (reply.status, reply.body["reason"]) == (422, "Invalid")
            assert reply.body["message"].startswith('Pod "p" is invalid: spec: Forbidden: ' + POD_UPDATE_FORBIDDEN_PREFIX)
            assert [c["field"] for c in reply.body["details"]["causes"]] == ["spec"]
        ignored = await api.patch(f"{PODS}/p/status", resources(requests={"cpu": "150m"}))
        assert (ignored.status, ignored.body) == (200, created)
        dry = await api.call("PATCH", f"{PODS}/p/resize", resources(requests={"cpu": "110m"}),
                             content_type=SMP, params={"dryRun": "All"})
        assert (dry.status, dry.body["metadata"]["generation"]) == (200, 2)
        assert (await api.get(f"{PODS}/p")).body == created

    serve(scenario)


def test_resize_routes_refuse_other_methods_and_missing_pods() -> None:
    async def scenario(api: Api) -> None:
        await create(api, sized("p"))
        not_allowed = status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})
        assert ((await api.delete(f"{PODS}/p/resize")).body, (await api.post(f"{PODS}/p/resize", {})).body) == (
            not_allowed, not_allowed)
        missing = status(404, "NotFound", 'pods "nope" not found', {"name": "nope", "kind": "pods"})
        assert (await api.get(f"{PODS}/nope/resize")).body == missing
        assert (await api.patch(f"{PODS}/nope/resize", resources(requests={"cpu": "110m"}))).body == missing

    serve(scenario)


# ---------------------------------------------------------------------- journal and fault rules


def test_a_resize_is_journaled_with_its_effect_and_fault_rules_match_it() -> None:
    async def scenario(api: Api) -> None:
        server = api.server
        rule = server.faults.add(FaultRule(Match(verb="patch", resource="pods", subresource="resize"),
                                           Respond(503), name="refuse-resize", times=1))
        created = await create(api, sized("p"))
        refused = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": "150m"}))
        assert refused.status == 503
        done = await api.patch(f"{PODS}/p/resize", resources(requests={"cpu": "150m"}))
        assert done.status == 200
        entries = [e for e in server.journal.requests("patch", "pods", subresource="resize", name="p")]
        assert [(e.code, e.fault, e.effect) for e in entries] == [(503, "refuse-resize", ""), (200, "", "applied")]
        assert (entries[1].before, entries[1].after) == (created, done.body)
        assert rule.fired == 1
        server.faults.check()

    serve(scenario)


# ------------------------------------------------------------------- node spec.podPreemptionPolicy


def test_a_nodes_disable_resize_preemption_owners_are_stored_and_validated() -> None:
    async def scenario(api: Api) -> None:
        owners = ["autoscaling.k8s.io/cluster-autoscaler", "autoscaling.k8s.io/vpa-updater"]
        created = await api.ok("POST", NODES, node("n1", podPreemptionPolicy={"disableResizePreemption": owners}))
        assert created["spec"]["podPreemptionPolicy"] == {"disableResizePreemption": owners}
        patched = await api.ok("PATCH", f"{NODES}/n1", {"spec": {"podPreemptionPolicy": {"disableResizePreemption": ["scheduler"]}}})
        assert patched["spec"]["podPreemptionPolicy"] == {"disableResizePreemption": ["scheduler"]}
        cleared = await api.ok("PATCH", f"{NODES}/n1", {"spec": {"podPreemptionPolicy": None}})
        assert "podPreemptionPolicy" not in cleared["spec"]

        def refused(name: str, *errors: tuple[str, str, str]) -> dict[str, Any]:
            return invalid(name, *errors, kind="Node")

        many = await api.post(NODES, node("n2", podPreemptionPolicy={
            "disableResizePreemption": [f"item-{i:02d}" for i in range(1, 22)]}))
        assert (many.status, many.body) == (422, refused("n2", (OWNERS, "FieldValueTooMany", "Too many: 21: must have at most 20 items")))
        bad = await api.post(NODES, node("n3", podPreemptionPolicy={
            "disableResizePreemption": ["invalid_label!", "duplicate-val", "duplicate-val"]}))
        assert (bad.status, bad.body) == (422, refused(
            "n3",
            (f"{OWNERS}[0]", "FieldValueInvalid",
             "Invalid value: \"invalid_label!\": name part must consist of alphanumeric characters, '-', '_' or '.', "
             "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
             "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
            (f"{OWNERS}[2]", "FieldValueDuplicate", 'Duplicate value: "duplicate-val"')))
        update = await api.patch(f"{NODES}/n1", {"spec": {"podPreemptionPolicy": {"disableResizePreemption": ["a", "a"]}}})
        assert (update.status, update.body) == (422, refused("n1", (f"{OWNERS}[1]", "FieldValueDuplicate", 'Duplicate value: "a"')))
        wrong = await api.post(NODES, node("n4", podPreemptionPolicy={"disableResizePreemption": "scheduler"}))
        assert (wrong.status, wrong.body) == (400, status(
            400, "BadRequest", 'Node in version "v1" cannot be handled as a Node: json: cannot unmarshal string into '
            "Go struct field NodePodPreemptionPolicy.spec.podPreemptionPolicy.disableResizePreemption of type []string"))

    serve(scenario, feature_gates={"InPlacePodVerticalScalingSchedulerPreemption": True})


# ------------------------------------------------------------------------------------- kubectl

needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")


@needs_kubectl
def test_kubectl_patch_subresource_resize(kubectl: Kubectl, ns: str) -> None:  # noqa: F811
    for name, limits in (("k1", {"cpu": "500m", "memory": "200Mi"}), ("k2", {"cpu": "100m", "memory": "100Mi"})):
        manifest = sized(name, {"requests": {"cpu": "100m", "memory": "100Mi"}, "limits": limits})
        kubectl.out("create", "-n", ns, "-f", "-", input=json.dumps(manifest))
    patch = '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"300m"}}}]}}'
    assert kubectl.out("patch", "-n", ns, "pod", "k1", "--subresource", "resize", "--patch", patch) == "pod/k1 patched\n"
    assert kubectl.out("patch", "-n", ns, "pod", "k1", "--subresource", "resize", "--patch", patch) == (
        "pod/k1 patched (no change)\n")
    assert kubectl.out("get", "-n", ns, "pod", "k1", "--subresource", "resize", "-o",
                       "jsonpath={.spec.containers[0].resources.requests.cpu} {.metadata.generation}") == "300m 2"
    downsize = '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"50m"}}}]}}'
    assert kubectl.fail("patch", "-n", ns, "pod", "k2", "--subresource", "resize", "--patch", downsize) == (
        'The Pod "k2" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing\n')
    by_json = '[{"op":"replace","path":"/spec/containers/0/resources/requests/cpu","value":"400m"}]'
    assert kubectl.out("patch", "-n", ns, "pod", "k1", "--subresource", "resize", "--type", "json",
                       "--patch", by_json) == "pod/k1 patched\n"
    merge = '{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"300m"}}}]}}'
    assert kubectl.fail("patch", "-n", ns, "pod", "k1", "--subresource", "resize", "--type", "merge",
                        "--patch", merge) == (
        'The Pod "k1" is invalid: \n'
        "* spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed\n"
        "* spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed\n")
