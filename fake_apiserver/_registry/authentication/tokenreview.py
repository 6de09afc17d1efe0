"""TokenReviews (``authentication.k8s.io/v1``): a create-only review. The fake has no token
authenticator, so no token is authenticated: the answer's ``status`` is empty, which clients read
as "not authenticated" (:mod:`~fake_apiserver._registry.reviews`)."""

from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(group="authentication.k8s.io", kind="TokenReview", review=lambda body: {})
"""The TokenReview's declaration."""
