"""Object validation and the admission steps the fake applies, with the real server's messages.

These are pure functions over JSON-shaped dicts. Each returns the ``field.Error`` list the real
validator would return for the same input; :func:`check` turns a non-empty list into the 422
``Invalid`` that ``errors.NewInvalid`` builds. Paths, messages and bad values follow
``kubernetes/kubernetes:pkg/apis/core/validation/validation.go`` and
``kubernetes/apimachinery:pkg/api/validation`` / ``pkg/util/validation`` / ``pkg/api/validate/content``
(read at apimachinery eed236ce, kubernetes commit 000f2605).

What is checked, and what is deliberately not:

* Object metadata (:func:`validate_object_meta`): name / generateName format per kind (DNS-1123
  subdomain; DNS-1123 label for Namespace, StatefulSet and Service; none for core Events and
  PodDisruptionBudgets), namespace
  against scope, generation, label keys and values, annotation keys and total size, owner-reference
  required fields, finalizer names; on update the immutable identity fields and the finalizer
  freeze while deleting. Not checked: managedFields, banned owners, the "one controller" rule,
  ``resourceVersion`` (the store fills it in for unconditional updates before validating).
* Pods: the rules that matter to schedulers, exactly: scheduling gates (create, update), the
  ``nodeName``-with-gates rule, spec immutability with the mutable fields of ``ValidatePodUpdate``,
  the extra mutability of gated pods (``nodeSelector``, ``nodeAffinity``), tolerations, status
  updates (conditions, ``nodeName``, ``nominatedNodeName``, ``qosClass``, resource claim statuses) and
  bindings. Beyond that only minimal sanity: containers present, container names and images,
  container ports, resource claim sources, a required node affinity with terms,
  ``activeDeadlineSeconds`` range, resource quantities (none negative, requests within limits:
  :func:`resource_requirements_errors`). Volumes, probes, resource names, security contexts, affinity term
  syntax, topology spread constraints and the values of the fields the server defaults
  (restartPolicy, dnsPolicy, terminationMessagePolicy, imagePullPolicy,
  terminationGracePeriodSeconds; see ``_strategy.default_pod``) are not validated, but for
  ``restartPolicy``, ``dnsPolicy`` and ``hostname``.
* Nodes: the resize-preemption owners of KEP-5836 (:func:`validate_node_pod_preemption_policy`);
  the rest of the Node rules, and those of several other kinds, are in
  :mod:`fake_apiserver._registry.kind_validation`.
* Equality is Go's ``apiequality.Semantic``, approximated by treating absent, null, ``false``,
  ``0``, ``""``, ``[]`` and ``{}`` alike (so a pointer field set to its zero value equals an unset
  one, and quantities are compared as strings).
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping, Sequence

from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid, UnknownError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
    nbytes as _nbytes,
)
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.equality import semantic_omitzero, spec_diff
from fake_apiserver._machinery.gotypes import kind_node, semantic_of
from fake_apiserver._registry.claim_validation import selector_errors, validate_device_configs
from fake_apiserver._registry.kind_validation import (
    CREATE_RULES,
    UPDATE_RULES,
    container_port_errors,
    generate_name_checked_on_update,
    labels_errors,
    node_affinity_errors,
    non_negative_errors,
    persistent_volume_capacity_errors,
    pod_resource_claim_errors,
    resource_slice_node_errors,
    resource_slice_pool_errors,
    selector_template_errors,
    template_mismatch,
)
from fake_apiserver._machinery import quantity
__all__ = [
    "POD_UPDATE_FORBIDDEN_PREFIX",
    "admit_node_create",
    "check",
    "check_binding",
    "path_segment_errors",
    "reconcile_namespace",
    "validate_binding",
    "validate_kind_rules",
    "validate_kind_update_rules",
    "validate_object_meta",
    "validate_pod_create",
    "validate_pod_status_update",
    "validate_pod_update",
]

def _invalid_each(path: str, value: Any, messages: list[str]) -> list[FieldError]:
    return [FieldError.invalid(path, value, m) for m in messages]


def _qualified_name_errors(value: str, path: str) -> list[FieldError]:
    """``ValidateQualifiedName``: one ``Invalid`` per reason."""
    return _invalid_each(path, value, is_qualified_name(value))


def _dedupe(errors: list[FieldError]) -> list[FieldError]:
    """``ErrorList.ToAggregate`` drops errors whose text repeats; so do we, keeping the first."""
    seen: set[str] = set()
    out = []
    for error in errors:
        if error.render() not in seen:
            seen.add(error.render())
            out.append(error)
    return out


# --- object metadata --------------------------------------------------------------------------


def _mask_trailing_dash(name: str) -> str:
    """``maskTrailingDash``, including its habit of dropping two characters, not one."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def path_segment_errors(name: str, *, prefix: bool = False) -> list[str]:
    """``path.ValidatePathSegmentName``: what a name that must fit in a URL path may not be
    (a ``prefix``, a generateName, may be ``.`` or ``..``)."""
    if not prefix and name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def _path_segment_prefix(name: str) -> list[str]:
    return path_segment_errors(name, prefix=True)


