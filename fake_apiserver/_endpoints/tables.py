"""Server-side ``Table`` rendering: what ``kubectl get`` prints.

``kubectl get`` asks for ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...`` and prints
the columns the server sends; the STATUS column that shows ``SchedulingGated`` exists only in the
server's printer (k8s-semantics A.3). A server that answers with a plain list gets kubectl's
fallback of NAME and AGE, so the fake renders the Table itself.

Sources, followed field for field:

* the wire shape: ``apimachinery/pkg/apis/meta/v1/types.go`` (``Table``, ``TableColumnDefinition``,
  ``TableRow``, ``IncludeObjectPolicy``); ``columnDefinitions`` and ``rows`` are never omitted;
* the row objects and ``includeObject``: ``apiserver/pkg/endpoints/handlers/response.go``
  (``asTable``: ``PartialObjectMetadata`` of the Table's group-version unless ``Object`` or
  ``None``; a watch sends the column definitions with its first event only);
* the columns and cells: ``kubernetes/pkg/printers/internalversion/printers.go`` (``printPod``,
  ``printNode``, ``printNamespace``, ``printEvent``, ``printPriorityClass``). The server always prints wide
  (``pkg/printers/storage``: ``GenerateOptions{Wide: true}``); kubectl hides the columns of
  priority 1 unless ``-o wide``.

Kinds without a printer here get NAME and AGE, the columns kubectl's own fallback shows; the real
server has a printer for each served kind (``kubectl get configmaps`` adds DATA, and so on), which
the fake does not copy. Ages come from the injected clock, never the machine's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from fake_apiserver._machinery.errors import BadRequest
from fake_apiserver._machinery.kindspec import KindSpec

__all__ = ["TableRequest", "TableStream", "human_duration", "negotiate_table", "render_table"]

Obj = dict[str, Any]
Cells = list[Any]

_INCLUDE_OBJECT = ("Metadata", "Object", "None")
_JSON_MEDIA = ("application/json", "application/*", "*/*")

# Column descriptions are the swagger docs the printers cite (``SwaggerDoc()`` of ObjectMeta and the
# core/v1 types, ``k8s.io/api`` ``types_swagger_doc_generated.go``); clients only show them in help.
_NAME_DOC = (
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name automatically. "
    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
    "updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
)
_CREATED_DOC = (
    "CreationTimestamp is a timestamp representing the server time when this object was created. It "
    "is not guaranteed to be set in happens-before order across separate operations. Clients may not "
    "set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. "
    "Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_ADDRESSES_DOC = (
    "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
    "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as "
    "mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is "
    "merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an "
    "example. Consumers should assume that addresses can change during the lifetime of a Node. However, "
    "there are some exceptions where this may not be possible, such as Pods that inherit a Node's address "
    "in its own status or consumers of the downward API (status.hostIP)."
)


def _column(name: str, description: str, *, type_: str = "string", fmt: str = "", priority: int = 0) -> Obj:
    return {"name": name, "type": type_, "format": fmt, "description": description, "priority": priority}


_NAME = _column("Name", _NAME_DOC, fmt="name")
_AGE = _column("Age", _CREATED_DOC)


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
    """A count from a status the client wrote; anything but an integer counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# --- pods -------------------------------------------------------------------------------------

_POD_COLUMNS = [
    _NAME,
    _column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
    _column("Status", "The aggregate status of the containers in this pod."),
    _column("Restarts", "The number of times the containers in this pod have been restarted and when "
            "the last container in this pod has restarted."),
    _AGE,
    _column("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if "
            "not yet allocated.", priority=1),
    _column("Node", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
            "candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, "
            "the kubelet for this node becomes responsible for the lifecycle of this pod. This field "
            "should not be used to express a desire for the pod to be scheduled on a specific node. "
            "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename", priority=1),
    _column("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the "
            "node, but it cannot be scheduled right away as preemption victims receive their graceful "
            "termination periods. This field does not guarantee that the pod will be scheduled on this "
            "node. Scheduler may decide to place the pod elsewhere if other nodes become available "
            "sooner. Scheduler may also decide to give the resources on this node to a higher priority "
            "pod that is created after preemption. As a result, this field may be different than "
            "PodSpec.nodeName when the pod is scheduled.", priority=1),
    _column("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness. A "
            "pod is ready when all its containers are ready AND all conditions specified in the readiness "
            'gates have status equal to "True" More info: '
            "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates", priority=1),
]

