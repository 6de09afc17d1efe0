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
and kubectl read (``schedulerName``, ``restartPolicy``, ``dnsPolicy``, grace period, container pull
policy, DefaultTolerationSeconds tolerations, ``qosClass``); ``priority`` and ``preemptionPolicy``
come from the Priority admission plugin (:mod:`~fake_apiserver._registry.priority`); service-account token
volumes and other admission plugins are not emulated. Defaults are applied on update too (the
decoder defaults every body), so re-sending a pod as first written is a no-op; ``generation``
compares specs as ``apiequality.Semantic.DeepEqual`` does (an empty list equals a missing one).

A body is first checked against the JSON shapes of the fields the fake reads
(:mod:`~fake_apiserver._machinery.shapes`), so that a body of the wrong shape gets the decoder's
400, never a 500.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Callable, Mapping

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._registry.dropdisabled import NODE_RULES, POD_RULES, drop_disabled_fields
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.gotypes import kind_node, semantic_of
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.shapes import check_shape, shape_for
from fake_apiserver._registry import claim_validation
from fake_apiserver._registry import disruption
from fake_apiserver._registry import priority
from fake_apiserver._machinery import quantity
from fake_apiserver._registry import validation
from fake_apiserver._registry.kind_validation import (
    admit_pod_overhead,
    condition_errors,
    default_node,
    default_stateful_set,
    device_taint_rule_errors,
)

__all__ = [
    "NodeStrategy", "PodDisruptionBudgetStrategy", "PodStrategy", "PriorityClassStrategy",
    "Strategy", "strategy_for",
]

Obj = dict[str, Any]
PriorityClasses = Callable[[], Mapping[str, Obj]]
StorageClasses = Callable[[], Mapping[str, Obj]]  # the stored StorageClasses by name
"""The stored PriorityClasses by name, as the Priority admission plugin's lister sees them."""

SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


# Kinds with a spec whose registry strategy sets no metadata.generation (compared field by field
# with objects created on kube-apiserver v1.36): only the kinds whose controllers track
# observedGeneration, and a few others, have one.
_NO_GENERATION = frozenset({
    ("", "services"), ("", "persistentvolumes"), ("", "persistentvolumeclaims"),
    ("storage.k8s.io", "csinodes"), ("storage.k8s.io", "csidrivers"), ("storage.k8s.io", "volumeattachments"),
    ("coordination.k8s.io", "leases"), ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceclaimtemplates"),
})


# Kinds whose status strategy calls ``metav1.ResetObjectMetaForStatus`` (checked against
# kube-apiserver v1.36, DeviceTaintRules against v1.37: a merge patch of labels, annotations,
# finalizers and owner references through /status changes none of them on these, all four on the
# other served kinds).
_STATUS_RESETS_META = frozenset({("storage.k8s.io", "volumeattachments"), ("resource.k8s.io", "resourceclaims"),
                                 ("resource.k8s.io", "devicetaintrules")})


def _no_classes() -> Mapping[str, Obj]:
    return {}


def _no_time() -> str:
    raise RuntimeError("this strategy stamps times: give strategy_for a clock (now=...)")


