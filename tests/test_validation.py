"""Object validation and admission: exact field errors, Invalid messages and Status causes."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from fake_apiserver._registry.core.pod.template import default_pod_template
from fake_apiserver._registry.resource.claimspec import default_device_requests, validate_claim_spec, validate_claim_update
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid, StatusError
from fake_apiserver._registry.kinds import by_kind, declaration
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from fake_apiserver._registry.core.pod.binding import check_binding, validate_binding
from fake_apiserver._registry.meta import check, reconcile_namespace, validate_object_meta
from fake_apiserver._registry.core.node import admit_node_create
from fake_apiserver._registry.core.pod.validation import (
    POD_UPDATE_FORBIDDEN_PREFIX,
    validate_pod_create,
    validate_pod_status_update,
    validate_pod_update,
)


def kind(group: str, name: str) -> KindSpec:
    spec = by_kind(group, name)
    assert spec is not None
    return spec


PODS = kind("", "Pod")
NODES = kind("", "Node")
NAMESPACES = kind("", "Namespace")
SERVICES = kind("", "Service")
CONFIGMAPS = kind("", "ConfigMap")

# The name-check messages, exact and pinned in test_names.py; here only their use is checked.
NAME_RULE = is_qualified_name("bad name")[0]
SUBDOMAIN_RULE = is_dns1123_subdomain("A")[0]
LABEL_RULE = is_dns1123_label("A")[0]
VALUE_RULE = is_label_value("-x")[0]


def exact(text: str) -> str:
    return "^" + re.escape(text) + "$"


def rendered(errors: list[FieldError]) -> list[str]:
    return [e.render() for e in errors]


def make_pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body}


def changed(pod: dict[str, Any], **spec: Any) -> dict[str, Any]:
    new = copy.deepcopy(pod)
    for key, value in spec.items():
        if value is None:
            new["spec"].pop(key, None)
        else:
            new["spec"][key] = value
    return new


def test_a_bad_generate_name_is_refused_on_update_only_for_the_kinds_that_check_it() -> None:
    """kube-apiserver checks generateName on update for a ConfigMap or a Node, not for a
    PodDisruptionBudget (``ValidateObjectMetaUpdate`` through each kind's own strategy)."""
    old = {"metadata": {"name": "n", "uid": "u", "generateName": "n-"}}
    new = copy.deepcopy(old)
    new["metadata"]["generateName"] = "x%y-"
    assert rendered(validate_object_meta(NODES, new, create=False, old=old)) == [
        f'metadata.generateName: Invalid value: "x%y-": {SUBDOMAIN_RULE}']
    pdb = by_kind("policy", "PodDisruptionBudget")
    assert pdb is not None
    new["metadata"]["namespace"] = old["metadata"]["namespace"] = "d"
    assert validate_object_meta(pdb, new, create=False, old=old) == []


def test_check_lists_a_repeated_error_once() -> None:
    """``ErrorList.ToAggregate`` drops an error whose text repeats, keeping the first."""
    twice = [FieldError.required("metadata.name"), FieldError.required("metadata.namespace"),
             FieldError.required("metadata.name")]
    with pytest.raises(Invalid) as raised:
        check(CONFIGMAPS, "cm", twice)
    assert raised.value.message == ('ConfigMap "cm" is invalid: [metadata.name: Required value, '
                                    "metadata.namespace: Required value]")


# --- object metadata -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "meta", "expected"),
    [
        (CONFIGMAPS, {"namespace": "default"}, ["metadata.name: Required value: name or generateName is required"]),
        (CONFIGMAPS, {"generateName": "cm-", "namespace": "default"}, []),
        (CONFIGMAPS, {"generateName": "CM-", "namespace": "default"},
         [f'metadata.generateName: Invalid value: "CM-": {SUBDOMAIN_RULE}']),
        (CONFIGMAPS, {"name": "My_cm", "namespace": "default"},
         [f'metadata.name: Invalid value: "My_cm": {SUBDOMAIN_RULE}']),
        (CONFIGMAPS, {"name": "cm"}, ["metadata.namespace: Required value"]),
        (CONFIGMAPS, {"name": "cm", "namespace": "a.b"},
         ['metadata.namespace: Invalid value: "a.b": must not contain dots']),
        (NODES, {"name": "node-1.example.com"}, []),
        (NODES, {"name": "n", "namespace": "default"}, ["metadata.namespace: Forbidden: not allowed on this type"]),
        (NAMESPACES, {"name": "a.b"}, ['metadata.name: Invalid value: "a.b": must not contain dots']),
        # kube-apiserver v1.36 (RelaxedServiceNameValidation): a Service name is a DNS-1123 label
        (SERVICES, {"name": "1svc", "namespace": "default"}, []),
        (SERVICES, {"name": "-a", "namespace": "default"},
         ['metadata.name: Invalid value: "-a": a lowercase RFC 1123 label must consist of lower case alphanumeric '
          "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
          "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
        (NODES, {"name": "n", "labels": {"bad key": "ok", "k": "bad value!"}},
         [f'metadata.labels: Invalid value: "bad key": {NAME_RULE}',
          f'metadata.labels: Invalid value: "bad value!": {VALUE_RULE}']),
        (NODES, {"name": "n", "annotations": {"Example.COM/Key": "x", "bad key": "y"}},
         [f'metadata.annotations: Invalid value: "bad key": {NAME_RULE}']),
        (NODES, {"name": "n", "annotations": {"k": "v" * (256 * 1024)}},
         ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
        (NODES, {"name": "n", "generation": -1},
         ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]),
        (NODES, {"name": "n", "finalizers": ["example.com/f", "kubernetes", "custom"]},
         ['metadata.finalizers[2]: Invalid value: "custom": name is neither a standard finalizer name nor is it '
          "fully qualified"]),
        (NODES, {"name": "n", "finalizers": ["orphan", "foregroundDeletion"]},
         ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and '
          "foregroundDeletion cannot be both set"]),
        (NODES, {"name": "n", "ownerReferences": [{"apiVersion": "apps/", "kind": "ReplicaSet", "name": "r"}]},
         ['metadata.ownerReferences[0].apiVersion: Invalid value: "apps/": must be <group>/<version> or <version>',
          "metadata.ownerReferences[0].uid: Required value: must not be empty"]),
    ],
)
def test_validate_object_meta_on_create(spec: KindSpec, meta: dict[str, Any], expected: list[str]) -> None:
    assert rendered(validate_object_meta(spec, {"metadata": meta}, create=True)) == expected


def test_validate_object_meta_on_update_checks_identity_against_old() -> None:
    old = {"metadata": {"name": "n", "uid": "u1", "generation": 3, "creationTimestamp": "2024-01-01T00:00:00Z"}}
    new = {"metadata": {"name": "m", "uid": "u2", "generation": 2, "creationTimestamp": "2024-01-01T00:00:00Z"}}
    assert rendered(validate_object_meta(NODES, new, create=False, old=old)) == [
        "metadata.generation: Invalid value: 2: must not be decremented",
        'metadata.name: Invalid value: "m": field is immutable',
        'metadata.uid: Invalid value: "u2": field is immutable',
    ]
    assert validate_object_meta(NODES, old, create=False) == []


def test_no_new_finalizers_while_deleting() -> None:
    old = {"metadata": {"name": "n", "deletionTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["a.io/x"]}}
    new = copy.deepcopy(old)
    new["metadata"]["finalizers"] = ["a.io/x", "b.io/y", "a.io/z"]
    assert rendered(validate_object_meta(NODES, new, create=False, old=old)) == [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, '
        'found new finalizers []string{"a.io/z", "b.io/y"}',
    ]


def test_reconcile_namespace() -> None:
    obj: dict[str, Any] = {"metadata": {"name": "cm"}}
    reconcile_namespace(CONFIGMAPS, obj, "team-a")
    assert obj["metadata"]["namespace"] == "team-a"
    node: dict[str, Any] = {"metadata": {"name": "n", "namespace": "team-a"}}
    reconcile_namespace(NODES, node, "")
    assert node == {"metadata": {"name": "n"}}
    with pytest.raises(BadRequest, match=exact(
            "the namespace of the provided object does not match the namespace sent on the request")):
        reconcile_namespace(CONFIGMAPS, {"metadata": {"name": "cm", "namespace": "b"}}, "team-a")


def test_check_raises_nothing_without_errors() -> None:
    check(PODS, "p", [])


# --- pod create ----------------------------------------------------------------------------------


def test_gated_pod_is_valid() -> None:
    pod = make_pod(schedulingGates=[{"name": "example.com/a"}, {"name": "b"}])
    assert validate_object_meta(PODS, pod, create=True) + validate_pod_create(pod) == []


def test_bad_scheduling_gates_on_create() -> None:
    gates = [{"name": "example.com/a"}, {"name": "bad gate"}, {"name": "example.com/a"}]
    pod = make_pod(nodeName="n1", schedulingGates=gates)
    errors = validate_pod_create(pod)
    message = (
        'Pod "p" is invalid: ['
        f'spec.schedulingGates[1]: Invalid value: "bad gate": {NAME_RULE}, '
        'spec.schedulingGates[2]: Duplicate value: "example.com/a", '
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared]"
    )
    with pytest.raises(Invalid, match=exact(message)) as caught:
        check(PODS, "p", errors)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Invalid",
        "details": {
            "name": "p",
            "kind": "Pod",
            "causes": [
                {"reason": "FieldValueInvalid", "message": f'Invalid value: "bad gate": {NAME_RULE}',
                 "field": "spec.schedulingGates[1]"},
                {"reason": "FieldValueDuplicate", "message": 'Duplicate value: "example.com/a"',
                 "field": "spec.schedulingGates[2]"},
                {"reason": "FieldValueForbidden",
                 "message": "Forbidden: cannot be set until all schedulingGates have been cleared",
                 "field": "spec.nodeName"},
            ],
        },
        "code": 422,
    }


def test_node_name_alone_is_fine_on_create() -> None:
    assert validate_pod_create(make_pod(nodeName="n1")) == []


def test_containers_are_required() -> None:
    with pytest.raises(Invalid, match=exact('Pod "p" is invalid: spec.containers: Required value')):
        check(PODS, "p", validate_pod_create(make_pod(containers=[])))


def test_container_names_and_images() -> None:
    pod = make_pod(
        containers=[
            {"name": "a", "image": "i"}, {"name": "", "image": "i"}, {"name": "a"}, {"name": "B_", "image": " i"},
        ],
        initContainers=[{"name": "a", "image": "i"}],
    )
    assert rendered(validate_pod_create(pod)) == [
        "spec.containers[1].name: Required value",
        "spec.containers[2].image: Required value",
        'spec.containers[2].name: Duplicate value: "a"',
        f'spec.containers[3].name: Invalid value: "B_": {LABEL_RULE}',
        'spec.initContainers[0].name: Duplicate value: "a"',
        'spec.containers[3].image: Invalid value: " i": must not have leading or trailing whitespace',
    ]


def test_empty_container_names_collide_like_go() -> None:
    pod = make_pod(containers=[{"name": "", "image": "i"}, {"name": "", "image": "i"}],
                   initContainers=[{"name": "", "image": "i"}])
    assert rendered(validate_pod_create(pod)) == [
        "spec.containers[0].name: Required value",
        "spec.containers[1].name: Required value",
        'spec.containers[1].name: Duplicate value: ""',
        "spec.initContainers[0].name: Required value",
        'spec.initContainers[0].name: Duplicate value: ""',
    ]


def test_other_create_rules() -> None:
    pod = make_pod(
        nodeName="Node_1",
        nodeSelector={"disk": "ssd!"},
        activeDeadlineSeconds=0,
        ephemeralContainers=[{"name": "dbg", "image": "busybox"}],
        tolerations=[
            {"operator": "Equal", "value": "x"},
            {"key": "k", "operator": "Exists", "value": "v"},
            {"key": "k", "operator": "Gt"},
            {"key": "k", "effect": "NoSchedule", "tolerationSeconds": 5},
            {"key": "k", "effect": "Sometimes"},
        ],
    )
    assert rendered(validate_pod_create(pod)) == [
        f'spec.nodeSelector: Invalid value: "ssd!": {VALUE_RULE}',
        f'spec.nodeName: Invalid value: "Node_1": {SUBDOMAIN_RULE}',
        "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive",
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, '
        'which means "match all values and all keys"',
        "spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
        'spec.tolerations[2].operator: Unsupported value: "Gt": supported values: "Equal", "Exists"',
        "spec.tolerations[3].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set",
        'spec.tolerations[4].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"',
        "spec.ephemeralContainers: Forbidden: cannot be set on create",
    ]


# --- pod update ----------------------------------------------------------------------------------

GATED = make_pod(schedulingGates=[{"name": "a"}, {"name": "b"}])


def test_adding_a_scheduling_gate_is_forbidden() -> None:
    new = changed(GATED, schedulingGates=[{"name": "b"}, {"name": "x"}])
    message = ('Pod "p" is invalid: spec.schedulingGates[1].name: Forbidden: '
               "only deletion is allowed, but found new scheduling gate 'x'")
    with pytest.raises(Invalid, match=exact(message)) as caught:
        check(PODS, "p", validate_pod_update(GATED, new))
    assert caught.value.to_status()["details"]["causes"] == [{
        "reason": "FieldValueForbidden",
        "message": "Forbidden: only deletion is allowed, but found new scheduling gate 'x'",
        "field": "spec.schedulingGates[1].name",
    }]


def test_gate_additions_are_reported_by_index() -> None:
    new = changed(GATED, schedulingGates=[{"name": "y"}, {"name": "a"}, {"name": "x"}, {"name": "y"}])
    assert rendered(validate_pod_update(GATED, new)) == [
        'spec.schedulingGates[3]: Duplicate value: "y"',
        "spec.schedulingGates[2].name: Forbidden: only deletion is allowed, but found new scheduling gate 'x'",
        "spec.schedulingGates[3].name: Forbidden: only deletion is allowed, but found new scheduling gate 'y'",
    ]


@pytest.mark.parametrize(
    "gates", [[{"name": "b"}, {"name": "a"}], [{"name": "b"}], [], None],
    ids=["reorder", "remove-one", "remove-all-empty", "remove-all-absent"],
)
def test_gates_may_be_removed_and_reordered(gates: Any) -> None:
    assert validate_pod_update(GATED, changed(GATED, schedulingGates=gates)) == []


def test_spec_is_otherwise_immutable() -> None:
    old = make_pod()
    with pytest.raises(Invalid) as caught:
        check(PODS, "p", validate_pod_update(old, changed(old, nodeName="n1")))
    message = caught.value.message
    assert message.startswith('Pod "p" is invalid: spec: Forbidden: ' + POD_UPDATE_FORBIDDEN_PREFIX)
    assert POD_UPDATE_FORBIDDEN_PREFIX == (
        "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,"
        "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"
    )
    assert message == (
        'Pod "p" is invalid: spec: Forbidden: ' + POD_UPDATE_FORBIDDEN_PREFIX
        + '  core.PodSpec{\n- \tnodeName: null,\n+ \tnodeName: "n1",\n  }\n'
    )
    [cause] = caught.value.to_status()["details"]["causes"]
    assert (cause["reason"], cause["field"]) == ("FieldValueForbidden", "spec")


def test_zero_values_equal_absent_fields() -> None:
    old = make_pod()
    assert validate_pod_update(old, changed(old, hostNetwork=False, nodeSelector={}, tolerations=[])) == []


def test_mutable_fields_may_change() -> None:
    old = make_pod(activeDeadlineSeconds=100, terminationGracePeriodSeconds=-1,
                   initContainers=[{"name": "i", "image": "init:1"}])
    new = changed(old, containers=[{"name": "c", "image": "busybox:2"}],
                  initContainers=[{"name": "i", "image": "init:2"}],
                  activeDeadlineSeconds=50, terminationGracePeriodSeconds=1)
    assert validate_pod_update(old, new) == []


@pytest.mark.parametrize(
    ("old_value", "new_value", "expected"),
    [
        (None, 10, []),
        (10, 20, ["spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value"]),
        (10, None,
         ["spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"]),
        (10, -1, ["spec.activeDeadlineSeconds: Invalid value: -1: must be between 1 and 2147483647, inclusive",
                  "spec.activeDeadlineSeconds: Invalid value: -1: must be between 0 and 2147483647, inclusive"]),
    ],
)
def test_active_deadline_seconds_updates(old_value: Any, new_value: Any, expected: list[str]) -> None:
    old = make_pod(activeDeadlineSeconds=old_value) if old_value is not None else make_pod()
    assert rendered(validate_pod_update(old, changed(old, activeDeadlineSeconds=new_value))) == expected


def test_containers_may_not_be_added() -> None:
    old = make_pod()
    new = changed(old, containers=[{"name": "c", "image": "busybox"}, {"name": "d", "image": "busybox"}])
    message = 'Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers'
    with pytest.raises(Invalid, match=exact(message)):
        check(PODS, "p", validate_pod_update(old, new))


def test_tolerations_may_only_be_added() -> None:
    old = make_pod(tolerations=[{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}])
    added = changed(old, tolerations=[
        {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10},
        {"key": "gpu", "operator": "Exists"},
    ])
    assert validate_pod_update(old, added) == []
    modified = changed(old, tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule"}])
    with pytest.raises(Invalid, match=exact(
            'Pod "p" is invalid: spec.tolerations: Forbidden: '
            "existing toleration can not be modified except its tolerationSeconds")):
        check(PODS, "p", validate_pod_update(old, modified))


def test_gated_pod_may_add_node_selector_entries() -> None:
    old = changed(GATED, nodeSelector={"zone": "a"})
    assert validate_pod_update(old, changed(old, nodeSelector={"zone": "a", "disk": "ssd"})) == []


@pytest.mark.parametrize(
    ("selector", "shown"),
    [({"zone": "b", "disk": "ssd"}, '{"disk":"ssd","zone":"b"}'), ({"disk": "ssd"}, '{"disk":"ssd"}'), (None, "null")],
    ids=["mutate", "delete", "drop-all"],
)
def test_gated_pod_may_not_change_node_selector_entries(selector: Any, shown: str) -> None:
    old = changed(GATED, nodeSelector={"zone": "a"})
    message = (f'Pod "p" is invalid: spec.nodeSelector: Invalid value: {shown}: '
               "only additions to spec.nodeSelector are allowed (no mutations or deletions)")
    with pytest.raises(Invalid, match=exact(message)):
        check(PODS, "p", validate_pod_update(old, changed(old, nodeSelector=selector)))


def test_ungated_pod_may_not_add_node_selector_entries() -> None:
    old = make_pod()
    errors = validate_pod_update(old, changed(old, nodeSelector={"disk": "ssd"}))
    assert [e.field for e in errors] == ["spec"]
    assert errors[0].detail.startswith(POD_UPDATE_FORBIDDEN_PREFIX)


def required_terms(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


ZONE_A = {"key": "zone", "operator": "In", "values": ["a"]}
DISK = {"key": "disk", "operator": "Exists"}
NAME_IS_N = {"key": "metadata.name", "operator": "In", "values": ["n"]}
TERMS = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"


@pytest.mark.parametrize(
    ("old_affinity", "new_affinity"),
    [
        (None, required_terms({"matchExpressions": [ZONE_A]})),
        (required_terms(), required_terms({"matchExpressions": [ZONE_A]})),
        (required_terms({"matchExpressions": [ZONE_A]}), required_terms({"matchExpressions": [ZONE_A, DISK]})),
        (required_terms({"matchExpressions": [ZONE_A]}),
         required_terms({"matchExpressions": [ZONE_A], "matchFields": [NAME_IS_N]})),
        (required_terms({"matchExpressions": [ZONE_A]}),
         {"nodeAffinity": {
             **required_terms({"matchExpressions": [ZONE_A]})["nodeAffinity"],
             "preferredDuringSchedulingIgnoredDuringExecution": [
                 {"weight": 1, "preference": {"matchExpressions": [DISK]}},
             ],
         }}),
    ],
    ids=["from-nil", "from-no-terms", "add-expression", "add-field", "preferred-is-free"],
)
def test_gated_pod_may_extend_node_affinity(old_affinity: Any, new_affinity: Any) -> None:
    old = changed(GATED, affinity=old_affinity)
    assert validate_pod_update(old, changed(old, affinity=new_affinity)) == []


def test_gated_pod_may_not_add_or_remove_terms() -> None:
    old = changed(GATED, affinity=required_terms({"matchExpressions": [ZONE_A]}))
    new = changed(old, affinity=required_terms({"matchExpressions": [ZONE_A]}, {"matchExpressions": [DISK]}))
    message = (
        f'Pod "p" is invalid: {TERMS}: Invalid value: '
        '[{"MatchExpressions":[{"Key":"zone","Operator":"In","Values":["a"]}],"MatchFields":null},'
        '{"MatchExpressions":[{"Key":"disk","Operator":"Exists","Values":null}],"MatchFields":null}]: '
        "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
    )
    with pytest.raises(Invalid, match=exact(message)):
        check(PODS, "p", validate_pod_update(old, new))
    dropped = changed(old, affinity=None)
    assert rendered(validate_pod_update(old, dropped)) == [
        f"{TERMS}: Invalid value: null: no additions/deletions to non-empty NodeSelectorTerms list are allowed"
    ]


def test_gated_pod_may_not_mutate_a_term() -> None:
    old = changed(GATED, affinity=required_terms({"matchExpressions": [ZONE_A, DISK]}))
    zone_b = {"key": "zone", "operator": "In", "values": ["b"]}
    new = changed(old, affinity=required_terms({"matchExpressions": [zone_b]}))
    assert rendered(validate_pod_update(old, new)) == [
        f'{TERMS}[0]: Invalid value: {{"MatchExpressions":[{{"Key":"zone","Operator":"In","Values":["b"]}}],'
        '"MatchFields":null}: only additions are allowed (no mutations or deletions)'
    ]


def test_pod_affinity_stays_immutable_on_gated_pods() -> None:
    old = GATED
    pod_affinity = {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}]}
    new = changed(old, affinity={"podAffinity": pod_affinity})
    assert [e.field for e in validate_pod_update(old, new)] == ["spec"]


# --- pod status update ---------------------------------------------------------------------------


def with_status(pod: dict[str, Any], **status: Any) -> dict[str, Any]:
    new = copy.deepcopy(pod)
    new.setdefault("status", {}).update(status)
    return new


def test_status_update_rules() -> None:
    old = with_status(make_pod(resourceClaims=[{"name": "gpu"}]), qosClass="BestEffort")
    new = with_status(
        changed(old, nodeName="n1"),
        qosClass="Burstable",
        nominatedNodeName="Bad_Node",
        conditions=[
            {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"},
            {"type": "Ready", "status": "False"},
            {"type": "Initialized", "status": "True"},
            {"type": "ContainersReady", "status": "False"},
            {"type": "example.com/Custom", "status": "True"},
            {"type": "not valid", "status": "True"},
        ],
        resourceClaimStatuses=[
            {"name": "gpu", "resourceClaimName": "p-gpu"},
            {"name": "nic"},
            {"name": "gpu", "resourceClaimName": "Bad"},
        ],
    )
    assert rendered(validate_pod_status_update(old, new)) == [
        f'metadata.conditions[5].Type: Invalid value: "not valid": {NAME_RULE}',
        "status.nodeName: Forbidden: may not be changed directly",
        f'status.nominatedNodeName: Invalid value: "Bad_Node": {SUBDOMAIN_RULE}',
        'status.qosClass: Invalid value: "Burstable": field is immutable',
        'status.resourceClaimStatuses[1].name: Invalid value: "nic": must match the name of an entry in '
        "`spec.resourceClaims`",
        'status.resourceClaimStatuses[2].name: Duplicate value: "gpu"',
        f'status.resourceClaimStatuses[2].name: Invalid value: "Bad": {SUBDOMAIN_RULE}',
    ]


def test_scheduler_status_patch_is_valid() -> None:
    old = with_status(make_pod(), phase="Pending", qosClass="BestEffort")
    new = with_status(old, nominatedNodeName="node-1", conditions=[
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available"},
    ])
    assert validate_pod_status_update(old, new) == []


def test_status_node_name_message() -> None:
    old = make_pod()
    message = 'Pod "p" is invalid: status.nodeName: Forbidden: may not be changed directly'
    with pytest.raises(Invalid, match=exact(message)):
        check(PODS, "p", validate_pod_status_update(old, changed(old, nodeName="n1")))


# --- binding -------------------------------------------------------------------------------------


def test_valid_binding() -> None:
    assert validate_binding({"metadata": {"name": "p"}, "target": {"kind": "Node", "name": "n1"}}) == []
    assert validate_binding({"metadata": {"name": "p"}, "target": {"name": "n1"}}) == []


def test_invalid_binding() -> None:
    errors = validate_binding({"metadata": {"name": "p"}, "target": {"kind": "Pod"}})
    assert rendered(errors) == [
        'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
        "target.name: Required value",
    ]
    with pytest.raises(StatusError, match=exact(
            '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]'
    )) as caught:
        check_binding(errors)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", '
                   "target.name: Required value]",
        "code": 500,
    }


def test_binding_without_target_name() -> None:
    with pytest.raises(StatusError, match=exact("target.name: Required value")) as caught:
        check_binding(validate_binding({"metadata": {"name": "p"}, "target": {"kind": "Node"}}))
    assert caught.value.code == 500
    check_binding([])


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


# --- resource claims -------------------------------------------------------------------------------

CLAIM_SPEC: dict[str, Any] = {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "dc"}}]}}


