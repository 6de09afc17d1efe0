"""Pods (``pkg/registry/core/pod``): the kind whose rules are the largest, one module per role.

* :mod:`.strategy`: the pod strategy (create, update, ``/status``), which calls
* :mod:`.defaults` (``SetDefaults_Pod``, the QoS class), :mod:`.admission` (the admission plugins
  the fake runs on pods) and :mod:`.validation` (``ValidatePod*``);
* :mod:`.binding` and :mod:`.resize`: the ``pods/binding`` and ``pods/resize`` subresources (the
  ``pods/eviction`` transaction is the store's; the kinds ``binding`` and ``eviction`` take are
  declared with the pod);
* :mod:`.template`: a pod template's defaults and rules, which workloads share;
* :mod:`.fields` and :mod:`.shape`: the field labels a pod is selected on, and its body's shape;
* :mod:`.printer`: the cells of a pod's row in a server-side Table.

This package's face is the Pod's declaration, :data:`KIND`.
"""

from fake_apiserver._machinery.kindspec import Subresource
from fake_apiserver._registry.core.pod.fields import FIELD_LABELS, FIELD_VALUES
from fake_apiserver._registry.core.pod.printer import print_pod
from fake_apiserver._registry.core.pod.shape import POD
from fake_apiserver._registry.core.pod.strategy import PodStrategy
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(
    group="", kind="Pod", generate_name_checked_on_update=True,
    returns_deleted_object=True, openapi_delete_returns_object=True,
    strategy=lambda spec, options: PodStrategy(
        spec, priority_classes=options.priority_classes, features=options.features),
    field_labels=FIELD_LABELS, field_values=FIELD_VALUES, shape=POD, printer=print_pod,
    subresource_kinds=(Subresource("binding", "", "v1", "Binding", ("create",)),
                       Subresource("eviction", "policy", "v1", "Eviction", ("create",))))
"""The Pod's declaration."""
