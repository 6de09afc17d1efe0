"""A bounded journal (``FakeApiServer(journal_limit=N)``): the last N entries, their seqs kept,
what was dropped told by the journal and by the admin path; the unbounded default unchanged."""

from __future__ import annotations

import asyncio
import json

import pytest

from fake_apiserver import FakeApiServer, FaultRule, Journal, JournalEntry, Match, Respond
from fake_apiserver._server.server import JOURNAL_DROPPED, JOURNAL_FIRST_SEQ, JOURNAL_LAST_SEQ, JOURNAL_LIMIT
from tests.support.http_api import NODES, PODS, Api, node, pod, serve

JOURNAL = "/schedharness/v1/journal"


async def _make_nodes(api: Api, count: int, start: int = 0) -> None:
    for i in range(start, start + count):
        await api.ok("POST", NODES, node(f"n{i}"))


async def _watch_churn(api: Api) -> None:
    """A pod watch, then three pods created and patched: requests and watch events interleaved."""
    async with api.session.get(PODS, params={"watch": "true", "timeoutSeconds": "60"}) as watch:
        for name in ("a", "b", "c"):
            await api.ok("POST", PODS, pod(name))
            await watch.content.readline()
            await api.ok("PATCH", f"{PODS}/{name}", {"metadata": {"labels": {"seen": "yes"}}})
            await watch.content.readline()
        await asyncio.sleep(1)


def _window(journal: Journal) -> tuple[int, int, int, int]:
    return journal.first_seq, journal.last_seq, journal.dropped, len(journal)


def test_a_bounded_journal_keeps_the_last_n_entries_with_their_seqs() -> None:
    async def scenario(api: Api) -> Journal:
        await _make_nodes(api, 8)
        return api.server.journal

    journal = serve(scenario, journal_limit=5)
    assert [(e.seq, e.verb, e.path) for e in journal.entries] == [(i, "create", NODES) for i in range(4, 9)]
    assert _window(journal) == (4, 8, 3, 5)
    assert journal.requests("create", "nodes")[0].seq == 4


def test_seqs_continue_past_the_window_and_since_reads_from_a_remembered_seq() -> None:
    async def scenario(api: Api) -> tuple[list[int], list[int], list[int], list[int]]:
        journal = api.server.journal
        await _make_nodes(api, 3)
        remembered = journal.last_seq
        await _make_nodes(api, 6, start=3)
        after = [e.seq for e in journal.since(remembered)]
        return after, [e.seq for e in journal.since(1)], [e.seq for e in journal.since(9)], [e.seq for e in journal]

    after, missed, none, held = serve(scenario, journal_limit=4)
    assert after == [6, 7, 8, 9]  # seqs 4 and 5 left the window: first_seq tells the reader
    assert missed == [6, 7, 8, 9]
    assert none == []
    assert held == [6, 7, 8, 9]


def test_format_says_how_many_entries_were_dropped() -> None:
    async def scenario(api: Api) -> str:
        await _make_nodes(api, 4)
        return api.server.journal.format()

    assert serve(scenario, journal_limit=2).splitlines() == [
        "... 2 entries before #3 dropped (journal limit 2)",
        't=    0.000 #3 CREATE nodes  -> 201  {"apiVersion":"v1","kind":"Node","metadata":{"name":"n2"}}',
        't=    0.000 #4 CREATE nodes  -> 201  {"apiVersion":"v1","kind":"Node","metadata":{"name":"n3"}}',
    ]


def test_the_admin_path_reports_the_window_and_reads_since_a_seq() -> None:
    async def scenario(api: Api) -> list[tuple[int, dict[str, str], str]]:
        await _make_nodes(api, 6)
        out = []
        for params in ({}, {"since": "5"}, {"since": "1"}, {"since": "6"}, {"since": "five"}):
            async with api.session.get(JOURNAL, params=params) as r:
                headers = {h: r.headers[h] for h in (JOURNAL_FIRST_SEQ, JOURNAL_LAST_SEQ, JOURNAL_DROPPED, JOURNAL_LIMIT)
                           if h in r.headers}
                out.append((r.status, headers, await r.text()))
        assert api.server.journal.last_seq == 6  # the admin path is not journaled
        return out

    full, since5, since1, since6, bad = serve(scenario, journal_limit=3)
    window = {JOURNAL_FIRST_SEQ: "4", JOURNAL_LAST_SEQ: "6", JOURNAL_DROPPED: "3", JOURNAL_LIMIT: "3"}
    assert full[:2] == (200, window)
    assert [_seq(line) for line in full[2].splitlines()] == [4, 5, 6]
    assert (since5[0], since5[1], [_seq(line) for line in since5[2].splitlines()]) == (200, window, [6])
    assert [_seq(line) for line in since1[2].splitlines()] == [4, 5, 6]
    assert since6 == (200, window, "")
    assert bad == (400, {}, '{"error":"invalid since \'five\': give the seq of the last entry read, a whole number"}\n')


def _seq(line: str) -> int:
    return int(json.loads(line)["seq"])


