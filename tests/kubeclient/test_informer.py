"""The informer: list, watch, bookmarks, re-list on 410 and on an ERROR event, the pod field selector, polling."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from harness._time.virtual_time import run
from reference_scheduler import POD_FIELD_SELECTOR, ExpiredError, Informer, KubeClient
from tests.support.reference_env import Env, with_env

Obj = dict[str, Any]


def _obj(name: str, rv: int) -> Obj:
    return {"metadata": {"name": name, "namespace": "default", "resourceVersion": str(rv)}}


class _Scripted(KubeClient):
    """Answers LISTs and WATCHes from scripts; records the parameters it was called with."""

    def __init__(self, lists: list[Obj], watches: list[list[Obj] | Exception]) -> None:
        super().__init__({"clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}]})
        self.lists = lists
        self.watches = watches
        self.calls: list[tuple[str, dict[str, str]]] = []

    async def list(self, path: str, params: Mapping[str, str] | None = None) -> Obj:
        self.calls.append(("list", dict(params or {})))
        return self.lists.pop(0)

    async def watch(self, path: str, params: Mapping[str, str]) -> AsyncIterator[Obj]:
        self.calls.append(("watch", dict(params)))
        if not self.watches:
            await asyncio.sleep(3600)
            return
        script = self.watches.pop(0)
        if isinstance(script, Exception):
            raise script
        for event in script:
            yield event


def test_a_polling_informer_lists_each_period_never_watches_and_diffs_each_list() -> None:
    """``poll_period`` (the never-watches control): a LIST at 0, 2 and 4 s of loop time, the
    first at resourceVersion 0, then the newest; no WATCH; each list diffed against the cache."""

    async def main() -> tuple[list[Any], list[tuple[float, str, dict[str, str]]]]:
        client = _Scripted(
            lists=[{"metadata": {"resourceVersion": "10"}, "items": [_obj("a", 5), _obj("b", 6)]},
                   {"metadata": {"resourceVersion": "20"}, "items": [_obj("a", 15), _obj("c", 18)]},
                   {"metadata": {"resourceVersion": "30"}, "items": [_obj("a", 15), _obj("c", 18)]}],
            watches=[])
        timed: list[tuple[float, str, dict[str, str]]] = []
        listed = client.list

        async def list_at(path: str, params: Mapping[str, str] | None = None) -> Obj:
            timed.append((asyncio.get_running_loop().time(), "list", dict(params or {})))
            return await listed(path, params)

        client.list = list_at  # type: ignore[method-assign]
        informer = Informer(client, "", "v1", "pods")
        informer.poll_period = 2.0
        seen: list[tuple[str, str, str]] = []
        informer.on_add.append(lambda o: seen.append(("add", o["metadata"]["name"], o["metadata"]["resourceVersion"])))
        informer.on_update.append(lambda _, o: seen.append(("update", o["metadata"]["name"], o["metadata"]["resourceVersion"])))
        informer.on_delete.append(lambda o: seen.append(("delete", o["metadata"]["name"], o["metadata"]["resourceVersion"])))
        informer.start()
        await asyncio.sleep(5)
        await informer.stop()
        assert [verb for verb, _ in client.calls] == ["list", "list", "list"]
        return seen, timed

    seen, timed = run(main())
    assert seen == [("add", "a", "5"), ("add", "b", "6"), ("delete", "b", "6"), ("update", "a", "15"), ("add", "c", "18")]
    assert timed == [(0.0, "list", {"resourceVersion": "0"}), (2.0, "list", {"resourceVersion": ""}),
                     (4.0, "list", {"resourceVersion": ""})]

def test_informer_relists_on_expired_and_error_events_and_diffs_the_cache() -> None:
    async def main() -> tuple[list[Any], list[Any], dict[str, Obj]]:
        client = _Scripted(
            lists=[{"metadata": {"resourceVersion": "10"}, "items": [_obj("a", 5), _obj("b", 6)]},
                   {"metadata": {"resourceVersion": "20"}, "items": [_obj("a", 15), _obj("c", 18)]},
                   {"metadata": {"resourceVersion": "30"}, "items": [_obj("a", 15), _obj("c", 18)]}],
            watches=[[{"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "12"}}},
                      {"type": "MODIFIED", "object": _obj("b", 13)}],
                     ExpiredError(410, {"reason": "Expired"}),
                     [{"type": "ERROR", "object": {"kind": "Status", "code": 410, "reason": "Expired"}}]])
        informer = Informer(client, "", "v1", "pods", field_selector=POD_FIELD_SELECTOR)
        seen: list[tuple[str, str, str]] = []
        informer.on_add.append(lambda o: seen.append(("add", o["metadata"]["name"], o["metadata"]["resourceVersion"])))
        informer.on_update.append(lambda _, o: seen.append(("update", o["metadata"]["name"], o["metadata"]["resourceVersion"])))
        informer.on_delete.append(lambda o: seen.append(("delete", o["metadata"]["name"], o["metadata"]["resourceVersion"])))
        informer.start()
        await asyncio.sleep(1)
        await informer.stop()
        return seen, client.calls, informer.cache

    seen, calls, cache = run(main())
    assert seen == [("add", "a", "5"), ("add", "b", "6"), ("update", "b", "13"),
                    ("delete", "b", "13"), ("update", "a", "15"), ("add", "c", "18")]
    selector = {"fieldSelector": "status.phase!=Succeeded,status.phase!=Failed"}
    watch = {**selector, "allowWatchBookmarks": "true", "timeoutSeconds": "300"}
    assert calls == [
        ("list", {**selector, "resourceVersion": "0"}),
        ("watch", {**watch, "resourceVersion": "10"}),
        ("watch", {**watch, "resourceVersion": "13"}),  # the stream ended: resume from the last version
        ("list", {**selector, "resourceVersion": ""}),  # 410: re-list
        ("watch", {**watch, "resourceVersion": "20"}),
        ("list", {**selector, "resourceVersion": ""}),  # ERROR event: re-list
        ("watch", {**watch, "resourceVersion": "30"}),
    ]
    assert sorted(cache) == ["default/a", "default/c"]


def test_terminal_pods_leave_the_pod_informer() -> None:
    """The real field selector: a pod that turns Succeeded arrives as DELETED."""

    async def main(env: Env) -> list[str]:
        informer = Informer(KubeClient(env.server.kubeconfig), "", "v1", "pods", field_selector=POD_FIELD_SELECTOR)
        gone: list[str] = []
        informer.on_delete.append(lambda o: gone.append(o["metadata"]["name"]))
        informer.start()
        await informer.synced.wait()
        await env.create_pod("p")
        await asyncio.sleep(1)
        async with env.http.patch("/api/v1/namespaces/default/pods/p/status", json={"status": {"phase": "Succeeded"}},
                                  headers={"Content-Type": "application/merge-patch+json"}) as r:
            assert r.status == 200, await r.text()
        await asyncio.sleep(1)
        await informer.stop()
        await informer.client.close()
        assert informer.cache == {}
        return gone

    assert run(with_env(main)) == ["p"]


def test_client_errors_carry_the_status() -> None:
    async def main(env: Env) -> None:
        from reference_scheduler import ApiError, ConflictError, NotFoundError, TransportError

        async with KubeClient(env.server.kubeconfig) as client:
            with pytest.raises(NotFoundError, match=r'^404 NotFound: pods "nope" not found$') as info:
                await client.get("/api/v1/namespaces/default/pods/nope")
            assert info.value.status["kind"] == "Status" and info.value.code == 404
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                   "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}
            await client.create("/api/v1/namespaces/default/pods", pod)
            with pytest.raises(ConflictError, match=r'^409 AlreadyExists: pods "p" already exists$'):
                await client.create("/api/v1/namespaces/default/pods", pod)
            assert issubclass(ConflictError, ApiError)
        async with KubeClient({"clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}]}) as dead:
            with pytest.raises(TransportError, match=r"^GET /api/v1/nodes: ClientConnectorError"):
                await dead.get("/api/v1/nodes")

    run(with_env(main))
