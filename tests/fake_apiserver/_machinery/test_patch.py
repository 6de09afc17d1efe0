"""PATCH bodies by Content-Type: JSON patch, merge patch, strategic merge patch (fake_apiserver._machinery.patch)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fake_apiserver._machinery.errors import BadRequest, Invalid, RequestEntityTooLarge, StatusError, UnsupportedMediaType
from fake_apiserver._registry.kinds import by_resource
from fake_apiserver._machinery import patch as patch_module, typed
from fake_apiserver._machinery.patch import PATCH_TYPES, apply_patch, merge_patch
from fake_apiserver._machinery.strategic import InvalidPatch

_PODS = by_resource("", "v1", "pods")
assert _PODS is not None
POD_SCHEMA = _PODS.patch_schema
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
SMP = "application/strategic-merge-patch+json"
REJECTED = "the server rejected our request due to an error in our request"
ACCEPTED = (
    "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, "
    "application/apply-patch+yaml"
)


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"},
                     "finalizers": ["example.com/a"]},
        "spec": {
            "containers": [{"name": "app", "image": "app:1"}],
            "tolerations": [{"key": "k1", "operator": "Exists"}],
            "schedulingGates": [{"name": "gate-a"}, {"name": "gate-b"}],
        },
        "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]},
    }


def patch(body: Any, content_type: str, original: dict[str, Any] | None = None) -> dict[str, Any]:
    """apply_patch on a pod, checking on the way that the original is not mutated."""
    original = pod() if original is None else original
    before = copy.deepcopy(original)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    result = apply_patch(original, data, content_type, POD_SCHEMA, kind="Pod", group="", name="p")
    assert original == before
    return result


def test_patch_types_are_apimachinery_patch_types() -> None:
    assert PATCH_TYPES == (
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
        "application/apply-patch+cbor",
    )


# JSON patch


def test_json_patch_add_replace_remove_test() -> None:
    ops = [
        {"op": "test", "path": "/metadata/labels/app", "value": "web"},
        {"op": "add", "path": "/metadata/labels/tier", "value": "front"},
        {"op": "replace", "path": "/spec/containers/0/image", "value": "app:2"},
        {"op": "remove", "path": "/spec/tolerations"},
        {"op": "add", "path": "/spec/schedulingGates/-", "value": {"name": "gate-c"}},
        {"op": "remove", "path": "/spec/schedulingGates/0"},
    ]
    expected = pod()
    expected["metadata"]["labels"]["tier"] = "front"
    expected["spec"]["containers"][0]["image"] = "app:2"
    del expected["spec"]["tolerations"]
    expected["spec"]["schedulingGates"] = [{"name": "gate-b"}, {"name": "gate-c"}]
    assert patch(ops, JSON_PATCH) == expected


def test_json_patch_failed_test_is_422() -> None:
    ops = [{"op": "test", "path": "/metadata/labels/app", "value": "db"},
           {"op": "replace", "path": "/metadata/labels/app", "value": "x"}]
    with pytest.raises(InvalidPatch) as caught:
        patch(ops, JSON_PATCH)
    assert isinstance(caught.value, Invalid)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": REJECTED,
        "reason": "Invalid",
        "details": {},
        "code": 422,
    }


def test_json_patch_test_keeps_json_types_apart() -> None:
    original = {"metadata": {"name": "p"}, "spec": {"hostNetwork": True}}
    with pytest.raises(InvalidPatch, match=rf"^{REJECTED}$"):
        patch([{"op": "test", "path": "/spec/hostNetwork", "value": 1}], JSON_PATCH, original)


@pytest.mark.parametrize(
    "ops",
    [
        [{"op": "remove", "path": "/spec/nodeName"}],
        [{"op": "replace", "path": "/spec/missing/x", "value": 1}],
        [{"op": "add", "path": "/spec/containers/5", "value": {}}],
        [{"op": "frobnicate", "path": "/spec"}],
        [{"path": "/spec"}],
        [None],
    ],
)
def test_json_patch_that_cannot_apply_is_422(ops: list[Any]) -> None:
    with pytest.raises(InvalidPatch, match=rf"^{REJECTED}$"):
        patch(ops, JSON_PATCH)


def test_json_patch_null_and_empty_list_change_nothing() -> None:
    assert patch(b"null", JSON_PATCH) == pod()
    assert patch(b"[]", JSON_PATCH) == pod()


def test_json_patch_limit_is_10000_operations() -> None:
    ops = [{"op": "test", "path": "/kind", "value": "Pod"}] * 10000
    assert patch(ops, JSON_PATCH) == pod()
    with pytest.raises(RequestEntityTooLarge) as caught:
        patch(ops + [{"op": "test", "path": "/kind", "value": "Pod"}], JSON_PATCH)
    assert caught.value.to_status()["code"] == 413
    assert caught.value.message == (
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "error decoding patch: unexpected end of JSON input"),
        (b"[{", "error decoding patch: unexpected end of JSON input"),
        (b"not json", "error decoding patch: invalid character 'o' in literal null (expecting 'u')"),
        (b"[{'op': 'add'}]",
         "error decoding patch: invalid character '\\'' looking for beginning of object key string"),
        (b'[{"op":"add",}]', "error decoding patch: invalid character '}' looking for beginning of object key string"),
        (b'[{"op":"add"} {}]', "error decoding patch: invalid character '{' after array element"),
        (b"[] x", "error decoding patch: invalid character 'x' after top-level value"),
        (b'{"op":"add"}',
         "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"),
        (b'["add"]', "error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp"),
        (b'[{"op":"add","path":1}]',
         "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string"),
    ],
)
def test_json_patch_that_does_not_decode_is_400(body: bytes, message: str) -> None:
    with pytest.raises(BadRequest) as caught:
        patch(body, JSON_PATCH)
    assert caught.value.message == message
    assert caught.value.to_status()["reason"] == "BadRequest"


def test_json_patch_to_a_non_object_is_invalid() -> None:
    with pytest.raises(Invalid) as caught:
        patch([{"op": "replace", "path": "", "value": 5}], JSON_PATCH)
    assert caught.value.message == (
        ' "" is invalid: patch: Invalid value: "5": couldn\'t get version/kind; json parse error: json: cannot '
        'unmarshal number into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; '
        'Kind string "json:\\"kind,omitempty\\"" }'
    )


# JSON merge patch


def test_merge_patch_null_deletes_and_lists_are_replaced() -> None:
    body = {
        "metadata": {"labels": {"app": None, "tier": "front"}, "finalizers": ["example.com/b"]},
        "spec": {"schedulingGates": [{"name": "gate-z", "extra": None}], "tolerations": None},
    }
    result = patch(body, MERGE_PATCH)
    assert result["metadata"] == {"name": "p", "namespace": "default", "labels": {"tier": "front"},
                                  "finalizers": ["example.com/b"]}
    assert result["spec"] == {"containers": [{"name": "app", "image": "app:1"}],
                              "schedulingGates": [{"name": "gate-z"}]}


def test_merge_patch_new_object_drops_nulls() -> None:
    assert merge_patch({"a": 1}, {"b": {"c": None, "d": [None, {"e": None}]}}) == {"a": 1, "b": {"d": [None, {}]}}


def test_merge_patch_keeps_key_order_and_copies() -> None:
    original = {"a": {"x": 1}, "b": 2, "c": 3}
    result = merge_patch(original, {"b": None, "z": 0, "a": {"y": 2}})
    assert list(result) == ["a", "c", "z"]
    assert result == {"a": {"x": 1, "y": 2}, "c": 3, "z": 0}
    result["a"]["x"] = 99
    assert original == {"a": {"x": 1}, "b": 2, "c": 3}


def test_merge_patch_non_object_patch_replaces() -> None:
    assert merge_patch({"a": 1}, [1, None]) == [1, None]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"null", "Invalid JSON Patch"),
        (b"[]", "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"),
        (b'{"a":', "error decoding patch: unexpected end of JSON input"),
    ],
)
def test_merge_patch_that_is_not_an_object_is_400(body: bytes, message: str) -> None:
    with pytest.raises(BadRequest) as caught:
        patch(body, MERGE_PATCH)
    assert caught.value.message == message


# Strategic merge patch through apply_patch


def test_strategic_merge_patch_status_from_the_scheduler() -> None:
    body = (
        b'{"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":[{"message":"0/3 nodes '
        b'are available: 3 Insufficient cpu.","reason":"Unschedulable","status":"False","type":"PodScheduled"}]}}'
    )
    result = patch(body, SMP)
    assert result["status"] == {"phase": "Pending", "conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": "0/3 nodes are available: 3 Insufficient cpu.",
    }]}
    assert {k: v for k, v in result.items() if k != "status"} == {k: v for k, v in pod().items() if k != "status"}


def test_strategic_merge_patch_null_body_changes_nothing() -> None:
    assert patch(b"null", SMP) == pod()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[]", "json: cannot unmarshal array into Go value of type map[string]interface {}"),
        (b"{\"spec\":}", "invalid character '}' looking for beginning of value"),
        (b"\xef\xbb\xbf{}", "invalid character '\u00ef' looking for beginning of value"),
    ],
)
def test_strategic_merge_patch_that_is_not_an_object_is_400(body: bytes, message: str) -> None:
    with pytest.raises(BadRequest) as caught:
        patch(body, SMP)
    assert caught.value.message == message


def test_huge_integers_become_floats_as_in_go() -> None:
    result = patch(b'{"metadata":{"generation":12345678901234567890}}', SMP)
    assert result["metadata"]["generation"] == 1.2345678901234567e19


# Content types


def test_content_type_parameters_are_ignored() -> None:
    result = patch({"metadata": {"labels": {"x": "y"}}}, SMP + "; charset=utf-8")
    assert result["metadata"]["labels"] == {"app": "web", "x": "y"}
    assert patch([], JSON_PATCH + ";charset=utf-8") == pod()


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "", "text/plain", "Application/merge-patch+json", " application/merge-patch+json",
     "application/apply-patch+cbor"],
)
def test_other_content_types_are_415(content_type: str) -> None:
    with pytest.raises(UnsupportedMediaType) as caught:
        patch({}, content_type)
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": f"the body of the request was in an unknown format - accepted media types include: {ACCEPTED}",
        "reason": "UnsupportedMediaType",
        "code": 415,
    }


def test_server_side_apply_of_a_scale_is_refused_with_a_415_that_says_so() -> None:
    with pytest.raises(UnsupportedMediaType) as caught:
        patch(b"metadata:\n  labels: {a: b}\n", "application/apply-patch+yaml; charset=utf-8")
    assert caught.value.message == (
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json "
        "(server-side apply of a Scale, application/apply-patch+yaml, is not supported by this fake API server)"
    )
    assert caught.value.to_status()["code"] == 415


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ([{"op": "add", "path": "/metadata/labels/x", "value": {"deep": ["v"]}}], JSON_PATCH),
        ({"metadata": {"labels": {"app": None}}, "spec": {"containers": [{"name": "x"}]}}, MERGE_PATCH),
    ],
)
def test_result_shares_nothing_with_the_original(body: Any, content_type: str) -> None:
    original = pod()
    result = patch(body, content_type, original)
    snapshot = copy.deepcopy(original)

    def scribble(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                scribble(item)
            value["scribbled"] = True
        elif isinstance(value, list):
            for item in value:
                scribble(item)
            value.append("scribbled")

    scribble(result)
    assert original == snapshot


def test_a_strategic_merge_copies_what_it_changes_and_shares_the_rest() -> None:
    original = pod()
    body = {"spec": {"containers": [{"name": "app", "image": "b"}],
                     "$setElementOrder/schedulingGates": [{"name": "gate-b"}, {"name": "gate-a"}]}}
    result = patch(body, SMP, original)
    snapshot = copy.deepcopy(original)
    assert result["metadata"] is original["metadata"] and result["status"] is original["status"]
    assert result["spec"]["tolerations"] is original["spec"]["tolerations"]
    assert [id(gate) for gate in result["spec"]["schedulingGates"]] == \
        [id(gate) for gate in reversed(original["spec"]["schedulingGates"])]
    # the maps and lists on the patch's way are the result's own
    result["scribbled"] = result["spec"]["scribbled"] = result["spec"]["containers"][0]["scribbled"] = True
    result["spec"]["containers"].append("scribbled")
    result["spec"]["schedulingGates"].append("scribbled")
    assert original == snapshot


def test_errors_are_status_errors() -> None:
    for body, content_type in ((b"[", JSON_PATCH), (b"[", MERGE_PATCH), (b"[", SMP), (b"{}", "x/y")):
        with pytest.raises(StatusError):
            patch(body, content_type)


def _leaves(value: Any) -> list[tuple[str, str]]:
    """Every scalar in ``value`` with its Python type, in order."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [(type(value).__name__, repr(value))]


