"""The write path's shortcuts give what the long way gives.

A write skips work where the answer is known: a comparison leaves out the subtrees a strategy
resets instead of dropping them after (:func:`compare`'s ``prune``), and does not walk containers
that are the same JSON on both sides; the creates of one template share their comparison; a patch
that leaves ``metadata.managedFields`` alone is applied without them
(:func:`keeps_managed_fields`); a binding or a delete copies the stored object but shares its
managedFields entries (:func:`copy_stored`). Each is checked here against the long way, on the objects
kube-apiserver v1.37.2 answered in the managed-fields corpus and on hand-made edge cases.
"""

from __future__ import annotations

import gc
import json
import random
import uuid
from typing import Any

import pytest

from fake_apiserver._machinery import managedfields
from fake_apiserver._machinery.clock import SystemClock, format_time, parse_time
from fake_apiserver._machinery.fieldset import (
    FieldSet,
    _index,
    _same,
    compare,
    item_element,
    path_of,
)
from fake_apiserver._machinery.gotypes import zero_object
from fake_apiserver._machinery.jsonutil import ByIdentity, copy_stored
from fake_apiserver._machinery.managedfields import (
    ManagedEntry,
    decode_managed_fields,
    encode_managed_fields,
    update_managed_fields,
)
from fake_apiserver._machinery.mergerules import DEDUCED, builtin_type
from fake_apiserver._machinery.patch import keeps_managed_fields
from fake_apiserver._registry.kinds import by_resource
from fake_apiserver._registry.resetfields import reset_fields
from fake_apiserver._storage.store import Store
from tests.fake_apiserver._machinery.test_managedfields import RECORDED, pod_manifest

SMP = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
    return {**obj, "metadata": meta}


def _recorded_pairs() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    pairs = []
    for step in json.loads(RECORDED.read_text()):
        before, after = step.get("before"), step.get("after")
        if isinstance(before, dict) and isinstance(after, dict) and "/" not in str(after.get("apiVersion", "")):
            pairs.append((str(step["step"]), before, after))
    return pairs


PAIRS = _recorded_pairs()


def test_the_corpus_holds_writes_of_built_in_objects() -> None:
    assert len(PAIRS) >= 20


@pytest.mark.parametrize("subresource", ["", "status"])
def test_a_pruned_comparison_is_the_comparison_without_the_reset_subtrees(subresource: str) -> None:
    compared = 0
    for step, before, after in PAIRS:
        kind = after.get("kind")
        if kind not in ("Pod", "Node", "ConfigMap", "Service"):
            continue
        ftype = builtin_type("", "v1", kind)
        reset = reset_fields("", kind, subresource)
        old, new = _without_managed_fields(before), _without_managed_fields(after)
        pruned = compare(old, new, ftype, prune=reset)
        whole = compare(old, new, ftype)
        assert pruned.all() == whole.all().without_subtrees(reset), step
        assert pruned.changed() == whole.changed().without_subtrees(reset), step
        compared += 1
    assert compared >= 10


def test_equal_looking_values_of_another_json_type_are_still_a_change() -> None:
    # Python's == takes True for 1: a container holding one where the other holds the other is walked
    old = {"data": {"a": [1, {"b": 1}], "c": 1}}
    new = {"data": {"a": [True, {"b": True}], "c": True}}
    changes = compare(old, new, DEDUCED)
    assert sorted(p[-1].text for p in changes.modified) == ["f:a", "f:c"]
    assert not compare(old, json.loads(json.dumps(old)), DEDUCED).all()


