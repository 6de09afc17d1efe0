"""The store on its own: no HTTP, no event loop, a clock the test moves by hand.

Messages are the real server's (the apiserver and apimachinery files named in
``fake_apiserver/_storage/store.py``), matched in full.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, Callable

import pytest

from fake_apiserver import BadRequest, Conflict, Invalid, Store, StatusError, by_resource
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.decode import summarize_data, validate_list_options
from fake_apiserver._registry.scheme import resolve_kind
from tests.support.store import PODS, START, ManualClock, pod, raises


def _spec(group: str, resource: str) -> KindSpec:
    spec = by_resource(group, "v1", resource)
    assert spec is not None
    return spec


NODES = _spec("", "nodes")
NAMESPACES = _spec("", "namespaces")
CONFIGMAPS = _spec("", "configmaps")
CLAIMS = _spec("resource.k8s.io", "resourceclaims")
CORE_EVENTS = _spec("", "events")
EVENTS = _spec("events.k8s.io", "events")


def store(**options: Any) -> Store:
    return Store(ManualClock(), **options)


def test_a_new_store_holds_the_default_namespaces() -> None:
    s = store()
    assert s.resource_version == START
    assert [n["metadata"]["name"] for n in s.list(NAMESPACES, None)["items"]] == [
        "default", "kube-node-lease", "kube-public", "kube-system"]


# -------------------------------------------------------------------------- decoding the kind


@pytest.mark.parametrize(("url", "body", "message"), [
    ((NODES.group, NODES.version, NODES.kind), pod("p"),
     'Pod in version "v1" cannot be handled as a Node: converting (v1.Pod) to (core.Node): unknown conversion'),
    (("", "v1", "Pod"), {"kind": "ResourceClaim", "apiVersion": "resource.k8s.io/v1"},
     'ResourceClaim in version "v1" cannot be handled as a Pod: converting (v1.ResourceClaim) to (core.Pod): '
     "unknown conversion"),
    (("resource.k8s.io", "v1", "ResourceClaim"), pod("p"),
     'Pod in version "v1" cannot be handled as a ResourceClaim: converting (v1.Pod) to (resource.ResourceClaim): '
     "unknown conversion"),
    (("resource.k8s.io", "v1", "ResourceClaim"), {"kind": "Pod"},
     'Pod in version "v1" cannot be handled as a ResourceClaim: no kind "Pod" is registered for version '
     '"resource.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'),
    (("", "v1", "Pod"), {"kind": "Pod", "apiVersion": "v2"},
     'Pod in version "v2" cannot be handled as a Pod: no kind "Pod" is registered for version "v2" in scheme '
     '"pkg/api/legacyscheme/scheme.go:30"'),
    (("events.k8s.io", "v1", "Event"), {"kind": "Event", "apiVersion": "v1"},
     "the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)"),
    (("", "v1", "Event"), {"kind": "Event", "apiVersion": "events.k8s.io/v1"},
     "the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)"),
    (("", "v1", "Pod"), {"kind": "Pod", "apiVersion": "apps/"},
     'Pod in version "" cannot be handled as a Pod: Object \'apiVersion\' is missing in '
     '\'{"kind":"Pod","apiVersion":"apps/"}\''),
    (("", "v1", "Pod"), {"apiVersion": "a/b/c"},
     'the object provided is unrecognized (must be of type Pod): unexpected GroupVersion string: a/b/c '
     '({"apiVersion":"a/b/c"})'),
    (("", "v1", "Pod"), {"kind": 5},
     "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse error: "
     'json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})'),
])
def test_bodies_of_another_kind_or_version_are_refused(url: tuple[str, str, str], body: dict[str, Any],
                                                        message: str) -> None:
    with raises(BadRequest, message):
        resolve_kind(*url, body)


@pytest.mark.parametrize("body", [{}, {"kind": "Pod"}, {"apiVersion": "v1"}, {"kind": "Pod", "apiVersion": "v1"}])
def test_a_missing_kind_or_version_is_taken_from_the_url(body: dict[str, Any]) -> None:
    """``gvkWithDefaults`` in the JSON serializer: the URL's type fills what the body leaves out."""
    resolve_kind("", "v1", "Pod", body)
    assert (body["kind"], body["apiVersion"]) == ("Pod", "v1")
    claim: dict[str, Any] = {"apiVersion": "resource.k8s.io/"}
    resolve_kind("resource.k8s.io", "v1", "ResourceClaim", claim)
    assert (claim["kind"], claim["apiVersion"]) == ("ResourceClaim", "resource.k8s.io/v1")


