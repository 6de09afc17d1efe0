"""PodTemplates (core/v1): a template's defaults and rules (:mod:`~fake_apiserver._registry.core.pod.template`),
and a generation that counts changes of the ``template``.

Its Table's cells: :func:`print_pod_template`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._registry.core.pod.template import default_pod_template, pod_template_errors
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, at, container_cells, format_labels, name_of

__all__ = ["KIND", "PodTemplateStrategy", "print_pod_template"]

Obj = dict[str, Any]


class PodTemplateStrategy(Strategy):
    """A PodTemplate has no ``spec`` but counts generations of its ``template``, which gets the
    pod spec's defaults."""

    def default(self, obj: Obj) -> None:
        default_pod_template(obj.get("template"))

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        if "generation" in old["metadata"]:
            changed = semantic(new.get("template")) != semantic(old.get("template"))
            new["metadata"]["generation"] = old["metadata"]["generation"] + (1 if changed else 0)


def print_pod_template(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    names, images = container_cells(at(obj, "template", "spec"))
    return [name_of(obj), names, images, format_labels(at(obj, "template", "metadata", "labels"))], []


KIND = KindRules(
    group="", kind="PodTemplate",
    create=lambda obj: pod_template_errors(obj.get("template"), "template"),
    strategy=lambda spec, options: PodTemplateStrategy(spec), printer=print_pod_template)
"""The PodTemplate's declaration."""
