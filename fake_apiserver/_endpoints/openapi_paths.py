"""The paths of the OpenAPI documents: every served resource and subresource, with its operations.

A group-version document has a path for every resource and subresource the group-version serves,
with the operations its :class:`~fake_apiserver._machinery.kindspec.KindSpec` serves, as
kube-apiserver's installer (``apiserver/pkg/endpoints/installer.go``) lists them: each tagged with
``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``, named (``operationId``) and
described as the real documents name and describe them, with the query parameters kube-apiserver
lists for the verb (:mod:`~fake_apiserver._endpoints.openapi_params`; the delete options' words are
the schema package's), the request body and the responses by definition name (a DELETE's, the
object where the kind's declaration says the documents have it: ``openapi_delete_returns_object``
of :class:`~fake_apiserver._registry.generic.KindRules`). The watch paths
(``/watch/...``, deprecated) and the all-namespaces lists are there too, and the documents of the
discovery roots (``api``, ``apis``, ``apis/<group>``, ``version``).

Paths are a model (:class:`PathItem`, :class:`Operation`, :class:`Param`) that the documents
render as OpenAPI v3 or Swagger 2.0 (:mod:`~fake_apiserver._endpoints.openapi`); the definitions
their bodies and responses name are converted by :mod:`~fake_apiserver._endpoints.openapi_schemas`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from fake_apiserver._endpoints.discovery import subresource_ref
from fake_apiserver._endpoints.openapi_params import FIELD_MANAGER_PATCH, QUERY_PARAMETERS
from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.apiextensions.customresource import custom_definition_name
from fake_apiserver._registry.core.namespace import NAMESPACE_SEGMENT
from fake_apiserver._registry.kinds import declaration

__all__ = ["Operation", "Param", "PathItem", "discovery_paths", "friendly_group",
           "group_version_paths", "kind_paths", "tag_of"]

_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
# The media types kube-apiserver lists for its responses and bodies (the API the fake stands in for).
_PRODUCES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
_PATCH_TYPES = ("application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json",
                "application/strategic-merge-patch+json")
_LIST = ("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion",
         "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds", "watch")
_WRITE = ("dryRun", "fieldManager", "fieldValidation")
_DELETE = ("dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "orphanDependents",
           "propagationPolicy")
_DELETE_COLLECTION = tuple(sorted({*_LIST, *_DELETE} - {"allowWatchBookmarks", "watch"}))
# The verbs of a subresource of the parent's kind on a row written by hand.
_SUBRESOURCE_VERBS = {"status": ("get", "update", "patch"), "resize": ("get", "update", "patch")}


@dataclass(frozen=True)
class Param:
    name: str
    location: str  # "query" or "path"
    description: str
    type: str = "string"

    @property
    def required(self) -> bool:
        return self.location == "path"


@dataclass(frozen=True)
class Operation:
    method: str  # get, put, post, delete, patch
    action: str  # x-kubernetes-action
    operation_id: str
    description: str
    gvk: tuple[str, str, str] | None
    params: tuple[Param, ...] = ()
    body: str | None = None  # the request body's definition
    body_types: tuple[str, ...] = ("*/*",)
    body_required: bool = True
    responses: tuple[tuple[str, str | None], ...] = ()  # status code, definition
    streams: bool = False  # list and watch also answer as a watch stream
    produces: tuple[str, ...] = _PRODUCES


@dataclass(frozen=True)
class PathItem:
    path: str
    operations: tuple[Operation, ...]
    params: tuple[Param, ...] = ()


def _query(name: str, *, patch: bool = False) -> Param:
    if name == "fieldManager" and patch:
        return Param(name, "query", FIELD_MANAGER_PATCH)
    found = QUERY_PARAMETERS.get(name)
    if found is not None:
        return Param(name, "query", found[1], found[0])
    # dryRun and the delete options are DeleteOptions' fields: the package words them
    field = _schema.definition(_META + "DeleteOptions")["properties"][name]
    kind = [t for t in _schema.resolve(field).get("type", ["string"]) if t != "null"][0]
    return Param(name, "query", field["description"], "string" if kind == "array" else kind)


def _params(names: Iterable[str], *, patch: bool = False) -> tuple[Param, ...]:
    return tuple(_query(n, patch=patch) for n in sorted(names))


def _pretty() -> Param:
    return _query("pretty")


def _name_param(kind: str) -> Param:
    return Param("name", "path", f"name of the {kind}")


def _namespace_param() -> Param:
    return Param("namespace", "path", QUERY_PARAMETERS["namespace"][1])


def friendly_group(group: str) -> str:
    """The group as kube-apiserver's tags and operation ids name it: ``core``, ``apps``,
    ``storage`` (``storage.k8s.io``), ``flowcontrolApiserver`` (``flowcontrol.apiserver.k8s.io``)."""
    if not group:
        return "core"
    parts = group.removesuffix(".k8s.io").split(".")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _ident(group: str, version: str) -> str:
    name = friendly_group(group)
    return name[:1].upper() + name[1:] + version[:1].upper() + version[1:]


def _article(kind: str) -> str:
    return "an" if kind[:1].lower() in "aeiou" else "a"


def _object_responses(definition: str, *codes: str) -> tuple[tuple[str, str | None], ...]:
    return tuple((c, definition) for c in codes) + (("401", None),)


def _definition_name(spec: KindSpec, kind: str) -> str:
    if spec.custom:
        return custom_definition_name(spec.group, spec.version, kind)
    return _schema.definition_name(spec.group, spec.version, kind)


def kind_paths(spec: KindSpec) -> list[PathItem]:
    """The paths of one served kind, with the operations its verbs and subresources allow."""
    g, v, kind = spec.group, spec.version, spec.kind
    ident = _ident(g, v)
    prefix = f"/apis/{g}/{v}" if g else f"/api/{v}"
    ns = f"/{NAMESPACE_SEGMENT}/{{namespace}}" if spec.namespaced else ""
    scope = "Namespaced" if spec.namespaced else ""
    gvk = (g, v, kind)
    definition = _definition_name(spec, kind)
    verbs = set(spec.verbs)
    list_definition = _definition_name(spec, spec.list_kind) if "list" in verbs else ""
    scoped = (_namespace_param(),) if spec.namespaced else ()
    named = (_name_param(kind), *scoped)
    out: list[PathItem] = []

    collection: list[Operation] = []
    if "list" in verbs:
        collection.append(Operation("get", "list", f"list{ident}{scope}{kind}", f"list or watch objects of kind {kind}",
                                    gvk, _params(_LIST), responses=_object_responses(list_definition, "200"),
                                    streams=True))
    if "create" in verbs:
        collection.append(Operation("post", "post", f"create{ident}{scope}{kind}", f"create {_article(kind)} {kind}",
                                    gvk, _params(_WRITE), definition,
                                    responses=_object_responses(definition, "200", "201", "202")))
    if "deletecollection" in verbs:
        collection.append(Operation("delete", "deletecollection", f"delete{ident}Collection{scope}{kind}",
                                    f"delete collection of {kind}", gvk, _params(_DELETE_COLLECTION),
                                    _META + "DeleteOptions", body_required=False,
                                    responses=_object_responses(_META + "Status", "200")))
    if collection:
        out.append(PathItem(f"{prefix}{ns}/{spec.resource}", tuple(collection), (*scoped, _pretty())))

    # what the kind declares its DELETE is documented to answer: the object, else a Status
    documents_object = not spec.custom and declaration(g, kind).openapi_delete_returns_object
    deleted = definition if documents_object else _META + "Status"
    item: list[Operation] = []
    if "get" in verbs:
        item.append(Operation("get", "get", f"read{ident}{scope}{kind}", f"read the specified {kind}", gvk,
                              responses=_object_responses(definition, "200")))
    if "update" in verbs:
        item.append(Operation("put", "put", f"replace{ident}{scope}{kind}", f"replace the specified {kind}", gvk,
                              _params(_WRITE), definition, responses=_object_responses(definition, "200", "201")))
    if "delete" in verbs:
        item.append(Operation("delete", "delete", f"delete{ident}{scope}{kind}", f"delete {_article(kind)} {kind}",
                              gvk, _params(_DELETE), _META + "DeleteOptions", body_required=False,
                              responses=_object_responses(deleted, "200", "202")))
    if "patch" in verbs:
        item.append(_patch(f"patch{ident}{scope}{kind}", f"partially update the specified {kind}", gvk, definition))
    if item:
        out.append(PathItem(f"{prefix}{ns}/{spec.resource}/{{name}}", tuple(item), (*named, _pretty())))

    for sub in spec.subresources:
        if _documented(spec, sub):
            out.append(_subresource(spec, sub, prefix + ns, ident + scope, named))

    if "watch" in verbs:
        list_params = _params(_LIST)
        watch_event = _object_responses(_META + "WatchEvent", "200")
        watching = f"{prefix}/watch{ns}/{spec.resource}"
        out.append(PathItem(watching, (Operation(
            "get", "watchlist", f"watch{ident}{scope}{kind}List",
            f"watch individual changes to a list of {kind}. deprecated: use the 'watch' parameter with a list "
            "operation instead.", gvk, responses=watch_event, streams=True),),
            _sorted((*list_params, *scoped, _pretty()))))
        out.append(PathItem(watching + "/{name}", (Operation(
            "get", "watch", f"watch{ident}{scope}{kind}",
            f"watch changes to an object of kind {kind}. deprecated: use the 'watch' parameter with a list "
            "operation instead, filtered to a single item with the 'fieldSelector' parameter.", gvk,
            responses=watch_event, streams=True),),
            _sorted((*list_params, *named, _pretty()))))
        if spec.namespaced:
            out.append(PathItem(f"{prefix}/watch/{spec.resource}", (Operation(
                "get", "watchlist", f"watch{ident}{kind}ListForAllNamespaces",
                f"watch individual changes to a list of {kind}. deprecated: use the 'watch' parameter with a list "
                "operation instead.", gvk, responses=watch_event, streams=True),),
                _sorted((*list_params, _pretty()))))
    if spec.namespaced and "list" in verbs:
        out.append(PathItem(f"{prefix}/{spec.resource}", (Operation(
            "get", "list", f"list{ident}{kind}ForAllNamespaces", f"list or watch objects of kind {kind}", gvk,
            responses=_object_responses(list_definition, "200"), streams=True),),
            _sorted((*_params(_LIST), _pretty()))))
    return out


def _sorted(params: Iterable[Param]) -> tuple[Param, ...]:
    return tuple(sorted(params, key=lambda p: p.name))


def _patch(operation_id: str, description: str, gvk: tuple[str, str, str], definition: str) -> Operation:
    return Operation("patch", "patch", operation_id, description, gvk,
                     _params((*_WRITE, "force"), patch=True), _META + "Patch", _PATCH_TYPES,
                     responses=_object_responses(definition, "200", "201"))


def _documented(spec: KindSpec, sub: str) -> bool:
    """Whether the fake documents ``sub``: not the connect subresources (``exec``, ``attach``,
    ``portforward``, ``proxy``, whose kinds are ``*Options``) nor ``log``, which the fake does not
    serve (it runs no kubelet)."""
    ref = spec.subresource(sub)
    return sub != "log" and (ref is None or not ref.kind.endswith("Options"))


def _subresource(spec: KindSpec, sub: str, base: str, ident: str, named: tuple[Param, ...]) -> PathItem:
    kind = spec.kind
    path = f"{base}/{spec.resource}/{{name}}/{sub}"
    suffix = sub[:1].upper() + sub[1:]
    ref = subresource_ref(spec, sub)
    if ref is not None and ref.verbs == ("create",):
        # its own kind; kube-apiserver lists its options on the path
        gvk = (ref.group, ref.version, ref.kind)
        own = _schema.definition_name(*gvk)
        named = (_name_param(gvk[2]), *named[1:])
        op = Operation("post", "post", f"create{ident}{kind}{suffix}", f"create {sub} of {_article(kind)} {kind}",
                       gvk, (), own, responses=_object_responses(own, "200", "201", "202"))
        return PathItem(path, (op,), _sorted((*_params(_WRITE), *named, _pretty())))
    gvk = (ref.group, ref.version, ref.kind) if ref is not None else (spec.group, spec.version, kind)
    if spec.custom and gvk[:2] == (spec.group, spec.version):
        definition = custom_definition_name(*gvk)
    else:
        definition = _schema.definition_name(*gvk)
    ops: list[Operation] = []
    verbs = ref.verbs if ref is not None else _SUBRESOURCE_VERBS.get(sub, ("get",))
    if "get" in verbs:
        ops.append(Operation("get", "get", f"read{ident}{kind}{suffix}", f"read {sub} of the specified {kind}", gvk,
                             responses=_object_responses(definition, "200")))
    if "update" in verbs:
        ops.append(Operation("put", "put", f"replace{ident}{kind}{suffix}", f"replace {sub} of the specified {kind}",
                             gvk, _params(_WRITE), definition, responses=_object_responses(definition, "200", "201")))
    if "patch" in verbs:
        ops.append(_patch(f"patch{ident}{kind}{suffix}", f"partially update {sub} of the specified {kind}", gvk,
                          definition))
    return PathItem(path, tuple(ops), (*named, _pretty()))


def group_version_paths(kinds: Iterable[KindSpec], group: str, version: str) -> list[PathItem]:
    """Every path of one served group-version: its resource list, then each kind's paths."""
    ident = _ident(group, version)
    root = f"/apis/{group}/{version}/" if group else f"/api/{version}/"
    out = [PathItem(root, (Operation("get", "", f"get{ident}APIResources", "get available resources", None,
                                     responses=_object_responses(_META + "APIResourceList", "200")),))]
    for spec in kinds:
        if spec.group == group and spec.version == version:
            out.extend(kind_paths(spec))
    return out


