"""Graceful deletion: ``rest.BeforeDelete``, ``registry.Store.Delete`` and the pod strategy's
``CheckGracefulDelete`` (apiserver ``pkg/registry/rest/delete.go`` and
``pkg/registry/generic/registry/store.go``; kubernetes ``pkg/registry/core/pod/strategy.go``).

The store on its own first, with a clock the test moves; then the same through HTTP, where the
delete handler decodes and validates ``DeleteOptions``; then kubectl.
"""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from typing import Any

import pytest

from fake_apiserver import Conflict, StatusError
from fake_apiserver._storage.store import kept_after_delete

from fake_apiserver import Store
from tests.support.http_api import Api, binding, serve, status
from tests.support.kubectl import Kubectl, binding as binding_json, pod_manifest, table
from tests.support.store import EPOCH, PODS, START, ManualClock, pod, raises

STAMP = "%Y-%m-%dT%H:%M:%SZ"


def at(seconds: float) -> str:
    return (EPOCH + timedelta(seconds=seconds)).strftime(STAMP)


def setup(**spec: Any) -> tuple[Store, ManualClock, dict[str, Any]]:
    """A store with pod ``p`` bound to ``n1`` (``spec`` added to the pod's)."""
    clock = ManualClock()
    s = Store(clock)
    s.create(PODS, "default", pod("p", **spec))
    s.bind("default", "p", binding("p"))
    return s, clock, s.get(PODS, "default", "p")


def changes(s: Store, since: int) -> list[tuple[str, dict[str, Any]]]:
    """What a watcher of pods sees after ``since``: (type, metadata) pairs."""
    out = []
    for change in s.cache(PODS).history:
        if change.rv > since:
            kind = "DELETED" if change.new is None else "ADDED" if change.old is None else "MODIFIED"
            out.append((kind, (change.new or change.old)["metadata"]))
    return out


