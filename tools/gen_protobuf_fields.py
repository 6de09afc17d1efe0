"""Generate ``fake_apiserver/data/protobuf-v<release>.json``: the protobuf wire facts of the kinds
a fake server of that Kubernetes release decodes, read from the release's Go API types.

Usage::

    python tools/gen_protobuf_fields.py --api SOURCE --apimachinery SOURCE [--apiextensions SOURCE]
        [--kube-aggregator SOURCE] [--release 1.37] [--tag v0.37.0] [--discovery PATH] [--out PATH]

``--release`` picks the kinds and names the file: every kind of the release's aggregated discovery
data (``fake_apiserver/data/discovery-v<release>.json``, captured from a real kube-apiserver by
``tools/gen_discovery.py``; ``--discovery`` names another), i.e. each resource's kind in every group
and version listed there (every one the release can serve, off by default or not) and each kind a subresource names (``deployments/scale``: autoscaling/v1
Scale, ``pods/eviction``: policy/v1 Eviction, ``serviceaccounts/token``: TokenRequest, the connect
options), plus :data:`EXTRA_KINDS` and :data:`EXTRA_TYPES`. The data covers what the release
could serve, not only what the fake's kind table serves today, so that a kind added to the table
needs no new data. ``--tag`` is the staging tag the Go types are read at (default ``v0.<minor>.0``).

A ``SOURCE`` is a clone (or bare mirror) of ``github.com/kubernetes/api``, ``apimachinery``,
``apiextensions-apiserver`` (CustomResourceDefinition) and ``kube-aggregator`` (APIService); files
are read at ``--tag`` with ``git show``, so no work tree is needed. A directory holding the module
at that version (the Go module cache's ``~/go/pkg/mod/k8s.io/api@v0.37.2``) does as well, for a tag
a mirror lacks. The last two are needed only when the discovery data lists their groups. The
output is deterministic (same tag, same bytes) and is committed; this script is not packaged.

Everything comes from the Go source, not from ``.proto`` files: a struct field's tags
(``protobuf:"bytes,2,rep,name=containers"``, ``protobuf_key``/``protobuf_val``,
``json:"name,omitempty"``), its Go type (pointer, slice, map, named types resolved to their
underlying kind) and the few type comments the protobuf generator reads (``+protobuf.as=`` and
``+protobuf.embed=``). The Go types that marshal JSON themselves (``MarshalJSON``: times,
durations, quantities, int-or-strings, raw JSON) are named by a small table (:data:`CODECS`),
and a reachable type with a ``MarshalJSON`` the table lacks stops the generator (k8s.io/api itself has
none: its ``ExtraValue []string`` lists, marked ``+protobuf.nullable=true``, are the one type whose
wire form is not its Go form, a message of one ``items`` field, and get the ``items`` codec). Structs are
keyed by their OpenAPI definition name (``io.k8s.api.core.v1.PodSpec``), so that the data joins
with the schemas of :mod:`fake_apiserver._machinery.schema`; each field keeps its Go type as
``reflect.Type.String()`` prints it (``[]v1.Container``, ``*int64``, ``v1.ResourceList``).

Parsing is line based on gofmt-formatted source: top-level ``type`` declarations, struct fields
one per line. That is what the Kubernetes API packages are; a line the parser cannot read stops
it with the file and line, rather than guessing.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fake_apiserver import KUBERNETES_VERSION, served_release as schema_release  # noqa: E402

API = "k8s.io/api"
APIMACHINERY = "k8s.io/apimachinery"
APIEXTENSIONS = "k8s.io/apiextensions-apiserver"
AGGREGATOR = "k8s.io/kube-aggregator"
META = f"{APIMACHINERY}/pkg/apis/meta/v1"
# The API groups whose Go types live outside k8s.io/api: the servers kube-apiserver chains with
# its own (CustomResourceDefinition, APIService); every other group is k8s.io/api/<group's first label>.
API_DIRS = {"internal.apiserver.k8s.io": "apiserverinternal"}
"""The groups of k8s.io/api whose directory is not the first part of the group's name."""

