"""The server over HTTP, its lists and watches: pages with ``limit`` and ``continue``, label and
field selectors, watches from a resourceVersion with their bookmarks, timeouts and selector
transitions, a compacted resourceVersion, streaming lists and their initial-events bookmark, bad
watch options, and a watch of one object by name.

An aiohttp client against :class:`FakeApiServer` on the virtual loop (``tests.support.http_api``);
every answer is compared with what a real kube-apiserver sends: status codes, ``Status`` bodies
field for field, object shapes. Time is virtual, so timestamps are exact (the epoch is
2026-01-01T00:00:00Z) and a 300-second watch takes milliseconds.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


from tests.support.http_api import NODES, PODS, Api, node, pod, serve, status, watch_lines


# ------------------------------------------------------------------------------------ list


def test_paging_with_limit_and_continue() -> None:
    async def scenario(api: Api) -> None:
        for i in range(25):
            await api.ok("POST", PODS, pod(f"p{i:02d}"))
        names: list[str] = []
        metas = []
        params = {"limit": "10"}
        while True:
            page = (await api.get(PODS, **params)).body
            names += [p["metadata"]["name"] for p in page["items"]]
            metas.append({k: v for k, v in page["metadata"].items() if k != "continue"})
            if "continue" not in page["metadata"]:
                break
            # later writes do not show in later pages: each page is read at the first one's version
            await api.ok("POST", PODS, pod(f"z{len(metas)}"))
            await api.ok("DELETE", f"{PODS}/p2{len(metas)}")
            params = {"limit": "10", "continue": page["metadata"]["continue"]}
        assert names == [f"p{i:02d}" for i in range(25)]
        assert metas == [{"resourceVersion": "32", "remainingItemCount": 15},
                         {"resourceVersion": "32", "remainingItemCount": 5},
                         {"resourceVersion": "32"}]
        everything = (await api.get(PODS)).body
        # each delete of an unscheduled pod is two writes (marked, then deleted)
        assert (len(everything["items"]), everything["metadata"]) == (25, {"resourceVersion": "38"})
        bad = await api.get(PODS, limit="10", **{"continue": "!!"})
        assert (bad.status, bad.body) == (400, status(  # captured from kube-apiserver v1.36
            400, "BadRequest", "invalid continue token: continue key is not valid: illegal base64 data at input byte 0"))

    serve(scenario)


def test_label_selectors() -> None:
    async def scenario(api: Api) -> None:
        for name, labels in (("a", {"tier": "web", "env": "prod"}), ("b", {"tier": "db", "env": "prod"}),
                             ("c", {"tier": "web"}), ("d", {})):
            await api.ok("POST", PODS, dict(pod(name), metadata={"name": name, "labels": labels}))

        async def names(selector: str) -> list[str]:
            return [p["metadata"]["name"] for p in (await api.get(PODS, labelSelector=selector)).body["items"]]

        assert await names("tier=web") == ["a", "c"]
        assert await names("tier==web,env=prod") == ["a"]
        assert await names("tier!=web") == ["b", "d"]
        assert await names("tier in (db, cache)") == ["b"]
        assert await names("tier notin (db)") == ["a", "c", "d"]
        assert await names("env") == ["a", "b"]
        assert await names("!env") == ["c", "d"]

    serve(scenario)


def test_field_selectors_on_pods_and_nodes() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("running", nodeName="n1", schedulerName="other"))
        await api.ok("POST", PODS, pod("done", nodeName="n1"))
        await api.ok("POST", PODS, pod("failed"))
        await api.ok("POST", PODS, pod("pending"))
        await api.ok("PATCH", f"{PODS}/running/status", {"status": {"phase": "Running"}})
        await api.ok("PATCH", f"{PODS}/done/status", {"status": {"phase": "Succeeded"}})
        await api.ok("PATCH", f"{PODS}/failed/status", {"status": {"phase": "Failed"}})

        async def names(path: str, selector: str) -> list[str]:
            return [p["metadata"]["name"] for p in (await api.get(path, fieldSelector=selector)).body["items"]]

        assert await names(PODS, "status.phase!=Succeeded,status.phase!=Failed") == ["pending", "running"]
        assert await names("/api/v1/pods", "spec.nodeName=n1") == ["done", "running"]
        assert await names(PODS, "spec.nodeName=") == ["failed", "pending"]
        assert await names(PODS, "spec.schedulerName=default-scheduler") == ["done", "failed", "pending"]
        assert await names(PODS, "spec.host==n1") == ["done", "running"]
        await api.ok("POST", NODES, node("cordoned", unschedulable=True))
        await api.ok("POST", NODES, node("open"))
        assert await names(NODES, "spec.unschedulable=true") == ["cordoned"]
        assert await names(NODES, "spec.unschedulable!=true") == ["open"]
        assert await names(NODES, "metadata.name=open") == ["open"]

    serve(scenario)


def test_sent_initial_events_is_forbidden_for_list() -> None:
    async def scenario(api: Api) -> None:
        reply = await api.get(PODS, sendInitialEvents="true")
        assert (reply.status, reply.body) == (422, status(
            422, "Invalid", 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is '
            "forbidden for list", {"group": "meta.k8s.io", "kind": "ListOptions", "causes": [
                {"reason": "FieldValueForbidden", "message": "Forbidden: sendInitialEvents is forbidden for list",
                 "field": "sendInitialEvents"}]}))

    serve(scenario)


# ------------------------------------------------------------------------------------ watch


def test_watch_from_a_resource_version_sends_later_changes_in_order() -> None:
    async def scenario(api: Api) -> None:
        first = await api.ok("POST", PODS, pod("a"))
        await api.ok("POST", PODS, pod("b"))
        await api.ok("PATCH", f"{PODS}/a", {"metadata": {"labels": {"x": "1"}}})
        await api.ok("DELETE", f"{PODS}/b")
        await api.ok("POST", NODES, node("n"))  # another kind's write moves the counter too
        watch = await api.session.get(PODS, params={
            "watch": "true", "resourceVersion": first["metadata"]["resourceVersion"], "timeoutSeconds": "30"})
        await api.ok("POST", PODS, pod("c"))
        events = await watch_lines(watch)
        assert [(e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"]["resourceVersion"])
                for e in events] == [("ADDED", "b", "9"), ("MODIFIED", "a", "10"), ("MODIFIED", "b", "11"),
                                     ("DELETED", "b", "12"), ("ADDED", "c", "14")]
        assert events[0]["object"]["kind"] == "Pod"
        assert events[2]["object"]["metadata"]["deletionGracePeriodSeconds"] == 0  # the delete marks it first

    serve(scenario)


def test_bookmarks_every_minute_and_the_stream_ends_at_the_timeout() -> None:
    async def scenario(api: Api) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        watch = await api.session.get(PODS, params={
            "watch": "true", "resourceVersion": "7", "allowWatchBookmarks": "true", "timeoutSeconds": "300"})
        seen: list[tuple[float, str, dict[str, Any]]] = []
        async for line in watch.content:
            event = json.loads(line)
            seen.append((loop.time() - start, event["type"], event["object"]))
            if len(seen) == 1:
                await api.ok("POST", PODS, pod("p"))
        ended = loop.time() - start
        bookmark = {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "8"}}
        times = [(round(t, 6), kind) for t, kind, _ in seen]
        assert times == [(60.0, "BOOKMARK"), (60.0, "ADDED"), (120.0, "BOOKMARK"), (180.0, "BOOKMARK"),
                         (240.0, "BOOKMARK"), (298.0, "BOOKMARK")]
        assert seen[0][2] == {"kind": "Pod", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}}
        assert seen[2][2] == bookmark
        assert round(ended, 6) == 300.0

    serve(scenario)


def test_selector_transitions_on_a_watch() -> None:
    """cache_watcher.convertToWatchEvent (``apiserver/pkg/storage/cacher``): the scheduler's pod informer."""

    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("p"))
        await api.ok("POST", PODS, pod("q"))
        await api.ok("PATCH", f"{PODS}/q/status", {"status": {"phase": "Failed"}})
        watch = await api.session.get(PODS, params={
            "watch": "true", "resourceVersion": "10", "timeoutSeconds": "10",
            "fieldSelector": "status.phase!=Succeeded,status.phase!=Failed"})
        await api.ok("PATCH", f"{PODS}/p/status", {"status": {"phase": "Running"}})
        done = await api.ok("PATCH", f"{PODS}/p/status", {"status": {"phase": "Succeeded"}})
        await api.ok("PATCH", f"{PODS}/p", {"metadata": {"labels": {"ignored": "yes"}}})
        await api.ok("PATCH", f"{PODS}/q/status", {"status": {"phase": "Pending"}})  # matches again
        events = await watch_lines(watch)
        assert [(e["type"], e["object"]["metadata"]["name"], e["object"]["metadata"]["resourceVersion"])
                for e in events] == [("MODIFIED", "p", "11"), ("DELETED", "p", "12"), ("ADDED", "q", "14")]
        # the DELETED event carries the previous object with the event's resourceVersion
        assert events[1]["object"]["status"]["phase"] == "Running"
        assert done["metadata"]["resourceVersion"] == "12"

    serve(scenario)


