"""``ObjectMeta`` validation, as ``ValidateObjectMeta`` and its update twin word it: names and
``generateName`` (each kind's name rule), namespaces, labels, annotations, owner references and
finalizers. What differs by kind (its name rule, which ``generateName`` and finalizer checks its
validation runs, the group its errors name) is the kind's declaration
(:func:`~fake_apiserver._registry.kinds.declaration`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Callable, Sequence

from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.names import is_dns1123_label, is_dns1123_subdomain, is_qualified_name, nbytes
from fake_apiserver._registry.fieldrules import dedupe, immutable_errors, invalid_each, labels_errors
from fake_apiserver._registry.kinds import declaration

__all__ = ["check", "generate_name_checked_on_update", "path_segment_errors", "reconcile_namespace",
           "validate_object_meta"]

Obj = dict[str, Any]


def _mask_trailing_dash(name: str) -> str:
    """``maskTrailingDash``, including its habit of dropping two characters, not one."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def path_segment_errors(name: str, *, prefix: bool = False) -> list[str]:
    """``path.ValidatePathSegmentName``: what a name that must fit in a URL path may not be
    (a ``prefix``, a generateName, may be ``.`` or ``..``)."""
    if not prefix and name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in "/%" if c in name]


def _path_segment_prefix(name: str) -> list[str]:
    return path_segment_errors(name, prefix=True)


def _name_checker(spec: KindSpec, *, prefix: bool = False) -> Callable[[str], list[str]]:
    """The kind's name rule (its declaration's ``name_rule``). ``prefix``: the rule for a
    generateName."""
    rule = declaration(spec.group, spec.kind).name_rule
    if rule == "label":
        return is_dns1123_label
    if rule == "path_segment":
        return _path_segment_prefix if prefix else path_segment_errors
    return is_dns1123_subdomain


_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})


_ANNOTATIONS_LIMIT = 256 * (1 << 10)


def _annotations_errors(annotations: Mapping[str, Any] | None) -> list[FieldError]:
    """``ValidateAnnotations``: case-insensitive qualified keys, 256 KiB in total."""
    errors: list[FieldError] = []
    total = 0
    for key, value in (annotations or {}).items():
        errors += invalid_each("metadata.annotations", key, is_qualified_name(key.lower()))
        total += nbytes(key) + nbytes(str(value))
    if total > _ANNOTATIONS_LIMIT:
        errors.append(FieldError.too_long("metadata.annotations", _ANNOTATIONS_LIMIT))
    return errors


def _owner_reference_errors(refs: Sequence[Mapping[str, Any]] | None) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, ref in enumerate(refs or []):
        path = f"metadata.ownerReferences[{i}]"
        api_version = ref.get("apiVersion") or ""
        if not api_version:
            errors.append(FieldError.required(f"{path}.apiVersion", "must not be empty"))
        elif api_version.count("/") > 1 or not api_version.split("/")[-1]:
            errors.append(FieldError.invalid(f"{path}.apiVersion", api_version,
                                             "must be <group>/<version> or <version>"))
        for key in ("kind", "name", "uid"):
            if not ref.get(key):
                errors.append(FieldError.required(f"{path}.{key}", "must not be empty"))
    return errors


def _finalizer_errors(finalizers: Sequence[str] | None, *, create: bool, qualified: bool = True) -> list[FieldError]:
    """apimachinery ``ValidateFinalizers`` (create only), then kube's ``validateKubeFinalizerName``
    (``qualified``: a name without a ``/`` must be a standard one)."""
    errors: list[FieldError] = []
    names = list(finalizers or [])
    if create:
        for name in names:
            errors += invalid_each("metadata.finalizers", name, is_qualified_name(name))
        if "orphan" in names and "foregroundDeletion" in names:
            errors.append(FieldError.invalid("metadata.finalizers", names,
                                             "finalizer orphan and foregroundDeletion cannot be both set"))
    for i, name in enumerate(names):
        path = f"metadata.finalizers[{i}]"
        messages = is_qualified_name(name)
        errors += invalid_each(path, name, messages)
        if qualified and not messages and "/" not in name and name not in _STANDARD_FINALIZERS:
            errors.append(FieldError.invalid(
                path, name, "name is neither a standard finalizer name nor is it fully qualified"))
    return errors


