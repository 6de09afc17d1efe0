"""The API server's feature gates: given with ``--apiserver-feature-gates``, or on the fake
taken from the scenario's scheduler gates.

A feature that spans components needs its gate on in each: KEP-5836's scheduler preemption reads
the Node field ``spec.podPreemptionPolicy``, which kube-apiserver v1.37 drops on write while its
own ``InPlacePodVerticalScalingSchedulerPreemption`` is off. An operator trying an alpha feature
sets the gate on every component; the harness does the same on the fake backend unless told
otherwise: a scenario's scheduler gates (its ``feature_gates`` marker and ``--feature-gates``)
that the fake's release registers are its API server's gates too. Gates the release does not
register (``SchedulerPreEnqueuePodStatus``, which no release has yet) are not passed: a
kube-apiserver given them would refuse to start. ``--apiserver-feature-gates`` replaces that
choice with its own, for every scenario (``InPlacePodVerticalScalingSchedulerPreemption=false``
runs the KEP-5836 suite with the scheduler's gate on and the API server's off).

On envtest the gates go to the kube-apiserver the run starts (which checks them itself), on kind
to a cluster the run makes (``--kind-apiserver-feature-gates``, the older name, does the same);
a cluster that exists already has its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from fake_apiserver import FeatureGateError, FeatureGates, known_gates

__all__ = ["check_fake_gates", "fake_apiserver_gates", "gates_text", "options_problem"]


def fake_apiserver_gates(release: str, given: Mapping[str, bool] | None,
                         scheduler_gates: Mapping[str, bool]) -> dict[str, bool]:
    """The gates of a scenario's fake API server: ``given`` (``--apiserver-feature-gates``) when
    set, else the scheduler's gates that ``release`` registers (module docstring)."""
    if given is not None:
        return dict(given)
    known = known_gates(release)
    return {name: on for name, on in scheduler_gates.items() if name in known}


def check_fake_gates(release: str, gates: Mapping[str, bool], *, derived: bool) -> str | None:
    """None when a fake API server of ``release`` takes ``gates``, else why not, worded to follow
    the option's name (``derived``: taken from ``--feature-gates`` rather than given)."""
    try:
        FeatureGates(release, gates)
    except FeatureGateError as e:
        if derived:
            return (f"the fake API server (Kubernetes v{release}) takes the scheduler's gates it knows as its own "
                    f"and refuses them: {e}; give --apiserver-feature-gates to set its gates apart")
        return f"the fake API server (Kubernetes v{release}) refuses them: {e}"
    return None


def options_problem(*, backend: str, release: str, given: Mapping[str, bool] | None, kind_gates: Mapping[str, bool],
                    scheduler_gates: Mapping[str, bool]) -> str | None:
    """Why the run's API server gate options cannot be used, worded as a usage error that names
    the option first; None when they can. ``given`` is ``--apiserver-feature-gates`` (None when
    absent), ``kind_gates`` its older name ``--kind-apiserver-feature-gates``, ``release`` the
    fake's."""
    if given is not None and kind_gates and dict(kind_gates) != dict(given):
        return "--kind-apiserver-feature-gates is the older name of --apiserver-feature-gates: give one of them"
    if given is not None and backend.startswith("kubeconfig:"):
        return (f"--apiserver-feature-gates sets the gates of an API server the run starts: with --backend {backend} "
                "the cluster's own kube-apiserver has its gates already")
    if backend == "fake":
        why = check_fake_gates(release, fake_apiserver_gates(release, given, scheduler_gates), derived=given is None)
        if why is not None:
            return f"--apiserver-feature-gates: {why}" if given is not None else f"--feature-gates: {why}"
    return None


def gates_text(gates: Mapping[str, bool] | None) -> str:
    """How a report names an API server's gates: the ones it was given, ``release defaults``, or
    ``not known`` (a cluster the run did not start)."""
    if gates is None:
        return "not known"
    if not gates:
        return "release defaults"
    return ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items()))
