"""``bench/bench_apiserver.py``'s own client, without timing anything: every phase of a small run
against an in-process fake gets the answers it asks for (each status code is checked by the
bench itself), each connection is kept alive across its requests, and a write reaches the store.
"""

from __future__ import annotations

import asyncio
import sys

from fake_apiserver import FakeApiServer
from fake_apiserver._registry.kinds import by_resource
from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from bench_apiserver import Wire, run_bench  # noqa: E402


def test_a_small_run_completes_every_phase_with_the_answers_it_expects() -> None:
    async def main() -> tuple[list[tuple[str, int]], int]:
        async with FakeApiServer() as server:
            results = await run_bench(server.url, None, pods=20, gets=30, patches=25, writes=10, floor=15,
                                      prefix="t")
            pods = server.store.list(by_resource("", "v1", "pods"), "default")["items"]
            return [(r.name, r.count) for r in results], len(pods)

    phases, stored = asyncio.run(main())
    assert phases == [("GET /healthz", 15), ("create pod", 20), ("GET pod", 30), ("SMP status PATCH", 25),
                      ("watch events (10 watchers)", 100)]
    assert stored == 200 + 20 + 5  # the warm-up's pods, the phase's, the watch phase's creates


def test_a_wire_keeps_its_connection_across_requests_and_reads_each_answer_whole() -> None:
    async def main() -> tuple[list[int], int, bytes]:
        async with FakeApiServer() as server:
            wire = Wire(server.url, {}, True)
            statuses, writers = [], []  # the writers themselves, kept: their ids are not reused
            for path in ["/version", "/version", "/version", "/api/v1/namespaces/nope"]:
                status, body = await wire.request("GET", path)
                statuses.append(status)
                writers.append(wire.writer)
            wire.close()
            return statuses, len({id(w) for w in writers}), body

    statuses, connections, body = asyncio.run(main())
    assert statuses == [200, 200, 200, 404]
    assert connections == 1
    assert body.endswith(b'"code":404}\n')


def test_rounds_are_summed_phase_by_phase_in_their_order() -> None:
    from bench_apiserver import Result, _summed

    rounds = [[Result("create pod", "req/s", 10, 2.0, 1.5, 0.5), Result("GET pod", "req/s", 40, 1.0, 0.9, 0.3)],
              [Result("create pod", "req/s", 30, 2.0, 1.9, 0.7), Result("GET pod", "req/s", 20, 3.0, 2.1, 0.1)]]
    summed = _summed(rounds)
    assert [(r.name, r.count, r.seconds, round(r.server_cpu, 6), round(r.client_cpu, 6)) for r in summed] == [
        ("create pod", 40, 4.0, 3.4, 1.2), ("GET pod", 60, 4.0, 3.0, 0.4)]
    assert [r.rate for r in summed] == [10.0, 15.0]  # the requests of all rounds over their seconds
