"""The other core/v1 kinds with rules of their own: Namespaces, Services, ReplicationControllers,
ConfigMaps, Secrets, PodTemplates, Endpoints, LimitRanges and ResourceQuotas.

A Secret's ``stringData`` is merged into ``data`` (base64, overwriting) and dropped, and its type
defaults to ``Opaque``, on every write as the real conversion and defaulting do; validation then
sees only ``data``. The JSON a ``dockercfg``/``dockerconfigjson`` Secret must hold is checked by a
small scanner that names the first syntax error in ``encoding/json``'s words (Go's scanner is a
state machine over bytes; this one reads characters, so a non-ASCII character is quoted as one).
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import nbytes
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._registry.apps import default_pod_template, pod_template_errors
from fake_apiserver._registry.fieldrules import (
    get_in,
    immutable_errors,
    invalid_each,
    labels_errors,
    non_negative_errors,
    template_mismatch,
)
from fake_apiserver._registry.generic import KindRules, Strategy

__all__ = ["EndpointsStrategy", "NamespaceStrategy", "PodTemplateStrategy", "RULES", "ReplicationControllerStrategy",
           "ServiceStrategy",
           "ResourceQuotaStrategy", "SecretStrategy", "default_replication_controller", "default_secret"]

Obj = dict[str, Any]


class NamespaceStrategy(Strategy):
    generation = False

    def default(self, obj: Obj) -> None:
        """``SetDefaults_Namespace``: the ``kubernetes.io/metadata.name`` label is the namespace's
        name, on every write."""
        meta = obj.get("metadata")
        if isinstance(meta, dict) and meta.get("name"):
            labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else None
            meta["labels"] = {**(labels or {}), "kubernetes.io/metadata.name": meta["name"]}

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
    """A Service keeps its cluster IP: a valid IP set on update that is not the stored one is
    refused as the real server refuses a change of its allocated IP (an ExternalName or headless
    Service aside)."""
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
    """``ValidatePodTemplateSpecForRC``'s own checks: a selector that is set selects the
    template's labels, the template restarts Always and has no active deadline."""
    spec = get_in(obj, "spec") or {}
    selector = spec.get("selector") or {}
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors: list[FieldError] = []
    if selector and isinstance(selector, Mapping) and not all(labels.get(k) == v for k, v in selector.items()):
        errors.append(template_mismatch(labels))
    if isinstance(spec.get("template"), Mapping):
        errors += pod_template_errors(spec["template"], "spec.template")
        restart = get_in(spec, "template", "spec", "restartPolicy")
        if restart != "Always":
            errors.append(FieldError.not_supported("spec.template.spec.restartPolicy", restart or "", ["Always"]))
        if get_in(spec, "template", "spec", "activeDeadlineSeconds") is not None:
            errors.append(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds",
                                               "activeDeadlineSeconds in ReplicationController is not Supported"))
    return errors


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


