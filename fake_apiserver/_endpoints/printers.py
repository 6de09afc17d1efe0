"""The cells of a server-side Table row for the kinds of core, apps, batch and autoscaling and
for both Events: what kube-apiserver's printers print.

Each printer is a function of one object (JSON, as stored) and the injected clock's time
(:data:`~fake_apiserver._endpoints.printformats.Printer`), named for the kind it prints
(``print_pod``); which kind gets which printer is one table,
:data:`~fake_apiserver._endpoints.tables.PRINTERS`. It gives the row's cells (always the wide layout: ``pkg/printers/storage`` asks for ``Wide: true``, kubectl hides
priority-1 columns unless ``-o wide``) and its row conditions. The formats follow
``pkg/printers/internalversion/printers.go`` (kube-apiserver v1.37): ``<none>``, ``<unset>`` and
``<unknown>`` placeholders, ``HumanDuration`` ages, label selectors as ``labels.Selector.String``
prints them, "+ N more..." lists, and cells typed as the Go printer typed them (an integer cell
is a JSON number even under a "string" column). Checked cell for cell against kube-apiserver
v1.37.2 by ``tests/test_tables_kinds.py``; the column definitions live in
:mod:`~fake_apiserver._endpoints.columns`.

Trade-off: the printers read the JSON object directly rather than a typed model, so a field the
server would have defaulted is defaulted here where the printer reads it, with kube-apiserver's
default (a CSIDriver's ``attachRequired`` and ``volumeLifecycleModes``, a Service's type, port
protocol and ``clusterIPs``, a volume's reclaim policy and volume mode, an HPA's ``minReplicas``):
the fake's registry does not default all of these on write, and a Table must not show the gap. Quantities are printed as stored (the fake stores
them canonical, as the real server does).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._endpoints.printformats import (
    Cells,
    age_of,
    at,
    bool_text,
    condition,
    condition_true,
    container_cells,
    count_of,
    format_labels,
    format_selector,
    human_duration,
    later,
    load_balancer_points,
    name_of,
    parse_time,
    selector_string,
    since,
)
from fake_apiserver._registry.core.event import convert_event

__all__ = [
    "print_component_status",
    "print_config_map",
    "print_controller_revision",
    "print_cron_job",
    "print_daemon_set",
    "print_deployment",
    "print_endpoints",
    "print_event",
    "print_horizontal_pod_autoscaler",
    "print_job",
    "print_namespace",
    "print_node",
    "print_persistent_volume",
    "print_persistent_volume_claim",
    "print_pod",
    "print_pod_template",
    "print_replica_set",
    "print_replication_controller",
    "print_resource_quota",
    "print_secret",
    "print_service",
    "print_stateful_set",
]

Obj = dict[str, Any]


# --- pods ----------------------------------------------------------------------------------------

_POD_SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                   "message": "The pod has completed successfully."}]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


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
        last_restart = later(last_restart, finished)
        is_restartable = cs.get("name") in restartable
        if is_restartable:
            restartable_restarts += count
            last_restartable_restart = later(last_restartable_restart, finished)
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

    if not initializing or condition_true(status, "Initialized"):
        restarts, last_restart = restartable_restarts, last_restartable_restart
        has_running = False
        set_by_container = False  # v1.37: a "Completed" container does not hide another's reason
        for cs in reversed(status.get("containerStatuses") or []):
            restarts += count_of(cs.get("restartCount"))
            last_restart = later(last_restart, ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt"))
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
            reason = "Running" if condition_true(status, "Ready") else "NotReady"

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


# --- core ------------------------------------------------------------------------------------------


def print_node(node: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printNode``: STATUS from the Ready condition plus ``SchedulingDisabled``; ROLES from labels;
    the kernel with the architecture in parentheses (v1.37)."""
    status: Obj = node.get("status") or {}
    ready = [c for c in status.get("conditions") or [] if c.get("type") == "Ready"]
    states = [("Ready" if ready[-1].get("status") == "True" else "NotReady")] if ready else ["Unknown"]
    if at(node, "spec", "unschedulable"):
        states.append("SchedulingDisabled")
    roles = set()
    for key, value in (at(node, "metadata", "labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key != "node-role.kubernetes.io/":
            roles.add(key[len("node-role.kubernetes.io/"):])
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    info: Obj = status.get("nodeInfo") or {}

    def address(kind: str) -> str:
        return next((a.get("address", "") for a in status.get("addresses") or [] if a.get("type") == kind), "<none>")

    kernel = info.get("kernelVersion") or "<unknown>"
    if info.get("architecture"):
        kernel = f"{kernel} ({info['architecture']})"
    return [
        name_of(node), ",".join(states), ",".join(sorted(roles)) or "<none>", age_of(node, now),
        info.get("kubeletVersion", ""), address("InternalIP"), address("ExternalIP"),
        info.get("osImage") or "<unknown>", kernel, info.get("containerRuntimeVersion") or "<unknown>",
    ], []


def print_namespace(ns: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(ns), at(ns, "status", "phase") or "", age_of(ns, now)], []


def print_event(event: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printEvent`` (wide); an events.k8s.io/v1 Event is read in its core v1 shape, as the server
    converts it to the internal Event before printing."""
    if str(event.get("apiVersion", "")).startswith("events.k8s.io/"):
        event = convert_event(event, "")
    first = since(event.get("firstTimestamp"), now) if event.get("firstTimestamp") else since(event.get("eventTime"), now)
    last = since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first
    count = count_of(event.get("count"))
    series = event.get("series")
    if series:
        last = since(series.get("lastObservedTime"), now)
        count = count_of(series.get("count"))
    elif count == 0:
        count = 1  # singleton events of the new API carry no count
    involved: Obj = event.get("involvedObject") or {}
    kind = str(involved.get("kind", "")).lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source: Obj = event.get("source") or {}
    component = source.get("component") or event.get("reportingComponent") or ""
    instance = source.get("host") or event.get("reportingInstance") or ""
    return [
        last, event.get("type", ""), event.get("reason", ""), target, involved.get("fieldPath", ""),
        f"{component}, {instance}" if instance else component, str(event.get("message", "")).strip(),
        first, count, name_of(event),
    ], []


def print_component_status(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    status, message, error = "Unknown", "", ""
    for c in obj.get("conditions") or []:
        if c.get("type") == "Healthy":
            status = "Healthy" if c.get("status") == "True" else "Unhealthy"
            message, error = c.get("message", ""), c.get("error", "")
            break
    return [name_of(obj), status, message, error], []


def print_config_map(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), len(obj.get("data") or {}) + len(obj.get("binaryData") or {}), age_of(obj, now)], []


def print_secret(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), obj.get("type") or "", len(obj.get("data") or {}), age_of(obj, now)], []


def print_endpoints(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``formatEndpoints``: ``ip:port`` for each port of each subset (bare IPs when it has none), three
    at most and "+ N more..."."""
    subsets = obj.get("subsets") or []
    if not subsets:
        return [name_of(obj), "<none>", age_of(obj, now)], []
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [str(a.get("ip", "")) for a in subset.get("addresses") or []]
        ports = subset.get("ports") or []
        for port in ports or [None]:
            count += len(addresses)
            for ip in addresses:
                if len(shown) < 3:
                    host = f"[{ip}]" if ":" in ip else ip
                    shown.append(ip if port is None else f"{host}:{count_of(port.get('port'))}")
    text = ",".join(shown)
    return [name_of(obj), f"{text} + {count - 3} more..." if count > 3 else text, age_of(obj, now)], []


_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))


def _access_modes(modes: Any) -> str:
    """``GetAccessModesAsString``: the short forms in a fixed order."""
    present = set(modes or [])
    return ",".join(short for mode, short in _ACCESS_MODES if mode in present)


def _storage_class(obj: Obj) -> str:
    beta = (at(obj, "metadata", "annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else at(obj, "spec", "storageClassName") or "")


def print_persistent_volume(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    claim = spec.get("claimRef")
    phase = at(obj, "status", "phase") or ""
    if at(obj, "metadata", "deletionTimestamp"):
        phase = "Terminating"
    return [
        name_of(obj), str((spec.get("capacity") or {}).get("storage", "0")), _access_modes(spec.get("accessModes")),
        spec.get("persistentVolumeReclaimPolicy") or "Retain", phase,
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if isinstance(claim, dict) else "",
        _storage_class(obj), spec.get("volumeAttributesClassName") or "<unset>", at(obj, "status", "reason") or "",
        age_of(obj, now), spec.get("volumeMode") or "Filesystem",
    ], []


def print_persistent_volume_claim(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    phase = at(obj, "status", "phase") or ""
    if at(obj, "metadata", "deletionTimestamp"):
        phase = "Terminating"
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(at(obj, "status", "accessModes"))
        capacity = str((at(obj, "status", "capacity") or {}).get("storage", "0"))
    return [
        name_of(obj), phase, spec.get("volumeName") or "", capacity, modes, _storage_class(obj),
        spec.get("volumeAttributesClassName") or "<unset>", age_of(obj, now), spec.get("volumeMode") or "Filesystem",
    ], []


def print_pod_template(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "template", "spec"))
    return [name_of(obj), names, images, format_labels(at(obj, "template", "metadata", "labels"))], []


def print_replication_controller(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), count_of(at(obj, "spec", "replicas")), count_of(at(obj, "status", "replicas")),
            count_of(at(obj, "status", "readyReplicas")), age_of(obj, now), names, images,
            format_labels(at(obj, "spec", "selector"))], []


def print_resource_quota(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printResourceQuota``: ``name: used/hard`` sorted by name, the ``limits.*`` ones apart."""
    hard: Obj = at(obj, "status", "hard") or {}
    used: Obj = at(obj, "status", "used") or {}
    requests: list[str] = []
    limits: list[str] = []
    for name in sorted(hard):
        parts = name.split(".")
        target = limits if len(parts) > 1 and parts[0] == "limits" else requests
        target.append(f"{name}: {used.get(name, '0')}/{hard[name]}")
    return [name_of(obj), ", ".join(requests), ", ".join(limits), age_of(obj, now)], []


def print_service(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"  # defaulted by the server
    external_ips = spec.get("externalIPs") or []
    if kind in ("ClusterIP", "NodePort"):
        external = ",".join(external_ips) or "<none>"
    elif kind == "LoadBalancer":
        points = load_balancer_points(at(obj, "status", "loadBalancer"))
        external = ",".join(points + external_ips) or "<pending>"
    elif kind == "ExternalName":
        external = spec.get("externalName") or ""
    else:
        external = "<unknown>"
    ports = ",".join(
        (f"{count_of(p.get('port'))}:{count_of(p.get('nodePort'))}/{p.get('protocol') or 'TCP'}" if count_of(p.get("nodePort")) > 0
         else f"{count_of(p.get('port'))}/{p.get('protocol') or 'TCP'}") for p in spec.get("ports") or [])
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    return [name_of(obj), kind, cluster_ips[0] if cluster_ips else "<none>", external, ports or "<none>",
            age_of(obj, now), format_labels(spec.get("selector"))], []


# --- apps, batch, autoscaling ------------------------------------------------------------------


def print_deployment(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), f"{count_of(at(obj, 'status', 'readyReplicas'))}/{count_of(at(obj, 'spec', 'replicas'))}",
            count_of(at(obj, "status", "updatedReplicas")), count_of(at(obj, "status", "availableReplicas")), age_of(obj, now),
            names, images, selector_string(at(obj, "spec", "selector"))], []


def print_replica_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), count_of(at(obj, "spec", "replicas")), count_of(at(obj, "status", "replicas")),
            count_of(at(obj, "status", "readyReplicas")), age_of(obj, now), names, images,
            format_selector(at(obj, "spec", "selector"))], []


def print_stateful_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), f"{count_of(at(obj, 'status', 'readyReplicas'))}/{count_of(at(obj, 'spec', 'replicas'))}",
            age_of(obj, now), names, images], []


def print_daemon_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    status: Obj = obj.get("status") or {}
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), *(count_of(status.get(k)) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                         "numberReady", "updatedNumberScheduled", "numberAvailable")),
            format_labels(at(obj, "spec", "template", "spec", "nodeSelector")), age_of(obj, now), names, images,
            format_selector(at(obj, "spec", "selector"))], []


def print_controller_revision(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """CONTROLLER is the controlling owner as ``kind.group/name`` (lower-cased kind and group)."""
    controller = "<none>"
    for ref in at(obj, "metadata", "ownerReferences") or []:
        if ref.get("controller"):
            api_version = str(ref.get("apiVersion", ""))
            group = api_version.split("/")[0] if "/" in api_version else ""
            kind = str(ref.get("kind", ""))
            group_kind = f"{kind}.{group}" if group else kind
            controller = f"{group_kind.lower()}/{ref.get('name', '')}" if group_kind else str(ref.get("name", ""))
            break
    return [name_of(obj), controller, count_of(obj.get("revision")), age_of(obj, now)], []


def print_job(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printJob``: STATUS from the conditions, COMPLETIONS ``succeeded/completions`` (or ``/1``,
    ``of <parallelism>``), DURATION from start to completion (or to now)."""
    spec: Obj = obj.get("spec") or {}
    status: Obj = obj.get("status") or {}
    succeeded = count_of(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{count_of(spec['completions'])}"
    elif count_of(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {count_of(spec['parallelism'])}"
    else:
        completions = f"{succeeded}/1"
    start, end = parse_time(status.get("startTime")), parse_time(status.get("completionTime"))
    duration = "" if start is None else human_duration(((end or now) - start).total_seconds())

    def holds(type_: str) -> bool:
        found = condition(obj, type_)
        return found is not None and found.get("status") == "True"

    if holds("Complete"):
        state = "Complete"
    elif holds("Failed"):
        state = "Failed"
    elif at(obj, "metadata", "deletionTimestamp"):
        state = "Terminating"
    elif holds("Suspended"):
        state = "Suspended"
    elif holds("FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    names, images = container_cells(at(spec, "template", "spec"))
    return [name_of(obj), state, completions, duration, age_of(obj, now), names, images,
            format_selector(spec.get("selector"))], []


def print_cron_job(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    last = at(obj, "status", "lastScheduleTime")
    names, images = container_cells(at(spec, "jobTemplate", "spec", "template", "spec"))
    return [name_of(obj), spec.get("schedule", ""), spec.get("timeZone") or "<none>", bool_text(spec.get("suspend")),
            len(at(obj, "status", "active") or []), since(last, now) if last else "<none>", age_of(obj, now),
            names, images, format_selector(at(spec, "jobTemplate", "spec", "selector"))], []


def _metric_target(spec: Obj, status: Obj | None, source: str, name: str) -> str:
    """One Resource or ContainerResource metric: ``name: current/target``."""
    target = spec.get("target") or {}
    current = (status or {}).get("current") or {}
    if target.get("averageValue") is not None:
        now_value = str(current.get("averageValue")) if status is not None and current.get("averageValue") else \
            "<unknown>"
        return f"{name}: {now_value}/{target['averageValue']}"
    utilization = current.get("averageUtilization") if status is not None else None
    now_text = f"{utilization}%" if utilization is not None else "<unknown>"
    goal = f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
    return f"{name}: {now_text}/{goal}"


def _hpa_metrics(specs: list[Obj], statuses: list[Obj]) -> str:
    """``formatHPAMetrics``: each metric ``current/target`` (statuses matched by position), two at
    most and "+ N more..."."""
    if not specs:
        return "<none>"
    shown: list[str] = []
    for i, spec in enumerate(specs):
        kind = spec.get("type")
        status = statuses[i] if i < len(statuses) else {}
        if kind == "External" or kind == "Object":
            key = "external" if kind == "External" else "object"
            target = at(spec, key, "target") or {}
            got = status.get(key)
            if target.get("averageValue") is not None:
                current = str(at(got, "current", "averageValue")) if got and at(got, "current", "averageValue") else \
                    "<unknown>"
                shown.append(f"{current}/{target['averageValue']} (avg)")
            else:
                current = str(at(got, "current", "value") or "0") if got else "<unknown>"
                shown.append(f"{current}/{target.get('value', '0')}")
        elif kind == "Pods":
            got = status.get("pods")
            current = str(at(got, "current", "averageValue") or "0") if got else "<unknown>"
            shown.append(f"{current}/{at(spec, 'pods', 'target', 'averageValue') or '0'}")
        elif kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            body: Obj = spec.get(key) or {}
            shown.append(_metric_target(body, status.get(key), key, str(body.get("name", ""))))
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:2])
    return f"{text} + {len(shown) - 2} more..." if len(shown) > 2 else text


def print_horizontal_pod_autoscaler(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    ref: Obj = spec.get("scaleTargetRef") or {}
    if "targetCPUUtilizationPercentage" in spec or str(obj.get("apiVersion", "")) == "autoscaling/v1":
        target = spec.get("targetCPUUtilizationPercentage")
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": target}}}] \
            if target is not None else []
        current = at(obj, "status", "currentCPUUtilizationPercentage")
        statuses = [{"resource": {"current": {"averageUtilization": current}}}] if current is not None else []
    else:
        metrics, statuses = spec.get("metrics") or [], at(obj, "status", "currentMetrics") or []
    minimum = spec.get("minReplicas", 1)  # autoscaling/v2 defaults it to 1
    return [name_of(obj), f"{ref.get('kind', '')}/{ref.get('name', '')}", _hpa_metrics(metrics, statuses),
            "<unset>" if minimum is None else str(minimum), count_of(spec.get("maxReplicas")),
            count_of(at(obj, "status", "currentReplicas")), age_of(obj, now)], []
