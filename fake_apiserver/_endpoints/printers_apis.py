"""The printers of the API groups beyond core, apps, batch and autoscaling: networking, discovery,
policy, RBAC, coordination, scheduling, node, storage, resource.k8s.io, admission, flow control,
certificates, apiregistration, storage migration and CustomResourceDefinitions.

Each is a function of a stored object and the clock's time, named for the kind it prints, that gives
a row's cells in kube-apiserver v1.37's wide layout (see :mod:`~fake_apiserver._endpoints.printers`);
which kind gets which printer is one table, :data:`~fake_apiserver._endpoints.tables.PRINTERS`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._endpoints.printformats import (
    Cells,
    age_of,
    at,
    condition,
    count_of,
    format_labels,
    format_selector,
    go_selector,
    human_duration,
    load_balancer_points,
    name_of,
    since,
    with_more,
)

__all__ = [
    "print_admission_policy_binding",
    "print_api_service",
    "print_certificate_signing_request",
    "print_cluster_trust_bundle",
    "print_csi_driver",
    "print_csi_node",
    "print_custom_resource_definition",
    "print_device_taint_rule",
    "print_endpoint_slice",
    "print_flow_schema",
    "print_ingress",
    "print_ingress_class",
    "print_ip_address",
    "print_lease",
    "print_lease_candidate",
    "print_mutating_admission_policy",
    "print_network_policy",
    "print_pod_certificate_request",
    "print_pod_disruption_budget",
    "print_priority_class",
    "print_priority_level_configuration",
    "print_resource_claim",
    "print_resource_slice",
    "print_role_binding",
    "print_runtime_class",
    "print_service_cidr",
    "print_storage_class",
    "print_storage_version_migration",
    "print_validating_admission_policy",
    "print_volume_attachment",
    "print_volume_attributes_class",
    "print_webhook_configuration",
]

Obj = dict[str, Any]


# --- networking, discovery, policy, rbac, coordination, scheduling ---------------------------------


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


def print_ingress_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    params = at(obj, "spec", "parameters")
    text = "<none>"
    if isinstance(params, dict):
        text = str(params.get("kind", ""))
        if params.get("apiGroup") is not None:
            text += "." + str(params["apiGroup"])
        text += "/" + str(params.get("name", ""))
    return [name_of(obj), at(obj, "spec", "controller") or "", text, age_of(obj, now)], []


def print_network_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), format_selector(at(obj, "spec", "podSelector") or {}), age_of(obj, now)], []


def print_service_cidr(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), ",".join(at(obj, "spec", "cidrs") or []), age_of(obj, now)], []


def print_ip_address(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARENTREF ``resource[.group]/[namespace/]name``; the age is printed with no column for it."""
    ref = at(obj, "spec", "parentRef")
    text = "<none>"
    if isinstance(ref, dict):
        group = ref.get("group") or ""
        text = (f"{ref.get('resource', '')}.{group}" if group else str(ref.get("resource", ""))).lower()
        if ref.get("namespace"):
            text += "/" + str(ref["namespace"])
        text += "/" + str(ref.get("name", ""))
    return [name_of(obj), text, age_of(obj, now)], []


