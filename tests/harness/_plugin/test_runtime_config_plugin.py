"""The plugin's ``--runtime-config`` and ``runtime_config`` marker, run through ``pytester``: what
each scenario's fake API server serves, the usage errors, the skips, the records and the replay
line."""

from __future__ import annotations

import inspect
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.support.schedulers import first_fit_scheduler

pytest_plugins = ["pytester"]

# a scheduler that takes any gate (the reference scheduler knows no GenericWorkload yet)
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

PODGROUPS = '''
import pytest
from harness import ApiError
from harness._backends.scenario_client import ScenarioClient

GROUP = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"},
         "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}

@pytest.mark.feature_gates(GenericWorkload=True)
@pytest.mark.runtime_config("scheduling.k8s.io/v1beta1=true")
async def test_marked(scenario):
    [made] = await scenario.create_objects([GROUP])
    got = await scenario.get_object("scheduling.k8s.io/v1beta1", "PodGroup", "g")
    print("MADE", made["apiVersion"], made["kind"], got["spec"]["schedulingPolicy"])

@pytest.mark.feature_gates(GenericWorkload=True)
async def test_unmarked(scenario, sh_backend):
    with pytest.raises(Exception) as e:
        await scenario.create_objects([GROUP])
    print("REFUSED", type(e.value).__name__, e.value)
    client = ScenarioClient(sh_backend.url)
    try:
        with pytest.raises(ApiError) as posted:
            await client.request("POST", "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups", body=GROUP)
    finally:
        await client.close()
    print("POSTED", posted.value.code)
'''


def records(path: Path) -> dict[str, dict[str, Any]]:
    return {r["id"].rsplit("::", 1)[1]: r for r in map(json.loads, path.read_text().splitlines())}


def test_a_marked_scenario_can_create_a_podgroup_and_an_unmarked_one_gets_404(pytester: pytest.Pytester) -> None:
    """v1.37 keeps scheduling.k8s.io/v1beta1 off by default: with the marker (and GenericWorkload,
    which the release knows, so the API server has it too) the scenario makes a PodGroup; without
    it the group version is not served and the POST is a 404. Each record names its runtime config."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_groups=PODGROUPS)
    result = pytester.runpytest("-s", "--report-dir", "r")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*MADE scheduling.k8s.io/v1beta1 PodGroup {'gang': {'minCount': 2}}*",
                                 "*REFUSED UnknownKind the server serves no API group version scheduling.k8s.io/v1beta1",
                                 "POSTED 404"])
    got = records(pytester.path / "r" / "results.jsonl")
    assert got["test_marked"]["apiserver_runtime_config"] == {"scheduling.k8s.io/v1beta1": "true"}
    assert got["test_unmarked"]["apiserver_runtime_config"] == {}
    assert got["test_marked"]["apiserver_feature_gates"] == {"GenericWorkload": True}


def test_the_runs_option_serves_every_scenario_and_wins_over_a_marker(pytester: pytest.Pytester) -> None:
    """``--runtime-config`` given twice is one value joined with commas; each fake API server has
    it, and a key the marker sets too takes the run's value (here: off, so the marked scenario's
    POST is a 404)."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_groups=PODGROUPS)
    result = pytester.runpytest("-s", "--report-dir", "r", "--runtime-config", "scheduling.k8s.io/v1beta1=false",
                                "--runtime-config", "coordination.k8s.io/v1beta1=true")
    result.assert_outcomes(passed=1, failed=1)
    got = records(pytester.path / "r" / "results.jsonl")
    both = {"scheduling.k8s.io/v1beta1": "false", "coordination.k8s.io/v1beta1": "true"}
    assert got["test_marked"]["apiserver_runtime_config"] == both
    assert got["test_unmarked"]["apiserver_runtime_config"] == both
    assert got["test_marked"]["message"] == ("harness._scenario.discovery.UnknownKind: the server serves no API group "
                                             "version scheduling.k8s.io/v1beta1")
    replay = shlex.split(got["test_marked"]["replay"].split(" && ", 1)[1])
    assert "--runtime-config=scheduling.k8s.io/v1beta1=false,coordination.k8s.io/v1beta1=true" in replay


