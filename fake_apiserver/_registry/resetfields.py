"""The fields a write through a resource or subresource may not give its manager: its reset fields.

A kind's registry strategy wipes some fields on a write: a Deployment written through its main
resource keeps its old ``status``, one written through ``/status`` keeps its old ``spec`` (and
labels). kube-apiserver's field manager is told these fields (``GetResetFields`` of the strategy
the resource's or subresource's storage carries) and leaves them, and everything below them, out
of what the write gives to or takes from any manager; otherwise a ``/status`` writer that sent a
changed ``spec`` would be recorded as owning a ``spec`` it never changed. :func:`reset_fields`
answers for one write's target, to be subtracted (:meth:`FieldSet.without_subtrees`) from the
fields a write changed.

The facts are data, ``fake_apiserver/data/reset-fields.json``, read from Kubernetes v1.37.2's
registry (each kind's ``strategy.go`` and its storage wiring; its ``source`` and ``notes`` say
exactly what) and checked against a real kube-apiserver v1.37.2 by
``tests/fake_apiserver/_registry/test_reset_fields.py``. The Go tables are keyed by group/version;
the file is keyed by group and kind because every version v1.37 serves of a kind resets the same
paths (the trade-off: a release where versions differ would need the version back in the key). A
kind or subresource absent from the file resets nothing.

A custom resource has no row: its strategy is built per CRD version, and what it resets depends
only on whether that version has a status subresource (``custom_has_status``), a rule held in the
file's ``customResources``. A (group, kind) the default release does not serve is taken for a
custom resource.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from fake_apiserver._machinery.fieldset import FieldSet, path_of
from fake_apiserver._registry.kinds import by_kind

__all__ = ["reset_fields"]

Table = dict[str, list[list[str]]]


@functools.cache
def _facts() -> dict[str, Any]:
    with (resources.files("fake_apiserver") / "data" / "reset-fields.json").open("rb") as f:
        data: dict[str, Any] = json.load(f)
    return data


def _field_set(paths: list[list[str]]) -> FieldSet:
    return FieldSet(path_of(*names) for names in paths)


@functools.cache
def _built_in(group: str, kind: str, subresource: str) -> FieldSet:
    table: Table = _facts()["kinds"].get(group, {}).get(kind, {})
    return _field_set(table.get(subresource, []))


@functools.cache
def _custom(subresource: str, has_status: bool) -> FieldSet:
    rules = _facts()["customResources"]
    table: Table = rules["withStatusSubresource" if has_status else "withoutStatusSubresource"]
    return _field_set(table.get(subresource, []))


def reset_fields(group: str, kind: str, subresource: str, *, custom_has_status: bool = False) -> FieldSet:
    """The fields a write to ``kind``'s ``subresource`` (``""``: the main resource) resets, as
    paths of field names; empty when it resets none. ``custom_has_status`` says, for a custom
    resource, whether its CRD version has a status subresource (ignored for a built-in kind)."""
    if by_kind(group, kind) is None:
        return _custom(subresource, custom_has_status)
    return _built_in(group, kind, subresource)
