"""The ``certificates.k8s.io`` API group: its kinds have no rules of their own here, only the
field labels they are selected on and their Tables' printers."""

from fake_apiserver._registry.certificates import (
    certificatesigningrequest,
    clustertrustbundle,
    podcertificaterequest,
)

__all__ = ["DECLARATIONS"]

DECLARATIONS = (certificatesigningrequest.KIND, clustertrustbundle.KIND, podcertificaterequest.KIND)
"""The declarations of the group's kinds."""
