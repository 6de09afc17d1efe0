"""``--runtime-config`` on a release's defaults, as kube-apiserver parses, checks and merges it.

The messages are kube-apiserver's: where its v1.37 binary is at hand, the same values are given
to it and it must refuse each with the message the fake gives (it checks the flag before it
needs etcd, so no control plane is started)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fake_apiserver import RuntimeConfigError
from fake_apiserver._machinery.runtimeconfig import parse_runtime_config
from fake_apiserver._registry.kinds import runtime_config, served_kinds
from harness._backends.envtest import envtest_unavailable, find_assets, free_port

REFUSED = {
    "foo": "runtime-config invalid key foo",
    "a/b/c/d=true": "runtime-config invalid key a/b/c/d",
    "nope.io/v1=true": "unknown api groups nope.io/v1",
    "apps/v1=false,nope.io/v1=true,zzz.io/v2=true": "unknown api groups nope.io/v1,zzz.io/v2",
    "scheduling.k8s.io/v1alpha2=true": "group version scheduling.k8s.io/v1alpha2 that has not been registered",
    "scheduling.k8s.io/v1beta1=maybe": 'invalid value of scheduling.k8s.io/v1beta1: maybe, err: strconv.ParseBool: '
                                       'parsing "maybe": invalid syntax',
    "api/beta=": "invalid value api/beta=",
    "api/beta=1": "invalid value api/beta=1",
    "api/all=false": "[--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true, "
                     "invalid runtime-config with only api/all=false]",
    "api/all=false,api/v1=true": "--runtime-config=api/all=false conflicts with --enable-priority-and-fairness=true",
    "flowcontrol.apiserver.k8s.io/v1=false": "--runtime-config=flowcontrol.apiserver.k8s.io/v1=false conflicts with "
                                             "--enable-priority-and-fairness=true",
    "scheduling.k8s.io/v1beta1/Workloads=true": 'invalid key scheduling.k8s.io/v1beta1/Workloads: '
                                                'group/version/resource and resource is always lowercase plural, '
                                                'not "Workloads"',
}


def _served(flag: str, gates: tuple[str, ...] = ("GenericWorkload",)) -> set[tuple[str, str, str]]:
    config = runtime_config("1.37", flag)
    return {(k.group, k.version, k.resource) for k in served_kinds("1.37", config=config, gate=lambda g: g in gates)}


def test_the_flag_is_split_on_commas_and_the_first_equals_sign() -> None:
    assert parse_runtime_config(" a/v1 = true ,b/v2,, c/v3=x=y") == {"a/v1": "true", "b/v2": "", "c/v3": "x=y"}
    assert parse_runtime_config(["a/v1=true", "a/v1=false,b/v1"]) == {"a/v1": "false", "b/v1": ""}


@pytest.mark.parametrize("flag", sorted(REFUSED))
def test_a_value_kube_apiserver_refuses_is_refused_with_its_message(flag: str) -> None:
    with pytest.raises(RuntimeConfigError) as refused:
        runtime_config("1.37", flag)
    assert str(refused.value) == REFUSED[flag]


def test_nothing_given_serves_the_releases_defaults() -> None:
    assert _served("") == {(k.group, k.version, k.resource) for k in served_kinds("1.37")}


def test_a_beta_version_is_served_with_its_gate_and_only_then() -> None:
    default = _served("")
    gangs = {("scheduling.k8s.io", "v1beta1", "podgroups"), ("scheduling.k8s.io", "v1beta1", "workloads")}
    assert _served("scheduling.k8s.io/v1beta1=true") - default == gangs
    assert _served("scheduling.k8s.io/v1beta1") - default == gangs  # no value: true
    assert _served("scheduling.k8s.io/v1beta1=true", gates=()) == default  # the gate off: not served
    assert _served("scheduling.k8s.io/v1beta1/workloads=true") - default == {
        ("scheduling.k8s.io", "v1beta1", "workloads")}  # one resource of a version off


def test_a_resource_setting_wins_over_its_versions_and_a_version_over_api_all() -> None:
    default = _served("")
    assert _served("api/all=true,scheduling.k8s.io/v1beta1=false,scheduling.k8s.io/v1beta1/podgroups=true") >= {
        ("scheduling.k8s.io", "v1beta1", "podgroups")}
    assert ("scheduling.k8s.io", "v1beta1", "workloads") not in _served(
        "api/all=true,scheduling.k8s.io/v1beta1=false,scheduling.k8s.io/v1beta1/podgroups=true")
    assert _served("apps/v1=false") == {r for r in default if r[0] != "apps"}
    assert ("apps", "v1", "deployments") in _served("apps/v1=false,apps/v1/deployments=true")


def test_api_beta_turns_every_beta_version_on_and_each_resource_is_served_at_one_version() -> None:
    served = _served("api/beta=true")
    assert ("scheduling.k8s.io", "v1beta1", "workloads") in served
    assert ("storagemigration.k8s.io", "v1beta1", "storageversionmigrations") not in served  # v1 is preferred
    assert len({(g, r) for g, _, r in served}) == len(served)


def test_a_group_of_another_server_is_let_through_and_legacy_is_ignored() -> None:
    assert _served("api/legacy=false") == _served("")
    assert _served("v1=true") == _served("")  # the core group's aliases


@pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))
@pytest.mark.parametrize("flag", sorted(REFUSED))
def test_kube_apiserver_refuses_each_with_the_same_message(flag: str, tmp_path: Path) -> None:
    assets = find_assets()
    key = tmp_path / "sa.key"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
    done = subprocess.run([str(assets / "kube-apiserver"), f"--runtime-config={flag}", "--etcd-servers=http://127.0.0.1:1",
                           "--bind-address=127.0.0.1", f"--secure-port={free_port()}", f"--cert-dir={tmp_path}",
                           "--service-account-issuer=https://127.0.0.1/", f"--service-account-key-file={key}",
                           f"--service-account-signing-key-file={key}"], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    failed = [line for line in done.stderr.splitlines() if '"command failed"' in line]
    assert failed, done.stderr[-2000:]
    expected = REFUSED[flag].replace('"', '\\"')
    assert failed[0].endswith(f'err="{expected}"'), failed[0]
