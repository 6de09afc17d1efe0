"""``networking.k8s.io`` and ``discovery.k8s.io``: what their registries default on a write.

Checked against kube-apiserver v1.37.2 (``tests/test_builtin_kinds.py``): an Ingress is created
with the zero status its type writes (``{loadBalancer: {}}``); a NetworkPolicy's ports default
to TCP and its ``policyTypes`` to ``Ingress``, plus ``Egress`` when it has egress rules
(``SetDefaults_NetworkPolicySpec``); an EndpointSlice's endpoints get their (empty)
``conditions``, its ports an empty name and TCP, and, though the kind has no ``spec``, a
``generation`` of 1.
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["EndpointSliceStrategy", "IngressStrategy", "NetworkPolicyStrategy", "RULES"]

Obj = dict[str, Any]


class IngressStrategy(Strategy):
    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"loadBalancer": {}}


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



class EndpointSliceStrategy(Strategy):
    def default(self, obj: Obj) -> None:
        for endpoint in obj.get("endpoints") or ():
            if isinstance(endpoint, dict):
                endpoint.setdefault("conditions", {})
        for port in obj.get("ports") or ():
            if isinstance(port, dict):
                port.setdefault("name", "")
                if not port.get("protocol"):
                    port["protocol"] = "TCP"

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        changed = {k: v for k, v in new.items() if k not in ("metadata", "kind", "apiVersion")} != {
            k: v for k, v in old.items() if k not in ("metadata", "kind", "apiVersion")}
        new["metadata"]["generation"] = old["metadata"].get("generation", 1) + (1 if changed else 0)


RULES: dict[tuple[str, str], KindRules] = {
    ("networking.k8s.io", "Ingress"): KindRules(strategy=lambda spec, options: IngressStrategy(spec)),
    ("networking.k8s.io", "NetworkPolicy"): KindRules(strategy=lambda spec, options: NetworkPolicyStrategy(spec)),
    ("discovery.k8s.io", "EndpointSlice"): KindRules(strategy=lambda spec, options: EndpointSliceStrategy(spec)),
}
