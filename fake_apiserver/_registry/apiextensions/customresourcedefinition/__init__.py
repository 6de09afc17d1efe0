"""CustomResourceDefinitions (``apiextensions.k8s.io/v1``): defaulting, validation on create and
update, the status the naming and establishing controllers write, and the cleanup finalizer.

The generic strategy serves a CRD's storage; what makes a CRD a CRD is here, one module per role.
Every message, field path and order was captured from kube-apiserver v1.37.2 (the
``test_crd_*.py`` modules of ``tests/fake_apiserver/_registry/apiextensions/`` keep them and replay
them against a real server).

* :mod:`.strategy`: defaults, the status a create and an update leave, the cleanup finalizer;
* :mod:`.validation`: the CRD's rules, which call :mod:`.schema` for each version's schema;
* :mod:`.internal`: the internal form the real server validates, and its Go renderings;
* :mod:`.naming`: the naming and establishing controllers' status;
* :mod:`.printer`: the cells of a CRD's row in a server-side Table.

What a CRD's custom objects go through is :mod:`~fake_apiserver._registry.apiextensions.customresource`.
This package's face is the CRD's declaration, :data:`KIND`.
"""

from fake_apiserver._registry.apiextensions.customresourcedefinition.printer import print_custom_resource_definition
from fake_apiserver._registry.apiextensions.customresourcedefinition.strategy import CustomResourceDefinitionStrategy
from fake_apiserver._registry.apiextensions.customresourcedefinition.validation import crd_errors, crd_update_errors
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(
    group="apiextensions.k8s.io", kind="CustomResourceDefinition",
    create=crd_errors, update=crd_update_errors, returns_deleted_object=True,
    strategy=lambda spec, options: CustomResourceDefinitionStrategy(spec),
    printer=print_custom_resource_definition)
"""The CRD's declaration; ``update`` is also what the strategy's ``validate_update`` runs alone
(the spec rules are in it, in the real order, so ``create`` is not run again on an update)."""
