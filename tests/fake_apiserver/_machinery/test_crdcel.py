"""CRD ``x-kubernetes-validations`` rules (``fake_apiserver._machinery.crdcel``) against kube-apiserver.

The corpus below is a set of CustomResourceDefinitions with rules (self rules, transition rules,
``optionalOldSelf``, ``message``/``messageExpression``/``reason``/``fieldPath``, rules on lists,
maps, map lists, set lists, at the root and in embedded resources) and a sequence of writes of
custom objects. kube-apiserver v1.37.2's answer to each write (code, ``Status`` and ``Warning``
headers) was captured once into ``tests/data/crdcel/answers.json`` with ``python -m
tests.fake_apiserver._machinery.test_crdcel <answers.json>`` (from the checkout; it starts the
binaries of ``KUBEBUILDER_ASSETS``).

* :func:`test_the_module_gives_the_captured_answer` runs without the binaries: the module's
  answer to each write must equal the captured one (cases listed in ``DIFFERS`` are known to
  differ and must keep differing, so that the list stays true).
* :func:`test_a_real_kube_apiserver_gives_the_captured_answers` replays the corpus against a real
  server when ``KUBEBUILDER_ASSETS`` is set, and compares its answers with the captured ones,
  hence with the module.

Errors on several sibling fields come in Go's map order, random from run to run; answers are
compared with their causes sorted (the message is rebuilt from the sorted causes after checking
it lists the same errors).
"""

from __future__ import annotations

import base64
import json
import re
import ssl
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from fake_apiserver._machinery.crdcel import (
    Verdict,
    escape_property,
    evaluate,
    validate,
)
from fake_apiserver._machinery.errors import Invalid
from harness._backends.envtest import (
    ASSETS_VARIABLE,
    ControlPlane,
    envtest_unavailable,
    find_assets,
)
from tests.support.paths import TEST_DATA

ANSWERS = TEST_DATA / "crdcel" / "answers.json"
GROUP = "cel.example.com"
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver v1.37 ({envtest_unavailable()})")

Schema = dict[str, Any]


def _obj(properties: Schema, rules: list[Schema] | None = None, **more: Any) -> Schema:
    schema: Schema = {"type": "object", "properties": properties, **more}
    if rules:
        schema["x-kubernetes-validations"] = rules
    return schema


def _root(spec: Schema, rules: list[Schema] | None = None) -> Schema:
    return _obj({"spec": spec}, rules)


_STR = {"type": "string", "maxLength": 16}
_INT = {"type": "integer"}
_ITEM = _obj({"name": _STR, "v": _INT}, [
    {"rule": "self.v == oldSelf.v", "message": "v immutable"},
    {"rule": "self.v >= 0", "message": "v negative"},
], required=["name"])

