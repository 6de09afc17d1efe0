"""RoleBindings (``rbac.authorization.k8s.io/v1``): served by the generic strategy; the cells of
their Table rows (:func:`print_role_binding`), which ClusterRoleBindings share."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import Cells, age_of, name_of

__all__ = ["KIND", "print_role_binding"]

Obj = dict[str, Any]


def print_role_binding(obj: Obj, now: datetime) -> tuple[Cells, list[Obj]]:
    """ROLE ``kind/name``; USERS, GROUPS and SERVICEACCOUNTS (``namespace/name``) ", "-joined."""
    ref: Obj = obj.get("roleRef") or {}
    users, groups, accounts = [], [], []
    for subject in obj.get("subjects") or []:
        kind = subject.get("kind")
        if kind == "User":
            users.append(str(subject.get("name", "")))
        elif kind == "Group":
            groups.append(str(subject.get("name", "")))
        elif kind == "ServiceAccount":
            accounts.append(f"{subject.get('namespace', '')}/{subject.get('name', '')}")
    return [name_of(obj), f"{ref.get('kind', '')}/{ref.get('name', '')}", age_of(obj, now),
            ", ".join(users), ", ".join(groups), ", ".join(accounts)], []


KIND = KindRules(group="rbac.authorization.k8s.io", kind="RoleBinding", printer=print_role_binding)
"""The RoleBinding's declaration."""