def test_watch_events_count_toward_the_limit() -> None:
    async def scenario(api: Api) -> Journal:
        await _watch_churn(api)
        return api.server.journal

    journal = serve(scenario, journal_limit=4)
    # 1 watch + 3 x (create, ADDED, patch, MODIFIED) = 13 entries, the last 4 kept
    assert [(e.seq, e.type, e.verb or e.event, e.name) for e in journal] == [
        (10, "request", "create", ""), (11, "watch-event", "ADDED", "c"),
        (12, "request", "patch", "c"), (13, "watch-event", "MODIFIED", "c"),
    ]
    assert (journal.dropped, [e.watch for e in journal.watch_events("pods")]) == (9, [1, 1])


def test_the_window_is_the_tail_of_the_unbounded_journal_of_the_same_run() -> None:
    async def scenario(api: Api) -> str:
        await _watch_churn(api)
        return api.server.journal.to_jsonl()

    unbounded = serve(scenario).splitlines()
    for limit in (1, 5, 12, 13, 100):
        assert serve(scenario, journal_limit=limit).splitlines() == unbounded[-limit:], limit


def test_a_refused_watch_keeps_its_answer_after_entries_were_dropped() -> None:
    async def scenario(api: Api) -> Journal:
        server = api.server
        await _make_nodes(api, 5)
        server.faults.add(FaultRule(Match(verb="watch", resource="pods"), Respond(410), name="gone"))
        reply = await api.get(PODS, watch="true")
        assert reply.status == 410
        return server.journal

    journal = serve(scenario, journal_limit=3)
    watch = journal.entries[-1]
    assert (watch.seq, watch.verb, watch.code, watch.reason, watch.fault) == (6, "watch", 410, "Expired", "gone")
    assert journal.dropped == 3


def test_an_unbounded_journal_is_unchanged() -> None:
    async def scenario(api: Api) -> tuple[Journal, list[JournalEntry], dict[str, str], str]:
        await _watch_churn(api)
        journal = api.server.journal
        async with api.session.get(JOURNAL) as r:
            headers = {h: r.headers[h] for h in (JOURNAL_FIRST_SEQ, JOURNAL_LAST_SEQ, JOURNAL_DROPPED, JOURNAL_LIMIT)}
            text = await r.text()
        return journal, journal.entries, headers, text

    journal, entries, headers, text = serve(scenario)
    assert journal.limit is None
    assert entries is journal.entries  # the list itself, not a copy: positions are seq - 1
    assert [e.seq for e in entries] == list(range(1, 14))
    assert _window(journal) == (1, 13, 0, 13)
    assert [e.seq for e in journal.entries[5:]] == [e.seq for e in journal.since(5)] == list(range(6, 14))
    assert headers == {JOURNAL_FIRST_SEQ: "1", JOURNAL_LAST_SEQ: "13", JOURNAL_DROPPED: "0", JOURNAL_LIMIT: "none"}
    assert text == journal.to_jsonl()
    assert not journal.format().startswith("...")


def test_an_empty_bounded_journal_reports_an_empty_window() -> None:
    async def scenario(api: Api) -> dict[str, str]:
        async with api.session.get(JOURNAL) as r:
            assert await r.text() == ""
            return {h: r.headers[h] for h in (JOURNAL_FIRST_SEQ, JOURNAL_LAST_SEQ, JOURNAL_DROPPED)}

    assert serve(scenario, journal_limit=10) == {JOURNAL_FIRST_SEQ: "1", JOURNAL_LAST_SEQ: "0", JOURNAL_DROPPED: "0"}


@pytest.mark.parametrize("limit", [0, -1])
def test_a_limit_below_one_is_refused(limit: int) -> None:
    with pytest.raises(ValueError, match=rf"^journal limit must be at least 1 entry, got {limit}: pass None to keep every entry$"):
        FakeApiServer(journal_limit=limit)



@pytest.mark.parametrize("limit", [None, 3])
def test_entries_read_between_requests_are_those_read_at_the_end(limit: int | None) -> None:
    """The journal makes its entries when it is read: read after each request, read once at the
    end, or with an entry a reader put in ``entries`` between two requests, it reads the same."""
    async def scenario(api: Api, reads: bool) -> list[tuple[int, str, str, int, str]]:
        journal = api.server.journal
        for i in range(4):
            await api.ok("POST", NODES, node(f"n{i}"))
            if reads:
                journal.entries
            if i == 1:
                journal.entries.append(JournalEntry(seq=99, time=0.0, type="request", verb="mine"))
        await api.get(f"{NODES}/missing")
        return [(e.seq, e.verb, e.name or json.dumps(e.body)[:30], e.code, e.reason) for e in journal.entries]

    if limit is not None:  # a bounded journal's entries are a copy: nothing put there stays
        once = serve(lambda api: scenario(api, False), journal_limit=limit)
        assert once == serve(lambda api: scenario(api, True), journal_limit=limit)
        assert [row[:2] for row in once] == [(3, "create"), (4, "create"), (5, "get")]
        return
    once = serve(lambda api: scenario(api, False))
    assert once == serve(lambda api: scenario(api, True))
    assert [row[:2] for row in once] == [(1, "create"), (2, "create"), (99, "mine"), (4, "create"),
                                          (5, "create"), (6, "get")]
    assert once[-1][3:] == (404, "NotFound")
    assert once[0][2] == json.dumps(node("n0"))[:30]
