"""Each mutant breaks exactly the rule it names: the scenario that exposes it shows a difference
from the reference scheduler, and nothing else about that scenario changes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_ref_support import Env, gates, with_env

from harness._virtual_time import run
from reference_scheduler import MUTANTS, ClusterEvent, UnknownMutant, get_mutant
from reference_scheduler._cli import main as cli_main

Obj = dict[str, Any]


class Block:
    """Rejects pods annotated ``block`` with the annotation's value as message."""

    name = "Block"
    events: frozenset[str] = frozenset()

    def pre_enqueue(self, pod: Obj) -> str | None:
        value = (pod["metadata"].get("annotations") or {}).get("block")
        return str(value) if value else None

    def requeue_on(self, event: ClusterEvent, pod: Obj) -> bool:
        return False


def _observe(env: Env, pod: str) -> Obj:
    return {
        "patches": [(r.time, r.code, (r.body["status"]["conditions"][0].get("reason"),
                                      r.body["status"]["conditions"][0].get("message"))) for r in env.status_patches(pod)],
        "events": [(r.time, r.body["reason"]) for r in env.events(pod) if r.body["reason"] != "Scheduled"],
        "bound": bool(env.bindings(pod)) and all(r.code == 201 for r in env.bindings(pod)),
    }


async def _claim_at_12(env: Env, **kw: Any) -> Obj:
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(12)
    await env.create_claim("claim")
    await asyncio.sleep(10)
    return _observe(env, "p")


async def _gated(env: Env, **kw: Any) -> Obj:
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", schedulingGates=[{"name": "example.com/a"}])
    await asyncio.sleep(20)
    return _observe(env, "p")


async def _changing(env: Env, **kw: Any) -> Obj:
    await env.create_node("n1")
    await env.start_scheduler(pre_enqueue=[Block()], **kw)
    await env.create_pod("p", annotations={"block": "m1"})
    await asyncio.sleep(3)
    await env.patch_pod("p", {"metadata": {"annotations": {"block": "m2"}}})
    await asyncio.sleep(7)
    await env.patch_pod("p", {"metadata": {"labels": {"touched": "1"}}})
    await asyncio.sleep(10)
    return _observe(env, "p")


async def _failing(env: Env, **kw: Any) -> Obj:
    failed: list[int] = []

    def first(info: Any) -> bool:
        if info.subresource == "status" and not failed:
            failed.append(1)
            return True
        return False

    env.fail.append(first)
    await env.create_node("n1")
    await env.start_scheduler(**kw)
    await env.create_pod("p", resourceClaims=[{"name": "c", "resourceClaimName": "claim"}])
    await asyncio.sleep(8)
    await env.patch_pod("p", {"metadata": {"labels": {"touched": "1"}}})
    await asyncio.sleep(10)
    await env.create_claim("claim")
    await asyncio.sleep(5)
    return _observe(env, "p")


CLAIM = ("NotReadyForScheduling", 'could not find ResourceClaim "default/claim"')
REFERENCE = {
    "claim": {"patches": [(5.0, 200, CLAIM)], "events": [(5.0, "NotReadyForScheduling")], "bound": True},
    "gated": {"patches": [], "events": [], "bound": False},
    "changing": {"patches": [(5.0, 200, ("NotReadyForScheduling", "m2"))],
                 "events": [(5.0, "NotReadyForScheduling")], "bound": False},
    "failing": {"patches": [(5.0, 500, CLAIM), (13.0, 200, CLAIM)], "events": [(13.0, "NotReadyForScheduling")],
                "bound": True},
}
SCENARIOS = {"claim": _claim_at_12, "gated": _gated, "changing": _changing, "failing": _failing}

