"""Services (core/v1): their rules, defaults and the cluster IP the REST storage allocates.

A PUT of a missing Service creates it; a delete answers with the Service; no generation.

Its Table's cells: :func:`print_service`.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.fieldrules import get_in, labels_errors
from fake_apiserver._registry.generic import FieldLabels, KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, count_of, format_labels, load_balancer_points, name_of

__all__ = ["KIND", "ServiceStrategy", "print_service"]

Obj = dict[str, Any]


def _service_selector_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return labels_errors(get_in(obj, "spec", "selector"), "spec.selector")


_SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]


def _service_type_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    kind = get_in(obj, "spec", "type")
    if kind is None or kind == "":
        return []
    if kind not in _SERVICE_TYPES:
        return [FieldError.not_supported("spec.type", kind, _SERVICE_TYPES)]
    if kind == "ExternalName" and not get_in(obj, "spec", "externalName"):
        return [FieldError.required("spec.externalName")]
    return []


def _service_ports_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """A Service needs ports unless it is headless (``clusterIP: None``) or an ExternalName."""
    spec = get_in(obj, "spec") or {}
    if spec.get("ports") or spec.get("clusterIP") == "None" or spec.get("type") == "ExternalName":
        return []
    return [FieldError.required("spec.ports")]


def _service_cluster_ip_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """A ``clusterIP`` the client sets is an IP address (or ``None``: headless)."""
    ip = get_in(obj, "spec", "clusterIP")
    if not ip or ip == "None":
        return []
    try:
        ipaddress.ip_address(str(ip))
    except ValueError:
        return [FieldError.invalid("spec.clusterIPs[0]", ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    return []


def _service_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """A Service keeps its cluster IP: a valid IP set on update that is not the stored one is
    refused as the real server refuses a change of its allocated IP (an ExternalName or headless
    Service aside)."""
    ip, old_ip = get_in(new, "spec", "clusterIP"), get_in(old, "spec", "clusterIP")
    types = {get_in(new, "spec", "type"), get_in(old, "spec", "type")}
    if not ip or ip == old_ip or "None" in (ip, old_ip) or "ExternalName" in types or _service_cluster_ip_errors(new):
        return []
    return [FieldError.invalid("spec.clusterIPs[0]", GoJSON(json.dumps([ip])), "may not change once set")]


def _service_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    ports = get_in(obj, "spec", "ports") or []
    names: set[str] = set()
    for i, port in enumerate(ports):
        if not isinstance(port, Mapping):
            continue
        port_name = port.get("name") or ""
        if len(ports) > 1 and not port_name:  # names tell apart the ports of a multi-port service
            errors.append(FieldError.required(f"spec.ports[{i}].name"))
        elif port_name in names:
            errors.append(FieldError.duplicate(f"spec.ports[{i}].name", port_name))
        names.add(port_name)
        number = port.get("port")
        if isinstance(number, int) and not 1 <= number <= 65535:
            errors.append(FieldError.invalid(f"spec.ports[{i}].port", number, "must be between 1 and 65535, inclusive"))
        target = port.get("targetPort")
        if target in (None, 0, ""):  # defaulted to the port
            target = number
        if isinstance(target, int) and not isinstance(target, bool) and not 1 <= target <= 65535:
            errors.append(FieldError.invalid(f"spec.ports[{i}].targetPort", target,
                                             "must be between 1 and 65535, inclusive"))
    return errors


class ServiceStrategy(Strategy):
    """``SetDefaults_Service``, and what the Service REST storage adds on create: a cluster IP
    from the service range (the fake hands them out in order from 10.0.0.2, the first address
    after the ``kubernetes`` Service's, where kube-apiserver picks at random from its
    ``--service-cluster-ip-range``; node ports are not allocated), one IPv4 family, and the empty
    ``status.loadBalancer``. An update that leaves the allocated fields out keeps them
    (``patchAllocatedValues``)."""

    _ALLOCATED = ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy")

    def __init__(self, spec: KindSpec) -> None:
        super().__init__(spec)
        self._next_ip = ipaddress.IPv4Address("10.0.0.2")

    def default(self, obj: Obj) -> None:
        """Ports: TCP, and a target port that is unset (or 0, or ``""``, as a decoded
        ``IntOrString`` is) is the port; the type ``ClusterIP``, no session affinity, and the
        cluster traffic policies of the types that route."""
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            return
        for port in spec.get("ports") or ():
            if isinstance(port, dict):
                if not port.get("protocol"):
                    port["protocol"] = "TCP"
                if port.get("targetPort") in (None, 0, "") and isinstance(port.get("port"), int):
                    port["targetPort"] = port["port"]
        kind = spec.setdefault("type", "ClusterIP") or "ClusterIP"
        spec.setdefault("sessionAffinity", "None")
        if kind != "ExternalName":
            spec.setdefault("internalTrafficPolicy", "Cluster")
        if kind in ("NodePort", "LoadBalancer"):
            spec.setdefault("externalTrafficPolicy", "Cluster")
        if kind == "LoadBalancer":
            spec.setdefault("allocateLoadBalancerNodePorts", True)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"loadBalancer": {}}
        spec = obj.setdefault("spec", {})
        if spec.get("type") == "ExternalName":
            return
        ip = spec.get("clusterIP") or ""
        if not ip:
            ip = spec["clusterIP"] = str(self._next_ip)
            self._next_ip += 1
        spec.setdefault("clusterIPs", [ip])
        spec.setdefault("ipFamilies", ["IPv4"])
        spec.setdefault("ipFamilyPolicy", "SingleStack")

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        spec, old_spec = new.get("spec"), old.get("spec") or {}
        if isinstance(spec, dict) and spec.get("type") == old_spec.get("type") != "ExternalName":
            for key in self._ALLOCATED:
                if not spec.get(key) and key in old_spec:
                    spec[key] = json_copy(old_spec[key])


def _service_rules(obj: Mapping[str, Any]) -> list[FieldError]:
    return (_service_errors(obj) + _service_ports_errors(obj) + _service_selector_errors(obj)
            + _service_type_errors(obj) + _service_cluster_ip_errors(obj))


def print_service(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"  # defaulted by the server
    external_ips = spec.get("externalIPs") or []
    if kind in ("ClusterIP", "NodePort"):
        external = ",".join(external_ips) or "<none>"
    elif kind == "LoadBalancer":
        points = load_balancer_points(at(obj, "status", "loadBalancer"))
        external = ",".join(points + external_ips) or "<pending>"
    elif kind == "ExternalName":
        external = spec.get("externalName") or ""
    else:
        external = "<unknown>"
    ports = ",".join(
        (f"{count_of(p.get('port'))}:{count_of(p.get('nodePort'))}/{p.get('protocol') or 'TCP'}" if count_of(p.get("nodePort")) > 0
         else f"{count_of(p.get('port'))}/{p.get('protocol') or 'TCP'}") for p in spec.get("ports") or [])
    cluster_ips = spec.get("clusterIPs") or ([spec["clusterIP"]] if spec.get("clusterIP") else [])
    return [name_of(obj), kind, cluster_ips[0] if cluster_ips else "<none>", external, ports or "<none>",
            age_of(obj, now), format_labels(spec.get("selector"))], []


KIND = KindRules(
    group="", kind="Service", name_rule="label", etcd_prefix="services/specs",
    create=_service_rules, update=_service_update_errors, create_on_update=True, returns_deleted_object=True,
    openapi_delete_returns_object=True, generation=False, strategy=lambda spec, options: ServiceStrategy(spec),
    field_labels=FieldLabels(("spec.clusterIP", "spec.type")), printer=print_service)
"""The Service's declaration."""
