"""The ``schedharness`` command line: a user's mistake gets one clear message and exit code 2."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from harness.cli import main


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
