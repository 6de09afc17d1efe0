"""The YAML scenarios given to ``schedharness run PATH...``: one suite, ``yaml_scenarios``.

``schedharness run`` puts the YAML files and directories it was given in
``SCHEDHARNESS_YAML_SCENARIOS`` (joined with ``os.pathsep``) and adds this file to the pytest
run, so a user's YAML scenarios get the same adapters, backends, gates, report, journals,
timelines and replay lines as the built-in suites; each is one test, named by its file, with the
``kep``, ``featureGates`` and ``criterion`` its file gives (:func:`~harness.pytest_plugin.yaml_scenario_params`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from harness._scenario import Scenario
from harness._yaml_scenarios import YamlScenario, run_scenario
from harness.pytest_plugin import yaml_scenario_params

ENV = "SCHEDHARNESS_YAML_SCENARIOS"


def _params() -> list[Any]:
    params: list[Any] = []
    for entry in os.environ.get(ENV, "").split(os.pathsep):
        if not entry:
            continue
        path = Path(entry)
        if path.is_dir():
            params += yaml_scenario_params(path) + yaml_scenario_params(path, "*.yml")
        else:
            params += yaml_scenario_params(path.parent, path.name)
    return params


@pytest.mark.parametrize("yaml_scenario", _params())
async def test_yaml_scenario(scenario: Scenario, yaml_scenario: YamlScenario) -> None:
    await run_scenario(yaml_scenario, scenario)
