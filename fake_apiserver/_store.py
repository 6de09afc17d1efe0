"""The object store: the fake's etcd plus the generic registry (``apiserver/pkg/registry/generic``).

One :class:`Store` holds every object of every kind, one global decimal resourceVersion, and one
:class:`~fake_apiserver._watch.WatchCache` per kind that LIST and WATCH read. All methods are
synchronous and either commit whole or raise a typed :mod:`~fake_apiserver._errors` error having
changed nothing: a write builds the new object on a private copy, runs the kind's strategy and
validation on it, and only then stores it.

Stored objects are never mutated afterwards (a write stores a new dict), so reads and watch events
hand out the stored dicts without copying. In-process callers that want to modify a result must
copy it first; the public :class:`~fake_apiserver.FakeApiServer` helpers do.

Determinism: uids and ``generateName`` suffixes come from a seeded RNG and timestamps from the
injected clock, so the same sequence of requests gives the same objects byte for byte.

Watch lag: :meth:`Store.set_watch_lag` holds a kind's committed changes back from its watch cache
(and so from LIST and WATCH) for a number of seconds, released through the injected ``schedule``
callback (the event loop's ``call_later`` at the edge). GET, and every write, read the truth.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import uuid
from collections import deque
from typing import Any, Callable, Iterable

from fake_apiserver._jsonutil import json_copy
from fake_apiserver._clock import Clock, SystemClock, format_time
from fake_apiserver._errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Expired,
    Forbidden,
    Invalid,
    NotFound,
    StatusError,
)
from fake_apiserver._kinds import KINDS, KindSpec, by_kind, by_resource
from fake_apiserver._patch import apply_patch
from fake_apiserver._selectors import FieldSelector, LabelSelector
from fake_apiserver._strategy import Strategy, strategy_for
from fake_apiserver import _validation as validation
from fake_apiserver._watch import Change, WatchCache, Watcher

__all__ = ["DEFAULT_NAMESPACES", "Store", "kind_spec", "update_pod_condition"]

Obj = dict[str, Any]
Schedule = Callable[[float, Callable[[], None]], object]

DEFAULT_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
_NAME_SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery util/rand
_CONTINUE_EXPIRED = (
    "The provided continue parameter is too old to display a consistent list result. You can start "
    "a new list without the continue parameter, or use the continue token in this response to "
    "retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the first "
    "chunk was returned and now may show up in the list."
)
def _spec(group: str, version: str, resource: str) -> KindSpec:
    spec = by_resource(group, version, resource)
    assert spec is not None, resource
    return spec


PODS = _spec("", "v1", "pods")
NAMESPACES = _spec("", "v1", "namespaces")


class Store:
    """Every object, one resourceVersion counter, one watch cache per kind.

    ``history`` bounds each kind's event window (older resourceVersions get ``410 Expired``);
    ``taint_not_ready_nodes`` turns the TaintNodesByCondition admission on new nodes on or off;
    ``seed`` seeds uids and generated names.
    """

    def __init__(
        self,
        clock: Clock | None = None,
        *,
        seed: int = 0,
        history: int = 1000,
        taint_not_ready_nodes: bool = True,
        schedule: Schedule | None = None,
        kinds: Iterable[KindSpec] = KINDS,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self.schedule = schedule
        self._rng = random.Random(seed)
        self._rv = 1
        self._objects: dict[tuple[str, str], dict[tuple[str, str], Obj]] = {}
        self._caches: dict[tuple[str, str], WatchCache] = {}
        self._strategies: dict[tuple[str, str], Strategy] = {}
        self._lag: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], deque[Change]] = {}
        self._on_hold: dict[tuple[str, str], Callable[[], None]] = {}
        self.kinds = tuple(kinds)
        for spec in self.kinds:
            key = (spec.group, spec.resource)
            self._objects[key] = {}
            cache = WatchCache(spec, history, self._rv)
            held: deque[Change] = deque()
            self._held[key] = held
            cache.bind_store(lambda: self._rv, lambda h=held: h[0].rv if h else None)  # type: ignore[misc]
            self._caches[key] = cache
            self._strategies[key] = strategy_for(spec, taint_not_ready=taint_not_ready_nodes)
        for name in DEFAULT_NAMESPACES:
            self.create(NAMESPACES, None, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})

    # ------------------------------------------------------------------ helpers

    @property
    def resource_version(self) -> int:
        return self._rv

    def cache(self, spec: KindSpec) -> WatchCache:
        return self._caches[(spec.group, spec.resource)]

    def _now(self) -> str:
        return format_time(self.clock.now())

    def _new_uid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def _bucket(self, spec: KindSpec) -> dict[tuple[str, str], Obj]:
        return self._objects[(spec.group, spec.resource)]

    @staticmethod
    def _key(spec: KindSpec, namespace: str | None, name: str) -> tuple[str, str]:
        return (namespace or "") if spec.namespaced else "", name

    def _commit(self, spec: KindSpec, old: Obj | None, new: Obj | None, rv: int) -> None:
        key = (spec.group, spec.resource)
        bucket = self._objects[key]
        obj = new if new is not None else old
        assert obj is not None
        okey = self._key(spec, obj["metadata"].get("namespace"), obj["metadata"]["name"])
        if new is None:
            bucket.pop(okey, None)
        else:
            bucket[okey] = new
        change = Change(rv, old, new)
        lag = self._lag.get(key, 0.0)
        held = self._held[key]
        if lag > 0 or held:
            held.append(change)
            if lag > 0 and key in self._on_hold:
                self._on_hold[key]()
            if self.schedule is None:
                raise RuntimeError("watch lag needs a schedule callback (the server's event loop)")
            self.schedule(lag, lambda: self._release(key))
        else:
            self._caches[key].apply(change)

    def _release(self, key: tuple[str, str]) -> None:
        held = self._held[key]
        if held:
            self._caches[key].apply(held.popleft())

    def set_watch_lag(self, spec: KindSpec, seconds: float, *, on_hold: Callable[[], None] | None = None) -> None:
        """From now on, changes to ``spec`` reach LIST and WATCH ``seconds`` after they commit;
        ``on_hold`` is called for each change held back (fault rules count their firings)."""
        key = (spec.group, spec.resource)
        self._lag[key] = float(seconds)
        if on_hold is not None:
            self._on_hold[key] = on_hold
        else:
            self._on_hold.pop(key, None)

    def _next_rv(self) -> int:
        self._rv += 1
        return self._rv

    def _require_namespace(self, spec: KindSpec, namespace: str | None, name: str) -> None:
        if not spec.namespaced:
            return
        ns = self._objects[("", "namespaces")].get(("", namespace or ""))
        if ns is None:
            raise NotFound.of("namespaces", "", namespace or "")
        if ns["metadata"].get("deletionTimestamp"):
            raise Forbidden(
                f"{spec.resource} {json.dumps(name)} is forbidden: unable to create new content "
                f"in namespace {namespace} because it is being terminated",
                details={"kind": spec.resource},
            )

    def _check_body(self, spec: KindSpec, body: Any, namespace: str | None) -> Obj:
        """The decoding checks of the real handlers: a JSON object of the right kind and version,
        in the URL's namespace. Returns a private deep copy to build the new object on."""
        if not isinstance(body, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {spec.kind})")
        kind = body.get("kind")
        api_version = body.get("apiVersion")
        if kind is None or api_version is None:
            missing = "kind" if kind is None else "apiVersion"
            raise BadRequest(f"Object '{missing}' is missing in '{_compact(body)}'")
        if kind != spec.kind or api_version != spec.api_version:
            raise BadRequest(
                f"the API version in the data ({api_version}) does not match the expected API version "
                f"({spec.api_version})"
                if kind == spec.kind
                else f"{kind} in version \"{_version_of(str(api_version))}\" cannot be handled as a {spec.kind}: "
                f"converting (v1.{kind}) to (v1.{spec.kind}): unknown conversion"
            )
        obj = json_copy(body)
        meta = obj.get("metadata")
        if meta is None:
            meta = obj["metadata"] = {}
        if not isinstance(meta, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {spec.kind})")
        if spec.namespaced:
            body_ns = meta.get("namespace")
            if body_ns and namespace and body_ns != namespace:
                raise BadRequest(
                    "the namespace of the provided object does not match the namespace sent on the request"
                )
            meta["namespace"] = namespace or body_ns or ""
        else:
            meta.pop("namespace", None)
        return obj

    # ------------------------------------------------------------------ reads

    def get(self, spec: KindSpec, namespace: str | None, name: str) -> Obj:
        obj = self._bucket(spec).get(self._key(spec, namespace, name))
        if obj is None:
            raise NotFound.of(spec.resource, spec.group, name)
        return obj

    def list(
        self,
        spec: KindSpec,
        namespace: str | None,
        *,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
    ) -> Obj:
        """A ``<Kind>List`` from the kind's watch cache, with ``limit``/``continue`` paging."""
        matches = self._matcher(spec, namespace, label_selector, field_selector)
        cache = self.cache(spec)
        start = ""
        list_rv = cache.rv
        if continue_token:
            list_rv, start = _decode_continue(continue_token)
            if list_rv < cache._floor:
                raise Expired(_CONTINUE_EXPIRED)
        items = [o for o in cache.items(namespace if spec.namespaced else None) if matches(o)]
        if start:
            items = [o for o in items if _item_key(o) > start]
        meta: Obj = {"resourceVersion": str(list_rv)}
        if limit and len(items) > limit:
            remaining = len(items) - limit
            items = items[:limit]
            meta["continue"] = _encode_continue(list_rv, _item_key(items[-1]))
            if not label_selector and not field_selector:
                meta["remainingItemCount"] = remaining
        return {"kind": spec.list_kind, "apiVersion": spec.api_version, "metadata": meta, "items": items}

    def _matcher(
        self, spec: KindSpec, namespace: str | None, label_selector: str, field_selector: str
    ) -> Callable[[Obj], bool]:
        labels = LabelSelector.parse(label_selector)
        fields = FieldSelector.parse(field_selector, spec)
        ns = namespace if spec.namespaced else None

        def matches(obj: Obj) -> bool:
            meta = obj["metadata"]
            if ns is not None and meta.get("namespace") != ns:
                return False
            if not labels.empty and not labels.matches(meta.get("labels") or {}):
                return False
            return fields.empty or fields.matches(obj)

        return matches

    def watch(
        self,
        spec: KindSpec,
        namespace: str | None,
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        send_initial_events: bool | None = None,
        allow_bookmarks: bool = False,
    ) -> Watcher:
        if resource_version not in ("", "0"):
            try:
                if int(resource_version) < 0:
                    raise ValueError
            except ValueError:
                raise BadRequest(f"Invalid value: \"{resource_version}\": must be a valid resource version") from None
        matches = self._matcher(spec, namespace, label_selector, field_selector)
        return self.cache(spec).watch(
            matches,
            resource_version=resource_version,
            send_initial_events=send_initial_events,
            allow_bookmarks=allow_bookmarks,
        )

    # ------------------------------------------------------------------ writes

    def create(self, spec: KindSpec, namespace: str | None, body: Any, *, dry_run: bool = False) -> Obj:
        obj = self._check_body(spec, body, namespace)
        meta = obj["metadata"]
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = meta["generateName"] + "".join(
                self._rng.choice(_NAME_SUFFIX_ALPHABET) for _ in range(5)
            )
        for key in ("uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
                    "deletionGracePeriodSeconds", "generation", "managedFields", "selfLink"):
            meta.pop(key, None)
        name = str(meta.get("name") or "")
        strategy = self._strategies[(spec.group, spec.resource)]
        now = self._now()
        strategy.prepare_for_create(obj, now)
        meta = obj["metadata"]  # a strategy may rebuild the object
        errors = validation.validate_object_meta(spec, obj, create=True) + strategy.validate_create(obj)
        validation.check(spec, name, errors)
        self._require_namespace(spec, meta.get("namespace"), name)
        if self._key(spec, meta.get("namespace"), name) in self._bucket(spec):
            raise AlreadyExists.of(spec.resource, spec.group, name)
        if dry_run:
            return obj
        meta["uid"] = self._new_uid()
        meta["creationTimestamp"] = now
        rv = self._next_rv()
        meta["resourceVersion"] = str(rv)
        obj = _ordered(obj)
        self._commit(spec, None, obj, rv)
        return obj

    def update(
        self,
        spec: KindSpec,
        namespace: str | None,
        name: str,
        body: Any,
        *,
        subresource: str | None = None,
    ) -> Obj:
        """PUT: optimistic lock when the body carries a resourceVersion; a no-op writes nothing."""
        obj = self._check_body(spec, body, namespace)
        body_name = obj["metadata"].get("name")
        if body_name != name:
            raise BadRequest(f"the name of the object ({body_name or ''}) does not match the name on the URL ({name})")
        old = self.get(spec, namespace, name)
        rv = obj["metadata"].get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise Conflict.of(spec.resource, spec.group, name)
        return self._write(spec, old, obj, subresource)

    def patch(
        self,
        spec: KindSpec,
        namespace: str | None,
        name: str,
        patch_body: bytes,
        content_type: str,
        *,
        subresource: str | None = None,
    ) -> Obj:
        old = self.get(spec, namespace, name)
        patched = apply_patch(
            old, patch_body, content_type, spec.patch_schema, kind=spec.kind, group=spec.group, name=name
        )
        if not isinstance(patched, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {spec.kind})")
        meta = patched.get("metadata")
        if not isinstance(meta, dict):
            raise BadRequest(f"the object provided is unrecognized (must be of type {spec.kind})")
        if meta.get("name") != name:
            raise BadRequest(f"the name of the object ({meta.get('name') or ''}) does not match the name on the URL ({name})")
        rv = meta.get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise Conflict.of(spec.resource, spec.group, name)
        obj = self._check_body(spec, patched, namespace)
        return self._write(spec, old, obj, subresource)

    def _write(self, spec: KindSpec, old: Obj, obj: Obj, subresource: str | None) -> Obj:
        strategy = self._strategies[(spec.group, spec.resource)]
        meta = obj["metadata"]
        for key in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                    "generation", "resourceVersion"):
            if key in old["metadata"]:
                meta[key] = old["metadata"][key]
            else:
                meta.pop(key, None)
        meta.pop("managedFields", None)
        now = self._now()
        if subresource == "status":
            strategy.prepare_for_status_update(obj, old, now)
            errors = strategy.validate_status_update(obj, old)
        else:
            strategy.prepare_for_update(obj, old)
            errors = validation.validate_object_meta(spec, obj, create=False, old=old) + strategy.validate_update(obj, old)
        validation.check(spec, meta["name"], errors)
        obj = _ordered(obj)
        if obj == old:
            return old
        if old["metadata"].get("deletionTimestamp") and not meta.get("finalizers"):
            rv = self._next_rv()
            meta["resourceVersion"] = str(rv)
            self._commit(spec, old, None, rv)
            return obj
        rv = self._next_rv()
        meta["resourceVersion"] = str(rv)
        self._commit(spec, old, obj, rv)
        return obj

    def delete(
        self,
        spec: KindSpec,
        namespace: str | None,
        name: str,
        *,
        preconditions: Obj | None = None,
    ) -> Obj:
        """Delete now, or mark for deletion while finalizers remain.

        Pods are deleted at once even when bound: there is no kubelet to confirm a graceful
        deletion (k8s-semantics E.1 allows this for a fake).
        """
        old = self.get(spec, namespace, name)
        pre = preconditions or {}
        if pre.get("uid") and pre["uid"] != old["metadata"]["uid"]:
            raise Conflict.of(
                spec.resource, spec.group, name,
                f"Precondition failed: UID in precondition: {pre['uid']}, UID in object meta: {old['metadata']['uid']}",
            )
        if pre.get("resourceVersion") and pre["resourceVersion"] != old["metadata"]["resourceVersion"]:
            raise Conflict.of(
                spec.resource, spec.group, name,
                f"Precondition failed: ResourceVersion in precondition: {pre['resourceVersion']}, "
                f"ResourceVersion in object meta: {old['metadata']['resourceVersion']}",
            )
        if spec is NAMESPACES:
            for kind in self.kinds:
                if kind.namespaced:
                    for obj in [o for (ns, _), o in sorted(self._bucket(kind).items()) if ns == name]:
                        self._delete_now(kind, obj)
        if old["metadata"].get("finalizers"):
            if old["metadata"].get("deletionTimestamp"):
                return old
            new = json_copy(old)
            new["metadata"]["deletionTimestamp"] = self._now()
            new["metadata"]["deletionGracePeriodSeconds"] = 0
            rv = self._next_rv()
            new["metadata"]["resourceVersion"] = str(rv)
            self._commit(spec, old, new, rv)
            return new
        return self._delete_now(spec, old)

    def _delete_now(self, spec: KindSpec, old: Obj) -> Obj:
        rv = self._next_rv()
        self._commit(spec, old, None, rv)
        return old

    def delete_collection(
        self, spec: KindSpec, namespace: str | None, *, label_selector: str = "", field_selector: str = ""
    ) -> Obj:
        listed = self.list(spec, namespace, label_selector=label_selector, field_selector=field_selector)
        deleted = [self.delete(spec, o["metadata"].get("namespace"), o["metadata"]["name"]) for o in listed["items"]]
        return {"kind": spec.list_kind, "apiVersion": spec.api_version,
                "metadata": {"resourceVersion": str(self._rv)}, "items": deleted}

    def bind(self, namespace: str, name: str, body: Any) -> Obj:
        """``POST pods/{name}/binding`` (``BindingREST`` in ``pkg/registry/core/pod/storage``)."""
        if not isinstance(body, dict) or body.get("kind", "Binding") != "Binding":
            raise BadRequest("the object provided is unrecognized (must be of type Binding)")
        meta = body.get("metadata") or {}
        if meta.get("name") != name:
            raise BadRequest("name in URL does not match name in Binding object")
        validation.check_binding(validation.validate_binding(body))
        old = self.get(PODS, namespace, name)
        if meta.get("uid") and meta["uid"] != old["metadata"]["uid"]:
            raise Conflict.of(
                "pods/binding", "", name,
                f"Precondition failed: UID in precondition: {meta['uid']}, UID in object meta: {old['metadata']['uid']}",
            )
        if meta.get("resourceVersion") and meta["resourceVersion"] != old["metadata"]["resourceVersion"]:
            raise Conflict.of(
                "pods/binding", "", name,
                f"Precondition failed: ResourceVersion in precondition: {meta['resourceVersion']}, "
                f"ResourceVersion in object meta: {old['metadata']['resourceVersion']}",
            )
        why = None
        if old["metadata"].get("deletionTimestamp"):
            why = f"pod {name} is being deleted, cannot be assigned to a host"
        elif old["spec"].get("nodeName"):
            why = f"pod {name} is already assigned to node {json.dumps(old['spec']['nodeName'])}"
        elif old["spec"].get("schedulingGates"):
            why = f"pod {name} has non-empty .spec.schedulingGates"
        if why:
            raise Conflict.of("pods/binding", "", name, why)
        new = json_copy(old)
        new["spec"]["nodeName"] = body["target"]["name"]
        annotations = meta.get("annotations") or {}
        if annotations:
            new["metadata"].setdefault("annotations", {}).update(annotations)
        status = new.setdefault("status", {})
        status.pop("nominatedNodeName", None)
        now = self._now()
        update_pod_condition(status, {"type": "PodScheduled", "status": "True"}, now)
        rv = self._next_rv()
        new["metadata"]["resourceVersion"] = str(rv)
        self._commit(PODS, old, _ordered(new), rv)
        return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}

    def close(self) -> None:
        for cache in self._caches.values():
            cache.close()