def _created(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return update_managed_fields(None, zero_object("", "v1", "Pod"), obj, builtin_type("", "v1", "Pod"),
                                 manager="m", api_version="v1", time="2026-01-01T00:00:00Z",
                                 reset=reset_fields("", "Pod", ""), creating=True)


def test_creates_of_one_template_by_one_writer_in_one_second_share_one_entry() -> None:
    first, again = _created(pod_manifest("a")), _created(pod_manifest("b"))
    assert first[0] is again[0] and first is not again
    other = pod_manifest("c")
    other["metadata"]["labels"]["tier"] = "x"
    assert _created(other)[0] is not first[0]
    later = update_managed_fields(None, zero_object("", "v1", "Pod"), pod_manifest("d"), builtin_type("", "v1", "Pod"),
                                  manager="m", api_version="v1", time="2026-01-01T00:00:01Z",
                                  reset=reset_fields("", "Pod", ""), creating=True)
    assert later[0] is not first[0] and later[0]["time"] == "2026-01-01T00:00:01Z"
    (read,) = decode_managed_fields(json.loads(json.dumps(first)))  # as a body would carry it
    assert encode_managed_fields([read]) == first


def test_creates_of_one_template_share_their_changes_and_no_others() -> None:
    first = _created(pod_manifest("a"))
    again = _created({**pod_manifest("b"), "metadata": {"name": "b", "labels": {"app": "a"}}})
    assert again == first
    # a value that is a list item's key (the container's name) is no template's detail
    other = pod_manifest("a")
    other["spec"]["containers"][0]["name"] = "d"
    fields = json.dumps(_created(other)[0]["fieldsV1"])
    assert 'k:{\\"name\\":\\"d\\"}' in fields and 'k:{\\"name\\":\\"c\\"}' not in fields
    # one more label is one more owned field
    labelled = pod_manifest("a")
    labelled["metadata"]["labels"]["tier"] = "x"
    assert '"f:tier"' in json.dumps(_created(labelled)[0]["fieldsV1"])


@pytest.mark.parametrize(("body", "content_type", "keeps"), [
    ({"status": {"phase": "Running"}}, SMP, True),
    ({"metadata": {"labels": {"a": "b"}}}, MERGE, True),
    ({"metadata": {"managedFields": []}}, MERGE, False),
    ({"metadata": {"$setElementOrder/managedFields": []}}, SMP, False),
    ({"metadata": {"$patch": "replace", "name": "p"}}, SMP, False),
    ({"metadata": {"$retainKeys": ["name"]}}, SMP, False),
    ({"$patch": "replace", "metadata": {"name": "p"}}, SMP, False),
    ({"metadata": None}, MERGE, False),
    ([{"op": "add", "path": "/metadata/labels/a", "value": "b"}], "application/json-patch+json", False),
])
def test_a_patch_keeps_managed_fields_only_when_it_surely_does(body: Any, content_type: str, keeps: bool) -> None:
    assert keeps_managed_fields(json.dumps(body).encode(), content_type) is keeps


def test_an_escaped_managed_fields_key_is_seen() -> None:
    assert not keeps_managed_fields(b'{"metadata":{"managed\\u0046ields":[]}}', MERGE)


@pytest.mark.parametrize("body", [
    b'{"m\\u0065tadata":{"labels":{"a":"b"}}}',  # metadata, escaped: the patch is read, and keeps them
    b'{"status":{"message":"\\"$patch\\" is a text"}}',  # a text that names a directive
    b' {"status":{"phase":"Running"}}',
    b'{"status":{"conditions":[{"type":"PodScheduled","message":"0/3 nodes are available."}]}}',
])
def test_a_patch_whose_text_names_none_of_those_keys_is_answered_as_when_read(body: bytes) -> None:
    assert keeps_managed_fields(body, SMP) is True


@pytest.mark.parametrize("body", [b'["not an object"]', b'"{}"', b'null'])
def test_a_patch_that_is_no_object_keeps_nothing(body: bytes) -> None:
    assert keeps_managed_fields(body, SMP) is False


def test_a_patch_applied_without_managed_fields_keeps_them_and_the_stored_object() -> None:
    spec = by_resource("", "v1", "pods")
    assert spec is not None
    store = Store()
    store.create(spec, "default", pod_manifest("p"))
    old = store.get(spec, "default", "p")
    snapshot = json.dumps(old)
    patched = store.patch(spec, "default", "p", json.dumps({"metadata": {"labels": {"tier": "x"}}}).encode(), SMP)
    assert json.dumps(old) == snapshot  # the stored object the patch started from is untouched
    (entry,) = patched["metadata"]["managedFields"]  # the same manager's Update entry, grown
    fields = entry["fieldsV1"]
    assert set(fields["f:metadata"]["f:labels"]) == {".", "f:app", "f:tier"}
    assert 'k:{"name":"c"}' in fields["f:spec"]["f:containers"]
    # kube-apiserver's documented way to strip them: one empty entry, by a JSON patch
    strip = [{"op": "replace", "path": "/metadata/managedFields", "value": [{}]}]
    cleared = store.patch(spec, "default", "p", json.dumps(strip).encode(), "application/json-patch+json")
    assert "managedFields" not in cleared["metadata"]


def test_a_stored_copy_shares_only_the_managed_fields_entries() -> None:
    stored = {"kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"},
                                          "managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {}}}]},
              "spec": {"containers": [{"name": "c"}]}}
    copy = copy_stored(stored)
    assert copy == stored and list(copy) == list(stored) and list(copy["metadata"]) == list(stored["metadata"])
    copy["spec"]["containers"][0]["name"] = "d"
    copy["metadata"]["labels"]["a"] = "c"
    copy["metadata"]["managedFields"].append({"manager": "n"})
    assert stored["spec"]["containers"][0]["name"] == "c" and stored["metadata"]["labels"] == {"a": "b"}
    assert [e["manager"] for e in stored["metadata"]["managedFields"]] == ["m"]


