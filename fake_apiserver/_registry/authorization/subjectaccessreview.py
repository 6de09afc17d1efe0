"""SubjectAccessReviews (``authorization.k8s.io/v1``): a create-only review, answered ``allowed: true``
as the AlwaysAllow authorizer answers it (:mod:`~fake_apiserver._registry.reviews`)."""

from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(group="authorization.k8s.io", kind="SubjectAccessReview", review=lambda body: {"allowed": True})
"""The SubjectAccessReview's declaration."""
