"""CustomResourceDefinitions and custom resources, against kube-apiserver v1.37.2.

One sequence of requests (:data:`STEPS`: a CRD created and established, custom objects created,
refused by their schema and CEL rules, pruned, defaulted, patched, written through ``/status``
and ``/scale``, selected by field, then the CRD deleted) is answered by the fake and compared
with the answers kube-apiserver v1.37.2 gave (``tests/data/custom_resources/``); with
``KUBEBUILDER_ASSETS`` set, the real server is asked again and must still give them. Compared:
status codes, ``Status`` bodies and ``Warning`` headers whole, objects but what a server
assigns (uid, resourceVersion, timestamps, managedFields).
"""

from __future__ import annotations

import json
import ssl
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import TEST_DATA

RECORDED = TEST_DATA / "custom_resources" / "kube-apiserver-v1.37.2.json"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
NAME = "podgroups.scheduling.example.com"
GROUPS = "/apis/scheduling.example.com/v1alpha1/namespaces/default/podgroups"
ALL_GROUPS = "/apis/scheduling.example.com/v1alpha1/podgroups"

SCHEMA = {"type": "object", "properties": {
    "spec": {"type": "object", "required": ["minMember"], "properties": {
        "minMember": {"type": "integer", "minimum": 1},
        "replicas": {"type": "integer", "default": 1},
        "queue": {"type": "string", "enum": ["default", "batch"], "default": "default"},
        "timeout": {"type": "string", "pattern": "^[0-9]+s$"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    }, "x-kubernetes-validations": [
        {"rule": "self.replicas >= self.minMember", "message": "replicas must cover minMember"},
        {"rule": "self.minMember == oldSelf.minMember", "message": "minMember is immutable"},
    ]},
    "status": {"type": "object", "properties": {"phase": {"type": "string"}, "running": {"type": "integer"}}},
}}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": NAME},
       "spec": {"group": "scheduling.example.com", "scope": "Namespaced",
                "names": {"plural": "podgroups", "singular": "podgroup", "kind": "PodGroup", "shortNames": ["pg"],
                          "categories": ["all"]},
                "versions": [{"name": "v1alpha1", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA},
                              "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                                       "statusReplicasPath": ".status.running"}},
                              "selectableFields": [{"jsonPath": ".spec.queue"}]}]}}


def _group(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.example.com/v1alpha1", "kind": "PodGroup", "metadata": {"name": name},
            "spec": spec}


MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
STEPS: list[tuple[str, str, Any, str]] = [
    ("POST", CRDS, CRD, ""),
    ("WAIT", CRDS + "/" + NAME, None, ""),
    ("GET", CRDS + "/" + NAME, None, ""),
    ("POST", GROUPS, _group("a", minMember=2, replicas=2), ""),
    ("POST", GROUPS, _group("b", minMember=1, queue="batch"), ""),
    ("POST", GROUPS, _group("bad-type", minMember="two"), ""),
    ("POST", GROUPS, _group("bad-min", minMember=0), ""),
    ("POST", GROUPS, _group("bad-enum", minMember=1, queue="fast"), ""),  # one error each: Go orders
    ("POST", GROUPS, _group("bad-pattern", minMember=1, timeout="10m"), ""),  # siblings' errors at random
    ("POST", GROUPS, _group("bad-required"), ""),
    ("POST", GROUPS, _group("bad-cel", minMember=3, replicas=2), ""),
    ("POST", GROUPS + "?fieldValidation=Strict", _group("strict", minMember=1, extra=1), ""),
    ("POST", GROUPS + "?fieldValidation=Warn", _group("warn", minMember=1, extra=1, free={"x": {"y": 1}}), ""),
    ("POST", GROUPS + "?fieldValidation=Ignore", _group("ignore", minMember=1, extra=1), ""),
    ("POST", GROUPS, _group("whole", minMember=1, free={"n": 2.0, "f": 2.5}), ""),  # 2.0 stored, and answered, as 2
    ("PATCH", GROUPS + "/a", {"spec": {"minMember": 1}}, MERGE),
    ("PATCH", GROUPS + "/a", {"spec": {"replicas": 3}}, MERGE),
    ("PATCH", GROUPS + "/a", {"spec": {"replicas": 4}}, STRATEGIC),
    ("PATCH", GROUPS + "/a", [{"op": "replace", "path": "/spec/labels", "value": {"k": "v"}}], "application/json-patch+json"),
    ("PATCH", GROUPS + "/a/status", {"status": {"phase": "Running", "running": 2}, "spec": {"replicas": 9}}, MERGE),
    ("GET", GROUPS + "/a", None, ""),
    ("PATCH", GROUPS + "/a", {"status": {"phase": "Lost"}}, MERGE),
    ("GET", GROUPS + "/a/scale", None, ""),
    ("PATCH", GROUPS + "/a/scale", {"spec": {"replicas": 5}}, MERGE),
    ("GET", GROUPS + "/a", None, ""),
    ("LIST", GROUPS + "?fieldSelector=spec.queue%3Dbatch", None, ""),
    ("LIST", ALL_GROUPS + "?fieldSelector=metadata.name%3Da", None, ""),
    ("GET", GROUPS + "?fieldSelector=spec.replicas%3D1", None, ""),
    ("PUT", GROUPS + "/b", _group("b", minMember=1), ""),
    ("DELETE", GROUPS + "/b", None, ""),
    ("DELETE", CRDS + "/" + NAME, None, ""),
    ("GONE", CRDS + "/" + NAME, None, ""),
    ("GET", GROUPS, None, ""),
]

