"""The cells of a server-side Table row, kind by kind: what kube-apiserver's printers print.

Each printer takes one object (JSON, as stored) and the injected clock's time and gives the row's
cells (always the wide layout: ``pkg/printers/storage`` asks for ``Wide: true``, kubectl hides
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

from datetime import datetime, timezone
from typing import Any, Callable

from fake_apiserver._registry.events import convert_event

__all__ = ["PRINTERS", "Printer", "default_row", "human_duration"]

Obj = dict[str, Any]
Cells = list[Any]
Printer = Callable[[Obj, datetime], tuple[Cells, list[Obj]]]


# --- shared formats ----------------------------------------------------------------------------


def human_duration(seconds_total: float) -> str:
    """``apimachinery/pkg/util/duration.HumanDuration``, on a duration in seconds."""
    micros = int(seconds_total * 1_000_000)
    seconds = -(-micros // 1_000_000) if micros < 0 else micros // 1_000_000  # Go truncates to zero
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60 * 2:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        s = seconds % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def _time(value: Any) -> datetime | None:
    """An RFC 3339 time a client wrote, as an aware datetime (UTC when it names no zone), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)


def _since(timestamp: Any, now: datetime) -> str:
    """``translateTimestampSince``: ``<unknown>`` for a missing time."""
    then = _time(timestamp)
    return "<unknown>" if then is None else human_duration((now - then).total_seconds())


def _later(a: str | None, b: Any) -> str | None:
    """The later of two times (``lastRestartDate.Before(&terminatedDate)``); None is the zero time."""
    tb = _time(b)
    if tb is None:
        return a
    ta = _time(a)
    return b if ta is None or ta < tb else a


