"""Validation rules of the kinds beyond pods that a malformed request reaches most often: Nodes,
Services, ReplicationControllers, StorageClasses, VolumeAttachments, ResourceSlice pools and
both shapes of Event.

Kept apart from :mod:`fake_apiserver._registry.validation` (which holds the pod rules and the table that
calls these) so each module stays readable. Paths, messages and bad values follow
``pkg/apis/core/validation``, ``pkg/apis/storage/validation`` and
``pkg/apis/resource/validation``; each one was checked against kube-apiserver v1.36 with the
request that provokes it (tests/test_kind_validation.py). The trade-off is coverage: only the
rules a write of a malformed field hits are carried over (CIDRs, taints, quantities, enum values,
required names, immutability), not every cross-field rule of each kind.
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any, Callable, Mapping

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.equality import semantic, semantic_omitzero, spec_diff
from fake_apiserver._machinery.errors import BadRequest, FieldError, Forbidden, GoJSON
from fake_apiserver._machinery.selectors import label_selector_from_dict
from fake_apiserver._registry.events import convert_event
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name

__all__ = [
    "CREATE_RULES", "UPDATE_RULES", "admit_pod_overhead", "condition_errors", "container_port_errors", "default_node",
    "default_stateful_set", "device_taint_rule_errors", "generate_name_checked_on_update", "labels_errors",
    "node_affinity_errors",
    "non_negative_errors", "persistent_volume_capacity_errors", "pod_resource_claim_errors",
    "resource_slice_node_errors", "resource_slice_pool_errors", "selector_template_errors", "template_mismatch",
]

Obj = Mapping[str, Any]
Rule = Callable[[Obj], list[FieldError]]
UpdateRule = Callable[[Obj, Obj], list[FieldError]]


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _each(path: str, value: Any, messages: list[str]) -> list[FieldError]:
    return [FieldError.invalid(path, value, m) for m in messages]


def _immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    if semantic_omitzero(new) != semantic_omitzero(old):
        return [FieldError.invalid(path, new, "field is immutable")]
    return []


# --- Node ---------------------------------------------------------------------------------------


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


def _pod_cidr_errors(spec: Obj) -> list[FieldError]:
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
        errors += _each(f"{path}.key", key, is_qualified_name(key))
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


def _node_errors(obj: Obj) -> list[FieldError]:
    spec = _get(obj, "spec") or {}
    status = _get(obj, "status") or {}
    errors = _taint_errors(spec.get("taints"))
    errors += _negative_quantities(status.get("capacity"), "status.capacity")
    errors += _negative_quantities(status.get("allocatable") or status.get("capacity"), "status.allocatable")
    return errors + _pod_cidr_errors(spec)


def _node_update_errors(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidateNodeUpdate``: pod CIDRs, once set, never change."""
    old_cidrs = _get(old, "spec", "podCIDRs") or []
    new_cidrs = _get(new, "spec", "podCIDRs") or []
    if old_cidrs and list(old_cidrs) != list(new_cidrs):
        return [FieldError.forbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid')]
    return []


# --- metav1.Condition lists ---------------------------------------------------------------------

_CONDITION_STATUSES = ["False", "True", "Unknown"]
_REASON = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")
_REASON_ERROR = ("a condition reason must start with alphabetic character, optionally followed by a string of "
                 "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. "
                 "'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used "
                 "for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')")


def condition_errors(conditions: Any, path: str) -> list[FieldError]:
    """``ValidateConditions`` of ``metav1.Condition`` lists (a budget's status, among others):
    each condition's type (a qualified name, once), status, observed generation, transition
    time, reason and message."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, condition in enumerate(conditions if isinstance(conditions, list) else []):
        condition = condition if isinstance(condition, Mapping) else {}
        at = f"{path}[{i}]"
        kind = str(condition.get("type") or "")
        if kind in seen:
            errors.append(FieldError.duplicate(f"{at}.type", kind))
        seen.add(kind)
        errors += _each(f"{at}.type", kind, is_qualified_name(kind))
        status = condition.get("status") or ""
        if status not in _CONDITION_STATUSES:
            errors.append(FieldError.not_supported(f"{at}.status", status, _CONDITION_STATUSES))
        generation = condition.get("observedGeneration") or 0
        if isinstance(generation, int) and generation < 0:
            errors.append(FieldError.invalid(f"{at}.observedGeneration", generation, "must be greater than or equal to zero"))
        if not condition.get("lastTransitionTime"):
            errors.append(FieldError.required(f"{at}.lastTransitionTime"))
        reason = str(condition.get("reason") or "")
        if not reason:
            errors.append(FieldError.required(f"{at}.reason"))
        else:
            if not _REASON.fullmatch(reason):
                errors.append(FieldError.invalid(f"{at}.reason", reason, _REASON_ERROR))
            if len(reason.encode()) > 1024:
                errors.append(FieldError("FieldValueTooLong", f"{at}.reason", "may not be more than 1024 bytes"))
        if len(str(condition.get("message") or "").encode()) > 32768:
            errors.append(FieldError("FieldValueTooLong", f"{at}.message", "may not be more than 32768 bytes"))
    return errors


# --- core workloads and services ----------------------------------------------------------------


def labels_errors(labels: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``ValidateLabels``: keys and values, reported at the map's path (no key subscript)."""
    errors: list[FieldError] = []
    for key, value in (labels or {}).items():
        errors += _each(path, key, is_qualified_name(key))
        errors += _each(path, value, is_label_value(str(value)))
    return errors


def template_mismatch(labels: Any) -> FieldError:
    return FieldError.invalid("spec.template.metadata.labels", labels or {}, "`selector` does not match template `labels`")


def selector_template_errors(obj: Obj, kind: str) -> list[FieldError]:
    """A workload's ``spec.selector`` (a LabelSelector) is not empty and selects its template's
    labels; ``kind`` names the workload in the empty-selector message."""
    spec = _get(obj, "spec") or {}
    selector = spec.get("selector")
    if not isinstance(selector, Mapping):
        return []
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return [FieldError.invalid("spec.selector", dict(selector), f"empty selector is invalid for {kind}")]
    labels = _get(spec, "template", "metadata", "labels") or {}
    try:
        matches = label_selector_from_dict(selector).matches(labels)
    except BadRequest:
        matches = True  # a selector that does not parse is reported by its own rule, not here
    return [] if matches else [template_mismatch(labels)]


def default_stateful_set(obj: dict[str, Any]) -> None:
    """``SetDefaults_StatefulSet`` (apps/v1) on the fields validation and the update rule read."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy") or {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        if isinstance(rolling, dict):
            rolling.setdefault("partition", 0)
    spec["updateStrategy"] = strategy
    spec.setdefault("revisionHistoryLimit", 10)
    retention = spec.get("persistentVolumeClaimRetentionPolicy") or {}
    for key in ("whenDeleted", "whenScaled"):
        if not retention.get(key):
            retention[key] = "Retain"
    spec["persistentVolumeClaimRetentionPolicy"] = retention


def _go_rolling(rolling: Any) -> Obj | None:
    """The internal ``apps.RollingUpdateStatefulSetStrategy`` as ``encoding/json`` writes it."""
    if not isinstance(rolling, Mapping):
        return None
    return {"Partition": rolling.get("partition", 0), "MaxUnavailable": rolling.get("maxUnavailable")}


def _go(value: Any) -> GoJSON:
    return GoJSON(json.dumps(value, separators=(",", ":")))


def _stateful_set_errors(obj: Obj) -> list[FieldError]:
    """``ValidateStatefulSetSpec``: the management policy and update strategy enums, counts,
    and the selector against the template (on the defaulted object)."""
    spec = _get(obj, "spec") or {}
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if policy not in (None, "OrderedReady", "Parallel"):
        errors.append(FieldError.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type")
    if kind == "OnDelete" and strategy.get("rollingUpdate") is not None:
        errors.append(FieldError.invalid("spec.updateStrategy.rollingUpdate", _go(_go_rolling(strategy["rollingUpdate"])),
                                         "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind not in (None, "OnDelete", "RollingUpdate"):
        go_strategy = {"Type": kind, "RollingUpdate": _go_rolling(strategy.get("rollingUpdate"))}
        errors.append(FieldError.invalid("spec.updateStrategy", _go(go_strategy), "must be 'RollingUpdate' or 'OnDelete'"))
    return (errors + non_negative_errors(obj, "replicas", "minReadySeconds")
            + selector_template_errors(obj, "statefulset"))


# The fields of a StatefulSet's spec an update may change (``ValidateStatefulSetUpdate``).
_STATEFUL_SET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                         "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


def _stateful_set_update_errors(new: Obj, old: Obj) -> list[FieldError]:
    def fixed(obj: Obj) -> Any:
        return semantic({k: v for k, v in (_get(obj, "spec") or {}).items() if k not in _STATEFUL_SET_MUTABLE})

    if fixed(new) == fixed(old):
        return []
    return [FieldError.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                         "'template', 'updateStrategy', 'revisionHistoryLimit', "
                                         "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")]


def _claim_update_errors(new: Obj, old: Obj) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimUpdate``'s spec rule: a claim's spec is fixed once created,
    but for the volume name set once, a class set where there was none (the retroactive default),
    a bound claim's storage request and its ``volumeAttributesClassName``. The message's diff is
    the fake's own (the real one is go-cmp's of the internal spec)."""
    old_spec = dict(_get(old, "spec") or {})
    new_spec = dict(_get(new, "spec") or {})
    if not old_spec.get("volumeName"):
        old_spec.pop("volumeName", None)
        new_spec.pop("volumeName", None)
    old_annotations = _get(old, "metadata", "annotations") or {}
    if old_spec.get("storageClassName") is None and new_spec.get("storageClassName") \
            and "volume.beta.kubernetes.io/storage-class" not in old_annotations:
        new_spec.pop("storageClassName")
    if _get(new, "status", "phase") == "Bound":
        for spec in (old_spec, new_spec):
            spec.pop("volumeAttributesClassName", None)
            requests = dict(_get(spec, "resources", "requests") or {})
            requests.pop("storage", None)
            spec["resources"] = {**(spec.get("resources") or {}), "requests": requests}
    if semantic(new_spec) == semantic(old_spec):
        return []
    return [FieldError.forbidden("spec", "spec is immutable after creation except resources.requests and "
                                         "volumeAttributesClassName for bound claims\n"
                                 + spec_diff(old_spec, new_spec, "core.PersistentVolumeClaimSpec"))]


def _service_selector_errors(obj: Obj) -> list[FieldError]:
    return labels_errors(_get(obj, "spec", "selector"), "spec.selector")



_SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]


