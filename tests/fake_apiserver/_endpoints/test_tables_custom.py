"""Custom resources' server-side Tables, as kube-apiserver v1.37.2 renders them.

``kubectl get <custom resource>`` prints the columns the server builds from the CRD version's
``additionalPrinterColumns``. Three CRDs (:data:`CRDS`) are created on both servers: one with a
column of each type (integer, number, string, boolean, date), formats, descriptions and
priorities 0, 1 and 2, JSONPaths of every form the fake evaluates (fields, escapes, indexes,
slices, unions, wildcards, filters, recursive descent), and a second served version with other
columns; one that declares no columns; one whose middle column's path kube cannot parse. The
objects (:data:`OBJECTS`) have the fields, lack them, hold the wrong JSON types, nulls, floats
that are integral, bad and future dates. Each request of :data:`REQUESTS` (lists at both
versions, a GET, a watch's first events, a list after the CRD's columns changed, all as
Tables) is a case.

Two checks, as in ``tests/fake_apiserver/_endpoints/test_tables_kinds.py``:

* offline: the fake against ``tests/data/tables/custom-v1.37.2.json``, what kube-apiserver v1.37.2
  answered (rewrite it with ``SCHEDHARNESS_RECORD_TABLES=1`` and a real server);
* differential, when ``KUBEBUILDER_ASSETS`` names the binaries: the fake against a live one.

Ages and the other ``date`` cells read the clock, so a cell of a ``date`` column that is a
duration (the shape ``HumanDuration`` prints) is compared as "a duration"; ``<invalid>`` and
``<unknown>`` exactly, and every other cell exactly.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
from typing import Any, Iterator

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import TEST_DATA
from tests.support.threaded_server import ThreadedServer
from tests.fake_apiserver._endpoints.test_tables_kinds import TABLE, Client, FixedClock

__all__: list[str] = []

RECORDING = TEST_DATA / "tables" / "custom-v1.37.2.json"
RECORD = os.environ.get("SCHEDHARNESS_RECORD_TABLES", "") == "1"
NS = "default"
GROUP = "tables.example.com"
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))

_FREE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_SCHEMA = {"openAPIV3Schema": {"type": "object", "properties": {"spec": _FREE, "status": _FREE}}}

GADGET_COLUMNS: list[dict[str, Any]] = [
    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
    {"name": "Ratio", "type": "number", "format": "float", "jsonPath": ".spec.ratio", "description": "the ratio"},
    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'},
    {"name": "On", "type": "boolean", "jsonPath": ".spec.enabled", "priority": 1},
    {"name": "Started", "type": "date", "jsonPath": ".status.startedAt"},
    {"name": "First", "type": "string", "jsonPath": ".spec.items[0]", "priority": 2},
    {"name": "Last", "type": "string", "jsonPath": ".spec.items[-1]"},
    {"name": "Free", "type": "string", "format": "byte", "jsonPath": ".spec.free"},
    {"name": "Num", "type": "string", "jsonPath": ".spec.num"},
    {"name": "Count", "type": "integer", "format": "int32", "jsonPath": ".spec.count", "priority": 1},
    {"name": "Names", "type": "string", "jsonPath": ".spec.rows[*].name"},
    {"name": "Big", "type": "string", "jsonPath": ".spec.rows[?(@.n > 1)].name"},
    {"name": "NotX", "type": "string", "jsonPath": '.spec.rows[?(@.name != "x")].name'},
    {"name": "HasN", "type": "string", "jsonPath": ".spec.rows[?(@.n)].name"},
    {"name": "Slice", "type": "string", "jsonPath": ".spec.rows[1:3]"},
    {"name": "Union", "type": "string", "jsonPath": ".spec.rows[2,0].name"},
    {"name": "Dotted", "type": "string", "jsonPath": ".metadata.labels.a\\.b/c"},
    {"name": "Quoted", "type": "string", "jsonPath": ".metadata.labels['a.b/c']"},
    {"name": "Any", "type": "string", "jsonPath": ".spec.one.*"},
    {"name": "Bytes", "type": "integer", "jsonPath": ".spec.word.*"},
    {"name": "Deep", "type": "string", "jsonPath": "..deep"},
    {"name": "Gen", "type": "integer", "jsonPath": ".metadata.generation", "priority": 1},
    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
]
GADGET_V2_COLUMNS: list[dict[str, Any]] = [
    {"name": "Phase", "type": "string", "jsonPath": ".status.phase", "description": "What the gadget does",
     "priority": 1},
    {"name": "Share", "type": "number", "jsonPath": ".spec.replicas"},
    {"name": "Whole", "type": "integer", "jsonPath": ".spec.ratio"},
]
BROKEN_COLUMNS: list[dict[str, Any]] = [
    {"name": "A", "type": "string", "jsonPath": ".spec.a"},
    {"name": "B", "type": "string", "jsonPath": '.spec["b"]'},  # kube's parser refuses: B and C dropped
    {"name": "C", "type": "string", "jsonPath": ".spec.c"},
]


def _crd(plural: str, kind: str, columns: list[dict[str, Any]] | None,
         extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    version: dict[str, Any] = {"name": "v1", "served": True, "storage": True, "schema": _SCHEMA}
    if columns is not None:
        version["additionalPrinterColumns"] = columns
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "scope": "Namespaced", "names": {"plural": plural, "kind": kind},
                     "versions": [version, *(extra or [])]}}


CRDS = [
    _crd("gadgets", "Gadget", GADGET_COLUMNS, [{"name": "v2", "served": True, "storage": False, "schema": _SCHEMA,
                                               "additionalPrinterColumns": GADGET_V2_COLUMNS}]),
    _crd("plains", "Plain", None),
    _crd("brokens", "Broken", BROKEN_COLUMNS),
]

_ROWS = [{"name": "x", "n": 1}, {"name": "y", "n": 2}, {"name": "z", "n": 3}]
OBJECTS: list[tuple[str, dict[str, Any]]] = [
    ("gadgets", {"metadata": {"name": "full", "labels": {"a.b/c": "dotted"}}, "spec": {
        "replicas": 3, "ratio": 0.5, "enabled": True, "items": ["a", "b", "c"],
        "free": {"z": 1, "a": [1, 2.5, "<x>"]}, "num": 1000000.0, "count": 7, "rows": _ROWS,
        "one": {"k": "v"}, "word": "ab", "nested": {"deep": "down"}},
        "status": {"startedAt": "2020-01-01T00:00:00Z", "phase": "Running",
                   "conditions": [{"type": "Other", "status": "False"}, {"type": "Ready", "status": "True"}]}}),
    ("gadgets", {"metadata": {"name": "empty"}}),
    ("gadgets", {"metadata": {"name": "wrong"}, "spec": {
        "replicas": "3", "ratio": "x", "enabled": "true", "items": [], "free": "s", "num": True, "count": {"a": 1},
        "rows": [{"name": "x", "n": "2"}, {"name": "y"}], "one": "v", "word": 5},
        "status": {"startedAt": "yesterday", "conditions": [{"type": "Ready"}], "phase": 3}}),
    ("gadgets", {"metadata": {"name": "floats"}, "spec": {
        "replicas": 3.7, "ratio": 2, "enabled": False, "items": [1, 2.0],
        "free": [1.0, 1e21, 1e-7, 123456789.0, 0.00001], "num": 1234567.5, "count": -2.5,
        "rows": [{"name": "x", "n": 1}, {"name": "y", "n": 2.5}]},
        "status": {"startedAt": "", "conditions": [{"type": "Ready", "status": True}]}}),
    ("gadgets", {"metadata": {"name": "nulls"}, "spec": {
        "replicas": None, "ratio": None, "enabled": None, "items": [None], "free": None, "num": None,
        "rows": None, "one": None}, "status": {"startedAt": None, "conditions": None, "phase": None}}),
    ("gadgets", {"metadata": {"name": "times"}, "spec": {"num": 0.0001, "rows": [{"name": "x"}, {"name": "y", "n": 5}]},
                 "status": {"startedAt": "2100-01-01T00:00:00Z", "phase": ["a", {"b": True}]}}),
    ("gadgets", {"metadata": {"name": "zone"}, "spec": {"num": 1e-7, "ratio": -1.25},
                 "status": {"startedAt": "2024-06-01T12:00:00.5+02:00"}}),
    ("plains", {"metadata": {"name": "one"}, "spec": {"a": 1}}),
    ("plains", {"metadata": {"name": "two"}}),
    ("brokens", {"metadata": {"name": "b1"}, "spec": {"a": "1", "b": "2", "c": "3"}}),
]


def _collection(version: str, plural: str) -> str:
    return f"/apis/{GROUP}/{version}/namespaces/{NS}/{plural}"


# (case name, path): each answered as a Table
REQUESTS: list[tuple[str, str]] = [
    ("gadgets-v1", _collection("v1", "gadgets")),
    ("gadgets-v2", _collection("v2", "gadgets")),
    ("gadget-get", _collection("v1", "gadgets") + "/full"),
    ("gadgets-no-object", _collection("v1", "gadgets") + "?includeObject=None"),
    ("plains", _collection("v1", "plains")),
    ("brokens", _collection("v1", "brokens")),
]
WATCH = ("plains-watch", _collection("v1", "plains") + "?watch=1&resourceVersion=0")
# the brokens CRD updated to columns kube parses (A and C): the Table follows the CRD
UPDATED = ("brokens-updated", _collection("v1", "brokens"))
FIXED_COLUMNS: list[dict[str, Any]] = [BROKEN_COLUMNS[0], {**BROKEN_COLUMNS[2], "priority": 1}]


def _established(client: Client, name: str) -> None:
    for _ in range(100):  # the real server's establishing controller acts a moment after the create
        code, crd = client.call("GET", f"{CRD_PATH}/{name}")
        conditions = (crd.get("status") or {}).get("conditions") or []
        if code == 200 and any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
            return
        time.sleep(0.1)
    raise AssertionError(f"{name} not established")


def populate(client: Client) -> None:
    for crd in CRDS:
        code, answer = client.call("POST", CRD_PATH, crd)
        assert code == 201, answer
        _established(client, crd["metadata"]["name"])
    for plural, body in OBJECTS:
        kind = next(c["spec"]["names"]["kind"] for c in CRDS if c["spec"]["names"]["plural"] == plural)
        body = {"apiVersion": f"{GROUP}/v1", "kind": kind, **body}
        for _ in range(100):  # served a moment after Established on the real server
            code, answer = client.call("POST", _collection("v1", plural), body)
            if code != 404:
                break
            time.sleep(0.1)
        assert code == 201, answer


def _row(row: dict[str, Any]) -> dict[str, Any]:
    obj = row.get("object")
    return {"cells": row["cells"], "conditions": row.get("conditions"),
            "object": None if obj is None else {"kind": obj.get("kind"), "name": obj["metadata"]["name"]}}


def _watch_tables(client: Client, path: str, events: int) -> list[dict[str, Any]]:
    headers = {"Accept": TABLE}
    if client.token:
        headers["Authorization"] = f"Bearer {client.token}"
    request = urllib.request.Request(client.url + path, headers=headers)
    out = []
    with urllib.request.urlopen(request, context=client.context, timeout=60) as response:
        for _ in range(events):
            event = json.loads(response.readline())
            table = event["object"]
            out.append({"type": event["type"], "columns": table["columnDefinitions"],
                        "rows": [_row(r) for r in table["rows"]]})
    return out


def tables(client: Client) -> dict[str, Any]:
    """Each request's Table: its columns and its rows (cells, conditions, the object's kind and name)."""
    out: dict[str, Any] = {}
    for name, path in REQUESTS:
        code, table = client.call("GET", path, accept=TABLE)
        assert code == 200, table
        out[name] = {"columns": table["columnDefinitions"], "rows": [_row(r) for r in table["rows"]]}
    plains = sum(1 for plural, _ in OBJECTS if plural == "plains")
    out[WATCH[0]] = _watch_tables(client, WATCH[1], plains)
    out[UPDATED[0]] = _after_update(client)
    return out


def _after_update(client: Client) -> dict[str, Any]:
    name = f"brokens.{GROUP}"
    for _ in range(10):  # the real server's CRD controllers may write it in between: read it again
        code, crd = client.call("GET", f"{CRD_PATH}/{name}")
        assert code == 200, crd
        crd["spec"]["versions"][0]["additionalPrinterColumns"] = FIXED_COLUMNS
        code, answer = client.call("PUT", f"{CRD_PATH}/{name}", crd)
        if code != 409:
            break
    assert code == 200, answer
    for _ in range(100):  # the real server rebuilds the resource's handler a moment after the update
        code, table = client.call("GET", UPDATED[1], accept=TABLE)
        if code == 200 and len(table["columnDefinitions"]) > 2:
            break
        assert code in (200, 429), table  # 429 while the real server swaps the resource's storage
        time.sleep(0.1)
    return {"columns": table["columnDefinitions"], "rows": [_row(r) for r in table["rows"]]}


_DURATION = re.compile(r"^(\d+[smhdy])+$")


def _loose(columns: list[dict[str, Any]] | None, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    dates = {i for i, c in enumerate(columns or []) if c["type"] == "date"}
    return [{**row, "cells": ["<duration>" if i in dates and isinstance(cell, str) and _DURATION.match(cell) else cell
                              for i, cell in enumerate(row["cells"])]} for row in rows]


def normalized(answer: Any) -> Any:
    """Durations in ``date`` columns replaced by ``<duration>`` (see the module docstring); a watch
    event after the first has no columns, so its date columns are the first event's."""
    if isinstance(answer, list):
        columns = answer[0]["columns"] if answer else None
        return [{**e, "rows": _loose(e["columns"] or columns, e["rows"])} for e in answer]
    return {**answer, "rows": _loose(answer["columns"], answer["rows"])}


