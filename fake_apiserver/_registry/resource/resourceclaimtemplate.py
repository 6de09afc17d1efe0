"""ResourceClaimTemplates (``resource.k8s.io/v1``): the claim spec they hold (``spec.spec``) gets a
claim's defaults and rules (:mod:`~fake_apiserver._registry.resource.claimspec`). No generation; a
delete answers with the template.

Its Table is NAME and AGE (:func:`~fake_apiserver._registry.printing.name_age`)."""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import name_age
from fake_apiserver._registry.resource.claimspec import default_device_requests, validate_claim_spec

__all__ = ["KIND", "ResourceClaimTemplateStrategy"]

Obj = dict[str, Any]


class ResourceClaimTemplateStrategy(Strategy):
    """The claim spec gets the API's defaults on every write, as decoding applies them, and a
    create answers with the empty claim metadata struct the real server encodes."""

    @staticmethod
    def _claim_spec(obj: Obj) -> Any:
        spec = obj.get("spec")
        return spec.get("spec") if isinstance(spec, dict) else spec

    def default(self, obj: Obj) -> None:
        default_device_requests(self._claim_spec(obj))

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        if isinstance(obj.get("spec"), dict):
            obj["spec"].setdefault("metadata", {})

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_claim_spec(self._claim_spec(obj), "spec.spec")

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return validate_claim_spec(self._claim_spec(new), "spec.spec")


KIND = KindRules(
    group="resource.k8s.io", kind="ResourceClaimTemplate", generate_name_checked_on_update=True,
    returns_deleted_object=True, openapi_delete_returns_object=True, generation=False,
    strategy=lambda spec, options: ResourceClaimTemplateStrategy(spec), printer=name_age)
"""The ResourceClaimTemplate's declaration."""
