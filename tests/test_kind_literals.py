"""The layers around the registry name no kind: a kind's knowledge lives in its module of
``fake_apiserver/_registry`` and reaches them as data (a ``KindSpec`` row, a parameter, the
kind's declaration). Nor do the registry's generic modules, at its top (not its API groups'
packages), except ``serverkinds.py``, the registry's list of the kinds the server itself relies on.

A string literal equal to a kind or a resource name that a release serves (``"Pod"``, ``"pods"``,
any of ``fake_apiserver/data/discovery-v*.json``, the generated data those names come from) is
refused in the code of the named layers. Docstrings may name kinds: they explain, they do not
decide.
"""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fake_apiserver"
LAYERS = ("_machinery", "_storage", "_endpoints")
#: the registry's generic modules that may name kinds: the kinds the server itself relies on
NAMING_KINDS = ("serverkinds.py",)


@functools.cache
def _kind_names() -> frozenset[str]:
    """Every kind and resource name of every release's discovery data."""
    names: set[str] = set()
    for path in sorted((PACKAGE / "data").glob("discovery-v*.json")):
        for group in json.loads(path.read_text())["groups"]:
            for version in group["versions"]:
                for resource in version["resources"]:
                    names.update((resource["kind"], resource["resource"]))
    return frozenset(names)


def _literals(source: str) -> list[tuple[int, str]]:
    """The string literals of ``source`` that are no docstring (of the module, a class, a function
    or an attribute: a string standing alone as a statement), with their lines."""
    tree = ast.parse(source)
    documentation = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation
    )


def test_the_names_are_read_from_the_discovery_data() -> None:
    assert {"Pod", "pods", "PriorityClass", "priorityclasses", "Event", "events"} <= _kind_names()


def test_the_check_sees_a_kind_named_in_code_and_not_in_a_docstring() -> None:
    source = (
        '"""Pods and Nodes."""\n'
        'KIND = "Pod"\n'
        '"""The kind."""\n'
        "def f(spec):\n"
        '    """Events."""\n'
        '    return spec.resource == "events" or f"{spec.kind}" == "x"\n'
    )
    assert _literals(source) == [(2, "Pod"), (6, "events"), (6, "x")]


@pytest.mark.parametrize("layer", LAYERS)
def test_no_kind_is_named_in_the_layer(layer: str) -> None:
    assert _named(sorted((PACKAGE / layer).rglob("*.py"))) == []


def _named(paths: list[Path]) -> list[str]:
    names = _kind_names()
    return [
        f"{path.relative_to(ROOT)}:{line}: {value!r}"
        for path in paths
        for line, value in _literals(path.read_text())
        if value in names
    ]


def test_no_kind_is_named_in_the_registry_s_generic_modules() -> None:
    generic = [path for path in sorted((PACKAGE / "_registry").glob("*.py")) if path.name not in NAMING_KINDS]
    assert len(generic) > 10
    assert _named(generic) == []
