"""Scenarios as YAML files: the DSL's vocabulary for scenarios that need no code.

In the spirit of scheduler_perf's workload ops (``createNodes``, ``createPods``, ``barrier``,
``sleep``), a file is a list of ops run in order through a :class:`~harness._scenario.scenario.Scenario`,
so a YAML scenario behaves, fails and reads its state exactly as a Python one::

    name: a gated pod is bound only after its last gate is removed
    kep: {number: 3521, section: "Restricted state transition"}
    featureGates: {}
    runtimeConfig: {}      # API group versions its API server must serve, e.g. {scheduling.k8s.io/v1beta1: true}
    ops:
    - {op: createNodes, count: 1, namePrefix: node-}
    - {op: createPods, count: 2, namePrefix: gated-, gates: [example.com/a, example.com/b]}
    - {op: removeGates, podPrefix: gated-, gate: example.com/a}
    - {op: expectCondition, pod: gated-0, type: PodScheduled, reason: SchedulingGated, never: true, within: 10s}
    - {op: removeGates, podPrefix: gated-}
    - {op: barrier, podPrefix: gated-, within: 5s}
    - {op: expectRequests, count: 0, verb: patch, resource: pods, subresource: status}

The ops are a table (:data:`OPS`): name, required and optional keys, and the coroutine that runs
it; what each key's value must be is a second table (:data:`VALUES`), read by every op that takes
the key. Strict by default: an unknown op or key, a missing one, a value of the wrong type (a
count that is no whole number, a gate list that is one string, ``featureGates`` that is a list,
``runtimeConfig`` naming no group version), or
a manifest found neither beside the scenario file nor under the project's ``fixtures/`` (when
installed from a wheel there is none: a user's manifests sit beside their scenarios) is one
:class:`YamlScenarioError` naming the file, the line and the op, raised when the file is loaded,
before anything runs. The lines come from the YAML nodes the file is composed into, so they are
the lines a user sees in an editor, whether the file is written in block or flow style.
Fault rules (``addFault``) take the JSON form of :meth:`fake_apiserver.FaultRule.from_dict`
and, as in Python scenarios, fail the scenario if they never fire.
Names are ``namePrefix`` plus a counter that continues across ops with the same prefix, so two
``createPods`` ops with prefix ``p-`` make ``p-0``, ``p-1``, then ``p-2``. Durations are seconds
or strings with a unit (``500ms``, ``5s``, ``2m``, ``1h``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

import yaml

from fake_apiserver import FaultRule
from fake_apiserver import is_quantity
from fake_apiserver import parse_quantity as quantity
from harness._backends.kubelet import Kubelet
from harness._backends.runtime_config import marker_problem, parse_option
from harness._backends.scenario_client import PATCH_TYPES, resolve_kind
from harness._scenario.manifests import ManifestError, check_kinds, check_manifest, load_manifests
from harness._scenario.scenario import ExpectationFailed, Scenario, parse_taint

__all__ = ["FIXTURES", "OPS", "VALUES", "YamlScenario", "YamlScenarioError", "load_scenario", "parse_duration",
           "run_scenario"]

Obj = dict[str, Any]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


class YamlScenarioError(ValueError):
    """A YAML scenario file is malformed; the message names the file and the op."""


def parse_duration(value: Any) -> float:
    """Seconds from ``5``, ``2.5``, ``"500ms"``, ``"5s"``, ``"2m"`` or ``"1h"`` (never negative)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < math.inf:
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
    #: kube-apiserver ``--runtime-config`` keys its API server must serve (the ``runtime_config`` marker)
    runtime_config: dict[str, str] = field(default_factory=dict)
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
#: checks one key's value: raises ``ValueError`` naming the key and the value, saying what to give
Check = Callable[[str, Any], None]


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
    for key, check in (("confirms", _FLAG), ("startsPods", _FLAG), ("resizes", _TEXT), ("terminationDelay", _duration),
                       ("resizeDelay", _duration)):
        if key in spec:
            check(f"kubelet: {key}", spec[key])
    try:
        return Kubelet(confirms=spec.get("confirms", True), starts_pods=spec.get("startsPods", False),
                       termination_delay=parse_duration(spec.get("terminationDelay", 0)),
                       resizes=spec.get("resizes", "actuate"), resize_delay=parse_duration(spec.get("resizeDelay", 0)))
    except ValueError as e:  # the kubelet's own rules: resizes is one of its answers
        raise ValueError(f"kubelet: {e}") from None


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
                      subresource=op.get("subresource"), api_version=op.get("apiVersion"))


