"""Nodes (``pkg/registry/core/node``): defaults, validation, the TaintNodesByCondition admission
plugin's ``not-ready`` taint, and the KEP-5836 ``spec.podPreemptionPolicy`` rules.

Its Table's cells: :func:`print_node` (``printNode``).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.equality import semantic_omitzero
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_label_value, is_qualified_name
from fake_apiserver._machinery.selectors import go_value_field
from fake_apiserver._machinery.shapes import BOOL, OBJECT_META, RESOURCES, STR, STRINGS, TIME, list_of, struct_of
from fake_apiserver._registry.dropdisabled import NODE_RULES, drop_disabled_fields
from fake_apiserver._registry.fieldrules import get_in, invalid_each
from fake_apiserver._registry.generic import FieldLabels, KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "NodeStrategy", "admit_node_create", "default_node", "print_node",
           "validate_node_pod_preemption_policy"]

Obj = dict[str, Any]


def default_node(node: dict[str, Any]) -> None:
    """The decoding side of a Node write: ``podCIDR`` and ``podCIDRs[0]`` are one field of the
    internal type (``Convert_v1_NodeSpec_To_core_NodeSpec``), and ``SetDefaults_NodeStatus``
    copies ``capacity`` into an absent ``allocatable``."""
    spec = node.get("spec")
    if isinstance(spec, dict):
        cidrs = spec.get("podCIDRs")
        if not cidrs and spec.get("podCIDR"):
            spec["podCIDRs"] = [spec["podCIDR"]]
        elif cidrs and isinstance(cidrs, list):
            spec["podCIDR"] = cidrs[0]
    status = node.get("status")
    if isinstance(status, dict) and status.get("capacity") and not status.get("allocatable"):
        status["allocatable"] = dict(status["capacity"])


def _cidr(value: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(str(value), strict=False)
    except ValueError:
        return None


_CIDR_ERROR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def _pod_cidr_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    cidrs = spec.get("podCIDRs") or ([spec["podCIDR"]] if spec.get("podCIDR") else [])
    errors = [FieldError.invalid(f"spec.podCIDRs[{i}]", c, _CIDR_ERROR) for i, c in enumerate(cidrs) if _cidr(c) is None]
    if len(cidrs) > 1:
        parsed = [_cidr(c) for c in cidrs]
        bad = next((i for i, p in enumerate(parsed) if p is None), None)
        if bad is not None:  # netutils.IsDualStackCIDRStrings fails on the first bad one
            errors.append(FieldError("InternalError", "spec.podCIDRs",
                                     "invalid PodCIDRs. failed to check with dual stack with error:"
                                     f"invalid CIDR[{bad}]: <nil> (invalid CIDR address: {cidrs[bad]})"))
        families = {p.version for p in parsed if p is not None}
        if bad is not None or len(families) < 2 or len(cidrs) > 2:
            errors.append(FieldError.invalid("spec.podCIDRs", GoJSON(json.dumps(cidrs, separators=(",", ":"))),
                                             "may specify no more than one CIDR for each IP family"))
    return errors


_TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"]


def _taint_errors(taints: Any) -> list[FieldError]:
    """``validateNodeTaints``, reported under ``metadata.taints`` as the real server does."""
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints if isinstance(taints, list) else []):
        if not isinstance(taint, Mapping):
            continue
        path = f"metadata.taints[{i}]"
        key, value, effect = str(taint.get("key") or ""), str(taint.get("value") or ""), str(taint.get("effect") or "")
        errors += invalid_each(f"{path}.key", key, is_qualified_name(key))
        messages = is_label_value(value)
        if messages:
            errors.append(FieldError.invalid(f"{path}.value", value, ";".join(messages)))
        if not effect:
            errors.append(FieldError.required(f"{path}.effect"))
        elif effect not in _TAINT_EFFECTS:
            errors.append(FieldError.not_supported(f"{path}.effect", effect, _TAINT_EFFECTS))
        if (key, effect) in seen:
            shown = json.dumps({"Key": key, "Value": value, "Effect": effect, "TimeAdded": taint.get("timeAdded")},
                               separators=(",", ":"))
            errors.append(FieldError("FieldValueDuplicate", path, "taints must be unique by key and effect pair",
                                     GoJSON(shown)))
            continue
        seen.add((key, effect))
    return errors


def _negative_quantities(resources: Any, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for name, raw in (resources or {}).items() if isinstance(resources, Mapping) else ():
        try:
            negative = quantity.parse(raw) < 0
        except ValueError:
            continue
        if negative:
            errors.append(FieldError.invalid(f"{path}.{name}", quantity.canonical(raw), "must be greater than or equal to 0"))
    return errors


def _node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}
    status = get_in(obj, "status") or {}
    errors = _taint_errors(spec.get("taints"))
    errors += _negative_quantities(status.get("capacity"), "status.capacity")
    errors += _negative_quantities(status.get("allocatable") or status.get("capacity"), "status.allocatable")
    return errors + _pod_cidr_errors(spec)


def _node_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateNodeUpdate``: pod CIDRs, once set, never change."""
    old_cidrs = get_in(old, "spec", "podCIDRs") or []
    new_cidrs = get_in(new, "spec", "podCIDRs") or []
    if old_cidrs and list(old_cidrs) != list(new_cidrs):
        return [FieldError.forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid')]
    return []


_MAX_RESIZE_PREEMPTION_OWNERS = 20


def validate_node_pod_preemption_policy(node: Mapping[str, Any], old: Mapping[str, Any] | None, *,
                                        gate: bool = True) -> list[FieldError]:
    """``spec.podPreemptionPolicy`` (KEP-5836, alpha in v1.37): with its gate
    (``InPlacePodVerticalScalingSchedulerPreemption``) off, the field is
    ``+k8s:ifDisabled(...)=+k8s:forbidden``: an update that changes it on a node that already had
    it (a create or an update of a node without it has had it dropped) is ``Forbidden``. With the
    gate on, ``disableResizePreemption``'s declarative tags ``+k8s:maxItems=20``,
    ``+k8s:listType=set`` and ``+k8s:eachVal=+k8s:format=k8s-label-key``, in the order the
    generated validator runs them: too many items stops there; then each value that is not a
    label key; then each repeated value at its later index. An update that leaves the field as it
    was is not checked again (declarative validation's ratcheting). Messages and order as
    kube-apiserver v1.37.2 answers."""
    policy = get_in(node, "spec", "podPreemptionPolicy")
    if not gate:
        unchanged = old is not None and semantic_omitzero(policy) == semantic_omitzero(get_in(old, "spec", "podPreemptionPolicy"))
        if policy is None or unchanged:
            return []
        return [FieldError.forbidden("spec.podPreemptionPolicy", "")]
    path = "spec.podPreemptionPolicy.disableResizePreemption"
    owners = get_in(node, "spec", "podPreemptionPolicy", "disableResizePreemption") or []
    if old is not None and semantic_omitzero(owners) == semantic_omitzero(
            get_in(old, "spec", "podPreemptionPolicy", "disableResizePreemption") or []):
        return []
    if len(owners) > _MAX_RESIZE_PREEMPTION_OWNERS:
        return [FieldError("FieldValueTooMany", path, f"must have at most {_MAX_RESIZE_PREEMPTION_OWNERS} items",
                           len(owners))]
    errors: list[FieldError] = []
    for i, owner in enumerate(owners):
        errors += invalid_each(f"{path}[{i}]", owner, is_qualified_name(owner))
    for i, owner in enumerate(owners):
        if owner in owners[:i]:
            errors.append(FieldError.duplicate(f"{path}[{i}]", owner))
    return errors


_NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def admit_node_create(node: Mapping[str, Any], *, taint_not_ready: bool) -> dict[str, Any]:
    """The ``TaintNodesAtCreation`` admission plugin (``plugin/pkg/admission/nodetaint``).

    On create of a node (not a subresource) it appends ``node.kubernetes.io/not-ready:NoSchedule``
    unless a taint with the same key and effect is already there; the node lifecycle controller
    removes it once the node is Ready. Returns a copy; ``taint_not_ready=False`` models the plugin
    being off.
    """
    admitted = json_copy(dict(node))
    if not taint_not_ready:
        return admitted
    spec = admitted.setdefault("spec", {})
    taints = spec.get("taints") or []
    key, effect = _NOT_READY_TAINT["key"], _NOT_READY_TAINT["effect"]
    if not any(t.get("key") == key and t.get("effect") == effect for t in taints):  # Taint.MatchTaint
        spec["taints"] = [*taints, dict(_NOT_READY_TAINT)]
    return admitted


class NodeStrategy(Strategy):
    """Nodes keep the status they are created with (kubelets register that way) and get the
    ``node.kubernetes.io/not-ready:NoSchedule`` taint unless the server was told otherwise.
    Create and update drop the fields of gates that are off (``dropDisabledFields``); a
    ``/status`` write does not (``nodeStatusStrategy`` does not call it)."""

    reset_status_on_create = False
    generation = False

    def __init__(self, spec: KindSpec, *, taint_not_ready: bool, features: FeatureGates | None = None) -> None:
        super().__init__(spec, features=features)
        self.taint_not_ready = taint_not_ready

    def default(self, obj: Obj) -> None:
        default_node(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        drop_disabled_fields(NODE_RULES, obj, None, self.features)
        admitted = admit_node_create(obj, taint_not_ready=self.taint_not_ready)
        obj.clear()
        obj.update(admitted)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        drop_disabled_fields(NODE_RULES, new, old, self.features)


    def validate_create(self, obj: Obj) -> list[FieldError]:
        return self.rules.create(obj) + validate_node_pod_preemption_policy(
            obj, None, gate=self._preemption_gate)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return (self.update_rule_errors(new, old)
                + validate_node_pod_preemption_policy(new, old, gate=self._preemption_gate))

    @property
    def _preemption_gate(self) -> bool:
        return self.features.enabled("InPlacePodVerticalScalingSchedulerPreemption")

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self.update_rule_errors(new, old)


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


KIND = KindRules(
    group="", kind="Node", generate_name_checked_on_update=True, etcd_prefix="minions",
    create=_node_errors, update=_node_update_errors,
    strategy=lambda spec, options: NodeStrategy(
        spec, taint_not_ready=options.taint_not_ready, features=options.features),
    field_labels=FieldLabels(("spec.unschedulable",)),
    field_values={"spec.unschedulable": go_value_field("spec.unschedulable", "false")},
    shape=struct_of(
        "v1.Node", metadata=OBJECT_META,
        spec=struct_of(
            "v1.NodeSpec", podCIDR=STR, podCIDRs=STRINGS, providerID=STR, unschedulable=BOOL,
            podPreemptionPolicy=struct_of("v1.NodePodPreemptionPolicy", disableResizePreemption=STRINGS),
            taints=list_of(struct_of("v1.Taint", key=STR, value=STR, effect=STR, timeAdded=TIME))),
        status=struct_of(
            "v1.NodeStatus", capacity=RESOURCES, allocatable=RESOURCES, phase=STR,
            conditions=list_of(struct_of("v1.NodeCondition", type=STR, status=STR, lastHeartbeatTime=TIME,
                                         lastTransitionTime=TIME, reason=STR, message=STR)),
            addresses=list_of(struct_of("v1.NodeAddress", type=STR, address=STR)))),
    printer=print_node)
"""The Node's declaration."""
