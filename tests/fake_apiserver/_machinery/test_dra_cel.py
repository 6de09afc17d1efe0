"""DRA device selectors type-checked as kube-apiserver v1.37.2 does (fake_apiserver._machinery.dracel).

Each case creates a ResourceClaim, a ResourceClaimTemplate or a DeviceClass whose one selector
carries the expression (KEP-4381, structured parameters: "the expression must evaluate to a bool"
and is compiled when the object is created). The answers were captured once from a real
kube-apiserver v1.37.2 (``tests/data/dracel/kube-apiserver-v1.37.2.json``); the fake must give the
same status code and, for a refusal, the same ``Status`` byte for byte. With ``KUBEBUILDER_ASSETS``
set, the real server is asked again and must still answer as recorded.

Known differences, left out of the table (see the module docstring of ``dracel``): the cost limit
(``Forbidden: too complex, exceeds cost limit``), ``format``'s argument check, list literals of
mixed types (cel-go's homogeneous literals), and wrong uses of the lists extension (``flatten``,
``reverse``); the fake accepts those.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.paths import TEST_DATA
from tests.support.real_apiserver import Call, json_caller, kube_apiserver_answers

RECORDED = TEST_DATA / "dracel" / "kube-apiserver-v1.37.2.json"
GROUP = "/apis/resource.k8s.io/v1"

#: (where the selector sits, expression): claim = a ResourceClaim's exact request, sub = a
#: firstAvailable subrequest of one, template = a ResourceClaimTemplate, class = a DeviceClass.
CASES: list[tuple[str, str]] = [
    # valid
    ("claim", 'device.driver == "gpu.example.com"'),
    ("claim", 'device.attributes["dra.example.com"].model == "a100"'),
    ("claim", 'device.capacity["dra.example.com"].memory.compareTo(quantity("1Gi")) >= 0'),
    ("claim", 'device.capacity["d"].mem.isLessThan(quantity("1Gi"))'),
    ("claim", 'device.attributes["d"].version.isGreaterThan(semver("1.0.0"))'),
    ("claim", 'isSemver("1.0.0") && semver("1.2.3").major() == 1'),
    ("claim", 'has(device.attributes["dra.example.com"].model)'),
    ("claim", "has(device.driver)"),
    ("claim", "device.allowMultipleAllocations"),
    ("claim", 'cel.bind(dra, device.attributes["dra.example.com"], dra.a && dra.b)'),
    ("claim", 'device.attributes["d"].?x.orValue(1) == 1'),
    ("claim", 'device.attributes["d"].v'),
    ("claim", 'device.attributes.exists(k, k.startsWith("dra"))'),
    ("claim", 'device.driver.matches("^gpu") && "abc".lowerAscii() == "abc"'),
    ("sub", 'device.capacity["d"].mem.asApproximateFloat() > 1.0'),
    ("template", 'device.driver in ["a", "b"]'),
    ("class", 'device.driver == "gpu.example.com"'),
    # an undeclared name
    ("claim", "foo == 1"),
    ("claim", 'devices.driver == "x"'),
    ("claim", "x.y.z == 1 && bar == 2"),
    ("claim", "device.driver.foo()"),
    ("claim", "math.greatest(1, 2) == 2"),
    ("claim", 'device.attributes["d"].v.includes("x")'),
    # an unknown field of device, or a field of what has none
    ("claim", 'device.nosuch == "x"'),
    ("claim", "device.nosuch.x == 1"),
    ("claim", "has(device.nosuch)"),
    ("claim", "device.driver.nosuch == 1"),
    ("template", 'device.drivers == "x"'),
    ("class", "device.nosuch"),
    # not a bool
    ("claim", "device.driver"),
    ("claim", "1"),
    ("claim", "device"),
    ("claim", "dyn(1)"),
    ("claim", 'device.attributes["d"]'),
    ("claim", "device.capacity"),
    ("sub", 'quantity("1Gi")'),
    ("class", "device.attributes"),
    # no matching overload
    ("claim", "device.driver + 1"),
    ("claim", "device.driver == null"),
    ("claim", 'device.capacity["d"].mem + 1 == 2'),
    ("claim", "device.driver.contains(1)"),
    ("claim", 'device.attributes["d"] + 1 == 2'),
    ("claim", "device.driver ==\n 1"),
    ("template", "device.allowMultipleAllocations == \"true\""),
    # a pattern that does not compile
    ("claim", 'device.driver.matches("(")'),
]


def _selector(expression: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": expression}}]


def _request(where: str, expression: str, name: str) -> tuple[str, dict[str, Any]]:
    """The path to POST to and the object that carries the expression."""
    meta = {"name": name}
    if where == "class":
        return f"{GROUP}/deviceclasses", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                           "metadata": meta, "spec": {"selectors": _selector(expression)}}
    if where == "sub":
        request: dict[str, Any] = {"name": "r", "firstAvailable": [
            {"name": "s", "deviceClassName": "dc", "selectors": _selector(expression)}]}
    else:
        request = {"name": "r", "exactly": {"deviceClassName": "dc", "selectors": _selector(expression)}}
    spec = {"devices": {"requests": [request]}}
    if where == "template":
        return f"{GROUP}/namespaces/default/resourceclaimtemplates", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": meta, "spec": {"spec": spec}}
    return f"{GROUP}/namespaces/default/resourceclaims", {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": meta, "spec": spec}


def run_cases(call: Call) -> list[list[Any]]:
    """Each case's ``[code, Status]`` (``[201, kind]`` for an object created)."""
    answers = []
    for i, (where, expression) in enumerate(CASES):
        path, body = _request(where, expression, f"c{i}")
        code, answer = call("POST", path + "?dryRun=All", body, "")
        answers.append([code, answer.get("kind") if code == 201 else answer])
    return answers


def _check(answers: list[list[Any]]) -> list[str]:
    recorded = json.loads(RECORDED.read_text())
    assert len(recorded) == len(CASES)
    return [f"{where} {expression!r}:\n  recorded {real}\n  now      {now}"
            for (where, expression), real, now in zip(CASES, recorded, answers) if real != now]


def test_the_fake_answers_each_selector_as_kube_apiserver_v1_37_did(threaded_server: Any) -> None:
    failures = _check(run_cases(json_caller(threaded_server.url)))
    assert not failures, f"{len(failures)} of {len(CASES)} differ:\n" + "\n".join(failures)


def test_the_table_holds_every_class_of_refusal() -> None:
    """Valid selectors and each refusal class (undeclared, undefined field, not a bool, overload)."""
    recorded = json.loads(RECORDED.read_text())
    messages = [body["message"] for code, body in recorded if code == 422]
    assert sum(code == 201 for code, _ in recorded) >= 10
    for words in ("undeclared reference to", "undefined field", "must evaluate to bool",
                  "found no matching overload", "does not support field selection"):
        assert any(words in m for m in messages), words


def test_kube_apiserver_still_answers_as_recorded(tmp_path: Path) -> None:
    answers = kube_apiserver_answers(tmp_path, RECORDED, lambda *access: run_cases(json_caller(*access)))
    failures = _check(answers)
    assert not failures, "\n".join(failures)
