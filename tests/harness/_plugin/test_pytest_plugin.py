"""The pytest plugin, run through ``pytester``: fixtures, markers, options, gate skips, records
and journals, strictness, a real-time process adapter, and ``-n 2``; a test ended by
``NotJudged`` (a failure to plain pytest, "not judged" in its record, also from an xdist worker)
and real-time watches cut by ``--real-time-wait``."""

from __future__ import annotations

import inspect
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.schedulers import BIND_FIRST_NODE, first_fit_scheduler

pytest_plugins = ["pytester"]

CONFTEST = (
    "from __future__ import annotations\n"
    "from pathlib import Path\n"
    "from typing import Any\n"
    "import pytest\n"
    "from harness._schedulers.adapters import CallableAdapter\n\n"
    + inspect.getsource(first_fit_scheduler)
    + "\n\n@pytest.fixture\n"
    "def sh_adapter():\n"
    "    return CallableAdapter(first_fit_scheduler, name='first-fit')\n"
)

SCENARIOS = '''
import pytest
from fake_apiserver import FaultRule, Match, Respond

@pytest.mark.kep(3521, "Restricted state transition")
@pytest.mark.criterion("gates-never-bound", reading="a gated pod gets no scheduler patch")
async def test_gated(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("p", gates=["example.com/a"])
    await scenario.never(scenario.pod_bound("p"), within=30)
    scenario.expect_requests(0, verb="patch", resource="pods", subresource="status", name="p")

@pytest.mark.kep(5501, "Design Details")
@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True)
@pytest.mark.criterion("kep5501-fails-here")
async def test_fails(scenario):
    await scenario.create_pod("q", cpu="1")
    await scenario.eventually(scenario.pod_bound("q"), within=5)

@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=False)
async def test_gate_off(scenario):
    await scenario.advance(1)
'''


