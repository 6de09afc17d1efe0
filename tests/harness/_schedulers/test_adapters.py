"""Scheduler adapters: an external process (readiness probe, log, SIGTERM then SIGKILL) and
in-process coroutines; the scheduler name a run gives them on a shared cluster (with a real
kube-scheduler v1.37.2 where the envtest binaries are)."""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest
import yaml

from harness._schedulers.adapters import (
    AdapterError,
    CallableAdapter,
    ClusterSchedulerAdapter,
    ProcessAdapter,
    format_feature_gates,
    load_scheduler_config,
    parse_feature_gates,
)
from harness._backends.backend import FakeBackend
from harness._backends.envtest import envtest_unavailable, find_assets
from harness._scenario.scenario import Scenario
from harness._time.virtual_time import run
from tests.support.schedulers import BIND_FIRST_NODE, first_fit_scheduler


def command(tmp_path: Path, *args: str) -> str:
    script = tmp_path / "bind_first_node.py"
    script.write_text(BIND_FIRST_NODE)
    return shlex.join([sys.executable, str(script), *args])


def on_real_loop(body: Callable[[FakeBackend], Awaitable[None]], tmp_path: Path) -> None:
    async def main() -> None:
        async with FakeBackend(tmp_path / "api") as backend:
            await body(backend)

    asyncio.run(main())


def test_process_adapter_probe_log_scenario_and_stop(tmp_path: Path) -> None:
    adapter = ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}", "--feature-gates={feature_gates}"),
                             tmp_path / "sched", name="bind-first")
    assert (adapter.name, adapter.needs_real_time) == ("bind-first", True)

    async def body(backend: FakeBackend) -> None:
        await adapter.start(backend.kubeconfig_path, {"B": False, "A": True})
        assert adapter.argv[2:] == [f"--kubeconfig={backend.kubeconfig_path}", "--feature-gates=A=true,B=false"]
        store_nodes = [e.name for e in backend.journal.requests("delete", "nodes")]
        assert store_nodes == ["schedharness-probe"]
        assert [e.code for e in backend.journal.requests("delete", "pods", namespace="schedharness-probe")] == [200]
        async with Scenario(backend) as s:
            await s.create_node("n1")
            await s.create_pod("p")
            await s.eventually(s.pod_bound("p"), within=20)
            assert s.pod("p")["spec"]["nodeName"] == "n1"  # type: ignore[index]
        assert adapter.failure() is None
        await adapter.stop()
        await adapter.stop()

    on_real_loop(body, tmp_path)
    assert adapter.returncode == 0
    log = adapter.log_text().splitlines()
    assert log[0] == "feature gates: A=true,B=false"
    assert log[1] == "bound schedharness-probe/schedharness-probe to schedharness-probe"
    assert "bound default/p to n1" in log
    assert log[-1] == "stopped"
    assert (tmp_path / "sched" / "scheduler.log").read_text() == adapter.log_text()


def test_config_placeholder_writes_a_scheduler_configuration(tmp_path: Path) -> None:
    """kube-scheduler's client keeps its own content type (protobuf) unless one is given."""
    adapter = ProcessAdapter(command(tmp_path, "--config={config}"), tmp_path / "sched")
    argv = adapter.command(tmp_path / "kc", {})
    config_path = tmp_path / "sched" / "scheduler-config.yaml"
    assert argv[2:] == [f"--config={config_path}"]
    assert yaml.safe_load(config_path.read_text()) == {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(tmp_path / "kc")},
        "leaderElection": {"leaderElect": False},
    }
    json_adapter = ProcessAdapter(command(tmp_path, "--config={config}"), tmp_path / "json",
                                  content_type="application/json")
    json_adapter.command(tmp_path / "kc", {})
    assert yaml.safe_load((tmp_path / "json" / "scheduler-config.yaml").read_text())["clientConnection"] == {
        "kubeconfig": str(tmp_path / "kc"), "contentType": "application/json"}

    async def body(backend: FakeBackend) -> None:
        await adapter.start(backend.kubeconfig_path, {})
        await adapter.stop()

    on_real_loop(body, tmp_path)
    assert adapter.log_text().splitlines()[0] == "config default {'leaderElect': False}"


