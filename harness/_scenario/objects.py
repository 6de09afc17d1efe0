"""Creating whole manifests in a scenario: any kind the server serves, custom ones included.

:meth:`~harness._scenario.scenario.Scenario.create_objects` hands each manifest to :class:`ObjectMaker`,
which

* finds the resource through the server's discovery (:mod:`harness._scenario.discovery`), so a custom
  resource, or a kind the fake's table lacks, is created on any backend;
* sends a namespaced object to the scenario's namespace (a manifest naming another one is refused:
  on a shared cluster the scenario owns only its own namespace, and cleans up only that);
* after a CustomResourceDefinition, waits until it is ``Established`` (the condition the API
  server sets once it serves the kind) by watching that one CRD: an explicit wait on its state,
  no sleep; then its kind is known without asking discovery again. On the fake the CRD is
  established at once and the wait ends at the first event. A CRD that exists already (a shared
  cluster where the kind is installed, as a scheduler's plugins install theirs) is taken as it is
  and left there at close; one being deleted (an earlier scenario's cleanup, which the API server
  finishes once the CRD's objects are gone) is waited for, watched until it is gone, and made
  anew. Scenarios that make the same CRD on one cluster at the same time would delete it under
  each other: a shared cluster runs one scenario at a time (kind), envtest one per worker;
* on a shared backend, records what it made that the namespace's cleanup does not reach: objects
  of kinds outside the fake's table of built-in kinds, custom ones (deleted at close, before the
  CRDs), and cluster-scoped built-in objects (deleted by
  :class:`~harness._backends.shared_cluster.SharedCluster`, the CRDs among them).

It also watches one object of any kind until a field has a value
(:meth:`~harness._scenario.scenario.Scenario.expect_field`): the same list-then-watch of that one object,
so waiting costs no polling requests.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable

from fake_apiserver import KINDS, KindSpec
from harness._backends.scenario_client import ApiError, ScenarioClient, ScenarioInformer, resource_path
from harness._scenario.discovery import Discovery, established
from harness._scenario.expectations import ExpectationFailed
from harness._scenario.manifests import CRD_API_VERSION, CRD_KIND, check_manifest

__all__ = ["ESTABLISH_TIMEOUT", "ObjectMaker"]

Obj = dict[str, Any]
Request = Callable[..., Awaitable[Any]]
_BUILT_IN = {(spec.group, spec.resource) for spec in KINDS}  # the namespace's cleanup reaches these
#: How long a new CustomResourceDefinition may take to be Established (seconds on the loop's clock).
ESTABLISH_TIMEOUT = 60.0


class ObjectMaker:
    """Creates manifests for one scenario (module docstring).

    ``request`` is the scenario's own request function and ``client`` its client (the CRD watch
    goes through it, so it counts as the scenario's own); ``made`` records a cluster-scoped object
    for the shared cluster's cleanup (None on a backend of the scenario's own)."""

    def __init__(self, request: Request, client: ScenarioClient, namespace: str,
                 made: Callable[[KindSpec, str], None] | None) -> None:
        self.request = request
        self.client = client
        self.namespace = namespace
        self.made = made
        self.discovery = Discovery(lambda method, path: request(method, path))
        self.custom: list[str] = []  # paths of custom objects made on a shared backend

    async def create(self, manifest: Obj, index: int = 0) -> Obj:
        """Create one manifest; the server's answer (for a CRD: as it is once Established)."""
        check_manifest(manifest, index)
        meta = manifest["metadata"]
        spec = await self.discovery.resolve(manifest["apiVersion"], manifest["kind"])
        namespace = meta.get("namespace")
        if spec.namespaced and namespace not in (None, "", self.namespace):
            raise ValueError(f"{spec.kind} {meta['name']}: metadata.namespace {namespace!r} is not the scenario's "
                             f"namespace {self.namespace!r}; leave it out (namespaced objects go to the scenario's)")
        path = resource_path(spec, self.namespace if spec.namespaced else None)
        crd = (manifest["apiVersion"], manifest["kind"]) == (CRD_API_VERSION, CRD_KIND)
        body = json.loads(json.dumps(manifest))
        try:
            result: Obj = await self.request("POST", path, body=body)
        except ApiError as e:
            if not (crd and e.code == 409):
                raise
            result = await self.request("GET", resource_path(spec, None, meta["name"]))  # installed already: kept
            if not (result.get("metadata") or {}).get("deletionTimestamp"):
                return await self._learn(result)
            # being deleted (an earlier scenario's cleanup): wait until it is gone, then make it anew
            await self._watch_crd(meta["name"], lambda crd: crd is None, "deleted")
            result = await self.request("POST", path, body=body)
        if self.made is not None and (spec.group, spec.resource) not in _BUILT_IN:
            self.custom.append(resource_path(spec, self.namespace if spec.namespaced else None, meta["name"]))
        elif self.made is not None and not spec.namespaced:
            self.made(spec, meta["name"])
        return await self._learn(result) if crd else result

    async def _learn(self, crd: Obj) -> Obj:
        """``crd`` once Established (:meth:`_watch_crd`), its kind then known to discovery."""
        if not established(crd):
            crd = await self._watch_crd(crd["metadata"]["name"], lambda now: now is not None and established(now),
                                        "Established") or crd
        self.discovery.learn(crd)
        return crd

    async def _watch_crd(self, name: str, until: Callable[[Obj | None], bool], what: str) -> Obj | None:
        """Watch the CRD ``name`` until ``until`` holds of it (None: there is none); it as it then
        is. :class:`ExpectationFailed` after :data:`ESTABLISH_TIMEOUT` seconds, naming ``what`` was
        awaited and the CRD's conditions."""
        met, crd = await self.watch("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", name, until,
                                    ESTABLISH_TIMEOUT)
        if not met:
            conditions = ((crd or {}).get("status") or {}).get("conditions") or []
            raise ExpectationFailed(f"CustomResourceDefinition {name} was not {what} within "
                                    f"{ESTABLISH_TIMEOUT:g} s; its conditions: {json.dumps(conditions)}")
        return crd

    async def watch(self, collection: str, name: str, until: Callable[[Obj | None], bool],
                    within: float) -> tuple[bool, Obj | None]:
        """List, then watch, the one object ``name`` of ``collection`` (a path) until ``until`` holds
        of it (None: there is none) or ``within`` seconds have passed: whether it held, and the
        object as last seen."""
        informer = ScenarioInformer(self.client, collection, params={"fieldSelector": f"metadata.name={name}"})
        done = asyncio.Event()

        def check(event: str, obj: Obj) -> None:
            if until(informer.objects.get(name)):
                done.set()

        informer.listeners.append(check)
        await informer.start()  # its first list calls check
        try:
            if not done.is_set():
                await asyncio.wait_for(done.wait(), within)
        except asyncio.TimeoutError:
            pass
        finally:
            await informer.stop()
        return done.is_set(), informer.objects.get(name)

    async def path(self, api_version: str, kind: str, name: str | None = None) -> str:
        """The REST path of ``kind``'s collection in the scenario's namespace (or of one object)."""
        spec = await self.discovery.resolve(api_version, kind)
        return resource_path(spec, self.namespace if spec.namespaced else None, name)

    async def clean_up(self) -> None:
        """Delete the custom objects made on a shared backend, newest first (404: gone already)."""
        for path in reversed(self.custom):
            try:
                await self.request("DELETE", path)
            except ApiError as e:
                if e.code != 404:
                    raise
