"""What the ``admissionregistration.k8s.io`` webhook configurations share: a generation without
a spec (:class:`WebhookConfigurationStrategy`).

Checked against kube-apiserver v1.37.2 (``tests/test_builtin_kinds.py``): a
ValidatingWebhookConfiguration (and a MutatingWebhookConfiguration, whose registry is the same)
is created with ``generation`` 1, though its webhooks sit at the top level, and the generation
moves when they change.
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._registry.generic import Strategy

__all__ = ["WebhookConfigurationStrategy"]

Obj = dict[str, Any]


class WebhookConfigurationStrategy(Strategy):
    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        changed = semantic(new.get("webhooks")) != semantic(old.get("webhooks"))
        new["metadata"]["generation"] = old["metadata"].get("generation", 1) + (1 if changed else 0)
