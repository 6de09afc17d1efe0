"""A custom object against its CRD version's structural schema (``fake_apiserver._machinery.structural``):
pruning with the unknown fields ``fieldValidation`` reports, defaulting, and the value validation
errors of the 422, compared with what kube-apiserver v1.37.2 answered.

``tests/data/structural/crd.json`` is a CRD with a rich schema (every value validation, formats,
int-or-string, nullable, defaults in objects, lists and ``additionalProperties``, list-type sets and
maps, embedded resources, preserved unknown fields, ``anyOf``/``oneOf``/``allOf``/``not``) and ``corpus.json`` the answers a real
kube-apiserver v1.37.2 gave to 133 creates of a ``Widget`` (code, ``Status`` message and causes,
the stored object, the ``Warning`` headers); ``ratchet.json`` the answers to 19 updates of objects
created under a loose schema after the CRD was tightened (validation ratcheting). The literal tests below quote some of those answers;
:func:`test_the_recorded_corpus_agrees` replays all of them; with ``KUBEBUILDER_ASSETS`` naming
v1.37 binaries, :func:`test_a_real_kube_apiserver_answers_alike` posts the corpus to a real server
again and compares its answers with the module's, and
:func:`test_a_real_kube_apiserver_ratchets_alike` replays the ratcheting updates.

Go walks schema properties and object keys in random map order, so when sibling fields fail the
real server lists their errors in an order that changes between requests. Such answers agree "up
to order": the same causes, the same relative order of the errors of each field, and the message
the same once the causes are put in the real order.
"""

from __future__ import annotations

import base64
import json
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from fake_apiserver._machinery import openapivalidator, structural
from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid, StatusError
from fake_apiserver._machinery.fieldvalidation import FieldValidation, warning_headers
from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import TEST_DATA

DATA = TEST_DATA / "structural"
CRD: dict[str, Any] = json.loads((DATA / "crd.json").read_text())
SCHEMA: dict[str, Any] = CRD["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
CORPUS: list[dict[str, Any]] = json.loads((DATA / "corpus.json").read_text())
RATCHET: dict[str, Any] = json.loads((DATA / "ratchet.json").read_text())
STRICT: dict[str, Any] = RATCHET["strict"]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
KIND, GROUP, VERSION, PLURAL = "Widget", "structural.example.com", "v1", "widgets"

needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=envtest_unavailable() or "")


def _spec(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "metadata": {"name": "w"}, "spec": fields}


def _write(obj: dict[str, Any]) -> tuple[list[str], list[FieldError]]:
    """What a create does with a body: prune, default, validate."""
    unknown = structural.prune(obj, SCHEMA)
    structural.apply_defaults(obj, SCHEMA)
    return unknown, structural.validate(obj, SCHEMA)


def _rendered(obj: dict[str, Any]) -> list[str]:
    return [e.render() for e in _write(obj)[1]]


# ------------------------------------------------------------------------------------ pruning


def test_unknown_fields_are_dropped_and_reported_sorted_with_list_indexes() -> None:
    obj = _spec(items=[{"x": 1, "y": 2}, {"z": 3}])
    obj["extra"] = 1
    assert structural.prune(obj, SCHEMA) == ["extra", "spec.items[0].y", "spec.items[1].z"]
    assert obj == {"apiVersion": "structural.example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                   "spec": {"items": [{"x": 1}, {}]}}


def test_an_embedded_resource_keeps_its_type_and_metadata_and_its_metadata_unknowns_come_last() -> None:
    obj = _spec(template={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "foo": 1},
                          "spec": {"x": "a", "y": "b"}, "other": 1})
    assert structural.prune(obj, SCHEMA) == [
        "spec.template.other", "spec.template.spec.y", "spec.template.metadata.foo"]
    assert obj["spec"]["template"] == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                                       "spec": {"x": "a"}}


def test_preserved_unknown_fields_stay_but_known_ones_are_pruned() -> None:
    obj = _spec(free={"anything": {"goes": 1}, "known": {"k": "s", "junk": 1}},
                freeList=[{"any": 1, "k": {"a": "s", "b": 2}}])
    assert structural.prune(obj, SCHEMA) == ["spec.free.known.junk", "spec.freeList[0].k.b"]
    assert obj["spec"] == {"free": {"anything": {"goes": 1}, "known": {"k": "s"}},
                           "freeList": [{"any": 1, "k": {"a": "s"}}]}