def _name_checker(spec: KindSpec, *, prefix: bool = False) -> Callable[[str], list[str]]:
    """The kind's name rule (each checked on kube-apiserver v1.36): DNS-1123 labels for
    namespaces, StatefulSets and (RelaxedServiceNameValidation, on since v1.34) Services; only
    the path-segment rule for core Events and PodDisruptionBudgets; DNS-1123 subdomains for the
    rest. ``prefix``: the rule for a generateName."""
    if (spec.group, spec.kind) in (("", "Namespace"), ("apps", "StatefulSet"), ("", "Service")):
        return is_dns1123_label
    if (spec.group, spec.kind) in (("", "Event"), ("policy", "PodDisruptionBudget")):
        return _path_segment_prefix if prefix else path_segment_errors
    return is_dns1123_subdomain


_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})
# Kinds whose validation takes a generateName that is no valid name prefix when a name is given,
# and kinds that take a finalizer name that is neither standard nor domain-qualified (found by
# creating each served kind on kube-apiserver v1.36: their validation does not run those checks).
_GENERATE_NAME_UNCHECKED = frozenset({("", "ReplicationController"), ("resource.k8s.io", "DeviceClass")})
_ANY_FINALIZER_NAME = frozenset({("", "Event"), ("policy", "PodDisruptionBudget"), ("coordination.k8s.io", "Lease")})
_ANNOTATIONS_LIMIT = 256 * (1 << 10)


def _annotations_errors(annotations: Mapping[str, Any] | None) -> list[FieldError]:
    """``ValidateAnnotations``: case-insensitive qualified keys, 256 KiB in total."""
    errors: list[FieldError] = []
    total = 0
    for key, value in (annotations or {}).items():
        errors += _invalid_each("metadata.annotations", key, is_qualified_name(key.lower()))
        total += _nbytes(key) + _nbytes(str(value))
    if total > _ANNOTATIONS_LIMIT:
        errors.append(FieldError.too_long("metadata.annotations", _ANNOTATIONS_LIMIT))
    return errors


def _owner_reference_errors(refs: Sequence[Mapping[str, Any]] | None) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, ref in enumerate(refs or []):
        path = f"metadata.ownerReferences[{i}]"
        api_version = ref.get("apiVersion") or ""
        if not api_version:
            errors.append(FieldError.required(f"{path}.apiVersion", "must not be empty"))
        elif api_version.count("/") > 1 or not api_version.split("/")[-1]:
            errors.append(FieldError.invalid(f"{path}.apiVersion", api_version,
                                             "must be <group>/<version> or <version>"))
        for key in ("kind", "name", "uid"):
            if not ref.get(key):
                errors.append(FieldError.required(f"{path}.{key}", "must not be empty"))
    return errors


def _finalizer_errors(finalizers: Sequence[str] | None, *, create: bool, qualified: bool = True) -> list[FieldError]:
    """apimachinery ``ValidateFinalizers`` (create only), then kube's ``validateKubeFinalizerName``
    (``qualified``: a name without a ``/`` must be a standard one)."""
    errors: list[FieldError] = []
    names = list(finalizers or [])
    if create:
        for name in names:
            errors += _invalid_each("metadata.finalizers", name, is_qualified_name(name))
        if "orphan" in names and "foregroundDeletion" in names:
            errors.append(FieldError.invalid("metadata.finalizers", names,
                                             "finalizer orphan and foregroundDeletion cannot be both set"))
    for i, name in enumerate(names):
        path = f"metadata.finalizers[{i}]"
        messages = is_qualified_name(name)
        errors += _invalid_each(path, name, messages)
        if qualified and not messages and "/" not in name and name not in _STANDARD_FINALIZERS:
            errors.append(FieldError.invalid(
                path, name, "name is neither a standard finalizer name nor is it fully qualified"))
    return errors


