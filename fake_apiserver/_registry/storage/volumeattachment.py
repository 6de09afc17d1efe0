"""VolumeAttachments (``storage.k8s.io/v1``): the attacher, node and one volume source. An update
needs a resourceVersion; no generation; a ``/status`` write keeps the metadata.

Its Table's cells: :func:`print_volume_attachment`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.names import is_dns1123_subdomain
from fake_apiserver._registry.fieldrules import get_in, invalid_each
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, at, name_of

__all__ = ["KIND", "print_volume_attachment"]

Obj = dict[str, Any]


_ONE_SOURCE = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"


def _volume_attachment_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    spec = get_in(obj, "spec") or {}
    attacher = str(spec.get("attacher") or "")
    errors = ([FieldError.required("spec.attacher")] if not attacher
              else invalid_each("spec.attacher", attacher, is_dns1123_subdomain(attacher)))
    node_name = str(spec.get("nodeName") or "")
    errors += invalid_each("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
    source = spec.get("source") or {}
    inline, pv_name = source.get("inlineVolumeSpec"), source.get("persistentVolumeName")
    if inline is None and pv_name is None:
        errors.append(FieldError.required("spec.source", _ONE_SOURCE))
    elif inline is not None and pv_name is not None:
        errors.append(FieldError.forbidden("spec.source", _ONE_SOURCE))
    elif pv_name is not None:
        if not pv_name:
            errors.append(FieldError.required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"))
        else:
            errors += invalid_each("spec.source.persistentVolumeName", pv_name, is_dns1123_subdomain(str(pv_name)))
    return errors


def print_volume_attachment(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    spec: Obj = obj.get("spec") or {}
    return [name_of(obj), spec.get("attacher", ""), at(spec, "source", "persistentVolumeName") or "",
            spec.get("nodeName", ""), bool(at(obj, "status", "attached")), age_of(obj, now)], []


KIND = KindRules(
    group="storage.k8s.io", kind="VolumeAttachment", generate_name_checked_on_update=True,
    create=_volume_attachment_errors, unconditional_update=False, generation=False, status_resets_meta=True,
    openapi_delete_returns_object=True, printer=print_volume_attachment)
"""The VolumeAttachment's declaration."""
