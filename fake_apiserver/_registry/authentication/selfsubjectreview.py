"""SelfSubjectReviews (``authentication.k8s.io/v1``): a create-only review (``kubectl auth
whoami``), answered with the user every client is to the fake, which checks no credentials
(:mod:`~fake_apiserver._registry.reviews`)."""

from typing import Any

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._registry.generic import KindRules

__all__ = ["ADMIN", "KIND"]

ADMIN: dict[str, Any] = {"username": "system:admin", "groups": ["system:masters", "system:authenticated"]}
"""Who every client is to the fake."""

KIND = KindRules(group="authentication.k8s.io", kind="SelfSubjectReview",
                 review=lambda body: {"userInfo": json_copy(ADMIN)})
"""The SelfSubjectReview's declaration."""