def _immutable(new: Any, old: Any, path: str) -> list[FieldError]:
    if semantic_omitzero(new) != semantic_omitzero(old):
        return [FieldError.invalid(path, new, "field is immutable")]
    return []


def validate_object_meta(
    spec: KindSpec,
    obj: Mapping[str, Any],
    *,
    create: bool,
    old: Mapping[str, Any] | None = None,
) -> list[FieldError]:
    """``ValidateObjectMeta`` on create, ``ValidateObjectMetaUpdate`` (against ``old``) on update.

    On create the name is required unless ``generateName`` is set: the store generates the name
    before the real server validates, so an empty name with a prefix is not an error here. The
    namespace is checked against the kind's scope as Go does (``Required`` when namespaced,
    ``Forbidden: not allowed on this type`` when cluster-scoped); apply
    :func:`reconcile_namespace` first, as the real server does before validating.
    """
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    errors: list[FieldError] = []
    if create:
        checker = _name_checker(spec)
        generate_name = meta.get("generateName") or ""
        name = meta.get("name") or ""
        if generate_name and not (name and (spec.group, spec.kind) in _GENERATE_NAME_UNCHECKED):
            errors += _invalid_each("metadata.generateName", generate_name,
                                    _name_checker(spec, prefix=True)(_mask_trailing_dash(generate_name)))
        if name:
            errors += _invalid_each("metadata.name", name, checker(name))
        elif not generate_name:
            errors.append(FieldError.required("metadata.name", "name or generateName is required"))
        namespace = meta.get("namespace") or ""
        if spec.namespaced:
            if not namespace:
                errors.append(FieldError.required("metadata.namespace"))
            else:
                errors += _invalid_each("metadata.namespace", namespace, is_dns1123_label(namespace))
        elif namespace:
            errors.append(FieldError.forbidden("metadata.namespace", "not allowed on this type"))
    else:

        generate_name = meta.get("generateName") or ""
        if generate_name and generate_name_checked_on_update(spec.group, spec.kind):
            errors += _invalid_each("metadata.generateName", generate_name,
                                    _name_checker(spec, prefix=True)(_mask_trailing_dash(generate_name)))
        old_meta: Mapping[str, Any] = (old or {}).get("metadata") or {}
        if old is not None and old_meta.get("deletionTimestamp"):
            extra = sorted(set(meta.get("finalizers") or []) - set(old_meta.get("finalizers") or []))
            if extra:
                listed = "[]string{" + ", ".join(json.dumps(e) for e in extra) + "}"
                errors.append(FieldError.forbidden(
                    "metadata.finalizers",
                    f"no new finalizers can be added if the object is being deleted, found new finalizers {listed}"))
    generation = meta.get("generation") or 0
    if generation < 0:
        errors.append(FieldError.invalid("metadata.generation", generation, "must be greater than or equal to 0"))
    if not create and old is not None:
        old_meta = old.get("metadata") or {}
        if generation < (old_meta.get("generation") or 0):
            errors.append(FieldError.invalid("metadata.generation", generation, "must not be decremented"))
        for key in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
            errors += _immutable(meta.get(key), old_meta.get(key), f"metadata.{key}")
    errors += labels_errors(meta.get("labels"), "metadata.labels")
    errors += _annotations_errors(meta.get("annotations"))
    errors += _owner_reference_errors(meta.get("ownerReferences"))
    errors += _finalizer_errors(meta.get("finalizers"), create=create,
                                qualified=(spec.group, spec.kind) not in _ANY_FINALIZER_NAME)
    return errors


def reconcile_namespace(spec: KindSpec, obj: dict[str, Any], request_namespace: str) -> None:
    """``EnsureObjectNamespaceMatchesRequestNamespace``: fill or clear ``metadata.namespace`` in place.

    A namespaced object without a namespace takes the request's; a cluster-scoped one loses any
    it carries; a conflicting one is a 400.
    """
    expected = request_namespace if spec.namespaced else ""
    meta = obj.setdefault("metadata", {})
    current = meta.get("namespace") or ""
    if current == expected:
        return
    if not current:
        meta["namespace"] = expected
    elif not expected:
        meta.pop("namespace", None)
    else:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")


