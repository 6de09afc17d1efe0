"""PriorityClasses (``scheduling.k8s.io/v1``, ``pkg/registry/scheduling/priorityclass``): the
built-in classes, validation, defaults, and the Priority admission plugin's rules for a class.

Pure functions over JSON-shaped dicts; the store wires them in through
:class:`PriorityClassStrategy`, and the plugin's pod half (``admitPod``) is
:func:`~fake_apiserver._registry.core.pod.admission.admit_pod`, which reads the classes through
:func:`default_class`. Each rule follows one place in the Kubernetes source (v1.35), word for
word where a message is involved:

* the built-in classes: ``pkg/apis/scheduling/v1/helpers.go`` (``systemPriorityClasses``: name,
  value and description only, no labels), created by the ``scheduling/bootstrap-system-priority-
  classes`` post-start hook (``pkg/registry/scheduling/rest/storage_scheduling.go``,
  ``AddSystemPriorityClasses``) through the v1 API, so they get the v1 default ``preemptionPolicy:
  PreemptLowerPriority`` (``pkg/apis/scheduling/v1/defaults.go``, ``SetDefaults_PriorityClass``)
  and ``generation: 1`` (``pkg/registry/scheduling/priorityclass/strategy.go``);
* validation: ``pkg/apis/scheduling/validation/validation.go`` (``ValidatePriorityClass``,
  ``ValidatePriorityClassUpdate``) with ``IsKnownSystemPriorityClass`` of ``v1/helpers.go`` and
  ``ValidatePreemptionPolicy`` of ``pkg/apis/core/validation``; the declarative rules of
  ``zz_generated.validations.go`` are alpha and not reported by default;
* one global default, system classes not deletable: ``plugin/pkg/admission/priority/admission.go``
  (``validatePriorityClass``, a validating step after validation) and
  ``pkg/registry/scheduling/priorityclass/storage/storage.go`` (``REST.Delete``).

Its Table's cells: :func:`print_priority_class`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Iterable

from fake_apiserver._machinery.errors import FieldError, Forbidden
from fake_apiserver._machinery.shapes import BOOL, I32, OBJECT_META, STR, struct_of
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, count_of, name_of

__all__ = ["HIGHEST_USER_DEFINABLE_PRIORITY", "KIND", "PREEMPT_LOWER_PRIORITY", "PriorityClassStrategy",
           "SYSTEM_CRITICAL_PRIORITY", "SYSTEM_PRIORITY_CLASSES", "SYSTEM_PRIORITY_CLASS_PREFIX",
           "admission_forbidden", "check_delete", "default_class", "default_priority_class", "print_priority_class",
           "system_priority_classes", "validate_preemption_policy", "validate_priority_class",
           "validate_priority_class_admission", "validate_priority_class_update"]

Obj = dict[str, Any]

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
_PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, "Never")
_RESOURCE = "priorityclasses"
_GROUP = "scheduling.k8s.io"

SYSTEM_PRIORITY_CLASSES: tuple[tuple[str, int, str], ...] = (
    ("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000,
     "Used for system critical pods that must not be moved from their current node."),
    ("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY,
     "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."),
)
"""(name, value, description) of each built-in class, in ``systemPriorityClasses`` order."""


def system_priority_classes() -> list[Obj]:
    """The bodies the post-start hook creates (defaulting adds the preemption policy)."""
    return [
        {"apiVersion": f"{_GROUP}/v1", "kind": "PriorityClass", "metadata": {"name": name},
         "value": value, "description": description}
        for name, value, description in SYSTEM_PRIORITY_CLASSES
    ]


def default_priority_class(obj: Obj) -> None:
    """Decode and default a body in place: ``value`` (no ``omitempty``) always present,
    ``globalDefault`` and ``description`` left out when empty (``omitempty``), a missing
    ``preemptionPolicy`` set to ``PreemptLowerPriority``; fields in the v1 struct's order."""
    value = obj.pop("value", None)
    global_default = obj.pop("globalDefault", None)
    description = obj.pop("description", None)
    policy = obj.pop("preemptionPolicy", None)
    rest = {k: obj.pop(k) for k in list(obj) if k not in ("kind", "apiVersion", "metadata")}
    obj["value"] = value or 0
    if global_default:
        obj["globalDefault"] = True
    if description:
        obj["description"] = description
    obj["preemptionPolicy"] = PREEMPT_LOWER_PRIORITY if policy is None else policy
    obj.update(rest)


def _is_known_system_priority_class(name: str, value: int, global_default: bool) -> str | None:
    """``IsKnownSystemPriorityClass``: None when it is one, else the error's text."""
    for known, known_value, _ in SYSTEM_PRIORITY_CLASSES:
        if known == name:
            if known_value != value:
                return f"value of {known} PriorityClass must be {known_value}"
            if global_default:
                return f"globalDefault of {known} PriorityClass must be false"
            return None
    return f"{name} is not a known system priority class"


