"""Deterministic time, scheduler adapters, scenarios, the pytest plugin and reports.

The public API is this flat list; everything else lives in private sub-packages, one per concern
(``_time``, ``_backends``, ``_schedulers``, ``_scenario``, ``_plugin``, ``_criteria``, ``_runs``:
``docs/architecture.md`` draws them).
"""

from harness._backends.backend import (
    Backend,
    BackendError,
    EnvtestBackend,
    FakeBackend,
    KindBackend,
    KubeconfigBackend,
    Slack,
    Unsupported,
)
from harness._backends.kubelet import Kubelet
from harness._backends.scenario_client import ApiError
from harness._criteria.suite_registry import SuiteCollection
from harness._scenario.expectations import NotJudged, condition_of, format_condition, format_pod
from harness._scenario.scenario import DEFAULT_DEVICE_CLASS, Expectation, ExpectationFailed, Scenario
from harness._scenario.writes import Write, format_writes
from harness._scenario.yaml_scenarios import YamlScenario, YamlScenarioError, load_scenario
from harness._scenario.yaml_scenarios import run_scenario as run_yaml_scenario
from harness._schedulers.adapters import (
    AdapterError,
    CallableAdapter,
    ClusterSchedulerAdapter,
    ProcessAdapter,
    SchedulerAdapter,
    format_feature_gates,
    is_probe_request,
    parse_feature_gates,
    scheduler_name_for,
)
from harness._schedulers.reference import reference_adapter
from harness._time.virtual_time import (
    DEFAULT_EPOCH,
    Deadlock,
    RealClock,
    VirtualClock,
    VirtualEventLoop,
    run,
)

__all__ = [
    "DEFAULT_DEVICE_CLASS",
    "DEFAULT_EPOCH",
    "AdapterError",
    "ApiError",
    "Backend",
    "BackendError",
    "EnvtestBackend",
    "CallableAdapter",
    "ClusterSchedulerAdapter",
    "Deadlock",
    "Expectation",
    "ExpectationFailed",
    "FakeBackend",
    "KindBackend",
    "KubeconfigBackend",
    "Kubelet",
    "NotJudged",
    "ProcessAdapter",
    "RealClock",
    "Scenario",
    "Slack",
    "SchedulerAdapter",
    "SuiteCollection",
    "Unsupported",
    "VirtualClock",
    "VirtualEventLoop",
    "Write",
    "YamlScenario",
    "YamlScenarioError",
    "condition_of",
    "format_condition",
    "format_feature_gates",
    "format_pod",
    "format_writes",
    "is_probe_request",
    "load_scenario",
    "parse_feature_gates",
    "reference_adapter",
    "run",
    "scheduler_name_for",
    "run_yaml_scenario",
]
