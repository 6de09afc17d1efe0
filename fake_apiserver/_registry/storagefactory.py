"""How kinds are laid out in etcd: kube-apiserver's storage factory
(``pkg/kubeapiserver/default_storage_factory_builder.go``), as the kinds' declarations state it.

* :func:`etcd_prefix`: a resource's etcd key prefix, its plural name unless its kind declares
  another (``SpecialDefaultResourcePrefixes``); a storage error quotes the key.
* :func:`cohabitant`: the resource stored once with a kind's and served in another shape
  (``AddCohabitatingResources``): core v1 and events.k8s.io/v1 Events are one resource, so a write
  through either API shows in both, each in its own shape.
"""

from __future__ import annotations

from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.generic import Cohabitant
from fake_apiserver._registry.kinds import declaration

__all__ = ["Cohabitant", "cohabitant", "etcd_prefix"]


def etcd_prefix(spec: KindSpec) -> str:
    """The etcd key prefix of ``spec``'s resource."""
    return declaration(spec.group, spec.kind).etcd_prefix or spec.resource


def cohabitant(spec: KindSpec) -> Cohabitant | None:
    """The resource that shares ``spec``'s storage, or None."""
    return declaration(spec.group, spec.kind).cohabitant
