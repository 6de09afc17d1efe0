"""A fake kube-apiserver that real clients (kubectl, client-go, kube-scheduler) use unchanged.

The public API is this flat list; everything else lives in private modules.
"""

from fake_apiserver._machinery.clock import Clock, SystemClock
from fake_apiserver._storage.effects import (
    Effect,
    EffectPredicate,
    binds,
    changes_condition,
    removes_condition,
    sets_condition,
    sets_field,
)
from fake_apiserver._machinery.errors import (
    AlreadyExists,
    BadRequest,
    Conflict,
    Expired,
    FieldError,
    Forbidden,
    Gone,
    InternalError,
    Invalid,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    RequestEntityTooLarge,
    ServiceUnavailable,
    StatusError,
    Timeout,
    TooManyRequests,
    UnsupportedMediaType,
)
from fake_apiserver._server.faults import (
    CloseConnection,
    Delay,
    EndWatch,
    FaultInjector,
    FaultRule,
    Match,
    Respond,
    UnfiredFaults,
    WatchLag,
    body_contains,
)
from fake_apiserver._machinery.features import FeatureGateError, FeatureGates
from fake_apiserver._endpoints.request import Interceptor, RequestInfo
from fake_apiserver._server.journal import Journal, JournalEntry
from fake_apiserver._registry.kinds import KINDS, by_kind, by_resource
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.strategic import ListStrategy
from fake_apiserver._server.proxy import FaultProxy, Upstream, upstream_from_kubeconfig
from fake_apiserver._server.server import FakeApiServer, kubeconfig_for
from fake_apiserver._storage.store import DEFAULT_NAMESPACES, Store

__all__ = [
    "DEFAULT_NAMESPACES",
    "KINDS",
    "AlreadyExists",
    "BadRequest",
    "Clock",
    "CloseConnection",
    "Conflict",
    "Delay",
    "Effect",
    "EffectPredicate",
    "EndWatch",
    "Expired",
    "FakeApiServer",
    "FaultInjector",
    "FaultProxy",
    "FaultRule",
    "FeatureGateError",
    "FeatureGates",
    "FieldError",
    "Forbidden",
    "Gone",
    "Interceptor",
    "InternalError",
    "Invalid",
    "Journal",
    "JournalEntry",
    "KindSpec",
    "ListStrategy",
    "Match",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "RequestEntityTooLarge",
    "RequestInfo",
    "Respond",
    "ServiceUnavailable",
    "StatusError",
    "Store",
    "SystemClock",
    "Timeout",
    "TooManyRequests",
    "UnfiredFaults",
    "UnsupportedMediaType",
    "Upstream",
    "WatchLag",
    "binds",
    "body_contains",
    "by_kind",
    "by_resource",
    "changes_condition",
    "kubeconfig_for",
    "removes_condition",
    "sets_condition",
    "sets_field",
    "upstream_from_kubeconfig",
]
