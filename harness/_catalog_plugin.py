"""pytest plugin for :mod:`harness._catalog`: after collection, write each criterion's facts to
the JSON file ``SCHEDHARNESS_CATALOG_OUT`` names (``pytest --collect-only -p harness._catalog_plugin``)."""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from harness._suite_registry import registered_readings
from harness.pytest_plugin import criterion_facts, marker_gates


def _first_paragraph(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return re.sub(r"\s+", " ", doc.split("\n\n")[0]).strip()


def pytest_collection_finish(session: pytest.Session) -> None:
    out = os.environ.get("SCHEDHARNESS_CATALOG_OUT")
    if not out:
        return
    reading_keys = {text: key for key, text in registered_readings().items()}
    records = []
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
            "section": facts["section"],
            "checks": _first_paragraph(getattr(item, "function", None)),
            "feature_gates": marker_gates(item),
            "reading_key": reading_keys.get(reading) if reading else None,
            "reading": reading,
        })
    Path(out).write_text(json.dumps(records))
