"""Fixtures of the apiextensions tests: one real kube-apiserver v1.37 that the create, update and
naming sequences of CRDs are posted to."""

from __future__ import annotations

import subprocess
from typing import Iterator

import pytest

from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, find_assets
from tests.support.crds import CrdClient


@pytest.fixture(scope="package")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CrdClient]:
    """A real kube-apiserver v1.37 (the tests that ask for it are skipped without
    ``KUBEBUILDER_ASSETS``), started once for the folder: the create corpus, the update sequence and
    the naming sequence are posted to it in turn, each in a group of its own."""
    assets = find_assets()
    version_text = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                                  timeout=60, check=False).stdout.strip()
    if not version_text.startswith("Kubernetes v1.37."):
        pytest.skip(f"the recorded answers are kube-apiserver v1.37's; {ASSETS_VARIABLE} holds {version_text}")
    tmp = tmp_path_factory.mktemp("apiextensions")
    with ControlPlane(assets=assets, logdir=tmp / "logs") as control_plane:
        assert control_plane.kubeconfig_path is not None
        yield CrdClient(control_plane.kubeconfig_path, tmp)
