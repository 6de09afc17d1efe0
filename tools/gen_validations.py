"""Generate ``fake_apiserver/data/validations-v1.37.json``: the declarative validation kube-apiserver
v1.37 runs on built-in kinds, as a plan the fake's interpreter
(:mod:`fake_apiserver._machinery.declarative`) executes.

Usage::

    python tools/gen_validations.py [--modcache DIR] [--out PATH] [GROUP/VERSION ...]

``DIR`` is a Go module cache (default: ``go env GOMODCACHE``, else ``~/go/pkg/mod``) holding
``k8s.io/kubernetes@v1.37.2`` and its staging modules at ``v0.37.2`` (``go mod download
k8s.io/kubernetes@v1.37.2`` fetches them). The group versions default to :data:`GROUP_VERSIONS`;
adding one is adding its ``group/version`` there. The output is deterministic (same sources,
same bytes) and is committed; this script is not packaged.

What is read, never copied: ``pkg/apis/<group>/<version>/zz_generated.validations.go`` of
k8s.io/kubernetes (validation-gen's output: one ``Validate_<Type>`` per type, its type-level checks
then one ``{ // field`` block per field, each calling ``validate.*`` functions in a fixed order),
the same file of apimachinery's ``meta/v1`` when a plan recurses into it (``Validate_ObjectMeta``),
``RegisterValidations`` (which root types and subresources are validated), and the package's
``types.go`` of k8s.io/api (Go field -> json name and ``omitempty``, the Go type of every field,
the values of an enum's constants). The output has

- ``roots``: group, version, kind, plan type and the subresources ``RegisterValidations`` covers;
- ``plans``: per type (``<pkg>/<version>.<Type>``), its type-level ``checks`` (``Union`` with its
  members and how each counts as set, ``DependentRequired``, ``Enum`` with its values) and its
  ``fields`` in order: json and Go name, Go kind (``value``, ``struct``, ``pointer``, ``slice``,
  ``map``), Go type, the ratchet comparison (``direct``: Go ``==``; ``semantic``:
  ``equality.Semantic.DeepEqual``), the ordered ``checks`` (function, arguments, whether an error
  stops the field's further checks, whether it is reported, the ``IfOption`` gate condition,
  alpha/beta), the list-map keys of a slice's correlation and uniqueness checks, and the type to
  recurse into;
- ``shapes``: every struct reachable from a plan, its fields in declaration order with json name,
  ``omitempty`` and Go type (what Go's ``json.Marshal`` of a duplicate item and its zero values
  need), and named string types.

The Go is parsed with a small scanner of balanced parentheses; a construct it does not know stops
it with the file and the function.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["GROUP_VERSIONS", "GoSourceError", "default_modcache", "generate", "main", "render"]

KUBERNETES = "v1.37.2"
STAGING = "v0.37.2"
GROUP_VERSIONS = ("scheduling/v1beta1",)
OUT = Path(__file__).resolve().parents[1] / "fake_apiserver" / "data" / "validations-v1.37.json"
META = "meta/v1"
BASIC = {"string", "bool", "int", "int32", "int64", "uint32", "uint64", "float32", "float64", "byte"}


class GoSourceError(Exception):
    """The Go source is absent or has a construct the scanner does not know."""


def default_modcache() -> Path:
    try:
        out = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        out = ""
    return Path(out) if out else Path(os.path.expanduser("~/go/pkg/mod"))


# --------------------------------------------------------------------------- Go scanning


def _close(text: str, start: int, pair: str = "()") -> int:
    """The index just after the bracket that closes the one at ``start`` (strings skipped)."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in "\"'`":
            end = text.index(c, i + 1) if c == "`" else _string_end(text, i)
            i = end + 1
            continue
        if c == pair[0]:
            depth += 1
        elif c == pair[1]:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise GoSourceError(f"unbalanced {pair} from offset {start}")


def _string_end(text: str, start: int) -> int:
    quote, i = text[start], start + 1
    while text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated arguments of a call's inside."""
    args, depth, current, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        if c in "\"`":
            end = text.index(c, i + 1) if c == "`" else _string_end(text, i)
            current += text[i:end + 1]
            i = end + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += c
        i += 1
    if current.strip():
        args.append(current.strip())
    return args


