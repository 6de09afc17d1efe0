"""The ``storagemigration.k8s.io`` API group: StorageVersionMigrations."""

from fake_apiserver._registry.storagemigration import storageversionmigration

__all__ = ["DECLARATIONS"]

DECLARATIONS = (storageversionmigration.KIND,)
"""The declarations of the group's kinds with knowledge of their own."""
