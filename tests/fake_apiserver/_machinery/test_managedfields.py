"""managedFields after Update writes, against kube-apiserver v1.37.2.

A corpus of writes (:data:`STEPS`: creates, PUTs and merge, strategic and JSON patches of Pods,
Deployments, ConfigMaps, Nodes and a CRD's custom objects at two versions, by several managers
named by ``?fieldManager=`` or by their User-Agent, through ``/status`` too) was sent to
kube-apiserver v1.37.2; for each write the object before it and the answer were recorded
(``tests/data/managedfields/``). :func:`update_managed_fields` must compute, from the managedFields
before, the object before (the kind's empty object for a create) and the object the server
answered, the managedFields the server answered, entry for entry and key for key. The time a write
gives its manager is the server's (the clock is not what is checked; whether the time moves is).
With ``KUBEBUILDER_ASSETS`` set, the corpus is sent to a real server again and checked the same way.

Pods carry what admission would otherwise add (service account name, default tolerations,
priority): kube-apiserver computes managed fields before mutating admission, from the request's
object, and fields admission adds belong to nobody; this test only has the stored object.
"""

from __future__ import annotations

import copy
import json
import re
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any


from fake_apiserver._machinery.fieldset import FieldSet
from fake_apiserver._machinery.gotypes import zero_object
from fake_apiserver._machinery.managedfields import (
    managed_fields_before,
    manager_name,
    update_managed_fields,
)
from fake_apiserver._machinery.mergerules import FieldType, builtin_type, custom_type
from fake_apiserver._registry.resetfields import reset_fields as registry_reset_fields
from tests.support.paths import TEST_DATA
from tests.support.real_apiserver import kube_apiserver_answers

RECORDED = TEST_DATA / "managedfields" / "kube-apiserver-v1.37.2.json"
NS = "/api/v1/namespaces/default"
APPS = "/apis/apps/v1/namespaces/default"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
W1 = "/apis/mf.example.com/v1/namespaces/default/widgets"
W1B = "/apis/mf.example.com/v1beta1/namespaces/default/widgets"
MERGE, STRATEGIC, JSONPATCH = ("application/merge-patch+json", "application/strategic-merge-patch+json",
                               "application/json-patch+json")

WIDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
                      "items": {"type": "object", "required": ["port", "protocol"], "properties": {
                          "port": {"type": "integer"}, "protocol": {"type": "string"}, "name": {"type": "string"}}}},
            "args": {"type": "array", "items": {"type": "string"}},
            "selector": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}},
            "config": {"type": "object", "additionalProperties": {"type": "string"}},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        }},
        "status": {"type": "object", "properties": {
            "ready": {"type": "integer"},
            "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                           "items": {"type": "object", "required": ["type"], "properties": {
                               "type": {"type": "string"}, "status": {"type": "string"}}}},
        }},
    },
}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.mf.example.com"},
       "spec": {"group": "mf.example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                "versions": [{"name": v, "served": True, "storage": v == "v1", "subresources": {"status": {}},
                              "schema": {"openAPIV3Schema": WIDGET_SCHEMA}} for v in ("v1", "v1beta1")]}}

POD_EXTRAS = {"serviceAccountName": "default", "automountServiceAccountToken": False, "priority": 0,
              "preemptionPolicy": "PreemptLowerPriority",
              "tolerations": [{"key": k, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
                              for k in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]}


def pod_manifest(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {**POD_EXTRAS, "containers": [{"name": "c", "image": "img:1", "ports": [{"containerPort": 80}],
                                                    "env": [{"name": "A", "value": "1"}]}], **spec}}


DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"tier": "web"}},
          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}},
                   "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "img:1"}]}}}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
        "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}
WIDGET = {"apiVersion": "mf.example.com/v1", "kind": "Widget", "metadata": {"name": "w", "labels": {"x": "1"}},
          "spec": {"replicas": 1, "tags": ["a", "b"], "ports": [{"port": 80, "protocol": "TCP", "name": "http"}],
                   "args": ["--v"], "selector": {"k": "v"}, "config": {"c1": "1", "c2": "2"}, "extra": {"n": {"m": 1}}}}

