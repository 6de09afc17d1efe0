"""Criterion fingerprints: a hash of what a criterion judges, so that an ID cannot change meaning
unnoticed.

A criterion's ID is cited by KEPs together with the suites' version, so the code behind an ID must
not change within a version (``docs/criteria-changes.md`` has the rule, :mod:`harness._criteria.changes`
enforces it). What counts as "the code behind an ID" is decided here:

- the test function, and every definition of its suite's own package that it reaches by name,
  transitively: helper functions and classes, module-level constants (``FIT_ERROR``, ``DELAY``,
  a dict of messages), whatever suite module they live in. Code outside the suite's directory
  (``harness``, ``fake_apiserver``) is the harness's, versioned with it, and is not hashed;
- each definition as Python's AST without positions (like ``ast.dump``: no line or column numbers,
  and no empty fields, so that the same source gives the same text on Python 3.11 to 3.13; checked:
  every fingerprint of the catalog is the same under 3.11.7, 3.12.1 and 3.13.0):
  whitespace, comments, line breaks and moving code around do not change a fingerprint; a changed
  comparison, number, message or call does;
- docstrings are removed (module, class, function, nested function): they say what the check is,
  in words the catalog shows, and improving them must not ask for a new ID;
- the markers whose content the catalog records itself are removed (``kep``, ``criterion``,
  ``feature_gates``): a KEP section, a reading's text or a gate is a catalog fact with its own
  column, so re-attributing a criterion changes the catalog, not the fingerprint. They are
  removed both as decorators and as ``pytest.mark.<name>(...)`` calls anywhere (a helper that
  builds ``pytest.param(..., marks=pytest.mark.criterion(...))``);
- annotations are removed (types do not judge);
- a parametrized criterion's ``parametrize`` decorator is left out and its own parameter values
  are hashed instead (their ``repr``): each parameter is its own criterion, and its fingerprint
  should not move when a sibling parameter is added. A value whose ``repr`` is not stable (it
  shows a memory address) is refused, as a fingerprint that differs between two runs would be.

Name resolution is deliberately coarse: any name a kept definition mentions that is also a
module-level name of its module (or imported there from the suite package) is followed, even
where a local variable shadows it. That can only add definitions, so it errs towards a changed
fingerprint, never towards a missed change. Attribute access on an imported suite module
(``import suites._support as s; s.events``) is followed too, and so is a test's parameter named
as a suite definition (a fixture of the suite module: what it sets up is part of the judgement).

The trade-off taken: a helper shared by many criteria changes all their fingerprints when it
changes, including for a refactor that keeps the behaviour. That is the point (the words "the
behaviour is kept" are a claim the change log must make in the open), and the cost is a change-log
line per criterion.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["FingerprintError", "METADATA_MARKERS", "SuiteSources", "fingerprint", "params_text", "reached"]

#: The markers whose content the catalog records in its own columns; not part of a fingerprint.
METADATA_MARKERS = frozenset({"kep", "criterion", "feature_gates"})
#: How many hex digits of the SHA-256 a fingerprint keeps (64 bits: enough to tell judgements apart).
DIGITS = 16

_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")


class FingerprintError(ValueError):
    """A criterion's judgement cannot be fingerprinted (its test is not found, a parameter has no
    stable text)."""


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _marker_name(node: ast.expr) -> str | None:
    """``name`` for ``pytest.mark.name(...)`` or ``mark.name(...)`` (or the bare attribute)."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        owner = target.value
        if (isinstance(owner, ast.Attribute) and owner.attr == "mark") or (isinstance(owner, ast.Name) and owner.id == "mark"):
            return target.attr
    return None


