"""The ``storage.k8s.io`` API group: one module per kind with rules of its own. (PersistentVolumes
and their claims are the core group's.)"""

from fake_apiserver._registry.storage import (
    csidriver,
    csinode,
    csistoragecapacity,
    storageclass,
    volumeattachment,
    volumeattributesclass,
)

__all__ = ["DECLARATIONS"]

DECLARATIONS = (
    csidriver.KIND, csinode.KIND, csistoragecapacity.KIND, storageclass.KIND, volumeattachment.KIND,
    volumeattributesclass.KIND,
)
"""The declarations of the group's kinds with rules of their own."""
