"""The ``authentication.k8s.io`` API group: two create-only reviews
(:mod:`~fake_apiserver._registry.reviews`)."""

from fake_apiserver._registry.authentication import selfsubjectreview, tokenreview

__all__ = ["DECLARATIONS"]

DECLARATIONS = (selfsubjectreview.KIND, tokenreview.KIND)
"""The declarations of the group's kinds."""