class Strategy:
    """Generic rules: status reset on create where the kind has a status subresource.

    Besides the registry strategy's steps, a kind's admission plugins hook in where the real
    server runs them: :meth:`admit_create` (mutating admission, before anything else of a create),
    :meth:`validate_admission` (validating admission, after validation, before the storage
    write) and :meth:`check_delete` (a registry that refuses some deletes)."""

    reset_status_on_create = True
    generation = True
    #: metadata a ``/status`` write cannot change (besides the deletion fields and generation)
    status_keeps_meta: tuple[str, ...] = ()

    def __init__(self, spec: KindSpec, *, priority_classes: PriorityClasses = _no_classes,
                 features: FeatureGates | None = None) -> None:
        self.spec = spec
        self.priority_classes = priority_classes
        #: the API server's feature gates (fields of a gate that is off are dropped on write)
        self.features = features if features is not None else FeatureGates()
        if (spec.group, spec.resource) in _NO_GENERATION:
            self.generation = False
        if (spec.group, spec.resource) in _STATUS_RESETS_META:
            self.status_keeps_meta = ("labels", "annotations", "finalizers", "ownerReferences")

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        """Mutating admission of a create, on the body as decoded (before names are generated);
        ``sent`` is the body as the client sent it, where a plugin tells a nil field from an empty
        one (the decoded JSON drops both)."""

    def validate_admission(self, obj: Obj, old: Obj | None) -> None:
        """Validating admission of a create (``old`` None) or an update of the main resource."""

    def check_delete(self, name: str) -> None:
        """Refuse the delete of one object by name, before it is looked up."""

    def grace_period(self, obj: Obj, requested: int | None) -> int | None:
        """``RESTGracefulDeleteStrategy.CheckGracefulDelete``: the grace period a first delete of
        ``obj`` gets (``requested``: the request's ``gracePeriodSeconds``), or ``None`` for a
        kind that is not deleted gracefully (every kind but pods)."""
        return None

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        if self.spec.has_status and self.reset_status_on_create:
            obj.pop("status", None)
        if self.generation and "spec" in obj:
            obj["metadata"]["generation"] = 1

    def check_shape(self, obj: Obj) -> None:
        """Refuse a body whose fields have the wrong JSON types (see :func:`check_shape`)."""
        check_shape(self.spec.kind, self.spec.version, obj, shape_for(self.spec.group, self.spec.kind))

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validation.validate_kind_rules(self.spec, obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        if self.spec.has_status:
            _copy_key(old, new, "status")
        if self.generation and "generation" in old["metadata"]:
            new["metadata"]["generation"] = old["metadata"]["generation"] + (
                0 if semantic(new.get("spec")) == semantic(old.get("spec")) else 1
            )

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validation.validate_kind_update_rules(self.spec, new, old)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        """Through ``/status`` the spec (every top-level field but ``status`` and ``metadata``)
        stays as it was, and so do the deletion fields and the generation; labels, annotations,
        finalizers and owner references change with the write (kube-apiserver v1.36), except on
        the kinds whose status strategy calls ``ResetObjectMetaForStatus``
        (:attr:`status_keeps_meta`) and the owner references of a pod."""
        for key in list(new):
            if key not in ("status", "metadata", "kind", "apiVersion"):
                new.pop(key)
        for key, value in old.items():
            if key not in ("status", "metadata", "kind", "apiVersion"):
                new[key] = json_copy(value)
        meta = new["metadata"]
        kept = ("deletionTimestamp", "deletionGracePeriodSeconds", *self.status_keeps_meta)
        for key in kept:
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
    ``node.kubernetes.io/not-ready:NoSchedule`` taint unless the server was told otherwise.
    Create and update drop the fields of gates that are off (``dropDisabledFields``); a
    ``/status`` write does not (``nodeStatusStrategy`` does not call it)."""

    reset_status_on_create = False
    generation = False

    def __init__(self, spec: KindSpec, *, taint_not_ready: bool, features: FeatureGates | None = None) -> None:
        super().__init__(spec, features=features)
        self.taint_not_ready = taint_not_ready

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        default_node(obj)
        drop_disabled_fields(NODE_RULES, obj, None, self.features)
        admitted = validation.admit_node_create(obj, taint_not_ready=self.taint_not_ready)
        obj.clear()
        obj.update(admitted)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        default_node(new)
        super().prepare_for_update(new, old)
        drop_disabled_fields(NODE_RULES, new, old, self.features)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        default_node(new)
        super().prepare_for_status_update(new, old, now)

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validation.validate_kind_rules(self.spec, obj) + validation.validate_node_pod_preemption_policy(
            obj, None, gate=self._preemption_gate)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return (validation.validate_kind_update_rules(self.spec, new, old)
                + validation.validate_node_pod_preemption_policy(new, old, gate=self._preemption_gate))

    @property
    def _preemption_gate(self) -> bool:
        return self.features.enabled("InPlacePodVerticalScalingSchedulerPreemption")

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validation.validate_kind_update_rules(self.spec, new, old)


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
    Burstable otherwise."""
    spec = pod.get("spec") or {}
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
    res = c.setdefault("resources", {})
    limits = res.get("limits") or {}
    if limits:
        requests = res.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)


def default_pod(pod: Obj) -> None:
    """The pod defaults of ``pkg/apis/core/v1/defaults.go`` plus the DefaultTolerationSeconds
    admission plugin, as far as schedulers and kubectl read them (the Priority plugin is
    :func:`~fake_apiserver._registry.priority.admit_pod`)."""
    spec = pod.setdefault("spec", {})
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
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
    """``pkg/registry/core/pod/strategy.go`` as far as schedulers look, with the Priority
    admission plugin on create. Every write drops the fields of gates that are off
    (``DropDisabledPodFields``, :mod:`~fake_apiserver._registry.dropdisabled`)."""

    status_keeps_meta = ("ownerReferences",)  # "old kubelets corrupt them" (podStatusStrategy)

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        priority.admit_pod(obj, self.priority_classes())
        overhead = (sent.get("spec") or {}).get("overhead") if isinstance(sent.get("spec"), dict) else None
        if isinstance(overhead, dict) and isinstance(obj.get("spec"), dict):
            obj["spec"].setdefault("overhead", {})  # Go's non-nil empty map, which the RuntimeClass plugin sees

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        default_pod(obj)
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
        return validation.validate_pod_create(obj)

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
        default_pod(new)
        drop_disabled_fields(POD_RULES, new, old, self.features)
        super().prepare_for_update(new, old)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validation.validate_pod_update(old, new)

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
        return validation.validate_pod_status_update(old, new)