def test_a_compacted_resource_version_gives_one_error_event() -> None:
    async def scenario(api: Api) -> None:
        for i in range(8):
            await api.ok("POST", PODS, pod(f"p{i}"))
        async with api.session.get(PODS, params={"watch": "true", "resourceVersion": "8"}) as watch:
            assert (watch.status, watch.headers["Content-Type"]) == (200, "application/json")
            events = await watch_lines(watch)
        assert events == [{"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "too old resource version: 8 (10)", "reason": "Expired", "code": 410}}]
        async with api.session.get(PODS, params={"watch": "true", "resourceVersion": "10", "timeoutSeconds": "1"}) as ok:
            assert [e["object"]["metadata"]["name"] for e in await watch_lines(ok)] == ["p3", "p4", "p5", "p6", "p7"]

    serve(scenario, history=5)


def test_streaming_list_ends_with_the_initial_events_bookmark() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("a"))
        await api.ok("POST", PODS, pod("b"))
        await api.ok("POST", NODES, node("n"))
        params = {"watch": "true", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
                  "allowWatchBookmarks": "true", "timeoutSeconds": "1"}
        for rv in ("", "0", "9"):
            async with api.session.get(PODS, params=dict(params, resourceVersion=rv)) as watch:
                events = await watch_lines(watch)
            assert [(e["type"], e["object"]["metadata"].get("name")) for e in events] == [
                ("ADDED", "a"), ("ADDED", "b"), ("BOOKMARK", None)], rv
            assert events[2]["object"] == {"kind": "Pod", "apiVersion": "v1", "metadata": {
                "resourceVersion": "10", "annotations": {"k8s.io/initial-events-end": "true"}}}

    serve(scenario)


def test_a_legacy_watch_from_zero_also_marks_the_end_of_initial_events() -> None:
    """With WatchList on (default since v1.34) ``SetListOptionsDefaults`` turns a watch from "" or
    "0" into a streaming list, so bookmarks-allowed watchers get the annotated bookmark."""

    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("a"))
        async with api.session.get(PODS, params={"watch": "true", "resourceVersion": "0", "allowWatchBookmarks": "true",
                                                 "timeoutSeconds": "1"}) as watch:
            events = await watch_lines(watch)
        assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]
        assert events[1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}
        async with api.session.get(PODS, params={"watch": "true", "timeoutSeconds": "1"}) as watch:
            assert [e["type"] for e in await watch_lines(watch)] == ["ADDED"]

    serve(scenario)