#: plural -> (kind, openAPIV3Schema)
CRDS: dict[str, tuple[str, Schema]] = {
    "probes": ("Probe", _root(_obj({
        "x": _INT, "y": _INT, "s": {"type": "string", "x-kubernetes-validations": [{"rule": "self.size() < 5"}]},
        "ios": {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [{"rule": "self != 'bad'"}]},
        "l": {"type": "array", "items": _INT, "x-kubernetes-validations": [{"rule": "self[0] == 1"}]},
        "n": {"type": "number", "x-kubernetes-validations": [{"rule": "self > 1.0"}]},
        "b": {"type": "boolean", "x-kubernetes-validations": [{"rule": "self"}]},
    }, [
        {"rule": "self.x > 1"},
        {"rule": "self.x < 100", "message": "  too big  "},
        {"rule": "self.x != 50", "messageExpression": "self.x == 50 ? 'x is fifty' : 'other'"},
        {"rule": "self.x != 51", "reason": "FieldValueForbidden", "fieldPath": ".x", "message": "no 51"},
        {"rule": "self.x != 52", "reason": "FieldValueDuplicate", "message": "dup"},
        {"rule": "self.x != 53", "reason": "FieldValueRequired", "message": "req"},
        {"rule": "self.x == oldSelf.x || self.x != 54", "message": "transition"},
        {"rule": "self.y > 0"},
        {"rule": "self.x != 60 || self.x / (self.x - 60) >= 0"},
    ]), [{"rule": "self.metadata.name.startsWith('a')"}])),
    "errs": ("Err", _root(_obj({
        "v": {"x-kubernetes-int-or-string": True, "x-kubernetes-validations": [{"rule": "self + 1 > 0"}]},
        "w": {"type": "string", "maxLength": 10,
              "x-kubernetes-validations": [{"rule": "int(self) > 0"}, {"rule": "self.matches(self)"}]},
        "i": {"type": "integer", "x-kubernetes-validations": [
            {"rule": "self + 9223372036854775806 > 0"}, {"rule": "self % (self - 5) == 0"}, {"rule": "uint(self) > 0u"}]},
        "m": {"type": "object", "additionalProperties": _STR, "maxProperties": 5, "x-kubernetes-validations": [
            {"rule": "self['k'] == 'v'"},
            {"rule": "self.all(k, k != 'bad')", "messageExpression": "'size ' + (size(self) > 1 ? 'many' : 'one')"}]},
        "d": {"type": "string", "format": "date-time",
              "x-kubernetes-validations": [{"rule": "self > timestamp('2020-01-01T00:00:00Z')"}]},
        "by": {"type": "string", "format": "byte", "x-kubernetes-validations": [{"rule": "self == b'hi'"}]},
        "du": {"type": "string", "format": "duration", "maxLength": 16,
               "x-kubernetes-validations": [{"rule": "self < duration('1h')"}]},
        "day": {"type": "string", "format": "date",
                "x-kubernetes-validations": [{"rule": "self.getFullYear() >= 2020", "message": "too old"}]},
        "me": _obj({"a": _INT}, [{"rule": "self.a > 0", "messageExpression": "self.a == -1 ? 'minus one' : ['x'][self.a]",
                                  "message": "fallback"}]),
        "l": {"type": "array", "maxItems": 5, "items": _INT, "x-kubernetes-validations": [
            {"rule": "self[-1] > 0"}, {"rule": "self.isSorted()", "message": "unsorted"}]},
    }))),
    "trans": ("Tran", _root(_obj({
        "a": {"type": "integer", "x-kubernetes-validations": [
            {"rule": "self >= oldSelf", "message": "no decrease"}, {"rule": "self != 7", "reason": "FieldValueDuplicate"}]},
        "b": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 100", "message": "b small"}]},
        "o": {"type": "integer", "x-kubernetes-validations": [
            {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "optionalOldSelf": True, "message": "opt"},
            {"rule": "oldSelf.hasValue() || self == 1", "optionalOldSelf": True, "message": "first one"}]},
        "ml": {"type": "array", "maxItems": 5, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
               "items": _ITEM},
        "al": {"type": "array", "maxItems": 5, "items": _obj({"name": _STR, "v": _INT}, [
            {"rule": "self.v >= 0", "message": "al v negative"}])},
        "sl": {"type": "array", "maxItems": 5, "x-kubernetes-list-type": "set", "items": {
            "type": "integer", "x-kubernetes-validations": [{"rule": "self < 10", "message": "set small"}]}},
        "mp": {"type": "object", "maxProperties": 5, "additionalProperties": {
            "type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "map val decr"}]}},
        "mpa": {"type": "object", "x-kubernetes-map-type": "atomic", "maxProperties": 5, "additionalProperties": {
            "type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "atomic map val decr"}]}},
    }), [{"rule": "self.spec.a == oldSelf.spec.a || self.spec.a != 9", "message": "root immut"}])),
    "miscs": ("Misc", _root(_obj({
        "foo-bar": {"type": "integer"},
        "namespace": _STR,
        "tags": {"type": "array", "maxItems": 4, "items": _STR, "x-kubernetes-validations": [
            {"rule": "self.all(t, t == t.lowerAscii())", "message": "tags lower case"},
            {"rule": "self.exists_one(t, t == 'main')", "message": "one main"},
            {"rule": "self.filter(t, t.startsWith('x-')).size() <= 1", "message": "one x- tag"},
            {"rule": "self.map(t, t.size()).sum() < 20", "message": "tags too long"}]},
        "csv": {"type": "string", "maxLength": 32, "x-kubernetes-validations": [
            {"rule": "self.split(',').all(p, p.trim() != '')", "message": "empty part"},
            {"rule": "self != 'a,b'", "messageExpression": "'csv ' + self"},
            {"rule": "!self.contains('zz') && !self.endsWith(';')", "messageExpression": "'  '"}]},
        "nums": {"type": "array", "maxItems": 4, "items": _INT, "x-kubernetes-validations": [
            {"rule": "self.size() == 0 || self.min() >= 0", "message": "negative"},
            {"rule": "self.size() == 0 || self.max() <= 100", "message": "over 100"},
            {"rule": "self.exists(n, n == 42) || self.size() < 3", "reason": "FieldValueRequired", "message": "need 42"}]},
        "opt": {"type": "string", "maxLength": 8, "nullable": True,
                "x-kubernetes-validations": [{"rule": "self != 'x'"}]},
        "labels": {"type": "object", "maxProperties": 4, "additionalProperties": _STR, "x-kubernetes-validations": [
            {"rule": "!has(self.team) || self.team != 'Blue'", "fieldPath": "['team']",
             "message": "team lower"}]},
        "inner": _obj({"m": {"type": "object", "maxProperties": 4, "additionalProperties": _obj({"q": _INT})}}, [
            {"rule": "!('k' in self.m) || self.m.k.q > 0", "fieldPath": ".m['k'].q", "message": "q positive"}]),
        "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": {"known": _STR},
                "x-kubernetes-validations": [{"rule": "!has(self.known)", "message": "no known"}]},
        "emb": {"type": "object", "x-kubernetes-embedded-resource": True, "properties": {"data": _STR},
                "x-kubernetes-validations": [{"rule": "self.kind == 'ConfigMap'", "message": "configmap only"},
                                              {"rule": "self.metadata.name.size() > 2", "message": "long name"}]},
        "mode": {"type": "string", "maxLength": 8, "x-kubernetes-validations": [
            {"rule": "self in ['a', 'b']", "reason": "FieldValueDuplicate", "message": "mode"}]},
    }, [
        {"rule": "!has(self.__namespace__) || self.__namespace__ != 'kube-system'", "message": "reserved name"},
        {"rule": "!has(self.foo__dash__bar) || self.foo__dash__bar < 10", "fieldPath": ".foo-bar",
         "message": "dash"},
    ]), [{"rule": "self.metadata.name.size() < 12", "messageExpression": "'name ' + self.metadata.name + ' too long'"}])),
    "ratchets": ("Ratchet", _root(_obj({
        "a": _INT, "b": _INT,
        "l": {"type": "array", "maxItems": 4, "items": _obj({"v": _INT})},
        "ml": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
               "items": _obj({"k": _STR, "v": _INT}, required=["k"])},
    }))),
}

#: The ``ratchets`` CRD once tightened (a step of kind "crd" puts it in place).
TIGHT = _root(_obj({
    "a": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 10", "message": "a small"}]},
    "b": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 10", "message": "b small"}]},
    "l": {"type": "array", "maxItems": 4, "items": _obj({"v": _INT}, [{"rule": "self.v < 10", "message": "l small"}])},
    "ml": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
           "items": _obj({"k": _STR, "v": _INT}, [{"rule": "self.v < 10", "message": "ml small"}], required=["k"])},
}))


@dataclass(frozen=True)
class Step:
    """One write: ``create`` or ``update`` an object of ``plural`` named ``name`` to ``body``'s
    spec (a whole object when ``body`` has ``kind``), or put ``body`` as the CRD's new schema."""

    op: str
    plural: str
    name: str
    body: Schema


def C(plural: str, name: str, spec: Schema) -> Step:
    return Step("create", plural, name, spec)


def U(plural: str, name: str, spec: Schema) -> Step:
    return Step("update", plural, name, spec)


_T0 = {"a": 5, "b": 1, "o": 1, "ml": [{"name": "x", "v": 1}, {"name": "y", "v": 2}], "al": [{"name": "x", "v": 1}],
       "sl": [1, 2], "mp": {"k": 5}, "mpa": {"k": 5}}
_R0 = {"a": 50, "b": 50, "l": [{"v": 50}, {"v": 1}], "ml": [{"k": "p", "v": 50}, {"k": "q", "v": 1}]}

#: The corpus: each step's answer is compared (the steps of a case run in order, on one server).
CORPUS: list[Step] = [
    # rules on an object, messages, reasons, fieldPath, runtime errors, root rule
    C("probes", "a1", {"x": 0, "y": 0}),
    C("probes", "b1", {"x": 50, "y": 1}),
    C("probes", "a2", {"x": 51, "y": 1}),
    C("probes", "a3", {"x": 52, "y": 1}),
    C("probes", "a4", {"x": 53, "y": 1}),
    C("probes", "a5", {"x": 60, "y": 1}),
    C("probes", "a6", {"x": 2}),
    C("probes", "a7", {"x": 2, "y": 1, "s": "abcdef", "ios": "bad", "l": [2], "n": 0.5, "b": False}),
    C("probes", "a8", {"x": 2, "y": 1, "ios": 3, "l": [], "n": 1}),
    C("probes", "a9", {"x": 200, "y": 1}),
    C("probes", "a10", {"x": 54, "y": 1}),
    U("probes", "a10", {"x": 55, "y": 1}),
    C("probes", "a11", {"x": 10, "y": 1}),
    U("probes", "a11", {"x": 54, "y": 1}),
    # runtime errors
    C("errs", "e1", {"v": "a"}),
    C("errs", "e2", {"w": "abc"}),
    C("errs", "e4", {"i": 3}),
    C("errs", "e5", {"i": 5}),
    C("errs", "e6", {"i": -1}),
    C("errs", "e7", {"m": {"a": "b", "bad": "x"}}),
    C("errs", "e8", {"by": "aGk=", "l": [3, 1]}),
    C("errs", "e9", {"by": "aGo=", "l": [1]}),
    C("errs", "e10", {"v": 2, "w": "12", "i": 6, "m": {"k": "v"}, "by": "aGk=", "l": [1, 2]}),
    C("errs", "e11", {"d": "2019-01-01T00:00:00Z"}),
    C("errs", "e12", {"w": "["}),
    C("errs", "e13", {"du": "2h", "day": "2019-05-01"}),
    C("errs", "e14", {"du": "30m", "day": "2021-05-01", "me": {"a": -1}}),
    C("errs", "e15", {"me": {"a": -5}, "d": "2021-01-01T00:00:00Z"}),
    # transition rules, optionalOldSelf, correlation of maps and map lists
    C("trans", "t1", {"a": 5, "b": 200}),
    C("trans", "t1", {"a": 5, "b": 1, "o": 2}),
    C("trans", "t1", _T0),
    U("trans", "t1", {"a": 4, "b": 1, "o": 0, "ml": [{"name": "y", "v": 3}, {"name": "x", "v": 1}, {"name": "z", "v": 9}],
                      "al": [{"name": "x", "v": 2}], "sl": [2, 3], "mp": {"k": 4, "j": 1}, "mpa": {"k": 4}}),
    U("trans", "t1", {**_T0, "a": 7}),
    U("trans", "t1", {**_T0, "a": 9}),
    U("trans", "t1", {**_T0, "a": 6, "o": 5, "ml": [{"name": "y", "v": -2}], "al": [{"name": "x", "v": -1}],
                      "sl": [12], "mp": {}, "mpa": {"j": 1}}),
    C("trans", "t2", {"a": 5, "b": 1, "ml": [{"name": "x", "v": -1}]}),
    C("trans", "t3", {"a": 9, "b": 1}),
    U("trans", "t3", {"a": 9, "b": 1, "o": 3}),
    # library functions, escaping, fieldPath into maps, embedded resources, nullable, reasons
    C("miscs", "m1", {"tags": ["main", "Dev"], "csv": "a,,b", "nums": [-1, 200, 3]}),
    C("miscs", "m2", {"tags": ["x-a", "x-b", "main"], "csv": "a,b", "nums": [1, 2]}),
    C("miscs", "m3", {"tags": ["dev"], "csv": "zz", "nums": [42, 1, 2]}),
    C("miscs", "m4", {"tags": ["main", "abcdefghij", "klmnopqrst"], "csv": "ok;"}),
    C("miscs", "m5", {"opt": None, "labels": {"team": "Blue"}, "inner": {"m": {"k": {"q": 0}, "j": {"q": 1}}}}),
    C("miscs", "m6", {"opt": "x", "labels": {"team": "blue"}, "inner": {"m": {"k": {"q": 3}}}, "mode": "c"}),
    C("miscs", "m7", {"any": {"known": "k", "other": {"x": [1]}}, "foo-bar": 12, "namespace": "kube-system"}),
    C("miscs", "m8", {"emb": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "ab"}, "data": "x"}}),
    C("miscs", "m9", {"emb": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "abc"}}, "mode": "a"}),
    C("miscs", "averyveryverylongname", {"mode": "b"}),
    C("miscs", "m10", {"nums": [1, 2, 101]}),
    # ratcheting: values stored before the rules were tightened
    C("ratchets", "r1", _R0),
    Step("crd", "ratchets", "", TIGHT),
    U("ratchets", "r1", {**_R0, "b": 51}),
    U("ratchets", "r1", {**_R0, "l": [{"v": 50}, {"v": 2}], "ml": [{"k": "q", "v": 2}, {"k": "p", "v": 50}]}),
    U("ratchets", "r1", {**_R0, "l": [{"v": 2}, {"v": 50}], "ml": [{"k": "p", "v": 51}, {"k": "q", "v": 1}]}),
    C("ratchets", "r2", {"a": 50}),
]

