"""The object store: the generic registry (``apiserver/pkg/registry/generic``) on the fake's etcd.

One :class:`Store` holds every object of every kind, one global decimal resourceVersion, and one
watch cache per kind that LIST and WATCH read (:class:`~fake_apiserver._storage.etcd.Etcd`, which
it is built on), and writes them as the generic registry store does, running each kind's strategy
(:mod:`~fake_apiserver._registry.strategy`). All methods are synchronous and either commit whole
or raise a typed :mod:`~fake_apiserver._machinery.errors` error having changed nothing: a write
builds a new object, runs the kind's strategy and validation on it, and only then stores it.

Stored objects are never mutated afterwards (a write stores a new dict, which may share with the
stored one the maps and lists it leaves alone), so reads and watch events hand out the stored
dicts without copying. In-process callers that want to modify a result must
copy it first; the public :class:`~fake_apiserver.FakeApiServer` helpers do.

Determinism: uids and ``generateName`` suffixes come from a seeded RNG and timestamps from the
injected clock, so the same sequence of requests gives the same objects byte for byte.

Decoding: a body is checked the way the real handlers decode it into the URL's Go type. A missing
``kind`` or ``apiVersion`` is filled from the URL (the JSON serializer's defaulting); another
served kind fails conversion and an unknown one fails the scheme lookup, each with the real
``transformDecodeError`` text (:func:`resolve_kind`); fields the fake reads must have their Go
types, and what the type lacks is dropped (:func:`~fake_apiserver._machinery.fieldvalidation.decode_body`,
reported as the request's ``fieldValidation`` asks). Names and namespaces are checked against the
URL as ``checkName`` and ``EnsureObjectNamespaceMatchesRequestNamespace`` do.

Writes follow the generic registry: ``BeforeCreate``/``BeforeUpdate`` keep the system fields, a
PUT's ``uid`` is a storage precondition, a ``resourceVersion`` on create fails the storage write
(:mod:`~fake_apiserver._storage.preconditions`), ``dryRun=All`` answers without writing, a delete
is graceful or waits for finalizers as the kind's strategy says, and answers with the object or a
``Status`` as the kind's registry does (``ReturnDeletedObject``). A write through a subresource
follows that subresource's steps (:mod:`~fake_apiserver._storage.subresources`). After each
commit the controllers the fake plays see it (:mod:`~fake_apiserver._storage.controllers`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any, Callable, Iterable, Sequence

from fake_apiserver._machinery import schema as schemas
from fake_apiserver._machinery import gotypes
from fake_apiserver._machinery.clock import Clock, SystemClock, format_time
from fake_apiserver._machinery.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    StatusError,
    UnknownError,
)
from fake_apiserver._machinery.features import FeatureGates
from fake_apiserver._machinery.fieldvalidation import FieldValidation, decode_body
from fake_apiserver._machinery.gotypes import go_written
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.patch import APPLY_PATCH_YAML, apply_patch, keeps_managed_fields, patch_media_type
from fake_apiserver._registry import meta as object_meta
from fake_apiserver._registry.generic import Strategy
from fake_apiserver._registry.kinds import by_kind, served_kinds
from fake_apiserver._registry.kinds import runtime_config as runtime_config_of
from fake_apiserver._registry.scheme import reconcile_patched_kind, resolve_kind
from fake_apiserver._registry.serverkinds import (
    ADMISSION_LISTERS,
    DEFAULT_NAMESPACES,
    EXPIRIES,
    NAMESPACES,
    PODS,
    PROTECTIONS,
    GroupResource,
    bootstrap_objects,
)
from fake_apiserver._registry.strategy import strategy_for
from fake_apiserver._storage import deletion
from fake_apiserver._storage.controllers.crds import CustomResourceDefinitions
from fake_apiserver._storage.controllers.expiry import Expiry
from fake_apiserver._storage.controllers.protection import InUseProtection
from fake_apiserver._storage.deletion import kept_after_delete
from fake_apiserver._storage.etcd import Controller, Etcd, Schedule, ordered, too_large_resource_version
from fake_apiserver._storage.fieldmanager import FieldManager, Writer, parse_applied, sent_managed_fields
from fake_apiserver._storage.preconditions import check_name, check_resource_version, precondition_failed
from fake_apiserver._storage.subresources import binding
from fake_apiserver._storage.subresources.update import update_steps

__all__ = [
    "DEFAULT_NAMESPACES",
    "PODS",
    "Store",
    "kept_after_delete",
    "kind_spec",
    "too_large_resource_version",
]

Obj = dict[str, Any]

_NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery util/rand

_UUID_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))  # the version and variant bits
_UUID_V4 = (4 << 76) | (0x8000 << 48)  # version 4, RFC 4122 variant


class Store(Etcd):
    """Every object, one resourceVersion counter, one watch cache per kind (:class:`Etcd`), and
    the generic registry's writes on them.

    ``history`` bounds each kind's event window (older resourceVersions get ``410 Expired``);
    ``taint_not_ready_nodes`` turns the TaintNodesByCondition admission on new nodes on or off,
    ``storage_protection`` the StorageObjectInUseProtection admission (finalizers on new volumes
    and claims) and the protection controllers that remove them from a deleted one no longer in
    use (:mod:`~fake_apiserver._storage.controllers.protection`); ``kubernetes_version`` the release whose schemas
    decode what is written (default :data:`~fake_apiserver._machinery.schema.KUBERNETES_VERSION`; an older
    one prunes, or refuses under strict field validation, the fields added since);
    ``feature_gates`` the API server's gates that differ from that release's defaults (as
    ``--feature-gates``: a field whose gate is off is dropped on write; a gate the release does not
    register, or a value kube-apiserver refuses, is a
    :class:`~fake_apiserver._machinery.features.FeatureGateError` with its message);
    ``seed`` seeds uids and generated names. ``event_ttl`` (seconds; None: never) expires an Event
    that long after its last write, as kube-apiserver's ``--event-ttl`` (1 h) does with an etcd
    lease: expired Events are deleted, watchers see them go, at the next write of any object
    (:mod:`~fake_apiserver._storage.controllers.expiry`).
    """

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        seed: int = 0,
        history: int = 1000,
        taint_not_ready_nodes: bool = True,
        storage_protection: bool = True,
        kubernetes_version: str = schemas.KUBERNETES_VERSION,
        feature_gates: Mapping[str, bool] | None = None,
        runtime_config: str | Mapping[str, str] | None = None,
        schedule: Schedule | None = None,
        kinds: Iterable[KindSpec] | None = None,
        event_ttl: float | None = None,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self.storage_protection = storage_protection
        #: the Kubernetes release whose schemas decode and prune what is written (``1.36.0``)
        self.release = schemas.release(kubernetes_version)
        #: the API server's feature gates: the release's defaults with ``feature_gates`` applied
        self.features = FeatureGates(self.release, feature_gates)
        self.event_ttl = event_ttl
        super().__init__(history=history, schedule=schedule)
        self._rng = random.Random(seed)
        self._strategies: dict[GroupResource, Strategy] = {}
        self._version_strategies: dict[GroupResource, dict[str, Strategy]] = {}
        #: the API server's ``--runtime-config`` on the release's defaults
        self.runtime_config = runtime_config_of(self.release, runtime_config)
        #: the rows this release serves (by default every resource of the release, each at one
        #: version; with a ``--runtime-config``, those it enables whose gates are on; of ``kinds``,
        #: those the release's schemas define)
        self.kinds = served_kinds(self.release, kinds, config=self.runtime_config, gate=self.features.enabled)
        #: served versions beside the preferred one, by group and resource (a custom resource's)
        self._other_versions: dict[GroupResource, dict[str, KindSpec]] = {}
        listers = {option: self._by_name(resource) for option, resource in ADMISSION_LISTERS.items()}
        self._options = dict(taint_not_ready=taint_not_ready_nodes, storage_protection=storage_protection,
                             now=self._now, **listers)
        #: bumped whenever the served kinds change (discovery and OpenAPI documents are rebuilt)
        self.kinds_generation = 0
        #: each write's managed fields, and server-side apply
        self.field_manager = FieldManager(self.release, self._now)
        for spec in self.kinds:
            self.store_resource(spec)
            self._strategies[(spec.group, spec.resource)] = strategy_for(
                spec, features=self.features, **self._options)  # type: ignore[arg-type]
        self.custom_resources = CustomResourceDefinitions(self)
        controllers: list[Controller] = [self.custom_resources]
        if storage_protection:
            controllers.append(InUseProtection(self, PROTECTIONS))
        if event_ttl is not None:
            controllers += [Expiry(self, rule, event_ttl, lambda: self.clock.now()) for rule in EXPIRIES]
        self.run_controllers(controllers)
        for spec, body in bootstrap_objects(lambda resource: self.spec_of(resource) is not None):
            self.create(spec, None, body)

    def strategy(self, spec: KindSpec) -> Strategy:
        """The strategy of ``spec``'s kind at its version (a CRD's versions have their own schemas)."""
        key = (spec.group, spec.resource)
        versions = self._version_strategies.get(key)
        if versions is not None and spec.version in versions:
            return versions[spec.version]
        return self._strategies[key]

    def scale_paths(self, spec: KindSpec) -> Mapping[str, Any] | None:
        """A custom resource's ``scale`` subresource as its CRD declares it (``specReplicasPath``,
        ``statusReplicasPath``, ``labelSelectorPath``); None for a built-in kind."""
        return getattr(self.strategy(spec), "scale", None)

    def printer_columns(self, spec: KindSpec) -> Sequence[Mapping[str, Any]] | None:
        """A custom resource's ``additionalPrinterColumns`` at ``spec``'s version as its CRD
        declares them (its Table's columns); None for a built-in kind."""
        return getattr(self.strategy(spec), "printer_columns", None)

    def serve_kinds(self, specs: Sequence[KindSpec], strategies: Sequence[Strategy]) -> None:
        """Serve a new resource (a custom resource once its CRD is established) at the versions of
        ``specs`` (one storage: the first is the one its objects are kept at), each version with
        its strategy; a resource served already keeps its objects and takes the new rows."""
        first = specs[0]
        key = (first.group, first.resource)
        if self.spec_of(key) is not None:
            self.kinds = tuple(k for k in self.kinds if (k.group, k.resource) != key)
        self.store_resource(first)
        self._strategies[key] = strategies[0]
        self._other_versions[key] = {spec.version: spec for spec in specs[1:]}
        self._version_strategies[key] = {spec.version: strategy for spec, strategy in zip(specs, strategies)}
        self.kinds = self.kinds + (first,) + tuple(specs[1:])
        self.kinds_generation += 1

    def terminate(self, spec: KindSpec) -> None:
        """A custom resource whose CRD is being deleted: its objects may still be read, updated
        and deleted, not created (:meth:`CustomResourceStrategy.admit_create`)."""
        for strategy in self._version_strategies.get((spec.group, spec.resource), {}).values():
            strategy.terminating = True  # type: ignore[attr-defined]

    def stop_serving(self, group: str, resource: str) -> None:
        """Stop serving a resource (its CRD deleted): its objects are gone, its watches end."""
        key = (group, resource)
        if self.spec_of(key) is None:
            return
        self.kinds = tuple(k for k in self.kinds if (k.group, k.resource) != key)
        self._other_versions.pop(key, None)
        self._version_strategies.pop(key, None)
        self.drop_resource(key, "the resource is no longer served")
        self._strategies.pop(key, None)
        self.kinds_generation += 1

    def set_feature_gates(self, feature_gates: Mapping[str, bool] | None) -> None:
        """Serve from now on with these feature gates (the release's defaults with them applied),
        keeping every stored object: what kube-apiserver restarted with other ``--feature-gates``
        over the same etcd does, so a field written while its gate was on is "in use" on the
        objects that have it. :class:`~fake_apiserver._machinery.features.FeatureGateError` as on creation."""
        self.features = FeatureGates(self.release, feature_gates)
        for strategy in self._strategies.values():
            strategy.features = self.features

    # ------------------------------------------------------------------ helpers

    def _by_name(self, resource: GroupResource) -> Callable[[], dict[str, Obj]]:
        """The stored objects of a cluster-scoped ``resource`` by name, read when called: what an
        admission plugin's lister sees (:data:`~fake_apiserver._registry.serverkinds.ADMISSION_LISTERS`)."""
        def listed() -> dict[str, Obj]:
            return {name: obj for (_, name), obj in self.objects(resource).items()}
        return listed

    def serves(self, spec: KindSpec) -> bool:
        """Whether this release serves the kind of ``spec`` (:attr:`kinds`) at its version."""
        served = self.spec_of((spec.group, spec.resource))
        return served is not None and served.version == spec.version

    def serves_kind(self, group: str, version: str, kind: str) -> bool:
        """Whether a kind is served at ``group/version`` (a custom resource's versions included)."""
        return any((k.group, k.version, k.kind) == (group, version, kind) for k in self.kinds)

    def lookup(self, group: str, version: str, resource: str) -> KindSpec | None:
        """The served row of ``resource`` at ``group/version``, or None."""
        served = self.spec_of((group, resource))
        if served is not None and served.version != version:
            return self._other_versions.get((group, resource), {}).get(version)
        return served

    def _now(self) -> str:
        clock = self.clock
        if type(clock) is SystemClock:
            return clock.now_text()
        return format_time(clock.now())

    def now(self) -> str:
        """The time of a write now (``metav1.Time``, seconds), as the store stamps it."""
        return self._now()

    def _new_uid(self) -> str:
        """A version-4 UUID from the seeded generator: what ``str(uuid.UUID(int=n, version=4))``
        gives, formatted here without building the UUID."""
        n = self._rng.getrandbits(128) & _UUID_CLEAR | _UUID_V4
        h = "%032x" % n
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def _require_namespace(self, spec: KindSpec, namespace: str | None, name: str) -> None:
        """The NamespaceLifecycle admission plugin: a namespaced object's namespace exists and
        is not being deleted."""
        if not spec.namespaced:
            return
        ns = self.objects((NAMESPACES.group, NAMESPACES.resource)).get(("", namespace or ""))
        if ns is None:
            raise NotFound.of(NAMESPACES.resource, NAMESPACES.group, namespace or "")
        if ns["metadata"].get("deletionTimestamp"):
            raise Forbidden(
                f"{spec.resource} {json.dumps(name)} is forbidden: unable to create new content "
                f"in namespace {namespace} because it is being terminated",
                details={"kind": spec.resource},
            )

    def _check_body(
        self, spec: KindSpec, body: Any, namespace: str | None, *, name: str | None = None,
        field_validation: FieldValidation | None = None, decoded: bool = False, made_from: Obj | None = None,
    ) -> Obj:
        """Decode-time checks of the real handlers on a JSON object, and the write's own copy of it
        (a patch result's, which shares with ``made_from`` what the patch left alone).

        ``kind`` and ``apiVersion`` are defaulted from the URL and checked (:func:`resolve_kind`),
        then the body is decoded into the kind's type (:func:`decode_body`: wrong types refused,
        unknown fields dropped and reported per ``field_validation``) unless it already was
        (``decoded``: a patch result, which :func:`apply_patch` decodes; ``made_from``: the stored
        object it was made from, whose parts it still shares are decoded and written already).
        On create (``name`` None) a namespace that differs from the URL's is refused as
        ``EnsureObjectNamespaceMatchesRequestNamespace`` does; on update (``name`` given) the name
        and namespace are checked as ``checkName`` does (``apiserver/pkg/endpoints/handlers/
        rest.go``). The returned copy carries the URL's namespace (none for cluster-scoped kinds).
        """
        if not isinstance(body, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {spec.kind})")
        obj = body if decoded else dict(body)  # resolve_kind sets the top-level kind and apiVersion
        resolve_kind(spec.group, spec.version, spec.kind, obj, served=self.serves_kind)
        node = _node(spec, self.release)
        if node is None:  # a custom resource, or a kind of a test's own: its strategy decodes it
            obj = self.strategy(spec).decode_untyped(obj, field_validation)
            stored = self.spec_of((spec.group, spec.resource))
            if spec.custom and stored is not None and stored.version != spec.version:
                obj["apiVersion"] = stored.api_version  # None conversion: the storage version's
        elif not decoded:  # the Go struct's unset fields, as they are encoded, written with it
            obj = decode_body(node, spec.kind, spec.version, obj, field_validation, written=True)
        else:
            go_written(obj, node, made_from)
        meta = obj.setdefault("metadata", {})
        body_ns = meta.get("namespace") or ""
        if name is not None:
            check_name(meta, name)
            if namespace and body_ns and body_ns != namespace:
                raise BadRequest(
                    f"the namespace of the object ({body_ns}) does not match the namespace on the request ({namespace})"
                )
        if spec.namespaced:
            if body_ns and namespace and body_ns != namespace:
                raise BadRequest(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            meta["namespace"] = namespace or body_ns
        else:
            meta.pop("namespace", None)
        strategy = self.strategy(spec)
        if not _defaulted_already(strategy.defaults_in, obj, made_from):
            strategy.default(obj)  # the decoder defaults every body
        return obj

    # ------------------------------------------------------------------ reads

    def creates_on_update(self, spec: KindSpec) -> bool:
        """Whether a PUT of a missing object of the kind creates it (its ``KindRules``)."""
        return self.strategy(spec).rules.create_on_update

    # ------------------------------------------------------------------ writes

    def create(self, spec: KindSpec, namespace: str | None, body: Any, *, dry_run: bool = False,
               field_validation: FieldValidation | None = None, writer: Writer = Writer()) -> Obj:
        """POST: the writer's managed fields, mutating admission, ``WipeObjectMetaSystemFields``,
        ``BeforeCreate`` (strategy, name generation, validation), namespace admission, then the
        storage write. ``field_validation`` is the request's ``fieldValidation`` (none: unknown
        fields dropped silently, as for in-process callers).

        A ``resourceVersion`` in the body fails the storage write with etcd3's plain error, which
        the client sees as a 500 with no reason (``storage.ErrResourceVersionSetOnCreate``).
        """
        obj = self._check_body(spec, body, namespace, field_validation=field_validation)
        managed = self.field_manager.created(spec, self.strategy(spec), obj, writer, sent_managed_fields(body))
        return self._create(spec, obj, body, managed, dry_run)

    def _create(self, spec: KindSpec, obj: Obj, body: Any, managed: Sequence[Obj], dry_run: bool) -> Obj:
        """A create of the decoded and defaulted ``obj`` (``body``: as sent) with its managed fields."""
        strategy = self.strategy(spec)
        strategy.admit_create(obj, body)
        meta = obj["metadata"]
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + "".join(
                self._rng.choice(_NAME_SUFFIX_ALPHABET) for _ in range(5)
            )
        # WipeObjectMetaSystemFields keeps generation: a strategy that counts generations sets
        # it to 1, any other kind stores (and validates) what the body sent
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                    "managedFields", "selfLink"):
            meta.pop(key, None)
        name = str(meta.get("name") or "")
        now = self._now()
        strategy.prepare_for_create(obj, now)
        meta = obj["metadata"]  # a strategy may rebuild the object
        # FillObjectMetaSystemFields, before validation (a Job's generated selector names its uid)
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = now
        if managed:
            meta["managedFields"] = list(managed)
        errors = object_meta.validate_object_meta(spec, obj, create=True) + strategy.validate_create(obj)
        object_meta.check(spec, name, errors)
        strategy.validate_admission(obj, None)
        self._require_namespace(spec, meta.get("namespace"), name)
        sent_rv = str(meta.get("resourceVersion") or "")
        if sent_rv.isascii() and sent_rv.isdigit() and 0 < int(sent_rv) < 2**64:  # one that does not parse is ignored
            raise UnknownError("resourceVersion should not be set on objects to be created")
        if self.exists(spec, meta.get("namespace"), name):
            raise AlreadyExists.of(spec.resource, spec.group, name)
        if dry_run:  # DryRunnableStorage: the object as it would be stored, with no version
            return ordered(obj)
        rv = self.next_resource_version()
        meta["resourceVersion"] = str(rv)
        obj = ordered(obj)
        self.commit(spec, None, obj, rv)
        return obj

    def update(
        self,
        spec: KindSpec,
        namespace: str | None,
        name: str,
        body: Any,
        *,
        subresource: str | None = None,
        dry_run: bool = False,
        field_validation: FieldValidation | None = None,
        writer: Writer = Writer(),
        managed: Sequence[Obj] | None = None,
    ) -> Obj:
        """PUT: the body's ``uid`` is a storage precondition and its ``resourceVersion`` an
        optimistic lock (none: an unconditional update); a no-op writes nothing, and neither
        does a dry run (``dryRun=All``), which answers with what would have been stored.
        ``managed``: the managed fields the write leaves, where the caller computed them (a
        Scale's apply); else the writer's update of them."""
        obj = self._check_body(spec, body, namespace, name=name, field_validation=field_validation)
        old = self.find(spec, namespace, name)
        if old is None:
            if self.creates_on_update(spec) and subresource is None:
                return self.create(spec, namespace, body, dry_run=dry_run, writer=writer)
            raise NotFound.of(spec.resource, spec.group, name)
        self._check_preconditions(spec, namespace, name, obj, old)
        if managed is None:
            managed = self.field_manager.updated(spec, self.strategy(spec), old, obj, writer, subresource or "",
                                                 sent_managed_fields(body))
        return self._write(spec, old, obj, subresource, managed, dry_run)

    def patch(
        self,
        spec: KindSpec,
        namespace: str | None,
        name: str,
        patch_body: bytes,
        content_type: str,
        *,
        subresource: str | None = None,
        dry_run: bool = False,
        field_validation: FieldValidation | None = None,
        writer: Writer = Writer(),
    ) -> Obj:
        """PATCH: apply to the stored object and decode the result into the kind's type, then the
        update path (``patcher.applyPatch`` checks the namespace, then the name, of the result).
        A server-side apply (``application/apply-patch+yaml``) is :meth:`apply`."""
        if patch_media_type(content_type) == APPLY_PATCH_YAML:
            return self.apply(spec, namespace, name, parse_applied(patch_body), subresource=subresource,
                              dry_run=dry_run, writer=writer)
        old = self.get(spec, namespace, name)
        node = _node(spec, self.release)
        seen = old
        if spec.custom and old.get("apiVersion") != spec.api_version:  # None conversion to the URL's version
            seen = {**old, "apiVersion": spec.api_version}
        set_aside = (old.get("metadata") or {}).get("managedFields")
        if set_aside is not None and keeps_managed_fields(patch_body, content_type):
            seen = {**seen, "metadata": {k: v for k, v in seen["metadata"].items() if k != "managedFields"}}
        else:
            set_aside = None
        patched = apply_patch(
            seen, patch_body, content_type, spec.patch_schema, kind=spec.kind, group=spec.group, name=name,
            node=node, validation=field_validation,
        )
        meta = patched.get("metadata")
        if isinstance(meta, dict):
            # the write fills the metadata in, and a patch that does not reach them leaves the stored
            # object's (a strategic merge shares what it does not change)
            patched["metadata"] = meta = dict(meta)
            if set_aside is not None:
                meta["managedFields"] = set_aside  # as sent back by the patch: the same entries
        reconcile_patched_kind(patched, group=spec.group, version=spec.version, kind=spec.kind)
        obj = self._check_body(spec, patched, namespace, decoded=True, made_from=old)
        check_name(obj["metadata"], name)
        check_resource_version(spec, name, obj, old, self.strategy(spec).rules)
        managed = self.field_manager.updated(spec, self.strategy(spec), old, obj, writer, subresource or "",
                                             sent_managed_fields(patched))
        return self._write(spec, old, obj, subresource, managed, dry_run)

    def apply(self, spec: KindSpec, namespace: str | None, name: str, config: Obj, *, subresource: str | None = None,
              dry_run: bool = False, writer: Writer = Writer()) -> Obj:
        """Server-side apply of ``config`` by ``writer`` (:meth:`FieldManager.applied`): the merged
        object is decoded, defaulted and written as a patch's result is; a missing object is
        created (a missing one's subresource is a 404). ``metadata.uid`` and
        ``resourceVersion`` in the configuration are preconditions, as in a PUT."""
        old = self.find(spec, namespace, name)
        if old is None and subresource:
            raise NotFound.of(spec.resource, spec.group, name)
        strategy = self.strategy(spec)
        meta = config.get("metadata") if isinstance(config.get("metadata"), dict) else {}
        if not (meta or {}).get("name"):
            raise BadRequest(f"the name of the object ({name} based on URL) was undeterminable: name must be provided")
        result = self.field_manager.applied(spec, strategy, old, config, writer, name, subresource or "")
        if old is not None:
            obj = self._check_body(spec, result.object, namespace, name=name)
            self._check_preconditions(spec, namespace, name, obj, old)
            return self._write(spec, old, obj, subresource, result.managed_fields, dry_run)
        # a create: the name is checked as for an update, the namespace as for a create
        check_name(result.object["metadata"], name)
        obj = self._check_body(spec, result.object, namespace)
        uid = obj["metadata"].get("uid")
        if uid:
            raise Conflict.of(spec.resource, spec.group, name, f"uid mismatch: the provided object specified uid "
                              f"{uid}, and no existing object was found")
        obj["metadata"].pop("resourceVersion", None)
        return self._create(spec, obj, result.object, result.managed_fields, dry_run)

    def _check_preconditions(self, spec: KindSpec, namespace: str | None, name: str, obj: Obj, old: Obj) -> None:
        """An update's preconditions on the stored ``old``: the body's ``uid`` (a storage
        precondition) and its ``resourceVersion`` (the optimistic lock)."""
        uid = obj["metadata"].get("uid")
        if uid and uid != old["metadata"]["uid"]:
            raise Conflict.of(spec.resource, spec.group, name, precondition_failed(
                spec, namespace, name, "UID", uid, old["metadata"]["uid"]))
        check_resource_version(spec, name, obj, old, self.strategy(spec).rules)

    def _write(self, spec: KindSpec, old: Obj, obj: Obj, subresource: str | None, managed: Sequence[Obj],
               dry_run: bool = False) -> Obj:
        """``rest.BeforeUpdate`` and the storage write: system fields come from the stored object
        (a missing ``uid`` too, a different one fails validation), then the steps of the
        (sub)resource written through prepare, validate and admit the object
        (:func:`~fake_apiserver._storage.subresources.update.update_steps`), and the write's
        ``managed`` fields are set; nothing is written when the result equals what is stored."""
        strategy = self.strategy(spec)
        meta = obj["metadata"]
        old_meta = old["metadata"]
        for key in ("generation", "creationTimestamp", "resourceVersion"):
            _copy_meta(old_meta, meta, key)
        if old_meta.get("deletionTimestamp"):
            meta["deletionTimestamp"] = old_meta["deletionTimestamp"]
        if old_meta.get("deletionGracePeriodSeconds") is not None and meta.get("deletionGracePeriodSeconds") is None:
            meta["deletionGracePeriodSeconds"] = old_meta["deletionGracePeriodSeconds"]
        meta.pop("managedFields", None)
        now = self._now()
        steps = update_steps(subresource)
        steps.prepare(strategy, obj, old, now, self.features)
        meta = obj["metadata"]
        if not meta.get("uid"):
            meta["uid"] = old_meta["uid"]
        if managed:
            meta["managedFields"] = list(managed)
        # metadata equal to the stored (valid) metadata cannot fail ValidateObjectMetaUpdate, which
        # reads no managedFields (the field manager wrote them)
        errors = [] if _same_but_managed_fields(meta, old_meta) \
            else object_meta.validate_object_meta(spec, obj, create=False, old=old)
        errors += steps.validate(strategy, obj, old, self.features)
        object_meta.check(spec, meta["name"], errors)
        steps.admit(strategy, obj, old, self.objects)
        obj = ordered(obj)
        meta = obj["metadata"]
        if obj == old:
            return old
        if dry_run:
            return obj
        if old_meta.get("deletionTimestamp") and not meta.get("finalizers") \
                and not old_meta.get("deletionGracePeriodSeconds"):  # ShouldDeleteDuringUpdate
            rv = self.next_resource_version()
            meta["resourceVersion"] = str(rv)
            self.commit(spec, old, None, rv)
            return obj
        rv = self.next_resource_version()
        meta["resourceVersion"] = str(rv)
        self.commit(spec, old, obj, rv)
        return obj

    def delete(
        self,
        spec: KindSpec,
        namespace: str | None,
        name: str,
        *,
        options: Obj | None = None,
        dry_run: bool = False,
        registry: bool = True,
    ) -> Obj:
        """``Store.Delete`` with ``rest.BeforeDelete``: delete now, or mark for deletion and keep
        (:func:`~fake_apiserver._storage.deletion.delete`)."""
        return deletion.delete(self, spec, namespace, name, options=options, dry_run=dry_run, registry=registry)

    def delete_collection(
        self, spec: KindSpec, namespace: str | None, *, label_selector: str = "", field_selector: str = "",
        options: Obj | None = None, dry_run: bool = False,
    ) -> Obj:
        """``DeleteCollection``: the list of what was deleted
        (:func:`~fake_apiserver._storage.deletion.delete_collection`)."""
        return deletion.delete_collection(self, spec, namespace, label_selector=label_selector,
                                          field_selector=field_selector, options=options, dry_run=dry_run)

    def bind(self, namespace: str, name: str, body: Any, *, dry_run: bool = False,
             field_validation: FieldValidation | None = None) -> Obj:
        """``POST pods/{name}/binding``: the ``Status`` answered with 201
        (:func:`~fake_apiserver._storage.subresources.binding.bind`)."""
        return binding.bind(self, namespace, name, body, dry_run=dry_run, field_validation=field_validation)

    def bound(self, namespace: str, name: str, body: Any, *, field_validation: FieldValidation | None = None) -> Obj:
        """The pod as a binding would leave it, with every check of :meth:`bind`, nothing written
        (a preview of the binding's effect: :func:`~fake_apiserver._storage.subresources.binding.bound`)."""
        return binding.bound(self, namespace, name, body, field_validation=field_validation)


def _node(spec: KindSpec, release: str) -> gotypes.TypeNode | None:
    """The compiled type of a kind in ``release``, or None for a kind the schemas lack."""
    if spec.custom:
        return None
    try:
        return gotypes.kind_node(spec.group, spec.version, spec.kind, release)
    except KeyError:
        return None


def _same_but_managed_fields(meta: Obj, old_meta: Obj) -> bool:
    return {k: v for k, v in meta.items() if k != "managedFields"} == \
        {k: v for k, v in old_meta.items() if k != "managedFields"}


def _defaulted_already(defaults_in: tuple[str, ...] | None, obj: Obj, made_from: Obj | None) -> bool:
    """Whether ``obj`` shares with the stored object it was made from every top-level map its
    kind's defaults write in (:attr:`Strategy.defaults_in`): the stored one was defaulted."""
    if defaults_in is None or made_from is None:
        return False
    for key in defaults_in:
        value = obj.get(key)
        if type(value) is not dict or value is not made_from.get(key):
            return False
    return True


def _copy_meta(src: Obj, dst: Obj, key: str) -> None:
    if key in src:
        dst[key] = src[key]
    else:
        dst.pop(key, None)


def kind_spec(group: str, kind: str) -> KindSpec:
    spec = by_kind(group, kind)
    if spec is None:
        raise StatusError(f"no kind {kind!r} in group {group!r}")
    return spec

