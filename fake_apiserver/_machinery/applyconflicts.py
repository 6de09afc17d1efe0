"""Server-side apply's conflicts: which fields an applied configuration would take from other
managers, and the ``409 Conflict`` kube-apiserver answers with.

An apply merges the configuration into the live object (:func:`merge`: granular maps and
associative lists member by member, scalars and atomic lists and maps replaced whole; the items of
an associative list in structured-merge-diff's order, see :func:`merge`). Every field
the merge adds or changes (:func:`~fake_apiserver._machinery.fieldset.compare`) that another
entry of managedFields owns is a conflict with that entry, unless the apply is forced; the
applier's own Apply entry never conflicts (its own Update entries do). The message is
kube-apiserver's: ``Apply failed with 1 conflict: conflict with "alpha" using apps/v1:
.spec.replicas``, or for several ``Apply failed with 3 conflicts: conflicts with "alpha" using
apps/v1:`` and one ``- <path>`` line per field, manager after manager; a manager that wrote
through a subresource is ``"kubelet" with subresource "status"``, an applier has no version
(``conflict with "b": .data.a``). Paths are written as
structured-merge-diff writes them (``.spec.template.spec.containers[name="c"].image``). Checked
against kube-apiserver v1.37.2 (``tests/fake_apiserver/_machinery/test_applyconflicts.py``).

:func:`find_conflicts` answers for a configuration as it is merged; an apply that also prunes
(:mod:`~fake_apiserver._machinery.apply`) counts only what its pruned result takes
(:func:`conflicts_with`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fake_apiserver._machinery.fieldset import (
    FieldSet,
    Path,
    compare,
    path_text,
)
from fake_apiserver._machinery.managedfields import ManagedEntry, decode_managed_fields
from fake_apiserver._machinery.mergerules import DEDUCED, FieldType

__all__ = ["Conflict", "conflict_causes", "conflict_message", "conflicts_with", "find_conflicts", "merge", "path_text"]


def merge(live: Any, config: Any, ftype: FieldType) -> Any:
    """``config`` merged into ``live`` under ``ftype``'s merge rules (module docstring); maps keep
    the live keys' order, new keys after."""
    if config is None or live is None:
        return config
    if ftype.kind == "list" and ftype.relation != "atomic" and isinstance(live, list) and isinstance(config, list):
        return _merge_items(live, config, ftype)
    granular = (ftype.kind == "map" and not ftype.atomic) or ftype.kind == "deduced"
    if granular and isinstance(live, dict) and isinstance(config, dict):
        merged = dict(live)
        for name, value in config.items():
            child = ftype.child(name)
            merged[name] = merge(live[name], value, child) if name in live and child is not None else value
        return merged
    return config


def _merge_items(live: list[Any], config: list[Any], ftype: FieldType) -> list[Any]:
    """An associative list's items merged. The order is structured-merge-diff's: the live items,
    except that the items both lists hold come in the configuration's order, each new item where
    the configuration puts it relative to them (live ``[a, b]`` and applied ``[c, a]`` give
    ``[c, a, b]``)."""
    elem = ftype.elem or DEDUCED
    old = _keyed(ftype, live)
    new = _keyed(ftype, config)
    old_by_key, new_by_key = dict(old), dict(new)
    shared = [key for key, _ in new if key in old_by_key]
    out: list[Any] = []
    i = j = s = 0
    while i < len(old) or j < len(new):
        if i < len(old) and j < len(new) and old[i][0] == new[j][0]:
            out.append(merge(old[i][1], new[j][1], elem))
            i, j, s = i + 1, j + 1, s + 1
            continue
        if i < len(old):
            key = old[i][0]
            if key not in new_by_key:
                out.append(old[i][1])
                i += 1
                continue
            if j >= len(new) or (s < len(shared) and shared[s] != key):
                i += 1  # comes when the configuration reaches it
                continue
        key, item = new[j]
        out.append(merge(old_by_key[key], item, elem) if key in old_by_key else item)
        j += 1
        if s < len(shared) and shared[s] == key:
            s += 1
    return out


