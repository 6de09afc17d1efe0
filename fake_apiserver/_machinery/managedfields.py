"""``metadata.managedFields`` after an Update (a create, PUT or non-apply PATCH), as kube-apiserver
keeps it.

An entry is one manager's ownership: ``manager``, ``operation`` (``Update`` here), ``apiVersion``,
``time``, ``fieldsType: FieldsV1``, ``fieldsV1`` and ``subresource`` (left out when empty). An
Update entry is identified by manager, operation, apiVersion and subresource together (an Apply
entry by the same without apiVersion), so one manager writing the main resource and ``/status``
keeps two entries.

What a write changes (:func:`~fake_apiserver._machinery.fieldset.compare` of the object before and
after, with the fields the resource's strategy resets left out) moves to the writer: every other
entry loses what was added, modified or removed, the writer's entry loses what was removed and
gains what was added or modified, minus the fields nobody owns (``apiVersion``, ``kind``,
``metadata`` itself and its ``name``, ``namespace``, ``uid``, ``resourceVersion``, ``generation``,
``creationTimestamp``, ``selfLink``, ``managedFields``; the members below ``metadata`` are
owned). An entry left empty is dropped. The writer's entry gets the write's time only when the
write gave it something: a write that changes nothing creates no entry and moves no time. A create
compares with the kind's empty object (:func:`~fake_apiserver._machinery.gotypes.zero_object`;
``{}`` for a custom resource), so that a struct the Go type always writes is not new as a whole.

The list is kept sorted as kube-apiserver sorts it: by operation (``Apply`` before ``Update``),
then time to the second, manager, apiVersion and subresource. With more than ten Update entries,
the oldest are folded into one ``ancient-changes`` entry, as kube-apiserver caps them.

The manager is the request's ``fieldManager``, or else the User-Agent up to its first ``/``
(:func:`manager_name`). The entries a write starts from are the live object's, or those a PUT or
patch of the main resource puts in the object (:func:`managed_fields_before`: a client may
rewrite them, or clear them with ``[]``); an object without managedFields stays without on an
Update, and gets them again on an apply.

Checked against kube-apiserver v1.37.2 (``tests/fake_apiserver/_machinery/test_managedfields.py``
replays the recorded answers). The objects compared must be the ones kube-apiserver compares: the
request's object after decoding and defaulting, before the strategy's ``PrepareFor*`` and before
mutating admission (fields admission adds, such as a Pod's service account volume, are nobody's).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from fake_apiserver._machinery.fieldset import FieldSet, compare, path_of
from fake_apiserver._machinery.jsonutil import ByIdentity, dumps
from fake_apiserver._machinery.mergerules import FieldType

__all__ = [
    "ANCIENT_CHANGES",
    "MAX_UPDATE_MANAGERS",
    "NEVER_OWNED",
    "UNKNOWN_MANAGER",
    "ManagedEntry",
    "decode_managed_fields",
    "encode_managed_fields",
    "managed_fields_before",
    "manager_name",
    "update_managed_fields",
]

FIELDS_TYPE = "FieldsV1"
MAX_UPDATE_MANAGERS = 10
ANCIENT_CHANGES = "ancient-changes"
UNKNOWN_MANAGER = "unknown"

NEVER_OWNED = FieldSet([
    path_of("apiVersion"), path_of("kind"), path_of("metadata"),
    *(path_of("metadata", name) for name in ("name", "namespace", "creationTimestamp", "selfLink", "uid",
                                             "clusterName", "generation", "managedFields", "resourceVersion")),
])
"""Paths no manager owns: removed from a writer's gain (not their descendants)."""


def manager_name(field_manager: str | None, user_agent: str | None) -> str:
    """The manager of a write: ``?fieldManager=``, else the User-Agent up to its first ``/``
    (``kubectl/v1.37.2 (linux/amd64)`` is ``kubectl``), else ``unknown``."""
    if field_manager:
        return field_manager
    return (user_agent or "").split("/", 1)[0] or UNKNOWN_MANAGER


