"""Real Kubernetes components built from their Go modules: ``schedharness k8s build``.

A suite cited for a KEP's graduation has to be shown against the real implementation, and the
fake's fidelity has to be settled against a real kube-apiserver, in every CI run rather than by
hand. Kubernetes publishes no binaries to any registry these machines reach, but the Go module
proxy serves ``k8s.io/kubernetes`` and its staging modules (``k8s.io/api``, ``k8s.io/apiserver``
and the rest), so the components can be built like any Go program:

* a throwaway module requires ``k8s.io/kubernetes vX.Y.Z`` and pins every staging module that its
  ``go.mod`` replaces with a ``./staging/src/...`` directory to ``v0.Y.Z`` (the same code, published
  as its own module), then ``go build``\\ s ``cmd/kube-scheduler`` and ``cmd/kube-apiserver``;
* the binaries are version-stamped as the release's own build scripts stamp them
  (``hack/lib/version.sh``: ``-X`` on ``k8s.io/component-base/version`` and
  ``k8s.io/client-go/pkg/version``), so ``--version`` prints ``Kubernetes vX.Y.Z`` and a client's
  ``/version`` reads the release; the build date is the release's publication time on the proxy,
  so two builds of one release are stamped alike;
* etcd is built from etcd's own modules (``go.etcd.io/etcd/server/v3``) at the version the release's
  integration tests run against (``hack/lib/etcd.sh``'s ``ETCD_VERSION``; v1.37: 3.7.0). Debian's
  ``etcd-server`` (3.4.23) is older than kube-apiserver v1.37 supports: kubeadm v1.37 refuses an
  external etcd older than 3.5.24 (``MinExternalEtcdVersion``), and its storage layer turns off
  watch-progress requests below 3.4.31. Building etcd also keeps CI free of a Debian package.

The output is laid out as envtest's ``KUBEBUILDER_ASSETS`` (``etcd``, ``kube-apiserver``, and
``kube-scheduler`` beside them) in a cache outside the repository,
``$XDG_CACHE_HOME/schedharness/k8s/<version>/`` (``~/.cache`` without it), with ``build.json``
recording what was built and how long each step took. A directory is only ever made complete by
one ``rename`` of a finished staging directory, so a build cut off half way leaves nothing that a
later call would use; a lock file serialises two builds of one release. A second call finds the
directory and reuses it.

``source`` builds from a local kubernetes checkout instead (a KEP implementer's branch): its own
``go.mod`` already points the staging modules at its ``staging/`` tree, so the build runs inside
it; the version is ``git describe`` turned into semver as ``hack/lib/version.sh`` does. A source
build is never reused (the branch moves); Go's build cache makes a rebuild of an unchanged tree
a matter of linking.

:mod:`harness._backends.k8spatch` builds a release with patches applied from these same steps
(download, throwaway module, build, version check, lock and rename), which are public for it.

Every failure is a :class:`BuildError` naming the step and the module, which the command prints
as one message with exit code 2.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BINARIES",
    "DEFAULT_MINOR",
    "MANIFEST",
    "MODULE",
    "BuildError",
    "BuildResult",
    "Builder",
    "Go",
    "build",
    "cache_root",
    "check_versions",
    "complete",
    "download",
    "go_directive",
    "go_version",
    "ldflags",
    "locked",
    "parse_release",
    "prepare",
    "read_text",
    "release_time",
    "resolve",
    "resolve_version",
    "staging_modules",
    "staging_version",
    "stamp_from_describe",
    "stamped",
    "sweep",
    "throwaway_gomod",
]

MODULE = "k8s.io/kubernetes"
ETCD_MODULE = "go.etcd.io/etcd/server/v3"
#: The release built when no version is given: the newest patch of this minor (KEP-5836 is alpha in it).
DEFAULT_MINOR = "1.37"
#: What a finished directory holds, as envtest's KUBEBUILDER_ASSETS does, and the record of the build.
BINARIES = ("etcd", "kube-apiserver", "kube-scheduler")
MANIFEST = "build.json"
#: Packages stamped with the release, as hack/lib/version.sh stamps them.
VERSION_PACKAGES = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")
#: The lines of a failed go command kept in the message (the error is at its end).
ERROR_LINES = 12

_RELEASE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")
_STAGING = re.compile(r"^\s*(k8s\.io/[A-Za-z0-9._-]+)\s*=>\s*\./staging/src/\S+\s*$", re.M)
_GO_DIRECTIVE = re.compile(r"^go\s+(\S+)\s*$", re.M)
_ETCD_VERSION = re.compile(r"^ETCD_VERSION=\$\{ETCD_VERSION:-([0-9][^}]*)\}", re.M)
_ETCD_REQUIRE = re.compile(r"^\s*go\.etcd\.io/etcd/(?:client|server)/v3\s+(v\S+)", re.M)
_DESCRIBE = re.compile(r"^(v\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)(?:-(\d+)-g([0-9a-f]+))?(-dirty)?$")


class BuildError(Exception):
    """A step of the build failed; the message names the step and the module."""

    def __init__(self, step: str, module: str, detail: str) -> None:
        super().__init__(f"step '{step}' ({module}): {detail}")
        self.step, self.module, self.detail = step, module, detail


@dataclass(frozen=True)
class BuildResult:
    """Where the binaries are, what they are, and whether this call built them."""

    directory: Path
    version: str
    etcd_version: str
    built: bool
    seconds: float


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/schedharness/k8s`` (``~/.cache/...`` without the variable)."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CACHE_HOME", "").strip() or str(Path(environ.get("HOME") or Path.home()) / ".cache")
    return Path(base).expanduser() / "schedharness" / "k8s"


# ---------------------------------------------------------------------- pure parts


def staging_modules(gomod: str) -> list[str]:
    """The modules ``k8s.io/kubernetes``'s go.mod replaces with its ``./staging`` tree, in file order."""
    return _STAGING.findall(gomod)