VIRTUAL_SLACK = {"early": 0.01, "late": 0.2,
                 "text": "a write may land 0.01 s before and 0.2 s after the time a criterion names"}


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_fixtures_are_made_on_the_tests_virtual_loop(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_fixtures='''
import asyncio
from pathlib import Path
from fake_apiserver import Journal
from harness import VirtualClock, VirtualEventLoop
from harness._schedulers.adapters import CallableAdapter
from harness._backends.backend import FakeBackend
from harness._scenario.scenario import Scenario

async def test_all(sh_backend, sh_clock, sh_journal, sh_scheduler, scenario, sh_workdir):
    assert isinstance(asyncio.get_running_loop(), VirtualEventLoop)
    assert isinstance(sh_backend, FakeBackend) and sh_backend.is_virtual
    assert isinstance(sh_clock, VirtualClock) and sh_clock is sh_backend.clock
    assert isinstance(sh_journal, Journal) and sh_journal is sh_backend.journal
    assert isinstance(sh_scheduler, CallableAdapter) and sh_scheduler.name == "first-fit"
    assert isinstance(scenario, Scenario) and scenario.backend is sh_backend
    assert sh_backend.kubeconfig_path == sh_workdir / "kubeconfig"
    await scenario.create_node("n1")
    await scenario.create_pod("p")
    await scenario.eventually(scenario.pod_bound("p"), within=1)
    await scenario.advance(3600)
    assert sh_clock.time() == 3600.0

async def test_backend_only_needs_no_scheduler(sh_backend):
    assert sh_backend.journal.requests() == []

def test_sync_test_cannot_use_loop_fixtures(sh_backend):
    pass

async def test_other_async_tests_are_left_alone():
    pass
''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([
        "*test_sync_test_cannot_use_loop_fixtures*",
        "*sh_backend live on the test's event loop: make the test 'async def'*",
    ])
    result.stdout.fnmatch_lines(["*_ test_other_async_tests_are_left_alone _*",
                                 "async def functions are not natively supported."])
    assert "schedharness replay" not in result.stdout.str()


def test_options_and_markers_are_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines([
        "schedharness: scheduler conformance scenarios:",
        "  --scheduler=ADAPTER*",
        "*--feature-gates=A=true,B=false*",
        "*--backend=NAME*",
        "*--report-dir=DIR*",
        "*--real-time-wait=SECONDS*",
        "*--scenario-seed=N*",
    ])
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines([
        "@pytest.mark.kep(number, section): the KEP and the section of it that the test checks",
        "@pytest.mark.feature_gates(**gates): feature gates the test needs*",
        "@pytest.mark.criterion(id, reading=None): *",
        "@pytest.mark.adapters(*names): the scheduler adapters the test applies to (others skip it)",
    ])


@pytest.mark.parametrize(("args", "message"), [
    (["--backend", "kube"], "ERROR: --backend kube: unknown backend; available: fake, kind, envtest, kubeconfig:PATH"),
    (["--backend", "kubeconfig:"],
     "ERROR: --backend kubeconfig:: unknown backend; available: fake, kind, envtest, kubeconfig:PATH"),
    (["--feature-gates", "A=yes"],
     "ERROR: --feature-gates: feature gate 'A=yes': write Name=true or Name=false, comma-separated"),
    (["--scheduler", "kube"],
     "ERROR: --scheduler kube: use 'reference', 'reference:<mutant>', 'cmd:<command template>', 'cluster' or 'none'"),
    (["--scheduler", "cluster"],
     "ERROR: --scheduler cluster tests a cluster's own scheduler: use --backend kind or kubeconfig:PATH "
     "(the fake backend has no scheduler)"),
    (["--scheduler", "cluster", "--backend", "envtest"],
     "ERROR: --scheduler cluster tests a cluster's own scheduler: use --backend kind or kubeconfig:PATH "
     "(the envtest backend has no scheduler)"),
    (["--backend", "kind", "-n", "2"],
     "ERROR: --backend kind runs one test at a time on one cluster (nodes are cluster-wide): drop -n"),
    (["--apiserver-feature-gates", "A"],
     "ERROR: --apiserver-feature-gates: feature gate 'A': write Name=true or Name=false, comma-separated"),
    (["--apiserver-feature-gates", "NoSuchGate=true"],
     "ERROR: --apiserver-feature-gates: the fake API server (Kubernetes v1.37.0) refuses them: unrecognized feature "
     "gate: NoSuchGate"),
    (["--feature-gates", "InPlacePodVerticalScaling=false"],
     "ERROR: --feature-gates: the fake API server (Kubernetes v1.37.0) takes the scheduler's gates it knows as its "
     "own and refuses them: cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true; "
     "give --apiserver-feature-gates to set its gates apart"),
    (["--apiserver-feature-gates", "A=true", "--backend", "kubeconfig:/x"],
     "ERROR: --apiserver-feature-gates sets the gates of an API server the run starts: with --backend kubeconfig:/x "
     "the cluster's own kube-apiserver has its gates already"),
    (["--real-time-wait", "0"], "ERROR: --real-time-wait 0: give a number of seconds above 0"),
    (["--real-time-wait=-1"], "ERROR: --real-time-wait -1: give a number of seconds above 0"),
    (["--real-time-wait", "nan"], "ERROR: --real-time-wait nan: give a number of seconds above 0"),
])
def test_bad_options_are_usage_errors(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.lines


def test_gates_conflicts_skip_and_gates_reach_the_scheduler(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_gates='''
import pytest

@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=True, SchedulerAsyncAPICalls=True)
async def test_needs_on(sh_scheduler):
    assert sh_scheduler.feature_gates == {"SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True,
                                          "Other": False}

@pytest.mark.feature_gates(SchedulerPreEnqueuePodStatus=False)
async def test_needs_off(sh_scheduler):
    pass

async def test_no_gates(sh_scheduler):
    assert sh_scheduler.feature_gates == {"SchedulerPreEnqueuePodStatus": True, "Other": False}
''')
    result = pytester.runpytest("--feature-gates", "SchedulerPreEnqueuePodStatus=true,Other=false", "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines([
        "SKIPPED [[]1[]] test_gates.py:*: needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets "
        "SchedulerPreEnqueuePodStatus=true (--feature-gates)"])


APISERVER_GATES = '''
import pytest

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "spec": {"podPreemptionPolicy": {"disableResizePreemption": ["example.com/a"]}}}

@pytest.mark.feature_gates(InPlacePodVerticalScalingSchedulerPreemption=True, SchedulerPreEnqueuePodStatus=True)
async def test_on(sh_backend, sh_scheduler):
    server = sh_backend.server
    print("GATES", sorted(server.feature_gates.overrides.items()))
    node = server.store.create(server.store.kinds[[k.resource for k in server.store.kinds].index("nodes")], None, NODE)
    print("STORED", node["spec"].get("podPreemptionPolicy"))

async def test_none(sh_backend, sh_scheduler):
    print("GATES", sorted(sh_backend.server.feature_gates.overrides.items()))
