"""Protobuf for every kind a release lists, not only the kinds the fake's table serves today.

``tools/gen_protobuf_fields.py`` generates the wire facts of every kind of the release's aggregated
discovery data (captured from kube-apiserver); these tests check that a server of the release
compiles a message for each of them, and that the messages decode what a real kube-apiserver
v1.37.2 encodes: each object it holds of every kind it lists (the ones it makes at start, and
objects of the kinds the fake does not serve yet created through its JSON API), its ``scale``
subresource, and the answer to a SubjectAccessReview, each read once as protobuf and once as JSON.
The expected JSON is always the real server's.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from fake_apiserver._machinery import protobuf
from fake_apiserver._machinery.protobuf_wire import tables
from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import ROOT

__all__: list[str] = []

DATA = ROOT / "fake_apiserver" / "data"
PROTOBUF = protobuf.CONTENT_TYPE
RELEASES = ("1.36", "1.37")
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver v1.37")


def discovery(release: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(group, version, resource) of the release's discovery data, captured from kube-apiserver."""
    data = json.loads((DATA / f"discovery-v{release}.json").read_text())
    return [(g["group"], v["version"], r) for g in data["groups"] for v in g["versions"] for r in v["resources"]]


@pytest.mark.parametrize("release", RELEASES)
def test_every_kind_of_the_discovery_data_has_a_message(release: str) -> None:
    """Each resource's kind and each subresource's (its resource's group-version when the data
    names none) is a kind the release's tables decode, as a message of that Go type name."""
    kinds = tables(f"{release}.0").kinds
    wanted = set()
    for group, version, resource in discovery(release):
        wanted.add((group, version, resource["kind"]))
        for sub in resource["subresources"]:
            named = sub["responseKind"]
            wanted.add((named["group"], named["version"], named["kind"]) if named["version"]
                       else (group, version, named["kind"]))
    missing = sorted(wanted - set(kinds))
    assert missing == []
    assert all(kinds[gvk].go_type.rsplit(".", 1)[1] == gvk[2] for gvk in wanted)
    assert {("autoscaling", "v1", "Scale"), ("policy", "v1", "Eviction"), ("", "v1", "Binding"),
            ("authentication.k8s.io", "v1", "TokenRequest")} <= wanted  # named by subresources alone


# --------------------------------------------------------------------------- a real kube-apiserver v1.37