def test_process_that_exits_before_ready_is_reported_with_its_log(tmp_path: Path) -> None:
    adapter = ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}", "--mode=exit"), tmp_path / "sched")

    async def body(backend: FakeBackend) -> None:
        with pytest.raises(AdapterError) as info:
            await adapter.start(backend.kubeconfig_path, {})
        assert str(info.value) == (f"scheduler {shlex.join(adapter.argv)} exited with code 3 before it was ready; "
                                   "its log ends:\nfeature gates: \ngiving up")

    on_real_loop(body, tmp_path)


def test_process_that_never_binds_the_probe_times_out(tmp_path: Path) -> None:
    adapter = ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}", "--mode=idle"), tmp_path / "sched",
                             ready_timeout=0.5)

    async def body(backend: FakeBackend) -> None:
        with pytest.raises(AdapterError) as info:
            await adapter.start(backend.kubeconfig_path, {})
        assert str(info.value) == (
            f"scheduler {shlex.join(adapter.argv)} did not bind the probe pod schedharness-probe/schedharness-probe "
            f"within 0.5 s (is it watching {backend.kubeconfig_path} with JSON content type?); its log ends:\n"
            + (adapter.log_text().rstrip("\n") or "(empty)"))  # how far it got in 0.5 s depends on the machine
        assert adapter.returncode in (0, -15)  # stopped after the failed probe, handler installed or not yet

    on_real_loop(body, tmp_path)


def test_stop_escalates_to_sigkill_after_the_grace_period(tmp_path: Path) -> None:
    adapter = ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}", "--mode=stubborn"), tmp_path / "sched",
                             stop_grace=0.3)

    async def body(backend: FakeBackend) -> None:
        await adapter.start(backend.kubeconfig_path, {})
        await adapter.stop()

    on_real_loop(body, tmp_path)
    assert adapter.returncode == -9
    assert "stopped" not in adapter.log_text()