async def _create_objects(run: _Run, op: Obj) -> None:
    await run.s.create_objects(op["manifests"])


async def _expect_field(run: _Run, op: Obj) -> None:
    await run.s.expect_field(str(op["apiVersion"]), str(op["kind"]), str(op["name"]), str(op["field"]), op["equals"],
                             parse_duration(op.get("within", "0s")))


async def _delete(run: _Run, op: Obj) -> None:
    await run.s.delete(str(op["kind"]), str(op["name"]), api_version=op.get("apiVersion"))


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
    #: what this op's keys must be where it differs from :data:`VALUES` (``patch``'s ``type``)
    values: dict[str, Check] = field(default_factory=dict)
    #: a rule across the op's keys, run after each value's own check
    check: Callable[[Obj], None] | None = None


def _op(required: str, optional: str, run: OpRunner, one_of: tuple[str, ...] = (), *,
        values: dict[str, Check] | None = None, check: Callable[[Obj], None] | None = None) -> OpSpec:
    return OpSpec(frozenset(required.split()), frozenset(optional.split()), run, one_of, values or {}, check)


# ------------------------------------------------------------------------ what each value must be


def _given(what: str, test: Callable[[Any], bool]) -> Check:
    """A :data:`Check` that refuses a value failing ``test``, saying to give ``what``."""

    def check(key: str, value: Any) -> None:
        if not test(value):
            raise ValueError(f"{key} {value!r}: give {what}")

    return check


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_WHOLE = _given("a whole number, 0 or more", _whole)
_TEXT = _given("a string", lambda v: isinstance(v, str))
_FLAG = _given("true or false", lambda v: isinstance(v, bool))
_TEXTS = _given("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
_STRING_MAP = _given('a mapping of strings to strings (quote a number or a boolean: "1", "true")',
                     lambda v: isinstance(v, dict) and all(isinstance(k, str) and isinstance(x, str)
                                                           for k, x in v.items()))
_QUANTITY = _given("a quantity, 0 or more (500m, 2, 8Gi)",
                   lambda v: isinstance(v, (str, int, float)) and not isinstance(v, bool) and is_quantity(v)
                   and quantity(v) >= 0)
_STATUS = _given('"True", "False" or "Unknown"', lambda v: isinstance(v, (str, bool)) and
                 str(v) in ("True", "False", "Unknown"))
_PATCH_TYPE = _given(f"one of {', '.join(PATCH_TYPES)}", lambda v: isinstance(v, str) and v in PATCH_TYPES)


def _duration(key: str, value: Any) -> None:
    try:
        parse_duration(value)
    except ValueError as e:
        raise ValueError(f"{key}: {e}") from None


def _taints(key: str, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(t, (str, dict)) for t in value):
        raise ValueError(f"{key} {value!r}: give a list of key[=value]:Effect strings or taint mappings")
    for taint in value:
        parse_taint(taint)


def _kubelet_value(key: str, value: Any) -> None:
    _kubelet(value)


_CONDITION_KEYS = ("type", "status", "reason", "message")


def _condition_value(key: str, value: Any) -> None:
    if not isinstance(value, dict) or "type" not in value or set(value) - set(_CONDITION_KEYS):
        raise ValueError(f"{key} {value!r}: give a mapping with type and any of status, reason, message")
    _TEXT(f"{key}: type", value["type"])
    if "status" in value:
        _STATUS(f"{key}: status", value["status"])
    for name in ("reason", "message"):
        if name in value:
            _TEXT(f"{key}: {name}", value[name])


def _manifests(key: str, value: Any) -> None:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} {value!r}: give a list of manifests (each with apiVersion, kind and metadata)")


def _kind(key: str, value: Any) -> None:
    _TEXT(key, value)
    resolve_kind(value)  # its message names the value and the kinds there are


#: What each op key's value must be, whatever op takes it; an op's own :attr:`OpSpec.values` win.
#: ``addFault``'s keys are :meth:`fake_apiserver.FaultRule.from_dict`'s to check.
VALUES: dict[str, Check] = {
    "count": _WHOLE, "pods": _WHOLE,
    "namePrefix": _TEXT, "deviceClass": _TEXT, "pod": _TEXT, "podPrefix": _TEXT, "gate": _TEXT, "manifest": _TEXT,
    "type": _TEXT, "reason": _TEXT, "message": _TEXT, "verb": _TEXT, "resource": _TEXT, "subresource": _TEXT,
    "name": _TEXT, "namespace": _TEXT,
    "cpu": _QUANTITY, "memory": _QUANTITY,
    "labels": _STRING_MAP, "nodeSelector": _STRING_MAP,
    "gates": _TEXTS, "claims": _TEXTS,
    "unschedulable": _FLAG, "never": _FLAG,
    "duration": _duration, "within": _duration,
    "taints": _taints, "kubelet": _kubelet_value, "condition": _condition_value, "status": _STATUS, "kind": _kind,
    "manifests": _manifests, "file": _TEXT,
}