GROUP_PACKAGES = {
    "apiextensions.k8s.io": f"{APIEXTENSIONS}/pkg/apis/apiextensions",
    "apiregistration.k8s.io": f"{AGGREGATOR}/pkg/apis/apiregistration",
}

# Kinds decoded besides those of the discovery data: the kinds kubectl's imperative ``create``
# sends and the binding subresource's body (all of them also in the discovery data today; kept so
# that a discovery file missing them still yields them: a body of one of them posted to another
# kind's URL gets a conversion error, not "no kind is registered").
EXTRA_KINDS = (
    ("", "v1", "Binding"),
    ("", "v1", "Secret"),
    ("apps", "v1", "Deployment"),
    ("batch", "v1", "Job"),
)
# Decoded under any group-version: a DELETE's body (``metav1.DeleteOptions``), and the envelope.
EXTRA_TYPES = ((META, "DeleteOptions"), (f"{APIMACHINERY}/pkg/runtime", "Unknown"))

# Go types that implement json.Marshaler: how their JSON is written (see fake_apiserver._machinery.protobuf).
CODECS = {
    (META, "Time"): "time",
    (META, "MicroTime"): "micro_time",
    (META, "Duration"): "duration",
    (META, "FieldsV1"): "raw_json",
    (f"{APIMACHINERY}/pkg/api/resource", "Quantity"): "quantity",
    (f"{APIMACHINERY}/pkg/util/intstr", "IntOrString"): "int_or_string",
    (f"{APIMACHINERY}/pkg/runtime", "RawExtension"): "raw_json",
    (f"{APIMACHINERY}/pkg/runtime", "Unknown"): "raw_json",  # the envelope; never inside an object
    # CustomResourceDefinition's schema (apiextensions/v1 marshal.go): JSON writes its raw bytes or
    # null, as RawExtension does; each "either" type writes the one member that is set: the list of
    # schemas or else the schema (OrArray), the schema or else the bool (OrBool), the list of
    # strings or else the schema or else null (OrStringArray).
    (f"{APIEXTENSIONS}/pkg/apis/apiextensions/v1", "JSON"): "raw_json",
    (f"{APIEXTENSIONS}/pkg/apis/apiextensions/v1", "JSONSchemaPropsOrArray"): "schema_or_array",
    (f"{APIEXTENSIONS}/pkg/apis/apiextensions/v1", "JSONSchemaPropsOrBool"): "schema_or_bool",
    (f"{APIEXTENSIONS}/pkg/apis/apiextensions/v1", "JSONSchemaPropsOrStringArray"): "schema_or_strings",
}
# Standard-library named types a field may have, as (reflect name, underlying builtin).
STDLIB = {("time", "Duration"): "int64"}
# The wire type of a value of each Go kind (strings, bytes, messages, maps: length-delimited).
WIRE = {"bool": "varint", "int32": "varint", "int64": "varint", "uint32": "varint", "uint64": "varint",
        "float64": "fixed64", "float32": "fixed32"}
SCALARS = {"string", "bool", "int32", "int64", "uint32", "uint64", "float32", "float64", "int", "uint"}
ALIASES = {"byte": "uint8", "rune": "int32"}
SKIPPED_FILE = re.compile(r"(_test\.go|generated\.pb\.go|zz_generated.*\.go|_swagger_doc_generated\.go|fuzz\.go)$")


class GoSourceError(Exception):
    pass


# ---------------------------------------------------------------------------- Go source reading


@dataclass
class TypeDecl:
    package: str
    name: str
    expr: str | None  # the type expression of a non-struct declaration
    alias: bool = False
    fields: list[tuple[str, str, str, int]] = field(default_factory=list)  # name, type, tag, line
    markers: list[str] = field(default_factory=list)
    file: str = ""
    error: str = ""  # why a field could not be read (only an error when the type is reached)


@dataclass
class Package:
    path: str
    name: str
    types: dict[str, TypeDecl]
    imports: dict[str, dict[str, str]]  # file -> alias -> import path
    json_marshalers: set[str]
    sources: dict[str, str]