'''


def test_the_fake_api_server_takes_the_scenarios_known_gates_unless_given(pytester: pytest.Pytester) -> None:
    """Without --apiserver-feature-gates each test's fake API server has the scheduler gates its
    release registers (not SchedulerPreEnqueuePodStatus, which none does), so KEP-5836's Node
    field is stored; with it, every test's has those instead, and the field is dropped."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_apiserver=APISERVER_GATES)
    result = pytester.runpytest("-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*GATES [[]('InPlacePodVerticalScalingSchedulerPreemption', True)[]]",
                                 "STORED {'disableResizePreemption': ['example.com/a']}", "*GATES [[][]]"])
    result = pytester.runpytest("-s", "--apiserver-feature-gates", "InPlacePodVerticalScalingSchedulerPreemption=false")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*GATES [[]('InPlacePodVerticalScalingSchedulerPreemption', False)[]]",
                                 "STORED None",
                                 "*GATES [[]('InPlacePodVerticalScalingSchedulerPreemption', False)[]]"])


def test_a_markers_gates_the_fake_refuses_fail_the_test_saying_why(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_refused='''
import pytest

@pytest.mark.feature_gates(InPlacePodVerticalScaling=False)
async def test_locked(sh_backend):
    pass
''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E *harness._backends.backend.BackendError: the fake API server (Kubernetes v1.37.0) refuses the feature gates "
        "InPlacePodVerticalScaling=false: cannot set feature gate InPlacePodVerticalScaling to false, feature is "
        "locked to true"])


def test_no_scheduler_and_adapters_marker_skip_with_reasons(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_skips='''
import pytest

async def test_needs_scheduler(scenario):
    pass

async def test_api_only(sh_backend, sh_journal):
    pass
''')
    result = pytester.runpytest("-rs", "--scheduler", "none")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "SKIPPED [[]1[]] *: needs a scheduler: this run has --scheduler none"])
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_skips='''
import pytest

@pytest.mark.adapters("reference", "kind")
async def test_reference_only(scenario):
    pass

@pytest.mark.adapters("first-fit")
async def test_first_fit(scenario):
    pass
''')
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] *: applies to adapters reference, kind; this run uses first-fit"])


def test_results_and_journals_in_the_report_dir(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=SCENARIOS)
    report = pytester.path / "report"
    result = pytester.runpytest("--report-dir", str(report), "--feature-gates", "SchedulerPreEnqueuePodStatus=true")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*- schedharness replay -*",
        f"seed 0; replay: cd {pytester.path} && {shlex.quote(sys.executable)} -m pytest test_suite.py::test_fails --scheduler=reference "
        "--backend=fake --scenario-seed=0 --feature-gates=SchedulerPreEnqueuePodStatus=true",
    ])
    got = records(report / "results.jsonl")
    for record in got:
        wall = record.pop("wall_seconds")
        assert wall is None if record["status"] == "skipped" else isinstance(wall, float)
    failure = got[0].pop("message")
    assert failure.startswith("harness._scenario.expectations.ExpectationFailed: expected within 5 s (t=0.000..5.000): "
                              "pod default/q is bound to a node\nobserved at t=5.000: pod default/q: not bound")
    assert got == [
        {"id": "test_suite.py::test_fails", "criterion": "kep5501-fails-here", "kep": 5501, "section": "Design Details",
         "gates": {"SchedulerPreEnqueuePodStatus": True}, "reading": None, "control": None, "status": "failed",
         "scheduler": "reference", "adapter": "first-fit", "seed": 0, "virtual_seconds": 5.0,
         "journal": "test_suite.py_test_fails/journal.jsonl", "timeline": "test_suite.py_test_fails/timeline.svg",
         "slack": VIRTUAL_SLACK, "waits": None, "server_version": "v1.37.0-schedharness",
         "apiserver_feature_gates": {}, "apiserver_runtime_config": {},
         "replay": f"seed 0; replay: cd {pytester.path} && {shlex.quote(sys.executable)} -m pytest test_suite.py::test_fails "
                   "--scheduler=reference --backend=fake --scenario-seed=0 --feature-gates=SchedulerPreEnqueuePodStatus=true"},
        {"id": "test_suite.py::test_gate_off", "criterion": None, "kep": None, "section": None,
         "gates": {"SchedulerPreEnqueuePodStatus": True}, "reading": None, "control": None, "status": "skipped",
         "message": "needs feature gate SchedulerPreEnqueuePodStatus=false; this run sets "
                    "SchedulerPreEnqueuePodStatus=true (--feature-gates)",
         "scheduler": "reference", "adapter": None, "seed": 0, "virtual_seconds": None, "journal": None, "timeline": None,
         "slack": None, "waits": None, "server_version": None, "apiserver_feature_gates": None,
         "apiserver_runtime_config": None},
        {"id": "test_suite.py::test_gated", "criterion": "gates-never-bound", "kep": 3521,
         "section": "Restricted state transition", "gates": {"SchedulerPreEnqueuePodStatus": True},
         "reading": "a gated pod gets no scheduler patch", "control": None, "status": "passed", "message": "",
         "scheduler": "reference",
         "adapter": "first-fit", "seed": 0, "virtual_seconds": 30.0, "journal": "test_suite.py_test_gated/journal.jsonl",
         "timeline": "test_suite.py_test_gated/timeline.svg", "slack": VIRTUAL_SLACK, "waits": None,
         "server_version": "v1.37.0-schedharness", "apiserver_feature_gates": {}, "apiserver_runtime_config": {}},
    ]
    journal = (report / "test_suite.py_test_gated" / "journal.jsonl").read_text().splitlines()
    assert json.loads(journal[0])["type"] == "request"
    assert any('"path":"/api/v1/namespaces/default/pods"' in line and '"verb":"create"' in line for line in journal)
    svg = (report / "test_suite.py_test_gated" / "timeline.svg").read_text()
    assert svg.startswith("<?xml") and ">test_suite.py::test_gated</text>" in svg and ">p</text>" in svg
    log = (report / "test_suite.py_test_fails" / "scheduler.log").read_text()
    assert log == ""  # the scaffolding scheduler logs bindings only, and q never fit
    assert sorted(p.name for p in report.iterdir()) == [  # skipped at collection: no directory
        "results.jsonl", "test_suite.py_test_fails", "test_suite.py_test_gated"]


