"""Pod validation (``ValidatePodCreate``, ``ValidatePodUpdate``, ``ValidatePodStatusUpdate``),
with the real server's messages, as far as schedulers and the requests that reach a scheduler
test meet it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any, Sequence

import orjson

from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.equality import semantic_omitzero, spec_diff
from fake_apiserver._machinery.errors import FieldError, GoJSON
from fake_apiserver._machinery.gotypes import kind_node, semantic_of
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name
from fake_apiserver._registry.fieldrules import (
    container_port_errors,
    dedupe,
    get_in,
    immutable_errors,
    invalid_each,
    labels_errors,
    qualified_name_errors,
)

__all__ = ["POD_UPDATE_FORBIDDEN_PREFIX", "node_affinity_errors", "pod_resource_claim_errors", "resource_requirements_errors", "validate_pod_create", "validate_pod_status_update", "validate_pod_update"]

Obj = dict[str, Any]


def _pod_spec_semantic(spec: Any) -> Any:
    """A PodSpec normalised as ``apiequality.Semantic`` compares it, on its Go type (a pointer
    set to an empty struct, as ``affinity: {}``, differs from none)."""

    return semantic_of(spec, kind_node("", "v1", "Pod").fields["spec"].node)


_MAX_INT32 = 2**31 - 1


POD_UPDATE_FORBIDDEN_PREFIX = (
    "pod updates may not change fields other than "
    + ",".join([
        "`spec.containers[*].image`",
        "`spec.initContainers[*].image`",
        "`spec.activeDeadlineSeconds`",
        "`spec.tolerations` (only additions to existing tolerations)",
        "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
    ])
    + "\n"
)
"""``updatablePodSpecFields`` as ``ValidatePodUpdate`` joins them; the real message goes on with a
go-cmp diff (which go-cmp deliberately randomises), the fake's with a simple one."""


def _container_errors(
    containers: Sequence[Mapping[str, Any]], path: str, names: set[str], *, init: bool
) -> list[FieldError]:
    """``validateContainerCommon`` (name, image) plus name uniqueness across the pod's containers.

    Like Go, regular containers record even an empty name as seen; init containers do not.
    """
    errors: list[FieldError] = []
    for i, container in enumerate(containers):
        name = container.get("name") or ""
        if not name:
            errors.append(FieldError.required(f"{path}[{i}].name"))
        else:
            errors += invalid_each(f"{path}[{i}].name", name, is_dns1123_label(name))
        image = container.get("image") or ""
        if not image:
            errors.append(FieldError.required(f"{path}[{i}].image"))
        errors += container_port_errors(container.get("ports"), f"{path}[{i}].ports")
        errors += resource_requirements_errors(container.get("resources") or {}, f"{path}[{i}].resources")
        if name in names:
            errors.append(FieldError.duplicate(f"{path}[{i}].name", name))
        elif name or not init:
            names.add(name)
    return errors


_OVERCOMMIT_FREE_PREFIXES = ("hugepages-",)


def _overcommit_allowed(name: str) -> bool:
    """``helper.IsOvercommitAllowed``: native resources (no domain, or ``kubernetes.io/``) other
    than hugepages may have a request below their limit; extended resources may not."""
    native = "/" not in name or name.startswith("kubernetes.io/")
    return native and not name.startswith(_OVERCOMMIT_FREE_PREFIXES)


