"""pytest plugin for :mod:`harness._criteria.catalog`: after collection, write each criterion's facts to
the JSON file ``SCHEDHARNESS_CATALOG_OUT`` names (``pytest --collect-only -p harness._criteria.catalog_plugin``).

A criterion's source is either a KEP (the ``kep`` marker: ``kep("KEP-5501", "<section>")``) or,
where no KEP describes the behaviour, the upstream behaviour and where it is written
(``kep(None, "<source>", upstream="<behaviour>")``): the record then has ``kep`` None and
``upstream`` the behaviour, and ``section`` is the source, so that no KEP is claimed for it.
Its ``fingerprint`` is :func:`harness._criteria.fingerprint.fingerprint` of the test, read from the suite
file's directory.
"""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from harness._criteria.fingerprint import SuiteSources, fingerprint, params_text
from harness._criteria.suite_registry import registered_readings
from harness._plugin.markers import criterion_facts, marker_gates

__all__ = ["pytest_collection_finish"]


def _first_paragraph(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return re.sub(r"\s+", " ", doc.split("\n\n")[0]).strip()


def _upstream(item: pytest.Item) -> str | None:
    """The upstream behaviour a criterion without a KEP checks (``kep(None, source, upstream=...)``)."""
    kep = item.get_closest_marker("kep")
    return None if kep is None else kep.kwargs.get("upstream")


def _fingerprint(item: pytest.Item, sources: dict[Path, SuiteSources]) -> str | None:
    """The fingerprint of a Python criterion; None for one without a test function (a YAML scenario)."""
    function = getattr(item, "function", None)
    if function is None:
        return None
    path = Path(str(item.fspath))
    if path.parent not in sources:
        sources[path.parent] = SuiteSources.from_directory(path.parent)
    callspec = getattr(item, "callspec", None)
    params = params_text(callspec.params) if callspec is not None else None
    return fingerprint(sources[path.parent], path.stem, function.__qualname__, params)


def pytest_collection_finish(session: pytest.Session) -> None:
    out = os.environ.get("SCHEDHARNESS_CATALOG_OUT")
    if not out:
        return
    reading_keys = {text: key for key, text in registered_readings().items()}
    records = []
    sources: dict[Path, SuiteSources] = {}
    for item in session.items:
        facts = criterion_facts(item)
        if not facts["criterion"]:
            continue
        reading = facts["reading"]
        records.append({
            "id": facts["criterion"],
            "suite": Path(str(item.fspath)).stem.removeprefix("test_"),
            "test": item.nodeid.split("/")[-1],
            "kep": facts["kep"],
            "upstream": _upstream(item),
            "section": facts["section"],
            "checks": _first_paragraph(getattr(item, "function", None)),
            "feature_gates": marker_gates(item),
            "reading_key": reading_keys.get(reading) if reading else None,
            "reading": reading,
            "control": facts["control"],
            "fingerprint": _fingerprint(item, sources),
        })
    Path(out).write_text(json.dumps(records))