def test_replaying_a_failure_gives_the_same_journal(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=SCENARIOS)
    journals = []
    for attempt in ("a", "b"):
        report = pytester.path / attempt
        result = pytester.runpytest("test_suite.py::test_fails", "--report-dir", str(report), "--scenario-seed", "7")
        result.assert_outcomes(failed=1)
        assert records(report / "results.jsonl")[0]["replay"].endswith(
            "python -m pytest test_suite.py::test_fails --scheduler=reference --backend=fake --scenario-seed=7")
        journals.append((report / "test_suite.py_test_fails" / "journal.jsonl").read_text())
    assert journals[0] == journals[1]
    assert '"subresource":"status"' in journals[0] and '"name":"q"' in journals[0]


def test_unfired_fault_and_crashed_scheduler_fail_a_passing_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST + '''

async def crashing(kubeconfig_path, feature_gates):
    raise RuntimeError("lost my informer")
''')
    pytester.makepyfile(test_strict='''
import pytest
from fake_apiserver import FaultRule, Match, Respond
from harness._schedulers.adapters import CallableAdapter
from conftest import crashing

async def test_unfired(scenario):
    await scenario.add_fault(FaultRule(Match(verb="delete", resource="nodes"), Respond(500), name="unused"))

@pytest.fixture
def crash_adapter():
    return CallableAdapter(crashing, name="crashing")

@pytest.mark.usefixtures("crash_adapter")
class TestCrash:
    @pytest.fixture
    def sh_adapter(self, crash_adapter):
        return crash_adapter

    async def test_crash(self, scenario):
        await scenario.advance(1)
''')
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "E * fake_apiserver._server.faults.UnfiredFaults: fault rules that never fired (the scenario did not exercise them):",
        "E *   unused: Respond(500, None, None, None) on verb=delete resource=nodes",
    ])
    result.stdout.fnmatch_lines([
        "E * harness._schedulers.adapters.AdapterError: scheduler crashing crashed during the scenario: RuntimeError: "
        "lost my informer"])