def _service_type_errors(obj: Obj) -> list[FieldError]:
    kind = _get(obj, "spec", "type")
    if kind is None or kind == "":
        return []
    if kind not in _SERVICE_TYPES:
        return [FieldError.not_supported("spec.type", kind, _SERVICE_TYPES)]
    if kind == "ExternalName" and not _get(obj, "spec", "externalName"):
        return [FieldError.required("spec.externalName")]
    return []


def non_negative_errors(obj: Obj, *keys: str) -> list[FieldError]:
    """``ValidateNonnegativeField`` on each ``spec.<key>``, in the order given (each kind's
    validator checks ``replicas`` and ``minReadySeconds`` in its own order)."""
    errors: list[FieldError] = []
    for key in keys:
        value = _get(obj, "spec", key)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            errors.append(FieldError.invalid(f"spec.{key}", value, "must be greater than or equal to 0"))
    return errors


def _service_ports_errors(obj: Obj) -> list[FieldError]:
    """A Service needs ports unless it is headless (``clusterIP: None``) or an ExternalName."""
    spec = _get(obj, "spec") or {}
    if spec.get("ports") or spec.get("clusterIP") == "None" or spec.get("type") == "ExternalName":
        return []
    return [FieldError.required("spec.ports")]


def _service_cluster_ip_errors(obj: Obj) -> list[FieldError]:
    """A ``clusterIP`` the client sets is an IP address (or ``None``: headless)."""
    ip = _get(obj, "spec", "clusterIP")
    if not ip or ip == "None":
        return []
    try:
        ipaddress.ip_address(str(ip))
    except ValueError:
        return [FieldError.invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    return []


def _service_update_errors(new: Obj, old: Obj) -> list[FieldError]:
    """A Service keeps its cluster IP. The real server allocates one on create and the fake does
    not, so a valid IP set on update that is not the stored one is refused as the real server
    refuses a change of its allocated IP (an ExternalName or headless Service aside)."""
    ip, old_ip = _get(new, "spec", "clusterIP"), _get(old, "spec", "clusterIP")
    types = {_get(new, "spec", "type"), _get(old, "spec", "type")}
    if not ip or ip == old_ip or "None" in (ip, old_ip) or "ExternalName" in types or _service_cluster_ip_errors(new):
        return []
    return [FieldError.invalid("spec.clusterIPs[0]", GoJSON(json.dumps([ip])), "may not change once set")]


_PROTOCOLS = ["SCTP", "TCP", "UDP"]


def container_port_errors(ports: Any, path: str) -> list[FieldError]:
    """``validateContainerPorts``: a container port in range, a host port in range when set, a
    known protocol."""
    errors: list[FieldError] = []
    for i, port in enumerate(ports if isinstance(ports, list) else []):
        if not isinstance(port, Mapping):
            continue
        number = port.get("containerPort") or 0
        if number == 0:
            errors.append(FieldError.required(f"{path}[{i}].containerPort"))
        elif isinstance(number, int) and not 1 <= number <= 65535:
            errors.append(FieldError.invalid(f"{path}[{i}].containerPort", number, "must be between 1 and 65535, inclusive"))
        host = port.get("hostPort") or 0
        if isinstance(host, int) and host != 0 and not 1 <= host <= 65535:
            errors.append(FieldError.invalid(f"{path}[{i}].hostPort", host, "must be between 1 and 65535, inclusive"))
        protocol = port.get("protocol")
        if protocol is not None and protocol not in _PROTOCOLS:
            errors.append(FieldError.not_supported(f"{path}[{i}].protocol", protocol, _PROTOCOLS))
    return errors


# --- storage ------------------------------------------------------------------------------------


def _storage_class_errors(obj: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    provisioner = str(obj.get("provisioner") or "")
    if not provisioner:
        errors.append(FieldError.required("provisioner"))
    else:  # validated in lower case (ValidateStorageClass)
        errors += _each("provisioner", provisioner.lower(), is_qualified_name(provisioner.lower()))
    policy = obj.get("reclaimPolicy")
    if policy is not None and policy not in ("Delete", "Retain"):
        errors.append(FieldError.not_supported("reclaimPolicy", policy, ["Delete", "Retain"]))
    mode = obj.get("volumeBindingMode")
    if mode is not None and mode not in ("Immediate", "WaitForFirstConsumer"):
        errors.append(FieldError.not_supported("volumeBindingMode", mode, ["Immediate", "WaitForFirstConsumer"]))
    return errors


def _storage_class_update_errors(new: Obj, old: Obj) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"):
        errors += _immutable(new.get(key), old.get(key), key)
    return errors


_ONE_SOURCE = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"


def _volume_attachment_errors(obj: Obj) -> list[FieldError]:
    spec = _get(obj, "spec") or {}
    attacher = str(spec.get("attacher") or "")
    errors = ([FieldError.required("spec.attacher")] if not attacher
              else _each("spec.attacher", attacher, is_dns1123_subdomain(attacher)))
    node_name = str(spec.get("nodeName") or "")
    errors += _each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    source = spec.get("source") or {}
    inline, pv_name = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv_name is None:
        errors.append(FieldError.required("spec.source", _ONE_SOURCE))
    elif inline is not None and pv_name is not None:
        errors.append(FieldError.forbidden("spec.source", _ONE_SOURCE))
    elif pv_name is not None:
        if not pv_name:
            errors.append(FieldError.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
        else:
            errors += _each("spec.source.persistentVolumeName", pv_name, is_dns1123_subdomain(str(pv_name)))
    return errors


# --- resource.k8s.io ----------------------------------------------------------------------------


_DEVICE_TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"]


def device_taint_rule_errors(obj: Obj, old: Obj | None = None) -> list[FieldError]:
    """``validateDeviceTaintRuleSpec``: the selector's driver (``ValidateCSIDriverName``), pool
    (each ``/``-separated part a DNS-1123 subdomain) and device (a DNS-1123 label); the taint's
    key (a label name), value (a label value) and effect (None, NoSchedule or NoExecute), the
    effect checked only when it changes (stored objects may hold one a later release added)."""
    errors: list[FieldError] = []
    selector = _get(obj, "spec", "deviceSelector")
    if isinstance(selector, Mapping):
        path = "spec.deviceSelector"
        driver = selector.get("driver")
        if isinstance(driver, str):
            if not driver:
                errors.append(FieldError.required(f"{path}.driver"))
            else:
                if len(driver) > 63:
                    errors.append(FieldError("FieldValueTooLong", f"{path}.driver", "may not be more than 63 bytes"))
                errors += _each(f"{path}.driver", driver, is_dns1123_subdomain(driver.lower()))
        pool = selector.get("pool")
        if isinstance(pool, str):
            if not pool:
                errors.append(FieldError.required(f"{path}.pool"))
            for part in pool.split("/") if pool else ():
                errors += _each(f"{path}.pool", part, is_dns1123_subdomain(part))
        device = selector.get("device")
        if isinstance(device, str):
            errors += _each(f"{path}.device", device, is_dns1123_label(device))
    taint = _get(obj, "spec", "taint")
    taint = taint if isinstance(taint, Mapping) else {}
    key, value, effect = str(taint.get("key") or ""), str(taint.get("value") or ""), str(taint.get("effect") or "")
    errors += _each("spec.taint.key", key, is_qualified_name(key))
    if value:
        errors += _each("spec.taint.value", value, is_label_value(value))
    if old is None or effect != str(_get(old, "spec", "taint", "effect") or ""):
        if not effect:
            errors.append(FieldError.required("spec.taint.effect"))
        elif effect not in _DEVICE_TAINT_EFFECTS:
            errors.append(FieldError.not_supported("spec.taint.effect", effect, _DEVICE_TAINT_EFFECTS))
    return errors



def resource_slice_pool_errors(obj: Obj) -> list[FieldError]:
    """``validateResourcePool``: a name, a positive slice count, a generation not below zero."""
    pool = _get(obj, "spec", "pool") or {}
    errors: list[FieldError] = []
    if not pool.get("name"):
        errors.append(FieldError.required("spec.pool.name"))
    count = pool.get("resourceSliceCount") or 0
    if isinstance(count, int) and count <= 0:
        errors.append(FieldError.invalid("spec.pool.resourceSliceCount", count, "must be greater than zero"))
    generation = pool.get("generation") or 0
    if isinstance(generation, int) and generation < 0:
        errors.append(FieldError.invalid("spec.pool.generation", generation, "must be greater than or equal to zero"))
    return errors


_NODE_SELECTION = ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
_ONE_NODE_SELECTION = "exactly one of " + ", ".join(f"`{f}`" for f in _NODE_SELECTION) + " is required"


def resource_slice_node_errors(obj: Obj) -> list[FieldError]:
    """A ResourceSlice names its nodes one way: ``nodeName``, ``nodeSelector``, ``allNodes`` or
    ``perDeviceNodeSelection`` (the two booleans only ever ``true``)."""
    spec = _get(obj, "spec") or {}
    errors: list[FieldError] = []
    for key in ("allNodes", "perDeviceNodeSelection"):
        if spec.get(key) is False:
            errors.append(FieldError.invalid(f"spec.{key}", False, "must be either unset or set to true"))
    chosen = [f for f in _NODE_SELECTION if spec.get(f) not in (None, "", False)]
    if not chosen:
        errors.append(FieldError.required("spec", _ONE_NODE_SELECTION))
    elif len(chosen) > 1:
        shown = "{" + ", ".join(f"`{f}`" for f in chosen) + "}"
        errors.append(FieldError.invalid("spec", shown, _ONE_NODE_SELECTION + ", but multiple fields are set"))
    return errors


# --- pods ---------------------------------------------------------------------------------------


def pod_resource_claim_errors(claims: Any) -> list[FieldError]:
    """``validatePodResourceClaim``: each claim names exactly one source; the bad value is the
    internal ``PodResourceClaim`` as Go's json.Marshal writes it."""
    errors: list[FieldError] = []
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        if not isinstance(claim, Mapping):
            continue
        name, template = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        shown = GoJSON(json.dumps({"Name": claim.get("name") or "", "ResourceClaimName": name,
                                   "ResourceClaimTemplateName": template}, separators=(",", ":")))
        if name is None and template is None:
            errors.append(FieldError.invalid(f"spec.resourceClaims[{i}]", shown,
                                             "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        elif name is not None and template is not None:
            errors.append(FieldError.invalid(f"spec.resourceClaims[{i}]", shown,
                                             "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
    return errors


def node_affinity_errors(spec: Obj) -> list[FieldError]:
    """A required node affinity needs at least one term."""
    required = _get(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, Mapping) and not required.get("nodeSelectorTerms"):
        return [FieldError.required("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                                    ".nodeSelectorTerms", "must have at least one node selector term")]
    return []


def persistent_volume_capacity_errors(obj: Obj) -> list[FieldError]:
    """``spec.capacity`` holds ``storage`` and nothing else."""
    capacity = _get(obj, "spec", "capacity")
    errors = [] if capacity else [FieldError.required("spec.capacity")]
    if not isinstance(capacity, Mapping) or "storage" not in capacity or len(capacity) > 1:
        errors.append(FieldError.not_supported("spec.capacity", capacity, ["storage"]))
    return errors


# --- Events -------------------------------------------------------------------------------------


def _event_errors(event: Obj, *, strict: bool) -> list[FieldError]:
    """``ValidateEventCreate`` on an Event in core v1 shape: ``legacyValidateEvent`` always, the
    strict rules for a write through events.k8s.io/v1 (``strict``)."""
    namespace = _get(event, "metadata", "namespace") or ""
    involved = str(_get(event, "involvedObject", "namespace") or "")
    errors: list[FieldError] = []
    mismatch = FieldError.invalid("involvedObject.namespace", involved, "does not match event.namespace")
    if not event.get("eventTime"):
        if (not involved and namespace not in ("", "default")) or (involved and involved != namespace):
            errors.append(mismatch)
    else:
        if not involved and namespace not in ("default", "kube-system"):
            errors.append(mismatch)
        controller_field = "reportingController" if strict else "reportingComponent"
        controller = str(event.get("reportingComponent") or "")
        if not controller:
            errors.append(FieldError.required(controller_field))
        errors += _each(controller_field, controller, is_qualified_name(controller))
        for key, limit in (("reportingInstance", 128), ("action", 128), ("reason", 128)):
            value = str(event.get(key) or "")
            if not value:
                errors.append(FieldError.required(key))
            elif len(value) > limit:
                errors.append(FieldError.invalid(key, "", f"can have at most {limit} characters"))
        if len(str(event.get("message") or "")) > 1024:
            errors.append(FieldError.invalid("message", "", "can have at most 1024 characters"))
    if not strict:
        return errors
    if not event.get("eventTime"):
        errors.append(FieldError.required("eventTime"))
    kind = str(event.get("type") or "")
    if kind not in ("Normal", "Warning"):
        errors.append(FieldError.invalid("type", "", f"has invalid value: {kind}"))
    return errors


def _core_event_errors(obj: Obj) -> list[FieldError]:
    return _event_errors(obj, strict=False)


def _events_v1_errors(obj: Obj) -> list[FieldError]:
    return _event_errors(convert_event(dict(obj), ""), strict=True)


CREATE_RULES: dict[tuple[str, str], Rule] = {
    ("", "Node"): _node_errors,
    ("", "ReplicationController"): lambda obj: non_negative_errors(obj, "minReadySeconds", "replicas"),
    ("apps", "StatefulSet"): _stateful_set_errors,
    ("", "Service"): lambda obj: (_service_ports_errors(obj) + _service_selector_errors(obj)
                                  + _service_type_errors(obj) + _service_cluster_ip_errors(obj)),
    ("", "Event"): _core_event_errors,
    ("events.k8s.io", "Event"): _events_v1_errors,
    ("storage.k8s.io", "StorageClass"): _storage_class_errors,
    ("storage.k8s.io", "VolumeAttachment"): _volume_attachment_errors,
}

UPDATE_RULES: dict[tuple[str, str], UpdateRule] = {
    ("", "Node"): _node_update_errors,
    ("", "Service"): _service_update_errors,
    ("apps", "StatefulSet"): _stateful_set_update_errors,
    ("", "PersistentVolumeClaim"): _claim_update_errors,
    ("storage.k8s.io", "StorageClass"): _storage_class_update_errors,
}

# The kinds whose update validation runs the whole ``ValidateObjectMeta`` again, so a bad
# ``generateName`` sent on update is refused (Services, Leases and PriorityClasses take it).
_GENERATE_NAME_ON_UPDATE = frozenset({
    ("", "ConfigMap"), ("", "Node"), ("", "Namespace"), ("", "PersistentVolume"), ("", "PersistentVolumeClaim"),
    ("", "Pod"), ("storage.k8s.io", "StorageClass"), ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "CSINode"), ("storage.k8s.io", "CSIStorageCapacity"),
    ("resource.k8s.io", "ResourceClaim"), ("resource.k8s.io", "ResourceClaimTemplate"),
})


def generate_name_checked_on_update(group: str, kind: str) -> bool:
    return (group, kind) in _GENERATE_NAME_ON_UPDATE


# --- admission ----------------------------------------------------------------------------------


def admit_pod_overhead(pod: Obj) -> None:
    """The validating half of the RuntimeClass admission plugin on a pod create: an ``overhead``
    needs a RuntimeClass that defines it. The fake serves no RuntimeClass, so a pod naming one is
    let through unchecked rather than refused as "not found". An empty ``overhead: {}`` counts as
    set, as Go's non-nil empty map does (the pod strategy keeps it until this has run)."""
    spec = _get(pod, "spec") or {}
    if spec.get("overhead") is not None and not spec.get("runtimeClassName"):
        name = str(_get(pod, "metadata", "name") or "")
        raise Forbidden(f'pods "{name}" is forbidden: pod rejected: '
                        "Pod Overhead set without corresponding RuntimeClass defined Overhead",
                        details={"name": name, "kind": "pods"})
