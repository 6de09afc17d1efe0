"""Generate ``fake_apiserver/data/feature-gates.json``: the feature gates kube-apiserver knows in
each release the fake serves, with their defaults, stages, locks and dependencies.

Usage::

    python tools/gen_feature_gates.py [--modcache DIR] [--out PATH]

``DIR`` is a Go module cache (default: ``go env GOMODCACHE``, else ``~/go/pkg/mod``) holding, for
every release of :data:`RELEASES`, ``k8s.io/kubernetes@v1.NN.P`` and its staging modules at
``v0.NN.P``; ``go mod download`` fetches them (the error names the command). The output is
deterministic (same sources, same bytes) and is committed; this script is not packaged.

What kube-apiserver registers in its feature gate (``utilfeature.DefaultMutableFeatureGate``),
each read from the Go source, never copied: the versioned specs of ``pkg/features`` (which also
lists some gates of the generic apiserver, apiextensions-apiserver and controller-manager), of
``k8s.io/apiserver/pkg/features``, ``k8s.io/apiextensions-apiserver/pkg/features`` and
``k8s.io/client-go/features`` (each an ``init`` or the client adapter), of component-base's
``zpages/features``, ``logs/api/v1`` and ``metrics/features`` (``AddFeatureGates`` calls in
kube-apiserver's and the generic apiserver's packages), controller-manager's cloud gates (its
``features/register`` package, linked through ``pkg/cluster/ports``), component-base's own
``AllAlpha`` and ``AllBeta``, and the dependencies of ``pkg/features`` (``AddDependencies``, since
v1.35). A gate listed twice must have the same specs in both places, as ``AddVersioned`` demands.
Checked against a real kube-apiserver v1.37.2: the alpha and beta gates its ``--help`` lists are
the data's, with the same stages and defaults (``tests/fake_apiserver/_machinery/test_features.py``).

Each release gets each gate's spec at that release as a server of that release picks it
(``featureSpecAtEmulationAndMinCompatVersion``: the last spec whose version is not after the
release and whose minimum compatibility version, if any, is not after the release before it);
a gate with no such spec is ``PRE-ALPHA``. Parsing is a small tokenizer for Go composite
literals (map literals of keys, ``{Version: version.MustParse("1.35"), Default: true, ...}``
specs, lists of features); anything else in those literals stops it with the file and line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fake_apiserver" / "data" / "feature-gates.json"

#: The releases the fake serves as, and the patch release whose source gives their gates.
RELEASES = {"1.34": "1.34.4", "1.35": "1.35.4", "1.36": "1.36.3", "1.37": "1.37.2"}

KUBERNETES = "k8s.io/kubernetes"
#: (package, how its specs are found): a package-level variable, or what a function returns.
SPEC_SOURCES = (
    (f"{KUBERNETES}/pkg/features", "var defaultVersionedKubernetesFeatureGates"),
    ("k8s.io/apiserver/pkg/features", "var defaultVersionedKubernetesFeatureGates"),
    ("k8s.io/apiextensions-apiserver/pkg/features", "var defaultVersionedKubernetesFeatureGates"),
    # unversioned before v1.35 (the client adapter's ``Add``: each spec at version 0.0)
    ("k8s.io/client-go/features", "var defaultVersionedKubernetesFeatureGates|var defaultKubernetesFeatureGates"),
    ("k8s.io/component-base/zpages/features", "func featureGates"),
    ("k8s.io/component-base/logs/api/v1", "func featureGates"),
    ("k8s.io/component-base/metrics/features", "func featureGates"),
    ("k8s.io/component-base/featuregate", "var defaultFeatures"),
    # registered by controller-manager's features/register package, which kube-apiserver links
    # through pkg/cluster/ports -> k8s.io/cloud-provider/options
    ("k8s.io/controller-manager/pkg/features", "var versionedCloudPublicFeatureGates"),
)
DEPENDENCIES = (f"{KUBERNETES}/pkg/features", "var defaultKubernetesFeatureGateDependencies")
STAGES = {"Alpha": "ALPHA", "Beta": "BETA", "GA": "GA", "Deprecated": "DEPRECATED", "PreAlpha": "PRE-ALPHA"}


class GoSourceError(Exception):
    pass


# ---------------------------------------------------------------------------- tokens

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|`[^`]*`)
  | (?P<number>\d+(?:\.\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[{}()\[\],:=.;*&])
""", re.VERBOSE | re.DOTALL)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    line: int


def tokenize(text: str, file: str) -> list[Token]:
    tokens: list[Token] = []
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            tokens.append(Token("other", text[pos], line))  # operators the literals never hold
            line += text[pos] == "\n"
            pos += 1
            continue
        kind = m.lastgroup or ""
        if kind not in ("space", "comment"):
            tokens.append(Token(kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    return tokens


# ---------------------------------------------------------------------------- values

@dataclass(frozen=True)
class Ref:
    name: str  # "X" or "pkg.X"


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Literal:
    elements: tuple[tuple[Any, Any], ...]  # (key or None, value)


class Parser:
    def __init__(self, tokens: list[Token], file: str, start: int) -> None:
        self.tokens, self.file, self.i = tokens, file, start

    def error(self, what: str) -> GoSourceError:
        token = self.tokens[min(self.i, len(self.tokens) - 1)]
        return GoSourceError(f"{self.file}:{token.line}: {what} (at {token.text!r})")

    def peek(self) -> Token:
        if self.i >= len(self.tokens):
            raise self.error("unexpected end of file")
        return self.tokens[self.i]

    def take(self, text: str | None = None) -> Token:
        token = self.peek()
        if text is not None and token.text != text:
            raise self.error(f"expected {text!r}")
        self.i += 1
        return token

    def expression(self) -> Any:
        token = self.peek()
        if token.text == "{":
            return self.literal()
        if token.kind == "string":
            self.i += 1
            return json.loads(token.text) if token.text.startswith('"') else token.text[1:-1]
        if token.kind == "number":
            self.i += 1
            return token.text
        if token.kind != "ident":
            raise self.error("expected a value")
        name = self.take().text
        while self.peek().text == ".":
            self.take(".")
            name += "." + self.take().text
        if name in ("true", "false"):
            return name == "true"
        if self.peek().text == "(":
            self.take("(")
            args = []
            while self.peek().text != ")":
                args.append(self.expression())
                if self.peek().text == ",":
                    self.take(",")
            self.take(")")
            return Call(name, tuple(args))
        return Ref(name)

    def literal(self) -> Literal:
        self.take("{")
        elements = []
        while self.peek().text != "}":
            value = self.expression()
            key = None
            if self.peek().text == ":":
                self.take(":")
                key, value = value, self.expression()
            elements.append((key, value))
            if self.peek().text == ",":
                self.take(",")
            elif self.peek().text != "}":
                raise self.error("expected ',' or '}'")
        self.take("}")
        return Literal(tuple(elements))


# ---------------------------------------------------------------------------- packages

@dataclass
class Package:
    path: str
    directory: Path
    files: dict[str, list[Token]]

    def constants(self) -> dict[str, str]:
        """``Name featuregate.Feature = "Name"`` (or ``Feature`` in the package that defines it), and
        the untyped ``Name = "Name"`` and ``Name = featuregate.Feature("Name")`` a const block may hold
        (v1.34 has both)."""
        found: dict[str, str] = {}
        for tokens in self.files.values():
            for i in range(len(tokens) - 3):
                if tokens[i].kind == "ident" and tokens[i + 1].text == "=" and tokens[i - 1].text != "var":
                    texts = [t.text for t in tokens[i + 2:i + 8]]
                    if tokens[i + 2].kind == "string":
                        found[tokens[i].text] = json.loads(tokens[i + 2].text)
                    elif texts[:4] == ["featuregate", ".", "Feature", "("] and tokens[i + 6].kind == "string":
                        found[tokens[i].text] = json.loads(tokens[i + 6].text)  # featuregate.Feature("Name")
                    continue
                if tokens[i].kind != "ident" or tokens[i + 1].kind != "ident":
                    continue
                j = i + 1
                if tokens[j + 1].text == "." and j + 2 < len(tokens):
                    if tokens[j].text != "featuregate" or tokens[j + 2].text != "Feature":
                        continue
                    j += 2
                elif tokens[j].text != "Feature":
                    continue
                if j + 2 < len(tokens) and tokens[j + 1].text == "=" and tokens[j + 2].kind == "string":
                    found[tokens[i].text] = json.loads(tokens[j + 2].text)
        return found

    def imports(self, file: str) -> dict[str, str]:
        """Alias (or last path element) -> import path, for one file."""
        tokens = self.files[file]
        out: dict[str, str] = {}
        i = 0
        while i < len(tokens):
            if tokens[i].text == "import":
                i += 1
                group = tokens[i].text == "("
                i += group
                while i < len(tokens):
                    alias = None
                    if tokens[i].kind == "ident" or tokens[i].text in (".", "_"):
                        alias = tokens[i].text
                        i += 1
                    path = json.loads(tokens[i].text)
                    out[alias or path.rsplit("/", 1)[1]] = path
                    i += 1
                    if not group or tokens[i].text == ")":
                        break
            i += 1
        return out

    def find(self, where: str) -> tuple[str, Parser]:
        """The file and a parser at the ``{`` of the map literal ``where`` names (``var x`` or
        ``func f``; alternatives separated by ``|``, the first found wins)."""
        for option in where.split("|"):
            what, name = option.split(" ")
            for file, tokens in self.files.items():
                for i in range(1, len(tokens) - 1):
                    if tokens[i].text != name or not (tokens[i - 1].text == what or (
                            what == "var" and tokens[i + 1].text == "=")):  # in a var ( ... ) group
                        continue
                    j = i + 1
                    while what == "func" and tokens[j].text != "return":  # past the result type
                        j += 1
                    while tokens[j].text != "map":
                        j += 1
                    while tokens[j].text != "{":
                        j += 1
                    return file, Parser(tokens, file, j)
        raise GoSourceError(f"{self.directory}: no {where}")


class Universe:
    def __init__(self, modcache: Path, release: str) -> None:
        self.modcache, self.release = modcache, release
        self.packages: dict[str, Package] = {}

    def module_dir(self, path: str) -> tuple[Path, str]:
        parts = path.split("/")
        module = "/".join(parts[:2])
        version = f"v{self.release}" if module == KUBERNETES else f"v0.{self.release.split('.', 1)[1]}"
        directory = self.modcache / f"{module}@{version}"
        if not directory.is_dir():
            raise GoSourceError(f"{directory} is missing: run `go mod download {module}@{version}`")
        return directory / "/".join(parts[2:]), version

    def package(self, path: str) -> Package:
        if path not in self.packages:
            directory, _ = self.module_dir(path)
            files = {}
            for file in sorted(directory.glob("*.go")):
                if not file.name.endswith("_test.go"):
                    files[str(file)] = tokenize(file.read_text(), str(file))
            if not files:
                raise GoSourceError(f"{directory}: no Go files")
            self.packages[path] = Package(path, directory, files)
        return self.packages[path]

    def feature(self, package: Package, file: str, value: Any) -> str:
        """The feature name a key or list element stands for."""
        if isinstance(value, Call) and value.name.endswith("Feature") and len(value.args) == 1:
            return self.feature(package, file, value.args[0])  # featuregate.Feature(x.Y)
        if not isinstance(value, Ref):
            raise GoSourceError(f"{file}: a feature that is not a constant: {value!r}")
        qualifier, _, name = value.name.rpartition(".")
        target = package if not qualifier else self.package(package.imports(file)[qualifier])
        constants = target.constants()
        if name not in constants:
            raise GoSourceError(f"{file}: {value.name} is not a feature constant of {target.path}")
        return constants[name]


def _version(value: Any, file: str) -> tuple[int, int]:
    if isinstance(value, Call) and value.name == "version.MustParse":
        major, minor = str(value.args[0]).split(".")[:2]
        return int(major), int(minor)
    if isinstance(value, Call) and value.name == "version.MajorMinor":
        return int(value.args[0]), int(value.args[1])
    raise GoSourceError(f"{file}: a version that is not version.MustParse or version.MajorMinor: {value!r}")


def _spec(literal: Any, file: str, *, versioned: bool = True) -> dict[str, Any]:
    if not isinstance(literal, Literal):
        raise GoSourceError(f"{file}: a feature spec that is not a literal: {literal!r}")
    fields = {key.name: value for key, value in literal.elements if isinstance(key, Ref)}
    unknown = set(fields) - {"Version", "Default", "PreRelease", "LockToDefault", "MinCompatibilityVersion"}
    if unknown or len(fields) != len(literal.elements):
        raise GoSourceError(f"{file}: a feature spec with fields {sorted(unknown) or '(unnamed)'}")
    stage = fields.get("PreRelease")
    stage_name = stage.name.rpartition(".")[2] if isinstance(stage, Ref) else None
    if stage_name not in STAGES:
        raise GoSourceError(f"{file}: an unknown PreRelease {stage!r}")
    return {
        "version": _version(fields.get("Version"), file) if versioned else (0, 0),
        "min_compat": _version(fields["MinCompatibilityVersion"], file) if "MinCompatibilityVersion" in fields else None,
        "default": bool(fields.get("Default", False)),
        "stage": STAGES[stage_name],
        "locked": bool(fields.get("LockToDefault", False)),
    }


def versioned_specs(universe: Universe) -> dict[str, list[dict[str, Any]]]:
    """Every gate's versioned specs, from every source kube-apiserver registers."""
    known: dict[str, list[dict[str, Any]]] = {}
    for path, where in SPEC_SOURCES:
        package = universe.package(path)
        file, parser = package.find(where)
        for key, value in parser.literal().elements:
            name = universe.feature(package, file, key)
            if not isinstance(value, Literal):
                raise GoSourceError(f"{file}: the specs of {name} are not a list")
            if value.elements and value.elements[0][0] is not None:  # one unversioned FeatureSpec
                specs = [{**_spec(value, file, versioned=False), "version": (0, 0)}]
            else:
                specs = [_spec(element, file) for _, element in value.elements]
            if name in known and known[name] != specs:
                raise GoSourceError(f"{file}: {name} is registered twice with different specs")
            known[name] = specs
    return known


def dependencies(universe: Universe) -> dict[str, list[str]]:
    path, where = DEPENDENCIES
    package = universe.package(path)
    try:
        file, parser = package.find(where)
    except GoSourceError:
        return {}  # before v1.35: no dependencies
    out: dict[str, list[str]] = {}
    for key, value in parser.literal().elements:
        if not isinstance(value, Literal):
            raise GoSourceError(f"{file}: the dependencies of {key!r} are not a list")
        deps = [universe.feature(package, file, element) for _, element in value.elements]
        if deps:
            out[universe.feature(package, file, key)] = deps
    return dict(sorted(out.items()))


def at_release(specs: list[dict[str, Any]], release: str) -> dict[str, Any]:
    """``featureSpecAtEmulationAndMinCompatVersion`` with the release as the emulation version and
    the release before it as the minimum compatibility version."""
    major, minor = (int(p) for p in release.split("."))
    emulation, min_compat = (major, minor), (major, minor - 1)
    for spec in reversed(specs):
        if spec["version"] > emulation:
            continue
        if spec["min_compat"] is not None and min_compat < spec["min_compat"]:
            continue
        return spec
    return {"default": False, "stage": "PRE-ALPHA", "locked": False}


def generate(modcache: Path) -> dict[str, Any]:
    releases: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for release, patch in RELEASES.items():
        universe = Universe(modcache, patch)
        specs = versioned_specs(universe)
        gates = {}
        for name in sorted(specs):
            spec = at_release(specs[name], release)
            gate = {"default": spec["default"], "stage": spec["stage"]}
            if spec["locked"]:
                gate["locked"] = True
            gates[name] = gate
        deps = dependencies(universe)
        missing = sorted({d for name, ds in deps.items() for d in [name, *ds]} - set(gates))
        if missing:
            raise GoSourceError(f"v{patch}: dependencies name gates that are not registered: {missing}")
        releases[release] = {"gates": gates, "dependencies": deps}
        sources[release] = f"k8s.io/kubernetes v{patch} and its staging modules v0.{patch.split('.', 1)[1]}"
    return {
        "about": "The feature gates kube-apiserver registers in each release: the spec each gate has at that "
                 "release and the dependencies between gates (generated by tools/gen_feature_gates.py from the "
                 "Go source; do not edit)",
        "sources": sources,
        "releases": releases,
    }


def render(data: dict[str, Any]) -> str:
    """The data as JSON with one gate or dependency per line (small, diffable)."""
    lines = ["{", f' "about": {json.dumps(data["about"])},', f' "sources": {json.dumps(data["sources"])},',
             ' "releases": {']
    blocks = []
    for release, content in data["releases"].items():
        gates = ",\n".join(f"    {json.dumps(name)}: {json.dumps(gate)}" for name, gate in content["gates"].items())
        deps = ",\n".join(f"    {json.dumps(name)}: {json.dumps(d)}" for name, d in content["dependencies"].items())
        blocks.append(f'  {json.dumps(release)}: {{\n   "gates": {{\n{gates}\n   }},\n   "dependencies": {{'
                      + (f"\n{deps}\n   }}" if deps else "}") + "\n  }")
    lines.append(",\n".join(blocks))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


def default_modcache() -> Path:
    try:
        out = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    return Path(out) if out else Path(os.path.expanduser("~/go/pkg/mod"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--modcache", type=Path, default=None, help="a Go module cache (default: go env GOMODCACHE)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    try:
        data = generate(args.modcache or default_modcache())
    except GoSourceError as e:
        print(f"gen_feature_gates: {e}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(data))
    counts = ", ".join(f"v{r}: {len(c['gates'])}" for r, c in data["releases"].items())
    print(f"wrote {args.out}: gates of {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
