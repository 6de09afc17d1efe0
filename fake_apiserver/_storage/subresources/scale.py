"""The ``scale`` subresource: a workload's replica count read and written as an ``autoscaling/v1``
``Scale`` (``kubectl scale``, the HorizontalPodAutoscaler controller, ``client-go``'s scale client).

A kind has it where its discovery lists ``scale`` (Deployments, ReplicaSets, StatefulSets,
ReplicationControllers; a custom resource whose CRD declares it). What the real ``ScaleREST``
(``pkg/registry/apps/deployment/storage``, ``.../replicaset/storage``, ...) does, and this module:

* ``GET`` answers the parent's ``Scale``: the parent's name, namespace, uid, resourceVersion and
  creationTimestamp, ``spec.replicas``, and in ``status`` the parent's ``status.replicas`` (0
  when unset) and its selector as a string (``metav1.LabelSelectorAsSelector`` of an
  ``apps/v1`` selector, ``labels.SelectorFromSet`` of the plain map of the kinds
  :func:`~fake_apiserver._registry.subresources.scale_selector_is_map` tells: a
  ReplicationController's);
* ``PUT`` decodes a ``Scale`` (the name must be the URL's), validates it (``spec.replicas`` at
  least 0, the error named ``Scale.autoscaling``), takes its ``resourceVersion`` as a
  precondition on the parent, and updates the parent's ``spec.replicas`` through the parent's
  own update (its strategy and validation); ``PATCH`` applies the patch to the current ``Scale``
  first. The answer is the parent's new ``Scale``.

For a custom resource the replica and status paths are the CRD's ``specReplicasPath``,
``statusReplicasPath`` and ``labelSelectorPath``, given as :class:`ScalePaths`.

Server-side apply of a ``Scale`` (:func:`apply_scale`) works as kube-apiserver's scale handler
does: the parent's managed fields are shown as the Scale's (an entry that owns the parent's
replicas owns ``spec.replicas``), the Scale is applied to, and what the result owns goes back to
the parent's entries, a new applier's entry written at the parent's version and without a time
(as kube-apiserver v1.37.2 writes it). A configuration without ``spec.replicas`` sets 0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from fake_apiserver._machinery import gotypes
from fake_apiserver._machinery.apply import apply
from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid
from fake_apiserver._machinery.fieldset import FieldSet, path_of
from fake_apiserver._machinery.gotypes import zero_object
from fake_apiserver._machinery.managedfields import ManagedEntry, decode_managed_fields, encode_managed_fields
from fake_apiserver._machinery.fieldvalidation import FieldValidation, decode_body
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.mergerules import builtin_type
from fake_apiserver._machinery.patch import apply_patch
from fake_apiserver._machinery.selectors import label_selector_from_dict
from fake_apiserver._registry.scheme import resolve_kind
from fake_apiserver._registry.subresources import scale_selector_is_map
from fake_apiserver._storage.fieldmanager import Writer, parse_applied
from fake_apiserver._storage.store import Store

__all__ = ["ScalePaths", "apply_scale", "get_scale", "patch_scale", "paths_for", "scale_of", "update_scale"]

Obj = dict[str, Any]


@dataclass(frozen=True)
class ScalePaths:
    """Where a kind keeps what its Scale shows, as dotted paths (a CRD's ``.spec.replicas``
    without the leading dot); ``selector`` is None for a kind whose Scale shows none."""

    spec_replicas: str = "spec.replicas"
    status_replicas: str = "status.replicas"
    selector: str | None = "spec.selector"
    #: the selector path holds a string already (a CRD's ``labelSelectorPath``), not a selector
    selector_is_text: bool = False


BUILT_IN = ScalePaths()


def paths_for(store: Store, spec: KindSpec) -> ScalePaths:
    """Where ``spec``'s kind keeps what its Scale shows: a CRD's paths, or the built-in ones."""
    declared = store.scale_paths(spec)
    if declared is None:
        return BUILT_IN
    selector = declared.get("labelSelectorPath")
    return ScalePaths(str(declared.get("specReplicasPath") or "").removeprefix("."),
                      str(declared.get("statusReplicasPath") or "").removeprefix("."),
                      str(selector).removeprefix(".") if selector else None, selector_is_text=True)


def _get(obj: Any, path: str) -> Any:
    for step in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(step)
    return obj


def _set(obj: Obj, path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for step in parents:
        child = obj.get(step)
        if not isinstance(child, dict):
            child = obj[step] = {}
        obj = child
    obj[last] = value


def _selector_text(spec: KindSpec, obj: Obj, paths: ScalePaths) -> str | None:
    if paths.selector is None:
        return None
    value = _get(obj, paths.selector)
    if paths.selector_is_text:
        return value if isinstance(value, str) else None
    if scale_selector_is_map(spec):  # a plain map of labels
        return str(label_selector_from_dict({"matchLabels": value or {}}))
    return str(label_selector_from_dict(value)) if isinstance(value, dict) else ""


def scale_of(spec: KindSpec, obj: Obj, paths: ScalePaths = BUILT_IN) -> Obj:
    """The ``autoscaling/v1`` Scale of ``obj``, a stored object of ``spec``'s kind."""
    meta = obj.get("metadata") or {}
    scale_meta = {key: meta[key] for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                  if key in meta}
    replicas = _get(obj, paths.spec_replicas)
    status: Obj = {"replicas": _get(obj, paths.status_replicas) or 0}
    selector = _selector_text(spec, obj, paths)
    if selector:
        status["selector"] = selector
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": scale_meta,
            "spec": {"replicas": replicas} if replicas else {}, "status": status}  # omitempty: 0 is left out