@pytest.fixture(scope="module")
def fake_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    server = ThreadedServer(tmp_path_factory.mktemp("fake"), clock=FixedClock()).start()
    try:
        client = Client(server.url)
        populate(client)
        yield tables(client)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def real_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with ControlPlane(assets=find_assets(), logdir=tmp_path_factory.mktemp("logs")) as control_plane:
        assert control_plane.kubeconfig_path is not None
        client = Client.from_kubeconfig(control_plane.kubeconfig_path)
        populate(client)
        answered = tables(client)
        if RECORD:
            RECORDING.parent.mkdir(parents=True, exist_ok=True)
            RECORDING.write_text(json.dumps(answered, indent=1, sort_keys=True) + "\n")
        yield answered


def _recorded() -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads(RECORDING.read_text())
    return recorded


CASES = [name for name, _ in REQUESTS] + [WATCH[0], UPDATED[0]]


def test_the_recording_has_every_case_and_every_object() -> None:
    recorded = _recorded()
    assert sorted(recorded) == sorted(CASES)
    listed = {row["cells"][0] for name in ("gadgets-v1", "plains", "brokens") for row in recorded[name]["rows"]}
    assert listed == {body["metadata"]["name"] for _, body in OBJECTS}


def test_the_recording_shows_what_the_columns_declare() -> None:
    """What kube-apiserver v1.37.2 answered, read back: priorities kept (a priority 1 column is in
    the Table, kubectl hides it without ``-o wide``), NAME and a ``date`` Age when none are declared,
    the columns after one kube cannot parse dropped."""
    recorded = _recorded()
    gadgets = recorded["gadgets-v1"]["columns"]
    assert [c["name"] for c in gadgets] == ["Name", *(c["name"] for c in GADGET_COLUMNS)]
    assert [c["priority"] for c in gadgets[1:]] == [c.get("priority", 0) for c in GADGET_COLUMNS]
    assert [(c["name"], c["type"]) for c in recorded["plains"]["columns"]] == [("Name", "string"), ("Age", "date")]
    assert [c["name"] for c in recorded["brokens"]["columns"]] == ["Name", "A"]
    assert [(c["name"], c["priority"]) for c in recorded["brokens-updated"]["columns"]] == [
        ("Name", 0), ("A", 0), ("C", 1)]


@pytest.mark.parametrize("case", CASES)
def test_the_fake_renders_what_kube_apiserver_v1_37_2_rendered(case: str, fake_tables: dict[str, Any]) -> None:
    assert normalized(fake_tables[case]) == normalized(_recorded()[case])


@needs_binaries
@pytest.mark.parametrize("case", CASES)
def test_the_fake_renders_what_a_live_kube_apiserver_renders(
        case: str, fake_tables: dict[str, Any], real_tables: dict[str, Any]) -> None:
    assert normalized(fake_tables[case]) == normalized(real_tables[case])
