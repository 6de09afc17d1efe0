"""The rules of the kinds beyond pods (their declarations, :data:`fake_apiserver._registry.kinds.DECLARATIONS`, and the kinds' strategies), over HTTP against the fake.

Every expected message was captured from kube-apiserver v1.36 (DeviceTaintRules, a kind v1.37
serves at resource.k8s.io/v1: v1.37.2) with the same request (a body POSTed, PUT or PATCHed to a
real server, the answer's ``message`` copied here), so each test says what the real server
answers, not what the fake's code builds.
"""

from __future__ import annotations

from typing import Any

import pytest

from fake_apiserver._registry.kinds import DECLARATIONS, built_in_kinds
from tests.support.http_api import Api, serve

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
ONE_NODE_SELECTION = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
CONTAINERS = [{"name": "c", "image": "i"}]
TEMPLATE = {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": CONTAINERS}}
POOL = {"name": "p", "resourceSliceCount": 1}
NS = "/api/v1/namespaces/default"
DTR = "/apis/resource.k8s.io/v1/devicetaintrules"


def test_every_kind_with_rules_of_its_own_is_a_served_kind() -> None:
    """A declaration of a kind no release can serve (by default, or with ``--runtime-config``)
    would never be read (a misspelt group or kind), and a kind declared twice would have one of
    its declarations ignored."""
    served = built_in_kinds()
    declared = [(d.group, d.kind) for d in DECLARATIONS]
    assert set(declared) - served == set()
    assert len(set(declared)) == len(declared)
    assert ("", "Pod") in declared and ("apiextensions.k8s.io", "CustomResourceDefinition") in declared


# (path POSTed to, body, the real server's message); captured from kube-apiserver v1.36.
CREATES: list[tuple[str, dict[str, Any], str]] = [
    ("/api/v1/nodes", {"metadata": {"name": "n2"}, "spec": {"podCIDRs": ["10.1.0.0/24", "10.2.0.0/24"]}},
     'Node "n2" is invalid: spec.podCIDRs: Invalid value: ["10.1.0.0/24","10.2.0.0/24"]: '
     "may specify no more than one CIDR for each IP family"),
    ("/api/v1/nodes", {"metadata": {"name": "n3"}, "spec": {"podCIDRs": ["x", "10.2.0.0/24", "::/64"]}},
     'Node "n3" is invalid: [spec.podCIDRs[0]: Invalid value: "x": must be a valid CIDR value, (e.g. 10.9.8.0/24 '
     "or 2001:db8::/64), spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with "
     "error:invalid CIDR[0]: <nil> (invalid CIDR address: x), spec.podCIDRs: Invalid value: "
     '["x","10.2.0.0/24","::/64"]: may specify no more than one CIDR for each IP family]'),
    ("/api/v1/nodes", {"metadata": {"name": "n4"}, "spec": {"taints": [
        {"key": "a", "value": "b c", "effect": "Bogus"}, {"key": "a", "effect": "NoSchedule"},
        {"key": "a", "effect": "NoSchedule"}, {"key": "b"}]}},
     f'Node "n4" is invalid: [metadata.taints[0].value: Invalid value: "b c": {LABEL_VALUE}, '
     'metadata.taints[0].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", '
     '"NoExecute", metadata.taints[2]: Duplicate value: {"Key":"a","Value":"","Effect":"NoSchedule",'
     '"TimeAdded":null}: taints must be unique by key and effect pair, metadata.taints[3].effect: Required value]'),
    ("/api/v1/nodes", {"metadata": {"name": "n5"}, "status": {"capacity": {"cpu": "-1"}, "allocatable": {"memory": "-2"}}},
     'Node "n5" is invalid: [status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0, '
     'status.allocatable.memory: Invalid value: "-2": must be greater than or equal to 0]'),
    ("/api/v1/nodes", {"metadata": {"name": "n6"}, "status": {"capacity": {"cpu": "-1"}}},
     'Node "n6" is invalid: [status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0, '
     'status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0]'),
    (f"{NS}/services", {"metadata": {"name": "s3"}, "spec": {"type": "Bogus", "ports": []}},
     'Service "s3" is invalid: [spec.ports: Required value, spec.type: Unsupported value: "Bogus": supported values: '
     '"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]'),
    (f"{NS}/services", {"metadata": {"name": "s2"}, "spec": {"type": "ExternalName", "ports": [{"port": 80}]}},
     'Service "s2" is invalid: spec.externalName: Required value'),
    (f"{NS}/services", {"metadata": {"name": "s9"}, "spec": {"ports": [{"port": 0}, {"port": 81}]}},
     'Service "s9" is invalid: [spec.ports[0].name: Required value, spec.ports[0].port: Invalid value: 0: must be '
     "between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, "
     "inclusive, spec.ports[1].name: Required value]"),
    (f"{NS}/services", {"metadata": {"name": "s8"}, "spec": {"ports": [{"port": 80, "name": "a"}, {"port": 81, "name": "a"}]}},
     'Service "s8" is invalid: spec.ports[1].name: Duplicate value: "a"'),
    (f"{NS}/replicationcontrollers", {"metadata": {"name": "r2"}, "spec": {
        "replicas": -1, "minReadySeconds": -1, "selector": {"a": "b"}, "template": TEMPLATE}},
     'ReplicationController "r2" is invalid: [spec.minReadySeconds: Invalid value: -1: must be greater than or '
     "equal to 0, spec.replicas: Invalid value: -1: must be greater than or equal to 0]"),
    ("/apis/apps/v1/namespaces/default/statefulsets", {"metadata": {"name": "ss2"}, "spec": {
        "replicas": -1, "minReadySeconds": -1, "selector": {"matchLabels": {"a": "b"}}, "template": TEMPLATE}},
     'StatefulSet.apps "ss2" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, '
     "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]"),
    ("/apis/apps/v1/namespaces/default/replicasets", {"metadata": {"name": "rs1"}, "spec": {
        "replicas": -1, "minReadySeconds": -1, "selector": {"matchLabels": {"a": "b"}}, "template": TEMPLATE}},
     'ReplicaSet.apps "rs1" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, '
     "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]"),
    (f"{NS}/events", {"metadata": {"name": "e2"}, "involvedObject": {"kind": "Pod", "name": "p", "namespace": "other"}},
     'Event "e2" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace'),
    ("/apis/events.k8s.io/v1/namespaces/default/events", {
        "metadata": {"name": "e5"}, "eventTime": "2024-01-01T00:00:00.000000Z", "reportingController": "Bad Ctl",
        "reportingInstance": "", "action": "", "reason": "", "type": "",
        "regarding": {"kind": "Pod", "name": "p", "namespace": "default"}},
     f'Event "e5" is invalid: [reportingController: Invalid value: "Bad Ctl": {NAME_PART}, reportingInstance: '
     'Required value, action: Required value, reason: Required value, type: Invalid value: "": has invalid value: ]'),
    ("/apis/events.k8s.io/v1/namespaces/default/events", {
        "metadata": {"name": "e6"}, "reportingController": "x", "reportingInstance": "y", "action": "A",
        "reason": "R", "type": "Normal", "regarding": {"kind": "Pod", "name": "p", "namespace": "other"}},
     'Event "e6" is invalid: [involvedObject.namespace: Invalid value: "other": does not match event.namespace, '
     "eventTime: Required value]"),
    ("/apis/storage.k8s.io/v1/storageclasses", {"metadata": {"name": "sc1"}},
     'StorageClass.storage.k8s.io "sc1" is invalid: provisioner: Required value'),
    ("/apis/storage.k8s.io/v1/storageclasses", {"metadata": {"name": "sc2"}, "provisioner": "Bad Prov",
                                                "reclaimPolicy": "Bogus"},
     f'StorageClass.storage.k8s.io "sc2" is invalid: [provisioner: Invalid value: "bad prov": {NAME_PART}, '
     'reclaimPolicy: Unsupported value: "Bogus": supported values: "Delete", "Retain"]'),
    ("/apis/storage.k8s.io/v1/volumeattachments", {"metadata": {"name": "va1"}, "spec": {
        "attacher": "a", "nodeName": "n", "source": {}}},
     'VolumeAttachment.storage.k8s.io "va1" is invalid: spec.source: Required value: must specify exactly one of '
     "inlineVolumeSpec and persistentVolumeName"),
    ("/apis/storage.k8s.io/v1/volumeattachments", {"metadata": {"name": "va2"}, "spec": {
        "attacher": "a", "nodeName": "n", "source": {"persistentVolumeName": "pv", "inlineVolumeSpec": {}}}},
     'VolumeAttachment.storage.k8s.io "va2" is invalid: spec.source: Forbidden: must specify exactly one of '
     "inlineVolumeSpec and persistentVolumeName"),
    ("/apis/storage.k8s.io/v1/volumeattachments", {"metadata": {"name": "va3"}, "spec": {
        "attacher": "Bad A", "source": {"persistentVolumeName": "Bad PV"}}},
     f'VolumeAttachment.storage.k8s.io "va3" is invalid: [spec.attacher: Invalid value: "Bad A": {SUBDOMAIN}, '
     f'spec.nodeName: Invalid value: "": {SUBDOMAIN}, spec.source.persistentVolumeName: Invalid value: "Bad PV": '
     f"{SUBDOMAIN}]"),
    ("/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities", {
        "metadata": {"name": "cc"}, "storageClassName": "Bad", "capacity": "-1"},
     f'CSIStorageCapacity.storage.k8s.io "cc" is invalid: [storageClassName: Invalid value: "Bad": {SUBDOMAIN}, '
     'capacity: Invalid value: "-1": must be greater than or equal to 0]'),
    ("/apis/resource.k8s.io/v1/resourceslices", {"metadata": {"name": "rs9"}, "spec": {
        "driver": "", "nodeName": "Bad_Node", "pool": {"name": "", "resourceSliceCount": 0}}},
     'ResourceSlice.resource.k8s.io "rs9" is invalid: [spec.driver: Required value, spec.pool.name: Required value, '
     "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero, spec.nodeName: Invalid value: "
     f'"Bad_Node": {SUBDOMAIN}]'),
    ("/apis/resource.k8s.io/v1/resourceslices", {"metadata": {"name": "rs1"}, "spec": {
        "driver": "d.example.com", "nodeName": "n", "pool": {"name": "p", "generation": -1, "resourceSliceCount": 0}}},
     'ResourceSlice.resource.k8s.io "rs1" is invalid: [spec.pool.resourceSliceCount: Invalid value: 0: must be '
     "greater than zero, spec.pool.generation: Invalid value: -1: must be greater than or equal to zero]"),
    ("/apis/resource.k8s.io/v1/resourceslices", {"metadata": {"name": "rs6"}, "spec": {
        "driver": "d.example.com", "nodeName": "n", "allNodes": True, "perDeviceNodeSelection": True, "pool": POOL}},
     'ResourceSlice.resource.k8s.io "rs6" is invalid: spec: Invalid value: "{`nodeName`, `allNodes`, '
     f'`perDeviceNodeSelection`}}": {ONE_NODE_SELECTION}, but multiple fields are set'),
    ("/apis/resource.k8s.io/v1/resourceslices", {"metadata": {"name": "rs7"}, "spec": {
        "driver": "d.example.com", "allNodes": False, "pool": POOL}},
     'ResourceSlice.resource.k8s.io "rs7" is invalid: [spec.allNodes: Invalid value: false: must be either unset '
     f"or set to true, spec: Required value: {ONE_NODE_SELECTION}]"),
    ("/apis/resource.k8s.io/v1/deviceclasses", {"metadata": {"name": "dc1"}, "spec": {"selectors": [{}]}},
     'DeviceClass.resource.k8s.io "dc1" is invalid: spec.selectors[0].cel: Required value'),
    (f"{NS}/pods", {"metadata": {"name": "p6"}, "spec": {"containers": [
        {"name": "c", "image": "i", "ports": [{"containerPort": 0, "protocol": "ICMP"}, {"containerPort": 80}]}]}},
     'Pod "p6" is invalid: [spec.containers[0].ports[0].containerPort: Required value, '
     'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"]'),
    (f"{NS}/pods", {"metadata": {"name": "p8"}, "spec": {"containers": CONTAINERS, "resourceClaims": [
        {"name": "r"}, {"name": "s", "resourceClaimName": "a", "resourceClaimTemplateName": "b"}]}},
     'Pod "p8" is invalid: [spec.resourceClaims[0]: Invalid value: {"Name":"r","ResourceClaimName":null,'
     '"ResourceClaimTemplateName":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`, '
     'spec.resourceClaims[1]: Invalid value: {"Name":"s","ResourceClaimName":"a","ResourceClaimTemplateName":"b"}: '
     "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified]"),
    (f"{NS}/pods", {"metadata": {"name": "p9"}, "spec": {"containers": CONTAINERS, "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}},
     'Pod "p9" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.'
     "nodeSelectorTerms: Required value: must have at least one node selector term"),
    ("/api/v1/persistentvolumes", {"metadata": {"name": "pv3"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "capacity": {"cpu": "1"}, "hostPath": {"path": "/tmp"}}},
     'PersistentVolume "pv3" is invalid: spec.capacity: Unsupported value: {"cpu":"1"}: supported values: "storage"'),
    ("/api/v1/persistentvolumes", {"metadata": {"name": "pv2"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/tmp"}}},
     'PersistentVolume "pv2" is invalid: [spec.capacity: Required value, spec.capacity: Unsupported value: null: '
     'supported values: "storage"]'),
    (f"{NS}/services", {"metadata": {"name": "g1"}, "spec": {"clusterIP": "garbage", "ports": [{"port": 80}]}},
     'Service "g1" is invalid: spec.clusterIPs[0]: Invalid value: "garbage": must be a valid IP address, '
     "(e.g. 10.9.8.7 or 2001:db8::ffff)"),
    (f"{NS}/pods", {"metadata": {"name": "p10"}, "spec": {"restartPolicy": "Sometimes", "dnsPolicy": "Bogus",
                                                          "containers": CONTAINERS}},
     'Pod "p10" is invalid: [spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", '
     '"OnFailure", "Never", spec.dnsPolicy: Unsupported value: "Bogus": supported values: "ClusterFirstWithHostNet", '
     '"ClusterFirst", "Default", "None"]'),
    (f"{NS}/configmaps", {"metadata": {"name": "c1", "generation": -3}},
     'ConfigMap "c1" is invalid: metadata.generation: Invalid value: -3: must be greater than or equal to 0'),
    (f"{NS}/services", {"metadata": {"name": "s11"}, "spec": {"ports": [{"port": 80}], "selector": {"bad key": "v"}}},
     'Service "s11" is invalid: spec.selector: Invalid value: "bad key": name part must consist of alphanumeric '
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
     "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ("/apis/apps/v1/namespaces/default/statefulsets", {"metadata": {"name": "ss1"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": TEMPLATE, "podManagementPolicy": "Bogus"}},
     'StatefulSet.apps "ss1" is invalid: spec.podManagementPolicy: Invalid value: "Bogus": '
     "must be 'OrderedReady' or 'Parallel'"),
    (DTR, {"metadata": {"name": "dtr1"}, "spec": {"taint": {"effect": "NoSchedule"}}},
     'DeviceTaintRule.resource.k8s.io "dtr1" is invalid: [spec.taint.key: Invalid value: "": name part must be '
     f'non-empty, spec.taint.key: Invalid value: "": {NAME_PART}]'),
    (DTR, {"metadata": {"name": "dtr2"}, "spec": {"taint": {"key": "k"}}},
     'DeviceTaintRule.resource.k8s.io "dtr2" is invalid: spec.taint.effect: Required value'),
    (DTR, {"metadata": {"name": "dtr3"}, "spec": {"taint": {"key": "k", "effect": "PreferNoSchedule"}}},
     'DeviceTaintRule.resource.k8s.io "dtr3" is invalid: spec.taint.effect: Unsupported value: "PreferNoSchedule": '
     'supported values: "NoExecute", "NoSchedule", "None"'),
    (DTR, {"metadata": {"name": "dtr4"}, "spec": {"taint": {"key": "-bad-", "value": "in valid", "effect": "None"}}},
     f'DeviceTaintRule.resource.k8s.io "dtr4" is invalid: [spec.taint.key: Invalid value: "-bad-": {NAME_PART}, '
     f'spec.taint.value: Invalid value: "in valid": {LABEL_VALUE}]'),
    (DTR, {"metadata": {"name": "dtr5"}, "spec": {"taint": {"key": "k", "effect": "None"}, "deviceSelector": {
        "driver": "Not_A_Driver", "pool": "/x/", "device": "Bad_Dev"}}},
     f'DeviceTaintRule.resource.k8s.io "dtr5" is invalid: [spec.deviceSelector.driver: Invalid value: "Not_A_Driver": '
     f'{SUBDOMAIN}, spec.deviceSelector.pool: Invalid value: "": {SUBDOMAIN}, spec.deviceSelector.device: Invalid '
     f'value: "Bad_Dev": {LABEL}]'),
    (DTR, {"metadata": {"name": "dtr6"}, "spec": {"taint": {"key": "k", "effect": "None"}, "deviceSelector": {
        "driver": "", "pool": "", "device": ""}}},  # set to "": pointers, so not left out
     'DeviceTaintRule.resource.k8s.io "dtr6" is invalid: [spec.deviceSelector.driver: Required value, '
     f'spec.deviceSelector.pool: Required value, spec.deviceSelector.device: Invalid value: "": {LABEL}]'),
]


@pytest.mark.parametrize(("path", "body", "message"), CREATES, ids=[c[1]["metadata"]["name"] for c in CREATES])
def test_create_is_refused_with_the_real_message(path: str, body: dict[str, Any], message: str) -> None:
    async def scenario(api: Api) -> None:
        reply = await api.post(path, body)
        assert (reply.status, reply.body["message"]) == (422, message)
        name = body["metadata"]["name"]
        assert (await api.get(f"{path}/{name}")).status == 404  # nothing refused is stored

    serve(scenario)


# (path of an object created first, the object, the update PUT, the real server's message)
UPDATES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    ("/api/v1/nodes", {"metadata": {"name": "n6"}, "spec": {"podCIDRs": ["10.1.0.0/24"]}},
     {"spec": {"podCIDRs": ["10.3.0.0/24"]}},
     'Node "n6" is invalid: spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid'),
    ("/apis/storage.k8s.io/v1/storageclasses", {"metadata": {"name": "sc3"}, "provisioner": "a/b",
                                                "reclaimPolicy": "Retain", "parameters": {"x": "y"}},
     {"provisioner": "a/c", "reclaimPolicy": "Delete", "parameters": {"x": "z"}, "volumeBindingMode": "Immediate"},
     'StorageClass.storage.k8s.io "sc3" is invalid: [parameters: Invalid value: {"x":"z"}: field is immutable, '
     'provisioner: Invalid value: "a/c": field is immutable, reclaimPolicy: Invalid value: "Delete": field is immutable]'),
    (f"{NS}/services", {"metadata": {"name": "s10", "namespace": "default"}, "spec": {
        "clusterIP": "10.0.0.5", "ports": [{"port": 80}]}},
     {"spec": {"clusterIP": "10.0.0.99"}},
     'Service "s10" is invalid: spec.clusterIPs[0]: Invalid value: ["10.0.0.99"]: may not change once set'),
    ("/api/v1/persistentvolumes", {"metadata": {"name": "pv1"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}, "hostPath": {"path": "/tmp"}}},
     {"metadata": {"generateName": "Bad"}},
     f'PersistentVolume "pv1" is invalid: metadata.generateName: Invalid value: "Bad": {SUBDOMAIN}'),
    ("/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates", {"metadata": {"name": "rct1"}, "spec": {
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}}},
     {"metadata": {"generateName": "Bad"}},
     f'ResourceClaimTemplate.resource.k8s.io "rct1" is invalid: metadata.generateName: Invalid value: "Bad": {SUBDOMAIN}'),
    (f"{NS}/pods", {"metadata": {"name": "p11"}, "spec": {"containers": CONTAINERS}},
     {"metadata": {"generateName": "Bad"}},
     f'Pod "p11" is invalid: metadata.generateName: Invalid value: "Bad": {SUBDOMAIN}'),
    (f"{NS}/services", {"metadata": {"name": "s12"}, "spec": {"ports": [{"port": 80}]}},
     {"spec": {"selector": {"bad key": "v"}}},
     'Service "s12" is invalid: spec.selector: Invalid value: "bad key": name part must consist of alphanumeric '
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
     "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ("/apis/apps/v1/namespaces/default/statefulsets", {"metadata": {"name": "ss2"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": TEMPLATE}},
     {"spec": {"podManagementPolicy": "Bogus"}},
     'StatefulSet.apps "ss2" is invalid: [spec.podManagementPolicy: Invalid value: "Bogus": must be '
     "'OrderedReady' or 'Parallel', spec: Forbidden: updates to statefulset spec for fields other than 'replicas', "
     "'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
     "'minReadySeconds' are forbidden]"),
    ("/apis/apps/v1/namespaces/default/statefulsets", {"metadata": {"name": "ss3"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}}, "template": TEMPLATE}},
     {"spec": {"updateStrategy": {"type": "Bogus"}}},
     'StatefulSet.apps "ss3" is invalid: spec.updateStrategy: Invalid value: '
     # kube-apiserver v1.37.2 (MaxUnavailableStatefulSet on by default: maxUnavailable defaults to 1)
     '{"Type":"Bogus","RollingUpdate":{"Partition":0,"MaxUnavailable":1}}: must be \'RollingUpdate\' or \'OnDelete\''),
    (DTR, {"metadata": {"name": "dtr7"}, "spec": {"taint": {"key": "k", "effect": "NoSchedule"}}},
     {"spec": {"taint": {"effect": "Bogus"}}},
     'DeviceTaintRule.resource.k8s.io "dtr7" is invalid: spec.taint.effect: Unsupported value: "Bogus": '
     'supported values: "NoExecute", "NoSchedule", "None"'),
]


