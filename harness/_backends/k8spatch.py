"""Patched builds of a Kubernetes release: ``schedharness k8s build VERSION --patch`` and
``schedharness k8s test``.

A KEP's implementation is often a few diffs against a release rather than a fork: its suite has
to run against the release's kube-scheduler (and kube-apiserver, when a diff reaches it) with
those diffs applied, without a kubernetes checkout. A patched build stands on the release build
of :mod:`harness._backends.k8sbuild`:

* a patch is a unified diff as ``git diff`` and ``git format-patch`` make it in a kubernetes
  checkout (paths from the repository's root with ``a/`` and ``b/`` prefixes: ``pkg/scheduler/...``,
  ``staging/src/k8s.io/api/...``); a directory stands for its ``*.patch`` files in name order;
* a writable tree is assembled from Go's module cache: the module ``k8s.io/kubernetes@vX``, and
  for each staging module a patch touches, its published ``k8s.io/<name>@v0.Y.Z`` where the
  repository keeps it (``staging/src/k8s.io/<name>``). The patches are applied in order with
  ``git apply`` (the whole context must match: no fuzz), each checked before it is applied; one
  that does not apply is named with the file and the hunk. A path outside ``k8s.io/kubernetes``
  and its staging modules, or a file the release does not have, is refused before that;
* the throwaway module replaces ``k8s.io/kubernetes`` and the patched staging modules with the
  tree and pins the others to their releases, as the release build does. With ``-trimpath`` a
  package compiles alike wherever its directory is, so Go's build cache of the release build
  serves every package a patch does not reach: kube-scheduler is rebuilt (the patched packages,
  those importing them, the link), kube-apiserver only when a patched package is among its
  dependencies (``go list -deps``), etcd never; the binaries not rebuilt are the release build's
  (made or reused in the same cache, hard-linked);
* the rebuilt binaries are stamped as the release with semver build metadata naming the patches,
  ``v1.37.2+patch.<12 hex>`` (``--version`` prints it, a version parser still reads 1.37.2), tree
  state ``dirty``. The 12 hex begin the series' digest, sha256 over each patch's sha256 in order
  (the contents, not the paths), which also names the directory, ``<cache>/v1.37.2+patch.<12 hex>/``,
  made and reused as a release build's directory is; its ``build.json`` names the patches.

:func:`run_go_tests` assembles the same tree in a scratch directory and runs ``go test`` with the
build's flags (so the same build cache) on the packages the patches touch, or on those given.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from harness._backends.k8sbuild import (
    BINARIES,
    MANIFEST,
    MODULE,
    BuildError,
    BuildResult,
    Builder,
    Go,
    build,
    check_versions,
    complete,
    download,
    go_directive,
    go_version,
    ldflags,
    locked,
    prepare,
    release_time,
    resolve,
    staging_modules,
    staging_version,
    stamped,
    sweep,
    throwaway_gomod,
)

__all__ = [
    "FileDiff",
    "Patch",
    "apply_patches",
    "build_patched",
    "check_paths",
    "digest",
    "locate",
    "parse_diff",
    "patch_stamp",
    "read_patches",
    "run_go_tests",
    "touched_modules",
    "touched_packages",
]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_FAILED = re.compile(r"^error: patch failed: (.+):(\d+)$", re.M)
_STAGING_SRC = ("staging", "src", "k8s.io")


@dataclass(frozen=True)
class FileDiff:
    """One file's part of a patch: its path before and after (None for ``/dev/null``: a file made
    or deleted), from the repository's root, and its hunks as (first line, ``@@`` header line)."""

    old: str | None
    new: str | None
    hunks: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Patch:
    """A patch file: its path as given, the sha256 of its bytes, the files it changes."""

    path: str
    sha256: str
    files: tuple[FileDiff, ...]


# ---------------------------------------------------------------------- reading patches


