"""Workloads (``scheduling.k8s.io/v1beta1``, or ``v1alpha3`` where only it is enabled, at v1.37;
``pkg/registry/scheduling/workload``): the templates of a job's pod groups.

At v1.35 (``v1alpha1``, whose ``spec.podGroups`` v1.37 renamed) the kind is served with its
schema and this strategy's generic parts, but none of that release's validation. (v1.36's
``v1alpha2`` needs that release's discovery of every resource, which its data lacks.)

Served only where ``--runtime-config`` enables the version and ``GenericWorkload`` is on. No
status, no defaults, no ``generation``; an update must carry a resourceVersion. The fields of a
gate that is off are dropped from each template unless the stored object's template at the same
index uses them (``dropDisabledWorkloadFields``), and the composite templates while
``CompositePodGroup`` is off unless the stored object has some. Validation: the release's
declarative rules (generated data) after the hand-written ones of ``ValidateWorkloadSpec``: every
template of the tree with the same priority and priority class, a composite template with at
least one child. (The template names across a composite tree and its depth, which only matter
with the alpha ``CompositePodGroup`` on, are not checked.)

Its Table's cells: :func:`print_workload` (``printWorkload``: the name and the age).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.gotypes import kind_node
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import KindRules, Strategy, StrategyOptions
from fake_apiserver._registry.printing import Cells, age_of, name_of
from fake_apiserver._registry.scheduling.workloadrules import declarative_errors

__all__ = ["KIND", "WorkloadStrategy", "print_workload", "workload_errors"]

Obj = dict[str, Any]

_TEMPLATE_GATES = (  # a template's field, the gate that keeps it (dropDisabledWorkloadFields)
    ("schedulingConstraints", "TopologyAwareWorkloadScheduling"),
    ("resourceClaims", "DRAWorkloadResourceClaims"),
    ("preemptionPolicy", "PodGroupPreemptionPolicy"),
)


class WorkloadStrategy(Strategy):
    """``pkg/registry/scheduling/workload/strategy.go`` (module docstring)."""

    def __init__(self, spec: KindSpec, options: StrategyOptions) -> None:
        super().__init__(spec, features=options.features)

    def _drop_disabled(self, obj: Obj, old: Obj | None) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        old_templates = get_in(old or {}, "spec", "podGroupTemplates") or []
        templates = spec.get("podGroupTemplates")
        if isinstance(templates, list):
            kept = []
            for i, template in enumerate(templates):
                old_template = old_templates[i] if i < len(old_templates) and isinstance(old_templates[i], dict) else {}
                if isinstance(template, dict):
                    template = dict(template)
                    for name, gate in _TEMPLATE_GATES:
                        if name in template and not self.features.enabled(gate) and old_template.get(name) is None:
                            if self._written_when_nil(name):
                                template[name] = None  # a nil pointer Go writes (no omitempty)
                            else:
                                del template[name]
                kept.append(template)
            spec = obj["spec"] = {**spec, "podGroupTemplates": kept}
        if (not self.features.enabled("CompositePodGroup") and "compositePodGroupTemplates" in spec
                and not get_in(old or {}, "spec", "compositePodGroupTemplates")):
            obj["spec"] = {k: v for k, v in spec.items() if k != "compositePodGroupTemplates"}

    def _written_when_nil(self, name: str) -> bool:
        """Whether Go writes a template's field ``name`` as ``null`` when it is nil (no ``omitempty``)."""
        try:
            spec_node = kind_node(self.spec.group, self.spec.version, self.spec.kind).fields["spec"].node
            template = spec_node.fields["podGroupTemplates"].node.elem
        except (KeyError, AttributeError):
            return False
        field = template.fields.get(name) if template is not None else None
        return field is not None and not field.omitempty

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        self._drop_disabled(obj, None)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        self._drop_disabled(new, old)

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return workload_errors(obj) + declarative_errors(self.spec, obj, None, self.features)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return workload_errors(new) + declarative_errors(self.spec, new, old, self.features)


def _composites(templates: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for i, template in enumerate(templates if isinstance(templates, list) else []):
        if isinstance(template, Mapping):
            yield f"{path}[{i}]", template


def workload_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateWorkloadSpec``'s priority and composite-children rules (module docstring)."""
    found = obj.get("spec")
    spec: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    errors: list[FieldError] = []
    first: list[tuple[str, Any]] = []

    def same(template: Mapping[str, Any]) -> bool:
        setting = (str(template.get("priorityClassName") or ""), template.get("priority"))
        if not first:
            first.append(setting)
        return first[0] == setting

    def tree_same(composite: Mapping[str, Any]) -> bool:
        if not same(composite):
            return False
        children = [c for _, c in _composites(composite.get("compositePodGroupTemplates"), "")]
        leaves = [c for _, c in _composites(composite.get("podGroupTemplates"), "")]
        return all(tree_same(c) for c in children) and all(same(t) for t in leaves)

    if not all(same(t) for _, t in _composites(spec.get("podGroupTemplates"), "")):
        errors.append(FieldError.invalid("spec", None, "detected multiple priority configurations"))
    elif not all(tree_same(c) for _, c in _composites(spec.get("compositePodGroupTemplates"), "")):
        errors.append(FieldError.invalid(
            "spec", None, "all priority and priorityClassName values must be identical, detected multiple values"))

    def children(path: str, composite: Mapping[str, Any]) -> None:
        if not composite.get("podGroupTemplates") and not composite.get("compositePodGroupTemplates"):
            errors.append(FieldError.invalid(path, composite.get("name", ""), "must have at least one child "
                                             "PodGroupTemplate or CompositePodGroupTemplate"))
        for child_path, child in _composites(composite.get("compositePodGroupTemplates"),
                                             f"{path}.compositePodGroupTemplates"):
            children(child_path, child)

    for path, composite in _composites(spec.get("compositePodGroupTemplates"), "spec.compositePodGroupTemplates"):
        children(path, composite)
    return errors


def print_workload(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), age_of(obj, now)], []


KIND = KindRules(
    group="scheduling.k8s.io", kind="Workload", generation=False, unconditional_update=False,
    served_with=("GenericWorkload",),
    strategy=lambda spec, options: WorkloadStrategy(spec, options), printer=print_workload)
"""The Workload's declaration."""