def _patch_body(op: Obj) -> None:
    kind = op.get("type", "strategic")
    if kind == "json" and not isinstance(op["body"], list):
        raise ValueError(f"body {op['body']!r}: give a list of RFC 6902 operations for type json")
    if kind != "json" and not isinstance(op["body"], dict):
        raise ValueError(f"body {op['body']!r}: give a mapping for type {kind}")


def _fault_rule(op: Obj) -> None:
    FaultRule.from_dict({k: v for k, v in op.items() if k != "op"})


OPS: dict[str, OpSpec] = {
    "createNodes": _op("", "count namePrefix cpu memory pods labels taints unschedulable kubelet", _create_nodes),
    "createPods": _op("", "count namePrefix cpu memory gates claims nodeSelector labels manifest", _create_pods),
    "createClaims": _op("", "count namePrefix deviceClass", _create_claims),
    "removeGates": _op("", "pod podPrefix gate", _remove_gates, ("pod", "podPrefix")),
    "sleep": _op("duration", "", _sleep),
    "barrier": _op("", "podPrefix count within condition", _barrier),
    "expectCondition": _op("pod type", "status reason message within never", _expect_condition),
    "expectRequests": _op("count", "verb resource subresource name namespace", _expect_requests),
    "addFault": _op("match action", "name times every start until probability", _add_fault, check=_fault_rule),
    "removeFault": _op("name", "", _remove_fault),
    "patch": _op("kind name body", "type subresource apiVersion", _patch,
                 values={"type": _PATCH_TYPE, "body": lambda k, v: None, "apiVersion": _TEXT}, check=_patch_body),
    "delete": _op("kind name", "apiVersion", _delete, values={"apiVersion": _TEXT}),
    "createObjects": _op("", "manifests file", _create_objects, ("manifests", "file")),
    "expectField": _op("apiVersion kind name field equals", "within", _expect_field,
                       values={"kind": _TEXT, "apiVersion": _TEXT, "field": _TEXT, "equals": lambda k, v: None}),
}


def _manifest(scenario: YamlScenario, relative: str) -> Obj:
    path = (scenario.fixtures / relative).resolve()
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise YamlScenarioError(f"{path}: a manifest must be one YAML mapping")
    return data


# ------------------------------------------------------------------------------------ loading


class _Invalid(Exception):
    """A problem in a scenario file, with the path (``("ops", 2, "count")``) of the value it is
    about; :func:`load_scenario` turns it into a :class:`YamlScenarioError` naming that line."""

    def __init__(self, message: str, *path: str | int) -> None:
        super().__init__(message)
        self.message, self.path = message, path


class _Lines:
    """The line each key and list item of a YAML document starts on, by path: a mapping key's
    own line, a list item's first line."""

    def __init__(self, node: yaml.Node | None) -> None:
        self.at: dict[tuple[str | int, ...], int] = {}
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple[str | int, ...]) -> None:
        self.at.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                inner = (*path, str(key.value))
                self.at.setdefault(inner, key.start_mark.line + 1)
                self._walk(value, inner)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._walk(item, (*path, index))

    def __call__(self, *path: str | int) -> int:
        """The line of ``path``, or of the nearest enclosing value the document has."""
        while path and path not in self.at:
            path = path[:-1]
        return self.at.get(path, 1)


def _keys(keys: Any) -> str:
    return ", ".join(sorted(map(str, keys)))


