"""The watch cache and its watchers, driven directly and through :meth:`Store.watch`.

The rules are the cacher's (``apiserver/pkg/storage/cacher``): selector transitions from
``cache_watcher.go``, the history bound from ``watch_cache_history.go``, the start points of
``Cacher.Watch``.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Callable

import pytest

from fake_apiserver import BadRequest, Expired, Store, StatusError, by_resource
from fake_apiserver._storage.watch import Change, WatchCache, WatchEvent, Watcher
from fake_apiserver._machinery.errors import UnknownError

PODS = by_resource("", "v1", "pods")
assert PODS is not None


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 1, 1, tzinfo=timezone.utc)


def obj(name: str, rv: int, phase: str = "Pending", namespace: str = "default") -> dict[str, Any]:
    return {"kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": namespace, "resourceVersion": str(rv)},
            "status": {"phase": phase}}


def running(o: dict[str, Any]) -> bool:
    return bool(o["status"]["phase"] not in ("Succeeded", "Failed"))


def kinds(events: list[WatchEvent]) -> list[tuple[str, str, int]]:
    return [(e.type, e.object["metadata"].get("name", ""), e.rv) for e in events]


def cache(capacity: int = 10, start: int = 1) -> WatchCache:
    assert PODS is not None
    return WatchCache(PODS, capacity, start)


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox:1"}], **spec}}


def raises(error: type[StatusError], message: str) -> Any:
    return pytest.raises(error, match="^" + re.escape(message) + "$")


def test_selector_transitions() -> None:
    c = cache()
    w = c.watch(running, resource_version=1, send_initial_events=False, allow_bookmarks=False)
    a2, a3, a4 = obj("a", 2), obj("a", 3, "Running"), obj("a", 4, "Succeeded")
    c.apply(Change(2, None, a2))
    c.apply(Change(3, a2, a3))
    c.apply(Change(4, a3, a4))
    c.apply(Change(5, a4, obj("a", 5, "Failed")))  # matched neither before nor after: nothing
    c.apply(Change(6, obj("a", 5, "Failed"), obj("a", 6, "Pending")))
    c.apply(Change(7, obj("a", 6), None))
    events = w.take()
    assert kinds(events) == [("ADDED", "a", 2), ("MODIFIED", "a", 3), ("DELETED", "a", 4), ("ADDED", "a", 6),
                             ("DELETED", "a", 7)]
    # DELETED on leaving the selector: the previous object, stamped with the event's version
    assert events[2].object == dict(a3, metadata=dict(a3["metadata"], resourceVersion="4"))
    assert a3["metadata"]["resourceVersion"] == "3"  # the stored object is not touched


def test_deleted_objects_are_shared_by_every_watcher() -> None:
    c = cache()
    watchers = [c.watch(lambda o: True, resource_version=1, send_initial_events=False, allow_bookmarks=False)
                for _ in range(3)]
    a = obj("a", 2)
    c.apply(Change(2, None, a))
    c.apply(Change(3, a, None))
    deleted = [w.take()[-1].object for w in watchers]
    assert deleted[0] is deleted[1] is deleted[2]
    assert deleted[0]["metadata"]["resourceVersion"] == "3"


def test_history_bound_and_the_too_old_message() -> None:
    c = cache(capacity=3, start=5)
    with raises(Expired, "too old resource version: 4 (5)"):
        c.watch(running, resource_version=4, send_initial_events=False, allow_bookmarks=False)
    previous: dict[str, Any] | None = None
    for rv in (10, 12, 14, 16, 18):
        new = obj("a", rv)
        c.apply(Change(rv, previous, new))
        previous = new
    assert c.floor == 13  # one below the oldest event still held (14)
    with raises(Expired, "too old resource version: 12 (13)"):
        c.watch(running, resource_version=12, send_initial_events=False, allow_bookmarks=False)
    w = c.watch(running, resource_version=13, send_initial_events=False, allow_bookmarks=False)
    assert kinds(w.take()) == [("MODIFIED", "a", 14), ("MODIFIED", "a", 16), ("MODIFIED", "a", 18)]


def test_initial_events_then_the_end_bookmark() -> None:
    c = cache()
    c.apply(Change(2, None, obj("b", 2)))
    c.apply(Change(3, None, obj("a", 3)))
    c.apply(Change(4, None, obj("z", 4, "Failed")))
    w = c.watch(running, resource_version=0, send_initial_events=True, allow_bookmarks=True)
    events = w.take()
    assert kinds(events) == [("ADDED", "a", 3), ("ADDED", "b", 2), ("BOOKMARK", "", 4)]
    assert events[2].object == {"kind": "Pod", "apiVersion": "v1", "metadata": {
        "resourceVersion": "4", "annotations": {"k8s.io/initial-events-end": "true"}}}
    quiet = c.watch(running, resource_version=0, send_initial_events=True, allow_bookmarks=False)
    assert [e.type for e in quiet.take()] == ["ADDED", "ADDED"]
    c.apply(Change(5, None, obj("c", 5)))
    assert kinds(w.take()) == [("ADDED", "c", 5)]


def test_a_watch_ahead_of_the_cache_skips_changes_up_to_its_version() -> None:
    """``cacheWatcher.process`` sends only events newer than the requested version."""
    c = cache()
    w = c.watch(running, resource_version=3, send_initial_events=False, allow_bookmarks=False)
    for rv in (2, 3, 4):
        c.apply(Change(rv, None, obj(f"p{rv}", rv)))
    assert kinds(w.take()) == [("ADDED", "p4", 4)]


def test_bookmarks_carry_the_current_version_and_wake_the_stream() -> None:
    c = cache()
    w = c.watch(running, resource_version=0, send_initial_events=False, allow_bookmarks=True)
    woken: list[bool] = []
    w.on_ready = lambda: woken.append(True)
    c.apply(Change(7, None, obj("a", 7)))
    w.bookmark()
    assert [(e.type, e.rv) for e in w.take()] == [("ADDED", 7), ("BOOKMARK", 7)]
    assert woken == [True]  # once: the queue went from empty to non-empty
    w.stop("done")
    assert (w.stopped, w.stop_reason, w in c.watchers, woken) == (True, "done", False, [True, True])


# ---------------------------------------------------------------------------- Store.watch


def store(**options: Any) -> Store:
    return Store(FixedClock(), **options)


def test_store_watch_start_points() -> None:
    assert PODS is not None
    s = store()
    s.create(PODS, "default", pod("a"))
    s.create(PODS, "default", pod("b"))
    legacy = s.watch(PODS, "default", allow_bookmarks=True)  # "" with WatchList on: a streaming list
    assert kinds(legacy.take()) == [("ADDED", "a", 8), ("ADDED", "b", 9), ("BOOKMARK", "", 9)]
    from_zero = s.watch(PODS, "default", resource_version="0")
    assert kinds(from_zero.take()) == [("ADDED", "a", 8), ("ADDED", "b", 9)]
    now = s.watch(PODS, "default", send_initial_events=False)
    replay = s.watch(PODS, "default", resource_version="7")
    assert (now.take(), kinds(replay.take())) == ([], [("ADDED", "a", 8), ("ADDED", "b", 9)])
    s.create(PODS, "default", pod("c"))
    assert kinds(now.take()) == [("ADDED", "c", 10)]


def test_store_watch_checks_its_arguments() -> None:
    assert PODS is not None
    s = store()
    # a plain Go error from the versioner: 500, no reason (kube-apiserver v1.36, ?watch=1&resourceVersion=...)
    for rv, why in (("abc", "invalid syntax"), ("-1", "invalid syntax"), (str(2**64), "value out of range")):
        message = f'resourceVersion: Invalid value: "{rv}": strconv.ParseUint: parsing "{rv}": {why}'
        with raises(UnknownError, message):
            s.watch(PODS, "default", resource_version=rv)
    with pytest.raises(StatusError) as info:
        s.watch(PODS, "default", resource_version="11", send_initial_events=True)
    assert info.value.to_status() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Timeout: Too large resource version: 11, current: 7", "reason": "Timeout",
        "details": {"causes": [{"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}],
                    "retryAfterSeconds": 1},
        "code": 504}
    with raises(BadRequest, "fieldSelector metadata.name doesn't match requested name"):
        s.watch(PODS, "default", name="a", field_selector="status.phase=Running")
    s.create(PODS, "default", pod("a"))
    s.create(PODS, "default", pod("b"))
    one = s.watch(PODS, "default", name="b", field_selector="metadata.name=b", resource_version="0")
    assert kinds(one.take()) == [("ADDED", "b", 9)]


def test_a_watch_from_a_version_the_lagging_cache_has_not_shown_yet() -> None:
    """With watch lag, GET (the truth) can hand out a version the watch cache has not reached;
    a watch from it must not replay that change when the cache catches up."""
    assert PODS is not None
    scheduled: list[Callable[[], None]] = []
    s = Store(FixedClock(), schedule=lambda delay, fn: scheduled.append(fn))
    s.set_watch_lag(PODS, 5.0)
    created = s.create(PODS, "default", pod("a"))
    assert s.list(PODS, "default")["items"] == []  # not visible to LIST/WATCH yet
    rv = created["metadata"]["resourceVersion"]
    from_truth = s.watch(PODS, "default", resource_version=rv)
    from_before = s.watch(PODS, "default", resource_version=str(int(rv) - 1))
    for release in scheduled:
        release()
    assert (from_truth.take(), kinds(from_before.take())) == ([], [("ADDED", "a", 8)])


def test_watchers_close_with_the_store() -> None:
    assert PODS is not None
    s = store()
    w = s.watch(PODS, None)
    assert isinstance(w, Watcher)
    s.close()
    assert (w.stopped, w.stop_reason) == (True, "server shutting down")