def _set(obj: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    if isinstance(obj, list):
        obj[int(parts[-1])] = value
    else:
        obj[parts[-1]] = value


# Each message captured from kube-apiserver v1.36: a claim with the minimal valid spec above, the
# field at the dotted path set as given, POSTed (the text after 'ResourceClaim... "x" is invalid: ').
@pytest.mark.parametrize(("dotted", "value", "message"), [
    ('spec.devices.requests.0', {'name': 'r'},
     'spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required'),
    ('spec.devices.requests.0', {'name': 'r', 'exactly': {'deviceClassName': 'dc'}, 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc'}]},
     'spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'),
    ('spec.devices.requests.0.name', 'Bad_Name',
     'spec.devices.requests[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'),
    ('spec.devices.requests.0.exactly', {},
     'spec.devices.requests[0].exactly.deviceClassName: Required value'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'Bad_Class'},
     'spec.devices.requests[0].exactly.deviceClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'allocationMode': 'Bogus'},
     'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Bogus": supported values: "All", "ExactCount"'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'count': -1},
     'spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'allocationMode': 'All', 'count': 2},
     "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{}]},
     'spec.devices.requests[0].exactly.selectors[0].cel: Required value'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': ''}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "": compilation failed: ERROR: <input>:1:0: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'bad('}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "bad(": compilation failed: ERROR: <input>:1:5: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \')\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | bad(\n | ....^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'a &&& b'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "a &&& b": compilation failed: ERROR: <input>:1:5: Syntax error: token recognition error at: \'& \'\n | a &&& b\n | ....^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': '"unterminated'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "\\"unterminated": compilation failed: ERROR: <input>:1:1: Syntax error: token recognition error at: \'"unterminated\'\n | "unterminated\n | ^\nERROR: <input>:1:14: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | "unterminated\n | .............^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'a in [1,2'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "a in [1,2": compilation failed: ERROR: <input>:1:10: Syntax error: mismatched input \'<EOF>\' expecting {\']\', \',\'}\n | a in [1,2\n | .........^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': '1 ? 2'}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "1 ? 2": compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input \'<EOF>\' expecting \':\'\n | 1 ? 2\n | .....^'),
    ('spec.devices.requests.0.exactly', {'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': '  '}}]},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "  ": compilation failed: ERROR: <input>:1:3: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   \n | ..^'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc', 'selectors': [{'cel': {'expression': 'x.y.z('}}]}]},
     'spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression: Invalid value: "x.y.z(": compilation failed: ERROR: <input>:1:7: Syntax error: mismatched input \'<EOF>\' expecting {\'[\', \'{\', \'(\', \')\', \'.\', \'-\', \'!\', \'true\', \'false\', \'null\', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | x.y.z(\n | ......^'),
    ('spec.devices.requests', [{'name': 'r', 'exactly': {'deviceClassName': 'dc'}}, {'name': 'r', 'exactly': {'deviceClassName': 'dc'}}],
     'spec.devices.requests[1]: Duplicate value: "r"'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': []},
     'spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's'}]},
     'spec.devices.requests[0].firstAvailable[0].deviceClassName: Required value'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc'}, {'name': 's', 'deviceClassName': 'dc'}]},
     'spec.devices.requests[0].firstAvailable[1]: Duplicate value: "s"'),
    ('spec.devices.requests.0', {'name': 'r', 'firstAvailable': [{'name': 's', 'deviceClassName': 'dc', 'allocationMode': 'Bogus'}]},
     'spec.devices.requests[0].firstAvailable[0].allocationMode: Unsupported value: "Bogus": supported values: "All", "ExactCount"'),
    ('spec.devices.constraints', [{'requests': ['nope'], 'matchAttribute': 'a.b/c'}],
     'spec.devices.constraints[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\''),
    ('spec.devices.constraints', [{'requests': ['r']}],
     'spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'),
    ('spec.devices.constraints', [{'requests': ['r'], 'matchAttribute': 'bad attr'}],
     '[spec.devices.constraints[0].matchAttribute: Invalid value: "bad attr": a valid C identifier must start with alphabetic character or \'_\', followed by a string of alphanumeric characters or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\', regex used for validation is \'[A-Za-z_][A-Za-z0-9_]*\'), spec.devices.constraints[0].matchAttribute: Invalid value: "bad attr": a fully qualified name must be a domain and a name separated by a slash]'),
    ('spec.devices.config', [{'requests': ['nope'], 'opaque': {'driver': 'd', 'parameters': {}}}],
     'spec.devices.config[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\''),
    ('spec.devices.config', [{}],
     'spec.devices.config[0].opaque: Required value'),
    ('spec.devices.config', [{'opaque': {'driver': '', 'parameters': {}}}],
     'spec.devices.config[0].opaque.driver: Required value'),
    ('spec.devices.config', [{'opaque': {'driver': 'd.example.com'}}],
     'spec.devices.config[0].opaque.parameters: Required value'),
])
def test_resource_claim_spec_validation(dotted: str, value: Any, message: str) -> None:
    claim: dict[str, Any] = {"spec": copy.deepcopy(CLAIM_SPEC)}
    _set(claim, dotted, copy.deepcopy(value))
    default_device_requests(claim["spec"])
    errors = validate_claim_spec(claim["spec"])
    assert Invalid.of("ResourceClaim", "resource.k8s.io", "c", errors).message == (
        f'ResourceClaim.resource.k8s.io "c" is invalid: {message}')


