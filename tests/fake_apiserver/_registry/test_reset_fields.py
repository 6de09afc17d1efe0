"""Reset fields (``fake_apiserver/data/reset-fields.json``, :func:`reset_fields`) against v1.37.

Offline: every kind the file names is one kube-apiserver v1.37 serves (its discovery data), every
subresource named is one the kind has, every path is a field of the kind's schema at every version
served; a kind without a status subresource resets nothing, one with it resets something through
``/status``.

Against a real kube-apiserver v1.37.2 (with ``KUBEBUILDER_ASSETS``): for each probed kind an object
is created by manager ``A``; manager ``B`` merge-patches the main resource with a status field and
a spec or metadata field; manager ``C`` merge-patches ``/status`` with a spec field, a label and a
status field (some kinds also through another subresource: a Pod's ``/resize`` and
``/ephemeralcontainers``, a Namespace's ``/finalize``, a CertificateSigningRequest's ``/approval``).
kube-apiserver's field manager leaves a write's reset fields out of what the writer owns, so each
field a write changed (new to the object, or a leaf with a new value: an unchanged field is owned
by nobody new) is owned by the writer's entry exactly when :func:`reset_fields` does not cover it.
Each write changes a field the table keeps, and each write whose target resets something changes
a reset field, so a table that reset more or less than the server would be told apart. 29 of the
30 built-in kinds that reset something are probed, and custom resources with and without a status
subresource (not PodCertificateRequest: one needs a pod, its node and a key's proof of possession).
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fake_apiserver._machinery.fieldset import FieldSet, fieldset_of
from fake_apiserver._machinery.fieldset import Path as FieldPath
from fake_apiserver._machinery.mergerules import FieldType, builtin_type, custom_type
from fake_apiserver._registry import resetfields
from fake_apiserver._registry.kinds import release_kinds
from fake_apiserver._registry.resetfields import reset_fields
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.fake_apiserver._machinery.test_managedfields import caller
from tests.support.paths import ROOT

DATA = ROOT / "fake_apiserver" / "data" / "reset-fields.json"
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


def test_the_module_exports_reset_fields() -> None:
    assert resetfields.__all__ == ["reset_fields"]


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
    without it, no write to the kind's resource or subresources resets anything."""
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
    Probe("replicasets", "/apis/apps/v1/namespaces/default/replicasets", "apps", "v1", "ReplicaSet",
          {"metadata": {"name": "rf-rs", "labels": {"a": "a"}}, "spec": DEPLOY_SPEC}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"replicas": 2}, "status": {"replicas": 7}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"replicas": 3}, "status": {"replicas": 1}}),
          }),
    Probe("statefulsets", "/apis/apps/v1/namespaces/default/statefulsets", "apps", "v1", "StatefulSet",
          {"metadata": {"name": "rf-sts", "labels": {"a": "a"}}, "spec": {**DEPLOY_SPEC, "serviceName": "rf"}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"replicas": 2}, "status": {"replicas": 7}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"replicas": 3}, "status": {"replicas": 1}}),
          }),
    Probe("daemonsets", "/apis/apps/v1/namespaces/default/daemonsets", "apps", "v1", "DaemonSet",
          {"metadata": {"name": "rf-ds", "labels": {"a": "a"}},
           "spec": {"selector": DEPLOY_SPEC["selector"], "template": DEPLOY_SPEC["template"]}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"minReadySeconds": 5}, "status": {"numberReady": 7}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"minReadySeconds": 6},
                                      "status": {"desiredNumberScheduled": 1}}),
          }),
    Probe("replicationcontrollers", NS + "/replicationcontrollers", "", "v1", "ReplicationController",
          {"metadata": {"name": "rf-rc", "labels": {"a": "a"}},
           "spec": {"replicas": 1, "selector": {"app": "rf"}, "template": DEPLOY_SPEC["template"]}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"replicas": 2}, "status": {"replicas": 7}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"replicas": 3}, "status": {"replicas": 1}}),
          }),
    Probe("cronjobs", "/apis/batch/v1/namespaces/default/cronjobs", "batch", "v1", "CronJob",
          {"metadata": {"name": "rf-cj", "labels": {"a": "a"}},
           "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": JOB_TEMPLATE}}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"suspend": True},
                                "status": {"lastScheduleTime": "2026-01-01T00:00:00Z"}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"suspend": False},
                                      "status": {"lastScheduleTime": "2026-01-02T00:00:00Z"}}),
          }),
    *(Probe(f"horizontalpodautoscalers {version}", f"/apis/autoscaling/{version}/namespaces/default/horizontalpodautoscalers",
            "autoscaling", version, "HorizontalPodAutoscaler",
            {"metadata": {"name": f"rf-hpa-{version}", "labels": {"a": "a"}},
             "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "rf"}, "maxReplicas": 3}}, {
                "B": ("", MERGE, {"metadata": labels("b"), "spec": {"maxReplicas": 4}, "status": {"currentReplicas": 9}}),
                "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"maxReplicas": 5},
                                        "status": {"currentReplicas": 1, "desiredReplicas": 1}}),
            }) for version in ("v2", "v1")),
    Probe("poddisruptionbudgets", "/apis/policy/v1/namespaces/default/poddisruptionbudgets", "policy", "v1",
          "PodDisruptionBudget",
          {"metadata": {"name": "rf-pdb", "labels": {"a": "a"}},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "rf"}}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"minAvailable": 2}, "status": {"currentHealthy": 5}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"minAvailable": 3},
                                      "status": {"currentHealthy": 1, "expectedPods": 1}}),
          }),
    Probe("resourcequotas", NS + "/resourcequotas", "", "v1", "ResourceQuota",
          {"metadata": {"name": "rf-quota", "labels": {"a": "a"}}, "spec": {"hard": {"configmaps": "100"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"hard": {"configmaps": "101"}},
                                "status": {"hard": {"configmaps": "7"}}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"hard": {"configmaps": "102"}},
                                      "status": {"hard": {"configmaps": "101"}, "used": {"configmaps": "1"}}}),
          }),
    Probe("persistentvolumes", "/api/v1/persistentvolumes", "", "v1", "PersistentVolume",
          {"metadata": {"name": "rf-pv", "labels": {"a": "a"}},
           "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp/rf"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "status": {"message": "b"}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"capacity": {"storage": "2Gi"}},
                                      "status": {"message": "c"}}),
          }),
    Probe("ingresses", "/apis/networking.k8s.io/v1/namespaces/default/ingresses", "networking.k8s.io", "v1", "Ingress",
          {"metadata": {"name": "rf-ing", "labels": {"a": "a"}},
           "spec": {"defaultBackend": {"service": {"name": "s", "port": {"number": 80}}}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"ingressClassName": "b"},
                                "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"ingressClassName": "c"},
                                      "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.2"}]}}}),
          }),
    Probe("servicecidrs", "/apis/networking.k8s.io/v1/servicecidrs", "networking.k8s.io", "v1", "ServiceCIDR",
          {"metadata": {"name": "rf-cidr", "labels": {"a": "a"}}, "spec": {"cidrs": ["10.200.0.0/24"]}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "status": {"conditions": [_condition("B")]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"cidrs": ["10.201.0.0/24"]},
                                      "status": {"conditions": [_condition("C")]}}),
          }),
    Probe("volumeattachments", "/apis/storage.k8s.io/v1/volumeattachments", "storage.k8s.io", "v1", "VolumeAttachment",
          {"metadata": {"name": "rf-va", "labels": {"a": "a"}},
           "spec": {"attacher": "example.com", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "status": {"attached": True}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"nodeName": "m"}, "status": {"attached": True}}),
          }),
    Probe("storageversionmigrations", "/apis/storagemigration.k8s.io/v1/storageversionmigrations",
          "storagemigration.k8s.io", "v1", "StorageVersionMigration",
          {"metadata": {"name": "rf-svm", "labels": {"a": "a"}}, "spec": {"resource": {"group": "", "resource": "configmaps"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "status": {"conditions": [_condition("B")]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"resource": {"resource": "secrets"}},
                                      "status": {"conditions": [_condition("C")]}}),
          }),
    Probe("flowschemas", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", "flowcontrol.apiserver.k8s.io", "v1",
          "FlowSchema",
          {"metadata": {"name": "rf-fs", "labels": {"a": "a"}},
           "spec": {"priorityLevelConfiguration": {"name": "global-default"}, "matchingPrecedence": 9000}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"matchingPrecedence": 9001},
                                "status": {"conditions": [{"type": "B", "status": "True"}]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"matchingPrecedence": 9002},
                                      "status": {"conditions": [{"type": "C", "status": "True"}]}}),
          }),
    Probe("prioritylevelconfigurations", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
          "flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration",
          {"metadata": {"name": "rf-plc", "labels": {"a": "a"}},
           "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"limited": {"nominalConcurrencyShares": 6}},
                                "status": {"conditions": [{"type": "B", "status": "True"}]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"limited": {"nominalConcurrencyShares": 7}},
                                      "status": {"conditions": [{"type": "C", "status": "True"}]}}),
          }),
    Probe("validatingadmissionpolicies", "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
          "admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy",
          {"metadata": {"name": "rf-vap", "labels": {"a": "a"}}, "spec": {"validations": [{"expression": "true"}], "matchConstraints": {"resourceRules": [
              {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"failurePolicy": "Ignore"},
                                "status": {"conditions": [_condition("B")]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"failurePolicy": "Fail"},
                                      "status": {"conditions": [_condition("C")]}}),
          }),
    Probe("customresourcedefinitions", CRDS, "apiextensions.k8s.io", "v1", "CustomResourceDefinition",
          {**_crd("rfthings", "RfThing", True), "metadata": {"name": "rfthings.rf.example.com", "labels": {"a": "a"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"names": {"categories": ["b"]}},
                                "status": {"storedVersions": ["v1", "v0"]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"names": {"categories": ["c"]}},
                                      "status": {"conditions": [{"type": "Probe", "status": "True"}]}}),
          }),
    Probe("devicetaintrules", "/apis/resource.k8s.io/v1/devicetaintrules", "resource.k8s.io", "v1", "DeviceTaintRule",
          {"metadata": {"name": "rf-dtr", "labels": {"a": "a"}},
           "spec": {"deviceSelector": {"driver": "example.com"}, "taint": {"key": "k", "effect": "NoSchedule"}}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "spec": {"taint": {"value": "b"}},
                                "status": {"conditions": [_condition("B")]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"taint": {"value": "c"}},
                                      "status": {"conditions": [_condition("C")]}}),
          }),
    Probe("csinodes", "/apis/storage.k8s.io/v1/csinodes", "storage.k8s.io", "v1", "CSINode",
          {"metadata": {"name": "rf-node", "labels": {"a": "a"}}, "spec": {"drivers": []}}, {
              "B": ("", MERGE, {"metadata": labels("b"), "status": {"storageHealth": [{"name": "b"}]}}),
              "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"drivers": [{"name": "example.com", "nodeID": "n"}]},
                                      "status": {"storageHealth": [{"name": "c"}]}}),
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