def test_a_bound_pod_stays_marked_for_its_grace_period() -> None:
    s, clock, bound = setup()
    clock.t += timedelta(seconds=5)
    answer = s.delete(PODS, "default", "p")
    meta = answer["metadata"]
    assert (meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"], meta["generation"]) == (at(35), 30, 2)
    assert answer == s.get(PODS, "default", "p") and kept_after_delete(answer)
    assert answer["spec"] == bound["spec"] and answer["status"] == bound["status"]
    assert [kind for kind, _ in changes(s, int(bound["metadata"]["resourceVersion"]))] == ["MODIFIED"]


def test_the_grace_period_comes_from_the_request_then_the_pod_and_is_zero_for_an_ended_pod() -> None:
    s, _, _ = setup(terminationGracePeriodSeconds=7)
    assert s.delete(PODS, "default", "p")["metadata"]["deletionGracePeriodSeconds"] == 7
    s, _, _ = setup(terminationGracePeriodSeconds=7)
    assert s.delete(PODS, "default", "p", options={"gracePeriodSeconds": 12})["metadata"][
        "deletionGracePeriodSeconds"] == 12
    s, _, _ = setup()
    assert s.delete(PODS, "default", "p", options={"gracePeriodSeconds": -4})["metadata"][
        "deletionGracePeriodSeconds"] == 1  # "Negative values will be treated as the value `1s`"
    s, _, bound = setup()
    s.patch(PODS, "default", "p", b'{"status":{"phase":"Succeeded"}}', "application/merge-patch+json",
            subresource="status")
    assert not kept_after_delete(s.delete(PODS, "default", "p"))
    assert s.list(PODS, "default")["items"] == []


def test_a_repeated_delete_only_shortens_the_grace_period() -> None:
    s, clock, _ = setup()
    marked = s.delete(PODS, "default", "p")
    rv = s.resource_version
    assert s.delete(PODS, "default", "p") is marked  # pending: nothing written
    assert s.delete(PODS, "default", "p", options={"gracePeriodSeconds": 60}) is marked
    assert s.resource_version == rv
    clock.t += timedelta(seconds=10)
    shorter = s.delete(PODS, "default", "p", options={"gracePeriodSeconds": 25})["metadata"]
    # the timestamp moves back by the difference (30 - 25), from where it was
    assert (shorter["deletionTimestamp"], shorter["deletionGracePeriodSeconds"], shorter["generation"]) == (
        at(25), 25, 2)


def test_shortening_past_the_due_time_keeps_a_graceful_delete_graceful() -> None:
    s, clock, _ = setup()
    s.delete(PODS, "default", "p")
    clock.t += timedelta(seconds=20)
    shorter = s.delete(PODS, "default", "p", options={"gracePeriodSeconds": 2})["metadata"]
    assert (shorter["deletionTimestamp"], shorter["deletionGracePeriodSeconds"]) == (at(20), 1)


def test_the_kubelets_confirmation_marks_then_deletes() -> None:
    s, clock, bound = setup()
    marked = s.delete(PODS, "default", "p")
    with raises(Conflict, 'Operation cannot be fulfilled on Pod "p": the UID in the precondition (x) does not '
                          f"match the UID in record ({bound['metadata']['uid']}). The object might have been deleted "
                          "and then recreated"):
        s.delete(PODS, "default", "p", options={"gracePeriodSeconds": 0, "preconditions": {"uid": "x"}})
    clock.t += timedelta(seconds=30)
    rv = s.resource_version
    gone = s.delete(PODS, "default", "p",
                    options={"gracePeriodSeconds": 0, "preconditions": {"uid": bound["metadata"]["uid"]}})
    assert not kept_after_delete(gone) and s.list(PODS, "default")["items"] == []
    seen = changes(s, rv)
    assert [kind for kind, _ in seen] == ["MODIFIED", "DELETED"]
    assert (seen[1][1]["deletionTimestamp"], seen[1][1]["deletionGracePeriodSeconds"]) == (
        marked["metadata"]["deletionTimestamp"], 0)


def test_an_unscheduled_pod_is_marked_and_deleted_at_once() -> None:
    clock = ManualClock()
    s = Store(clock)
    created = s.create(PODS, "default", pod("p"))
    gone = s.delete(PODS, "default", "p")
    assert (gone["metadata"]["deletionTimestamp"], gone["metadata"]["deletionGracePeriodSeconds"]) == (at(0), 0)
    assert [kind for kind, _ in changes(s, int(created["metadata"]["resourceVersion"]))] == ["MODIFIED", "DELETED"]
    assert s.resource_version == START + 3


def test_finalizers_hold_a_pod_until_the_last_one_goes() -> None:
    s, clock, _ = setup(terminationGracePeriodSeconds=10)
    s.patch(PODS, "default", "p", b'{"metadata":{"finalizers":["example.com/hold"]}}',
            "application/merge-patch+json")
    assert s.delete(PODS, "default", "p")["metadata"]["deletionGracePeriodSeconds"] == 10
    held = s.delete(PODS, "default", "p", options={"gracePeriodSeconds": 0})
    assert (held["metadata"]["deletionGracePeriodSeconds"], held["metadata"]["deletionTimestamp"]) == (0, at(0))
    assert kept_after_delete(held)
    with raises(StatusError, 'Pod "p" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added '
                             'if the object is being deleted, found new finalizers []string{"example.com/more"}'):
        s.patch(PODS, "default", "p", b'{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}',
                "application/merge-patch+json")
    s.patch(PODS, "default", "p", b'{"metadata":{"finalizers":null}}', "application/merge-patch+json")
    assert s.list(PODS, "default")["items"] == []


def test_an_unscheduled_pod_with_a_finalizer_is_marked_now_and_kept() -> None:
    clock = ManualClock()
    s = Store(clock)
    s.create(PODS, "default", {**pod("g"), "metadata": {"name": "g", "finalizers": ["example.com/hold"]}})
    clock.t += timedelta(seconds=3)
    held = s.delete(PODS, "default", "g")["metadata"]
    assert (held["deletionTimestamp"], held["deletionGracePeriodSeconds"], held["generation"]) == (at(3), 0, 2)
    with raises(Conflict, 'Operation cannot be fulfilled on pods/binding "g": pod g is being deleted, cannot be '
                          "assigned to a host"):
        s.bind("default", "g", binding("g"))


def test_a_dry_run_answers_with_the_marked_pod_and_writes_nothing() -> None:
    s, _, bound = setup()
    rv = s.resource_version
    answer = s.delete(PODS, "default", "p", dry_run=True)
    assert answer["metadata"]["deletionGracePeriodSeconds"] == 30
    assert (s.resource_version, s.get(PODS, "default", "p")) == (rv, bound)


# ------------------------------------------------------------------------------------ HTTP


PODS_PATH = "/api/v1/namespaces/default/pods"


def _delete_options_invalid(message: str, causes: list[dict[str, Any]]) -> dict[str, Any]:
    return status(422, "Invalid", f'DeleteOptions.meta.k8s.io "" is invalid: {message}',
                  {"group": "meta.k8s.io", "kind": "DeleteOptions", "causes": causes})


def test_delete_options_are_validated_before_the_object_is_looked_up() -> None:
    async def scenario(api: Api) -> None:
        bogus = await api.call("DELETE", f"{PODS_PATH}/missing", {"propagationPolicy": "Bogus"})
        message = ('propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", '
                   '"Orphan", "nil"')
        assert (bogus.status, bogus.body) == (422, _delete_options_invalid(message, [{
            "reason": "FieldValueNotSupported", "message": message.split(": ", 1)[1], "field": "propagationPolicy"}]))
        both = await api.call("DELETE", f"{PODS_PATH}/missing",
                              {"propagationPolicy": "Background", "orphanDependents": True})
        message = 'propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set'
        assert (both.status, both.body) == (422, _delete_options_invalid(message, [{
            "reason": "FieldValueInvalid", "message": message.split(": ", 1)[1], "field": "propagationPolicy"}]))
        typed = await api.call("DELETE", f"{PODS_PATH}/missing", {"gracePeriodSeconds": "soon"})
        assert typed.status == 400 and "DeleteOptions" in typed.body["message"]
        missing = await api.call("DELETE", f"{PODS_PATH}/missing", {"propagationPolicy": "Foreground"})
        assert (missing.status, missing.body["reason"]) == (404, "NotFound")

    serve(scenario)


def test_a_bound_pod_through_http_then_its_kubelets_delete_by_query() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
        await api.ok("POST", PODS_PATH, pod("p"))
        await api.ok("POST", f"{PODS_PATH}/p/binding", binding("p"))
        marked = await api.call("DELETE", f"{PODS_PATH}/p", {"propagationPolicy": "Background"})
        assert (marked.status, marked.body["metadata"]["deletionGracePeriodSeconds"]) == (200, 30)
        # no garbage collector: a policy adds no finalizer nothing would remove
        assert "finalizers" not in marked.body["metadata"]
        again = await api.call("POST", f"{PODS_PATH}/p/binding", binding("p", "n2"))
        assert (again.status, again.body["message"]) == (
            409, 'Operation cannot be fulfilled on pods/binding "p": pod p is being deleted, cannot be assigned to '
                 "a host")
        gone = await api.call("DELETE", f"{PODS_PATH}/p", params={"gracePeriodSeconds": "0"})
        assert gone.status == 200 and gone.body["metadata"]["deletionGracePeriodSeconds"] == 0
        assert (await api.get(f"{PODS_PATH}/p")).status == 404

    serve(scenario)


def test_a_delete_that_marks_and_one_that_deletes_carry_their_effects() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS_PATH, pod("p"))
        await api.ok("POST", f"{PODS_PATH}/p/binding", binding("p"))
        bound = await api.ok("GET", f"{PODS_PATH}/p")
        await api.ok("DELETE", f"{PODS_PATH}/p")
        await api.ok("DELETE", f"{PODS_PATH}/p", {"gracePeriodSeconds": 0})
        first, second = [e for e in api.server.journal.entries if e.verb == "delete"]
        assert first.before == bound and first.after is not None and first.after["metadata"]["deletionTimestamp"]
        assert second.before == first.after and second.after is None

    serve(scenario)