def get_scale(store: Store, spec: KindSpec, namespace: str | None, name: str, paths: ScalePaths = BUILT_IN) -> Obj:
    return scale_of(spec, store.get(spec, namespace, name), paths)


def _decoded_scale(body: Any, name: str, release: str, validation: FieldValidation | None) -> Obj:
    if not isinstance(body, dict):
        raise BadRequest("the object provided is unrecognized (must be of type Scale)")
    body = dict(body)
    resolve_kind("autoscaling", "v1", "Scale", body)
    body = decode_body(gotypes.kind_node("autoscaling", "v1", "Scale", release), "Scale", "v1", body, validation)
    if ((body.get("metadata") or {}).get("name") or "") != name:
        raise BadRequest(f"the name of the object ({(body.get('metadata') or {}).get('name') or ''}) does not "
                         f"match the name on the URL ({name})")
    return body


def _scaled(store: Store, spec: KindSpec, namespace: str | None, name: str, scale: Obj, paths: ScalePaths,
            dry_run: bool, writer: Writer) -> Obj:
    """Write ``scale``'s replicas into the parent through the parent's update; the parent as stored."""
    replicas = (scale.get("spec") or {}).get("replicas", 0) or 0
    if replicas < 0:
        raise Invalid.of("Scale", "autoscaling", name, [
            FieldError.invalid("spec.replicas", replicas, "must be greater than or equal to 0")])
    parent = json_copy(store.get(spec, namespace, name))
    wanted_rv = (scale.get("metadata") or {}).get("resourceVersion")
    if wanted_rv:  # the Scale's version is a precondition on the parent
        parent["metadata"]["resourceVersion"] = wanted_rv
    _set(parent, paths.spec_replicas, replicas)
    return store.update(spec, namespace, name, parent, dry_run=dry_run, writer=replace(writer, through="scale"))


def update_scale(store: Store, spec: KindSpec, namespace: str | None, name: str, body: Any, *,
                 paths: ScalePaths = BUILT_IN, dry_run: bool = False,
                 field_validation: FieldValidation | None = None, writer: Writer = Writer()) -> tuple[Obj, Obj]:
    """PUT of a Scale: the parent before and after (the answer is :func:`scale_of` the latter)."""
    scale = _decoded_scale(body, name, store.release, field_validation)
    before = store.get(spec, namespace, name)
    return before, _scaled(store, spec, namespace, name, scale, paths, dry_run, writer)


def apply_scale(store: Store, spec: KindSpec, namespace: str | None, name: str, patch_body: bytes, *,
                writer: Writer, paths: ScalePaths = BUILT_IN, dry_run: bool = False) -> tuple[Obj, Obj]:
    """Server-side apply of a Scale (module docstring): the parent before and after."""
    before = store.get(spec, namespace, name)
    config = parse_applied(patch_body)
    api_version, kind = str(config.get("apiVersion") or ""), str(config.get("kind") or "")
    if (api_version, kind) != ("autoscaling/v1", "Scale"):
        group, _, version = api_version.rpartition("/")
        raise BadRequest(f"invalid object type: {group}/{version}, Kind={kind}")
    replicas = path_of(*paths.spec_replicas.split("."))
    meta = before.get("metadata") or {}
    shown = []  # the parent's entries as the Scale's
    for entry in decode_managed_fields(meta.get("managedFields")):
        if replicas in entry.fields:
            shown.append(ManagedEntry(entry.manager, entry.operation, "autoscaling/v1", entry.time,
                                      FieldSet([_SCALE_REPLICAS]), entry.subresource))
    live = scale_of(spec, before, paths)
    live["metadata"].pop("managedFields", None)
    result = apply(encode_managed_fields(shown), live, config, builtin_type("autoscaling", "v1", "Scale", store.release),
                   manager=writer.manager, api_version="autoscaling/v1", time="", subresource="scale",
                   force=writer.force, empty=zero_object("autoscaling", "v1", "Scale", store.release))
    owners = {entry.identity: entry for entry in decode_managed_fields(result.managed_fields)
              if _SCALE_REPLICAS in entry.fields}
    entries = []
    for entry in decode_managed_fields(meta.get("managedFields")):
        entry.fields = entry.fields.difference(FieldSet([replicas]))
        if owners.pop(entry.identity, None) is not None:
            entry.fields = entry.fields.union(FieldSet([replicas]))
        if entry.fields:
            entries.append(entry)
    for owner in owners.values():  # the applier's new entry (the parent's version, no time)
        entries.append(ManagedEntry(owner.manager, owner.operation, spec.api_version, None, FieldSet([replicas]),
                                    owner.subresource))
    parent = json_copy(before)
    _set(parent, paths.spec_replicas, (result.object.get("spec") or {}).get("replicas", 0))
    after = store.update(spec, namespace, name, parent, dry_run=dry_run,
                         managed=encode_managed_fields(entries, spec.custom))
    return before, after


_SCALE_REPLICAS = path_of("spec", "replicas")


def patch_scale(store: Store, spec: KindSpec, namespace: str | None, name: str, patch_body: bytes,
                content_type: str, *, paths: ScalePaths = BUILT_IN, dry_run: bool = False,
                field_validation: FieldValidation | None = None, writer: Writer = Writer()) -> tuple[Obj, Obj]:
    """PATCH of a Scale: the patch applied to the current Scale, then written as a PUT."""
    before = store.get(spec, namespace, name)
    current = scale_of(spec, before, paths)
    patched = apply_patch(current, patch_body, content_type, {}, kind="Scale", group="autoscaling", name=name,
                          node=gotypes.kind_node("autoscaling", "v1", "Scale", store.release),
                          validation=field_validation)
    return before, _scaled(store, spec, namespace, name, patched, paths, dry_run, writer)