class RealServer:
    """Raw HTTP to the control plane with the kubeconfig's CA and token."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
        self.url: str = cluster["server"]
        self.token: str = user["token"]
        self.context = ssl.create_default_context(
            cadata=base64.b64decode(cluster["certificate-authority-data"]).decode("ascii"))

    def call(self, method: str, path: str, body: Any = None, accept: str = "application/json") -> tuple[int, bytes]:
        request = urllib.request.Request(self.url + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"Bearer {self.token}", "Accept": accept,
                                                  "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=60) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()


def _prefix(group: str, version: str) -> str:
    return f"/apis/{group}/{version}" if group else f"/api/{version}"


_SELECTOR = {"matchLabels": {"app": "pb"}}
_TEMPLATE: dict[str, Any] = {"metadata": {"labels": {"app": "pb"}},
             "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                      "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                                      "ports": [{"containerPort": 8080}]}]}}
# Objects of kinds the fake's table does not serve (and a Deployment and a Job), created as JSON;
# chosen to carry the types with their own wire or JSON forms: quantities, int-or-strings,
# durations, times, a CRD schema (floats, raw JSON defaults and enums, nested schemas).
CREATED: list[tuple[str, str, str, dict[str, Any]]] = [
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", {
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"spec": {"type": "object", "properties": {
                         "size": {"type": "number", "maximum": 10.5, "minimum": -2, "multipleOf": 0.5, "default": 1.5},
                         "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                         "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                         "any": {"type": "object", "additionalProperties": True},
                         "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                         "mode": {"type": "string", "enum": ["x", "y"], "default": "x", "example": "y"}}}}}}}]}}),
    ("apps", "v1", "namespaces/default/deployments", {
        "metadata": {"name": "pb"}, "spec": {"replicas": 2, "selector": _SELECTOR, "template": _TEMPLATE,
                                             "strategy": {"rollingUpdate": {"maxSurge": "50%", "maxUnavailable": 0}}}}),
    ("apps", "v1", "namespaces/default/daemonsets", {
        "metadata": {"name": "pb"}, "spec": {"selector": _SELECTOR, "template": _TEMPLATE}}),
    ("batch", "v1", "namespaces/default/jobs", {
        "metadata": {"name": "pb"}, "spec": {"suspend": True, "activeDeadlineSeconds": 60, "template": {
            "spec": {"restartPolicy": "Never", "containers": _TEMPLATE["spec"]["containers"]}}}}),
    ("batch", "v1", "namespaces/default/cronjobs", {
        "metadata": {"name": "pb"}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {
            "spec": {"restartPolicy": "OnFailure", "containers": _TEMPLATE["spec"]["containers"]}}}}}}),
    ("autoscaling", "v2", "namespaces/default/horizontalpodautoscalers", {
        "metadata": {"name": "pb"}, "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "pb"}, "maxReplicas": 5,
            "metrics": [{"type": "Resource", "resource": {"name": "memory", "target": {
                "type": "AverageValue", "averageValue": "100Mi"}}}]}}),
    ("networking.k8s.io", "v1", "namespaces/default/networkpolicies", {
        "metadata": {"name": "pb"}, "spec": {"podSelector": _SELECTOR, "ingress": [{"ports": [
            {"port": 80}, {"port": "http", "protocol": "TCP"}]}]}}),
    ("networking.k8s.io", "v1", "namespaces/default/ingresses", {
        "metadata": {"name": "pb"}, "spec": {"rules": [{"host": "pb.example.com", "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "pb", "port": {"number": 80}}}}]}}]}}),
    ("rbac.authorization.k8s.io", "v1", "namespaces/default/roles", {
        "metadata": {"name": "pb"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}),
    ("", "v1", "namespaces/default/serviceaccounts", {"metadata": {"name": "pb"}}),
    ("", "v1", "namespaces/default/resourcequotas", {
        "metadata": {"name": "pb"}, "spec": {"hard": {"cpu": "2", "memory": "1Gi", "pods": "10"}}}),
    ("", "v1", "namespaces/default/limitranges", {
        "metadata": {"name": "pb"}, "spec": {"limits": [{"type": "Container", "default": {"cpu": "500m"},
                                                         "defaultRequest": {"cpu": "250m"}}]}}),
    ("node.k8s.io", "v1", "runtimeclasses", {
        "metadata": {"name": "pb"}, "handler": "runc", "overhead": {"podFixed": {"cpu": "100m"}}}),
    ("storage.k8s.io", "v1", "volumeattributesclasses", {
        "metadata": {"name": "pb"}, "driverName": "example.com/csi", "parameters": {"iops": "100"}}),
    ("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", {
        "metadata": {"name": "pb"}, "spec": {"validations": [{"expression": "object.spec.replicas < 100"}],
                                             "matchConstraints": {"resourceRules": [{
                                                 "apiGroups": ["apps"], "apiVersions": ["v1"],
                                                 "operations": ["CREATE"], "resources": ["deployments"]}]}}}),
]
ITEMS_PER_RESOURCE = 10  # of the objects a fresh server holds (dozens of ClusterRoles): enough per kind


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    with ControlPlane(assets=find_assets(), logdir=tmp_path_factory.mktemp("logs")) as control_plane:
        assert control_plane.kubeconfig_path is not None
        server = RealServer(control_plane.kubeconfig_path)
        for group, version, path, body in CREATED:
            code, answer = server.call("POST", f"{_prefix(group, version)}/{path}", body)
            assert code == 201, answer
        yield server


def _both(server: RealServer, path: str) -> tuple[bytes, Any]:
    """The object at ``path`` as protobuf and as JSON, read until both are of one resourceVersion
    (a lease or a status the server renews may change between the reads)."""
    for _ in range(5):
        code, encoded = server.call("GET", path, accept=PROTOBUF)
        assert code == 200, encoded
        code, text = server.call("GET", path)
        assert code == 200, text
        answer = json.loads(text)
        decoded = protobuf.body_json(encoded, PROTOBUF)
        if decoded["metadata"].get("resourceVersion") == answer["metadata"].get("resourceVersion"):
            return encoded, answer
    raise AssertionError(f"{path} kept changing")


@needs_binaries
def test_what_a_real_server_holds_decodes_to_its_json(real_server: RealServer) -> None:
    """Every object (up to :data:`ITEMS_PER_RESOURCE` a resource) of every kind kube-apiserver
    v1.37.2 lists, read as protobuf and decoded for that kind, is the JSON it answers for the
    same object."""
    differing, compared = [], set()
    for group, version, resource in discovery("1.37"):
        if not {"get", "list"} <= set(resource["verbs"]):
            continue
        code, text = real_server.call("GET", f"{_prefix(group, version)}/{resource['resource']}")
        assert code == 200, (resource["resource"], text)
        for item in json.loads(text)["items"][:ITEMS_PER_RESOURCE]:
            meta = item["metadata"]
            where = f"/namespaces/{meta['namespace']}" if "namespace" in meta else ""
            path = f"{_prefix(group, version)}{where}/{resource['resource']}/{meta['name']}"
            encoded, answer = _both(real_server, path)
            if protobuf.decode_object(encoded, group, version, resource["kind"], "1.37.0") != answer:
                differing.append(path)
            compared.add((group, version, resource["kind"]))
    assert differing == []
    created = {(g, v, k) for g, v, r in discovery("1.37") for k in [r["kind"]]
               if any((g, v) == (cg, cv) and cp.endswith(r["resource"]) for cg, cv, cp, _ in CREATED)}
    assert created <= compared
    assert len(compared) >= 30, sorted(compared)


@needs_binaries
@pytest.mark.parametrize("owner", ["apis/apps/v1/namespaces/default/deployments/pb", "api/v1/namespaces/default/"
                                   "replicationcontrollers"])
def test_a_scale_subresource_decodes_to_its_json(real_server: RealServer, owner: str) -> None:
    """``deployments/scale`` answers an autoscaling/v1 Scale (a kind no resource of the fake is)."""
    if owner.endswith("replicationcontrollers"):
        body = {"metadata": {"name": "pb"}, "spec": {"replicas": 1, "selector": {"app": "pb"}, "template": _TEMPLATE}}
        code, answer = real_server.call("POST", "/" + owner, body)
        assert code == 201, answer
        owner += "/pb"
    encoded, answer = _both(real_server, f"/{owner}/scale")
    assert answer["kind"] == "Scale" and answer["apiVersion"] == "autoscaling/v1"
    assert protobuf.decode_object(encoded, "autoscaling", "v1", "Scale", "1.37.0") == answer


@needs_binaries
def test_a_subject_access_review_answer_decodes_to_its_json(real_server: RealServer) -> None:
    """A create-only kind: the answer to the same review as protobuf and as JSON, both read with
    the ``extra`` map (``ExtraValue`` lists, a message of ``items`` on the wire) holding a list
    and an empty list (the JSON's ``[]``: gogo reads a map value into an empty list, not nil);
    the managed fields' times are the seconds of two requests."""
    review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {
        "user": "someone", "groups": ["g"], "extra": {"scopes": ["a", "b"], "none": []},
        "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}}}
    code, encoded = real_server.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review,
                                     accept=PROTOBUF)
    assert code == 201, encoded
    code, text = real_server.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review)
    assert code == 201, text
    answer = json.loads(text)
    decoded = protobuf.decode_object(encoded, "authorization.k8s.io", "v1", "SubjectAccessReview", "1.37.0")
    for entry in [*decoded["metadata"]["managedFields"], *answer["metadata"]["managedFields"]]:
        entry["time"] = "<request time>"
    assert answer["spec"]["extra"] == {"none": [], "scopes": ["a", "b"]}
    assert decoded == answer