def test_summaries_of_bodies_that_cannot_be_decoded() -> None:
    assert summarize_data(b"") == "<empty>"
    assert summarize_data(b'{"a":1}') == '{"a":1}'
    assert summarize_data(b"{" + b"x" * 40) == "{" + "x" * 29 + " ..."
    assert summarize_data(b"[1]") == "5b315d"
    assert summarize_data(b"\x0a" * 31) == "0a" * 30 + " ..."


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda p: p["spec"].update(tolerations="x"),
     "json: cannot unmarshal string into Go struct field PodSpec.spec.tolerations of type []v1.Toleration"),
    (lambda p: p["spec"].update(tolerations=[1]),
     "json: cannot unmarshal number into Go struct field PodSpec.spec.tolerations of type v1.Toleration"),
    (lambda p: p["spec"].update(tolerations=[{"key": ["k"]}]),
     "json: cannot unmarshal array into Go struct field Toleration.spec.tolerations.key of type string"),
    (lambda p: p["spec"]["containers"][0].update(resources={"limits": {"cpu": True}}),
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    (lambda p: p["spec"]["containers"][0].update(resources={"requests": []}),
     "json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources.requests "
     "of type v1.ResourceList"),
    (lambda p: p["spec"].update(priority=1.5),
     "json: cannot unmarshal number 1.5 into Go struct field PodSpec.spec.priority of type int32"),
    (lambda p: p["spec"].update(priority=2**31),
     "json: cannot unmarshal number 2147483648 into Go struct field PodSpec.spec.priority of type int32"),
    (lambda p: p["spec"].update(nodeSelector={"a": 1}),
     "json: cannot unmarshal number into Go struct field PodSpec.spec.nodeSelector of type string"),
    (lambda p: p["metadata"].update(labels={"a": 1}),
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
    (lambda p: p["metadata"].update(ownerReferences=[{"uid": 5}]),
     # types.UID, as kube-apiserver v1.36 answers
     "json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.uid of type types.UID"),
    (lambda p: p.update(status=[]),
     "json: cannot unmarshal array into Go struct field Pod.status of type v1.PodStatus"),
    (lambda p: p["spec"].update(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": "v"}]}]}}}),
     "json: cannot unmarshal string into Go struct field NodeSelectorRequirement.spec.affinity.nodeAffinity."
     "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.matchExpressions.values of type []string"),
])
def test_fields_of_the_wrong_type_fail_decoding(mutate: Callable[[dict[str, Any]], None], message: str) -> None:
    s = store()
    body = pod("p")
    mutate(body)
    with raises(BadRequest, f'Pod in version "v1" cannot be handled as a Pod: {message}'):
        s.create(PODS, "default", body)
    assert s.resource_version == START


def test_node_and_namespace_shapes() -> None:
    s = store()
    with raises(BadRequest, 'Node in version "v1" cannot be handled as a Node: json: cannot unmarshal string into '
                            "Go struct field NodeSpec.spec.taints of type []v1.Taint"):
        s.create(NODES, None, {"metadata": {"name": "n"}, "spec": {"taints": "x"}})
    with raises(BadRequest, 'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal '
                            "string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName"):
        s.create(NAMESPACES, None, {"metadata": {"name": "x"}, "spec": {"finalizers": "kubernetes"}})
    with raises(BadRequest, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal '
                            "bool into Go struct field ObjectMeta.metadata.name of type string"):
        s.create(CONFIGMAPS, "default", {"metadata": {"name": True}})


def test_nulls_and_empty_lists_are_stored_as_go_would_encode_them() -> None:
    s = store()
    body = pod("p", nodeSelector=None, schedulingGates=[], tolerations=[])
    body["metadata"]["labels"] = {"a": None}
    body["metadata"]["annotations"] = {}
    created = s.create(PODS, "default", body)
    assert created["metadata"]["labels"] == {"a": ""}
    assert "annotations" not in created["metadata"]
    assert "nodeSelector" not in created["spec"] and "schedulingGates" not in created["spec"]
    assert [t["key"] for t in created["spec"]["tolerations"]] == [
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]


# ------------------------------------------------------------------------------ list options


@pytest.mark.parametrize(("options", "causes"), [
    ({"resource_version": "", "resource_version_match": "NotOlderThan"},
     [("resourceVersionMatch", "FieldValueForbidden",
       "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided")]),
    ({"resource_version": "0", "resource_version_match": "Exact"},
     [("resourceVersionMatch", "FieldValueForbidden",
       'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')]),
    ({"resource_version": "5", "resource_version_match": "Newest", "continue_token": "x"},
     [("resourceVersionMatch", "FieldValueForbidden", "Forbidden: resourceVersionMatch is forbidden when continue "
       "is provided"),
      ("resourceVersionMatch", "FieldValueNotSupported",
       'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""')]),
])
def test_list_option_rules(options: dict[str, Any], causes: list[tuple[str, str, str]]) -> None:
    rendered = [f"{field}: {body}" for field, _, body in causes]
    aggregate = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    with raises(Invalid, f'ListOptions.meta.k8s.io "" is invalid: {aggregate}') as info:
        validate_list_options(watch=False, send_initial_events=None, **options)
    assert info.value.to_status()["details"] == {"group": "meta.k8s.io", "kind": "ListOptions", "causes": [
        {"reason": reason, "message": body, "field": field} for field, reason, body in causes]}
    validate_list_options(watch=False, resource_version="5", resource_version_match="Exact", send_initial_events=None)
    validate_list_options(watch=True, resource_version="", resource_version_match="NotOlderThan",
                          send_initial_events=False)


def test_continue_pages_follow_etcd_key_order_across_namespaces() -> None:
    """etcd orders ``a-b/x`` before ``a/z`` (bytewise on ``<namespace>/<name>``)."""
    s = store()
    for ns in ("a", "a-b"):
        s.create(NAMESPACES, None, {"metadata": {"name": ns}})
    for ns, name in (("a", "z"), ("a", "b"), ("a-b", "x"), ("a-b", "c")):
        s.create(PODS, ns, pod(name))
    everything = [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in s.list(PODS, None)["items"]]
    assert everything == [("a-b", "c"), ("a-b", "x"), ("a", "b"), ("a", "z")]
    paged: list[tuple[str, str]] = []
    token = ""
    while True:
        page = s.list(PODS, None, limit=1, continue_token=token)
        paged += [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in page["items"]]
        token = page["metadata"].get("continue", "")
        if not token:
            break
    assert paged == everything


def test_an_expired_continue_token_is_410() -> None:
    s = store(history=2)
    for i in range(3):
        s.create(PODS, "default", pod(f"p{i}"))
    token = s.list(PODS, "default", limit=1)["metadata"]["continue"]
    for i in range(3, 6):
        s.create(PODS, "default", pod(f"p{i}"))
    with pytest.raises(StatusError) as info:
        s.list(PODS, "default", limit=1, continue_token=token)
    assert (info.value.code, info.value.reason) == (410, "Expired")
    assert info.value.message.startswith("The provided continue parameter is too old to display a consistent list")


# ---------------------------------------------------------------------------------- writes


def test_put_of_the_pod_as_first_sent_is_a_no_op() -> None:
    """The decoder defaults every body and DefaultTolerationSeconds admits updates, so the
    defaults come back; Priority keeps the stored priority when the update leaves it out."""
    s = store()
    created = s.create(PODS, "default", pod("p", priorityClassName="system-cluster-critical"))
    assert created["spec"]["priority"] == 2000000000
    assert s.update(PODS, "default", "p", pod("p", priorityClassName="system-cluster-critical")) is created
    assert s.update(PODS, "default", "p", pod("p", priorityClassName="system-cluster-critical",
                                              schedulingGates=[])) is created
    assert s.resource_version == START + 1


def test_update_uid_is_a_precondition_and_patch_uid_is_immutable() -> None:
    s = store()
    created = s.create(PODS, "default", pod("p"))
    uid = created["metadata"]["uid"]
    body = pod("p")
    body["metadata"]["uid"] = "other"
    with raises(Conflict, f'Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: '
                          f"/registry/pods/default/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID "
                          f"in precondition: other, UID in object meta: {uid}"):
        s.update(PODS, "default", "p", body)
    node = s.create(NODES, None, {"metadata": {"name": "n1"}})
    with raises(Conflict, 'Operation cannot be fulfilled on nodes "n1": StorageError: invalid object, Code: 4, Key: '
                          "/registry/minions/n1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
                          f"precondition: other, UID in object meta: {node['metadata']['uid']}"):
        s.update(NODES, None, "n1", {"metadata": {"name": "n1", "uid": "other"}})
    with raises(Invalid, 'Pod "p" is invalid: metadata.uid: Invalid value: "other": field is immutable'):
        s.patch(PODS, "default", "p", b'{"metadata":{"uid":"other"}}', "application/merge-patch+json")
    assert s.get(PODS, "default", "p") is created


def test_update_keeps_system_fields() -> None:
    s = store()
    created = s.create(PODS, "default", pod("p"))
    clock = s.clock
    assert isinstance(clock, ManualClock)
    clock.t += timedelta(minutes=5)
    body = pod("p", activeDeadlineSeconds=30)
    body["metadata"].update(creationTimestamp="1999-01-01T00:00:00Z", generation=9)
    updated = s.update(PODS, "default", "p", body)
    assert {k: updated["metadata"][k] for k in ("uid", "creationTimestamp", "generation", "resourceVersion")} == {
        "uid": created["metadata"]["uid"], "creationTimestamp": "2026-01-01T00:00:00Z", "generation": 2,
        "resourceVersion": str(START + 2)}


def test_a_resource_version_on_create_is_a_500_without_reason() -> None:
    s = store()
    with pytest.raises(StatusError) as info:
        s.create(PODS, "default", {"metadata": {"name": "p", "resourceVersion": "1"}, "spec": pod("p")["spec"]})
    assert info.value.to_status() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                                      "message": "resourceVersion should not be set on objects to be created",
                                      "code": 500}
    assert s.resource_version == START