def _check_op(path: Path, fixtures: Path, index: int, op: Any) -> Obj:
    where = f"ops[{index}]"
    if not isinstance(op, dict) or "op" not in op:
        raise _Invalid(f"{where}: each op is a mapping with an 'op' key, got {op!r}", "ops", index)
    name = str(op["op"])
    spec = OPS.get(name)
    if spec is None:
        raise _Invalid(f"{where}: unknown op {name!r}; known ops: {_keys(OPS)}", "ops", index, "op")
    keys = set(op) - {"op"}
    missing = sorted(spec.required - keys)
    if missing:
        raise _Invalid(f"{where} {name}: missing {', '.join(missing)}", "ops", index)
    unknown = sorted(keys - spec.required - spec.optional, key=str)
    if unknown:
        allowed = _keys(spec.required | spec.optional)
        raise _Invalid(f"{where} {name}: unknown key {_keys(unknown)}; allowed: {allowed}", "ops", index,
                       str(unknown[0]))
    if spec.one_of and sum(k in op for k in spec.one_of) != 1:
        raise _Invalid(f"{where} {name}: give exactly one of {', '.join(spec.one_of)}", "ops", index)
    for key in sorted(keys):
        check = spec.values.get(key) or VALUES.get(key)
        if key == "kind" and "apiVersion" in op:  # a kind found through discovery: checked by _check_kinds
            check = _TEXT
        if check is not None:
            try:
                check(key, op[key])
            except ValueError as e:
                raise _Invalid(f"{where} {name}: {e}", "ops", index, key) from None
    if spec.check is not None:
        try:
            spec.check(op)
        except (ValueError, KeyError, TypeError) as e:
            raise _Invalid(f"{where} {name}: {e}", "ops", index) from None
    if "manifest" in op:
        return {**op, "manifest": str(_find_manifest(path, fixtures, op["manifest"], f"{where} {name}", index))}
    for item, manifest in enumerate(op.get("manifests") or ()):  # each one's own line
        try:
            check_manifest(manifest, item)
        except ManifestError as e:
            raise _Invalid(f"{where} {name}: manifests: {e}", "ops", index, "manifests", item) from None
    if "file" in op:
        found = _find_file(path, fixtures, op["file"], f"{where} {name}", ("ops", index, "file"), "file")
        try:
            return {**op, "manifests": load_manifests(found)}  # read once, at load: the run sends these
        except ManifestError as e:
            message = str(e).replace(repr(str(found)), repr(op["file"]), 1)
            raise _Invalid(f"{where} {name}: {message}", "ops", index, "file") from None
    return dict(op)


def _find_file(path: Path, fixtures: Path, relative: str, where: str, at: tuple[str | int, ...], what: str) -> Path:
    """The file ``relative`` beside the scenario or under ``fixtures`` (the scenario's own
    directory first), as an absolute path: what the op reads at run time."""
    bases = [path.parent.resolve(), fixtures.resolve()]
    found = [m for base in bases if (m := (base / relative).resolve()).is_relative_to(base) and m.is_file()]
    if not found:
        if not any((base / relative).resolve().is_relative_to(base) for base in bases):
            raise _Invalid(f"{where}: {what} {relative!r} is outside {path.parent} and {fixtures}", *at)
        raise _Invalid(f"{where}: {what} {relative!r} not found under {path.parent} or {fixtures}", *at)
    return found[0]


