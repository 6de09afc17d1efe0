"""The public API is what ``__all__`` says, and nothing is exported by accident."""

from __future__ import annotations

import fake_apiserver
import harness


def test_fake_apiserver_exports() -> None:
    assert sorted(fake_apiserver.__all__) == [
        "AlreadyExists", "BadRequest", "Clock", "CloseConnection", "Conflict", "DEFAULT_NAMESPACES",
        "Delay", "Effect", "EffectPredicate", "EndWatch", "Expired", "FakeApiServer", "FaultInjector", "FaultProxy",
        "FaultRule", "FeatureGateError", "FeatureGates", "FieldError",
        "Forbidden", "Gone", "Interceptor", "InternalError", "Invalid", "Journal", "JournalEntry", "KINDS",
        "KUBERNETES_VERSION", "KindSpec", "ListStrategy", "Match", "MethodNotAllowed", "NotAcceptable", "NotFound",
        "RELEASES", "RequestEntityTooLarge", "RequestInfo", "Respond", "RuntimeConfigError", "ServiceUnavailable", "StatusError", "Store",
        "SystemClock", "Timeout", "TooManyRequests", "UnfiredFaults", "UnsupportedMediaType", "Upstream", "WatchLag",
        "binds", "body_contains", "built_in_kinds", "by_kind", "by_resource", "changes_condition", "condition_of", "is_quantity", "known_gates",
        "kubeconfig_for", "parse_quantity", "parse_runtime_config", "removes_condition", "runtime_config",
        "schema_source", "served_release",
        "sets_condition", "sets_field", "upstream_from_kubeconfig",
    ]
    for name in fake_apiserver.__all__:
        assert getattr(fake_apiserver, name) is not None


def test_harness_exports() -> None:
    assert sorted(harness.__all__) == [
        "AdapterError", "ApiError", "Backend", "BackendError", "CallableAdapter", "ClusterSchedulerAdapter",
        "DEFAULT_DEVICE_CLASS", "DEFAULT_EPOCH",
        "Deadlock", "EnvtestBackend", "Expectation", "ExpectationFailed", "FakeBackend", "KindBackend",
        "KubeconfigBackend", "Kubelet", "NotJudged", "ProcessAdapter", "RealClock", "Scenario", "SchedulerAdapter", "Slack",
        "SuiteCollection", "Unsupported", "VirtualClock",
        "VirtualEventLoop", "Write", "YamlScenario", "YamlScenarioError", "condition_of", "format_condition",
        "format_feature_gates", "format_pod", "format_writes", "is_probe_request",
        "load_scenario", "parse_feature_gates", "reference_adapter", "run", "run_yaml_scenario", "scheduler_name_for",
    ]
    for name in harness.__all__:
        assert getattr(harness, name) is not None