#: Steps (by index in CORPUS) where the module's answer is known to differ from the server's, and why.
DIFFERS: dict[int, str] = {}


def step_id(index: int) -> str:
    step = CORPUS[index]
    return f"{index:02d}-{step.op}-{step.plural}-{step.name}"


# --- answers: what the server says to a write ------------------------------------------------------

def _warning_text(header: str) -> str:
    """A ``Warning`` header's text: ``299 - "text"`` with Go's quoting."""
    match = re.fullmatch(r'\d{3} \S+ "(.*)"', header)
    return json.loads(f'"{match.group(1)}"') if match else header


def canonical(code: int, status: Mapping[str, Any] | None, warnings: list[str]) -> dict[str, Any]:
    """An answer with its causes sorted (Go's map order is random), the message rebuilt from them
    when it lists exactly those causes."""
    answer: dict[str, Any] = {"code": code, "warnings": sorted(warnings)}
    if status is None or code < 400:
        return answer
    causes = list(status.get("details", {}).get("causes", []))
    message = status.get("message", "")
    rendered = [f"{c['field']}: {c['message']}" for c in causes]
    prefix = message.split(" is invalid: ", 1)[0]
    as_listed = f"{prefix} is invalid: " + (rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]")
    ordered = sorted(causes, key=lambda c: (c["field"], c["message"], c["reason"]))
    if message == as_listed:
        items = [f"{c['field']}: {c['message']}" for c in ordered]
        message = f"{prefix} is invalid: " + (items[0] if len(items) == 1 else "[" + ", ".join(items) + "]")
    answer.update(reason=status.get("reason"), message=message, causes=ordered)
    return answer


