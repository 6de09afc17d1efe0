"""The generic strategy: what every kind's create, update and status update do, and where a
kind's own rules and admission plugins hook in (``pkg/registry/generic``'s strategy interfaces).

A kind without rules of its own is served by :class:`Strategy` alone. A kind's own rules (its
validation, and how the generic store and strategy treat it) are its declaration, a
:class:`KindRules` in its kind's module, which the registry's top
(:func:`~fake_apiserver._registry.strategy.strategy_for`) hands to the strategy, so that this
module knows no kind by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any, Callable, Literal

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._machinery.errors import FieldError
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.fieldvalidation import FieldValidation
from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._machinery.kindspec import FieldValue, KindSpec, Subresource
from fake_apiserver._machinery.mergerules import FieldType, builtin_type, custom_type
from fake_apiserver._machinery.shapes import Struct, check_shape
from fake_apiserver._registry.controllers import Protection
from fake_apiserver._registry.printing import Printer

__all__ = ["Cohabitant", "FieldLabels", "KindRules", "PriorityClasses", "StorageClasses", "Strategy", "StrategyOptions", "copy_key",
           "no_classes", "no_time"]

Obj = dict[str, Any]


PriorityClasses = Callable[[], Mapping[str, Obj]]
"""The stored PriorityClasses by name, as the Priority admission plugin's lister sees them."""

StorageClasses = Callable[[], Mapping[str, Obj]]
"""The stored StorageClasses by name."""

def no_classes() -> Mapping[str, Obj]:
    return {}


def no_time() -> str:
    raise RuntimeError("this strategy stamps times: give strategy_for a clock (now=...)")


@dataclass(frozen=True)
class StrategyOptions:
    """What the server's configuration gives the strategies that need it: ``priority_classes``
    is what the Priority admission plugin reads (pods and priority classes); ``taint_not_ready``
    and ``storage_protection`` turn the TaintNodesByCondition and StorageObjectInUseProtection
    admission plugins on; ``features`` are the API server's feature gates (None: the pinned
    release's defaults); ``now`` is the time of a write, for the rules that stamp one on an update
    (``metav1.Time``, seconds)."""

    taint_not_ready: bool = False
    storage_protection: bool = True
    priority_classes: PriorityClasses = no_classes
    storage_classes: StorageClasses = no_classes
    features: FeatureGates | None = None
    now: Callable[[], str] = no_time


Rule = Callable[[Mapping[str, Any]], "list[FieldError]"]
UpdateRule = Callable[[Mapping[str, Any], Mapping[str, Any]], "list[FieldError]"]


@dataclass(frozen=True)
class FieldLabels:
    """The field labels a kind's registered conversion accepts beyond ``metadata.*``, and how it
    words a refusal (:attr:`KindSpec.field_errors`). ``since`` maps a label to the first minor
    release that accepts it; ``aliases`` maps an accepted alias to its canonical label."""

    fields: tuple[str, ...]
    errors: str = "plain"
    aliases: Mapping[str, str] = field(default_factory=dict)
    since: Mapping[str, int] = field(default_factory=dict)

    def of(self, minor: int) -> tuple[str, ...]:
        return tuple(f for f in self.fields if self.since.get(f, 0) <= minor)


@dataclass(frozen=True)
class Cohabitant:
    """The resource that shares a kind's storage (``AddCohabitatingResources``), by API group and
    plural name, and ``convert(obj, group)``: a stored object in the shape of ``group``'s API."""

    resource: tuple[str, str]
    convert: Callable[[Obj, str], Obj]


def _no_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    return []


def _no_update_errors(new: Mapping[str, Any], old: Mapping[str, Any]) -> list[FieldError]:
    return []


