"""The pod's printer: the cells of a pod's row in a server-side Table (``printPod``).

READY counts the ready containers and the started restartable init containers; STATUS is the
phase or reason, replaced by the first init container still at work (``Init:``), the last
container's waiting or terminated reason, ``SchedulingGated`` while the ``PodScheduled``
condition says so, ``Terminating`` or ``Unknown`` for a pod being deleted; RESTARTS carries the
age of the last restart. A pod that has finished gets a row condition (``Completed``). Checked
cell for cell against kube-apiserver v1.37.2 by ``tests/fake_apiserver/_endpoints/test_tables_kinds.py``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.printing import Cells, age_of, count_of, name_of, parse_time, since

__all__ = ["print_pod"]

Obj = dict[str, Any]

_POD_SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                   "message": "The pod has completed successfully."}]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _later(a: str | None, b: Any) -> str | None:
    """The later of two times (``lastRestartDate.Before(&terminatedDate)``); None is the zero time."""
    tb = parse_time(b)
    if tb is None:
        return a
    ta = parse_time(a)
    return b if ta is None or ta < tb else a


def _condition_true(status: Obj, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in status.get("conditions") or [])


def print_pod(pod: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printPod``: READY, STATUS (with ``SchedulingGated``), RESTARTS, AGE and the wide columns."""
    spec: Obj = pod.get("spec") or {}
    status: Obj = pod.get("status") or {}
    init_specs = spec.get("initContainers") or []
    restartable = {c.get("name") for c in init_specs if c.get("restartPolicy") == "Always"}
    total = len(spec.get("containers") or []) + sum(1 for c in init_specs if c.get("restartPolicy") == "Always")
    ready = restarts = restartable_restarts = 0
    last_restart: str | None = None
    last_restartable_restart: str | None = None
    phase = status.get("phase") or ""
    reason = status.get("reason") or phase
    for cond in status.get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"
    row_conditions = _POD_SUCCEEDED if phase == "Succeeded" else _POD_FAILED if phase == "Failed" else []

    initializing = False
    for i, cs in enumerate(status.get("initContainerStatuses") or []):
        count = count_of(cs.get("restartCount"))
        finished = ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        restarts += count
        last_restart = _later(last_restart, finished)
        is_restartable = cs.get("name") in restartable
        if is_restartable:
            restartable_restarts += count
            last_restartable_restart = _later(last_restartable_restart, finished)
        state = cs.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and count_of(terminated.get("exitCode")) == 0:
            continue
        if is_restartable and cs.get("started"):
            ready += 1 if cs.get("ready") else 0
            continue
        if terminated is not None:
            if terminated.get("reason"):
                reason = "Init:" + terminated["reason"]
            elif terminated.get("signal"):
                reason = f"Init:Signal:{terminated['signal']}"
            else:
                reason = f"Init:ExitCode:{terminated.get('exitCode') or 0}"
        elif waiting is not None and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            reason = "Init:" + waiting["reason"]
        else:
            reason = f"Init:{i}/{len(init_specs)}"
        initializing = True
        break

    if not initializing or _condition_true(status, "Initialized"):
        restarts, last_restart = restartable_restarts, last_restartable_restart
        has_running = False
        set_by_container = False  # v1.37: a "Completed" container does not hide another's reason
        for cs in reversed(status.get("containerStatuses") or []):
            restarts += count_of(cs.get("restartCount"))
            last_restart = _later(last_restart, ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt"))
            state = cs.get("state") or {}
            terminated, waiting = state.get("terminated"), state.get("waiting")
            if waiting is not None and waiting.get("reason"):
                reason, set_by_container = waiting["reason"], True
            elif terminated is not None and terminated.get("reason"):
                if terminated["reason"] != "Completed" or not set_by_container:
                    reason, set_by_container = terminated["reason"], True
            elif terminated is not None:
                signal = terminated.get("signal")
                reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode') or 0}"
                set_by_container = True
            elif cs.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(status, "Ready") else "NotReady"

    deleting = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
    if deleting and status.get("reason") == "NodeLost":
        reason = "Unknown"
    elif deleting and phase not in ("Succeeded", "Failed"):
        reason = "Terminating"

    restarts_text = str(restarts)
    if restarts and last_restart:
        restarts_text = f"{restarts} ({since(last_restart, now)} ago)"

    ips = status.get("podIPs") or ([{"ip": status["podIP"]}] if status.get("podIP") else [])
    gates = spec.get("readinessGates") or []
    gates_text = "<none>"
    if gates:
        conditions = {c.get("type"): c.get("status") for c in reversed(status.get("conditions") or [])}
        passed = sum(1 for g in gates if conditions.get(g.get("conditionType")) == "True")
        gates_text = f"{passed}/{len(gates)}"
    return [
        name_of(pod), f"{ready}/{total}", reason, restarts_text, age_of(pod, now),
        (ips[0].get("ip") if ips else "") or "<none>", spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>", gates_text,
    ], row_conditions