class Replay:
    """The corpus's objects as the module sees them: the last stored object of each name."""

    def __init__(self) -> None:
        self.schemas = {plural: schema for plural, (_, schema) in CRDS.items()}
        self.stored: dict[tuple[str, str], Schema] = {}

    def answer(self, step: Step) -> dict[str, Any] | None:
        if step.op == "crd":
            self.schemas[step.plural] = step.body
            return None
        kind = CRDS[step.plural][0]
        obj = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": step.name}, "spec": step.body}
        old = self.stored.get((step.plural, step.name)) if step.op == "update" else None
        if step.op == "update" and old is None:
            return {"code": 404, "warnings": []}
        if step.op == "create" and (step.plural, step.name) in self.stored:
            return {"code": 409, "warnings": [], "reason": "AlreadyExists"}
        verdict = evaluate(obj, self.schemas[step.plural], old)
        if verdict.errors:
            status = Invalid.of(kind, GROUP, step.name, verdict.errors).to_status()
            return canonical(422, status, verdict.warnings)
        self.stored[(step.plural, step.name)] = obj
        return canonical(201 if step.op == "create" else 200, None, verdict.warnings)


def module_answers() -> list[dict[str, Any] | None]:
    replay = Replay()
    return [replay.answer(step) for step in CORPUS]