@pytest.mark.parametrize(("path", "created", "change", "message"), UPDATES, ids=[u[1]["metadata"]["name"] for u in UPDATES])
def test_update_is_refused_with_the_real_message(path: str, created: dict[str, Any], change: dict[str, Any],
                                                 message: str) -> None:
    async def scenario(api: Api) -> None:
        stored = await api.ok("POST", path, created)
        name = created["metadata"]["name"]
        reply = await api.patch(f"{path}/{name}", change, "application/merge-patch+json")
        assert (reply.status, reply.body["message"]) == (422, message)
        assert await api.ok("GET", f"{path}/{name}") == stored

    serve(scenario)


def test_a_stateful_set_is_defaulted_and_only_its_mutable_fields_change() -> None:
    # kube-apiserver v1.37.2: the spec as stored (serviceName written empty, maxUnavailable 1 with
    # MaxUnavailableStatefulSet on), then merge patches that keep the fixed fields
    # (podManagementPolicy named with its default, cleared, or the counts) are taken
    path = "/apis/apps/v1/namespaces/default/statefulsets"

    async def scenario(api: Api) -> None:
        made = await api.ok("POST", path, {"metadata": {"name": "ss4"}, "spec": {
            "selector": {"matchLabels": {"a": "b"}}, "template": TEMPLATE}})
        assert {k: v for k, v in made["spec"].items() if k != "template"} == {
            "replicas": 1, "selector": {"matchLabels": {"a": "b"}}, "serviceName": "", "podManagementPolicy": "OrderedReady",
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0, "maxUnavailable": 1}},
            "revisionHistoryLimit": 10,
            "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}}
        for change in ({"podManagementPolicy": "OrderedReady"}, {"podManagementPolicy": None, "updateStrategy": None},
                       {"podManagementPolicy": ""}, {"replicas": 3, "minReadySeconds": 2}):
            await api.ok("PATCH", f"{path}/ss4", {"spec": change}, "application/merge-patch+json")

    serve(scenario)


