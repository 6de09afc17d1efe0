"""The server over HTTP, its writes: what a create stamps and defaults, a pod's scheduling gates and
its ``SchedulingGated`` condition, bindings, ``/status`` against the main resource, conflicts, no-op
updates and dry runs; and the same requests with the same seed giving the same bytes.

An aiohttp client against :class:`FakeApiServer` on the virtual loop (``tests.support.http_api``);
every answer is compared with what a real kube-apiserver sends: status codes, ``Status`` bodies
field for field, object shapes. Time is virtual, so timestamps are exact (the epoch is
2026-01-01T00:00:00Z) and a 300-second watch takes milliseconds.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any


from tests.support.http_api import MERGE, NODES, PODS, SMP, Api, binding, node, pod, serve, status, watch_lines

GATED = "Scheduling is blocked due to non-empty scheduling gates"
UID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def invalid_pod(name: str, field: str, kind: str, body: str) -> dict[str, Any]:
    return status(422, "Invalid", f'Pod "{name}" is invalid: {field}: {body}', {
        "name": name, "kind": "Pod", "causes": [{"reason": kind, "message": body, "field": field}]})


# ------------------------------------------------------------------------------------ create


def test_create_stamps_uid_decimal_resource_versions_and_virtual_times() -> None:
    async def scenario(api: Api) -> None:
        first = await api.post(PODS, pod("a"))
        assert first.status == 201
        meta = first.body["metadata"]
        assert list(meta) == ["name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                              "managedFields"]
        assert UID.match(meta["uid"])
        assert (meta["resourceVersion"], meta["generation"], meta["creationTimestamp"]) == (
            "8", 1, "2026-01-01T00:00:00Z")
        await asyncio.sleep(90)
        second = await api.ok("POST", NODES, node("n1"))
        third = await api.ok("POST", "/api/v1/namespaces/default/configmaps",
                             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}})
        # one global counter across kinds, decimal strings
        assert [second["metadata"]["resourceVersion"], third["metadata"]["resourceVersion"]] == ["9", "10"]
        assert second["metadata"]["creationTimestamp"] == "2026-01-01T00:01:30Z"
        assert len({meta["uid"], second["metadata"]["uid"], third["metadata"]["uid"]}) == 3
        listed = (await api.get(PODS)).body
        assert listed["metadata"]["resourceVersion"] == "10"

    serve(scenario)


def test_create_defaults_the_pod_and_resets_its_status() -> None:
    """The defaults schedulers and kubectl read (``_strategy.default_pod``); the ServiceAccount
    admission plugin's token volume is not emulated."""

    async def scenario(api: Api) -> None:
        body = pod("p")
        body["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        created = await api.ok("POST", PODS, body)
        assert created["spec"] == {
            "containers": [{"name": "c", "image": "busybox:1", "imagePullPolicy": "IfNotPresent",
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File", "resources": {}}],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "securityContext": {}, "schedulerName": "default-scheduler", "enableServiceLinks": True,
            "priority": 0, "preemptionPolicy": "PreemptLowerPriority",
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": 300}]}
        assert created["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
        assert list(created) == ["kind", "apiVersion", "metadata", "spec", "status"]

    serve(scenario)


def test_create_without_kind_and_api_version_takes_them_from_the_url() -> None:
    async def scenario(api: Api) -> None:
        created = await api.post(PODS, {"metadata": {"name": "p"}, "spec": pod("p")["spec"]})
        assert created.status == 201
        assert (created.body["kind"], created.body["apiVersion"]) == ("Pod", "v1")

    serve(scenario)


def test_generation_follows_spec_changes_only() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        assert created["metadata"]["generation"] == 1
        labelled = await api.ok("PATCH", f"{PODS}/p", {"metadata": {"labels": {"a": "b"}}})
        assert labelled["metadata"]["generation"] == 1
        status_changed = await api.ok("PATCH", f"{PODS}/p/status", {"status": {"phase": "Running"}})
        assert (status_changed["metadata"]["generation"], status_changed["status"]["phase"]) == (1, "Running")
        imaged = await api.ok("PATCH", f"{PODS}/p", {"spec": {"containers": [{"name": "c", "image": "busybox:2"}]}})
        assert imaged["metadata"]["generation"] == 2
        put = dict(imaged, spec=dict(imaged["spec"], activeDeadlineSeconds=30))
        assert (await api.ok("PUT", f"{PODS}/p", put))["metadata"]["generation"] == 3

    serve(scenario)


# ------------------------------------------------------------------------------ scheduling gates


def _gated_condition(at: str = "2026-01-01T00:00:00Z") -> dict[str, Any]:
    return {"type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": at,
            "reason": "SchedulingGated", "message": GATED}


def test_gated_pod_gets_exactly_the_scheduling_gated_condition() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("g", schedulingGates=[{"name": "example.com/a"}]))
        assert created["status"] == {"phase": "Pending", "qosClass": "BestEffort",
                                     "conditions": [_gated_condition()]}
        plain = await api.ok("POST", PODS, pod("plain"))
        assert "conditions" not in plain["status"]

    serve(scenario)


def test_removing_gates_leaves_the_condition_untouched() -> None:
    """KEP-3521: the apiserver sets the condition on create only (docs/api-facts.md §gated-create)."""

    async def scenario(api: Api) -> None:
        gates = [{"name": "example.com/a"}, {"name": "example.com/b"}, {"name": "example.com/c"}]
        await api.ok("POST", PODS, pod("g", schedulingGates=gates))
        await asyncio.sleep(10)
        smp = await api.ok("PATCH", f"{PODS}/g", {"spec": {"schedulingGates": [
            {"$patch": "delete", "name": "example.com/a"}]}})
        assert smp["spec"]["schedulingGates"] == gates[1:]
        assert (smp["metadata"]["generation"], smp["status"]["conditions"]) == (2, [_gated_condition()])
        merged = await api.ok("PATCH", f"{PODS}/g", {"spec": {"schedulingGates": [{"name": "example.com/c"}]}},
                              content_type=MERGE)
        assert merged["spec"]["schedulingGates"] == [{"name": "example.com/c"}]
        put = await api.ok("PUT", f"{PODS}/g", dict(merged, spec=dict(merged["spec"], schedulingGates=[])))
        assert (put["metadata"]["generation"], put["status"]["conditions"]) == (4, [_gated_condition()])

    serve(scenario)


def test_adding_a_gate_after_create_is_refused() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("g", schedulingGates=[{"name": "example.com/a"}]))
        before = await api.get(f"{PODS}/g")
        reply = await api.patch(f"{PODS}/g", {"spec": {"schedulingGates": [{"name": "example.com/b"}]}})
        assert (reply.status, reply.body) == (422, invalid_pod(
            "g", "spec.schedulingGates[0].name", "FieldValueForbidden",
            "Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/b'"))
        plain = await api.ok("POST", PODS, pod("plain"))
        reply = await api.put(f"{PODS}/plain", dict(plain, spec=dict(plain["spec"], schedulingGates=[{"name": "x"}])))
        assert (reply.status, reply.body) == (422, invalid_pod(
            "plain", "spec.schedulingGates[0].name", "FieldValueForbidden",
            "Forbidden: only deletion is allowed, but found new scheduling gate 'x'"))
        assert (await api.get(f"{PODS}/g")).body == before.body

    serve(scenario)


def test_node_name_with_gates_is_forbidden_at_create() -> None:
    async def scenario(api: Api) -> None:
        reply = await api.post(PODS, pod("g", nodeName="n1", schedulingGates=[{"name": "example.com/a"}]))
        assert (reply.status, reply.body) == (422, invalid_pod(
            "g", "spec.nodeName", "FieldValueForbidden",
            "Forbidden: cannot be set until all schedulingGates have been cleared"))
        assert (await api.get(f"{PODS}/g")).status == 404

    serve(scenario)


# ------------------------------------------------------------------------------------ binding


def test_binding_a_gated_pod_is_a_conflict() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("g", schedulingGates=[{"name": "example.com/a"}]))
        reply = await api.post(f"{PODS}/g/binding", binding("g"))
        assert (reply.status, reply.body) == (409, status(
            409, "Conflict", 'Operation cannot be fulfilled on pods/binding "g": pod g has non-empty .spec.schedulingGates',
            {"name": "g", "kind": "pods/binding"}))
        assert "nodeName" not in (await api.get(f"{PODS}/g")).body["spec"]

    serve(scenario)


def test_binding_sets_node_name_and_pod_scheduled_true() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("g", schedulingGates=[{"name": "example.com/a"}]))
        await api.ok("PATCH", f"{PODS}/g", {"spec": {"schedulingGates": None}}, content_type=MERGE)
        await asyncio.sleep(7)
        reply = await api.post(f"{PODS}/g/binding", binding("g"))
        assert (reply.status, reply.body) == (201, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                    "status": "Success", "code": 201})
        bound = (await api.get(f"{PODS}/g")).body
        assert bound["spec"]["nodeName"] == "n1"
        assert bound["status"]["conditions"] == [{"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                                                  "lastTransitionTime": "2026-01-01T00:00:07Z"}]
        assert bound["metadata"]["resourceVersion"] == "10"
        again = await api.post(f"{PODS}/g/binding", binding("g", "n2"))
        assert (again.status, again.body) == (409, status(
            409, "Conflict", 'Operation cannot be fulfilled on pods/binding "g": pod g is already assigned to node "n1"',
            {"name": "g", "kind": "pods/binding"}))
        mismatch = await api.post(f"{PODS}/g/binding", binding("other"))
        assert (mismatch.status, mismatch.body) == (400, status(
            400, "BadRequest", "name in URL does not match name in Binding object"))
        missing = await api.post(f"{PODS}/nope/binding", binding("nope"))
        assert (missing.status, missing.body) == (404, status(
            404, "NotFound", 'pods "nope" not found', {"name": "nope", "kind": "pods"}))
        assert (await api.get(f"{PODS}/g")).body == bound

    serve(scenario)


def test_binding_preconditions_quote_the_storage_error() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        body = binding("p")
        body["metadata"]["uid"] = "not-the-uid"
        reply = await api.post(f"{PODS}/p/binding", body)
        message = (
            'Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, '
            "Key: /registry/pods/default/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
            f"UID in precondition: not-the-uid, UID in object meta: {created['metadata']['uid']}")
        assert (reply.status, reply.body) == (409, status(409, "Conflict", message, {"name": "p", "kind": "pods"}))
        body["metadata"]["uid"] = created["metadata"]["uid"]
        assert (await api.post(f"{PODS}/p/binding", body)).status == 201

    serve(scenario)


# ---------------------------------------------------------------------------- status and updates


def test_status_subresource_ignores_spec_and_the_main_resource_ignores_status() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        via_status = dict(created, spec=dict(created["spec"], nodeName="sneaky"),
                          status=dict(created["status"], phase="Running"))
        updated = await api.ok("PUT", f"{PODS}/p/status", via_status)
        assert ("nodeName" in updated["spec"], updated["status"]["phase"]) == (False, "Running")
        via_main = dict(updated, status={"phase": "Failed"}, metadata=dict(updated["metadata"], labels={"a": "b"}))
        main = await api.ok("PUT", f"{PODS}/p", via_main)
        assert (main["status"]["phase"], main["metadata"]["labels"]) == ("Running", {"a": "b"})
        patched = await api.ok("PATCH", f"{PODS}/p", {"status": {"phase": "Succeeded"}})
        assert patched["status"]["phase"] == "Running"
        assert patched["metadata"]["resourceVersion"] == main["metadata"]["resourceVersion"]  # a no-op

    serve(scenario)


def test_put_with_a_stale_resource_version_is_a_conflict() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        await api.ok("PATCH", f"{PODS}/p", {"metadata": {"labels": {"a": "b"}}})
        current = (await api.get(f"{PODS}/p")).body
        reply = await api.put(f"{PODS}/p", dict(created, metadata=dict(created["metadata"], labels={"x": "y"})))
        assert (reply.status, reply.body) == (409, status(
            409, "Conflict", 'Operation cannot be fulfilled on pods "p": the object has been modified; please apply '
            "your changes to the latest version and try again", {"name": "p", "kind": "pods"}))
        assert (await api.get(f"{PODS}/p")).body == current

    serve(scenario)


def test_a_no_op_update_writes_nothing() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        rv = created["metadata"]["resourceVersion"]
        watch = await api.session.get(PODS, params={"watch": "true", "resourceVersion": rv, "timeoutSeconds": "5"})
        same = await api.ok("PUT", f"{PODS}/p", created)
        assert same == created
        minimal = await api.ok("PUT", f"{PODS}/p", pod("p"))  # defaults come back, nothing changes
        assert minimal == created
        assert (await api.ok("PATCH", f"{PODS}/p", {"metadata": {"labels": None}})) == created
        changed = await api.ok("PATCH", f"{PODS}/p", {"metadata": {"labels": {"a": "b"}}})
        assert changed["metadata"]["resourceVersion"] == str(int(rv) + 1)
        events = await watch_lines(watch)
        assert [(e["type"], e["object"]["metadata"]["resourceVersion"]) for e in events] == [
            ("MODIFIED", str(int(rv) + 1))]

    serve(scenario)


def test_dry_run_answers_without_writing() -> None:
    async def scenario(api: Api) -> None:
        dry = await api.call("POST", PODS, pod("p"), params={"dryRun": "All"})
        assert dry.status == 201
        assert UID.match(dry.body["metadata"]["uid"]) and "resourceVersion" not in dry.body["metadata"]
        assert (await api.get(f"{PODS}/p")).status == 404
        created = await api.ok("POST", PODS, pod("p"))
        patched = await api.call("PATCH", f"{PODS}/p", {"metadata": {"labels": {"a": "b"}}}, content_type=SMP,
                                 params={"dryRun": "All"})
        assert (patched.status, patched.body["metadata"]["labels"]) == (200, {"a": "b"})
        assert patched.body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
        deleted = await api.call("DELETE", f"{PODS}/p", params={"dryRun": "All"})
        # an unscheduled pod is deleted with a grace period of 0: marked, then gone; a dry run
        # answers with the marked pod (registry.Store.Delete returns it before the storage delete)
        marked = {**created["metadata"], "generation": 2, "deletionTimestamp": created["metadata"]["creationTimestamp"],
                  "deletionGracePeriodSeconds": 0}
        assert (deleted.status, deleted.body) == (200, {**created, "metadata": marked})
        assert (await api.get(PODS)).body["items"] == [created]
        assert (await api.get(PODS)).body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]

    serve(scenario)


# ------------------------------------------------------------------------------------ determinism


def test_same_requests_same_seed_same_bytes() -> None:
    async def session(api: Api) -> list[bytes]:
        bodies: list[bytes] = []
        requests: list[tuple[str, str, Any]] = [
            ("POST", PODS, pod("a", schedulingGates=[{"name": "example.com/g"}])),
            ("POST", NODES, node("n1")),
            ("POST", PODS, dict(pod("x"), metadata={"generateName": "web-"})),
            ("PATCH", f"{PODS}/a", {"spec": {"schedulingGates": None}}),
            ("POST", f"{PODS}/a/binding", binding("a")),
            ("GET", PODS, None),
        ]
        for method, path, body in requests:
            await asyncio.sleep(1.5)
            data = None if body is None else json.dumps(body).encode()
            content_type = MERGE if method == "PATCH" else "application/json"
            async with api.session.request(method, path, data=data, headers={"Content-Type": content_type}) as r:
                assert r.status < 300
                bodies.append(await r.read())
        return bodies

    first = serve(session, seed=7)
    assert first == serve(session, seed=7)
    other = serve(session, seed=8)
    assert other != first
    listed = json.loads(first[-1])
    assert [p["metadata"]["name"] for p in listed["items"]][0] == "a"
    assert re.match(r"^web-[bcdfghjklmnpqrstvwxz2456789]{5}$", listed["items"][1]["metadata"]["name"])
    assert listed["items"][0]["metadata"]["creationTimestamp"] == "2026-01-01T00:00:01Z"