def _int(value: Any) -> int:
    """A count from what the client wrote; anything but an integer counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _d(obj: Obj, *path: str) -> Any:
    """The value at ``path`` or None; a missing or null map on the way is None."""
    value: Any = obj
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _name(obj: Obj) -> str:
    return str(_d(obj, "metadata", "name") or "")


def _age(obj: Obj, now: datetime) -> str:
    return _since(_d(obj, "metadata", "creationTimestamp"), now)


def _format_labels(labels: Any) -> str:
    """``labels.FormatLabels``: sorted ``k=v`` pairs, ``<none>`` when there are none."""
    if not isinstance(labels, dict) or not labels:
        return "<none>"
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def _selector_string(selector: Any) -> str:
    """``metav1.LabelSelectorAsSelector(s).String()``: requirements sorted by key; "" for none."""
    if not isinstance(selector, dict):
        return ""
    requirements: list[tuple[str, str]] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        requirements.append((key, f"{key}={value}"))
    for expr in selector.get("matchExpressions") or []:
        key, op = str(expr.get("key", "")), expr.get("operator")
        values = ",".join(sorted(str(v) for v in expr.get("values") or []))
        text = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                "DoesNotExist": f"!{key}"}.get(str(op), key)
        requirements.append((key, text))
    return ",".join(text for _, text in sorted(requirements, key=lambda r: r[0]))


def _format_selector(selector: Any) -> str:
    """``metav1.FormatLabelSelector``: ``<none>`` for a nil or empty selector."""
    return _selector_string(selector) or "<none>"


def _go_selector(selector: Obj) -> str:
    """A ``*metav1.LabelSelector`` formatted with ``%v``/``String()`` (gogo-protobuf's form)."""
    labels = selector.get("matchLabels") or {}
    pairs = "".join(f"{k}: {labels[k]}," for k in sorted(labels))
    exprs = "".join(
        f"LabelSelectorRequirement{{Key:{e.get('key', '')},Operator:{e.get('operator', '')},"
        f"Values:[{' '.join(str(v) for v in e.get('values') or [])}],}},"
        for e in selector.get("matchExpressions") or [])
    return (f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
            f"MatchExpressions:[]LabelSelectorRequirement{{{exprs}}},}}")


def _containers(spec: Any) -> tuple[str, str]:
    """``layoutContainerCells``: names and images, comma-joined."""
    containers = (spec or {}).get("containers") or [] if isinstance(spec, dict) else []
    return (",".join(str(c.get("name", "")) for c in containers),
            ",".join(str(c.get("image", "")) for c in containers))


def _more(items: list[str], count: int, limit: int, empty: str = "<unset>") -> str:
    """``listWithMoreString``: the first ``limit`` items and "+ N more..." for the rest."""
    text = ",".join(items[:limit])
    if count > limit:
        return f"{text} + {count - limit} more..."
    return text or empty


def _bool_text(value: Any) -> str:
    """``printBoolPtr``."""
    return "<unset>" if value is None else "True" if value else "False"


def _condition(obj: Obj, type_: str) -> Obj | None:
    return next((c for c in _d(obj, "status", "conditions") or [] if c.get("type") == type_), None)


def _condition_true(status: Obj, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in status.get("conditions") or [])


def default_row(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``rest.NewDefaultTableConvertor``: the name and the creationTimestamp as written (RFC 3339)."""
    return [_name(obj), _d(obj, "metadata", "creationTimestamp")], []


def _name_age(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), _age(obj, now)], []


# --- pods ----------------------------------------------------------------------------------------

_POD_SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                   "message": "The pod has completed successfully."}]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _pod(pod: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
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
        count = _int(cs.get("restartCount"))
        finished = ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt")
        restarts += count
        last_restart = _later(last_restart, finished)
        is_restartable = cs.get("name") in restartable
        if is_restartable:
            restartable_restarts += count
            last_restartable_restart = _later(last_restartable_restart, finished)
        state = cs.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated is not None and _int(terminated.get("exitCode")) == 0:
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
        for cs in reversed(status.get("containerStatuses") or []):
            restarts += _int(cs.get("restartCount"))
            last_restart = _later(last_restart, ((cs.get("lastState") or {}).get("terminated") or {}).get("finishedAt"))
            state = cs.get("state") or {}
            terminated, waiting = state.get("terminated"), state.get("waiting")
            if waiting is not None and waiting.get("reason"):
                reason = waiting["reason"]
            elif terminated is not None and terminated.get("reason"):
                reason = terminated["reason"]
            elif terminated is not None:
                signal = terminated.get("signal")
                reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode') or 0}"
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
        restarts_text = f"{restarts} ({_since(last_restart, now)} ago)"

    ips = status.get("podIPs") or ([{"ip": status["podIP"]}] if status.get("podIP") else [])
    gates = spec.get("readinessGates") or []
    gates_text = "<none>"
    if gates:
        conditions = {c.get("type"): c.get("status") for c in reversed(status.get("conditions") or [])}
        passed = sum(1 for g in gates if conditions.get(g.get("conditionType")) == "True")
        gates_text = f"{passed}/{len(gates)}"
    return [
        _name(pod), f"{ready}/{total}", reason, restarts_text, _age(pod, now),
        (ips[0].get("ip") if ips else "") or "<none>", spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>", gates_text,
    ], row_conditions


# --- core ------------------------------------------------------------------------------------------


def _node(node: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printNode``: STATUS from the Ready condition plus ``SchedulingDisabled``; ROLES from labels;
    the kernel with the architecture in parentheses (v1.37)."""
    status: Obj = node.get("status") or {}
    ready = [c for c in status.get("conditions") or [] if c.get("type") == "Ready"]
    states = [("Ready" if ready[-1].get("status") == "True" else "NotReady")] if ready else ["Unknown"]
    if _d(node, "spec", "unschedulable"):
        states.append("SchedulingDisabled")
    roles = set()
    for key, value in (_d(node, "metadata", "labels") or {}).items():
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
        _name(node), ",".join(states), ",".join(sorted(roles)) or "<none>", _age(node, now),
        info.get("kubeletVersion", ""), address("InternalIP"), address("ExternalIP"),
        info.get("osImage") or "<unknown>", kernel, info.get("containerRuntimeVersion") or "<unknown>",
    ], []


def _namespace(ns: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(ns), _d(ns, "status", "phase") or "", _age(ns, now)], []


def _event(event: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printEvent`` (wide); an events.k8s.io/v1 Event is read in its core v1 shape, as the server
    converts it to the internal Event before printing."""
    if str(event.get("apiVersion", "")).startswith("events.k8s.io/"):
        event = convert_event(event, "")
    first = _since(event.get("firstTimestamp"), now) if event.get("firstTimestamp") else _since(event.get("eventTime"), now)
    last = _since(event.get("lastTimestamp"), now) if event.get("lastTimestamp") else first
    count = _int(event.get("count"))
    series = event.get("series")
    if series:
        last = _since(series.get("lastObservedTime"), now)
        count = _int(series.get("count"))
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
        first, count, _name(event),
    ], []


def _component_status(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    status, message, error = "Unknown", "", ""
    for c in obj.get("conditions") or []:
        if c.get("type") == "Healthy":
            status = "Healthy" if c.get("status") == "True" else "Unhealthy"
            message, error = c.get("message", ""), c.get("error", "")
            break
    return [_name(obj), status, message, error], []


def _config_map(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), len(obj.get("data") or {}) + len(obj.get("binaryData") or {}), _age(obj, now)], []


def _secret(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), obj.get("type") or "", len(obj.get("data") or {}), _age(obj, now)], []


def _endpoints(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``formatEndpoints``: ``ip:port`` for each port of each subset (bare IPs when it has none), three
    at most and "+ N more..."."""
    subsets = obj.get("subsets") or []
    if not subsets:
        return [_name(obj), "<none>", _age(obj, now)], []
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
                    shown.append(ip if port is None else f"{host}:{_int(port.get('port'))}")
    text = ",".join(shown)
    return [_name(obj), f"{text} + {count - 3} more..." if count > 3 else text, _age(obj, now)], []


_ACCESS_MODES = (("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"),
                 ("ReadWriteOncePod", "RWOP"))


def _access_modes(modes: Any) -> str:
    """``GetAccessModesAsString``: the short forms in a fixed order."""
    present = set(modes or [])
    return ",".join(short for mode, short in _ACCESS_MODES if mode in present)


def _storage_class(obj: Obj) -> str:
    beta = (_d(obj, "metadata", "annotations") or {}).get("volume.beta.kubernetes.io/storage-class")
    return str(beta if beta is not None else _d(obj, "spec", "storageClassName") or "")


def _persistent_volume(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    claim = spec.get("claimRef")
    phase = _d(obj, "status", "phase") or ""
    if _d(obj, "metadata", "deletionTimestamp"):
        phase = "Terminating"
    return [
        _name(obj), str((spec.get("capacity") or {}).get("storage", "0")), _access_modes(spec.get("accessModes")),
        spec.get("persistentVolumeReclaimPolicy") or "Retain", phase,
        f"{claim.get('namespace', '')}/{claim.get('name', '')}" if isinstance(claim, dict) else "",
        _storage_class(obj), spec.get("volumeAttributesClassName") or "<unset>", _d(obj, "status", "reason") or "",
        _age(obj, now), spec.get("volumeMode") or "Filesystem",
    ], []


def _persistent_volume_claim(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    phase = _d(obj, "status", "phase") or ""
    if _d(obj, "metadata", "deletionTimestamp"):
        phase = "Terminating"
    capacity = modes = ""
    if spec.get("volumeName"):
        modes = _access_modes(_d(obj, "status", "accessModes"))
        capacity = str((_d(obj, "status", "capacity") or {}).get("storage", "0"))
    return [
        _name(obj), phase, spec.get("volumeName") or "", capacity, modes, _storage_class(obj),
        spec.get("volumeAttributesClassName") or "<unset>", _age(obj, now), spec.get("volumeMode") or "Filesystem",
    ], []


def _pod_template(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = _containers(_d(obj, "template", "spec"))
    return [_name(obj), names, images, _format_labels(_d(obj, "template", "metadata", "labels"))], []


def _replication_controller(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), _int(_d(obj, "spec", "replicas")), _int(_d(obj, "status", "replicas")),
            _int(_d(obj, "status", "readyReplicas")), _age(obj, now), names, images,
            _format_labels(_d(obj, "spec", "selector"))], []


def _resource_quota(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printResourceQuota``: ``name: used/hard`` sorted by name, the ``limits.*`` ones apart."""
    hard: Obj = _d(obj, "status", "hard") or {}
    used: Obj = _d(obj, "status", "used") or {}
    requests: list[str] = []
    limits: list[str] = []
    for name in sorted(hard):
        parts = name.split(".")
        target = limits if len(parts) > 1 and parts[0] == "limits" else requests
        target.append(f"{name}: {used.get(name, '0')}/{hard[name]}")
    return [_name(obj), ", ".join(requests), ", ".join(limits), _age(obj, now)], []


def _load_balancer(status: Any) -> list[str]:
    """The ingress points of a load balancer status, IPs or else hostnames, sorted and unique."""
    found = {str(i.get("ip") or i.get("hostname")) for i in (status or {}).get("ingress") or []
             if i.get("ip") or i.get("hostname")}
    return sorted(found)


def _service(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"  # defaulted by the server
    external_ips = spec.get("externalIPs") or []
    if kind in ("ClusterIP", "NodePort"):
        external = ",".join(external_ips) or "<none>"
    elif kind == "LoadBalancer":
        points = _load_balancer(_d(obj, "status", "loadBalancer"))
        external = ",".join(points + external_ips) or "<pending>"
    elif kind == "ExternalName":
        external = spec.get("externalName") or ""
    else:
        external = "<unknown>"
    ports = ",".join(
        (f"{_int(p.get('port'))}:{_int(p.get('nodePort'))}/{p.get('protocol') or 'TCP'}" if _int(p.get("nodePort")) > 0
         else f"{_int(p.get('port'))}/{p.get('protocol') or 'TCP'}") for p in spec.get("ports") or [])
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    return [_name(obj), kind, cluster_ips[0] if cluster_ips else "<none>", external, ports or "<none>",
            _age(obj, now), _format_labels(spec.get("selector"))], []


# --- apps, batch, autoscaling ------------------------------------------------------------------


def _deployment(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), f"{_int(_d(obj, 'status', 'readyReplicas'))}/{_int(_d(obj, 'spec', 'replicas'))}",
            _int(_d(obj, "status", "updatedReplicas")), _int(_d(obj, "status", "availableReplicas")), _age(obj, now),
            names, images, _selector_string(_d(obj, "spec", "selector"))], []


def _replica_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), _int(_d(obj, "spec", "replicas")), _int(_d(obj, "status", "replicas")),
            _int(_d(obj, "status", "readyReplicas")), _age(obj, now), names, images,
            _format_selector(_d(obj, "spec", "selector"))], []


def _stateful_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), f"{_int(_d(obj, 'status', 'readyReplicas'))}/{_int(_d(obj, 'spec', 'replicas'))}",
            _age(obj, now), names, images], []


def _daemon_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    status: Obj = obj.get("status") or {}
    names, images = _containers(_d(obj, "spec", "template", "spec"))
    return [_name(obj), *(_int(status.get(k)) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                         "numberReady", "updatedNumberScheduled", "numberAvailable")),
            _format_labels(_d(obj, "spec", "template", "spec", "nodeSelector")), _age(obj, now), names, images,
            _format_selector(_d(obj, "spec", "selector"))], []


def _controller_revision(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """CONTROLLER is the controlling owner as ``kind.group/name`` (lower-cased kind and group)."""
    controller = "<none>"
    for ref in _d(obj, "metadata", "ownerReferences") or []:
        if ref.get("controller"):
            api_version = str(ref.get("apiVersion", ""))
            group = api_version.split("/")[0] if "/" in api_version else ""
            kind = str(ref.get("kind", ""))
            group_kind = f"{kind}.{group}" if group else kind
            controller = f"{group_kind.lower()}/{ref.get('name', '')}" if group_kind else str(ref.get("name", ""))
            break
    return [_name(obj), controller, _int(obj.get("revision")), _age(obj, now)], []


def _job(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printJob``: STATUS from the conditions, COMPLETIONS ``succeeded/completions`` (or ``/1``,
    ``of <parallelism>``), DURATION from start to completion (or to now)."""
    spec: Obj = obj.get("spec") or {}
    status: Obj = obj.get("status") or {}
    succeeded = _int(status.get("succeeded"))
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{_int(spec['completions'])}"
    elif _int(spec.get("parallelism")) > 1:
        completions = f"{succeeded}/1 of {_int(spec['parallelism'])}"
    else:
        completions = f"{succeeded}/1"
    start, end = _time(status.get("startTime")), _time(status.get("completionTime"))
    duration = "" if start is None else human_duration(((end or now) - start).total_seconds())

    def holds(type_: str) -> bool:
        found = _condition(obj, type_)
        return found is not None and found.get("status") == "True"

    if holds("Complete"):
        state = "Complete"
    elif holds("Failed"):
        state = "Failed"
    elif _d(obj, "metadata", "deletionTimestamp"):
        state = "Terminating"
    elif holds("Suspended"):
        state = "Suspended"
    elif holds("FailureTarget"):
        state = "FailureTarget"
    else:
        state = "Running"
    names, images = _containers(_d(spec, "template", "spec"))
    return [_name(obj), state, completions, duration, _age(obj, now), names, images,
            _format_selector(spec.get("selector"))], []


def _cron_job(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    last = _d(obj, "status", "lastScheduleTime")
    names, images = _containers(_d(spec, "jobTemplate", "spec", "template", "spec"))
    return [_name(obj), spec.get("schedule", ""), spec.get("timeZone") or "<none>", _bool_text(spec.get("suspend")),
            len(_d(obj, "status", "active") or []), _since(last, now) if last else "<none>", _age(obj, now),
            names, images, _format_selector(_d(spec, "jobTemplate", "spec", "selector"))], []


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
            target = _d(spec, key, "target") or {}
            got = status.get(key)
            if target.get("averageValue") is not None:
                current = str(_d(got, "current", "averageValue")) if got and _d(got, "current", "averageValue") else \
                    "<unknown>"
                shown.append(f"{current}/{target['averageValue']} (avg)")
            else:
                current = str(_d(got, "current", "value") or "0") if got else "<unknown>"
                shown.append(f"{current}/{target.get('value', '0')}")
        elif kind == "Pods":
            got = status.get("pods")
            current = str(_d(got, "current", "averageValue") or "0") if got else "<unknown>"
            shown.append(f"{current}/{_d(spec, 'pods', 'target', 'averageValue') or '0'}")
        elif kind in ("Resource", "ContainerResource"):
            key = "resource" if kind == "Resource" else "containerResource"
            body: Obj = spec.get(key) or {}
            shown.append(_metric_target(body, status.get(key), key, str(body.get("name", ""))))
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:2])
    return f"{text} + {len(shown) - 2} more..." if len(shown) > 2 else text


def _horizontal_pod_autoscaler(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    ref: Obj = spec.get("scaleTargetRef") or {}
    if "targetCPUUtilizationPercentage" in spec or str(obj.get("apiVersion", "")) == "autoscaling/v1":
        target = spec.get("targetCPUUtilizationPercentage")
        metrics = [{"type": "Resource", "resource": {"name": "cpu", "target": {"averageUtilization": target}}}] \
            if target is not None else []
        current = _d(obj, "status", "currentCPUUtilizationPercentage")
        statuses = [{"resource": {"current": {"averageUtilization": current}}}] if current is not None else []
    else:
        metrics, statuses = spec.get("metrics") or [], _d(obj, "status", "currentMetrics") or []
    minimum = spec.get("minReplicas", 1)  # autoscaling/v2 defaults it to 1
    return [_name(obj), f"{ref.get('kind', '')}/{ref.get('name', '')}", _hpa_metrics(metrics, statuses),
            "<unset>" if minimum is None else str(minimum), _int(spec.get("maxReplicas")),
            _int(_d(obj, "status", "currentReplicas")), _age(obj, now)], []


# --- networking, discovery, policy, rbac, coordination, scheduling ---------------------------------


def _ingress(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    rules = spec.get("rules") or []
    hosts: list[str] = []
    more = False
    for rule in rules:  # "+ N more..." counts every rule past three, with a host or not
        more = more or len(hosts) == 3
        if not more and rule.get("host"):
            hosts.append(rule["host"])
    host_text = ",".join(hosts) or "*"
    if hosts and more:
        host_text = f"{host_text} + {len(rules) - 3} more..."
    address = ",".join(_load_balancer(_d(obj, "status", "loadBalancer")))
    return [_name(obj), spec.get("ingressClassName") or "<none>", host_text, address,
            "80, 443" if spec.get("tls") else "80", _age(obj, now)], []


def _ingress_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    params = _d(obj, "spec", "parameters")
    text = "<none>"
    if isinstance(params, dict):
        text = str(params.get("kind", ""))
        if params.get("apiGroup") is not None:
            text += "." + str(params["apiGroup"])
        text += "/" + str(params.get("name", ""))
    return [_name(obj), _d(obj, "spec", "controller") or "", text, _age(obj, now)], []


def _network_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), _format_selector(_d(obj, "spec", "podSelector") or {}), _age(obj, now)], []


def _service_cidr(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), ",".join(_d(obj, "spec", "cidrs") or []), _age(obj, now)], []


def _ip_address(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARENTREF ``resource[.group]/[namespace/]name``; the age is printed with no column for it."""
    ref = _d(obj, "spec", "parentRef")
    text = "<none>"
    if isinstance(ref, dict):
        group = ref.get("group") or ""
        text = (f"{ref.get('resource', '')}.{group}" if group else str(ref.get("resource", ""))).lower()
        if ref.get("namespace"):
            text += "/" + str(ref["namespace"])
        text += "/" + str(ref.get("name", ""))
    return [_name(obj), text, _age(obj, now)], []


def _endpoint_slice(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    ports = obj.get("ports") or []
    port_texts = [str(p["port"]) if p.get("port") is not None else str(p["name"]) if p.get("name") is not None
                  else "*" for p in ports]
    addresses = [str(a) for e in obj.get("endpoints") or [] for a in e.get("addresses") or []]
    return [_name(obj), obj.get("addressType") or "", _more(port_texts, len(port_texts), 3),
            _more(addresses, len(addresses), 3), _age(obj, now)], []


def _pdb(pdb: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = pdb.get("spec") or {}
    bound = ["N/A" if spec.get(k) is None else str(spec[k]) for k in ("minAvailable", "maxUnavailable")]
    return [_name(pdb), *bound, _int(_d(pdb, "status", "disruptionsAllowed")), _age(pdb, now)], []


def _role_binding(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """ROLE ``kind/name``; USERS, GROUPS and SERVICEACCOUNTS (``namespace/name``) ", "-joined."""
    ref: Obj = obj.get("roleRef") or {}
    users, groups, accounts = [], [], []
    for subject in obj.get("subjects") or []:
        kind = subject.get("kind")
        if kind == "User":
            users.append(str(subject.get("name", "")))
        elif kind == "Group":
            groups.append(str(subject.get("name", "")))
        elif kind == "ServiceAccount":
            accounts.append(f"{subject.get('namespace', '')}/{subject.get('name', '')}")
    return [_name(obj), f"{ref.get('kind', '')}/{ref.get('name', '')}", _age(obj, now),
            ", ".join(users), ", ".join(groups), ", ".join(accounts)], []


def _lease(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), _d(obj, "spec", "holderIdentity") or "", _age(obj, now)], []


def _lease_candidate(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [_name(obj), spec.get("leaseName", ""), spec.get("binaryVersion", ""), spec.get("emulationVersion", ""),
            _age(obj, now)], []


def _priority_class(pc: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(pc), _int(pc.get("value")), bool(pc.get("globalDefault")), _age(pc, now),
            pc.get("preemptionPolicy") or ""], []


def _runtime_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), obj.get("handler", ""), _age(obj, now)], []


# --- storage, resource.k8s.io ------------------------------------------------------------------------


def _storage_class_row(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    annotations = _d(obj, "metadata", "annotations") or {}
    default = "true" in (annotations.get("storageclass.kubernetes.io/is-default-class"),
                         annotations.get("storageclass.beta.kubernetes.io/is-default-class"))
    return [_name(obj) + (" (default)" if default else ""), obj.get("provisioner", ""),
            obj.get("reclaimPolicy") or "Delete", obj.get("volumeBindingMode") or "Immediate",
            bool(obj.get("allowVolumeExpansion")), _age(obj, now)], []


def _volume_attributes_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), obj.get("driverName", ""), _age(obj, now)], []


def _csi_driver(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    attach = spec.get("attachRequired")
    tokens = spec.get("tokenRequests")
    audiences = ",".join(str(t.get("audience", "")) for t in tokens) if tokens is not None else "<unset>"
    return [_name(obj), True if attach is None else bool(attach), bool(spec.get("podInfoOnMount")),
            bool(spec.get("storageCapacity")), audiences, bool(spec.get("requiresRepublish")),
            ",".join(spec.get("volumeLifecycleModes") or ["Persistent"]), _age(obj, now)], []


def _csi_node(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), len(_d(obj, "spec", "drivers") or []), _age(obj, now)], []


def _volume_attachment(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [_name(obj), spec.get("attacher", ""), _d(spec, "source", "persistentVolumeName") or "",
            spec.get("nodeName", ""), bool(_d(obj, "status", "attached")), _age(obj, now)], []


def _resource_claim(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """STATE: ``deleted``, then ``pending`` or ``allocated`` (and ``reserved``), comma-joined."""
    states = ["deleted"] if _d(obj, "metadata", "deletionTimestamp") else []
    if _d(obj, "status", "allocation") is None:
        if not states:
            states.append("pending")
    else:
        states.append("allocated")
        if _d(obj, "status", "reservedFor"):
            states.append("reserved")
    return [_name(obj), ",".join(states), _age(obj, now)], []


def _resource_slice(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [_name(obj), spec.get("nodeName") or "", spec.get("driver", ""), _d(spec, "pool", "name") or "",
            _age(obj, now)], []


def _device_taint_rule(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    taint: Obj = _d(obj, "spec", "taint") or {}
    return [_name(obj), taint.get("key", ""), taint.get("value", ""), taint.get("effect", ""),
            _since(taint.get("timeAdded"), now), _age(obj, now)], []


# --- admission, flow control, certificates, apiservices, migrations, CRDs ------------------------


def _webhooks(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), len(obj.get("webhooks") or []), _age(obj, now)], []


def _param_kind(spec: Obj) -> str:
    kind = spec.get("paramKind")
    return f"{kind.get('apiVersion', '')}/{kind.get('kind', '')}" if isinstance(kind, dict) else "<unset>"


def _validating_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [_name(obj), len(spec.get("validations") or []), _param_kind(spec), _age(obj, now)], []


def _mutating_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [_name(obj), len(spec.get("mutations") or []), _param_kind(spec), _age(obj, now)], []


def _policy_binding(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARAMREF ``namespace/name`` (``*/name`` without a namespace), else the selector as Go prints it."""
    spec: Obj = obj.get("spec") or {}
    ref = spec.get("paramRef")
    text = "<unset>"
    if isinstance(ref, dict):
        if ref.get("name"):
            text = f"{ref.get('namespace') or '*'}/{ref['name']}"
        elif isinstance(ref.get("selector"), dict):
            text = _go_selector(ref["selector"])
    return [_name(obj), spec.get("policyName", ""), text, _age(obj, now)], []


def _flow_schema(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    method = _d(spec, "distinguisherMethod", "type") or "<none>"
    dangling = _condition(obj, "Dangling")
    return [_name(obj), _d(spec, "priorityLevelConfiguration", "name") or "", _int(spec.get("matchingPrecedence")),
            method, _age(obj, now), str(dangling.get("status", "")) if dangling else "?"], []


def _priority_level(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    limited = spec.get("limited")
    shares: Any = "<none>"
    queues: Any = "<none>"
    hand: Any = "<none>"
    length: Any = "<none>"
    if isinstance(limited, dict):
        shares = _int(limited.get("nominalConcurrencyShares"))
        queuing = _d(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues, hand, length = (_int(queuing.get(k)) for k in ("queues", "handSize", "queueLengthLimit"))
    return [_name(obj), spec.get("type", ""), shares, queues, hand, length, _age(obj, now)], []


def _certificate_signing_request(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    types = {c.get("type") for c in _d(obj, "status", "conditions") or []}
    state = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        state += ",Failed"
    if _d(obj, "status", "certificate"):
        state += ",Issued"
    seconds = spec.get("expirationSeconds")
    return [_name(obj), _age(obj, now), spec.get("signerName") or "<none>", spec.get("username", ""),
            "<none>" if seconds is None else human_duration(_int(seconds)), state], []


def _cluster_trust_bundle(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [_name(obj), _d(obj, "spec", "signerName") or "<none>"], []


def _pod_certificate_request(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    state = "Pending"
    for type_ in ("Denied", "Failed"):
        if _condition(obj, type_) is not None:
            state = type_
    if _d(obj, "status", "certificateChain"):
        state = "Issued"
    annotations = spec.get("unverifiedUserAnnotations") or {}
    return [_name(obj), spec.get("podName", ""), spec.get("serviceAccountName", ""), spec.get("nodeName", ""),
            spec.get("signerName", ""), state, _format_labels(annotations)], []


def _api_service(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    service = _d(obj, "spec", "service")
    where = f"{service.get('namespace', '')}/{service.get('name', '')}" if isinstance(service, dict) else "Local"
    available = _condition(obj, "Available")
    text = "Unknown"
    if available is not None:
        text = str(available.get("status", ""))
        if text != "True":
            text += f" ({available.get('reason', '')})"
    return [_name(obj), where, text, _age(obj, now)], []


def _storage_version_migration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    resource: Obj = _d(obj, "spec", "resource") or {}
    group = resource.get("group") or ""
    target = f"{resource.get('resource', '')}.{group}" if group else str(resource.get("resource", ""))
    state = "Unknown"
    for type_ in ("Running", "Succeeded", "Failed"):
        found = _condition(obj, type_)
        if found is not None and found.get("status") == "True":
            state = type_
    return [_name(obj), target, state], []


def _custom_resource_definition(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """SCOPE, the served VERSIONS (the storage one marked ``(storage)``), and wide: GROUP, KIND,
    SHORTNAMES and whether it is ESTABLISHED."""
    spec: Obj = obj.get("spec") or {}
    versions = [str(v.get("name", "")) + ("(storage)" if v.get("storage") else "")
                for v in spec.get("versions") or [] if v.get("served")]
    established = _condition(obj, "Established")
    return [_name(obj), spec.get("scope", ""), ",".join(versions), _d(obj, "metadata", "creationTimestamp"),
            spec.get("group", ""), _d(spec, "names", "kind") or "", ",".join(_d(spec, "names", "shortNames") or []),
            established is not None and established.get("status") == "True"], []


PRINTERS: dict[tuple[str, str], Printer] = {
    ("", "ComponentStatus"): _component_status,
    ("", "ConfigMap"): _config_map,
    ("", "Endpoints"): _endpoints,
    ("", "Event"): _event,
    ("", "Namespace"): _namespace,
    ("", "Node"): _node,
    ("", "PersistentVolumeClaim"): _persistent_volume_claim,
    ("", "PersistentVolume"): _persistent_volume,
    ("", "Pod"): _pod,
    ("", "PodTemplate"): _pod_template,
    ("", "ReplicationController"): _replication_controller,
    ("", "ResourceQuota"): _resource_quota,
    ("", "Secret"): _secret,
    ("", "ServiceAccount"): _name_age,
    ("", "Service"): _service,
    ("apiregistration.k8s.io", "APIService"): _api_service,
    ("apps", "ControllerRevision"): _controller_revision,
    ("apps", "DaemonSet"): _daemon_set,
    ("apps", "Deployment"): _deployment,
    ("apps", "ReplicaSet"): _replica_set,
    ("apps", "StatefulSet"): _stateful_set,
    ("events.k8s.io", "Event"): _event,
    ("autoscaling", "HorizontalPodAutoscaler"): _horizontal_pod_autoscaler,
    ("batch", "CronJob"): _cron_job,
    ("batch", "Job"): _job,
    ("certificates.k8s.io", "CertificateSigningRequest"): _certificate_signing_request,
    ("certificates.k8s.io", "ClusterTrustBundle"): _cluster_trust_bundle,
    ("certificates.k8s.io", "PodCertificateRequest"): _pod_certificate_request,
    ("networking.k8s.io", "IngressClass"): _ingress_class,
    ("networking.k8s.io", "Ingress"): _ingress,
    ("networking.k8s.io", "IPAddress"): _ip_address,
    ("networking.k8s.io", "NetworkPolicy"): _network_policy,
    ("networking.k8s.io", "ServiceCIDR"): _service_cidr,
    ("policy", "PodDisruptionBudget"): _pdb,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _role_binding,
    ("rbac.authorization.k8s.io", "RoleBinding"): _role_binding,
    ("storage.k8s.io", "CSIDriver"): _csi_driver,
    ("storage.k8s.io", "CSINode"): _csi_node,
    ("storage.k8s.io", "StorageClass"): _storage_class_row,
    ("storage.k8s.io", "VolumeAttachment"): _volume_attachment,
    ("storage.k8s.io", "VolumeAttributesClass"): _volume_attributes_class,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"): _mutating_policy,
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"): _policy_binding,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): _webhooks,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): _validating_policy,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): _policy_binding,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): _webhooks,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _custom_resource_definition,
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("coordination.k8s.io", "Lease"): _lease,
    ("coordination.k8s.io", "LeaseCandidate"): _lease_candidate,
    ("node.k8s.io", "RuntimeClass"): _runtime_class,
    ("discovery.k8s.io", "EndpointSlice"): _endpoint_slice,
    ("resource.k8s.io", "DeviceClass"): _name_age,
    ("resource.k8s.io", "DeviceTaintRule"): _device_taint_rule,
    ("resource.k8s.io", "ResourceClaim"): _resource_claim,
    ("resource.k8s.io", "ResourceClaimTemplate"): _name_age,
    ("resource.k8s.io", "ResourceSlice"): _resource_slice,
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): _flow_schema,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): _priority_level,
    ("storagemigration.k8s.io", "StorageVersionMigration"): _storage_version_migration,
}
