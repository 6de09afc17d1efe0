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