@dataclass
class ManagedEntry:
    """One managedFields entry, decoded."""

    manager: str
    operation: str
    api_version: str
    time: str | None
    fields: FieldSet
    subresource: str = ""
    #: the ``fieldsV1`` the entry was decoded from, and the set it held: encoding an entry whose
    #: set is still that one reuses it rather than writing it again
    decoded: tuple[FieldSet, dict[str, Any]] | None = field(default=None, compare=False, repr=False)
    #: the entry as :meth:`encode` wrote it (and whether for an unstructured object), when it was
    #: decoded from that very dict: written back as it is while nothing in the entry changed
    written: tuple[dict[str, Any], bool] | None = field(default=None, compare=False, repr=False)

    @property
    def identity(self) -> tuple[str, str, str, str]:
        version = "" if self.operation == "Apply" else self.api_version
        return (self.manager, self.operation, version, self.subresource)

    def encode(self, unstructured: bool = False) -> dict[str, Any]:
        """The entry as JSON: keys in the Go struct's order, or sorted (fieldsV1's too) for an
        unstructured object (a custom resource), whose maps Go writes sorted by key. Treat it as
        read-only: it may be the dict the entry was decoded from, and is kept to be known again."""
        written = self.written
        if written is not None and written[1] == unstructured and self._same_as(written[0]):
            return written[0]
        out: dict[str, Any] = {"manager": self.manager, "operation": self.operation,
                               "apiVersion": self.api_version}
        if self.time is not None:
            out["time"] = self.time
        out["fieldsType"] = FIELDS_TYPE
        reused = self.decoded is not None and self.decoded[0] is self.fields and not unstructured
        out["fieldsV1"] = self.decoded[1] if reused and self.decoded is not None else self.fields.to_fields_v1()
        if self.subresource:
            out["subresource"] = self.subresource
        out = _sorted_keys(out) if unstructured else out
        _remember(out, self, unstructured)
        return out

    def _same_as(self, written: dict[str, Any]) -> bool:
        """Whether ``written`` (this entry's own encoding, once) still says what the entry says."""
        return (self.decoded is not None and self.decoded[0] == self.fields and self.time == written.get("time")
                and self.manager == written["manager"] and self.operation == written["operation"]
                and self.api_version == written["apiVersion"] and self.subresource == written.get("subresource", ""))


# A write reads the managedFields entries of the stored object, which the write before it encoded:
# the entries encoded are kept by identity with what they decode to, so reading one again costs a
# lookup, and one that nothing changed is written back as the same dict. Entries only ever come
# from here or from a request's body, whose dicts are new, and a stored object is never changed
# in place.
_KNOWN_SIZE = 4096
_Known = tuple[str, str, str, "str | None", FieldSet, str, dict[str, Any], bool]
_known: ByIdentity[_Known] = ByIdentity(_KNOWN_SIZE)


def _remember(out: dict[str, Any], entry: ManagedEntry, unstructured: bool) -> None:
    _known.put(out, (entry.manager, entry.operation, entry.api_version, entry.time, entry.fields, entry.subresource,
                     out["fieldsV1"], unstructured))


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_keys(value[k]) for k in sorted(value, key=str.encode)}
    return value


def decode_managed_fields(entries: Sequence[Mapping[str, Any]] | None) -> list[ManagedEntry]:
    """The entries of ``metadata.managedFields``; ValueError for one that cannot be read."""
    out: list[ManagedEntry] = []
    for raw in entries or ():
        known = _known.get(raw)
        if known is not None:
            manager, operation, api_version, time, fields, subresource, fields_v1, unstructured = known
            out.append(ManagedEntry(manager, operation, api_version, time, fields, subresource, (fields, fields_v1),
                                    (cast("dict[str, Any]", raw), unstructured)))  # the dict encode wrote
            continue
        if raw.get("fieldsType", FIELDS_TYPE) != FIELDS_TYPE:
            raise ValueError(f"invalid fieldsType {raw.get('fieldsType')!r}")
        fields_v1 = raw.get("fieldsV1") or {}
        fields = FieldSet.from_fields_v1(fields_v1)
        out.append(ManagedEntry(manager=str(raw.get("manager", "")), operation=str(raw.get("operation", "")),
                                api_version=str(raw.get("apiVersion", "")), time=raw.get("time"),
                                fields=fields, subresource=str(raw.get("subresource", "")),
                                decoded=(fields, fields_v1) if isinstance(fields_v1, dict) else None))
    return out


