"""``suites/_support.py``'s set-up steps and controls: what the scheduler left unjudged is not judged.

``seen_by_scheduler`` and ``dra_cluster`` wait until the scheduler has seen what a scenario made;
when it never does, the criterion ends **not judged** (``harness.NotJudged``), never skipped and
never failed, its message ``set-up: the scheduler must <what it had to do>: `` and what was
expected; the report shows it so (an end-to-end run through ``schedharness run``'s code).
``dra_cluster`` waits for the ResourceSlice only for a scheduler that asked for ResourceSlices at
all: the ``binds-without-allocating`` mutant never does, and is not waited for.

``liveness`` and ``control_met`` are the positive control a negative criterion is judged beside:
a scheduler that binds the ordinary pod lets the criterion be judged, and ``does-nothing`` (which
binds nothing but an adapter's probe) leaves it not judged, saying what it had to do.

The schedulers are the reference scheduler, that mutant and the ``does-nothing`` control, in
process on a fake API server under virtual time; a ``WatchLag`` fault keeps a kind from the
scheduler's watch for ten minutes.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from fake_apiserver import FaultRule, Match, WatchLag
from harness import NotJudged
from harness._backends.backend import FakeBackend
from harness._schedulers.reference import reference_adapter
from harness._runs.run import RunOptions, run_suites
from harness._scenario.scenario import Scenario
from harness._time.virtual_time import run
from suites._support import (
    LIVENESS,
    SET_UP,
    SLICES,
    control_met,
    dra_cluster,
    liveness,
    reads_slices,
    seen_by_scheduler,
)

NEVER = 600.0  # seconds a lagged kind stays out of the scheduler's watch: longer than any set-up wait
NOT_SEEN = (r"expected the scheduler's watch to be handed {what} \(resourceVersion \d+ or later\) within 30 s of "
            r"t=\d+\.\d{{3}}; it was not \(no LIST or GET of {kind} either\)")
SLICE_NOT_SEEN = (r"set-up: the scheduler must list and watch ResourceSlices: "
                  + NOT_SEEN.format(what=r"resourceslices n1-gpu\.example\.com", kind="resourceslices"))
NODE_NOT_SEEN = r"set-up: the scheduler must list and watch nodes: " + NOT_SEEN.format(what="nodes n1", kind="nodes")
NO_CONTROL = ("the control this criterion is judged beside never happened: the scheduler must bind {ns}/alive, an "
              "ordinary pod that fits a node (watch pods, list nodes, bind); expected within 30 s (t={start}..{end}): "
              "pod {ns}/alive is bound to a node; observed at t={end}: pod {ns}/alive: not bound (spec.nodeName "
              "unset), conditions: none")


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


def test_the_set_up_message_begins_with_set_up() -> None:
    assert SET_UP == "set-up: "


def test_a_slice_the_scheduler_reads_but_never_sees_ends_the_criterion_not_judged(tmp_path: Path) -> None:
    def step(scenario: Scenario) -> Awaitable[None]:
        return dra_cluster(scenario)

    with pytest.raises(NotJudged) as not_judged:
        _with_scheduler(tmp_path, None, SLICES, step)
    assert re.fullmatch(SLICE_NOT_SEEN, str(not_judged.value)), str(not_judged.value)
    assert not isinstance(not_judged.value, (pytest.skip.Exception, AssertionError))


def test_a_node_never_seen_ends_the_criterion_not_judged(tmp_path: Path) -> None:
    async def step(scenario: Scenario) -> None:
        await seen_by_scheduler(scenario, ("nodes", await scenario.create_node("n1")))

    with pytest.raises(NotJudged) as not_judged:
        _with_scheduler(tmp_path, None, "nodes", step)
    assert re.fullmatch(NODE_NOT_SEEN, str(not_judged.value)), str(not_judged.value)
    assert not_judged.value.__cause__ is None and not_judged.value.__suppress_context__  # one message, no chain


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


async def _gated_never_bound(scenario: Scenario) -> tuple[str, float]:
    """A negative judged beside the liveness control: the gated pod is never bound within 10 s,
    and that counts only once the ordinary pod was bound."""
    await scenario.create_node("n1")
    await scenario.create_pod("gated", gates=["example.com/wait"])
    control = await liveness(scenario)
    await scenario.never(scenario.pod_bound("gated"), within=10)
    await control_met(scenario, control)
    return scenario.namespace, scenario.now


def test_a_scheduler_that_binds_the_control_lets_the_negative_be_judged(tmp_path: Path) -> None:
    namespace, now = _with_scheduler(tmp_path, None, None, _gated_never_bound)
    assert (namespace, now) == ("default", 10.0)  # the control was bound before the watch ended


def test_does_nothing_leaves_the_negative_not_judged_saying_what_it_had_to_do(tmp_path: Path) -> None:
    """``does-nothing`` never binds the gated pod either: without the control that would pass."""
    with pytest.raises(NotJudged) as not_judged:
        _with_scheduler(tmp_path, "does-nothing", None, _gated_never_bound)
    assert str(not_judged.value) == NO_CONTROL.format(ns="default", start="10.000", end="40.000")


def test_a_control_already_met_is_not_waited_for(tmp_path: Path) -> None:
    async def step(scenario: Scenario) -> float:
        await scenario.create_node("n1")
        control = await liveness(scenario, "ordinary", within=5)
        await scenario.eventually(scenario.pod_bound("ordinary"), within=5)
        start = scenario.now
        await control_met(scenario, control)
        return scenario.now - start

    assert _with_scheduler(tmp_path, None, None, step) == 0.0


CRITERIA = '''
import pytest

from fake_apiserver import FaultRule, Match, WatchLag
from suites._support import LIVENESS, control_met, dra_cluster, liveness


@pytest.mark.criterion("setup.slice-never-seen")
async def test_slice_never_seen(scenario):
    await scenario.add_fault(FaultRule(Match(resource="resourceslices.resource.k8s.io"), WatchLag(600), name="never-seen"))
    await dra_cluster(scenario)
    assert False, "not reached: the set-up step ends the criterion"


@pytest.mark.criterion("setup.gated-never-bound", control=LIVENESS)
async def test_gated_never_bound(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("gated", gates=["example.com/wait"])
    control = await liveness(scenario)
    await scenario.never(scenario.pod_bound("gated"), within=10)
    await control_met(scenario, control)
'''


def test_the_report_says_not_judged_and_why_and_the_run_exits_3(tmp_path: Path) -> None:
    """Through ``schedharness run``'s code with ``does-nothing``: both criteria are not judged
    (neither skipped nor failed), in report.json, report.md, results.jsonl and junit.xml; the
    run's verdict is not judged, exit code 3."""
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    (scenarios / "test_setup.py").write_text(CRITERIA)
    out = tmp_path / "report"
    result = run_suites(RunOptions(paths=(scenarios,), report_dir=out, timeline=False,
                                   scheduler="reference:does-nothing"), progress=None)
    assert result.exit_code == 3
    assert (result.report["verdict"], result.report["summary"]) == (
        "not judged", {"passed": 0, "failed": 0, "not judged": 2, "skipped": 0})
    control, set_up = result.report["criteria"]
    assert (set_up["id"], set_up["status"], set_up["reason"]) == ("setup.slice-never-seen", "not judged", None)
    assert re.fullmatch(SLICE_NOT_SEEN, set_up["message"]), set_up["message"]
    assert (control["id"], control["status"], control["control"]) == (
        "setup.gated-never-bound", "not judged", LIVENESS)
    assert control["message"] == NO_CONTROL.format(ns="default", start="10.000", end="40.000")
    records = {r["criterion"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert {name: (r["status"], r["message"]) for name, r in records.items()} == {
        "setup.slice-never-seen": ("not judged", set_up["message"]),
        "setup.gated-never-bound": ("not judged", control["message"])}
    # the file is named relative to the rootdir pytest chose, which depends on where the checkout is
    assert re.search(r" -m pytest (\S+/)?test_setup\.py::test_gated_never_bound --scheduler=reference:does-nothing "
                     r"--backend=fake --scenario-seed=0$", records["setup.gated-never-bound"]["replay"]), (
        records["setup.gated-never-bound"]["replay"])
    md = (out / "report.md").read_text()
    assert "\n## Not judged\n" in md
    assert re.search(r"\n### setup\.slice-never-seen \(`(\S+/)?test_setup\.py::test_slice_never_seen`\)\n", md), md
    assert "skipped: set-up" not in md
    cases = {case.get("name"): [(e.tag, e.get("type")) for e in case if e.tag != "properties"]
             for case in ET.parse(out / "junit.xml").getroot().iter("testcase")}
    assert cases == {"test_slice_never_seen": [("error", "not judged")],
                     "test_gated_never_bound": [("error", "not judged")]}