def resource_requirements_errors(resources: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateContainerResourceRequirements`` as far as quantities go: no negative quantity,
    no request above its limit, and a request equal to its limit (which must be set) for a
    resource that cannot be overcommitted. Values are quoted in canonical form (``0.3`` as
    ``300m``). Go walks the maps in random order; the fake in the order of the keys."""
    errors: list[FieldError] = []
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    if not isinstance(limits, Mapping) or not isinstance(requests, Mapping):
        return errors

    def value(raw: Any) -> Any:
        try:
            return quantity.parse(raw)
        except ValueError:  # the decoder refuses it first; nothing to compare
            return None

    for name, raw in limits.items():
        amount = value(raw)
        if amount is not None and amount < 0:
            errors.append(FieldError.invalid(f"{path}.limits[{name}]", quantity.canonical(raw),
                                             "must be greater than or equal to 0"))
    for name, raw in requests.items():
        amount = value(raw)
        if amount is None:
            continue
        if amount < 0:
            errors.append(FieldError.invalid(f"{path}.requests[{name}]", quantity.canonical(raw),
                                             "must be greater than or equal to 0"))
        if name in limits:
            limit = value(limits[name])
            if limit is None:
                continue
            shown, limit_shown = quantity.canonical(raw), quantity.canonical(limits[name])
            if amount != limit and not _overcommit_allowed(name):
                errors.append(FieldError.invalid(f"{path}.requests", shown,
                                                 f"must be equal to {name} limit of {limit_shown}"))
            elif amount > limit:
                errors.append(FieldError.invalid(f"{path}.requests", shown,
                                                 f"must be less than or equal to {name} limit of {limit_shown}"))
        elif not _overcommit_allowed(name):
            errors.append(FieldError.required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
    return errors


def _image_whitespace_errors(containers: Sequence[Mapping[str, Any]], path: str) -> list[FieldError]:
    """``validateContainerOnlyForPod`` (and the same check in ``ValidateContainerUpdates``)."""
    errors = []
    for i, container in enumerate(containers):
        image = container.get("image") or ""
        if image != image.strip():
            errors.append(FieldError.invalid(f"{path}[{i}].image", image,
                                             "must not have leading or trailing whitespace"))
    return errors


_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _toleration_errors(tolerations: Sequence[Mapping[str, Any]], path: str) -> list[FieldError]:
    """``ValidateTolerations``."""
    errors: list[FieldError] = []
    for i, tol in enumerate(tolerations):
        at = f"{path}[{i}]"
        key, operator = tol.get("key") or "", tol.get("operator") or ""
        value, effect = tol.get("value") or "", tol.get("effect") or ""
        if key:
            errors += invalid_each(f"{at}.key", key, is_qualified_name(key))
        if not key and operator != "Exists":
            errors.append(FieldError.invalid(
                f"{at}.operator", operator,
                'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
        if tol.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(FieldError.invalid(f"{at}.effect", effect,
                                             "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if operator in ("Equal", ""):
            messages = is_label_value(value)
            if messages:
                errors.append(FieldError.invalid(f"{at}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                errors.append(FieldError.invalid(f"{at}.operator", value,
                                                 "value must be empty when `operator` is 'Exists'"))
        else:
            errors.append(FieldError.not_supported(f"{at}.operator", operator, ["Equal", "Exists"]))
        if effect and effect not in _TAINT_EFFECTS:
            errors.append(FieldError.not_supported(f"{at}.effect", effect, list(_TAINT_EFFECTS)))
    return errors


# validateDNSPolicy's list, in the order its message gives it (kube-apiserver v1.36)
_DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]


_RESTART_POLICIES = ["Always", "OnFailure", "Never"]


def _pod_spec_errors(pod: Mapping[str, Any]) -> list[FieldError]:
    """The subset of ``ValidatePodSpec`` the fake enforces, in Go's order. A function of the spec
    alone, so its answer is kept by the spec's JSON: the pods of one template (a workload's, a
    benchmark's) are validated once. A spec that is no JSON orjson writes is validated as it is."""
    spec: Mapping[str, Any] = pod.get("spec") or {}
    try:
        key = orjson.dumps(spec)
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a number kept with its text
        return _spec_errors(spec)
    return list(_spec_errors_of(key))


@functools.lru_cache(maxsize=512)
def _spec_errors_of(key: bytes) -> tuple[FieldError, ...]:
    return tuple(_spec_errors(orjson.loads(key)))


def _spec_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    containers = spec.get("containers") or []
    names: set[str] = set()
    errors += pod_resource_claim_errors(spec.get("resourceClaims"))
    if not containers:
        errors.append(FieldError.required("spec.containers"))
    else:
        errors += _container_errors(containers, "spec.containers", names, init=False)
    errors += _container_errors(spec.get("initContainers") or [], "spec.initContainers", names, init=True)
    restart_policy = spec.get("restartPolicy")
    if restart_policy and restart_policy not in _RESTART_POLICIES:
        errors.append(FieldError.not_supported("spec.restartPolicy", restart_policy, _RESTART_POLICIES))
    dns_policy = spec.get("dnsPolicy")
    if dns_policy and dns_policy not in _DNS_POLICIES:
        errors.append(FieldError.not_supported("spec.dnsPolicy", dns_policy, _DNS_POLICIES))
    errors += labels_errors(spec.get("nodeSelector"), "spec.nodeSelector")
    seen: set[str] = set()
    for i, gate in enumerate(spec.get("schedulingGates") or []):
        gate_name = gate.get("name") or ""
        errors += qualified_name_errors(gate_name, f"spec.schedulingGates[{i}]")
        if gate_name in seen:
            errors.append(FieldError.duplicate(f"spec.schedulingGates[{i}]", gate_name))
        seen.add(gate_name)
    node_name = spec.get("nodeName") or ""
    if node_name:
        errors += invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and not 1 <= deadline <= _MAX_INT32:
        errors.append(FieldError.invalid("spec.activeDeadlineSeconds", deadline,
                                         f"must be between 1 and {_MAX_INT32}, inclusive"))
    hostname = spec.get("hostname") or ""
    if hostname:
        errors += invalid_each("spec.hostname", hostname, is_dns1123_label(hostname))
    errors += _toleration_errors(spec.get("tolerations") or [], "spec.tolerations")
    errors += node_affinity_errors(spec)
    errors += _image_whitespace_errors(containers, "spec.containers")
    errors += _image_whitespace_errors(spec.get("initContainers") or [], "spec.initContainers")
    errors += _scheduling_group_errors(spec)
    return errors


def _scheduling_group_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    """``validateSchedulingGroup`` (v1.36 on; the API server has dropped the field already when
    ``GenericWorkload`` is off): a one-of with ``podGroupName`` its only member, a DNS-1123
    subdomain; not beside ``evictionResponders``."""
    group = spec.get("schedulingGroup")
    if not isinstance(group, Mapping):
        return []
    path = "spec.schedulingGroup.podGroupName"
    name = group.get("podGroupName")
    errors = ([FieldError.invalid(path, None, "must specify one of: `podGroupName`")] if name is None
              else invalid_each(path, name, is_dns1123_subdomain(str(name))))
    if spec.get("evictionResponders"):
        errors.append(FieldError.forbidden("spec.schedulingGroup", "may not be set when evictionResponders is set"))
    return errors


def validate_pod_create(pod: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodCreate`` without the object-meta part (that is :func:`validate_object_meta`).

    Adds to the spec checks: ephemeral containers are refused on create, and a pod that still has
    scheduling gates may not name a node.
    """
    spec: Mapping[str, Any] = pod.get("spec") or {}
    errors = _pod_spec_errors(pod)
    if spec.get("ephemeralContainers"):
        errors.append(FieldError.forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        errors.append(FieldError.forbidden("spec.nodeName",
                                           "cannot be set until all schedulingGates have been cleared"))
    return dedupe(errors)


def _tolerations_only_added(new: Sequence[Mapping[str, Any]], old: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    """``validateOnlyAddedTolerations``: every old toleration must survive, bar ``tolerationSeconds``."""
    def without_seconds(tol: Mapping[str, Any]) -> Any:
        return semantic_omitzero({k: v for k, v in tol.items() if k != "tolerationSeconds"})

    remaining = [without_seconds(t) for t in new]
    for tol in old:
        if without_seconds(tol) not in remaining:
            return [FieldError.forbidden("spec.tolerations",
                                         "existing toleration can not be modified except its tolerationSeconds")]
    return _toleration_errors(new, "spec.tolerations")


def _gates_only_deleted(new: Sequence[Mapping[str, Any]], old: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    """``validateOnlyDeletedSchedulingGates``: the index reported is a new gate's last position.

    Go walks a map here, so its order is random; the fake reports by index.
    """
    if not new:
        return []
    added = {gate.get("name") or "": i for i, gate in enumerate(new)}
    for gate in old:
        added.pop(gate.get("name") or "", None)
    return [
        FieldError.forbidden(f"spec.schedulingGates[{i}].name",
                             f"only deletion is allowed, but found new scheduling gate '{name}'")
        for name, i in sorted(added.items(), key=lambda item: item[1])
    ]


def _go_terms(terms: Any) -> Any:
    """Render ``[]core.NodeSelectorTerm`` as Go's ``json.Marshal`` does: internal types carry no
    json tags, so the keys are the Go field names and nil slices are ``null``."""
    if terms is None:
        return None

    def requirements(reqs: Any) -> Any:
        if reqs is None:
            return None
        return [{"Key": r.get("key") or "", "Operator": r.get("operator") or "", "Values": r.get("values")}
                for r in reqs]

    return [{"MatchExpressions": requirements(t.get("matchExpressions")),
             "MatchFields": requirements(t.get("matchFields"))} for t in terms]


def _term_only_added(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``."""
    old_exprs, old_fields = old.get("matchExpressions") or [], old.get("matchFields") or []
    new_exprs, new_fields = new.get("matchExpressions") or [], new.get("matchFields") or []
    if not old_exprs and not old_fields and (new_exprs or new_fields):
        return False
    for new_list, old_list in ((new_exprs, old_exprs), (new_fields, old_fields)):
        if old_list and (len(new_list) < len(old_list) or semantic_omitzero(new_list[: len(old_list)]) != semantic_omitzero(old_list)):
            return False
    return True


def _node_affinity_mutation(new: Any, old: Any) -> list[FieldError]:
    """``validateNodeAffinityMutation`` for gated pods."""
    old_required = get_in(old, "requiredDuringSchedulingIgnoredDuringExecution")
    if old_required is None:
        return []
    old_terms = old_required.get("nodeSelectorTerms") or []
    new_required = get_in(new, "requiredDuringSchedulingIgnoredDuringExecution")
    new_terms = new_required.get("nodeSelectorTerms") if isinstance(new_required, Mapping) else None
    path = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    if old_terms and len(old_terms) != len(new_terms or []):
        return [FieldError.invalid(path, _go_terms(new_terms),
                                   "no additions/deletions to non-empty NodeSelectorTerms list are allowed")]
    new_terms = new_terms or []  # same length as old_terms from here on
    return [
        FieldError.invalid(f"{path}[{i}]", _go_terms([new_terms[i]])[0],
                           "only additions are allowed (no mutations or deletions)")
        for i in range(len(old_terms))
        if not _term_only_added(new_terms[i], old_terms[i])
    ]


def validate_pod_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodUpdate`` (main resource) without the object-meta part.

    The new pod passes the spec checks; containers may not be added or removed; then the mutable
    fields are checked (images, ``activeDeadlineSeconds``, tolerations additions only, gates
    deletions only and reorderable, ``terminationGracePeriodSeconds`` negative to 1) and munged back
    to their old values; a gated pod may also add ``nodeSelector`` entries and ``nodeAffinity``
    requirements. Whatever still differs is ``spec: Forbidden: pod updates may not change fields
    other than ...``. Status is not compared: the strategy copies it from the old object.
    """
    old_spec: dict[str, Any] = json_copy(dict(old.get("spec") or {}))
    new_spec: dict[str, Any] = json_copy(dict(new.get("spec") or {}))
    errors = _pod_spec_errors(new)
    for key in ("containers", "initContainers"):
        new_list, old_list = new_spec.get(key) or [], old_spec.get(key) or []
        if len(new_list) != len(old_list):
            errors.append(FieldError.forbidden(f"spec.{key}", "pod updates may not add or remove containers"))
            return dedupe(errors)
        for i, container in enumerate(new_list):
            if not container.get("image"):
                errors.append(FieldError.required(f"spec.{key}[{i}].image"))
        errors += _image_whitespace_errors(new_list, f"spec.{key}")

    new_deadline, old_deadline = new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if new_deadline is not None:
        if not 0 <= new_deadline <= _MAX_INT32:
            errors.append(FieldError.invalid("spec.activeDeadlineSeconds", new_deadline,
                                             f"must be between 0 and {_MAX_INT32}, inclusive"))
            return dedupe(errors)
        if old_deadline is not None and old_deadline < new_deadline:
            errors.append(FieldError.invalid("spec.activeDeadlineSeconds", new_deadline,
                                             "must be less than or equal to previous value"))
            return dedupe(errors)
    elif old_deadline is not None:
        errors.append(FieldError.invalid("spec.activeDeadlineSeconds", None,
                                         "must not update from a positive integer to nil value"))

    errors += _tolerations_only_added(new_spec.get("tolerations") or [], old_spec.get("tolerations") or [])
    errors += _gates_only_deleted(new_spec.get("schedulingGates") or [], old_spec.get("schedulingGates") or [])
    if _pod_spec_semantic(new_spec) == _pod_spec_semantic(old_spec):
        return dedupe(errors)

    munged = new_spec
    for key in ("containers", "initContainers"):
        for container, before in zip(munged.get(key) or [], old_spec.get(key) or []):
            container["image"] = before.get("image")
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged[key] = old_spec.get(key)
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if old_grace is not None and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace

    if old_spec.get("schedulingGates"):
        if semantic_omitzero(munged.get("nodeSelector")) != semantic_omitzero(old_spec.get("nodeSelector")):
            old_selector = old_spec.get("nodeSelector") or {}
            new_selector = munged.get("nodeSelector") or {}
            if any(k not in new_selector or new_selector[k] != v for k, v in old_selector.items()):
                errors.append(FieldError.invalid(
                    "spec.nodeSelector", munged.get("nodeSelector"),
                    "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
            munged["nodeSelector"] = old_spec.get("nodeSelector")
        old_affinity = get_in(old_spec, "affinity", "nodeAffinity")
        new_affinity = get_in(munged, "affinity", "nodeAffinity")
        if semantic_omitzero(old_affinity) != semantic_omitzero(new_affinity):
            errors += _node_affinity_mutation(new_affinity, old_affinity)
            affinity = munged.get("affinity")
            if affinity is None:  # the four cases of ValidatePodUpdate
                munged["affinity"] = None if old_affinity is None else {"nodeAffinity": old_affinity}
            elif old_spec.get("affinity") is None and not affinity.get("podAffinity") \
                    and not affinity.get("podAntiAffinity"):
                munged["affinity"] = None
            else:
                munged["affinity"] = {**affinity, "nodeAffinity": old_affinity}

    if _pod_spec_semantic(munged) != _pod_spec_semantic(old_spec):
        errors.append(FieldError.forbidden("spec", POD_UPDATE_FORBIDDEN_PREFIX + spec_diff(old_spec, munged)))
    return dedupe(errors)


_SYSTEM_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized"})


def _section(obj: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """``obj[key]`` when it is a map, else an empty one (``get_in`` one step at a time)."""
    found = obj.get(key)
    return found if type(found) is dict or isinstance(found, Mapping) else {}


def validate_pod_status_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodStatusUpdate`` without the object-meta part.

    Kept exactly as Go has it, quirks included: custom condition types are reported under
    ``metadata.conditions[i].Type`` (Go builds that path from ``metadata``), and the
    ``status.nodeName`` check compares ``spec.nodeName`` (the status strategy copies the old spec
    into the new object first, so through ``/status`` it cannot fire).
    """
    errors: list[FieldError] = []
    new_status, old_status = _section(new, "status"), _section(old, "status")
    for i, condition in enumerate(new_status.get("conditions") or []):
        ctype = condition.get("type") or ""
        if ctype not in _SYSTEM_CONDITIONS:
            errors += qualified_name_errors(ctype, f"metadata.conditions[{i}].Type")
    new_spec = _section(new, "spec")
    if (new_spec.get("nodeName") or "") != (_section(old, "spec").get("nodeName") or ""):
        errors.append(FieldError.forbidden("status.nodeName", "may not be changed directly"))
    nominated = new_status.get("nominatedNodeName") or ""
    if nominated and nominated != (old_status.get("nominatedNodeName") or ""):
        errors += invalid_each("status.nominatedNodeName", nominated, is_dns1123_subdomain(nominated))
    new_qos, old_qos = new_status.get("qosClass") or "", old_status.get("qosClass") or ""
    if new_qos != old_qos:
        errors += immutable_errors(new_qos, old_qos, "status.qosClass")
    statuses = new_status.get("resourceClaimStatuses")
    if not statuses:
        return dedupe(errors) if errors else errors
    claims = {c.get("name") for c in new_spec.get("resourceClaims") or []}
    seen: set[str] = set()
    for i, status in enumerate(statuses):
        path = f"status.resourceClaimStatuses[{i}].name"
        name = status.get("name") or ""
        if name not in claims:
            errors.append(FieldError.invalid(path, name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            errors.append(FieldError.duplicate(path, name))
        seen.add(name)
        claim_name = status.get("resourceClaimName")
        if claim_name is not None:
            errors += invalid_each(path, claim_name, is_dns1123_subdomain(claim_name))
    return dedupe(errors)


def pod_resource_claim_errors(claims: Any) -> list[FieldError]:
    """``validatePodResourceClaim``: each claim names exactly one source; the bad value is the
    internal ``PodResourceClaim`` as Go's json.Marshal writes it."""
    errors: list[FieldError] = []
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        if not isinstance(claim, Mapping):
            continue
        name, template = claim.get("resourceClaimName"), claim.get("resourceClaimTemplateName")
        shown = GoJSON(json.dumps({"Name": claim.get("name") or "", "ResourceClaimName": name,
                                   "ResourceClaimTemplateName": template}, separators=(",", ":")))
        if name is None and template is None:
            errors.append(FieldError.invalid(f"spec.resourceClaims[{i}]", shown,
                                             "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        elif name is not None and template is not None:
            errors.append(FieldError.invalid(f"spec.resourceClaims[{i}]", shown,
                                             "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
    return errors


def node_affinity_errors(spec: Mapping[str, Any]) -> list[FieldError]:
    """A required node affinity needs at least one term."""
    required = get_in(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(required, Mapping) and not required.get("nodeSelectorTerms"):
        return [FieldError.required("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                                    ".nodeSelectorTerms", "must have at least one node selector term")]
    return []
