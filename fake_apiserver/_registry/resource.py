"""``resource.k8s.io`` (DRA) kinds: ResourceClaims and their templates (the claim spec rules are
:mod:`~fake_apiserver._registry.claim_validation`), ResourceSlices, DeviceClasses and
DeviceTaintRules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.gotypes import kind_node, semantic_of
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from fake_apiserver._registry.claim_validation import selector_errors, validate_claim_spec, validate_claim_update, validate_device_configs
from fake_apiserver._registry.fieldrules import condition_errors, get_in, invalid_each
from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["DeviceTaintRuleStrategy", "RULES", "ResourceClaimStrategy", "default_device_requests", "device_taint_rule_errors", "resource_slice_node_errors", "resource_slice_pool_errors"]

Obj = dict[str, Any]


_DEVICE_TAINT_EFFECTS = ["NoExecute", "NoSchedule", "None"]


def device_taint_rule_errors(obj: Mapping[str, Any], old: Mapping[str, Any] | None = None) -> list[FieldError]:
    """``validateDeviceTaintRuleSpec``: the selector's driver (``ValidateCSIDriverName``), pool
    (each ``/``-separated part a DNS-1123 subdomain) and device (a DNS-1123 label); the taint's
    key (a label name), value (a label value) and effect (None, NoSchedule or NoExecute), the
    effect checked only when it changes (stored objects may hold one a later release added)."""
    errors: list[FieldError] = []
    selector = get_in(obj, "spec", "deviceSelector")
    if isinstance(selector, Mapping):
        path = "spec.deviceSelector"
        driver = selector.get("driver")
        if isinstance(driver, str):
            if not driver:
                errors.append(FieldError.required(f"{path}.driver"))
            else:
                if len(driver) > 63:
                    errors.append(FieldError("FieldValueTooLong", f"{path}.driver", "may not be more than 63 bytes"))
                errors += invalid_each(f"{path}.driver", driver, is_dns1123_subdomain(driver.lower()))
        pool = selector.get("pool")
        if isinstance(pool, str):
            if not pool:
                errors.append(FieldError.required(f"{path}.pool"))
            for part in pool.split("/") if pool else ():
                errors += invalid_each(f"{path}.pool", part, is_dns1123_subdomain(part))
        device = selector.get("device")
        if isinstance(device, str):
            errors += invalid_each(f"{path}.device", device, is_dns1123_label(device))
    taint = get_in(obj, "spec", "taint")
    taint = taint if isinstance(taint, Mapping) else {}
    key, value, effect = str(taint.get("key") or ""), str(taint.get("value") or ""), str(taint.get("effect") or "")
    errors += invalid_each("spec.taint.key", key, is_qualified_name(key))
    if value:
        errors += invalid_each("spec.taint.value", value, is_label_value(value))
    if old is None or effect != str(get_in(old, "spec", "taint", "effect") or ""):
        if not effect:
            errors.append(FieldError.required("spec.taint.effect"))
        elif effect not in _DEVICE_TAINT_EFFECTS:
            errors.append(FieldError.not_supported("spec.taint.effect", effect, _DEVICE_TAINT_EFFECTS))
    return errors


def resource_slice_pool_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``validateResourcePool``: a name, a positive slice count, a generation not below zero."""
    pool = get_in(obj, "spec", "pool") or {}
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


def resource_slice_node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """A ResourceSlice names its nodes one way: ``nodeName``, ``nodeSelector``, ``allNodes`` or
    ``perDeviceNodeSelection`` (the two booleans only ever ``true``)."""
    spec = get_in(obj, "spec") or {}
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


def _resource_slice_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}

    errors = [] if spec.get("driver") else [FieldError.required("spec.driver")]
    errors += resource_slice_pool_errors(obj)
    node_name = spec.get("nodeName")
    if node_name:
        errors += invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    return errors + resource_slice_node_errors(obj)


def _device_class_errors(obj: Mapping[str, Any]) -> list[FieldError]:

    return (selector_errors(get_in(obj, "spec", "selectors"), "spec.selectors")
            + validate_device_configs(get_in(obj, "spec", "config"), "spec.config"))


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

    def default(self, obj: Obj) -> None:
        default_device_requests(self._spec_of(obj))

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        # the real server encodes the empty structs: a claim's status, a template's claim metadata
        if self.spec.kind == "ResourceClaim":
            obj.setdefault("status", {})
        elif isinstance(obj.get("spec"), dict):
            obj["spec"].setdefault("metadata", {})


    def _path(self) -> str:
        return "spec.spec" if self.spec.kind == "ResourceClaimTemplate" else "spec"

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_claim_spec(self._spec_of(obj), self._path())

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        errors = []
        if self.spec.kind == "ResourceClaim":
            errors += validate_claim_update(new.get("spec"), old.get("spec"), semantic)
        return errors + validate_claim_spec(self._spec_of(new), self._path())


class DeviceTaintRuleStrategy(Strategy):
    """``pkg/registry/resource/devicetaintrule``: the status cleared on create (encoded as the
    empty struct it is) and kept on update; the taint's ``timeAdded`` defaulted to the time of the
    write (``SetDefaults_DeviceTaint``, in seconds: a PUT that leaves it out sets it anew), and set
    to it when an update changes the effect but not the time (``PrepareForUpdate``). Generation,
    the resourceVersion an update must carry and the ``/status`` metadata reset are generic (this
    kind's ``KindRules`` in :data:`RULES`)."""

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


RULES: dict[tuple[str, str], KindRules] = {
    ("resource.k8s.io", "DeviceClass"): KindRules(create=_device_class_errors, returns_deleted_object=True),
    ("resource.k8s.io", "ResourceClaim"): KindRules(
        returns_deleted_object=True, generation=False, status_resets_meta=True,
        strategy=lambda spec, options: ResourceClaimStrategy(spec)),
    ("resource.k8s.io", "ResourceClaimTemplate"): KindRules(
        returns_deleted_object=True, generation=False, strategy=lambda spec, options: ResourceClaimStrategy(spec)),
    ("resource.k8s.io", "ResourceSlice"): KindRules(create=_resource_slice_errors, returns_deleted_object=True),
    # the v1 strategy refuses an update without a resourceVersion (v1beta2's allows it)
    ("resource.k8s.io", "DeviceTaintRule"): KindRules(
        unconditional_update=False, status_resets_meta=True,
        strategy=lambda spec, options: DeviceTaintRuleStrategy(spec, now=options.now)),
}