def _keyed(ftype: FieldType, items: list[Any]) -> list[tuple[str, Any]]:
    """The items with their keys, a repeated key's later items left out."""
    seen: set[str] = set()
    out = []
    for index, item in enumerate(items):
        key = _key(ftype, index, item)
        if key not in seen:
            seen.add(key)
            out.append((key, item))
    return out


def _key(ftype: FieldType, index: int, item: Any) -> str:
    if ftype.relation == "map" and ftype.keys and isinstance(item, dict):
        return json.dumps({k: item.get(k, ftype.key_defaults.get(k)) for k in ftype.keys}, sort_keys=True)
    if ftype.relation == "set":
        return json.dumps(item, sort_keys=True)
    return str(index)


@dataclass(frozen=True)
class Conflict:
    """A field an apply would take from ``manager`` (who wrote it at ``api_version``, through
    ``subresource``)."""

    manager: str
    operation: str
    api_version: str
    subresource: str
    path: Path

    @property
    def owner(self) -> str:
        """The owner as the message names it."""
        via = f' with subresource "{self.subresource}"' if self.subresource else ""
        version = "" if self.operation == "Apply" else f" using {self.api_version}"  # appliers are not by version
        return f'"{self.manager}"{via}{version}'

    @property
    def identity(self) -> str:
        """The order managers are listed in: by their identifier as kube-apiserver encodes it."""
        identity: dict[str, str] = {"manager": self.manager, "operation": self.operation}
        if self.operation != "Apply":
            identity["apiVersion"] = self.api_version
        if self.subresource:
            identity["subresource"] = self.subresource
        return json.dumps(identity, separators=(",", ":"))


def find_conflicts(managed: Sequence[Mapping[str, Any]] | None, live: Any, config: Any, ftype: FieldType, *,
                   manager: str, subresource: str = "", reset: FieldSet | None = None) -> list[Conflict]:
    """The conflicts of ``manager`` applying ``config`` to ``live``, in the message's order."""
    changes = compare(live, merge(live, config, ftype), ftype).changed()
    if reset:
        changes = changes.without_subtrees(reset)
    others = [e for e in decode_managed_fields(managed)
              if not (e.operation == "Apply" and e.manager == manager and e.subresource == subresource)]
    return conflicts_with(others, changes)


def conflicts_with(others: Sequence[ManagedEntry], taken: FieldSet) -> list[Conflict]:
    """The fields of ``taken`` that ``others`` own, in the message's order."""
    found: list[Conflict] = []
    for entry in others:
        for path in entry.fields.intersection(taken):
            found.append(Conflict(entry.manager, entry.operation, entry.api_version, entry.subresource, path))
    return sorted(found, key=lambda c: (c.identity, tuple(e.rank for e in c.path)))


def conflict_message(conflicts: Sequence[Conflict]) -> str:
    """The ``Status`` message of a refused apply."""
    if len(conflicts) == 1:
        only = conflicts[0]
        return f"Apply failed with 1 conflict: conflict with {only.owner}: {path_text(only.path)}"
    groups: dict[str, list[str]] = {}
    for conflict in conflicts:
        groups.setdefault(conflict.owner, []).append(path_text(conflict.path))
    parts = [f"conflicts with {owner}:\n" + "\n".join(f"- {p}" for p in paths) for owner, paths in groups.items()]
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(parts)


def conflict_causes(conflicts: Sequence[Conflict]) -> list[dict[str, str]]:
    """The ``Status`` details' causes: one ``FieldManagerConflict`` per field (kube-apiserver
    lists the managers in Go's map order, which varies; these come in the message's order)."""
    return [{"reason": "FieldManagerConflict", "message": f"conflict with {c.owner}", "field": path_text(c.path)}
            for c in conflicts]
