"""The core API group (``""``, served at ``/api/v1``): one module per kind with knowledge of its
own (rules, a Table's printer), and a package for the pod (:mod:`.pod`). What PersistentVolumes
and their claims share is :mod:`.volume`; ConfigMaps lend Secrets their key rule and the
``immutable`` flag's rule."""

from fake_apiserver._registry.core import (
    componentstatus,
    configmap,
    endpoints,
    event,
    limitrange,
    namespace,
    node,
    persistentvolume,
    persistentvolumeclaim,
    pod,
    podtemplate,
    replicationcontroller,
    resourcequota,
    secret,
    service,
    serviceaccount,
)
from fake_apiserver._registry.core.pod import binding

__all__ = ["DECLARATIONS"]

DECLARATIONS = (
    binding.KIND, componentstatus.KIND, configmap.KIND, endpoints.KIND, event.KIND, limitrange.KIND,
    namespace.KIND, node.KIND, persistentvolume.KIND, persistentvolumeclaim.KIND, pod.KIND, podtemplate.KIND,
    replicationcontroller.KIND, resourcequota.KIND, secret.KIND, service.KIND, serviceaccount.KIND,
)
"""The declarations of the group's kinds with knowledge of their own."""
