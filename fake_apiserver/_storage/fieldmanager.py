"""Managed fields on every write, and server-side apply, as kube-apiserver's field manager does them.

kube-apiserver tracks, in ``metadata.managedFields``, which manager set which field. It computes
them in the handler, on the request's object as decoded and defaulted, before mutating admission
and before the strategy's ``PrepareFor*``; fields that admission or the strategy add belong to
nobody. The store calls this module at that point of each write (:meth:`FieldManager.created`,
:meth:`FieldManager.updated`, :meth:`FieldManager.applied`) and puts the result in the object it
stores. The semantics themselves (what a write gives and takes, how an apply merges and
conflicts) are in :mod:`~fake_apiserver._machinery.managedfields` and
:mod:`~fake_apiserver._machinery.apply`; this module supplies what they need from the store: the
kind's merge rules (:meth:`~fake_apiserver._registry.generic.Strategy.merge_type`: the release's
schemas, or a CRD version's), the fields its strategy resets on the written (sub)resource
(:mod:`~fake_apiserver._registry.resetfields`), the empty object a create starts from, and the
time.

A write's manager is a :class:`Writer`: ``?fieldManager=``, else the User-Agent's product
(:func:`~fake_apiserver._machinery.managedfields.manager_name`). The fake's own writes (its
controllers, its bootstrap objects) are :data:`INTERNAL_MANAGER`'s, as a real server's loopback
client's are.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from fake_apiserver._machinery import goyaml
from fake_apiserver._machinery.apply import AppliedObject, apply, typed_config_error
from fake_apiserver._machinery.errors import BadRequest, UnknownError
from fake_apiserver._machinery.fieldset import FieldSet
from fake_apiserver._machinery.gotypes import zero_object
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.managedfields import managed_fields_before, update_managed_fields
from fake_apiserver._machinery.mergerules import FieldType
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.resetfields import reset_fields

__all__ = ["INTERNAL_MANAGER", "FieldManager", "Writer", "parse_applied", "sent_managed_fields"]

Obj = dict[str, Any]

INTERNAL_MANAGER = "kube-apiserver"
"""The manager of the fake's own writes: a real server's loopback client says ``kube-apiserver/v1.N``."""


@dataclass(frozen=True)
class Writer:
    """Who writes: the manager's name, for an apply whether it forces conflicts, and the
    subresource a write of the whole object came through (a Scale's ``scale``: its entry says so)."""

    manager: str = INTERNAL_MANAGER
    force: bool = False
    through: str = ""


def parse_applied(data: bytes) -> Obj:
    """An apply's body as the object it configures (the handler has already refused one that is no
    YAML or JSON object, or of another kind than the URL's)."""
    value = goyaml.load(data) if data.strip() else None
    return value if isinstance(value, dict) else {}


def sent_managed_fields(body: Any) -> Any:
    """The managedFields a write's body carries as sent (None: none)."""
    meta = body.get("metadata") if isinstance(body, dict) else None
    return meta.get("managedFields") if isinstance(meta, dict) else None


def _without_managed_fields(obj: Obj) -> Obj:
    out = dict(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        out["metadata"] = {k: v for k, v in meta.items() if k != "managedFields"}
    return out


class FieldManager:
    """The managed fields of a store's writes (module docstring); ``now`` is the store's clock."""

    def __init__(self, release: str, now: Callable[[], str]) -> None:
        self.release = release
        self.now = now

    def merge_type(self, strategy: Strategy) -> FieldType:
        return strategy.merge_type(self.release)

    def reset(self, spec: KindSpec, strategy: Strategy, subresource: str) -> FieldSet:
        return reset_fields(spec.group, spec.kind, subresource, custom_has_status=spec.custom and spec.has_status)

    def empty(self, spec: KindSpec) -> Obj:
        """The object a create starts from: the kind's Go zero value (``{}`` for a custom resource)."""
        if spec.custom:
            return {}
        try:
            return zero_object(spec.group, spec.version, spec.kind, self.release)
        except KeyError:  # a kind of a test's own
            return {}

    def created(self, spec: KindSpec, strategy: Strategy, obj: Obj, writer: Writer, sent: Any = None) -> list[Obj]:
        """The managedFields of ``obj`` created by ``writer`` (``obj`` decoded and defaulted; the
        managedFields the body carried, ``sent``, if readable, are where the write starts from)."""
        return update_managed_fields(
            managed_fields_before(None, sent), self.empty(spec), _without_managed_fields(obj), self.merge_type(strategy),
            manager=writer.manager, api_version=spec.api_version, time=self.now(), reset=self.reset(spec, strategy, ""),
            creating=True, unstructured=spec.custom)

    def updated(self, spec: KindSpec, strategy: Strategy, old: Obj, obj: Obj, writer: Writer,
                subresource: str = "", sent: Any = None) -> list[Obj]:
        """The managedFields after ``writer`` turned the stored ``old`` into ``obj`` (decoded and
        defaulted); a PUT's or patch's object may rewrite the managedFields it starts from
        (``sent``: those of the body as sent, where an empty list still shows)."""
        live = (old.get("metadata") or {}).get("managedFields")
        subresource = writer.through or subresource
        # an entry written through ``scale`` has no time: kube-apiserver v1.37.2's scale handler
        # converts the Scale's entries back to the parent's without it
        time = None if writer.through == "scale" else self.now()
        return update_managed_fields(
            managed_fields_before(live, sent, subresource), _without_managed_fields(old), _without_managed_fields(obj),
            self.merge_type(strategy), manager=writer.manager, api_version=spec.api_version, time=time,
            subresource=subresource, reset=self.reset(spec, strategy, subresource), unstructured=spec.custom)

    def applied(self, spec: KindSpec, strategy: Strategy, old: Obj | None, config: Obj, writer: Writer,
                name: str, subresource: str = "") -> AppliedObject:
        """``writer`` applying ``config`` to the stored ``old`` (None: the apply creates it): the
        merged object, before decoding and defaulting, and its managedFields. The configuration's
        own checks come first: no managedFields (400), then its fields typed by the kind's schema
        (kube-apiserver's 500 ``failed to create typed patch object``), then
        :func:`~fake_apiserver._machinery.apply.apply`'s conflicts (409)."""
        meta = config.get("metadata")
        if isinstance(meta, dict) and meta.get("managedFields") is not None:
            raise BadRequest("metadata.managedFields must be nil")
        ftype = self.merge_type(strategy)
        problem = typed_config_error(config, ftype)
        if problem:
            raise UnknownError(f"failed to create typed patch object ({_object_ref(config, name)}; "
                                f"{_gvk(spec)}): {problem}")
        if old is None:
            live, managed = self.empty(spec), None
        else:
            live, managed = _without_managed_fields(old), (old.get("metadata") or {}).get("managedFields")
            if spec.custom and live.get("apiVersion") != spec.api_version:  # None conversion to the URL's version
                live["apiVersion"] = spec.api_version
        return apply(managed, copy.deepcopy(live), config, ftype, manager=writer.manager, api_version=spec.api_version,
                     time=self.now(), subresource=subresource, reset=self.reset(spec, strategy, subresource),
                     force=writer.force, unstructured=spec.custom, empty=self.empty(spec))


def _object_ref(config: Obj, name: str) -> str:
    """``namespace/name`` as the typed-patch error names the object (the body's namespace, if any)."""
    meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
    return f"{(meta or {}).get('namespace') or ''}/{name}"


def _gvk(spec: KindSpec) -> str:
    """A group-version-kind as Go's ``schema.GroupVersionKind`` prints it."""
    return f"{spec.group}/{spec.version}, Kind={spec.kind}"
