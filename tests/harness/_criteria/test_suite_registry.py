"""The suite registry: the built-in suites are found through their entry point, a broken
registration is an error with an exact message, and no harness module imports ``suites``."""

from __future__ import annotations

import ast
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

import harness._runs.run
import harness._criteria.suite_registry as registry
import suites
from harness import SuiteCollection
from harness._runs.run import RunError, suites_directory
from suites._readings import READINGS
from tests.support.paths import ROOT

GROUP = "schedharness.suites"


def _register(monkeypatch: pytest.MonkeyPatch, *points: tuple[str, str]) -> None:
    found = [EntryPoint(name, value, GROUP) for name, value in points]
    monkeypatch.setattr(registry, "entry_points", lambda group: found if group == GROUP else [])


def test_the_built_in_suites_are_registered_as_schedharness() -> None:
    builtin = registry.builtin_suites()
    assert builtin is suites.SUITES
    assert builtin.directory == Path(suites.__file__).resolve().parent
    assert builtin.version == suites.SUITE_VERSION
    assert registry.registered_readings() == READINGS
    assert suites_directory() == ROOT / "suites"


def test_another_collections_readings_come_after_the_built_in_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    other = SuiteCollection(directory=ROOT, version="1", readings={"mine": "my reading", "seeding": READINGS["seeding"]})
    monkeypatch.setattr(registry, "suite_collections", lambda: {"acme": other, "schedharness": suites.SUITES})
    assert registry.registered_readings() == {**READINGS, "mine": "my reading"}


def test_one_reading_key_with_two_texts_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    other = SuiteCollection(directory=ROOT, version="1", readings={"seeding": "another text"})
    monkeypatch.setattr(registry, "suite_collections", lambda: {"acme": other, "schedharness": suites.SUITES})
    with pytest.raises(registry.SuiteRegistryError,
                       match=r"^the reading 'seeding' has two texts: one from the suite collection 'schedharness', "
                             r"another from 'acme'$"):
        registry.registered_readings()


def test_no_built_in_suites_is_a_run_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch)
    with pytest.raises(RunError, match=r"^no suite collection named 'schedharness' in the entry point group "
                                       r"schedharness\.suites \(registered: none\); install schedharness "
                                       r"\(pip install -e \.\) so that its suites are registered$"):
        suites_directory()
    assert harness._runs.run._readings() == {}


def test_an_entry_point_that_is_not_a_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, ("schedharness", "suites:SUITE_VERSION"))
    with pytest.raises(registry.SuiteRegistryError,
                       match=r"^the suite collection schedharness = suites:SUITE_VERSION \(entry point group "
                             r"schedharness\.suites\) is a str, not a harness\.SuiteCollection$"):
        registry.builtin_suites()


def test_an_entry_point_that_cannot_be_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, ("acme", "no_such_suites_package:SUITES"), ("schedharness", "suites:SUITES"))
    with pytest.raises(registry.SuiteRegistryError,
                       match=r"^the suite collection acme = no_such_suites_package:SUITES \(entry point group "
                             r"schedharness\.suites\) cannot be loaded: ModuleNotFoundError: No module named "
                             r"'no_such_suites_package'$"):
        registry.builtin_suites()


def test_a_name_registered_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, ("schedharness", "suites:SUITES"), ("schedharness", "suites:SUITES"))
    with pytest.raises(registry.SuiteRegistryError,
                       match=r"^the suite collection schedharness = suites:SUITES \(entry point group "
                             r"schedharness\.suites\): the name 'schedharness' is registered twice$"):
        registry.builtin_suites()


def _imported_modules(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):  # every depth: module level, functions, TYPE_CHECKING blocks
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_no_harness_module_imports_suites() -> None:
    offenders = {str(path.relative_to(ROOT)): sorted(m for m in _imported_modules(ast.parse(path.read_text()))
                                                       if m == "suites" or m.startswith("suites."))
                 for path in sorted((ROOT / "harness").rglob("*.py"))}
    assert {path: modules for path, modules in offenders.items() if modules} == {}