APISERVICE = Probe(
    "apiservices", "/apis/apiregistration.k8s.io/v1/apiservices", "apiregistration.k8s.io", "v1", "APIService",
    {"metadata": {"name": "v1.rfapi.example.com", "labels": {"a": "a"}},
     "spec": {"group": "rfapi.example.com", "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10,
              "insecureSkipTLSVerify": True, "service": {"namespace": "default", "name": "rf-missing"}}}, {
        "B": ("", MERGE, {"metadata": labels("b"), "spec": {"versionPriority": 11},
                          "status": {"conditions": [{"type": "B", "status": "True"}]}}),
        "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"versionPriority": 12},
                                "status": {"conditions": [{"type": "C", "status": "True"}]}}),
    })
"""Last: an APIService whose service does not exist leaves its group unavailable."""


def certificate_request(openssl: str = "openssl") -> str:
    """A PEM certificate request (base64), as a CertificateSigningRequest carries it."""
    pem = subprocess.run([openssl, "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                          "-nodes", "-subj", "/CN=rf", "-keyout", os.devnull],
                         check=True, capture_output=True).stdout
    return base64.b64encode(pem).decode()


def csr_probe(request: str) -> Probe:
    """A CertificateSigningRequest: its main resource resets spec and status, ``/status`` spec and
    the conditions, ``/approval`` spec and the certificate."""
    return Probe(
        "certificatesigningrequests", "/apis/certificates.k8s.io/v1/certificatesigningrequests", "certificates.k8s.io",
        "v1", "CertificateSigningRequest",
        {"metadata": {"name": "rf-csr", "labels": {"a": "a"}},
         "spec": {"request": request, "signerName": "example.com/rf", "usages": ["digital signature"]}}, {
            "B": ("", MERGE, {"metadata": labels("b"), "spec": {"usages": ["key encipherment"]},
                              "status": {"conditions": [{"type": "Failed", "status": "True"}]}}),
            "C": ("status", MERGE, {"metadata": labels("c"), "spec": {"usages": ["server auth"]},
                                    "status": {"conditions": [{"type": "Failed", "status": "True"}]}}),
            "D": ("approval", MERGE, {"metadata": labels("d"), "spec": {"usages": ["client auth"]},
                                      "status": {"conditions": [{"type": "Failed", "status": "True"},
                                                                {"type": "Approved", "status": "True"}]}}),
        })


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


MISSING = object()


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
    assert status == 201, (probe.label, answer.get("message"))
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
        assert status == 200, (probe.label, manager, answer.get("message"))
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
        probes = [*PROBES, csr_probe(certificate_request()), APISERVICE]
        writes = [write for probe in probes for write in run_probe(call, probe)]
    assert not [p for w in writes for p in w.problems], "\n".join(p for w in writes for p in w.problems)
    # every write changed something the table keeps, and every write to a resource or subresource
    # that resets something changed a reset field too: each probe tells the table from its neighbours
    assert [w.label for w in writes if w.changed == w.reset] == []
    assert [w.label for w in writes if w.resets and not w.reset] == []
