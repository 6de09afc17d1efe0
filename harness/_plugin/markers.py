"""The markers a criterion carries, and what they say.

``kep(number, section)`` names the KEP and the section a test checks, ``criterion(id, reading=,
control=)`` its stable ID (and, where the KEP leaves a choice, the reading it checks),
``feature_gates(**gates)`` the gates it needs, ``runtime_config(*values)`` the API group versions
its API server must serve (kube-apiserver's ``--runtime-config`` values, e.g.
``"scheduling.k8s.io/v1beta1=true"``; :mod:`harness._backends.runtime_config`) and
``adapters(*names)`` the scheduler adapters it applies to. The plugin reads them to run a test
and to write its record; ``schedharness run`` and the criteria catalog read them the same way,
through these functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from harness._backends.runtime_config import parse_option

__all__ = ["MARKERS", "criterion_facts", "marker_gates", "marker_runtime_config", "register_markers"]

MARKERS = ("kep", "feature_gates", "runtime_config", "criterion", "adapters")


def register_markers(config: pytest.Config) -> None:
    """Register the markers, with the line ``pytest --markers`` shows for each."""
    config.addinivalue_line(
        "markers", "kep(number, section): the KEP and the section of it that the test checks")
    config.addinivalue_line(
        "markers", "feature_gates(**gates): feature gates the test needs, e.g. SchedulerPreEnqueuePodStatus=True")
    config.addinivalue_line(
        "markers", "runtime_config(*values): API group versions or resources the test's API server must serve, as "
                   "kube-apiserver's --runtime-config values, e.g. \"scheduling.k8s.io/v1beta1=true\"")
    config.addinivalue_line(
        "markers", "criterion(id, reading=None): the acceptance criterion's id and, where the KEP leaves a "
                   "choice, the reading it checks")
    config.addinivalue_line(
        "markers", "adapters(*names): the scheduler adapters the test applies to (others skip it)")


def marker_gates(item: pytest.Item) -> dict[str, bool]:
    """The feature gates a test's ``feature_gates`` markers ask for (the closest marker wins)."""
    gates: dict[str, bool] = {}
    for mark in reversed(list(item.iter_markers("feature_gates"))):
        gates.update({name: bool(value) for name, value in mark.kwargs.items()})
    return gates


def marker_runtime_config(item: pytest.Item) -> dict[str, str]:
    """The runtime config a test's ``runtime_config`` markers ask for: each argument a flag value
    (``"a/v1=true,b/v1beta1=true"``) or a mapping of key to value; the closest marker wins a key."""
    config: dict[str, str] = {}
    for mark in reversed(list(item.iter_markers("runtime_config"))):
        for value in mark.args:
            config.update({str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping)
                          else parse_option(str(value)))
    return config


def criterion_facts(item: pytest.Item) -> dict[str, Any]:
    """What a test's ``criterion`` and ``kep`` markers say: criterion, kep, section, reading, and
    the control a negative criterion is judged beside (``control=``: what the scheduler must
    have done in the same scenario before a "nothing happened" counts)."""
    criterion = item.get_closest_marker("criterion")
    kep = item.get_closest_marker("kep")
    reading = control = None
    if criterion is not None:
        reading = criterion.kwargs.get("reading", criterion.args[1] if len(criterion.args) > 1 else None)
        control = criterion.kwargs.get("control")
    return {
        "criterion": criterion.args[0] if criterion is not None and criterion.args else None,
        "kep": kep.args[0] if kep is not None and kep.args else None,
        "section": kep.args[1] if kep is not None and len(kep.args) > 1 else None,
        "reading": reading,
        "control": control,
    }