def test_a_null_that_may_not_be_null_is_dropped_unless_defaulted_or_in_a_list() -> None:
    obj = _spec(plain=None, maybe=None, dflt=None, labels={"a": None}, tags=[None])
    assert structural.prune(obj, SCHEMA) == []
    assert obj["spec"] == {"maybe": None, "dflt": None, "labels": {}, "tags": [None]}


def test_an_embedded_kind_that_is_not_a_string_fails_decoding() -> None:
    with pytest.raises(structural.CoercionError) as failed:
        structural.prune(_spec(template={"apiVersion": "v1", "kind": 5}), SCHEMA)
    assert str(failed.value) == "spec.template.kind: Invalid value: 5: must be a string"
    with pytest.raises(structural.CoercionError) as failed:
        structural.prune(_spec(template={"apiVersion": "v1", "kind": "Pod", "metadata": "x"}), SCHEMA)
    assert str(failed.value) == ('spec.template.metadata: Invalid value: "x": json: cannot unmarshal string '
                                 'into Go value of type v1.ObjectMeta')


# ---------------------------------------------------------------------------------- defaulting


def test_defaults_fill_absent_fields_nested_list_items_and_map_values() -> None:
    obj = _spec(items=[{"x": 1}, {"d": "given"}, {}], mapOfObjs={"one": {}, "two": {"v": 2}},
                nested={"deep": {}}, ports=[{"name": "a"}], strlist=[None, "q"], strmap={"a": None, "b": "y"})
    unknown, errors = _write(obj)
    assert (unknown, errors) == ([], [])
    assert obj["spec"] == {
        "dflt": "dv", "items": [{"d": "d", "x": 1}, {"d": "given"}, {"d": "d"}],
        "mapOfObjs": {"one": {"v": 5}, "two": {"v": 2}}, "mode": "Fast",
        "nested": {"deep": {"v": 7}, "inner": "in"}, "ports": [{"name": "a", "port": 80}], "replicas": 1,
        "strlist": ["z", "q"], "strmap": {"a": "x", "b": "y"}}


def test_a_null_is_replaced_by_the_default_but_a_nullable_null_stays() -> None:
    obj = _spec(dflt=None, replicas=None, maybe=None)
    assert _write(obj) == ([], [])
    assert obj["spec"] == {"dflt": "dv", "maybe": None, "mode": "Fast", "nested": {"inner": "in"}, "replicas": 1}


# ---------------------------------------------------------------------------------- validation