def managed_fields_before(live: Sequence[Mapping[str, Any]] | None, sent: Sequence[Mapping[str, Any]] | None,
                          subresource: str = "") -> Sequence[Mapping[str, Any]] | None:
    """The managedFields a write starts from: those the request's object carries (a client may
    rewrite them), unless it writes through a subresource, carries none, or carries some that
    cannot be read, when the live object's count; ``[]`` or ``[{}]`` (one empty entry) start
    from none, which leaves the object without managedFields (:func:`update_managed_fields`)."""
    if subresource or sent is None:
        return live
    if not sent or (len(sent) == 1 and not sent[0]):
        return []
    try:
        readable = decode_managed_fields(sent)
    except (ValueError, TypeError, AttributeError):
        return live
    return sent if readable else live


def _seconds(time: str | None) -> str:
    return (time or "")[:19]  # RFC 3339 to the second sorts as text


def encode_managed_fields(entries: Sequence[ManagedEntry], unstructured: bool = False) -> list[dict[str, Any]]:
    """The entries as ``metadata.managedFields``, in kube-apiserver's order (``unstructured``:
    :meth:`ManagedEntry.encode`)."""
    ordered = sorted(entries, key=lambda e: (e.operation, _seconds(e.time), e.manager, e.api_version, e.subresource))
    return [e.encode(unstructured) for e in ordered]


@functools.lru_cache(maxsize=256)
def _first_entry(gained: FieldSet, manager: str, api_version: str, time: str | None, subresource: str,
                 unstructured: bool) -> tuple[dict[str, Any], ...]:
    """The managedFields of an object created with no entries to start from: the creator's Update
    entry alone, one dict for every object of one template that one writer creates in one second
    (read-only, as every encoded entry is)."""
    entry = ManagedEntry(manager, "Update", api_version, time, gained, subresource)
    return tuple(encode_managed_fields([entry], unstructured))


def _cap(entries: list[ManagedEntry]) -> list[ManagedEntry]:
    """At most :data:`MAX_UPDATE_MANAGERS` Update entries: the oldest fold into ``ancient-changes``."""
    if len(entries) <= MAX_UPDATE_MANAGERS:  # so are their Update entries
        return entries
    updates = sorted((e for e in entries if e.operation == "Update"),
                     key=lambda e: (_seconds(e.time), e.manager, e.api_version, e.subresource))
    if len(updates) <= MAX_UPDATE_MANAGERS:
        return entries
    fold = updates[:len(updates) - MAX_UPDATE_MANAGERS + 1]
    kept = [e for e in entries if all(e is not f for f in fold)]
    merged = FieldSet().union(*(e.fields for e in fold))
    ancient = ManagedEntry(ANCIENT_CHANGES, "Update", fold[-1].api_version, fold[-1].time, merged)
    return kept + [ancient]


def _changes(old: Any, new: Any, ftype: FieldType, reset: FieldSet | None) -> tuple[FieldSet, FieldSet]:
    """What a write touched, and what its writer gains."""
    changes = compare(old, new, ftype, prune=reset)
    return changes.all(), changes.changed().difference(NEVER_OWNED)


# A create's changes depend on which fields the object sets, not on the values of most of them:
# kept by content, with the values that cannot change which paths the comparison gives made one
# in the key: those of the metadata fields that tell objects of one template apart (the empty
# object lacks them, so any value is "added"), and every text outside lists that the empty object
# does not hold (any such text differs from the empty object's the same way; a list's items are
# kept whole, as their keys and values name paths). So the objects of one template (a workload's
# pods, a benchmark's) are compared once, and so are the Events of one reason.
_IDENTIFYING = ("name", "generateName", "uid", "resourceVersion", "creationTimestamp", "selfLink", "generation")
_SOME_TEXT = "-"


def _created_changes(old: Any, new: Any, ftype: FieldType, reset: FieldSet | None) -> tuple[FieldSet, FieldSet]:
    try:
        return _object_changes(ftype, reset, _ByJson(old), _ByJson(_template_of(new, old)))
    except TypeError:  # not JSON: compared as is
        return _changes(old, new, ftype, reset)


