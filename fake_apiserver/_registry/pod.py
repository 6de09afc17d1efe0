"""Pods (``pkg/registry/core/pod``): the pod strategy, pod defaults and QoS class, and the pod
admission plugins the fake runs (DefaultTolerationSeconds, RuntimeClass overhead; Priority is
:mod:`~fake_apiserver._registry.priority`). The pod's validation is
:mod:`~fake_apiserver._registry.pod_validation`; its subresources are
:mod:`~fake_apiserver._registry.binding` and :mod:`~fake_apiserver._registry.resize`.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from collections.abc import Mapping
from typing import Any

import orjson

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.errors import FieldError, Forbidden
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._registry.dropdisabled import POD_RULES, drop_disabled_fields
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.pod_validation import validate_pod_create, validate_pod_status_update, validate_pod_update
from fake_apiserver._registry.priority import admit_pod

__all__ = ["PodStrategy", "RULES", "update_pod_condition", "SCHEDULING_GATED_MESSAGE", "admit_default_tolerations", "admit_pod_overhead", "default_pod", "keep_pod_level_resources", "qos_class"]

Obj = dict[str, Any]


SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


def _qos_sum(resources: Any, into: dict[str, Decimal]) -> set[str]:
    """Add the positive cpu and memory quantities of a resource list to ``into``; the names found."""
    found: set[str] = set()
    for name, raw in resources.items() if isinstance(resources, dict) else ():
        if name not in ("cpu", "memory"):
            continue
        try:
            amount = quantity.parse(raw)
        except ValueError:
            continue
        if amount > 0:
            found.add(name)
            into[name] = into.get(name, Decimal(0)) + amount
    return found


def qos_class(pod: Obj) -> str:
    """``qos.ComputePodQOS``: only cpu and memory count, and only positive quantities; pod-level
    ``spec.resources`` stand for the containers' when set. BestEffort with none; Guaranteed when
    every container (or the pod) limits both and the summed requests equal the summed limits;
    Burstable otherwise. Kept by what it reads (the pods of one template are classed once)."""
    spec = pod.get("spec") or {}
    if not isinstance(spec, dict):
        return _qos_class(spec)
    try:
        return _qos_of(orjson.dumps({key: spec.get(key) for key in ("resources", "containers", "initContainers")}))
    except TypeError:  # not JSON orjson writes (orjson.JSONEncodeError): classed as it is
        return _qos_class(spec)


@functools.lru_cache(maxsize=1024)
def _qos_of(read: bytes) -> str:
    return _qos_class(orjson.loads(read))


def _qos_class(spec: Any) -> str:
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    pod_level = spec.get("resources")
    if isinstance(pod_level, dict):
        _qos_sum(pod_level.get("requests"), requests)
        if pod_level.get("limits"):
            guaranteed = _qos_sum(pod_level.get("limits"), limits) == {"cpu", "memory"}
    else:
        for key in ("containers", "initContainers"):
            for c in spec.get(key) or []:
                res = (c.get("resources") if isinstance(c, dict) else None) or {}
                _qos_sum(res.get("requests"), requests)
                if _qos_sum(res.get("limits"), limits) != {"cpu", "memory"}:
                    guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(name) == amount for name, amount in requests.items()) \
            and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


_DEFAULT_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
)


def _default_container(c: Obj) -> None:
    image = str(c.get("image", ""))
    tag = image.rsplit("/", 1)[-1]
    latest = "@" not in image and (":" not in tag or tag.endswith(":latest"))
    c.setdefault("imagePullPolicy", "Always" if latest else "IfNotPresent")
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    for port in c.get("ports") or ():
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"
    res = c.setdefault("resources", {})
    limits = res.get("limits") or {}
    if limits:
        requests = res.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)


def default_pod(pod: Obj) -> None:
    """The pod defaults of ``pkg/apis/core/v1/defaults.go``, as far as schedulers and kubectl
    read them (admission's are :func:`admit_default_tolerations` and the Priority plugin's
    :func:`~fake_apiserver._registry.priority.admit_pod`)."""
    spec = pod.setdefault("spec", {})
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    # the v1 field serviceAccount is a deprecated alias that conversion keeps equal to serviceAccountName
    if spec.get("serviceAccountName") and not spec.get("serviceAccount"):
        spec["serviceAccount"] = spec["serviceAccountName"]
    elif spec.get("serviceAccount") and not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = spec["serviceAccount"]
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                _default_container(c)


def admit_default_tolerations(pod: Obj) -> None:
    """The DefaultTolerationSeconds admission plugin (on a pod's create and update): a pod that
    does not tolerate ``not-ready`` or ``unreachable`` for NoExecute gets 300 seconds of each."""
    spec = pod.setdefault("spec", {})
    tolerations = spec.setdefault("tolerations", [])
    if isinstance(tolerations, list):
        for default in _DEFAULT_TOLERATIONS:
            if not any(
                isinstance(t, dict) and t.get("key") == default["key"] and t.get("effect") in ("NoExecute", None, "")
                for t in tolerations
            ):
                tolerations.append(dict(default))


class PodStrategy(Strategy):
    """``pkg/registry/core/pod/strategy.go`` as far as schedulers look, with the Priority
    admission plugin on create. Every write drops the fields of gates that are off
    (``DropDisabledPodFields``, :mod:`~fake_apiserver._registry.dropdisabled`)."""

    status_keeps_meta = ("ownerReferences",)  # "old kubelets corrupt them" (podStatusStrategy)
    defaults_in = ("spec",)  # default_pod's

    def default(self, obj: Obj) -> None:
        default_pod(obj)

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        admit_default_tolerations(obj)
        admit_pod(obj, self.priority_classes())
        overhead = (sent.get("spec") or {}).get("overhead") if isinstance(sent.get("spec"), dict) else None
        if isinstance(overhead, dict) and isinstance(obj.get("spec"), dict):
            obj["spec"].setdefault("overhead", {})  # Go's non-nil empty map, which the RuntimeClass plugin sees

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        drop_disabled_fields(POD_RULES, obj, None, self.features)
        obj["metadata"]["generation"] = 1
        status: Obj = {"phase": "Pending", "qosClass": qos_class(obj)}
        if obj["spec"].get("schedulingGates"):
            status["conditions"] = [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": now,
                    "reason": "SchedulingGated",
                    "message": SCHEDULING_GATED_MESSAGE,
                }
            ]
        obj["status"] = status

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_pod_create(obj)

    def validate_admission(self, obj: Obj, old: Obj | None) -> None:
        if old is None:
            admit_pod_overhead(obj)
            if obj["spec"].get("overhead") == {}:  # admitted (a RuntimeClass named): encoded without it
                del obj["spec"]["overhead"]

    def grace_period(self, obj: Obj, requested: int | None) -> int | None:
        """The request's period, else ``spec.terminationGracePeriodSeconds``, else 0; 0 for a pod
        no node holds (unscheduled) or that has ended (``Succeeded``/``Failed``)
        (``podStrategy.CheckGracefulDelete``)."""
        period = requested if requested is not None else obj["spec"].get("terminationGracePeriodSeconds") or 0
        if not obj["spec"].get("nodeName") or (obj.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            period = 0
        return int(period)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        """Defaults and admission as on create, so that a PUT of the pod as the client first
        sent it changes nothing: the decoder defaults every body, DefaultTolerationSeconds admits
        updates too, and the Priority plugin keeps the stored ``priority`` and
        ``preemptionPolicy`` when the update leaves them out (``plugin/pkg/admission/priority``)."""
        spec = new.setdefault("spec", {})
        old_spec = old.get("spec") or {}
        for key in ("priority", "preemptionPolicy"):
            if spec.get(key) is None and key in old_spec:
                spec[key] = old_spec[key]
        keep_pod_level_resources(new, old, self.features)
        admit_default_tolerations(new)
        drop_disabled_fields(POD_RULES, new, old, self.features)
        super().prepare_for_update(new, old)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pod_update(old, new)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        drop_disabled_fields(POD_RULES, new, old, self.features)
        status = new.setdefault("status", {})
        if not status.get("qosClass"):
            status["qosClass"] = old.get("status", {}).get("qosClass", qos_class(old))
        for cond in status.get("conditions") or []:
            if isinstance(cond, dict):
                # Go encodes PodCondition's zero metav1.Time as null (omitempty cannot omit a
                # struct), so a condition stored without lastProbeTime (an SMP that sent null, as
                # the scheduler's does) reads back with "lastProbeTime": null. Nothing fills in
                # a lastTransitionTime the client did not send: kube-apiserver v1.36 stores a
                # condition written without one with "lastTransitionTime": null.
                cond.setdefault("lastProbeTime", None)
                cond.setdefault("lastTransitionTime", None)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_pod_status_update(old, new)


def keep_pod_level_resources(new: Obj, old: Obj, features: FeatureGates) -> None:
    """With ``PodLevelResourcesFixDefaulting`` (beta, on, in v1.37), an update that leaves
    ``spec.resources`` out keeps the stored pod-level resources ("requests from potentially
    PLR-unaware clients that completely dropped the field", ``podStrategy.PrepareForUpdate``)."""
    spec, old_spec = new.get("spec"), old.get("spec") or {}
    if features.enabled("PodLevelResourcesFixDefaulting") and isinstance(spec, dict) \
            and spec.get("resources") is None and old_spec.get("resources") is not None:
        spec["resources"] = json_copy(old_spec["resources"])


def admit_pod_overhead(pod: Mapping[str, Any]) -> None:
    """The validating half of the RuntimeClass admission plugin on a pod create: an ``overhead``
    needs a RuntimeClass that defines it. The fake serves no RuntimeClass, so a pod naming one is
    let through unchecked rather than refused as "not found". An empty ``overhead: {}`` counts as
    set, as Go's non-nil empty map does (the pod strategy keeps it until this has run)."""
    spec = get_in(pod, "spec") or {}
    if spec.get("overhead") is not None and not spec.get("runtimeClassName"):
        name = str(get_in(pod, "metadata", "name") or "")
        raise Forbidden(f'pods "{name}" is forbidden: pod rejected: '
                        "Pod Overhead set without corresponding RuntimeClass defined Overhead",
                        details={"name": name, "kind": "pods"})


RULES: dict[tuple[str, str], KindRules] = {
    ("", "Pod"): KindRules(
        returns_deleted_object=True,
        strategy=lambda spec, options: PodStrategy(
            spec, priority_classes=options.priority_classes, features=options.features)),
}


def update_pod_condition(status: Obj, condition: Obj, now: str) -> bool:
    """``podutil.UpdatePodCondition``: replace the element of that type; keep
    ``lastTransitionTime`` when the status is unchanged; return whether anything changed."""
    cond = {"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
            "lastTransitionTime": now}
    for key in ("reason", "message"):
        if condition.get(key):
            cond[key] = condition[key]
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == cond["type"]:
            if existing.get("status") == cond["status"] and existing.get("lastTransitionTime"):
                cond["lastTransitionTime"] = existing["lastTransitionTime"]
            changed = existing != cond
            conditions[i] = cond
            return changed
    conditions.append(cond)
    return True