def read_patches(given: Sequence[str | os.PathLike[str]]) -> list[Patch]:
    """The series ``given`` names, in order: a file is one patch, a directory its ``*.patch``
    files in name order. :class:`BuildError` for a path that is neither, an empty directory, or
    a file with no diff in it."""
    series = []
    for item in given:
        path = Path(item)
        if path.is_dir():
            files = sorted((p for p in path.glob("*.patch") if p.is_file()), key=lambda p: p.name)
            if not files:
                raise BuildError("read patches", str(path), "no *.patch file in this directory")
        elif path.is_file():
            files = [path]
        else:
            raise BuildError("read patches", str(path), "no such file or directory")
        for file in files:
            try:
                data = file.read_bytes()
            except OSError as e:
                raise BuildError("read patches", str(file), e.strerror or str(e)) from None
            diffs = parse_diff(data.decode("utf-8", "replace"))
            if not diffs:
                raise BuildError("read patches", str(file), "not a unified diff (it changes no file)")
            series.append(Patch(str(file), hashlib.sha256(data).hexdigest(), tuple(diffs)))
    return series


def _side(text: str) -> str | None:
    """A ``---``/``+++`` path: ``/dev/null`` is None, ``a/pkg/x.go`` is ``pkg/x.go`` (-p1)."""
    path = text.split("\t")[0].rstrip()
    if len(path) > 1 and path[0] == path[-1] == '"':
        path = path[1:-1]
    if path == "/dev/null":
        return None
    return path.split("/", 1)[1] if "/" in path else path


@dataclass
class _Section:
    """The file diff being read."""

    old: str | None
    new: str | None
    git: bool  # begun by a `diff --git` line, whose extended headers follow it
    named: bool = False  # its ---/+++ lines read
    hunks: list[tuple[int, str]] = field(default_factory=list)


def parse_diff(text: str) -> list[FileDiff]:
    """The files a unified diff changes, with their hunks (``git diff`` and ``git format-patch``
    output, or a plain ``diff -u`` with ``a/`` and ``b/`` prefixes); a hunk's lines are counted
    from its header, so a removed line that reads ``-- x`` is not taken for a file header."""
    sections: list[_Section] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line, current = lines[i], sections[-1] if sections else None
        header = _HUNK.match(line)
        if line.startswith("diff --git "):
            a, _, b = line[len("diff --git "):].partition(" b/")
            sections.append(_Section(_side(a), b, git=True))
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if current is None or not current.git or current.named or current.hunks:
                current = _Section(None, None, git=False)
                sections.append(current)
            current.old, current.new, current.named = _side(line[4:]), _side(lines[i + 1][4:]), True
            i += 1
        elif header and current is not None:
            current.hunks.append((int(header.group(1)), line))
            old = 1 if header.group(2) is None else int(header.group(2))
            new = 1 if header.group(4) is None else int(header.group(4))
            while (old > 0 or new > 0) and i + 1 < len(lines) and lines[i + 1][:1] in ("", " ", "-", "+", "\\"):
                kind = lines[i + 1][:1]
                old -= kind in ("", " ", "-")
                new -= kind in ("", " ", "+")
                i += 1
        elif current is not None and current.git and not current.named and not current.hunks:
            if line.startswith(("rename from ", "copy from ")):
                current.old = line.split(" ", 2)[2]
            elif line.startswith(("rename to ", "copy to ")):
                current.new = line.split(" ", 2)[2]
            elif line.startswith("new file mode"):
                current.old = None
            elif line.startswith("deleted file mode"):
                current.new = None
        i += 1
    return [FileDiff(section.old, section.new, tuple(section.hunks)) for section in sections]


def digest(series: Sequence[Patch]) -> str:
    """sha256 over each patch's sha256 in order: the same patches in the same order have the same
    digest wherever they are kept."""
    return hashlib.sha256("".join(f"{patch.sha256}\n" for patch in series).encode()).hexdigest()


def patch_stamp(version: str, series_digest: str) -> str:
    """``v1.37.2`` patched -> ``v1.37.2+patch.<12 hex>``: the release, with build metadata."""
    return f"{version}+patch.{series_digest[:12]}"


# ---------------------------------------------------------------------- what a patch touches