def validate_object_meta(
    spec: KindSpec,
    obj: Mapping[str, Any],
    *,
    create: bool,
    old: Mapping[str, Any] | None = None,
) -> list[FieldError]:
    """``ValidateObjectMeta`` on create, ``ValidateObjectMetaUpdate`` (against ``old``) on update.

    On create the name is required unless ``generateName`` is set: the store generates the name
    before the real server validates, so an empty name with a prefix is not an error here. The
    namespace is checked against the kind's scope as Go does (``Required`` when namespaced,
    ``Forbidden: not allowed on this type`` when cluster-scoped); apply
    :func:`reconcile_namespace` first, as the real server does before validating.
    """
    meta: Mapping[str, Any] = obj.get("metadata") or {}
    errors: list[FieldError] = []
    if create:
        checker = _name_checker(spec)
        generate_name = meta.get("generateName") or ""
        name = meta.get("name") or ""
        if generate_name and (not name or declaration(spec.group, spec.kind).generate_name_checked_with_name):
            errors += invalid_each("metadata.generateName", generate_name,
                                    _name_checker(spec, prefix=True)(_mask_trailing_dash(generate_name)))
        if name:
            errors += invalid_each("metadata.name", name, checker(name))
        elif not generate_name:
            errors.append(FieldError.required("metadata.name", "name or generateName is required"))
        namespace = meta.get("namespace") or ""
        if spec.namespaced:
            if not namespace:
                errors.append(FieldError.required("metadata.namespace"))
            else:
                errors += invalid_each("metadata.namespace", namespace, is_dns1123_label(namespace))
        elif namespace:
            errors.append(FieldError.forbidden("metadata.namespace", "not allowed on this type"))
    else:

        generate_name = meta.get("generateName") or ""
        if generate_name and generate_name_checked_on_update(spec.group, spec.kind):
            errors += invalid_each("metadata.generateName", generate_name,
                                    _name_checker(spec, prefix=True)(_mask_trailing_dash(generate_name)))
        old_meta: Mapping[str, Any] = (old or {}).get("metadata") or {}
        if old is not None and old_meta.get("deletionTimestamp"):
            extra = sorted(set(meta.get("finalizers") or []) - set(old_meta.get("finalizers") or []))
            if extra:
                listed = "[]string{" + ", ".join(json.dumps(e) for e in extra) + "}"
                errors.append(FieldError.forbidden(
                    "metadata.finalizers",
                    f"no new finalizers can be added if the object is being deleted, found new finalizers {listed}"))
    generation = meta.get("generation") or 0
    if generation < 0:
        errors.append(FieldError.invalid("metadata.generation", generation, "must be greater than or equal to 0"))
    if not create and old is not None:
        old_meta = old.get("metadata") or {}
        if generation < (old_meta.get("generation") or 0):
            errors.append(FieldError.invalid("metadata.generation", generation, "must not be decremented"))
        for key in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"):
            errors += immutable_errors(meta.get(key), old_meta.get(key), f"metadata.{key}")
    errors += labels_errors(meta.get("labels"), "metadata.labels")
    errors += _annotations_errors(meta.get("annotations"))
    errors += _owner_reference_errors(meta.get("ownerReferences"))
    errors += _finalizer_errors(meta.get("finalizers"), create=create,
                                qualified=declaration(spec.group, spec.kind).qualified_finalizers)
    return errors


def reconcile_namespace(spec: KindSpec, obj: dict[str, Any], request_namespace: str) -> None:
    """``EnsureObjectNamespaceMatchesRequestNamespace``: fill or clear ``metadata.namespace`` in place.

    A namespaced object without a namespace takes the request's; a cluster-scoped one loses any
    it carries; a conflicting one is a 400.
    """
    expected = request_namespace if spec.namespaced else ""
    meta = obj.setdefault("metadata", {})
    current = meta.get("namespace") or ""
    if current == expected:
        return
    if not current:
        meta["namespace"] = expected
    elif not expected:
        meta.pop("namespace", None)
    else:
        raise BadRequest("the namespace of the provided object does not match the namespace sent on the request")


def check(spec: KindSpec, name: str, errors: list[FieldError]) -> None:
    """Raise ``Pod "p" is invalid: ...`` (422) when ``errors`` is not empty."""
    if errors:  # events.k8s.io Events are validated as the core type, so they are named as one
        group = declaration(spec.group, spec.kind).invalid_group
        if group is None:
            group = spec.group
        raise Invalid.of(spec.kind, group, name, dedupe(errors))


def generate_name_checked_on_update(group: str, kind: str) -> bool:
    """Whether the kind's update validation checks a ``generateName`` (its declaration's
    ``generate_name_checked_on_update``)."""
    return declaration(group, kind).generate_name_checked_on_update
