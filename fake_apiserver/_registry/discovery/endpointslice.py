"""EndpointSlices (``discovery.k8s.io/v1``): what the registry defaults on a write, checked against
kube-apiserver v1.37.2 (``tests/test_builtin_kinds.py``): the endpoints get their (empty)
``conditions``, the ports an empty name and TCP, and, though the kind has no ``spec``, a
``generation`` of 1 that moves when anything but the metadata changes."""

from __future__ import annotations

from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["EndpointSliceStrategy", "KIND"]

Obj = dict[str, Any]


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


KIND = KindRules(group="discovery.k8s.io", kind="EndpointSlice",
                 strategy=lambda spec, options: EndpointSliceStrategy(spec))
"""The EndpointSlice's declaration."""
