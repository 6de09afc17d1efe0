"""Typed decoding over HTTP: a body decodes into its kind's type as kube-apiserver's does.

Requests go through the served fake with aiohttp; every expected status and message was captured
from kube-apiserver v1.36 (with etcd) answering the same body (``dryRun=All`` creates in a scratch
namespace, patches of a stored pod), and the stored shapes (what a ``null`` or an empty list
becomes, repeated keys) from the objects it answered. The strategic-merge-patch keys are checked
against the ``patchStrategy``/``patchMergeKey`` tags of ``k8s.io/api`` v0.36 ``core/v1/types.go``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable, TypeVar

import aiohttp
import pytest

from fake_apiserver import FakeApiServer, ListStrategy, by_resource
from fake_apiserver._machinery.gotime import TimeError, normalize
from harness._time.virtual_time import VirtualClock, run

T = TypeVar("T")

PODS = "/api/v1/namespaces/default/pods"
SMP = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


async def call(session: aiohttp.ClientSession, method: str, path: str, body: Any = None, *,
               data: str | None = None, content_type: str = "application/json") -> tuple[int, Any]:
    async with session.request(method, path, data=json.dumps(body) if body is not None else data,
                               headers={"Content-Type": content_type}) as r:
        return r.status, await r.json()


def serve(scenario: Callable[[aiohttp.ClientSession], Awaitable[T]]) -> T:
    async def main() -> T:
        async with FakeApiServer(clock=VirtualClock(asyncio.get_running_loop())) as server:
            async with aiohttp.ClientSession(server.url) as session:
                return await scenario(session)

    return run(main())


def pod(container: dict[str, Any] | None = None, meta: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **(meta or {})},
            "spec": {"containers": [{"name": "c", "image": "x", **(container or {})}], **spec}}


def raw_pod(spec: str) -> str:
    return '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{' + spec + ',"containers":[{"name":"c","image":"x"}]}}'


def created(body: Any = None, data: str | None = None, path: str = PODS) -> tuple[int, Any]:
    return serve(lambda session: call(session, "POST", path, body, data=data))


@pytest.mark.parametrize(("body", "data", "error"), [
    (pod(terminationGracePeriodSeconds="30"), None,
     "json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"),
    # a number an integer field refuses is quoted as it was written
    (None, raw_pod('"terminationGracePeriodSeconds":1.5'),
     "json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"),
    (None, raw_pod('"terminationGracePeriodSeconds":1.0'),
     "json: cannot unmarshal number 1.0 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"),
    (None, raw_pod('"terminationGracePeriodSeconds":1e3'),
     "json: cannot unmarshal number 1e3 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"),
    (None, raw_pod('"terminationGracePeriodSeconds":99999999999999999999'),
     "json: cannot unmarshal number 99999999999999999999 into Go struct field PodSpec.spec."
     "terminationGracePeriodSeconds of type int64"),
    (pod({"ports": [{"containerPort": 3000000000}]}), None,
     "json: cannot unmarshal number 3000000000 into Go struct field ContainerPort.spec.containers.ports.containerPort "
     "of type int32"),
    (pod(nodeName=True), None, "json: cannot unmarshal bool into Go struct field PodSpec.spec.nodeName of type string"),
    (pod(nodeName=5), None, "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string"),
    (pod(nodeName={}), None, "json: cannot unmarshal object into Go struct field PodSpec.spec.nodeName of type string"),
    (pod(affinity=[]), None, "json: cannot unmarshal array into Go struct field PodSpec.spec.affinity of type v1.Affinity"),
    (pod(containers="x"), None,
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"),
    (pod(containers=[1]), None,
     "json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type v1.Container"),
    (pod(hostNetwork=1), None, "json: cannot unmarshal number into Go struct field PodSpec.spec.hostNetwork of type bool"),
    (pod(nodeSelector={"a": 1}), None,
     "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeSelector of type string"),
    (pod(meta={"labels": {"a": 1}}), None,
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    # named Go types, from the Go struct facts the schema lacks
    ({**pod(), "status": {"phase": 1}}, None,
     "json: cannot unmarshal number into Go struct field PodStatus.status.phase of type v1.PodPhase"),
    (pod(restartPolicy=1), None,
     "json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy"),
    (pod(meta={"uid": 1}), None,
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID"),
    (pod({"resources": {"limits": []}}), None,
     "json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources.limits of type "
     "v1.ResourceList"),
    # embedded structs name themselves in the path (ProbeHandler in Probe, VolumeSource in Volume)
    (pod({"livenessProbe": {"httpGet": {"path": 5, "port": 80}}}), None,
     "json: cannot unmarshal number into Go struct field HTTPGetAction.spec.containers.livenessProbe.ProbeHandler."
     "httpGet.path of type string"),
    (pod(volumes=[{"name": "v", "emptyDir": 5}]), None,
     "json: cannot unmarshal number into Go struct field Volume.spec.volumes.VolumeSource.emptyDir of type "
     "v1.EmptyDirVolumeSource"),
    # IntOrString decodes its number into an int32 of its own
    (pod({"livenessProbe": {"httpGet": {"port": True}}}), None,
     "json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe.ProbeHandler."
     "httpGet.port of type int32"),
    (pod({"livenessProbe": {"httpGet": {"port": 1.5}}}), None,
     "json: cannot unmarshal number 1.5 into Go struct field HTTPGetAction.spec.containers.livenessProbe.ProbeHandler."
     "httpGet.port of type int32"),
    # quantities and times have their own UnmarshalJSON and errors
    (pod({"resources": {"limits": {"cpu": "abc"}}}), None, QUANTITY),
    (pod({"resources": {"limits": {"cpu": True}}}), None, QUANTITY),
    (pod({"resources": {"limits": {"cpu": {}}}}), None, QUANTITY),
    (pod(meta={"creationTimestamp": 5}), None,
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"),
    (pod(meta={"creationTimestamp": "yesterday"}), None,
     'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
    (pod(meta={"creationTimestamp": "2024-01-01"}), None,
     'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
    # the first error in the body wins, and a type error wins over unknown fields
    (pod(nodeName=5, hostNetwork=1), None,
     "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string"),
    (pod(nodeName=5, containerz=1), None,
     "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string"),
    ({"apiVersion": "v1", "kind": "Pod", "metadata": 5}, None,
     "json: cannot unmarshal number into Go struct field Pod.metadata of type v1.ObjectMeta"),
])
def test_a_field_of_the_wrong_type_is_refused(body: Any, data: str | None, error: str) -> None:
    code, status = created(body, data)
    assert (code, status["reason"], status["message"]) == (
        400, "BadRequest", f'Pod in version "v1" cannot be handled as a Pod: {error}')


def test_resource_claims_and_leases_decode_into_their_types() -> None:
    """The issue's example (a ResourceClaim whose requests are a string), a MicroTime that is not
    RFC3339Micro, and a RawExtension that keeps whatever JSON it holds."""
    claims = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
    leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"

    async def scenario(session: aiohttp.ClientSession) -> None:
        claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "rc"},
                 "spec": {"devices": {"requests": "x"}}}
        assert (await call(session, "POST", claims, claim))[1]["message"] == (
            'ResourceClaim in version "v1" cannot be handled as a ResourceClaim: json: cannot unmarshal string into '
            "Go struct field DeviceClaim.spec.devices.requests of type []v1.DeviceRequest")
        parameters = {"anything": [1, {"x": None}], "z": None}
        claim["spec"] = {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}], "config": [
            {"opaque": {"driver": "d.example.com", "parameters": parameters}, "zz": 1}]}}
        code, stored = await call(session, "POST", claims, claim)
        assert code == 201
        assert stored["spec"]["devices"]["config"] == [{"opaque": {"driver": "d.example.com", "parameters": parameters}}]
        for when, error in [
            ("2024-01-01T00:00:00Z", 'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": '
                                     'cannot parse "Z" as ".000000"'),
            ("2024-01-01T00:00:00.1234567Z", 'parsing time "2024-01-01T00:00:00.1234567Z" as '
                                             '"2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"'),
            (5, "json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime of type string"),
        ]:
            lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
                     "spec": {"renewTime": when}}
            assert (await call(session, "POST", leases, lease))[1]["message"] == (
                f'Lease in version "v1" cannot be handled as a Lease: {error}')
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
                 "spec": {"renewTime": "2024-01-01T00:00:00.123456+02:00"}}
        assert (await call(session, "POST", leases, lease))[1]["spec"] == {"renewTime": "2023-12-31T22:00:00.123456Z"}

    serve(scenario)


def test_what_is_stored_is_what_go_would_encode() -> None:
    """Unknown fields gone; ``null`` in a list of strings is ``""``, a null quantity ``"0"``, a
    null label value ``""``; an empty map in an ``omitempty`` field is left out while an empty
    struct behind a pointer stays; a null time in a condition stays null."""

    async def scenario(session: aiohttp.ClientSession) -> None:
        body = pod({"command": [None, "a"], "resources": {"limits": {"cpu": None}}, "foo": 1},
                   {"labels": {"a": None}, "annotations": {}}, nodeSelector={}, affinity={}, containerz=1)
        code, stored = await call(session, "POST", PODS, body)
        assert code == 201
        container = stored["spec"]["containers"][0]
        assert (container["command"], container["resources"]) == (["", "a"], {"limits": {"cpu": "0"},
                                                                             "requests": {"cpu": "0"}})
        assert "foo" not in container and "containerz" not in stored["spec"]
        assert stored["metadata"]["labels"] == {"a": ""} and "annotations" not in stored["metadata"]
        assert "nodeSelector" not in stored["spec"] and stored["spec"]["affinity"] == {}
        code, patched = await call(session, "PATCH", f"{PODS}/p/status", {"status": {"conditions": [
            {"type": "Ready", "status": "True", "lastProbeTime": None}]}}, content_type=SMP)
        assert code == 200
        assert [c for c in patched["status"]["conditions"] if c["type"] == "Ready"][0]["lastProbeTime"] is None

    serve(scenario)


@pytest.mark.parametrize(("sent", "stored"), [
    # Quantity.MarshalJSON: the text as sent when ParseQuantity found it canonical, else String()
    ("100m", "100m"), ("0.5", "500m"), ("2048Mi", "2Gi"), ("1.5Gi", "1536Mi"), ("12e6", "12e6"), ("1E3", "1E3"),
    ("1.0", "1"), ("+1", "+1"), ("128974848", "128974848"), ("0.1", "100m"), ("1000m", "1"), ("1.50", "1500m"),
    ("2.5e3", "2500"), (1.5, "1500m"), (1000, "1k"),
])
def test_quantities_are_stored_as_go_writes_them(sent: Any, stored: str) -> None:
    """A container's cpu limit and request, each answer captured from a dry-run create."""
    code, body = created(pod({"resources": {"limits": {"cpu": sent}, "requests": {"cpu": sent}}}))
    assert (code, body["spec"]["containers"][0]["resources"]) == (201, {"limits": {"cpu": stored},
                                                                       "requests": {"cpu": stored}})


