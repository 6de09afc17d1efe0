"""Deterministic time, scheduler adapters, scenarios, the pytest plugin and reports.

The public API is this flat list; everything else lives in private modules.
"""

from harness._adapters import (
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
from harness._backend import (
    Backend,
    BackendError,
    EnvtestBackend,
    FakeBackend,
    KindBackend,
    KubeconfigBackend,
    Slack,
    Unsupported,
)
from harness._expectations import NotJudged, condition_of, format_condition, format_pod
from harness._kubeclient import ApiError
from harness._reference import reference_adapter
from harness._kubelet import Kubelet
from harness._scenario import DEFAULT_DEVICE_CLASS, Expectation, ExpectationFailed, Scenario
from harness._suite_registry import SuiteCollection
from harness._virtual_time import (
    DEFAULT_EPOCH,
    Deadlock,
    RealClock,
    VirtualClock,
    VirtualEventLoop,
    run,
)
from harness._writes import Write, format_writes
from harness._yaml_scenarios import YamlScenario, YamlScenarioError, load_scenario
from harness._yaml_scenarios import run_scenario as run_yaml_scenario

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
