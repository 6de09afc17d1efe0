"""DeviceClasses (``resource.k8s.io/v1``): their selectors and configuration, checked as a claim's
are (:mod:`~fake_apiserver._registry.resource.claimspec`). A delete answers with the class.

Its Table is NAME and AGE (:func:`~fake_apiserver._registry.printing.name_age`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import name_age
from fake_apiserver._registry.resource.claimspec import selector_errors, validate_device_configs

__all__ = ["KIND"]


def _device_class_errors(obj: Mapping[str, Any]) -> list[FieldError]:

    return (selector_errors(get_in(obj, "spec", "selectors"), "spec.selectors")
            + validate_device_configs(get_in(obj, "spec", "config"), "spec.config"))


KIND = KindRules(group="resource.k8s.io", kind="DeviceClass",
                 generate_name_checked_with_name=False, create=_device_class_errors,
                 returns_deleted_object=True, openapi_delete_returns_object=True, printer=name_age)
"""The DeviceClass's declaration."""