def test_node_pod_cidr_and_allocatable_are_filled_in_as_the_real_server_stores_them() -> None:
    # kube-apiserver v1.36 stores {"podCIDR": "10.0.0.0/24", "podCIDRs": ["10.0.0.0/24"]} and an
    # allocatable equal to the capacity for this body
    async def scenario(api: Api) -> None:
        node = await api.ok("POST", "/api/v1/nodes", {"metadata": {"name": "n7"}, "spec": {"podCIDR": "10.0.0.0/24"},
                                                      "status": {"capacity": {"cpu": "1"}}})
        assert (node["spec"]["podCIDR"], node["spec"]["podCIDRs"]) == ("10.0.0.0/24", ["10.0.0.0/24"])
        assert node["status"]["allocatable"] == {"cpu": "1"}

    serve(scenario)


@pytest.mark.parametrize("overhead", [{"cpu": "1"}, {}])
def test_pod_overhead_without_a_runtime_class_is_forbidden(overhead: dict[str, str]) -> None:
    # captured from kube-apiserver v1.36 (the RuntimeClass admission plugin), for both: an empty
    # map is set to Go, though it encodes as nothing
    async def scenario(api: Api) -> None:
        reply = await api.post(f"{NS}/pods", {"metadata": {"name": "p1"}, "spec": {
            "containers": CONTAINERS, "overhead": overhead}})
        assert (reply.status, reply.body["reason"], reply.body["message"]) == (
            403, "Forbidden",
            'pods "p1" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead')
        assert (await api.get(f"{NS}/pods/p1")).status == 404

    serve(scenario)


