"""``--backend envtest``: finding the binaries, the reason a run without them skips, the key
material and kubeconfig, and (with ``KUBEBUILDER_ASSETS`` naming a directory holding etcd and
kube-apiserver) a real control plane started and stopped, and scenarios run on it through the
pytest plugin and ``schedharness run``. The tests that need the binaries skip without them."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from fake_apiserver import FaultProxy
from harness._backends.envtest import (
    ASSETS_VARIABLE,
    ControlPlane,
    EnvtestError,
    apiserver_args,
    envtest_unavailable,
    find_assets,
    free_port,
    generate_pki,
    write_kubeconfig,
)
from harness._backends.scenario_client import ScenarioClient
from harness._runs.run import RunOptions, run_argv, run_suites

pytest_plugins = ["pytester"]

ASSETS = os.environ.get(ASSETS_VARIABLE, "")
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver (setup-envtest use -p path)")
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl on PATH")


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


# ---------------------------------------------------------------------- finding the binaries


def test_without_the_variable_or_a_directory_the_reason_says_how_to_get_them() -> None:
    with pytest.raises(EnvtestError, match=(
            r"^needs etcd and kube-apiserver binaries: set KUBEBUILDER_ASSETS to the directory holding them "
            r"\(`setup-envtest use -p path` prints one\) or give --envtest-assets DIR$")):
        find_assets(None, environ={})


def test_a_directory_that_is_not_there_or_lacks_a_binary_is_named(tmp_path: Path) -> None:
    with pytest.raises(EnvtestError, match=rf"^needs etcd and kube-apiserver binaries: {tmp_path}/nope "
                                           r"\(KUBEBUILDER_ASSETS\) is not a directory$"):
        find_assets(None, environ={ASSETS_VARIABLE: str(tmp_path / "nope")})
    _executable(tmp_path / "etcd")
    (tmp_path / "kube-apiserver").write_text("not executable")
    with pytest.raises(EnvtestError, match=rf"^needs kube-apiserver in {tmp_path} \(--envtest-assets\): "
                                           r"not an executable file$"):
        find_assets(tmp_path, environ={})
    (tmp_path / "etcd").unlink()
    with pytest.raises(EnvtestError, match=rf"^needs etcd and kube-apiserver in {tmp_path} \(KUBEBUILDER_ASSETS\): "
                                           r"not an executable file$"):
        find_assets(None, environ={ASSETS_VARIABLE: str(tmp_path)})


def test_the_flag_wins_over_the_variable(tmp_path: Path) -> None:
    flag, variable = tmp_path / "flag", tmp_path / "variable"
    for directory in (flag, variable):
        directory.mkdir()
        _executable(directory / "etcd")
        _executable(directory / "kube-apiserver")
    assert find_assets(flag, environ={ASSETS_VARIABLE: str(variable)}) == flag.resolve()
    assert find_assets(None, environ={ASSETS_VARIABLE: str(variable)}) == variable.resolve()


# ---------------------------------------------------------------------- key material and kubeconfig


@needs_openssl
def test_the_serving_certificate_is_trusted_through_the_generated_ca_for_127_0_0_1(tmp_path: Path) -> None:
    """A TLS server with the generated certificate; Python's ssl, given only the CA, verifies it
    for the address 127.0.0.1 (an independent check of the chain and the subject alternative name)."""
    pki = generate_pki(tmp_path / "pki")
    assert pki.token_file.read_text() == f"{pki.token},schedharness,schedharness-uid,system:masters\n"
    assert oct((tmp_path / "pki").stat().st_mode & 0o777) == "0o700"
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(pki.serving_cert, pki.serving_key)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        connection, _ = listener.accept()
        with server_context.wrap_socket(connection, server_side=True) as tls:
            tls.sendall(b"hello")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    client_context = ssl.create_default_context(cafile=str(pki.ca_cert))
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with client_context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.recv(5) == b"hello"
    thread.join(5)
    listener.close()
    other = generate_pki(tmp_path / "other")
    stranger = ssl.create_default_context(cafile=str(other.ca_cert))
    server_context2 = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context2.load_cert_chain(pki.serving_cert, pki.serving_key)
    assert pki.token != other.token
    with pytest.raises(ssl.SSLCertVerificationError):
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        thread = threading.Thread(target=lambda: _accept_quietly(listener, server_context2), daemon=True)
        thread.start()
        with socket.create_connection(("127.0.0.1", port)) as raw:
            stranger.wrap_socket(raw, server_hostname="127.0.0.1")
    listener.close()


def _accept_quietly(listener: socket.socket, context: ssl.SSLContext) -> None:
    connection, _ = listener.accept()
    try:
        context.wrap_socket(connection, server_side=True).close()
    except (ssl.SSLError, OSError):
        connection.close()


@needs_openssl
def test_the_kubeconfig_names_the_server_the_ca_and_the_token_and_the_proxy_reads_it(tmp_path: Path) -> None:
    pki = generate_pki(tmp_path / "pki")
    path = write_kubeconfig(tmp_path / "kubeconfig", "https://127.0.0.1:6443", pki.ca_cert.read_bytes(), pki.token)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    config = yaml.safe_load(path.read_text())
    assert config["current-context"] == "envtest"
    proxy = FaultProxy(path)
    assert proxy.upstream_url == "https://127.0.0.1:6443"
    assert proxy.upstream.token == pki.token and proxy.upstream.ca == pki.ca_cert.read_bytes()


def test_the_apiserver_flags_are_envtests_with_serviceaccount_admission_kept(tmp_path: Path) -> None:
    """controller-runtime's defaults (pkg/internal/testing/controlplane/apiserver.go, defaultArgs):
    the service range, RBAC, privileged containers, the service-account issuer and keys; not its
    --disable-admission-plugins=ServiceAccount (the harness makes the default ServiceAccount)."""
    from harness._backends.envtest import Pki

    pki = Pki(tmp_path, "t")
    args = apiserver_args(pki, tmp_path / "certs", 6443, 2379, {"B": False, "A": True})
    assert "--service-cluster-ip-range=10.0.0.0/24" in args and "--authorization-mode=RBAC" in args
    assert "--allow-privileged=true" in args and "--service-account-issuer=https://127.0.0.1:6443/" in args
    assert f"--service-account-signing-key-file={tmp_path / 'sa.key'}" in args
    assert f"--service-account-key-file={tmp_path / 'sa.pub'}" in args
    assert not any(a.startswith("--disable-admission-plugins") for a in args)
    assert "--endpoint-reconciler-type=none" in args  # v1.37 refuses 127.0.0.1 with a reconciler
    assert args[-1] == "--feature-gates=A=true,B=false"


def test_run_passes_the_assets_directory_and_two_workers_a_core(tmp_path: Path) -> None:
    argv = run_argv([tmp_path / "test_x.py"], tmp_path / "r", "reference",
                    RunOptions(backend="envtest", envtest_assets=tmp_path / "assets"))
    assert "--backend=envtest" in argv and f"--envtest-assets={tmp_path / 'assets'}" in argv
    assert argv[argv.index("-n") + 1] == str(min(8, 2 * (os.cpu_count() or 1)))
    argv = run_argv([tmp_path / "test_x.py"], tmp_path / "r", "reference", RunOptions(backend="envtest", jobs=0))
    assert "-n" not in argv


# ---------------------------------------------------------------------- the plugin without binaries


SCENARIO = '''
async def test_binds(scenario):
    await scenario.create_node("n1")
    await scenario.create_pod("p", "1")
    await scenario.eventually(scenario.pod_bound("p"), within=30)
'''


def test_without_binaries_every_scenario_is_skipped_with_the_reason(pytester: pytest.Pytester,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ASSETS_VARIABLE, raising=False)
    pytester.makepyfile(test_s=SCENARIO)
    result = pytester.runpytest_subprocess("--backend", "envtest", "-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines([
        "SKIPPED [[]1[]] *: --backend envtest needs etcd and kube-apiserver binaries: set KUBEBUILDER_ASSETS to the "
        "directory holding them (`setup-envtest use -p path` prints one) or give --envtest-assets DIR"])


def test_schedharness_run_without_binaries_judges_nothing_and_fails(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ASSETS_VARIABLE, raising=False)
    lines: list[str] = []
    result = run_suites(RunOptions(backend="envtest", suites=("core_sanity",), report_dir=tmp_path / "r",
                                   timeline=False, jobs=0), progress=lines.append)
    assert result.exit_code == 3  # every criterion skipped for an absent tool: nothing judged
    skipped = len(result.report["criteria"])
    assert skipped > 0
    assert (result.report["verdict"], result.report["summary"]) == (
        "not judged", {"passed": 0, "failed": 0, "not judged": 0, "skipped": skipped})
    assert any(line.startswith(f"schedharness run: NOT JUDGED: 0 passed, 0 failed, 0 not judged, {skipped} skipped in ")
               for line in lines), lines


# ---------------------------------------------------------------------- with the binaries


@needs_binaries
def test_a_control_plane_starts_answers_and_stops_keeping_its_logs(tmp_path: Path) -> None:
    control_plane = ControlPlane(assets=find_assets(), logdir=tmp_path / "logs")
    kubeconfig = control_plane.start()
    tmp = kubeconfig.parent
    try:
        async def check() -> None:
            async with FaultProxy(kubeconfig) as proxy:
                client = ScenarioClient(proxy.url)
                try:
                    namespaces = await client.request("GET", "/api/v1/namespaces")
                    names = {n["metadata"]["name"] for n in namespaces["items"]}
                    assert {"default", "kube-system", "kube-node-lease"} <= names
                    version = await client.request("GET", "/version")
                    assert version["major"] == "1"
                finally:
                    await client.close()

        asyncio.run(check())
        if shutil.which("kubectl"):
            done = subprocess.run(["kubectl", "--kubeconfig", str(kubeconfig), "auth", "whoami", "-o", "json"],
                                  capture_output=True, text=True, timeout=60, check=False)
            if done.returncode == 0:  # kubectl 1.27+; verifies TLS with the CA and sends the token
                user = json.loads(done.stdout)["status"]["userInfo"]
                assert user["username"] == "schedharness" and "system:masters" in user["groups"]
    finally:
        control_plane.stop()
    assert not tmp.exists()
    assert (tmp_path / "logs" / "etcd.log").stat().st_size > 0
    assert (tmp_path / "logs" / "kube-apiserver.log").stat().st_size > 0
    control_plane.stop()  # twice is fine


@needs_binaries
def test_a_binary_whose_port_was_taken_meanwhile_starts_again_on_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``free_port`` suggests a port another process may take before the binary binds it (tests
    run side by side); kube-apiserver then exits with ``address already in use``, and the control
    plane starts it again on a new port."""
    import harness._backends.envtest as envtest  # the module whose port suggestion the test steers

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    suggestions = iter([free_port(), free_port(), taken.getsockname()[1]])  # etcd, its peer, then a taken one
    monkeypatch.setattr(envtest, "free_port", lambda: next(suggestions, None) or free_port())
    control_plane = ControlPlane(assets=find_assets(), logdir=tmp_path / "logs")
    try:
        control_plane.start()
        assert control_plane.url is not None and not control_plane.url.endswith(f":{taken.getsockname()[1]}")
        assert "address already in use" in (tmp_path / "logs" / "kube-apiserver.log").read_text()
    finally:
        control_plane.stop()
        taken.close()


