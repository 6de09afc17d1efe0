"""What the ``admissionregistration.k8s.io`` webhook configurations share: a generation without
a spec (:class:`WebhookConfigurationStrategy`).

Checked against kube-apiserver v1.37.2 (``tests/fake_apiserver/_registry/test_builtin_kinds.py``): a
ValidatingWebhookConfiguration (and a MutatingWebhookConfiguration, whose registry is the same)
is created with ``generation`` 1, though its webhooks sit at the top level, and the generation
moves when they change.

Both kinds' Tables have the same cells (:func:`print_webhook_configuration`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["WebhookConfigurationStrategy", "print_webhook_configuration"]

Obj = dict[str, Any]


def print_webhook_configuration(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    return [name_of(obj), len(obj.get("webhooks") or []), age_of(obj, now)], []


class WebhookConfigurationStrategy(Strategy):
    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj["metadata"]["generation"] = 1

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        changed = semantic(new.get("webhooks")) != semantic(old.get("webhooks"))
        new["metadata"]["generation"] = old["metadata"].get("generation", 1) + (1 if changed else 0)