def test_lease_keeps_the_generation_it_is_created_with_and_a_negative_one_is_refused() -> None:
    # kube-apiserver v1.36: a Lease created with generation 5 reads back with 5; -1 is a 422
    path = "/apis/coordination.k8s.io/v1/namespaces/default/leases"

    async def scenario(api: Api) -> None:
        lease = await api.ok("POST", path, {"metadata": {"name": "l1", "generation": 5}})
        assert lease["metadata"]["generation"] == 5
        reply = await api.post(path, {"metadata": {"name": "new", "generation": -1}})
        assert (reply.status, reply.body["message"]) == (
            422, 'Lease.coordination.k8s.io "new" is invalid: metadata.generation: Invalid value: -1: '
                 "must be greater than or equal to 0")

    serve(scenario)


def test_set_element_order_of_a_field_the_struct_lacks_is_a_plain_500() -> None:
    # captured from kube-apiserver v1.36: 500, no reason
    path = "/apis/storage.k8s.io/v1/volumeattachments"

    async def scenario(api: Api) -> None:
        await api.ok("POST", path, {"metadata": {"name": "va4"}, "spec": {
            "attacher": "a", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}})
        for patch, message in (
            ({"spec": {"$setElementOrder/containers": [{"name": "zz"}]}},
             'unable to find api field in struct VolumeAttachmentSpec for the json field "containers"'),
            ({"spec": {"source": {"$setElementOrder/x": [1]}}},
             'unable to find api field in struct VolumeAttachmentSource for the json field "x"'),
            ({"$setElementOrder/bogus": [1]}, 'unable to find api field in struct VolumeAttachment for the json field "bogus"'),
        ):
            reply = await api.patch(f"{path}/va4", patch)
            assert (reply.status, reply.body.get("reason"), reply.body["message"]) == (500, None, message)

    serve(scenario)


