"""DeviceTaintRules (``resource.k8s.io/v1``, ``pkg/registry/resource/devicetaintrule``): the
selector's and the taint's rules, the taint's ``timeAdded``, and the status conditions. An update
needs a resourceVersion (the v1 strategy refuses one without; v1beta2's allows it); a ``/status``
write keeps the metadata.

Its Table's cells: :func:`print_device_taint_rule`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Callable

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.gotypes import kind_node, semantic_of
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from fake_apiserver._registry.fieldrules import condition_errors, get_in, invalid_each
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, name_of, since

__all__ = ["DeviceTaintRuleStrategy", "KIND", "device_taint_rule_errors", "print_device_taint_rule"]

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


class DeviceTaintRuleStrategy(Strategy):
    """``pkg/registry/resource/devicetaintrule``: the status cleared on create (encoded as the
    empty struct it is) and kept on update; the taint's ``timeAdded`` defaulted to the time of the
    write (``SetDefaults_DeviceTaint``, in seconds: a PUT that leaves it out sets it anew), and set
    to it when an update changes the effect but not the time (``PrepareForUpdate``). Generation,
    the resourceVersion an update must carry and the ``/status`` metadata reset are generic (this
    kind's declaration, :data:`KIND`)."""

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


def print_device_taint_rule(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    taint: Obj = at(obj, "spec", "taint") or {}
    return [name_of(obj), taint.get("key", ""), taint.get("value", ""), taint.get("effect", ""),
            since(taint.get("timeAdded"), now), age_of(obj, now)], []


KIND = KindRules(
    group="resource.k8s.io", kind="DeviceTaintRule",
    unconditional_update=False, status_resets_meta=True,
    strategy=lambda spec, options: DeviceTaintRuleStrategy(spec, now=options.now), printer=print_device_taint_rule)
"""The DeviceTaintRule's declaration."""
