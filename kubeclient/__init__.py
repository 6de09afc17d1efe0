"""The project's Kubernetes client: asynchronous JSON requests, watches and an informer, over
aiohttp, on the event loop's clock.

The reference scheduler talks to its API server with it; it imports nothing of the project.
``_client`` holds :class:`KubeClient`, its errors (a ``Status`` kept whole, or no answer) and the
reading of a kubeconfig; ``_informer`` client-go's reflector.

The public API is this flat list; everything else lives in private modules.
"""

from kubeclient._client import (
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    ApiError,
    BadRequestError,
    ConflictError,
    ExpiredError,
    KubeClient,
    NotFoundError,
    TransportError,
    error_for,
    load_kubeconfig,
    resource_path,
)
from kubeclient._informer import Informer, object_key

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
