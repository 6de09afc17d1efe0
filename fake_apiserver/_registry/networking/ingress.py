"""Ingresses (``networking.k8s.io/v1``): a created Ingress carries the zero status its type writes
(``{loadBalancer: {}}``), checked against kube-apiserver v1.37.2 (``tests/test_builtin_kinds.py``)."""

from __future__ import annotations

from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["IngressStrategy", "KIND"]

Obj = dict[str, Any]


class IngressStrategy(Strategy):
    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"loadBalancer": {}}


KIND = KindRules(group="networking.k8s.io", kind="Ingress", strategy=lambda spec, options: IngressStrategy(spec))
"""The Ingress's declaration."""