def print_endpoint_slice(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    ports = obj.get("ports") or []
    port_texts = [str(p["port"]) if p.get("port") is not None else str(p["name"]) if p.get("name") is not None
                  else "*" for p in ports]
    addresses = [str(a) for e in obj.get("endpoints") or [] for a in e.get("addresses") or []]
    return [name_of(obj), obj.get("addressType") or "", with_more(port_texts, len(port_texts), 3),
            with_more(addresses, len(addresses), 3), age_of(obj, now)], []


def print_pod_disruption_budget(pdb: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = pdb.get("spec") or {}
    bound = ["N/A" if spec.get(k) is None else str(spec[k]) for k in ("minAvailable", "maxUnavailable")]
    return [name_of(pdb), *bound, count_of(at(pdb, "status", "disruptionsAllowed")), age_of(pdb, now)], []


def print_role_binding(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """ROLE ``kind/name``; USERS, GROUPS and SERVICEACCOUNTS (``namespace/name``) ", "-joined."""
    ref: Obj = obj.get("roleRef") or {}
    users, groups, accounts = [], [], []
    for subject in obj.get("subjects") or []:
        kind = subject.get("kind")
        if kind == "User":
            users.append(str(subject.get("name", "")))
        elif kind == "Group":
            groups.append(str(subject.get("name", "")))
        elif kind == "ServiceAccount":
            accounts.append(f"{subject.get('namespace', '')}/{subject.get('name', '')}")
    return [name_of(obj), f"{ref.get('kind', '')}/{ref.get('name', '')}", age_of(obj, now),
            ", ".join(users), ", ".join(groups), ", ".join(accounts)], []


def print_lease(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), at(obj, "spec", "holderIdentity") or "", age_of(obj, now)], []


def print_lease_candidate(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), spec.get("leaseName", ""), spec.get("binaryVersion", ""), spec.get("emulationVersion", ""),
            age_of(obj, now)], []


def print_priority_class(pc: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(pc), count_of(pc.get("value")), bool(pc.get("globalDefault")), age_of(pc, now),
            pc.get("preemptionPolicy") or ""], []


def print_runtime_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), obj.get("handler", ""), age_of(obj, now)], []


# --- storage, resource.k8s.io ------------------------------------------------------------------------


def print_storage_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    annotations = at(obj, "metadata", "annotations") or {}
    default = "true" in (annotations.get("storageclass.kubernetes.io/is-default-class"),
                         annotations.get("storageclass.beta.kubernetes.io/is-default-class"))
    return [name_of(obj) + (" (default)" if default else ""), obj.get("provisioner", ""),
            obj.get("reclaimPolicy") or "Delete", obj.get("volumeBindingMode") or "Immediate",
            bool(obj.get("allowVolumeExpansion")), age_of(obj, now)], []


def print_volume_attributes_class(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), obj.get("driverName", ""), age_of(obj, now)], []


def print_csi_driver(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    attach = spec.get("attachRequired")
    tokens = spec.get("tokenRequests")
    audiences = ",".join(str(t.get("audience", "")) for t in tokens) if tokens is not None else "<unset>"
    return [name_of(obj), True if attach is None else bool(attach), bool(spec.get("podInfoOnMount")),
            bool(spec.get("storageCapacity")), audiences, bool(spec.get("requiresRepublish")),
            ",".join(spec.get("volumeLifecycleModes") or ["Persistent"]), age_of(obj, now)], []


def print_csi_node(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), len(at(obj, "spec", "drivers") or []), age_of(obj, now)], []


def print_volume_attachment(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), spec.get("attacher", ""), at(spec, "source", "persistentVolumeName") or "",
            spec.get("nodeName", ""), bool(at(obj, "status", "attached")), age_of(obj, now)], []


def print_resource_claim(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """STATE: ``deleted``, then ``pending`` or ``allocated`` (and ``reserved``), comma-joined."""
    states = ["deleted"] if at(obj, "metadata", "deletionTimestamp") else []
    if at(obj, "status", "allocation") is None:
        if not states:
            states.append("pending")
    else:
        states.append("allocated")
        if at(obj, "status", "reservedFor"):
            states.append("reserved")
    return [name_of(obj), ",".join(states), age_of(obj, now)], []


def print_resource_slice(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), spec.get("nodeName") or "", spec.get("driver", ""), at(spec, "pool", "name") or "",
            age_of(obj, now)], []


def print_device_taint_rule(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    taint: Obj = at(obj, "spec", "taint") or {}
    return [name_of(obj), taint.get("key", ""), taint.get("value", ""), taint.get("effect", ""),
            since(taint.get("timeAdded"), now), age_of(obj, now)], []


# --- admission, flow control, certificates, apiservices, migrations, CRDs ------------------------


def print_webhook_configuration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), len(obj.get("webhooks") or []), age_of(obj, now)], []


def _param_kind(spec: Obj) -> str:
    kind = spec.get("paramKind")
    return f"{kind.get('apiVersion', '')}/{kind.get('kind', '')}" if isinstance(kind, dict) else "<unset>"


def print_validating_admission_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), len(spec.get("validations") or []), _param_kind(spec), age_of(obj, now)], []


def print_mutating_admission_policy(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), len(spec.get("mutations") or []), _param_kind(spec), age_of(obj, now)], []


