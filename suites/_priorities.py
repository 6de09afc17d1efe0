"""What the preemption suites share: a scenario's PriorityClasses, pods already running on a
node, and the scheduler's deletions read from the journal as effects."""

from __future__ import annotations

from typing import Any

from harness import Expectation, Scenario, Write

__all__ = ["GRACE", "PRIORITIES", "any_deleted", "classes", "deleted", "deleted_by_scheduler", "preemptor", "victim"]

Obj = dict[str, Any]

#: The victims' ``terminationGracePeriodSeconds``: short, so a victim's termination is short on real time too.
GRACE = 5
PRIORITIES = {"low": 10, "mid": 100, "high": 1000}


async def classes(scenario: Scenario, *, never: str | None = None) -> dict[str, str]:
    """The scenario's PriorityClasses by level (``<namespace>-low``, ``-mid``, ``-high``; values
    10, 100, 1000); ``never``: a level whose class has ``preemptionPolicy: Never``."""
    names = {}
    for level, value in PRIORITIES.items():
        name = f"{scenario.namespace}-{level}"
        body: Obj = {"metadata": {"name": name}, "value": value}
        if level == never:
            body["preemptionPolicy"] = "Never"
        await scenario.create("priorityclasses", body)
        names[level] = name
    return names


async def victim(scenario: Scenario, name: str, node: str, cpu: str, priority_class: str,
                 labels: dict[str, str] | None = None) -> Obj:
    """A pod already on ``node`` (bound by ``spec.nodeName``), with a grace period of :data:`GRACE`."""
    return await scenario.create_pod(name, cpu, labels=labels, manifest={"spec": {
        "nodeName": node, "priorityClassName": priority_class, "terminationGracePeriodSeconds": GRACE}})


async def preemptor(scenario: Scenario, name: str, cpu: str, priority_class: str, **extra: Any) -> Obj:
    """A pending pod of that class."""
    return await scenario.create_pod(name, cpu, manifest={"spec": {"priorityClassName": priority_class}}, **extra)


def deleted_by_scheduler(scenario: Scenario, *pods: str) -> dict[str, Write]:
    """The first write of each pod by the scheduler that marked it for deletion or removed it."""
    out = {}
    for pod in pods:
        for write in scenario.writes(pod):
            if write.applied and write.before is not None and (
                    write.after is None or (write.after.get("metadata") or {}).get("deletionTimestamp")):
                out[pod] = write
                break
    return out


def deleted(scenario: Scenario, *pods: str) -> Expectation:
    """The scheduler has deleted (or marked for deletion) every one of ``pods``."""
    return Expectation(f"the scheduler deletes {_names(scenario, pods)}",
                       lambda: len(deleted_by_scheduler(scenario, *pods)) == len(pods),
                       lambda: _deletions(scenario, pods), pods)


def any_deleted(scenario: Scenario, *pods: str) -> Expectation:
    """The scheduler has deleted (or marked for deletion) one of ``pods``."""
    return Expectation(f"the scheduler deletes one of {_names(scenario, pods)}",
                       lambda: bool(deleted_by_scheduler(scenario, *pods)), lambda: _deletions(scenario, pods), pods)


def _names(scenario: Scenario, pods: tuple[str, ...]) -> str:
    return ", ".join(f"{scenario.namespace}/{pod}" for pod in pods)


def _deletions(scenario: Scenario, pods: tuple[str, ...]) -> str:
    done = deleted_by_scheduler(scenario, *pods)
    return "deleted by the scheduler: " + (", ".join(f"{pod} at t={w.time:.3f}" for pod, w in done.items()) or "none")
