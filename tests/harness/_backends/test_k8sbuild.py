"""``schedharness k8s build``: real components from their Go modules (harness._backends.k8sbuild).

The pure parts (which modules are pinned, how a release is resolved and stamped, what counts as
a finished build) are tested here on inputs written out in full; the messages of the command's
failures are tested through the command itself, with the real ``go`` where one is needed. The
build proper takes minutes: ``.ci/run`` runs it before the tests, and the tests at the end check
what it left (each binary's ``--version``, the manifest, a second call reusing it) when
``KUBEBUILDER_ASSETS`` names such a build.

Patched builds (harness._backends.k8spatch): reading a series, its digest, what it touches, and
``git apply`` on small trees made here, with patches ``git diff`` makes from them; a patched build
itself takes minutes and is not run here.
"""

from __future__ import annotations

import json
import os
import re
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
    throwaway_gomod,
)
from harness._backends.k8spatch import (
    FileDiff,
    Patch,
    apply_patches,
    check_paths,
    digest,
    locate,
    parse_diff,
    patch_stamp,
    read_patches,
    touched_modules,
    touched_packages,
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


# ---------------------------------------------------------------------- patched builds: the series

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git on PATH")
STAGING = ["k8s.io/api", "k8s.io/apimachinery", "k8s.io/kube-scheduler"]
# A Go file of 40 numbered comment lines, the release's file in the trees below.
SCHEDULE_ONE = "package scheduler\n\n" + "".join(f"// line {n}\n" for n in range(3, 41))
TYPES = "package v1\n\n" + "".join(f"// field {n}\n" for n in range(3, 21))


def _diff(old: str, new: str, path: str = "pkg/x.go") -> str:
    """A one-hunk diff of a one-line file, written out by hand."""
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{old}\n+{new}\n"


def _write(root: Path, files: dict[str, str | None]) -> None:
    for path, text in files.items():
        if text is None:
            (root / path).unlink()
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)


GIT_COMMIT = ["git", "-c", "user.name=A", "-c", "user.email=a@example.invalid", "commit"]