# A step: label, method, path, body, content type, ?fieldManager= (None: none), User-Agent.
# A PUT's body is a JSON merge patch applied by the client to the object it GETs first.
Step = tuple[str, str, str, Any, str, "str | None", str]
UA = "Python-urllib/3.12"
STEPS: list[Step] = [
    ("cm create by UA", "POST", NS + "/configmaps", {"metadata": {"name": "cm", "labels": {"a": "1"}}, "data": {"k1": "v1", "k2": "v2"}}, "", None, UA),
    ("cm merge by beta", "PATCH", NS + "/configmaps/cm", {"data": {"k2": "changed", "k3": "new"}}, MERGE, "beta", UA),
    ("cm put by alpha", "PUT", NS + "/configmaps/cm", {"metadata": {"annotations": {"note": "x"}}, "data": {"k1": "v1b"}}, "", "alpha", UA),
    ("cm no-op by gamma", "PATCH", NS + "/configmaps/cm", {"data": {"k1": "v1b"}}, MERGE, "gamma", UA),
    ("cm remove key by gamma", "PATCH", NS + "/configmaps/cm", {"data": {"k3": None}}, MERGE, "gamma", UA),
    ("cm remove all of beta", "PATCH", NS + "/configmaps/cm", [{"op": "remove", "path": "/data/k2"}], JSONPATCH, "delta", UA),
    ("cm label by kubectl UA", "PATCH", NS + "/configmaps/cm", {"metadata": {"labels": {"b": "2"}}}, MERGE, None, "kubectl/v1.37.2 (linux/amd64) kubernetes/abcdef"),
    ("cm by UA without slash", "PATCH", NS + "/configmaps/cm", {"metadata": {"labels": {"c": "3"}}}, MERGE, None, "plainagent"),
    ("cm by empty UA", "PATCH", NS + "/configmaps/cm", {"metadata": {"labels": {"d": "4"}}}, MERGE, None, ""),
    ("cm binaryData", "PATCH", NS + "/configmaps/cm", {"binaryData": {"b": "AAE="}}, MERGE, "epsilon", UA),
    ("cm no-op by alpha", "PATCH", NS + "/configmaps/cm", {"data": {"k1": "v1b"}}, MERGE, "alpha", UA),
    ("cm by UA starting with a slash", "PATCH", NS + "/configmaps/cm", {"metadata": {"labels": {"e": "5"}}}, MERGE, None, "/odd"),
    *[(f"cm label by m{i}", "PATCH", NS + "/configmaps/cm", {"metadata": {"labels": {f"m{i}": "x"}}}, MERGE, f"m{i:02}", UA)
      for i in range(1, 9)],
    ("cm2 create empty", "POST", NS + "/configmaps", {"metadata": {"name": "cm2"}}, "", "alpha", UA),
    ("cm2 add data", "PATCH", NS + "/configmaps/cm2", {"data": {"x": "y"}}, MERGE, "beta", UA),
    ("cm3 create by alpha", "POST", NS + "/configmaps", {"metadata": {"name": "cm3"}, "data": {"k1": "1", "k2": "2"}}, "", "alpha", UA),
    ("cm3 put with a rewritten entry", "PUT", NS + "/configmaps/cm3", {"metadata": {"managedFields": [{"manager": "custom", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:k1": {}}}}]}, "data": {"k2": "two"}}, "", "beta", UA),
    ("cm3 put with an unreadable entry", "PUT", NS + "/configmaps/cm3", {"metadata": {"managedFields": [{"manager": "x", "operation": "Update", "apiVersion": "v1", "fieldsType": "Bogus"}]}, "data": {"k3": "3"}}, "", "gamma", UA),
    ("cm3 put with managedFields emptied", "PUT", NS + "/configmaps/cm3", {"metadata": {"managedFields": []}, "data": {"k4": "4"}}, "", "delta", UA),
    ("cm3 put resetting managedFields", "PUT", NS + "/configmaps/cm3", {"metadata": {"managedFields": [{}]}, "data": {"k5": "5"}}, "", "delta", UA),
    ("cm3 patched after the reset", "PATCH", NS + "/configmaps/cm3", {"data": {"k6": "6"}}, MERGE, "epsilon", UA),
    ("cm4 created with its own entry", "POST", NS + "/configmaps", {"metadata": {"name": "cm4", "managedFields": [{"manager": "custom", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:zz": {}, "f:k1": {}}}}]}, "data": {"k1": "1"}}, "", "alpha", UA),
    ("cm5 created with managedFields reset", "POST", NS + "/configmaps", {"metadata": {"name": "cm5", "managedFields": [{}]}, "data": {"k1": "1"}}, "", "alpha", UA),
    ("pod create by alpha", "POST", NS + "/pods", pod_manifest("p1"), "", "alpha", UA),
    ("pod image by beta (strategic)", "PATCH", NS + "/pods/p1", {"spec": {"containers": [{"name": "c", "image": "img:2"}]}}, STRATEGIC, "beta", UA),
    ("pod label by gamma", "PATCH", NS + "/pods/p1", {"metadata": {"labels": {"extra": "yes"}, "annotations": {"a": "b"}}}, MERGE, "gamma", UA),
    ("pod deadline by beta", "PATCH", NS + "/pods/p1", {"spec": {"activeDeadlineSeconds": 200}}, STRATEGIC, "beta", UA),
    ("pod status by kubelet", "PATCH", NS + "/pods/p1/status", {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}], "podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.1"}], "hostIP": "1.2.3.4"}}, STRATEGIC, "kubelet", UA),
    ("pod status again by kubelet", "PATCH", NS + "/pods/p1/status", {"status": {"conditions": [{"type": "Ready", "status": "False"}, {"type": "Initialized", "status": "True"}]}}, STRATEGIC, "kubelet", UA),
    ("pod status by scheduler", "PATCH", NS + "/pods/p1/status", {"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}}, STRATEGIC, "scheduler", UA),
    ("pod label via status by alpha", "PATCH", NS + "/pods/p1/status", {"metadata": {"labels": {"via": "status"}}}, MERGE, "alpha", UA),
    ("pod spec ignored on main status write", "PATCH", NS + "/pods/p1", {"status": {"phase": "Failed"}}, MERGE, "zeta", UA),
    ("pod put by alpha", "PUT", NS + "/pods/p1", {"metadata": {"labels": {"app": "p1b"}}, "spec": {"activeDeadlineSeconds": 100}}, "", "alpha", UA),
    ("pod tolerations atomic by delta", "PATCH", NS + "/pods/p1", [{"op": "add", "path": "/spec/tolerations/-", "value": {"key": "x", "operator": "Exists", "effect": "NoSchedule"}}], JSONPATCH, "delta", UA),
    ("pod2 create with volumes", "POST", NS + "/pods", pod_manifest("p2", volumes=[{"name": "v", "emptyDir": {}}], nodeSelector={"disk": "ssd"}), "", "alpha", UA),
    ("pod2 nodeSelector atomic by beta", "PATCH", NS + "/pods/p2", {"metadata": {"finalizers": ["example.com/f"]}}, MERGE, "beta", UA),
    ("pod2 drop finalizer", "PATCH", NS + "/pods/p2", {"metadata": {"finalizers": None}}, MERGE, "beta", UA),
    ("deploy create", "POST", APPS + "/deployments", DEPLOY, "", "alpha", UA),
    ("deploy scale by beta", "PATCH", APPS + "/deployments/d", {"spec": {"replicas": 3}}, MERGE, "beta", UA),
    ("deploy replicas back by alpha", "PATCH", APPS + "/deployments/d", {"spec": {"replicas": 2, "paused": True}}, MERGE, "alpha", UA),
    ("deploy strategy by gamma", "PATCH", APPS + "/deployments/d", {"spec": {"strategy": {"type": "Recreate", "rollingUpdate": None}}}, STRATEGIC, "gamma", UA),
    ("deploy status by controller", "PUT", APPS + "/deployments/d/status", {"status": {"replicas": 2, "readyReplicas": 1, "observedGeneration": 1, "conditions": [{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable", "message": "m", "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}, "", "controller", UA),
    ("deploy status by controller again", "PATCH", APPS + "/deployments/d/status", {"status": {"readyReplicas": 2}}, MERGE, "controller", UA),
    ("deploy template label by delta", "PATCH", APPS + "/deployments/d", {"spec": {"template": {"metadata": {"labels": {"v": "2"}, "annotations": {"r": "1"}}}}}, STRATEGIC, "delta", UA),
    ("deploy container add by delta", "PATCH", APPS + "/deployments/d", {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "s:1"}]}}}}, STRATEGIC, "delta", UA),
    ("deploy put without managedFields", "PUT", APPS + "/deployments/d", {"metadata": {"managedFields": None, "labels": {"tier": "api"}}}, "", "epsilon", UA),
    ("node create", "POST", "/api/v1/nodes", NODE, "", "alpha", UA),
    ("node status by kubelet", "PATCH", "/api/v1/nodes/n1/status", {"status": {"capacity": {"cpu": "4", "pods": "110"}, "allocatable": {"cpu": "4"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ok"}], "addresses": [{"type": "InternalIP", "address": "10.0.0.5"}, {"type": "Hostname", "address": "n1"}]}}, STRATEGIC, "kubelet", UA),
    ("node status capacity by beta", "PATCH", "/api/v1/nodes/n1/status", {"status": {"capacity": {"memory": "1Gi"}}}, MERGE, "beta", UA),
    ("node taints by controller", "PATCH", "/api/v1/nodes/n1", {"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}, {"key": "u", "effect": "NoExecute"}]}}, MERGE, "controller", UA),
    ("node unschedulable by kubectl", "PATCH", "/api/v1/nodes/n1", {"spec": {"unschedulable": True}}, STRATEGIC, "kubectl-cordon", UA),
    ("node label put by alpha", "PUT", "/api/v1/nodes/n1", {"metadata": {"labels": {"zone": "b", "new": "1"}}}, "", "alpha", UA),
    ("crd create", "POST", CRDS, CRD, "", "crd-maker", UA),
    ("widget create", "POST", W1, WIDGET, "", "alpha", UA),
    ("widget replicas by beta", "PATCH", W1 + "/w", {"spec": {"replicas": 5}}, MERGE, "beta", UA),
    ("widget tags by beta at v1beta1", "PATCH", W1B + "/w", {"spec": {"tags": ["a", "b", "c"]}}, MERGE, "beta", UA),
    ("widget ports add by gamma", "PATCH", W1 + "/w", [{"op": "add", "path": "/spec/ports/-", "value": {"port": 443, "protocol": "TCP"}}], JSONPATCH, "gamma", UA),
    ("widget args atomic by gamma", "PATCH", W1 + "/w", {"spec": {"args": ["--v", "--x"]}}, MERGE, "gamma", UA),
    ("widget selector atomic by delta", "PATCH", W1 + "/w", {"spec": {"selector": {"k": "v", "k2": "v2"}}}, MERGE, "delta", UA),
    ("widget config key removed by delta", "PATCH", W1 + "/w", {"spec": {"config": {"c1": None, "c3": "3"}}}, MERGE, "delta", UA),
    ("widget extra nested by epsilon", "PATCH", W1 + "/w", {"spec": {"extra": {"n": {"o": [1, 2]}, "p": "q"}}}, MERGE, "epsilon", UA),
    ("widget status by controller", "PATCH", W1 + "/w/status", {"status": {"ready": 1, "conditions": [{"type": "Ready", "status": "True"}]}}, MERGE, "controller", UA),
    ("widget status at v1beta1 by controller", "PATCH", W1B + "/w/status", {"status": {"ready": 2}}, MERGE, "controller", UA),
    ("widget spec ignored via status", "PATCH", W1 + "/w/status", {"spec": {"replicas": 9}, "status": {"ready": 3}}, MERGE, "zeta", UA),
    ("widget put by alpha", "PUT", W1 + "/w", {"spec": {"replicas": 1, "tags": ["a"]}}, "", "alpha", UA),
    ("widget2 create at v1beta1 without spec", "POST", W1B, {"apiVersion": "mf.example.com/v1beta1", "kind": "Widget", "metadata": {"name": "w2"}}, "", "alpha", UA),
    ("widget2 spec by beta", "PATCH", W1 + "/w2", {"spec": {"replicas": 2, "config": {}}}, MERGE, "beta", UA),
]

KINDS = {"configmaps": ("", "v1", "ConfigMap"), "pods": ("", "v1", "Pod"), "deployments": ("apps", "v1", "Deployment"),
         "nodes": ("", "v1", "Node"), "customresourcedefinitions": ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
         "widgets": ("mf.example.com", "", "Widget")}


def target_of(path: str) -> tuple[str, str, str, str]:
    """group/version, resource, name (or ""), subresource of a request path."""
    m = re.fullmatch(r"/(?:api/(v1)|apis/([^/]+)/([^/]+))(?:/namespaces/[^/]+)?/([^/]+)(?:/([^/]+))?(?:/([^/]+))?", path)
    assert m is not None, path
    version = m.group(1) or f"{m.group(2)}/{m.group(3)}"
    return version, m.group(4), m.group(5) or "", m.group(6) or ""


def field_type(resource: str, api_version: str) -> FieldType:
    group, version, kind = KINDS[resource]
    if resource == "widgets":
        return custom_type(WIDGET_SCHEMA)
    return builtin_type(group, version, kind)


def reset_fields(resource: str, subresource: str) -> FieldSet:
    """What the resource's strategy resets: the fake's table of kube-apiserver's reset fields
    (tests/fake_apiserver/_registry/test_reset_fields.py checks it against a real server), the
    Widget custom resource with its status subresource."""
    group, _, kind = KINDS[resource]
    return registry_reset_fields(group, kind, subresource, custom_has_status=resource == "widgets")


def _strip(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out.get("metadata", {}).pop("managedFields", None)
    return out


def expected_entries(step: Step, before: dict[str, Any] | None, after: dict[str, Any],
                     sent: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """What :func:`update_managed_fields` computes for a recorded write (``sent``: a POST's or
    PUT's body, whose managedFields the write may start from)."""
    _, _, path, _, _, field_manager, agent = step
    api_version, resource, _, subresource = target_of(path)
    manager = manager_name(field_manager, agent)
    sent_fields = (sent or {}).get("metadata", {}).get("managedFields")
    if before is None:
        group, version, kind = KINDS[resource]
        old: Any = {} if resource == "widgets" else zero_object(group, version, kind)
        previous = managed_fields_before(None, sent_fields, subresource)
    else:
        old = _strip(before)
        previous = managed_fields_before(before["metadata"].get("managedFields"), sent_fields, subresource)
    mine = [e for e in after["metadata"].get("managedFields", [])
            if e["manager"] == manager and e["operation"] == "Update" and e["apiVersion"] == api_version
            and e.get("subresource", "") == subresource]
    moment = mine[0]["time"] if mine else "(no entry)"
    return update_managed_fields(previous, old, _strip(after), field_type(resource, api_version), manager=manager,
                                 api_version=api_version, time=moment, subresource=subresource,
                                 reset=reset_fields(resource, subresource), creating=before is None,
                                 unstructured=resource == "widgets")


Call = Callable[[str, str, Any, str, str], tuple[int, Any]]


def caller(server: str, token: str, context: ssl.SSLContext) -> Call:
    def call(method: str, path: str, body: Any, content_type: str, agent: str) -> tuple[int, Any]:
        headers = {"Content-Type": content_type or "application/json", "Authorization": f"Bearer {token}",
                   "User-Agent": agent}
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(server + path, method=method, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text)
            except ValueError:  # a 404 before a new resource is served is plain text
                return e.code, text.decode()
    return call


def _merge(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def run_corpus(call: Call) -> list[dict[str, Any]]:
    """Send :data:`STEPS`; for each write, the object before it (None for a create) and the answer."""
    records: list[dict[str, Any]] = []
    assert call("POST", NS + "/serviceaccounts", {"metadata": {"name": "default"}}, "", UA)[0] in (201, 409)
    for step in STEPS:
        label, method, path, body, content_type, field_manager, agent = step
        query = f"?fieldManager={field_manager}" if field_manager else ""
        before = None
        if method != "POST":
            status, before = call("GET", path, None, "", UA)
            assert status == 200, (label, before)
        if method == "PUT":
            body = _merge(before, body)
        status, answer = call(method, path + query, body, content_type, agent)
        records.append({"step": label, "status": status, "before": before, "after": answer,
                        **({"sent": body} if method in ("PUT", "POST") else {})})
        if path == CRDS:  # wait until the custom resource is served
            for _ in range(300):
                if call("GET", W1, None, "", UA)[0] == 200 and call("GET", W1B, None, "", UA)[0] == 200:
                    break
                time.sleep(0.1)
    return records


def check(records: list[dict[str, Any]]) -> list[str]:
    """The steps whose computed managedFields differ from the server's (with both)."""
    assert [r["step"] for r in records] == [s[0] for s in STEPS]
    failures = []
    for step, record in zip(STEPS, records):
        assert record["status"] in (200, 201), (step[0], record["after"])
        ours = expected_entries(step, record["before"], record["after"], record.get("sent"))
        theirs = record["after"]["metadata"].get("managedFields", [])
        if json.dumps(ours) != json.dumps(theirs):
            failures.append(f"{step[0]}:\n ours   {json.dumps(ours)}\n theirs {json.dumps(theirs)}")
    return failures


def test_the_corpus_is_large_enough() -> None:
    assert len(STEPS) >= 40


def test_managed_fields_are_what_kube_apiserver_v1_37_wrote() -> None:
    records = json.loads(RECORDED.read_text())
    failures = check(records)
    assert not failures, "\n".join(failures)


def test_kube_apiserver_still_writes_them_so(tmp_path: Path) -> None:
    records = kube_apiserver_answers(tmp_path, RECORDED, lambda *access: run_corpus(caller(*access)))
    failures = check(records)
    assert not failures, "\n".join(failures)


def _stored_objects(value: Any) -> list[dict[str, Any]]:
    """Every object (kind, apiVersion and metadata) in a recorded JSON document."""
    if isinstance(value, list):
        return [found for item in value for found in _stored_objects(item)]
    if not isinstance(value, dict):
        return []
    own = [value] if isinstance(value.get("kind"), str) and isinstance(value.get("apiVersion"), str) \
        and isinstance(value.get("metadata"), dict) else []
    return own + [found for item in value.values() for found in _stored_objects(item)]


def test_a_create_changes_what_comparing_it_whole_changes() -> None:
    """A create's changes are kept by its template (texts that cannot change a path made one, so
    the Events of one reason share them): for every object kube-apiserver v1.37.2 stored in the
    recorded runs, and the objects made from each by other texts, they are what comparing the
    object itself with the empty one gives."""
    from fake_apiserver._machinery import managedfields

    checked = 0
    for data in sorted(TEST_DATA.glob("**/*kube-apiserver-v1.37.2*.json")):
        for obj in _stored_objects(json.loads(data.read_text())):
            group, _, version = obj["apiVersion"].rpartition("/")
            try:
                ftype = builtin_type(group, version, obj["kind"])
            except KeyError:
                continue
            obj = {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k != "managedFields"}}
            other = json.loads(json.dumps(obj).replace('":"', '":"other '))  # every text another, none empty
            for new in (obj, other):
                for subresource in ("", "status"):
                    reset = registry_reset_fields(group, obj["kind"], subresource)
                    for empty in (zero_object(group, version, obj["kind"]), {}):
                        assert managedfields._created_changes(empty, new, ftype, reset) == \
                            managedfields._changes(empty, new, ftype, reset)
                        checked += 1
    assert checked > 100
