"""Reset fields (``fake_apiserver/data/reset-fields.json``, :func:`reset_fields`) against v1.37.

Offline: every kind the file names is one kube-apiserver v1.37 serves (its discovery data), every
subresource named is one the kind has, every path is a field of the kind's schema at every version
served; a kind without a status subresource resets nothing, one with it resets something through
``/status``.

Against a real kube-apiserver v1.37.2 (with ``KUBEBUILDER_ASSETS``): for each probed kind an object
is created by manager ``A``; manager ``B`` merge-patches the main resource with a status field and
a spec or metadata field; manager ``C`` merge-patches ``/status`` with a spec field, a label and a
status field (some kinds also through ``/resize``, ``/ephemeralcontainers`` or ``/finalize``, by
``D``). kube-apiserver's field manager leaves a write's reset fields out of what the writer owns,
so each field a patch sent is owned by its writer's entry exactly when :func:`reset_fields` does
not cover it. The bodies change every field they name (an unchanged field is owned by nobody new).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_managedfields import caller

from fake_apiserver._machinery.fieldset import FieldSet, FieldType, Path as FieldPath, builtin_type, custom_type, fieldset_of
from fake_apiserver._registry.kinds import release_kinds
from fake_apiserver._registry.resetfields import reset_fields
from harness._envtest import ControlPlane, envtest_unavailable, find_assets

DATA = Path(__file__).parent.parent / "fake_apiserver" / "data" / "reset-fields.json"
RELEASE = "1.37.0"
MERGE, STRATEGIC = "application/merge-patch+json", "application/strategic-merge-patch+json"
UA = "test-reset-fields"
NS = "/api/v1/namespaces/default"


def _facts() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text())
    return data


def _served() -> dict[tuple[str, str], list[Any]]:
    """Every row v1.37 serves, by group and kind (a kind served at two versions has two rows)."""
    out: dict[tuple[str, str], list[Any]] = {}
    for spec in release_kinds(RELEASE):
        out.setdefault((spec.group, spec.kind), []).append(spec)
    return out


# ------------------------------------------------------------------------------------ offline


def test_the_file_says_where_its_facts_come_from() -> None:
    assert "v1.37" in _facts()["source"]


def test_every_kind_listed_is_served_with_the_subresources_listed() -> None:
    served = _served()
    listed = [(group, kind, table) for group, kinds in _facts()["kinds"].items() for kind, table in kinds.items()]
    assert len(listed) >= 30
    for group, kind, table in listed:
        assert (group, kind) in served, (group, kind)
        for spec in served[(group, kind)]:
            assert set(table) <= {"", *spec.subresources}, (group, kind, table)
        assert all(table.values()), (group, kind, "a subresource listed with nothing reset")


def _walk(ftype: FieldType, names: list[str]) -> FieldType | None:
    node: FieldType | None = ftype
    for name in names:
        if node is None or name not in node.fields:
            return None
        node = node.child(name)
    return node


def test_every_path_is_a_field_of_the_kind_at_every_served_version() -> None:
    served = _served()
    for group, kinds in _facts()["kinds"].items():
        for kind, table in kinds.items():
            for spec in served[(group, kind)]:
                ftype = builtin_type(group, spec.version, kind, RELEASE)
                for paths in table.values():
                    for names in paths:
                        assert _walk(ftype, names) is not None, (group, spec.version, kind, names)


def test_custom_resource_paths_are_fields_of_a_custom_resource_with_status() -> None:
    ftype = custom_type({"type": "object", "properties": {"spec": {"type": "object"}, "status": {"type": "object"}}})
    rules = _facts()["customResources"]
    assert set(rules["withStatusSubresource"]) == {"", "status"} and rules["withoutStatusSubresource"] == {}
    for paths in rules["withStatusSubresource"].values():
        for names in paths:
            assert _walk(ftype, names) is not None, names


def test_status_subresource_is_what_decides_whether_a_kind_resets_anything() -> None:
    """Discovery's status subresource against the file: with it, ``/status`` resets something;
    without it (and apart from a few other writing subresources), nothing is reset anywhere."""
    for (group, kind), specs in _served().items():
        subresources = {s for spec in specs for s in spec.subresources}
        if "status" in subresources:
            assert reset_fields(group, kind, "status"), (group, kind)
        else:
            for sub in ("", *subresources):
                assert not reset_fields(group, kind, sub), (group, kind, sub)


# ----------------------------------------------------------------------------- differential


@dataclass
class Probe:
    """One kind's writes: ``collection`` is the path objects are created under; ``patches`` maps
    a manager to (subresource, content type, body); ``custom`` is a custom resource's schema and
    whether its version has a status subresource."""

    label: str
    collection: str
    group: str
    version: str
    kind: str
    create: dict[str, Any]
    patches: dict[str, tuple[str, str, dict[str, Any]]]
    custom: tuple[dict[str, Any], bool] | None = None
    setup: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.create["metadata"]["name"])

    def ftype(self) -> FieldType:
        if self.custom is not None:
            return custom_type(self.custom[0])
        return builtin_type(self.group, self.version, self.kind, RELEASE)


def labels(value: str) -> dict[str, Any]:
    return {"labels": {value: value}}


def _condition(kind: str) -> dict[str, Any]:
    return {"type": kind, "status": "True", "reason": "Probed", "message": "probe",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}


POD = {"metadata": {"name": "rf-pod", "labels": {"a": "a"}},
       "spec": {"automountServiceAccountToken": False,
                "containers": [{"name": "c", "image": "img:1", "resources": {"requests": {"cpu": "100m"}}}]}}
DEPLOY_SPEC = {"replicas": 1, "selector": {"matchLabels": {"app": "rf"}},
               "template": {"metadata": {"labels": {"app": "rf"}},
                            "spec": {"containers": [{"name": "c", "image": "img:1"}]}}}
JOB_TEMPLATE = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "img:1"}]}}
WIDGET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "integer"}}},
    },
}


def _crd(plural: str, kind: str, status: bool) -> dict[str, Any]:
    return {"metadata": {"name": f"{plural}.rf.example.com"},
            "spec": {"group": "rf.example.com", "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "subresources": {"status": {}} if status else {},
                                   "schema": {"openAPIV3Schema": WIDGET_SCHEMA}}]}}


CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
WITH_STATUS, WITHOUT_STATUS = _crd("rfwidgets", "RfWidget", True), _crd("rfgadgets", "RfGadget", False)

PROBES = [
    Probe("pods", NS + "/pods", "", "v1", "Pod", POD, {
        "B": ("", MERGE, {"metadata": labels("b"), "spec": {"activeDeadlineSeconds": 100}, "status": {"message": "b"}}),
        "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"activeDeadlineSeconds": 50},
                                "status": {"conditions": [{"type": "example.com/probe", "status": "True"}]}}),
        "D": ("resize", STRATEGIC, {"metadata": labels("d"), "spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "200m"}}}]}}),
        "E": ("ephemeralcontainers", STRATEGIC, {"metadata": labels("e"), "spec": {"ephemeralContainers": [
            {"name": "dbg", "image": "img:2", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}]}}),
    }),
    Probe("deployments", "/apis/apps/v1/namespaces/default/deployments", "apps", "v1", "Deployment",
          {"metadata": {"name": "rf-deploy", "labels": {"a": "a"}}, "spec": DEPLOY_SPEC}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"replicas": 2}, "status": {"replicas": 7}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"replicas": 3},
                                      "status": {"replicas": 1, "observedGeneration": 1}}),
          }),
    Probe("nodes", "/api/v1/nodes", "", "v1", "Node", {"metadata": {"name": "rf-node", "labels": {"a": "a"}}}, {
        "B": ("", MERGE, {"metadata": labels("b"), "spec": {"unschedulable": True}, "status": {"capacity": {"pods": "5"}}}),
        "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"unschedulable": False},
                                "status": {"capacity": {"pods": "110"}}}),
    }),
    Probe("services", NS + "/services", "", "v1", "Service",
          {"metadata": {"name": "rf-svc", "labels": {"a": "a"}}, "spec": {"ports": [{"port": 80}], "selector": {"app": "rf"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"publishNotReadyAddresses": True},
                                "status": {"conditions": [_condition("B")]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"publishNotReadyAddresses": False},
                                      "status": {"conditions": [_condition("C")]}}),
          }),
    Probe("namespaces", "/api/v1/namespaces", "", "v1", "Namespace", {"metadata": {"name": "rf-ns", "labels": {"a": "a"}}}, {
        "B": ("", MERGE, {"metadata": labels("b"), "status": {"conditions": [{"type": "B", "status": "True"}]}}),
        "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"finalizers": ["kubernetes", "example.com/c"]},
                                "status": {"conditions": [{"type": "C", "status": "True"}]}}),
        "D": ("finalize", "PUT", {"metadata": labels("d"), "spec": {"finalizers": ["kubernetes", "example.com/d"]},
                                  "status": {"conditions": [{"type": "D", "status": "True"}]}}),
    }),
    Probe("jobs", "/apis/batch/v1/namespaces/default/jobs", "batch", "v1", "Job",
          {"metadata": {"name": "rf-job", "labels": {"a": "a"}}, "spec": {"template": JOB_TEMPLATE}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"ttlSecondsAfterFinished": 100}, "status": {"failed": 3}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"ttlSecondsAfterFinished": 50},
                                      "status": {"startTime": "2026-01-01T00:00:00Z", "active": 1}}),
          }),
    Probe("resourceclaims", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims", "resource.k8s.io", "v1",
          "ResourceClaim",
          {"metadata": {"name": "rf-claim", "labels": {"a": "a"}},
           "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}}, {
              "B": ("", MERGE, {"metadata": labels("b"),
                                "status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"devices": {"requests": []}},
                                      "status": {"allocation": {"devices": {"results": [
                                          {"request": "r", "driver": "example.com", "pool": "p", "device": "d"}]}}}}),
          }),
    Probe("persistentvolumeclaims", NS + "/persistentvolumeclaims", "", "v1", "PersistentVolumeClaim",
          {"metadata": {"name": "rf-pvc", "labels": {"a": "a"}},
           "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "status": {"capacity": {"storage": "5Gi"}}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"resources": {"requests": {"storage": "2Gi"}}},
                                      "status": {"capacity": {"storage": "1Gi"}}}),
          }),
    Probe("custom resource with status", "/apis/rf.example.com/v1/namespaces/default/rfwidgets", "rf.example.com", "v1",
          "RfWidget", {"metadata": {"name": "rf-w", "labels": {"a": "a"}}, "spec": {"replicas": 1}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"replicas": 2}, "status": {"ready": 7}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"replicas": 3}, "status": {"ready": 1}}),
          }, custom=(WIDGET_SCHEMA, True), setup=[(CRDS, WITH_STATUS)]),
    Probe("custom resource without status", "/apis/rf.example.com/v1/namespaces/default/rfgadgets", "rf.example.com",
          "v1", "RfGadget", {"metadata": {"name": "rf-g", "labels": {"a": "a"}}, "spec": {"replicas": 1}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"replicas": 2}, "status": {"ready": 7}}),
          }, custom=(WIDGET_SCHEMA, False), setup=[(CRDS, WITHOUT_STATUS)]),
]


def _merge(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        out[key] = _merge(out.get(key), value)
    return out


def _owned(obj: dict[str, Any], manager: str, subresource: str) -> FieldSet:
    entries = [e for e in obj["metadata"].get("managedFields", [])
               if e["manager"] == manager and e["operation"] == "Update" and e.get("subresource", "") == subresource]
    return FieldSet().union(*(FieldSet.from_fields_v1(e["fieldsV1"]) for e in entries))


def _at(obj: Any, path: FieldPath) -> Any:
    """The value a path names in an object (struct fields and list items by key), or ``MISSING``."""
    node = obj
    for element in path:
        if element.kind == "f" and isinstance(node, dict) and element.text[2:] in node:
            node = node[element.text[2:]]
        elif element.kind == "k" and isinstance(node, list):
            keys = json.loads(element.text[2:])
            found = [i for i in node if isinstance(i, dict) and all(i.get(k) == v for k, v in keys.items())]
            if not found:
                return MISSING
            node = found[0]
        elif element.kind == "v" and isinstance(node, list) and json.loads(element.text[2:]) in node:
            node = json.loads(element.text[2:])
        else:
            return MISSING
    return node


MISSING = object()


def _changes(before: dict[str, Any], body: dict[str, Any], ftype: FieldType) -> list[FieldPath]:
    """The paths of a patch body that are new to the object or change its value (a struct or list
    item that is already there, or a leaf with the same value, is no one's new field)."""
    paths = fieldset_of(body, ftype)
    inner = {path[:n] for path in paths for n in range(1, len(path))}
    out = []
    for path in paths:
        old = _at(before, path)
        if old is MISSING or (path not in inner and old != _at(body, path)):
            out.append(path)
    return out


def _covered(path: FieldPath, reset: FieldSet) -> bool:
    return any(path[:n] in reset for n in range(1, len(path) + 1))


@dataclass
class Write:
    """What one probed write showed: the fields it changed, those the table resets, and the
    disagreements between the table and the ownership the server recorded."""

    label: str
    resets: bool
    changed: int = 0
    reset: int = 0
    problems: list[str] = field(default_factory=list)


def run_probe(call: Any, probe: Probe) -> list[Write]:
    """Send a probe's writes and compare the ownership the server recorded with the table."""
    for collection, body in probe.setup:
        status, answer = call("POST", collection, body, "", UA)
        assert status == 201, (probe.label, answer)
        for _ in range(300):
            if call("GET", probe.collection, None, "", UA)[0] == 200:
                break
            time.sleep(0.1)
    api_version = f"{probe.group}/{probe.version}" if probe.group else probe.version
    create = {"apiVersion": api_version, "kind": probe.kind, **probe.create}
    status, answer = call("POST", probe.collection + "?fieldManager=A", create, "", UA)
    assert status == 201, (probe.label, answer)
    item = f"{probe.collection}/{probe.name}"
    custom_has_status = probe.custom is not None and probe.custom[1]
    writes = []
    for manager, (subresource, content_type, body) in probe.patches.items():
        target = item + (f"/{subresource}" if subresource else "")
        status, before = call("GET", item, None, "", UA)
        if content_type == "PUT":
            status, answer = call("PUT", f"{target}?fieldManager={manager}", _merge(before, body), "", UA)
        else:
            status, answer = call("PATCH", f"{target}?fieldManager={manager}", body, content_type, UA)
        assert status == 200, (probe.label, manager, answer)
        reset = reset_fields(probe.group, probe.kind, subresource, custom_has_status=custom_has_status)
        owned = _owned(answer, manager, subresource)
        write = Write(f"{probe.label} {manager} /{subresource}", bool(reset))
        for path in _changes(before, body, probe.ftype()):
            write.changed += 1
            write.reset += _covered(path, reset)
            if _covered(path, reset) == (path in owned):
                text = FieldSet([path]).paths_text()[0]
                write.problems.append(f"{write.label}: {text} "
                                      f"{'owned though reset' if path in owned else 'not owned though not reset'}")
        writes.append(write)
    return writes


def test_the_probes_cover_the_kinds_asked_for() -> None:
    asked = {"pods", "deployments", "nodes", "services", "namespaces", "jobs", "resourceclaims",
             "persistentvolumeclaims", "custom resource with status"}
    assert asked <= {p.label for p in PROBES}


def test_kube_apiserver_leaves_out_what_the_table_resets(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        call = caller(server, token, context)
        assert call("POST", NS + "/serviceaccounts", {"metadata": {"name": "default"}}, "", UA)[0] in (201, 409)
        writes = [write for probe in PROBES for write in run_probe(call, probe)]
    assert not [p for w in writes for p in w.problems], "\n".join(p for w in writes for p in w.problems)
    # every write changed something the table keeps, and every write to a resource or subresource
    # that resets something changed a reset field too: each probe tells the table from its neighbours
    assert [w.label for w in writes if w.changed == w.reset] == []
    assert [w.label for w in writes if w.resets and not w.reset] == []
