"""EndpointSlices (``discovery.k8s.io/v1``): what the registry defaults on a write, checked against
kube-apiserver v1.37.2 (``tests/fake_apiserver/_registry/test_builtin_kinds.py``): the endpoints get their (empty)
``conditions``, the ports an empty name and TCP, and, though the kind has no ``spec``, a
``generation`` of 1 that moves when anything but the metadata changes.

Its Table's cells: :func:`print_endpoint_slice`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["EndpointSliceStrategy", "KIND", "print_endpoint_slice"]

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


def _with_more(items: list[str], count: int, limit: int, empty: str = "<unset>") -> str:
    """``listWithMoreString``: the first ``limit`` items and "+ N more..." for the rest."""
    text = ",".join(items[:limit])
    if count > limit:
        return f"{text} + {count - limit} more..."
    return text or empty


def print_endpoint_slice(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    ports = obj.get("ports") or []
    port_texts = [str(p["port"]) if p.get("port") is not None else str(p["name"]) if p.get("name") is not None
                  else "*" for p in ports]
    addresses = [str(a) for e in obj.get("endpoints") or [] for a in e.get("addresses") or []]
    return [name_of(obj), obj.get("addressType") or "", _with_more(port_texts, len(port_texts), 3),
            _with_more(addresses, len(addresses), 3), age_of(obj, now)], []


KIND = KindRules(group="discovery.k8s.io", kind="EndpointSlice",
                 strategy=lambda spec, options: EndpointSliceStrategy(spec), printer=print_endpoint_slice)
"""The EndpointSlice's declaration."""
