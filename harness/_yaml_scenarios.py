"""Scenarios as YAML files: the DSL's vocabulary for scenarios that need no code.

In the spirit of scheduler_perf's workload ops (``createNodes``, ``createPods``, ``barrier``,
``sleep``), a file is a list of ops run in order through a :class:`~harness._scenario.Scenario`,
so a YAML scenario behaves, fails and reads its state exactly as a Python one::

    name: a gated pod is bound only after its last gate is removed
    kep: {number: 3521, section: "Restricted state transition"}
    featureGates: {}
    ops:
    - {op: createNodes, count: 1, namePrefix: node-}
    - {op: createPods, count: 2, namePrefix: gated-, gates: [example.com/a, example.com/b]}
    - {op: removeGates, podPrefix: gated-, gate: example.com/a}
    - {op: expectCondition, pod: gated-0, type: PodScheduled, reason: SchedulingGated, never: true, within: 10s}
    - {op: removeGates, podPrefix: gated-}
    - {op: barrier, podPrefix: gated-, within: 5s}
    - {op: expectRequests, count: 0, verb: patch, resource: pods, subresource: status}

The ops are a table (:data:`OPS`): name, required and optional keys, and the coroutine that runs
it. Strict by default: an unknown op or key, a missing one, or a manifest found neither beside the
scenario file nor under the project's ``fixtures/`` (when installed from a wheel there is none: a
user's manifests sit beside their scenarios) is an error naming the file and the op, raised when the file is loaded, before anything runs.
Fault rules (``addFault``) take the JSON form of :meth:`fake_apiserver.FaultRule.from_dict`
and, as in Python scenarios, fail the scenario if they never fire.
Names are ``namePrefix`` plus a counter that continues across ops with the same prefix, so two
``createPods`` ops with prefix ``p-`` make ``p-0``, ``p-1``, then ``p-2``. Durations are seconds
or strings with a unit (``500ms``, ``5s``, ``2m``, ``1h``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import yaml

from fake_apiserver import FaultRule
from harness._kubelet import Kubelet
from harness._scenario import ExpectationFailed, Scenario

__all__ = ["FIXTURES", "OPS", "YamlScenario", "YamlScenarioError", "load_scenario", "parse_duration", "run_scenario"]

Obj = dict[str, Any]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


class YamlScenarioError(ValueError):
    """A YAML scenario file is malformed; the message names the file and the op."""


def parse_duration(value: Any) -> float:
    """Seconds from ``5``, ``2.5``, ``"500ms"``, ``"5s"``, ``"2m"`` or ``"1h"``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*", str(value))
    if not match:
        raise ValueError(f"duration {value!r}: write seconds (5, 2.5) or a number with ms, s, m or h (500ms, 2m)")
    number, unit = float(match.group(1)), match.group(2)
    return number * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]


@dataclass
class YamlScenario:
    """A loaded, validated YAML scenario."""

    path: Path
    name: str
    ops: list[Obj]
    kep: tuple[int, str] | None = None
    feature_gates: dict[str, bool] = field(default_factory=dict)
    criterion: str | None = None
    reading: str | None = None
    fixtures: Path = FIXTURES


@dataclass
class _Run:
    scenario: YamlScenario
    s: Scenario
    counters: dict[str, int] = field(default_factory=dict)
    faults: dict[str, FaultRule] = field(default_factory=dict)

    def names(self, prefix: str, count: int) -> list[str]:
        start = self.counters.get(prefix, 0)
        self.counters[prefix] = start + count
        return [f"{prefix}{i}" for i in range(start, start + count)]

    def pods(self, op: Obj) -> list[str]:
        if "pod" in op:
            return [str(op["pod"])]
        prefix = str(op["podPrefix"])
        return sorted(name for name in self.s.pods.objects if name.startswith(prefix))


OpRunner = Callable[[_Run, Obj], Awaitable[None]]


async def _create_nodes(run: _Run, op: Obj) -> None:
    for name in run.names(str(op.get("namePrefix", "node-")), int(op.get("count", 1))):
        await run.s.create_node(name, cpu=str(op.get("cpu", "4")), memory=str(op.get("memory", "8Gi")),
                                pods=int(op.get("pods", 110)), labels=op.get("labels"),
                                taints=op.get("taints") or (), unschedulable=bool(op.get("unschedulable", False)),
                                kubelet=_kubelet(op.get("kubelet", {})))


def _kubelet(spec: Any) -> Kubelet | None:
    """``kubelet: none``, or ``{confirms: false, terminationDelay: 10s, startsPods: true, resizes:
    refuse, resizeDelay: 2s}``."""
    if spec in (None, "none"):
        return None
    keys = {"confirms", "terminationDelay", "startsPods", "resizes", "resizeDelay"}
    if not isinstance(spec, dict) or set(spec) - keys:
        raise ValueError(f"kubelet must be none or a map of {', '.join(sorted(keys))}: {spec!r}")
    return Kubelet(confirms=bool(spec.get("confirms", True)),
                   termination_delay=parse_duration(str(spec.get("terminationDelay", "0s"))),
                   starts_pods=bool(spec.get("startsPods", False)), resizes=str(spec.get("resizes", "actuate")),
                   resize_delay=parse_duration(str(spec.get("resizeDelay", "0s"))))


