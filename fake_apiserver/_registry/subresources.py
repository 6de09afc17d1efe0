"""What the store's subresources read of kinds: the kind a subresource's body is, and the kind it
writes, where the subresource itself is generic.

* ``pods/binding`` (and the legacy ``bindings`` resource): the body is a core v1
  :data:`BINDING` that names a node; it writes the pod of :data:`~fake_apiserver._registry.serverkinds.PODS`,
  with the rules of :mod:`~fake_apiserver._registry.binding`.
* ``scale``: a kind's Scale shows its selector as text; :data:`SCALE_SELECTOR_MAPS` are the kinds
  whose selector is a plain map of labels (a ReplicationController's ``spec.selector``), read as
  ``labels.SelectorFromSet``; every other kind's is a ``metav1.LabelSelector``.

``pods/eviction`` has rules of its own (:mod:`~fake_apiserver._registry.core.pod.eviction`), and
``pods/resize`` too (:mod:`~fake_apiserver._registry.resize`).
"""

from __future__ import annotations

from fake_apiserver._registry.serverkinds import GroupResource

__all__ = ["BINDING", "SCALE_SELECTOR_MAPS"]

BINDING = ("", "v1", "Binding")
"""The group, version and kind of a binding's body."""

SCALE_SELECTOR_MAPS: frozenset[GroupResource] = frozenset({("", "replicationcontrollers")})