def update_pod_condition(status: Obj, condition: Obj, now: str) -> bool:
    """``podutil.UpdatePodCondition``: replace the element of that type; keep
    ``lastTransitionTime`` when the status is unchanged; return whether anything changed."""
    cond = {"type": condition["type"], "status": condition["status"], "lastProbeTime": None,
            "lastTransitionTime": now}
    for key in ("reason", "message"):
        if condition.get(key):
            cond[key] = condition[key]
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == cond["type"]:
            if existing.get("status") == cond["status"] and existing.get("lastTransitionTime"):
                cond["lastTransitionTime"] = existing["lastTransitionTime"]
            changed = existing != cond
            conditions[i] = cond
            return changed
    conditions.append(cond)
    return True


_TOP_ORDER = ("kind", "apiVersion", "metadata", "spec", "status")


def _ordered(obj: Obj) -> Obj:
    """Top-level keys in the order the real server encodes them (kind, apiVersion, metadata,
    spec, status, then the rest), so serialized objects look like the real ones."""
    out = {k: obj[k] for k in _TOP_ORDER if k in obj}
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out


def _item_key(obj: Obj) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}"


def _encode_continue(rv: int, start: str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start + "\x00"}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_continue(token: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
        if data.get("v") != "meta.k8s.io/v1":
            raise ValueError
        return int(data["rv"]), str(data["start"]).rstrip("\x00")
    except (ValueError, KeyError, TypeError, binascii.Error, json.JSONDecodeError):
        raise BadRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)") from None


def _compact(body: Obj) -> str:
    return json.dumps(body, separators=(",", ":"))[:1024]


def _version_of(api_version: str) -> str:
    return api_version.rsplit("/", 1)[-1]


def kind_spec(group: str, kind: str) -> KindSpec:
    spec = by_kind(group, kind)
    if spec is None:
        raise StatusError(f"no kind {kind!r} in group {group!r}")
    return spec