def staging_version(version: str) -> str:
    """``v1.37.2`` -> ``v0.37.2``: the staging modules' tag of a release (pre-releases alike)."""
    return "v0." + version[len("v1."):]


def ldflags(version: str, *, commit: str = "", build_date: str = "1970-01-01T00:00:00Z",
            tree_state: str = "clean") -> str:
    """The ``-ldflags`` stamping ``version`` into both version packages (hack/lib/version.sh's
    ``kube::version::ldflags``), stripped of debug information as release builds are."""
    m = re.match(r"^v(\d+)\.(\d+)", version)
    if not m:
        raise ValueError(f"not a Kubernetes version: {version!r}")
    values = {"gitVersion": version, "gitMajor": m.group(1), "gitMinor": m.group(2), "gitCommit": commit,
              "gitTreeState": tree_state, "buildDate": build_date}
    flags = ["-s", "-w"]
    for package in VERSION_PACKAGES:
        flags += [f"-X {package}.{key}={value}" for key, value in values.items()]
    return " ".join(flags)


def stamp_from_describe(describe: str) -> str:
    """``git describe --tags --match 'v*' --abbrev=14 --dirty`` as semver, as hack/lib/version.sh
    turns it: ``v1.37.0-alpha.1-120-gabc`` -> ``v1.37.0-alpha.1.120+abc`` (``-dirty`` kept)."""
    m = _DESCRIBE.match(describe.strip())
    if not m:
        raise ValueError(f"not a Kubernetes tag description: {describe.strip()!r}")
    base, commits, sha, dirty = m.groups()
    if commits is None:
        return base + (dirty or "")
    joiner = "." if "-" in base else "-"
    return f"{base}{joiner}{commits}+{sha}{dirty or ''}"


def etcd_version_of(tree_files: Callable[[str], str | None], gomod: str) -> str:
    """The etcd a release is tested with: ``hack/lib/etcd.sh``'s ``ETCD_VERSION``, else the etcd
    client its go.mod requires. Returned with its ``v``."""
    script = tree_files("hack/lib/etcd.sh")
    if script:
        m = _ETCD_VERSION.search(script)
        if m:
            return "v" + m.group(1).lstrip("v")
    m = _ETCD_REQUIRE.search(gomod)
    if m:
        return m.group(1)
    raise BuildError("choose etcd", MODULE, "neither hack/lib/etcd.sh nor go.mod names an etcd version")


def _release_key(version: str) -> tuple[int, int, int] | None:
    m = _RELEASE.match(version)
    if not m or m.group(3) is None:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def parse_release(asked: str | None) -> tuple[int, int | None]:
    """``1.37`` -> (37, None), ``v1.37.2`` -> (37, 2); None is :data:`DEFAULT_MINOR`."""
    text = (asked or DEFAULT_MINOR).strip()
    m = _RELEASE.match(text)
    if not m or m.group(1) != "1":
        raise BuildError("resolve version", MODULE,
                         f"{text!r} is not a Kubernetes release: give 1.NN (its newest patch) or 1.NN.P")
    return int(m.group(2)), None if m.group(3) is None else int(m.group(3))


def resolve_version(asked: str | None, served: list[str]) -> str:
    """``1.37`` (or None: :data:`DEFAULT_MINOR`) -> the newest ``v1.37.Z`` in ``served``; an exact
    ``1.37.2`` / ``v1.37.2`` is returned as ``v1.37.2`` (the proxy may serve versions it does not
    list: the download step tells). :class:`BuildError` for text that is not a release."""
    minor, patch = parse_release(asked)
    if patch is not None:
        return f"v1.{minor}.{patch}"
    patches = sorted(k for k in map(_release_key, served) if k and k[:2] == (1, minor))
    if not patches:
        listed = sorted({f"1.{k[1]}" for k in map(_release_key, served) if k}, key=lambda s: int(s[2:]))
        raise BuildError("resolve version", MODULE,
                         f"the Go module proxy lists no release of 1.{minor} "
                         f"(it lists {', '.join(listed) or 'none'})")
    return "v%d.%d.%d" % patches[-1]


# ---------------------------------------------------------------------- the go command


