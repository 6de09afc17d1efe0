"""The server over HTTP, its discovery and its release: ``/api``, ``/apis`` and each group's
resources with their subresources, ``/version`` and the health checks, the release served (the
pinned one, an older one without the fields added since, one it cannot serve refused) and the
namespaces a server starts with.

An aiohttp client against :class:`FakeApiServer` on the virtual loop (``tests.support.http_api``);
every answer is compared with what a real kube-apiserver sends: status codes, ``Status`` bodies
field for field, object shapes. Time is virtual, so timestamps are exact (the epoch is
2026-01-01T00:00:00Z) and a 300-second watch takes milliseconds.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from fake_apiserver import FakeApiServer
from tests.support.http_api import Api, serve
from tests.support.paths import ROOT


# ------------------------------------------------------------------------------------ discovery


def _discovery(minor: str) -> dict[str, Any]:
    """A release's discovery data, as tools/gen_discovery.py captured it from kube-apiserver."""
    return json.loads((ROOT / "fake_apiserver" / "data" / f"discovery-v{minor}.json").read_text())


def test_core_discovery_lists_pods_with_their_subresources() -> None:
    async def scenario(api: Api) -> None:
        root = await api.get("/api")
        assert root.body == {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": f"127.0.0.1:{api.server.port}"}]}
        v1 = (await api.get("/api/v1")).body
        assert (v1["kind"], v1["groupVersion"]) == ("APIResourceList", "v1")
        by_name = {r["name"]: r for r in v1["resources"]}
        assert by_name["pods"] == {
            "name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            "shortNames": ["po"], "categories": ["all"]}
        assert by_name["pods/status"] == {"name": "pods/status", "singularName": "", "namespaced": True,
                                          "kind": "Pod", "verbs": ["get", "patch", "update"]}
        assert by_name["pods/binding"] == {"name": "pods/binding", "singularName": "", "namespaced": True,
                                           "kind": "Binding", "verbs": ["create"]}
        # as kube-apiserver v1.36 lists it: a kind of another group, named with it
        assert by_name["pods/eviction"] == {"name": "pods/eviction", "singularName": "", "namespaced": True,
                                            "group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"]}
        assert by_name["nodes"]["namespaced"] is False
        # every resource and subresource kube-apiserver v1.37.2 lists (its discovery, captured)
        core = _discovery("1.37")["groups"][0]["versions"][0]["resources"]
        assert [r["name"] for r in v1["resources"]] == [
            name for r in core for name in (r["resource"], *(f"{r['resource']}/{s['subresource']}"
                                                             for s in r["subresources"]))]

    serve(scenario)


def test_group_discovery_lists_every_group_and_resourceclaims_status() -> None:
    async def scenario(api: Api) -> None:
        groups = (await api.get("/apis")).body
        assert groups["kind"] == "APIGroupList"
        # kube-apiserver v1.37.2's groups in its order (its discovery, captured)
        assert [g["name"] for g in groups["groups"]] == [g["group"] for g in _discovery("1.37")["groups"][1:]]
        dra = next(g for g in groups["groups"] if g["name"] == "resource.k8s.io")
        assert dra == {
            "name": "resource.k8s.io", "versions": [{"groupVersion": "resource.k8s.io/v1", "version": "v1"}],
            "preferredVersion": {"groupVersion": "resource.k8s.io/v1", "version": "v1"}}
        group = (await api.get("/apis/resource.k8s.io")).body
        assert (group["kind"], group["name"]) == ("APIGroup", "resource.k8s.io")
        resource = (await api.get("/apis/resource.k8s.io/v1")).body
        assert [r["name"] for r in resource["resources"]] == [
            "deviceclasses", "devicetaintrules", "devicetaintrules/status", "resourceclaims", "resourceclaims/status",
            "resourceclaimtemplates", "resourceslices"]
        assert resource["resources"][4] == {"name": "resourceclaims/status", "singularName": "", "namespaced": True,
                                            "kind": "ResourceClaim", "verbs": ["get", "patch", "update"]}
        events = (await api.get("/apis/events.k8s.io/v1")).body
        assert events["groupVersion"] == "events.k8s.io/v1"
        assert [r["name"] for r in events["resources"]] == ["events"]

    serve(scenario)


DEVICE_TAINT_RULES = "/apis/resource.k8s.io/v1/devicetaintrules"


def test_device_taint_rules_are_served_from_release_137_on() -> None:
    """resource.k8s.io/v1 DeviceTaintRule is GA in v1.37 (kube-scheduler v1.37 informs it); v1.36
    had it at v1beta2, off by default, so a server of v1.36 knows no such resource at v1."""
    async def v137(api: Api) -> None:
        resources = {r["name"]: r for r in (await api.get("/apis/resource.k8s.io/v1")).body["resources"]}
        assert resources["devicetaintrules"] == {
            "name": "devicetaintrules", "singularName": "devicetaintrule", "namespaced": False, "kind": "DeviceTaintRule",
            "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]}
        assert resources["devicetaintrules/status"] == {
            "name": "devicetaintrules/status", "singularName": "", "namespaced": False, "kind": "DeviceTaintRule",
            "verbs": ["get", "patch", "update"]}
        listed = await api.ok("GET", DEVICE_TAINT_RULES)
        assert (listed["kind"], listed["apiVersion"], listed["items"]) == ("DeviceTaintRuleList", "resource.k8s.io/v1", [])
        paths = (await api.get("/openapi/v3/apis/resource.k8s.io/v1")).body["paths"]
        assert "/apis/resource.k8s.io/v1/devicetaintrules/{name}/status" in paths

    async def v136(api: Api) -> None:
        resources = [r["name"] for r in (await api.get("/apis/resource.k8s.io/v1")).body["resources"]]
        assert "devicetaintrules" not in resources
        reply = await api.get(DEVICE_TAINT_RULES)  # as kube-apiserver answers for a resource it lacks
        assert (reply.status, reply.body) == (404, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the server could not find the requested resource", "reason": "NotFound", "details": {},
            "code": 404})
        paths = (await api.get("/openapi/v3/apis/resource.k8s.io/v1")).body["paths"]
        assert not [path for path in paths if "devicetaintrules" in path]

    serve(v137)
    serve(v136, kubernetes_version="1.36")


def test_a_device_taint_rule_is_written_as_kube_apiserver_v137_writes_it() -> None:
    """pkg/registry/resource/devicetaintrule, each answer compared with kube-apiserver v1.37.2's to
    the same requests: the status cleared on create (and encoded as ``{}``) and kept on update;
    generation 1, then +1 on a spec change (a selector set to ``null`` from ``{}`` is one); the
    taint's ``timeAdded`` defaulted to the time of the write and set anew when the effect changes
    but the time does not (a given time is kept); an update needs a resourceVersion; ``/status``
    changes no labels, annotations or finalizers (``ResetObjectMetaForStatus``); a delete answers
    a ``Status``."""
    merge = "application/merge-patch+json"
    at = "2026-01-01T00:00:0{}Z".format
    condition = {"type": "EvictionInProgress", "status": "True", "reason": "R", "message": "m",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"}

    async def scenario(api: Api) -> None:
        created = await api.ok("POST", DEVICE_TAINT_RULES, {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "r", "labels": {"a": "b"}},
            "spec": {"deviceSelector": {}, "taint": {"key": "example.com/k", "effect": "NoSchedule"}},
            "status": {"conditions": [condition]}})
        assert (created["metadata"]["generation"], created["spec"], created["status"]) == (
            1, {"deviceSelector": {}, "taint": {"key": "example.com/k", "effect": "NoSchedule", "timeAdded": at(0)}}, {})
        await asyncio.sleep(2)
        patched = await api.ok("PATCH", f"{DEVICE_TAINT_RULES}/r", {"spec": {"taint": {"value": "v"}}}, merge)
        assert (patched["metadata"]["generation"], patched["spec"]["taint"]["timeAdded"]) == (2, at(0))
        status_patch = {"metadata": {"labels": {"c": "d"}, "annotations": {"x": "y"}, "finalizers": ["example.com/f"]},
                        "spec": {"taint": {"value": "w"}}, "status": {"conditions": [condition]}}
        written = await api.ok("PATCH", f"{DEVICE_TAINT_RULES}/r/status", status_patch, merge)
        assert (written["metadata"]["labels"], written["spec"], written["status"]) == (
            {"a": "b"}, patched["spec"], {"conditions": [condition]})
        assert "annotations" not in written["metadata"] and "finalizers" not in written["metadata"]
        await asyncio.sleep(2)
        effect = await api.ok("PATCH", f"{DEVICE_TAINT_RULES}/r", {"spec": {"taint": {"effect": "None"}}}, merge)
        assert (effect["metadata"]["generation"], effect["spec"]["taint"]["timeAdded"], effect["status"]) == (
            3, at(4), {"conditions": [condition]})
        given = await api.ok("PATCH", f"{DEVICE_TAINT_RULES}/r", {"spec": {"taint": {
            "effect": "NoExecute", "timeAdded": "2020-01-01T00:00:00Z"}}}, merge)
        assert (given["metadata"]["generation"], given["spec"]["taint"]["timeAdded"]) == (4, "2020-01-01T00:00:00Z")
        unselected = await api.ok("PATCH", f"{DEVICE_TAINT_RULES}/r", {"spec": {"deviceSelector": None}}, merge)
        assert (unselected["metadata"]["generation"], "deviceSelector" in unselected["spec"]) == (5, False)
        await asyncio.sleep(2)
        body = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
                "spec": {"taint": {"key": "example.com/k", "value": "v", "effect": "NoExecute"}}}
        unconditional = await api.put(f"{DEVICE_TAINT_RULES}/r", body)
        assert (unconditional.status, unconditional.body["message"]) == (
            422, 'devicetaintrules.resource.k8s.io "r" is invalid: metadata.resourceVersion: Invalid value: 0: '
                 "must be specified for an update")
        body["metadata"]["resourceVersion"] = unselected["metadata"]["resourceVersion"]
        put = await api.ok("PUT", f"{DEVICE_TAINT_RULES}/r", body)  # no timeAdded: defaulted anew
        assert (put["metadata"]["generation"], put["spec"]["taint"]["timeAdded"]) == (6, at(6))
        deleted = await api.delete(f"{DEVICE_TAINT_RULES}/r")
        assert (deleted.status, deleted.body) == (200, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": "r", "group": "resource.k8s.io", "kind": "devicetaintrules",
                        "uid": created["metadata"]["uid"]}})

    serve(scenario)