def test_delete_answers_and_preconditions() -> None:
    s = store()
    created = s.create(PODS, "default", pod("p"))
    with raises(Conflict, 'Operation cannot be fulfilled on Pod "p": the UID in the precondition (x) does not match '
                          f"the UID in record ({created['metadata']['uid']}). The object might have been deleted and "
                          "then recreated"):
        s.delete(PODS, "default", "p", options={"preconditions": {"uid": "x"}})
    with raises(Conflict, 'Operation cannot be fulfilled on Pod "p": the ResourceVersion in the precondition (1) does '
                          f"not match the ResourceVersion in record ({START + 1}). The object might have been modified"):
        s.delete(PODS, "default", "p", options={"preconditions": {"resourceVersion": "1"}})
    gone = s.delete(PODS, "default", "p", options={"preconditions": {"resourceVersion": str(START + 1)}})
    assert gone["metadata"]["uid"] == created["metadata"]["uid"] and "p" not in [
        p["metadata"]["name"] for p in s.list(PODS, "default")["items"]]
    cm = s.create(CONFIGMAPS, "default", {"metadata": {"name": "cm"}})
    assert s.delete(CONFIGMAPS, "default", "cm") == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
        "details": {"name": "cm", "kind": "configmaps", "uid": cm["metadata"]["uid"]}}
    claim = s.create(CLAIMS, "default", {"metadata": {"name": "c"}, "spec": {}})
    assert s.delete(CLAIMS, "default", "c") is claim


