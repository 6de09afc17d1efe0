"""Per-kind create and update rules: the fake's version of the registry strategies.

A real API server runs, for every write, the kind's ``PrepareForCreate``/``PrepareForUpdate``
(reset what the client may not set, bump ``generation``), defaulting, validation and admission.
The generic rules are :class:`~fake_apiserver._registry.generic.Strategy`; each kind with rules
of its own has one module here (pods, nodes, storage, DRA ...), and this module hands every kind
its strategy and its rules (:func:`strategy_for`). Functions here receive a fresh copy they may mutate; the store never
passes a stored object.

What is faithful (with the source of each rule in ``k8s-semantics.md``): pod status reset and the
``SchedulingGated`` condition on create (A.3), ``generation`` 1 on create and +1 on a spec change
(E.1), status subresource writes that ignore spec and main-resource writes that ignore status
(E.1), the TaintNodesByCondition taint on new nodes. Pod defaulting covers the fields schedulers
and kubectl read (``schedulerName``, ``restartPolicy``, ``dnsPolicy``, grace period, container pull
policy, DefaultTolerationSeconds tolerations, ``qosClass``); ``priority`` and ``preemptionPolicy``
come from the Priority admission plugin (:mod:`~fake_apiserver._registry.priority`); service-account token
volumes and other admission plugins are not emulated. Defaults are applied on update too (the
decoder defaults every body), so re-sending a pod as first written is a no-op; ``generation``
compares specs as ``apiequality.Semantic.DeepEqual`` does (an empty list equals a missing one).

A body is first checked against the JSON shapes of the fields the fake reads
(:mod:`~fake_apiserver._machinery.shapes`), so that a body of the wrong shape gets the decoder's
400, never a 500.
"""

from __future__ import annotations

from typing import Callable

from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry import apps, coordination, core, disruption, events, node, pod, resource, storage
from fake_apiserver._registry.apps import StatefulSetStrategy
from fake_apiserver._registry.core import NamespaceStrategy
from fake_apiserver._registry.disruption import PodDisruptionBudgetStrategy
from fake_apiserver._registry.generic import KindRules, PriorityClasses, StorageClasses, Strategy, no_classes, no_time
from fake_apiserver._registry.node import NodeStrategy
from fake_apiserver._registry.pod import PodStrategy
from fake_apiserver._registry.priority import PriorityClassStrategy
from fake_apiserver._registry.resource import DeviceTaintRuleStrategy, ResourceClaimStrategy
from fake_apiserver._registry.storage import StorageClassStrategy, VolumeStrategy

__all__ = ["RULES", "strategy_for"]

RULES: dict[tuple[str, str], KindRules] = {
    **apps.RULES, **coordination.RULES, **core.RULES, **disruption.RULES, **events.RULES, **node.RULES,
    **pod.RULES, **resource.RULES, **storage.RULES,
}
"""Each kind's own validation rules by group and kind; a kind that is not here has none."""


def strategy_for(
    spec: KindSpec, *, taint_not_ready: bool, storage_protection: bool = True,
    priority_classes: PriorityClasses = no_classes, storage_classes: StorageClasses = no_classes,
    features: FeatureGates | None = None, now: Callable[[], str] = no_time,
) -> Strategy:
    """The strategy of ``spec``'s kind; ``priority_classes`` is what the Priority admission plugin
    reads (pods and priority classes); ``taint_not_ready`` and ``storage_protection`` turn the
    TaintNodesByCondition and StorageObjectInUseProtection admission plugins on; ``features`` are
    the API server's feature gates (default: the pinned release's defaults); ``now`` is the time
    of a write, for the rules that stamp one on an update (``metav1.Time``, seconds)."""
    strategy = _strategy(spec, taint_not_ready=taint_not_ready, storage_protection=storage_protection,
                         priority_classes=priority_classes, storage_classes=storage_classes, features=features,
                         now=now)
    strategy.use(RULES.get((spec.group, spec.kind), KindRules()))
    return strategy


def _strategy(
    spec: KindSpec, *, taint_not_ready: bool, storage_protection: bool = True,
    priority_classes: PriorityClasses = no_classes, storage_classes: StorageClasses = no_classes,
    features: FeatureGates | None = None, now: Callable[[], str] = no_time,
) -> Strategy:
    """The strategy object of ``spec``'s kind (:func:`strategy_for`)."""
    if spec.group == "resource.k8s.io" and spec.resource in ("resourceclaims", "resourceclaimtemplates"):
        return ResourceClaimStrategy(spec)
    if spec.group == "resource.k8s.io" and spec.resource == "devicetaintrules":
        return DeviceTaintRuleStrategy(spec, now=now)
    if spec.group == "" and spec.resource == "pods":
        return PodStrategy(spec, priority_classes=priority_classes, features=features)
    if spec.group == "scheduling.k8s.io" and spec.resource == "priorityclasses":
        return PriorityClassStrategy(spec, priority_classes=priority_classes)
    if spec.group == "" and spec.resource == "nodes":
        return NodeStrategy(spec, taint_not_ready=taint_not_ready, features=features)
    if spec.group == "policy" and spec.resource == "poddisruptionbudgets":
        return PodDisruptionBudgetStrategy(spec)
    if spec.group == "" and spec.resource == "namespaces":
        return NamespaceStrategy(spec)
    if spec.group == "storage.k8s.io" and spec.resource == "storageclasses":
        return StorageClassStrategy(spec)
    if spec.group == "apps" and spec.resource == "statefulsets":
        return StatefulSetStrategy(spec)
    if spec.group == "" and spec.resource in VolumeStrategy._FINALIZERS:
        return VolumeStrategy(spec, protect=storage_protection, storage_classes=storage_classes)
    return Strategy(spec)
