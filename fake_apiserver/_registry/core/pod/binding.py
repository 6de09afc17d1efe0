"""The ``pods/binding`` subresource: the ``Binding`` a scheduler posts, validated as the real
registry validates it, and the pod it leaves (``BindingREST`` in ``pkg/registry/core/pod/storage``).
The store decodes the body, checks its preconditions and writes the pod (:meth:`~fake_apiserver._storage.store.Store.bind`).
The Binding kind's declaration (:data:`KIND`, its body's shape) is here too: a Binding is this
subresource's body, whether posted to ``pods/binding`` or to the legacy ``bindings`` resource,
which the declaration names the legacy form of ``binding``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import Conflict, FieldError, UnknownError
from fake_apiserver._machinery.shapes import OBJECT_META, STR, struct_of
from fake_apiserver._registry.fieldrules import dedupe
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND", "assign", "check_binding", "validate_binding"]

Obj = dict[str, Any]


def _update_pod_condition(status: Obj, condition: Obj, now: str) -> bool:
    """``podutil.UpdatePodCondition``: replace the element of that type; keep
    ``lastTransitionTime`` when the status is unchanged; return whether anything changed."""
    cond = {"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
            "lastTransitionTime": now}
    for key in ("reason", "message"):
        if condition.get(key):
            cond[key] = condition[key]
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == cond["type"]:
            if existing.get("status") == cond["status"] and existing.get("lastTransitionTime"):
                cond["lastTransitionTime"] = existing["lastTransitionTime"]
            changed = existing != cond
            conditions[i] = cond
            return changed
    conditions.append(cond)
    return True


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
        rendered = [e.render() for e in dedupe(errors)]
        raise UnknownError(rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]")


def assign(pod: Obj, binding: Mapping[str, Any], now: str) -> Obj:
    """The pod a binding leaves (``assignPod`` and ``setPodNodeAndMetadata``): on the binding's
    node, with the binding's annotations, no nominated node and ``PodScheduled=True``. A pod
    being deleted, already bound or still gated is a conflict on ``pods/binding``, with the
    plain error the registry wraps."""
    name = pod["metadata"]["name"]
    why = None
    if pod["metadata"].get("deletionTimestamp"):
        why = f"pod {name} is being deleted, cannot be assigned to a host"
    elif pod["spec"].get("nodeName"):
        why = f"pod {name} is already assigned to node {json.dumps(pod['spec']['nodeName'])}"
    elif pod["spec"].get("schedulingGates"):
        why = f"pod {name} has non-empty .spec.schedulingGates"
    if why:
        raise Conflict.of("pods/binding", "", name, why)
    # a new pod that shares with the stored one (which never changes) all that the binding leaves alone
    status = dict(pod.get("status") or {})
    if isinstance(status.get("conditions"), list):
        status["conditions"] = list(status["conditions"])
    new = {**pod, "metadata": dict(pod["metadata"]), "spec": dict(pod["spec"]), "status": status}
    new["spec"]["nodeName"] = binding["target"]["name"]
    annotations = (binding.get("metadata") or {}).get("annotations") or {}
    if annotations:
        new["metadata"]["annotations"] = {**(new["metadata"].get("annotations") or {}), **annotations}
    status.pop("nominatedNodeName", None)
    _update_pod_condition(status, {"type": "PodScheduled", "status": "True"}, now)
    return new


KIND = KindRules(
    group="", kind="Binding", legacy_subresource="binding",
    shape=struct_of("v1.Binding", metadata=OBJECT_META,
                    target=struct_of("v1.ObjectReference", kind=STR, namespace=STR, name=STR, uid=STR)))
"""The Binding's declaration."""
