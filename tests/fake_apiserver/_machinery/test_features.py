"""The API server's feature gates (``fake_apiserver._machinery.features``): each release's table, and the
overrides kube-apiserver refuses, with its messages.

The messages were captured from kube-apiserver v1.37.2 (built from k8s.io/kubernetes v1.37.2)
started with the same ``--feature-gates``: it exits with ``"command failed" err="<message>"``.
With ``KUBEBUILDER_ASSETS`` naming v1.37 binaries, :func:`test_a_real_kube_apiserver_refuses_them_alike`
checks them again and :func:`test_the_gates_a_real_kube_apiserver_lists_are_the_tables` compares
the alpha and beta gates its ``--help`` lists with the table.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from fake_apiserver import FakeApiServer, FeatureGateError, FeatureGates, Store
from fake_apiserver._machinery.features import GateSpec, gate_dependencies, known_gates
from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, EnvtestError, envtest_unavailable, find_assets
from tests.support.paths import ROOT

GENERATED = ROOT / "fake_apiserver" / "data" / "feature-gates.json"
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver v1.37")

#: --feature-gates -> kube-apiserver v1.37.2's refusal (several errors come in Go's map order,
#: which varies from run to run; the fake's are sorted by gate name)
REFUSED = [
    ({"NoSuchGate": True}, "unrecognized feature gate: NoSuchGate"),
    ({"InPlacePodVerticalScaling": False},
     "cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true"),
    ({"PodLevelResources": False},
     "[InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are disabled: "
     "[PodLevelResources], PodLevelResourcesFixDefaulting is enabled, but depends on features that are disabled: "
     "[PodLevelResources], PodLevelResourcesFixKubeletQOSClass is enabled, but depends on features that are "
     "disabled: [PodLevelResources]]"),
    ({"AllAlpha": True},
     "[CompositePodGroup is enabled, but depends on features that are disabled: [GenericWorkload], "
     "PodGroupPreemptionPolicy is enabled, but depends on features that are disabled: [GenericWorkload], "
     "TopologyAwareWorkloadScheduling is enabled, but depends on features that are disabled: [GenericWorkload], "
     "WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]]"),
    ({"InPlacePodVerticalScaling": False, "InPlacePodVerticalScalingInitContainers": False},
     "[cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true, cannot set feature "
     "gate InPlacePodVerticalScalingInitContainers to false, feature is locked to true]"),
]


@pytest.mark.parametrize(("gates", "message"), REFUSED, ids=[m.split(" ")[0] for _, m in REFUSED])
def test_gates_kube_apiserver_refuses_are_refused_with_its_message(gates: dict[str, bool], message: str) -> None:
    with pytest.raises(FeatureGateError, match=f"^{re.escape(message)}$"):
        FeatureGates("1.37", gates)


def test_the_first_unknown_gate_stops_the_check() -> None:
    """``unsafeSetFromMap`` returns at the first unknown gate; the fake reads them in the order given."""
    with pytest.raises(FeatureGateError, match=r"^unrecognized feature gate: B$"):
        FeatureGates("1.37", {"InPlacePodVerticalScaling": False, "B": True, "A": True})


def test_kep_5836s_gate_as_each_release_has_it() -> None:
    """v1.37 (``pkg/features/kube_features.go``): alpha, off, needing ``InPlacePodVerticalScaling``
    (GA, locked on since v1.35); before v1.37 no release registers it."""
    gates = known_gates("1.37")
    assert gates["InPlacePodVerticalScalingSchedulerPreemption"] == GateSpec(default=False, stage="ALPHA")
    assert gates["InPlacePodVerticalScaling"] == GateSpec(default=True, stage="GA", locked=True)
    assert gate_dependencies("1.37")["InPlacePodVerticalScalingSchedulerPreemption"] == ("InPlacePodVerticalScaling",)
    for release in ("1.34", "1.35", "1.36"):
        assert "InPlacePodVerticalScalingSchedulerPreemption" not in known_gates(release)
    assert known_gates("1.34")["InPlacePodVerticalScaling"] == GateSpec(default=True, stage="BETA")
    assert known_gates("1.35")["InPlacePodLevelResourcesVerticalScaling"] == GateSpec(default=False, stage="ALPHA")
    assert known_gates("1.36")["InPlacePodLevelResourcesVerticalScaling"] == GateSpec(default=True, stage="BETA")
    assert gate_dependencies("1.34") == {}  # dependencies came in v1.35


def test_defaults_overrides_and_what_a_release_lacks() -> None:
    defaults = FeatureGates()
    assert defaults.release == "1.37.0" and defaults.changed == {}
    assert not defaults.enabled("InPlacePodVerticalScalingSchedulerPreemption")
    assert defaults.enabled("PodLevelResources")
    on = FeatureGates("1.37", {"InPlacePodVerticalScalingSchedulerPreemption": True})
    assert on.enabled("InPlacePodVerticalScalingSchedulerPreemption")
    assert on.changed == {"InPlacePodVerticalScalingSchedulerPreemption": True}
    assert repr(on) == "FeatureGates(v1.37.0, InPlacePodVerticalScalingSchedulerPreemption=true)"
    older = FeatureGates("1.36")
    assert not older.knows("InPlacePodVerticalScalingSchedulerPreemption")
    assert not older.enabled("InPlacePodVerticalScalingSchedulerPreemption")  # not served there: off
    assert FeatureGates("1.37", {"InPlacePodVerticalScaling": True}).changed == {}  # its locked value: accepted


def test_all_alpha_and_all_beta_set_every_gate_not_named() -> None:
    needed = ("PodLevelResources", "InPlacePodLevelResourcesVerticalScaling", "NodeDeclaredFeatures",
              "PodLevelResourcesFixDefaulting", "PodLevelResourcesFixKubeletQOSClass")  # beta ones that need each other
    beta_off = FeatureGates("1.37", {"AllBeta": False, **{name: True for name in needed}})
    assert not beta_off.enabled("APIResponseCompression")  # beta, on by default
    assert beta_off.enabled("PodLevelResources")  # named: kept
    assert beta_off.enabled("InPlacePodVerticalScaling")  # GA: not a beta gate
    alpha_on = FeatureGates("1.37", {"AllAlpha": True, "GenericWorkload": True})
    assert alpha_on.enabled("InPlacePodVerticalScalingSchedulerPreemption")


def test_every_release_takes_its_own_defaults() -> None:
    for release in ("1.34", "1.35", "1.36", "1.37"):
        assert FeatureGates(release).changed == {}


def test_the_server_and_the_store_take_the_gates() -> None:
    server = FakeApiServer(feature_gates={"InPlacePodVerticalScalingSchedulerPreemption": True})
    assert server.feature_gates.enabled("InPlacePodVerticalScalingSchedulerPreemption")
    assert server.store.features is server.feature_gates
    with pytest.raises(FeatureGateError,
                       match=r"^unrecognized feature gate: InPlacePodVerticalScalingSchedulerPreemption$"):
        Store(kubernetes_version="1.36", feature_gates={"InPlacePodVerticalScalingSchedulerPreemption": True})
    store = Store()
    with pytest.raises(FeatureGateError, match=r"^unrecognized feature gate: X$"):
        store.set_feature_gates({"X": True})
    assert store.features.changed == {}  # a refused change leaves the gates as they were


# ------------------------------------------------------------------- the data and its generator


def _modcache() -> Path | None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_feature_gates import RELEASES, default_modcache
    finally:
        sys.path.pop(0)
    cache = default_modcache()
    wanted = [cache / "k8s.io" / f"kubernetes@v{patch}" for patch in RELEASES.values()]
    return cache if all(path.is_dir() for path in wanted) else None


def test_the_generator_reproduces_the_data(tmp_path: Path) -> None:
    """``tools/gen_feature_gates.py`` over the Go module cache writes the committed file byte for
    byte (the data is generated from Kubernetes' source, never edited)."""
    cache = _modcache()
    if cache is None:
        pytest.skip("needs k8s.io/kubernetes v1.34.4, v1.35.4, v1.36.3, v1.37.2 and their staging modules in the Go "
                    "module cache (go mod download k8s.io/kubernetes@v1.37.2 ...)")
    out = tmp_path / "gates.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_feature_gates.py"), "--modcache", str(cache),
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == GENERATED.read_text()


