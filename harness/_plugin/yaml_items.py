"""YAML scenario files as pytest items: what the plugin's ``pytest_collect_file`` hook returns.

A YAML scenario file is collected when it is named on the command line (``python -m pytest
my.yaml``; ``schedharness run DIR`` names every YAML file under ``DIR``), never merely because it
sits in a directory pytest walks: the plugin is loaded in every pytest run of an environment that
has schedharness installed, and most YAML files (manifests, CI configs) are no scenario. The test
reads the command line's arguments rather than :meth:`pytest.Session.isinitpath`: given both
``DIR`` and ``DIR/a.yaml``, pytest keeps only ``DIR`` as an initial path and reaches ``a.yaml`` by
walking ``DIR``. A named file under a directory pytest does not walk (``norecursedirs``: ``build``,
``.hidden``, a virtualenv) is reached all the same, and nothing else in that directory is
(:func:`ignore_collect`): a scenario named is a scenario run, never silently dropped.

Each file is one item, named by the file's stem (``docs/examples/gated-pods.yaml::gated-pods``),
marked with the ``kep``, ``featureGates``, ``runtimeConfig`` and ``criterion`` the file gives, so
gate skips, records, journals and replay lines work as for Python scenarios. The item is a :class:`pytest.Function`
calling :func:`~harness._scenario.yaml_scenarios.run_scenario` with the ``scenario`` fixture, so the
plugin runs it on the test's loop like any ``async def`` scenario. A file that does not load is
one collection error whose message is the :class:`~harness._scenario.yaml_scenarios.YamlScenarioError`'s
(pytest exits with code 2).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

import pytest

from harness._scenario.scenario import Scenario
from harness._scenario.yaml_scenarios import YamlScenario, YamlScenarioError, load_scenario, run_scenario

__all__ = [
    "YAML_SUFFIXES",
    "YamlScenarioFile",
    "YamlScenarioItem",
    "ignore_collect",
    "named_yaml_file",
    "scenario_marks",
    "yaml_scenario_params",
]

YAML_SUFFIXES = (".yaml", ".yml")
_NAMED = pytest.StashKey[frozenset[Path]]()
_OPENED = pytest.StashKey[set[Path]]()  # directories walked only to reach a named YAML file


def scenario_marks(scenario: YamlScenario) -> list[pytest.MarkDecorator]:
    """The ``kep``, ``feature_gates``, ``runtime_config`` and ``criterion`` marks a YAML scenario's
    file gives."""
    marks: list[pytest.MarkDecorator] = []
    if scenario.kep is not None:
        marks.append(pytest.mark.kep(*scenario.kep))
    if scenario.feature_gates:
        marks.append(pytest.mark.feature_gates(**scenario.feature_gates))
    if scenario.runtime_config:
        marks.append(pytest.mark.runtime_config(dict(scenario.runtime_config)))
    if scenario.criterion is not None:
        marks.append(pytest.mark.criterion(scenario.criterion, reading=scenario.reading))
    return marks


def yaml_scenario_params(directory: str | Path, pattern: str = "*.yaml") -> list[Any]:
    """One ``pytest.param`` per YAML scenario file (loaded and validated, id = file stem), marked
    with its ``kep``, ``featureGates``, ``runtimeConfig`` and ``criterion``, so gate skips and
    records work as for Python scenarios::

        @pytest.mark.parametrize("yaml_scenario", yaml_scenario_params(FIXTURES / "scenarios"))
        async def test_yaml(scenario, yaml_scenario):
            await run_scenario(yaml_scenario, scenario)
    """
    params = []
    for path in sorted(Path(directory).glob(pattern)):
        loaded = load_scenario(path)
        params.append(pytest.param(loaded, id=path.stem, marks=scenario_marks(loaded)))
    return params


def _named(config: pytest.Config) -> frozenset[Path]:
    """The YAML files named on the command line, resolved."""
    named = config.stash.get(_NAMED, None)
    if named is None:  # the arguments, not the initial paths: those lose a file inside a directory given too
        base = config.invocation_params.dir
        paths = ((base / arg.split("::", 1)[0]).resolve() for arg in config.args)
        named = config.stash[_NAMED] = frozenset(p for p in paths if p.suffix in YAML_SUFFIXES)
    return named


def named_yaml_file(file_path: Path, config: pytest.Config) -> bool:
    """Whether ``file_path`` is a YAML file named on the command line (module docstring)."""
    return file_path.suffix in YAML_SUFFIXES and file_path.resolve() in _named(config)


def ignore_collect(path: Path, config: pytest.Config, ignored: bool | None) -> bool | None:
    """Whether pytest skips ``path``, given what the other plugins said (``ignored``): a directory
    they skip is walked when a named YAML file is under it, and then only towards such files."""
    named = _named(config)
    if not named:
        return ignored
    here = path.resolve()
    towards = here in named or any(here in file.parents for file in named)
    opened = config.stash.setdefault(_OPENED, set())
    if any(parent in opened for parent in here.parents):
        return not towards
    if ignored and towards:
        opened.add(here)
        return False
    return ignored


def _runner(loaded: YamlScenario) -> Callable[[Scenario], Coroutine[Any, Any, None]]:
    async def test_yaml_scenario(scenario: Scenario) -> None:  # fixtures come by parameter name
        await run_scenario(loaded, scenario)

    return test_yaml_scenario


class YamlScenarioItem(pytest.Function):
    """One YAML scenario: the ``scenario`` fixture's test that runs the file's ops."""

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name  # the YAML file (a skip names its first line), not the function running it


class YamlScenarioFile(pytest.File):
    """A YAML scenario file: one :class:`YamlScenarioItem`, or a collection error saying why not."""

    def collect(self) -> Iterable[YamlScenarioItem]:
        try:
            loaded = load_scenario(self.path)
        except (YamlScenarioError, OSError) as e:
            raise self.CollectError(str(e)) from None
        item = YamlScenarioItem.from_parent(self, name=self.path.stem, callobj=_runner(loaded))
        for mark in scenario_marks(loaded):
            item.add_marker(mark)
        yield item