_POD_SUCCEEDED = [{"type": "Completed", "status": "True", "reason": "Succeeded",
                   "message": "The pod has completed successfully."}]
_POD_FAILED = [{"type": "Completed", "status": "True", "reason": "Failed", "message": "The pod failed."}]


def _condition_true(status: Obj, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in status.get("conditions") or [])


def _pod_row(pod: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
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
    cells: Cells = [
        (pod.get("metadata") or {}).get("name", ""),
        f"{ready}/{total}",
        reason,
        restarts_text,
        _since((pod.get("metadata") or {}).get("creationTimestamp"), now),
        (ips[0].get("ip") if ips else "") or "<none>",
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        gates_text,
    ]
    return cells, row_conditions


# --- nodes, namespaces, events ---------------------------------------------------------------

_NODE_COLUMNS = [
    _NAME,
    _column("Status", "The status of the node"),
    _column("Roles", "The roles of the node"),
    _AGE,
    _column("Version", "Kubelet Version reported by the node."),
    _column("Internal-IP", _ADDRESSES_DOC, priority=1),
    _column("External-IP", _ADDRESSES_DOC, priority=1),
    _column("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 "
            "(wheezy)).", priority=1),
    _column("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. "
            "3.16.0-0.bpo.4-amd64).", priority=1),
    _column("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote "
            "API (e.g. containerd://1.4.2).", priority=1),
]


def _node_row(node: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printNode``: STATUS from the Ready condition plus ``SchedulingDisabled``; ROLES from labels."""
    meta: Obj = node.get("metadata") or {}
    status: Obj = node.get("status") or {}
    ready = [c for c in status.get("conditions") or [] if c.get("type") == "Ready"]
    states = [("Ready" if ready[-1].get("status") == "True" else "NotReady")] if ready else ["Unknown"]
    if (node.get("spec") or {}).get("unschedulable"):
        states.append("SchedulingDisabled")
    roles = set()
    for key, value in (meta.get("labels") or {}).items():
        if key.startswith("node-role.kubernetes.io/") and key != "node-role.kubernetes.io/":
            roles.add(key[len("node-role.kubernetes.io/"):])
        elif key == "kubernetes.io/role" and value:
            roles.add(value)
    info: Obj = status.get("nodeInfo") or {}

    def address(kind: str) -> str:
        return next((a.get("address", "") for a in status.get("addresses") or [] if a.get("type") == kind), "<none>")

    return [
        meta.get("name", ""),
        ",".join(states),
        ",".join(sorted(roles)) or "<none>",
        _since(meta.get("creationTimestamp"), now),
        info.get("kubeletVersion", ""),
        address("InternalIP"),
        address("ExternalIP"),
        info.get("osImage") or "<unknown>",
        info.get("kernelVersion") or "<unknown>",
        info.get("containerRuntimeVersion") or "<unknown>",
    ], []


_NAMESPACE_COLUMNS = [_NAME, _column("Status", "The status of the namespace"), _AGE]


def _namespace_row(ns: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    meta: Obj = ns.get("metadata") or {}
    return [meta.get("name", ""), (ns.get("status") or {}).get("phase", ""),
            _since(meta.get("creationTimestamp"), now)], []


_EVENT_COLUMNS = [
    _column("Last Seen", "The time at which the most recent occurrence of this event was recorded."),
    _column("Type", "Type of this event (Normal, Warning), new types could be added in the future"),
    _column("Reason", "This should be a short, machine understandable string that gives the reason for "
            "the transition into the object's current status."),
    _column("Object", "The object that this event is about."),
    _column("Subobject", "If referring to a piece of an object instead of an entire object, this string "
            "should contain a valid JSON/Go field access statement, such as "
            "desiredState.manifest.containers[2]. For example, if the object reference is to a container "
            'within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers '
            "to the name of the container that triggered the event) or if no container name is specified "
            '"spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have '
            "some well-defined way of referencing a part of an object.", priority=1),
    _column("Source", "The component reporting this event. Should be a short machine understandable "
            "string.", priority=1),
    _column("Message", "A human-readable description of the status of this operation."),
    _column("First Seen", "The time at which the event was first recorded. (Time of server receipt is in "
            "TypeMeta.)", priority=1),
    _column("Count", "The number of times this event has occurred.", priority=1),
    {**_NAME, "priority": 1},
]


def _event_row(event: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printEvent`` for core/v1 events (the wide layout: the server always prints wide)."""
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
        last,
        event.get("type", ""),
        event.get("reason", ""),
        target,
        involved.get("fieldPath", ""),
        f"{component}, {instance}" if instance else component,
        str(event.get("message", "")).strip(),
        first,
        count,
        (event.get("metadata") or {}).get("name", ""),
    ], []


# --- priority classes --------------------------------------------------------------------------

_PRIORITY_CLASS_COLUMNS = [
    _NAME,
    _column("Value", "value represents the integer value of this priority class. This is the actual priority "
            "that pods receive when they have the name of this class in their pod spec.", type_="integer"),
    _column("Global-Default", "globalDefault specifies whether this PriorityClass should be considered as the "
            "default priority for pods that do not have any priority class. Only one PriorityClass can be "
            "marked as `globalDefault`. However, if more than one PriorityClasses exists with their "
            "`globalDefault` field set to true, the smallest value of such global default PriorityClasses "
            "will be used as the default priority.", type_="boolean"),
    _AGE,
    _column("PreemptionPolicy", "preemptionPolicy is the Policy for preempting pods with lower priority. One of "
            "Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."),
]


def _priority_class_row(pc: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printPriorityClass``: NAME, VALUE, GLOBAL-DEFAULT, AGE, PREEMPTIONPOLICY."""
    meta: Obj = pc.get("metadata") or {}
    return [meta.get("name", ""), _int(pc.get("value")), bool(pc.get("globalDefault")),
            _since(meta.get("creationTimestamp"), now), pc.get("preemptionPolicy") or ""], []


# --- pod disruption budgets ---------------------------------------------------------------------

_PDB_COLUMNS = [
    _NAME,
    _column("Min Available", "The minimum number of pods that must be available."),
    _column("Max Unavailable", "The maximum number of pods that may be unavailable."),
    _column("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time.", type_="integer"),
    _AGE,
]


def _pdb_row(pdb: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printPodDisruptionBudget``: NAME, MIN AVAILABLE, MAX UNAVAILABLE (``N/A`` when unset),
    ALLOWED DISRUPTIONS, AGE."""
    meta: Obj = pdb.get("metadata") or {}
    spec: Obj = pdb.get("spec") or {}
    bound = ["N/A" if spec.get(k) is None else str(spec[k]) for k in ("minAvailable", "maxUnavailable")]
    return [meta.get("name", ""), *bound, _int((pdb.get("status") or {}).get("disruptionsAllowed")),
            _since(meta.get("creationTimestamp"), now)], []


def _generic_row(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    meta: Obj = obj.get("metadata") or {}
    return [meta.get("name", ""), _since(meta.get("creationTimestamp"), now)], []


Printer = Callable[[Obj, datetime], tuple[Cells, list[Obj]]]

_PRINTERS: dict[tuple[str, str], tuple[list[Obj], Printer]] = {
    ("", "Pod"): (_POD_COLUMNS, _pod_row),
    ("", "Node"): (_NODE_COLUMNS, _node_row),
    ("", "Namespace"): (_NAMESPACE_COLUMNS, _namespace_row),
    ("", "Event"): (_EVENT_COLUMNS, _event_row),
    ("scheduling.k8s.io", "PriorityClass"): (_PRIORITY_CLASS_COLUMNS, _priority_class_row),
    ("policy", "PodDisruptionBudget"): (_PDB_COLUMNS, _pdb_row),
}
_GENERIC: tuple[list[Obj], Printer] = ([_NAME, _AGE], _generic_row)


# --- negotiation and rendering ---------------------------------------------------------------


@dataclass(frozen=True)
class TableRequest:
    """A request for a Table: its group-version (``v1`` or ``v1beta1`` of ``meta.k8s.io``) and
    what each row carries as ``object`` (``includeObject``: Metadata, Object or None)."""

    version: str = "v1"
    include_object: str = "Metadata"

    @property
    def api_version(self) -> str:
        return f"meta.k8s.io/{self.version}"


def _clauses(accept: str) -> list[tuple[str, dict[str, str]]]:
    """Accept clauses by descending ``q``, then specificity, else in order (``goautoneg.ParseAccept``)."""
    parsed: list[tuple[float, int, int, str, dict[str, str]]] = []
    for index, clause in enumerate(accept.split(",")):
        parts = [p.strip() for p in clause.split(";")]
        media = parts[0].lower()
        if not media:
            continue
        params: dict[str, str] = {}
        for p in parts[1:]:
            key, _, value = p.partition("=")
            params[key.strip().lower()] = value.strip()
        try:
            q = float(params.pop("q", "1"))
        except ValueError:
            q = 0.0
        specificity = 2 if media == "*/*" else 1 if media.endswith("/*") else 0
        parsed.append((-q, specificity, index, media, params))
    parsed.sort()
    return [(media, params) for _, _, _, media, params in parsed]


def negotiate_table(accept: str, include_object: str = "") -> TableRequest | None:
    """The Table the client asked for, or None for a plain JSON answer.

    The first JSON clause decides, as in apiserver's ``NegotiateOutputMediaType``: one with
    ``as=Table;g=meta.k8s.io;v=v1|v1beta1`` asks for a Table; one with another ``as=`` (e.g.
    ``PartialObjectMetadata``, which the fake does not serve) is skipped; a plain one ends the
    search. ``includeObject`` is checked only when a Table is served, as in ``asTable``.
    """
    if "as=" not in accept:  # the common case: no conversion asked for
        return None
    for media, params in _clauses(accept):
        if media not in _JSON_MEDIA:
            continue
        target = params.get("as")
        if target is None:
            return None
        if target == "Table" and params.get("g") == "meta.k8s.io" and params.get("v") in ("v1", "v1beta1"):
            if include_object and include_object not in _INCLUDE_OBJECT:
                raise BadRequest(f"unrecognized includeObject value: {json.dumps(include_object)}")
            return TableRequest(params["v"], include_object or "Metadata")
    return None


def _row_object(obj: Obj, request: TableRequest) -> Obj | None:
    if request.include_object == "Object":
        return obj
    if request.include_object == "None":
        return None
    return {"kind": "PartialObjectMetadata", "apiVersion": request.api_version, "metadata": obj.get("metadata") or {}}


def render_table(spec: KindSpec, result: Obj, request: TableRequest, now: datetime, *, headers: bool = True) -> Obj:
    """``result`` (one object or a ``<Kind>List``) as a ``meta.k8s.io`` Table.

    The list's ``resourceVersion``, ``continue`` and ``remainingItemCount`` carry over
    (``printers.GenerateTable``); ``headers=False`` leaves ``columnDefinitions`` null, as on every
    watch event after the first."""
    columns, printer = _PRINTERS.get((spec.group, spec.kind), _GENERIC)
    is_list = isinstance(result.get("items"), list) and str(result.get("kind", "")).endswith("List")
    items: list[Obj] = result["items"] if is_list else [result]
    rows = []
    for item in items:
        cells, conditions = printer(item, now)
        row: Obj = {"cells": cells}
        if conditions:
            row["conditions"] = conditions
        row["object"] = _row_object(item, request)
        rows.append(row)
    source_meta: Obj = result.get("metadata") or {}
    meta: Obj = {}
    if source_meta.get("resourceVersion"):
        meta["resourceVersion"] = source_meta["resourceVersion"]
    if is_list and source_meta.get("continue"):
        meta["continue"] = source_meta["continue"]
    if is_list and source_meta.get("remainingItemCount") is not None:
        meta["remainingItemCount"] = source_meta["remainingItemCount"]
    return {
        "kind": "Table",
        "apiVersion": request.api_version,
        "metadata": meta,
        "columnDefinitions": list(columns) if headers else None,
        "rows": rows,
    }


@dataclass
class TableStream:
    """Renders the objects of one watch as Tables: column definitions with the first event only
    (``watchEmbeddedEncoder``); ``Status`` objects (ERROR events) pass through unchanged."""

    spec: KindSpec
    request: TableRequest
    now: Callable[[], datetime]
    _headers: bool = field(default=True, init=False)

    def __call__(self, obj: Obj) -> Obj:
        if obj.get("kind") == "Status":
            return obj
        table = render_table(self.spec, obj, self.request, self.now(), headers=self._headers)
        self._headers = False
        return table
