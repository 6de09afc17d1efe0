"""The criteria catalog (``schedharness criteria``): every criterion with its stable ID, and the
committed catalog (``docs/criteria.md``, ``docs/criteria.json``) current with the suites."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness._catalog import caught_by, collect, format_md, load_caught_by
from harness._run import suite_paths, suites_directory
from reference_scheduler import MUTANTS
from suites import SUITE_VERSION
from suites._readings import READINGS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _current() -> list[dict]:
    return collect(suite_paths(suites_directory(), []))


def test_the_committed_catalog_is_current() -> None:
    """``docs/criteria.json`` lists exactly today's criteria with today's facts (its ``caught_by``
    and ``failed_by_controls`` from the selftest it was made with), and ``docs/criteria.md`` is
    that catalog as Markdown: regenerate both with ``schedharness criteria --format json
    --selftest <selftest dir>`` then ``schedharness criteria --format md --selftest docs/criteria.json``."""
    committed = json.loads((DOCS / "criteria.json").read_text())
    assert committed["suite_version"] == SUITE_VERSION
    current = _current()
    selftest_facts = ("caught_by", "failed_by_controls")
    stored = [{k: v for k, v in c.items() if k not in selftest_facts} for c in committed["criteria"]]
    assert stored == current, "docs/criteria.json is stale: regenerate it (see this test's docstring)"
    facts = {c["id"]: {k: c[k] for k in selftest_facts} for c in committed["criteria"]}
    for record in current:
        record.update(facts[record["id"]])
    expected = format_md(current, SUITE_VERSION, selftest="docs/criteria.json")
    assert (DOCS / "criteria.md").read_text() == expected, "docs/criteria.md is stale: regenerate it"


def test_every_criterion_is_caught_by_some_mutant_and_ids_are_unique() -> None:
    """``caught_by`` names mutants only: a criterion only a control fails is not proven."""
    committed = json.loads((DOCS / "criteria.json").read_text())["criteria"]
    ids = [c["id"] for c in committed]
    assert len(ids) == len(set(ids))
    mutants = {m.name for m in MUTANTS}
    assert [c["id"] for c in committed if not c["caught_by"]] == [], "a criterion no mutant fails is not proven"
    assert all(set(c["caught_by"]) <= mutants and "does-nothing" not in c["caught_by"] for c in committed)
    assert {name for c in committed for name in c["failed_by_controls"]} == {"does-nothing"}


def test_a_record_says_what_the_criterion_checks() -> None:
    by_id = {c["id"]: c for c in _current()}
    record = by_id["kep5836.one-victim"]
    assert (record["suite"], record["kep"]) == ("kep5836_resize_preemption", "KEP-5836")
    assert record["feature_gates"] == {"InPlacePodVerticalScaling": True,
                                       "InPlacePodVerticalScalingSchedulerPreemption": True}
    assert (record["reading_key"], record["reading"]) == ("5836-status", READINGS["5836-status"])
    assert record["checks"].startswith("r (mid) grows from 100m to 300m")
    # a parametrized criterion is one record per parameter, each with its own ID
    assert {i for i in by_id if i.startswith("kep5501.patch-failure.scheduling-goes-on.")} == {
        f"kep5501.patch-failure.scheduling-goes-on.{x}" for x in ("409", "429", "500", "503", "dropped-connection")}


def test_caught_by_reads_a_selftest_with_mutants_apart_from_controls() -> None:
    selftest = {"mutants": {"b": {"failed": ["x", "y"]}, "a": {"failed": ["x"]}},
                "controls": {"does-nothing": {"failed": ["y", "z"]}}}
    assert caught_by(selftest) == {"x": {"mutants": ["a", "b"], "controls": []},
                                   "y": {"mutants": ["b"], "controls": ["does-nothing"]},
                                   "z": {"mutants": [], "controls": ["does-nothing"]}}


def test_load_caught_by_reads_a_catalog_old_or_new(tmp_path: Path) -> None:
    """A catalog written before ``failed_by_controls`` listed the controls in ``caught_by``: they are
    told apart by name."""
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"criteria": [{"id": "x", "caught_by": ["a"], "failed_by_controls": ["does-nothing"]}]}))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"criteria": [{"id": "x", "caught_by": ["a", "does-nothing"]}, {"id": "y"}]}))
    expected = {"x": {"mutants": ["a"], "controls": ["does-nothing"]}}
    assert load_caught_by(new) == expected == load_caught_by(old)


def test_the_command_prints_json_and_refuses_an_unknown_suite() -> None:
    done = subprocess.run([sys.executable, "-m", "harness.cli", "criteria", "--suite", "core_sanity", "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["suite_version"] == SUITE_VERSION
    assert [c["id"] for c in printed["criteria"]] == ["core.binds-fitting-node", "core.node-added",
                                                      "core.unschedulable-message"]
    bad = subprocess.run([sys.executable, "-m", "harness.cli", "criteria", "--suite", "nope"],
                         capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and bad.stderr.startswith("schedharness criteria: unknown suite 'nope'")