def test_the_replay_line_gives_the_runs_runtime_config(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_fail='''
async def test_fails(sh_backend):
    assert False, "broken"
''')
    result = pytester.runpytest("--runtime-config", "scheduling.k8s.io/v1beta1", "--runtime-config",
                                "coordination.k8s.io/v1beta1=true")
    result.assert_outcomes(failed=1)
    line = next(line for line in result.stdout.lines if "replay: " in line)
    replay = shlex.split(line.split(" && ", 1)[1])
    assert [a for a in replay if a.startswith("--runtime-config")] == [
        "--runtime-config=scheduling.k8s.io/v1beta1=,coordination.k8s.io/v1beta1=true"]
    # the replay line is a command line the plugin takes, and it runs the same scenario again
    again = pytester.runpytest(*replay[replay.index("test_fail.py::test_fails"):])
    again.assert_outcomes(failed=1)


@pytest.mark.parametrize(("args", "message"), [
    (["--runtime-config", "scheduling.k8s.io/v9=true"],
     "ERROR: --runtime-config: the fake API server (Kubernetes v1.37.0) refuses it: group version "
     "scheduling.k8s.io/v9 that has not been registered"),
    (["--runtime-config", "nosuch.example.com/v1=true"],
     "ERROR: --runtime-config: the fake API server (Kubernetes v1.37.0) refuses it: unknown api groups "
     "nosuch.example.com/v1"),
    (["--runtime-config", "scheduling.k8s.io/v1beta1=true", "--kubernetes-version", "1.36"],
     "ERROR: --runtime-config: the fake API server (Kubernetes v1.36.0) refuses it: group version "
     "scheduling.k8s.io/v1beta1 that has not been registered"),
    (["--runtime-config", "scheduling.k8s.io/v1beta1=true", "--backend", "kubeconfig:/x"],
     "ERROR: --runtime-config sets what an API server the run starts serves: with --backend kubeconfig:/x the "
     "cluster's own kube-apiserver has its flags already"),
])
def test_a_runtime_config_the_release_refuses_is_a_usage_error(pytester: pytest.Pytester, args: list[str],
                                                               message: str) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.lines


def test_a_marker_the_release_refuses_skips_and_a_bad_marker_fails(pytester: pytest.Pytester) -> None:
    """On v1.36 there is no scheduling.k8s.io/v1beta1: the scenario needs an API the release
    lacks, a declared reason to skip. A marker naming ``api/beta`` is the scenario's mistake."""
    pytester.makepyfile(test_markers='''
import pytest

@pytest.mark.runtime_config("scheduling.k8s.io/v1beta1=true")
async def test_needs_beta(sh_backend):
    pass

@pytest.mark.runtime_config("api/beta=true")
async def test_bad(sh_backend):
    pass
''')
    result = pytester.runpytest("-rs", "--kubernetes-version", "1.36")
    result.assert_outcomes(skipped=1, errors=1)
    result.stdout.fnmatch_lines([
        "*runtime_config marker: api/beta: name a group/version or group/version/resource "
        "(e.g. scheduling.k8s.io/v1beta1=true)*",
        "SKIPPED [[]1[]] *: needs --runtime-config scheduling.k8s.io/v1beta1=true: the fake API server "
        "(Kubernetes v1.36.0) refuses it: group version scheduling.k8s.io/v1beta1 that has not been registered"])


def test_the_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.runtime_config(*values): API group versions or resources the test's "
                                 "API server must serve*"])
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(["*--runtime-config=GROUP/VERSION=true*"])


GANG_YAML = """name: gang
featureGates: {GenericWorkload: true}
runtimeConfig: {scheduling.k8s.io/v1beta1: true}
ops:
- op: createObjects
  manifests:
  - {apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, metadata: {name: g},
     spec: {schedulingPolicy: {gang: {minCount: 2}}}}
- {op: expectField, apiVersion: scheduling.k8s.io/v1beta1, kind: PodGroup, name: g,
   field: spec.schedulingPolicy.gang.minCount, equals: 2}
"""


def test_a_yaml_scenarios_runtime_config_is_its_marker(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "gang.yaml").write_text(GANG_YAML)
    (pytester.path / "plain.yaml").write_text(GANG_YAML.replace("runtimeConfig", "#"))
    result = pytester.runpytest("gang.yaml", "plain.yaml", "--report-dir", "r")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*the server serves no API group version scheduling.k8s.io/v1beta1*"])
    got = records(pytester.path / "r" / "results.jsonl")
    assert got["gang"]["status"] == "passed"
    assert got["gang"]["apiserver_runtime_config"] == {"scheduling.k8s.io/v1beta1": "true"}
    assert got["plain"]["apiserver_runtime_config"] == {}
