"""What the store's subresources read of kinds, where the subresource itself is generic: the kind a
subresource's body is, and how a kind's Scale reads its selector, as the kinds' declarations
state them.

* ``pods/binding`` (and the legacy ``bindings`` resource): the body is a :data:`BINDING`, the kind
  the pod's declaration gives its ``binding`` subresource, that names a node; it writes the pod of
  :data:`~fake_apiserver._registry.serverkinds.PODS`, with the rules of
  :mod:`~fake_apiserver._registry.core.pod.binding`.
* ``scale``: a kind's Scale shows its selector as text; :func:`scale_selector_is_map` tells the
  kinds whose selector is a plain map of labels (a ReplicationController's ``spec.selector``), read
  as ``labels.SelectorFromSet``; every other kind's is a ``metav1.LabelSelector``.

``pods/eviction`` has rules of its own (:mod:`~fake_apiserver._registry.core.pod.eviction`), and
``pods/resize`` too (:mod:`~fake_apiserver._registry.core.pod.resize`).
"""

from __future__ import annotations

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.kinds import declaration
from fake_apiserver._registry.serverkinds import PODS

__all__ = ["BINDING", "scale_selector_is_map"]

BINDING: tuple[str, str, str] = next(
    (s.group, s.version, s.kind) for s in declaration(PODS.group, PODS.kind).subresource_kinds if s.name == "binding")
"""The group, version and kind of a binding's body."""


def scale_selector_is_map(spec: KindSpec) -> bool:
    """Whether the Scale of ``spec``'s kind reads its selector as a plain map of labels."""
    return declaration(spec.group, spec.kind).scale_selector_map
