"""PodGroups (``scheduling.k8s.io/v1beta1``, or ``v1alpha3`` where only it is enabled, at v1.37;
``pkg/registry/scheduling/podgroup``): the gang a pod joins through ``spec.schedulingGroup``.

Served only where ``--runtime-config`` enables the version and ``GenericWorkload`` is on
(``pkg/registry/scheduling/rest/storage_scheduling.go``). What a write goes through, in the real
server's order:

* defaults (``SetObjectDefaults_PodGroup``, ``SetDefaults_PodGroupSpec``): ``spec.disruptionMode``
  ``{"single": {}}``; ``spec.preemptionPolicy`` ``PreemptLowerPriority`` while
  ``PodGroupPreemptionPolicy`` is on;
* the strategy: on create the status is emptied (``{}``, a struct Go always writes); on update
  the status is the stored one's, and through ``/status`` the spec and the metadata (``ResetObjectMetaForStatus``);
  no ``generation``; an update must carry a resourceVersion; the fields of a gate that is off are
  dropped unless the stored object uses them (``dropDisabledPodGroupFields``);
* admission on create: ``PodGroupProtection`` adds the finalizer
  ``scheduling.k8s.io/podgroup-protection``; ``Priority`` resolves ``spec.priorityClassName`` (or
  the global default, else 0) into ``spec.priority`` and, with ``PodGroupPreemptionPolicy``,
  ``spec.preemptionPolicy``, refusing a preset value that differs (403, its messages);
* validation: the release's declarative rules (generated data, :mod:`~fake_apiserver._machinery.declarative`)
  after the hand-written ones (``ValidatePodGroup``: a parent composite group needs a
  ``workloadRef``; status conditions and claim statuses).

Its Table's cells: :func:`print_pod_group` (``printPodGroup``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.dropdisabled import DropRule, drop_disabled_fields, drop_field, present
from fake_apiserver._registry.fieldrules import condition_errors, get_in
from fake_apiserver._registry.generic import KindRules, Strategy, StrategyOptions
from fake_apiserver._registry.printing import Cells, age_of, at, name_of
from fake_apiserver._registry.scheduling.priorityclass import PREEMPT_LOWER_PRIORITY, admission_forbidden, default_class
from fake_apiserver._registry.scheduling.workloadrules import declarative_errors

__all__ = ["KIND", "PROTECTION_FINALIZER", "PodGroupStrategy", "print_pod_group"]

Obj = dict[str, Any]

PROTECTION_FINALIZER = "scheduling.k8s.io/podgroup-protection"
_GROUP, _RESOURCE = "scheduling.k8s.io", "podgroups"

_DROP_RULES = (
    DropRule(("TopologyAwareWorkloadScheduling",), drop_field("spec", "schedulingConstraints"),
             present(("spec", "schedulingConstraints")), "dropDisabledPodGroupFields"),
    DropRule(("DRAWorkloadResourceClaims",), drop_field("spec", "resourceClaims"),
             lambda old: bool(get_in(old, "spec", "resourceClaims")), "dropDisabledPodGroupFields"),
    DropRule(("PodGroupPreemptionPolicy",), drop_field("spec", "preemptionPolicy"),
             present(("spec", "preemptionPolicy")), "dropDisabledPodGroupFields"),
    DropRule(("CompositePodGroup",), drop_field("spec", "parentCompositePodGroupName"),
             present(("spec", "parentCompositePodGroupName")), "dropDisabledPodGroupFields"),
)


class PodGroupStrategy(Strategy):
    """``pkg/registry/scheduling/podgroup/strategy.go`` with the Priority and PodGroupProtection
    admission plugins' PodGroup halves (module docstring)."""

    defaults_in = ("spec",)

    def __init__(self, spec: KindSpec, options: StrategyOptions) -> None:
        super().__init__(spec, priority_classes=options.priority_classes, features=options.features)

    def default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        if spec.get("disruptionMode") is None:
            spec["disruptionMode"] = {"single": {}}
        if self.features.enabled("PodGroupPreemptionPolicy") and spec.get("preemptionPolicy") is None:
            spec["preemptionPolicy"] = PREEMPT_LOWER_PRIORITY

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        meta = obj.setdefault("metadata", {})
        finalizers = meta.get("finalizers") or []
        if PROTECTION_FINALIZER not in finalizers:
            meta["finalizers"] = [*finalizers, PROTECTION_FINALIZER]
        self._admit_priority(obj)

    def _admit_priority(self, obj: Obj) -> None:
        """``admitPodGroup``: the priority of the class named (or of the global default, whose name
        is then written in; else 0 and ``PreemptLowerPriority``)."""
        meta = obj.get("metadata") or {}
        who = str(meta.get("name") or meta.get("generateName") or "Unknown")
        spec = obj.setdefault("spec", {})
        classes = self.priority_classes()
        name = spec.get("priorityClassName") or ""
        if not name:
            found = default_class(classes.values())
            if found is not None:
                name, priority, policy = found["metadata"]["name"], found.get("value") or 0, found.get("preemptionPolicy")
            else:
                priority, policy = 0, PREEMPT_LOWER_PRIORITY
        else:
            pc = classes.get(name)
            if pc is None:
                raise admission_forbidden(_RESOURCE, _GROUP, who, f"no PriorityClass with name {name} was found")
            priority, policy = pc.get("value") or 0, pc.get("preemptionPolicy")
        given = spec.get("priority")
        if given is not None and given != priority:
            raise admission_forbidden(_RESOURCE, _GROUP, who, (
                f"priority set in the pod group ({given}) must match the priority computed ({priority}) based on the "
                "priority class set in the spec"))
        spec["priority"] = priority
        if name:
            spec["priorityClassName"] = name
        else:
            spec.pop("priorityClassName", None)
        if self.features.enabled("PodGroupPreemptionPolicy") and policy is not None:
            given_policy = spec.get("preemptionPolicy")
            if given_policy is not None and given_policy != policy:
                raise admission_forbidden(_RESOURCE, _GROUP, who, (
                    f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod group spec; "
                    f"priority admission controller computed {policy} from the given PriorityClass name"))
            spec["preemptionPolicy"] = policy

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {}
        drop_disabled_fields(_DROP_RULES, obj, None, self.features)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        drop_disabled_fields(_DROP_RULES, new, old, self.features)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        super().prepare_for_status_update(new, old, now)
        status = new.get("status")
        if (isinstance(status, dict) and "resourceClaimStatuses" in status
                and not self.features.enabled("DRAWorkloadResourceClaims") and not get_in(old, "spec", "resourceClaims")):
            new["status"] = {k: v for k, v in status.items() if k != "resourceClaimStatuses"}

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return _hand_written(obj) + declarative_errors(self.spec, obj, None, self.features)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return _hand_written(new) + declarative_errors(self.spec, new, old, self.features)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        """``ValidatePodGroupStatusUpdate``: the conditions, and each claim status names a claim of
        the spec; then the declarative rules of the status."""
        found = new.get("status")
        status: Obj = found if isinstance(found, dict) else {}
        errors = condition_errors(status.get("conditions"), "status.conditions")
        claims = {c.get("name") for c in get_in(new, "spec", "resourceClaims") or [] if isinstance(c, dict)}
        for i, item in enumerate(status.get("resourceClaimStatuses") or []):
            name = item.get("name") if isinstance(item, dict) else None
            if name not in claims:
                errors.append(FieldError.invalid(f"status.resourceClaimStatuses[{i}].name", name,
                                                 "must match the name of an entry in `spec.resourceClaims`"))
        return errors + declarative_errors(self.spec, new, old, self.features, subresource="status")


