"""The API server's runtime config of a run and of each scenario
(``harness._backends.runtime_config``): the merge on the fake, the option's checks, a marker's
keys, and the rule that skips a scenario on a cluster whose discovery lacks what it asks for,
down to a cluster played by ``schedharness serve`` in another process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from fake_apiserver import FakeApiServer
from harness._backends.kind_cluster import KindOptions, kind_config
from harness._backends.kind_setup import ClusterSession
from harness._backends.runtime_config import (
    cluster_missing_api,
    discover,
    fake_refusal,
    fake_runtime_config,
    format_runtime_config,
    marker_problem,
    missing_api,
    options_problem,
    parse_option,
    runtime_config_text,
    wanted_group_versions,
)
from harness._time.virtual_time import run
from tests.support.serve_process import Serve

pytest_plugins = ["pytester"]

BETA = {"scheduling.k8s.io/v1beta1": "true"}
SERVED = {("scheduling.k8s.io", "v1beta1"): frozenset({"podgroups", "workloads"}), ("", "v1"): frozenset({"pods"}),
          ("coordination.k8s.io", "v1beta1"): None}
RUN = "run with --runtime-config"


def test_the_option_given_twice_is_one_value_joined_with_commas() -> None:
    assert parse_option(["scheduling.k8s.io/v1beta1=true", "coordination.k8s.io/v1beta1, a/v1=false"]) == {
        "scheduling.k8s.io/v1beta1": "true", "coordination.k8s.io/v1beta1": "", "a/v1": "false"}
    assert format_runtime_config({"a/v1": "", "b/v1": "false"}) == "a/v1=,b/v1=false"


def test_the_runs_value_wins_over_the_markers_on_the_fake() -> None:
    marker = {"scheduling.k8s.io/v1beta1": "true", "coordination.k8s.io/v1beta1": "true"}
    run_config = {"scheduling.k8s.io/v1beta1": "false"}
    assert fake_runtime_config(marker, run_config) == {"scheduling.k8s.io/v1beta1": "false",
                                                       "coordination.k8s.io/v1beta1": "true"}
    assert fake_runtime_config({}, {}) == {}


@pytest.mark.parametrize(("backend", "release", "given", "problem"), [
    ("fake", "1.37.0", BETA, None),
    ("fake", "1.37.0", {}, None),
    ("fake", "1.36.0", BETA, "--runtime-config: the fake API server (Kubernetes v1.36.0) refuses it: group version "
                             "scheduling.k8s.io/v1beta1 that has not been registered"),
    ("envtest", "1.37.0", {"nosuch.example.com/v1": "true"}, None),  # its kube-apiserver checks it
    ("kind", "1.36.0", BETA, None),  # a new cluster's kube-apiserver checks it
    ("kubeconfig:/k", "1.37.0", BETA, "--runtime-config sets what an API server the run starts serves: with --backend "
                                      "kubeconfig:/k the cluster's own kube-apiserver has its flags already"),
    ("kubeconfig:/k", "1.37.0", {}, None),
])
def test_the_options_problem(backend: str, release: str, given: dict[str, str], problem: str | None) -> None:
    assert options_problem(backend=backend, release=release, given=given) == problem


def test_a_marker_names_group_versions_or_resources() -> None:
    assert marker_problem({"scheduling.k8s.io/v1beta1": "true", "v1": "", "resource.k8s.io/v1beta2/deviceclasses":
                           "false", "api/v1": "true"}) is None
    assert marker_problem({"api/beta": "true"}) == (
        "runtime_config marker: api/beta: name a group/version or group/version/resource "
        "(e.g. scheduling.k8s.io/v1beta1=true)")
    assert marker_problem({"a/b/c/d": "true"}) is not None and marker_problem({"scheduling.k8s.io": "true"}) is not None
    assert marker_problem({"scheduling.k8s.io/v1beta1": "yes"}) == (
        "runtime_config marker: scheduling.k8s.io/v1beta1=yes: give true or false")
    assert wanted_group_versions({"a/v1/xs": "true", "a/v1": "true", "v1": "true", "/v1/pods": "false"}) == [
        ("a", "v1"), ("", "v1")]


@pytest.mark.parametrize(("wanted", "reason"), [
    (BETA, None),
    ({"scheduling.k8s.io/v1beta1": ""}, None),  # "" is true, as kube-apiserver reads it
    ({"scheduling.k8s.io/v1beta1/podgroups": "true", "/v1/pods": "true", "api/v1": "true"}, None),
    ({"coordination.k8s.io/v1beta1": "false"}, None),
    ({"coordination.k8s.io/v1beta1": "true"},
     "the API server serves no coordination.k8s.io/v1beta1: run with --runtime-config coordination.k8s.io/v1beta1=true"),
    ({"resource.k8s.io/v1beta2": "1"},  # never asked of discovery: not known to be served
     "the API server serves no resource.k8s.io/v1beta2: run with --runtime-config resource.k8s.io/v1beta2=true"),
    ({"scheduling.k8s.io/v1beta1/podgroups": "true", "scheduling.k8s.io/v1beta1/gangs": "true"},
     "the API server serves no scheduling.k8s.io/v1beta1 gangs: run with --runtime-config "
     "scheduling.k8s.io/v1beta1/gangs=true"),
    ({"scheduling.k8s.io/v1beta1": "false"},
     "the API server serves scheduling.k8s.io/v1beta1: run with --runtime-config scheduling.k8s.io/v1beta1=false"),
])
def test_the_skip_rule_compares_the_marker_with_discovery(wanted: dict[str, str], reason: str | None) -> None:
    assert missing_api(wanted, SERVED, hint=RUN) == reason


@pytest.mark.parametrize(("backend", "started_with", "hint"), [
    ("envtest", {}, "run with --runtime-config"),
    ("kind", {}, "run with --runtime-config"),
    ("kind", None, "the kind cluster was reused as it is: make a new one (another --kind-cluster) with --runtime-config"),
    ("kubeconfig", None, "the cluster's own kube-apiserver decides what it serves: start it with --runtime-config"),
])
def test_the_skip_reason_names_the_option_the_backend_takes(backend: str, started_with: dict[str, str] | None,
                                                            hint: str) -> None:
    session = ClusterSession(backend, Path("/nowhere"), runtime_config=started_with)
    session.served_apis.update(SERVED)  # asked already: no discovery
    assert cluster_missing_api(session, BETA) is None
    assert cluster_missing_api(session, {"coordination.k8s.io/v1beta1": "true"}) == (
        f"the API server serves no coordination.k8s.io/v1beta1: {hint} coordination.k8s.io/v1beta1=true")


def test_a_cluster_that_does_not_answer_skips_saying_so(tmp_path: Path) -> None:
    (tmp_path / "kubeconfig").write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}], "users": [{"name": "u", "user": {}}]}))
    session = ClusterSession("kubeconfig", tmp_path / "kubeconfig")
    reason = cluster_missing_api(session, BETA)
    assert reason is not None
    assert reason.startswith("needs --runtime-config scheduling.k8s.io/v1beta1=true: the cluster's discovery did not "
                             "answer: GET /apis/scheduling.k8s.io/v1beta1: 503 ServiceUnavailable: the fault proxy "
                             "cannot reach the upstream API server http://127.0.0.1:9")
    assert session.served_apis == {}  # not taken for an answer: asked again by the next scenario


def test_discovery_of_a_fake_api_server_with_and_without_the_flag(tmp_path: Path) -> None:
    wanted = [("scheduling.k8s.io", "v1beta1"), ("", "v1"), ("coordination.k8s.io", "v1beta1")]

    async def main() -> tuple[dict[tuple[str, str], frozenset[str] | None], ...]:
        found = []
        for config in ("scheduling.k8s.io/v1beta1=true", ""):
            async with FakeApiServer(runtime_config=config, feature_gates={"GenericWorkload": True}) as server:
                found.append(await discover(server.write_kubeconfig(tmp_path / "kubeconfig"), wanted))
        return tuple(found)

    on, off = run(main())
    assert on[("scheduling.k8s.io", "v1beta1")] is not None
    assert {"podgroups", "workloads"} <= on[("scheduling.k8s.io", "v1beta1")]  # type: ignore[operator]
    assert "pods/status" not in (on[("", "v1")] or ()) and "pods" in (on[("", "v1")] or ())
    assert on[("coordination.k8s.io", "v1beta1")] is None
    assert off[("scheduling.k8s.io", "v1beta1")] is None


def test_the_fake_skips_a_scenario_whose_release_lacks_the_group_version() -> None:
    assert fake_refusal("1.37.0", BETA) is None
    assert fake_refusal("1.35.0", BETA) == (
        "needs --runtime-config scheduling.k8s.io/v1beta1=true: the fake API server (Kubernetes v1.35.0) refuses it: "
        "group version scheduling.k8s.io/v1beta1 that has not been registered")


def test_the_report_names_the_runtime_config() -> None:
    assert runtime_config_text(None) == "not known"
    assert runtime_config_text({}) == "release defaults"
    assert runtime_config_text(BETA) == "scheduling.k8s.io/v1beta1=true"


def test_a_new_kind_clusters_config_has_runtime_config() -> None:
    config = kind_config(KindOptions(runtime_config={"scheduling.k8s.io/v1beta1": "true", "api/alpha": "false"}))
    assert "runtimeConfig:\n  scheduling.k8s.io/v1beta1: 'true'\n  api/alpha: 'false'\n" in config
    assert "runtimeConfig" not in kind_config(KindOptions())


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    server = Serve(tmp_path, "--runtime-config", "scheduling.k8s.io/v1beta1=true",
                   "--apiserver-feature-gates", "GenericWorkload=true")
    try:
        yield server
    finally:
        server.stop()


def test_on_a_kubeconfig_cluster_the_marker_runs_what_discovery_serves(pytester: pytest.Pytester,
                                                                        serve: Serve) -> None:
    """``schedharness serve --runtime-config scheduling.k8s.io/v1beta1=true`` as somebody's
    cluster: the scenario asking for that group version runs, the one asking for another is
    skipped, saying which and what to do; records do not claim to know the cluster's flags."""
    pytester.makepyfile(test_cluster='''
import pytest

@pytest.mark.runtime_config("scheduling.k8s.io/v1beta1=true")
async def test_served(sh_backend):
    print("BACKEND", sh_backend.name, sh_backend.apiserver_runtime_config)

@pytest.mark.runtime_config("coordination.k8s.io/v1beta1=true")
async def test_not_served(sh_backend):
    pass
''')
    result = pytester.runpytest("-s", "-rs", "--scheduler", "none", f"--backend=kubeconfig:{serve.kubeconfig}",
                                "--report-dir", "r", "--no-timeline")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "*BACKEND kubeconfig None*",
        "SKIPPED [[]1[]] *: the API server serves no coordination.k8s.io/v1beta1: the cluster's own kube-apiserver "
        "decides what it serves: start it with --runtime-config coordination.k8s.io/v1beta1=true"])
    records = [json.loads(line) for line in (pytester.path / "r" / "results.jsonl").read_text().splitlines()]
    assert [r["apiserver_runtime_config"] for r in records] == [None, None]