@dataclass(frozen=True)
class KindRules:
    """A kind's declaration: what the project knows of the kind named by ``group`` and ``kind``
    beyond what discovery and the release's schemas say.

    Its validation (``create`` runs on every create and update, ``update`` on an update only, for
    immutable fields), its strategy, how the generic store treats it (each flag was checked
    against kube-apiserver v1.36 for every served kind, DeviceTaintRules against v1.37), what
    the kind table hands the machinery in the kind's rows: the field labels it is selected on, how
    it reads them, its body's shape, whether it has a watch cache; and what the HTTP layer reads
    of it: the cells of its server-side Table rows (its printer), what its OpenAPI documents say a
    delete answers, the kinds its subresources take, whether its resource is the legacy form of a
    subresource; what the store's storage and controllers read of it: its etcd key prefix, the
    resource it shares its storage with, whether its objects expire, its in-use protection
    controller, how its Scale reads a selector; and how its ``ObjectMeta`` is validated: its name
    rule, which ``generateName`` and finalizer checks run, the group its errors name
    (:mod:`~fake_apiserver._registry.meta`). The kind's module declares one (its ``KIND``), its
    API group's package lists it, and the kind table collects them
    (:mod:`~fake_apiserver._registry.kinds`). A kind without a declaration gets ``KindRules()``:
    no group, no kind, nothing of its own. A new fact about kinds is a new field, with the default
    most kinds have."""

    group: str = ""
    kind: str = ""
    create: Rule = _no_errors
    update: UpdateRule = _no_update_errors
    #: the kind's strategy, where it has one of its own (else the generic :class:`Strategy`)
    strategy: Callable[[KindSpec, StrategyOptions], Strategy] | None = None
    #: a PUT of a missing object creates it (201): the update strategy's ``AllowCreateOnUpdate``
    create_on_update: bool = False
    #: an update may leave ``metadata.resourceVersion`` out (``AllowUnconditionalUpdate``); where
    #: it may not, one without it is a 422
    unconditional_update: bool = True
    #: a delete answers with the object rather than a ``Status`` naming it: the registry's
    #: ``ReturnDeletedObject`` (``pkg/registry/<group>/<kind>/storage/storage.go``)
    returns_deleted_object: bool = False
    #: the OpenAPI documents say a DELETE answers the deleted object rather than a ``Status``: the
    #: installer writes so where the kind's REST storage declares it may
    #: (``rest.MayReturnFullObjectDeleter``, kube-apiserver v1.36's documents). Not the same set as
    #: :attr:`returns_deleted_object`, what a delete answers: a Namespace and a CRD answer with the
    #: object from a ``Delete`` of their own that declares nothing, so their documents say
    #: ``Status``; CSINodes, CSIDrivers and VolumeAttachments are documented with the object though
    #: a delete of one answers a ``Status``
    openapi_delete_returns_object: bool = False
    #: a created object with a spec gets ``metadata.generation`` 1, bumped when its spec changes;
    #: only the kinds whose controllers track ``observedGeneration``, and a few others, have one
    #: (compared field by field with objects created on kube-apiserver v1.36)
    generation: bool = True
    #: the status strategy calls ``metav1.ResetObjectMetaForStatus``: a ``/status`` write keeps
    #: the labels, annotations, finalizers and owner references (a merge patch of all four
    #: through ``/status`` changes none of them on these kinds, all four on the others)
    status_resets_meta: bool = False
    #: the field labels its conversion accepts beyond ``metadata.*`` (none: those only, and a
    #: refusal worded the generic way); checked against kube-apiserver v1.34 to v1.37 by
    #: ``tests/fake_apiserver/_registry/test_api_resources.py``
    field_labels: FieldLabels | None = None
    #: how it reads the labels that are no plain path (its ``ToSelectableFields``)
    field_values: Mapping[str, FieldValue] = field(default_factory=dict)
    #: the JSON shape of the fields the fake reads, checked where the release has no schema of
    #: the kind (none: its metadata alone)
    shape: Struct | None = None
    #: served through the watch cache (Events are not: a get or watch by name reaches storage)
    watch_cache: bool = True
    #: a create-only review (``authorization.k8s.io``, ``authentication.k8s.io``): the status of
    #: the answer to a posted body; nothing is stored (:mod:`~fake_apiserver._registry.reviews`)
    review: Callable[[Obj], Obj] | None = None
    #: the cells of its server-side Table rows (``pkg/printers/internalversion/printers.go``),
    #: under the columns a real server's Tables give it (generated data); none: the default
    #: table, NAME and "Created At" (:func:`~fake_apiserver._registry.printing.default_row`)
    printer: Printer | None = None
    #: its subresources that take a kind of their own, as discovery describes them (``binding``: a
    #: ``v1`` Binding): what describes them on a row written by hand, which describes none of its
    #: subresources (a release's rows carry discovery's own description)
    subresource_kinds: tuple[Subresource, ...] = ()
    #: its own resource is the legacy form of this subresource: a create of it is served as that
    #: subresource of the object its body's ``metadata.name`` names (the ``bindings`` resource,
    #: ``LegacyBindingREST``: ``binding``); none: a plain create
    legacy_subresource: str = ""
    #: its etcd key prefix where it is not its resource's plural name (the storage factory's
    #: ``SpecialDefaultResourcePrefixes``); a storage error quotes the key
    etcd_prefix: str = ""
    #: the resource stored once with it and served in another shape (none: its storage is its own)
    cohabitant: Cohabitant | None = None
    #: its objects go the server's TTL after their last write (``--event-ttl``), and so do its
    #: cohabitant's, which are the same objects
    expires: bool = False
    #: the in-use protection controller that removes its protection finalizer
    #: (:class:`~fake_apiserver._registry.controllers.Protection`)
    protection: Protection | None = None
    #: its Scale's selector is a plain map of labels (read as ``labels.SelectorFromSet``) rather
    #: than a ``metav1.LabelSelector``
    scale_selector_map: bool = False
    #: the rule its names follow (``ValidateObjectMeta``'s name function, checked on
    #: kube-apiserver v1.36): DNS-1123 subdomains, DNS-1123 labels, or only the path-segment rule
    #: (what fits in a URL path); a ``generateName`` follows it as a prefix
    name_rule: Literal["subdomain", "label", "path_segment"] = "subdomain"
    #: a create that gives a name still checks its ``generateName`` as a name prefix (kinds whose
    #: validation skips it were found by creating each served kind on kube-apiserver v1.36)
    generate_name_checked_with_name: bool = True
    #: a finalizer name without a ``/`` must be a standard one (``validateKubeFinalizerName``); a
    #: kind whose validation does not run that check takes any qualified name
    qualified_finalizers: bool = True
    #: its update validation runs the whole ``ValidateObjectMeta`` again, so a bad
    #: ``generateName`` sent on an update is refused
    generate_name_checked_on_update: bool = False
    #: the API group its validation errors name the kind under, where it is validated as another
    #: group's type (none: its own group)
    invalid_group: str | None = None
    #: the feature gates without which the server does not serve its resource though
    #: ``--runtime-config`` enables it (its REST storage is made only with them on:
    #: ``pkg/registry/<group>/rest/storage_<group>.go``); none: the version's setting decides
    served_with: tuple[str, ...] = ()


