"""The declarative validation of Workloads and PodGroups: the release's generated rules
(``zz_generated.validations.go`` of ``pkg/apis/scheduling/<version>``, as data) run by
:mod:`~fake_apiserver._machinery.declarative`, with the options the strategies pass them: the
gates ``TopologyAwareWorkloadScheduling``, ``DRAWorkloadResourceClaims``,
``PodGroupPreemptionPolicy`` and ``CompositePodGroup`` as the server has them."""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery import declarative
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.kindspec import KindSpec

__all__ = ["declarative_errors"]


def declarative_errors(spec: KindSpec, obj: dict[str, Any], old: dict[str, Any] | None, features: FeatureGates,
                       subresource: str = "") -> list[FieldError]:
    """The declarative rules of ``spec``'s kind at its version on a create (``old`` None) or an
    update of the main resource or of ``subresource`` (none where the release has no plan of the
    kind: its validation is all hand-written)."""
    release = features.release
    if ".".join(release.split(".")[:2]) not in declarative.releases():
        return []
    plan = declarative.root_type(spec.group, spec.version, spec.kind, release=release)
    if plan is None or f"/{subresource}" not in declarative.subresources(plan, release=release):
        return []
    return declarative.validate(plan, obj, old, release=release, gates=features.enabled)
