"""Server-side apply and managed fields through the fake's HTTP API, against kube-apiserver v1.37.2.

Three corpora, each sent to a fresh fake over HTTP and compared with what kube-apiserver v1.37.2
answered to the same requests (recorded in ``tests/data/managedfields/``):

* :data:`test_managedfields.STEPS`: creates, PUTs and merge, strategic and JSON patches by several
  managers (by ``?fieldManager=`` and by User-Agent), through ``/status`` too, of Pods,
  Deployments, ConfigMaps, Nodes and a CRD's custom objects at two versions;
* :data:`test_apply.STEPS`: applies by two and three managers, a conflict and then ``force``,
  fields dropped by one applier and kept by another, list-map merges, status applies and a custom
  resource applied at two versions;
* :data:`STEPS` here: an apply after ``kubectl edit`` and ``kubectl scale``, applies of a
  Deployment's ``Scale`` (a conflict, ``force``, no replicas, two scalers), a dry run, bad
  configurations (no name, ``managedFields``, a field the schema lacks, a repeated list key, a
  ``uid``), a status apply to a missing object.

For every step the status code must be the same; for an answered object the object (its uid,
resourceVersion and creationTimestamp aside) and its managedFields (entry for entry, each
entry's ``time`` only as present or absent); for a refusal the Status. The order of the entries is
kube-apiserver's sort by time to the second, which a run at another speed cannot reproduce: the
entries are compared as a set here, and their order is checked in
tests/fake_apiserver/_machinery/test_managedfields.py with the recorded times. With
``KUBEBUILDER_ASSETS`` set, :data:`STEPS` is sent to a real server again and its answers checked
against the recording.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fake_apiserver._machinery import test_apply, test_managedfields
from tests.fake_apiserver._machinery.test_managedfields import NS, caller
from tests.support.real_apiserver import kube_apiserver_answers
from tests.support.store import ManualClock
from tests.support.threaded_server import ThreadedServer

RECORDED = test_managedfields.RECORDED.with_name("apply-http-kube-apiserver-v1.37.2.json")
APPLY, MERGE, STRATEGIC = ("application/apply-patch+yaml", "application/merge-patch+json",
                           "application/strategic-merge-patch+json")
APPS = test_managedfields.APPS
EDIT = "kubectl-edit/v1.37.2 (linux/amd64) kubernetes/0000000"
SCALE = "kubectl/v1.37.2 (linux/amd64) kubernetes/0000000"
UA = test_managedfields.UA


def _deploy(replicas: int | None = None, image: str = "i:1", **metadata: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": {"matchLabels": {"a": "b"}},
                            "template": {"metadata": {"labels": {"a": "b"}},
                                         "spec": {"containers": [{"name": "c", "image": image}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", **metadata}, "spec": spec}


def _deploy2(containers: list[dict[str, Any]]) -> dict[str, Any]:
    out = _deploy()
    out["metadata"]["name"] = "d2"
    out["spec"]["template"]["spec"]["containers"] = containers
    return out


def _scale(replicas: int) -> dict[str, Any]:
    return {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"}, "spec": {"replicas": replicas}}


def _cm(name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **fields}


def _pod(name: str, containers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"serviceAccountName": "default", "automountServiceAccountToken": False, "containers": containers}}


# label, method, path (with its query), body, content type, User-Agent
Step = tuple[str, str, str, Any, str, str]
STEPS: list[Step] = [
    ("deploy applied by ci", "PATCH", APPS + "/deployments/d?fieldManager=ci", _deploy(2), APPLY, UA),
    ("deploy image changed by kubectl edit", "PATCH", APPS + "/deployments/d",
     {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i:2"}]}}}}, STRATEGIC, EDIT),
    ("deploy re-applied: conflict with kubectl-edit", "PATCH", APPS + "/deployments/d?fieldManager=ci", _deploy(2), APPLY, UA),
    ("deploy scaled by kubectl scale", "PATCH", APPS + "/deployments/d/scale", {"spec": {"replicas": 5}}, MERGE, SCALE),
    ("deploy re-applied with the edited image: conflict on replicas with the scaler", "PATCH",
     APPS + "/deployments/d?fieldManager=ci", _deploy(2, "i:2"), APPLY, UA),
    ("deploy applied without replicas, image shared with kubectl-edit", "PATCH", APPS + "/deployments/d?fieldManager=ci",
     _deploy(None, "i:2"), APPLY, UA),
    ("deploy applied with a label, forced", "PATCH", APPS + "/deployments/d?fieldManager=ci&force=true",
     _deploy(3, "i:3", labels={"tier": "web"}), APPLY, UA),
    ("deploy dry-run apply: conflict", "PATCH", APPS + "/deployments/d?fieldManager=other&dryRun=All",
     _deploy(None, labels={"tier": "db"}), APPLY, UA),
    ("deploy dry-run apply, forced", "PATCH", APPS + "/deployments/d?fieldManager=other&dryRun=All&force=true",
     _deploy(None, labels={"tier": "db"}), APPLY, UA),
    ("deploy unchanged by the dry run", "GET", APPS + "/deployments/d", None, "", UA),
    ("deploy status applied", "PATCH", APPS + "/deployments/d/status?fieldManager=ctl",
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
      "status": {"replicas": 3, "conditions": [{"type": "Available", "status": "True"}]}}, APPLY, UA),
    ("deploy status applied again without the condition", "PATCH", APPS + "/deployments/d/status?fieldManager=ctl",
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "status": {"replicas": 3}}, APPLY, UA),
    ("deploy scale applied: conflict with ci", "PATCH", APPS + "/deployments/d/scale?fieldManager=s", _scale(4), APPLY, UA),
    ("deploy scale applied, forced", "PATCH", APPS + "/deployments/d/scale?fieldManager=s&force=true", _scale(4), APPLY, UA),
    ("deploy after the scale apply", "GET", APPS + "/deployments/d", None, "", UA),
    ("deploy scale applied again", "PATCH", APPS + "/deployments/d/scale?fieldManager=s", _scale(5), APPLY, UA),
    ("deploy scale applied without replicas", "PATCH", APPS + "/deployments/d/scale?fieldManager=s",
     {"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "d"}}, APPLY, UA),
    ("deploy after the empty scale apply", "GET", APPS + "/deployments/d", None, "", UA),
    ("deploy scale applied with a Deployment", "PATCH", APPS + "/deployments/d/scale?fieldManager=t",
     {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 1}}, APPLY, UA),
    ("deploy scale applied by another, status ignored", "PATCH", APPS + "/deployments/d/scale?fieldManager=t",
     {**_scale(2), "status": {"replicas": 9}}, APPLY, UA),
    ("deploy after the second scaler", "GET", APPS + "/deployments/d", None, "", UA),
    ("scale apply to a missing deployment", "PATCH", APPS + "/deployments/missing/scale?fieldManager=t", _scale(1),
     APPLY, UA),
    ("deploy2 ports list-map: first applier", "PATCH", APPS + "/deployments/d2?fieldManager=a",
     _deploy2([{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]), APPLY, UA),
    ("deploy2 second applier adds a port and a container", "PATCH", APPS + "/deployments/d2?fieldManager=b",
     _deploy2([{"name": "c", "image": "i", "ports": [{"containerPort": 81, "protocol": "UDP"}]},
               {"name": "d", "image": "j"}]), APPLY, UA),
    ("deploy2 first applier drops its port, the other's stays", "PATCH", APPS + "/deployments/d2?fieldManager=a",
     _deploy2([{"name": "c", "image": "i"}]), APPLY, UA),
    ("deploy2 second applier drops its container", "PATCH", APPS + "/deployments/d2?fieldManager=b",
     _deploy2([{"name": "c", "image": "i", "ports": [{"containerPort": 81, "protocol": "UDP"}]}]), APPLY, UA),
    ("pod created by apply", "PATCH", NS + "/pods/p?fieldManager=a",
     _pod("p", [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]), APPLY, UA),
    ("pod second applier may not add a container", "PATCH", NS + "/pods/p?fieldManager=b",
     _pod("p", [{"name": "c", "image": "i"}, {"name": "d", "image": "j"}]), APPLY, UA),
    ("pod status applied by the scheduler", "PATCH", NS + "/pods/p/status?fieldManager=kube-scheduler",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                 "message": "0/1 nodes are available"}]}}, APPLY, UA),
    ("pod status condition patched by the kubelet", "PATCH", NS + "/pods/p/status",
     {"status": {"conditions": [{"type": "PodScheduled", "message": "changed"}]}}, STRATEGIC, "kubelet/v1.37.2"),
    ("pod status apply conflicts with the kubelet", "PATCH", NS + "/pods/p/status?fieldManager=kube-scheduler",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
      "status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                 "message": "0/2 nodes are available"}]}}, APPLY, UA),
    ("status apply to a missing pod", "PATCH", NS + "/pods/missing/status?fieldManager=m",
     {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "missing"}, "status": {"phase": "Running"}}, APPLY, UA),
    ("apply with managedFields", "PATCH", NS + "/configmaps/x1?fieldManager=m",
     {**_cm("x1"), "metadata": {"name": "x1", "managedFields": [
         {"manager": "z", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {}}]}}, APPLY, UA),
    ("apply naming another object", "PATCH", NS + "/configmaps/x2?fieldManager=m", _cm("other"), APPLY, UA),
    ("apply without a name", "PATCH", NS + "/configmaps/x3?fieldManager=m",
     {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}, APPLY, UA),
    ("apply without metadata", "PATCH", NS + "/configmaps/x4?fieldManager=m", {"apiVersion": "v1", "kind": "ConfigMap"},
     APPLY, UA),
    ("apply with a field the schema lacks", "PATCH", NS + "/configmaps/x5?fieldManager=m&fieldValidation=Ignore",
     {**_cm("x5"), "foo": 1}, APPLY, UA),
    ("apply with a field the schema lacks, deeper", "PATCH", APPS + "/deployments/d?fieldManager=ci",
     {**_deploy(3, "i:3", labels={"tier": "web"}), "spec": {**_deploy(3, "i:3")["spec"], "bogus": True}}, APPLY, UA),
    ("apply with a repeated list-map key", "PATCH", NS + "/pods/p2?fieldManager=m",
     _pod("p2", [{"name": "c", "image": "i"}, {"name": "c", "image": "j"}]), APPLY, UA),
    ("apply of another namespace", "PATCH", NS + "/configmaps/x9?fieldManager=m",
     {**_cm("x9"), "metadata": {"name": "x9", "namespace": "kube-system"}}, APPLY, UA),
    ("apply creating with a uid", "PATCH", NS + "/configmaps/x12?fieldManager=m",
     {**_cm("x12"), "metadata": {"name": "x12", "uid": "abc"}}, APPLY, UA),
    ("apply creating with a resourceVersion", "PATCH", NS + "/configmaps/x11?fieldManager=m",
     {**_cm("x11", data={"a": "b"}), "metadata": {"name": "x11", "resourceVersion": "1"}}, APPLY, UA),
    ("apply with a stale resourceVersion", "PATCH", NS + "/configmaps/x11?fieldManager=m",
     {**_cm("x11", data={"a": "c"}), "metadata": {"name": "x11", "resourceVersion": "1"}}, APPLY, UA),
    ("managedFields stripped by a merge patch", "PATCH", NS + "/configmaps/x11", {"metadata": {"managedFields": [{}]}},
     MERGE, UA),
    ("apply to an object no entry tracks: before-first-apply", "PATCH", NS + "/configmaps/x11?fieldManager=n",
     {**_cm("x11", data={"b": "c"})}, APPLY, UA),
    ("apply of nulls", "PATCH", NS + "/configmaps/x15?fieldManager=m",
     {**_cm("x15", data=None), "metadata": {"name": "x15", "labels": None}}, APPLY, UA),
    ("apply of an invalid pod", "PATCH", NS + "/pods/p3?fieldManager=m", _pod("p3", []), APPLY, UA),
    ("apply without fieldManager", "PATCH", NS + "/configmaps/x16", _cm("x16"), APPLY, UA),
    ("service created with a port", "POST", NS + "/services", {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}},
     "", UA),
    ("service port applied without its protocol: the same item", "PATCH", NS + "/services/s?fieldManager=m",
     {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}, APPLY, UA),
    ("apply with force on a merge patch", "PATCH", NS + "/configmaps/x11?fieldManager=m&force=true",
     {"data": {"a": "d"}}, MERGE, UA),
]


def run_steps(call: Any) -> list[dict[str, Any]]:
    """Send :data:`STEPS`; each answer with its step's label."""
    assert call("POST", NS + "/serviceaccounts", {"metadata": {"name": "default"}}, "", UA)[0] in (201, 409)
    records = []
    for label, method, path, body, content_type, agent in STEPS:
        status, answer = call(method, path, body, content_type, agent)
        records.append({"step": label, "status": status, "after": answer})
    return records