def test_version_and_health_endpoints() -> None:
    # a server of release 1.36 says what kube-apiserver v1.36.0 says of its version fields
    real_v1_36 = {"major": "1", "minor": "36", "emulationMajor": "1", "emulationMinor": "36",
                  "minCompatibilityMajor": "1", "minCompatibilityMinor": "35"}

    async def scenario(api: Api) -> None:
        version = await api.get("/version")
        assert version.body == {
            **real_v1_36, "gitVersion": "v1.36.0-schedharness",
            "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25", "compiler": "gc",
            "platform": "linux/amd64"}
        for path in ("/healthz", "/readyz", "/livez", "/readyz/etcd"):
            reply = await api.call("GET", path, headers={"Accept": "text/plain"})  # not negotiated
            assert (reply.status, reply.body, reply.content_type) == (200, "ok", "text/plain; charset=utf-8")

    serve(scenario, kubernetes_version="1.36")


def test_the_default_release_is_the_pinned_schemas_release() -> None:
    async def scenario(api: Api) -> None:
        version = (await api.get("/version")).body
        assert (version["minor"], version["gitVersion"]) == ("37", "v1.37.0-schedharness")
        assert (await api.get("/openapi/v3/api/v1")).body["info"]["version"] == "1.37"

    serve(scenario)


