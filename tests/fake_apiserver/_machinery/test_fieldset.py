"""Field sets and their ``fieldsV1`` form, against what kube-apiserver v1.37.2 wrote.

Every ``fieldsV1`` kube-apiserver wrote in the managedFields corpus
(``tests/data/managedfields/kube-apiserver-v1.37.2.json``) reads into a :class:`FieldSet` and is
written back key for key (a custom resource's sorted, as Go writes an unstructured map). What a
write takes from the other managers is a set difference the recorded answers show. A configuration
applied with server-side apply is owned as :func:`fieldset_of` reads it: a few applies (ConfigMap,
Deployment, Pod, Node, a custom object) were sent to kube-apiserver v1.37.2 and the Apply entries
recorded (``tests/data/managedfields/apply-kube-apiserver-v1.37.2.json``); with
``KUBEBUILDER_ASSETS`` set they are sent again.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.fake_apiserver._machinery.test_managedfields import (
    APPS,
    CRD,
    CRDS,
    DEPLOY,
    NODE,
    NS,
    RECORDED,
    UA,
    W1,
    WIDGET,
    WIDGET_SCHEMA,
    caller,
    pod_manifest,
)

from fake_apiserver._machinery.fieldset import (
    FieldSet,
    PathElement,
    fieldset_of,
    path_of,
)
from fake_apiserver._machinery.managedfields import NEVER_OWNED, ManagedEntry
from fake_apiserver._machinery.mergerules import builtin_type, custom_type
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets

APPLIED = RECORDED.with_name("apply-kube-apiserver-v1.37.2.json")
APPLY = "application/apply-patch+yaml"

# label, path of the object, the configuration applied, its kind's rules
APPLIES: list[tuple[str, str, dict[str, Any]]] = [
    ("configmap", NS + "/configmaps/ap", {"apiVersion": "v1", "kind": "ConfigMap",
                                          "metadata": {"name": "ap", "labels": {"a": "1"}, "annotations": {}},
                                          "data": {"k": "v", "e": ""}}),
    ("deployment", APPS + "/deployments/d", {**DEPLOY, "metadata": {"name": "d"}}),
    ("pod", NS + "/pods/p", {**pod_manifest("p", volumes=[{"name": "v", "emptyDir": {}}], nodeSelector={"a": "b"})}),
    ("node", "/api/v1/nodes/n1", NODE),
    ("widget", W1 + "/w", WIDGET),
]


def _type(label: str) -> Any:
    if label == "widget":
        return custom_type(WIDGET_SCHEMA)
    kind = {"configmap": ("", "v1", "ConfigMap"), "deployment": ("apps", "v1", "Deployment"),
            "pod": ("", "v1", "Pod"), "node": ("", "v1", "Node")}[label]
    return builtin_type(*kind)


def _entries() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for record in json.loads(RECORDED.read_text()):
        for side in ("before", "after"):
            obj = record[side] or {}
            for entry in obj.get("metadata", {}).get("managedFields") or []:
                out.append((str(obj.get("apiVersion", "")), entry))
    return out


def test_every_recorded_fields_v1_is_written_back_as_kube_apiserver_wrote_it() -> None:
    entries = _entries()
    assert len(entries) > 300
    for api_version, entry in entries:
        fields = FieldSet.from_fields_v1(entry["fieldsV1"])
        custom = api_version.startswith("mf.example.com/")
        ours = ManagedEntry(entry["manager"], entry["operation"], entry["apiVersion"], entry.get("time"), fields,
                            entry.get("subresource", "")).encode(unstructured=custom)
        assert json.dumps(ours) == json.dumps(entry)


def test_a_write_takes_its_fields_from_the_other_managers() -> None:
    """``cm merge by beta`` changed ``data.k2`` and added ``data.k3``: the creator lost ``k2``."""
    records = {r["step"]: r for r in json.loads(RECORDED.read_text())}
    record = records["cm merge by beta"]
    before = {e["manager"]: FieldSet.from_fields_v1(e["fieldsV1"]) for e in record["before"]["metadata"]["managedFields"]}
    after = {e["manager"]: FieldSet.from_fields_v1(e["fieldsV1"]) for e in record["after"]["metadata"]["managedFields"]}
    k2 = (PathElement.field("data"), PathElement.field("k2"))
    assert after["beta"].paths_text() == [".data.k2", ".data.k3"]
    assert after["Python-urllib"] == before["Python-urllib"].difference(after["beta"])
    assert after["Python-urllib"].union(FieldSet([k2])) == before["Python-urllib"]
    assert before["Python-urllib"].intersection(after["beta"]) == FieldSet([k2])


def test_reset_fields_take_their_descendants_along() -> None:
    fields = FieldSet([path_of("status", "phase"), path_of("spec", "x"), path_of("status")])
    assert fields.without_subtrees(FieldSet([path_of("status")])) == FieldSet([path_of("spec", "x")])
    assert fields.difference(FieldSet([path_of("status")])) == FieldSet([path_of("status", "phase"), path_of("spec", "x")])


def test_list_merge_rules_come_from_the_schema() -> None:
    pod = builtin_type("", "v1", "Pod")
    spec = pod.fields["spec"]
    assert (spec.fields["containers"].relation, spec.fields["containers"].keys) == ("map", ("name",))
    assert spec.fields["tolerations"].relation == "atomic"
    assert spec.fields["nodeSelector"].atomic
    ports = spec.fields["containers"].elem
    assert ports is not None and ports.fields["ports"].keys == ("containerPort", "protocol")
    assert pod.fields["metadata"].fields["finalizers"].relation == "set"


def _apply_all(call: Any) -> list[dict[str, Any]]:
    assert call("POST", NS + "/serviceaccounts", {"metadata": {"name": "default"}}, "", UA)[0] in (201, 409)
    assert call("POST", CRDS, CRD, "", UA)[0] == 201
    for _ in range(300):
        if call("GET", W1, None, "", UA)[0] == 200:
            break
        time.sleep(0.1)
    answers = []
    for label, path, config in APPLIES:
        status, answer = call("PATCH", path + "?fieldManager=applier", config, APPLY, UA)
        assert status in (200, 201), (label, answer)
        answers.append({"label": label, "config": config, "managedFields": answer["metadata"]["managedFields"]})
    return answers


def _check_applies(answers: list[dict[str, Any]]) -> None:
    assert [a["label"] for a in answers] == [a[0] for a in APPLIES]
    for answer in answers:
        applied = [e for e in answer["managedFields"] if e["operation"] == "Apply"]
        assert len(applied) == 1, answer["label"]
        ours = fieldset_of(answer["config"], _type(answer["label"])).difference(NEVER_OWNED)
        ours = ours.without_subtrees(FieldSet([path_of("status")]))
        assert ours == FieldSet.from_fields_v1(applied[0]["fieldsV1"]), answer["label"]
        if answer["label"] != "widget":
            assert json.dumps(ours.to_fields_v1()) == json.dumps(applied[0]["fieldsV1"])


def test_an_applied_configuration_is_owned_as_kube_apiserver_v1_37_owned_it() -> None:
    _check_applies(json.loads(APPLIED.read_text()))


def test_kube_apiserver_still_owns_applied_configurations_so(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        answers = _apply_all(caller(server, token, context))
    if not APPLIED.exists():  # the first capture
        APPLIED.write_text(json.dumps(answers, indent=1) + "\n")
    _check_applies(answers)
