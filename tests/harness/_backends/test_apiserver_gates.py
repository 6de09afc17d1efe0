"""The API server's gates of a run and of each scenario (``harness._backends.apiserver_gates``)."""

from __future__ import annotations

import pytest

from harness._backends.apiserver_gates import check_fake_gates, fake_apiserver_gates, gates_text, options_problem

KEP5836 = {"InPlacePodVerticalScaling": True, "InPlacePodVerticalScalingSchedulerPreemption": True}


def test_the_scheduler_gates_the_release_registers_are_the_api_servers() -> None:
    scheduler = {**KEP5836, "SchedulerPreEnqueuePodStatus": True, "SchedulerAsyncAPICalls": True}
    assert fake_apiserver_gates("1.37.0", None, scheduler) == {**KEP5836, "SchedulerAsyncAPICalls": True}
    # v1.36 has neither KEP-5836's gate nor KEP-5501's; SchedulerAsyncAPICalls it has
    assert fake_apiserver_gates("1.36.0", None, scheduler) == {"InPlacePodVerticalScaling": True,
                                                              "SchedulerAsyncAPICalls": True}


def test_given_gates_replace_the_scheduler_ones() -> None:
    given = {"InPlacePodVerticalScalingSchedulerPreemption": False}
    assert fake_apiserver_gates("1.37.0", given, KEP5836) == given
    assert fake_apiserver_gates("1.37.0", {}, KEP5836) == {}  # given empty: the release's defaults


def test_refusals_are_worded_for_the_option_that_carried_them() -> None:
    assert check_fake_gates("1.37.0", KEP5836, derived=True) is None
    assert check_fake_gates("1.37.0", {"X": True}, derived=False) == (
        "the fake API server (Kubernetes v1.37.0) refuses them: unrecognized feature gate: X")
    assert check_fake_gates("1.37.0", {"InPlacePodVerticalScaling": False}, derived=True) == (
        "the fake API server (Kubernetes v1.37.0) takes the scheduler's gates it knows as its own and refuses them: "
        "cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true; give "
        "--apiserver-feature-gates to set its gates apart")


@pytest.mark.parametrize(("backend", "given", "kind_gates", "problem"), [
    ("fake", None, {}, None),
    ("kind", {"A": True}, {"A": True}, None),  # the same gates under both names
    ("kind", {"A": True}, {"B": True},
     "--kind-apiserver-feature-gates is the older name of --apiserver-feature-gates: give one of them"),
    ("envtest", {"NotCheckedHere": True}, {}, None),  # envtest's kube-apiserver checks its own
    ("kubeconfig:/k", {}, {}, "--apiserver-feature-gates sets the gates of an API server the run starts: with "
                              "--backend kubeconfig:/k the cluster's own kube-apiserver has its gates already"),
    ("fake", {"X": True}, {}, "--apiserver-feature-gates: the fake API server (Kubernetes v1.37.0) refuses them: "
                              "unrecognized feature gate: X"),
])
def test_option_problems(backend: str, given: dict[str, bool] | None, kind_gates: dict[str, bool],
                         problem: str | None) -> None:
    assert options_problem(backend=backend, release="1.37.0", given=given, kind_gates=kind_gates,
                           scheduler_gates=KEP5836) == problem


def test_how_a_report_names_them() -> None:
    assert gates_text(None) == "not known"
    assert gates_text({}) == "release defaults"
    assert gates_text({"B": False, "A": True}) == "A=true,B=false"