class Repo:
    """The files of one module at ``tag``: from a git dir (``git show``), or from a directory that
    holds the module at that version (the Go module cache's ``k8s.io/api@v0.37.2``, for a tag a
    mirror lacks)."""

    def __init__(self, source: str, tag: str, module: str) -> None:
        self.git_dir, self.tag, self.module = source, tag, module
        root = Path(source)
        self.tree = root if (root / "go.mod").is_file() else None
        if self.tree is not None and not root.name.endswith(f"@{tag}"):
            raise GoSourceError(f"{source} is not {module} at {tag} (name it MODULE@{tag})")

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", *args], check=True, capture_output=True,
                              text=True).stdout

    def files(self, directory: str) -> list[str]:
        if self.tree is not None:
            listed = sorted(p.name for p in (self.tree / directory).iterdir() if p.is_file())
        else:
            listed = self._git("ls-tree", "--name-only", f"{self.tag}:{directory}").split()
        return [f"{directory}/{name}" for name in listed if name.endswith(".go") and not SKIPPED_FILE.search(name)]

    def read(self, path: str) -> str:
        if self.tree is not None:
            return (self.tree / path).read_text()
        return self._git("show", f"{self.tag}:{path}")


_BUILD = re.compile(r"^//go:build (.+)$", re.M)


def _built_by_default(source: str) -> bool:
    """Whether a ``//go:build`` constraint holds with no build tags set (``!fieldsv1string``)."""
    found = _BUILD.search(source)
    if not found:
        return True
    expr = found.group(1).replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    expr = re.sub(r"[A-Za-z_][A-Za-z0-9_.]*", lambda m: m.group(0) if m.group(0) in ("and", "or", "not") else "False",
                  expr)
    return bool(eval(expr, {"__builtins__": {}}, {}))  # only and/or/not/False/parentheses are left


_IMPORT_LINE = re.compile(r'^\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s+)?"([^"]+)"\s*$')
_TYPE_LINE = re.compile(r"^type ([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])? (=\s*)?(.*)$")
_BLOCK_COMMENT = re.compile(r"^\s*/\*.*?\*/", re.S | re.M)  # gofmt puts block comments on lines of their own
_MARSHAL_JSON = re.compile(r"^func \(\w+ \*?([A-Za-z_][A-Za-z0-9_]*)\) MarshalJSON\(\)", re.M)