WIDGETS = "widgets.versions.example.com"
_WIDGET_SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "size": {"type": "integer", "default": 1}, "color": {"type": "string"}}}}}
VERSIONED_CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                 "metadata": {"name": WIDGETS},
                 "spec": {"group": "versions.example.com", "scope": "Cluster",
                          "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                          "versions": [
                              {"name": "v1beta1", "served": True, "storage": False,
                               "schema": {"openAPIV3Schema": _WIDGET_SCHEMA}},
                              {"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": _WIDGET_SCHEMA}}]}}
V1, V1BETA1 = "/apis/versions.example.com/v1/widgets", "/apis/versions.example.com/v1beta1/widgets"
VERSION_STEPS: list[tuple[str, str, Any, str]] = [
    ("POST", CRDS, VERSIONED_CRD, ""),
    ("WAIT", CRDS + "/" + WIDGETS, None, ""),
    ("POST", V1BETA1, {"apiVersion": "versions.example.com/v1beta1", "kind": "Widget", "metadata": {"name": "w"},
                       "spec": {"color": "red"}}, ""),
    ("GET", V1 + "/w", None, ""),
    ("GET", V1BETA1 + "/w", None, ""),
    ("LIST", V1BETA1, None, ""),
    ("PATCH", V1BETA1 + "/w", {"spec": {"size": 3}}, MERGE),
    ("POST", V1, {"apiVersion": "versions.example.com/v1beta1", "kind": "Widget", "metadata": {"name": "x"}}, ""),
    ("GET", "/apis/versions.example.com", None, ""),
    ("DELETE", CRDS + "/" + WIDGETS, None, ""),
    ("GONE", CRDS + "/" + WIDGETS, None, ""),
]
HELD = V1 + "/held"
FINALIZER_STEPS: list[tuple[str, str, Any, str]] = [
    ("POST", CRDS, VERSIONED_CRD, ""),
    ("WAIT", CRDS + "/" + WIDGETS, None, ""),
    ("POST", V1, {"apiVersion": "versions.example.com/v1", "kind": "Widget",
                  "metadata": {"name": "held", "finalizers": ["example.com/hold"]}}, ""),
    ("DELETE", CRDS + "/" + WIDGETS, None, ""),
    ("SETTLE", HELD, None, ""),  # the held object marked for deletion
    ("POST", V1, {"apiVersion": "versions.example.com/v1", "kind": "Widget", "metadata": {"name": "late"}}, ""),
    ("GET", HELD, None, ""),
    ("PATCH", HELD, {"metadata": {"finalizers": None}}, MERGE),
    ("GONE", CRDS + "/" + WIDGETS, None, ""),
    ("GET", V1, None, ""),
]
SEQUENCES = {"podgroups": STEPS, "versions": VERSION_STEPS, "finalizers": FINALIZER_STEPS}

Call = Callable[[str, str, Any, str], list[Any]]
_ASSIGNED = ("uid", "resourceVersion", "creationTimestamp", "managedFields", "deletionTimestamp")


