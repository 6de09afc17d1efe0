"""Server-side apply, against kube-apiserver v1.37.2.

A corpus of applies (:data:`STEPS`: ConfigMaps, a Deployment and a CRD's custom object, created by
apply, applied to by several managers at two versions, fields dropped from a configuration, shared
with another applier or an updater, conflicts refused and forced, ``/status`` applied to),
interleaved with ordinary updates, was sent to kube-apiserver v1.37.2 and the object before each
write and the answer recorded (``tests/data/managedfields/apply-steps-kube-apiserver-v1.37.2.json``).
:func:`apply` must give, from the managedFields and the object before, the same managedFields (a
refused apply the same message and causes), and the same object where nothing defaults it
(ConfigMap data and labels, the custom object's spec and status; a Deployment's list order).
Updates are checked as in ``tests/fake_apiserver/_machinery/test_managedfields.py``. With
``KUBEBUILDER_ASSETS`` set, the corpus is sent to a real server again.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

from fake_apiserver._machinery.apply import apply
from fake_apiserver._machinery.errors import Conflict
from fake_apiserver._machinery.gotypes import zero_object
from fake_apiserver._machinery.managedfields import update_managed_fields
from tests.fake_apiserver._machinery.test_managedfields import (
    APPS,
    CRD,
    CRDS,
    KINDS,
    NS,
    POD_EXTRAS,
    RECORDED,
    UA,
    W1,
    W1B,
    caller,
    field_type,
    reset_fields,
    target_of,
)
from tests.support.real_apiserver import kube_apiserver_answers

STEPS_RECORDED = RECORDED.with_name("apply-steps-kube-apiserver-v1.37.2.json")
APPLY, MERGE = "application/apply-patch+yaml", "application/merge-patch+json"
C, O, W = NS + "/configmaps/c", APPS + "/deployments/o", W1 + "/w"
WB = W1B + "/w"


def _cm(data: dict[str, str] | None = None, **metadata: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", **metadata}}
    if data is not None:
        out["data"] = data
    return out


def _deploy(names: str, finalizers: str | None = None, **spec: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "o"},
                           "spec": {"selector": {"matchLabels": {"a": "b"}},
                                    "template": {"metadata": {"labels": {"a": "b"}},
                                                 "spec": {"containers": [{"name": n, "image": "i"} for n in names]}},
                                    **spec}}
    if finalizers is not None:
        out["metadata"]["finalizers"] = [f"f/{f}" for f in finalizers]
    return out


def _widget(version: str = "v1", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": f"mf.example.com/{version}", "kind": "Widget", "metadata": {"name": "w"}, **fields}


POD_SPEC: dict[str, Any] = {**POD_EXTRAS, "containers": [{"name": "c", "image": "img:1", "ports": [{"containerPort": 80}]}]}
POD_APPLIED: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"l": "1"}}, "spec": POD_SPEC}

# label, verb (apply, force, update: a merge patch, or a JSON patch when a list; create), path, body, manager
Step = tuple[str, str, str, Any, str]
STEPS: list[Step] = [
    ("cm created by applying its name", "apply", C, _cm(), "a"),
    ("cm data and a label applied", "apply", C, _cm({"a": "1", "b": "2"}, labels={"l1": "x"}), "a"),
    ("cm key set by an updater", "update", C, {"data": {"c": "3"}}, "u"),
    ("cm same configuration again", "apply", C, _cm({"a": "1", "b": "2"}, labels={"l1": "x"}), "a"),
    ("cm second applier, same value", "apply", C, _cm({"a": "1"}), "b"),
    ("cm first applier drops a and b", "apply", C, _cm({"x": "9"}, labels={"l1": "x"}), "a"),
    ("cm second applier changes its key", "apply", C, _cm({"a": "2"}), "b"),
    ("cm conflict with the second applier", "apply", C, _cm({"a": "3", "x": "9"}, labels={"l1": "x"}), "a"),
    ("cm conflict forced", "force", C, _cm({"a": "3", "x": "9"}, labels={"l1": "x"}), "a"),
    ("cm label taken by an updater", "update", C, {"metadata": {"labels": {"l1": "y"}}}, "u"),
    ("cm conflict with an updater", "apply", C, _cm({"a": "3", "x": "9"}, labels={"l1": "x"}), "a"),
    ("cm labels no longer applied", "apply", C, _cm({"a": "3", "x": "9"}), "a"),
    ("cm one key dropped", "apply", C, _cm({"a": "3"}), "a"),
    ("cm empty data applied", "apply", C, _cm({}), "a"),
    ("cm annotations and a label", "apply", C, _cm({}, annotations={"n": "1"}, labels={"l2": "z"}), "a"),
    ("cm all dropped", "apply", C, _cm(), "a"),
    ("cm2 created by apply with data", "apply", NS + "/configmaps/c2", {**_cm({"k": "v"}), "metadata": {"name": "c2"}}, "a"),
    ("cm2 updater changes the applied key", "update", NS + "/configmaps/c2", {"data": {"k": "w"}}, "u"),
    ("cm2 applier drops the key the updater took", "apply", NS + "/configmaps/c2", {**_cm({"j": "1"}), "metadata": {"name": "c2"}}, "a"),
    ("pod created by apply", "apply", NS + "/pods/p", POD_APPLIED, "a"),
    ("pod image by an updater", "update", NS + "/pods/p", [{"op": "replace", "path": "/spec/containers/0/image", "value": "img:2"}], "u"),
    ("pod re-applied with a label dropped, sharing the image", "apply", NS + "/pods/p", {**POD_APPLIED, "metadata": {"name": "p"}, "spec": {**POD_SPEC, "containers": [{"name": "c", "image": "img:2", "ports": [{"containerPort": 80}]}]}}, "a"),
    ("pod image conflict", "apply", NS + "/pods/p", {**POD_APPLIED, "metadata": {"name": "p"}, "spec": {**POD_SPEC, "containers": [{"name": "c", "image": "img:3", "ports": [{"containerPort": 80}]}]}}, "a"),
    ("deploy created by apply", "apply", O, _deploy("ab", "ab", replicas=1), "x"),
    ("deploy second applier reorders", "apply", O, _deploy("ca", "ca"), "y"),
    ("deploy third applier", "apply", O, _deploy("dba", "dba"), "z"),
    ("deploy first applier drops b and replicas", "apply", O, _deploy("ae", "ae"), "x"),
    ("deploy replicas by an updater", "update", O, {"spec": {"replicas": 3}}, "u"),
    ("deploy replicas conflict", "apply", O, _deploy("ae", "ae", replicas=2), "x"),
    ("deploy status applied", "apply", O + "/status", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "o"}, "status": {"replicas": 5}}, "x"),
    ("deploy status updated by kubelet", "update", O + "/status", {"status": {"replicas": 6}}, "kubelet"),
    ("deploy status conflict forced", "force", O + "/status", {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "o"}, "status": {"replicas": 7}}, "x"),
    ("crd", "create", CRDS, CRD, "crd-maker"),
    ("widget created by apply", "apply", W, _widget(spec={"replicas": 1, "tags": ["a", "b"], "ports": [{"port": 80, "protocol": "TCP"}], "config": {"c1": "1"}}), "a"),
    ("widget set item by another version", "apply", WB, _widget("v1beta1", spec={"tags": ["c"]}), "b"),
    ("widget items dropped", "apply", W, _widget(spec={"replicas": 1, "tags": ["a"], "ports": [{"port": 80, "protocol": "TCP"}]}), "a"),
    ("widget spec emptied", "apply", W, _widget(spec={}), "a"),
    ("widget port name set by an updater", "update", W, {"spec": {"ports": [{"port": 80, "protocol": "TCP", "name": "web"}]}}, "u"),
    ("widget ports and extra applied at v1beta1", "apply", WB, _widget("v1beta1", spec={"ports": [{"port": 80, "protocol": "TCP"}, {"port": 81, "protocol": "UDP"}], "extra": {"n": {"m": 1, "k": [1]}}}), "a"),
    ("widget same applier at v1: one entry", "apply", W, _widget(spec={"ports": [{"port": 81, "protocol": "UDP"}], "extra": {"n": {"m": 1}}}), "a"),
    ("widget forced over two managers", "force", W, _widget(spec={"ports": [{"port": 81, "protocol": "UDP"}], "tags": ["c", "d"], "replicas": 4}), "d"),
    ("widget status applied", "apply", W + "/status", _widget(status={"ready": 1, "conditions": [{"type": "Ready", "status": "True"}]}), "c"),
    ("widget status by an updater", "update", W + "/status", {"status": {"ready": 2}}, "u"),
    ("widget status conflict", "apply", W + "/status", _widget(status={"ready": 3}), "c"),
]


def run_corpus(call: Any) -> list[dict[str, Any]]:
    records = []
    assert call("POST", NS + "/serviceaccounts", {"metadata": {"name": "default"}}, "", UA)[0] in (201, 409)
    for label, verb, path, body, manager in STEPS:
        before = None
        if verb != "create":
            status, got = call("GET", path, None, "", UA)
            before = got if status == 200 else None
        query = f"?fieldManager={manager}" + ("&force=true" if verb == "force" else "")
        if verb == "create":
            status, answer = call("POST", path + query, body, "", UA)
        else:
            patch = "application/json-patch+json" if isinstance(body, list) else MERGE
            status, answer = call("PATCH", path + query, body, patch if verb == "update" else APPLY, UA)
        records.append({"step": label, "before": before, "status": status, "after": answer})
        if path == CRDS:
            for _ in range(300):
                if call("GET", W1, None, "", UA)[0] == 200 and call("GET", W1B, None, "", UA)[0] == 200:
                    break
                time.sleep(0.1)
    return records


def _strip(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out.get("metadata", {}).pop("managedFields", None)
    return out


def _view(obj: Any, resource: str) -> Any:
    """What the comparison covers: what no defaulting changes."""
    meta = obj.get("metadata") or {}
    seen = {k: meta.get(k) for k in ("labels", "annotations", "finalizers")}
    if resource == "configmaps":
        return [seen, obj.get("data"), obj.get("binaryData")]
    if resource == "widgets":
        return [seen, obj.get("spec"), obj.get("status")]
    spec = obj.get("spec") or {}
    containers = ((spec.get("template") or {}).get("spec") or spec).get("containers") or []
    return [seen, [c.get("name") for c in containers]]


def check(records: list[dict[str, Any]]) -> list[str]:
    assert [r["step"] for r in records] == [s[0] for s in STEPS]
    failures = []
    for (label, verb, path, body, manager), record in zip(STEPS, records):
        if verb == "create":
            assert record["status"] == 201
            continue
        api_version, resource, _, subresource = target_of(path)
        group, version, kind = KINDS[resource]
        before = record["before"]
        empty = {} if resource == "widgets" else zero_object(group, version, kind)
        live = _strip(before) if before else empty
        managed = before["metadata"].get("managedFields") if before else None
        after = record["after"]
        theirs = after["metadata"].get("managedFields", []) if record["status"] < 300 else None
        mine = [e for e in theirs or [] if e["manager"] == manager and e.get("subresource", "") == subresource
                and e["operation"] == ("Update" if verb == "update" else "Apply")]
        moment = mine[0].get("time", "(no time)") if mine else "(no entry)"
        ftype, reset = field_type(resource, api_version), reset_fields(resource, subresource)
        if verb == "update":
            ours: Any = update_managed_fields(managed, live, _strip(after), ftype, manager=manager, api_version=api_version,
                                              time=moment, subresource=subresource, reset=reset,
                                              unstructured=resource == "widgets")
            if ours != theirs:
                failures.append(f"{label}: ours {json.dumps(ours)}\n theirs {json.dumps(theirs)}")
            continue
        try:
            result = apply(managed, live, body, ftype, manager=manager, api_version=api_version, time=moment,
                           subresource=subresource, reset=reset, force=verb == "force",
                           unstructured=resource == "widgets", empty=empty)
        except Conflict as refused:
            status = refused.to_status()
            same = (record["status"] == 409 and status["message"] == after["message"]
                    and sorted(map(json.dumps, status["details"]["causes"])) == sorted(map(json.dumps, after["details"]["causes"])))
            if not same:
                failures.append(f"{label}: refused {status}\n theirs {record['status']} {json.dumps(after)}")
            continue
        if record["status"] >= 300:
            failures.append(f"{label}: applied, theirs {json.dumps(after)}")
            continue
        if json.dumps(result.managed_fields) != json.dumps(theirs):
            failures.append(f"{label}: ours {json.dumps(result.managed_fields)}\n theirs {json.dumps(theirs)}")
        if _view(result.object, resource) != _view(after, resource):
            failures.append(f"{label}: object {_view(result.object, resource)}\n theirs {_view(after, resource)}")
    return failures


def test_the_corpus_is_large_enough() -> None:
    assert sum(1 for s in STEPS if s[1] in ("apply", "force")) >= 25


def test_applies_are_what_kube_apiserver_v1_37_did() -> None:
    failures = check(json.loads(STEPS_RECORDED.read_text()))
    assert not failures, "\n".join(failures)


def test_kube_apiserver_still_applies_so(tmp_path: Path) -> None:
    records = kube_apiserver_answers(tmp_path, STEPS_RECORDED, lambda *access: run_corpus(caller(*access)))
    failures = check(records)
    assert not failures, "\n".join(failures)