class _ExitsAfterTheGrace:
    """A process that ignores SIGTERM for the grace period and has exited by the time it is killed:
    ``kill`` then raises ProcessLookupError, as asyncio's does for a process already reaped."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.waits = 0

    def send_signal(self, sig: int) -> None:
        pass

    async def wait(self) -> int:
        self.waits += 1
        if self.returncode is None:
            await asyncio.sleep(3600)  # until the grace is over
        return 0

    def kill(self) -> None:
        self.returncode = 0
        raise ProcessLookupError()


def test_stop_of_a_process_that_exits_between_the_grace_and_the_kill_is_a_stop(tmp_path: Path) -> None:
    """Seen on a loaded machine: the scheduler exited (code 0) just after the grace, and the kill
    that followed raised ProcessLookupError, failing the scenario."""
    adapter = ProcessAdapter("true", tmp_path / "sched", stop_grace=0.3)
    process = _ExitsAfterTheGrace()
    adapter._process = process  # type: ignore[assignment]
    run(adapter.stop())
    assert (adapter.returncode, process.waits) == (0, 2)


def test_process_dying_during_the_scenario_is_a_failure(tmp_path: Path) -> None:
    adapter = ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}", "--mode=crash-on-pod"), tmp_path / "sched")

    async def body(backend: FakeBackend) -> None:
        await adapter.start(backend.kubeconfig_path, {})
        async with Scenario(backend) as s:
            await s.create_pod("crash")
            for _ in range(600):  # up to 30 s on a loaded machine; returns as soon as it died
                if adapter.failure() is not None:
                    break
                await asyncio.sleep(0.05)
        assert adapter.failure() == (f"scheduler {shlex.join(adapter.argv)} exited with code 5 during the "
                                     "scenario; its log ends:\nfeature gates: \n"
                                     "bound schedharness-probe/schedharness-probe to schedharness-probe\ncrashing")
        await adapter.stop()
        assert adapter.failure() is None

    on_real_loop(body, tmp_path)


def test_a_restarted_process_logs_on_and_its_crash_is_reported(tmp_path: Path) -> None:
    """stop then start: the second run is probed like the first, its output follows the first's in
    the one log, and a crash after the restart is a failure again."""
    adapter = ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}", "--mode=crash-on-pod"), tmp_path / "sched")
    assert adapter.restartable

    async def body(backend: FakeBackend) -> None:
        await adapter.start(backend.kubeconfig_path, {})
        await adapter.stop()
        assert adapter.failure() is None
        await adapter.start(backend.kubeconfig_path, {})
        async with Scenario(backend) as s:
            await s.create_pod("crash")
            for _ in range(600):  # up to 30 s on a loaded machine; returns as soon as it died
                if adapter.failure() is not None:
                    break
                await asyncio.sleep(0.05)
        assert (adapter.failure() or "").startswith(f"scheduler {shlex.join(adapter.argv)} exited with code 5 during "
                                                    "the scenario")
        await adapter.stop()

    on_real_loop(body, tmp_path)
    assert adapter.log_text().splitlines() == [
        "feature gates: ", "bound schedharness-probe/schedharness-probe to schedharness-probe", "stopped",
        f"--- schedharness: the scheduler started again ({shlex.join(adapter.argv)})",
        "feature gates: ", "bound schedharness-probe/schedharness-probe to schedharness-probe", "crashing"]


def test_the_clusters_scheduler_cannot_be_restarted() -> None:
    assert not ClusterSchedulerAdapter().restartable
    assert CallableAdapter(lambda path, gates: asyncio.sleep(0)).restartable


def test_missing_command_is_a_clear_error(tmp_path: Path) -> None:
    adapter = ProcessAdapter("/nonexistent/kube-scheduler --kubeconfig={kubeconfig}", tmp_path / "sched")

    async def body(backend: FakeBackend) -> None:
        with pytest.raises(AdapterError, match=r"^cannot start the scheduler command /nonexistent/kube-scheduler "
                                               r"--kubeconfig=\S+kubeconfig: \[Errno 2\] No such file or directory"):
            await adapter.start(backend.kubeconfig_path, {})

    on_real_loop(body, tmp_path)
    with pytest.raises(ValueError, match=r"^the scheduler command template is empty$"):
        ProcessAdapter("  ", tmp_path)


def test_feature_gates_round_trip_and_errors() -> None:
    assert parse_feature_gates(" B=false, A=True ,") == {"B": False, "A": True}
    assert format_feature_gates({"B": False, "A": True}) == "A=true,B=false"
    assert parse_feature_gates("") == {}
    with pytest.raises(ValueError, match=r"^feature gate 'A=yes': write Name=true or Name=false, comma-separated$"):
        parse_feature_gates("A=yes")
    with pytest.raises(ValueError, match=r"^feature gate 'A': write Name=true or Name=false, comma-separated$"):
        parse_feature_gates("A")


def test_callable_adapter_runs_a_coroutine_until_cancelled_and_captures_its_log(tmp_path: Path) -> None:
    seen: list[Any] = []

    async def scheduler(kubeconfig: Path, gates: dict[str, bool]) -> None:
        log = logging.getLogger("schedharness.scheduler.test")
        log.info("started with %s", gates)
        seen.append(kubeconfig)
        try:
            await asyncio.sleep(3600)
        finally:
            log.info("cancelled")

    adapter = CallableAdapter(scheduler, name="sleeper")

    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            await adapter.start(backend.kubeconfig_path, {"A": True})
            await asyncio.sleep(1)
            assert adapter.failure() is None
            await adapter.stop()
            await adapter.stop()
            assert seen == [backend.kubeconfig_path]

    run(main())
    assert (adapter.name, adapter.needs_real_time) == ("sleeper", False)
    assert adapter.log_text() == ("INFO schedharness.scheduler.test: started with {'A': True}\n"
                                  "INFO schedharness.scheduler.test: cancelled\n")


def test_callable_adapter_with_start_and_stop_coroutines(tmp_path: Path) -> None:
    calls: list[str] = []

    async def start(kubeconfig: Path, gates: dict[str, bool]) -> str:
        calls.append("start")
        return "handle"

    async def stop(handle: str) -> None:
        calls.append(f"stop {handle}")

    adapter = CallableAdapter(start, stop)

    async def main() -> None:
        await adapter.start(tmp_path / "kc", {})
        await adapter.stop()
        await adapter.stop()

    run(main())
    assert calls == ["start", "stop handle"]


def test_a_restarted_callable_adapter_reports_a_crash_again(tmp_path: Path) -> None:
    runs: list[int] = []

    async def scheduler(kubeconfig: Path, gates: dict[str, bool]) -> None:
        runs.append(len(runs))
        await asyncio.sleep(2 if len(runs) == 2 else 3600)
        raise RuntimeError("informer exploded")

    adapter = CallableAdapter(scheduler, name="boom")

    async def main() -> None:
        await adapter.start(tmp_path, {})
        await asyncio.sleep(1)
        await adapter.stop()
        await adapter.start(tmp_path, {})
        await asyncio.sleep(5)
        assert adapter.failure() == "scheduler boom crashed during the scenario: RuntimeError: informer exploded"
        await adapter.stop()

    run(main())
    assert runs == [0, 1]


def test_callable_adapter_reports_a_crash_and_a_return(tmp_path: Path) -> None:
    async def crashes(kubeconfig: Path, gates: dict[str, bool]) -> None:
        await asyncio.sleep(2)
        raise RuntimeError("informer exploded")

    async def returns(kubeconfig: Path, gates: dict[str, bool]) -> None:
        return None

    crashing, returning = CallableAdapter(crashes, name="boom"), CallableAdapter(returns, name="quits")

    async def main() -> None:
        await crashing.start(tmp_path, {})
        await returning.start(tmp_path, {})
        await asyncio.sleep(5)
        assert crashing.failure() == "scheduler boom crashed during the scenario: RuntimeError: informer exploded"
        assert returning.failure() == "scheduler quits returned during the scenario instead of running until stopped"
        await crashing.stop()
        await returning.stop()

    run(main())


def test_callable_adapter_probe_waits_for_a_binding(tmp_path: Path) -> None:
    adapter = CallableAdapter(first_fit_scheduler, probe=True)
    idle = CallableAdapter(lambda path, gates: asyncio.sleep(3600), name="idle", probe=True, ready_timeout=10)

    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            await adapter.start(backend.kubeconfig_path, {})
            assert [e.name for e in backend.journal.requests("create", "pods", subresource="binding")] == [
                "schedharness-probe"]
            await adapter.stop()
            with pytest.raises(AdapterError, match=r"^scheduler idle did not bind the probe pod "
                                                   r"schedharness-probe/schedharness-probe within 10 s$"):
                await idle.start(backend.kubeconfig_path, {})

    run(main())


def test_callable_adapter_stop_after_a_failed_start_is_a_no_op(tmp_path: Path) -> None:
    stopped: list[object] = []

    async def start(path: Path, gates: dict[str, bool]) -> object:
        raise RuntimeError("refused: bad gates")

    async def stop(handle: object) -> None:
        stopped.append(handle)

    async def main() -> None:
        adapter = CallableAdapter(start, stop, name="refuser", logger_name="schedharness.test.refuser")
        with pytest.raises(RuntimeError, match=r"^refused: bad gates$"):
            await adapter.start(tmp_path / "kubeconfig", {})
        await adapter.stop()
        assert logging.getLogger("schedharness.test.refuser").handlers == []

    run(main())
    assert stopped == []


def test_a_scheduler_config_overlay_joins_the_written_configuration(tmp_path: Path) -> None:
    """``--scheduler-config``: an out-of-tree plugin's profile joins the configuration; the
    harness keeps the client connection (the run's API server) and leader election."""
    overlay = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
               "clientConnection": {"kubeconfig": "/elsewhere"}, "leaderElection": {"leaderElect": True},
               "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": [
                   {"name": "Coscheduling"}]}}}]}
    (tmp_path / "overlay.yaml").write_text(yaml.safe_dump(overlay))
    adapter = ProcessAdapter(command(tmp_path, "--config={config}"), tmp_path / "sched",
                             config_overlay=load_scheduler_config(tmp_path / "overlay.yaml"))
    adapter.command(tmp_path / "kc", {})
    written = yaml.safe_load((tmp_path / "sched" / "scheduler-config.yaml").read_text())
    assert written == {**overlay, "clientConnection": {"kubeconfig": str(tmp_path / "kc")},
                       "leaderElection": {"leaderElect": False}}


