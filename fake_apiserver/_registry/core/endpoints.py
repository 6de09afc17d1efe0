"""Endpoints (core/v1): a port's protocol defaults to TCP (``SetDefaults_EndpointPort``).

Its Table's cells: :func:`print_endpoints` (``formatEndpoints``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, count_of, name_of

__all__ = ["EndpointsStrategy", "KIND", "print_endpoints"]

Obj = dict[str, Any]


def _default_endpoints(obj: Obj) -> None:
    """``SetDefaults_EndpointPort``: a port's protocol is TCP."""
    for subset in obj.get("subsets") or []:
        for port in (subset.get("ports") or []) if isinstance(subset, dict) else []:
            if isinstance(port, dict) and not port.get("protocol"):
                port["protocol"] = "TCP"


class EndpointsStrategy(Strategy):
    def default(self, obj: Obj) -> None:
        _default_endpoints(obj)


def print_endpoints(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """``formatEndpoints``: ``ip:port`` for each port of each subset (bare IPs when it has none), three
    at most and "+ N more..."."""
    subsets = obj.get("subsets") or []
    if not subsets:
        return [name_of(obj), "<none>", age_of(obj, now)], []
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [str(a.get("ip", "")) for a in subset.get("addresses") or []]
        ports = subset.get("ports") or []
        for port in ports or [None]:
            count += len(addresses)
            for ip in addresses:
                if len(shown) < 3:
                    host = f"[{ip}]" if ":" in ip else ip
                    shown.append(ip if port is None else f"{host}:{count_of(port.get('port'))}")
    text = ",".join(shown)
    return [name_of(obj), f"{text} + {count - 3} more..." if count > 3 else text, age_of(obj, now)], []


KIND = KindRules(group="", kind="Endpoints", strategy=lambda spec, options: EndpointsStrategy(spec),
                 printer=print_endpoints)
"""The Endpoints' declaration."""