def _replication_controller_rules(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateReplicationControllerSpec``, in its order."""
    errors = non_negative_errors(obj, "minReadySeconds")
    if not get_in(obj, "spec", "selector"):
        errors.append(FieldError.required("spec.selector"))
    return errors + non_negative_errors(obj, "replicas") + _replication_controller_errors(obj)


def default_replication_controller(obj: Obj) -> None:
    """``SetDefaults_ReplicationController``: the template's labels stand for a missing selector
    and missing labels; one replica; the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    labels = get_in(spec, "template", "metadata", "labels")
    if isinstance(labels, dict):
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        if not obj["metadata"].get("labels"):
            obj["metadata"]["labels"] = dict(labels)
    spec.setdefault("replicas", 1)
    if isinstance(spec.get("template"), dict):
        default_pod_template(spec["template"])


class ReplicationControllerStrategy(Strategy):
    """Defaults on every write; a create answers with the status' replica count 0."""

    def default(self, obj: Obj) -> None:
        default_replication_controller(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {"replicas": 0}


def _service_rules(obj: Mapping[str, Any]) -> list[FieldError]:
    return (_service_errors(obj) + _service_ports_errors(obj) + _service_selector_errors(obj)
            + _service_type_errors(obj) + _service_cluster_ip_errors(obj))


_IMMUTABLE_SET = "field is immutable when `immutable` is set"


def _immutable_data_errors(new: Mapping[str, Any], old: Mapping[str, Any], keys: tuple[str, ...]) -> list[FieldError]:
    """An object stored with ``immutable: true`` keeps that flag and its data."""
    if old.get("immutable") is not True:
        return []
    errors = [] if new.get("immutable") is True else [FieldError.forbidden("immutable", _IMMUTABLE_SET)]
    for key in keys:
        if (new.get(key) or {}) != (old.get(key) or {}):
            errors.append(FieldError.forbidden(key, _IMMUTABLE_SET))
    return errors


def _config_map_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return _immutable_data_errors(new, old, ("data", "binaryData"))


def default_secret(obj: Obj) -> None:
    """The v1 conversion's ``stringData`` merge (each value base64-encoded over ``data``'s) and
    ``SetDefaults_Secret`` (type ``Opaque``)."""
    strings = obj.pop("stringData", None)
    if isinstance(strings, dict) and strings:
        data = obj.get("data")
        if not isinstance(data, dict):
            data = obj["data"] = {}
        for key, value in strings.items():
            data[key] = base64.b64encode(str(value).encode()).decode()
    if not obj.get("type"):
        obj["type"] = "Opaque"


_MAX_SECRET_SIZE = 1024 * 1024


def _decoded_size(value: Any) -> int:
    try:
        return len(base64.b64decode(str(value)))
    except ValueError:
        return 0


class _GoSyntaxError(ValueError):
    pass


def _quote_char(c: str) -> str:
    """``encoding/json``'s ``quoteChar``."""
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    quoted = json.dumps(c)[1:-1] if not c.isprintable() else c
    return f"'{quoted}'"


class _GoJSONScanner:
    """Just enough of ``encoding/json``'s scanner to name the first syntax error as Go does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, context: str) -> _GoSyntaxError:
        if self.i >= len(self.text):
            return _GoSyntaxError("unexpected end of JSON input")
        return _GoSyntaxError(f"invalid character {_quote_char(self.text[self.i])} {context}")

    def peek(self) -> str:
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1
        if self.i >= len(self.text):
            raise _GoSyntaxError("unexpected end of JSON input")
        return self.text[self.i]

    def value(self) -> None:
        c = self.peek()
        if c == "{":
            self.i += 1
            self.members("}", self.member, "after object key:value pair")
        elif c == "[":
            self.i += 1
            self.members("]", self.value, "after array element")
        elif c == '"':
            self.string()
        elif c == "-" or c.isdigit():
            self.number()
        elif c in "tfn":
            word = {"t": "true", "f": "false", "n": "null"}[c]
            for expected in word[1:]:
                self.i += 1
                if self.i >= len(self.text) or self.text[self.i] != expected:
                    raise self.fail(f"in literal {word} (expecting {_quote_char(expected)})")
            self.i += 1
        else:
            raise self.fail("looking for beginning of value")

    def members(self, close: str, item: Any, after: str) -> None:
        if self.peek() == close:
            self.i += 1
            return
        while True:
            item()
            c = self.peek()
            self.i += 1
            if c == close:
                return
            if c != ",":
                self.i -= 1
                raise self.fail(after)

    def member(self) -> None:
        if self.peek() != '"':
            raise self.fail("looking for beginning of object key string")
        self.string()
        if self.peek() != ":":
            raise self.fail("after object key")
        self.i += 1
        self.value()

    def string(self) -> None:
        self.i += 1
        while True:
            if self.i >= len(self.text):
                raise self.fail("")
            c = self.text[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                self.i += 1
                if self.i >= len(self.text):
                    raise self.fail("")
                if self.text[self.i] == "u":
                    for _ in range(4):
                        self.i += 1
                        if self.i >= len(self.text) or self.text[self.i] not in "0123456789abcdefABCDEF":
                            raise self.fail("in \\u hexadecimal character escape")
                elif self.text[self.i] not in 'bfnrt"\\/':
                    raise self.fail("in string escape code")
            elif ord(c) < 0x20:
                raise self.fail("in string literal")
            self.i += 1

    def digits(self, context: str) -> None:
        if self.i >= len(self.text) or not self.text[self.i].isdigit():
            raise self.fail(context)
        while self.i < len(self.text) and self.text[self.i].isdigit():
            self.i += 1

    def number(self) -> None:
        if self.text[self.i] == "-":
            self.i += 1
        if self.i < len(self.text) and self.text[self.i] == "0":
            self.i += 1
        else:
            self.digits("in numeric literal")
        if self.i < len(self.text) and self.text[self.i] == ".":
            self.i += 1
            self.digits("after decimal point in numeric literal")
        if self.i < len(self.text) and self.text[self.i] in "eE":
            self.i += 1
            if self.i < len(self.text) and self.text[self.i] in "+-":
                self.i += 1
            self.digits("in exponent of numeric literal")


def _go_json_error(raw: bytes) -> str | None:
    """What ``json.Unmarshal`` into a ``map[string]interface{}`` says of ``raw`` (None: nothing)."""
    text = raw.decode("utf-8", "replace")
    scanner = _GoJSONScanner(text)
    try:
        scanner.value()
        if text[scanner.i:].strip(" \t\r\n"):
            scanner.peek()
            raise scanner.fail("after top-level value")
    except _GoSyntaxError as e:
        return str(e)
    value = json.loads(text)
    if value is None or isinstance(value, dict):
        return None
    return f"json: cannot unmarshal {_go_json_kind(value)} into Go value of type map[string]interface {{}}"


def _go_json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    return "number"


def _secret_data(obj: Mapping[str, Any], key: str) -> bytes | None:
    data = obj.get("data") or {}
    if key not in data:
        return None
    try:
        return base64.b64decode(str(data[key] or ""))
    except ValueError:
        return b""


def _json_key_errors(obj: Mapping[str, Any], key: str) -> list[FieldError]:
    raw = _secret_data(obj, key)
    if raw is None:
        return [FieldError.required(f"data[{key}]")]
    problem = _go_json_error(raw)
    return [] if problem is None else [FieldError.invalid(f"data[{key}]", "<secret contents redacted>", problem)]


def _secret_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateSecret``: the data keys, the total size, the keys each type requires."""
    errors: list[FieldError] = []
    data = obj.get("data") or {}
    for key in data:
        errors += invalid_each(f"data[{key}]", key, _config_key_messages(key))
    if sum(_decoded_size(v) for v in data.values()) > _MAX_SECRET_SIZE:
        errors.append(FieldError("FieldValueTooLong", "data", f"may not be more than {_MAX_SECRET_SIZE} bytes"))
    kind = obj.get("type") or ""
    if kind == "kubernetes.io/service-account-token":
        if not (get_in(obj, "metadata", "annotations") or {}).get("kubernetes.io/service-account.name"):
            errors.append(FieldError.required("metadata.annotations[kubernetes.io/service-account.name]"))
    elif kind == "kubernetes.io/dockercfg":
        errors += _json_key_errors(obj, ".dockercfg")
    elif kind == "kubernetes.io/dockerconfigjson":
        errors += _json_key_errors(obj, ".dockerconfigjson")
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:  # either may be empty, but one must be there
            errors += [FieldError.required("data[username]"), FieldError.required("data[password]")]
    elif kind == "kubernetes.io/ssh-auth":
        if not _secret_data(obj, "ssh-privatekey"):
            errors.append(FieldError.required("data[ssh-privatekey]"))
    elif kind == "kubernetes.io/tls":
        for key in ("tls.crt", "tls.key"):
            if key not in data:
                errors.append(FieldError.required(f"data[{key}]"))
    return errors


def _secret_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateSecretUpdate``'s own rules, which come before ``ValidateSecret``'s."""
    return immutable_errors(new.get("type"), old.get("type"), "type") + _immutable_data_errors(new, old, ("data",))


class SecretStrategy(Strategy):
    """Defaults on every write; on update the immutability rules come before the Secret's own."""

    def default(self, obj: Obj) -> None:
        default_secret(obj)

    def update_rule_errors(self, new: Obj, old: Obj) -> list[FieldError]:
        return self.rules.update(new, old) + self.rules.create(new)


class PodTemplateStrategy(Strategy):
    """A PodTemplate has no ``spec`` but counts generations of its ``template``, which gets the
    pod spec's defaults."""

    def default(self, obj: Obj) -> None:
        default_pod_template(obj.get("template"))

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        if "generation" in old["metadata"]:
            changed = semantic(new.get("template")) != semantic(old.get("template"))
            new["metadata"]["generation"] = old["metadata"]["generation"] + (1 if changed else 0)


def _default_endpoints(obj: Obj) -> None:
    """``SetDefaults_EndpointPort``: a port's protocol is TCP."""
    for subset in obj.get("subsets") or []:
        for port in (subset.get("ports") or []) if isinstance(subset, dict) else []:
            if isinstance(port, dict) and not port.get("protocol"):
                port["protocol"] = "TCP"


class EndpointsStrategy(Strategy):
    def default(self, obj: Obj) -> None:
        _default_endpoints(obj)


class ResourceQuotaStrategy(Strategy):
    """A created quota answers with its empty status (a struct, encoded as ``{}``)."""

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = {}


RULES: dict[tuple[str, str], KindRules] = {
    ("", "ConfigMap"): KindRules(create=_config_map_errors, update=_config_map_update_errors),
    ("", "Endpoints"): KindRules(strategy=lambda spec, options: EndpointsStrategy(spec)),
    ("", "LimitRange"): KindRules(generation=False),
    ("", "Namespace"): KindRules(  # its own REST answers a delete with the namespace
        returns_deleted_object=True, strategy=lambda spec, options: NamespaceStrategy(spec)),
    ("", "PodTemplate"): KindRules(create=lambda obj: pod_template_errors(obj.get("template"), "template"),
                                   strategy=lambda spec, options: PodTemplateStrategy(spec)),
    ("", "ReplicationController"): KindRules(
        create=_replication_controller_rules, strategy=lambda spec, options: ReplicationControllerStrategy(spec)),
    ("", "ResourceQuota"): KindRules(generation=False, strategy=lambda spec, options: ResourceQuotaStrategy(spec)),
    ("", "Secret"): KindRules(create=_secret_errors, update=_secret_update_errors,
                              strategy=lambda spec, options: SecretStrategy(spec)),
    ("", "Service"): KindRules(
        create=_service_rules, update=_service_update_errors, create_on_update=True, returns_deleted_object=True,
        generation=False, strategy=lambda spec, options: ServiceStrategy(spec)),
}