def locate(path: str, staging: Sequence[str]) -> tuple[str, str]:
    """(module, path in the module) of a path from the kubernetes repository's root:
    ``staging/src/k8s.io/api/core/v1/types.go`` -> (``k8s.io/api``, ``core/v1/types.go``).
    ValueError for a path outside ``k8s.io/kubernetes`` and the ``staging`` modules."""
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or ".." in parts or "\\" in path:
        raise ValueError("not a path inside the repository")
    if parts[:3] == _STAGING_SRC:
        if len(parts) > 4 and f"k8s.io/{parts[3]}" in staging:
            return f"k8s.io/{parts[3]}", "/".join(parts[4:])
        raise ValueError("not in a staging module of the release")
    if parts[:2] == _STAGING_SRC[:2]:
        raise ValueError("not in a staging module of the release")
    return MODULE, "/".join(parts)


def _paths(patch: Patch) -> list[str]:
    return [p for f in patch.files for p in (f.old, f.new) if p is not None]


def check_paths(series: Sequence[Patch], staging: Sequence[str], release: str) -> None:
    """:class:`BuildError` naming the patch and the path for a path outside ``k8s.io/kubernetes``
    (of ``release``) and its staging modules."""
    for patch in series:
        for path in _paths(patch):
            try:
                locate(path, staging)
            except ValueError as e:
                raise BuildError("check patches", patch.path, f"{path}: outside {MODULE} {release} and its staging "
                                                              f"modules ({e})") from None


def touched_modules(series: Sequence[Patch], staging: Sequence[str]) -> list[str]:
    """The staging modules the patches change, in the release's order."""
    touched = {locate(path, staging)[0] for patch in series for path in _paths(patch)}
    return [module for module in staging if module in touched]


def touched_packages(series: Sequence[Patch], staging: Sequence[str], *, tests: bool = True) -> list[str]:
    """The import paths of the packages whose ``.go`` files the patches change (first touched
    first); ``tests=False`` leaves out ``_test.go`` files (what a binary is built of). Files the
    go command ignores (under ``testdata``, ``_x`` or ``.x``) are no package's."""
    found: list[str] = []
    for patch in series:
        for path in _paths(patch):
            module, inner = locate(path, staging)
            parts = inner.split("/")
            if not inner.endswith(".go") or (not tests and inner.endswith("_test.go")):
                continue
            if any(part == "testdata" or part[:1] in ("_", ".") for part in parts):
                continue
            package = "/".join([module, *parts[:-1]])
            if package not in found:
                found.append(package)
    return found


# ---------------------------------------------------------------------- the tree


def _owner(path: str, version: str) -> str:
    """The module (with its version) a repository path is in: what the message names."""
    parts = path.split("/")
    if tuple(parts[:3]) == _STAGING_SRC and len(parts) > 4:
        return f"k8s.io/{parts[3]} {staging_version(version)}"
    return f"{MODULE} {version}"


def _copy_writable(source: Path, target: Path) -> None:
    """Copy a module out of Go's module cache (read-only there), writable."""
    def copy(src: str, dst: str) -> None:
        shutil.copyfile(src, dst)
        os.chmod(dst, stat.S_IMODE(os.stat(src).st_mode) | stat.S_IWUSR)

    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source, target, copy_function=copy)
    for directory, _, _ in os.walk(target):
        os.chmod(directory, 0o755)


def _remove(path: Path) -> None:
    """Remove a work directory, a copy cut off before its directories were made writable too."""
    for directory, _, _ in os.walk(path):
        with contextlib.suppress(OSError):
            os.chmod(directory, 0o755)
    shutil.rmtree(path, ignore_errors=True)


def apply_patches(tree: Path, series: Sequence[Patch], version: str) -> None:
    """Apply the series to ``tree`` (the repository's layout) in order with ``git apply``, each
    checked first: :class:`BuildError` naming the patch, the file and the hunk that does not apply,
    or the file the release (``version``) does not have."""
    git = shutil.which("git")
    if git is None:
        raise BuildError("apply patches", "git", "no `git` on PATH: the patches are applied with `git apply`")
    # Outside any repository (none is looked for above the tree), `git apply` patches the files under its cwd.
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_CEILING_DIRECTORIES"] = str(tree.parent)
    for patch in series:
        for diff in patch.files:
            if diff.old is not None and not (tree / diff.old).is_file():
                raise BuildError("apply patches", patch.path,
                                 f"{diff.old}: no such file in {_owner(diff.old, version)}")
        for check in (["--check"], []):
            done = subprocess.run([git, "apply", *check, "--whitespace=nowarn", str(Path(patch.path).resolve())],
                                  cwd=tree, env=env, capture_output=True, text=True, check=False,
                                  stdin=subprocess.DEVNULL)
            if done.returncode != 0:
                raise BuildError("apply patches", patch.path, _why(patch, done.stderr, version))


