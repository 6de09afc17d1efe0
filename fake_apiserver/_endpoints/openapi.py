"""The OpenAPI v2 and v3 documents of what the fake serves, built from the schema source.

What kubectl reads, and so what this module gets right:

* ``/openapi/v3`` lists one document per served group-version (and the discovery roots ``api``,
  ``apis``, ``apis/<group>``, ``version``), each under ``serverRelativeURL`` with
  ``?hash=<SHA-512 of the document, upper-case hex>`` (kube-openapi ``computeETag``).
* A group-version document has a path for every served resource and subresource, with the
  operations its :class:`~fake_apiserver._machinery.kindspec.KindSpec` serves, each tagged with
  ``x-kubernetes-action`` and ``x-kubernetes-group-version-kind``, and the query parameters
  kube-apiserver lists. kubectl's ``queryParamVerifierV3`` finds ``fieldValidation`` on the kind's
  PATCH and so leaves field validation to the server (``--validate=strict`` sends
  ``fieldValidation=Strict``); ``kubectl apply`` finds ``application/strategic-merge-patch+json``
  in that PATCH's body types and builds its patch from the schemas' ``x-kubernetes-patch-*``
  extensions; ``kubectl explain`` finds the kind's GVK on the resource path and renders its
  schema from ``components.schemas``.
* ``components.schemas`` holds the definitions reachable from those paths, converted from the
  schema package's JSON-schema form (:mod:`fake_apiserver._machinery.schema`): ``#/$defs/`` refs become
  ``#/components/schemas/`` refs, ``[type, "null"]`` becomes ``type``, a ref with a description
  beside it is wrapped in ``allOf`` as kube-apiserver's v3 does, the ``apiVersion``/``kind``
  enums the package adds are dropped, a shared meta kind's GVK list keeps the document's
  group-version (and core ``v1``), and ``oneOf: [string, integer]`` regains its
  ``int-or-string`` format.

What the schema source cannot give, and so the documents lack: the v3 ``default`` values
(``default: {}`` on non-pointer structs, ``default: ""`` on required strings), the ``enum`` lists
and the "Possible enum values" paragraph of enum-typed fields (``kubectl explain`` prints no
``ENUM:`` line), and the descriptions of ``IntOrString`` and ``Quantity``. The package's schemas
are generated from the v2 document, which has none of these.

``/openapi/v2`` is the same model as Swagger 2.0 JSON (``definitions``, ``#/definitions/`` refs,
body parameters, ``consumes``/``produces``). A client that accepts only the protobuf form
(client-go's ``OpenAPISchema``, which kubectl uses for client-side validation, ``explain
--output plaintext-openapiv2`` and as ``apply``'s fallback) gets an empty body, a valid empty
gnostic ``openapi_v2.Document``: no maintained Python package encodes gnostic's protobuf, and
kubectl only turns to it when the v3 documents do not answer. With no models, kubectl's
client-side validation (reached only for kinds the v3 verifier does not find, such as ``v1/List``)
checks nothing beyond duplicate keys, and ``explain --output plaintext-openapiv2`` says it cannot
find the resource. The response type is the dotted form the real server sends (kube-openapi
``subTypeProtobuf``): client-go's ``mime.ParseMediaType`` refuses the ``@v1.0`` spelling kubectl
puts in its ``Accept`` header.

Documents are built on first request and kept by the :class:`OpenAPIService` of one server (the
kinds a server serves do not change), encoded once, and served with the real handlers' headers:
``ETag`` (the hash, quoted) and ``If-None-Match`` answered with 304; a group-version document
asked for with its hash is ``Cache-Control: public, immutable`` with a one-year ``Expires``, with a
stale hash a 301 to the current URL (kube-openapi ``HandleGroupVersion``); the root comes
unlabelled, so as ``text/plain; charset=utf-8`` (the aggregator's ``handleDiscovery`` leaves the
type to ``http.ServeContent``'s sniffing). Like those handlers they answer any method.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from collections.abc import Mapping
from typing import Any, Iterable, Sequence

from aiohttp import web

from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.clock import Clock
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.customresource import custom_definition_name
from fake_apiserver._endpoints.openapi_params import FIELD_MANAGER_PATCH, QUERY_PARAMETERS

__all__ = ["OpenAPIService", "PROTOBUF_V2", "v2_document", "v3_document", "v3_names"]

Obj = dict[str, Any]

PROTOBUF_V2 = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
def _info(release: str) -> Obj:
    return {"title": "Kubernetes", "version": ".".join(release.split(".")[:2])}
_SECURITY_SCHEME = {"BearerToken": {"type": "apiKey", "description": "Bearer Token authentication",
                                    "name": "authorization", "in": "header"}}
_META = "io.k8s.apimachinery.pkg.apis.meta.v1."
_V3_REF = "#/components/schemas/"
_V2_REF = "#/definitions/"
# The media types kube-apiserver lists for its responses and bodies (the API the fake stands in for).
_PRODUCES = ("application/json", "application/yaml", "application/vnd.kubernetes.protobuf")
_STREAMS = ("application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch")
_PATCH_TYPES = ("application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json",
                "application/strategic-merge-patch+json")
_LIST = ("allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion",
         "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds", "watch")
_WRITE = ("dryRun", "fieldManager", "fieldValidation")
_DELETE = ("dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "orphanDependents",
           "propagationPolicy")
_DELETE_COLLECTION = tuple(sorted({*_LIST, *_DELETE} - {"allowWatchBookmarks", "watch"}))
_STATUS_TEXT = {"200": "OK", "201": "Created", "202": "Accepted", "401": "Unauthorized"}
# Kinds whose DELETE kube-apiserver documents as answering the deleted object (their storage is a
# ``rest.MayReturnFullObjectDeleter`` that says so); every other kind's, a Status. The namespace
# REST answers with the namespace too but does not declare it, so its document says Status.
_DELETE_RETURNS_OBJECT = {
    ("", "pods"), ("", "services"), ("", "persistentvolumes"), ("", "persistentvolumeclaims"),
    ("storage.k8s.io", "storageclasses"), ("storage.k8s.io", "csinodes"), ("storage.k8s.io", "csidrivers"),
    ("storage.k8s.io", "volumeattachments"), ("resource.k8s.io", "resourceclaims"),
    ("resource.k8s.io", "resourceclaimtemplates"), ("resource.k8s.io", "resourceslices"),
    ("resource.k8s.io", "deviceclasses"),
}
_SUBRESOURCE_VERBS = {"status": ("get", "update", "patch"), "resize": ("get", "update", "patch"),
                      "binding": ("create",), "eviction": ("create",)}


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
    ns = "/namespaces/{namespace}" if spec.namespaced else ""
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

    deleted = definition if (g, spec.resource) in _DELETE_RETURNS_OBJECT else _META + "Status"
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
    ref = spec.subresource(sub)
    if ref is not None and ref.verbs == ("create",) or sub in ("binding", "eviction"):
        # its own kind; kube-apiserver lists its options on the path
        if ref is not None:
            gvk = (ref.group, ref.version, ref.kind)
        else:
            gvk = ("", "v1", "Binding") if sub == "binding" else ("policy", "v1", "Eviction")
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


def _discovery_paths(name: str) -> list[PathItem]:
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


def _tag(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    if parts[0] == "version":
        return "version"
    if parts[0] == "api":
        return "core_" + parts[1] if len(parts) > 1 else "core"
    if len(parts) == 1:
        return "apis"
    return friendly_group(parts[1]) + ("_" + parts[2] if len(parts) > 2 else "")


# --- schemas ------------------------------------------------------------------------------------


def _convert(schema: Any, ref_prefix: str, v3: bool) -> Any:
    """One JSON-schema node of the package in OpenAPI form (see the module docstring)."""
    if isinstance(schema, list):
        return [_convert(s, ref_prefix, v3) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: Obj = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            out[key] = types[0] if len(types) == 1 else types
        elif key == "$ref":
            out[key] = ref_prefix + str(value).removeprefix("#/$defs/")
        elif key == "properties":
            out[key] = {name: _convert(prop, ref_prefix, v3) for name, prop in value.items()}
        else:
            out[key] = _convert(value, ref_prefix, v3)
    if "oneOf" in out:
        if {alt.get("type") for alt in out["oneOf"]} == {"string", "integer"}:
            out.setdefault("format", "int-or-string")
        if not v3:  # Swagger 2.0 has no oneOf: the upstream v2 document types these as strings
            del out["oneOf"]
            out["type"] = "string"
    if "$ref" in out and len(out) > 1:
        if v3:  # kube-apiserver's v3 keeps a ref's siblings by wrapping the ref in allOf
            out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out


@functools.cache
def _definition(name: str, v3: bool, release: str) -> Obj:
    """A definition converted once; the converted form is shared, never modified."""
    schema = _schema.definition(name, release)
    converted: Obj = _convert(schema, _V3_REF if v3 else _V2_REF, v3)
    if schema.get("x-kubernetes-group-version-kind"):
        for field in ("apiVersion", "kind"):  # the package adds these enums; upstream has none
            prop = converted.get("properties", {}).get(field)
            if prop is not None and "enum" in prop:
                converted["properties"][field] = {k: v for k, v in prop.items() if k != "enum"}
    return converted


def _refs(schema: Any, found: set[str]) -> None:
    if isinstance(schema, list):
        for s in schema:
            _refs(s, found)
    elif isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref":
                found.add(str(value).removeprefix("#/$defs/"))
            elif key == "properties":  # keyed by field name: JSONSchemaProps has a field "$ref"
                _refs(list(value.values()), found)
            else:
                _refs(value, found)


@functools.cache
def _direct_refs(name: str, release: str) -> frozenset[str]:
    found: set[str] = set()
    _refs(_schema.definition(name, release), found)
    return frozenset(found)


def reachable(roots: Iterable[str], release: str = _schema.KUBERNETES_VERSION,
              extra: Mapping[str, Obj] | None = None) -> list[str]:
    """``roots`` and every definition they reach, sorted (``extra``: definitions beyond the
    release's, the custom resources', in the schema package's form)."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            if extra and name in extra:
                found: set[str] = set()
                _refs(extra[name], found)
                pending.extend(found - seen)
            else:
                pending.extend(_direct_refs(name, release) - seen)
    return sorted(seen)


def _schemas(paths: Sequence[PathItem], v3: bool, group_version: tuple[str, str] | None, release: str,
             extra: Mapping[str, Obj] | None = None) -> Obj:
    roots = {d for item in paths for op in item.operations
             for d in (op.body, *(r for _, r in op.responses)) if d is not None}
    out: Obj = {}
    for name in reachable(roots, release, extra):
        if extra and name in extra:
            converted = _convert(extra[name], _V3_REF if v3 else _V2_REF, v3)
        else:
            converted = _definition(name, v3, release)
        gvks = converted.get("x-kubernetes-group-version-kind")
        if group_version is not None and gvks and len(gvks) > 1:  # a meta kind: core v1 and this group-version
            keep = [x for x in gvks if (x["group"], x["version"]) in (("", "v1"), group_version)]
            converted = {**converted, "x-kubernetes-group-version-kind": keep}
        out[name] = converted
    return out


# --- rendering ----------------------------------------------------------------------------------


def _v3_param(p: Param) -> Obj:
    out: Obj = {"name": p.name, "in": p.location, "description": p.description}
    if p.required:
        out["required"] = True
    out["schema"] = {"type": p.type, "uniqueItems": True}
    return out


def _v2_param(p: Param) -> Obj:
    out: Obj = {"uniqueItems": True, "type": p.type, "description": p.description, "name": p.name, "in": p.location}
    if p.required:
        out["required"] = True
    return out


def _extensions(op: Operation) -> Obj:
    out: Obj = {}
    if op.action:
        out["x-kubernetes-action"] = op.action
    if op.gvk is not None:
        out["x-kubernetes-group-version-kind"] = {"group": op.gvk[0], "version": op.gvk[1], "kind": op.gvk[2]}
    return out


def _media(op: Operation) -> tuple[str, ...]:
    return tuple(sorted((*op.produces, *(_STREAMS if op.streams else ()))))


def _v3_operation(op: Operation, tag: str) -> Obj:
    out: Obj = {**_extensions(op), "tags": [tag], "description": op.description, "operationId": op.operation_id}
    if op.params:
        out["parameters"] = [_v3_param(p) for p in op.params]
    if op.body is not None:
        body: Obj = {"content": {t: {"schema": {"$ref": _V3_REF + op.body}} for t in op.body_types}}
        if op.body_required:
            body["required"] = True
        out["requestBody"] = body
    responses: Obj = {}
    for code, definition in op.responses:
        response: Obj = {"description": _STATUS_TEXT[code]}
        if definition is not None:
            response["content"] = {t: {"schema": {"$ref": _V3_REF + definition}} for t in _media(op)}
        responses[code] = response
    out["responses"] = responses
    return out


def _v2_operation(op: Operation, tag: str) -> Obj:
    params = [_v2_param(p) for p in op.params]
    if op.body is not None:
        body: Obj = {"name": "body", "in": "body", "schema": {"$ref": _V2_REF + op.body}}
        if op.body_required:
            body["required"] = True
        params.insert(0, body)
    out: Obj = {"description": op.description, "consumes": list(op.body_types), "produces": list(_media(op)),
                "schemes": ["https"], "tags": [tag], "operationId": op.operation_id}
    if params:
        out["parameters"] = params
    responses: Obj = {}
    for code, definition in op.responses:
        response: Obj = {"description": _STATUS_TEXT[code]}
        if definition is not None:
            response["schema"] = {"$ref": _V2_REF + definition}
        responses[code] = response
    out["responses"] = responses
    out.update(_extensions(op))
    return out


def _render_paths(paths: Sequence[PathItem], v3: bool) -> Obj:
    out: Obj = {}
    for item in sorted(paths, key=lambda i: i.path):
        tag = _tag(item.path)
        rendered: Obj = {}
        for method in ("get", "put", "post", "delete", "patch"):  # kube-openapi's field order
            for op in item.operations:
                if op.method == method:
                    rendered[method] = _v3_operation(op, tag) if v3 else _v2_operation(op, tag)
        if item.params:
            rendered["parameters"] = [_v3_param(p) if v3 else _v2_param(p) for p in item.params]
        out[item.path] = rendered
    return out


def v3_names(kinds: Iterable[KindSpec]) -> list[str]:
    """The names ``/openapi/v3`` lists: each served group-version and the discovery roots."""
    names = {"api", "apis", "version"}
    for spec in kinds:
        names.add(f"apis/{spec.group}/{spec.version}" if spec.group else f"api/{spec.version}")
        if spec.group:
            names.add(f"apis/{spec.group}")
    return sorted(names)


def v3_document(kinds: Sequence[KindSpec], name: str, release: str = _schema.KUBERNETES_VERSION,
                extra: Mapping[str, Obj] | None = None) -> Obj:
    """The OpenAPI v3 document ``/openapi/v3/<name>`` (``api/v1``, ``apis/apps/v1``, ``apis``...)
    with the schemas of ``release``."""
    parts = name.split("/")
    group_version: tuple[str, str] | None = None
    if parts[0] == "api" and len(parts) == 2:
        group_version = ("", parts[1])
    elif parts[0] == "apis" and len(parts) == 3:
        group_version = (parts[1], parts[2])
    paths = group_version_paths(kinds, *group_version) if group_version else _discovery_paths(name)
    return {"openapi": "3.0.0", "info": _info(release), "paths": _render_paths(paths, True),
            "components": {"schemas": _schemas(paths, True, group_version, release, extra),
                           "securitySchemes": _SECURITY_SCHEME}}


def v2_document(kinds: Sequence[KindSpec], release: str = _schema.KUBERNETES_VERSION,
                extra: Mapping[str, Obj] | None = None) -> Obj:
    """The Swagger 2.0 document of ``/openapi/v2``: every served path, every reachable definition
    (of ``release``)."""
    paths: list[PathItem] = []
    for name in v3_names(kinds):
        parts = name.split("/")
        if parts[0] == "api" and len(parts) == 2:
            paths.extend(group_version_paths(kinds, "", parts[1]))
        elif parts[0] == "apis" and len(parts) == 3:
            paths.extend(group_version_paths(kinds, parts[1], parts[2]))
        else:
            paths.extend(_discovery_paths(name))
    return {"swagger": "2.0", "info": _info(release), "paths": _render_paths(paths, False),
            "definitions": _schemas(paths, False, None, release, extra), "securityDefinitions": _SECURITY_SCHEME,
            "security": [{"BearerToken": []}]}


# --- serving ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Encoded:
    body: bytes
    etag: str  # SHA-512 of the body, upper-case hex (kube-openapi computeETag)
    last_modified: str


def _encode(document: Obj, now: str) -> Encoded:
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    return Encoded(body, hashlib.sha512(body).hexdigest().upper(), now)


class OpenAPIService:
    """One server's OpenAPI documents, each built and encoded on first request, then kept."""

    def __init__(self, kinds: Sequence[KindSpec], clock: Clock, release: str = _schema.KUBERNETES_VERSION,
                 extra: Mapping[str, Obj] | None = None) -> None:
        self.kinds = tuple(kinds)
        self.extra = dict(extra or {})
        self.release = release
        self.names = v3_names(self.kinds)
        self.clock = clock
        self._built = _http_date(clock.now())  # Last-Modified: when the documents took effect
        self._v3: dict[str, Encoded] = {}
        self._v2: Encoded | None = None

    def v3(self, name: str) -> Encoded:
        encoded = self._v3.get(name)
        if encoded is None:
            encoded = self._v3[name] = _encode(v3_document(self.kinds, name, self.release, self.extra), self._built)
        return encoded

    def v2(self) -> Encoded:
        if self._v2 is None:
            self._v2 = _encode(v2_document(self.kinds, self.release, self.extra), self._built)
        return self._v2

    def root(self) -> Obj:
        return {"paths": {name: {"serverRelativeURL": f"/openapi/v3/{name}?hash={self.v3(name).etag}"}
                          for name in self.names}}

    def respond(self, path: str, query: Mapping[str, str], headers: Mapping[str, str]) -> web.Response | None:
        """The answer to ``/openapi/v2``, ``/openapi/v3`` or ``/openapi/v3/<name>``; None for
        any other path."""
        if path == "/openapi/v3":
            body = json.dumps(self.root(), separators=(",", ":")).encode()
            return web.Response(body=body, headers={"Content-Type": "text/plain; charset=utf-8",
                                                    "Last-Modified": _http_date(self.clock.now())})
        if path.startswith("/openapi/v3/"):
            return self._group_version(path.removeprefix("/openapi/v3/"), query, headers)
        if path == "/openapi/v2":
            return self._v2_response(headers)
        return None

    def _group_version(self, name: str, query: Mapping[str, str], headers: Mapping[str, str]) -> web.Response:
        if name not in self.names:
            return web.Response(status=404)
        accept = headers.get("Accept", "") or "*/*"
        if not _accepts(accept, ("application/json", "application/*", "*/*")):
            # kube-openapi answers 406 when no clause matches; the protobuf form is not served
            return web.Response(status=406, headers={"Vary": "Accept"})
        encoded = self.v3(name)
        hash_ = query.get("hash", "")
        base = {"Vary": "Accept", "ETag": f'"{encoded.etag}"', "Content-Type": "application/json"}
        if hash_ and hash_ != encoded.etag:
            return web.Response(status=301, headers={**base, "Location": f"/openapi/v3/{name}?hash={encoded.etag}"})
        if hash_:
            expires = self.clock.now() + timedelta(days=365)  # Go: time.Now().AddDate(1, 0, 0), RFC 1123
            base.update({"Cache-Control": "public, immutable", "Expires": expires.strftime("%a, %d %b %Y %H:%M:%S UTC")})
        return _serve(encoded, base, headers)

    def _v2_response(self, headers: Mapping[str, str]) -> web.Response:
        accept = headers.get("Accept", "")
        if "protobuf" in accept and not _accepts(accept, ("application/json", "application/*", "*/*")):
            return web.Response(body=b"", headers={"Content-Type": PROTOBUF_V2, "Vary": "Accept"})
        encoded = self.v2()
        return _serve(encoded, {"Vary": "Accept", "ETag": f'"{encoded.etag}"', "Content-Type": "application/json"},
                      headers)


def _http_date(t: datetime) -> str:
    return t.strftime("%a, %d %b %Y %H:%M:%S GMT")


def _serve(encoded: Encoded, base: dict[str, str], headers: Mapping[str, str]) -> web.Response:
    """``http.ServeContent``: 304 for a matching ``If-None-Match``, else the body."""
    base["Last-Modified"] = encoded.last_modified
    if_none_match = headers.get("If-None-Match", "")
    if if_none_match and (if_none_match.strip() == "*" or
                          base["ETag"] in [t.strip().removeprefix("W/") for t in if_none_match.split(",")]):
        return web.Response(status=304, headers={k: v for k, v in base.items() if k != "Content-Type"})
    return web.Response(body=encoded.body, headers=base)


def _accepts(accept: str, types: Sequence[str]) -> bool:
    for clause in accept.split(","):
        media = clause.split(";", 1)[0].strip().lower()
        params = [p.strip().replace(" ", "") for p in clause.split(";")[1:]]
        if media in types and not any(p in ("q=0", "q=0.0", "q=0.00", "q=0.000") for p in params):
            return True
    return False
