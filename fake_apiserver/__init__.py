"""A fake kube-apiserver that real clients (kubectl, client-go, kube-scheduler) use unchanged.

The public API is this flat list; everything else lives in private sub-packages, one per layer
of kube-apiserver's own architecture, bottom first:

* ``_machinery``: API machinery, pure functions of values (quantities, Go time and YAML, names,
  selectors, the three patch types, decoding, schemas, field validation, errors).
* ``_registry``: what is true of each kind: the kind table, the generic strategy, and one module
  per kind with rules of its own (defaults, validation, admission, subresource rules).
* ``_storage``: the store, watch fan-out, effects, the subresources (eviction, a transaction
  across objects, among them) and the controllers the fake plays.
* ``_endpoints``: the HTTP edge: routing, request decoding, content negotiation, discovery,
  OpenAPI and Tables.
* ``_server``: what wraps the endpoints (fault rules, the request journal), running the fake, and
  the fault proxy.

The rules, which ``tests/test_architecture.py`` enforces:

* a layer imports only the layers below it (and modules of its own layer, without a circle);
* no import sits inside a function to dodge a circle; one kept there for another reason (an
  optional dependency) says why in a comment;
* no private name is imported across modules, nor read as ``module._name``.

``docs/architecture.md`` draws the layers and says where a new kind goes.
"""

from fake_apiserver._machinery.clock import Clock, SystemClock
from fake_apiserver._machinery.features import known_gates
from fake_apiserver._machinery.quantity import is_quantity
from fake_apiserver._machinery.quantity import parse as parse_quantity
from fake_apiserver._machinery.schema import KUBERNETES_VERSION, RELEASES
from fake_apiserver._machinery.schema import release as served_release
from fake_apiserver._machinery.schema import source as schema_source
from fake_apiserver._storage.effects import (
    Effect,
    EffectPredicate,
    binds,
    changes_condition,
    condition_of,
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
from fake_apiserver._machinery.runtimeconfig import RuntimeConfigError, parse_runtime_config
from fake_apiserver._endpoints.request import Interceptor, RequestInfo
from fake_apiserver._server.journal import Journal, JournalEntry
from fake_apiserver._registry.kinds import KINDS, built_in_kinds, by_kind, by_resource, runtime_config
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.strategic import ListStrategy
from fake_apiserver._server.proxy import FaultProxy, Upstream, upstream_from_kubeconfig
from fake_apiserver._server.server import FakeApiServer, kubeconfig_for
from fake_apiserver._storage.store import DEFAULT_NAMESPACES, Store

__all__ = [
    "KUBERNETES_VERSION",
    "RELEASES",
    "condition_of",
    "is_quantity",
    "known_gates",
    "parse_quantity",
    "parse_runtime_config",
    "runtime_config",
    "schema_source",
    "served_release",
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
    "RuntimeConfigError",
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
    "built_in_kinds",
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
