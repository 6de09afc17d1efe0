"""The ``scale`` subresource and the verbs each resource serves, against kube-apiserver v1.37.2.

One sequence of requests (:data:`STEPS`) is answered by the fake and compared with the answers a
real kube-apiserver v1.37.2 gave (``tests/data/scale/kube-apiserver-v1.37.2.json``); with
``KUBEBUILDER_ASSETS`` set, the real server is asked again and must still give them. Compared:
every status code; every ``Scale`` and ``Status`` whole, but the uid, resourceVersion and
creationTimestamp a server assigns; of the workloads themselves, ``spec.replicas`` and
``metadata.generation``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import TEST_DATA
from tests.support.real_apiserver import json_caller

RECORDED = TEST_DATA / "scale" / "kube-apiserver-v1.37.2.json"
D = "/apis/apps/v1/namespaces/default/deployments"
RC_PATH = "/api/v1/namespaces/default/replicationcontrollers"
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
    "replicas": 2,
    "selector": {"matchLabels": {"app": "web"},
                 "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]},
    "template": {"metadata": {"labels": {"app": "web", "tier": "a"}},
                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
RC = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"}, "spec": {
    "replicas": 1, "selector": {"b": "2", "a": "1"},
    "template": {"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def _scale(name: str, replicas: int, **meta: str) -> dict[str, Any]:
    return {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name, **meta},
            "spec": {"replicas": replicas}}


MERGE = "application/merge-patch+json"
STEPS: list[tuple[str, str, Any, str]] = [
    ("POST", D, DEPLOYMENT, ""),
    ("GET", D + "/web/scale", None, ""),
    ("PUT", D + "/web/scale", _scale("web", -1), ""),
    ("PUT", D + "/web/scale", _scale("other", 1), ""),
    ("PUT", D + "/web/scale", _scale("web", 1, resourceVersion="1"), ""),
    ("PATCH", D + "/web/scale", {"spec": {"replicas": 5}}, MERGE),
    ("PUT", D + "/web/scale", _scale("web", 3), ""),
    ("GET", D + "/web", None, ""),
    ("GET", D + "/nope/scale", None, ""),
    ("POST", D + "/web/scale", {}, ""),
    ("POST", RC_PATH, RC, ""),
    ("GET", RC_PATH + "/rc/scale", None, ""),
    ("GET", "/api/v1/namespaces/default/bindings", None, ""),
    ("GET", "/apis/authentication.k8s.io/v1/tokenreviews", None, ""),
    ("POST", "/api/v1/componentstatuses", {}, ""),
    ("DELETE", "/api/v1/componentstatuses/x", None, ""),
    ("PUT", "/apis/authorization.k8s.io/v1/subjectaccessreviews/x", {}, ""),
]

def _normal(answer: list[Any]) -> list[Any]:
    code, body = answer
    if not isinstance(body, dict):
        return [code, body]
    if body.get("kind") in ("Scale", "Status"):
        body = json.loads(json.dumps(body))
        for key in ("uid", "resourceVersion", "creationTimestamp"):
            body.get("metadata", {}).pop(key, None)
        return [code, body]
    # a workload itself: what the scale writes changed
    return [code, {"kind": body.get("kind"), "replicas": (body.get("spec") or {}).get("replicas"),
                   "generation": (body.get("metadata") or {}).get("generation")}]


def test_the_fake_answers_as_kube_apiserver_v1_37_did(threaded_server: Any) -> None:
    recorded = json.loads(RECORDED.read_text())
    call = json_caller(threaded_server.url)
    answers = [call(*step) for step in STEPS]
    assert len(recorded) == len(STEPS)
    for step, real, ours in zip(STEPS, recorded, answers):
        assert _normal(ours) == _normal(real), step[:2]


def test_a_scale_write_is_one_write_of_the_parent(threaded_server: Any) -> None:
    """The journal sees a scale write as a write of the workload (the effect is on its replicas)."""
    call = json_caller(threaded_server.url)
    call("POST", D, DEPLOYMENT, "")
    before = call("GET", D + "/web", None, "")[1]
    dry = call("PUT", D + "/web/scale?dryRun=All", _scale("web", 7), "")
    assert (dry[0], dry[1]["spec"]) == (200, {"replicas": 7})
    assert call("GET", D + "/web", None, "")[1] == before  # a dry run writes nothing
    assert call("PUT", D + "/web/scale", _scale("web", 7), "")[0] == 200
    after = call("GET", D + "/web", None, "")[1]
    assert (after["spec"]["replicas"], after["metadata"]["generation"]) == (7, 2)
    assert int(after["metadata"]["resourceVersion"]) > int(before["metadata"]["resourceVersion"])


def test_kube_apiserver_still_answers_as_recorded(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        call = json_caller(server, token, context)
        answers = [call(*step) for step in STEPS]
    recorded = json.loads(RECORDED.read_text())
    for step, real, now in zip(STEPS, recorded, answers):
        assert _normal(now) == _normal(real), step[:2]


def test_reviews_are_answered_and_not_stored(threaded_server: Any) -> None:
    """kubectl auth can-i and whoami: the fake allows everything, as AlwaysAllow does."""
    call = json_caller(threaded_server.url)
    asked = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
             "spec": {"resourceAttributes": {"verb": "create", "resource": "pods", "namespace": "default"}}}
    code, answer = call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", asked, "")
    assert (code, answer["status"], answer["spec"]) == (201, {"allowed": True}, asked["spec"])
    code, who = call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                     {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, "")
    assert (code, who["status"]["userInfo"]["username"]) == (201, "system:admin")
    assert call("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", None, "")[0] == 405
    kinds = {k.resource for k in threaded_server.call(lambda: threaded_server.server.store.kinds)}
    assert "selfsubjectaccessreviews" in kinds


def test_posting_a_binding_to_bindings_binds_the_pod(threaded_server: Any) -> None:
    """``POST namespaces/{ns}/bindings`` (the form before pods/binding) binds the pod it names."""
    call = json_caller(threaded_server.url)
    pods = "/api/v1/namespaces/default/pods"
    call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}, "")
    assert call("POST", pods, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                               "spec": {"containers": [{"name": "c", "image": "x"}]}}, "")[0] == 201
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"}, "target": {"kind": "Node", "name": "n1"}}
    code, answer = call("POST", "/api/v1/namespaces/default/bindings", binding, "")
    assert (code, answer["status"]) == (201, "Success")
    assert call("GET", pods + "/p", None, "")[1]["spec"]["nodeName"] == "n1"
