"""NetworkPolicies (``networking.k8s.io/v1``): ``SetDefaults_NetworkPolicySpec``, checked against
kube-apiserver v1.37.2 (``tests/fake_apiserver/_registry/test_builtin_kinds.py``): ports default to TCP, ``policyTypes`` to
``Ingress``, plus ``Egress`` when the policy has egress rules.

Its Table's cells: :func:`print_network_policy`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, format_selector, name_of

__all__ = ["KIND", "NetworkPolicyStrategy", "print_network_policy"]

Obj = dict[str, Any]


def _default_protocols(ports: Any) -> None:
    for port in ports if isinstance(ports, list) else ():
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"


class NetworkPolicyStrategy(Strategy):
    def default(self, obj: Obj) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        for direction in ("ingress", "egress"):
            for rule in spec.get(direction) or ():
                if isinstance(rule, dict):
                    _default_protocols(rule.get("ports"))
        if not spec.get("policyTypes"):
            spec["policyTypes"] = ["Ingress"] + (["Egress"] if spec.get("egress") else [])


def print_network_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), format_selector(at(obj, "spec", "podSelector") or {}), age_of(obj, now)], []


KIND = KindRules(group="networking.k8s.io", kind="NetworkPolicy",
                 strategy=lambda spec, options: NetworkPolicyStrategy(spec), printer=print_network_policy)
"""The NetworkPolicy's declaration."""
