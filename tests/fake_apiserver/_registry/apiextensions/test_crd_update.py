"""A CustomResourceDefinition's updates, step by step on an established CRD (``update.json``): the
scope that may not change once established, the stored versions a spec must keep, the generation
that follows the spec, and a ``/status`` write that keeps the spec and takes the labels.

Each expected answer was kube-apiserver v1.37.2's, kept in ``tests/data/apiextensions/``; with
``KUBEBUILDER_ASSETS`` set, the differential test posts the same requests to a real server again
(``real`` in this folder's conftest) and compares code, message and causes with what the rules give.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Callable, Iterator

import pytest

from fake_apiserver._registry.apiextensions.customresourcedefinition.naming import names_status
from fake_apiserver._registry.apiextensions.customresourcedefinition.strategy import CLEANUP_FINALIZER
from tests.support.crds import (
    DATA,
    NOW,
    CrdClient,
    Obj,
    answer_of,
    crd,
    established,
    fake_update,
    needs_binaries,
    version,
    without_times,
)


# --------------------------------------------------------------------------- update


def _set_scope(o: Obj) -> None:
    o["spec"]["scope"] = "Cluster"


def _set_kind(o: Obj) -> None:
    o["spec"]["names"].update(kind="Gadget", listKind="GadgetList", singular="gadget")


def _set_group(o: Obj) -> None:
    o["spec"]["group"] = "other.example.com"


def _set_plural(o: Obj) -> None:
    o["spec"]["names"]["plural"] = "gadgets"


def _write_status_in_main(o: Obj) -> None:
    o["status"]["storedVersions"] = ["v9"]
    o["status"]["acceptedNames"]["kind"] = "Other"


def _add_short_name(o: Obj) -> None:
    o["spec"]["names"]["shortNames"] = ["wd"]


def _no_change(o: Obj) -> None:
    pass


def _add_v2_storage(o: Obj) -> None:
    o["spec"]["versions"][0]["storage"] = False
    o["spec"]["versions"].append(version("v2", True))


def _remove_v1(o: Obj) -> None:
    o["spec"]["versions"].pop(0)


def _stored(*names: str) -> Callable[[Obj], None]:
    def mutate(o: Obj) -> None:
        o["status"]["storedVersions"] = list(names)
    return mutate


def _bad_accepted_plural(o: Obj) -> None:
    o["metadata"]["labels"] = {"a": "b"}
    o["spec"]["scope"] = "Cluster"
    o["status"]["storedVersions"] = ["v2"]
    o["status"]["acceptedNames"]["plural"] = "Bad_Plural"


def _status_with_meta_and_spec(o: Obj) -> None:
    o["metadata"]["labels"] = {"a": "b"}
    o["spec"]["scope"] = "Cluster"
    o["status"]["storedVersions"] = ["v2"]


UPDATES: list[tuple[str, Callable[[Obj], None], bool]] = [
    ("scope", _set_scope, False), ("kind", _set_kind, False), ("group", _set_group, False),
    ("plural", _set_plural, False), ("main-write-ignores-status", _write_status_in_main, False),
    ("spec-change-generation", _add_short_name, False), ("no-change-generation", _no_change, False),
    ("add-v2-storage", _add_v2_storage, False), ("remove-v1-stored", _remove_v1, False),
    ("status-stored-without-storage", _stored("v1"), True), ("status-stored-unknown", _stored("v2", "v7"), True),
    ("status-stored-empty", _stored(), True), ("status-bad-accepted-names", _bad_accepted_plural, True),
    ("status-write-resets-meta-and-spec", _status_with_meta_and_spec, True),
]
"""An established CRD updated step by step (each step on the object as the last success left it,
the naming controller run after each): what ``update.json`` recorded."""

UPDATE_GROUP = "update.example.com"


def fake_update_sequence() -> Iterator[tuple[str, Obj]]:
    state = established(crd("widgets", UPDATE_GROUP, versions=[version("v1", True)]))
    for key, mutate, status in UPDATES:
        new = copy.deepcopy(state)
        mutate(new)
        answer, written = fake_update(state, new, status=status)
        if written is not None:
            state = written
            state["status"] = names_status(state, [], NOW)
        yield key, answer


CAPTURED_UPDATE: dict[str, Obj] = json.loads((DATA / "update.json").read_text())


@pytest.mark.parametrize(("key", "answer"), list(fake_update_sequence()), ids=[u[0] for u in UPDATES])
def test_each_update_answers_as_kube_apiserver_did(key: str, answer: Obj) -> None:
    assert without_times(answer) == without_times(CAPTURED_UPDATE[key])


def test_a_version_still_stored_may_not_be_removed() -> None:
    assert dict(fake_update_sequence())["remove-v1-stored"]["message"] == (
        'CustomResourceDefinition.apiextensions.k8s.io "widgets.update.example.com" is invalid: '
        'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage '
        "version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 "
        "and removes v1 from status.storedVersions")


def test_scope_is_immutable_once_established_and_the_generation_follows_the_spec() -> None:
    answers = dict(fake_update_sequence())
    assert answers["scope"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.scope",
                                          "message": 'Invalid value: "Cluster": field is immutable'}]
    assert [answers[k]["metadata"]["generation"] for k in
            ("main-write-ignores-status", "spec-change-generation", "no-change-generation", "add-v2-storage")] == [1, 2, 2, 3]
    assert answers["add-v2-storage"]["status"]["storedVersions"] == ["v1", "v2"]


def test_a_status_write_keeps_the_spec_and_takes_the_labels() -> None:
    answer = dict(fake_update_sequence())["status-write-resets-meta-and-spec"]
    assert (answer["spec"]["scope"], answer["metadata"]["labels"], answer["status"]["storedVersions"]) == (
        "Namespaced", {"a": "b"}, ["v2"])


@needs_binaries
def test_the_update_sequence_agrees_with_a_real_kube_apiserver(real: CrdClient) -> None:
    body = crd("widgets", UPDATE_GROUP, versions=[version("v1", True)])
    code, answer = real.request("POST", "", body)
    assert code == 201, answer
    real.settled(body["metadata"]["name"])
    ours = dict(fake_update_sequence())
    disagreements = {}
    for key, mutate, status in UPDATES:
        _, current = real.request("GET", "/" + body["metadata"]["name"])
        mutate(current)
        code, answer = real.request("PUT", "/" + body["metadata"]["name"] + ("/status" if status else ""), current)
        theirs = answer_of(code, answer, ("metadata", "spec", "status"))
        if without_times(theirs) != without_times(ours[key]):
            disagreements[key] = (theirs, ours[key])
        if code == 200:
            real.settled(body["metadata"]["name"])
            time.sleep(0.5)  # the naming controller's answer to a names change (polling a real server)
    print(f"{len(UPDATES) - len(disagreements)} of {len(UPDATES)} updates agree")
    assert disagreements == {}
    code, answer = real.request("DELETE", "/" + body["metadata"]["name"])
    assert (code, answer["kind"], answer["metadata"]["finalizers"]) == (
        200, "CustomResourceDefinition", [CLEANUP_FINALIZER])