def keep_pod_level_resources(new: Obj, old: Obj, features: FeatureGates) -> None:
    """With ``PodLevelResourcesFixDefaulting`` (beta, on, in v1.37), an update that leaves
    ``spec.resources`` out keeps the stored pod-level resources ("requests from potentially
    PLR-unaware clients that completely dropped the field", ``podStrategy.PrepareForUpdate``)."""
    spec, old_spec = new.get("spec"), old.get("spec") or {}
    if features.enabled("PodLevelResourcesFixDefaulting") and isinstance(spec, dict) \
            and spec.get("resources") is None and old_spec.get("resources") is not None:
        spec["resources"] = json_copy(old_spec["resources"])


class NamespaceStrategy(Strategy):
    generation = False

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Active"}
        spec = obj.setdefault("spec", {})
        spec.setdefault("finalizers", ["kubernetes"])


def default_device_requests(claim_spec: Any) -> None:
    """``SetDefaults_ExactDeviceRequest`` and ``SetDefaults_DeviceSubRequest`` of
    ``pkg/apis/resource/v1/defaults.go``: ``allocationMode`` ExactCount, and ``count`` 1 with it."""
    if not isinstance(claim_spec, dict):
        return
    devices = claim_spec.get("devices")
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for request in requests if isinstance(requests, list) else []:
        if not isinstance(request, dict):
            continue
        subs = [request.get("exactly")] + list(request.get("firstAvailable") or [])
        for sub in subs:
            if isinstance(sub, dict):
                sub.setdefault("allocationMode", "ExactCount")
                if sub["allocationMode"] == "ExactCount" and not sub.get("count"):
                    sub["count"] = 1


class ResourceClaimStrategy(Strategy):
    """Claims and claim templates get the API's defaults on every write, as decoding applies them."""

    def _spec_of(self, obj: Obj) -> Any:
        spec = obj.get("spec")
        return spec.get("spec") if self.spec.kind == "ResourceClaimTemplate" and isinstance(spec, dict) else spec

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        default_device_requests(self._spec_of(obj))
        # the real server encodes the empty structs: a claim's status, a template's claim metadata
        if self.spec.kind == "ResourceClaim":
            obj.setdefault("status", {})
        elif isinstance(obj.get("spec"), dict):
            obj["spec"].setdefault("metadata", {})

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        default_device_requests(self._spec_of(new))
        super().prepare_for_update(new, old)

    def _path(self) -> str:
        return "spec.spec" if self.spec.kind == "ResourceClaimTemplate" else "spec"

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return claim_validation.validate_claim_spec(self._spec_of(obj), self._path())

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        errors = []
        if self.spec.kind == "ResourceClaim":
            errors += claim_validation.validate_claim_update(new.get("spec"), old.get("spec"), semantic)
        return errors + claim_validation.validate_claim_spec(self._spec_of(new), self._path())


