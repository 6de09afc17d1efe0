"""The ``events.k8s.io`` API group: its Event is the core Event stored once and served in two
shapes, so its declaration sits beside the core one (:mod:`fake_apiserver._registry.core.event`),
as kube-apiserver's ``events.k8s.io`` storage is ``pkg/registry/core/event``'s."""

from fake_apiserver._registry.core import event

__all__ = ["DECLARATIONS"]

DECLARATIONS = (event.EVENTS_KIND,)
"""The declarations of the group's kinds with rules of their own."""
