"""Resource quantities and pod requests, as NodeResourcesFit counts them.

``resource.Quantity`` parsing for the suffixes pods and nodes use (``m``, decimal ``k M G T P E``,
binary ``Ki Mi Gi Ti Pi Ei``, exponents ``e3``); cpu is counted in millicores (rounded up, as
``MilliValue`` does) and memory in bytes. A pod's request is the larger of the sum of its
containers and its largest init container, plus ``spec.overhead``
(``resourcehelper.PodRequests``, without sidecars).

In-place resize (KEP-1287): with ``use_status`` (kube-scheduler passes ``UseStatusResources`` =
the ``InPlacePodVerticalScaling`` gate, ``pkg/scheduler/framework/types.go`` ``calculateResource``)
each container counts, per resource, the largest of its spec request, its status's
``allocatedResources`` and its status's ``resources.requests`` (``component-helpers/resource``
``determineContainerReqs``: ``max(container.Resources.Requests, cs.Resources.Requests,
cs.AllocatedResources)``), so a resize the kubelet deferred already holds its new room on the node.
A resize the kubelet found ``Infeasible`` (``PodResizePending`` reason ``Infeasible``) counts only
the status (``max(cs.Resources.Requests, cs.AllocatedResources)``): the spec will not be actuated.
A container without a status counts its spec.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

__all__ = ["Resources", "node_allocatable", "parse_quantity", "pod_requests", "resize_reason"]

Obj = dict[str, Any]

_SUFFIX = {
    "": Decimal(1), "m": Decimal("0.001"),
    "k": Decimal(10) ** 3, "M": Decimal(10) ** 6, "G": Decimal(10) ** 9, "T": Decimal(10) ** 12,
    "P": Decimal(10) ** 15, "E": Decimal(10) ** 18,
    "Ki": Decimal(2) ** 10, "Mi": Decimal(2) ** 20, "Gi": Decimal(2) ** 30, "Ti": Decimal(2) ** 40,
    "Pi": Decimal(2) ** 50, "Ei": Decimal(2) ** 60,
}


def parse_quantity(raw: Any) -> Decimal:
    """The value of a quantity string (``"100m"`` is 0.1); ``ValueError`` if it is not one."""
    text = str(raw).strip()
    match = _QUANTITY.match(text)
    if match is None:
        raise ValueError(f"quantities must match the regular expression {_QUANTITY.pattern!r}: {text!r}")
    number, suffix = match.group(1), match.group(2)
    if suffix in _SUFFIX:
        return Decimal(number) * _SUFFIX[suffix]
    return Decimal(number + suffix)  # an exponent: 1e3, 1E-3


_QUANTITY = re.compile(r"^([+-]?[0-9.]+)((?:[eE][-+]?[0-9]+)|Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|)$")


class Resources:
    """Milli-cpu, memory bytes and a pod count."""

    __slots__ = ("milli_cpu", "memory", "pods")

    def __init__(self, milli_cpu: int = 0, memory: int = 0, pods: int = 0) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.pods = pods

    def add(self, other: Resources) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.pods += other.pods

    def sub(self, other: Resources) -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.pods -= other.pods

    def __repr__(self) -> str:
        return f"Resources(milli_cpu={self.milli_cpu}, memory={self.memory}, pods={self.pods})"


def _of(requests: Obj) -> tuple[int, int]:
    cpu = math.ceil(parse_quantity(requests["cpu"]) * 1000) if "cpu" in requests else 0
    mem = math.ceil(parse_quantity(requests["memory"])) if "memory" in requests else 0
    return cpu, mem


def resize_reason(pod: Obj) -> str:
    """The reason of the pod's first ``PodResizePending`` condition (``Deferred``, ``Infeasible``),
    or "" (``resource.IsPodResizeDeferred``/``IsPodResizeInfeasible`` look at the first one)."""
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "PodResizePending":
            return str(cond.get("reason") or "")
    return ""


def _container_requests(c: Obj, status: Obj | None, infeasible: bool) -> tuple[int, int]:
    spec = _of(((c.get("resources") or {}).get("requests")) or {})
    if status is None:
        return spec
    seen = [_of(status.get("allocatedResources") or {}),
            _of(((status.get("resources") or {}).get("requests")) or {})]
    if not infeasible:
        seen.append(spec)
    return max(s[0] for s in seen), max(s[1] for s in seen)


def pod_requests(pod: Obj, *, use_status: bool = True, infeasible: bool | None = None) -> Resources:
    """What the pod counts on its node (module docstring); ``use_status`` is the
    ``InPlacePodVerticalScaling`` gate; ``infeasible`` overrides the pod's own resize reason
    (True: only the status counts, the pod's old resources)."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    if infeasible is None:
        infeasible = resize_reason(pod) == "Infeasible"

    def statuses(field: str) -> dict[str, Obj]:
        if not use_status:
            return {}
        return {str(s.get("name")): s for s in status.get(field) or [] if isinstance(s, dict)}

    running, init = statuses("containerStatuses"), statuses("initContainerStatuses")
    cpu = mem = 0
    for c in spec.get("containers") or []:
        c_cpu, c_mem = _container_requests(c, running.get(str(c.get("name"))), infeasible)
        cpu, mem = cpu + c_cpu, mem + c_mem
    for c in spec.get("initContainers") or []:
        c_cpu, c_mem = _container_requests(c, init.get(str(c.get("name"))), infeasible)
        cpu, mem = max(cpu, c_cpu), max(mem, c_mem)
    o_cpu, o_mem = _of(spec.get("overhead") or {})
    return Resources(cpu + o_cpu, mem + o_mem, 1)


def node_allocatable(node: Obj) -> Resources:
    status = node.get("status") or {}
    alloc = status.get("allocatable") or status.get("capacity") or {}
    cpu, mem = _of(alloc)
    pods = int(parse_quantity(alloc["pods"])) if "pods" in alloc else 110
    return Resources(cpu, mem, pods)
