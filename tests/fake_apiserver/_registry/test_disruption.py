"""policy/v1 PodDisruptionBudget as a real kube-apiserver v1.36 answers it (no kube-controller-manager
running): the zero status on create whatever the body says, a status written through ``/status``
that sticks, the spec's validation messages, and ``kubectl get pdb``'s columns."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tests.support.http_api import Api, serve, status
from tests.support.kubectl import Kubectl, table

PDBS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"


def pdb(name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": "a"}}, **spec}}


def test_create_stores_the_zero_status_and_a_status_write_sticks() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PDBS, {**pdb("guard", minAvailable=1), "status": {"disruptionsAllowed": 5}})
        assert created["status"] == {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                     "expectedPods": 0}
        assert (created["metadata"]["generation"], created["spec"]) == (
            1, {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}})
        patched = await api.ok("PATCH", f"{PDBS}/guard/status", {"status": {"disruptionsAllowed": 1}},
                               content_type="application/merge-patch+json")
        assert patched["status"]["disruptionsAllowed"] == 1
        assert (await api.ok("GET", f"{PDBS}/guard"))["status"]["disruptionsAllowed"] == 1
        for name, spec in (("nosel", {"minAvailable": 1, "selector": None}), ("none", {})):
            body = pdb(name, **spec)
            body["spec"] = {k: v for k, v in body["spec"].items() if v is not None}
            assert (await api.call("POST", PDBS, body)).status == 201

    serve(scenario)


def _invalid(name: str, field: str, body: str) -> dict[str, Any]:
    return status(422, "Invalid", f'PodDisruptionBudget.policy "{name}" is invalid: {field}: {body}',
                  {"name": name, "group": "policy", "kind": "PodDisruptionBudget",
                   "causes": [{"reason": "FieldValueInvalid", "message": body, "field": field}]})


def test_the_spec_is_validated_with_the_real_messages() -> None:
    async def scenario(api: Api) -> None:
        both = await api.call("POST", PDBS, pdb("pdb-both", minAvailable=1, maxUnavailable=1))
        assert (both.status, both.body) == (422, _invalid(
            "pdb-both", "spec",
            'Invalid value: {"MinAvailable":1,"Selector":{"matchLabels":{"app":"a"}},"MaxUnavailable":1,'
            '"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set'))
        negative = await api.call("POST", PDBS, pdb("pdb-neg", minAvailable=-1))
        assert (negative.status, negative.body) == (422, _invalid(
            "pdb-neg", "spec.minAvailable", "Invalid value: -1: must be greater than or equal to 0"))
        percent = await api.call("POST", PDBS, pdb("pdb-pct", maxUnavailable="150%"))
        assert (percent.status, percent.body) == (422, _invalid(
            "pdb-pct", "spec.maxUnavailable", 'Invalid value: "150%": must not be greater than 100%'))
        assert (await api.get(PDBS)).body["items"] == []

    serve(scenario)


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
def test_kubectl_get_pdb_shows_the_budget_columns(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", "-", input=json.dumps(pdb("guard", minAvailable=1)))
    kubectl.out("create", "-n", ns, "-f", "-", input=json.dumps(pdb("half", maxUnavailable="50%")))
    rows = table(kubectl.out("get", "-n", ns, "pdb"))
    assert rows[0] == ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]
    assert [row[:4] for row in rows[1:]] == [["guard", "1", "N/A", "0"], ["half", "N/A", "50%", "0"]]
