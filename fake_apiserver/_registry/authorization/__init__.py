"""The ``authorization.k8s.io`` API group: four create-only reviews, answered as the AlwaysAllow
authorizer answers them (:mod:`~fake_apiserver._registry.reviews`)."""

from fake_apiserver._registry.authorization import (
    localsubjectaccessreview,
    selfsubjectaccessreview,
    selfsubjectrulesreview,
    subjectaccessreview,
)

__all__ = ["DECLARATIONS"]

DECLARATIONS = (localsubjectaccessreview.KIND, selfsubjectaccessreview.KIND, selfsubjectrulesreview.KIND,
                subjectaccessreview.KIND)
"""The declarations of the group's kinds."""
