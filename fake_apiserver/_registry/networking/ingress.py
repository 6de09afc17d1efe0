"""Ingresses (``networking.k8s.io/v1``): a created Ingress carries the zero status its type writes
(``{loadBalancer: {}}``), checked against kube-apiserver v1.37.2 (``tests/fake_apiserver/_registry/test_builtin_kinds.py``).

Its Table's cells: :func:`print_ingress`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, load_balancer_points, name_of

__all__ = ["IngressStrategy", "KIND", "print_ingress"]

Obj = dict[str, Any]


class IngressStrategy(Strategy):
    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"loadBalancer": {}}


def print_ingress(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    rules = spec.get("rules") or []
    hosts: list[str] = []
    more = False
    for rule in rules:  # "+ N more..." counts every rule past three, with a host or not
        more = more or len(hosts) == 3
        if not more and rule.get("host"):
            hosts.append(rule["host"])
    host_text = ",".join(hosts) or "*"
    if hosts and more:
        host_text = f"{host_text} + {len(rules) - 3} more..."
    address = ",".join(load_balancer_points(at(obj, "status", "loadBalancer")))
    return [name_of(obj), spec.get("ingressClassName") or "<none>", host_text, address,
            "80, 443" if spec.get("tls") else "80", age_of(obj, now)], []


KIND = KindRules(group="networking.k8s.io", kind="Ingress", strategy=lambda spec, options: IngressStrategy(spec),
                 printer=print_ingress)
"""The Ingress's declaration."""