def _strip_comment(line: str) -> str:
    """``line`` without a trailing ``//`` comment (outside backquotes and double quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "`\"":
            quote = ch
        elif line.startswith("//", i):
            return line[:i].rstrip()
    return line.rstrip()


def parse_package(repo: Repo, directory: str) -> Package:
    path = f"{repo.module}/{directory}"
    types: dict[str, TypeDecl] = {}
    imports: dict[str, dict[str, str]] = {}
    marshalers: set[str] = set()
    sources: dict[str, str] = {}
    name = ""
    for file in repo.files(directory):
        source = repo.read(file)
        if not _built_by_default(source):
            continue
        sources[file] = source
        marshalers.update(_MARSHAL_JSON.findall(source))
        lines = _BLOCK_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), source).splitlines()
        file_imports: dict[str, str] = {}
        imports[file] = file_imports
        markers: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("package "):
                name = line.split()[1]
            elif line.startswith("import ("):
                i += 1
                while lines[i].strip() != ")":
                    found = _IMPORT_LINE.match(_strip_comment(lines[i]))
                    if found:
                        import_path = found.group(2)
                        file_imports[found.group(1) or import_path.rsplit("/", 1)[-1]] = import_path
                    i += 1
            elif line.startswith("import "):
                found = _IMPORT_LINE.match(line[len("import "):])
                if found:
                    file_imports[found.group(1) or found.group(2).rsplit("/", 1)[-1]] = found.group(2)
            elif line.startswith("//"):
                markers.append(line[2:].strip())
                i += 1
                continue
            elif line.startswith("type ("):
                raise GoSourceError(f"{file}:{i + 1}: grouped type declarations are not read")
            elif line.startswith("type "):
                found = _TYPE_LINE.match(_strip_comment(line))
                if not found:
                    raise GoSourceError(f"{file}:{i + 1}: cannot read {line!r}")
                type_name, alias, rest = found.group(1), bool(found.group(2)), found.group(3).strip()
                decl = TypeDecl(directory, type_name, None, alias, markers=markers, file=file)
                if rest in ("struct {", "struct{"):
                    i += 1
                    while lines[i] != "}":
                        text = _strip_comment(lines[i]).strip()
                        if text:
                            try:
                                decl.fields.append((*_split_field(text, file, i + 1), i + 1))
                            except GoSourceError as e:  # raised if the type is ever used
                                decl.error = decl.error or str(e)
                        i += 1
                elif rest in ("struct{}", "struct {}"):
                    pass
                elif rest.startswith(("interface", "func")):
                    decl = TypeDecl(directory, type_name, "interface", file=file)
                else:
                    decl.expr = rest
                types[type_name] = decl
            markers = []
            i += 1
    return Package(path, name, types, imports, marshalers, sources)


_FIELD = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_]*)\s+)?([^\s`]\S*?)\s*(`[^`]*`)?$")


def _split_field(text: str, file: str, line: int) -> tuple[str, str, str]:
    """``Name Type `tags``` -> (name, type, tags); an embedded field has the type's name as name
    and a ``*``-less type; the name is ``""`` when embedded."""
    found = _FIELD.match(text)
    if not found:
        raise GoSourceError(f"{file}:{line}: cannot read struct field {text!r}")
    return found.group(1) or "", found.group(2), (found.group(3) or "``")[1:-1]


def parse_tags(tags: str) -> dict[str, str]:
    return dict(re.findall(r'(\w+):"([^"]*)"', tags))


# ---------------------------------------------------------------------------- Go types


@dataclass(frozen=True)
class GoType:
    """A parsed Go type expression: ``kind`` is ptr, slice, map, named or builtin."""

    kind: str
    elem: GoType | None = None
    key: GoType | None = None
    package: str = ""  # import path of a named type ("" for builtin)
    name: str = ""


def parse_type(expr: str, package: str, imports: dict[str, str]) -> GoType:
    """Parse ``expr`` as written in ``package`` (import path) with the file's ``imports``."""
    expr = expr.strip()
    if expr.startswith("*"):
        return GoType("ptr", parse_type(expr[1:], package, imports))
    if expr.startswith("[]"):
        return GoType("slice", parse_type(expr[2:], package, imports))
    if expr.startswith("map["):
        depth, i = 0, 3
        for i in range(3, len(expr)):
            depth += {"[": 1, "]": -1}.get(expr[i], 0)
            if depth == 0:
                break
        return GoType("map", parse_type(expr[i + 1:], package, imports), parse_type(expr[4:i], package, imports))
    if "." in expr:
        alias, name = expr.split(".", 1)
        if alias not in imports:
            raise GoSourceError(f"unknown package {alias!r} in {expr!r} ({package})")
        return GoType("named", package=imports[alias], name=name)
    if expr in SCALARS or expr in ALIASES:
        return GoType("builtin", name=ALIASES.get(expr, expr))
    return GoType("named", package=package, name=expr)


def definition_name(package: str, name: str) -> str:
    """The OpenAPI definition name: ``k8s.io/api/core/v1`` + ``Pod`` -> ``io.k8s.api.core.v1.Pod``."""
    host, _, rest = package.partition("/")
    return ".".join([*reversed(host.split(".")), *rest.split("/"), name])