def test_invalid_watch_options() -> None:
    async def scenario(api: Api) -> None:
        def invalid(*causes: tuple[str, str, str]) -> dict[str, Any]:
            rendered = [f"{field}: {body}" for field, _, body in causes]
            aggregate = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
            return status(422, "Invalid", f'ListOptions.meta.k8s.io "" is invalid: {aggregate}', {
                "group": "meta.k8s.io", "kind": "ListOptions",
                "causes": [{"reason": reason, "message": body, "field": field} for field, reason, body in causes]})

        forbidden = "FieldValueForbidden"
        cases = [
            ({"sendInitialEvents": "true"}, invalid(("resourceVersionMatch", forbidden,
              "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))),
            ({"resourceVersionMatch": "NotOlderThan"}, invalid(("resourceVersionMatch", forbidden,
              "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))),
            ({"sendInitialEvents": "true", "resourceVersionMatch": "Exact"}, invalid(
                ("resourceVersionMatch", forbidden,
                 "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"),
                ("resourceVersionMatch", "FieldValueNotSupported",
                 'Unsupported value: "Exact": supported values: "NotOlderThan"'))),
        ]
        for params, body in cases:
            reply = await api.get(PODS, watch="true", **params)
            assert (reply.status, reply.body) == (422, body), params
        # a watch's bad resourceVersion is a plain Go error in the storage layer: 500 with no reason
        # (captured from kube-apiserver v1.36)
        bad_rv = await api.get(PODS, watch="true", resourceVersion="abc")
        assert (bad_rv.status, bad_rv.body) == (500, {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
            "code": 500})

    serve(scenario)


def test_a_streaming_list_ahead_of_the_store_times_out_after_three_seconds() -> None:
    async def scenario(api: Api) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        async with api.session.get(PODS, params={
                "watch": "true", "sendInitialEvents": "true", "resourceVersionMatch": "NotOlderThan",
                "resourceVersion": "100"}) as watch:
            events = await watch_lines(watch)
        assert loop.time() - start == 3.0
        assert events == [{"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Timeout: Too large resource version: 100, current: 7", "reason": "Timeout",
            "details": {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                        "retryAfterSeconds": 1},
            "code": 504}}]

    serve(scenario)


def test_watching_one_object_by_name() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("a"))
        await api.ok("POST", PODS, pod("b"))
        async with api.session.get("/api/v1/watch/namespaces/default/pods/b", params={"timeoutSeconds": "1"}) as watch:
            assert [e["object"]["metadata"]["name"] for e in await watch_lines(watch)] == ["b"]
        mismatch = await api.get("/api/v1/watch/namespaces/default/pods/a", fieldSelector="metadata.name=b")
        assert (mismatch.status, mismatch.body) == (400, status(
            400, "BadRequest", "fieldSelector metadata.name doesn't match requested name"))
        # ?watch on one object's path is no watch: RequestInfo makes a watch only of a collection,
        # so the real server answers a plain GET (kube-apiserver v1.36, also with a field selector)
        for params in ({"watch": "true"}, {"watch": "true", "fieldSelector": "metadata.name=b"}):
            got = await api.get(f"{PODS}/a", **params)
            assert (got.status, got.body["kind"], got.body["metadata"]["name"]) == (200, "Pod", "a"), params

    serve(scenario)
