"""The ``apiextensions.k8s.io`` API group: CustomResourceDefinitions (:mod:`.customresourcedefinition`)
and the strategy every custom resource a CRD defines gets (:mod:`.customresource`), served by the
same generic store as a built-in kind, as ``apiextensions-apiserver`` serves them."""

from fake_apiserver._registry.apiextensions import customresourcedefinition

__all__ = ["DECLARATIONS"]

DECLARATIONS = (customresourcedefinition.KIND,)
"""The declarations of the group's kinds with rules of their own (custom resources get theirs from
their CRD: :class:`~fake_apiserver._registry.apiextensions.customresource.CustomResourceStrategy`)."""