class Universe:
    """Every package the roots reach, parsed on first use."""

    def __init__(self, repos: dict[str, Repo]) -> None:
        self.repos = repos
        self.packages: dict[str, Package] = {}

    def package(self, path: str) -> Package:
        if path not in self.packages:
            for module, repo in self.repos.items():
                if path.startswith(module + "/"):
                    self.packages[path] = parse_package(repo, path[len(module) + 1:])
                    break
            else:
                raise GoSourceError(f"no repository holds package {path}")
        return self.packages[path]

    def decl(self, t: GoType) -> TypeDecl:
        package = self.package(t.package)
        if t.name not in package.types:
            raise GoSourceError(f"{t.package}: no type {t.name}")
        return package.types[t.name]

    def imports_of(self, decl: TypeDecl) -> dict[str, str]:
        return self.package(f"{self._module_of(decl)}/{decl.package}").imports[decl.file]

    def _module_of(self, decl: TypeDecl) -> str:
        for path, package in self.packages.items():
            if decl.file in package.sources:
                return path[: -len(decl.package) - 1]
        raise GoSourceError(f"no package for {decl.file}")

    def path_of(self, decl: TypeDecl) -> str:
        return f"{self._module_of(decl)}/{decl.package}"

    def resolve_alias(self, t: GoType) -> GoType:
        """``type A = B``: reflect names B."""
        while t.kind == "named" and (t.package, t.name) not in STDLIB:
            decl = self.decl(t)
            if not decl.alias or decl.expr is None:
                break
            t = parse_type(decl.expr, self.path_of(decl), self.imports_of(decl))
        return t

    def reflect_string(self, t: GoType) -> str:
        """``reflect.Type.String()``: package *name* (not alias) and type name; byte is uint8."""
        if t.kind == "ptr":
            assert t.elem is not None
            return "*" + self.reflect_string(t.elem)
        if t.kind == "slice":
            assert t.elem is not None
            return "[]" + self.reflect_string(t.elem)
        if t.kind == "map":
            assert t.key is not None and t.elem is not None
            return f"map[{self.reflect_string(t.key)}]{self.reflect_string(t.elem)}"
        if t.kind == "builtin":
            return t.name
        if (t.package, t.name) in STDLIB:
            return f"{t.package.rsplit('/', 1)[-1]}.{t.name}"
        t = self.resolve_alias(t)
        return f"{self.package(t.package).name}.{t.name}"

    def underlying(self, t: GoType) -> GoType:
        """A named non-struct type's underlying type (``v1.ResourceList`` -> ``map[...]...``);
        structs, builtins and composite types are returned as they are."""
        while t.kind == "named":
            if (t.package, t.name) in STDLIB:
                return GoType("builtin", name=STDLIB[(t.package, t.name)])
            decl = self.decl(t)
            if decl.expr is None:
                return t  # a struct
            if decl.expr == "interface":
                raise GoSourceError(f"{t.package}.{t.name} is an interface")
            t = parse_type(decl.expr, self.path_of(decl), self.imports_of(decl))
        return t


# ---------------------------------------------------------------------------- the facts


