"""Per-kind create and update rules: the fake's version of the registry strategies.

A real API server runs, for every write, the kind's ``PrepareForCreate``/``PrepareForUpdate``
(reset what the client may not set, bump ``generation``), defaulting, validation and admission.
:class:`Strategy` holds the generic rules; :class:`PodStrategy` and :class:`NodeStrategy` add the
ones schedulers depend on. Functions here receive a fresh copy they may mutate; the store never
passes a stored object.

What is faithful (with the source of each rule in ``k8s-semantics.md``): pod status reset and the
``SchedulingGated`` condition on create (A.3), ``generation`` 1 on create and +1 on a spec change
(E.1), status subresource writes that ignore spec and main-resource writes that ignore status
(E.1), the TaintNodesByCondition taint on new nodes. Pod defaulting covers the fields schedulers
and kubectl read (``schedulerName``, ``priority``, ``restartPolicy``, ``dnsPolicy``, grace period,
container pull policy, DefaultTolerationSeconds tolerations, ``qosClass``); service-account token
volumes and other admission plugins are not emulated.
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._jsonutil import json_copy
from fake_apiserver._errors import FieldError
from fake_apiserver._kinds import KindSpec
from fake_apiserver import _validation as validation

__all__ = ["NodeStrategy", "PodStrategy", "Strategy", "strategy_for"]

Obj = dict[str, Any]

SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


class Strategy:
    """Generic rules: status reset on create where the kind has a status subresource."""

    reset_status_on_create = True
    generation = True

    def __init__(self, spec: KindSpec) -> None:
        self.spec = spec

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        if self.spec.has_status and self.reset_status_on_create:
            obj.pop("status", None)
        if self.generation and "spec" in obj:
            obj["metadata"]["generation"] = 1

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return []

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        if self.spec.has_status:
            _copy_key(old, new, "status")
        if self.generation and "generation" in old["metadata"]:
            new["metadata"]["generation"] = old["metadata"]["generation"] + (
                1 if new.get("spec") != old.get("spec") else 0
            )

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return []

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        """Only ``status`` (and labels/annotations) change through ``/status``."""
        for key in list(new):
            if key not in ("status", "metadata", "kind", "apiVersion"):
                new.pop(key)
        for key, value in old.items():
            if key not in ("status", "metadata", "kind", "apiVersion"):
                new[key] = json_copy(value)
        meta = new["metadata"]
        for key in ("deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences", "finalizers"):
            _copy_key(old["metadata"], meta, key)
        if "generation" in old["metadata"]:
            meta["generation"] = old["metadata"]["generation"]

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return []


def _copy_key(src: Obj, dst: Obj, key: str) -> None:
    if key in src:
        dst[key] = json_copy(src[key])
    else:
        dst.pop(key, None)


class NodeStrategy(Strategy):
    """Nodes keep the status they are created with (kubelets register that way) and get the
    ``node.kubernetes.io/not-ready:NoSchedule`` taint unless the server was told otherwise."""

    reset_status_on_create = False
    generation = False

    def __init__(self, spec: KindSpec, *, taint_not_ready: bool) -> None:
        super().__init__(spec)
        self.taint_not_ready = taint_not_ready

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        admitted = validation.admit_node_create(obj, taint_not_ready=self.taint_not_ready)
        obj.clear()
        obj.update(admitted)


def _has_resource_fields(container: Obj) -> tuple[bool, bool]:
    res = container.get("resources") or {}
    return bool(res.get("requests")), bool(res.get("limits"))


def qos_class(pod: Obj) -> str:
    """``qos.GetPodQOS``: BestEffort with no requests or limits, Guaranteed when every container
    has equal cpu and memory requests and limits, Burstable otherwise."""
    containers = list(pod.get("spec", {}).get("containers") or []) + list(
        pod.get("spec", {}).get("initContainers") or []
    )
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        requests = res.get("requests") or {}
        limits = res.get("limits") or {}
        if requests or limits:
            any_set = True
        for name in ("cpu", "memory"):
            if name not in limits or str(requests.get(name, limits.get(name))) != str(limits[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


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
    res = c.setdefault("resources", {})
    limits = res.get("limits") or {}
    if limits:
        requests = res.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)


def default_pod(pod: Obj) -> None:
    """The pod defaults of ``pkg/apis/core/v1/defaults.go`` plus the Priority and
    DefaultTolerationSeconds admission plugins, as far as schedulers and kubectl read them."""
    spec = pod.setdefault("spec", {})
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("priority", 0)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or []:
            if isinstance(c, dict):
                _default_container(c)
    tolerations = spec.setdefault("tolerations", [])
    if isinstance(tolerations, list):
        for default in _DEFAULT_TOLERATIONS:
            if not any(
                isinstance(t, dict) and t.get("key") == default["key"] and t.get("effect") in ("NoExecute", None, "")
                for t in tolerations
            ):
                tolerations.append(dict(default))


class PodStrategy(Strategy):
    """``pkg/registry/core/pod/strategy.go`` as far as schedulers look."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        default_pod(obj)
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
        return validation.validate_pod_create(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        spec = new.get("spec")
        if isinstance(spec, dict):
            for c in spec.get("containers") or []:
                if isinstance(c, dict):
                    _default_container(c)
        super().prepare_for_update(new, old)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validation.validate_pod_update(old, new)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        status = new.setdefault("status", {})
        if not status.get("qosClass"):
            status["qosClass"] = old.get("status", {}).get("qosClass", qos_class(old))
        _keep_transition_times(status, old.get("status", {}), now)
        for cond in status.get("conditions") or []:
            if isinstance(cond, dict):
                # Go encodes PodCondition's zero metav1.Time as null (omitempty cannot omit a
                # struct), so a condition stored without lastProbeTime (an SMP that sent null, as
                # the scheduler's does) reads back with "lastProbeTime": null.
                cond.setdefault("lastProbeTime", None)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validation.validate_pod_status_update(old, new)


def _keep_transition_times(status: Obj, old_status: Obj, now: str) -> None:
    """Fill a missing ``lastTransitionTime``: the old one if the condition's status is unchanged,
    now otherwise. Clients normally send it (the scheduler does); this keeps hand-written
    patches from storing conditions without one."""
    old_by_type = {c.get("type"): c for c in old_status.get("conditions") or [] if isinstance(c, dict)}
    for cond in status.get("conditions") or []:
        if not isinstance(cond, dict) or cond.get("lastTransitionTime"):
            continue
        prev = old_by_type.get(cond.get("type"))
        if prev is not None and prev.get("status") == cond.get("status") and prev.get("lastTransitionTime"):
            cond["lastTransitionTime"] = prev["lastTransitionTime"]
        else:
            cond["lastTransitionTime"] = now


class NamespaceStrategy(Strategy):
    generation = False

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Active"}
        spec = obj.setdefault("spec", {})
        spec.setdefault("finalizers", ["kubernetes"])


def strategy_for(spec: KindSpec, *, taint_not_ready: bool) -> Strategy:
    if spec.group == "" and spec.resource == "pods":
        return PodStrategy(spec)
    if spec.group == "" and spec.resource == "nodes":
        return NodeStrategy(spec, taint_not_ready=taint_not_ready)
    if spec.group == "" and spec.resource == "namespaces":
        return NamespaceStrategy(spec)
    return Strategy(spec)
