"""The controllers behind CustomResourceDefinitions, run on the store's own writes.

kube-apiserver's apiextensions-apiserver runs controllers that react to a CRD being written: the
naming controller accepts its names (``NamesAccepted``), the establishing controller marks it
``Established``, the apiserver then serves its kind, and on delete the finalizer controller
deletes every custom object before the CRD goes. :class:`CustomResourceDefinitions` does the
same at once, after each commit of a CRD (the store calls :meth:`~CustomResourceDefinitions.observe`):

* a CRD created or updated gets the status :func:`~fake_apiserver._registry.apiextensions.customresourcedefinition.naming.names_status`
  computes, written through ``/status`` as the controllers write it (one more resourceVersion, a
  ``MODIFIED`` event to its watchers); once ``Established``, its kind is served at each served
  version (:meth:`Store.serve_kinds`), with the rows and strategy of
  :mod:`~fake_apiserver._registry.apiextensions.customresource`;
* a CRD deleted takes its objects with it (each deleted, ``DELETED`` to their watchers), its kind
  is no longer served (the watches on it end, as a real server closes them), and the other CRDs
  of its group get their names settled again (a name it held may now be accepted).

Trade-offs: the real controllers act a moment after the write, through the API; here they act
before the write's answer is sent, so a client that creates a CRD may create its objects at once
(on a real server it waits for ``Established``). A CRD's delete removes it at once, rather than
marking it with the cleanup finalizer until its objects are gone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, Sequence

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.apiextensions.customresource import (
    CustomResourceStrategy,
    custom_resource_kinds,
    established,
    openapi_definitions,
)
from fake_apiserver._registry.apiextensions.customresourcedefinition.naming import names_status
from fake_apiserver._registry.apiextensions.customresourcedefinition.strategy import CLEANUP_FINALIZER
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.serverkinds import CUSTOM_RESOURCE_DEFINITIONS

__all__ = ["CRD_GROUP", "CRD_RESOURCE", "CustomResourceDefinitions"]

Obj = dict[str, Any]

CRD_GROUP, CRD_RESOURCE = CUSTOM_RESOURCE_DEFINITIONS


class CustomResourceStore(Protocol):
    """What the controllers use of the store."""

    def lookup(self, group: str, version: str, resource: str) -> KindSpec | None: ...

    def get(self, spec: KindSpec, namespace: str | None, name: str) -> Obj: ...

    def list(self, spec: KindSpec, namespace: str | None) -> Obj: ...

    def update(self, spec: KindSpec, namespace: str | None, name: str, body: Any, *,
               subresource: str | None = None) -> Obj: ...

    def delete_collection(self, spec: KindSpec, namespace: str | None) -> Obj: ...

    def serve_kinds(self, specs: Sequence[KindSpec], strategies: Sequence[Strategy]) -> None: ...

    def stop_serving(self, group: str, resource: str) -> None: ...

    def terminate(self, spec: KindSpec) -> None: ...

    def now(self) -> str: ...


class CustomResourceDefinitions:
    """The naming, establishing and finalizer controllers of one store (see the module docstring),
    run by the store after every commit (:attr:`resources` None: a custom resource's delete may
    end its CRD's)."""

    resources = None

    def __init__(self, store: CustomResourceStore) -> None:
        self.store = store
        self._busy = False
        #: the CRDs whose kinds are served, by group and plural
        self.served: dict[tuple[str, str], Obj] = {}
        #: the CRDs being deleted whose objects are still held by finalizers, by group and plural
        self.terminating: dict[tuple[str, str], str] = {}

    def definitions(self) -> dict[str, Obj]:
        """The OpenAPI definitions of every served custom resource (see
        :func:`~fake_apiserver._registry.apiextensions.customresource.openapi_definitions`)."""
        out: dict[str, Obj] = {}
        for crd in self.served.values():
            out.update(openapi_definitions(crd))
        return out

    def _crd_spec(self) -> KindSpec | None:
        return self.store.lookup(CRD_GROUP, "v1", CRD_RESOURCE)

    def observe(self, spec: KindSpec, old: Obj | None, new: Obj | None) -> None:
        """React to a commit of ``spec``'s kind (only CRDs matter); the controllers' own writes
        are not reacted to again."""
        if self._busy:
            return
        if (spec.group, spec.resource) in self.terminating and new is None:  # one more object gone
            self._busy = True
            try:
                self._finish(spec.group, spec.resource)
            finally:
                self._busy = False
            return
        if (spec.group, spec.resource) != (CRD_GROUP, CRD_RESOURCE):
            return
        self._busy = True
        try:
            if new is None:
                assert old is not None
                self._forget(old)
            elif new["metadata"].get("deletionTimestamp"):
                self._clean_up(new)
            else:
                self._settle(new["metadata"]["name"])
        finally:
            self._busy = False

    def _settle(self, name: str) -> None:
        crds = self._crd_spec()
        assert crds is not None
        crd = self.store.get(crds, None, name)
        status = names_status(crd, self.store.list(crds, None)["items"], self.store.now())
        if status != crd.get("status"):
            body = json_copy(crd)
            body["status"] = status
            crd = self.store.update(crds, None, name, body, subresource="status")
        if established(crd) and not (crd["metadata"].get("deletionTimestamp")):
            specs = custom_resource_kinds(crd)
            if specs:
                self.served[(specs[0].group, specs[0].resource)] = crd
                self.store.serve_kinds(specs, [CustomResourceStrategy(s, crd) for s in specs])

    def _clean_up(self, crd: Mapping[str, Any]) -> None:
        """The finalizer controller: the CRD's objects deleted; once none is left (finalizers may
        hold some: the CRD stays ``Terminating`` and its kind served, creates refused, until they
        go), its kind is no longer served and its cleanup finalizer removed (the CRD goes with it
        when it was the last)."""
        spec = crd.get("spec") or {}
        group = str(spec.get("group") or "")
        names = (crd.get("status") or {}).get("acceptedNames") or {}
        plural = str(names.get("plural") or (spec.get("names") or {}).get("plural") or "")
        self.terminating[(group, plural)] = crd["metadata"]["name"]
        served = self._served(group, plural)
        if served is not None:
            self.store.terminate(served)
            self.store.delete_collection(served, None)
        self._finish(group, plural)

    def _served(self, group: str, plural: str) -> KindSpec | None:
        crd = self.served.get((group, plural))
        for version in ((crd or {}).get("spec") or {}).get("versions") or []:
            served = self.store.lookup(group, str(version.get("name")), plural)
            if served is not None:
                return served
        return None

    def _finish(self, group: str, plural: str) -> None:
        """The end of a CRD's deletion, once none of its objects is left."""
        served = self._served(group, plural)
        if served is not None and self.store.list(served, None)["items"]:
            return
        name = self.terminating.pop((group, plural))
        crds = self._crd_spec()
        assert crds is not None
        crd = self.store.get(crds, None, name)
        self._forget(crd)
        body = json_copy(crd)
        finalizers = [f for f in body["metadata"].get("finalizers") or [] if f != CLEANUP_FINALIZER]
        if finalizers != (body["metadata"].get("finalizers") or []):
            if finalizers:
                body["metadata"]["finalizers"] = finalizers
            else:
                body["metadata"].pop("finalizers", None)
            self.store.update(crds, None, body["metadata"]["name"], body)
            self._settle_group(group)

    def _forget(self, crd: Mapping[str, Any]) -> None:
        """The CRD's kind is no longer served (its watches end)."""
        spec = crd.get("spec") or {}
        group = str(spec.get("group") or "")
        names = (crd.get("status") or {}).get("acceptedNames") or {}
        plural = str(names.get("plural") or (spec.get("names") or {}).get("plural") or "")
        self.served.pop((group, plural), None)
        self.store.stop_serving(group, plural)

    def _settle_group(self, group: str) -> None:
        """The names of the group's other CRDs settled again, in creation order: one may take a
        name the deleted one held."""
        crds = self._crd_spec()
        assert crds is not None
        others = [c for c in self.store.list(crds, None)["items"] if (c.get("spec") or {}).get("group") == group
                  and not c["metadata"].get("deletionTimestamp")]
        others.sort(key=lambda c: (c["metadata"].get("creationTimestamp") or "", c["metadata"]["name"]))
        for other in others:
            self._settle(other["metadata"]["name"])