# The top-level keys a write through ``/status`` takes from its body; the rest are the stored object's.
_WRITTEN_THROUGH_STATUS = frozenset(("status", "metadata", "kind", "apiVersion"))


class Strategy:
    """Generic rules: status reset on create where the kind has a status subresource.

    Besides the registry strategy's steps, a kind's admission plugins hook in where the real
    server runs them: :meth:`admit_create` (mutating admission, before anything else of a create),
    :meth:`validate_admission` (validating admission, after validation, before the storage
    write) and :meth:`check_delete` (a registry that refuses some deletes)."""

    reset_status_on_create = True
    #: the kind's own validation rules (set by ``strategy_for``)
    rules = KindRules()
    generation = True
    #: metadata a ``/status`` write cannot change (besides the deletion fields and generation)
    status_keeps_meta: tuple[str, ...] = ()

    def __init__(self, spec: KindSpec, *, priority_classes: PriorityClasses = no_classes,
                 features: FeatureGates | None = None) -> None:
        self.spec = spec
        self.priority_classes = priority_classes
        #: the API server's feature gates (fields of a gate that is off are dropped on write)
        self.features = features if features is not None else FeatureGates()

    def use(self, rules: KindRules) -> None:
        """Take the kind's own rules (:func:`~fake_apiserver._registry.strategy.strategy_for`
        hands them over once, after building the strategy)."""
        self.rules = rules
        if not rules.generation:
            self.generation = False
        if rules.status_resets_meta:
            self.status_keeps_meta = ("labels", "annotations", "finalizers", "ownerReferences")

    def admit_create(self, obj: Obj, sent: Obj) -> None:
        """Mutating admission of a create, on the body as decoded (before names are generated);
        ``sent`` is the body as the client sent it, where a plugin tells a nil field from an empty
        one (the decoded JSON drops both)."""

    def validate_admission(self, obj: Obj, old: Obj | None) -> None:
        """Validating admission of a create (``old`` None) or an update of the main resource."""

    def check_delete(self, name: str) -> None:
        """Refuse the delete of one object by name, before it is looked up."""

    def mark_deleted(self, obj: Obj, now: str) -> bool:
        """A registry whose ``Delete`` marks the object itself (a CRD: its cleanup finalizer) does
        so on ``obj`` and answers True; the store then keeps it as marked. Generic kinds: False."""
        return False

    def grace_period(self, obj: Obj, requested: int | None) -> int | None:
        """``RESTGracefulDeleteStrategy.CheckGracefulDelete``: the grace period a first delete of
        ``obj`` gets (``requested``: the request's ``gracePeriodSeconds``), or ``None`` for a
        kind that is not deleted gracefully (every kind but pods)."""
        return None

    #: The top-level fields :meth:`default` writes in, when it writes in no others (``None``: not
    #: told). A patch's result that shares all of them with the stored object it was made from
    #: is defaulted already (the stored one was, and defaults are idempotent).
    defaults_in: tuple[str, ...] | None = None

    def default(self, obj: Obj) -> None:
        """The scheme's defaults (``SetDefaults_<Kind>``), which decoding applies to every body:
        the store runs this right after decoding a create, update or patch, before the request's
        managed fields are computed and before admission and ``PrepareFor*`` (so the fields it
        fills belong to the writer). Idempotent; none for a generic kind."""

    def merge_type(self, release: str) -> FieldType:
        """The kind's merge rules for managed fields and server-side apply: the release's schema
        of it (a kind of a test's own, which has none: every field deduced)."""
        try:
            return builtin_type(self.spec.group, self.spec.version, self.spec.kind, release)
        except KeyError:
            return custom_type(None, release)

    def prepare_for_create(self, obj: Obj, now: str) -> None:
        if self.spec.has_status and self.reset_status_on_create:
            obj.pop("status", None)
        if self.generation and "spec" in obj:
            obj["metadata"]["generation"] = 1

    def decode_untyped(self, obj: Obj, validation: FieldValidation | None) -> Obj:
        """A private copy of a body of a kind the release's schemas lack, decoded: a kind of a
        test's own is checked against its hand-written shape; a custom resource's strategy prunes
        and defaults it by its CRD's schema."""
        obj = json_copy(obj)
        self.check_shape(obj)
        return obj

    def check_shape(self, obj: Obj) -> None:
        """Refuse a body whose fields have the wrong JSON types (see :func:`check_shape`)."""
        check_shape(self.spec.kind, self.spec.version, obj, self.rules.shape)

    def validate_create(self, obj: Obj) -> list[FieldError]:
        return self.rules.create(obj)

    def prepare_for_update(self, new: Obj, old: Obj) -> None:
        if self.spec.has_status:
            copy_key(old, new, "status")
        if self.generation and "generation" in old["metadata"]:
            new["metadata"]["generation"] = old["metadata"]["generation"] + (
                0 if semantic(new.get("spec")) == semantic(old.get("spec")) else 1
            )

    def validate_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return self.update_rule_errors(new, old)

    def prepare_for_status_update(self, new: Obj, old: Obj, now: str) -> None:
        """Through ``/status`` the spec (every top-level field but ``status`` and ``metadata``)
        stays as it was, and so do the deletion fields and the generation; labels, annotations,
        finalizers and owner references change with the write (kube-apiserver v1.36), except on
        the kinds whose status strategy calls ``ResetObjectMetaForStatus``
        (:attr:`status_keeps_meta`) and the owner references of a pod."""
        kept_keys = [key for key in old if key not in _WRITTEN_THROUGH_STATUS]
        if [key for key in new if key not in _WRITTEN_THROUGH_STATUS] != kept_keys:
            for key in list(new):  # the stored object's keys, in its order, after the others
                if key not in _WRITTEN_THROUGH_STATUS:
                    new.pop(key)
        for key in kept_keys:  # else each in its place, as a status patch leaves the object
            new[key] = old[key]  # the stored object's, shared: stored objects never change
        meta = new["metadata"]
        kept = ("deletionTimestamp", "deletionGracePeriodSeconds", *self.status_keeps_meta)
        for key in kept:
            copy_key(old["metadata"], meta, key)
        if "generation" in old["metadata"]:
            meta["generation"] = old["metadata"]["generation"]

    def validate_status_update(self, new: Obj, old: Obj) -> list[FieldError]:
        return []

    def update_rule_errors(self, new: Obj, old: Obj) -> list[FieldError]:
        """The kind's rules on an update: its create rules on the new object, then its update rules."""
        return self.rules.create(new) + self.rules.update(new, old)


def copy_key(src: Obj, dst: Obj, key: str) -> None:
    if key in src:
        dst[key] = json_copy(src[key])
    else:
        dst.pop(key, None)