def check(spec: KindSpec, name: str, errors: list[FieldError]) -> None:
    """Raise ``Pod "p" is invalid: ...`` (422) when ``errors`` is not empty."""
    if errors:  # events.k8s.io Events are validated as the core type, so they are named as one
        group = "" if (spec.group, spec.kind) == ("events.k8s.io", "Event") else spec.group
        raise Invalid.of(spec.kind, group, name, _dedupe(errors))


# --- semantic equality ------------------------------------------------------------------------


def _pod_spec_semantic(spec: Any) -> Any:
    """A PodSpec normalised as ``apiequality.Semantic`` compares it, on its Go type (a pointer
    set to an empty struct, as ``affinity: {}``, differs from none)."""

    return semantic_of(spec, kind_node("", "v1", "Pod").fields["spec"].node)


def _get(obj: Mapping[str, Any] | None, *keys: str) -> Any:
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


# --- pods ------------------------------------------------------------------------------------

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
            errors += _invalid_each(f"{path}[{i}].name", name, is_dns1123_label(name))
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
            errors += _invalid_each(f"{at}.key", key, is_qualified_name(key))
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
    """The subset of ``ValidatePodSpec`` the fake enforces, in Go's order."""
    spec: Mapping[str, Any] = pod.get("spec") or {}
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
        errors += _qualified_name_errors(gate_name, f"spec.schedulingGates[{i}]")
        if gate_name in seen:
            errors.append(FieldError.duplicate(f"spec.schedulingGates[{i}]", gate_name))
        seen.add(gate_name)
    node_name = spec.get("nodeName") or ""
    if node_name:
        errors += _invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and not 1 <= deadline <= _MAX_INT32:
        errors.append(FieldError.invalid("spec.activeDeadlineSeconds", deadline,
                                         f"must be between 1 and {_MAX_INT32}, inclusive"))
    hostname = spec.get("hostname") or ""
    if hostname:
        errors += _invalid_each("spec.hostname", hostname, is_dns1123_label(hostname))
    errors += _toleration_errors(spec.get("tolerations") or [], "spec.tolerations")
    errors += node_affinity_errors(spec)
    errors += _image_whitespace_errors(containers, "spec.containers")
    errors += _image_whitespace_errors(spec.get("initContainers") or [], "spec.initContainers")
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
    return _dedupe(errors)


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
    old_required = _get(old, "requiredDuringSchedulingIgnoredDuringExecution")
    if old_required is None:
        return []
    old_terms = old_required.get("nodeSelectorTerms") or []
    new_required = _get(new, "requiredDuringSchedulingIgnoredDuringExecution")
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
            return _dedupe(errors)
        for i, container in enumerate(new_list):
            if not container.get("image"):
                errors.append(FieldError.required(f"spec.{key}[{i}].image"))
        errors += _image_whitespace_errors(new_list, f"spec.{key}")

    new_deadline, old_deadline = new_spec.get("activeDeadlineSeconds"), old_spec.get("activeDeadlineSeconds")
    if new_deadline is not None:
        if not 0 <= new_deadline <= _MAX_INT32:
            errors.append(FieldError.invalid("spec.activeDeadlineSeconds", new_deadline,
                                             f"must be between 0 and {_MAX_INT32}, inclusive"))
            return _dedupe(errors)
        if old_deadline is not None and old_deadline < new_deadline:
            errors.append(FieldError.invalid("spec.activeDeadlineSeconds", new_deadline,
                                             "must be less than or equal to previous value"))
            return _dedupe(errors)
    elif old_deadline is not None:
        errors.append(FieldError.invalid("spec.activeDeadlineSeconds", None,
                                         "must not update from a positive integer to nil value"))

    errors += _tolerations_only_added(new_spec.get("tolerations") or [], old_spec.get("tolerations") or [])
    errors += _gates_only_deleted(new_spec.get("schedulingGates") or [], old_spec.get("schedulingGates") or [])
    if _pod_spec_semantic(new_spec) == _pod_spec_semantic(old_spec):
        return _dedupe(errors)

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
        old_affinity = _get(old_spec, "affinity", "nodeAffinity")
        new_affinity = _get(munged, "affinity", "nodeAffinity")
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
    return _dedupe(errors)