def _why(patch: Patch, stderr: str, version: str) -> str:
    """What ``git apply``'s errors mean: the hunk of ``patch`` git names by its file and first line."""
    failed = _FAILED.search(stderr)
    if failed:
        path, line = failed.group(1), int(failed.group(2))
        headers = [header for diff in patch.files if path in (diff.old, diff.new)
                   for start, header in diff.hunks if start == line]
        hunk = f"`{headers[0]}`" if headers else f"at line {line}"
        return f"{path}: hunk {hunk} does not apply to {_owner(path, version)}"
    errors = [line.removeprefix("error: ") for line in stderr.splitlines() if line.startswith("error: ")]
    return "`git apply` failed: " + ("; ".join(errors) or stderr.strip())


# ---------------------------------------------------------------------- the build and the tests


@dataclass(frozen=True)
class _Patched:
    """A release's tree with the series applied, and the throwaway module that builds it."""

    tree: Path
    module_dir: Path
    info: dict[str, str]
    staging: list[str]
    modules: list[str]  # the staging modules taken from the tree


def _patched_tree(builder: Builder, gocmd: Go, version: str, series: Sequence[Patch], work: Path) -> _Patched:
    started = time.monotonic()
    builder.say(f"downloading {MODULE} {version}")
    info = download(gocmd, version, work)
    gomod = Path(info["GoMod"]).read_text()
    staging = staging_modules(gomod)
    check_paths(series, staging, version)
    modules = touched_modules(series, staging)
    tree = work / "src" / "kubernetes"
    _copy_writable(Path(info["Dir"]), tree)
    for module in modules:
        builder.say(f"downloading {module} {staging_version(version)} (patched)")
        _copy_writable(Path(download(gocmd, staging_version(version), work, module)["Dir"]),
                       tree / "staging" / "src" / module)
    builder.steps["assemble tree"] = round(time.monotonic() - started, 1)
    started = time.monotonic()
    builder.say(f"applying {len(series)} patch{'es' if len(series) != 1 else ''} with git apply")
    apply_patches(tree, series, version)
    builder.steps["apply patches"] = round(time.monotonic() - started, 1)
    module_dir = work / "k8s"
    module_dir.mkdir()
    replaced = {MODULE: tree, **{module: tree / "staging" / "src" / module for module in modules}}
    (module_dir / "go.mod").write_text(throwaway_gomod(version, go_directive(gomod), staging, replaced))
    builder.step("resolve modules", f"{MODULE} {version}",
                 ["get", *(f"{MODULE}/cmd/{name}@{version}" for name in ("kube-apiserver", "kube-scheduler"))],
                 module_dir)
    return _Patched(tree, module_dir, info, staging, modules)


