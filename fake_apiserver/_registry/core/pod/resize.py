"""The ``pods/resize`` subresource (in-place pod resize, KEP-1287, GA in v1.35).

Three steps of a write through ``/resize``, each where the real server has it:

* :func:`prepare_for_resize` is ``podResizeStrategy.PrepareForUpdate``
  (``pkg/registry/core/pod/strategy.go``, ``dropNonResizeUpdates``): of the body only the
  containers' and init containers' ``resources`` and ``resizePolicy`` and the pod-level
  ``spec.resources`` are kept; every other field of the spec, the status, labels, annotations,
  finalizers and owner references come from the stored pod, so a change to them is dropped
  without an error. ``generation`` goes up when the spec changed.
* :func:`validate_resize` is ``ValidatePodResize`` (``pkg/apis/core/validation``), with its
  messages: only cpu and memory may change, requests and limits may not be removed, the QoS
  class may not change, containers may not be added, removed, renamed or reordered, requests
  stay within limits, static and Windows pods cannot be resized, nor a pod whose running
  containers report no resources (a node without resize support).
* :func:`admit_resize` is the ``PodResizeValidator`` admission plugin: a resize that changes
  the spec of a pod bound to a node is refused (403) when the node does not exist, is not a
  Linux node, or has less allocatable cpu or memory than the pod would then request.

The server's feature gates decide three things, as in v1.37: pod-level ``spec.resources`` is
taken from the body only with ``InPlacePodLevelResourcesVerticalScaling`` (else a pod with
pod-level resources cannot be resized at all); non-sidecar init containers can be resized only
with ``InPlacePodVerticalScalingInitContainers``; with ``PodLevelResourcesFixDefaulting`` a body
without ``spec.resources`` keeps the stored ones. Then the fields of gates that are off are
dropped (``DropDisabledPodFields``, the store's job). A gate the served release lacks is off,
which is how that release behaves (v1.35 has neither resize gate: no pod-level resize, no init
container resize). Not served: resizing memory-backed ``emptyDir`` volumes
(``InPlacePodVerticalScalingMemoryBackedVolumes``, alpha in v1.37): the volumes stay as stored,
as with that gate off. What the real server writes and the fake does not: ``managedFields``, so
a resize that only carries dropped changes is a no-op here (the real server still writes, to
record the field manager).
"""

from __future__ import annotations

from decimal import Decimal
from collections.abc import Mapping
from typing import Any, Callable

from fake_apiserver._registry.dropdisabled import POD_RULES, drop_disabled_fields
from fake_apiserver._machinery.errors import FieldError, Forbidden
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery import quantity
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._registry.core.pod.defaults import default_pod, keep_pod_level_resources, qos_class
from fake_apiserver._registry.core.pod.validation import resource_requirements_errors

__all__ = ["admit_resize", "prepare_for_resize", "validate_resize"]

Obj = dict[str, Any]
NodeLookup = Callable[[str], "Obj | None"]

MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
_CPU_MEMORY = ("cpu", "memory")
_POD_LEVEL_RESIZE_OFF = ("resize of pods with pod-level resources is forbidden when "
                         "InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled")
# ObjectMeta that ResetObjectMetaForStatus takes from the stored pod.
_KEPT_META = ("deletionTimestamp", "generation", "labels", "annotations", "finalizers", "ownerReferences")


def _containers(spec: Mapping[str, Any], key: str) -> list[Obj]:
    items = spec.get(key) or []
    return [c if isinstance(c, dict) else {} for c in items] if isinstance(items, list) else []


def _merge_resizable(new: list[Obj], old: list[Obj]) -> list[Obj]:
    """``dropNonResizeUpdatesForContainers``: the stored containers with the new resources and
    resize policies; the new list as sent when a name differs (validation refuses it)."""
    if not new:
        return new
    merged = json_copy(old)
    for i, container in enumerate(new):
        if merged[i].get("name") != container.get("name"):
            return new
        for key in ("resources", "resizePolicy"):
            if key in container:
                merged[i][key] = json_copy(container[key])
            else:
                merged[i].pop(key, None)
    return merged


