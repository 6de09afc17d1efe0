"""Label and field selectors: parsing, matching and the real server's 400 messages."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._registry.kinds import by_kind
from fake_apiserver._machinery.selectors import (
    FieldSelector,
    FieldTerm,
    LabelSelector,
    Requirement,
    field_value,
    label_selector_from_dict,
)

PODS = by_kind("", "Pod")
NODES = by_kind("", "Node")
CONFIGMAPS = by_kind("", "ConfigMap")
PVS = by_kind("", "PersistentVolume")
EVENTS = by_kind("", "Event")
EVENTS_V1 = by_kind("events.k8s.io", "Event")
SLICES = by_kind("resource.k8s.io", "ResourceSlice")
REPLICASETS = by_kind("apps", "ReplicaSet")
CONTROLLERS = by_kind("", "ReplicationController")
assert None not in (PODS, NODES, CONFIGMAPS, PVS, EVENTS, EVENTS_V1, SLICES, REPLICASETS)

KEY_NAME_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def exact(text: str) -> str:
    return "^" + re.escape(text) + "$"


# --- label selectors: parsing --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "requirements", "canonical"),
    [
        ("app=web", [Requirement("app", "=", ("web",))], "app=web"),
        ("app==web", [Requirement("app", "==", ("web",))], "app==web"),
        ("app!=web", [Requirement("app", "!=", ("web",))], "app!=web"),
        ("tier in (b, a)", [Requirement("tier", "in", ("a", "b"))], "tier in (a,b)"),
        ("tier notin (a)", [Requirement("tier", "notin", ("a",))], "tier notin (a)"),
        ("gpu", [Requirement("gpu", "exists")], "gpu"),
        ("!gpu", [Requirement("gpu", "!")], "!gpu"),
        ("size>5", [Requirement("size", "gt", ("5",))], "size>5"),
        ("size<5", [Requirement("size", "lt", ("5",))], "size<5"),
        ("x=", [Requirement("x", "=", ("",))], "x="),
        ("x in ()", [Requirement("x", "in", ("",))], "x in ()"),
        ("x in (a,)", [Requirement("x", "in", ("", "a"))], "x in (,a)"),
        ("in in (in, notin)", [Requirement("in", "in", ("in", "notin"))], "in in (in,notin)"),
        (
            "z=1, example.com/a, !b",
            [Requirement("b", "!"), Requirement("example.com/a", "exists"), Requirement("z", "=", ("1",))],
            "!b,example.com/a,z=1",
        ),
    ],
)
def test_label_selector_parses_every_operator(text: str, requirements: list[Requirement], canonical: str) -> None:
    selector = LabelSelector.parse(text)
    assert list(selector.requirements) == requirements
    assert str(selector) == canonical
    assert not selector.empty


@pytest.mark.parametrize("text", ["", "   ", "\t"])
def test_blank_label_selector_is_empty_and_matches_everything(text: str) -> None:
    selector = LabelSelector.parse(text)
    assert selector.empty
    assert selector.matches({}) is True
    assert selector.matches(None) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"),
        ("x=b c", "found 'c', expected: ',' or 'end of string'"),
        (",", "found ',', expected: !, identifier, or 'end of string'"),
        ("a,", "found '', expected: identifier after ','"),
        ("!", "unable to parse requirement: found '', expected: identifier"),
        ("x in a", "unable to parse requirement: found 'a' expected: '('"),
        ("x in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
        ("x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"),
        ("x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
        ("x>=1", "unable to parse requirement: found '=', expected: identifier"),
        ("x>abc", "unable to parse requirement: values[0]: Invalid value: \"abc\": "
                  "for 'Gt', 'Lt' operators, the value must be an integer"),
        ("x>-5", f'unable to parse requirement: values[0][x]: Invalid value: "-5": {VALUE_RULE}'),
        ("x=a.", f'unable to parse requirement: values[0][x]: Invalid value: "a.": {VALUE_RULE}'),
        ("bad_=1", f'unable to parse requirement: <nil>: Invalid value: "bad_": {KEY_NAME_RULE}'),
        ("a/=b", 'unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; '
                 + KEY_NAME_RULE),
        ("Foo/bar/baz", 'unable to parse requirement: <nil>: Invalid value: "Foo/bar/baz": a valid label key '
                        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
                        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain "
                        "prefix and '/' (e.g. 'example.com/MyName')"),
    ],
)
def test_bad_label_selector_is_a_400_with_the_real_message(text: str, message: str) -> None:
    with pytest.raises(BadRequest, match=exact(message)) as caught:
        LabelSelector.parse(text)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "BadRequest",
        "code": 400,
    }


# --- label selectors: matching -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "labels", "expected"),
    [
        ("app=web", {"app": "web"}, True),
        ("app=web", {"app": "db"}, False),
        ("app=web", {}, False),
        ("app!=web", {}, True),  # a missing label is "not equal"
        ("app!=web", {"app": "web"}, False),
        ("app!=web", {"app": "db"}, True),
        ("tier in (a,b)", {"tier": "b"}, True),
        ("tier in (a,b)", {}, False),
        ("tier notin (a,b)", {}, True),
        ("tier notin (a,b)", {"tier": "a"}, False),
        ("x in ()", {"x": ""}, True),
        ("gpu", {"gpu": ""}, True),
        ("gpu", {}, False),
        ("!gpu", {}, True),
        ("!gpu", {"gpu": "1"}, False),
        ("size>5", {"size": "6"}, True),
        ("size>5", {"size": "5"}, False),
        ("size>5", {"size": "+7"}, True),
        ("size>5", {"size": "1_0"}, False),  # strconv.ParseInt refuses what Python's int() takes
        ("size>5", {"size": "big"}, False),
        ("size>5", {}, False),
        ("size<5", {"size": "-3"}, True),
        ("app=web,tier in (a)", {"app": "web", "tier": "a"}, True),
        ("app=web,tier in (a)", {"app": "web"}, False),
    ],
)
def test_label_selector_matches_as_kubernetes(text: str, labels: dict[str, str], expected: bool) -> None:
    assert LabelSelector.parse(text).matches(labels) is expected


# --- metav1.LabelSelector ------------------------------------------------------------------------


def test_null_label_selector_selects_nothing() -> None:
    selector = label_selector_from_dict(None)
    assert selector.empty is False
    assert selector.matches({}) is False
    assert selector.matches({"app": "web"}) is False


def test_empty_label_selector_selects_everything() -> None:
    selector = label_selector_from_dict({})
    assert selector.empty is True
    assert selector.matches({"anything": "x"}) is True


def test_label_selector_from_dict_ands_labels_and_expressions() -> None:
    selector = label_selector_from_dict({
        "matchLabels": {"app": "web"},
        "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["a", "b"]},
            {"key": "zone", "operator": "NotIn", "values": ["z1"]},
            {"key": "gpu", "operator": "Exists"},
            {"key": "spot", "operator": "DoesNotExist"},
        ],
    })
    assert str(selector) == "app=web,gpu,!spot,tier in (a,b),zone notin (z1)"
    assert selector.matches({"app": "web", "tier": "b", "gpu": "1"}) is True
    assert selector.matches({"app": "web", "tier": "b", "gpu": "1", "spot": "y"}) is False
    assert selector.matches({"app": "web", "tier": "b", "gpu": "1", "zone": "z1"}) is False


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]},
         '"Gt" is not a valid label selector operator'),
        ({"matchExpressions": [{"key": "a", "operator": "In"}]},
         "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"),
        ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
         'values: Invalid value: ["x"]: values set must be empty for exists and does not exist'),
        ({"matchLabels": {"a b": "c"}},
         f'key: Invalid value: "a b": {KEY_NAME_RULE}'),
        ({"matchLabels": {"a b": "c!"}},
         f'[key: Invalid value: "a b": {KEY_NAME_RULE}, values[0][a b]: Invalid value: "c!": {VALUE_RULE}]'),
    ],
)
def test_label_selector_from_dict_errors(selector: dict[str, Any], message: str) -> None:
    with pytest.raises(BadRequest, match=exact(message)):
        label_selector_from_dict(selector)


# --- field selectors ------------------------------------------------------------------------------


def pod(phase: str | None = None, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": "p", "namespace": "default"}, "spec": dict(spec)}
    if phase is not None:
        obj["status"] = {"phase": phase}
    return obj


def test_scheduler_pod_field_selector() -> None:
    selector = FieldSelector.parse("status.phase!=Succeeded,status.phase!=Failed", PODS)
    assert selector.terms == (
        FieldTerm("status.phase", "!=", "Failed"),
        FieldTerm("status.phase", "!=", "Succeeded"),
    )
    assert str(selector) == "status.phase!=Failed,status.phase!=Succeeded"
    assert selector.matches(pod("Pending")) is True
    assert selector.matches(pod("Running")) is True
    assert selector.matches(pod()) is True  # no status at all: phase is ""
    assert selector.matches(pod("Succeeded")) is False
    assert selector.matches(pod("Failed")) is False


def test_spec_host_is_an_alias_for_spec_node_name() -> None:
    selector = FieldSelector.parse("spec.host=n1", PODS)
    assert selector.terms == (FieldTerm("spec.nodeName", "=", "n1"),)
    assert selector.requires_exact_match("spec.nodeName") == "n1"
    assert selector.matches(pod(nodeName="n1")) is True
    assert selector.matches(pod(nodeName="n2")) is False
    assert selector.matches(pod()) is False


def test_unbound_pods_select_on_empty_node_name() -> None:
    selector = FieldSelector.parse("spec.nodeName=", PODS)
    assert selector.matches(pod()) is True
    assert selector.matches(pod(nodeName="n1")) is False
    assert selector.requires_exact_match("spec.nodeName") == ""
    assert FieldSelector.parse("spec.nodeName!=", PODS).requires_exact_match("spec.nodeName") is None


def test_double_equals_and_escaped_values() -> None:
    selector = FieldSelector.parse(r"metadata.name==a\,b\=c\\d", PODS)
    assert selector.terms == (FieldTerm("metadata.name", "=", "a,b=c\\d"),)
    assert str(selector) == r"metadata.name=a\,b\=c\\d"
    obj = pod()
    obj["metadata"]["name"] = "a,b=c\\d"
    assert selector.matches(obj) is True


@pytest.mark.parametrize("text", ["", ",", ",,"])
def test_blank_field_selector_is_empty(text: str) -> None:
    selector = FieldSelector.parse(text, PODS)
    assert selector.empty
    assert selector.matches(pod("Failed")) is True


@pytest.mark.parametrize(
    ("text", "spec", "message"),
    [
        ("status.phase", PODS, "invalid selector: 'status.phase'; can't understand 'status.phase'"),
        ("b=1,a", PODS, "invalid selector: 'b=1,a'; can't understand 'a'"),
        ("a=b=c", PODS, "invalid field selector: unescaped character in value: 61"),
        ("a=b,c", CONFIGMAPS, "invalid selector: 'a=b,c'; can't understand 'c'"),
        (r"a=b\q", PODS, r"invalid field selector: invalid escape sequence: \q"),
        ("a=b\\", PODS, "invalid field selector: invalid escape sequence: \\"),
        ("spec.containers=x", PODS, "field label not supported: spec.containers"),
        ("status.phase =Running", PODS, "field label not supported: status.phase "),
        ("metadata.namespace=x", NODES, "field label not supported: metadata.namespace"),
        ("status.phase=Running", NODES, "field label not supported: status.phase"),
        ("involvedObject.kind=Pod", EVENTS_V1, "field label not supported: involvedObject.kind"),
        ("spec.pool.generation=p", SLICES,
         "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool.generation"),
        ("data.key=v", CONFIGMAPS,
         '"data.key" is not a known field selector: only "metadata.name", "metadata.namespace"'),
        ("spec.capacity=1", PVS,
         '"spec.capacity" is not a known field selector: only "metadata.name", "metadata.namespace"'),
        # both captured from kube-apiserver v1.36 (apps/v1 has no status.replicas conversion,
        # events.k8s.io/v1 none for the core Event's "source")
        ("status.replicas=x", REPLICASETS,
         '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'),
        ("source=x", EVENTS_V1, "field label not supported: source"),
        # syntax is checked for every term before any label is converted
        ("a=1,zzz", PODS, "invalid selector: 'a=1,zzz'; can't understand 'zzz'"),
    ],
)
def test_bad_field_selector_is_a_400_with_the_real_message(text: str, spec: Any, message: str) -> None:
    with pytest.raises(BadRequest, match=exact(message)) as caught:
        FieldSelector.parse(text, spec)
    status = caught.value.to_status()
    assert (status["code"], status["reason"], status["message"]) == (400, "BadRequest", message)
    assert "details" not in status


def test_generic_kinds_accept_metadata_namespace_even_when_cluster_scoped() -> None:
    selector = FieldSelector.parse("metadata.namespace=", PVS)
    assert selector.matches({"metadata": {"name": "pv1"}}) is True
    assert FieldSelector.parse("metadata.namespace=x", PVS).matches({"metadata": {"name": "pv1"}}) is False


def test_node_unschedulable_defaults_to_false() -> None:
    selector = FieldSelector.parse("spec.unschedulable=false", NODES)
    assert selector.matches({"metadata": {"name": "n"}}) is True
    assert selector.matches({"metadata": {"name": "n"}, "spec": {"unschedulable": False}}) is True
    assert selector.matches({"metadata": {"name": "n"}, "spec": {"unschedulable": True}}) is False


def test_events_v1_selects_on_its_own_field_names() -> None:
    selector = FieldSelector.parse("regarding.kind=Pod,reportingController=kube-scheduler", EVENTS_V1)
    assert selector.terms == (
        FieldTerm("regarding.kind", "=", "Pod"),
        FieldTerm("reportingController", "=", "kube-scheduler"),
    )
    event = {"metadata": {"name": "e", "namespace": "default"},
             "regarding": {"kind": "Pod", "name": "p"}, "reportingController": "kube-scheduler"}
    assert selector.matches(event) is True
    assert selector.matches({**event, "regarding": {"kind": "Node"}}) is False


def test_resource_slices_select_on_node_and_driver() -> None:
    selector = FieldSelector.parse("spec.driver=gpu.example.com,spec.nodeName=n1", SLICES)
    assert selector.matches({"metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com", "nodeName": "n1"}})
    assert not selector.matches({"metadata": {"name": "s"}, "spec": {"driver": "gpu.example.com"}})


# --- selectable values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "label", "spec", "expected"),
    [
        (pod(), "spec.hostNetwork", PODS, "false"),
        (pod(hostNetwork=True), "spec.hostNetwork", PODS, "true"),
        (pod(), "spec.nodeName", PODS, ""),
        (pod("Running"), "status.phase", PODS, "Running"),
        ({"status": {"podIP": "10.0.0.1"}}, "status.podIP", PODS, "10.0.0.1"),
        ({"status": {"podIP": "10.0.0.1", "podIPs": [{"ip": "10.0.0.2"}]}}, "status.podIP", PODS, "10.0.0.2"),
        ({"status": {"podIPs": [{"ip": "10.0.0.2"}]}}, "status.podIPs", PODS, ""),
        ({"spec": {}}, "spec.unschedulable", NODES, "false"),
        ({"spec": {"unschedulable": True}}, "spec.unschedulable", NODES, "true"),
        ({}, "status.replicas", CONTROLLERS, "0"),
        ({"status": {"replicas": 3}}, "status.replicas", CONTROLLERS, "3"),
        ({"source": {"component": "kubelet"}, "reportingComponent": "x"}, "source", EVENTS, "kubelet"),
        ({"reportingComponent": "kube-scheduler"}, "source", EVENTS, "kube-scheduler"),
        ({"involvedObject": {"uid": "u1"}}, "involvedObject.uid", EVENTS, "u1"),
        ({"reportingController": "kubelet"}, "reportingController", EVENTS_V1, "kubelet"),
        ({"metadata": {"name": "pv1"}}, "metadata.namespace", PVS, ""),
        ({"metadata": {"name": "cm"}, "data": {"k": 7}}, "data.k", CONFIGMAPS, "7"),
    ],
)
def test_field_value(obj: dict[str, Any], label: str, spec: Any, expected: str) -> None:
    assert field_value(obj, label, spec) == expected


def test_field_value_without_a_kind_reads_the_label_as_a_path() -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    assert field_value(node, "spec.unschedulable", NODES) == "false"
    assert field_value(node, "spec.unschedulable") == ""
    assert field_value({"spec": {"flag": True}}, "spec.flag") == "true"