_SYSTEM_CONDITIONS = frozenset({"PodScheduled", "Ready", "Initialized"})


def validate_pod_status_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodStatusUpdate`` without the object-meta part.

    Kept exactly as Go has it, quirks included: custom condition types are reported under
    ``metadata.conditions[i].Type`` (Go builds that path from ``metadata``), and the
    ``status.nodeName`` check compares ``spec.nodeName`` (the status strategy copies the old spec
    into the new object first, so through ``/status`` it cannot fire).
    """
    errors: list[FieldError] = []
    for i, condition in enumerate(_get(new, "status", "conditions") or []):
        ctype = condition.get("type") or ""
        if ctype not in _SYSTEM_CONDITIONS:
            errors += _qualified_name_errors(ctype, f"metadata.conditions[{i}].Type")
    if (_get(new, "spec", "nodeName") or "") != (_get(old, "spec", "nodeName") or ""):
        errors.append(FieldError.forbidden("status.nodeName", "may not be changed directly"))
    nominated = _get(new, "status", "nominatedNodeName") or ""
    if nominated and nominated != (_get(old, "status", "nominatedNodeName") or ""):
        errors += _invalid_each("status.nominatedNodeName", nominated, is_dns1123_subdomain(nominated))
    new_qos, old_qos = _get(new, "status", "qosClass") or "", _get(old, "status", "qosClass") or ""
    errors += _immutable(new_qos, old_qos, "status.qosClass")
    claims = {c.get("name") for c in _get(new, "spec", "resourceClaims") or []}
    seen: set[str] = set()
    for i, status in enumerate(_get(new, "status", "resourceClaimStatuses") or []):
        path = f"status.resourceClaimStatuses[{i}].name"
        name = status.get("name") or ""
        if name not in claims:
            errors.append(FieldError.invalid(path, name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            errors.append(FieldError.duplicate(path, name))
        seen.add(name)
        claim_name = status.get("resourceClaimName")
        if claim_name is not None:
            errors += _invalid_each(path, claim_name, is_dns1123_subdomain(claim_name))
    return _dedupe(errors)


# --- binding ---------------------------------------------------------------------------------


def validate_binding(binding: Mapping[str, Any]) -> list[FieldError]:
    """``ValidatePodBinding``: the target must be a Node (or kind left empty) and be named."""
    target: Mapping[str, Any] = binding.get("target") or {}
    errors: list[FieldError] = []
    kind = target.get("kind") or ""
    if kind and kind != "Node":
        errors.append(FieldError.not_supported("target.kind", kind, ["Node", "<empty>"]))
    if not target.get("name"):
        errors.append(FieldError.required("target.name"))
    return errors


def check_binding(errors: list[FieldError]) -> None:
    """Raise what the real server answers to an invalid binding.

    ``BindingREST.Create`` returns ``errs.ToAggregate()``, a plain error rather than a
    ``StatusError``, so the client sees HTTP 500 with no reason and the aggregate as the message
    (``target.name: Required value``), not a 422.
    """
    if errors:
        rendered = [e.render() for e in _dedupe(errors)]
        raise UnknownError(rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]")


# --- nodes -----------------------------------------------------------------------------------

_MAX_RESIZE_PREEMPTION_OWNERS = 20


def validate_node_pod_preemption_policy(node: Mapping[str, Any], old: Mapping[str, Any] | None, *,
                                        gate: bool = True) -> list[FieldError]:
    """``spec.podPreemptionPolicy`` (KEP-5836, alpha in v1.37): with its gate
    (``InPlacePodVerticalScalingSchedulerPreemption``) off, the field is
    ``+k8s:ifDisabled(...)=+k8s:forbidden``: an update that changes it on a node that already had
    it (a create or an update of a node without it has had it dropped) is ``Forbidden``. With the
    gate on, ``disableResizePreemption``'s declarative tags ``+k8s:maxItems=20``,
    ``+k8s:listType=set`` and ``+k8s:eachVal=+k8s:format=k8s-label-key``, in the order the
    generated validator runs them: too many items stops there; then each value that is not a
    label key; then each repeated value at its later index. An update that leaves the field as it
    was is not checked again (declarative validation's ratcheting). Messages and order as
    kube-apiserver v1.37.2 answers."""
    policy = _get(node, "spec", "podPreemptionPolicy")
    if not gate:
        unchanged = old is not None and semantic_omitzero(policy) == semantic_omitzero(_get(old, "spec", "podPreemptionPolicy"))
        if policy is None or unchanged:
            return []
        return [FieldError.forbidden("spec.podPreemptionPolicy", "")]
    path = "spec.podPreemptionPolicy.disableResizePreemption"
    owners = _get(node, "spec", "podPreemptionPolicy", "disableResizePreemption") or []
    if old is not None and semantic_omitzero(owners) == semantic_omitzero(
            _get(old, "spec", "podPreemptionPolicy", "disableResizePreemption") or []):
        return []
    if len(owners) > _MAX_RESIZE_PREEMPTION_OWNERS:
        return [FieldError("FieldValueTooMany", path, f"must have at most {_MAX_RESIZE_PREEMPTION_OWNERS} items",
                           len(owners))]
    errors: list[FieldError] = []
    for i, owner in enumerate(owners):
        errors += _invalid_each(f"{path}[{i}]", owner, is_qualified_name(owner))
    for i, owner in enumerate(owners):
        if owner in owners[:i]:
            errors.append(FieldError.duplicate(f"{path}[{i}]", owner))
    return errors


# --- node admission --------------------------------------------------------------------------

_NOT_READY_TAINT = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}


def admit_node_create(node: Mapping[str, Any], *, taint_not_ready: bool) -> dict[str, Any]:
    """The ``TaintNodesAtCreation`` admission plugin (``plugin/pkg/admission/nodetaint``).

    On create of a node (not a subresource) it appends ``node.kubernetes.io/not-ready:NoSchedule``
    unless a taint with the same key and effect is already there; the node lifecycle controller
    removes it once the node is Ready. Returns a copy; ``taint_not_ready=False`` models the plugin
    being off.
    """
    admitted = json_copy(dict(node))
    if not taint_not_ready:
        return admitted
    spec = admitted.setdefault("spec", {})
    taints = spec.get("taints") or []
    key, effect = _NOT_READY_TAINT["key"], _NOT_READY_TAINT["effect"]
    if not any(t.get("key") == key and t.get("effect") == effect for t in taints):  # Taint.MatchTaint
        spec["taints"] = [*taints, dict(_NOT_READY_TAINT)]
    return admitted


# --- other kinds' spec rules ------------------------------------------------------------------
#
# A few rules of kinds the fake otherwise stores as sent, each message captured from
# kube-apiserver v1.36 with the request that provokes it (tests/test_validation.py).


def _lease_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = _get(obj, "spec") or {}
    errors: list[FieldError] = []
    duration = spec.get("leaseDurationSeconds")
    if isinstance(duration, int) and duration <= 0:
        errors.append(FieldError.invalid("spec.leaseDurationSeconds", duration, "must be greater than 0"))
    transitions = spec.get("leaseTransitions")
    if isinstance(transitions, int) and transitions < 0:
        errors.append(FieldError.invalid("spec.leaseTransitions", transitions, "must be greater than or equal to 0"))
    return errors


def _storage_capacity_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    name = obj.get("storageClassName") or ""
    errors = _invalid_each("storageClassName", name, is_dns1123_subdomain(name))
    capacity = obj.get("capacity")
    try:
        negative = capacity is not None and quantity.parse(capacity) < 0
    except ValueError:
        negative = False
    if negative:
        errors.append(FieldError.invalid("capacity", quantity.canonical(capacity), "must be greater than or equal to 0"))
    return errors


def _resource_slice_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = _get(obj, "spec") or {}

    errors = [] if spec.get("driver") else [FieldError.required("spec.driver")]
    errors += resource_slice_pool_errors(obj)
    node_name = spec.get("nodeName")
    if node_name:
        errors += _invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    return errors + resource_slice_node_errors(obj)


def _csi_node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, driver in enumerate(_get(obj, "spec", "drivers") or []):
        name = str(_get(driver, "name") or "")
        errors += _invalid_each(f"spec.drivers[{i}].name", name, is_dns1123_subdomain(name))
    return errors


def _device_class_errors(obj: Mapping[str, Any]) -> list[FieldError]:

    return (selector_errors(_get(obj, "spec", "selectors"), "spec.selectors")
            + validate_device_configs(_get(obj, "spec", "config"), "spec.config"))


_CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_KEY_ERROR = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
                     f"'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '{_CONFIG_KEY_FMT}')")


def _config_key_messages(key: str) -> list[str]:
    """``IsConfigMapKey``."""
    messages = []
    if _nbytes(key) > 253:
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
        errors += _invalid_each(f"data[{key}]", key, _config_key_messages(key))
    for key in binary:
        errors += _invalid_each(f"binaryData[{key}]", key, _config_key_messages(key))
        if key in data:
            errors.append(FieldError.invalid(f"data[{key}]", key, "duplicate of key present in binaryData"))
    return errors


def _unsupported(obj: Mapping[str, Any], dotted: str, supported: list[str]) -> list[FieldError]:
    value = _get(obj, *dotted.split("."))
    if value is None or value in supported:
        return []
    return [FieldError.not_supported(dotted, value, supported)]


def _replica_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors = non_negative_errors(obj, "replicas")
    errors += selector_template_errors(obj, "deployment")
    minimum = _get(obj, "spec", "minReadySeconds")
    if isinstance(minimum, int) and minimum < 0:
        errors.append(FieldError.invalid("spec.minReadySeconds", minimum, "must be greater than or equal to 0"))
    return errors + _unsupported(obj, "spec.template.spec.restartPolicy", ["Always"])


def _replication_controller_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = _get(obj, "spec") or {}
    selector = spec.get("selector") or {}
    labels = _get(spec, "template", "metadata", "labels") or {}
    if not selector or not isinstance(selector, Mapping) or all(labels.get(k) == v for k, v in selector.items()):
        return []
    return [template_mismatch(labels)]


def _service_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    ports = _get(obj, "spec", "ports") or []
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


def _persistent_volume_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors = [] if _get(obj, "spec", "accessModes") else [FieldError.required("spec.accessModes")]
    return errors + persistent_volume_capacity_errors(obj)


def _persistent_volume_claim_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    if not _get(obj, "spec", "accessModes"):
        errors.append(FieldError.required("spec.accessModes", "at least 1 access mode is required"))
    if _get(obj, "spec", "resources", "requests", "storage") is None:
        errors.append(FieldError.required("spec.resources[storage]"))
    return errors


def _pod_disruption_budget_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return _unsupported(obj, "spec.unhealthyPodEvictionPolicy", ["AlwaysAllow", "IfHealthyBudget"])


_SPEC_RULES: dict[tuple[str, str], Callable[[Mapping[str, Any]], list[FieldError]]] = {
    ("", "ConfigMap"): _config_map_errors,
    ("storage.k8s.io", "CSIDriver"): lambda obj: _unsupported(obj, "spec.fsGroupPolicy",
                                                              ["File", "None", "ReadWriteOnceWithFSType"]),
    ("apps", "ReplicaSet"): _replica_set_errors,
    ("", "ReplicationController"): _replication_controller_errors,
    ("", "Service"): _service_errors,
    ("", "PersistentVolume"): _persistent_volume_errors,
    ("", "PersistentVolumeClaim"): _persistent_volume_claim_errors,
    ("policy", "PodDisruptionBudget"): _pod_disruption_budget_errors,
    ("coordination.k8s.io", "Lease"): _lease_errors,
    ("storage.k8s.io", "CSIStorageCapacity"): _storage_capacity_errors,
    ("resource.k8s.io", "ResourceSlice"): _resource_slice_errors,
    ("storage.k8s.io", "CSINode"): _csi_node_errors,
    ("resource.k8s.io", "DeviceClass"): _device_class_errors,
}


def validate_kind_rules(spec: KindSpec, obj: Mapping[str, Any]) -> list[FieldError]:
    """The kind's own rules from the table above and from :mod:`fake_apiserver._registry.kind_validation`
    (none for a kind neither lists)."""

    key = (spec.group, spec.kind)
    errors: list[FieldError] = []
    for table in (_SPEC_RULES, CREATE_RULES):
        rule = table.get(key)
        errors += rule(obj) if rule is not None else []
    return errors


def validate_kind_update_rules(spec: KindSpec, new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    """The kind's create rules on the new object, then its update-only rules (immutability)."""

    rule = UPDATE_RULES.get((spec.group, spec.kind))
    return validate_kind_rules(spec, new) + (rule(new, old) if rule is not None else [])