def prepare_for_resize(new: Obj, old: Obj, features: FeatureGates) -> None:
    """Keep only the resize's part of ``new`` (defaulted first, as the decoder defaults every
    body: a request dropped where a limit is set comes back as the limit); pod-level resources
    only with ``InPlacePodLevelResourcesVerticalScaling``."""
    default_pod(new)
    spec, old_spec = new["spec"], old.get("spec") or {}
    meta, old_meta = new["metadata"], old["metadata"]
    if all(len(_containers(spec, k)) == len(_containers(old_spec, k)) for k in ("containers", "initContainers")):
        containers = _merge_resizable(_containers(spec, "containers"), _containers(old_spec, "containers"))
        init = _merge_resizable(_containers(spec, "initContainers"), _containers(old_spec, "initContainers"))
        pod_resources = spec.get("resources")
        spec = new["spec"] = json_copy(old_spec)
        spec["containers"] = containers
        if init:
            spec["initContainers"] = init
        if not features.enabled("InPlacePodLevelResourcesVerticalScaling"):
            pass  # the stored pod-level resources stay
        elif pod_resources is not None:
            spec["resources"] = pod_resources
        else:
            spec.pop("resources", None)
        if "status" in old:
            new["status"] = json_copy(old["status"])
        else:
            new.pop("status", None)
        for key in _KEPT_META:
            if key in old_meta:
                meta[key] = json_copy(old_meta[key])
            else:
                meta.pop(key, None)
    keep_pod_level_resources(new, old, features)
    drop_disabled_fields(POD_RULES, new, old, features)
    if "generation" in old_meta:  # updatePodGeneration
        meta["generation"] = old_meta["generation"] + (0 if semantic(spec) == semantic(old_spec) else 1)


def _removed(new: Any, old: Any) -> bool:
    """``resourcesRemoved``: a resource named in ``old`` is missing from ``new``."""
    new, old = new or {}, old or {}
    return len(old) > len(new) or any(name not in new for name in old)


def _drop_cpu_memory(resources: Any, old: Any) -> Any:
    """``dropCPUMemoryUpdates``: ``resources`` with cpu and memory as they were in ``old``."""
    if not resources:
        if not old:
            return None
        resources = {}
    out = {k: v for k, v in resources.items() if k not in _CPU_MEMORY}
    for name in _CPU_MEMORY:
        if name in (old or {}):
            out[name] = old[name]
    return out


def _without_cpu_memory_changes(container: Obj, old: Obj) -> Obj:
    """``dropCPUMemoryResourcesFromContainer``: the container with the stored cpu and memory
    (and, as Go rebuilds the struct, without resource claims)."""
    res, old_res = container.get("resources") or {}, old.get("resources") or {}
    out = dict(container)
    out["resources"] = {"limits": _drop_cpu_memory(res.get("limits"), old_res.get("limits")),
                        "requests": _drop_cpu_memory(res.get("requests"), old_res.get("requests"))}
    return out


def _pod_resources_set(spec: Mapping[str, Any]) -> bool:
    res = spec.get("resources")
    return isinstance(res, dict) and bool(res.get("requests") or res.get("limits"))


def _pod_level_errors(new_spec: Obj, old_spec: Mapping[str, Any], munged: Obj) -> list[FieldError]:
    """``validatePodLevelResourcesResize``; sets ``munged["resources"]`` to what is compared."""
    new_res, old_res = new_spec.get("resources"), old_spec.get("resources")
    if new_res is None:
        return [] if old_res is None else [FieldError.forbidden("spec.resources", "pod-level resources cannot be removed")]
    errors: list[FieldError] = []
    if old_res is not None:
        if _removed(new_res.get("requests"), old_res.get("requests")):
            errors.append(FieldError.forbidden("spec.resources.requests", "pod-level resource requests cannot be removed"))
        if _removed(new_res.get("limits"), old_res.get("limits")):
            errors.append(FieldError.forbidden("spec.resources.limits", "pod-level resource limits cannot be removed"))
    masked: Any = dict(new_res)
    masked["requests"] = _drop_cpu_memory(new_res.get("requests"), (old_res or {}).get("requests"))
    masked["limits"] = _drop_cpu_memory(new_res.get("limits"), (old_res or {}).get("limits"))
    if old_res is None and not masked["requests"] and not masked["limits"] and not masked.get("claims"):
        masked = None
    munged["resources"] = masked
    if semantic(masked) != semantic(old_res):
        errors.append(FieldError.forbidden("spec", "only cpu and memory resources are mutable at pod-level"))
    return errors


def _running_without_resources(pod: Mapping[str, Any]) -> bool:
    """Not ``isPodResizeRequestSupported``: the first running container reports no resources."""
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if isinstance(status, dict) and (status.get("state") or {}).get("running") is not None:
            return status.get("resources") is None
    return False


def _ordering_errors(new_spec: Mapping[str, Any], old_spec: Mapping[str, Any]) -> list[FieldError]:
    """``validatePodResizeContainerOrdering``."""
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        new, old = _containers(new_spec, key), _containers(old_spec, key)
        if len(new) != len(old):
            errors.append(FieldError.forbidden(f"spec.{key}", f"{key} may not be added or removed on resize"))
            continue
        for i, (container, before) in enumerate(zip(new, old)):
            if container.get("name") != before.get("name"):
                errors.append(FieldError.forbidden(f"spec.{key}[{i}].name",
                                                   f"{key} may not be renamed or reordered on resize"))
    return errors


def validate_resize(new: Obj, old: Obj, features: FeatureGates) -> list[FieldError]:
    """``ValidatePodResize`` without the object-meta part (the store checks that), in Go's order."""
    new_spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        for i, container in enumerate(_containers(new_spec, key)):
            errors += resource_requirements_errors(container.get("resources") or {}, f"spec.{key}[{i}].resources")
    if isinstance(new_spec.get("resources"), dict):
        errors += resource_requirements_errors(new_spec["resources"], "spec.resources")
    if MIRROR_POD_ANNOTATION in ((old.get("metadata") or {}).get("annotations") or {}):
        return [FieldError.forbidden("[]", "static pods cannot be resized")]
    if (old_spec.get("os") or {}).get("name") == "windows":
        return [FieldError.forbidden("[]", "windows pods cannot be resized")]
    old_qos = (old.get("status") or {}).get("qosClass") or qos_class(old)
    if old_qos != qos_class(new):
        errors.append(FieldError.invalid("spec", (new.get("status") or {}).get("qosClass") or "",
                                         "Pod QOS Class may not change as a result of resizing"))
    if _running_without_resources(old):
        errors.append(FieldError.forbidden("spec", "Pod running on node without support for resize"))
    munged: Obj = json_copy(new_spec)
    if _pod_resources_set(old_spec) or _pod_resources_set(new_spec):
        if not features.enabled("InPlacePodLevelResourcesVerticalScaling"):
            return errors + [FieldError.forbidden("[]", _POD_LEVEL_RESIZE_OFF)]
        errors += _pod_level_errors(new_spec, old_spec, munged)
    if (old.get("status") or {}).get("nodeAllocatableResourceClaimStatuses"):
        errors.append(FieldError.forbidden("spec", "pods with node allocatable resource claims cannot be resized"))
    ordering = _ordering_errors(new_spec, old_spec)
    if ordering:
        return errors + ordering
    init_resizable = features.enabled("InPlacePodVerticalScalingInitContainers")
    for key in ("initContainers", "containers"):
        for i, (container, before) in enumerate(zip(_containers(new_spec, key), _containers(old_spec, key))):
            if key == "initContainers" and not init_resizable and before.get("restartPolicy") != "Always":
                continue
            res, old_res = container.get("resources") or {}, before.get("resources") or {}
            path = f"spec.{key}[{i}].resources"
            if _removed(res.get("requests"), old_res.get("requests")):
                errors.append(FieldError.forbidden(f"{path}.requests", "resource requests cannot be removed"))
            if _removed(res.get("limits"), old_res.get("limits")):
                errors.append(FieldError.forbidden(f"{path}.limits", "resource limits cannot be removed"))
    munged["containers"] = []
    for container, before in zip(_containers(new_spec, "containers"), _containers(old_spec, "containers")):
        masked = _without_cpu_memory_changes(container, before)
        if semantic(masked) != semantic(before):
            errors.append(FieldError.forbidden("spec", "only cpu and memory resources are mutable"))
        munged["containers"].append(masked)
    init = []
    for i, (container, before) in enumerate(zip(_containers(new_spec, "initContainers"),
                                                _containers(old_spec, "initContainers"))):
        modified = semantic(container) != semantic(before)
        if not init_resizable and container.get("restartPolicy") != "Always":
            if modified:
                errors.append(FieldError.forbidden("spec", "resources for non-sidecar init containers are immutable"))
            init.append(container)
            continue
        masked = _without_cpu_memory_changes(container, before)
        if semantic(masked) != semantic(before):
            errors.append(FieldError.forbidden(f"spec.initContainers[{i}]",
                                               "only cpu and memory resources for init or sidecar containers are mutable"))
        if modified and container.get("restartPolicy") != "Always" and any(
                isinstance(p, dict) and p.get("restartPolicy") == "RestartContainer"
                for p in container.get("resizePolicy") or []):
            errors.append(FieldError.forbidden(
                f"spec.initContainers[{i}]",
                "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"))
        init.append(masked)
    if init:
        munged["initContainers"] = init
    if errors:
        return errors
    if semantic(munged) != semantic(old_spec):
        errors.append(FieldError.forbidden("spec", "only cpu and memory resources are mutable"))
    return errors


# ------------------------------------------------------------------ PodResizeValidator admission


def _amount(resources: Mapping[str, Any] | None, name: str) -> Decimal:
    try:
        return quantity.parse((resources or {}).get(name, 0))
    except ValueError:
        return Decimal(0)


def pod_requests(pod: Mapping[str, Any]) -> dict[str, Decimal]:
    """``resource.PodRequests`` for cpu and memory: the containers' requests, then each init
    container (sidecars add up and run beside the later ones), the larger of the two, pod-level
    requests in place of the containers' where set, plus the overhead."""
    spec = pod.get("spec") or {}
    out: dict[str, Decimal] = {}
    for name in _CPU_MEMORY:
        total = sum((_amount((c.get("resources") or {}).get("requests"), name)
                     for c in _containers(spec, "containers")), Decimal(0))
        sidecars = init_peak = Decimal(0)
        for c in _containers(spec, "initContainers"):
            amount = _amount((c.get("resources") or {}).get("requests"), name)
            if c.get("restartPolicy") == "Always":
                total += amount
                sidecars += amount
            else:
                init_peak = max(init_peak, amount + sidecars)
        total = max(total, init_peak)
        pod_level = (spec.get("resources") or {}).get("requests") or {}
        if name in pod_level:
            total = _amount(pod_level, name)
        out[name] = total + _amount(spec.get("overhead"), name)
    return out


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding="ROUND_CEILING"))


def admit_resize(new: Obj, old: Obj, nodes: NodeLookup) -> None:
    """``PodResizeValidator``: only for a resize that changed the spec (``generation`` went up)
    of a pod with a node; raises the plugin's 403 (``admission.NewForbidden``, with a cause
    naming the reason where the plugin adds one)."""
    node_name = (new.get("spec") or {}).get("nodeName")
    if not node_name or new["metadata"].get("generation") == old["metadata"].get("generation"):
        return
    name = new["metadata"]["name"]

    def forbidden(why: str, reason: str | None = None) -> Forbidden:
        details: Obj = {"name": name, "kind": "pods"}
        if reason:
            details["causes"] = [{"reason": reason}]
        return Forbidden(f'pods "{name}" is forbidden: {why}', details=details)

    node = nodes(node_name)
    if node is None:
        raise forbidden(f'node "{node_name}" not found')
    os_label = ((node.get("metadata") or {}).get("labels") or {}).get("kubernetes.io/os")
    if os_label is not None and os_label != "linux":
        raise forbidden(f'pod resize is only supported on linux nodes, node "{node_name}" is "{os_label}"',
                        "UnsupportedPlatform")
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    requests = pod_requests(new)
    short = []
    for resource, scale in (("cpu", 1000), ("memory", 1)):
        wanted, room = requests[resource], _amount(allocatable, resource)
        if wanted > room:
            short.append(f"{resource}, requested: {_ceil(wanted * scale)}, allocatable: {_ceil(room * scale)}")
    if short:
        raise forbidden("node didn't have enough allocatable resources: " + "; ".join(short), "NodeCapacity")
