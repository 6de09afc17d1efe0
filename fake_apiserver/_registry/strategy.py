"""Each kind's strategy: the generic one with the kind's declaration, or the kind's own.

A real API server runs, for every write, the kind's ``PrepareForCreate``/``PrepareForUpdate``
(reset what the client may not set, bump ``generation``), defaulting, validation and admission.
The generic rules are :class:`~fake_apiserver._registry.generic.Strategy`; a kind with rules of its
own declares them in its module (its ``KIND``, a :class:`~fake_apiserver._registry.generic.KindRules`
naming its strategy, if it has one), its API group's package lists the declaration, and the kind
table collects them (:func:`~fake_apiserver._registry.kinds.declaration`). This module builds a
kind's strategy from its declaration (:func:`strategy_for`) and knows no kind by name. Functions
of a strategy receive a fresh copy they may mutate; the store never passes a stored object.

What is faithful: pod status reset and the ``SchedulingGated`` condition on create, ``generation``
1 on create and +1 on a spec change, status subresource writes that ignore spec and main-resource
writes that ignore status, the TaintNodesByCondition taint on new nodes. Pod defaulting covers the
fields schedulers and kubectl read (``schedulerName``, ``restartPolicy``, ``dnsPolicy``, grace
period, container pull policy, DefaultTolerationSeconds tolerations, ``qosClass``); ``priority``
and ``preemptionPolicy`` come from the Priority admission plugin
(:mod:`~fake_apiserver._registry.core.pod.admission`); service-account token volumes and other
admission plugins are not emulated. Defaults are applied on update too (the decoder defaults every
body), so re-sending a pod as first written is a no-op; ``generation`` compares specs as
``apiequality.Semantic.DeepEqual`` does (an empty list equals a missing one).

A body of a kind the release has no schema of is first checked against the JSON shape its
declaration gives (:mod:`~fake_apiserver._machinery.shapes`), so that a body of the wrong shape
gets the decoder's 400, never a 500.
"""

from __future__ import annotations

from typing import Callable

from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.generic import (
    PriorityClasses,
    StorageClasses,
    Strategy,
    StrategyOptions,
    no_classes,
    no_time,
)
from fake_apiserver._registry.kinds import declaration

__all__ = ["strategy_for"]


def strategy_for(
    spec: KindSpec, *, taint_not_ready: bool, storage_protection: bool = True,
    priority_classes: PriorityClasses = no_classes, storage_classes: StorageClasses = no_classes,
    features: FeatureGates | None = None, now: Callable[[], str] = no_time,
) -> Strategy:
    """The strategy of ``spec``'s kind, holding the kind's declaration (the keywords are
    :class:`~fake_apiserver._registry.generic.StrategyOptions`)."""
    options = StrategyOptions(taint_not_ready=taint_not_ready, storage_protection=storage_protection,
                              priority_classes=priority_classes, storage_classes=storage_classes,
                              features=features, now=now)
    rules = declaration(spec.group, spec.kind)
    strategy = rules.strategy(spec, options) if rules.strategy is not None else Strategy(spec)
    strategy.use(rules)
    return strategy
