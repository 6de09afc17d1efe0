"""The pytest plugin's entry point: the module the ``pytest11`` entry point ``schedharness`` names.

The plugin itself is :mod:`harness._plugin.plugin` (its options in :mod:`harness._plugin.options`,
its markers in :mod:`harness._plugin.markers`); pytest registers it from ``pytest_plugins`` below
when it loads this module, so that ``-p no:schedharness`` turns the whole plugin off. The names a
conftest or a tool may import are re-exported here.
"""

from __future__ import annotations

from harness._plugin.markers import criterion_facts, marker_gates
from harness._plugin.options import Settings
from harness._plugin.plugin import scenario_seconds
from harness._plugin.yaml_items import yaml_scenario_params

__all__ = ["Settings", "criterion_facts", "marker_gates", "scenario_seconds", "yaml_scenario_params"]

pytest_plugins = ["harness._plugin.plugin"]