def _read(read: Any) -> tuple[Any, ...]:
    try:
        value, members = read()
    except StatusError as e:
        return ("refused", e.code, str(e))
    return ("read", json.dumps(value), _leaves(value), members)


@pytest.mark.parametrize("body", [
    b'{"a":1,"b":{"c":[1,"x",{"d":null}],"e":true}}',
    b'{"a":1,"a":2}',  # a repeated key: the last value, at the first place
    b' {"a" : false } ',
    b'{"a":9223372036854775807,"b":-9223372036854775808}',  # int64's ends
    b'{"a":9223372036854775808}', b'{"a":-9223372036854775809}', b'{"a":18446744073709551616}',  # past them: floats
    b'{"a":1.0}', b'{"a":1e2}', b'{"a":-0}',
    b'{"a":"\\ud800"}',  # a lone surrogate's escape
    b'\xef\xbb\xbf{"a":1}',  # a byte order mark
    b'{"a":"\xff"}',  # not UTF-8
    b'{"a":NaN}', b'{"a":"\x01"}', b'{}x', b'{"a":', b'',
    b'{"\\u0061":"\\u00e9\\/"}',
    b'{"a":' + b"[" * 1100 + b"]" * 1100 + b"}",  # deeper than orjson reads
    b"[1]", b"null", b'"text"',
])
def test_a_patch_map_is_read_as_the_decoder_with_gos_numbers_reads_it(body: bytes) -> None:
    """A merge or strategic merge patch is read by orjson where it reads it the same: the value,
    every scalar's type, the member count and any refusal are those of the decoder that reads
    integers as Go's int64 (floats past it) and keeps a fraction's text."""
    def by_decoder() -> tuple[Any, int]:
        value = patch_module._decode(body, patch_module._MAP_TARGET, "")
        return value, typed.count_members(value)

    assert _read(lambda: patch_module._decode_map(body, "")) == _read(by_decoder)