@pytest.mark.parametrize(("text", "message"), [
    (None, "{path}: No such file or directory"),
    ("[a, b]", "{path}: give a KubeSchedulerConfiguration (a YAML mapping)"),
    ("kind: Pod", "{path}: kind 'Pod': give a KubeSchedulerConfiguration"),
    ("a: [", "{path}: not YAML: while parsing a flow node"),
])
def test_a_scheduler_config_that_is_none_says_why(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "overlay.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ValueError, match=r"^" + re.escape(message.format(path=path)) + r"$"):
        load_scheduler_config(path)


# ---------------------------------------------------------------------- a scheduler name of its own

def test_a_scheduler_name_goes_into_the_placeholder_and_the_configurations_profile(tmp_path: Path) -> None:
    """``{scheduler_name}``: the run's name, else ``default-scheduler``; ``{config}``: a profile
    of that name, or the ``--scheduler-config``'s profile for ``default-scheduler`` renamed (a
    profile it names otherwise is kept as it is)."""
    adapter = ProcessAdapter(command(tmp_path, "--config={config}", "--name={scheduler_name}"), tmp_path / "sched")
    assert adapter.takes_scheduler_name
    assert adapter.command(tmp_path / "kc", {})[-1] == "--name=default-scheduler"
    config_path = tmp_path / "sched" / "scheduler-config.yaml"
    assert "profiles" not in yaml.safe_load(config_path.read_text())  # kube-scheduler's own default profile
    adapter.scheduler_name = "schedharness"
    assert adapter.command(tmp_path / "kc", {})[-1] == "--name=schedharness"
    assert yaml.safe_load(config_path.read_text())["profiles"] == [{"schedulerName": "schedharness"}]
    gang = {"plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]}}}
    overlay = {"profiles": [{"schedulerName": "default-scheduler", **gang}, {"schedulerName": "other"}, gang]}
    with_overlay = ProcessAdapter(command(tmp_path, "--config={config}"), tmp_path / "overlay", config_overlay=overlay)
    with_overlay.scheduler_name = "schedharness"
    with_overlay.command(tmp_path / "kc", {})
    assert yaml.safe_load((tmp_path / "overlay" / "scheduler-config.yaml").read_text())["profiles"] == [
        {"schedulerName": "schedharness", **gang}, {"schedulerName": "other"}, {"schedulerName": "schedharness", **gang}]
    assert overlay["profiles"][0]["schedulerName"] == "default-scheduler"  # the overlay itself is left alone
    assert not ProcessAdapter(command(tmp_path, "--kubeconfig={kubeconfig}"), tmp_path).takes_scheduler_name


@pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))
def test_kube_scheduler_given_the_name_through_config_schedules_only_pods_that_name_it(tmp_path: Path) -> None:
    """A real kube-scheduler (the one beside the envtest binaries) started with ``{config}`` and
    the name ``schedharness``: ready once it has bound the probe pod (which names it), it binds a
    pod naming ``schedharness`` and leaves one naming ``default-scheduler`` pending."""
    binary = find_assets() / "kube-scheduler"
    if not binary.is_file():
        pytest.skip(f"no kube-scheduler beside the envtest binaries in {binary.parent}")

    async def main() -> None:
        async with FakeBackend(tmp_path) as backend:
            adapter = ProcessAdapter(f"{binary} --config={{config}} --secure-port=0", tmp_path / "sched",
                                     ready_timeout=60)
            adapter.scheduler_name = "schedharness"
            await adapter.start(backend.kubeconfig_path, {})
            try:
                async with Scenario(backend, scheduler_name="schedharness") as s:
                    await s.create_node("n1")
                    await s.create_pod("ours", "1")
                    await s.create_pod("theirs", "1", manifest={"spec": {"schedulerName": "default-scheduler"}})
                    await s.eventually(s.pod_bound("ours"), within=30)
                    await s.never(s.pod_bound("theirs"), within=2)
                    assert [e.name for e in s.requests("create", "pods", subresource="binding")] == ["ours"]
            finally:
                await adapter.stop()

    asyncio.run(main())
