"""The API server's ``--runtime-config``: which API group versions it serves beyond its release's
defaults, given for the run (``--runtime-config``) and asked for by a scenario (its
``runtime_config`` marker).

kube-apiserver serves an API group version that its release keeps off by default (a beta such as
``scheduling.k8s.io/v1beta1``, where Workload and PodGroup live) only when its
``--runtime-config`` turns it on. A scenario that needs such an API says so with a marker,
``runtime_config("scheduling.k8s.io/v1beta1=true")``; what it gets depends on the backend:

* **fake**: each scenario's fake API server starts with the marker's keys and the run's
  ``--runtime-config`` merged (the run's value wins on a key both set): :func:`fake_runtime_config`.
  A release that has no such group version refuses it as kube-apiserver would; the scenario is
  then skipped with that message (it needs an API the release lacks).
* **envtest, kind, kubeconfig:PATH**: the API server is the run's (envtest, a kind cluster the run
  makes: started with ``--runtime-config``) or somebody's (a kind cluster reused, any kubeconfig),
  and a scenario cannot change it. The rule is one for all of them: the scenario runs when the
  cluster's discovery serves what the marker asks for (``GET /apis/<group>/<version>`` answers,
  and lists the resource when the key names one; ``false`` asks for it to be absent), and is
  skipped otherwise with a reason naming the key and the option that gives it
  (:func:`missing_api`). Discovery is what a client sees, so a reused cluster that serves the API
  (made with the same option by an earlier run kept with ``--kind-keep``) runs the scenario too.

A marker names group versions or resources (``group/version[/resource]``; ``v1`` or
``/v1[/resource]`` for the core group); ``api/all``, ``api/beta`` and the like are refused
(:func:`marker_problem`): what they turn on depends on the release, and discovery could not
answer for them.

The run's option is checked before any scenario starts (:func:`options_problem`): against the
fake's release on the fake, refused with ``kubeconfig:PATH`` (that cluster has its own flags); on
envtest and kind the kube-apiserver the run starts checks it itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from pathlib import Path

from fake_apiserver import FaultProxy, RuntimeConfigError, parse_runtime_config, runtime_config
from harness._backends.kind_setup import ClusterSession
from harness._backends.scenario_client import ApiError, ScenarioClient

__all__ = ["GroupVersion", "Served", "cluster_missing_api", "discover", "discover_now", "fake_refusal",
           "fake_runtime_config", "format_runtime_config", "marker_problem", "missing_api",
           "options_problem", "parse_option", "runtime_config_text", "wanted_group_versions"]

GroupVersion = tuple[str, str]
#: a served group version's resources (lowercase plural), or None when it is not served
Served = Mapping[GroupVersion, frozenset[str] | None]

_GO_TRUE = ("", "1", "t", "T", "true", "TRUE", "True")  # "" is kube-apiserver's "true"
_GO_FALSE = ("0", "f", "F", "false", "FALSE", "False")


def parse_option(values: str | Iterable[str]) -> dict[str, str]:
    """``--runtime-config``'s map from its values (the option given several times is one value
    joined with commas, as kube-apiserver reads its flag)."""
    return parse_runtime_config(values)


def format_runtime_config(config: Mapping[str, str]) -> str:
    """The flag's value for a map: ``a/v1=true,b/v1beta1=false``."""
    return ",".join(f"{key}={value}" for key, value in config.items())


def fake_runtime_config(marker: Mapping[str, str], run: Mapping[str, str]) -> dict[str, str]:
    """A scenario's fake API server's runtime config: the marker's keys, then the run's (which win)."""
    return {**marker, **run}


def options_problem(*, backend: str, release: str, given: Mapping[str, str]) -> str | None:
    """Why the run's ``--runtime-config`` cannot be used, worded as a usage error naming the
    option; None when it can (module docstring)."""
    if not given:
        return None
    if backend.startswith("kubeconfig:"):
        return (f"--runtime-config sets what an API server the run starts serves: with --backend {backend} the "
                "cluster's own kube-apiserver has its flags already")
    if backend == "fake":
        try:
            runtime_config(release, given)
        except RuntimeConfigError as e:
            return f"--runtime-config: the fake API server (Kubernetes v{release}) refuses it: {e}"
    return None


def _key(key: str) -> tuple[str, str, str | None] | None:
    """``group/version[/resource]`` of a marker key (``v1``, ``api/v1`` and ``/v1[/resource]`` for
    the core group, as kube-apiserver reads them), or None for another key."""
    if key in ("v1", "api/v1"):
        return "", "v1", None
    if key.startswith("/"):  # the core group: /v1, /v1/pods
        parts = key[1:].split("/")
        if len(parts) not in (1, 2) or not all(parts):
            return None
        return "", parts[0], parts[1] if len(parts) == 2 else None
    parts = key.split("/")
    if len(parts) not in (2, 3) or not all(parts) or parts[0] == "api":
        return None
    return parts[0], parts[1], parts[2] if len(parts) == 3 else None


