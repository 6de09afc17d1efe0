"""Fixtures of the real clients' tests: one live kube-apiserver that the apply tests of kubectl
and of the Python client compare the fake with."""

from __future__ import annotations

from typing import Iterator

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets


@pytest.fixture(scope="package")
def real_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A live kube-apiserver v1.37.2 (skipped without ``KUBEBUILDER_ASSETS``), started once for the
    folder: kubectl's apply scenario and the Python client's run on it one after the other."""
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path_factory.mktemp("envtest-logs")) as plane:
        yield plane
