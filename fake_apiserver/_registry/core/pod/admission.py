"""The admission plugins a pod goes through that the fake runs: DefaultTolerationSeconds, the pod
half of Priority (``admitPod``, resolving a PriorityClass to a priority), and RuntimeClass's
overhead check (``plugin/pkg/admission``).

The pod strategy calls them where the real server runs its plugins: mutating ones on the body
before anything else of a create (and DefaultTolerationSeconds on an update too), the validating
RuntimeClass check after validation. Other admission plugins (service-account token volumes,
LimitRanger, ...) are not emulated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import Forbidden
from fake_apiserver._registry.fieldrules import get_in
from fake_apiserver._registry.scheduling.priorityclass import PREEMPT_LOWER_PRIORITY, admission_forbidden, default_class

__all__ = ["admit_default_tolerations", "admit_pod", "admit_pod_overhead"]

Obj = dict[str, Any]


_DEFAULT_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
)


def admit_default_tolerations(pod: Obj) -> None:
    """The DefaultTolerationSeconds admission plugin (on a pod's create and update): a pod that
    does not tolerate ``not-ready`` or ``unreachable`` for NoExecute gets 300 seconds of each."""
    spec = pod.setdefault("spec", {})
    tolerations = spec.setdefault("tolerations", [])
    if isinstance(tolerations, list):
        for default in _DEFAULT_TOLERATIONS:
            if not any(
                isinstance(t, dict) and t.get("key") == default["key"] and t.get("effect") in ("NoExecute", None, "")
                for t in tolerations
            ):
                tolerations.append(dict(default))


def admit_pod(pod: Obj, classes: Mapping[str, Mapping[str, Any]]) -> None:
    """``admitPod`` on create, in place: resolve ``spec.priorityClassName`` (or the global
    default, whose name is then written into the pod) to ``spec.priority`` and
    ``spec.preemptionPolicy``; with neither, priority 0 and ``PreemptLowerPriority``. A pod
    that names no existing class, or sets a priority or policy other than the computed one, is
    refused with 403. ``classes`` maps names to the stored classes.

    The error names the pod by ``metadata.name``, else ``generateName`` (names are generated
    after admission), else ``Unknown`` (``admission.extractResourceName``)."""
    meta = pod.get("metadata") or {}
    who = str(meta.get("name") or meta.get("generateName") or "Unknown")
    spec = pod.setdefault("spec", {})
    class_name = spec.get("priorityClassName") or ""
    if not class_name:
        found = default_class(classes.values())
        if found is not None:
            spec["priorityClassName"] = found["metadata"]["name"]
            priority, policy = found.get("value") or 0, found.get("preemptionPolicy")
        else:
            priority, policy = 0, PREEMPT_LOWER_PRIORITY
    else:
        pc = classes.get(class_name)
        if pc is None:
            raise admission_forbidden("pods", "", who, f"no PriorityClass with name {class_name} was found")
        priority, policy = pc.get("value") or 0, pc.get("preemptionPolicy")
    given = spec.get("priority")
    if given is not None and given != priority:
        raise admission_forbidden("pods", "", who, (
            f"the integer value of priority ({given}) must not be provided in pod spec; priority admission "
            f"controller computed {priority} from the given PriorityClass name"))
    spec["priority"] = priority
    if policy is not None:
        given_policy = spec.get("preemptionPolicy")
        if given_policy is not None and given_policy != policy:
            raise admission_forbidden("pods", "", who, (
                f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; "
                f"priority admission controller computed {policy} from the given PriorityClass name"))
        spec["preemptionPolicy"] = policy


def admit_pod_overhead(pod: Mapping[str, Any]) -> None:
    """The validating half of the RuntimeClass admission plugin on a pod create: an ``overhead``
    needs a RuntimeClass that defines it. The fake serves no RuntimeClass, so a pod naming one is
    let through unchecked rather than refused as "not found". An empty ``overhead: {}`` counts as
    set, as Go's non-nil empty map does (the pod strategy keeps it until this has run)."""
    spec = get_in(pod, "spec") or {}
    if spec.get("overhead") is not None and not spec.get("runtimeClassName"):
        name = str(get_in(pod, "metadata", "name") or "")
        raise Forbidden(f'pods "{name}" is forbidden: pod rejected: '
                        "Pod Overhead set without corresponding RuntimeClass defined Overhead",
                        details={"name": name, "kind": "pods"})
