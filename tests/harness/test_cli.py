"""The ``schedharness`` command line: a user's mistake gets one clear message and exit code 2."""

from __future__ import annotations

import shutil
import socket
import sys
from pathlib import Path

import pytest

from harness._runs.compatibility import COLUMNS
from harness.cli import main
from tests.support.paths import ROOT


@pytest.mark.parametrize(("command", "port", "why"), [
    ("serve", "99999", "invalid port 99999: give a number from 0 to 65535 (0: a free port)"),
    ("serve", "-1", "invalid port -1: give a number from 0 to 65535 (0: a free port)"),
    ("proxy", "abc", "invalid port 'abc': give a number from 0 to 65535"),
])
def test_a_port_out_of_range_is_a_usage_error(command: str, port: str, why: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--upstream", "unused"] if command == "proxy" else []
    with pytest.raises(SystemExit) as exited:
        main([command, *extra, "--port", port])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"schedharness {command}: error: argument --port: {why}"


def test_a_port_in_use_is_said_once_with_exit_code_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--port", str(port), "--kubeconfig", str(tmp_path / "kubeconfig"), "--loop", "asyncio"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"schedharness: cannot listen on 127.0.0.1:{port}: ") and "address already in use" in err
    assert "\n" not in err and not (tmp_path / "kubeconfig").exists()


def test_a_negative_journal_limit_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--journal-limit", "-5"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "schedharness serve: error: argument --journal-limit: invalid count -5: give a whole number, 0 or more")


def test_serve_keeps_a_bounded_journal(tmp_path: Path) -> None:
    """``schedharness serve --journal-limit 5``: after a dozen requests the admin path serves the
    last five and says how many went."""
    import json
    import subprocess
    import sys
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "serve", "--journal-limit", "5", "--loop", "asyncio",
                             "--kubeconfig", str(tmp_path / "kubeconfig")], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.rsplit(" ", 1)[-1].strip()
        assert url.startswith("http://127.0.0.1:"), line
        for _ in range(12):
            urllib.request.urlopen(f"{url}/api/v1/namespaces", timeout=30).read()
        with urllib.request.urlopen(f"{url}/schedharness/v1/journal", timeout=30) as answer:
            headers = answer.headers
            entries = [json.loads(x) for x in answer.read().decode().splitlines() if x.strip()]  # JSON lines
        assert headers["X-Schedharness-Journal-Limit"] == "5"
        assert int(headers["X-Schedharness-Journal-Dropped"]) == 12 - 5
        assert len(entries) == 5
    finally:
        proc.terminate()
        proc.wait(30)


def test_bad_api_server_gates_for_serve_are_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--apiserver-feature-gates", "A=on"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "schedharness serve: error: argument --apiserver-feature-gates: feature gate 'A=on': write Name=true or "
        "Name=false, comma-separated")
    kubeconfig = tmp_path / "kubeconfig"
    assert main(["serve", "--kubernetes-version", "1.36", "--kubeconfig", str(kubeconfig), "--loop", "asyncio",
                 "--apiserver-feature-gates", "InPlacePodVerticalScalingSchedulerPreemption=true"]) == 2
    assert capsys.readouterr().err.strip() == (
        "schedharness serve: --apiserver-feature-gates: unrecognized feature gate: "
        "InPlacePodVerticalScalingSchedulerPreemption")
    assert not kubeconfig.exists()