def validate_preemption_policy(policy: Any, path: str) -> list[FieldError]:
    """``ValidatePreemptionPolicy`` (for a policy that is set)."""
    if policy in _PREEMPTION_POLICIES:
        return []
    if policy == "":
        return [FieldError.required(path)]
    return [FieldError.not_supported(path, policy, list(_PREEMPTION_POLICIES))]


def validate_priority_class(pc: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClass`` without the object-meta part (the store checks that first)."""
    errors: list[FieldError] = []
    name = str((pc.get("metadata") or {}).get("name") or "")
    value = pc.get("value") or 0
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        why = _is_known_system_priority_class(name, value, bool(pc.get("globalDefault")))
        if why is not None:
            errors.append(FieldError.forbidden(
                "metadata.name",
                f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use "
                f"only. error: {why}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errors.append(FieldError.forbidden(
            "value", f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    if "preemptionPolicy" in pc:
        errors += validate_preemption_policy(pc["preemptionPolicy"], "preemptionPolicy")
    return errors


def validate_priority_class_update(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePriorityClassUpdate`` without the object-meta part: ``value`` and
    ``preemptionPolicy`` are immutable (nothing else is checked again on update)."""
    errors: list[FieldError] = []
    if (new.get("value") or 0) != (old.get("value") or 0):
        errors.append(FieldError.forbidden("value", "may not be changed in an update."))
    if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
        errors.append(FieldError.invalid("preemptionPolicy", new.get("preemptionPolicy"), "field is immutable"))
    return errors


def admission_forbidden(resource: str, group: str, name: str, why: str) -> Forbidden:
    """``admission.NewForbidden``/``errors.NewForbidden``: ``<resource> "<name>" is forbidden: <why>``."""
    qualified = f"{resource}.{group}" if group else resource
    details: Obj = {"name": name}
    if group:
        details["group"] = group
    details["kind"] = resource
    return Forbidden(f"{qualified} {json.dumps(name)} is forbidden: {why}", details=details)


def default_class(classes: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """``getDefaultPriorityClass``: of several global defaults (a race), the lowest value."""
    found: Mapping[str, Any] | None = None
    for pc in classes:
        if pc.get("globalDefault") and (found is None or (found.get("value") or 0) > (pc.get("value") or 0)):
            found = pc
    return found


def validate_priority_class_admission(
    pc: Mapping[str, Any], classes: Iterable[Mapping[str, Any]], *, update: bool
) -> None:
    """The plugin's ``validatePriorityClass``: a class may become the global default only while no
    other class is (on create, any existing default refuses it)."""
    if not pc.get("globalDefault"):
        return
    current = default_class(classes)
    if current is None:
        return
    name = str(pc["metadata"].get("name") or "")
    current_name = current["metadata"]["name"]
    if not update or current_name != name:
        raise admission_forbidden(_RESOURCE, _GROUP, name,
                         f"PriorityClass {current_name} is already marked as default. Only one default can exist")


def check_delete(name: str) -> None:
    """``REST.Delete`` of priority classes: the system classes cannot be deleted. (A
    DELETE on the collection goes through the generic store's own Delete and is not refused.)"""
    if any(name == known for known, _, _ in SYSTEM_PRIORITY_CLASSES):
        raise admission_forbidden(_RESOURCE, _GROUP, name, "this is a system priority class and cannot be deleted")


class PriorityClassStrategy(Strategy):
    """``pkg/registry/scheduling/priorityclass``: v1 defaults on every write, ``generation`` 1 on
    create and never bumped, the Priority plugin's one-global-default rule, no deleting the
    system classes (rules and sources in the module docstring)."""

    generation = False

    def default(self, obj: Obj) -> None:
        default_priority_class(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        obj["metadata"]["generation"] = 1

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_priority_class(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        """No generation to move and no status to keep: nothing to prepare."""

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_priority_class_update(new, old)

    def validate_admission(self, obj: Obj, old: Obj | None) -> None:
        validate_priority_class_admission(obj, self.priority_classes().values(), update=old is not None)

    def check_delete(self, name: str) -> None:
        check_delete(name)


def print_priority_class(pc: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(pc), count_of(pc.get("value")), bool(pc.get("globalDefault")), age_of(pc, now),
            pc.get("preemptionPolicy") or ""], []


KIND = KindRules(
    group="scheduling.k8s.io", kind="PriorityClass",
    strategy=lambda spec, options: PriorityClassStrategy(spec, priority_classes=options.priority_classes),
    shape=struct_of("v1.PriorityClass", metadata=OBJECT_META, value=I32, globalDefault=BOOL, description=STR,
                    preemptionPolicy=STR),
    printer=print_priority_class)