def _caller(server: str, token: str | None = None, context: ssl.SSLContext | None = None) -> Call:
    def once(method: str, path: str, body: Any, content_type: str) -> list[Any]:
        headers = {"Content-Type": content_type or "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(server + path, method=method, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return [answer.status, json.loads(answer.read()), answer.headers.get_all("Warning") or []]
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return [e.code, json.loads(text), e.headers.get_all("Warning") or []]
            except ValueError:
                return [e.code, text.decode(), []]

    def call(method: str, path: str, body: Any, content_type: str) -> list[Any]:
        if method == "SETTLE":  # an explicit wait on state: the object marked for deletion
            for _ in range(300):
                answer = once("GET", path, None, "")
                if answer[0] == 200 and answer[1]["metadata"].get("deletionTimestamp"):
                    return [answer[0], method]
                time.sleep(0.1)
            return [answer[0], f"{method} timed out"]
        if method in ("WAIT", "GONE"):  # an explicit wait on state: established, or deleted
            for _ in range(300):
                answer = once("GET", path, None, "")
                done = answer[0] == 404 if method == "GONE" else answer[0] == 200 and any(
                    c.get("type") == "Established" and c.get("status") == "True"
                    for c in (answer[1].get("status") or {}).get("conditions") or [])
                if done:
                    return [answer[0], method]
                time.sleep(0.1)
            return [answer[0], f"{method} timed out"]
        return once("GET" if method == "LIST" else method, path, body, content_type)
    return call


def _scrub(obj: Any) -> Any:
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if key in _ASSIGNED or key == "lastTransitionTime":
                continue
            out[key] = _scrub(value)
        return out
    if isinstance(obj, list):
        return [_scrub(v) for v in obj]
    if isinstance(obj, float):  # 2.0 and 2 compare equal in Python; not on the wire
        return ["float", obj]
    return obj


def _normal(answer: list[Any]) -> list[Any]:
    return [answer[0], _scrub(answer[1]), *answer[2:]]


def _recorded(sequence: str) -> Path:
    return RECORDED if sequence == "podgroups" else RECORDED.with_name(f"{sequence}-kube-apiserver-v1.37.2.json")


@pytest.mark.parametrize("sequence", sorted(SEQUENCES))
def test_the_fake_answers_as_kube_apiserver_v1_37_did(threaded_server: Any, sequence: str) -> None:
    steps = SEQUENCES[sequence]
    recorded = json.loads(_recorded(sequence).read_text())
    call = _caller(threaded_server.url)
    answers = [call(*step) for step in steps]
    assert len(recorded) == len(steps)
    for step, real, ours in zip(steps, recorded, answers):
        assert _normal(ours) == _normal(real), step[:2]


@pytest.mark.parametrize("sequence", sorted(SEQUENCES))
def test_kube_apiserver_still_answers_as_recorded(tmp_path: Path, sequence: str) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    steps = SEQUENCES[sequence]
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        call = _caller(server, token, context)
        answers = [call(*step) for step in steps]
    path = _recorded(sequence)
    if not path.exists():  # the first capture
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(answers, indent=1) + "\n")
    recorded = json.loads(path.read_text())
    for step, real, now in zip(steps, recorded, answers):
        assert _normal(now) == _normal(real), step[:2]


def test_a_watch_at_another_version_sees_that_version(threaded_server: Any) -> None:
    """None conversion on a watch too: events of a custom resource watched at a version other
    than its storage version carry the watched version (kube-apiserver converts every object)."""
    call = _caller(threaded_server.url)
    call("POST", CRDS, VERSIONED_CRD, "")
    call("POST", V1, {"apiVersion": "versions.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}, "")
    request = urllib.request.Request(threaded_server.url + V1BETA1 + "?watch=1&timeoutSeconds=1")
    with urllib.request.urlopen(request, timeout=30) as answer:
        events = [json.loads(line) for line in answer.read().splitlines() if line]
    assert [(e["type"], e["object"]["apiVersion"]) for e in events] == [("ADDED", "versions.example.com/v1beta1")]


def _watch_through_crd_delete(call: Call, open_watch: Callable[[str], Any]) -> list[Any]:
    """Watch the custom objects while their CRD is deleted: the events the watch got, and whether
    the server ended it (before its ``timeoutSeconds`` of 30 s would have)."""
    call("POST", CRDS, VERSIONED_CRD, "")
    call("WAIT", CRDS + "/" + WIDGETS, None, "")
    call("POST", V1, {"apiVersion": "versions.example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}, "")
    stream = open_watch(V1 + "?watch=1&timeoutSeconds=30&resourceVersion=0")
    events: list[Any] = []
    first = stream.readline()  # the ADDED of w: the watch is open
    events.append(json.loads(first)["type"])
    call("DELETE", CRDS + "/" + WIDGETS, None, "")
    started = time.monotonic()
    for line in stream:
        if line.strip():
            event = json.loads(line)
            events.append(event["type"])
    ended_by_server = time.monotonic() - started < 25
    call("GONE", CRDS + "/" + WIDGETS, None, "")
    return [events, ended_by_server]


WATCH_RECORDED = RECORDED.with_name("watch-kube-apiserver-v1.37.2.json")


def test_a_watch_on_a_custom_resource_ends_when_its_crd_is_deleted(threaded_server: Any) -> None:
    call = _caller(threaded_server.url)
    got = _watch_through_crd_delete(call, lambda path: urllib.request.urlopen(threaded_server.url + path, timeout=60))
    assert got == json.loads(WATCH_RECORDED.read_text())


def test_kube_apiserver_still_ends_the_watch_as_recorded(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        call = _caller(server, token, context)

        def open_watch(path: str) -> Any:
            request = urllib.request.Request(server + path, headers={"Authorization": f"Bearer {token}"})
            return urllib.request.urlopen(request, context=context, timeout=60)

        got = _watch_through_crd_delete(call, open_watch)
    if not WATCH_RECORDED.exists():  # the first capture
        WATCH_RECORDED.write_text(json.dumps(got) + "\n")
    assert got == json.loads(WATCH_RECORDED.read_text())
