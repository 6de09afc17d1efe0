"""The project's one Kubernetes client: asynchronous JSON requests, watches and an informer, over
aiohttp, on the event loop's clock.

The reference scheduler talks to its API server with it, and so does the harness (its scenarios,
its kubelet stand-in, a real cluster's set-up); it imports nothing of the project, so both can.
``_client`` holds :class:`KubeClient`, ``_errors`` the errors (a ``Status`` kept whole, or no
answer), ``_kubeconfig`` the reading of a kubeconfig, ``_informer`` client-go's reflector.

The public API is this flat list; everything else lives in private modules.
"""

from kubeclient._client import JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, KubeClient, resource_path
from kubeclient._errors import (
    ApiError,
    BadRequestError,
    ConflictError,
    ExpiredError,
    NotFoundError,
    TransportError,
    error_for,
)
from kubeclient._informer import Informer, object_key
from kubeclient._kubeconfig import load_kubeconfig

__all__ = [
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "ApiError",
    "BadRequestError",
    "ConflictError",
    "ExpiredError",
    "Informer",
    "KubeClient",
    "NotFoundError",
    "TransportError",
    "error_for",
    "load_kubeconfig",
    "object_key",
    "resource_path",
]