class DeviceTaintRuleStrategy(Strategy):
    """``pkg/registry/resource/devicetaintrule``: the status cleared on create (encoded as the
    empty struct it is) and kept on update; the taint's ``timeAdded`` defaulted to the time of the
    write (``SetDefaults_DeviceTaint``, in seconds: a PUT that leaves it out sets it anew), and set
    to it when an update changes the effect but not the time (``PrepareForUpdate``). Generation,
    the resourceVersion an update must carry and the ``/status`` metadata reset are generic
    (:data:`_STATUS_RESETS_META`, the store's ``_REQUIRES_RESOURCE_VERSION``)."""

    def __init__(self, spec: KindSpec, *, now: Callable[[], str]) -> None:
        super().__init__(spec)
        self.now = now

    @staticmethod
    def _taint(obj: Obj) -> Obj | None:
        spec = obj.get("spec")
        taint = spec.get("taint") if isinstance(spec, dict) else None
        return taint if isinstance(taint, dict) else None

    def _default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if isinstance(spec, dict):  # the taint is a struct, not a pointer: always there to default
            taint = spec.setdefault("taint", {})
            if isinstance(taint, dict) and taint.get("timeAdded") is None:
                taint["timeAdded"] = self.now()

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        self._default(obj)
        super().prepare_for_create(obj, now)
        obj["status"] = {}

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        self._default(new)
        super().prepare_for_update(new, old)
        if "generation" in old["metadata"]:  # on the Go types: a selector set to {} is not a nil one
            node = kind_node(self.spec.group, self.spec.version, self.spec.kind).fields["spec"].node
            changed = semantic_of(new.get("spec"), node) != semantic_of(old.get("spec"), node)
            new["metadata"]["generation"] = old["metadata"]["generation"] + int(changed)
        taint, old_taint = self._taint(new), self._taint(old) or {}
        if taint is not None and taint.get("effect") != old_taint.get("effect") \
                and taint.get("timeAdded") == old_taint.get("timeAdded"):
            taint["timeAdded"] = self.now()  # the generation is bumped already: the effect changed

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return device_taint_rule_errors(obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return device_taint_rule_errors(new, old)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        """``ValidateDeviceTaintRuleStatusUpdate``: ``ValidateConditions`` and at most 8."""
        conditions = (new.get("status") or {}).get("conditions")
        errors = condition_errors(conditions, "status.conditions")
        if isinstance(conditions, list) and len(conditions) > _DEVICE_TAINT_RULE_MAX_CONDITIONS:
            errors.append(FieldError("FieldValueTooMany", "status.conditions",
                                     f"must have at most {_DEVICE_TAINT_RULE_MAX_CONDITIONS} items", len(conditions)))
        return errors


_DEVICE_TAINT_RULE_MAX_CONDITIONS = 8  # resource.DeviceTaintRuleStatusMaxConditions


class PriorityClassStrategy(Strategy):
    """``pkg/registry/scheduling/priorityclass``: v1 defaults on every write, ``generation`` 1 on
    create and never bumped, the Priority plugin's one-global-default rule, no deleting the
    system classes (rules and sources in :mod:`~fake_apiserver._registry.priority`)."""

    generation = False

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        priority.default_priority_class(obj)
        obj["metadata"]["generation"] = 1

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return priority.validate_priority_class(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        priority.default_priority_class(new)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return priority.validate_priority_class_update(new, old)

    def validate_admission(self, obj: Obj, old: Obj | None) -> None:
        priority.validate_priority_class_admission(obj, self.priority_classes().values(), update=old is not None)

    def check_delete(self, name: str) -> None:
        priority.check_delete(name)


class PodDisruptionBudgetStrategy(Strategy):
    """``pkg/registry/policy/poddisruptionbudget``: the zero status on create, the spec's
    validation (:mod:`fake_apiserver._registry.disruption`)."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = dict(disruption.ZERO_STATUS)

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return disruption.validate_pdb_spec(obj) + validation.validate_kind_rules(self.spec, obj)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return disruption.validate_pdb_spec(new) + validation.validate_kind_rules(self.spec, new)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return disruption.validate_pdb_status(new)


class StorageClassStrategy(Strategy):
    """``SetDefaults_StorageClass`` on every write: ``reclaimPolicy: Delete`` and
    ``volumeBindingMode: Immediate`` when absent (so that leaving them out of an update does not
    read as changing the immutable fields)."""

    @staticmethod
    def _default(obj: Obj) -> None:
        if obj.get("reclaimPolicy") is None:
            obj["reclaimPolicy"] = "Delete"
        if obj.get("volumeBindingMode") is None:
            obj["volumeBindingMode"] = "Immediate"

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        self._default(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        self._default(new)


class StatefulSetStrategy(Strategy):
    """``SetDefaults_StatefulSet`` on every write, so validation and the update rule compare
    defaulted specs, as the real server's do."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        default_stateful_set(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        default_stateful_set(new)
        super().prepare_for_update(new, old)


_DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                              "storageclass.beta.kubernetes.io/is-default-class")


def _default_storage_class(claim: Obj, classes: Mapping[str, Obj]) -> None:
    """The DefaultStorageClass admission plugin: a claim that names no class (no
    ``spec.storageClassName``, not even ``""``, and no ``volume.beta.kubernetes.io/storage-class``
    annotation) gets the default StorageClass, the newest of those annotated default (by name
    when created in the same second)."""
    spec = claim.get("spec")
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    if not isinstance(spec, dict) or spec.get("storageClassName") is not None \
            or "volume.beta.kubernetes.io/storage-class" in annotations:
        return
    defaults = [c for c in classes.values()
                if any(((c.get("metadata") or {}).get("annotations") or {}).get(a) == "true"
                       for a in _DEFAULT_CLASS_ANNOTATIONS)]
    if defaults:
        defaults.sort(key=lambda c: c["metadata"]["name"])
        defaults.sort(key=lambda c: c["metadata"].get("creationTimestamp") or "", reverse=True)
        spec["storageClassName"] = defaults[0]["metadata"]["name"]


class VolumeStrategy(Strategy):
    """PersistentVolumes and PersistentVolumeClaims: a new one's status is ``phase: Pending``
    (``SetDefaults_*``; a volume also gets ``lastPhaseTransitionTime``, and a status write that
    changes a volume's phase without setting a new time gets now, as
    ``persistentvolumeStatusStrategy`` does), and the StorageObjectInUseProtection admission
    plugin: a created volume gets the ``kubernetes.io/pv-protection`` finalizer, a claim
    ``kubernetes.io/pvc-protection`` (appended once, on create only). The controllers that remove
    them (kube-controller-manager's) are played by the store (``Store._release_volumes``).
    ``protect=False`` is the plugin disabled. A claim is also
    given the default StorageClass (:func:`_default_storage_class`)."""

    _FINALIZERS = {"persistentvolumes": "kubernetes.io/pv-protection",
                   "persistentvolumeclaims": "kubernetes.io/pvc-protection"}

    def __init__(self, spec: KindSpec, *, protect: bool, storage_classes: StorageClasses = _no_classes) -> None:
        super().__init__(spec)
        self.protect = protect
        self.volume = spec.resource == "persistentvolumes"
        self.storage_classes = storage_classes

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        if not self.volume:
            _default_storage_class(obj, self.storage_classes())
        if not self.protect:
            return
        finalizer = self._FINALIZERS[self.spec.resource]
        meta = obj.setdefault("metadata", {})
        finalizers = meta.get("finalizers") or []
        if finalizer not in finalizers:
            meta["finalizers"] = [*finalizers, finalizer]

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Pending", **({"lastPhaseTransitionTime": now} if self.volume else {})}

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        status, old_status = new.get("status") or {}, old.get("status") or {}
        if not status.get("phase"):
            status["phase"] = "Pending"
        if self.volume:
            mine, before = status.get("lastPhaseTransitionTime"), old_status.get("lastPhaseTransitionTime")
            if status["phase"] == old_status.get("phase"):
                if mine is None and before is not None:
                    status["lastPhaseTransitionTime"] = before
            elif mine is None or mine == before:
                status["lastPhaseTransitionTime"] = now
        new["status"] = status


def strategy_for(
    spec: KindSpec, *, taint_not_ready: bool, storage_protection: bool = True,
    priority_classes: PriorityClasses = _no_classes, storage_classes: StorageClasses = _no_classes,
    features: FeatureGates | None = None, now: Callable[[], str] = _no_time,
) -> Strategy:
    """The strategy of ``spec``'s kind; ``priority_classes`` is what the Priority admission plugin
    reads (pods and priority classes); ``taint_not_ready`` and ``storage_protection`` turn the
    TaintNodesByCondition and StorageObjectInUseProtection admission plugins on; ``features`` are
    the API server's feature gates (default: the pinned release's defaults); ``now`` is the time
    of a write, for the rules that stamp one on an update (``metav1.Time``, seconds)."""
    if spec.group == "resource.k8s.io" and spec.resource in ("resourceclaims", "resourceclaimtemplates"):
        return ResourceClaimStrategy(spec)
    if spec.group == "resource.k8s.io" and spec.resource == "devicetaintrules":
        return DeviceTaintRuleStrategy(spec, now=now)
    if spec.group == "" and spec.resource == "pods":
        return PodStrategy(spec, priority_classes=priority_classes, features=features)
    if spec.group == "scheduling.k8s.io" and spec.resource == "priorityclasses":
        return PriorityClassStrategy(spec, priority_classes=priority_classes)
    if spec.group == "" and spec.resource == "nodes":
        return NodeStrategy(spec, taint_not_ready=taint_not_ready, features=features)
    if spec.group == "policy" and spec.resource == "poddisruptionbudgets":
        return PodDisruptionBudgetStrategy(spec)
    if spec.group == "" and spec.resource == "namespaces":
        return NamespaceStrategy(spec)
    if spec.group == "storage.k8s.io" and spec.resource == "storageclasses":
        return StorageClassStrategy(spec)
    if spec.group == "apps" and spec.resource == "statefulsets":
        return StatefulSetStrategy(spec)
    if spec.group == "" and spec.resource in VolumeStrategy._FINALIZERS:
        return VolumeStrategy(spec, protect=storage_protection, storage_classes=storage_classes)
    return Strategy(spec)
