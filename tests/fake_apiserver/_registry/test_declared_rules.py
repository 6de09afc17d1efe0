"""The rules the kinds beyond pods declare, called as functions: the node admission plugin's
not-ready taint, and each kind's create rules (its declaration's ``create``) with the messages
kube-apiserver v1.36 gave to the same objects. ``test_kind_validation.py`` sends such objects over
HTTP.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fake_apiserver._machinery.errors import Invalid
from fake_apiserver._registry.core.node import admit_node_create
from fake_apiserver._registry.core.pod.template import default_pod_template
from fake_apiserver._registry.kinds import by_kind, declaration


# --- node admission ------------------------------------------------------------------------------

NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def test_new_node_gets_the_not_ready_taint() -> None:
    node: dict[str, Any] = {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]}}
    admitted = admit_node_create(node, taint_not_ready=True)
    assert admitted["spec"]["taints"] == [{"key": "gpu", "effect": "NoSchedule"}, NOT_READY]
    assert node["spec"]["taints"] == [{"key": "gpu", "effect": "NoSchedule"}]  # input untouched
    assert admit_node_create({"metadata": {"name": "n2"}}, taint_not_ready=True)["spec"] == {"taints": [NOT_READY]}


def test_not_ready_taint_is_not_duplicated() -> None:
    present = {**NOT_READY, "value": "x", "timeAdded": "2024-01-01T00:00:00Z"}
    node = {"metadata": {"name": "n1"}, "spec": {"taints": [present]}}
    assert admit_node_create(node, taint_not_ready=True)["spec"]["taints"] == [present]


def test_not_ready_taint_with_another_effect_still_gets_no_schedule() -> None:
    node = {"metadata": {"name": "n1"}, "spec": {"taints": [{"key": NOT_READY["key"], "effect": "NoExecute"}]}}
    assert admit_node_create(node, taint_not_ready=True)["spec"]["taints"] == [
        {"key": NOT_READY["key"], "effect": "NoExecute"}, NOT_READY,
    ]


def test_plugin_off_leaves_node_alone() -> None:
    node = {"metadata": {"name": "n1"}}
    assert admit_node_create(node, taint_not_ready=False) == node


# --- other kinds' rules ----------------------------------------------------------------------------

SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


POOL = {"name": "p", "resourceSliceCount": 1}


# Each captured from kube-apiserver v1.36: the object POSTed, the message after '... is invalid: '.
@pytest.mark.parametrize(("group", "kind", "obj", "message"), [
    ("coordination.k8s.io", "Lease", {"spec": {"holderIdentity": "h", "leaseDurationSeconds": -1}},
     "spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0"),
    ("coordination.k8s.io", "Lease", {"spec": {"holderIdentity": "h", "leaseTransitions": -1}},
     "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"),
    ("storage.k8s.io", "CSIStorageCapacity", {"storageClassName": ""},
     f'storageClassName: Invalid value: "": {SUBDOMAIN_MESSAGE}'),
    ("resource.k8s.io", "ResourceSlice", {"spec": {"driver": "", "nodeName": "n", "pool": POOL}}, "spec.driver: Required value"),
    ("resource.k8s.io", "ResourceSlice", {"spec": {"driver": "d.example.com", "nodeName": "Bad_Node", "pool": POOL}},
     f'spec.nodeName: Invalid value: "Bad_Node": {SUBDOMAIN_MESSAGE}'),
    ("storage.k8s.io", "VolumeAttachment", {"spec": {"attacher": "", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}}, "spec.attacher: Required value"),
    ("storage.k8s.io", "CSINode", {"spec": {"drivers": [{"name": "Bad Driver", "nodeID": "n"}]}},
     f'spec.drivers[0].name: Invalid value: "Bad Driver": {SUBDOMAIN_MESSAGE}'),
    ("resource.k8s.io", "DeviceClass", {"spec": {"config": [{}]}}, "spec.config[0].opaque: Required value"),
    ("", "ConfigMap", {"data": {"bad key": "v"}},
     "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' "
     "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"),
    ("", "ConfigMap", {"data": {"k": "v"}, "binaryData": {"k": "dg=="}},
     'data[k]: Invalid value: "k": duplicate of key present in binaryData'),
    ("storage.k8s.io", "StorageClass", {"provisioner": "example.com/x", "volumeBindingMode": "Bogus"},
     'volumeBindingMode: Unsupported value: "Bogus": supported values: "Immediate", "WaitForFirstConsumer"'),
    ("storage.k8s.io", "CSIDriver", {"spec": {"fsGroupPolicy": "Bogus"}},
     'spec.fsGroupPolicy: Unsupported value: "Bogus": supported values: "File", "None", "ReadWriteOnceWithFSType"'),
    ("apps", "ReplicaSet", {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": {
        "metadata": {"labels": {"app": "b"}}}}},
     'spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`'),
    ("apps", "ReplicaSet", {"spec": {"selector": {}, "template": {"metadata": {"labels": {"app": "a"}}}}},
     "spec.selector: Invalid value: {}: empty selector is invalid for deployment"),
    ("apps", "ReplicaSet", {"spec": {"selector": {"matchLabels": {"app": "a"}}, "minReadySeconds": -1, "template": {
        "metadata": {"labels": {"app": "a"}}}}},
     "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
    ("apps", "ReplicaSet", {"spec": {"selector": {"matchLabels": {"app": "a"}}, "template": {
        "metadata": {"labels": {"app": "a"}}, "spec": {"restartPolicy": "Never"}}}},
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    ("", "ReplicationController", {"spec": {"selector": {"app": "b"}, "template": {"metadata": {"labels": {"app": "a"}}}}},
     'spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`'),
    ("", "Service", {"spec": {"ports": [{"port": 70000}]}},
     "[spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: "
     "Invalid value: 70000: must be between 1 and 65535, inclusive]"),
    ("", "PersistentVolume", {"spec": {"capacity": {"storage": "1Gi"}, "accessModes": []}},
     "spec.accessModes: Required value"),
    ("", "PersistentVolumeClaim", {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {}}}},
     "spec.resources[storage]: Required value"),
    ("policy", "PodDisruptionBudget", {"spec": {"unhealthyPodEvictionPolicy": "Bogus"}},
     'spec.unhealthyPodEvictionPolicy: Unsupported value: "Bogus": supported values: "AlwaysAllow", "IfHealthyBudget"'),
])
def test_kind_rules(group: str, kind: str, obj: dict[str, Any], message: str) -> None:
    spec = by_kind(group, kind)
    assert spec is not None
    template = (obj.get("spec") or {}).get("template")
    if isinstance(template, dict):  # a workload's template as the real server saw it: one container, defaulted
        obj = copy.deepcopy(obj)
        template = obj["spec"]["template"]
        template.setdefault("spec", {}).setdefault("containers", [{"name": "c", "image": "i"}])
        default_pod_template(template)
    errors = declaration(group, kind).create(obj)
    qualified = f"{kind}.{group}" if group else kind
    assert Invalid.of(kind, group, "x", errors).message == f'{qualified} "x" is invalid: {message}'
