"""Strategic merge patch as the API server applies it (fake_apiserver._machinery.strategic)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fake_apiserver._machinery.errors import BadRequest, StatusError
from fake_apiserver._registry.kinds import by_resource
from fake_apiserver._machinery.strategic import ListStrategy, PatchSchema
from fake_apiserver._machinery.errors import UnknownError
from fake_apiserver._machinery.strategic import InvalidPatch, go_value, strategic_merge

_PODS = by_resource("", "v1", "pods")
assert _PODS is not None
POD_SCHEMA = _PODS.patch_schema


def pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "default",
            "labels": {"app": "web", "tier": "front"},
            "finalizers": ["example.com/a", "example.com/b"],
        },
        "spec": {
            "schedulingGates": [{"name": "gate-a"}, {"name": "gate-b"}, {"name": "gate-c"}],
            "containers": [
                {
                    "name": "app",
                    "image": "app:1",
                    "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    "resources": {"requests": {"cpu": "100m"}},
                },
                {"name": "sidecar", "image": "sidecar:1"},
            ],
            "tolerations": [
                {"key": "k1", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "k2", "operator": "Equal", "value": "v", "effect": "NoExecute"},
            ],
            "nodeSelector": {"disk": "ssd", "zone": "a"},
            "resourceClaims": [
                {"name": "gpu", "resourceClaimTemplateName": "gpu-template"},
                {"name": "nic", "resourceClaimName": "nic-claim"},
            ],
        },
        "status": {
            "phase": "Pending",
            "conditions": [
                {"type": "someOtherType", "status": "True", "lastProbeTime": None,
                 "lastTransitionTime": "2020-05-13T01:00:00Z"},
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "0/1 nodes are available: 1 Insufficient cpu.", "lastProbeTime": None,
                 "lastTransitionTime": "2020-05-13T01:00:00Z"},
            ],
        },
    }


def merge(original: dict[str, Any], patch: dict[str, Any], schema: PatchSchema = POD_SCHEMA) -> dict[str, Any]:
    """strategic_merge, checking on the way that neither input is mutated."""
    before = copy.deepcopy((original, patch))
    result = strategic_merge(original, patch, schema)
    assert (original, patch) == before
    return result


def test_scheduler_status_patch_replaces_condition_by_type_in_set_element_order() -> None:
    # The body handleSchedulingFailure sends (reference D.3), for a condition type already present.
    patch = {
        "status": {
            "$setElementOrder/conditions": [{"type": "someOtherType"}, {"type": "PodScheduled"}],
            "conditions": [{
                "type": "PodScheduled", "status": "False", "reason": "SchedulerError",
                "message": "binding rejected", "lastTransitionTime": "2020-05-13T01:01:01Z",
            }],
            "nominatedNodeName": "n1",
        }
    }
    result = merge(pod(), patch)
    assert result["status"] == {
        "phase": "Pending",
        "conditions": [
            {"type": "someOtherType", "status": "True", "lastProbeTime": None,
             "lastTransitionTime": "2020-05-13T01:00:00Z"},
            {"type": "PodScheduled", "status": "False", "reason": "SchedulerError",
             "message": "binding rejected", "lastProbeTime": None,
             "lastTransitionTime": "2020-05-13T01:01:01Z"},
        ],
        "nominatedNodeName": "n1",
    }
    assert {k: v for k, v in result.items() if k != "status"} == {k: v for k, v in pod().items() if k != "status"}


def test_scheduler_status_patch_adds_new_condition_where_set_element_order_puts_it() -> None:
    patch = {
        "status": {
            "$setElementOrder/conditions": [
                {"type": "DisruptionTarget"}, {"type": "someOtherType"}, {"type": "PodScheduled"}
            ],
            "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}],
            "nominatedNodeName": None,
        }
    }
    conditions = merge(pod(), patch)["status"]["conditions"]
    assert [c["type"] for c in conditions] == ["DisruptionTarget", "someOtherType", "PodScheduled"]
    assert conditions[0] == {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}


def test_scheduling_gate_removed_with_delete_directive() -> None:
    patch = {"spec": {"schedulingGates": [{"name": "gate-b", "$patch": "delete"}]}}
    assert merge(pod(), patch)["spec"]["schedulingGates"] == [{"name": "gate-a"}, {"name": "gate-c"}]


def test_scheduling_gate_removed_with_set_element_order_as_client_go_sends_it() -> None:
    # CreateTwoWayMergePatch of gates [a, b, c] -> [c, a].
    patch = {"spec": {
        "$setElementOrder/schedulingGates": [{"name": "gate-c"}, {"name": "gate-a"}],
        "schedulingGates": [{"$patch": "delete", "name": "gate-b"}],
    }}
    assert merge(pod(), patch)["spec"]["schedulingGates"] == [{"name": "gate-c"}, {"name": "gate-a"}]


def test_removing_the_last_gate_leaves_an_empty_list() -> None:
    original = pod()
    original["spec"]["schedulingGates"] = [{"name": "gate-a"}]
    patch = {"spec": {"$setElementOrder/schedulingGates": [],
                      "schedulingGates": [{"$patch": "delete", "name": "gate-a"}]}}
    assert merge(original, patch)["spec"]["schedulingGates"] == []


def test_null_list_removes_the_field() -> None:
    assert "schedulingGates" not in merge(pod(), {"spec": {"schedulingGates": None}})["spec"]


def test_containers_merge_by_name_keeping_unpatched_fields() -> None:
    patch = {"spec": {"containers": [{"name": "app", "image": "app:2", "env": [{"name": "B", "value": "3"}]}]}}
    assert merge(pod(), patch)["spec"]["containers"] == [
        {
            "name": "app",
            "image": "app:2",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}],
            "resources": {"requests": {"cpu": "100m"}},
        },
        {"name": "sidecar", "image": "sidecar:1"},
    ]


def test_null_field_in_merge_list_element_is_deleted() -> None:
    patch = {"spec": {"containers": [{"name": "app", "resources": None, "env": [{"name": "A", "value": None}]}]}}
    app = merge(pod(), patch)["spec"]["containers"][0]
    assert app == {"name": "app", "image": "app:1", "env": [{"name": "A"}, {"name": "B", "value": "2"}]}


def test_new_merge_list_item_goes_before_items_the_patch_does_not_mention() -> None:
    # mergeSortedSlice: a patch item missing from the live list is taken before server-only items.
    patch = {"spec": {"containers": [{"name": "debug", "image": "busybox", "args": None}]}}
    names = [c["name"] for c in merge(pod(), patch)["spec"]["containers"]]
    assert names == ["debug", "app", "sidecar"]
    assert merge(pod(), patch)["spec"]["containers"][0] == {"name": "debug", "image": "busybox"}


def test_patch_order_wins_over_live_order() -> None:
    patch = {"spec": {"containers": [{"name": "sidecar"}, {"name": "app"}]}}
    assert [c["name"] for c in merge(pod(), patch)["spec"]["containers"]] == ["sidecar", "app"]


def test_tolerations_have_no_merge_key_and_are_replaced_whole() -> None:
    patch = {"spec": {"tolerations": [{"key": "k3", "operator": "Exists", "effect": None}]}}
    assert merge(pod(), patch)["spec"]["tolerations"] == [{"key": "k3", "operator": "Exists"}]


def test_maps_merge_key_by_key_and_null_deletes() -> None:
    patch = {"metadata": {"labels": {"tier": None, "track": "canary"}}, "spec": {"nodeSelector": {"zone": "b"}}}
    result = merge(pod(), patch)
    assert result["metadata"]["labels"] == {"app": "web", "track": "canary"}
    assert result["spec"]["nodeSelector"] == {"disk": "ssd", "zone": "b"}


def test_null_for_a_missing_key_is_ignored() -> None:
    assert merge(pod(), {"spec": {"nodeName": None}}) == pod()


def test_finalizers_are_a_set_new_values_first() -> None:
    patch = {"metadata": {"finalizers": ["example.com/b", "example.com/c"]}}
    assert merge(pod(), patch)["metadata"]["finalizers"] == ["example.com/a", "example.com/b", "example.com/c"]
    only_new = {"metadata": {"finalizers": ["example.com/c"]}}
    assert merge(pod(), only_new)["metadata"]["finalizers"] == ["example.com/c", "example.com/a", "example.com/b"]


def test_delete_from_primitive_list() -> None:
    patch = {"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a", "example.com/zzz"]}}
    assert merge(pod(), patch)["metadata"]["finalizers"] == ["example.com/b"]


def test_delete_from_primitive_list_never_creates_the_list() -> None:
    patch = {"spec": {"$deleteFromPrimitiveList/podCIDRs": ["10.0.0.0/24"]}}
    assert merge({"spec": {}}, patch) == {"spec": {}}


def test_set_element_order_orders_a_primitive_list_without_storing_the_directive() -> None:
    patch = {"metadata": {"$setElementOrder/finalizers": ["example.com/b", "example.com/c", "example.com/a"],
                          "finalizers": ["example.com/c"]}}
    meta = merge(pod(), patch)["metadata"]
    assert meta["finalizers"] == ["example.com/b", "example.com/c", "example.com/a"]
    assert not [k for k in meta if k.startswith("$")]


def test_retain_keys_on_a_resource_claim_drops_the_other_source() -> None:
    # resourceClaims is patchStrategy:"merge,retainKeys": switching source clears the old one.
    patch = {"spec": {"resourceClaims": [
        {"$retainKeys": ["name", "resourceClaimName"], "name": "gpu", "resourceClaimName": "gpu-claim"}
    ]}}
    assert merge(pod(), patch)["spec"]["resourceClaims"] == [
        {"name": "gpu", "resourceClaimName": "gpu-claim"},
        {"name": "nic", "resourceClaimName": "nic-claim"},
    ]


def test_retain_keys_rejects_a_patched_key_it_does_not_list() -> None:
    patch = {"spec": {"nodeSelector": {"$retainKeys": ["disk"], "zone": "b"}}}
    with pytest.raises(BadRequest, match=r"^invalid patch format of retainKeys$"):
        merge(pod(), patch)


def test_replace_directive_on_a_map() -> None:
    patch = {"spec": {"nodeSelector": {"$patch": "replace", "zone": "c", "gone": None}}}
    assert merge(pod(), patch)["spec"]["nodeSelector"] == {"zone": "c"}


def test_replace_directive_in_a_list() -> None:
    patch = {"spec": {"schedulingGates": [{"$patch": "replace"}, {"name": "gate-z"}]}}
    assert merge(pod(), patch)["spec"]["schedulingGates"] == [{"name": "gate-z"}]


def test_delete_directive_on_a_map_leaves_it_empty() -> None:
    assert merge(pod(), {"spec": {"nodeSelector": {"$patch": "delete"}}})["spec"]["nodeSelector"] == {}


def test_directives_in_new_values_are_not_stored() -> None:
    original = {"metadata": {"name": "p"}, "spec": {"tolerations": []}}
    patch = {"status": {"$setElementOrder/conditions": [{"type": "Ready"}],
                        "conditions": [{"type": "Ready", "status": "True"}]},
             "spec": {"containers": [{"name": "c", "$setElementOrder/env": [{"name": "A"}],
                                      "env": [{"name": "A", "value": "1"}]}],
                      "tolerations": [{"key": "k", "$patch": "merge", "value": None}]}}
    assert merge(original, patch) == {
        "metadata": {"name": "p"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        "spec": {"containers": [{"name": "c", "env": [{"name": "A", "value": "1"}]}],
                 "tolerations": [{"key": "k"}]},
    }


def test_a_new_value_drops_maps_that_carry_a_patch_directive() -> None:
    # removeDirectives, applied to values the original does not have yet.
    patch = {"spec": {"tolerations": [{"key": "a"}, {"key": "b", "$patch": "delete"}], "x": {"$patch": "replace"}}}
    assert merge({}, patch) == {"spec": {"tolerations": [{"key": "a"}]}}


def test_type_change_replaces_the_value() -> None:
    assert merge({"a": {"b": 1}}, {"a": ["x", None]}, {}) == {"a": ["x", None]}


def test_path_argument_names_where_the_original_sits() -> None:
    spec = pod()["spec"]
    patch = {"schedulingGates": [{"name": "gate-a", "$patch": "delete"}]}
    result = strategic_merge(spec, patch, POD_SCHEMA, "spec")
    assert result["schedulingGates"] == [{"name": "gate-b"}, {"name": "gate-c"}]


def test_missing_merge_key_is_a_plain_go_error() -> None:
    patch = {"spec": {"containers": [{"image": "nginx:1.25"}]}}
    message = r"^map: map\[image:nginx:1\.25\] does not contain declared merge key: name$"
    with pytest.raises(UnknownError, match=message):
        merge(pod(), patch)


def test_unknown_patch_directive_on_a_map() -> None:
    with pytest.raises(UnknownError, match=r"^unknown patch type: bogus in map: map\[\$patch:bogus a:1\]$"):
        merge({"x": {"a": 0}}, {"x": {"$patch": "bogus", "a": 1}}, {})


def test_merge_directive_in_a_list_is_refused() -> None:
    patch = {"spec": {"schedulingGates": [{"$patch": "merge"}]}}
    with pytest.raises(UnknownError, match=r"^merging lists cannot yet be specified in the patch$"):
        merge(pod(), patch)


def test_patch_items_out_of_set_element_order_are_refused() -> None:
    patch = {"spec": {"$setElementOrder/schedulingGates": [{"name": "gate-a"}, {"name": "gate-b"}],
                      "schedulingGates": [{"name": "gate-b"}, {"name": "gate-a"}]}}
    message = (
        "The order in patch list:\n[map[name:gate-b] map[name:gate-a]]\n doesn't match $setElementOrder list:\n"
        "[map[name:gate-a] map[name:gate-b]]\n"
    )
    with pytest.raises(UnknownError) as caught:
        merge(pod(), patch)
    assert caught.value.message == message


def test_mixed_element_types_in_a_merge_list() -> None:
    patch = {"metadata": {"finalizers": [1]}}
    message = r"^list element types are not identical: \[\[example\.com/a example\.com/b\] \[1\]\]$"
    with pytest.raises(UnknownError, match=message):
        merge(pod(), patch)


def test_set_element_order_must_be_a_list() -> None:
    with pytest.raises(UnknownError, match=r"^expected a \[\]interface \{\}, but received a string$"):
        merge(pod(), {"spec": {"$setElementOrder/containers": "app"}})


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"metadata": {"$deleteFromPrimitiveListfinalizers": ["a"]}}, "invalid patch format of primitive list"),
        ({"metadata": {"$setElementOrder": []}}, "invalid patch format of setElementOrder list"),
        ({"spec": {"nodeSelector": {"$retainKeys": "zone"}}}, "invalid patch format of retainKeys"),
    ],
)
def test_malformed_directives_are_bad_requests(patch: dict[str, Any], message: str) -> None:
    with pytest.raises(BadRequest) as caught:
        merge(pod(), patch)
    assert caught.value.message == message
    assert caught.value.to_status()["code"] == 400


def test_list_of_lists_is_a_generic_422() -> None:
    with pytest.raises(InvalidPatch) as caught:
        merge({"metadata": {"finalizers": []}}, {"metadata": {"finalizers": [["x"]]}})
    assert caught.value.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "the server rejected our request due to an error in our request",
        "reason": "Invalid",
        "details": {},
        "code": 422,
    }


def test_unknown_error_renders_with_no_reason() -> None:
    error = UnknownError("map: map[] does not contain declared merge key: name")
    assert isinstance(error, StatusError)
    assert error.to_status() == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": "map: map[] does not contain declared merge key: name",
        "code": 500,
    }


def test_go_value_formats_like_fmt_v() -> None:
    value = {"b": [1, 2.5, None, True, "s p"], "a": {"z": 1e21, "y": 1e6, "x": 123456.0, "w": 0.0001, "v": 1e-05}}
    assert go_value(value) == "map[a:map[v:1e-05 w:0.0001 x:123456 y:1e+06 z:1e+21] b:[1 2.5 <nil> true s p]]"


def test_works_with_any_mapping_schema() -> None:
    schema = {"items": ListStrategy("id")}
    result = merge({"items": [{"id": 1, "v": "a"}]}, {"items": [{"id": 1, "v": "b"}, {"id": 2}]}, schema)
    assert result == {"items": [{"id": 1, "v": "b"}, {"id": 2}]}
