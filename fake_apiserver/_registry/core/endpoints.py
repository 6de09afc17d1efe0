"""Endpoints (core/v1): a port's protocol defaults to TCP (``SetDefaults_EndpointPort``)."""

from __future__ import annotations

from typing import Any

from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["EndpointsStrategy", "KIND"]

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


KIND = KindRules(group="", kind="Endpoints", strategy=lambda spec, options: EndpointsStrategy(spec))
"""The Endpoints' declaration."""
