"""The create-only review kinds: asked, answered, never stored.

``authentication.k8s.io`` and ``authorization.k8s.io`` serve kinds a client POSTs to ask a
question (``kubectl auth can-i`` posts a SelfSubjectAccessReview, ``kubectl auth whoami`` a
SelfSubjectReview); the answer is the posted object with its ``status`` filled, and nothing is
kept. The fake authorizes every request, as kube-apiserver with ``--authorization-mode=AlwaysAllow``
does, and answers as that authorizer would:

* SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview: ``allowed: true``;
* SelfSubjectRulesReview: every verb on every resource and non-resource URL, complete;
* SelfSubjectReview: the user every client is to the fake, ``system:admin`` in ``system:masters``
  and ``system:authenticated`` (the fake checks no credentials);
* TokenReview: the fake has no token authenticator, so no token is authenticated: an empty
  ``status``, which clients read as "not authenticated".
"""

from __future__ import annotations

from typing import Any, Callable

from fake_apiserver._machinery.jsonutil import json_copy

__all__ = ["ADMIN", "answer_review", "is_review"]

Obj = dict[str, Any]

ADMIN: Obj = {"username": "system:admin", "groups": ["system:masters", "system:authenticated"]}
"""Who every client is to the fake."""

_EVERYTHING: Obj = {
    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    "incomplete": False,
}

_ANSWERS: dict[tuple[str, str], Callable[[Obj], Obj]] = {
    ("authorization.k8s.io", "SubjectAccessReview"): lambda body: {"allowed": True},
    ("authorization.k8s.io", "LocalSubjectAccessReview"): lambda body: {"allowed": True},
    ("authorization.k8s.io", "SelfSubjectAccessReview"): lambda body: {"allowed": True},
    ("authorization.k8s.io", "SelfSubjectRulesReview"): lambda body: json_copy(_EVERYTHING),
    ("authentication.k8s.io", "SelfSubjectReview"): lambda body: {"userInfo": json_copy(ADMIN)},
    ("authentication.k8s.io", "TokenReview"): lambda body: {},
}


def is_review(group: str, kind: str) -> bool:
    """Whether ``kind`` is a review the fake answers without storing it."""
    return (group, kind) in _ANSWERS


def answer_review(group: str, kind: str, body: Obj) -> Obj:
    """The answer to a review: ``body`` (decoded) with its status filled as above."""
    answer = json_copy(body)
    answer.setdefault("metadata", {})
    answer["status"] = _ANSWERS[(group, kind)](body)
    return answer