def _git_diff(where: Path, before: dict[str, str], after: dict[str, str | None]) -> str:
    """What ``git diff`` prints in a checkout holding ``before`` once ``after`` is written (None: deleted)."""
    repo = where / "checkout"
    shutil.rmtree(repo, ignore_errors=True)
    _write(repo, dict(before))
    env = {**os.environ, "HOME": str(where), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run([*GIT_COMMIT, "-qm", "The release"], cwd=repo, env=env, check=True)
    _write(repo, after)
    subprocess.run(["git", "add", "-A"], cwd=repo, env=env, check=True)
    return subprocess.run(["git", "diff", "--cached"], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout


def _edit(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[line - 1] = new + "\n"
    return "".join(lines)


def test_a_directory_stands_for_its_patch_files_in_name_order(tmp_path: Path) -> None:
    series = tmp_path / "series"
    series.mkdir()
    for name in ("0002-b.patch", "0010-c.patch", "0001-a.patch"):
        (series / name).write_text(_diff("x", name))
    (series / "notes.txt").write_text(_diff("x", "notes"))
    (tmp_path / "last.diff").write_text(_diff("x", "last"))
    read = read_patches([series, tmp_path / "last.diff"])
    assert [patch.path for patch in read] == [str(series / "0001-a.patch"), str(series / "0002-b.patch"),
                                              str(series / "0010-c.patch"), str(tmp_path / "last.diff")]
    assert read[0].files == (FileDiff("pkg/x.go", "pkg/x.go", ((1, "@@ -1 +1 @@"),)),)


def test_a_missing_path_an_empty_directory_or_a_file_with_no_diff_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "prose.patch").write_text("Subject: a commit message and no diff\n")
    for given, detail in ((tmp_path / "nothing", "no such file or directory"),
                          (tmp_path / "empty", "no *.patch file in this directory"),
                          (tmp_path / "prose.patch", "not a unified diff (it changes no file)")):
        with pytest.raises(BuildError) as caught:
            read_patches([given])
        assert str(caught.value) == f"step 'read patches' ({given}): {detail}"


def test_the_digest_is_of_the_contents_in_order_not_of_the_paths(tmp_path: Path) -> None:
    for where in ("one", "two"):
        (tmp_path / where).mkdir()
        (tmp_path / where / "a.patch").write_text(_diff("x", "a"))
        (tmp_path / where / "b.patch").write_text(_diff("x", "b"))
    one = read_patches([tmp_path / "one" / "a.patch", tmp_path / "one" / "b.patch"])
    two = read_patches([tmp_path / "two"])
    assert digest(one) == digest(two)
    assert digest(one) != digest(list(reversed(one)))
    assert digest(one) != digest(one[:1])
    stamp = patch_stamp("v1.37.2", digest(one))
    # semver build metadata: what --version prints, and still version 1.37.2 to a parser
    assert re.fullmatch(r"v1\.37\.2\+patch\.[0-9a-f]{12}", stamp)
    assert stamp == "v1.37.2+patch." + digest(two)[:12]


@needs_git
def test_the_files_and_hunks_of_a_git_diff_are_read(tmp_path: Path) -> None:
    text = _git_diff(tmp_path, {"pkg/scheduler/schedule_one.go": SCHEDULE_ONE, "pkg/scheduler/old.go": "package x\n",
                                "staging/src/k8s.io/api/core/v1/types.go": TYPES},
                     {"pkg/scheduler/schedule_one.go": _edit(_edit(SCHEDULE_ONE, 10, "// ten"), 30, "// thirty"),
                      "pkg/scheduler/old.go": None, "pkg/scheduler/framework/extra.go": "package framework\n",
                      "staging/src/k8s.io/api/core/v1/types.go": _edit(TYPES, 5, "// five")})
    headers = [line for line in text.splitlines() if line.startswith("@@")]
    files = parse_diff(text)
    assert [(f.old, f.new) for f in files] == [
        (None, "pkg/scheduler/framework/extra.go"),
        ("pkg/scheduler/old.go", None),
        ("pkg/scheduler/schedule_one.go", "pkg/scheduler/schedule_one.go"),
        ("staging/src/k8s.io/api/core/v1/types.go", "staging/src/k8s.io/api/core/v1/types.go"),
    ]
    # a change on line L is a hunk from line L-3 (three lines of context)
    assert [[start for start, _ in f.hunks] for f in files] == [[0], [1], [7, 27], [2]]
    assert [header for f in files for _, header in f.hunks] == headers


@needs_git
def test_a_format_patch_reads_as_its_diff(tmp_path: Path) -> None:
    before, after = {"pkg/x.go": SCHEDULE_ONE}, {"pkg/x.go": _edit(SCHEDULE_ONE, 10, "-- a line that reads as a header")}
    plain = _git_diff(tmp_path, before, after)
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    repo = tmp_path / "checkout"
    subprocess.run([*GIT_COMMIT, "-qm",
                    "Change a line\n\n---\nThe message has a line of three dashes too."], cwd=repo, env=env, check=True)
    mail = subprocess.run(["git", "format-patch", "-1", "--stdout"], cwd=repo, env=env, capture_output=True,
                          text=True, check=True).stdout
    assert "\n---\n" in mail and " 1 file changed" in mail  # the separator and the diffstat
    assert parse_diff(mail) == parse_diff(plain) == [FileDiff("pkg/x.go", "pkg/x.go", (
        (7, next(line for line in plain.splitlines() if line.startswith("@@"))),))]


def test_a_removed_line_that_reads_like_a_file_header_stays_in_its_hunk() -> None:
    text = ("--- a/pkg/x.go\n+++ b/pkg/x.go\n@@ -1,3 +1,3 @@\n a\n--- b/pkg/y.go\n++++ b/pkg/y.go\n c\n"
            "--- a/pkg/z.go\n+++ b/pkg/z.go\n@@ -4,2 +4,2 @@ func z() {\n-d\n+e\n \n")
    assert parse_diff(text) == [FileDiff("pkg/x.go", "pkg/x.go", ((1, "@@ -1,3 +1,3 @@"),)),
                                FileDiff("pkg/z.go", "pkg/z.go", ((4, "@@ -4,2 +4,2 @@ func z() {"),))]


def _patch(*paths: tuple[str | None, str | None]) -> Patch:
    return Patch("p.patch", "0" * 64, tuple(FileDiff(old, new) for old, new in paths))


def test_the_packages_and_modules_a_series_touches() -> None:
    series = [
        _patch(("pkg/scheduler/backend/queue/active_queue.go", "pkg/scheduler/backend/queue/active_queue.go"),
               ("pkg/scheduler/backend/queue/active_queue_test.go", "pkg/scheduler/backend/queue/active_queue_test.go"),
               ("pkg/scheduler/schedule_one_test.go", "pkg/scheduler/schedule_one_test.go")),
        _patch(("staging/src/k8s.io/api/core/v1/types.go", "staging/src/k8s.io/api/core/v1/types.go"),
               (None, "staging/src/k8s.io/kube-scheduler/config/v1/extra.go"),
               ("pkg/scheduler/testdata/x.go", None), ("CHANGELOG/CHANGELOG-1.37.md", "CHANGELOG/CHANGELOG-1.37.md"),
               ("cmd/kube-scheduler/scheduler.go", "cmd/kube-scheduler/scheduler.go")),
    ]
    assert touched_packages(series, STAGING) == [
        "k8s.io/kubernetes/pkg/scheduler/backend/queue", "k8s.io/kubernetes/pkg/scheduler", "k8s.io/api/core/v1",
        "k8s.io/kube-scheduler/config/v1", "k8s.io/kubernetes/cmd/kube-scheduler"]
    assert touched_packages(series, STAGING, tests=False) == [
        "k8s.io/kubernetes/pkg/scheduler/backend/queue", "k8s.io/api/core/v1", "k8s.io/kube-scheduler/config/v1",
        "k8s.io/kubernetes/cmd/kube-scheduler"]
    assert touched_modules(series, STAGING) == ["k8s.io/api", "k8s.io/kube-scheduler"]
    assert touched_modules(series[:1], STAGING) == []


def test_a_path_outside_kubernetes_and_its_staging_modules_is_refused() -> None:
    assert locate("staging/src/k8s.io/api/core/v1/types.go", STAGING) == ("k8s.io/api", "core/v1/types.go")
    assert locate("staging/publishing/rules.yaml", STAGING) == ("k8s.io/kubernetes", "staging/publishing/rules.yaml")
    for path in ("../x.go", "/etc/hosts", "pkg/../../x.go", "staging/src/k8s.io/nosuch/x.go", "staging/src/x.go"):
        with pytest.raises(ValueError):
            locate(path, STAGING)
    with pytest.raises(BuildError) as caught:
        check_paths([_patch(("pkg/x.go", "pkg/x.go")), _patch(("staging/src/k8s.io/nosuch/a.go", None))], STAGING,
                    "v1.37.2")
    assert str(caught.value) == ("step 'check patches' (p.patch): staging/src/k8s.io/nosuch/a.go: outside "
                                 "k8s.io/kubernetes v1.37.2 and its staging modules (not in a staging module of the "
                                 "release)")


def test_the_throwaway_module_takes_the_patched_modules_from_the_tree() -> None:
    text = throwaway_gomod("v1.37.2", "1.26.0", STAGING, {"k8s.io/kubernetes": Path("/w/src/kubernetes"),
                                                          "k8s.io/api": Path("/w/src/kubernetes/staging/src/k8s.io/api")})
    assert text.splitlines()[-6:] == [
        "replace (", "\tk8s.io/kubernetes => /w/src/kubernetes", "\tk8s.io/api => /w/src/kubernetes/staging/src/k8s.io/api",
        "\tk8s.io/apimachinery => k8s.io/apimachinery v0.37.2", "\tk8s.io/kube-scheduler => k8s.io/kube-scheduler v0.37.2",
        ")"]
    flags = ldflags(patch_stamp("v1.37.2", "ab" * 32), tree_state="dirty").split(" -X ")
    assert "k8s.io/component-base/version.gitVersion=v1.37.2+patch.abababababab" in flags
    assert "k8s.io/component-base/version.gitMinor=37" in flags
    assert "k8s.io/client-go/pkg/version.gitTreeState=dirty" in flags


# ---------------------------------------------------------------------- patched builds: git apply


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "work" / "src" / "kubernetes"
    _write(tree, {"pkg/scheduler/schedule_one.go": SCHEDULE_ONE, "staging/src/k8s.io/api/core/v1/types.go": TYPES})
    return tree


@needs_git
def test_a_series_is_applied_in_order(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    # a repository above the tree (a cache kept in a checkout) is not the one patched
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    once = _edit(SCHEDULE_ONE, 10, "// ten")
    (tmp_path / "1.patch").write_text(_git_diff(tmp_path, {"pkg/scheduler/schedule_one.go": SCHEDULE_ONE},
                                                {"pkg/scheduler/schedule_one.go": once}))
    (tmp_path / "2.patch").write_text(_git_diff(  # the second needs the first: its context is line 10 changed
        tmp_path, {"pkg/scheduler/schedule_one.go": once, "staging/src/k8s.io/api/core/v1/types.go": TYPES},
        {"pkg/scheduler/schedule_one.go": _edit(once, 11, "// eleven"),
         "staging/src/k8s.io/api/core/v1/types.go": _edit(TYPES, 5, "// five"),
         "pkg/scheduler/extra.go": "package scheduler\n"}))
    apply_patches(tree, read_patches([tmp_path / "1.patch", tmp_path / "2.patch"]), "v1.37.2")
    assert (tree / "pkg/scheduler/schedule_one.go").read_text() == _edit(once, 11, "// eleven")
    assert (tree / "staging/src/k8s.io/api/core/v1/types.go").read_text() == _edit(TYPES, 5, "// five")
    assert (tree / "pkg/scheduler/extra.go").read_text() == "package scheduler\n"


@needs_git
def test_a_hunk_that_does_not_apply_is_named_with_its_patch_and_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    patch = tmp_path / "fix.patch"
    patch.write_text(_git_diff(tmp_path, {"staging/src/k8s.io/api/core/v1/types.go": TYPES,
                                          "pkg/scheduler/schedule_one.go": SCHEDULE_ONE},
                               {"staging/src/k8s.io/api/core/v1/types.go": _edit(TYPES, 5, "// five"),
                                "pkg/scheduler/schedule_one.go": _edit(_edit(SCHEDULE_ONE, 10, "// ten"), 30,
                                                                       "// thirty")}))
    second = [line for line in patch.read_text().splitlines() if line.startswith("@@")][1]  # line 30's
    _write(tree, {"pkg/scheduler/schedule_one.go": _edit(SCHEDULE_ONE, 31, "// the release differs here")})
    with pytest.raises(BuildError) as caught:
        apply_patches(tree, read_patches([patch]), "v1.37.2")
    assert str(caught.value) == (f"step 'apply patches' ({patch}): pkg/scheduler/schedule_one.go: hunk `{second}` "
                                 "does not apply to k8s.io/kubernetes v1.37.2")
    assert (tree / "staging/src/k8s.io/api/core/v1/types.go").read_text() == TYPES  # checked before applied

    staging = tmp_path / "api.patch"
    staging.write_text(_git_diff(tmp_path, {"staging/src/k8s.io/api/core/v1/types.go": _edit(TYPES, 8, "// other")},
                                 {"staging/src/k8s.io/api/core/v1/types.go": _edit(_edit(TYPES, 8, "// other"), 9,
                                                                                   "// nine")}))
    with pytest.raises(BuildError, match=r"^step 'apply patches' \(.*api\.patch\): staging/src/k8s\.io/api/core/v1/"
                                         r"types\.go: hunk `@@ -6,7 \+6,7 @@.*` does not apply to k8s\.io/api v0\.37\.2$"):
        apply_patches(tree, read_patches([staging]), "v1.37.2")


@needs_git
def test_a_file_the_release_does_not_have_is_refused(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    (tmp_path / "p.patch").write_text(_diff("x", "y", "pkg/scheduler/gone.go"))
    with pytest.raises(BuildError) as caught:
        apply_patches(tree, read_patches([tmp_path / "p.patch"]), "v1.37.2")
    assert str(caught.value) == (f"step 'apply patches' ({tmp_path / 'p.patch'}): pkg/scheduler/gone.go: no such "
                                 "file in k8s.io/kubernetes v1.37.2")


# ---------------------------------------------------------------------- patched builds: the command's failures


@pytest.mark.parametrize("verb", [["build"], ["test", "1.37.2"]])
def test_a_patch_that_is_missing_or_an_empty_directory_is_a_usage_error(tmp_path: Path, verb: list[str]) -> None:
    (tmp_path / "empty").mkdir()
    for given, detail in ((tmp_path / "nothing.patch", "no such file or directory"),
                          (tmp_path / "empty", "no *.patch file in this directory")):
        done = _schedharness("k8s", *verb, "--patch", str(given), "--cache-dir", str(tmp_path / "cache"))
        assert (done.returncode, done.stdout, done.stderr) == (
            2, "", f"schedharness k8s {verb[0]}: step 'read patches' ({given}): {detail}\n")


def test_a_patch_and_a_source_together_are_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "p.patch").write_text(_diff("x", "y"))
    done = _schedharness("k8s", "build", "--source", str(tmp_path), "--patch", str(tmp_path / "p.patch"))
    assert (done.returncode, done.stderr) == (2, "schedharness k8s build: give --patch or --source DIR, not both "
                                                 "(commit the patches to the checkout instead)\n")


def test_go_tests_need_a_patch() -> None:
    done = _schedharness("k8s", "test", "1.37.2")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == "schedharness k8s test: error: the following arguments are required: --patch"


@needs_git
@pytest.mark.skipif(shutil.which("go") is None, reason="needs go on PATH")
def test_a_patch_that_does_not_apply_to_the_release_builds_nothing(tmp_path: Path) -> None:
    (tmp_path / "p.patch").write_text(
        "--- a/pkg/scheduler/scheduler.go\n+++ b/pkg/scheduler/scheduler.go\n"
        "@@ -20,2 +20,2 @@ limitations under the License.\n no such\n-context\n+here\n")
    done = _schedharness("k8s", "build", "1.37.2", "--patch", str(tmp_path / "p.patch"), "--cache-dir",
                         str(tmp_path / "cache"))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        f"schedharness k8s build: step 'apply patches' ({tmp_path / 'p.patch'}): pkg/scheduler/scheduler.go: hunk "
        "`@@ -20,2 +20,2 @@ limitations under the License.` does not apply to k8s.io/kubernetes v1.37.2")
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == []
