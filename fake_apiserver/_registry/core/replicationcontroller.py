"""ReplicationControllers (core/v1): defaults (the template's labels stand for a missing selector
and missing labels) and ``ValidateReplicationController``'s rules.

Its Table's cells: :func:`print_replication_controller`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.selectors import go_value_field
from fake_apiserver._registry.core.pod.template import default_pod_template, pod_template_errors
from fake_apiserver._registry.fieldrules import get_in, non_negative_errors, template_mismatch
from fake_apiserver._registry.generic import FieldLabels, KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, container_cells, count_of, format_labels, name_of

__all__ = ["KIND", "ReplicationControllerStrategy", "default_replication_controller", "print_replication_controller"]

Obj = dict[str, Any]


def _replication_controller_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodTemplateSpecForRC``'s own checks: a selector that is set selects the
    template's labels, the template restarts Always and has no active deadline."""
    spec = get_in(obj, "spec") or {}
    selector = spec.get("selector") or {}
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors: list[FieldError] = []
    if selector and isinstance(selector, Mapping) and not all(labels.get(k) == v for k, v in selector.items()):
        errors.append(template_mismatch(labels))
    if isinstance(spec.get("template"), Mapping):
        errors += pod_template_errors(spec["template"], "spec.template")
        restart = get_in(spec, "template", "spec", "restartPolicy")
        if restart != "Always":
            errors.append(FieldError.not_supported("spec.template.spec.restartPolicy", restart or "", ["Always"]))
        if get_in(spec, "template", "spec", "activeDeadlineSeconds") is not None:
            errors.append(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds",
                                               "activeDeadlineSeconds in ReplicationController is not Supported"))
    return errors


def _replication_controller_rules(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateReplicationControllerSpec``, in its order."""
    errors = non_negative_errors(obj, "minReadySeconds")
    if not get_in(obj, "spec", "selector"):
        errors.append(FieldError.required("spec.selector"))
    return errors + non_negative_errors(obj, "replicas") + _replication_controller_errors(obj)


def default_replication_controller(obj: Obj) -> None:
    """``SetDefaults_ReplicationController``: the template's labels stand for a missing selector
    and missing labels; one replica; the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    labels = get_in(spec, "template", "metadata", "labels")
    if isinstance(labels, dict):
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        if not obj["metadata"].get("labels"):
            obj["metadata"]["labels"] = dict(labels)
    spec.setdefault("replicas", 1)
    if isinstance(spec.get("template"), dict):
        default_pod_template(spec["template"])


class ReplicationControllerStrategy(Strategy):
    """Defaults on every write; a create answers with the status' replica count 0."""

    def default(self, obj: Obj) -> None:
        default_replication_controller(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"replicas": 0}


def print_replication_controller(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), count_of(at(obj, "spec", "replicas")), count_of(at(obj, "status", "replicas")),
            count_of(at(obj, "status", "readyReplicas")), age_of(obj, now), names, images,
            format_labels(at(obj, "spec", "selector"))], []


KIND = KindRules(
    group="", kind="ReplicationController",
    generate_name_checked_with_name=False, create=_replication_controller_rules, etcd_prefix="controllers",
    scale_selector_map=True,
    strategy=lambda spec, options: ReplicationControllerStrategy(spec),
    field_labels=FieldLabels(("status.replicas",)),
    field_values={"status.replicas": go_value_field("status.replicas", "0")},
    printer=print_replication_controller)
"""The ReplicationController's declaration."""
