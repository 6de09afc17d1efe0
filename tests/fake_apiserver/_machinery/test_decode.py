"""Request decoding: the handlers' texts for bodies and list options that are wrong."""

from __future__ import annotations

import json
import re

import pytest

from fake_apiserver._machinery.decode import (
    ListOptions,
    decode_continue,
    decode_delete_options,
    decode_list_options,
    go_json_type,
    go_parse_int,
    parse_list_resource_version,
    parse_resource_version,
    query_bool,
    resource_version_error,
    summarize_data,
    validate_write_options,
)
from fake_apiserver._machinery.errors import BadRequest, Invalid, StatusError, UnknownError
from fake_apiserver._registry.kinds import by_resource
from tests.support.http_api import Api, serve


@pytest.mark.parametrize(("value", "name"), [({}, "object"), ([], "array"), ("x", "string"), (True, "bool"),
                                             (1, "number"), (1.5, "number")])
def test_go_json_type(value: object, name: str) -> None:
    assert go_json_type(value) == name


def test_summarize_data_quotes_text_or_hex() -> None:
    assert summarize_data(b"") == "<empty>"
    assert summarize_data(b'{"a":1}') == '{"a":1}'
    assert summarize_data(b"{" + b"x" * 40) == "{" + "x" * 29 + " ..."
    assert summarize_data(b"\x01\x02") == "0102"


def test_parse_resource_version() -> None:
    """A get's or a watch's bad resourceVersion is a plain Go error: 500, no reason; a list's is a
    400 (both messages captured from kube-apiserver v1.36)."""
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    assert parse_resource_version(pods, "") == 0
    assert parse_resource_version(pods, "42") == 42
    with pytest.raises(UnknownError, match=r'^resourceVersion: Invalid value: "x": '
                                           r'strconv\.ParseUint: parsing "x": invalid syntax$'):
        parse_resource_version(pods, "x")
    with pytest.raises(BadRequest, match=r'^invalid resource version: resourceVersion: Invalid value: '
                                         r'"18446744073709551616": strconv\.ParseUint: parsing "18446744073709551616": '
                                         r'value out of range$'):
        parse_list_resource_version("18446744073709551616")
    # kube-apiserver v1.36: a get or watch of one Event by name (no watch cache) answers 400, a
    # watch of the collection 500
    events = by_resource("", "v1", "events")
    assert events is not None
    with pytest.raises(BadRequest, match=r'^invalid resource version: resourceVersion: Invalid value: "1\.5": '
                                         r'strconv\.ParseUint: parsing "1\.5": invalid syntax$'):
        parse_resource_version(events, "1.5", named=True)
    with pytest.raises(UnknownError, match=r'^resourceVersion: Invalid value: "1\.5": '):
        parse_resource_version(events, "1.5")
    for bad in ("-1", "+5", " 1", "0x10", "1.5"):
        assert resource_version_error(bad) == (
            f'resourceVersion: Invalid value: "{bad}": strconv.ParseUint: parsing "{bad}": invalid syntax')