def test_deleting_a_namespace_deletes_what_it_holds() -> None:
    s = store()
    s.create(NAMESPACES, None, {"metadata": {"name": "team"}})
    s.create(PODS, "team", pod("p"))
    s.create(CONFIGMAPS, "team", {"metadata": {"name": "cm"}})
    s.delete(NAMESPACES, None, "team")
    assert (s.list(PODS, "team")["items"], s.list(CONFIGMAPS, "team")["items"]) == ([], [])


def test_binding_checks() -> None:
    s = store()
    s.create(PODS, "default", pod("p"))
    with raises(BadRequest, "the namespace of the provided object does not match the namespace sent on the request"):
        s.bind("default", "p", {"metadata": {"name": "p", "namespace": "kube-system"}, "target": {"name": "n"}})
    with raises(BadRequest, 'Pod in version "v1" cannot be handled as a Binding: converting (v1.Pod) to '
                            "(core.Binding): unknown conversion"):
        s.bind("default", "p", pod("p"))
    assert s.bind("default", "p", {"metadata": {"name": "p"}, "target": {"name": "n"}})["status"] == "Success"


def test_failed_writes_change_nothing() -> None:
    s = store()
    created = s.create(PODS, "default", pod("g", schedulingGates=[{"name": "example.com/a"}]))
    attempts: list[Callable[[], object]] = [
        lambda: s.create(PODS, "default", pod("g")),
        lambda: s.update(PODS, "default", "g", dict(pod("g"), metadata={"name": "g", "resourceVersion": "2"})),
        lambda: s.patch(PODS, "default", "g", b'{"spec":{"schedulingGates":[{"name":"x"}]}}',
                        "application/strategic-merge-patch+json"),
        lambda: s.patch(PODS, "default", "g", b'[{"op":"test","path":"/spec/nodeName","value":"x"}]',
                        "application/json-patch+json"),
        lambda: s.bind("default", "g", {"metadata": {"name": "g"}, "target": {"name": "n"}}),
        lambda: s.delete(PODS, "default", "g", options={"preconditions": {"uid": "x"}}),
        lambda: s.create(PODS, "nowhere", pod("x")),
    ]
    for attempt in attempts:
        with pytest.raises(StatusError):
            attempt()
        assert s.resource_version == START + 1
        assert s.get(PODS, "default", "g") is created
    assert len(s.cache(PODS).history) == 1