def test_yaml_scenarios_as_parameters_carry_their_marks(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    scenarios = pytester.mkdir("scenarios")
    (scenarios / "bound.yaml").write_text(
        "kep: {number: 3521, section: Summary}\ncriterion: yaml-bound\nreading: any node will do\n"
        "ops:\n- {op: createNodes}\n- {op: createPods, namePrefix: p-}\n- {op: barrier, podPrefix: p-, within: 1s}\n")
    (scenarios / "gate-off.yaml").write_text("featureGates: {SchedulerPreEnqueuePodStatus: false}\nops: []\n")
    pytester.makepyfile(test_yaml='''
import pytest
from pathlib import Path
from harness._scenario.yaml_scenarios import run_scenario
from harness.pytest_plugin import yaml_scenario_params

@pytest.mark.parametrize("yaml_scenario", yaml_scenario_params(Path(__file__).parent / "scenarios"))
async def test_yaml(scenario, yaml_scenario):
    await run_scenario(yaml_scenario, scenario)
''')
    report = pytester.path / "report"
    result = pytester.runpytest("--feature-gates=SchedulerPreEnqueuePodStatus=true", "--report-dir", str(report))
    result.assert_outcomes(passed=1, skipped=1)
    got = {r["id"]: (r["status"], r["kep"], r["section"], r["criterion"], r["reading"])
           for r in records(report / "results.jsonl")}
    assert got == {"test_yaml.py::test_yaml[bound]": ("passed", 3521, "Summary", "yaml-bound", "any node will do"),
                   "test_yaml.py::test_yaml[gate-off]": ("skipped", None, None, None, None)}


YAML_BOUND = ("kep: {number: 3521, section: Summary}\ncriterion: yaml-bound\nreading: any node will do\n"
              "ops:\n- {op: createNodes}\n- {op: createPods, namePrefix: p-}\n- {op: barrier, podPrefix: p-, within: 1s}\n")


def yaml_scenarios(pytester: pytest.Pytester) -> Path:
    """scenarios/: two YAML scenarios, one that fails, a manifest that is no scenario, and a Python test."""
    pytester.makeconftest(CONFTEST)
    scenarios = pytester.mkdir("scenarios")
    (scenarios / "bound.yaml").write_text(YAML_BOUND)
    (scenarios / "gate-off.yml").write_text("featureGates: {SchedulerPreEnqueuePodStatus: false}\nops: []\n")
    (scenarios / "fails.yaml").write_text("ops:\n- {op: createPods, namePrefix: q-}\n- {op: barrier, podPrefix: q-, within: 2s}\n")
    (scenarios / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n")
    (scenarios / "test_plain.py").write_text("def test_plain():\n    pass\n")
    return scenarios


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_yaml_scenario_files_named_on_the_command_line_are_tests(pytester: pytest.Pytester, xdist: list[str]) -> None:
    """Each YAML file named is one test, ``<file>::<stem>``, with its file's marks; a directory's
    other YAML files (a manifest) are left alone; a failure's replay line names the file."""
    yaml_scenarios(pytester)
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess(
        "scenarios", "scenarios/bound.yaml", "scenarios/gate-off.yml", "scenarios/fails.yaml", *xdist,
        "--feature-gates=SchedulerPreEnqueuePodStatus=true", "--report-dir", str(report), "--no-timeline")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    got = {r["id"]: (r["status"], r["kep"], r["section"], r["criterion"], r["reading"], r["journal"])
           for r in records(report / "results.jsonl")}
    assert got == {
        "scenarios/bound.yaml::bound": ("passed", 3521, "Summary", "yaml-bound", "any node will do",
                                        "scenarios_bound.yaml_bound/journal.jsonl"),
        "scenarios/fails.yaml::fails": ("failed", None, None, None, None, "scenarios_fails.yaml_fails/journal.jsonl"),
        "scenarios/gate-off.yml::gate-off": ("skipped", None, None, None, None, None),
        "scenarios/test_plain.py::test_plain": ("passed", None, None, None, None, None),
    }
    failed = next(r for r in records(report / "results.jsonl") if r["status"] == "failed")
    assert failed["message"].startswith("harness._scenario.expectations.ExpectationFailed: fails.yaml: ops[1] barrier: ")
    assert failed["replay"] == (
        f"seed 0; replay: cd {pytester.path} && {shlex.quote(sys.executable)} -m pytest scenarios/fails.yaml::fails "
        "--scheduler=reference --backend=fake --scenario-seed=0 --feature-gates=SchedulerPreEnqueuePodStatus=true")
    again = pytester.runpytest_subprocess("scenarios/fails.yaml::fails", "--report-dir", str(pytester.path / "again"))
    again.assert_outcomes(failed=1)
    assert ((pytester.path / "again" / "scenarios_fails.yaml_fails" / "journal.jsonl").read_bytes()
            == (report / "scenarios_fails.yaml_fails" / "journal.jsonl").read_bytes())


def test_yaml_files_in_a_directory_are_not_collected_unless_named(pytester: pytest.Pytester) -> None:
    yaml_scenarios(pytester)
    result = pytester.runpytest("scenarios", "--collect-only", "-q")
    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == ["scenarios/test_plain.py::test_plain"]


def test_a_yaml_scenario_named_under_a_directory_pytest_skips_is_reached_alone(pytester: pytest.Pytester) -> None:
    """``build/`` is in pytest's ``norecursedirs``: walking ``scenarios`` skips it, yet the YAML
    file named there is collected, and nothing else in it is."""
    scenarios = yaml_scenarios(pytester)
    (scenarios / "build" / "deeper").mkdir(parents=True)
    (scenarios / "build" / "deeper" / "late.yaml").write_text(YAML_BOUND)
    (scenarios / "build" / "other.yaml").write_text(YAML_BOUND)
    (scenarios / "build" / "test_skipped.py").write_text("def test_skipped():\n    raise AssertionError\n")
    result = pytester.runpytest("scenarios", "scenarios/build/deeper/late.yaml", "--collect-only", "-q")
    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == [
        "scenarios/build/deeper/late.yaml::late", "scenarios/test_plain.py::test_plain"]


def test_a_yaml_scenario_that_does_not_load_is_one_collection_error(pytester: pytest.Pytester) -> None:
    yaml_scenarios(pytester)
    (pytester.path / "scenarios" / "bad.yaml").write_text("ops:\n- {op: createNodez}\n")
    result = pytester.runpytest_subprocess("scenarios/bad.yaml", "scenarios/bound.yaml")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([
        "*_ ERROR collecting scenarios/bad.yaml _*",
        "bad.yaml: line 2: ops[0]: unknown op 'createNodez'; known ops: addFault, barrier, createClaims, createNodes, "
        "createObjects, createPods, delete, expectCondition, expectField, expectRequests, patch, removeFault, "
        "removeGates, sleep",
        "*Interrupted: 1 error during collection*",
    ])
    assert "Traceback" not in result.stdout.str()


def test_external_process_scheduler_runs_on_a_real_loop(pytester: pytest.Pytester) -> None:
    script = pytester.path / "bind_first_node.py"
    script.write_text(BIND_FIRST_NODE)
    pytester.makepyfile(test_process='''
import asyncio
from harness import VirtualEventLoop

async def test_bound(scenario, sh_scheduler, sh_backend):
    assert not isinstance(asyncio.get_running_loop(), VirtualEventLoop)
    assert sh_backend.is_virtual is False
    assert sh_scheduler.name == "cmd"
    await scenario.create_node("n1")
    await scenario.create_pod("p")
    await scenario.eventually(scenario.pod_bound("p"), within=20)
''')
    template = shlex.join([sys.executable, str(script), "--kubeconfig={kubeconfig}", "--feature-gates={feature_gates}"])
    report = pytester.path / "report"
    result = pytester.runpytest(f"--scheduler=cmd:{template}", "--feature-gates=A=true", "--report-dir", str(report))
    result.assert_outcomes(passed=1)
    [record] = records(report / "results.jsonl")
    assert (record["status"], record["adapter"], record["virtual_seconds"]) == ("passed", "cmd", None)
    assert record["slack"] == {"early": 0.05, "late": 2.0,
                               "text": "a write may land 0.05 s before and 2 s after the time a criterion names"}
    log = (report / "test_process.py_test_bound" / "scheduler.log").read_text().splitlines()
    assert log[0] == "feature gates: A=true"
    assert "bound default/p to n1" in log


def test_a_test_that_starts_a_process_adapter_itself_runs_on_a_real_loop(pytester: pytest.Pytester) -> None:
    """A test taking only ``sh_adapter`` (it starts the scheduler itself, as the gate-dependency
    criterion does) gets a real loop for a process: a virtual one would jump past the process."""
    pytester.makepyfile(test_own_start="""
import asyncio
import pytest
from harness import AdapterError, VirtualEventLoop

async def test_refused(sh_adapter, sh_backend):
    assert not isinstance(asyncio.get_running_loop(), VirtualEventLoop)
    with pytest.raises(AdapterError, match=r"exited with code 3 before it was ready"):
        await sh_adapter.start(sh_backend.kubeconfig_path, {"A": True})
    assert sh_adapter.early_exit == 3
    assert "refused A=true" in sh_adapter.log_text()
""")
    exits = shlex.join([sys.executable, "-c", "import sys; print('refused', sys.argv[1]); sys.exit(3)", "{feature_gates}"])
    result = pytester.runpytest(f"--scheduler=cmd:{exits}")
    result.assert_outcomes(passed=1)


def test_under_xdist_each_worker_has_its_servers_and_results_merge(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_many='''
import pytest

@pytest.mark.parametrize("i", range(6))
@pytest.mark.kep(3521, "Restricted state transition")
async def test_bound(scenario, i):
    await scenario.create_node("n1")
    await scenario.create_pod(f"p{i}")
    await scenario.eventually(scenario.pod_bound(f"p{i}"), within=1)
    await scenario.advance(i)
''')
    report = pytester.path / "report"
    (report).mkdir()
    (report / "results-gw9.jsonl").write_text('{"id": "stale"}\n')
    result = pytester.runpytest_subprocess("-n", "2", "--report-dir", str(report), "--no-timeline")
    result.assert_outcomes(passed=6)
    got = records(report / "results.jsonl")
    assert [(r["id"], r["status"], r["virtual_seconds"]) for r in got] == [
        (f"test_many.py::test_bound[{i}]", "passed", float(i)) for i in range(6)]
    assert sorted(p.name for p in report.glob("results*")) == ["results.jsonl"]
    assert list(report.glob("*/timeline.svg")) == []
    for i in range(6):
        journal = (report / f"test_many.py_test_bound[{i}]" / "journal.jsonl").read_text()
        assert f'"name":"p{i}"' in journal


# ------------------------------------------------------------------ not judged


NOT_JUDGED_SCENARIOS = '''
import pytest
from harness import NotJudged

@pytest.mark.kep(3521, "Restricted state transition")
@pytest.mark.criterion("alive-needed")
async def test_unjudged(scenario):
    await scenario.create_node("n1")
    raise NotJudged("the scheduler must bind default/alive: it never did")

async def test_binds(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("p")
    await scenario.eventually(scenario.pod_bound("p"), within=5)
'''


def test_a_not_judged_test_fails_for_a_plain_pytest_user_never_skips(pytester: pytest.Pytester) -> None:
    """pytest knows passed, failed and skipped: NotJudged is a failure there (exit 1), with its
    message and the replay line, never a skip; the record says "not judged"."""
    pytester.makepyfile(test_nj=NOT_JUDGED_SCENARIOS)
    report = pytester.path / "report"
    result = pytester.runpytest("-rfs", "--report-dir", str(report), "--no-timeline")
    result.assert_outcomes(passed=1, failed=1, skipped=0)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    replay = (f"seed 0; replay: cd {pytester.path} && {shlex.quote(sys.executable)} -m pytest "
              "test_nj.py::test_unjudged --scheduler=reference --backend=fake --scenario-seed=0")
    result.stdout.fnmatch_lines([
        "E       harness._scenario.expectations.NotJudged: the scheduler must bind default/alive: it never did",
        "*- schedharness replay -*",
        replay,
        "FAILED test_nj.py::test_unjudged - harness._scenario.expectations.NotJudged: *",
    ])
    assert "SKIPPED" not in result.stdout.str()
    got = {r["id"]: r for r in records(report / "results.jsonl")}
    unjudged = got["test_nj.py::test_unjudged"]
    assert (unjudged["criterion"], unjudged["status"], unjudged["message"], unjudged["replay"]) == (
        "alive-needed", "not judged", "the scheduler must bind default/alive: it never did", replay)
    assert (got["test_nj.py::test_binds"]["status"], "replay" in got["test_nj.py::test_binds"]) == ("passed", False)


def test_under_xdist_not_judged_crosses_from_the_worker(pytester: pytest.Pytester) -> None:
    """The worker marks the report; the controller receives it with the mark (what ``schedharness
    run``'s progress line reads), and the worker's record says "not judged"."""
    pytester.makeconftest('''
CONTROLLER = []

def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # not PYTEST_XDIST_WORKER: an outer xdist run sets it too
        CONTROLLER.append(config.rootpath)

def pytest_runtest_logreport(report):
    if report.when == "call" and CONTROLLER:
        with open(CONTROLLER[0] / "controller.txt", "a") as out:
            out.write(f"{report.nodeid} {report.outcome} {getattr(report, 'not_judged', None)}\\n")
''')
    pytester.makepyfile(test_nj=NOT_JUDGED_SCENARIOS)
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess("-n", "2", "--report-dir", str(report), "--no-timeline")
    result.assert_outcomes(passed=1, failed=1)
    assert sorted((pytester.path / "controller.txt").read_text().splitlines()) == [
        "test_nj.py::test_binds passed None",
        "test_nj.py::test_unjudged failed the scheduler must bind default/alive: it never did"]
    got = records(report / "results.jsonl")
    assert [(r["id"], r["status"], r["message"]) for r in got] == [
        ("test_nj.py::test_binds", "passed", ""),
        ("test_nj.py::test_unjudged", "not judged", "the scheduler must bind default/alive: it never did")]


def test_real_time_cuts_a_watch_and_a_whole_one_is_not_judged(pytester: pytest.Pytester) -> None:
    """With a scheduler process (real time) and ``--real-time-wait 0.5``: a 60 s watch is cut to
    0.5 s and the record says so; one that must be whole is not judged, its replay keeping the
    wait. No watch is waited out: the test only asks how long it would be."""
    script = pytester.path / "bind_first_node.py"
    script.write_text(BIND_FIRST_NODE)
    pytester.makepyfile(test_waits='''
async def test_cut(scenario):
    assert scenario.span(60) == 0.5
    assert scenario.span(0.25) == 0.25
    assert scenario.span(90) == 0.5

async def test_whole(scenario):
    scenario.span(60, whole="the event comes only at its end")
''')
    template = shlex.join([sys.executable, str(script), "--kubeconfig={kubeconfig}", "--feature-gates={feature_gates}"])
    report = pytester.path / "report"
    result = pytester.runpytest(f"--scheduler=cmd:{template}", "--real-time-wait=0.5", "--report-dir", str(report),
                                "--no-timeline")
    result.assert_outcomes(passed=1, failed=1)
    cut, whole = records(report / "results.jsonl")
    assert (cut["id"], cut["status"], cut["waits"]) == (
        "test_waits.py::test_cut", "passed", "real-time watches cut by --real-time-wait: 60 s as 0.5 s, 90 s as 0.5 s")
    assert (whole["id"], whole["status"], whole["waits"]) == ("test_waits.py::test_whole", "not judged", None)
    assert whole["message"] == ("needs a 60 s watch on real time (the event comes only at its end), and this run's "
                                "real-time wait is 0.5 s: give --real-time-wait 60 to judge it")
    assert whole["replay"] == (f"seed 0; replay: cd {pytester.path} && {shlex.quote(sys.executable)} -m pytest "
                               f"test_waits.py::test_whole {shlex.quote('--scheduler=cmd:' + template)} "
                               "--backend=fake --scenario-seed=0 --real-time-wait=0.5")


def test_a_scheduler_that_crashed_fails_a_criterion_it_left_unjudged(pytester: pytest.Pytester) -> None:
    """The crash is the verdict: a criterion that ended not judged because the scheduler died
    under it is failed with the crash (its NotJudged the cause), not "not judged"."""
    pytester.makeconftest(CONFTEST + '''

async def crashing(kubeconfig_path, feature_gates):
    raise RuntimeError("lost my informer")
''')
    pytester.makepyfile(test_crash='''
import pytest
from harness import NotJudged
from harness._schedulers.adapters import CallableAdapter
from conftest import crashing

async def test_alive(scenario):
    raise NotJudged("the scheduler must bind default/alive: it never did")

class TestCrash:
    @pytest.fixture
    def sh_adapter(self):
        return CallableAdapter(crashing, name="crashing")

    async def test_crash(self, scenario):
        await scenario.advance(1)
        raise NotJudged("the scheduler must bind default/alive: it never did")
''')
    report = pytester.path / "report"
    result = pytester.runpytest("--report-dir", str(report), "--no-timeline")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "E * harness._scenario.expectations.NotJudged: the scheduler must bind default/alive: it never did",
        "The above exception was the direct cause of the following exception:",
        "E * harness._schedulers.adapters.AdapterError: scheduler crashing crashed during the scenario: RuntimeError: "
        "lost my informer"])
    got = {r["id"]: (r["status"], r["message"]) for r in records(report / "results.jsonl")}
    assert got == {
        "test_crash.py::test_alive": ("not judged", "the scheduler must bind default/alive: it never did"),
        "test_crash.py::TestCrash::test_crash": (
            "failed", "harness._schedulers.adapters.AdapterError: scheduler crashing crashed during the scenario: RuntimeError: "
                      "lost my informer")}