class Generator:
    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.messages: dict[str, dict[str, Any]] = {}
        self._pending: list[GoType] = []

    def message_of(self, t: GoType) -> str:
        """The definition name of struct ``t``, queued for generation."""
        t = self.universe.resolve_alias(t)
        name = definition_name(t.package, t.name)
        if name not in self.messages:
            self.messages[name] = {}  # reserved: generated when the queue reaches it
            self._pending.append(t)
        return name

    def run(self) -> None:
        while self._pending:
            t = self._pending.pop(0)
            self.messages[definition_name(t.package, t.name)] = self._message(t)

    def _elem(self, t: GoType, where: str) -> str:
        """What one value of ``t`` is on the wire: a scalar name, ``bytes`` or a message name."""
        if self._nullable_list(t):
            return self.message_of(t)
        u = self.universe.underlying(t)
        if u.kind == "builtin":
            if u.name in ("int", "uint"):
                raise GoSourceError(f"{where}: platform-sized {u.name} has no protobuf form")
            return u.name
        if u.kind == "slice" and u.elem is not None and self.universe.underlying(u.elem) == GoType("builtin", name="uint8"):
            return "bytes"
        if u.kind == "named":
            return self.message_of(u)
        raise GoSourceError(f"{where}: cannot put {self.universe.reflect_string(t)} in one protobuf value")

    def _nullable_list(self, t: GoType) -> bool:
        """Whether ``t`` is a named list of strings marked ``+protobuf.nullable=true`` (``ExtraValue
        []string``, a map's value in authentication, authorization and certificates): go-to-protobuf
        wraps it in a message of one repeated ``items`` field, so that a nil list survives in a map,
        while its JSON is the bare list."""
        if t.kind != "named" or (t.package, t.name) in STDLIB:
            return False
        decl = self.universe.decl(self.universe.resolve_alias(t))
        if decl.expr is None or not decl.expr.startswith("[]") or "+protobuf.nullable=true" not in decl.markers:
            return False
        if decl.expr != "[]string":
            raise GoSourceError(f"{t.package}.{t.name}: a nullable list of {decl.expr[2:]} is not read")
        return True

    def _message(self, t: GoType) -> dict[str, Any]:
        universe = self.universe
        decl = universe.decl(t)
        if decl.error:
            raise GoSourceError(decl.error)
        package = universe.package(t.package)
        where = f"{t.package}.{t.name}"
        out: dict[str, Any] = {"go_type": universe.reflect_string(t)}
        if self._nullable_list(t):
            out["codec"] = "items"
            out["fields"] = [{
                "number": 1, "name": "items", "go_name": "Items", "go_type": "[]string", "wire": "bytes",
                "elem": "string", "repeated": True, "map": False, "pointer": False, "omitempty": False,
                "omitzero": False, "inline": False,
            }]
            return out
        codec = CODECS.get((t.package, t.name))
        if t.name in package.json_marshalers and codec is None:
            raise GoSourceError(f"{where} implements MarshalJSON: name its codec in CODECS")
        if codec is not None:
            out["codec"] = codec
        markers = dict(m.split("=", 1) for m in decl.markers if m.startswith("+protobuf.") and "=" in m)
        if "+protobuf.as" in markers:  # Time, MicroTime: the wire form is another struct's
            out["wire_as"] = self.message_of(GoType("named", package=t.package, name=markers["+protobuf.as"]))
            out["fields"] = []
            return out
        if markers.get("+protobuf.embed") == "string":  # Quantity: one string field, decoded by hand
            out["fields"] = [{
                "number": 1, "name": "string", "go_name": _embedded_go_name(package, t.name), "go_type": "string",
                "wire": "bytes", "elem": "string", "repeated": False, "map": False,
                "pointer": False, "omitempty": False, "omitzero": False, "inline": False,
            }]
            return out
        fields = []
        imports = universe.imports_of(decl)
        for go_name, type_expr, tag_text, line in decl.fields:
            tags = parse_tags(tag_text)
            go_type = parse_type(type_expr, t.package, imports)
            embedded = not go_name
            if embedded:
                go_name = type_expr.lstrip("*").rsplit(".", 1)[-1]
            if not go_name[0].isupper():
                continue  # unexported: neither JSON nor protobuf
            json_tag = tags.get("json")
            proto = tags.get("protobuf")
            if proto is None or proto == "-":
                if json_tag == "-" or (embedded and (t.package, t.name) in CODECS):
                    continue
                # ``json:""`` (k8s.io/api v0.37) embeds as ``json:",inline"`` does: no name of its own
                if embedded and type_expr.endswith("TypeMeta") and json_tag in (",inline", "", None):
                    continue  # apiVersion and kind: the envelope carries them
                if codec is not None:
                    continue
                raise GoSourceError(f"{decl.file}:{line}: {where}.{go_name} has JSON but no protobuf tag")
            json_parts = (json_tag or "").split(",")
            json_name = json_parts[0] if json_tag is not None else go_name
            inline = embedded and json_name == ""
            if json_tag is None and embedded:
                inline = True
            if json_name == "-" and len(json_parts) == 1:
                json_name = ""  # not in JSON (RawExtension.Raw, FieldsV1.Raw: their codec writes it)
            # Only the number is read from the tag: its wire word and opt/rep label are not always
            # right (PodSpec.Priority says bytes, StorageClass.MountOptions says opt); the Go type
            # decides, as it does for go-to-protobuf.
            number = proto.split(",")[1]
            entry: dict[str, Any] = {
                "number": int(number), "name": "" if inline else json_name, "go_name": go_name,
                "go_type": universe.reflect_string(go_type),
            }
            pointer = go_type.kind == "ptr"
            value_type = go_type.elem if pointer and go_type.elem is not None else go_type
            u = universe.underlying(value_type)
            context = f"{decl.file}:{line}"
            if self._nullable_list(value_type):
                entry.update(elem=self._elem(value_type, context), repeated=False, map=False)
            elif u.kind == "map":
                assert u.key is not None and u.elem is not None
                entry.update(elem=None, repeated=False, map=True,
                             key=self._elem(u.key, context), value=self._elem(u.elem, context))
            elif u.kind == "slice" and universe.underlying(u.elem or u) != GoType("builtin", name="uint8"):
                assert u.elem is not None
                entry.update(elem=self._elem(u.elem, context), repeated=True, map=False)
            else:
                entry.update(elem=self._elem(value_type, context), repeated=False, map=False)
            entry["wire"] = "bytes" if entry["map"] or entry["elem"] not in WIRE else WIRE[entry["elem"]]
            entry.update(pointer=pointer, omitempty="omitempty" in json_parts[1:],
                         omitzero="omitzero" in json_parts[1:], inline=inline)
            fields.append(entry)
        numbers = [f["number"] for f in fields]
        if len(set(numbers)) != len(numbers):
            raise GoSourceError(f"{where}: duplicate field numbers {sorted(numbers)}")
        out["fields"] = fields
        return out


