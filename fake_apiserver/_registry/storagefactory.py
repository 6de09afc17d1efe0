"""How kinds are laid out in etcd: kube-apiserver's storage factory
(``pkg/kubeapiserver/default_storage_factory_builder.go``).

* :data:`ETCD_PREFIXES`: the resources whose etcd key prefix is not their plural name
  (``SpecialDefaultResourcePrefixes``); a storage error quotes the key.
* :data:`COHABITING`: resources stored once and served in two shapes
  (``AddCohabitatingResources``): core v1 and events.k8s.io/v1 Events are one resource, so a write
  through either API shows in both, each in its own shape (:func:`~fake_apiserver._registry.events.convert_event`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from fake_apiserver._registry.core.event import convert_event
from fake_apiserver._registry.serverkinds import GroupResource

__all__ = ["COHABITING", "Cohabitant", "ETCD_PREFIXES"]

Obj = dict[str, Any]

ETCD_PREFIXES: Mapping[GroupResource, str] = {
    ("", "nodes"): "minions", ("", "services"): "services/specs", ("", "replicationcontrollers"): "controllers",
}


@dataclass(frozen=True)
class Cohabitant:
    """The resource that shares a resource's storage, and ``convert(obj, group)``: an object in
    the shape of ``group``'s API."""

    resource: GroupResource
    convert: Callable[[Obj, str], Obj]


COHABITING: Mapping[GroupResource, Cohabitant] = {
    ("", "events"): Cohabitant(("events.k8s.io", "events"), convert_event),
    ("events.k8s.io", "events"): Cohabitant(("", "events"), convert_event),
}
