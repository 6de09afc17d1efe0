"""What the naming and establishing controllers leave on a CRD's status (:func:`names_status`).

The naming controller's status is a pure function the store calls after a CRD is written or
another of its group deleted; the establishing controller's step is folded in (names accepted
means ``Established``, as a real server shows a moment later).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Iterable

from fake_apiserver._machinery.equality import semantic
from fake_apiserver._registry.fieldrules import get_in

__all__ = ["names_status", "set_condition"]

Obj = dict[str, Any]


def _claimed(crds: Iterable[Mapping[str, Any]], group: str) -> tuple[set[str], set[str]]:
    resources: set[str] = set()
    kinds: set[str] = set()
    for crd in crds:
        if get_in(crd, "spec", "group") != group:
            continue
        accepted = get_in(crd, "status", "acceptedNames") or {}
        resources.update(str(accepted.get(k) or "") for k in ("plural", "singular"))
        resources.update(accepted.get("shortNames") or [])
        kinds.update(str(accepted.get(k) or "") for k in ("kind", "listKind"))
    return resources, kinds


def _in_use(requested: str, accepted: str, used: set[str]) -> str | None:
    if requested == accepted or requested not in used:
        return None
    return f'"{requested}" is already in use'


def set_condition(conditions: list[Obj], condition: Obj, now: str) -> None:
    for existing in conditions:
        if existing.get("type") == condition["type"]:
            if existing.get("status") != condition["status"] or not existing.get("lastTransitionTime"):
                existing["lastTransitionTime"] = now
            existing.update(status=condition["status"], reason=condition["reason"], message=condition["message"])
            return
    conditions.append({"type": condition["type"], "status": condition["status"], "lastTransitionTime": now,
                       "reason": condition["reason"], "message": condition["message"]})


def names_status(crd: Mapping[str, Any], crds: Iterable[Mapping[str, Any]], now: str) -> Obj:
    """The status the naming controller, then the establishing controller, leave on ``crd``
    (returned new; ``crd`` is not changed), given the stored CRDs (``crd`` itself may be among
    them; those of other groups are ignored) and the time of the write.

    Each requested name is accepted unless another CRD of the group has accepted it (plural,
    singular and short names share one namespace, kind and list kind another). A conflict makes
    ``NamesAccepted`` False with the last conflicting name's reason (``PluralConflict``,
    ``SingularConflict``, ``ShortNamesConflict``, ``KindConflict``, ``ListKindConflict``) and
    ``Established`` False (``NotAccepted``) unless it was already True; otherwise both are True.
    Call it again for the other CRDs of a group when one is deleted: a freed name is then taken."""
    status: Obj = json.loads(json.dumps(crd.get("status") or {}))
    requested: Mapping[str, Any] = get_in(crd, "spec", "names") or {}
    accepted: Obj = dict(status.get("acceptedNames") or {"plural": "", "kind": ""})
    if semantic(dict(requested)) == semantic(accepted) and status.get("conditions"):
        return status
    name = get_in(crd, "metadata", "name")
    others = [c for c in crds if get_in(c, "metadata", "name") != name]
    resources, kinds = _claimed([*others, crd], str(get_in(crd, "spec", "group") or ""))
    new = dict(accepted)
    reason = message = ""

    def check(key: str, used: set[str], why: str) -> None:
        nonlocal reason, message
        problem = _in_use(str(requested.get(key) or ""), str(accepted.get(key) or ""), used)
        if problem:
            reason, message = why, problem
        else:
            new[key] = requested.get(key) or ""

    check("plural", resources, "PluralConflict")
    check("singular", resources, "SingularConflict")
    shorts = list(requested.get("shortNames") or [])
    if shorts != list(accepted.get("shortNames") or []):
        mine = set(accepted.get("shortNames") or [])
        problems = [p for s in shorts if s not in mine and (p := _in_use(s, "", resources))]
        if problems:
            reason = "ShortNamesConflict"
            message = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
        else:
            new["shortNames"] = shorts
    check("kind", kinds, "KindConflict")
    check("listKind", kinds, "ListKindConflict")
    new["categories"] = requested.get("categories")
    status["acceptedNames"] = _accepted_names_json(new)
    conditions: list[Obj] = list(status.get("conditions") or [])
    if reason:
        set_condition(conditions, {"type": "NamesAccepted", "status": "False", "reason": reason, "message": message}, now)
        if not any(c.get("type") == "Established" for c in conditions):
            set_condition(conditions, {"type": "Established", "status": "False", "reason": "NotAccepted",
                                        "message": "not all names are accepted"}, now)
    else:
        set_condition(conditions, {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                                    "message": "no conflicts found"}, now)
        set_condition(conditions, {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                                    "message": "the initial names have been accepted"}, now)
    status["conditions"] = conditions
    return status


def _accepted_names_json(names: Mapping[str, Any]) -> Obj:
    """``CustomResourceDefinitionNames`` as v1 marshals it: plural and kind always, the rest
    when set."""
    out: Obj = {"plural": names.get("plural") or ""}
    if names.get("singular"):
        out["singular"] = names["singular"]
    if names.get("shortNames"):
        out["shortNames"] = list(names["shortNames"])
    out["kind"] = names.get("kind") or ""
    if names.get("listKind"):
        out["listKind"] = names["listKind"]
    if names.get("categories"):
        out["categories"] = list(names["categories"])
    return out
