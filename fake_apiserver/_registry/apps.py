"""``apps/v1`` workloads (Deployments, DaemonSets, StatefulSets, ReplicaSets): their defaults, the
pod template's defaults, spec rules and the update rules (an immutable selector, the StatefulSet's
fixed fields).

A workload's pod template gets the pod spec's defaults (:func:`default_pod_template`), which are
the pod's (:func:`~fake_apiserver._registry.core.pod.defaults.default_pod`) less what only a pod gets: its
``enableServiceLinks`` (``SetDefaults_Pod``) and the DefaultTolerationSeconds tolerations (an
admission plugin on pods). The status a create answers with is the Go struct's zero value as the
real server encodes it (``{}``, or the counters without ``omitempty``), checked against
kube-apiserver v1.37.2 (``tests/test_builtin_kinds.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import BadRequest, FieldError, GoJSON
from fake_apiserver._machinery.selectors import label_selector_from_dict
from fake_apiserver._registry.fieldrules import (
    get_in,
    immutable_errors,
    non_negative_errors,
    selector_template_errors,
    template_mismatch,
)
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.core.pod.template import default_pod_template, pod_template_errors

__all__ = ["DaemonSetStrategy", "DeploymentStrategy", "RULES", "ReplicaSetStrategy", "StatefulSetStrategy",
           "WorkloadStrategy", "default_stateful_set", "go_selector", "selector_matches"]

Obj = dict[str, Any]


def selector_matches(selector: Any, labels: Any) -> bool:
    """``metav1.LabelSelectorAsSelector(selector).Matches(labels)``: a missing selector matches
    nothing; one that does not parse counts as matching (its own rule reports it)."""
    if not isinstance(selector, Mapping):
        return False
    try:
        return label_selector_from_dict(selector).matches(labels if isinstance(labels, Mapping) else {})
    except BadRequest:
        return True


def default_stateful_set(obj: dict[str, Any], max_unavailable: bool = False) -> None:
    """``SetDefaults_StatefulSet`` (apps/v1) and the template's defaults; ``max_unavailable``:
    the MaxUnavailableStatefulSet gate (on from v1.37) defaults a rolling update's
    ``maxUnavailable`` to 1."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    spec.setdefault("serviceName", "")  # a string without omitempty: encoded even when empty
    if not spec.get("podManagementPolicy"):
        spec["podManagementPolicy"] = "OrderedReady"
    strategy = spec.get("updateStrategy") or {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.setdefault("rollingUpdate", {})
        if isinstance(rolling, dict):
            rolling.setdefault("partition", 0)
    if max_unavailable:
        _default_rolling_update(strategy)
    spec["updateStrategy"] = strategy
    spec.setdefault("revisionHistoryLimit", 10)
    retention = spec.get("persistentVolumeClaimRetentionPolicy") or {}
    for key in ("whenDeleted", "whenScaled"):
        if not retention.get(key):
            retention[key] = "Retain"
    spec["persistentVolumeClaimRetentionPolicy"] = retention
    default_pod_template(spec.get("template"))


def _default_rolling_update(strategy: dict[str, Any]) -> None:
    rolling = strategy.get("rollingUpdate")
    if isinstance(rolling, dict) and strategy.get("type") == "RollingUpdate":
        rolling.setdefault("maxUnavailable", 1)


def default_deployment(obj: Obj) -> None:
    """``SetDefaults_Deployment`` (apps/v1) and the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    strategy = spec.get("strategy")
    if not isinstance(strategy, dict):
        strategy = spec["strategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        rolling.setdefault("maxUnavailable", "25%")
        rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    default_pod_template(spec.get("template"))


def default_daemon_set(obj: Obj) -> None:
    """``SetDefaults_DaemonSet`` (apps/v1) and the template's defaults."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    strategy = spec.get("updateStrategy")
    if not isinstance(strategy, dict):
        strategy = spec["updateStrategy"] = {}
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = strategy.get("rollingUpdate")
        if not isinstance(rolling, dict):
            rolling = strategy["rollingUpdate"] = {}
        rolling.setdefault("maxUnavailable", 1)
        rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    default_pod_template(spec.get("template"))


def default_replica_set(obj: Obj) -> None:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        spec.setdefault("replicas", 1)
        default_pod_template(spec.get("template"))


def _go_rolling(rolling: Any) -> Mapping[str, Any] | None:
    """The internal ``apps.RollingUpdateStatefulSetStrategy`` as ``encoding/json`` writes it."""
    if not isinstance(rolling, Mapping):
        return None
    return {"Partition": rolling.get("partition", 0), "MaxUnavailable": rolling.get("maxUnavailable")}


def _go(value: Any) -> GoJSON:
    return GoJSON(json.dumps(value, separators=(",", ":")))


def _stateful_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateStatefulSetSpec``: the management policy and update strategy enums, counts,
    and the selector against the template (on the defaulted object)."""
    spec = get_in(obj, "spec") or {}
    errors: list[FieldError] = []
    policy = spec.get("podManagementPolicy")
    if policy not in (None, "OrderedReady", "Parallel"):
        errors.append(FieldError.invalid("spec.podManagementPolicy", policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type")
    if kind == "OnDelete" and strategy.get("rollingUpdate") is not None:
        errors.append(FieldError.invalid("spec.updateStrategy.rollingUpdate", _go(_go_rolling(strategy["rollingUpdate"])),
                                         "only allowed for updateStrategy 'RollingUpdate'"))
    elif kind not in (None, "OnDelete", "RollingUpdate"):
        go_strategy = {"Type": kind, "RollingUpdate": _go_rolling(strategy.get("rollingUpdate"))}
        errors.append(FieldError.invalid("spec.updateStrategy", _go(go_strategy), "must be 'RollingUpdate' or 'OnDelete'"))
    return (errors + non_negative_errors(obj, "replicas", "minReadySeconds")
            + selector_template_errors(obj, "statefulset")
            + pod_template_errors(spec.get("template"), "spec.template") + _restart_errors(spec, "StatefulSet"))


# The fields of a StatefulSet's spec an update may change (``ValidateStatefulSetUpdate``).
_STATEFUL_SET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                         "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


def _stateful_set_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    def fixed(obj: Mapping[str, Any]) -> Any:
        return semantic({k: v for k, v in (get_in(obj, "spec") or {}).items() if k not in _STATEFUL_SET_MUTABLE})

    if fixed(new) == fixed(old):
        return []
    return [FieldError.forbidden("spec", "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                         "'template', 'updateStrategy', 'revisionHistoryLimit', "
                                         "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")]


def _replica_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateReplicaSetSpec``, in its order (an empty selector is worded as a Deployment's)."""
    spec = get_in(obj, "spec") or {}
    errors = non_negative_errors(obj, "replicas", "minReadySeconds")
    return errors + _selector_required_errors(spec, "deployment") + _template_errors(spec, "ReplicaSet")


def go_selector(selector: Any) -> GoJSON:
    """A ``*metav1.LabelSelector`` as Go encodes it (its JSON tags: ``matchLabels`` first)."""
    parts = []
    if isinstance(selector, Mapping):
        for key in ("matchLabels", "matchExpressions"):
            if selector.get(key):
                parts.append(f"{json.dumps(key)}:{json.dumps(selector[key], sort_keys=True, separators=(',', ':'))}")
    return GoJSON("{" + ",".join(parts) + "}")


def _template_errors(spec: Mapping[str, Any], kind: str) -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet``'s own checks: the selector selects the template's
    labels, the template's restart policy is Always, no active deadline."""
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors: list[FieldError] = []
    if not selector_matches(spec.get("selector"), labels):
        errors.append(template_mismatch(labels))
    return errors + pod_template_errors(spec.get("template"), "spec.template") + _restart_errors(spec, kind)


def _restart_errors(spec: Mapping[str, Any], kind: str) -> list[FieldError]:
    """A workload's template restarts Always and has no active deadline."""
    errors: list[FieldError] = []
    restart = get_in(spec, "template", "spec", "restartPolicy")
    if restart != "Always":
        errors.append(FieldError.not_supported("spec.template.spec.restartPolicy", restart or "", ["Always"]))
    if get_in(spec, "template", "spec", "activeDeadlineSeconds") is not None:
        errors.append(FieldError.forbidden("spec.template.spec.activeDeadlineSeconds",
                                           f"activeDeadlineSeconds in {kind} is not Supported"))
    return errors


def _selector_required_errors(spec: Mapping[str, Any], kind: str) -> list[FieldError]:
    selector = spec.get("selector")
    if not isinstance(selector, Mapping):
        return [FieldError.required("spec.selector")]
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        return [FieldError.invalid("spec.selector", go_selector(selector), f"empty selector is invalid for {kind}")]
    return []


def _int_or_percent(value: Any) -> int:
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        return int(value[:-1])
    return value if isinstance(value, int) else 0


def _deployment_strategy_errors(strategy: Any) -> list[FieldError]:
    strategy = strategy if isinstance(strategy, Mapping) else {}
    kind, rolling = strategy.get("type"), strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            return [FieldError.forbidden("spec.strategy.rollingUpdate",
                                         "may not be specified when strategy `type` is 'Recreate'")]
        return []
    if kind == "RollingUpdate":
        rolling = rolling if isinstance(rolling, Mapping) else {}
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        errors: list[FieldError] = []
        if _int_or_percent(unavailable) == 0 and _int_or_percent(surge) == 0:
            errors.append(FieldError.invalid("spec.strategy.rollingUpdate.maxUnavailable", unavailable,
                                             "may not be 0 when `maxSurge` is 0"))
        if isinstance(unavailable, str) and _int_or_percent(unavailable) > 100:
            errors.append(FieldError.invalid("spec.strategy.rollingUpdate.maxUnavailable", unavailable,
                                             "must not be greater than 100%"))
        return errors
    go_rolling = None if rolling is None else {"MaxUnavailable": rolling.get("maxUnavailable"),
                                               "MaxSurge": rolling.get("maxSurge")}
    go = {"Type": kind or "", "RollingUpdate": go_rolling}
    return [FieldError.not_supported("spec.strategy", _go(go), ["Recreate", "RollingUpdate"])]


def _deployment_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateDeploymentSpec`` on the defaulted object, in its order."""
    spec = get_in(obj, "spec") or {}
    errors = non_negative_errors(obj, "replicas")
    errors += _selector_required_errors(spec, "deployment")
    errors += _template_errors(spec, "ReplicaSet")
    errors += _deployment_strategy_errors(spec.get("strategy"))
    errors += non_negative_errors(obj, "minReadySeconds", "revisionHistoryLimit", "progressDeadlineSeconds")
    deadline, minimum = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds") or 0
    if isinstance(deadline, int) and isinstance(minimum, int) and deadline <= minimum:
        errors.append(FieldError.invalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"))
    return errors


def _selector_immutable(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    selector = get_in(new, "spec", "selector")
    errors = immutable_errors(selector, get_in(old, "spec", "selector"), "spec.selector")
    return [FieldError.invalid("spec.selector", go_selector(selector), "field is immutable")] if errors else []


def _daemon_set_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """``ValidateDaemonSetSpec`` on the defaulted object: the selector against the template (a
    missing selector matches nothing), an empty selector, the template's restart policy."""
    spec = get_in(obj, "spec") or {}
    labels = get_in(spec, "template", "metadata", "labels") or {}
    errors: list[FieldError] = []
    if not selector_matches(spec.get("selector"), labels):
        errors.append(template_mismatch(labels))
    selector = spec.get("selector")
    if isinstance(selector, Mapping) and not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(FieldError.invalid("spec.selector", go_selector(selector), "empty selector is invalid for daemonset"))
    errors += pod_template_errors(spec.get("template"), "spec.template") + _restart_errors(spec, "DaemonSet")
    return errors + non_negative_errors(obj, "minReadySeconds", "revisionHistoryLimit")


class WorkloadStrategy(Strategy):
    """Defaults on every write (the decoder defaults every body), so that validation and the
    update rules compare defaulted specs; a create answers with the kind's zero ``status``."""

    zero_status: Mapping[str, Any] = {}

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["status"] = dict(self.zero_status)


class StatefulSetStrategy(WorkloadStrategy):
    zero_status = {"availableReplicas": 0, "replicas": 0}

    def default(self, obj: Obj) -> None:
        default_stateful_set(obj, self.features.enabled("MaxUnavailableStatefulSet"))


class DeploymentStrategy(WorkloadStrategy):
    def default(self, obj: Obj) -> None:
        default_deployment(obj)


class ReplicaSetStrategy(WorkloadStrategy):
    zero_status = {"replicas": 0}

    def default(self, obj: Obj) -> None:
        default_replica_set(obj)


_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation"


class DaemonSetStrategy(WorkloadStrategy):
    """A DaemonSet's internal ``templateGeneration`` shows as an annotation: 1 on create, one more
    on each update that changes the template."""

    zero_status = {"currentNumberScheduled": 0, "desiredNumberScheduled": 0, "numberMisscheduled": 0, "numberReady": 0}

    def default(self, obj: Obj) -> None:
        default_daemon_set(obj)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = "1"

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        super().prepare_for_update(new, old)
        generation = str(get_in(old, "metadata", "annotations", _TEMPLATE_GENERATION) or "")
        if generation.isdigit():
            if semantic(get_in(new, "spec", "template")) != semantic(get_in(old, "spec", "template")):
                generation = str(int(generation) + 1)
            new["metadata"].setdefault("annotations", {})[_TEMPLATE_GENERATION] = generation


RULES: dict[tuple[str, str], KindRules] = {
    ("apps", "DaemonSet"): KindRules(
        create=_daemon_set_errors, update=_selector_immutable,
        strategy=lambda spec, options: DaemonSetStrategy(spec)),
    ("apps", "Deployment"): KindRules(
        create=_deployment_errors, update=_selector_immutable,
        strategy=lambda spec, options: DeploymentStrategy(spec)),
    ("apps", "ReplicaSet"): KindRules(
        create=_replica_set_errors, update=_selector_immutable,
        strategy=lambda spec, options: ReplicaSetStrategy(spec)),
    ("apps", "StatefulSet"): KindRules(
        create=_stateful_set_errors, update=_stateful_set_update_errors,
        strategy=lambda spec, options: StatefulSetStrategy(spec, features=options.features)),
}