def test_a_patch_to_an_unknown_kind_or_version_is_invalid_and_another_version_converts() -> None:
    # kube-apiserver v1.36: ' "" is invalid: patch: Invalid value: "<the patched object>": <decoder error>'
    # (the real object's JSON carries managedFields, so only the head and tail are compared); a
    # version the scheme converts from (resource.k8s.io/v1beta2 for a DeviceClass) patches fine
    path = "/apis/storage.k8s.io/v1/volumeattachments"

    async def scenario(api: Api) -> None:
        await api.ok("POST", path, {"metadata": {"name": "va4"}, "spec": {
            "attacher": "a", "nodeName": "n", "source": {"persistentVolumeName": "pv"}}})
        for patch, tail in (
            ({"kind": "Pod"}, 'no kind "Pod" is registered for version "storage.k8s.io/v1" in scheme '
                              '"pkg/api/legacyscheme/scheme.go:30"'),
            ({"apiVersion": "v1"}, 'no kind "VolumeAttachment" is registered for version "v1" in scheme '
                                   '"pkg/api/legacyscheme/scheme.go:30"'),
            ({"kind": "CSINode"}, "converting (v1.CSINode) to (storage.VolumeAttachment): unknown conversion"),
        ):
            reply = await api.patch(f"{path}/va4", patch, "application/merge-patch+json")
            assert reply.status == 422
            assert reply.body["message"].startswith(' "" is invalid: patch: Invalid value: "{')
            assert reply.body["message"].endswith(f'}}": {tail}')
        classes = "/apis/resource.k8s.io/v1/deviceclasses"
        await api.ok("POST", classes, {"metadata": {"name": "dc2"}, "spec": {}})
        body = await api.ok("PATCH", f"{classes}/dc2", {"apiVersion": "resource.k8s.io/v1beta2"})
        assert (body["apiVersion"], body["kind"]) == ("resource.k8s.io/v1", "DeviceClass")

    serve(scenario)


