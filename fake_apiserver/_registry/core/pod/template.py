"""A pod template (``PodTemplateSpec``), as a workload, a Job or a PodTemplate carries one: the pod
spec's defaults and rules on it.

A template gets the pod's defaults (:func:`~fake_apiserver._registry.core.pod.defaults.default_pod`)
less what only a pod gets: its ``enableServiceLinks`` (``SetDefaults_Pod``); the
DefaultTolerationSeconds tolerations are an admission plugin on pods and never reach a template.
Its rules are ``ValidatePodTemplateSpec``'s: the pod's, less what only a pod's create checks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.core.pod.defaults import default_pod
from fake_apiserver._registry.core.pod.validation import validate_pod_create
from fake_apiserver._registry.fieldrules import get_in, labels_errors

__all__ = ["default_pod_template", "pod_template_errors"]


_POD_ONLY = ("enableServiceLinks",)  # defaulted on a pod, never on a template


def default_pod_template(template: Any) -> None:
    """``SetDefaults_PodSpec`` and the container defaults on a pod template's spec."""
    if not isinstance(template, dict):
        return
    spec = template.get("spec")
    if not isinstance(spec, dict):
        spec = template["spec"] = {}
    given = {key: spec[key] for key in _POD_ONLY if key in spec}
    default_pod({"spec": spec})
    for key in _POD_ONLY:
        if key in given:
            spec[key] = given[key]
        else:
            spec.pop(key, None)


def pod_template_errors(template: Any, path: str) -> list[FieldError]:
    """``ValidatePodTemplateSpec`` of the template at ``path``: its labels (reported at
    ``<path>.labels``, as Go names them), the pod spec's rules
    (:func:`~fake_apiserver._registry.core.pod.validation.validate_pod_create` less what only a pod's
    create checks), and no ephemeral containers."""
    template = template if isinstance(template, Mapping) else {}
    spec = template.get("spec") if isinstance(template.get("spec"), Mapping) else {}
    errors = labels_errors(get_in(template, "metadata", "labels"), f"{path}.labels")
    for error in validate_pod_create({"spec": spec}):
        if error.field in ("spec.ephemeralContainers", "spec.nodeName") and error.type == "FieldValueForbidden":
            continue  # a pod's create rules, not a template's
        errors.append(dataclasses.replace(error, field=path + "." + error.field))
    if spec.get("ephemeralContainers"):
        errors.append(FieldError.forbidden(f"{path}.spec.ephemeralContainers",
                                           "ephemeral containers not allowed in pod template"))
    return errors