def _embedded_go_name(package: Package, type_name: str) -> str:
    """The Go field name a hand-written ``Unmarshal`` names in its wire-type error (Quantity's
    ``String_``)."""
    for file, source in package.sources.items():
        if f"func (m *{type_name}) Unmarshal(" in source:
            found = re.search(r"wrong wireType = %d for field (\w+)", source)
            if found:
                return found.group(1)
    raise GoSourceError(f"{package.path}.{type_name}: no hand-written Unmarshal names its field")


def api_package(group: str, version: str) -> str:
    """``apps``/``v1`` -> ``k8s.io/api/apps/v1``; ``events.k8s.io`` -> ``events``; core is ``core``;
    the groups of :data:`GROUP_PACKAGES` live in their own modules."""
    if group in GROUP_PACKAGES:
        return f"{GROUP_PACKAGES[group]}/{version}"
    return f"{API}/{API_DIRS.get(group, group.split('.')[0] or 'core')}/{version}"


def discovery_kinds(discovery: dict[str, Any]) -> set[tuple[str, str, str]]:
    """The (group, version, kind) of every resource of an aggregated discovery document
    (``fake_apiserver/data/discovery-v<release>.json``) and of every subresource's kind: a
    subresource's kind with no group and version is its resource's group-version (``pods/binding``
    is core/v1 Binding, ``deployments/scale`` names autoscaling/v1 Scale). Where the data lists
    every resource the release can serve (``all``: the group versions off by default too, which
    ``--runtime-config`` turns on), those."""
    kinds = set()
    for group in discovery.get("all", discovery["groups"]):
        for version in group["versions"]:
            for resource in version["resources"]:
                here = (group["group"], version["version"])
                kinds.add((*here, resource["kind"]))
                for sub in resource["subresources"]:
                    for role in ("requestKind", "responseKind"):
                        named = sub.get(role)
                        if named and named.get("kind"):
                            gv = (named["group"], named["version"]) if named.get("version") else here
                            kinds.add((*gv, named["kind"]))
    return kinds