def test_a_wrong_type_names_the_json_type() -> None:
    errors = _write(_spec(replicas="three"))[1]
    assert [e.render() for e in errors] == [
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']
    assert errors[0].cause()["reason"] == "FieldValueTypeInvalid"
    assert _rendered(_spec(port=True)) == [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']
    assert _rendered(_spec(tags=[None])) == [
        'spec.tags[0]: Invalid value: "null": spec.tags[0] in body must be of type string: "null"']


def test_a_float_in_an_integer_field_also_fails_the_range_check_on_no_field() -> None:
    assert _rendered(_spec(replicas=1.5)) == [
        'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
        '<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.replicas']
    assert _rendered(_spec(replicas=2.0)) == []
    assert _rendered(_spec(small=3000000000)) == [
        '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.small']


def test_bounds_and_multiples_as_kube_openapi_words_them() -> None:
    assert _rendered(_spec(ratio=100)) == [
        "spec.ratio: Invalid value: 0: factor MultipleOf declared for spec.ratio must be positive: 0",
        "spec.ratio: Invalid value: 100: spec.ratio in body should be less than 100"]
    assert _rendered(_spec(ratio=1.2)) == ["spec.ratio: Invalid value: 1.2: spec.ratio in body should be a multiple of 0.5"]
    assert _rendered(_spec(replicas=-1)) == [
        "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"]
    assert _rendered(_spec(step=4)) == ["spec.step: Invalid value: 4: spec.step in body should be a multiple of 3"]


def test_strings_lists_and_maps_limits() -> None:
    assert _rendered(_spec(name="ABCDEFG")) == ["spec.name: Too long: may not be more than 5 bytes"]
    assert _rendered(_spec(name="a")) == [
        'spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long']
    assert _rendered(_spec(name="AB")) == [
        """spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'"""]
    assert _rendered(_spec(tags=["a", "b", "c", "d"])) == ["spec.tags: Too many: 4: must have at most 3 items"]
    assert _rendered(_spec(tags=[])) == ["spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"]
    assert _rendered(_spec(labels={"a": "1", "b": "2", "c": "3"})) == [
        "spec.labels: Too many: 3: must have at most 2 items"]
    assert _rendered(_spec(labels={"a": "toolong"})) == ["spec.labels.a: Too long: may not be more than 4 bytes"]
    assert _rendered(_spec(sub={})) == ["spec.sub.a: Required value", "spec.sub.b: Required value"]


def test_enums_and_formats() -> None:
    assert _rendered(_spec(mode="Medium")) == ['spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"']
    assert _rendered(_spec(level=7)) == ['spec.level: Unsupported value: 7: supported values: "1", "2", "3"']
    assert _rendered(_spec(when="yesterday")) == [
        'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']
    assert _rendered(_spec(when=5)) == [
        'spec.when: Invalid value: "int64": spec.when in body must be of type date-time: "int64"']
    assert _rendered(_spec(day="2024-02-30")) == [
        'spec.day: Invalid value: "2024-02-30": spec.day in body must be of type date: "2024-02-30"']
    assert _rendered(_spec(odd="x", data="aGVsbG8=", uid="123E4567E89B12D3A456426614174000")) == []


def test_anyof_oneof_allof_and_not_report_on_no_field_with_the_alternative_that_got_furthest() -> None:
    assert _rendered(_spec(ios=True)) == [
        'spec.ios: Invalid value: "boolean": spec.ios in body must be of type integer,string: "boolean"',
        '<nil>: Invalid value: "": "spec.ios" must validate at least one schema (anyOf)',
        'spec.ios: Invalid value: "boolean": spec.ios in body must be of type integer: "boolean"']
    assert _rendered(_spec(pick={"n": 5})) == [
        '<nil>: Invalid value: "": "spec.pick" must validate at least one schema (anyOf)',
        "spec.pick.n: Invalid value: 5: spec.pick.n in body should be less than or equal to 3"]
    assert _rendered(_spec(exactly={})) == [
        '<nil>: Invalid value: "": "spec.exactly" must validate one and only one schema (oneOf). Found none valid',
        "spec.exactly.a: Required value"]
    assert _rendered(_spec(exactly={"a": "x", "b": "y"})) == [
        '<nil>: Invalid value: "": "spec.exactly" must validate one and only one schema (oneOf). '
        'Found 2 valid alternatives']
    assert _rendered(_spec(both={"a": "x"})) == [
        "spec.both.b: Required value", '<nil>: Invalid value: "": "spec.both" must validate all the schemas (allOf)']
    assert _rendered(_spec(notboth={"a": "x", "b": "y"})) == [
        '<nil>: Invalid value: "": "spec.notboth" must not validate the schema (not)']


def test_embedded_resources_then_list_sets_and_maps_come_after_the_schema_errors() -> None:
    assert _rendered(_spec(template={"spec": {"x": "a"}})) == [
        "spec.template.apiVersion: Required value", "spec.template.kind: Required value"]
    assert _rendered(_spec(template={"apiVersion": "a/b/c", "kind": "Pod"})) == [
        'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']
    assert _rendered(_spec(set=["a", "b", "a", "a", "b"])) == [
        'spec.set[2]: Duplicate value: "a"', 'spec.set[4]: Duplicate value: "b"']
    assert _rendered(_spec(ports=[{"name": "a", "port": "x"}, {"name": "a"}])) == [
        'spec.ports[0].port: Invalid value: "string": spec.ports[0].port in body must be of type integer: "string"',
        'spec.ports[1]: Duplicate value: {"name":"a"}']
    assert _rendered(_spec(pairs=[{"a": "x", "b": 1}, {"a": "x", "b": 1, "c": "z"}, {"a": "x", "b": 2}])) == [
        'spec.pairs[1]: Duplicate value: {"a":"x","b":1}']


def test_an_embedded_resources_metadata_goes_to_the_given_checker_named() -> None:
    seen: list[tuple[dict[str, Any], str]] = []

    def check(meta: Any, path: str) -> list[FieldError]:
        seen.append((dict(meta), path))
        return [FieldError.invalid(f"{path}.name", meta["name"], "checked")]

    obj = _spec(template={"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}})
    errors = structural.validate(obj, SCHEMA, validate_meta=check)
    assert seen == [({"labels": {"a": "b"}, "name": "fakename"}, "spec.template.metadata")]
    assert [e.render() for e in errors] == ['spec.template.metadata.name: Invalid value: "fakename": checked']


def _updated(old_spec: dict[str, Any], spec: dict[str, Any]) -> list[str]:
    """The errors of an update of a Ratchet whose stored spec is ``old_spec``, against the strict schema."""
    old = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Ratchet", "metadata": {"name": "r", "resourceVersion": "1"},
           "spec": old_spec}
    new = {**old, "spec": spec}
    return [e.render() for e in structural.validate(new, STRICT, old=old)]


def test_on_update_errors_of_unchanged_values_are_ratcheted() -> None:
    assert _updated({"a": 10, "b": "ok"}, {"a": 10, "b": "ok", "note": "n"}) == []
    assert _updated({"a": 10}, {"a": 11}) == [
        "spec.a: Invalid value: 11: spec.a in body should be less than or equal to 5"]
    assert _updated({"m": {"k": 10}}, {"m": {"k": 10, "j": 1}}) == []
    assert _updated({"req": {}}, {"req": {}, "note": "n"}) == []
    assert _updated({"req": {}}, {"req": {"q": "x"}}) == ["spec.req.p: Required value"]


def test_only_list_type_map_items_correlate_and_list_type_errors_ratchet_whole() -> None:
    assert _updated({"keyed": [{"k": "a", "v": 10}, {"k": "b", "v": 1}]},
                    {"keyed": [{"k": "b", "v": 2}, {"k": "a", "v": 10}]}) == []
    assert _updated({"items": [{"x": 10}, {"x": 1}]}, {"items": [{"x": 10}, {"x": 2}]}) == [
        "spec.items[0].x: Invalid value: 10: spec.items[0].x in body should be less than or equal to 5"]
    assert _updated({"set": ["aa"]}, {"set": ["aa", "b"]}) == ["spec.set[0]: Too long: may not be more than 1 byte"]
    assert _updated({"tags": ["a", "b"]}, {"tags": ["a", "c"]}) == ["spec.tags: Too many: 2: must have at most 1 item"]
    assert _updated({"dup": ["a", "a"]}, {"dup": ["a", "a", "b", "b"]}) == []
    assert _updated({"dup": ["a"]}, {"dup": ["a", "b", "b"]}) == ['spec.dup[2]: Duplicate value: "b"']


def test_go_number_spellings() -> None:
    assert [openapivalidator.go_float(v) for v in (2.0, 0.5, 1e30, 1e16, 1e-05)] == [
        "2", "0.5", "1e+30", "10000000000000000", "1e-05"]
    assert openapivalidator.go_json({"b": [1.0, "x"], "a": None}) == '{"a":null,"b":[1,"x"]}'


# ------------------------------------------------------------------------ the captured corpus


def _body(index: int, case: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "metadata": {"name": f"w{index}"}}
    if case["spec"] is not None:
        body["spec"] = case["spec"]
    body.update(case["extra"])
    return json.loads(json.dumps(body))


def _answer(index: int, case: dict[str, Any]) -> tuple[dict[str, Any], list[FieldError]]:
    """The module's answer to a case, shaped as :func:`_real` shapes a server's."""
    obj = _body(index, case)
    validation = FieldValidation.of(case["fieldValidation"])

    def cannot(error: str) -> BadRequest:
        return BadRequest(f"{KIND} in version {json.dumps(VERSION)} cannot be handled as a {KIND}: {error}")

    try:
        unknown = structural.prune(obj, SCHEMA)
        validation.settle([f'unknown field "{path}"' for path in unknown], cannot)
    except structural.CoercionError as e:
        return {"code": 400, "message": cannot(str(e)).message, "warnings": []}, []
    except StatusError as e:
        return {"code": e.code, "message": e.message, "warnings": []}, []
    warnings = warning_headers(validation.warnings)
    structural.apply_defaults(obj, SCHEMA)
    errors = structural.validate(obj, SCHEMA)
    if errors:
        invalid = Invalid.of(KIND, GROUP, obj["metadata"]["name"], errors)
        return {"code": 422, "message": invalid.message, "causes": [e.cause() for e in errors],
                "warnings": warnings}, errors
    del obj["metadata"]
    return {"code": 201, "object": obj, "warnings": warnings}, errors


def _real(code: int, response: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    if code == 201:
        return {"code": code, "object": {k: v for k, v in response.items() if k != "metadata"}, "warnings": warnings}
    shaped = {"code": code, "message": response["message"], "warnings": warnings}
    if code == 422:
        shaped["causes"] = response["details"]["causes"]
    return shaped


def _agreement(ours: dict[str, Any], errors: list[FieldError], real: dict[str, Any]) -> str | None:
    """``exact``, ``order`` (the same up to Go's map order of sibling fields) or None."""
    if ours == real:
        return "exact"
    if ours["code"] != 422 or real["code"] != 422 or {**ours, "causes": 0, "message": 0} != {
            **real, "causes": 0, "message": 0}:
        return None
    left = list(errors)
    ordered = []
    for cause in real["causes"]:
        match = next((e for e in left if e.cause() == cause), None)
        if match is None:
            return None
        left.remove(match)
        ordered.append(match)
    for field in {e.field for e in errors}:
        if [e for e in errors if e.field == field] != [e for e in ordered if e.field == field]:
            return None
    name = real["message"].split('"')[1]
    return "order" if not left and Invalid.of(KIND, GROUP, name, ordered).message == real["message"] else None


@pytest.mark.parametrize("index", range(len(CORPUS)), ids=[case["name"] for case in CORPUS])
def test_the_recorded_corpus_agrees(index: int) -> None:
    case = CORPUS[index]
    ours, errors = _answer(index, case)
    real = _real(case["code"], case["response"], case["warnings"])
    assert _agreement(ours, errors, real) is not None, (ours, real)


def test_the_corpus_covers_every_class() -> None:
    codes = [case["code"] for case in CORPUS]
    assert len(CORPUS) >= 100 and codes.count(201) >= 25 and codes.count(400) >= 10 and codes.count(422) >= 60
    reasons = {c["reason"] for case in CORPUS if case["code"] == 422 for c in case["response"]["details"]["causes"]}
    assert reasons == {"FieldValueTypeInvalid", "FieldValueInvalid", "FieldValueNotSupported", "FieldValueTooLong",
                       "FieldValueTooMany", "FieldValueRequired", "FieldValueDuplicate"}


def _update_answer(index: int, case: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    new = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Ratchet", "metadata": dict(stored["metadata"]),
           "spec": json.loads(json.dumps(case["spec"]))}
    structural.prune(new, STRICT)
    structural.apply_defaults(new, STRICT)
    errors = structural.validate(new, STRICT, old=stored)
    if errors:
        invalid = Invalid.of("Ratchet", GROUP, f"r{index}", errors)
        return {"code": 422, "message": invalid.message, "causes": [e.cause() for e in errors]}
    return {"code": 200, "object": {k: v for k, v in new.items() if k != "metadata"}}


def _update_real(code: int, response: dict[str, Any]) -> dict[str, Any]:
    if code == 200:
        return {"code": code, "object": {k: v for k, v in response.items() if k != "metadata"}}
    return {"code": code, "message": response["message"], "causes": response["details"]["causes"]}


@pytest.mark.parametrize("index", range(len(RATCHET["cases"])), ids=[case["name"] for case in RATCHET["cases"]])
def test_the_recorded_ratcheting_updates_agree(index: int) -> None:
    case = RATCHET["cases"][index]
    assert _update_answer(index, case, case["stored"]) == _update_real(case["code"], case["response"])


# ------------------------------------------------------------------------- a real kube-apiserver


class _Client:
    """Just enough of a client for a kubeconfig's server: JSON in, code, JSON and warnings out."""

    def __init__(self, kubeconfig: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
        self.url = cluster["server"]
        self.token = user["token"]
        self.context = ssl.create_default_context(
            cadata=base64.b64decode(cluster["certificate-authority-data"]).decode())

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any, list[str]]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=60) as response:
                return response.status, json.loads(response.read()), response.headers.get_all("Warning") or []
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read()), e.headers.get_all("Warning") or []


def _v137() -> Path:
    assets = find_assets()
    version = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                             timeout=60, check=False).stdout.strip()
    if not version.startswith("Kubernetes v1.37."):
        pytest.skip(f"the recorded answers are kube-apiserver v1.37's; {ASSETS_VARIABLE} holds {version}")
    return assets


def _established(client: _Client, crd: dict[str, Any]) -> None:
    name = crd["metadata"]["name"]
    plural = crd["spec"]["names"]["plural"]
    for _ in range(300):  # polls until the CRD is served, about a minute at most
        code, crd, _ = client.call("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        conditions = (crd.get("status") or {}).get("conditions") or [] if code == 200 else []
        if any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
            code, _, _ = client.call("GET", f"/apis/{GROUP}/{VERSION}/{plural}")
            if code == 200:
                return
        time.sleep(0.2)
    raise AssertionError(f"CRD {name} was not established")


@needs_binaries
def test_a_real_kube_apiserver_answers_alike(tmp_path: Path) -> None:
    with ControlPlane(assets=_v137(), logdir=tmp_path) as control_plane:
        assert control_plane.kubeconfig_path is not None
        client = _Client(control_plane.kubeconfig_path)
        code, created, _ = client.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)
        assert code == 201, created
        _established(client, CRD)
        tally: dict[str | None, list[str]] = {"exact": [], "order": [], None: []}
        for index, case in enumerate(CORPUS):
            code, response, warnings = client.call(
                "POST", f"/apis/{GROUP}/{VERSION}/namespaces/default/{PLURAL}?fieldValidation={case['fieldValidation']}",
                _body(index, case))
            real = _real(code, response, warnings)
            ours, errors = _answer(index, case)
            tally[_agreement(ours, errors, real)].append(case["name"])
            recorded = _real(case["code"], case["response"], case["warnings"])
            assert (real["code"], sorted(map(json.dumps, real.get("causes", [])))) == (
                recorded["code"], sorted(map(json.dumps, recorded.get("causes", [])))), case["name"]  # as recorded
    print(f"structural corpus: {len(tally['exact'])} exact, {len(tally['order'])} up to Go's map order, "
          f"{len(tally[None])} differ of {len(CORPUS)}")
    assert tally[None] == []


@needs_binaries
def test_a_real_kube_apiserver_ratchets_alike(tmp_path: Path) -> None:
    """Objects created under a loose schema, the CRD tightened, then each updated."""
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    ratchets = f"/apis/{GROUP}/{VERSION}/namespaces/default/ratchets"
    with ControlPlane(assets=_v137(), logdir=tmp_path) as control_plane:
        assert control_plane.kubeconfig_path is not None
        client = _Client(control_plane.kubeconfig_path)
        code, created, _ = client.call("POST", crds, RATCHET["loose"])
        assert code == 201, created
        _established(client, RATCHET["loose"])
        stored = []
        for index, case in enumerate(RATCHET["cases"]):
            code, obj, _ = client.call("POST", ratchets, {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Ratchet",
                                                          "metadata": {"name": f"r{index}"}, "spec": case["oldSpec"]})
            assert code == 201, obj
            stored.append(obj)
        name = RATCHET["strict"]["metadata"]["name"]
        _, current, _ = client.call("GET", f"{crds}/{name}")
        strict = {**RATCHET["strict"], "metadata": {**RATCHET["strict"]["metadata"],
                                                    "resourceVersion": current["metadata"]["resourceVersion"]}}
        code, updated, _ = client.call("PUT", f"{crds}/{name}", strict)
        assert code == 200, updated
        probe = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Ratchet", "metadata": {"name": "probe"}, "spec": {"a": 10}}
        for _ in range(300):  # until the tightened schema is in force, about a minute at most
            if client.call("POST", f"{ratchets}?dryRun=All", probe)[0] == 422:
                break
            time.sleep(0.2)
        differ = []
        for index, case in enumerate(RATCHET["cases"]):
            body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "Ratchet", "metadata": {
                "name": f"r{index}", "resourceVersion": stored[index]["metadata"]["resourceVersion"]}, "spec": case["spec"]}
            code, response, _ = client.call("PUT", f"{ratchets}/r{index}", body)
            real = _update_real(code, response)
            if _update_answer(index, case, stored[index]) != real:
                differ.append(case["name"])
            assert real == _update_real(case["code"], case["response"]), case["name"]  # as recorded
    print(f"ratcheting updates: {len(RATCHET['cases']) - len(differ)} agree, {len(differ)} differ")
    assert differ == []