def test_json_encoding_orders_metadata_like_the_real_server() -> None:
    s = store()
    body = pod("p")
    body["metadata"] = {"labels": {"a": "b"}, "finalizers": ["x/y"], "name": "p", "annotations": {"k": "v"}}
    created = s.create(PODS, "default", body)
    assert list(created["metadata"]) == ["name", "namespace", "uid", "resourceVersion", "generation",
                                         "creationTimestamp", "labels", "annotations", "finalizers", "managedFields"]
    assert json.dumps(created).startswith('{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p"')


def test_resource_claims_get_the_apis_device_request_defaults() -> None:
    store = Store()
    claims = by_resource("resource.k8s.io", "v1", "resourceclaims")
    templates = by_resource("resource.k8s.io", "v1", "resourceclaimtemplates")
    assert claims is not None and templates is not None
    requests = [{"name": "a", "exactly": {"deviceClassName": "gpu"}},
                {"name": "b", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}},
                {"name": "c", "firstAvailable": [{"name": "x", "deviceClassName": "gpu"}]}]
    claim = store.create(claims, "default", {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                                             "metadata": {"name": "c"}, "spec": {"devices": {"requests": requests}}})
    got = claim["spec"]["devices"]["requests"]
    assert got[0]["exactly"] == {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}
    assert got[1]["exactly"] == {"deviceClassName": "gpu", "allocationMode": "All"}
    assert got[2]["firstAvailable"] == [{"name": "x", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}]
    template = store.create(templates, "default", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "t"},
        "spec": {"spec": {"devices": {"requests": requests[:1]}}}})
    assert template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1


def _event(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"}, "reason": "R", "message": "m"}


def test_an_event_expires_its_ttl_after_its_last_write() -> None:
    """kube-apiserver's --event-ttl: an Event goes that long after its last write (an update
    renews it); watchers of both Event APIs see it go; other kinds never expire."""
    clock = ManualClock()
    s = Store(clock, event_ttl=60)
    s.create(CORE_EVENTS, "default", _event("a"))
    s.create(CORE_EVENTS, "default", _event("b"))
    clock.t += timedelta(seconds=30)
    s.patch(CORE_EVENTS, "default", "b", b'{"message":"again"}', "application/merge-patch+json")
    clock.t += timedelta(seconds=31)
    rv = s.resource_version
    s.create(CONFIGMAPS, "default", {"metadata": {"name": "any-write"}})
    assert [e["metadata"]["name"] for e in s.list(CORE_EVENTS, "default")["items"]] == ["b"]
    assert [e["metadata"]["name"] for e in s.list(EVENTS, "default")["items"]] == ["b"]
    gone = [c for c in s.cache(CORE_EVENTS).history if c.rv > rv and c.new is None]
    assert [c.old["metadata"]["name"] for c in gone] == ["a"]
    clock.t += timedelta(seconds=60)
    s.create(CONFIGMAPS, "default", {"metadata": {"name": "later"}})
    assert s.list(CORE_EVENTS, "default")["items"] == []
    assert len(s.list(CONFIGMAPS, "default")["items"]) == 2


def test_without_a_ttl_events_stay() -> None:
    clock = ManualClock()
    s = Store(clock)
    s.create(CORE_EVENTS, "default", _event("a"))
    clock.t += timedelta(days=2)
    s.create(CONFIGMAPS, "default", {"metadata": {"name": "any-write"}})
    assert len(s.list(CORE_EVENTS, "default")["items"]) == 1
