"""The naming controller's status of CustomResourceDefinitions (``naming.json``): six CRDs of one
group each conflicting with a first one in one way, the conditions it writes, and the names accepted
once the first is deleted.

Each expected answer was kube-apiserver v1.37.2's, kept in ``tests/data/apiextensions/``; with
``KUBEBUILDER_ASSETS`` set, the differential test posts the same requests to a real server again
(``real`` in this folder's conftest) and compares code, message and causes with what the rules give.
"""

from __future__ import annotations

import json
import time

import pytest

from fake_apiserver._registry.apiextensions.customresourcedefinition.naming import names_status
from tests.support.crds import DATA, LATER, CrdClient, Obj, crd, established, needs_binaries, without_times


# --------------------------------------------------------------------------- the naming controller


NAMING_GROUP = "conflict.example.com"
NAMING: list[tuple[str, Obj]] = [
    ("kind", {"plural": "gadgets", "kind": "Widget"}),
    ("singular", {"plural": "gizmos", "singular": "widgets", "kind": "Gizmo"}),
    ("plural-as-singular", {"plural": "widget", "kind": "Thing"}),
    ("shortnames", {"plural": "doohickeys", "kind": "Doohickey", "shortNames": ["wd", "widget", "dh"]}),
    ("listkind", {"plural": "sprockets", "kind": "Sprocket", "listKind": "WidgetList"}),
    ("kind-equals-other-listkind", {"plural": "lists", "kind": "WidgetList"}),
]
FIRST_NAMES = {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"], "listKind": "WidgetList"}


def fake_naming_sequence() -> dict[str, Obj]:
    """``naming.json``'s sequence: a first CRD, then six of the same group each conflicting with
    it in one way, then the first deleted and the others' names reconsidered."""
    stored: dict[str, Obj] = {}
    out: dict[str, Obj] = {}
    first = established(crd("widgets", NAMING_GROUP, names=dict(FIRST_NAMES)))
    stored[first["metadata"]["name"]] = first
    out["first"] = first["status"]
    for key, names in NAMING:
        obj = established(crd(str(names["plural"]), NAMING_GROUP, names=dict(names)), list(stored.values()))
        stored[obj["metadata"]["name"]] = obj
        out["conflict-" + key] = obj["status"]
    del stored["widgets." + NAMING_GROUP]
    for name in list(stored):  # the controller requeues the whole group (here in creation order)
        stored[name]["status"] = names_status(stored[name], list(stored.values()), LATER)
    out["after-delete-kind"] = stored["gadgets." + NAMING_GROUP]["status"]
    out["after-delete-singular"] = stored["gizmos." + NAMING_GROUP]["status"]
    return out


CAPTURED_NAMING: dict[str, Obj] = json.loads((DATA / "naming.json").read_text())


@pytest.mark.parametrize("key", sorted(CAPTURED_NAMING))
def test_names_status_gives_what_the_controllers_wrote(key: str) -> None:
    assert without_times(fake_naming_sequence()[key]) == without_times(CAPTURED_NAMING[key])


def test_a_kind_conflict_names_the_last_conflicting_name() -> None:
    status = fake_naming_sequence()["conflict-kind"]
    assert status["acceptedNames"] == {"plural": "gadgets", "kind": ""}
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("NamesAccepted", "False", "ListKindConflict", '"WidgetList" is already in use'),
        ("Established", "False", "NotAccepted", "not all names are accepted")]


def test_a_freed_name_is_accepted_and_the_transition_time_moves() -> None:
    status = fake_naming_sequence()["after-delete-kind"]
    assert [(c["type"], c["status"], c["lastTransitionTime"]) for c in status["conditions"]] == [
        ("NamesAccepted", "True", LATER), ("Established", "True", LATER)]


@needs_binaries
def test_the_naming_sequence_agrees_with_a_real_kube_apiserver(real: CrdClient) -> None:
    group = "live." + NAMING_GROUP
    first = crd("widgets", group, names=dict(FIRST_NAMES))
    assert real.request("POST", "", first)[0] == 201
    real.settled(first["metadata"]["name"])
    theirs: dict[str, Obj] = {}
    for key, names in NAMING:
        body = crd(str(names["plural"]), group, names=dict(names))
        assert real.request("POST", "", body)[0] == 201
        real.settled(body["metadata"]["name"])
        time.sleep(0.5)  # let the controller settle its last word (polling a real server)
        theirs["conflict-" + key] = real.request("GET", "/" + body["metadata"]["name"])[1]["status"]
    ours = fake_naming_sequence()
    assert {k: without_times(v) for k, v in theirs.items()} == {
        k: without_times(v) for k, v in ours.items() if k in theirs}
