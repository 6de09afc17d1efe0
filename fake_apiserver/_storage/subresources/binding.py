"""``POST pods/{name}/binding``: a scheduler's ``Binding`` puts a pod on a node (``BindingREST`` in
``pkg/registry/core/pod/storage``; the legacy ``POST bindings`` comes here too).

The body is decoded as a :data:`~fake_apiserver._registry.subresources.BINDING` (unknown fields
per the request's ``fieldValidation``), its namespace and name checked against the URL, and it is
validated as the registry validates it (:mod:`~fake_apiserver._registry.core.pod.binding`: an invalid one
is a plain 500). The binding's ``uid`` and ``resourceVersion`` are storage preconditions on the
pod (a failure is a conflict on the pods quoting the storage error); the pod's own state gives the
plain errors that ``assignPod`` wraps as a conflict on ``pods/binding``. The pod the binding
leaves is then written as it is: no strategy, no managed fields, as the real ``assignPod`` writes
it through ``GuaranteedUpdate``. A dry run answers the same ``Status`` and binds nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from fake_apiserver._machinery import gotypes
from fake_apiserver._machinery.errors import BadRequest, Conflict
from fake_apiserver._machinery.fieldvalidation import FieldValidation, decode_body
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.core.pod import binding as rules
from fake_apiserver._registry.scheme import resolve_kind
from fake_apiserver._registry.serverkinds import PODS
from fake_apiserver._registry.subresources import BINDING
from fake_apiserver._storage.etcd import ordered
from fake_apiserver._storage.preconditions import precondition_failed

__all__ = ["BindingStore", "bind", "bound"]

Obj = dict[str, Any]


class BindingStore(Protocol):
    """What a binding uses of the store."""

    release: str

    def get(self, spec: KindSpec, namespace: str | None, name: str) -> Obj: ...

    def now(self) -> str: ...

    def next_resource_version(self) -> int: ...

    def commit(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None: ...


def bound(store: BindingStore, namespace: str, name: str, body: Any, *,
          field_validation: FieldValidation | None = None) -> Obj:
    """The pod as the binding ``body`` would leave it, with every check of :func:`bind`, nothing
    written (a preview of the binding's effect)."""
    group, version, kind = BINDING
    if not isinstance(body, dict):
        raise BadRequest(f"the object provided is unrecognized (must be of type {kind})")
    body = dict(body)
    resolve_kind(group, version, kind, body)
    body = decode_body(gotypes.kind_node(group, version, kind, store.release), kind, version, body, field_validation)
    meta = body.setdefault("metadata", {})
    if meta.get("namespace") and meta["namespace"] != namespace:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")
    if (meta.get("name") or "") != name:
        raise BadRequest(f"name in URL does not match name in {kind} object")
    rules.check_binding(rules.validate_binding(body))
    old = store.get(PODS, namespace, name)
    old_meta = old["metadata"]
    for key, what in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        if meta.get(key) and meta[key] != old_meta[key]:
            raise Conflict.of(PODS.resource, PODS.group, name, precondition_failed(
                PODS, namespace, name, what, meta[key], old_meta[key]))
    return rules.assign(old, body, store.now())


def bind(store: BindingStore, namespace: str, name: str, body: Any, *, dry_run: bool = False,
         field_validation: FieldValidation | None = None) -> Obj:
    """Serve a binding (module docstring); the ``Status`` answered with 201."""
    new = bound(store, namespace, name, body, field_validation=field_validation)
    if dry_run:
        return _success()
    old = store.get(PODS, namespace, name)
    rv = store.next_resource_version()
    new["metadata"]["resourceVersion"] = str(rv)
    store.commit(PODS, old, ordered(new), rv)
    return _success()


def _success() -> Obj:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
