"""Custom resources: the rows and the strategy of a CustomResourceDefinition's kind.

What kube-apiserver's apiextensions-apiserver builds for an established CRD, the fake builds here
from the CRD object: one :class:`~fake_apiserver._machinery.kindspec.KindSpec` row per served
version (:func:`custom_resource_kinds`: names, scope, categories, the ``status`` and ``scale``
subresources, the ``selectableFields``), and the strategy a write of a custom object goes through
(:class:`CustomResourceStrategy`), served by the same generic store as any built-in kind:

* decoding prunes what the version's structural schema does not name and applies its defaults
  (:mod:`~fake_apiserver._machinery.structural`), reporting the pruned fields as
  ``fieldValidation`` says; a custom resource has no typed schema of the release;
* validation is the schema's (types, formats, bounds, ...), then its ``x-kubernetes-validations``
  rules (:mod:`~fake_apiserver._machinery.crdcel`), which run only when the schema found nothing
  (the real validator skips CEL on a structurally invalid object);
* with the ``status`` subresource, a create drops ``status``, a main-resource write keeps the
  stored status, a ``/status`` write changes only ``status`` (metadata too stays as stored), and
  ``metadata.generation`` counts changes of everything but ``metadata`` and ``status``; without
  it, ``generation`` counts changes of everything but ``metadata``.

A CRD's versions share one storage; the fake serves the storage version's objects at every served
version with ``None`` conversion, which changes only ``apiVersion`` (what a CRD without a
conversion webhook gets). Strategic merge patch is refused, as for every custom resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fake_apiserver._machinery import crdcel, structural
from fake_apiserver._machinery import schema as _schema
from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import BadRequest, FieldError, Forbidden
from fake_apiserver._machinery.fieldvalidation import FieldValidation
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import KindSpec, Subresource
from fake_apiserver._machinery.mergerules import FieldType, custom_type
from fake_apiserver._registry.generic import KindRules, Strategy, copy_key

__all__ = [
    "CustomResourceStrategy",
    "custom_definition_name",
    "custom_resource_kinds",
    "established",
    "openapi_definitions",
    "storage_version",
    "version_of",
]

Obj = dict[str, Any]

_VERBS = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")


def established(crd: Mapping[str, Any]) -> bool:
    """Whether the CRD's ``Established`` condition is ``True`` (its kind is served from then on)."""
    for condition in ((crd.get("status") or {}).get("conditions") or []):
        if isinstance(condition, dict) and condition.get("type") == "Established":
            return condition.get("status") == "True"
    return False


def storage_version(crd: Mapping[str, Any]) -> str:
    """The name of the CRD's storage version."""
    for version in (crd.get("spec") or {}).get("versions") or []:
        if version.get("storage"):
            return str(version["name"])
    return ""


def version_of(crd: Mapping[str, Any], name: str) -> Obj:
    """The CRD's version ``name`` (an empty dict if it has none)."""
    for version in (crd.get("spec") or {}).get("versions") or []:
        if version.get("name") == name:
            return dict(version)
    return {}


def _field_label(json_path: str) -> str:
    return json_path.removeprefix(".")


def custom_resource_kinds(crd: Mapping[str, Any]) -> tuple[KindSpec, ...]:
    """The rows of the CRD's kind: one per served version, the storage version first, then the
    others in the CRD's order."""
    spec = crd.get("spec") or {}
    names = ((crd.get("status") or {}).get("acceptedNames")) or spec.get("names") or {}
    group = str(spec.get("group") or "")
    kind, plural = str(names.get("kind") or ""), str(names.get("plural") or "")
    stored = storage_version(crd)
    versions = sorted((v for v in spec.get("versions") or [] if v.get("served")),
                      key=lambda v: v.get("name") != stored)
    rows = []
    for version in versions:
        name = str(version["name"])
        subresources = version.get("subresources") or {}
        refs = []
        if "status" in subresources:
            refs.append(Subresource("status", group, name, kind, ("get", "patch", "update")))
        if "scale" in subresources:
            refs.append(Subresource("scale", "autoscaling", "v1", "Scale", ("get", "patch", "update")))
        fields = tuple(_field_label(f["jsonPath"]) for f in version.get("selectableFields") or [])
        rows.append(KindSpec(
            group, name, plural, kind, spec.get("scope") == "Namespaced", str(names.get("singular") or kind.lower()),
            short_names=tuple(names.get("shortNames") or ()),
            subresources=tuple(r.name for r in refs),
            fields=fields,
            categories=tuple(names.get("categories") or ()),
            field_errors="plain" if fields else "generic",
            subresource_refs=tuple(refs),
            verbs=tuple(sorted(_VERBS)),
            custom=True,
        ))
    return tuple(rows)


def custom_definition_name(group: str, version: str, kind: str) -> str:
    """The OpenAPI definition name kube-apiserver gives a custom resource: the group reversed,
    then the version and kind (``com.example.scheduling.v1alpha1.PodGroup``)."""
    return ".".join((*reversed(group.split(".")), version, kind))


_META_REF = "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1."
_LIST_DOCS = "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"


def _type_meta() -> dict[str, Obj]:
    """``apiVersion`` and ``kind`` as every kind documents them (the words of the release's schemas)."""
    pod = _schema.definition(_schema.definition_name("", "v1", "Pod"))["properties"]
    return {key: {"description": pod[key]["description"], "type": "string"} for key in ("apiVersion", "kind")}