def test_a_runtime_config_kube_apiserver_refuses_is_a_usage_error_of_serve(capsys: pytest.CaptureFixture[str],
                                                                           tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    assert main(["serve", "--kubeconfig", str(kubeconfig), "--loop", "asyncio",
                 "--runtime-config", "scheduling.k8s.io/v1beta1=true", "--runtime-config", "scheduling.k8s.io/v1alpha2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "schedharness serve: --runtime-config: group version scheduling.k8s.io/v1alpha2 that has not been registered")
    assert not kubeconfig.exists()


def test_serve_with_an_api_server_gate_stores_the_field_it_guards(tmp_path: Path) -> None:
    """``schedharness serve --apiserver-feature-gates InPlacePodVerticalScalingSchedulerPreemption=true``
    stores KEP-5836's Node field, which the default (the gate off in v1.37) drops."""
    import json
    import subprocess
    import sys
    import urllib.request

    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "spec": {"podPreemptionPolicy": {"disableResizePreemption": ["example.com/a"]}}}
    stored = []
    for gates in ("InPlacePodVerticalScalingSchedulerPreemption=true", ""):
        proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "serve", "--loop", "asyncio",
                                 "--apiserver-feature-gates", gates, "--kubeconfig", str(tmp_path / "kubeconfig")],
                                stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().rsplit(" ", 1)[-1].strip()
            request = urllib.request.Request(f"{url}/api/v1/nodes", data=json.dumps(node).encode(), method="POST",
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                stored.append(json.loads(answer.read())["spec"].get("podPreemptionPolicy"))
        finally:
            proc.terminate()
            proc.wait(30)
    assert stored == [{"disableResizePreemption": ["example.com/a"]}, None]


# ------------------------------------------------------------------- bad values: one message, exit code 2


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "-n", "-3"],
     "schedharness run: error: argument -n/--jobs: invalid count -3: give a whole number, 0 or more"),
    (["run", "-n", "abc"],
     "schedharness run: error: argument -n/--jobs: invalid count 'abc': give a whole number, 0 or more"),
    (["run", "--seed", "-1"],
     "schedharness run: error: argument --seed: invalid seed -1: give a whole number, 0 or more"),
    (["run", "--seed", "x"],
     "schedharness run: error: argument --seed: invalid seed 'x': give a whole number, 0 or more"),
    (["run", "--real-time-wait", "0"],
     "schedharness run: error: argument --real-time-wait: invalid seconds '0': give a number above 0"),
    (["run", "--real-time-wait", "-1"],
     "schedharness run: error: argument --real-time-wait: invalid seconds '-1': give a number above 0"),
    (["run", "--real-time-wait", "abc"],
     "schedharness run: error: argument --real-time-wait: invalid seconds 'abc': give a number above 0"),
    (["run", "--real-time-wait", "inf"],
     "schedharness run: error: argument --real-time-wait: invalid seconds 'inf': give a number above 0"),
    (["run", "--real-time-wait", "nan"],
     "schedharness run: error: argument --real-time-wait: invalid seconds 'nan': give a number above 0"),
    (["serve", "--seed", "-7"],
     "schedharness serve: error: argument --seed: invalid seed -7: give a whole number, 0 or more"),
    (["proxy", "--upstream", "unused", "--seed", "1.5"],
     "schedharness proxy: error: argument --seed: invalid seed '1.5': give a whole number, 0 or more"),
    (["selftest", "-n", "0"],
     "schedharness selftest: error: argument -n/--jobs: invalid count 0: give a whole number, 1 or more"),
    (["selftest", "-n", "-3"],
     "schedharness selftest: error: argument -n/--jobs: invalid count -3: give a whole number, 1 or more"),
    (["k8s", "build", "1.x"],
     "schedharness k8s build: error: argument VERSION: '1.x' is not a Kubernetes release: give 1.NN (its newest "
     "patch) or 1.NN.P"),
    (["k8s", "build", "abc", "--source", "."],
     "schedharness k8s build: error: argument VERSION: 'abc' is not a Kubernetes release: give 1.NN (its newest "
     "patch) or 1.NN.P"),
])
def test_a_malformed_option_value_is_a_usage_error(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == message


@pytest.mark.parametrize("value", ["0", "-1", "abc"])
def test_a_bad_real_time_wait_stops_run_before_anything_starts(value: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """One message after argparse's usage line, exit code 2, no report directory, no pytest."""
    with pytest.raises(SystemExit) as exited:
        main(["run", "--real-time-wait", value, "--report-dir", str(tmp_path / "r")])
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    errors = [line for line in captured.err.splitlines() if not line.startswith(("usage:", " "))]
    assert errors == [f"schedharness run: error: argument --real-time-wait: invalid seconds '{value}': give a number "
                      "above 0"]
    assert not (tmp_path / "r").exists()


def test_serve_refuses_a_kubeconfig_path_that_is_a_directory_before_it_starts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--kubeconfig", str(tmp_path), "--loop", "asyncio"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "", f"schedharness: --kubeconfig {tmp_path}: a directory; give the file to write\n")
    (tmp_path / "file").write_text("")
    assert main(["serve", "--kubeconfig", str(tmp_path / "file" / "kubeconfig"), "--loop", "asyncio"]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "", f"schedharness: cannot write the kubeconfig to {tmp_path / 'file' / 'kubeconfig'}: File exists\n")


def test_serve_loop_uvloop_without_uvloop_is_a_usage_error(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop: ImportError, installed or not
    assert main(["serve", "--loop", "uvloop"]) == 2
    assert capsys.readouterr().err == (
        "schedharness serve: --loop uvloop needs uvloop (CPython outside Windows): pip install uvloop\n")


def test_proxy_names_the_line_of_a_kubeconfig_that_is_not_yaml(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    upstream = tmp_path / "upstream"
    upstream.write_text("clusters: [\n")
    assert main(["proxy", "--upstream", str(upstream)]) == 2
    assert capsys.readouterr().err == (
        f"schedharness proxy: {upstream}: the kubeconfig is not valid YAML: line 2, column 1: expected the node "
        "content, but found '<stream end>'\n")


def test_selftest_refuses_an_unknown_suite_or_report_dir_before_its_first_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--suite", "nope", "--report-dir", str(tmp_path / "r")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("schedharness selftest: unknown suite 'nope'; available: core_sanity, ")
    assert not (tmp_path / "r").exists()
    (tmp_path / "file").write_text("")
    assert main(["selftest", "--suite", "core_sanity", "--report-dir", str(tmp_path / "file")]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "", f"schedharness selftest: --report-dir {tmp_path / 'file'}: a file; give a directory\n")


def test_k8s_build_refuses_a_cache_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert main(["k8s", "build", "1.37", "--cache-dir", str(tmp_path / "file")]) == 2
    assert capsys.readouterr().err == (
        f"schedharness k8s build: --cache-dir {tmp_path / 'file'}: a file; give a directory\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["--output", "{tmp}"], "schedharness compatibility: --output {tmp}: a directory; give the file to write"),
    (["--reports", "{tmp}/file"], "schedharness compatibility: --reports {tmp}/file: a file; give a directory"),
    (["--digests", "{tmp}/file"], "schedharness compatibility: --digests {tmp}/file: a file; give a directory"),
    (["--from-digests", "--column", "v1.37"],
     "schedharness compatibility: --from-digests runs nothing: --column and --reuse do not apply"),
    (["--from-digests", "--digests", "{tmp}/none"], "schedharness compatibility: --digests {tmp}/none: no such directory"),
    (["--from-digests", "--digests", "{tmp}/empty", "--output", "{tmp}/out.md"],
     "schedharness compatibility: no digests in {tmp}/empty"),
    (["--from-digests", "--digests", "{tmp}/bad", "--output", "{tmp}/out.md"],
     "schedharness compatibility: {tmp}/bad/x.json: not a JSON object"),
])
def test_compatibility_refuses_where_it_cannot_write_before_its_first_run(
        argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Checked first: the runs take half an hour, the table is written at their end."""
    (tmp_path / "file").write_text("")
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.json").write_text("[]")
    assert main(["compatibility", *(a.replace("{tmp}", str(tmp_path)) for a in argv)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", message.replace("{tmp}", str(tmp_path)) + "\n")
    assert not (tmp_path / "out.md").exists()


def test_compatibility_from_digests_writes_the_committed_table_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Anywhere: the page links its digests by their path relative to it."""
    docs = ROOT / "docs"
    shutil.copytree(docs / "compatibility", tmp_path / "compatibility")
    output = tmp_path / "compatibility.md"
    assert main(["compatibility", "--from-digests", "--digests", str(tmp_path / "compatibility"),
                 "--output", str(output)]) == 0
    assert output.read_text() == (docs / "compatibility.md").read_text()
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"schedharness compatibility: wrote {output} from {len(COLUMNS) * 2} digests in {tmp_path / 'compatibility'}")
    (tmp_path / "page").mkdir()
    assert main(["compatibility", "--from-digests", "--digests", str(tmp_path / "compatibility"),
                 "--output", str(tmp_path / "page" / "table.md")]) == 0
    assert "[`../compatibility/`](../compatibility/)" in (tmp_path / "page" / "table.md").read_text()


@pytest.mark.parametrize("criteria", ['[3]', '[{}]', '[{"id": "a"}]'])
def test_compare_refuses_a_report_whose_criteria_are_malformed(criteria: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    report.write_text(f'{{"criteria": {criteria}}}')
    assert main(["compare", str(report), str(report)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "", f"schedharness compare: {report}: not a schedharness report (criteria[0] is no mapping with an id and a "
            "status)\n")


def test_a_scheduler_config_needs_a_scheduler_command_and_a_configuration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``run --scheduler-config`` is refused before anything starts: with the reference scheduler
    (which reads no configuration), and for a file that is no KubeSchedulerConfiguration."""
    (tmp_path / "pod.yaml").write_text("kind: Pod\n")
    assert main(["run", "--scheduler-config", str(tmp_path / "pod.yaml"), "--report-dir", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        "schedharness run: --scheduler-config is for a --scheduler command, not reference\n")
    assert main(["run", "--scheduler", f"{sys.executable} --config={{config}}", "--scheduler-config",
                 str(tmp_path / "pod.yaml"), "--report-dir", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == (
        f"schedharness run: --scheduler-config {tmp_path / 'pod.yaml'}: kind 'Pod': give a KubeSchedulerConfiguration\n")
    assert not (tmp_path / "r").exists()
