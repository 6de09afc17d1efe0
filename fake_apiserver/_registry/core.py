"""The other core/v1 kinds with rules of their own: Namespaces, Services, ReplicationControllers
and ConfigMaps.
"""

from __future__ import annotations

import ipaddress
import json
import re
from typing import Any, Mapping

from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.names import nbytes
from fake_apiserver._registry.fieldrules import get_in, invalid_each, labels_errors, non_negative_errors, template_mismatch
from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["NamespaceStrategy", "RULES"]

Obj = dict[str, Any]


class NamespaceStrategy(Strategy):
    generation = False

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"phase": "Active"}
        spec = obj.setdefault("spec", {})
        spec.setdefault("finalizers", ["kubernetes"])


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
    """A Service keeps its cluster IP. The real server allocates one on create and the fake does
    not, so a valid IP set on update that is not the stored one is refused as the real server
    refuses a change of its allocated IP (an ExternalName or headless Service aside)."""
    ip, old_ip = get_in(new, "spec", "clusterIP"), get_in(old, "spec", "clusterIP")
    types = {get_in(new, "spec", "type"), get_in(old, "spec", "type")}
    if not ip or ip == old_ip or "None" in (ip, old_ip) or "ExternalName" in types or _service_cluster_ip_errors(new):
        return []
    return [FieldError.invalid("spec.clusterIPs[0]", GoJSON(json.dumps([ip])), "may not change once set")]


_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"


_CONFIG_KEY_ERROR = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
                     f"'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '{_CONFIG_KEY_FMT}')")


def _config_key_messages(key: str) -> list[str]:
    """``IsConfigMapKey``."""
    messages = []
    if nbytes(key) > 253:
        messages.append("must be no more than 253 bytes")
    if not re.fullmatch(_CONFIG_KEY_FMT, key):
        messages.append(_CONFIG_KEY_ERROR)
    if key in (".", ".."):
        messages.append(f"must not be '{key}'")
    elif key.startswith(".."):
        messages.append("must not start with '..'")
    return messages


def _config_map_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    data, binary = obj.get("data") or {}, obj.get("binaryData") or {}
    for key in data:
        errors += invalid_each(f"data[{key}]", key, _config_key_messages(key))
    for key in binary:
        errors += invalid_each(f"binaryData[{key}]", key, _config_key_messages(key))
        if key in data:
            errors.append(FieldError.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
    return errors


def _replication_controller_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}
    selector = spec.get("selector") or {}
    labels = get_in(spec, "template", "metadata", "labels") or {}
    if not selector or not isinstance(selector, Mapping) or all(labels.get(k) == v for k, v in selector.items()):
        return []
    return [template_mismatch(labels)]


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
            if port.get("targetPort") is None:  # defaulted to the port
                errors.append(FieldError.invalid(f"spec.ports[{i}].targetPort", number,
                                                 "must be between 1 and 65535, inclusive"))
    return errors


def _replication_controller_rules(obj: Mapping[str, Any]) -> list[FieldError]:
    return _replication_controller_errors(obj) + non_negative_errors(obj, "minReadySeconds", "replicas")


def _service_rules(obj: Mapping[str, Any]) -> list[FieldError]:
    return (_service_errors(obj) + _service_ports_errors(obj) + _service_selector_errors(obj)
            + _service_type_errors(obj) + _service_cluster_ip_errors(obj))


RULES: dict[tuple[str, str], KindRules] = {
    ("", "ConfigMap"): KindRules(create=_config_map_errors),
    ("", "Namespace"): KindRules(  # its own REST answers a delete with the namespace
        returns_deleted_object=True, strategy=lambda spec, options: NamespaceStrategy(spec)),
    ("", "ReplicationController"): KindRules(create=_replication_controller_rules),
    ("", "Service"): KindRules(
        create=_service_rules, update=_service_update_errors, create_on_update=True, returns_deleted_object=True,
        generation=False),
}
