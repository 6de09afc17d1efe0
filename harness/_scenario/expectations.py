"""Expectations: named predicates over what a scenario sees, and the words of their failures.

An expectation is data, not just a function: its ``description`` completes "expected ...", its
``observe`` says what is seen instead, and ``pods`` names whose journal requests explain a
failure. That is what lets :meth:`~harness._scenario.scenario.Scenario.eventually` and
:meth:`~harness._scenario.scenario.Scenario.never` fail with a message that can be read without rerunning
the scenario. Plain callables are accepted too and described by their name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Union

from fake_apiserver import JournalEntry
from fake_apiserver import condition_of

__all__ = [
    "NOT_JUDGED",
    "Expectation",
    "ExpectationFailed",
    "NotJudged",
    "Predicate",
    "condition_of",
    "describe_predicate",
    "format_condition",
    "format_pod",
    "touches",
]

Obj = dict[str, Any]


class ExpectationFailed(AssertionError):
    """An expectation of a scenario did not hold; the message says what, when, and shows the journal."""


#: The status of a criterion that raised :class:`NotJudged`, in its record and in the report.
NOT_JUDGED = "not judged"


class NotJudged(Exception):
    """A criterion could not be judged: a set-up wait timed out, a control the judgement stands
    on never happened (the scheduler never bound the ordinary pod beside a gated one), or a wait
    the criterion needs was cut short. The message says what the scheduler had to do and what was
    seen.

    It is neither a pass nor a skip: a skip is for a declared reason that does not depend on the
    scheduler (the run's gates, the release, the backend, a tool), while this is the scheduler's
    own doing, so it fails the run with an exit code of its own and shows as an error in
    ``junit.xml``. Plain pytest reports it as a failure. Not an :class:`AssertionError`: a
    criterion's ``assert`` is a verdict, this is the lack of one.
    """


@dataclass(frozen=True)
class Expectation:
    """A named predicate over what the scenario sees through the API.

    ``description`` completes "expected ...", ``observe`` says what is seen now (for failure
    messages), ``pods`` names the pods whose requests the failure message shows.
    """

    description: str
    test: Callable[[], bool]
    observe: Callable[[], str]
    pods: tuple[str, ...] = ()

    def __call__(self) -> bool:
        return self.test()

    def __invert__(self) -> Expectation:
        return Expectation(f"not ({self.description})", lambda: not self.test(), self.observe, self.pods)

    def __and__(self, other: Expectation) -> Expectation:
        return self._join(other, "and", lambda: self.test() and other.test())

    def __or__(self, other: Expectation) -> Expectation:
        return self._join(other, "or", lambda: self.test() or other.test())

    def _join(self, other: Expectation, word: str, test: Callable[[], bool]) -> Expectation:
        return Expectation(
            f"({self.description}) {word} ({other.description})",
            test,
            lambda: f"{self.observe()}; {other.observe()}",
            self.pods + tuple(p for p in other.pods if p not in self.pods),
        )


Predicate = Union[Expectation, Callable[[], bool]]


def format_condition(condition: Obj | None, type_: str = "") -> str:
    """``PodScheduled=False reason=Unschedulable message="..."`` (or ``PodScheduled absent``)."""
    if condition is None:
        return f"{type_} absent" if type_ else "absent"
    out = f"{condition.get('type', type_)}={condition.get('status', '')}"
    if condition.get("reason"):
        out += f" reason={condition['reason']}"
    if condition.get("message"):
        out += f" message={json.dumps(condition['message'])}"
    return out


def format_pod(namespace: str, name: str, pod: Obj | None) -> str:
    """What a failure message says about a pod: bound or not, gates, conditions."""
    if pod is None:
        return f"pod {namespace}/{name} does not exist"
    spec, status = pod.get("spec", {}), pod.get("status", {})
    parts = [f"bound to node {spec['nodeName']}" if spec.get("nodeName") else "not bound (spec.nodeName unset)"]
    gates = [g.get("name", "") for g in spec.get("schedulingGates") or []]
    if gates:
        parts.append(f"gates {gates}")
    conditions = status.get("conditions") or []
    parts.append("conditions: " + ("; ".join(format_condition(c) for c in conditions) if conditions else "none"))
    return f"pod {namespace}/{name}: " + ", ".join(parts)


def describe_predicate(predicate: Predicate) -> Expectation:
    """An expectation as is; a plain callable named by its ``__name__``."""
    if isinstance(predicate, Expectation):
        return predicate
    name = getattr(predicate, "__name__", repr(predicate))
    return Expectation(f"{name}() is true", predicate, lambda: f"{name}() returned false")


def touches(entry: JournalEntry, pods: tuple[str, ...], namespace: str) -> bool:
    """A request about one of ``pods``: the pod or its subresources, or an event regarding it."""
    if entry.resource == "pods":
        name = entry.name
        if not name and entry.verb == "create" and isinstance(entry.body, dict):
            name = str(entry.body.get("metadata", {}).get("name", ""))
        return name in pods and entry.namespace == namespace
    if entry.resource.partition(".")[0] == "events" and isinstance(entry.body, dict):
        ref = entry.body.get("regarding") or entry.body.get("involvedObject") or {}
        return ref.get("kind") == "Pod" and ref.get("name") in pods
    return False
