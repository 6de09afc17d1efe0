"""Per-kind create and update rules: the fake's version of the registry strategies.

A real API server runs, for every write, the kind's ``PrepareForCreate``/``PrepareForUpdate``
(reset what the client may not set, bump ``generation``), defaulting, validation and admission.
The generic rules are :class:`~fake_apiserver._registry.generic.Strategy`; each kind with rules
of its own has one module here (pods, nodes, storage, DRA ...) that lists them, its strategy
included, in its ``RULES``, and this module hands every kind its strategy and its rules
(:func:`strategy_for`). Functions here receive a fresh copy they may mutate; the store never
passes a stored object.

What is faithful (with the source of each rule in ``k8s-semantics.md``): pod status reset and the
``SchedulingGated`` condition on create (A.3), ``generation`` 1 on create and +1 on a spec change
(E.1), status subresource writes that ignore spec and main-resource writes that ignore status
(E.1), the TaintNodesByCondition taint on new nodes. Pod defaulting covers the fields schedulers
and kubectl read (``schedulerName``, ``restartPolicy``, ``dnsPolicy``, grace period, container pull
policy, DefaultTolerationSeconds tolerations, ``qosClass``); ``priority`` and ``preemptionPolicy``
come from the Priority admission plugin (:mod:`~fake_apiserver._registry.core.pod.admission`); service-account token
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
from fake_apiserver._registry import (
    admissionregistration,
    apiextensions,
    apps,
    autoscaling,
    batch,
    coordination,
    core,
    discovery,
    events,
    networking,
    policy,
    resource,
    scheduling,
    storage,
)
from fake_apiserver._registry.generic import (
    KindRules,
    PriorityClasses,
    StorageClasses,
    Strategy,
    StrategyOptions,
    no_classes,
    no_time,
)

__all__ = ["RULES", "strategy_for"]

RULES: dict[tuple[str, str], KindRules] = {
    (d.group, d.kind): d
    for package in (admissionregistration, apiextensions, apps, autoscaling, batch, coordination, core, discovery,
                    events, networking, policy, resource, scheduling, storage)
    for d in package.DECLARATIONS
}
"""Each kind's own rules by group and kind; a kind that is not here has none."""


def strategy_for(
    spec: KindSpec, *, taint_not_ready: bool, storage_protection: bool = True,
    priority_classes: PriorityClasses = no_classes, storage_classes: StorageClasses = no_classes,
    features: FeatureGates | None = None, now: Callable[[], str] = no_time,
) -> Strategy:
    """The strategy of ``spec``'s kind, holding the kind's rules (the keywords are
    :class:`~fake_apiserver._registry.generic.StrategyOptions`)."""
    options = StrategyOptions(taint_not_ready=taint_not_ready, storage_protection=storage_protection,
                              priority_classes=priority_classes, storage_classes=storage_classes,
                              features=features, now=now)
    rules = RULES.get((spec.group, spec.kind), KindRules())
    strategy = rules.strategy(spec, options) if rules.strategy is not None else Strategy(spec)
    strategy.use(rules)
    return strategy