def _hand_written(obj: Obj) -> list[FieldError]:
    """``ValidatePodGroup`` beyond the metadata: a parent composite group needs ``workloadRef``."""
    found = obj.get("spec")
    spec: Obj = found if isinstance(found, dict) else {}
    if spec.get("parentCompositePodGroupName") is not None and spec.get("workloadRef") is None:
        return [FieldError.required("spec.workloadRef", "must be set when parentCompositePodGroupName is set")]
    return []


def print_pod_group(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``printPodGroup``: the policy (Gang or Basic), the workload, and the status: Pending, then
    Scheduled or Unschedulable by ``PodGroupInitiallyScheduled``, then a ``DisruptionTarget``
    condition's reason."""
    spec: Obj = at(obj, "spec") or {}
    policy = "Gang" if (spec.get("schedulingPolicy") or {}).get("gang") is not None else "Basic"
    workload = (spec.get("workloadRef") or {}).get("workloadName") or "<none>"
    state = "Pending"
    conditions = at(obj, "status", "conditions") or []
    for condition in conditions:
        if condition.get("type") == "PodGroupInitiallyScheduled":
            state = "Scheduled" if condition.get("status") == "True" else "Unschedulable"
    for condition in conditions:
        if condition.get("type") == "DisruptionTarget":
            state = condition.get("reason", "")
    return [name_of(obj), policy, workload, state, age_of(obj, now)], []


KIND = KindRules(
    group=_GROUP, kind="PodGroup", generation=False, unconditional_update=False, status_resets_meta=True,
    served_with=("GenericWorkload",),
    strategy=lambda spec, options: PodGroupStrategy(spec, options), printer=print_pod_group)
"""The PodGroup's declaration."""
