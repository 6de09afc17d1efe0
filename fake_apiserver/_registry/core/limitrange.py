"""LimitRanges (core/v1): served by the generic strategy, without a ``metadata.generation``
(compared field by field with objects created on kube-apiserver v1.36)."""

from __future__ import annotations

from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(group="", kind="LimitRange", generation=False)
"""The LimitRange's declaration."""
