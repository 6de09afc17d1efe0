"""The layer rules of ``docs/architecture.md``, read from the code's own imports.

Every import statement of the shipped packages, the benches and the tools counts, wherever it
sits: at module level, inside a function, or behind ``if TYPE_CHECKING``. The rules:

* no import circle anywhere in the project;
* packages import only packages below them: ``kubeclient`` at the bottom, ``fake_apiserver`` and
  ``reference_scheduler`` above it (and not each other), ``harness`` above them, ``suites``,
  ``bench`` and ``tools`` on top;
* inside ``fake_apiserver``, a layer imports only the layers below it (``_machinery``,
  ``_registry``, ``_storage``, ``_endpoints``, ``_server``, then the package's face);
* inside ``harness``, every module sits in a private sub-package (``_time``, ``_backends``...)
  except its faces (``harness``, ``harness.cli``, ``harness.pytest_plugin``); a sub-package
  imports only the sub-packages below it (``_time``, ``_backends``, then ``_scenario`` beside
  ``_schedulers``, ``_plugin``, ``_criteria``, ``_runs``), without a circle, and never a face;
* no private name crosses modules: neither ``from m import _name`` nor ``m._name`` on an
  imported module;
* an import inside a function says why it is there, in a comment on its line or the line above;
* no test module ships inside ``kubeclient``, ``fake_apiserver``, ``harness`` or ``reference_scheduler``
  (``suites`` is made of conformance scenarios, which ``schedharness run`` collects).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("kubeclient", "fake_apiserver", "reference_scheduler", "harness", "suites")
SCRIPTS = ("bench", "tools")
# The rank of each top-level package: a package may import only ranks below its own.
PACKAGE_RANK = {"kubeclient": 0, "fake_apiserver": 1, "reference_scheduler": 1, "harness": 2, "suites": 3, "bench": 3,
                "tools": 3}
# fake_apiserver's layers, bottom first; the package's own __init__ is the face on top.
LAYERS = ("_machinery", "_registry", "_storage", "_endpoints", "_server")
# harness's faces: the public API, the command and the pytest11 entry point; the rest is in sub-packages.
HARNESS_FACES = ("harness", "harness.cli", "harness.pytest_plugin")
# harness's sub-packages, bottom first (as docs/architecture.md draws them): a part imports only lower ranks.
HARNESS_PARTS = {"harness._time": 0, "harness._backends": 1, "harness._scenario": 2, "harness._schedulers": 2,
                 "harness._plugin": 3, "harness._criteria": 4, "harness._runs": 5}


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    target: str  # the imported module, dotted (a module of the project)
    names: tuple[str, ...]  # the names taken with ``from target import ...``
    line: int
    in_function: bool
    commented: bool


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in PACKAGES + SCRIPTS:
        for path in sorted((ROOT / top).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _resolve(source: str, node: ast.ImportFrom, modules: dict[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    base = source.split(".")
    if modules[source].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _read_imports(module: str, text: str, modules: dict[str, Path]) -> list[Import]:
    """Every import of ``module`` (source ``text``) of a module in ``modules``, at any depth."""
    found: list[Import] = []
    lines = text.splitlines()

    def commented(node: ast.stmt) -> bool:
        here = lines[node.lineno - 1]
        above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
        return "#" in here or above.startswith("#")

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name in modules:
                        found.append(Import(module, alias.name, (), child.lineno, in_function, commented(child)))
            elif isinstance(child, ast.ImportFrom):
                target = _resolve(module, child, modules)
                if target not in modules:
                    continue
                names = tuple(a.name for a in child.names)
                submodules = [n for n in names if f"{target}.{n}" in modules]
                for name in submodules:
                    found.append(Import(module, f"{target}.{name}", (), child.lineno, in_function, commented(child)))
                rest = tuple(n for n in names if n not in submodules)
                if rest:
                    found.append(Import(module, target, rest, child.lineno, in_function, commented(child)))
            visit(child, inner)

    visit(ast.parse(text), False)
    return found


@functools.cache
def _imports() -> tuple[Import, ...]:
    modules = _modules()
    return tuple(imp for module, path in modules.items() for imp in _read_imports(module, path.read_text(), modules))


def _top(module: str) -> str:
    return module.split(".")[0]


def _layer(module: str) -> int | None:
    """The rank of a fake_apiserver module's layer (the face on top), None outside the package."""
    parts = module.split(".")
    if parts[0] != "fake_apiserver":
        return None
    if len(parts) == 1:
        return len(LAYERS)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1


def _harness_part(module: str) -> str | None:
    """The sub-package of a harness module (``harness._scenario``), its own name for a face, None
    outside harness."""
    parts = module.split(".")
    if parts[0] != "harness":
        return None
    return module if module in HARNESS_FACES else ".".join(parts[:2])