def print_admission_policy_binding(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """PARAMREF ``namespace/name`` (``*/name`` without a namespace), else the selector as Go prints it."""
    spec: Obj = obj.get("spec") or {}
    ref = spec.get("paramRef")
    text = "<unset>"
    if isinstance(ref, dict):
        if ref.get("name"):
            text = f"{ref.get('namespace') or '*'}/{ref['name']}"
        elif isinstance(ref.get("selector"), dict):
            text = go_selector(ref["selector"])
    return [name_of(obj), spec.get("policyName", ""), text, age_of(obj, now)], []


def print_flow_schema(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    method = at(spec, "distinguisherMethod", "type") or "<none>"
    dangling = condition(obj, "Dangling")
    return [name_of(obj), at(spec, "priorityLevelConfiguration", "name") or "", count_of(spec.get("matchingPrecedence")),
            method, age_of(obj, now), str(dangling.get("status", "")) if dangling else "?"], []


def print_priority_level_configuration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    limited = spec.get("limited")
    shares: Any = "<none>"
    queues: Any = "<none>"
    hand: Any = "<none>"
    length: Any = "<none>"
    if isinstance(limited, dict):
        shares = count_of(limited.get("nominalConcurrencyShares"))
        queuing = at(limited, "limitResponse", "queuing")
        if isinstance(queuing, dict):
            queues, hand, length = (count_of(queuing.get(k)) for k in ("queues", "handSize", "queueLengthLimit"))
    return [name_of(obj), spec.get("type", ""), shares, queues, hand, length, age_of(obj, now)], []


def print_certificate_signing_request(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    types = {c.get("type") for c in at(obj, "status", "conditions") or []}
    state = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        state += ",Failed"
    if at(obj, "status", "certificate"):
        state += ",Issued"
    seconds = spec.get("expirationSeconds")
    return [name_of(obj), age_of(obj, now), spec.get("signerName") or "<none>", spec.get("username", ""),
            "<none>" if seconds is None else human_duration(count_of(seconds)), state], []


def print_cluster_trust_bundle(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), at(obj, "spec", "signerName") or "<none>"], []


def print_pod_certificate_request(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    state = "Pending"
    for type_ in ("Denied", "Failed"):
        if condition(obj, type_) is not None:
            state = type_
    if at(obj, "status", "certificateChain"):
        state = "Issued"
    annotations = spec.get("unverifiedUserAnnotations") or {}
    return [name_of(obj), spec.get("podName", ""), spec.get("serviceAccountName", ""), spec.get("nodeName", ""),
            spec.get("signerName", ""), state, format_labels(annotations)], []


def print_api_service(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    service = at(obj, "spec", "service")
    where = f"{service.get('namespace', '')}/{service.get('name', '')}" if isinstance(service, dict) else "Local"
    available = condition(obj, "Available")
    text = "Unknown"
    if available is not None:
        text = str(available.get("status", ""))
        if text != "True":
            text += f" ({available.get('reason', '')})"
    return [name_of(obj), where, text, age_of(obj, now)], []


def print_storage_version_migration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    resource: Obj = at(obj, "spec", "resource") or {}
    group = resource.get("group") or ""
    target = f"{resource.get('resource', '')}.{group}" if group else str(resource.get("resource", ""))
    state = "Unknown"
    for type_ in ("Running", "Succeeded", "Failed"):
        found = condition(obj, type_)
        if found is not None and found.get("status") == "True":
            state = type_
    return [name_of(obj), target, state], []


def print_custom_resource_definition(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """SCOPE, the served VERSIONS (the storage one marked ``(storage)``), and wide: GROUP, KIND,
    SHORTNAMES and whether it is ESTABLISHED."""
    spec: Obj = obj.get("spec") or {}
    versions = [str(v.get("name", "")) + ("(storage)" if v.get("storage") else "")
                for v in spec.get("versions") or [] if v.get("served")]
    established = condition(obj, "Established")
    return [name_of(obj), spec.get("scope", ""), ",".join(versions), at(obj, "metadata", "creationTimestamp"),
            spec.get("group", ""), at(spec, "names", "kind") or "", ",".join(at(spec, "names", "shortNames") or []),
            established is not None and established.get("status") == "True"], []