def test_times_are_stored_in_utc() -> None:
    """``Time.UnmarshalJSON`` parses RFC 3339 and ``MarshalJSON`` writes UTC seconds."""
    assert normalize("2024-01-01T00:00:00+02:00", micro=False) == "2023-12-31T22:00:00Z"
    assert normalize("2024-01-01T00:00:00.5Z", micro=False) == "2024-01-01T00:00:00Z"
    assert normalize("2024-01-01T1:00:00Z", micro=False) == "2024-01-01T01:00:00Z"
    for value, error in [
        ("2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
        ("2024-02-30T00:00:00Z", 'parsing time "2024-02-30T00:00:00Z": day out of range'),
        ("2024-01-01T00:00:00Zx", 'parsing time "2024-01-01T00:00:00Zx": extra text: "x"'),
        ("2024-01-01T00:00:00+0200", 'parsing time "2024-01-01T00:00:00+0200" as "2006-01-02T15:04:05Z07:00": '
                                     'cannot parse "+0200" as "Z07:00"'),
    ]:
        with pytest.raises(TimeError) as caught:
            normalize(value, micro=False)
        assert str(caught.value) == error


@pytest.mark.parametrize(("content_type", "patch", "error"), [
    # the unstructured converter's words, the patch shown as Go's %+v of the map
    (SMP, {"spec": {"activeDeadlineSeconds": "x"}}, ("map[spec:map[activeDeadlineSeconds:x]]", "unrecognized type: int64")),
    (SMP, {"spec": {"activeDeadlineSeconds": True}},
     ("map[spec:map[activeDeadlineSeconds:true]]", "unrecognized type: int64")),
    (SMP, {"spec": {"activeDeadlineSeconds": 1.5}},
     ("map[spec:map[activeDeadlineSeconds:1.5]]", "cannot convert float64 to int64")),
    (SMP, {"metadata": {"labels": {"b": 5}}}, ("map[metadata:map[labels:map[b:5]]]", "cannot convert int64 to string")),
    (SMP, {"metadata": {"finalizers": [5]}}, ("map[metadata:map[finalizers:[5]]]", "cannot convert int64 to string")),
    (SMP, {"spec": {"affinity": [1]}}, ("map[spec:map[affinity:[1]]]", "cannot restore struct from: slice")),
    (SMP, {"spec": {"nodeName": {"a": [1, "x", True, None]}}},
     ("map[spec:map[nodeName:map[a:[1 x true <nil>]]]]", "unrecognized type: string")),
    (SMP, {"metadata": {"creationTimestamp": 5}},
     ("map[metadata:map[creationTimestamp:5]]", "json: cannot unmarshal number into Go value of type string")),
    (SMP, {"metadata": {"creationTimestamp": "yesterday"}}, ("map[metadata:map[creationTimestamp:yesterday]]",
     'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"')),
    (SMP, {"spec": {"containers": [{"name": "c", "livenessProbe": {"httpGet": {"port": True}}}]}},
     ("map[spec:map[containers:[map[livenessProbe:map[httpGet:map[port:true]] name:c]]]]",
      "json: cannot unmarshal bool into Go value of type int32")),
    (SMP, {"spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "abc"}}}]}},
     ("map[spec:map[containers:[map[name:c resources:map[limits:map[cpu:abc]]]]]]", QUANTITY)),
    # the JSON decoder's words for a JSON or merge patch's result
    (MERGE, {"spec": {"activeDeadlineSeconds": "x"}},
     (None, "json: cannot unmarshal string into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64")),
    (MERGE, {"spec": {"activeDeadlineSeconds": 1.5}},
     (None, "json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64")),
    (MERGE, {"metadata": {"labels": {"b": 5}}},
     (None, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string")),
    (MERGE, {"spec": {"affinity": [1]}},
     (None, "json: cannot unmarshal array into Go struct field PodSpec.spec.affinity of type v1.Affinity")),
    (MERGE, {"metadata": {"creationTimestamp": "yesterday"}},
     (None, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"')),
    (JSON_PATCH, [{"op": "add", "path": "/spec/nodeName", "value": {"a": 1}}],
     (None, "json: cannot unmarshal object into Go struct field PodSpec.spec.nodeName of type string")),
    (JSON_PATCH, [{"op": "add", "path": "/spec/containers/0/resources", "value": {"limits": {"cpu": "abc"}}}],
     (None, QUANTITY)),
])
def test_a_patch_whose_result_has_a_wrong_type_is_422(content_type: str, patch: Any,
                                                      error: tuple[str | None, str]) -> None:
    """Every directive gives the same 422 (Strict, Warn and Ignore were each captured)."""
    shown, detail = error

    async def scenario(session: aiohttp.ClientSession) -> None:
        await call(session, "POST", PODS, pod())
        for directive in ("Strict", "Warn", "Ignore"):
            code, status = await call(session, "PATCH", f"{PODS}/p?fieldValidation={directive}", patch,
                                      content_type=content_type)
            assert (code, status["reason"], status["details"]["causes"][0]["field"]) == (422, "Invalid", "patch")
            message = status["message"]
            if shown is not None:
                assert message == f' "" is invalid: patch: Invalid value: {json.dumps(shown)}: {detail}'
            else:  # the patched object (the real one also holds its managedFields)
                assert message.startswith(' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"v1\\",\\"kind')
                assert message.endswith(f'": {detail}')
        assert (await call(session, "GET", f"{PODS}/p"))[1]["metadata"]["resourceVersion"] == "8"  # nothing stored

    serve(scenario)


def test_an_int32_overflows_through_a_strategic_merge_patch() -> None:
    """The converter sets an int32 from an int64 without a range check, so 3000000000 arrives as
    -1294967296 and validation, not decoding, refuses it: the real server's 422 says ``pod updates
    may not change fields`` with ``"ContainerPort": -1294967296`` in its diff (and also checks the
    port's range, which the fake's pod validation does not)."""

    async def scenario(session: aiohttp.ClientSession) -> None:
        await call(session, "POST", PODS, pod())
        code, status = await call(session, "PATCH", f"{PODS}/p", {"spec": {"containers": [
            {"name": "c", "ports": [{"containerPort": 3000000000}]}]}}, content_type=SMP)
        assert (code, status["reason"]) == (422, "Invalid")
        forbidden = [c for c in status["details"]["causes"] if c["field"] == "spec"]
        assert forbidden[0]["message"].startswith("Forbidden: pod updates may not change fields other than")
        assert "-1294967296" in forbidden[0]["message"]

    serve(scenario)


def test_strategic_merge_keys_come_from_the_schema() -> None:
    """``patchStrategy``/``patchMergeKey`` of k8s.io/api core/v1: containers merge on name, their
    env on name and ports on containerPort, volumes on name with retainKeys, finalizers as a set;
    tolerations and taints carry no strategy (atomic)."""
    pods = by_resource("", "v1", "pods")
    nodes = by_resource("", "v1", "nodes")
    assert pods is not None and nodes is not None
    strategies = pods.patch_schema
    assert strategies["spec.containers"] == ListStrategy("name")
    assert strategies["spec.containers[].env"] == ListStrategy("name")
    assert strategies["spec.containers[].ports"] == ListStrategy("containerPort")
    assert strategies["spec.volumes"] == ListStrategy("name", retain_keys=True)
    assert strategies["metadata.finalizers"] == ListStrategy(None)
    assert strategies["status.conditions"] == ListStrategy("type")
    assert "spec.tolerations" not in strategies
    assert nodes.patch_schema["status.addresses"] == ListStrategy("type")
    assert "spec.taints" not in nodes.patch_schema


# Each captured from kube-apiserver v1.36: a ConfigMap POSTed with binaryData {"k": <value>}
# answers 400 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at
# input byte <offset>'.
@pytest.mark.parametrize(("value", "offset"), [
    ("not base64!", 3), ("dg=", 3), ("dg", 0), ("d", 0), ("ab=c", 2), ("abc=x", 4), ("a===", 1), ("dg==x", 4),
])
def test_bytes_that_are_not_base64_are_refused_where_go_stops(value: str, offset: int) -> None:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b64"}, "binaryData": {"k": value}}
    status, answer = created(body, path="/api/v1/namespaces/default/configmaps")
    assert (status, answer["message"]) == (
        400, f'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte {offset}')


def test_bytes_in_base64_are_stored_as_go_encodes_them() -> None:
    # kube-apiserver v1.36 stores {"k": "dg==\n", "j": "YWJj"} as {"j": "YWJj", "k": "dg=="}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b64"}, "binaryData": {"k": "dg==\n", "j": "YWJj"}}
    status, answer = created(body, path="/api/v1/namespaces/default/configmaps")
    assert (status, answer["binaryData"]) == (201, {"j": "YWJj", "k": "dg=="})


def test_the_bodies_of_one_template_decode_as_each_alone() -> None:
    """Bodies that differ in their name alone are decoded once and copied (issue 27): each copy
    is what decoding that body alone gives, strict errors included, and a body of the template
    that repeats a key still has its duplicate reported."""
    from fake_apiserver._machinery import typed
    from fake_apiserver._machinery.gotypes import kind_node

    node = kind_node("", "v1", "Pod", "1.37.0")

    def body(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "i", "unknown": 1,
                                         "resources": {"requests": {"cpu": "0.5"}}}]}}

    def text(name: str) -> bytes:
        return json.dumps(body(name)).encode()

    alone = {name: typed._Walker(convert=False, strict=True).struct(node, body(name), "", typed._NO)
             for name in ("a", "b", "c", "d")}
    decoded = [typed.decode(node, body(name), raw=text(name), strict=True) for name in ("a", "b", "c", "d")]
    for (out, errors), name in zip(decoded, "abcd"):
        assert out == alone[name] and out["metadata"]["name"] == name
        assert out["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "500m"
        assert errors == ['unknown field "spec.containers[0].unknown"']
    decoded[2][0]["spec"]["containers"][0]["image"] = "changed"  # a copy: the next body's is its own
    assert typed.decode(node, body("e"), raw=text("e"), strict=True)[0]["spec"]["containers"][0]["image"] == "i"
    repeated = text("f").replace(b'"image": "i"', b'"image": "x", "image": "i"')  # the same object, parsed
    out, errors = typed.decode(node, body("f"), raw=repeated, strict=True)
    assert out == alone["a"] | {"metadata": {"name": "f", "labels": {"app": "web"}}}
    assert errors == ['duplicate field "spec.containers[0].image"', 'unknown field "spec.containers[0].unknown"']


def test_the_bodies_of_one_template_decode_and_are_written_as_each_alone() -> None:
    """``decode(written=True)`` keeps a template's decoding with Go's unset fields written: each
    body's is what decoding it alone and writing those fields gives, and a copy of its own."""
    from fake_apiserver._machinery import typed
    from fake_apiserver._machinery.gotypes import go_written, kind_node

    node = kind_node("", "v1", "Pod", "1.37.0")

    def body(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
                "status": {"conditions": [{"type": "Ready", "status": "True"}]}}

    names = ("w1", "w2", "w3", "w4")
    alone = {name: go_written(typed._Walker(convert=False, strict=False).struct(node, body(name), "", typed._NO), node)
             for name in names}
    written = [typed.decode(node, body(name), written=True)[0] for name in names]
    assert written == [alone[name] for name in names]
    assert written[3]["status"]["conditions"][0]["lastProbeTime"] is None  # a field Go writes when unset
    assert "lastProbeTime" not in typed.decode(node, body("w5"))[0]["status"]["conditions"][0]
    written[2]["status"]["conditions"][0]["lastProbeTime"] = "changed"
    assert typed.decode(node, body("w6"), written=True)[0]["status"]["conditions"][0]["lastProbeTime"] is None


def test_a_kept_decoding_parses_back_into_itself_or_is_kept_as_a_copy() -> None:
    """The decoding kept for a template is its JSON text only where that text parses back into
    the same values, of the same types; a NaN or an integer past 64 bits keeps a copy instead."""
    from fake_apiserver._machinery import typed

    plain = {"a": [1, 2.5, True, None, "x"], "b": {"c": -0.0, "d": 2**63 - 1}}
    kept = typed._kept(plain)
    assert isinstance(kept, bytes)
    again = json.loads(kept)
    assert again == plain and [type(v) for v in again["a"]] == [int, float, bool, type(None), str]
    for odd in ({"a": float("nan")}, {"a": 2**70}):
        copy = typed._kept(odd)
        assert isinstance(copy, dict) and copy is not odd and repr(copy) == repr(odd)