async def _create_pods(run: _Run, op: Obj) -> None:
    manifest = _manifest(run.scenario, op["manifest"]) if "manifest" in op else None
    for name in run.names(str(op.get("namePrefix", "pod-")), int(op.get("count", 1))):
        await run.s.create_pod(name, cpu=_opt_str(op.get("cpu")), memory=_opt_str(op.get("memory")),
                               gates=list(op.get("gates") or ()), claims=list(op.get("claims") or ()),
                               node_selector=op.get("nodeSelector"), labels=op.get("labels"), manifest=manifest)


async def _create_claims(run: _Run, op: Obj) -> None:
    for name in run.names(str(op.get("namePrefix", "claim-")), int(op.get("count", 1))):
        if "deviceClass" in op:
            await run.s.create_claim(name, device_class=str(op["deviceClass"]))
        else:
            await run.s.create_claim(name)


async def _remove_gates(run: _Run, op: Obj) -> None:
    await run.s.settle()
    pods = run.pods(op)
    if not pods:
        raise ExpectationFailed(f"no pod named {op.get('podPrefix')}* to remove gates from")
    for pod in pods:
        if "gate" in op:
            await run.s.remove_gate(pod, str(op["gate"]))
        else:
            await run.s.remove_all_gates(pod)


async def _sleep(run: _Run, op: Obj) -> None:
    await run.s.advance(parse_duration(op["duration"]))


async def _barrier(run: _Run, op: Obj) -> None:
    within = parse_duration(op.get("within", "30s"))
    condition = op.get("condition")
    if condition is None:
        await run.s.eventually(run.s.pods_bound(str(op.get("podPrefix", "")), op.get("count")), within)
        return
    await run.s.settle()
    for pod in run.pods({"podPrefix": op.get("podPrefix", "")}):
        await run.s.eventually(_condition(run, pod, condition), within)


async def _expect_condition(run: _Run, op: Obj) -> None:
    expectation = _condition(run, str(op["pod"]), op)
    within = parse_duration(op.get("within", "0s" if not op.get("never") else "30s"))
    if op.get("never"):
        await run.s.never(expectation, within)
    else:
        await run.s.eventually(expectation, within)


async def _expect_requests(run: _Run, op: Obj) -> None:
    await run.s.settle()
    run.s.expect_requests(int(op["count"]), verb=op.get("verb"), resource=op.get("resource"),
                          subresource=op.get("subresource"), name=op.get("name"), namespace=op.get("namespace"))


async def _add_fault(run: _Run, op: Obj) -> None:
    rule = FaultRule.from_dict({k: v for k, v in op.items() if k != "op"})
    run.faults[rule.name or f"fault-{len(run.faults)}"] = await run.s.add_fault(rule)


async def _remove_fault(run: _Run, op: Obj) -> None:
    name = str(op["name"])
    if name not in run.faults:
        raise ValueError(f"no fault rule named {name!r} was added (added: {sorted(run.faults)})")
    await run.s.remove_fault(run.faults.pop(name))


async def _patch(run: _Run, op: Obj) -> None:
    await run.s.patch(str(op["kind"]), str(op["name"]), op["body"], type=str(op.get("type", "strategic")),
                      subresource=op.get("subresource"))


async def _delete(run: _Run, op: Obj) -> None:
    await run.s.delete(str(op["kind"]), str(op["name"]))


def _condition(run: _Run, pod: str, spec: Obj) -> Any:
    return run.s.pod_condition(pod, str(spec["type"]), status=_opt_str(spec.get("status")),
                               reason=_opt_str(spec.get("reason")), message=_opt_str(spec.get("message")))


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class OpSpec:
    """One row of the op table: keys it must have, keys it may have, and what it does."""

    required: frozenset[str]
    optional: frozenset[str]
    run: OpRunner
    one_of: tuple[str, ...] = ()


def _op(required: str, optional: str, run: OpRunner, one_of: tuple[str, ...] = ()) -> OpSpec:
    return OpSpec(frozenset(required.split()), frozenset(optional.split()), run, one_of)


OPS: dict[str, OpSpec] = {
    "createNodes": _op("", "count namePrefix cpu memory pods labels taints unschedulable kubelet", _create_nodes),
    "createPods": _op("", "count namePrefix cpu memory gates claims nodeSelector labels manifest", _create_pods),
    "createClaims": _op("", "count namePrefix deviceClass", _create_claims),
    "removeGates": _op("", "pod podPrefix gate", _remove_gates, ("pod", "podPrefix")),
    "sleep": _op("duration", "", _sleep),
    "barrier": _op("", "podPrefix count within condition", _barrier),
    "expectCondition": _op("pod type", "status reason message within never", _expect_condition),
    "expectRequests": _op("count", "verb resource subresource name namespace", _expect_requests),
    "addFault": _op("match action", "name times every start until probability", _add_fault),
    "removeFault": _op("name", "", _remove_fault),
    "patch": _op("kind name body", "type subresource", _patch),
    "delete": _op("kind name", "", _delete),
}