# ------------------------------------------------------------------------------------ kubectl


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
def test_kubectl_shows_a_deleted_bound_pod_terminating_until_a_forced_delete(kubectl: Kubectl, ns: str) -> None:
    kubectl.out("create", "-n", ns, "-f", "-", input=pod_manifest("web"))
    kubectl.out("create", "--raw", f"/api/v1/namespaces/{ns}/pods/web/binding", "-f", "-",
                input=binding_json("web", "node-1"))
    assert kubectl.out("delete", "-n", ns, "pod", "web", "--wait=false") == 'pod "web" deleted\n'
    [header, row] = table(kubectl.out("get", "-n", ns, "pods"))
    assert (header[:3], row[:3]) == (["NAME", "READY", "STATUS"], ["web", "0/1", "Terminating"])
    stored = json.loads(kubectl.out("get", "-n", ns, "pod", "web", "-o", "json"))["metadata"]
    assert (stored["deletionGracePeriodSeconds"], stored["generation"]) == (30, 2)
    forced = kubectl.run("delete", "-n", ns, "pod", "web", "--grace-period=0", "--force")
    assert forced.stdout == 'pod "web" force deleted\n'
    assert kubectl.fail("get", "-n", ns, "pod", "web") == 'Error from server (NotFound): pods "web" not found\n'
