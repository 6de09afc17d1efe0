"""The checks of a write against the URL and the stored object, with the real server's errors.

``checkName`` (``apiserver/pkg/endpoints/handlers/rest.go``): the object's name must be the
URL's. ``Store.Update``'s optimistic lock on ``metadata.resourceVersion``
(:func:`check_resource_version`), and the storage preconditions on ``uid`` and
``resourceVersion`` that etcd3's ``GuaranteedUpdate`` checks, whose failure quotes the object's
etcd key (:func:`precondition_failed`, :func:`storage_key`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery.errors import BadRequest, Conflict, FieldError, Invalid, UnknownError
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.storagefactory import etcd_prefix

__all__ = ["check_name", "check_resource_version", "precondition_failed", "storage_key"]

Obj = dict[str, Any]


def check_resource_version(spec: KindSpec, name: str, obj: Obj, old: Obj, rules: KindRules) -> None:
    """``Store.Update``'s optimistic lock on the updated object's ``metadata.resourceVersion``:
    one that does not parse is the versioner's plain error (500 with no reason), none is an
    unconditional update where the kind allows it and a 422 where it does not, any other must
    be the stored one (409)."""
    rv = obj["metadata"].get("resourceVersion") or ""
    if rv and rv != "0" and not (rv.isascii() and rv.isdigit() and int(rv) < 2**64):
        why = "value out of range" if rv.isascii() and rv.isdigit() else "invalid syntax"
        raise UnknownError(f"strconv.ParseUint: parsing {json.dumps(rv)}: {why}")
    if rv in ("", "0") or int(rv) == 0:
        if not rules.unconditional_update:
            error = FieldError.invalid("metadata.resourceVersion", 0, "must be specified for an update")
            raise Invalid.of(spec.resource, spec.group, name, [error])
        return
    if int(rv) != int(old["metadata"]["resourceVersion"]):
        raise Conflict.of(spec.resource, spec.group, name)


def storage_key(spec: KindSpec, namespace: str | None, name: str) -> str:
    """The object's etcd key, as a storage error quotes it."""
    prefix = etcd_prefix(spec)
    return f"/registry/{prefix}/{namespace}/{name}" if spec.namespaced else f"/registry/{prefix}/{name}"


def check_name(meta: Mapping[str, Any], name: str) -> None:
    """``checkName``: the object's name must be the URL's."""
    body_name = meta.get("name") or ""
    if body_name != name:
        raise BadRequest(f"the name of the object ({body_name}) does not match the name on the URL ({name})")


def precondition_failed(spec: KindSpec, namespace: str | None, name: str, what: str, wanted: str, actual: str) -> str:
    """``storage.Preconditions.Check``'s error as ``StorageError.Error()`` renders it."""
    return (
        f"StorageError: invalid object, Code: 4, Key: {storage_key(spec, namespace, name)}, ResourceVersion: 0, "
        f"AdditionalErrorMsg: Precondition failed: {what} in precondition: {wanted}, {what} in object meta: {actual}"
    )