@functools.lru_cache(maxsize=1024)
def _object_changes(ftype: FieldType, reset: FieldSet | None, old: _ByJson, new: _ByJson) -> tuple[FieldSet, FieldSet]:
    """The changes of a create, kept by the object with its identifying values made one (the pods
    of one template), else by its template (:func:`_texts_made_one`)."""
    changes = _template_changes(ftype, reset, old, _ByJson(_texts_made_one(new.value, old.value)))
    old.value = new.value = None  # the keys keep the text alone
    return changes


def _texts_made_one(new: Any, old: Any) -> Any:
    """``new`` with each text of its maps, outside lists, that is not empty and where ``old`` holds
    no text but an empty one, made :data:`_SOME_TEXT`."""
    if type(new) is not dict:
        return new
    before = old if type(old) is dict else {}
    out: dict[str, Any] = {}
    for key, value in new.items():
        kind = type(value)
        if kind is str:
            was = before.get(key)
            out[key] = _SOME_TEXT if value and not (type(was) is str and was) else value
        elif kind is dict:
            out[key] = _texts_made_one(value, before.get(key))
        else:
            out[key] = value
    return out


class _ByJson:
    """A JSON value as a cache key: hashed and compared by its JSON text, and carrying the value
    itself for the one computation that misses (no parse of the text back)."""

    __slots__ = ("text", "value")

    def __init__(self, value: Any) -> None:
        self.text = dumps(value)
        self.value = value

    def __hash__(self) -> int:
        return hash(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ByJson) and self.text == other.text


@functools.lru_cache(maxsize=1024)
def _template_changes(ftype: FieldType, reset: FieldSet | None, old: _ByJson, template: _ByJson) -> tuple[FieldSet, FieldSet]:
    """The changes of a create, computed on the template itself (its identifying values made one
    change no path: the empty object lacks them)."""
    changes = _changes(old.value, template.value, ftype, reset)
    old.value = template.value = None  # the key keeps the text alone, not the objects it came from
    return changes


def _template_of(new: Any, old: Any) -> Any:
    """``new`` with the values of its identifying metadata (those ``old`` lacks) made one."""
    meta = new.get("metadata") if isinstance(new, dict) else None
    before = old.get("metadata") if isinstance(old, dict) else None
    if not isinstance(meta, dict):
        return new
    before = before if isinstance(before, dict) else {}
    blank = {k: True for k in _IDENTIFYING if k in meta and k not in before}
    return {**new, "metadata": {**meta, **blank}} if blank else new


def update_managed_fields(managed: Sequence[Mapping[str, Any]] | None, old: Any, new: Any, ftype: FieldType, *,
                          manager: str, api_version: str, time: str | None, subresource: str = "",
                          reset: FieldSet | None = None, creating: bool = False,
                          unstructured: bool = False) -> list[dict[str, Any]]:
    """``metadata.managedFields`` after ``manager`` turned ``old`` into ``new`` by an Update at
    ``api_version`` (through ``subresource``, ``""`` for the main resource) at ``time``.

    ``managed`` is the list before the write; ``reset`` the fields the resource's strategy resets
    on this (sub)resource (a Pod's ``status`` on the main resource, its ``spec`` and ``metadata``
    on ``/status``): they and everything below them are nobody's gain or loss. An object that
    has no managedFields when it is updated (not ``creating``) is left without: nothing is
    tracked until it is created again or applied to. ``unstructured``: the object is a custom
    resource (:meth:`ManagedEntry.encode`). An empty list means the object has none."""
    entries = decode_managed_fields(managed)
    if not entries and not creating:
        return []
    touched, gained = (_created_changes if creating else _changes)(old, new, ftype, reset)
    if not entries:  # a create that starts from no entries: the writer's one, if it gained anything
        return list(_first_entry(gained, manager, api_version, time, subresource, unstructured)) if gained else []
    kept: list[ManagedEntry] = []
    for entry in entries:
        entry.fields = entry.fields.difference(touched)
        if entry.fields:
            kept.append(entry)
    if gained:
        identity = (manager, "Update", api_version, subresource)  # ManagedEntry.identity of an Update
        for entry in kept:
            if entry.identity == identity:
                entry.fields, entry.time = entry.fields.union(gained), time
                break
        else:
            kept.append(ManagedEntry(manager, "Update", api_version, time, gained, subresource))
        kept = _cap(kept)
    return encode_managed_fields(kept, unstructured)
