"""A fake kube-apiserver that real clients (kubectl, client-go, kube-scheduler) use unchanged.

The public API is this flat list; everything else lives in private modules.
"""

from fake_apiserver._clock import Clock, SystemClock
from fake_apiserver._effects import (
    Effect,
    EffectPredicate,
    binds,
    changes_condition,
    removes_condition,
    sets_condition,
    sets_field,
)
from fake_apiserver._errors import (
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
from fake_apiserver._faults import (
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
from fake_apiserver._features import FeatureGateError, FeatureGates
from fake_apiserver._http import Interceptor, RequestInfo
from fake_apiserver._journal import Journal, JournalEntry
from fake_apiserver._kinds import KINDS, KindSpec, ListStrategy, by_kind, by_resource
from fake_apiserver._proxy import FaultProxy, Upstream, upstream_from_kubeconfig
from fake_apiserver._server import FakeApiServer, kubeconfig_for
from fake_apiserver._store import DEFAULT_NAMESPACES, Store

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