# ------------------------------------------------------------------- a real kube-apiserver


def _v137() -> Path:
    assets = find_assets()
    version = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                             timeout=60, check=False).stdout.strip()
    if not version.startswith("Kubernetes v1.37."):
        pytest.skip(f"the recorded answers are kube-apiserver v1.37's; {ASSETS_VARIABLE} holds {version}")
    return assets


@needs_binaries
def test_the_gates_a_real_kube_apiserver_lists_are_the_tables() -> None:
    """``--help`` lists every alpha and beta gate with its default (``kube:Name=true|false (BETA -
    default=true)``); GA and deprecated gates are not listed."""
    text = subprocess.run([str(_v137() / "kube-apiserver"), "--help"], capture_output=True, text=True,
                          timeout=60, check=False).stdout
    listed = {m.group(1): GateSpec(m.group(3) == "true", m.group(2))
              for m in re.finditer(r"kube:(\w+)=true\|false \((ALPHA|BETA) - default=(true|false)\)", text)}
    ours = {name: spec for name, spec in known_gates("1.37").items() if spec.stage in ("ALPHA", "BETA")}
    assert listed == ours


@needs_binaries
@pytest.mark.parametrize(("gates", "message"), REFUSED[:3], ids=["unknown", "locked", "dependency"])
def test_a_real_kube_apiserver_refuses_them_alike(gates: dict[str, bool], message: str, tmp_path: Path) -> None:
    control_plane = ControlPlane(assets=_v137(), logdir=tmp_path, feature_gates=gates)
    with pytest.raises(EnvtestError) as refused:
        control_plane.start()
    said = re.search(r'"command failed" err="(.*)"$', str(refused.value), re.MULTILINE)
    assert said is not None, str(refused.value)
    assert _errors(said.group(1)) == _errors(message)  # several come in Go's map order


def _errors(message: str) -> set[str]:
    """The errors an aggregate message holds, whatever their order."""
    return set(re.findall(r"\w+ is enabled, but depends on features that are disabled: \[[^\]]*\]"
                          r"|cannot set feature gate \w+ to \w+, feature is locked to \w+"
                          r"|unrecognized feature gate: \w+", message))