T0 = "2024-01-01T00:00:00Z"
# (status.conditions of a budget written through /status, the real server's message after
# 'PodDisruptionBudget.policy "p" is invalid: '); captured from kube-apiserver v1.36.
CONDITIONS: list[tuple[list[dict[str, Any]], str]] = [
    ([{"type": "Ready", "status": "True"}],
     "[status.conditions[0].lastTransitionTime: Required value, status.conditions[0].reason: Required value]"),
    ([{"type": "Ready", "status": "Bogus", "lastTransitionTime": T0, "reason": "R"}],
     'status.conditions[0].status: Unsupported value: "Bogus": supported values: "False", "True", "Unknown"'),
    ([{"type": "Ready", "status": "True", "lastTransitionTime": T0, "reason": "bad reason"}],
     'status.conditions[0].reason: Invalid value: "bad reason": a condition reason must start with alphabetic '
     "character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an "
     "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or "
     "'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"),
    ([{"type": "Ready", "status": "True", "lastTransitionTime": T0, "reason": "R", "observedGeneration": -1}],
     "status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero"),
    ([{"type": "Ready", "status": "True", "lastTransitionTime": T0, "reason": "R"},
      {"type": "Ready", "status": "False", "lastTransitionTime": T0, "reason": "R"}],
     'status.conditions[1].type: Duplicate value: "Ready"'),
    ([{"type": "Ready", "status": "True", "lastTransitionTime": T0, "reason": "R" * 1025, "message": "m" * 32769}],
     "[status.conditions[0].reason: Too long: may not be more than 1024 bytes, "
     "status.conditions[0].message: Too long: may not be more than 32768 bytes]"),
]