def _take(source: Path, target: Path) -> None:
    """A release build's binary into a patched build: hard-linked, copied across file systems."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def build_patched(version: str | None, patches: Sequence[str | os.PathLike[str]], *, root: Path | None = None,
                  go: str | None = None, environ: Mapping[str, str] | None = None,
                  progress: Callable[[str], None] = lambda line: None) -> BuildResult:
    """Build (or find in the cache) ``version`` (a release, as :func:`~harness._backends.k8sbuild.build`
    takes it) with the series ``patches`` applied: kube-scheduler rebuilt, kube-apiserver rebuilt
    when a patch reaches it, the rest the release build's."""
    series = read_patches(patches)
    started = time.monotonic()
    gocmd, root = prepare(go, environ, root)
    resolved = resolve(version, gocmd, root, progress)
    series_digest = digest(series)
    label = patch_stamp(resolved, series_digest)
    directory = root / label
    with locked(root / f".{label}.lock"):
        if complete(directory):
            manifest = json.loads((directory / MANIFEST).read_text())
            progress(f"k8s build {label}: reusing {directory} (built {manifest.get('built_at', '?')})")
            return BuildResult(directory, label, str(manifest.get("etcd_version", "")), False,
                               time.monotonic() - started)
        if directory.exists():
            progress(f"k8s build {label}: {directory} is incomplete, building it again")
            shutil.rmtree(directory)
        sweep(root, label)
        builder = Builder(gocmd, progress, label)
        work = Path(tempfile.mkdtemp(prefix=f".{label}.partial-", dir=root))
        try:
            patched = _patched_tree(builder, gocmd, resolved, series, work)
            step = time.monotonic()
            builder.say(f"the release build {resolved} (its etcd, and kube-apiserver if no patch reaches it)")
            release = build(resolved, root=root, go=gocmd.go, environ=gocmd.environ, progress=progress)
            builder.steps["release build"] = round(time.monotonic() - step, 1)
            packages = touched_packages(series, patched.staging, tests=False)
            deps = set(builder.step("list kube-apiserver packages", f"{MODULE} {label}",
                                    ["list", "-deps", f"{MODULE}/cmd/kube-apiserver"], patched.module_dir).split())
            reached = [package for package in packages if package in deps]
            names = ("kube-scheduler", "kube-apiserver") if reached else ("kube-scheduler",)
            out = work / "bin"
            out.mkdir()
            builder.components(patched.module_dir, MODULE, f"{MODULE} {label}",
                               ldflags(label, build_date=release_time(patched.info), tree_state="dirty"), out, names)
            taken = [name for name in BINARIES if name not in names]
            for name in taken:
                _take(release.directory / name, out / name)
            expected = stamped(label, release.etcd_version)
            expected.update({name: resolved for name in taken if name != "etcd"})
            versions = check_versions(out, expected)
            seconds = round(time.monotonic() - started, 1)
            manifest = {
                "version": label, "release": resolved, "etcd_version": release.etcd_version,
                "source": f"{MODULE} {resolved} patched", "digest": series_digest,
                "patches": [{"path": patch.path, "sha256": patch.sha256} for patch in series],
                "patched_modules": [MODULE, *patched.modules], "patched_packages": packages,
                "built": list(names), "taken": {name: str(release.directory / name) for name in taken},
                "kube_apiserver_reached_by": reached, "go": go_version(gocmd, work), "versions": versions,
                "step_seconds": builder.steps, "seconds": seconds,
                "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
            out.rename(directory)
        finally:
            _remove(work)
    builder.say(f"done in {seconds:.0f} s: built {', '.join(names)}; "
                f"{' and '.join(taken)} from {release.directory}")
    return BuildResult(directory, label, release.etcd_version, True, seconds)


def run_go_tests(version: str | None, patches: Sequence[str | os.PathLike[str]], packages: Sequence[str] = (), *,
                 run: str | None = None, root: Path | None = None, go: str | None = None,
                 environ: Mapping[str, str] | None = None, progress: Callable[[str], None] = lambda line: None) -> int:
    """``go test`` of ``packages`` (import paths; by default every package the patches touch) on
    ``version`` with the series ``patches`` applied, in a scratch tree under the cache ``root``;
    the test output goes to this process's stdout and stderr as it comes. Returns go test's exit
    code (0 passed, 1 failed); :class:`BuildError` for what keeps the tests from running."""
    series = read_patches(patches)
    gocmd, root = prepare(go, environ, root)
    resolved = resolve(version, gocmd, root, progress)
    label = patch_stamp(resolved, digest(series))
    builder = Builder(gocmd, progress, label, verb="test")
    work = Path(tempfile.mkdtemp(prefix=f".{label}.test-", dir=root))
    try:
        patched = _patched_tree(builder, gocmd, resolved, series, work)
        targets = list(packages) or touched_packages(series, patched.staging)
        if not targets:
            raise BuildError("choose packages", label, "the patches change no Go package: name the packages to test")
        args = ["test", "-trimpath", *(["-run", run] if run else []), *targets]
        builder.say(f"go {' '.join(args)}")
        sys.stdout.flush()
        sys.stderr.flush()
        return gocmd.stream("test", label, args, patched.module_dir)
    finally:
        _remove(work)
