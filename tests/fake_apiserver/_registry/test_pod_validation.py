"""A pod's validation (``fake_apiserver._registry.core.pod``): a create's scheduling gates,
containers and other fields, an update's immutable spec and what a gated pod may still change (gates
removed, node selectors and affinity extended), status updates, and bindings. Exact field errors,
``Invalid`` messages and ``Status`` causes, as kube-apiserver gives them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fake_apiserver._machinery.errors import Invalid, StatusError
from fake_apiserver._registry.core.pod.binding import check_binding, validate_binding
from fake_apiserver._registry.core.pod.validation import (
    POD_UPDATE_FORBIDDEN_PREFIX,
    validate_pod_create,
    validate_pod_status_update,
    validate_pod_update,
)
from fake_apiserver._registry.meta import check, validate_object_meta
from tests.support.validation import LABEL_RULE, NAME_RULE, PODS, SUBDOMAIN_RULE, VALUE_RULE, exact, rendered


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
