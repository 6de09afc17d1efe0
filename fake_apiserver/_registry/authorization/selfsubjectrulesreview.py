"""SelfSubjectRulesReviews (``authorization.k8s.io/v1``): a create-only review, answered as the
AlwaysAllow authorizer answers it: every verb on every resource and non-resource URL, complete
(:mod:`~fake_apiserver._registry.reviews`)."""

from typing import Any

from fake_apiserver._machinery.jsonutil import json_copy
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

_EVERYTHING: dict[str, Any] = {
    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
    "incomplete": False,
}

KIND = KindRules(group="authorization.k8s.io", kind="SelfSubjectRulesReview",
                 review=lambda body: json_copy(_EVERYTHING))
"""The SelfSubjectRulesReview's declaration."""