@pytest.mark.parametrize(("dotted", "value"), [
    # each created (201) by kube-apiserver v1.36
    ("spec.devices.requests", []), ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "count": 0}),
    ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "allocationMode": "All"}),
    ("spec.devices.constraints", [{"matchAttribute": "a.b/c"}]),
    ("spec.devices.config", [{"opaque": {"driver": "d", "parameters": {}}}]), ("spec", {}),
    # selectors that parse; the real server type-checks them too, and took each
    ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "selectors": [{"cel": {"expression": 'device.driver == "x"'}}]}),
    ("spec.devices.requests.0.exactly", {"deviceClassName": "dc", "selectors": [
        {"cel": {"expression": 'device.capacity["x"].memory.compareTo(quantity("1Gi")) >= 0'}}]}),
])
def test_resource_claim_specs_the_real_server_takes(dotted: str, value: Any) -> None:
    claim: dict[str, Any] = {"spec": copy.deepcopy(CLAIM_SPEC)}
    _set(claim, dotted, copy.deepcopy(value))
    default_device_requests(claim["spec"])
    assert validate_claim_spec(claim["spec"]) == []


def test_a_claim_spec_is_immutable() -> None:
    old: dict[str, Any] = copy.deepcopy(CLAIM_SPEC)
    new = {"devices": {
        "requests": [{"name": "r2", "firstAvailable": [{"name": "s", "deviceClassName": "dc",
                                                         "selectors": [{"cel": {"expression": "true"}}]}]}],
        "constraints": [{"requests": ["r2"], "matchAttribute": "a.b/c"}],
        "config": [{"opaque": {"driver": "d.example.com", "parameters": {"a": 1}}}]}}
    for spec in (old, new):
        default_device_requests(spec)
    assert validate_claim_update(old, copy.deepcopy(old), semantic) == []
    errors = validate_claim_update(new, old, semantic)
    # captured from kube-apiserver v1.36 (PUT of a claim created with the old spec): the new spec as
    # Go's json.Marshal writes the internal type
    assert Invalid.of("ResourceClaim", "resource.k8s.io", "imm", errors).message == (
        'ResourceClaim.resource.k8s.io "imm" is invalid: spec: Invalid value: {"Devices":{"Requests":[{"Name":"r2",'
        '"Exactly":null,"FirstAvailable":[{"Name":"s","DeviceClassName":"dc","Selectors":[{"CEL":{"Expression":'
        '"true"}}],"AllocationMode":"ExactCount","Count":1,"Tolerations":null,"Capacity":null}]}],"Constraints":'
        '[{"Requests":["r2"],"MatchAttribute":"a.b/c","DistinctAttribute":null}],"Config":[{"Requests":null,'
        '"Opaque":{"Driver":"d.example.com","Parameters":{"a":1}}}]}}: field is immutable')


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


