"""Server-side apply conflicts, against kube-apiserver v1.37.2.

A Deployment is created by ``alpha``, its status written by ``kubelet`` and an annotation by
``beta``; then configurations are applied by ``ap`` (:data:`APPLIES`) and kube-apiserver's
``409`` answers recorded with the object and its managedFields just before
(``tests/data/managedfields/conflicts-kube-apiserver-v1.37.2.json``). :func:`find_conflicts` and
:func:`conflict_message` must give the same message, exactly, and the same causes (kube-apiserver
lists those manager by manager in Go's map order, so they are compared as a set). With
``KUBEBUILDER_ASSETS`` set, the real server is asked again.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver._machinery.applyconflicts import (
    conflict_causes,
    conflict_message,
    find_conflicts,
)
from fake_apiserver._machinery.fieldset import FieldSet, path_of
from fake_apiserver._machinery.mergerules import builtin_type
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.fake_apiserver._machinery.test_managedfields import APPS, RECORDED, UA, caller

CONFLICTS = RECORDED.with_name("conflicts-kube-apiserver-v1.37.2.json")
APPLY, MERGE = "application/apply-patch+yaml", "application/merge-patch+json"
D = APPS + "/deployments/d"
SETUP: list[tuple[str, str, Any, str, str]] = [
    ("POST", APPS + "/deployments?fieldManager=alpha",
     {"metadata": {"name": "d", "labels": {"l": "1"}},
      "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}},
               "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}},
     "", "alpha"),
    ("PATCH", D + "/status?fieldManager=kubelet", {"status": {"replicas": 3}}, MERGE, "kubelet"),
    ("PATCH", D + "?fieldManager=beta", {"metadata": {"annotations": {"z": "1"}}}, MERGE, "beta"),
]
_HEAD = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}
APPLIES: list[tuple[str, str, dict[str, Any]]] = [
    ("one field of alpha", "", {**_HEAD, "spec": {"replicas": 5}}),
    ("three fields of alpha", "", {**_HEAD, "metadata": {"name": "d", "labels": {"l": "2"}},
                                   "spec": {"replicas": 5, "template": {"spec": {"containers": [{"name": "c", "image": "y"}]}}}}),
    ("fields of alpha and beta", "", {**_HEAD, "metadata": {"name": "d", "labels": {"l": "2"}, "annotations": {"z": "2"}},
                                      "spec": {"replicas": 5}}),
    ("status of kubelet", "status", {**_HEAD, "status": {"replicas": 7}}),
    ("same values conflict with nobody", "", {**_HEAD, "spec": {"replicas": 2}}),
]


def _strip(obj: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    out["metadata"].pop("managedFields", None)
    return out


def _record(call: Any) -> list[dict[str, Any]]:
    for method, path, body, content_type, _ in SETUP:
        assert call(method, path, body, content_type, UA)[0] in (200, 201)
    out = []
    for label, subresource, config in APPLIES:
        status, live = call("GET", D, None, "", UA)
        assert status == 200
        path = D + ("/" + subresource if subresource else "") + "?fieldManager=ap"
        status, answer = call("PATCH", path, config, APPLY, UA)
        out.append({"label": label, "live": live, "status": status, "answer": answer})
    return out


def _check(records: list[dict[str, Any]]) -> None:
    assert [r["label"] for r in records] == [a[0] for a in APPLIES]
    ftype = builtin_type("apps", "v1", "Deployment")
    for (label, subresource, config), record in zip(APPLIES, records):
        live = record["live"]
        reset = FieldSet([path_of("spec"), path_of("metadata")] if subresource else [path_of("status")])
        found = find_conflicts(live["metadata"]["managedFields"], _strip(live), config, ftype, manager="ap",
                               subresource=subresource, reset=reset)
        if record["status"] != 409:
            assert found == [], label
            continue
        answer = record["answer"]
        assert conflict_message(found) == answer["message"], label
        # the causes come manager by manager in Go's map order, which changes from run to run
        assert sorted(map(json.dumps, conflict_causes(found))) == sorted(map(json.dumps, answer["details"]["causes"]))


def test_conflicts_are_what_kube_apiserver_v1_37_answered() -> None:
    _check(json.loads(CONFLICTS.read_text()))


def test_kube_apiserver_still_answers_them_so(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        records = _record(caller(server, token, context))
    if not CONFLICTS.exists():  # the first capture
        CONFLICTS.write_text(json.dumps(records, indent=1) + "\n")
    _check(records)