def _on(value: str) -> bool | None:
    return True if value in _GO_TRUE else False if value in _GO_FALSE else None


def marker_problem(wanted: Mapping[str, str]) -> str | None:
    """Why a ``runtime_config`` marker cannot be read (a key that is no group version or resource,
    a value that is no boolean); None when it can."""
    for key, value in wanted.items():
        if _key(key) is None:
            return (f"runtime_config marker: {key}: name a group/version or group/version/resource "
                    "(e.g. scheduling.k8s.io/v1beta1=true)")
        if _on(value) is None:
            return f"runtime_config marker: {key}={value}: give true or false"
    return None


def wanted_group_versions(wanted: Mapping[str, str]) -> list[GroupVersion]:
    """The group versions a (readable) marker's keys name, in their order, each once."""
    out: list[GroupVersion] = []
    for key in wanted:
        parsed = _key(key)
        if parsed is not None and parsed[:2] not in out:
            out.append(parsed[:2])
    return out


def missing_api(wanted: Mapping[str, str], served: Served, *, hint: str) -> str | None:
    """The skip reason of a scenario whose marker asks for ``wanted`` on an API server whose
    discovery says ``served``; None when it serves what is asked for. ``hint`` says how to
    get it (``run with --runtime-config``)."""
    for key, value in wanted.items():
        parsed, on = _key(key), _on(value)
        if parsed is None or on is None:
            continue
        group, version, resource = parsed
        resources = served.get((group, version))
        there = resources is not None and (resource is None or resource in resources)
        if there != on:
            what = f"{group}/{version}" if group else version
            if resource is not None:
                what += f" {resource}"
            return (f"the API server serves {'no ' if on else ''}{what}: {hint} "
                    f"{key}={'true' if on else 'false'}")
    return None


async def _served(client: ScenarioClient, group: str, version: str) -> frozenset[str] | None:
    path = f"/api/{version}" if not group else f"/apis/{group}/{version}"
    try:
        found = await client.request("GET", path)
    except ApiError as e:
        if e.code == 404:
            return None
        raise
    return frozenset(str(r.get("name")) for r in (found or {}).get("resources") or () if "/" not in str(r.get("name")))


async def discover(kubeconfig: Path,
                   group_versions: Iterable[GroupVersion]) -> dict[GroupVersion, frozenset[str] | None]:
    """What a cluster's discovery serves of ``group_versions``: each one's resources, or None when
    it is not served. Asked through a proxy of its own, outside every scenario's journal;
    :class:`~harness._backends.scenario_client.ApiError` when the cluster does not answer."""
    async with FaultProxy(kubeconfig) as proxy:
        client = ScenarioClient(proxy.url)
        try:
            return {gv: await _served(client, *gv) for gv in group_versions}
        finally:
            await client.close()


def discover_now(kubeconfig: Path, group_versions: Iterable[GroupVersion]) -> dict[GroupVersion, frozenset[str] | None]:
    """:func:`discover` from synchronous code (a fixture, outside any loop)."""
    return asyncio.run(discover(kubeconfig, list(group_versions)))


def runtime_config_text(config: Mapping[str, str] | None) -> str:
    """How a report names an API server's runtime config: its keys, ``release defaults``, or
    ``not known`` (a cluster the run did not start)."""
    if config is None:
        return "not known"
    return format_runtime_config(config) if config else "release defaults"



def fake_refusal(release: str, config: Mapping[str, str]) -> str | None:
    """The skip reason of a scenario whose fake API server's runtime config (marker and run merged)
    its release refuses (it asks for an API the release lacks); None when the release takes it."""
    try:
        runtime_config(release, config)
    except RuntimeConfigError as e:
        return (f"needs --runtime-config {format_runtime_config(config)}: the fake API server (Kubernetes v{release}) "
                f"refuses it: {e}")
    return None


def _hint(session: ClusterSession) -> str:
    if session.backend == "kubeconfig":
        return "the cluster's own kube-apiserver decides what it serves: start it with --runtime-config"
    if session.runtime_config is None:
        return "the kind cluster was reused as it is: make a new one (another --kind-cluster) with --runtime-config"
    return "run with --runtime-config"


def cluster_missing_api(session: ClusterSession, wanted: Mapping[str, str]) -> str | None:
    """The skip reason of a scenario whose marker asks for ``wanted`` on the run's cluster, by its
    discovery (asked once a run per group version and kept on the session); None when it serves
    what is asked for."""
    unknown = [gv for gv in wanted_group_versions(wanted) if gv not in session.served_apis]
    if unknown:
        try:
            session.served_apis.update(discover_now(session.kubeconfig, unknown))
        except (ApiError, OSError, ValueError) as e:
            return (f"needs --runtime-config {format_runtime_config(wanted)}: the cluster's discovery did not "
                    f"answer: {e}")
    return missing_api(wanted, session.served_apis, hint=_hint(session))