class _Normaliser(ast.NodeTransformer):
    """Removes what does not judge: docstrings, annotations, metadata markers."""

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        kept = body[1:] if body and _is_docstring(body[0]) else body
        return kept or [ast.Pass()]

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.decorator_list = [d for d in node.decorator_list if _marker_name(d) not in METADATA_MARKERS]
        node.returns = None
        node.body = self._body(node.body)
        return self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return self._function(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.decorator_list = [d for d in node.decorator_list if _marker_name(d) not in METADATA_MARKERS]
        node.body = self._body(node.body)
        return self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is None:
            return ast.Pass()
        target = node.target
        return self.generic_visit(ast.Assign(targets=[target], value=node.value, lineno=0))

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if _marker_name(node) in METADATA_MARKERS:
            return ast.Constant(value=f"<{_marker_name(node)} marker>")
        return self.generic_visit(node)


def _dump(value: Any) -> str:
    """``ast.dump`` without positions, and without empty fields: a field a newer Python adds
    empty (``type_params=[]`` in 3.12) must not change a fingerprint between interpreters."""
    if isinstance(value, ast.AST):
        fields = [f"{name}={_dump(v)}" for name, v in ast.iter_fields(value) if v is not None and v != []]
        return f"{type(value).__name__}({', '.join(fields)})"
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v) for v in value) + "]"
    return repr(value)


def _normalised(node: ast.stmt) -> ast.AST:
    """A normalised copy of ``node`` (the parsed module stays as it is, for other criteria)."""
    return _Normaliser().visit(copy.deepcopy(node))


@dataclass(frozen=True)
class _Module:
    name: str
    #: module-level name -> its defining statements (an assignment and the augmented ones after it)
    definitions: dict[str, list[ast.stmt]]
    #: local name -> (suite module, name in it) for ``from <suite module> import name``
    imported: dict[str, tuple[str, str]]
    #: local name -> suite module, for ``import <suite module> [as name]`` and ``from . import m``
    modules: dict[str, str]


class SuiteSources:
    """The modules of one suite directory, by module name relative to it (``test_core_sanity``,
    ``_support``, ``__init__``), parsed once.

    ``package`` is the dotted name the directory is imported as (``suites``), so that
    ``from suites._support import x`` is known to be a suite module; a directory without
    ``__init__.py`` is imported by its files' bare names, as pytest's rootdir insertion does."""

    def __init__(self, sources: Mapping[str, str], package: str = "") -> None:
        self.package = package
        self._modules = {name: self._parse(name, text) for name, text in sources.items()}

    @classmethod
    def from_directory(cls, directory: Path) -> SuiteSources:
        """Every ``*.py`` of ``directory``; its package name from the ``__init__.py`` files above it."""
        parts: list[str] = []
        here = directory.resolve()
        while (here / "__init__.py").exists():
            parts.insert(0, here.name)
            here = here.parent
        return cls({p.stem: p.read_text(encoding="utf-8") for p in sorted(directory.glob("*.py"))}, ".".join(parts))

    def _suite_module(self, module: str | None, level: int) -> str | None:
        """The suite-relative name of an imported module, or None when it is not a suite module."""
        if level > 1:
            return None
        if level == 1:
            name = module or "__init__"
        elif module is not None and self.package and (module == self.package or module.startswith(self.package + ".")):
            name = module[len(self.package) + 1:] or "__init__"
        elif module is not None and not self.package:
            name = module
        else:
            return None
        return name if "." not in name else None

    def _parse(self, name: str, text: str) -> _Module:
        tree = ast.parse(text)
        definitions: dict[str, list[ast.stmt]] = {}
        imported: dict[str, tuple[str, str]] = {}
        modules: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                definitions[node.name] = [node]
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name):
                            earlier = definitions.get(leaf.id, []) if isinstance(node, ast.AugAssign) else []
                            definitions[leaf.id] = [*earlier, node]
            elif isinstance(node, ast.ImportFrom):
                source = self._suite_module(node.module, node.level)
                for alias in node.names:
                    local = alias.asname or alias.name
                    if source is not None:
                        imported[local] = (source, alias.name)
                    elif node.level == 1 and node.module is None:
                        modules[local] = alias.name
                    elif node.module is not None and self.package and node.module == self.package:
                        modules[local] = alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    source = self._suite_module(alias.name, 0)
                    if source is not None and alias.asname:
                        modules[alias.asname] = source
        return _Module(name, definitions, imported, modules)

    def module(self, name: str) -> _Module:
        try:
            return self._modules[name]
        except KeyError:
            raise FingerprintError(f"no suite module {name!r} (modules: {', '.join(sorted(self._modules))})") from None

    def has(self, name: str) -> bool:
        return name in self._modules