def generate(sources: dict[str, tuple[str, str]], release: str, discovery: dict[str, Any]) -> dict[str, Any]:
    """The data of ``release`` (``1.37``): the kinds of its ``discovery`` data, from the Go types of
    ``sources`` (module -> (git dir or module directory, tag)); :data:`API` and :data:`APIMACHINERY`
    are required, the modules of :data:`GROUP_PACKAGES` only when the discovery data names their groups."""
    universe = Universe({module: Repo(where, tag, module) for module, (where, tag) in sources.items()})
    generator = Generator(universe)
    kinds = []
    for group, version, kind in sorted(discovery_kinds(discovery) | set(EXTRA_KINDS)):
        message = generator.message_of(GoType("named", package=api_package(group, version), name=kind))
        kinds.append({"group": group, "version": version, "kind": kind, "message": message})
    for package, name in EXTRA_TYPES:
        generator.message_of(GoType("named", package=package, name=name))
    generator.run()
    used = sorted({module for module in sources
                   if any(name.startswith(definition_name(module, "")) for name in generator.messages)})
    return {
        "about": "Protobuf wire facts of the Kubernetes API types (generated by tools/gen_protobuf_fields.py "
                 "from the Go types; do not edit)",
        "kubernetes": release,
        "sources": {module: sources[module][1] for module in used},
        "kinds": kinds,
        "messages": dict(sorted(generator.messages.items())),
    }


def render(data: dict[str, Any]) -> str:
    """The data as JSON with one kind, message header or field per line (small, diffable)."""
    lines = ["{"]
    for key in ("about", "kubernetes", "sources"):
        lines.append(f" {json.dumps(key)}: {json.dumps(data[key])},")
    lines.append(' "kinds": [')
    lines.append(",\n".join(f"  {json.dumps(k)}" for k in data["kinds"]))
    lines.append(" ],")
    lines.append(' "messages": {')
    messages = []
    for name, message in data["messages"].items():
        head = {k: v for k, v in message.items() if k != "fields"}
        fields = ",\n".join(f"    {json.dumps(f)}" for f in message["fields"])
        body = json.dumps(head)[1:-1]
        messages.append(f"  {json.dumps(name)}: {{{body}, \"fields\": [" + (f"\n{fields}\n  ]}}" if fields else "]}"))
    lines.append(",\n".join(messages))
    lines.append(" }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", required=True, help="git dir (or module directory) of k8s.io/api")
    parser.add_argument("--apimachinery", required=True, help="git dir (or module directory) of k8s.io/apimachinery")
    parser.add_argument("--apiextensions", help="git dir (or module directory) of k8s.io/apiextensions-apiserver")
    parser.add_argument("--kube-aggregator", help="git dir (or module directory) of k8s.io/kube-aggregator")
    parser.add_argument("--release", default=KUBERNETES_VERSION.rsplit(".", 1)[0],
                        help="the Kubernetes release whose kinds and types to read (default: %(default)s)")
    parser.add_argument("--tag", help="the staging tag to read them at (default: v0.<minor>.0 of --release)")
    parser.add_argument("--discovery", help="the release's aggregated discovery data "
                                            "(default: fake_apiserver/data/discovery-v<release>.json)")
    parser.add_argument("--out", help="where to write (default: fake_apiserver/data/protobuf-v<release>.json)")
    args = parser.parse_args(argv)
    release = schema_release(args.release).rsplit(".", 1)[0]
    tag = args.tag or f"v0.{release.split('.')[1]}.0"
    data_dir = ROOT / "fake_apiserver" / "data"
    out = Path(args.out or data_dir / f"protobuf-v{release}.json")
    discovery = json.loads(Path(args.discovery or data_dir / f"discovery-v{release}.json").read_text())
    sources = {API: (args.api, tag), APIMACHINERY: (args.apimachinery, tag)}
    for module, where in ((APIEXTENSIONS, args.apiextensions), (AGGREGATOR, args.kube_aggregator)):
        if where:
            sources[module] = (where, tag)
    try:
        data = generate(sources, release, discovery)
    except (GoSourceError, subprocess.CalledProcessError) as e:
        print(f"gen_protobuf_fields: {e}", file=sys.stderr)
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(data))
    print(f"wrote {out}: {len(data['kinds'])} kinds, {len(data['messages'])} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