def test_event_and_pdb_names_follow_the_path_segment_rule() -> None:
    # kube-apiserver v1.36 creates a PDB named "a-" or "UPPER" but refuses ".." and a generateName
    # with a '%' ('PodDisruptionBudget.policy ".." is invalid: metadata.name: Invalid value: "..":
    # may not be '..'')
    pdb = by_kind("policy", "PodDisruptionBudget")
    assert pdb is not None
    for name in ("a-", "UPPER", "a_b"):
        assert validate_object_meta(pdb, {"metadata": {"name": name, "namespace": "d"}}, create=True) == []
    errors = validate_object_meta(pdb, {"metadata": {"name": "..", "namespace": "d"}}, create=True)
    assert [e.render() for e in errors] == ["metadata.name: Invalid value: \"..\": may not be '..'"]
    errors = validate_object_meta(pdb, {"metadata": {"generateName": "%2E", "namespace": "d"}}, create=True)
    assert [e.render() for e in errors] == ["metadata.generateName: Invalid value: \"%2E\": may not contain '%'"]


@pytest.mark.parametrize(("spec", "message"), [
    # captured from kube-apiserver v1.36 (a pod with one container and this field)
    ({"dnsPolicy": "Bogus"}, 'spec.dnsPolicy: Unsupported value: "Bogus": supported values: "ClusterFirstWithHostNet", '
                             '"ClusterFirst", "Default", "None"'),
    ({"hostname": "Bad_Host"}, 'spec.hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 label must consist of '
                               "lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
                               "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                               "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
])
def test_pod_dns_policy_and_hostname(spec: dict[str, Any], message: str) -> None:
    pod = {"metadata": {"name": "new"}, "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec}}
    assert Invalid.of("Pod", "", "new", validate_pod_create(pod)).message == f'Pod "new" is invalid: {message}'
