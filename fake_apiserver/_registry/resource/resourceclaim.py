"""ResourceClaims (``resource.k8s.io/v1``): the claim spec's defaults and rules
(:mod:`~fake_apiserver._registry.resource.claimspec`), immutable once created. No generation; a
delete answers with the claim; a ``/status`` write keeps the metadata.

Its Table's cells: :func:`print_resource_claim`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._registry.generic import KindRules, Strategy
from fake_apiserver._registry.printing import Cells, age_of, at, name_of
from fake_apiserver._registry.resource.claimspec import (
    default_device_requests,
    validate_claim_spec,
    validate_claim_update,
)

__all__ = ["KIND", "ResourceClaimStrategy", "print_resource_claim"]

Obj = dict[str, Any]


class ResourceClaimStrategy(Strategy):
    """A claim gets the API's defaults on every write, as decoding applies them, and a create
    answers with the empty status struct the real server encodes."""

    def default(self, obj: Obj) -> None:
        default_device_requests(obj.get("spec"))

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        super().prepare_for_create(obj, now)
        obj.setdefault("status", {})

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return validate_claim_spec(obj.get("spec"), "spec")

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return (validate_claim_update(new.get("spec"), old.get("spec"), semantic)
                + validate_claim_spec(new.get("spec"), "spec"))


def print_resource_claim(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """STATE: ``deleted``, then ``pending`` or ``allocated`` (and ``reserved``), comma-joined."""
    states = ["deleted"] if at(obj, "metadata", "deletionTimestamp") else []
    if at(obj, "status", "allocation") is None:
        if not states:
            states.append("pending")
    else:
        states.append("allocated")
        if at(obj, "status", "reservedFor"):
            states.append("reserved")
    return [name_of(obj), ",".join(states), age_of(obj, now)], []


KIND = KindRules(
    group="resource.k8s.io", kind="ResourceClaim", generate_name_checked_on_update=True,
    returns_deleted_object=True, openapi_delete_returns_object=True, generation=False, status_resets_meta=True,
    strategy=lambda spec, options: ResourceClaimStrategy(spec), printer=print_resource_claim)
"""The ResourceClaim's declaration."""