def _manifest(scenario: YamlScenario, relative: str) -> Obj:
    path = (scenario.fixtures / relative).resolve()
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise YamlScenarioError(f"{path}: a manifest must be one YAML mapping")
    return data


def _check_op(path: Path, fixtures: Path, index: int, op: Any) -> Obj:
    where = f"{path.name}: ops[{index}]"
    if not isinstance(op, dict) or "op" not in op:
        raise YamlScenarioError(f"{where}: each op is a mapping with an 'op' key, got {op!r}")
    name = str(op["op"])
    spec = OPS.get(name)
    if spec is None:
        raise YamlScenarioError(f"{where}: unknown op {name!r}; known ops: {', '.join(sorted(OPS))}")
    keys = set(op) - {"op"}
    missing = sorted(spec.required - keys)
    if missing:
        raise YamlScenarioError(f"{where} {name}: missing {', '.join(missing)}")
    unknown = sorted(keys - spec.required - spec.optional)
    if unknown:
        allowed = ", ".join(sorted(spec.required | spec.optional))
        raise YamlScenarioError(f"{where} {name}: unknown key {', '.join(unknown)}; allowed: {allowed}")
    if spec.one_of and sum(k in op for k in spec.one_of) != 1:
        raise YamlScenarioError(f"{where} {name}: give exactly one of {', '.join(spec.one_of)}")
    for key in ("duration", "within"):
        if key in op:
            try:
                parse_duration(op[key])
            except ValueError as e:
                raise YamlScenarioError(f"{where} {name}: {key}: {e}") from None
    if "kubelet" in op:
        try:
            _kubelet(op["kubelet"])
        except ValueError as e:
            raise YamlScenarioError(f"{where} {name}: {e}") from None
    if name == "addFault":
        try:
            FaultRule.from_dict({k: v for k, v in op.items() if k != "op"})
        except (ValueError, KeyError, TypeError) as e:
            raise YamlScenarioError(f"{where} {name}: {e}") from None
    if "manifest" in op:
        bases = [path.parent.resolve(), fixtures.resolve()]  # the scenario's own directory first
        found = [m for base in bases if (m := (base / str(op["manifest"])).resolve()).is_relative_to(base) and m.is_file()]
        if not found:
            if not any((base / str(op["manifest"])).resolve().is_relative_to(base) for base in bases):
                raise YamlScenarioError(f"{where} {name}: manifest {op['manifest']!r} is outside {path.parent} "
                                        f"and {fixtures}")
            raise YamlScenarioError(f"{where} {name}: manifest {op['manifest']!r} not found under {path.parent} "
                                    f"or {fixtures}")
        return {**op, "manifest": str(found[0])}  # an absolute path: what the op reads at run time
    return dict(op)


def load_scenario(path: str | Path, *, fixtures: str | Path | None = None) -> YamlScenario:
    """Read and validate a YAML scenario; manifests are looked up under ``fixtures``."""
    p = Path(path)
    base = Path(fixtures) if fixtures is not None else FIXTURES
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{p.name}: line {mark.line + 1}, column {mark.column + 1}" if mark is not None else p.name
        raise YamlScenarioError(f"{where}: not valid YAML: {getattr(e, 'problem', None) or e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("ops"), list):
        raise YamlScenarioError(f"{p.name}: a scenario is a mapping with a list of 'ops'")
    unknown = sorted(set(data) - {"name", "kep", "featureGates", "criterion", "reading", "ops"})
    if unknown:
        raise YamlScenarioError(f"{p.name}: unknown key {', '.join(unknown)}; allowed: criterion, featureGates, "
                                "kep, name, ops, reading")
    kep = data.get("kep")
    return YamlScenario(
        path=p,
        name=str(data.get("name", p.stem)),
        ops=[_check_op(p, base, i, op) for i, op in enumerate(data["ops"])],
        kep=(int(kep["number"]), str(kep.get("section", ""))) if isinstance(kep, dict) else None,
        feature_gates={str(k): bool(v) for k, v in (data.get("featureGates") or {}).items()},
        criterion=_opt_str(data.get("criterion")),
        reading=_opt_str(data.get("reading")),
        fixtures=base,
    )


async def run_scenario(scenario: YamlScenario | str | Path, s: Scenario) -> None:
    """Run every op in order; a failed expectation's message starts with the file and the op,
    any other error gets a note naming them."""
    loaded = scenario if isinstance(scenario, YamlScenario) else load_scenario(scenario)
    run = _Run(loaded, s)
    for index, op in enumerate(loaded.ops):
        where = f"{loaded.path.name}: ops[{index}] {op['op']}"
        try:
            await OPS[op["op"]].run(run, op)
        except ExpectationFailed as e:
            raise ExpectationFailed(f"{where}: {e}") from e
        except Exception as e:
            e.add_note(f"in {where}")
            raise