# --- a real server -------------------------------------------------------------------------------

def _decoded(body: bytes) -> Any:
    """JSON, or the text of a plain answer (the mux's ``404 page not found``)."""
    try:
        return json.loads(body)
    except ValueError:
        return body.decode(errors="replace")


class Client:
    """Just enough of a Kubernetes client: JSON over HTTPS with the kubeconfig's CA and token."""

    def __init__(self, kubeconfig: Path, workdir: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
        self.url = cluster["server"]
        ca = workdir / "ca.pem"
        ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        self.context = ssl.create_default_context(cafile=str(ca))
        self.token = user["token"]

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any, list[str]]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self.context) as response:
                return response.status, _decoded(response.read()), response.headers.get_all("Warning") or []
        except urllib.error.HTTPError as error:
            return error.code, _decoded(error.read()), error.headers.get_all("Warning") or []

    def put_crd(self, plural: str, kind: str, schema: Schema, refused: Schema | None = None) -> None:
        """Create or replace the CRD; wait until its objects are served and, when ``refused`` (a
        spec) is given, until a dry-run create of it is refused (the server swaps a CRD's
        handler asynchronously after an update)."""
        name = f"{plural}.{GROUP}"
        path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
        crd: Schema = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                       "metadata": {"name": name},
               "spec": {"group": GROUP, "scope": "Namespaced",
                        "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": kind + "List"},
                        "versions": [{"name": "v1", "served": True, "storage": True,
                                      "schema": {"openAPIV3Schema": schema}}]}}
        code, current, _ = self.request("GET", f"{path}/{name}")
        if code == 200:
            crd["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            code, answer, _ = self.request("PUT", f"{path}/{name}", crd)
        else:
            code, answer, _ = self.request("POST", path, crd)
        assert code in (200, 201), answer
        for _ in range(240):
            code, answer, _ = self.request("GET", f"/apis/{GROUP}/v1/namespaces/default/{plural}")
            if code == 200 and refused is not None:
                obj = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": "probe"}, "spec": refused}
                code, answer, _ = self.request("POST", f"/apis/{GROUP}/v1/namespaces/default/{plural}?dryRun=All", obj)
                code = 200 if code == 422 else code
            if code == 200:
                return
            time.sleep(0.25)  # polling the real server until it serves the CRD, not a timing assumption
        raise AssertionError(f"{name} never served: {answer}")

    def write(self, step: Step) -> dict[str, Any]:
        kind = CRDS[step.plural][0]
        base = f"/apis/{GROUP}/v1/namespaces/default/{step.plural}"
        obj: Schema = {"apiVersion": f"{GROUP}/v1", "kind": kind, "metadata": {"name": step.name}, "spec": step.body}
        if step.op == "update":
            code, current, _ = self.request("GET", f"{base}/{step.name}")
            if code != 200:
                return {"code": code, "warnings": []}
            obj["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            code, answer, warnings = self.request("PUT", f"{base}/{step.name}", obj)
        else:
            code, answer, warnings = self.request("POST", base, obj)
        texts = [_warning_text(w) for w in warnings]
        if code == 409:
            return {"code": 409, "warnings": [], "reason": answer.get("reason")}
        return canonical(code, answer if code >= 400 else None, texts)


def server_answers(kubeconfig: Path, workdir: Path) -> list[dict[str, Any] | None]:
    client = Client(kubeconfig, workdir)
    for plural, (kind, schema) in CRDS.items():
        client.put_crd(plural, kind, schema)
    answers: list[dict[str, Any] | None] = []
    for step in CORPUS:
        if step.op == "crd":
            client.put_crd(step.plural, CRDS[step.plural][0], step.body, refused={"a": 50})
            answers.append(None)
        else:
            answers.append(client.write(step))
    return answers


@pytest.fixture(scope="module")
def captured() -> list[dict[str, Any] | None]:
    data = json.loads(ANSWERS.read_text())
    assert data["server"] == "kube-apiserver v1.37.2"
    answers: list[dict[str, Any] | None] = data["answers"]
    assert len(answers) == len(CORPUS), "the corpus changed: capture the answers again"
    return answers


@pytest.fixture(scope="module")
def ours() -> list[dict[str, Any] | None]:
    return module_answers()


# --- the tests -----------------------------------------------------------------------------------

def test_the_corpus_is_large_enough() -> None:
    writes = [s for s in CORPUS if s.op != "crd"]
    assert len(writes) >= 30
    assert {s.op for s in writes} == {"create", "update"}


@pytest.mark.parametrize("index", [i for i, s in enumerate(CORPUS) if s.op != "crd"], ids=step_id)
def test_the_module_gives_the_captured_answer(index: int, captured: list[Any], ours: list[Any]) -> None:
    if index in DIFFERS:
        assert ours[index] != captured[index], f"no longer differs ({DIFFERS[index]}): take it off DIFFERS"
    else:
        assert ours[index] == captured[index]


@needs_binaries
def test_a_real_kube_apiserver_gives_the_captured_answers(tmp_path: Path, captured: list[Any],
                                                          ours: list[Any]) -> None:
    with ControlPlane(assets=find_assets(), logdir=tmp_path / "logs") as control_plane:
        assert control_plane.kubeconfig_path is not None
        real = server_answers(control_plane.kubeconfig_path, tmp_path)
    differing = [step_id(i) for i, (a, b) in enumerate(zip(real, captured)) if a != b]
    assert differing == []
    agree = sum(1 for a, b, s in zip(real, ours, CORPUS) if s.op != "crd" and a == b)
    assert agree == sum(1 for s in CORPUS if s.op != "crd") - len(DIFFERS)


# --- literal cases: answers of kube-apiserver v1.37.2 to corpus steps, one behaviour each ----------

def _probe(name: str, **spec: Any) -> Schema:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Probe", "metadata": {"name": name}, "spec": spec}


def _rendered(obj: Schema, plural: str, old: Schema | None = None, schema: Schema | None = None) -> list[str]:
    return [e.render() for e in validate(obj, schema or CRDS[plural][1], old)]


def test_a_failed_rule_on_an_object_shows_no_value() -> None:
    assert _rendered(_probe("a1", x=0, y=0), "probes") == [
        "spec: Invalid value: failed rule: self.x > 1", "spec: Invalid value: failed rule: self.y > 0"]


def test_a_root_rule_is_reported_on_go_nil_path_and_message_expression_replaces_the_message() -> None:
    assert _rendered(_probe("b1", x=50, y=1), "probes") == [
        "<nil>: Invalid value: failed rule: self.metadata.name.startsWith('a')", "spec: Invalid value: x is fifty"]


@pytest.mark.parametrize(("x", "error"), [
    (51, "spec.x: Forbidden: no 51"), (52, "spec: Duplicate value"), (53, "spec: Required value: req"),
    (200, "spec: Invalid value: too big"),
])
def test_reason_field_path_and_message_shape_the_error(x: int, error: str) -> None:
    assert _rendered(_probe("a2", x=x, y=1), "probes") == [error]


def test_runtime_errors_name_the_schema_type_and_are_worded_as_cel_go() -> None:
    assert _rendered(_probe("a6", x=2), "probes") == [
        'spec: Invalid value: "object": no such key: y evaluating rule: self.y > 0']
    assert _rendered(_probe("a5", x=60, y=1), "probes") == [
        'spec: Invalid value: "object": division by zero evaluating rule: self.x != 60 || self.x / (self.x - 60) >= 0']
    err = {"apiVersion": f"{GROUP}/v1", "kind": "Err", "metadata": {"name": "e1"}, "spec": {"v": "a"}}
    assert _rendered(err, "errs") == [
        ("spec.v: Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, "
         "function or macro signature for rule: self + 1 > 0")]


def test_a_scalar_shows_its_value_as_go_prints_it() -> None:
    assert _rendered(_probe("a8", x=2, y=1, ios=3, l=[], n=1), "probes") == [
        'spec.l: Invalid value: "array": index out of bounds: 0 evaluating rule: self[0] == 1',
        "spec.n: Invalid value: 1: failed rule: self > 1.0"]


def test_a_transition_rule_waits_for_an_old_value() -> None:
    assert _rendered(_probe("a11", x=54, y=1), "probes") == []
    assert _rendered(_probe("a11", x=54, y=1), "probes", _probe("a11", x=10, y=1)) == [
        "spec: Invalid value: transition"]


def test_an_unchanged_value_is_ratcheted_to_a_warning() -> None:
    def ratchet(**spec: Any) -> Schema:
        return {"apiVersion": f"{GROUP}/v1", "kind": "Ratchet", "metadata": {"name": "r1"}, "spec": spec}

    verdict: Verdict = evaluate(ratchet(**{**_R0, "b": 51}), TIGHT, ratchet(**_R0))
    assert [e.render() for e in verdict.errors] == ["spec.b: Invalid value: 51: b small"]
    assert verdict.warnings == ["spec.a: Invalid value: 50: a small", "spec.l[0]: Invalid value: l small",
                                "spec.ml[0]: Invalid value: ml small"]


def test_a_rule_with_a_function_the_evaluator_lacks_is_skipped_and_said() -> None:
    schema = _root(_obj({"u": {"type": "string", "x-kubernetes-validations": [{"rule": "isURL(self)"}]}}))
    verdict = evaluate(_probe("a", u="x"), schema)
    assert verdict.errors == []
    assert verdict.skipped == [
        "spec.u: rule 'isURL(self)' not evaluated: ERROR: <input>:1:6: undeclared reference to 'isURL' (in container '')"]


@pytest.mark.parametrize(("name", "escaped"), [
    ("foo-bar", "foo__dash__bar"), ("a.b", "a__dot__b"), ("x/y", "x__slash__y"), ("a__b", "a__underscores__b"),
    ("namespace", "__namespace__"), ("if", "__if__"), ("plain", "plain"), ("a b", None), ("1x", None),
])
def test_property_names_are_escaped_as_kubernetes_does(name: str, escaped: str | None) -> None:
    assert escape_property(name) == escaped


def main(out: str) -> None:
    """Capture the corpus's answers from a real server (``KUBEBUILDER_ASSETS``) into ``out``."""
    with tempfile.TemporaryDirectory() as tmp, ControlPlane(assets=find_assets(), logdir=Path(tmp) / "logs") as cp:
        assert cp.kubeconfig_path is not None
        answers = server_answers(cp.kubeconfig_path, Path(tmp))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps({"server": "kube-apiserver v1.37.2", "answers": answers}, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