def _find_manifest(path: Path, fixtures: Path, relative: str, where: str, index: int) -> Path:
    """The manifest file beside the scenario or under ``fixtures``, read once to be sure it is
    one YAML mapping; an absolute path: what the op reads at run time."""
    at = ("ops", index, "manifest")
    found = [_find_file(path, fixtures, relative, where, at, "manifest")]
    try:
        data = yaml.safe_load(found[0].read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise _Invalid(f"{where}: manifest {relative!r} cannot be read: {getattr(e, 'strerror', None) or e}",
                       *at) from None
    except yaml.YAMLError as e:
        raise _Invalid(f"{where}: manifest {relative!r}: {_yaml_problem(e)}", *at) from None
    if not isinstance(data, dict):
        raise _Invalid(f"{where}: manifest {relative!r} is not one YAML mapping (a Pod)", *at)
    return found[0]


def _check_kinds(ops: list[Obj]) -> None:
    """Each kind a ``createObjects`` op creates is built in or defined by a CRD created before it
    (:func:`harness._scenario.manifests.check_kinds`)."""
    custom: set[tuple[str, str]] = set()
    for index, op in enumerate(ops):
        if op["op"] == "expectField" or (op["op"] in ("patch", "delete") and "apiVersion" in op):
            try:
                check_kinds([{"apiVersion": op["apiVersion"], "kind": op["kind"], "metadata": {"name": op["name"]}}],
                            custom)
            except ManifestError as e:
                message = str(e).split(": ", 1)[1]  # not "manifest 0 (...)": no manifest here
                raise _Invalid(f"ops[{index}] {op['op']}: {message}", "ops", index, "kind") from None
        if op["op"] != "createObjects":
            continue
        try:
            check_kinds(op["manifests"], custom)
        except ManifestError as e:
            inline = "file" not in op
            at = ("ops", index, "manifests", e.index or 0) if inline else ("ops", index, "file")
            source = "" if inline else f"file {op['file']!r}: "
            raise _Invalid(f"ops[{index}] createObjects: {source}{e}", *at) from None


def _yaml_problem(e: yaml.YAMLError) -> str:
    """``line 2, column 1: not valid YAML: <what the parser expected>``."""
    mark = getattr(e, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}not valid YAML: {getattr(e, 'problem', None) or e}"


TOP_KEYS = ("criterion", "featureGates", "kep", "name", "ops", "reading", "runtimeConfig")


def _kep(value: Any) -> tuple[int, str] | None:
    if value is None:
        return None
    example = "{number: 3521, section: Proposal}"
    if not isinstance(value, dict):
        raise _Invalid(f"kep {value!r}: give a mapping with a number and a section, e.g. {example}", "kep")
    unknown = sorted(set(value) - {"number", "section"}, key=str)
    if unknown:
        raise _Invalid(f"kep: unknown key {_keys(unknown)}; allowed: number, section", "kep", str(unknown[0]))
    if "number" not in value:
        raise _Invalid(f"kep: missing number, e.g. {example}", "kep")
    for key, check in (("number", _WHOLE), ("section", _TEXT)):
        try:
            if key in value:
                check(f"kep: {key}", value[key])
        except ValueError as e:
            raise _Invalid(str(e), "kep", key) from None
    return value["number"], value.get("section", "")


def _feature_gates(value: Any) -> dict[str, bool]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _Invalid(f"featureGates {value!r}: give a mapping of gate names to true or false, e.g. "
                       "{SchedulerPreEnqueuePodStatus: true}", "featureGates")
    for gate, on in value.items():
        if not isinstance(gate, str) or not isinstance(on, bool):
            raise _Invalid(f"featureGates: {gate} {on!r}: give true or false", "featureGates", str(gate))
    return dict(value)


def _runtime_config(value: Any) -> dict[str, str]:
    """``runtimeConfig``: a mapping of ``group/version[/resource]`` to true or false, or the flag's
    value as one string (``scheduling.k8s.io/v1beta1=true``)."""
    if value is None:
        return {}
    if isinstance(value, str):
        config = parse_option(value)
    elif isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, (bool, str)) for k, v in value.items()):
        config = {k: ("true" if v else "false") if isinstance(v, bool) else v for k, v in value.items()}
    else:
        raise _Invalid(f"runtimeConfig {value!r}: give a mapping of group versions to true or false, e.g. "
                       "{scheduling.k8s.io/v1beta1: true}", "runtimeConfig")
    problem = marker_problem(config)
    if problem is not None:
        raise _Invalid(problem.replace("runtime_config marker", "runtimeConfig"), "runtimeConfig")
    return config


def _text(data: Obj, key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise _Invalid(f"{key} {value!r}: give a string", key)
    return value


def load_scenario(path: str | Path, *, fixtures: str | Path | None = None) -> YamlScenario:
    """Read and validate a YAML scenario; manifests are looked up under ``fixtures``.

    :class:`YamlScenarioError` when the file is no valid scenario (its message starts with the
    file's name and the line), ``OSError`` when it cannot be read."""
    p = Path(path)
    base = Path(fixtures) if fixtures is not None else FIXTURES
    try:
        text = p.read_text()
    except UnicodeDecodeError as e:
        raise YamlScenarioError(f"{p.name}: not UTF-8 text: byte {e.start} cannot be decoded") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as e:
        raise YamlScenarioError(f"{p.name}: {_yaml_problem(e)}") from None
    finally:
        loader.dispose()
    lines = _Lines(node)
    try:
        if not isinstance(data, dict) or not isinstance(data.get("ops"), list):
            raise _Invalid("a scenario is a mapping with a list of 'ops'", "ops")
        unknown = sorted(set(data) - set(TOP_KEYS), key=str)
        if unknown:
            raise _Invalid(f"unknown key {_keys(unknown)}; allowed: {', '.join(TOP_KEYS)}", str(unknown[0]))
        name, criterion, reading = _text(data, "name"), _text(data, "criterion"), _text(data, "reading")
        kep, gates = _kep(data.get("kep")), _feature_gates(data.get("featureGates"))  # the header first, then the ops
        runtime = _runtime_config(data.get("runtimeConfig"))
        ops = [_check_op(p, base, i, op) for i, op in enumerate(data["ops"])]
        _check_kinds(ops)
        return YamlScenario(path=p, name=name or p.stem, ops=ops, kep=kep, feature_gates=gates, runtime_config=runtime,
                            criterion=criterion, reading=reading, fixtures=base)
    except _Invalid as e:
        raise YamlScenarioError(f"{p.name}: line {lines(*e.path)}: {e.message}") from None


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
