"""The API-server facts ``docs/api-facts.md`` states (§gated-create, §gated-binding, §status-write,
§binding), asked of the fake and, with ``KUBEBUILDER_ASSETS`` naming kube-apiserver binaries, of a
real kube-apiserver: the same requests, and the answers the page writes down.

The expected facts were read from kube-apiserver v1.37.2 (envtest) on 2026-11-26 by these requests:
a pod created with two gates and one without, a binding of the gated pod, its gates removed, its
binding then, the bound pod, a strategic merge patch and a JSON merge patch of another pod's
``status.conditions``, and a binding of a pod being deleted (held by a finalizer).
"""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets

NS = "/api/v1/namespaces/facts"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"

Call = Callable[[str, str, Any, str], tuple[int, Any]]


def _pod(name: str, *gates: str) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x"}]}
    if gates:
        spec["schedulingGates"] = [{"name": g} for g in gates]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _binding(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}, "target": {"kind": "Node", "name": "n1"}}


def _conditions(pod: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The pod's conditions without their times (set by the server's clock)."""
    conditions = (pod.get("status") or {}).get("conditions")
    if conditions is None:
        return None
    return [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in conditions]


def _facts(call: Call) -> dict[str, Any]:
    """The answers docs/api-facts.md states, as (code, fact) per request."""
    assert call("POST", "/api/v1/namespaces", {"metadata": {"name": "facts"}}, "")[0] == 201
    # envtest runs no controller-manager: the namespace's default service account is made here
    assert call("POST", NS + "/serviceaccounts", {"metadata": {"name": "default"}}, "")[0] == 201
    facts: dict[str, Any] = {}
    code, gated = call("POST", NS + "/pods", _pod("g", "example.com/a", "example.com/b"), "")
    facts["gated pod created"] = (code, _conditions(gated))
    code, plain = call("POST", NS + "/pods", _pod("u"), "")
    facts["ungated pod created"] = (code, _conditions(plain))
    code, refused = call("POST", NS + "/pods/g/binding", _binding("g"), "")
    facts["gated pod bound"] = (code, refused.get("reason"), refused.get("message"))
    code, ungated = call("PATCH", NS + "/pods/g", {"spec": {"schedulingGates": None}}, MERGE)
    facts["gates removed"] = (code, _conditions(ungated))
    code, status = call("POST", NS + "/pods/g/binding", _binding("g"), "")
    facts["ungated pod bound"] = (code, status.get("kind"), status.get("status"))
    code, bound = call("GET", NS + "/pods/g", None, "")
    facts["bound pod"] = (bound["spec"].get("nodeName"), _conditions(bound))
    other = {"status": {"conditions": [{"type": "example.com/Other", "status": "True"}]}}
    assert call("PATCH", NS + "/pods/u/status", other, STRATEGIC)[0] == 200
    unschedulable = {"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                                "message": "0/1 nodes are available: 1 Insufficient cpu."}]}}
    code, patched = call("PATCH", NS + "/pods/u/status", unschedulable, STRATEGIC)
    facts["strategic merge patch of a condition"] = (code, sorted(c["type"] for c in patched["status"]["conditions"]))
    replaced = {"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}}
    code, patched = call("PATCH", NS + "/pods/u/status", replaced, MERGE)
    facts["JSON merge patch of a condition"] = (code, sorted(c["type"] for c in patched["status"]["conditions"]))
    assert call("POST", NS + "/pods", {**_pod("d"), "metadata": {"name": "d", "finalizers": ["example.com/hold"]}},
                "")[0] == 201
    assert call("DELETE", NS + "/pods/d", None, "")[0] == 200
    code, refused = call("POST", NS + "/pods/d/binding", _binding("d"), "")
    facts["deleting pod bound"] = (code, refused.get("reason"), refused.get("message"))
    return json.loads(json.dumps(facts))  # tuples as lists, as compared


#: What kube-apiserver v1.37.2 answered (docs/api-facts.md).
KUBE_APISERVER_V1_37_2 = {
    "gated pod created": [201, [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                 "reason": "SchedulingGated", "message": GATED_MESSAGE}]],
    "ungated pod created": [201, None],
    "gated pod bound": [409, "Conflict",
                        'Operation cannot be fulfilled on pods/binding "g": pod g has non-empty .spec.schedulingGates'],
    "gates removed": [200, [{"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                             "reason": "SchedulingGated", "message": GATED_MESSAGE}]],
    "ungated pod bound": [201, "Status", "Success"],
    "bound pod": ["n1", [{"type": "PodScheduled", "status": "True", "lastProbeTime": None}]],
    "strategic merge patch of a condition": [200, ["PodScheduled", "example.com/Other"]],
    "JSON merge patch of a condition": [200, ["PodScheduled"]],
    "deleting pod bound": [409, "Conflict", 'Operation cannot be fulfilled on pods/binding "d": pod d is being '
                                            "deleted, cannot be assigned to a host"],
}


def _caller(server: str, token: str | None = None, context: ssl.SSLContext | None = None) -> Call:
    def call(method: str, path: str, body: Any, content_type: str) -> tuple[int, Any]:
        headers = {"Content-Type": content_type or "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(server + path, method=method, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())
    return call


def test_the_fake_answers_as_the_page_says(threaded_server: Any) -> None:
    assert _facts(_caller(threaded_server.url)) == KUBE_APISERVER_V1_37_2


def test_kube_apiserver_answers_as_the_page_says(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path) as plane:
        server, token, context = plane.access()
        facts = _facts(_caller(server, token, context))
    assert facts == KUBE_APISERVER_V1_37_2