def discovery_paths(name: str) -> list[PathItem]:
    """The documents of the discovery roots the fake serves: ``api``, ``apis``, ``apis/<group>``,
    ``version``."""
    if name == "api":
        op = Operation("get", "", "getCoreAPIVersions", "get available API versions", None,
                       responses=_object_responses(_META + "APIVersions", "200"))
        return [PathItem("/api/", (op,))]
    if name == "apis":
        op = Operation("get", "", "getAPIVersions", "get available API versions", None,
                       responses=_object_responses(_META + "APIGroupList", "200"))
        return [PathItem("/apis/", (op,))]
    if name == "version":
        op = Operation("get", "", "getCodeVersion", "get the version information for this server", None,
                       responses=_object_responses("io.k8s.apimachinery.pkg.version.Info", "200"),
                       produces=("application/json",))
        return [PathItem("/version/", (op,))]
    group = name.removeprefix("apis/")
    ident = _ident(group, "")
    op = Operation("get", "", f"get{ident}APIGroup", "get information of a group", None,
                   responses=_object_responses(_META + "APIGroup", "200"))
    return [PathItem(f"/apis/{group}/", (op,))]


def tag_of(path: str) -> str:
    """The tag of a path's operations (``core_v1``, ``apps_v1``, ``storage``, ``version``)."""
    parts = [p for p in path.split("/") if p]
    if parts[0] == "version":
        return "version"
    if parts[0] == "api":
        return "core_" + parts[1] if len(parts) > 1 else "core"
    if len(parts) == 1:
        return "apis"
    return friendly_group(parts[1]) + ("_" + parts[2] if len(parts) > 2 else "")