def _find_test(module: _Module, qualname: str) -> ast.stmt:
    """The definition of ``qualname`` (``test_x`` or ``TestClass.test_x``) in ``module``."""
    head, _, rest = qualname.partition(".")
    found = module.definitions.get(head)
    node: ast.stmt | None = found[-1] if found else None
    while node is not None and rest:
        head, _, rest = rest.partition(".")
        node = next((n for n in getattr(node, "body", []) if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == head), None)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise FingerprintError(f"no test function {qualname!r} in suite module {module.name!r}")
    return node


def _reached(sources: SuiteSources, module: str, node: ast.AST) -> Iterable[tuple[str, str, list[ast.stmt]]]:
    """(module, name, definition) for every suite definition ``node`` mentions by name."""
    here = sources.module(module)
    for sub in ast.walk(node):
        target: tuple[str, str] | None = None
        # a parameter named as a suite definition is a fixture the test takes: followed as a name
        name = sub.id if isinstance(sub, ast.Name) else sub.arg if isinstance(sub, ast.arg) else None
        if name is not None:
            if name in here.definitions:
                target = (module, name)
            elif name in here.imported:
                target = here.imported[name]
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in here.modules:
            target = (here.modules[sub.value.id], sub.attr)
        while target is not None and sources.has(target[0]):
            there = sources.module(target[0])
            if target[1] in there.definitions:
                yield target[0], target[1], there.definitions[target[1]]
                break
            target = there.imported.get(target[1])  # re-exported: follow it to where it is defined


def params_text(params: Mapping[str, Any]) -> str:
    """A parametrized test's own parameter values as stable text (sorted by name, ``repr``)."""
    text = ", ".join(f"{name}={value!r}" for name, value in sorted(params.items()))
    if _ADDRESS.search(text):
        raise FingerprintError(f"parameter values {text!r} have no stable text (a memory address): give their "
                               "type a repr of its own, e.g. a dataclass")
    return text


def _closure(sources: SuiteSources, module: str, qualname: str, params: str | None) -> dict[tuple[str, str], str]:
    """(module, name) -> normalised AST dump, for the test (as ``("", "")``) and all it reaches."""
    root = _normalised(_find_test(sources.module(module), qualname))
    if params is not None:
        assert isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef))
        root.decorator_list = [d for d in root.decorator_list if _marker_name(d) != "parametrize"]
    dumps = {("", ""): _dump(root)}
    pending: list[tuple[str, ast.AST]] = [(module, root)]
    while pending:
        where, node = pending.pop()
        for there, name, definition in _reached(sources, where, node):
            if (there, name) in dumps:
                continue
            kept = [_normalised(statement) for statement in definition]
            dumps[(there, name)] = "\n".join(_dump(k) for k in kept)
            pending.extend((there, k) for k in kept)
    return dumps


def reached(sources: SuiteSources, module: str, qualname: str, params: str | None = None) -> list[str]:
    """The suite definitions a criterion's judgement takes in, as ``module.name``, sorted."""
    return sorted(f"{m}.{n}" for m, n in _closure(sources, module, qualname, params) if m)


def fingerprint(sources: SuiteSources, module: str, qualname: str, params: str | None = None) -> str:
    """The fingerprint of test ``qualname`` of suite module ``module`` (see the module docstring);
    ``params`` is a parametrized test's :func:`params_text` (None for a test without parameters)."""
    digest = hashlib.sha256()
    # sorted by content, not by where a definition lives: moving a helper to another suite module
    # does not change what is judged
    for text in sorted(set(_closure(sources, module, qualname, params).values())):
        digest.update(text.encode() + b"\n")
    if params is not None:
        digest.update(b"params:" + params.encode())
    return digest.hexdigest()[:DIGITS]