@pytest.mark.parametrize(("conditions", "message"), CONDITIONS, ids=[str(i) for i in range(len(CONDITIONS))])
def test_budget_status_conditions_are_validated(conditions: list[dict[str, Any]], message: str) -> None:
    path = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

    async def scenario(api: Api) -> None:
        stored = await api.ok("POST", path, {"metadata": {"name": "p"}, "spec": {"minAvailable": 1}})
        reply = await api.patch(f"{path}/p/status", {"status": {"conditions": conditions}}, "application/merge-patch+json")
        assert (reply.status, reply.body["message"]) == (422, f'PodDisruptionBudget.policy "p" is invalid: {message}')
        assert await api.ok("GET", f"{path}/p") == stored
        ok = [{"type": "Ready", "status": "True", "lastTransitionTime": T0, "reason": "R1,2:_"}]
        await api.ok("PATCH", f"{path}/p/status", {"status": {"conditions": ok}}, "application/merge-patch+json")

    serve(scenario)


def test_device_taint_rule_status_conditions_are_validated() -> None:
    """``ValidateDeviceTaintRuleStatusUpdate``: ``ValidateConditions`` (as a budget's, above) and
    at most eight (kube-apiserver v1.37.2)."""
    async def scenario(api: Api) -> None:
        stored = await api.ok("POST", DTR, {"metadata": {"name": "d"}, "spec": {"taint": {"key": "k", "effect": "None"}}})
        many = [{"type": f"A{i}", "status": "True", "lastTransitionTime": T0, "reason": "R"} for i in range(9)]
        reply = await api.patch(f"{DTR}/d/status", {"status": {"conditions": many}}, "application/merge-patch+json")
        assert (reply.status, reply.body["message"]) == (
            422, 'DeviceTaintRule.resource.k8s.io "d" is invalid: status.conditions: Too many: 9: must have at most 8 items')
        reply = await api.patch(f"{DTR}/d/status", {"status": {"conditions": [{"type": "x y", "status": "Maybe"}]}},
                                "application/merge-patch+json")
        assert (reply.status, reply.body["message"]) == (
            422, f'DeviceTaintRule.resource.k8s.io "d" is invalid: [status.conditions[0].type: Invalid value: "x y": '
                 f'{NAME_PART}, status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", '
                 '"True", "Unknown", status.conditions[0].lastTransitionTime: Required value, '
                 'status.conditions[0].reason: Required value]')
        assert await api.ok("GET", f"{DTR}/d") == stored
        await api.ok("PATCH", f"{DTR}/d/status", {"status": {"conditions": many[:8]}}, "application/merge-patch+json")

    serve(scenario)