def _circles(graph: dict[str, set[str]] | None = None) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), of the module graph
    unless another is given."""
    if graph is None:
        graph = {m: set() for m in _modules()}
        for imp in _imports():
            if imp.target != imp.source:
                graph[imp.source].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return circles


def test_the_import_graph_has_no_circle() -> None:
    assert _circles() == []


def test_packages_import_only_packages_below_them() -> None:
    upward = [
        f"{imp.source}:{imp.line} imports {imp.target}"
        for imp in _imports()
        if _top(imp.source) != _top(imp.target)
        and PACKAGE_RANK[_top(imp.target)] >= PACKAGE_RANK[_top(imp.source)]
    ]
    assert upward == []


def test_every_fake_apiserver_module_sits_in_a_layer() -> None:
    assert [m for m in _modules() if _layer(m) == -1] == []


def test_a_fake_apiserver_layer_imports_only_the_layers_below_it() -> None:
    upward = []
    for imp in _imports():
        source, target = _layer(imp.source), _layer(imp.target)
        if source is not None and target is not None and target > source:
            upward.append(f"{imp.source}:{imp.line} imports {imp.target} ({LAYERS[source]} below {imp.target})")
    assert upward == []


def test_every_harness_module_sits_in_a_sub_package() -> None:
    loose = [m for m, path in _modules().items() if path.parent == ROOT / "harness" and m not in HARNESS_FACES]
    public = [m for m in _modules()
              if _harness_part(m) not in (None, *HARNESS_FACES) and not m.split(".")[1].startswith("_")]
    assert (loose, public) == ([], [])


def test_harness_sub_packages_import_each_other_without_a_circle() -> None:
    graph: dict[str, set[str]] = {}
    for imp in _imports():
        source, target = _harness_part(imp.source), _harness_part(imp.target)
        if source is not None and target is not None and source != target:
            graph.setdefault(source, set()).add(target)
            graph.setdefault(target, set())
    assert set(graph) > {"harness._time", "harness._scenario", "harness._runs"}
    assert _circles(graph) == []


def test_a_harness_sub_package_imports_only_the_ones_below_it() -> None:
    parts = {_harness_part(m) for m in _modules()} - {None, *HARNESS_FACES}
    upward = [
        f"{imp.source}:{imp.line} imports {imp.target}"
        for imp in _imports()
        if (source := _harness_part(imp.source)) in HARNESS_PARTS
        and (target := _harness_part(imp.target)) in HARNESS_PARTS
        and source != target and HARNESS_PARTS[target] >= HARNESS_PARTS[source]
    ]
    assert (parts - set(HARNESS_PARTS), upward) == (set(), [])


def test_no_harness_sub_package_imports_a_face() -> None:
    upward = [f"{imp.source}:{imp.line} imports {imp.target}" for imp in _imports()
              if _harness_part(imp.source) not in (None, *HARNESS_FACES) and imp.target in HARNESS_FACES]
    assert upward == []


def test_no_private_name_is_imported_across_modules() -> None:
    taken = [
        f"{imp.source}:{imp.line} takes {name} from {imp.target}"
        for imp in _imports()
        for name in imp.names
        if name.startswith("_") and not name.startswith("__")
    ]
    assert taken == []


def test_no_private_attribute_of_an_imported_module_is_read() -> None:
    """``typed._node`` on a module bound by ``from fake_apiserver._machinery import typed``."""
    modules = _modules()
    reads = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text())
        bound: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, node, modules)
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        bound[alias.asname or alias.name] = f"{target}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules and alias.asname:
                        bound[alias.asname] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                reads.append(f"{module}:{node.lineno} reads {bound[node.value.id]}.{node.attr}")
    assert reads == []


def test_an_import_inside_a_function_says_why() -> None:
    silent = [f"{imp.source}:{imp.line} imports {imp.target}" for imp in _imports() if imp.in_function and not imp.commented]
    assert silent == []


@pytest.mark.parametrize("package", ["kubeclient", "fake_apiserver", "harness", "reference_scheduler"])
def test_no_test_module_ships_in_a_package(package: str) -> None:
    shipped = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / package).rglob("*.py")
        if p.name.startswith("test_") or p.name.endswith("_test.py") or p.name == "conftest.py"
    )
    assert shipped == []


def test_the_reader_sees_every_kind_of_import() -> None:
    """At module level, inside a function (with and without a comment), behind TYPE_CHECKING,
    relative, and a module taken from its package."""
    modules = {name: Path(name.replace(".", "/") + ".py") for name in ("pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e")}
    modules["pkg"] = Path("pkg/__init__.py")
    source = (
        "from typing import TYPE_CHECKING\n"
        "from pkg.b import thing\n"
        "from . import c\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.d import Other\n"
        "def f():\n"
        "    from pkg.e import _hidden\n"
        "    # an optional dependency\n"
        "    import pkg.b\n"
    )
    seen = [(i.target, i.names, i.in_function, i.commented) for i in _read_imports("pkg.a", source, modules)]
    assert seen == [
        ("pkg.b", ("thing",), False, False),
        ("pkg.c", (), False, False),
        ("pkg.d", ("Other",), False, False),
        ("pkg.e", ("_hidden",), True, False),
        ("pkg.b", (), True, True),
    ]


def test_the_rules_read_the_whole_project() -> None:
    imports = _imports()
    assert any(i.source == "fake_apiserver" and i.target == "fake_apiserver._server.server" for i in imports)
    assert any(i.source.startswith("harness.") and _top(i.target) == "fake_apiserver" for i in imports)
    assert {_top(i.source) for i in imports if _top(i.target) == "kubeclient"} >= {"reference_scheduler", "harness"}
    assert len(_modules()) > 100