def test_a_binding_leaves_the_stored_pod_and_its_managed_fields_as_they_were() -> None:
    pods, nodes = by_resource("", "v1", "pods"), by_resource("", "v1", "nodes")
    assert pods is not None and nodes is not None
    store = Store()
    store.create(nodes, None, {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    store.create(pods, "default", pod_manifest("p"))
    old = store.get(pods, "default", "p")
    snapshot = json.dumps(old)
    store.bind("default", "p", {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
                                "target": {"kind": "Node", "name": "n1"}})
    bound = store.get(pods, "default", "p")
    assert json.dumps(old) == snapshot
    assert bound["spec"]["nodeName"] == "n1"
    assert bound["metadata"]["managedFields"] == old["metadata"]["managedFields"]


def test_uids_are_the_version_4_uuids_of_the_seeded_generator() -> None:
    """The store formats a uid itself; Python's ``uuid`` module, fed the same random bits (two
    ``random.Random`` of one seed, the store's from the point its built-in namespaces were made),
    says what each must be."""
    store, bits = Store(seed=7), random.Random(7)
    store._rng = random.Random(7)
    spec = by_resource("", "v1", "configmaps")
    for i in range(300):
        made = store.create(spec, "default", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}})
        assert made["metadata"]["uid"] == str(uuid.UUID(int=bits.getrandbits(128), version=4))


@pytest.mark.parametrize("keys", [["kind", "apiVersion", "metadata", "spec", "status"],
                                  ["apiVersion", "kind", "status", "metadata", "spec"],
                                  ["kind", "extra", "apiVersion", "spec", "other"],
                                  ["kind", "apiVersion", "spec", "extra", "other"]])
def test_keys_put_in_go_order_are_those_of_a_rebuilt_map(keys: list[str]) -> None:
    """``in_order`` gives back a map already in order as it is, and another rebuilt: either way
    the keys are those of the rebuild, the order's first and the rest as they came."""
    from fake_apiserver._machinery.jsonutil import in_order

    order = ("kind", "apiVersion", "metadata", "spec", "status")
    obj = {key: key.upper() for key in keys}
    rebuilt = [k for k in order if k in obj] + [k for k in obj if k not in order]
    out = in_order(obj, order)
    assert list(out) == rebuilt and out == obj
    assert (out is obj) == (list(obj) == rebuilt)


@pytest.mark.parametrize("body_keys", [["kind", "apiVersion", "metadata", "spec", "status"],
                                       ["status", "spec", "metadata", "kind", "apiVersion"],
                                       ["apiVersion", "kind", "metadata", "status"]])
def test_a_write_through_status_is_stored_in_go_order_with_the_stored_spec(body_keys: list[str]) -> None:
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    store = Store()
    created = store.create(pods, "default", pod_manifest("p"))
    version = created["metadata"]["resourceVersion"]
    body = {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "resourceVersion": version},
            "spec": {"containers": [{"name": "other", "image": "x"}]}, "status": {"phase": "Running"}}
    updated = store.update(pods, "default", "p", {k: body[k] for k in body_keys}, subresource="status")
    assert list(updated)[:5] == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert updated["spec"] is created["spec"] and updated["status"]["phase"] == "Running"
    patched = store.patch(pods, "default", "p", b'{"status":{"phase":"Succeeded"}}', SMP, subresource="status")
    assert list(patched)[:5] == ["kind", "apiVersion", "metadata", "spec", "status"]
    assert patched["spec"] is created["spec"]