@dataclass
class Go:
    """The ``go`` command, run with the environment every build step shares (``-trimpath`` is
    given by the steps that compile, so a patched build and its tests reuse the release's cache)."""

    go: str
    environ: Mapping[str, str]

    def environment(self) -> dict[str, str]:
        return {**self.environ, "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod -buildvcs=false", "GOWORK": "off"}

    def run(self, step: str, module: str, args: list[str], cwd: Path) -> str:
        done = self.call(step, module, args, cwd)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-ERROR_LINES:])
            raise BuildError(step, module, f"`go {' '.join(args[:2])} ...` failed (exit {done.returncode}):\n{tail}")
        return done.stdout

    def call(self, step: str, module: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run([self.go, *args], cwd=cwd, env=self.environment(), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, check=False)
        except OSError as e:
            raise BuildError(step, module, f"cannot run {self.go}: {e.strerror}") from None

    def stream(self, step: str, module: str, args: list[str], cwd: Path) -> int:
        """Run with this process's stdout and stderr (``go test``'s output as it comes); its exit code."""
        try:
            return subprocess.run([self.go, *args], cwd=cwd, env=self.environment(), stdin=subprocess.DEVNULL,
                                  check=False).returncode
        except OSError as e:
            raise BuildError(step, module, f"cannot run {self.go}: {e.strerror}") from None


def find_go(go: str | None, environ: Mapping[str, str]) -> str:
    found = shutil.which(go or "go", path=environ.get("PATH"))
    if not found:
        raise BuildError("find Go", MODULE, f"no `{go or 'go'}` on PATH: the components are built from their Go "
                                            "modules (Go 1.26 or newer for Kubernetes v1.37)")
    return found


# ---------------------------------------------------------------------- the build


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock file ``path``: one build of a directory at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def complete(directory: Path) -> bool:
    """A finished build: every binary executable and the manifest written (the manifest is
    written last, and the directory appears by one rename)."""
    return (directory / MANIFEST).is_file() and all(
        (directory / name).is_file() and os.access(directory / name, os.X_OK) for name in BINARIES)


def throwaway_gomod(version: str, go_directive: str, staging: list[str], replaced: Mapping[str, Path] | None = None) -> str:
    """The throwaway module's go.mod: requires the release, pins each staging module to its
    published ``v0.Y.Z``, except the modules ``replaced`` names (``k8s.io/kubernetes`` among them),
    which are directories."""
    pinned, replaced = staging_version(version), replaced or {}
    lines = ["module schedharness.invalid/k8sbuild", "", f"go {go_directive}", "", f"require {MODULE} {version}",
             "", "replace ("]
    lines += [f"\t{module} => {path}" for module, path in replaced.items()]
    lines += [f"\t{module} => {module} {pinned}" for module in staging if module not in replaced]
    return "\n".join([*lines, ")", ""])


def go_directive(gomod_text: str) -> str:
    """The ``go`` line of a go.mod (1.22 without one)."""
    found = _GO_DIRECTIVE.search(gomod_text)
    return found.group(1) if found else "1.22"


class Builder:
    """The steps of one build: each timed into :attr:`steps`, its progress said under ``label``."""

    def __init__(self, go: Go, progress: Callable[[str], None], label: str, verb: str = "build") -> None:
        self.go, self.progress, self.label, self.verb = go, progress, label, verb
        self.steps: dict[str, float] = {}

    def say(self, line: str) -> None:
        self.progress(f"k8s {self.verb} {self.label}: {line}")

    def step(self, name: str, module: str, args: list[str], cwd: Path) -> str:
        started = time.monotonic()
        out = self.go.run(name, module, args, cwd)
        self.steps[name] = round(time.monotonic() - started, 1)
        return out

    def components(self, cwd: Path, package_root: str, module: str, flags: str, out: Path,
                   names: tuple[str, ...] = ("kube-scheduler", "kube-apiserver")) -> None:
        for name in names:
            self.say(f"building {name} ({package_root}/cmd/{name})")
            self.step(f"build {name}", module, ["build", "-trimpath", "-ldflags", flags, "-o", str(out / name),
                                                f"{package_root}/cmd/{name}"], cwd)
            self.say(f"built {name} in {self.steps[f'build {name}']:.0f} s")

    def etcd(self, version: str, work: Path, out: Path) -> None:
        module = f"{ETCD_MODULE} {version}"
        where = work / "etcd"
        where.mkdir()
        (where / "go.mod").write_text("module schedharness.invalid/etcdbuild\n\ngo 1.24\n")
        self.say(f"downloading etcd {version} ({ETCD_MODULE})")
        self.step("download etcd", module, ["get", f"{ETCD_MODULE}@{version}"], where)
        self.say(f"building etcd {version}")
        self.step("build etcd", module, ["build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / "etcd"),
                                         ETCD_MODULE], where)
        self.say(f"built etcd in {self.steps['build etcd']:.0f} s")


def resolve(asked: str | None, go: Go, root: Path, progress: Callable[[str], None]) -> str:
    """The release ``asked`` names: an exact one as it is, a minor one its newest patch (offline, the
    newest finished build of it in the cache ``root``)."""
    exact = parse_release(asked)[1] is not None
    return resolve_version(asked, []) if exact else _resolve_minor(asked, go, root, progress)


def _resolve_minor(asked: str | None, go: Go, root: Path, progress: Callable[[str], None]) -> str:
    """The newest patch of a minor release the proxy lists; without the proxy, the newest finished
    build of it in the cache (said so), so a warm machine builds offline."""
    with tempfile.TemporaryDirectory(prefix=".resolve-", dir=root) as scratch:
        try:
            out = go.run("resolve version", MODULE, ["list", "-m", "-versions", MODULE], Path(scratch))
        except BuildError as e:
            cached = [p.name for p in root.iterdir() if complete(p)]
            try:
                found = resolve_version(asked, cached)
            except BuildError:
                raise e from None
            progress(f"k8s build: the Go module proxy did not list {MODULE}; using the newest build in the cache")
            return found
    return resolve_version(asked, out.split()[1:])


def download(go: Go, version: str, work: Path, module: str = MODULE) -> dict[str, str]:
    """``go mod download -json`` of a module (the release by default): its go.mod (``GoMod``),
    source tree (``Dir``, read-only) and ``.info``."""
    done = go.call("download", f"{module} {version}", ["mod", "download", "-json", f"{module}@{version}"], work)
    try:
        info: dict[str, str] = json.loads(done.stdout)
    except ValueError:
        info = {"Error": (done.stderr or done.stdout).strip() or f"exit {done.returncode}"}
    error = info.get("Error", "")
    if "not available" in error or "unknown revision" in error or "invalid version" in error:
        reason = error.strip().splitlines()[-1].split("server response:")[-1].strip()
        raise BuildError("resolve version", module, f"the Go module proxy serves no {module} {version} ({reason})")
    if error or done.returncode != 0:
        raise BuildError("download", f"{module} {version}", error or (done.stderr or "").strip())
    return info


def prepare(go: str | None, environ: Mapping[str, str] | None, root: Path | None) -> tuple[Go, Path]:
    """The ``go`` command (``go`` on ``environ``'s PATH by default) and the cache root, made."""
    environ = dict(os.environ if environ is None else environ)
    root = cache_root(environ) if root is None else root
    gocmd = Go(find_go(go, environ), environ)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file where the directory goes, no permission
        raise BuildError("make the cache directory", str(root), e.strerror or str(e)) from None
    return gocmd, root


def build(version: str | None = None, *, source: Path | None = None, root: Path | None = None,
          go: str | None = None, environ: Mapping[str, str] | None = None,
          progress: Callable[[str], None] = lambda line: None) -> BuildResult:
    """Build (or find in the cache) etcd, kube-apiserver and kube-scheduler of ``version`` (a
    release, default :data:`DEFAULT_MINOR`'s newest patch), or of the checkout ``source``."""
    started = time.monotonic()
    gocmd, root = prepare(go, environ, root)
    if source is not None:
        return _build_source(Path(source).expanduser().resolve(), root, gocmd, progress, started)
    resolved = resolve(version, gocmd, root, progress)
    directory = root / resolved
    with locked(root / f".{resolved}.lock"):
        if complete(directory):
            manifest = json.loads((directory / MANIFEST).read_text())
            progress(f"k8s build {resolved}: reusing {directory} (built {manifest.get('built_at', '?')})")
            return BuildResult(directory, resolved, str(manifest.get("etcd_version", "")), False,
                               time.monotonic() - started)
        if directory.exists():  # not complete: never used, rebuilt
            progress(f"k8s build {resolved}: {directory} is incomplete, building it again")
            shutil.rmtree(directory)
        sweep(root, resolved)
        builder = Builder(gocmd, progress, resolved)
        work = Path(tempfile.mkdtemp(prefix=f".{resolved}.partial-", dir=root))
        try:
            out = work / "bin"
            out.mkdir()
            builder.say(f"downloading {MODULE} {resolved} from the Go module proxy")
            started_step = time.monotonic()
            info = download(gocmd, resolved, work)
            gomod = Path(info["GoMod"]).read_text()
            tree = Path(info["Dir"])
            staging = staging_modules(gomod)
            module_dir = work / "k8s"
            module_dir.mkdir()
            (module_dir / "go.mod").write_text(throwaway_gomod(resolved, go_directive(gomod), staging))
            builder.say(f"resolving {len(staging)} staging modules at {staging_version(resolved)} "
                        f"(k8s.io/api, k8s.io/apiserver, ...)")
            builder.step("resolve modules", f"{MODULE} {resolved}",
                         ["get", *(f"{MODULE}/cmd/{name}@{resolved}" for name in ("kube-apiserver", "kube-scheduler"))],
                         module_dir)
            builder.steps["download"] = round(time.monotonic() - started_step, 1)
            stamp = ldflags(resolved, build_date=release_time(info))
            builder.components(module_dir, MODULE, f"{MODULE} {resolved}", stamp, out)
            etcd = etcd_version_of(lambda p: read_text(tree / p), gomod)
            builder.etcd(etcd, work, out)
            versions = check_versions(out, stamped(resolved, etcd))
            seconds = round(time.monotonic() - started, 1)
            manifest = {"version": resolved, "etcd_version": etcd, "source": f"{MODULE} {resolved}",
                        "staging_version": staging_version(resolved), "staging_modules": staging,
                        "go": go_version(gocmd, work), "versions": versions, "step_seconds": builder.steps,
                        "seconds": seconds, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
            out.rename(directory)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        builder.say(f"done in {seconds:.0f} s: etcd {etcd}, kube-apiserver and kube-scheduler {resolved}")
        return BuildResult(directory, resolved, etcd, True, seconds)


def _build_source(tree: Path, root: Path, gocmd: Go, progress: Callable[[str], None], started: float) -> BuildResult:
    gomod = read_text(tree / "go.mod")
    if gomod is None or not re.search(rf"^module\s+{re.escape(MODULE)}\s*$", gomod, re.M):
        raise BuildError("read source", MODULE, f"{tree} is not a kubernetes checkout (no go.mod of module {MODULE})")
    version, commit, date, state = _describe(tree)
    label = f"{version} from {tree}"
    directory = root / f"source-{tree.name}-{hashlib.sha256(str(tree).encode()).hexdigest()[:12]}"
    with locked(root / f".{directory.name}.lock"):
        builder = Builder(gocmd, progress, label)
        work = Path(tempfile.mkdtemp(prefix=f".{directory.name}.partial-", dir=root))
        try:
            out = work / "bin"
            out.mkdir()
            builder.components(tree, ".", f"{MODULE} at {tree}", ldflags(version, commit=commit, build_date=date,
                                                                       tree_state=state), out)
            etcd = etcd_version_of(lambda p: read_text(tree / p), gomod)
            builder.etcd(etcd, work, out)
            versions = check_versions(out, stamped(version, etcd))
            seconds = round(time.monotonic() - started, 1)
            manifest = {"version": version, "etcd_version": etcd, "source": str(tree), "commit": commit,
                        "go": go_version(gocmd, work), "versions": versions, "step_seconds": builder.steps,
                        "seconds": seconds, "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
            if directory.exists():
                shutil.rmtree(directory)
            out.rename(directory)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    builder.say(f"done in {seconds:.0f} s: etcd {etcd}, kube-apiserver and kube-scheduler {version}")
    return BuildResult(directory, version, etcd, True, seconds)


def _describe(tree: Path) -> tuple[str, str, str, str]:
    """(version, commit, commit date, tree state) of a checkout, as hack/lib/version.sh finds them."""
    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True, check=False,
                                  stdin=subprocess.DEVNULL)
        except OSError:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    describe = git("describe", "--tags", "--match=v*", "--abbrev=14", "--dirty")
    if not describe:
        raise BuildError("read source", MODULE, f"{tree}: `git describe --tags` names no v* tag, so the build "
                                                "cannot be stamped with a release (fetch the tags)")
    try:
        version = stamp_from_describe(describe)
    except ValueError as e:
        raise BuildError("read source", MODULE, str(e)) from None
    return (version, git("rev-parse", "HEAD"), git("log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ")
            or "1970-01-01T00:00:00Z", "dirty" if version.endswith("-dirty") else "clean")


def stamped(version: str, etcd: str) -> dict[str, str]:
    """What each binary of a build of ``version`` says it is."""
    return {"etcd": etcd.lstrip("v"), "kube-apiserver": version, "kube-scheduler": version}


def check_versions(out: Path, expected: Mapping[str, str]) -> dict[str, str]:
    """Each binary's own ``--version``, which must name (as one word) the version ``expected``
    gives it, as :func:`stamped` makes them."""
    found = {}
    for name in BINARIES:
        try:
            done = subprocess.run([str(out / name), "--version"], capture_output=True, text=True, check=False,
                                  stdin=subprocess.DEVNULL, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise BuildError(f"check {name}", name, f"`{name} --version` did not run: {e}") from None
        text = (done.stdout + done.stderr).strip()
        found[name] = text.splitlines()[0] if text else ""
        if expected[name] not in text.split():
            raise BuildError(f"check {name}", name, f"`{name} --version` printed {text!r}, not {expected[name]}")
    return found


def go_version(gocmd: Go, cwd: Path) -> str:
    """``go env GOVERSION``, for the manifest."""
    return gocmd.run("find Go", "go", ["env", "GOVERSION"], cwd).strip()


def release_time(info: Mapping[str, str]) -> str:
    """The release's publication time on the proxy (its ``.info``), as the build date."""
    text = read_text(Path(info.get("Info", ""))) if info.get("Info") else None
    stamp = (json.loads(text) if text else {}).get("Time", "")
    return stamp or "1970-01-01T00:00:00Z"


def read_text(path: Path) -> str | None:
    """A file's text, None if it cannot be read."""
    try:
        return path.read_text()
    except OSError:
        return None


def sweep(root: Path, name: str) -> None:
    """Remove staging directories an interrupted build of the directory ``name`` left (the lock is held)."""
    for stale in root.glob(f".{glob.escape(name)}.partial-*"):
        shutil.rmtree(stale, ignore_errors=True)