def _imports(text: str) -> dict[str, str]:
    """alias -> import path of a Go file's import block."""
    block = re.search(r"^import \((.*?)^\)", text, re.S | re.M)
    out = {}
    for line in (block.group(1) if block else "").splitlines():
        m = re.match(r'\s*(\w+)?\s*"([^"]+)"', line)
        if m:
            out[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
    return out


def package_id(path: str) -> str | None:
    """``k8s.io/api/scheduling/v1beta1`` -> ``scheduling/v1beta1``; meta/v1 and its validation -> ``meta/v1``."""
    if path in ("k8s.io/apimachinery/pkg/apis/meta/v1", "k8s.io/apimachinery/pkg/apis/meta/v1/validation"):
        return META
    m = re.fullmatch(r"k8s\.io/api/([^/]+/[^/]+)", path)
    return m.group(1) if m else None


# --------------------------------------------------------------------------- types.go


class Package:
    """One Go API package: its structs, named basic types and string constants (from types.go)."""

    def __init__(self, pid: str, types_file: Path) -> None:
        self.id = pid
        text = types_file.read_text()
        self.imports = _imports(text)
        self.structs: dict[str, list[dict[str, Any]]] = {}
        self.named: dict[str, str] = {}
        self.consts: dict[str, str] = {}
        for m in re.finditer(r"^type (\w+) struct \{\n(.*?)^\}", text, re.S | re.M):
            self.structs[m.group(1)] = self._fields(m.group(2))
        for m in re.finditer(r"^type (\w+) (string|int32|int64|bool)$", text, re.M):
            self.named[m.group(1)] = m.group(2)
        for m in re.finditer(r'^\s*(\w+)\s+\w+\s*=\s*"([^"]*)"', text, re.M):
            self.consts[m.group(1)] = m.group(2)

    def _fields(self, body: str) -> list[dict[str, Any]]:
        fields = []
        for line in body.splitlines():
            line = line.strip()
            if not line or line.startswith("//"):
                continue
            m = re.match(r"(?:(\w+)\s+)?([\w.*\[\]]+)\s+`([^`]*)`", line)
            if not m:
                continue
            tag = re.search(r'json:"([^"]*)"', m.group(3))
            name, _, opts = (tag.group(1) if tag else "").partition(",")
            go_type = m.group(2)
            go_name = m.group(1) or go_type.rsplit(".", 1)[-1].lstrip("*")
            if name == "-":
                continue
            fields.append({"go": go_name, "json": name, "omitempty": "omitempty" in opts.split(","),
                           "inline": m.group(1) is None and not name, "type": self.qualify(go_type)})
        return fields

    def qualify(self, go_type: str) -> str:
        """A Go type of this package as the data writes it: ``*int32``, ``[]scheduling/v1beta1.X``..."""
        for prefix in ("*", "[]"):
            if go_type.startswith(prefix):
                return prefix + self.qualify(go_type[len(prefix):])
        m = re.fullmatch(r"map\[(\w+)\](.+)", go_type)
        if m:
            return f"map[{m.group(1)}]{self.qualify(m.group(2))}"
        if go_type in BASIC:
            return go_type
        if "." in go_type:
            alias, name = go_type.split(".", 1)
            pid = package_id(self.imports.get(alias, ""))
            return f"{pid}.{name}" if pid else f"{self.imports.get(alias, alias)}.{name}"
        return f"{self.id}.{go_type}"


# --------------------------------------------------------------------------- zz_generated.validations.go


class Parser:
    """The plans of one ``zz_generated.validations.go``."""

    def __init__(self, pid: str, path: Path, packages: dict[str, Package]) -> None:
        self.id, self.path, self.packages = pid, path, packages
        self.text = path.read_text()
        self.imports = _imports(self.text)
        self.unions = {m.group(1): m.group(2) for m in re.finditer(
            r"^var (unionMembershipFor_\w+) = (validate\.New\w*UnionMembership\(.*\))$", self.text, re.M)}
        self.symbols = {m.group(1): m.group(2) for m in re.finditer(
            r"^var (symbolsFor\w+) = sets\.New\((.*)\)$", self.text, re.M)}

    def fail(self, where: str, what: str) -> GoSourceError:
        return GoSourceError(f"{self.path}: {where}: {what}")

    def go_type(self, go: str) -> str:
        """A Go type written in the generated file (its own aliases) as the data writes it."""
        for prefix in ("*", "[]"):
            if go.startswith(prefix):
                return prefix + self.go_type(go[len(prefix):])
        m = re.fullmatch(r"map\[(\w+)\](.+)", go)
        if m:
            return f"map[{m.group(1)}]{self.go_type(m.group(2))}"
        if go in BASIC:
            return go
        alias, _, name = go.partition(".")
        pid = package_id(self.imports.get(alias, ""))
        if pid is None:
            return f"{self.imports.get(alias, alias)}.{name}"
        return f"{pid}.{name}"

    def function_ref(self, expr: str) -> str:
        """``Validate_X`` or ``validation.Validate_X`` -> the plan type it validates."""
        alias, _, name = expr.rpartition(".")
        if not name.startswith("Validate_"):
            raise self.fail(expr, "not a Validate_ function")
        pid = self.id if not alias else package_id(self.imports.get(alias, ""))
        if pid is None:
            raise self.fail(expr, "a validation package the generator does not know")
        return f"{pid}.{name[len('Validate_'):]}"

    def json_name(self, type_id: str, go_field: str) -> str:
        pid, _, name = type_id.partition(".")
        for f in self.packages[pid].structs.get(name, []):
            if f["go"] == go_field:
                return str(f["json"])
        raise self.fail(type_id, f"no field {go_field}")

    def roots(self, group: str, version: str) -> list[dict[str, Any]]:
        body = self.text[self.text.index("func RegisterValidations"):]
        body = body[:body.index("\n}\n")]
        roots = []
        for m in re.finditer(r"\(\*(\w+)\.(\w+)\)\(nil\),.*?case (.*?):", body, re.S):
            subresources = [json.loads(s) for s in _split_args(m.group(3))]
            roots.append({"group": group, "version": version, "kind": m.group(2),
                          "type": self.go_type(f"{m.group(1)}.{m.group(2)}"), "subresources": subresources})
        return sorted(roots, key=lambda r: r["kind"])

    def plans(self) -> dict[str, dict[str, Any]]:
        plans = {}
        for m in re.finditer(r"^func Validate_(\w+)\(\n(.*?)\) \(errs field\.ErrorList\) \{\n(.*?)^\}", self.text,
                             re.S | re.M):
            name, body = m.group(1), m.group(3)
            obj_type = re.search(r"obj, oldObj \*([\w.]+)$", m.group(2))
            if not obj_type:
                raise self.fail(name, "no obj parameter")
            type_id = self.go_type(obj_type.group(1))
            first = re.search(r"^\t(\{ // field|// field)", body, re.M)
            head = body[:first.start()] if first else body
            plans[type_id] = {
                "checks": [self.type_check(name, type_id, call) for call in self.calls(head)],
                "fields": [self.field(name, type_id, block) for block in re.findall(
                    r"^\t\{ // field [\w.]+\n(.*?)^\t\}\n", body, re.S | re.M)],
            }
        return plans

    def calls(self, text: str) -> list[dict[str, Any]]:
        """Each ``if e := validate.F(...)...; len(e) != 0 { ... }`` of ``text``, in order."""
        out = []
        for m in re.finditer(r"if e := validate\.(\w+)\(", text):
            end = _close(text, m.end() - 1)
            chain_end = text.index("; len(e) != 0 {", end)
            chain = text[end:chain_end]
            block_end = _close(text, chain_end + len("; len(e) != 0 "), "{}")
            block = text[chain_end:block_end]
            marks = re.findall(r"\.Mark(\w+)\(\)", chain)
            out.append({"fn": m.group(1), "args": _split_args(text[m.end():end - 1])[5:], "marks": marks,
                        "report": "errs = append(errs, e...)" in block, "stop": "earlyReturn = true" in block})
        return out

    def extractor(self, where: str, fn: str) -> dict[str, str]:
        """An ``isSet`` function literal of a union or dependency -> the Go field and the test."""
        m = re.search(r"return (?:obj\.(\w+) != nil|len\(obj\.(\w+)\) != 0|obj\.(\w+) != (\"\"|0|false))\s*\}", fn)
        if not m:
            raise self.fail(where, f"an extractor the generator does not know: {fn!r}")
        if m.group(1):
            return {"go": m.group(1), "set": "nonnil"}
        if m.group(2):
            return {"go": m.group(2), "set": "nonempty"}
        return {"go": m.group(3), "set": "nonzero"}

    def stability(self, where: str, marks: list[str]) -> str | None:
        levels = [mark.lower() for mark in marks if mark in ("Alpha", "Beta")]
        if len(levels) > 1:
            raise self.fail(where, f"marks {marks}")
        return levels[0] if levels else None

    def type_check(self, where: str, type_id: str, call: dict[str, Any]) -> dict[str, Any]:
        fn, args = call["fn"], call["args"]
        check: dict[str, Any] = {"fn": fn}
        if fn == "Union":
            membership = self.unions[args[0]]
            if not membership.startswith("validate.NewUnionMembership("):
                raise self.fail(where, f"a union the generator does not know: {membership}")
            names = re.findall(r'validate\.NewUnionMember\("(\w+)"\)', membership)
            if len(names) != len(args) - 1:
                raise self.fail(where, "union members and extractors differ in number")
            members = []
            for member, extractor in zip(names, args[1:]):
                ext = self.extractor(where, extractor)
                if self.json_name(type_id, ext["go"]) != member:
                    raise self.fail(where, f"union member {member} is not field {ext['go']}")
                members.append({"json": member, "go": ext["go"], "set": ext["set"]})
            check["members"] = members
        elif fn in ("DependentRequired", "DependentForbidden"):
            for role, name, extractor in (("trigger", args[0], args[1]), ("dependent", args[2], args[3])):
                ext = self.extractor(where, extractor)
                check[role] = {"name": json.loads(name), "go": ext["go"], "set": ext["set"]}
        elif fn == "Enum":
            check["values"] = self.enum_values(where, args)
        else:
            raise self.fail(where, f"a type-level validate.{fn} the generator does not know")
        check["stability"] = self.stability(where, call["marks"])
        return check

    def enum_values(self, where: str, args: list[str]) -> list[str]:
        if args[1] != "nil":
            raise self.fail(where, "enum exclusions are not supported")
        values = []
        for const in _split_args(self.symbols[args[0]]):
            alias, _, name = const.partition(".")
            pid = package_id(self.imports.get(alias, ""))
            if pid is None or name not in self.packages[pid].consts:
                raise self.fail(where, f"enum constant {const} not found")
            values.append(self.packages[pid].consts[name])
        return sorted(values)

    def keys(self, where: str, item_type: str, match: str) -> list[str] | None:
        """A list-map match function literal -> the json names of the keys it compares."""
        if match == "nil":
            return None
        body = re.search(r"bool \{\s*return (.*?)\s*\}$", match, re.S)
        if not body:
            raise self.fail(where, f"a match function the generator does not know: {match!r}")
        keys = []
        for term in body.group(1).split("&&"):
            m = re.fullmatch(r"a\.(\w+) == b\.(\w+)", term.strip())
            if not m or m.group(1) != m.group(2):
                raise self.fail(where, f"a match term the generator does not know: {term!r}")
            keys.append(self.json_name(item_type, m.group(1)))
        return keys

    def field(self, where: str, type_id: str, block: str) -> dict[str, Any]:
        call = re.search(r'errs = append\(errs, fn\(fldPath\.Child\("(\w+)"\), (&?)obj\.(\w+), oldVal, oldObj != nil\)',
                         block)
        sig = re.search(r"obj, oldObj (\*|\[\]|map\[\w+\])?([\w.]+),\n", block)
        if not call or not sig:
            raise self.fail(where, "a field block the generator does not know")
        where = f"{where}.{call.group(3)}"
        json_name, go_name = call.group(1), call.group(3)
        if self.json_name(type_id, go_name) != json_name:
            raise self.fail(where, "json name differs from types.go")
        elem = self.go_type(sig.group(2))
        if sig.group(1) == "[]":
            kind, go_type = "slice", "[]" + elem
        elif sig.group(1) and sig.group(1).startswith("map"):
            kind, go_type = "map", self.go_type(sig.group(1) + sig.group(2))
        elif call.group(2) == "&":
            kind, go_type = ("struct" if self._is_struct(elem) else "value"), elem
        else:
            kind, go_type = "pointer", "*" + elem
        if "equality.Semantic.DeepEqual(obj, oldObj)" in block:
            ratchet = "semantic"
        elif "obj == oldObj || (obj != nil && oldObj != nil && *obj == *oldObj)" in block:
            ratchet = "direct"
        else:
            raise self.fail(where, "a ratchet the generator does not know")
        checks = [self.field_check(where, elem, c) for c in self.calls(block)]
        recurse = re.search(r"// call the type's validation function\n\s*errs = append\(errs, ([\w.]+)\(ctx, op, "
                            r"fldPath, obj, oldObj\)", block)
        return {"json": json_name, "go": go_name, "kind": kind, "type": go_type, "ratchet": ratchet,
                "checks": checks, "validate": self.function_ref(recurse.group(1)) if recurse else None}

    def _is_struct(self, type_id: str) -> bool:
        pid, _, name = type_id.partition(".")
        return pid in self.packages and name in self.packages[pid].structs

    def field_check(self, where: str, elem: str, call: dict[str, Any]) -> dict[str, Any]:
        fn, args = call["fn"], call["args"]
        check: dict[str, Any] = {"fn": fn, "option": None}
        if fn == "IfOption":
            check["option"] = {"name": json.loads(args[0]), "enabled": args[1] == "true"}
            fn = check["fn"] = args[2].removeprefix("validate.")
            args = []
        if fn in ("ValSliceUpdate", "ValSliceUnique"):
            check["keys"] = self.keys(where, elem, args[0])
            if fn == "ValSliceUpdate":
                check["constraints"] = [a.removeprefix("validate.") for a in args[1:]]
        elif fn == "EachValSliceVal":
            check["keys"] = self.keys(where, elem, args[0])
            check["equiv"] = None if args[1] == "nil" else args[1].removeprefix("validate.")
            check["validate"] = self.function_ref(args[2])
        elif fn == "UpdatePointer" or fn.startswith("UpdateValue"):
            check["constraints"] = [a.removeprefix("validate.") for a in args]
        elif fn == "Enum":
            check["values"] = self.enum_values(where, args)
        else:
            try:
                check["args"] = [json.loads(a) for a in args]
            except json.JSONDecodeError:
                raise self.fail(where, f"validate.{fn}: arguments the generator does not know: {args}") from None
        check["short_circuit"] = "ShortCircuit" in call["marks"]
        if check["short_circuit"] != call["stop"]:
            raise self.fail(where, f"{fn}: short-circuit mark and early return disagree")
        check["report"] = call["report"]
        check["stability"] = self.stability(where, call["marks"])
        return check


# --------------------------------------------------------------------------- the data


def _sources(cache: Path, pid: str) -> tuple[Path, Path]:
    """The generated validations and the types.go of a package id."""
    if pid == META:
        base = cache / "k8s.io" / f"apimachinery@{STAGING}" / "pkg" / "apis" / "meta" / "v1"
        return base / "validation" / "zz_generated.validations.go", base / "types.go"
    return (cache / "k8s.io" / f"kubernetes@{KUBERNETES}" / "pkg" / "apis" / pid / "zz_generated.validations.go",
            cache / "k8s.io" / f"api@{STAGING}" / pid / "types.go")


def _group_name(cache: Path, pid: str) -> str:
    register = (cache / "k8s.io" / f"api@{STAGING}" / pid / "register.go").read_text()
    m = re.search(r'^const GroupName = "([^"]*)"', register, re.M)
    if not m:
        raise GoSourceError(f"{pid}: no GroupName in register.go")
    return m.group(1)


def _reachable(plans: dict[str, Any], packages: dict[str, Package], roots: list[str]) -> list[str]:
    """Every struct or named type reachable from the roots' plans through fields and validators."""
    seen: list[str] = []
    todo = list(roots)
    while todo:
        type_id = todo.pop()
        if type_id in seen:
            continue
        pid, _, name = type_id.partition(".")
        if pid not in packages or (name not in packages[pid].structs and name not in packages[pid].named):
            continue
        seen.append(type_id)
        for f in packages[pid].structs.get(name, []):
            todo.append(re.sub(r"^(\*|\[\]|map\[\w+\])+", "", f["type"]))
        for f in plans.get(type_id, {}).get("fields", []):
            if f["validate"]:
                todo.append(f["validate"])
    return sorted(seen)


def generate(cache: Path, group_versions: tuple[str, ...] = GROUP_VERSIONS) -> dict[str, Any]:
    packages: dict[str, Package] = {}
    parsers: dict[str, Parser] = {}

    def load(pid: str) -> Parser:
        if pid not in parsers:
            validations, types = _sources(cache, pid)
            if not validations.is_file() or not types.is_file():
                raise GoSourceError(f"{validations} or {types} is absent: go mod download k8s.io/kubernetes@{KUBERNETES}")
            packages.setdefault(pid, Package(pid, types))
            parsers[pid] = Parser(pid, validations, packages)
        return parsers[pid]

    packages[META] = Package(META, _sources(cache, META)[1])  # list-map keys of its types are read early
    roots: list[dict[str, Any]] = []
    plans: dict[str, Any] = {}
    todo = list(group_versions)
    while todo:
        pid = todo.pop(0)
        if pid in parsers:
            continue
        parser = load(pid)
        if pid in group_versions:
            roots.extend(parser.roots(_group_name(cache, pid), pid.split("/")[1]))
        plans.update(parser.plans())
        for plan in list(plans.values()):
            refs = [f["validate"] for f in plan["fields"] if f["validate"]]
            refs += [c["validate"] for f in plan["fields"] for c in f["checks"] if c.get("validate")]
            todo.extend(r.split(".", 1)[0] for r in refs if r.split(".", 1)[0] not in parsers)
    shapes: dict[str, Any] = {}
    for type_id in _reachable(plans, packages, [r["type"] for r in roots]):
        pid, _, name = type_id.partition(".")
        if name in packages[pid].named:
            shapes[type_id] = {"kind": packages[pid].named[name]}
        else:
            shapes[type_id] = {"kind": "struct", "fields": packages[pid].structs[name]}
    used = set(shapes)
    return {
        "about": (f"Declarative validation of built-in kinds in Kubernetes {KUBERNETES}, read from the generated "
                  "validations of k8s.io/kubernetes and apimachinery and the types of k8s.io/api by "
                  "tools/gen_validations.py; do not edit."),
        "kubernetes": KUBERNETES,
        "roots": roots,
        "plans": {k: plans[k] for k in sorted(plans) if k in used},
        "shapes": shapes,
    }


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--modcache", type=Path, default=None, help="a Go module cache (default: go env GOMODCACHE)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("group_versions", nargs="*", default=list(GROUP_VERSIONS), help="e.g. scheduling/v1beta1")
    args = parser.parse_args(argv)
    for gv in args.group_versions:
        if not re.fullmatch(r"[a-z0-9.]+/v\w+", gv):
            print(f"gen_validations: {gv!r} is not a group/version such as scheduling/v1beta1", file=sys.stderr)
            return 2
    try:
        data = generate(args.modcache or default_modcache(), tuple(args.group_versions))
    except GoSourceError as e:
        print(f"gen_validations: {e}", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(data))
    print(f"{args.out}: {len(data['roots'])} roots, {len(data['plans'])} plans, {len(data['shapes'])} shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