ON_A_BARE_CONTROL_PLANE = '''
import pytest

async def test_the_controllers_are_played(scenario):
    sa = await scenario.client.request("GET", f"/api/v1/namespaces/{scenario.namespace}/serviceaccounts/default")
    assert sa["metadata"]["name"] == "default"
    node = await scenario.create_node("n1", taints=["example.com/keep:NoSchedule"])
    assert [t["key"] for t in node["spec"]["taints"]] == ["example.com/keep"]
    assert [c["type"] for c in node["status"]["conditions"]] == ["Ready"]
    await scenario.create_node("n2")
    await scenario.create_pod("p", "1")
    await scenario.eventually(scenario.pod_bound("p"), within=30)
    pod = await scenario.get("pods", "p")
    assert pod["spec"]["nodeName"] == "n2" and pod["spec"]["serviceAccountName"] == "default"
    await scenario.create("poddisruptionbudgets", {"metadata": {"name": "b"}, "spec": {"maxUnavailable": 1}})
'''


@needs_binaries
def test_scenarios_run_on_envtest_with_the_controllers_played_and_clean_up(pytester: pytest.Pytester,
                                                                           tmp_path: Path) -> None:
    """Two xdist workers, each with its own control plane; the default ServiceAccount is made (a
    real kube-apiserver with ServiceAccount admission refuses pods before it), the not-ready taint
    admission adds is taken off, and what the scenario made is deleted."""
    pytester.makepyfile(test_bare=ON_A_BARE_CONTROL_PLANE, test_s=SCENARIO)
    report = tmp_path / "report"
    result = pytester.runpytest_subprocess("--backend", "envtest", "--envtest-assets", str(find_assets()),
                                           "-n", "2", "--report-dir", str(report), "--no-timeline",
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    logs = sorted(p.parent.name for p in (report / "cluster").glob("envtest-*/kube-apiserver.log"))
    assert logs == ["envtest-gw0", "envtest-gw1"]
    [path] = report.glob("*test_bare.py_test_the_controllers_are_played/journal.jsonl")
    journal = [json.loads(line) for line in path.read_text().splitlines()]
    deletes = [(e["verb"], e["path"], e["code"]) for e in journal if e.get("type") == "request"
               and e["verb"] in ("delete", "deletecollection")]
    assert ("deletecollection", deletes[0][1], 200) == deletes[0] and deletes[0][1].endswith("/pods")
    assert any(path.endswith("/poddisruptionbudgets") and code == 200 for _, path, code in deletes)
    assert deletes[-1][0] == "delete" and deletes[-1][1].startswith("/api/v1/namespaces/sh-")


@needs_binaries
def test_the_reference_gets_the_same_verdicts_on_the_fake_and_on_envtest(tmp_path: Path) -> None:
    """The same scheduler, the same suite, two backends: every criterion's verdict agrees (a
    difference is a fidelity bug in the fake or a timing assumption in the criterion). The whole
    suite is compared by ``bench/bench_envtest.py``; core sanity keeps this test to a minute."""
    from harness._runs.compare import compare_reports, format_comparison

    reports = {}
    for backend in ("envtest", "fake"):  # the fake serving as envtest's kube-apiserver release
        server = str(reports["envtest"]["server_version"]) if reports else ""
        version = ".".join(server.removeprefix("v").split(".")[:2]) if backend == "fake" else None
        result = run_suites(RunOptions(backend=backend, suites=("core_sanity",), report_dir=tmp_path / backend,
                                       timeline=False, jobs=2 if backend == "envtest" else 0,
                                       kubernetes_version=version),
                            progress=lambda line: None)
        reports[backend] = result.report
    minor = ".".join(str(reports["envtest"]["server_version"]).removeprefix("v").split(".")[:2])
    assert str(reports["fake"]["server_version"]).startswith(f"v{minor}.")
    comparison = compare_reports(reports["fake"], reports["envtest"])
    assert len(comparison.rows) == 3 and not comparison.only_one_side
    assert comparison.differences == [], "\n".join(format_comparison(comparison))
    assert {row.right for row in comparison.rows} == {"passed"}


def test_a_stale_temporary_directory_is_swept_and_a_live_ones_kept(tmp_path: Path) -> None:
    from harness._backends.envtest import TMP_PREFIX, _sweep_stale

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale, live, foreign = (tmp_path / f"{TMP_PREFIX}stale"), (tmp_path / f"{TMP_PREFIX}live"), (tmp_path / f"{TMP_PREFIX}x")
    for directory, owner in ((stale, dead.pid), (live, os.getpid())):
        directory.mkdir()
        (directory / "owner.pid").write_text(str(owner))
    foreign.mkdir()
    _sweep_stale(tmp_path)
    assert not stale.exists() and live.exists() and foreign.exists()


RUNTIME_CONFIG = '''
import pytest
from harness._backends.scenario_client import ScenarioClient

GROUP = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "g"},
         "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}

@pytest.mark.runtime_config("scheduling.k8s.io/v1beta1=true")
async def test_served(sh_backend):
    client = ScenarioClient(sh_backend.url)
    try:
        made = await client.request("POST", "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups", body=GROUP)
    finally:
        await client.close()
    assert made["kind"] == "PodGroup"

@pytest.mark.runtime_config("coordination.k8s.io/v1beta1=true")
async def test_not_served(sh_backend):
    pass
'''


@needs_binaries
def test_the_control_plane_serves_the_runs_runtime_config_and_a_marker_asking_more_skips(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    """kube-apiserver started with ``--runtime-config scheduling.k8s.io/v1beta1=true`` (and
    GenericWorkload) takes a PodGroup; a scenario asking for a group version it was not started
    with is skipped, naming the option to give."""
    pytester.makepyfile(test_rc=RUNTIME_CONFIG)
    report = tmp_path / "report"
    result = pytester.runpytest_subprocess("--backend", "envtest", "--envtest-assets", str(find_assets()),
                                           "--scheduler", "none", "--runtime-config", "scheduling.k8s.io/v1beta1=true",
                                           "--apiserver-feature-gates", "GenericWorkload=true", "-rs",
                                           "--report-dir", str(report), "--no-timeline", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] *: the API server serves no coordination.k8s.io/v1beta1: run with "
                                 "--runtime-config coordination.k8s.io/v1beta1=true"])
    records = {r["id"].rsplit("::", 1)[1]: r for r in map(json.loads, (report / "results.jsonl").read_text().splitlines())}
    assert records["test_served"]["apiserver_runtime_config"] == {"scheduling.k8s.io/v1beta1": "true"}