def openapi_definitions(crd: Mapping[str, Any]) -> dict[str, Obj]:
    """The OpenAPI definitions of the CRD's kind and list at each served version, in the schema
    package's form (``#/$defs/`` references), as kube-apiserver publishes them: the version's
    schema with ``apiVersion``, ``kind`` and ``metadata`` (ObjectMeta) added, and the list."""
    out: dict[str, Obj] = {}
    for spec in custom_resource_kinds(crd):
        version = version_of(crd, spec.version)
        schema = json_copy(((version.get("schema") or {}).get("openAPIV3Schema")) or {"type": "object"})
        properties = schema.setdefault("properties", {})
        properties.update(_type_meta())
        properties["metadata"] = {"$ref": _META_REF + "ObjectMeta", "description": (
            f"Standard object's metadata. {_LIST_DOCS}#metadata")}
        name = custom_definition_name(spec.group, spec.version, spec.kind)
        schema["x-kubernetes-group-version-kind"] = [{"group": spec.group, "version": spec.version, "kind": spec.kind}]
        out[name] = schema
        out[custom_definition_name(spec.group, spec.version, spec.list_kind)] = {
            "description": f"{spec.kind}List is a list of {spec.kind}",
            "type": "object",
            "required": ["items"],
            "properties": {
                **_type_meta(),
                "items": {"description": f"List of {spec.resource}. {_LIST_DOCS}", "type": "array",
                          "items": {"$ref": "#/$defs/" + name}},
                "metadata": {"$ref": _META_REF + "ListMeta", "description": (
                    f"Standard list metadata. {_LIST_DOCS}#types-kinds")},
            },
            "x-kubernetes-group-version-kind": [
                {"group": spec.group, "version": spec.version, "kind": spec.list_kind}],
        }
    return out


_BLOCKING = ("FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany",
             "FieldValueTypeInvalid")
_NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the existing "
                "errors to complete validation")


def _has_rules(schema: Any) -> bool:
    if isinstance(schema, dict):
        return bool(schema.get("x-kubernetes-validations")) or any(_has_rules(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_rules(v) for v in schema)
    return False


def _whole_numbers(value: Any) -> Any:
    """A custom object as it comes back from storage: encoding/json writes a whole float64 below
    1e21 without a fraction (``2.0`` as ``2``), and the unstructured decoder reads that back as an
    int64, so a whole number is stored, and answered, as an integer."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = _whole_numbers(item)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = _whole_numbers(item)
    return value


class CustomResourceStrategy(Strategy):
    """The strategy of one CRD version's custom objects (see the module docstring)."""

    reset_status_on_create = True

    def __init__(self, spec: KindSpec, crd: Mapping[str, Any]) -> None:
        super().__init__(spec)
        version = version_of(crd, spec.version)
        self.schema: Mapping[str, Any] = ((version.get("schema") or {}).get("openAPIV3Schema")) or {}
        subresources = version.get("subresources") or {}
        self.has_status = "status" in subresources
        self.scale: Mapping[str, Any] | None = subresources.get("scale")
        #: the CRD is being deleted: creates are refused (:meth:`admit_create`)
        self.terminating = False
        #: the version's additionalPrinterColumns, as declared (the Table's columns; none: the default)
        self.printer_columns: tuple[Mapping[str, Any], ...] = tuple(version.get("additionalPrinterColumns") or ())
        self._merge_type: FieldType | None = None
        self.use(KindRules(unconditional_update=False))

    def merge_type(self, release: str) -> FieldType:
        """The merge rules of the version's schema (compiled once)."""
        if self._merge_type is None:
            self._merge_type = custom_type(self.schema, release)
        return self._merge_type

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        """The custom resource handler refuses a create while the CRD is being deleted."""
        if self.terminating:
            name = str((obj.get("metadata") or {}).get("name") or "")
            raise Forbidden(f'{self.spec.group_resource} "{name}" is forbidden: create not allowed while custom '
                            "resource definition is terminating",
                            details={"name": name, "group": self.spec.group, "kind": self.spec.resource})

    def decode_untyped(self, obj: Obj, validation: FieldValidation | None) -> Obj:
        """Pruning and defaulting as the decoder does them, unknown fields as ``validation`` says."""
        kind, version = self.spec.kind, self.spec.version

        def wrap(error: str) -> BadRequest:
            return BadRequest(f'{kind} in version "{version}" cannot be handled as a {kind}: {error}')

        obj = json_copy(obj)
        try:
            unknown = structural.prune(obj, self.schema)
        except structural.CoercionError as e:
            raise wrap(str(e)) from None
        if validation is not None:
            validation.settle([f'unknown field "{path}"' for path in unknown], wrap)
        structural.apply_defaults(obj, self.schema)
        return _whole_numbers(obj)

    def check_shape(self, obj: Obj) -> None:
        """The structural schema is the shape (:meth:`decode_untyped`)."""

    def _errors(self, obj: Obj, old: Obj | None) -> list[FieldError]:
        """The schema's errors, then its CEL rules' unless a blocking error (a wrong type, a
        missing required field) keeps the rules from running, which is then said at ``<nil>``."""
        errors = structural.validate(obj, self.schema, old=old)
        if any(e.type in _BLOCKING for e in errors):
            if _has_rules(self.schema):
                errors.append(FieldError.invalid("<nil>", None, _NOT_CHECKED))
            return errors
        return errors + crdcel.validate(obj, self.schema, old)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        if self.has_status:
            obj.pop("status", None)
        obj["metadata"]["generation"] = 1

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return self._errors(obj, None)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        if self.has_status:
            copy_key(old, new, "status")
        ignored = ("metadata", "status") if self.has_status else ("metadata",)
        changed = any(semantic(new.get(k)) != semantic(old.get(k)) for k in {*new, *old} - set(ignored))
        new["metadata"]["generation"] = old["metadata"].get("generation", 1) + (1 if changed else 0)

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self._errors(new, old)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        status = new.get("status")
        had = "status" in new
        new.clear()
        new.update(json_copy(old))
        if had:
            new["status"] = status
        else:
            new.pop("status", None)

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self._errors(new, old)
