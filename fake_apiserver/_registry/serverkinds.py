"""The kinds the server itself relies on, and the objects a new server holds.

The store knows no kind by name; where the server's own behaviour needs one, it takes it from here:

* :data:`NAMESPACES`: a namespaced object's namespace must exist and not be terminating, and
  deleting a namespace takes what it holds with it;
* :data:`PODS` and :data:`NODES`: the kinds the pod subresources write and read (binding,
  eviction, resize's node check);
* :data:`CUSTOM_RESOURCE_DEFINITIONS`: the kind whose objects make the server serve new kinds;
* :data:`ADMISSION_LISTERS`: the stored kinds the admission plugins read, by the
  :class:`~fake_apiserver._registry.generic.StrategyOptions` field that hands them in;
* :func:`bootstrap_objects`: what a new server holds before any request, as kube-apiserver
  creates it: the default namespaces (its system namespaces controller) and the system priority
  classes (the ``scheduling/bootstrap-system-priority-classes`` post-start hook).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.kinds import by_resource
from fake_apiserver._registry.scheduling.priorityclass import system_priority_classes

__all__ = [
    "ADMISSION_LISTERS",
    "CUSTOM_RESOURCE_DEFINITIONS",
    "DEFAULT_NAMESPACES",
    "GroupResource",
    "NAMESPACES",
    "NODES",
    "PODS",
    "PRIORITY_CLASSES",
    "bootstrap_objects",
]

Obj = dict[str, Any]
GroupResource = tuple[str, str]
"""A resource by API group and plural name: ``("", "pods")``."""


def _spec(group: str, version: str, resource: str) -> KindSpec:
    spec = by_resource(group, version, resource)
    assert spec is not None, resource
    return spec


PODS = _spec("", "v1", "pods")
NAMESPACES = _spec("", "v1", "namespaces")
NODES = _spec("", "v1", "nodes")
PRIORITY_CLASSES = _spec("scheduling.k8s.io", "v1", "priorityclasses")

CUSTOM_RESOURCE_DEFINITIONS: GroupResource = ("apiextensions.k8s.io", "customresourcedefinitions")

DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
"""The namespaces a new server holds."""

ADMISSION_LISTERS: Mapping[str, GroupResource] = {
    "priority_classes": (PRIORITY_CLASSES.group, PRIORITY_CLASSES.resource),  # the Priority plugin
    "storage_classes": ("storage.k8s.io", "storageclasses"),  # the DefaultStorageClass plugin
}
"""The stored objects (by name: the kinds are cluster-scoped) each admission lister reads."""


def bootstrap_objects(serves: Callable[[GroupResource], bool]) -> list[tuple[KindSpec, Obj]]:
    """The objects a new server creates, in order, each with its kind: the default namespaces,
    then the system priority classes where the server ``serves`` PriorityClasses."""
    objects = [(NAMESPACES, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
               for name in DEFAULT_NAMESPACES]
    if serves((PRIORITY_CLASSES.group, PRIORITY_CLASSES.resource)):
        objects += [(PRIORITY_CLASSES, body) for body in system_priority_classes()]
    return objects