@pytest.mark.parametrize(("text", "expected"), [
    ("10", 10), ("+3", 3), ("-1", -1), ("0", 0),
    # strconv.ParseInt's errors are the 400s' whole messages (kube-apiserver v1.36)
    ("", 'strconv.ParseInt: parsing "": invalid syntax'),
    (" 5", 'strconv.ParseInt: parsing " 5": invalid syntax'),
    ("1e3", 'strconv.ParseInt: parsing "1e3": invalid syntax'),
    ("1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
    ("99999999999999999999", 'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
])
def test_go_parse_int(text: str, expected: int | str) -> None:
    if isinstance(expected, int):
        assert go_parse_int(text) == expected
    else:
        with pytest.raises(BadRequest, match=f"^{re.escape(expected)}$"):
            go_parse_int(text)


@pytest.mark.parametrize(("value", "expected"), [
    ("true", True), ("1", True), ("", True), ("abc", True), ("yes", True),
    ("0", False), ("false", False), ("FALSE", False), ("False", False),
])
def test_query_bool_is_false_only_for_0_and_false(value: str, expected: bool) -> None:
    # runtime.Convert_Slice_string_To_bool; kube-apiserver v1.36 watches on ?watch=abc and ?watch=
    assert query_bool(value) is expected


def test_list_options_from_the_query() -> None:
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    options = decode_list_options({"limit": "+3", "timeoutSeconds": "-1", "watch": ""}, pods)
    # a watch from "" is a streaming list once defaulted (SetListOptionsDefaults)
    assert options == ListOptions(watch=True, limit=3, timeout_seconds=-1, send_initial_events=True,
                                  resource_version_match="NotOlderThan")
    assert decode_list_options({"resourceVersion": "5"}, pods) == ListOptions(resource_version="5")


@pytest.mark.parametrize(("query", "code", "message"), [
    # each captured from kube-apiserver v1.36: integers are parsed first (timeoutSeconds before
    # limit), then the selectors, then ListOptions validation, then the field labels
    ({"limit": "abc", "timeoutSeconds": "x"}, 400, 'strconv.ParseInt: parsing "x": invalid syntax'),
    ({"limit": "99999999999999999999", "sendInitialEvents": "true"}, 400,
     'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
    ({"labelSelector": "-a=b", "sendInitialEvents": "yes"}, 400,
     "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric "
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
     "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ({"fieldSelector": "metadata.name in (x)", "sendInitialEvents": "abc"}, 400,
     "invalid selector: 'metadata.name in (x)'; can't understand 'metadata.name in (x)'"),
    ({"fieldSelector": "foo=bar", "sendInitialEvents": "abc"}, 422,
     'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'),
    ({"watch": "1", "continue": "abc"}, 422,
     'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
     "when continue is provided"),
    ({"fieldSelector": "foo=bar"}, 400, "field label not supported: foo"),
])
def test_list_option_errors_come_in_the_real_order(query: dict[str, str], code: int, message: str) -> None:
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    with pytest.raises(StatusError) as info:
        decode_list_options(query, pods)
    assert (info.value.code, info.value.message) == (code, message)


@pytest.mark.parametrize(("token", "message"), [
    # captured from kube-apiserver v1.36 (a ConfigMap list with ?continue=<token>)
    ("garbage", "continue key is not valid: invalid character '\\x81' looking for beginning of value"),
    ("abc", "continue key is not valid: invalid character 'i' looking for beginning of value"),
    ("%%%", "continue key is not valid: illegal base64 data at input byte 0"),
    ("a", "continue key is not valid: illegal base64 data at input byte 0"),
    ("eyJ2IjoiYmFkIiwicnYiOjEsInN0YXJ0IjoiYSJ9",
     "continue key is not valid: server does not recognize this encoded version bad"),
    ("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6IngiLCJzdGFydCI6ImEifQ",
     "continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64"),
    ("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi9hIn0", "continue key is not valid: ../a"),
])
def test_bad_continue_tokens(token: str, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        decode_continue(token)
    assert info.value.message == f"invalid continue token: {message}"


def test_continue_tokens() -> None:
    # {"v":"meta.k8s.io/v1","rv":-5,"start":"a"}: a negative version continues at the latest (200
    # from kube-apiserver v1.36)
    assert decode_continue("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTUsInN0YXJ0IjoiYSJ9") == (-1, "a")
    with pytest.raises(BadRequest, match="^specifying resource version is not allowed when using continue$"):
        decode_continue("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTUsInN0YXJ0IjoiYSJ9", "5")


@pytest.mark.parametrize(("kind", "query", "message"), [
    # captured from kube-apiserver v1.36
    ("CreateOptions", {"fieldValidation": "strict"},
     'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: '
     '"", "Ignore", "Strict", "Warn"'),
    ("CreateOptions", {"dryRun": ""}, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: [""]: '
     'supported values: "All"'),
    ("UpdateOptions", {"dryRun": "all"}, 'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: '
     '["all"]: supported values: "All"'),
    ("UpdateOptions", {"fieldManager": "x" * 129},
     'UpdateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes'),
    ("PatchOptions", {"fieldManager": "m\x01"},
     'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "m\\x01": invalid character U+0001 '
     "(at position 1)"),
])
def test_write_options(kind: str, query: dict[str, str], message: str) -> None:
    with pytest.raises(Invalid) as info:
        validate_write_options(kind, query)
    assert info.value.message == message
    assert validate_write_options(kind, {"dryRun": "All", "fieldManager": "kubectl"}) is True
    assert validate_write_options(kind, {}) is False


def test_apply_needs_a_field_manager() -> None:
    with pytest.raises(Invalid, match='^PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is '
                                      "required for apply patch$"):
        validate_write_options("PatchOptions", {}, patch_type="application/apply-patch+yaml")


@pytest.mark.parametrize(("body", "message"), [
    # captured from kube-apiserver v1.36 (DELETE of a ConfigMap with this body)
    ([], "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type "
         'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'),
    ({"kind": "Pod"}, 'no kind "Pod" is registered for version "meta.k8s.io/v1" in scheme '
                      '"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"'),
    ({"kind": "Foo", "apiVersion": "apps/v1"}, 'no kind "Foo" is registered for version "apps/v1" in scheme '
                                               '"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"'),
    ({"kind": "Status"}, "converting (v1.Status) to (v1.DeleteOptions): unknown conversion"),
    ({"apiVersion": "a/b/c"}, "unexpected GroupVersion string: a/b/c"),
    ({"kind": 5}, "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field "
                  ".kind of type string"),
    ({"ignoreStoreReadErrorWithClusterBreakingPotential": "x"}, "json: cannot unmarshal string into Go struct field "
     "DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential of type bool"),
])
def test_bad_delete_option_bodies(body: object, message: str) -> None:
    with pytest.raises(BadRequest) as info:
        decode_delete_options(body, json.dumps(body).encode(), {})
    assert info.value.message == message


def test_delete_options() -> None:
    # any group's DeleteOptions is taken; dryRun ["All", "All"] is valid (kube-apiserver v1.36: 200)
    assert decode_delete_options({"kind": "DeleteOptions", "apiVersion": "apps/v1", "dryRun": ["All", "All"]},
                                 b"{...}", {}) == {"kind": "DeleteOptions", "apiVersion": "apps/v1",
                                                   "dryRun": ["All", "All"]}
    assert decode_delete_options(None, b"", {"gracePeriodSeconds": "+3", "orphanDependents": "abc"}) == {
        "gracePeriodSeconds": 3, "orphanDependents": True}
    with pytest.raises(BadRequest, match='^strconv.ParseInt: parsing "": invalid syntax$'):
        decode_delete_options(None, b"", {"gracePeriodSeconds": ""})
    with pytest.raises(Invalid, match='^DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: \\[""\\]: '
                                      'supported values: "All"$'):
        decode_delete_options(None, b"", {"dryRun": ""})
    with pytest.raises(Invalid, match='^DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: '
                                      '"": supported values: "Foreground", "Background", "Orphan", "nil"$'):
        decode_delete_options({"propagationPolicy": ""}, b"{...}", {})


def test_a_bad_resource_version_for_one_event_is_a_400() -> None:
    # captured from kube-apiserver v1.36: a get or a watch of one Event by name is a 400 (Events
    # have no watch cache); a watch of the collection is a 500 with no reason
    events = "/api/v1/namespaces/default/events"
    bad = 'resourceVersion: Invalid value: "x": strconv.ParseUint: parsing "x": invalid syntax'

    async def scenario(api: Api) -> None:
        for query in ({"resourceVersion": "x"}, {"watch": "1", "resourceVersion": "x"}):
            reply = await api.call("GET", f"{events}/e0", params=query)
            assert (reply.status, reply.body["message"]) == (400, f"invalid resource version: {bad}")
        reply = await api.call("GET", events, params={"watch": "1", "resourceVersion": "x"})
        assert (reply.status, reply.body["message"]) == (500, bad)

    serve(scenario)
