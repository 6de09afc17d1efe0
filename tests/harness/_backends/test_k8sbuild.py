"""``schedharness k8s build``: real components from their Go modules (harness._backends.k8sbuild).

The pure parts (which modules are pinned, how a release is resolved and stamped, what counts as
a finished build) are tested here on inputs written out in full; the messages of the command's
failures are tested through the command itself, with the real ``go`` where one is needed. The
build proper takes minutes: ``.ci/run`` runs it before the tests, and the tests at the end check
what it left (each binary's ``--version``, the manifest, a second call reusing it) when
``KUBEBUILDER_ASSETS`` names such a build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness._backends.k8sbuild import (
    BINARIES,
    MANIFEST,
    BuildError,
    build,
    cache_root,
    complete,
    etcd_version_of,
    ldflags,
    resolve_version,
    staging_modules,
    staging_version,
    stamp_from_describe,
)

# The head and the replace block of k8s.io/kubernetes v1.37.2's go.mod, shortened.
GOMOD = """module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
\tgo.etcd.io/etcd/client/v3 v3.7.0
\tk8s.io/api v0.0.0
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/apiextensions-apiserver => ./staging/src/k8s.io/apiextensions-apiserver
\tk8s.io/kube-scheduler => ./staging/src/k8s.io/kube-scheduler
)
"""

SERVED = "v1.30.4 v1.30.14 v1.35.4 v1.36.1 v1.36.3 v1.37.0-rc.1 v1.37.2".split()


def _schedharness(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True,
                          env=env, check=False, timeout=600)


# ---------------------------------------------------------------------- the pure parts


def test_the_staging_modules_are_those_the_release_replaces_with_its_staging_tree() -> None:
    assert staging_modules(GOMOD) == ["k8s.io/api", "k8s.io/apiextensions-apiserver", "k8s.io/kube-scheduler"]
    assert staging_version("v1.37.2") == "v0.37.2"
    assert staging_version("v1.37.0-rc.1") == "v0.37.0-rc.1"


def test_a_minor_release_resolves_to_its_newest_patch_and_an_exact_one_is_kept() -> None:
    assert resolve_version(None, SERVED) == "v1.37.2"
    assert resolve_version("1.36", SERVED) == "v1.36.3"
    assert resolve_version("v1.30", SERVED) == "v1.30.14"  # numerically newest, not by text
    assert resolve_version("1.35.4", []) == "v1.35.4"
    assert resolve_version("v1.37.2", []) == "v1.37.2"


def test_a_release_the_proxy_does_not_list_or_text_that_is_no_release_is_refused() -> None:
    with pytest.raises(BuildError, match=r"^step 'resolve version' \(k8s\.io/kubernetes\): the Go module proxy "
                                         r"lists no release of 1\.99 \(it lists 1\.30, 1\.35, 1\.36, 1\.37\)$"):
        resolve_version("1.99", SERVED)
    with pytest.raises(BuildError, match=r"^step 'resolve version' \(k8s\.io/kubernetes\): '2\.1' is not a "
                                         r"Kubernetes release: give 1\.NN \(its newest patch\) or 1\.NN\.P$"):
        resolve_version("2.1", SERVED)


def test_the_binaries_are_stamped_in_both_version_packages() -> None:
    flags = ldflags("v1.37.2", build_date="2026-10-27T12:01:04Z").split(" -X ")
    assert flags[0] == "-s -w"
    assert "k8s.io/component-base/version.gitVersion=v1.37.2" in flags
    assert "k8s.io/client-go/pkg/version.gitVersion=v1.37.2" in flags
    assert "k8s.io/component-base/version.gitMajor=1" in flags
    assert "k8s.io/component-base/version.gitMinor=37" in flags
    assert "k8s.io/client-go/pkg/version.buildDate=2026-10-27T12:01:04Z" in flags
    assert "k8s.io/component-base/version.gitTreeState=clean" in flags


@pytest.mark.parametrize(("describe", "version"), [
    ("v1.37.2", "v1.37.2"),
    ("v1.37.0-alpha.0-6-g84c76d1142ea4d", "v1.37.0-alpha.0.6+84c76d1142ea4d"),  # hack/lib/version.sh's example
    ("v1.37.2-3-g0123456789abcd", "v1.37.2-3+0123456789abcd"),
    ("v1.38.0-alpha.1-12-g0123456789abcd-dirty", "v1.38.0-alpha.1.12+0123456789abcd-dirty"),
])
def test_a_checkouts_description_becomes_semver_as_the_release_scripts_make_it(describe: str, version: str) -> None:
    assert stamp_from_describe(describe) == version


def test_etcd_is_the_version_the_release_is_tested_with() -> None:
    script = 'ETCD_VERSION=${ETCD_VERSION:-3.7.0}\nETCD_HOST=${ETCD_HOST:-127.0.0.1}\n'
    assert etcd_version_of(lambda path: script if path == "hack/lib/etcd.sh" else None, GOMOD) == "v3.7.0"
    assert etcd_version_of(lambda path: None, GOMOD) == "v3.7.0"  # no script: the client go.mod requires


def test_the_cache_is_outside_the_repository() -> None:
    assert cache_root({"HOME": "/home/u"}) == Path("/home/u/.cache/schedharness/k8s")
    assert cache_root({"HOME": "/home/u", "XDG_CACHE_HOME": "/c"}) == Path("/c/schedharness/k8s")


def test_only_a_finished_build_counts(tmp_path: Path) -> None:
    for name in BINARIES:
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    assert not complete(tmp_path)  # the manifest is written last
    (tmp_path / MANIFEST).write_text("{}")
    assert complete(tmp_path)
    (tmp_path / "kube-scheduler").chmod(0o644)
    assert not complete(tmp_path)


# ---------------------------------------------------------------------- the command's failures


def test_without_go_the_command_names_the_step_and_exits_2(tmp_path: Path) -> None:
    done = _schedharness("k8s", "build", "--cache-dir", str(tmp_path), env={**os.environ, "PATH": str(tmp_path)})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("schedharness k8s build: step 'find Go' (k8s.io/kubernetes): no `go` on PATH: the "
                           "components are built from their Go modules (Go 1.26 or newer for Kubernetes v1.37)\n")


def test_a_version_and_a_source_together_are_a_usage_error(tmp_path: Path) -> None:
    done = _schedharness("k8s", "build", "1.37", "--source", str(tmp_path))
    assert (done.returncode, done.stderr) == (2, "schedharness k8s build: give a VERSION or --source DIR, not both "
                                                 "(a checkout's version is its own)\n")


def test_a_source_that_is_no_kubernetes_checkout_is_refused(tmp_path: Path) -> None:
    done = _schedharness("k8s", "build", "--source", str(tmp_path), "--cache-dir", str(tmp_path / "cache"))
    assert (done.returncode, done.stderr) == (
        2, f"schedharness k8s build: step 'read source' (k8s.io/kubernetes): {tmp_path} is not a kubernetes "
           "checkout (no go.mod of module k8s.io/kubernetes)\n")


@pytest.mark.skipif(shutil.which("go") is None, reason="needs go on PATH")
def test_a_release_the_proxy_does_not_serve_is_refused(tmp_path: Path) -> None:
    done = _schedharness("k8s", "build", "1.37.99", "--cache-dir", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == ("schedharness k8s build: step 'resolve version' (k8s.io/kubernetes): "
                                            "the Go module proxy serves no k8s.io/kubernetes v1.37.99 (This module "
                                            "version is not available.)")
    assert not (tmp_path / "v1.37.99").exists()


# ---------------------------------------------------------------------- a real build (.ci/run makes it)

ASSETS = Path(os.environ.get("KUBEBUILDER_ASSETS") or "/nonexistent")
needs_build = pytest.mark.skipif(not (ASSETS / MANIFEST).is_file(),
                                 reason="set KUBEBUILDER_ASSETS to a `schedharness k8s build` directory")


@needs_build
def test_each_binary_prints_the_release_it_was_built_as() -> None:
    manifest = json.loads((ASSETS / MANIFEST).read_text())
    version = manifest["version"]
    for name in ("kube-apiserver", "kube-scheduler"):
        out = subprocess.run([str(ASSETS / name), "--version"], capture_output=True, text=True, check=True).stdout
        assert out.strip() == f"Kubernetes {version}"
    out = subprocess.run([str(ASSETS / "etcd"), "--version"], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == f"etcd Version: {manifest['etcd_version'].lstrip('v')}"


@needs_build
def test_a_second_call_reuses_the_build() -> None:
    manifest = json.loads((ASSETS / MANIFEST).read_text())
    lines: list[str] = []
    result = build(manifest["version"], root=ASSETS.parent, progress=lines.append)
    assert (result.directory, result.built) == (ASSETS, False)
    assert lines == [f"k8s build {manifest['version']}: reusing {ASSETS} (built {manifest['built_at']})"]


@pytest.mark.skipif(shutil.which("go") is None, reason="needs go on PATH")
def test_without_the_proxy_a_minor_release_is_the_newest_finished_build_in_the_cache(tmp_path: Path) -> None:
    for version, finished in (("v1.37.1", True), ("v1.37.3", False), ("v1.36.3", True)):
        directory = tmp_path / version
        directory.mkdir()
        for name in BINARIES:
            (directory / name).write_text("#!/bin/sh\n")
            (directory / name).chmod(0o755)
        if finished:
            (directory / MANIFEST).write_text(json.dumps({"version": version, "etcd_version": "v3.7.0",
                                                          "built_at": "2026-11-01T00:00:00Z"}))
    lines: list[str] = []
    result = build("1.37", root=tmp_path, environ={**os.environ, "GOPROXY": "off"}, progress=lines.append)
    assert (result.directory, result.version, result.built) == (tmp_path / "v1.37.1", "v1.37.1", False)
    assert lines == ["k8s build: the Go module proxy did not list k8s.io/kubernetes; using the newest build in the cache",
                     f"k8s build v1.37.1: reusing {tmp_path / 'v1.37.1'} (built 2026-11-01T00:00:00Z)"]
    with pytest.raises(BuildError, match=r"^step 'resolve version' \(k8s\.io/kubernetes\): `go list -m \.\.\.` failed"):
        build("1.35", root=tmp_path, environ={**os.environ, "GOPROXY": "off"})
