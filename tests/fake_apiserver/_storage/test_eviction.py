"""``POST pods/{name}/eviction`` over HTTP. Every expected code, message and budget status was
captured from kube-apiserver v1.36 (with etcd, no controllers) by the same requests: pods made
Running (and Ready) through ``/status``, budgets' status written through ``/status``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.http_api import Api, serve

NS = "/api/v1/namespaces/default"
BUDGETS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
MERGE = "application/merge-patch+json"
T0 = "2024-01-01T00:00:00Z"
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget."


def eviction(name: str, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}, **extra}


async def pod(api: Api, name: str, app: str = "a", phase: str | None = None, ready: bool = False) -> None:
    await api.ok("POST", f"{NS}/pods", {"metadata": {"name": name, "labels": {"app": app}},
                                        "spec": {"containers": [{"name": "c", "image": "i"}]}})
    if phase is not None:
        status: dict[str, Any] = {"phase": phase}
        if ready:
            status["conditions"] = [{"type": "Ready", "status": "True", "lastTransitionTime": T0}]
        await api.ok("PATCH", f"{NS}/pods/{name}/status", {"status": status}, MERGE)


async def budget(api: Api, name: str, app: str, status: dict[str, Any] | None = None, **spec: Any) -> None:
    await api.ok("POST", BUDGETS, {"metadata": {"name": name},
                                   "spec": {"selector": {"matchLabels": {"app": app}}, **spec}})
    if status is not None:
        await api.ok("PATCH", f"{BUDGETS}/{name}/status", {"status": {"observedGeneration": 1, **status}}, MERGE)


async def gone(api: Api, name: str) -> bool:
    return (await api.get(f"{NS}/pods/{name}")).status == 404


def test_the_request_is_checked_before_the_pod_is_looked_at() -> None:
    async def scenario(api: Api) -> None:
        reply = await api.post(f"{NS}/pods/nope/eviction", eviction("nope"))
        assert (reply.status, reply.body["message"]) == (404, 'pods "nope" not found')
        await pod(api, "x1")
        for body in (eviction("other"), {}):
            reply = await api.post(f"{NS}/pods/x1/eviction", body)
            assert (reply.status, reply.body["message"]) == (400, "name in URL does not match name in Eviction object")
        reply = await api.post(f"{NS}/pods/x1/eviction", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x1"}})
        assert (reply.status, reply.body["message"]) == (400, 'Pod in version "v1" cannot be handled as a Eviction: '
                                                              "converting (v1.Pod) to (policy.Eviction): unknown conversion")
        reply = await api.post(f"{NS}/pods/x1/eviction",
                               eviction("x1", deleteOptions={"gracePeriodSeconds": -5, "propagationPolicy": "Bogus"}))
        assert (reply.status, reply.body["message"]) == (
            422, 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported '
                 'values: "Foreground", "Background", "Orphan", "nil"')
        assert (await api.get(f"{NS}/pods/x1/eviction")).status == 405
        for body, query in ((eviction("x1"), {"dryRun": "All"}),
                            (eviction("x1", deleteOptions={"dryRun": ["All"]}), {}),
                            ({"apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": {"name": "x1"},
                              "deleteOptions": {"dryRun": ["All"]}}, {})):
            reply = await api.call("POST", f"{NS}/pods/x1/eviction", body, params=query)
            assert (reply.status, reply.body) == (201, SUCCESS)
        assert not await gone(api, "x1")  # every one a dry run
        reply = await api.post(f"{NS}/pods/x1/eviction", eviction("x1"))
        assert (reply.status, reply.body) == (201, SUCCESS)
        assert await gone(api, "x1")

    serve(scenario)


def test_a_budget_that_allows_one_disruption_takes_one() -> None:
    async def scenario(api: Api) -> None:
        await budget(api, "pd", "d", {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                                      "expectedPods": 2}, minAvailable=1)
        await pod(api, "d1", "d", "Running", ready=True)
        await pod(api, "d2", "d", "Running", ready=True)
        assert (await api.call("POST", f"{NS}/pods/d1/eviction", eviction("d1"), params={"dryRun": "All"})).status == 201
        assert not await gone(api, "d1")
        assert (await api.ok("GET", f"{BUDGETS}/pd"))["status"]["disruptionsAllowed"] == 1
        reply = await api.post(f"{NS}/pods/d1/eviction", eviction("d1"))
        assert (reply.status, reply.body) == (201, SUCCESS) and await gone(api, "d1")
        status = (await api.ok("GET", f"{BUDGETS}/pd"))["status"]
        evicted_at = status["disruptedPods"]["d1"]
        assert status == {
            "observedGeneration": 1, "disruptedPods": {"d1": evicted_at}, "disruptionsAllowed": 0, "currentHealthy": 2,
            "desiredHealthy": 1, "expectedPods": 2,
            "conditions": [{"type": "DisruptionAllowed", "status": "False", "observedGeneration": 1,
                            "lastTransitionTime": evicted_at, "reason": "InsufficientPods", "message": ""}]}
        reply = await api.post(f"{NS}/pods/d2/eviction", eviction("d2"))
        assert (reply.status, reply.body["message"], reply.body["details"]) == (429, VIOLATION, {"causes": [
            {"reason": "DisruptionBudget", "message": "The disruption budget pd does not allow evicting pods currently"}]})
        assert not await gone(api, "d2")

    serve(scenario)


# (the budget's status, spec extras, the pod's phase and readiness, the real code, the cause's
# message or None)
CASES = [
    (None, {}, "Running", True, 429, "The disruption budget p is still being processed by the server."),
    ({"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}, {}, "Running", True,
     429, "The disruption budget p needs 1 healthy pods and has 1 currently"),
    ({"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}, {}, "Running", False,
     201, None),  # an unready pod, a healthy budget
    ({"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}, {}, "Pending", False,
     201, None),  # nothing to disrupt yet
    ({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 1, "expectedPods": 1}, {}, "Running", False,
     429, "The disruption budget p needs 1 healthy pods and has 0 currently"),
    ({"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 1, "expectedPods": 1},
     {"unhealthyPodEvictionPolicy": "AlwaysAllow"}, "Running", False, 201, None),
]


@pytest.mark.parametrize(("status", "spec", "phase", "ready", "code", "cause"), CASES,
                         ids=["unprocessed", "none-left", "unready-healthy", "pending", "unready-unhealthy",
                              "always-allow"])
def test_what_a_budget_decides(status: dict[str, Any] | None, spec: dict[str, Any], phase: str, ready: bool,
                               code: int, cause: str | None) -> None:
    async def scenario(api: Api) -> None:
        await budget(api, "p", "a", status, minAvailable=1, **spec)
        await pod(api, "v", "a", phase, ready)
        reply = await api.post(f"{NS}/pods/v/eviction", eviction("v"))
        assert reply.status == code
        if cause is None:
            assert reply.body == SUCCESS and await gone(api, "v")
            return
        details: dict[str, Any] = {"causes": [{"reason": "DisruptionBudget", "message": cause}]}
        if status is None:
            details["retryAfterSeconds"] = 10
        assert (reply.body["message"], reply.body["details"]) == (VIOLATION, details)
        assert not await gone(api, "v")

    serve(scenario)


def test_two_budgets_for_one_pod_are_an_error() -> None:
    async def scenario(api: Api) -> None:
        await budget(api, "pe1", "e", {"disruptionsAllowed": 1}, minAvailable=0)
        await budget(api, "pe2", "e", {"disruptionsAllowed": 1}, maxUnavailable=1)
        await pod(api, "e1", "e", "Running", ready=True)
        reply = await api.post(f"{NS}/pods/e1/eviction", eviction("e1"))
        assert (reply.status, reply.body) == (500, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
            "code": 500})
        assert not await gone(api, "e1")

    serve(scenario)
