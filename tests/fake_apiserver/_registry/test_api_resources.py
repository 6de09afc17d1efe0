"""Every resource of the release, as kube-apiserver v1.37.2 lists and selects it.

* ``kubectl api-resources -o wide`` against the fake prints what it prints against a real
  kube-apiserver of the same release (with ``KUBEBUILDER_ASSETS``: both run side by side).
* Field selectors: for every listable resource, the fake refuses an unknown field label with the
  message kube-apiserver v1.37.2 gave, and takes every label that server took
  (``tests/data/kinds/field-labels-v1.37.2.json``, recorded from it; with ``KUBEBUILDER_ASSETS``
  the real server is asked again and must still answer so).
"""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable

import pytest

from fake_apiserver import KINDS
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.support.paths import TEST_DATA

RECORDED = TEST_DATA / "kinds" / "field-labels-v1.37.2.json"
# Labels tried on every resource: those some kind of v1.37 takes, and one none takes.
CANDIDATES = sorted({f for spec in KINDS for f in spec.fields} | {"spec.pool.generation"})

Get = Callable[[str], tuple[int, Any]]


def _getter(server: str, token: str | None = None, context: ssl.SSLContext | None = None) -> Get:
    def get(path: str) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        request = urllib.request.Request(server + path, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())
    return get


def _field_labels(get: Get) -> dict[str, Any]:
    """For each listable resource: the refusal of an unknown label, and the labels taken."""
    out: dict[str, Any] = {}
    for spec in KINDS:
        if "list" not in spec.verbs:
            continue
        base = (f"/apis/{spec.group}/{spec.version}" if spec.group else "/api/v1") + f"/{spec.resource}"
        code, body = get(base + "?fieldSelector=zzz%3D1")
        taken = [label for label in CANDIDATES
                 if get(base + "?fieldSelector=" + urllib.parse.quote(f"{label}=x"))[0] == 200]
        out[f"{spec.group}/{spec.version}/{spec.resource}"] = {"refused": [code, body.get("message")], "taken": taken}
    return out


def test_every_resource_selects_on_the_labels_kube_apiserver_takes(threaded_server: Any) -> None:
    recorded = json.loads(RECORDED.read_text())
    assert _field_labels(_getter(threaded_server.url)) == recorded


def _real(tmp_path: Path) -> tuple[ControlPlane, Path]:
    plane = ControlPlane(assets=find_assets(), logdir=tmp_path / "logs")
    return plane, plane.start()


def test_kube_apiserver_still_selects_as_recorded(tmp_path: Path) -> None:
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    plane, kubeconfig = _real(tmp_path)
    try:
        answers = _field_labels(_getter(*plane.access()))
    finally:
        plane.stop()
    if not RECORDED.exists():  # the first capture
        RECORDED.parent.mkdir(parents=True, exist_ok=True)
        RECORDED.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n")
    assert answers == json.loads(RECORDED.read_text())


def test_kubectl_api_resources_lists_what_kube_apiserver_lists(threaded_server: Any, tmp_path: Path) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)

    def api_resources(kubeconfig: Path, cache: str) -> str:
        done = subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", f"--cache-dir={tmp_path / cache}",
                               "api-resources", "-o", "wide"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    plane, kubeconfig = _real(tmp_path)
    try:
        real = api_resources(kubeconfig, "real")
    finally:
        plane.stop()
    assert api_resources(threaded_server.kubeconfig, "fake") == real