def test_a_server_of_an_older_release_prunes_the_fields_added_since() -> None:
    """kube-apiserver v1.36 (captured): a Node with KEP-5836's ``spec.podPreemptionPolicy``
    (added in v1.37) is stored without it and a warning, and refused under strict validation."""
    node_body = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                 "spec": {"podPreemptionPolicy": {"disableResizePreemption": ["a.b/c"]}}}

    async def scenario(api: Api) -> None:
        reply = await api.call("POST", "/api/v1/nodes", node_body, params={"fieldValidation": "Strict"})
        assert (reply.status, reply.body["message"]) == (400, 'Node in version "v1" cannot be handled as a Node: '
                                                               'strict decoding error: unknown field "spec.podPreemptionPolicy"')
        stored = await api.ok("POST", "/api/v1/nodes", node_body)
        assert "podPreemptionPolicy" not in stored.get("spec", {})
        pod_spec = (await api.get("/openapi/v3/api/v1")).body["components"]["schemas"]["io.k8s.api.core.v1.NodeSpec"]
        assert "podPreemptionPolicy" not in pod_spec["properties"]

    serve(scenario, kubernetes_version="v1.36")


def test_a_release_the_fake_cannot_serve_as_is_refused() -> None:
    with pytest.raises(ValueError, match=r"Kubernetes version '1\.20' is not one this fake serves as \(choose one of "
                                         r"1\.34, 1\.35, 1\.36, 1\.37\)"):
        FakeApiServer(kubernetes_version="1.20")


def test_the_four_default_namespaces_exist_at_start() -> None:
    async def scenario(api: Api) -> None:
        listed = (await api.get("/api/v1/namespaces")).body
        assert [(n["metadata"]["name"], n["metadata"]["resourceVersion"], n["status"]) for n in listed["items"]] == [
            ("default", "2", {"phase": "Active"}), ("kube-node-lease", "5", {"phase": "Active"}),
            ("kube-public", "4", {"phase": "Active"}), ("kube-system", "3", {"phase": "Active"})]
        assert listed["metadata"] == {"resourceVersion": "7"}  # then the two system priority classes
        assert listed["items"][0]["spec"] == {"finalizers": ["kubernetes"]}

    serve(scenario)
