"""CSIDrivers (``storage.k8s.io/v1``): the ``fsGroupPolicy`` enum. An update needs a
resourceVersion; no generation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.fieldrules import unsupported_errors
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]


def _csi_driver_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return unsupported_errors(obj, "spec.fsGroupPolicy", ["File", "None", "ReadWriteOnceWithFSType"])


KIND = KindRules(group="storage.k8s.io", kind="CSIDriver", create=_csi_driver_errors, unconditional_update=False,
                 generation=False)
"""The CSIDriver's declaration."""