EXPOSED: dict[str, tuple[str, dict[str, Any], Obj]] = {
    "no-delay": ("claim", {}, {"patches": [(0.0, 200, CLAIM)], "events": [(0.0, "NotReadyForScheduling")], "bound": True}),
    "delay-reset-on-overwrite": ("changing", {}, {"patches": [(8.0, 200, ("NotReadyForScheduling", "m2"))],
                                                  "events": [(8.0, "NotReadyForScheduling")], "bound": False}),
    "no-dedup": ("changing", {}, {"patches": [(5.0, 200, ("NotReadyForScheduling", "m2")),
                                              (15.0, 200, ("NotReadyForScheduling", "m2"))],
                                  "events": [(5.0, "NotReadyForScheduling"), (15.0, "NotReadyForScheduling")],
                                  "bound": False}),
    "dedup-not-seeded": ("gated", {}, {"patches": [(5.0, 200, ("NotReadyForScheduling", None))],
                                       "events": [(5.0, "NotReadyForScheduling")], "bound": False}),
    "redundant-gated-patch": ("gated", {}, {
        "patches": [(5.0, 200, ("NotReadyForScheduling", "waiting for scheduling gates: [example.com/a]"))],
        "events": [(5.0, "NotReadyForScheduling")], "bound": False}),
    "clears-immediately": ("claim", {}, {"patches": [(5.0, 200, CLAIM), (12.0, 200, (None, None))],
                                         "events": [(5.0, "NotReadyForScheduling")], "bound": True}),
    "no-event": ("claim", {}, {"patches": [(5.0, 200, CLAIM)], "events": [], "bound": True}),
    "wrong-reason": ("claim", {}, {"patches": [(5.0, 200, ("Unschedulable", CLAIM[1]))],
                                   "events": [(5.0, "NotReadyForScheduling")], "bound": True}),
    "ignores-feature-gate": ("claim", {"gates": gates(pre_enqueue_pod_status=False)}, REFERENCE["claim"]),
    "stops-on-patch-failure": ("failing", {}, {"patches": [(5.0, 500, CLAIM)], "events": [], "bound": False}),
    "never-retries": ("failing", {}, {"patches": [(5.0, 500, CLAIM)], "events": [], "bound": True}),
}


def test_every_mutant_has_a_kep_sentence_and_is_listed() -> None:
    assert len(MUTANTS) >= 10
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)
    assert all(m.description and m.violates for m in MUTANTS)
    assert set(EXPOSED) | {"never-clears"} == {m.name for m in MUTANTS}
    with pytest.raises(UnknownMutant, match=r"^unknown mutant 'nope'; known: clears-immediately, "):
        get_mutant("nope")


def test_reference_scenarios() -> None:
    for name, scenario in SCENARIOS.items():
        assert run(with_env(scenario)) == REFERENCE[name], name


def test_ignores_feature_gate_reference_reports_nothing_with_gate_off() -> None:
    observed = run(with_env(lambda env: _claim_at_12(env, gates=gates(pre_enqueue_pod_status=False))))
    assert observed == {"patches": [], "events": [], "bound": True}


@pytest.mark.parametrize("mutant", sorted(EXPOSED))
def test_mutant_is_exposed_by_its_scenario(mutant: str) -> None:
    scenario, kwargs, expected = EXPOSED[mutant]
    observed = run(with_env(lambda env: SCENARIOS[scenario](env, mutant=mutant, **kwargs)))
    assert observed == expected
    if "gates" not in kwargs:
        assert observed != REFERENCE[scenario]


@pytest.mark.parametrize(("mutant", "clear_delay", "clears"), [
    (None, None, True), ("clears-immediately", 0.0, True), ("never-clears", None, False), ("no-delay", 5.0, True)])
def test_clear_mutants_flip_one_switch(mutant: str | None, clear_delay: float | None, clears: bool) -> None:
    """The delayed clear is superseded by the binding end to end, so never-clears is checked on the
    switch it flips (and no-delay leaves the clear's delay alone)."""

    async def main(env: Env) -> tuple[float | None, bool]:
        s = await env.start_scheduler(mutant=mutant)
        return s.reporter.clear_delay, s.reporter.clears

    assert run(with_env(main)) == (clear_delay, clears)


def test_cli_lists_mutants(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["mutants"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no-delay\n    patches the NotReadyForScheduling condition as soon as a pod is rejected\n"
                          "    violates: \"To handle transient rejections")
    assert out.count("violates:") == len(MUTANTS)


def test_cli_refuses_the_gate_dependency(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["scheduler", "--kubeconfig", "x", "--feature-gates", "SchedulerAsyncAPICalls=false"]) == 2
    assert capsys.readouterr().err == (
        "schedharness scheduler: invalid feature gates: SchedulerPreEnqueuePodStatus=true requires "
        "SchedulerAsyncAPICalls=true\n")