def test_a_patch_result_is_defaulted_unless_it_shares_the_stored_spec() -> None:
    """A pod's defaults write in its spec alone: a patch that leaves the spec shared with the
    stored pod (defaulted when it was written) is not defaulted again, one that makes a new spec
    is, so a default a JSON patch removes comes back as the decoder's defaulting puts it back."""
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    store = Store()
    created = store.create(pods, "default", pod_manifest("p"))
    assert created["spec"]["dnsPolicy"] == "ClusterFirst"
    labelled = store.patch(pods, "default", "p", b'{"metadata":{"labels":{"tier":"x"}}}', SMP)
    assert labelled["spec"] is created["spec"]
    status = store.patch(pods, "default", "p", b'{"status":{"phase":"Running"}}', SMP, subresource="status")
    assert status["spec"] is created["spec"]
    removed = store.patch(pods, "default", "p", b'[{"op":"remove","path":"/spec/dnsPolicy"}]',
                          "application/json-patch+json")
    assert removed["spec"]["dnsPolicy"] == "ClusterFirst"  # put back: the write changes nothing, and is none
    assert removed["metadata"]["resourceVersion"] == status["metadata"]["resourceVersion"]


def _project_garbage(collected: list[Any]) -> list[str]:
    """What of a collection's garbage the project made: its functions, and instances of its types."""
    names = []
    for obj in collected:
        module = obj.__module__ if callable(obj) and hasattr(obj, "__code__") else type(obj).__module__
        if str(module).startswith("fake_apiserver"):
            names.append(getattr(obj, "__qualname__", type(obj).__qualname__))
    return names


def _writes(store: Store, pods: Any, round: int) -> None:
    name = f"q{round}"
    store.create(pods, "default", pod_manifest(name))
    for i in range(3):
        condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": f"{round}.{i}"}
        store.patch(pods, "default", "p", json.dumps({"status": {"conditions": [condition]}}).encode(), SMP,
                    subresource="status")
    store.patch(pods, "default", name, b'{"metadata":{"labels":{"tier":"x"}}}', MERGE)
    store.delete(pods, "default", name)


def test_writes_leave_no_cycles_for_the_garbage_collector() -> None:
    """A write frees what it made as it drops it: a cycle per write (nested functions that refer to
    each other, say) would leave the collector a pile to walk and free at every collection. The
    first writes of a shape fill memos, which may; the same writes again must not."""
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    store = Store()
    store.create(pods, "default", pod_manifest("p"))
    _writes(store, pods, 0)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        _writes(store, pods, 1)
        gc.collect()
        assert _project_garbage(gc.garbage) == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_an_entry_nothing_changed_is_written_back_as_the_same_dict() -> None:
    """The entries a write reads are known by identity from the write that encoded them: one the
    write leaves as it was is the same dict in the new object, one it changes is new, and every
    entry reads back as a fresh decoding of its JSON does."""
    pods = by_resource("", "v1", "pods")
    assert pods is not None
    store = Store()
    store.create(pods, "default", pod_manifest("p"))

    def status(message: str) -> dict[str, Any]:
        condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}
        body = json.dumps({"status": {"conditions": [condition]}}).encode()
        return store.patch(pods, "default", "p", body, SMP, subresource="status")

    first, second = status("one"), status("two")
    labelled = store.patch(pods, "default", "p", b'{"metadata":{"labels":{"tier":"x"}}}', SMP)
    main_entry = {e.get("subresource", ""): e for e in first["metadata"]["managedFields"]}[""]
    assert {e.get("subresource", ""): e for e in second["metadata"]["managedFields"]}[""] is main_entry
    changed = {e.get("subresource", ""): e for e in labelled["metadata"]["managedFields"]}[""]
    assert changed is not main_entry and "f:tier" in changed["fieldsV1"]["f:metadata"]["f:labels"]
    for obj in (first, second, labelled):
        entries = obj["metadata"]["managedFields"]
        assert encode_managed_fields(decode_managed_fields(json.loads(json.dumps(entries)))) == entries


