"""Which REST resource serves a manifest's ``apiVersion`` and ``kind``: asked of the server.

A scenario that creates objects from manifests (a CustomResourceDefinition, its custom objects,
a Deployment) cannot look their kinds up in the fake's table of built-in kinds: a custom kind is
in no table, and a real cluster may serve kinds the table lacks. So the resource is what the
server's discovery says, as ``kubectl`` finds it: ``GET /api/v1`` or ``GET /apis/<group>/<version>``
lists the resources of a group version (``APIResourceList``), each with its kind and scope. Every
server serves these documents, the fake, envtest and any cluster alike.

Trade-offs:

* **One group version at a time, cached.** A manifest names its group version, so only that
  document is read (not the whole ``/apis`` tree), once; a kind it lacks makes it read again
  before the kind is called unknown (a CRD someone else just made).
* **A CRD this scenario made is known from its own status once Established.** Discovery of a
  just-established group can trail the CRD's condition, and discovery cannot be watched; the
  names the server accepted (``status.acceptedNames``) and the CRD's scope and served versions
  say what discovery will, so :meth:`Discovery.learn` records them and drops the cached
  document of each version (read afresh when asked for another kind of the group).
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from fake_apiserver import KindSpec
from harness._backends.scenario_client import ApiError

__all__ = ["Discovery", "UnknownKind", "established", "split_api_version"]

Obj = dict[str, Any]
Request = Callable[[str, str], Awaitable[Any]]


class UnknownKind(ValueError):
    """The server serves no such kind at that group version; the message says what it serves."""


def split_api_version(api_version: str) -> tuple[str, str]:
    """``("apps", "v1")`` from ``apps/v1``, ``("", "v1")`` from ``v1``."""
    group, _, version = api_version.rpartition("/")
    return group, version


def established(crd: Obj) -> bool:
    """Whether a CustomResourceDefinition's ``Established`` condition is ``True``."""
    return any(c.get("type") == "Established" and c.get("status") == "True"
               for c in (crd.get("status") or {}).get("conditions") or [])


class Discovery:
    """``await discovery.resolve("scheduling.x-k8s.io/v1alpha1", "PodGroup")`` -> a
    :class:`~fake_apiserver.KindSpec` with the group, version, resource and scope the server
    serves (enough for :func:`~harness._backends.scenario_client.resource_path`).

    ``request(method, path)`` is the caller's own request function (a scenario's, so that its
    discovery requests count as its own in the journal)."""

    def __init__(self, request: Request) -> None:
        self.request = request
        self._documents: dict[str, dict[str, KindSpec]] = {}  # group version -> kind -> spec
        self._learned: dict[tuple[str, str], KindSpec] = {}  # (group version, kind) from a CRD

    async def resolve(self, api_version: str, kind: str) -> KindSpec:
        """The served resource of ``kind`` at ``api_version``; :class:`UnknownKind` if none."""
        learned = self._learned.get((api_version, kind))
        if learned is not None:
            return learned
        for fresh in (False, True):
            kinds = await self._document(api_version, fresh)
            if kind in kinds:
                return kinds[kind]
        served = ", ".join(sorted(kinds)) or "nothing"
        raise UnknownKind(f"kind {kind!r} is not served at {api_version} (it serves: {served})")

    def learn(self, crd: Obj) -> list[KindSpec]:
        """Record the kind an Established CustomResourceDefinition serves, at each served version."""
        spec = crd.get("spec") or {}
        names = (crd.get("status") or {}).get("acceptedNames") or spec.get("names") or {}
        group = str(spec.get("group", ""))
        out = []
        for version in spec.get("versions") or []:
            if not version.get("served", True):
                continue
            row = KindSpec(group=group, version=str(version.get("name", "")), resource=str(names.get("plural", "")),
                           kind=str(names.get("kind", "")), namespaced=spec.get("scope") != "Cluster",
                           singular=str(names.get("singular", "")), short_names=tuple(names.get("shortNames") or ()),
                           custom=True)
            self._learned[(row.api_version, row.kind)] = row
            self._documents.pop(row.api_version, None)
            out.append(row)
        return out

    async def _document(self, api_version: str, fresh: bool) -> dict[str, KindSpec]:
        if not fresh and api_version in self._documents:
            return self._documents[api_version]
        group, version = split_api_version(api_version)
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            body = await self.request("GET", path)
        except ApiError as e:
            if e.code != 404:
                raise
            raise UnknownKind(f"the server serves no API group version {api_version}") from None
        kinds: dict[str, KindSpec] = {}
        for resource in (body or {}).get("resources") or []:
            name = str(resource.get("name", ""))
            if "/" in name or not resource.get("kind"):
                continue  # a subresource (pods/status)
            kinds.setdefault(str(resource["kind"]), KindSpec(
                group=group, version=version, resource=name, kind=str(resource["kind"]),
                namespaced=bool(resource.get("namespaced")), singular=str(resource.get("singularName") or ""),
                short_names=tuple(resource.get("shortNames") or ())))
        self._documents[api_version] = kinds
        return kinds
