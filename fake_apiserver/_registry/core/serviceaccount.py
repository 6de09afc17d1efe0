"""ServiceAccounts (core/v1): served by the generic strategy; their Table is NAME and AGE
(:func:`~fake_apiserver._registry.printing.name_age`)."""

from fake_apiserver._registry.generic import KindRules
from fake_apiserver._registry.printing import name_age

__all__ = ["KIND"]

KIND = KindRules(group="", kind="ServiceAccount", printer=name_age)
"""The ServiceAccount's declaration."""