def test_a_dict_equal_to_a_known_entry_is_read_afresh() -> None:
    """An entry a body sends is read from its own keys, even when an entry encoded before was equal
    to it and has since been changed in the body's copy."""
    fields = FieldSet([path_of("metadata", "labels", "a")])
    (known,) = encode_managed_fields([ManagedEntry("m", "Update", "v1", "2026-01-01T00:00:00Z", fields)])
    sent = json.loads(json.dumps(known))
    sent["manager"] = "other"
    (entry,) = decode_managed_fields([sent])
    assert entry.manager == "other"
    assert encode_managed_fields([entry]) == [sent] and encode_managed_fields([entry])[0] is not sent


def test_by_identity_lets_its_oldest_entry_go_first() -> None:
    memo: ByIdentity[int] = ByIdentity(3)
    objects: list[dict[str, Any]] = [{} for _ in range(5)]  # held here, so no id is used twice
    for i, obj in enumerate(objects[:3]):
        memo.put(obj, i)
    memo.put(objects[0], 10)  # a known object: its value changes, it keeps its place, none leaves
    assert len(memo) == 3 and memo.get(objects[0]) == 10
    assert memo.get({}) is None  # equal is not the same
    memo.put(objects[3], 3)
    assert memo.get(objects[0]) is None and [memo.get(o) for o in objects[1:4]] == [1, 2, 3]
    memo.put(objects[4], 4)
    assert memo.get(objects[1]) is None and [memo.get(o) for o in objects[2:]] == [2, 3, 4]
    for i in range(1000):
        memo.put({"i": i}, i)
    assert len(memo) == 3 and all(memo.get(o) is None for o in objects)


def test_the_known_entries_are_bounded() -> None:
    fields = FieldSet([path_of("data", "k")])
    for i in range(managedfields._KNOWN_SIZE + 10):
        encode_managed_fields([ManagedEntry(f"m{i}", "Update", "v1", None, fields)])
    assert len(managedfields._known) <= managedfields._KNOWN_SIZE


@pytest.mark.parametrize("items", [
    [{"type": "Ready"}, {"type": "PodScheduled"}],
    [{"type": "Ready", "status": "True"}, {"type": "Ready", "status": "False"}],  # a repeated key counts once
    [{"type": "Ready"}, {"status": "True"}],  # an item without its key
    [{"type": "Ready"}, {"type": 3}],  # a key that is no text
    [{"type": "Ready"}, "not a map"],
    [],
])
def test_a_list_indexed_by_its_one_key_is_indexed_as_item_by_item(items: list[Any]) -> None:
    conditions = builtin_type("", "v1", "Pod").child("status").child("conditions")
    assert conditions is not None and conditions.keys == ("type",)
    by_item: dict[Any, Any] = {}
    for i, item in enumerate(items):
        element = item_element(conditions, i, item)
        if element is not None and element not in by_item:
            by_item[element] = item
    indexed = _index(conditions, items)
    assert list(indexed) == list(by_item) and all(indexed[e] is by_item[e] for e in by_item)


def test_the_system_clock_writes_the_time_as_format_time_does() -> None:
    clock = SystemClock()
    for _ in range(3):
        before = format_time(clock.now())
        text = clock.now_text()
        after = format_time(clock.now())
        assert text in (before, after)
        assert parse_time(text).replace(microsecond=0) == parse_time(text)  # whole seconds, UTC


_SHARED = {"app": "x"}


@pytest.mark.parametrize("lhs, rhs", [
    ({"a": "x", "l": _SHARED}, {"a": "".join(["x"]), "l": _SHARED}),  # an equal text, a shared map
    ({"a": 1, "b": True}, {"a": 1, "b": True}),
    ({"a": 1}, {"a": True}),  # equal in Python, not in JSON
    ({"a": 1}, {"a": 1.0}),
    ({"a": 0.0}, {"a": -0.0}),
    ({"a": {"b": 1}}, {"a": {"b": True}}),  # equal maps below, not the same JSON
    ({"a": [1, 2]}, {"a": [1, 2]}),
    ([1, {"a": "x"}], [1, {"a": "x"}]),
])
def test_containers_are_the_same_exactly_when_their_sorted_json_is(lhs: Any, rhs: Any) -> None:
    same = json.dumps(lhs, sort_keys=True) == json.dumps(rhs, sort_keys=True)
    assert _same(lhs, rhs) is same
