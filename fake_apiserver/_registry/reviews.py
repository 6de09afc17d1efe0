"""The create-only review kinds: asked, answered, never stored.

``authentication.k8s.io`` and ``authorization.k8s.io`` serve kinds a client POSTs to ask a
question (``kubectl auth can-i`` posts a SelfSubjectAccessReview, ``kubectl auth whoami`` a
SelfSubjectReview); the answer is the posted object with its ``status`` filled, and nothing is
kept. The fake authorizes every request, as kube-apiserver with ``--authorization-mode=AlwaysAllow``
does, and answers as that authorizer would. What each review's status says is its declaration's
``review`` (``_registry/authorization/`` and ``_registry/authentication/``); this module answers
any of them.
"""

from __future__ import annotations

from typing import Any

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._registry.kinds import declaration

__all__ = ["answer_review", "is_review"]

Obj = dict[str, Any]


def is_review(group: str, kind: str) -> bool:
    """Whether ``kind`` is a review the fake answers without storing it."""
    return declaration(group, kind).review is not None


def answer_review(group: str, kind: str, body: Obj) -> Obj:
    """The answer to a review: ``body`` (decoded) with its status filled as the kind declares."""
    review = declaration(group, kind).review
    if review is None:
        raise KeyError((group, kind))
    answer = json_copy(body)
    answer.setdefault("metadata", {})
    answer["status"] = review(body)
    return answer
