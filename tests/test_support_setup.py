"""``suites/_support.py``'s set-up steps: a wait for the scheduler that times out is not a verdict.

``seen_by_scheduler`` and ``dra_cluster`` wait until the scheduler has seen what a scenario made;
when it never does, the criterion ends skipped, its reason ``not judged: set-up: `` and what was
expected, and the report shows it so (an end-to-end run through ``schedharness run``'s code).
``dra_cluster`` waits for the ResourceSlice only for a scheduler that asked for ResourceSlices at
all: the ``binds-without-allocating`` mutant never does, and is not waited for. The schedulers
are the reference scheduler and that mutant, in process on a fake API server under virtual
time; a ``WatchLag`` fault keeps a kind from the scheduler's watch for ten minutes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from fake_apiserver import FaultRule, Match, WatchLag
from harness._backend import FakeBackend
from harness._reference import reference_adapter
from harness._run import RunOptions, run_suites
from harness._scenario import Scenario
from harness._virtual_time import run
from suites._support import SET_UP, SLICES, dra_cluster, reads_slices, seen_by_scheduler

NEVER = 600.0  # seconds a lagged kind stays out of the scheduler's watch: longer than any set-up wait
NOT_SEEN = (r"expected the scheduler's watch to be handed {what} \(resourceVersion \d+ or later\) within 30 s of "
            r"t=\d+\.\d{{3}}; it was not \(no LIST or GET of {kind} either\)")


def _with_scheduler(tmp_path: Path, mutant: str | None, lagged: str | None,
                    step: Callable[[Scenario], Awaitable[Any]]) -> Any:
    """Run ``step`` in a scenario with the reference scheduler (or ``mutant``), the resource
    ``lagged`` (``nodes``, ``resourceslices.resource.k8s.io``) kept out of its watch; returns what
    the step returned."""
    out: list[Any] = []

    async def main() -> None:
        backend = FakeBackend(tmp_path)
        await backend.start()
        adapter = reference_adapter(mutant)
        try:
            await adapter.start(backend.kubeconfig_path, {})
            async with Scenario(backend) as scenario:
                if lagged is not None:
                    await scenario.add_fault(FaultRule(Match(resource=lagged), WatchLag(NEVER), name="never-seen"))
                out.append(await step(scenario))
        finally:
            await adapter.stop()
            await backend.stop()

    run(main())
    return out[0]


def test_a_slice_the_scheduler_reads_but_never_sees_ends_the_criterion_not_judged(tmp_path: Path) -> None:
    def step(scenario: Scenario) -> Awaitable[None]:
        return dra_cluster(scenario)

    with pytest.raises(pytest.skip.Exception) as skipped:
        _with_scheduler(tmp_path, None, SLICES, step)
    assert re.fullmatch(re.escape(SET_UP) + NOT_SEEN.format(what="resourceslices n1-gpu.example.com",
                                                          kind="resourceslices"), str(skipped.value.msg))
    assert str(skipped.value.msg).startswith("not judged: set-up: ")


def test_a_node_never_seen_ends_the_criterion_not_judged(tmp_path: Path) -> None:
    async def step(scenario: Scenario) -> None:
        await seen_by_scheduler(scenario, ("nodes", await scenario.create_node("n1")))

    with pytest.raises(pytest.skip.Exception) as skipped:
        _with_scheduler(tmp_path, None, "nodes", step)
    assert re.fullmatch(re.escape(SET_UP) + NOT_SEEN.format(what="nodes n1", kind="nodes"), str(skipped.value.msg))


def test_a_scheduler_that_never_asks_for_slices_is_not_waited_for(tmp_path: Path) -> None:
    """The mutant reads no ResourceSlice: dra_cluster returns although the slice never reaches a
    watch, within no virtual time of a wait; the reference scheduler asks for them."""
    async def step(scenario: Scenario) -> tuple[bool, float]:
        start = scenario.now
        await dra_cluster(scenario)
        return reads_slices(scenario), scenario.now - start

    reads, waited = _with_scheduler(tmp_path / "mutant", "binds-without-allocating", SLICES, step)
    assert not reads and waited < 1.0
    reads, _ = _with_scheduler(tmp_path / "reference", None, None, step)
    assert reads


CRITERION = '''
import pytest

from fake_apiserver import FaultRule, Match, WatchLag
from suites._support import dra_cluster


@pytest.mark.criterion("setup.slice-never-seen")
async def test_slice_never_seen(scenario):
    await scenario.add_fault(FaultRule(Match(resource="resourceslices.resource.k8s.io"), WatchLag(600), name="never-seen"))
    await dra_cluster(scenario)
    assert False, "not reached: the set-up step ends the criterion"
'''


def test_the_report_says_not_judged_set_up_and_why(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "test_setup.py").write_text(CRITERION)
    result = run_suites(RunOptions(paths=(scenarios,), report_dir=tmp_path / "report", timeline=False), progress=None)
    [criterion] = result.report["criteria"]
    assert (criterion["id"], criterion["status"]) == ("setup.slice-never-seen", "skipped")
    assert re.fullmatch(re.escape(SET_UP) + NOT_SEEN.format(what="resourceslices n1-gpu.example.com",
                                                          kind="resourceslices"), criterion["reason"])
    assert result.exit_code == 1  # nothing was judged
    written = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [c["reason"] for c in written["criteria"]] == [criterion["reason"]]
    assert f"skipped: {criterion['reason']}" in (tmp_path / "report" / "report.md").read_text()
