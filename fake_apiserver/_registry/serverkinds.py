"""The kinds the server itself relies on, and the objects a new server holds.

The store knows no kind by name; where the server's own behaviour needs one, it takes it from here:

* :data:`NAMESPACES`: a namespaced object's namespace must exist and not be terminating, and
  deleting a namespace takes what it holds with it;
* :data:`PODS` and :data:`NODES`: the kinds the pod subresources write and read (binding,
  eviction, resize's node check);
* :data:`CUSTOM_RESOURCE_DEFINITIONS`: the kind whose objects make the server serve new kinds;
* :data:`ADMISSION_LISTERS`: the stored kinds the admission plugins read, by the
  :class:`~fake_apiserver._registry.generic.StrategyOptions` field that hands them in;
* :data:`PROTECTIONS` and :data:`EXPIRIES`: what the controllers the fake plays act on, collected
  from the kinds' declarations (their ``protection`` and ``expires``);
* :func:`bootstrap_objects`: what a new server holds before any request, as kube-apiserver
  creates it: the default namespaces (its system namespaces controller) and the system priority
  classes (the ``scheduling/bootstrap-system-priority-classes`` post-start hook).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.controllers import Expiry, Protection
from fake_apiserver._registry.kinds import DECLARATIONS, by_kind, by_resource
from fake_apiserver._registry.scheduling.priorityclass import system_priority_classes

__all__ = [
    "ADMISSION_LISTERS",
    "CUSTOM_RESOURCE_DEFINITIONS",
    "DEFAULT_NAMESPACES",
    "EXPIRIES",
    "GroupResource",
    "NAMESPACES",
    "NODES",
    "PODS",
    "PRIORITY_CLASSES",
    "PROTECTIONS",
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

PROTECTIONS: tuple[Protection, ...] = tuple(d.protection for d in DECLARATIONS if d.protection is not None)
"""The protection controllers the fake plays with ``storage_protection`` on, in the declarations'
order; after a commit they look again in this order."""


def _expiry(group: str, kind: str, shared: GroupResource | None) -> Expiry:
    spec = by_kind(group, kind)
    assert spec is not None, kind
    own = (group, spec.resource)
    return Expiry(resources=frozenset({own} | ({shared} if shared else set())), storage=own)


EXPIRIES: tuple[Expiry, ...] = tuple(
    _expiry(d.group, d.kind, d.cohabitant.resource if d.cohabitant else None) for d in DECLARATIONS if d.expires)
"""The objects that expire (``--event-ttl``): each kind declared with ``expires`` and its
cohabitant, which holds the same objects, deleted from the kind's own storage."""


def bootstrap_objects(serves: Callable[[GroupResource], bool]) -> list[tuple[KindSpec, Obj]]:
    """The objects a new server creates, in order, each with its kind: the default namespaces,
    then the system priority classes where the server ``serves`` PriorityClasses."""
    objects = [(NAMESPACES, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
               for name in DEFAULT_NAMESPACES]
    if serves((PRIORITY_CLASSES.group, PRIORITY_CLASSES.resource)):
        objects += [(PRIORITY_CLASSES, body) for body in system_priority_classes()]
    return objects