def _entries(obj: dict[str, Any]) -> list[str]:
    """An object's managedFields as comparable text: each entry without its time (only whether
    it has one), sorted."""
    out = []
    for entry in (obj.get("metadata") or {}).get("managedFields") or []:
        seen = {k: v for k, v in entry.items() if k != "time"}
        seen["time"] = "time" in entry
        out.append(json.dumps(seen, sort_keys=True))
    return sorted(out)


def _object(obj: Any) -> Any:
    """An answer without what differs from run to run: uid, resourceVersion, creation time, the
    managedFields (compared by :func:`_entries`), a Service's allocated cluster IP; a Status
    without its empty metadata."""
    if not isinstance(obj, dict):
        return obj
    out = json.loads(json.dumps(obj))
    meta = out.get("metadata")
    if isinstance(meta, dict):
        for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
            meta.pop(key, None)
    if out.get("kind") == "Status":
        out.pop("metadata", None)
    spec = out.get("spec")
    if out.get("kind") == "Service" and isinstance(spec, dict) and spec.get("clusterIP"):  # picked at random there
        spec["clusterIP"], spec["clusterIPs"] = "<allocated>", ["<allocated>"]
    return out


def differences(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> Iterator[str]:
    assert [r["step"] for r in ours] == [r["step"] for r in theirs]
    for mine, real in zip(ours, theirs):
        label = mine["step"]
        if mine["status"] != real["status"]:
            yield f"{label}: status {mine['status']}, theirs {real['status']}: {json.dumps(real['after'])[:500]}"
        elif _object(mine["after"]) != _object(real["after"]):
            yield f"{label}:\n ours   {json.dumps(_object(mine['after']))}\n theirs {json.dumps(_object(real['after']))}"
        elif isinstance(real["after"], dict) and _entries(mine["after"]) != _entries(real["after"]):
            yield f"{label}: managedFields\n ours   {_entries(mine['after'])}\n theirs {_entries(real['after'])}"


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[Any]:
    # One fixed time for every write: which Update entries fold into "ancient-changes" goes by
    # their seconds, and the wall clock would make that depend on how fast the machine is.
    server = ThreadedServer(tmp_path, clock=ManualClock()).start()
    try:
        yield caller(server.url, "token", None)  # type: ignore[arg-type]
    finally:
        server.stop()


def test_the_update_corpus_through_http_is_answered_as_kube_apiserver_answered_it(fake: Any) -> None:
    ours = test_managedfields.run_corpus(fake)
    failures = list(differences(ours, json.loads(test_managedfields.RECORDED.read_text())))
    assert not failures, f"{len(failures)} of {len(ours)} differ:\n" + "\n".join(failures)


def test_the_apply_corpus_through_http_is_answered_as_kube_apiserver_answered_it(fake: Any) -> None:
    ours = test_apply.run_corpus(fake)
    failures = list(differences(ours, json.loads(test_apply.STEPS_RECORDED.read_text())))
    assert not failures, f"{len(failures)} of {len(ours)} differ:\n" + "\n".join(failures)


def test_edits_scales_dry_runs_and_bad_configurations_are_answered_as_kube_apiserver_answered_them(fake: Any) -> None:
    ours = run_steps(fake)
    failures = list(differences(ours, json.loads(RECORDED.read_text())))
    assert not failures, f"{len(failures)} of {len(ours)} differ:\n" + "\n".join(failures)


def test_the_recording_holds_each_outcome_the_issue_names() -> None:
    """Conflicts (with an applier, an editor, a scaler), a forced apply, refusals of each kind."""
    records = {r["step"]: r for r in json.loads(RECORDED.read_text())}
    assert records["deploy re-applied: conflict with kubectl-edit"]["status"] == 409
    assert records["deploy re-applied with the edited image: conflict on replicas with the scaler"]["status"] == 409
    assert records["deploy applied with a label, forced"]["status"] == 200
    assert {records[k]["status"] for k in ("apply with managedFields", "apply without a name")} == {400}
    assert records["apply with a field the schema lacks"]["status"] == 500
    assert records["status apply to a missing pod"]["status"] == 404


def test_kube_apiserver_still_answers_so(tmp_path: Path) -> None:
    records = kube_apiserver_answers(tmp_path, RECORDED, lambda *access: run_steps(caller(*access)))
    failures = list(differences(records, json.loads(RECORDED.read_text())))
    assert not failures, "\n".join(failures)
