"""DaemonSets (``apps/v1``): ``SetDefaults_DaemonSet``, ``ValidateDaemonSetSpec``, the immutable
selector, and the template generation shown as an annotation.

Its Table's cells: :func:`print_daemon_set`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.apps.workload import WorkloadStrategy, restart_errors, selector_immutable
from fake_apiserver._registry.core.pod.template import default_pod_template, pod_template_errors
from fake_apiserver._registry.fieldrules import (
    get_in,
    go_selector,
    non_negative_errors,
    selector_matches,
    template_mismatch,
)
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import (
    Cells,
    age_of,
    at,
    container_cells,
    count_of,
    format_labels,
    format_selector,
    name_of,
)

__all__ = ["DaemonSetStrategy", "KIND", "default_daemon_set", "print_daemon_set"]

Obj = dict[str, Any]


def default_daemon_set(obj: Obj) -> None:
    """``SetDefaults_DaemonSet`` (apps/v1) and the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    strategy = spec.get("updateStrategy")
    if not isinstance(strategy, dict):
        strategy = spec["updateStrategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    default_pod_template(spec.get("template"))


def _daemon_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateDaemonSetSpec`` on the defaulted object: the selector against the template (a
    missing selector matches nothing), an empty selector, the template's restart policy."""
    spec = get_in(obj, "spec") or {}
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors: list[FieldError] = []
    if not selector_matches(spec.get("selector"), labels):
        errors.append(template_mismatch(labels))
    selector = spec.get("selector")
    if isinstance(selector, Mapping) and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(FieldError.invalid("spec.selector", go_selector(selector), "empty selector is invalid for daemonset"))
    errors += pod_template_errors(spec.get("template"), "spec.template") + restart_errors(spec, "DaemonSet")
    return errors + non_negative_errors(obj, "minReadySeconds", "revisionHistoryLimit")


_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


class DaemonSetStrategy(WorkloadStrategy):
    """A DaemonSet's internal ``templateGeneration`` shows as an annotation: 1 on create, one more
    on each update that changes the template."""

    zero_status = {"currentNumberScheduled": 0, "desiredNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0}

    def default(self, obj: Obj) -> None:
        default_daemon_set(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = "1"

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        generation = str(get_in(old, "metadata", "annotations", _TEMPLATE_GENERATION) or "")
        if generation.isdigit():
            if semantic(get_in(new, "spec", "template")) != semantic(get_in(old, "spec", "template")):
                generation = str(int(generation) + 1)
            new["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = generation


def print_daemon_set(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    status: Obj = obj.get("status") or {}
    names, images = container_cells(at(obj, "spec", "template", "spec"))
    return [name_of(obj), *(count_of(status.get(k)) for k in ("desiredNumberScheduled", "currentNumberScheduled",
                                                         "numberReady", "updatedNumberScheduled", "numberAvailable")),
            format_labels(at(obj, "spec", "template", "spec", "nodeSelector")), age_of(obj, now), names, images,
            format_selector(at(obj, "spec", "selector"))], []


KIND = KindRules(group="apps", kind="DaemonSet", create=_daemon_set_errors, update=selector_immutable,
                 strategy=lambda spec, options: DaemonSetStrategy(spec), printer=print_daemon_set)
"""The DaemonSet's declaration."""
