"""The criteria catalog (``schedharness criteria``): every criterion with its stable ID, its source
(a KEP section, or the upstream behaviour where no KEP describes it) and the fingerprint of its
judgement; the committed catalog (``docs/criteria.md``, ``docs/criteria.json``) current with the
suites; and the change log (``docs/criteria-changes.md``) that keeps an ID to one judgement per
suites version.

How ``caught_by`` is checked: it is a measurement, the selftest's (``schedharness selftest``: the
reference and every variant over every suite, and the controls as processes), so the catalog
carries it from the selftest it was made with, and CI (``.ci/run``) runs the full selftest and
compares (``schedharness criteria --check docs/criteria.json --selftest DIR``, tested here on
crafted files). What is cheap is checked here too: ``docs/criteria.md`` is exactly
``docs/criteria.json`` rendered (so the Markdown cannot drift from the measurement); the names in
it are mutants and controls and every criterion has a mutant; and a real selftest of the
core_sanity suite, run in process against the mutants the catalog names for it, the controls
and a mutant it does not name, fails each criterion with exactly the variants the catalog says.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fake_apiserver import Respond
from harness._criteria.catalog import caught_by, check_caught_by, collect, format_md, load_caught_by, source
from harness._criteria.changes import parse, problems
from harness._criteria.fingerprint import FingerprintError, SuiteSources, fingerprint, params_text, reached
from harness._runs.run import suite_paths, suites_directory
from harness._runs.selftest import run_selftest
from harness.cli import main as cli_main
from reference_scheduler import MUTANTS, VARIANTS
from suites import SUITE_VERSION
from suites._readings import READINGS
from tests.support.paths import ROOT

DOCS = ROOT / "docs"
SUITES = ROOT / "suites"
SELFTEST_FACTS = ("caught_by", "failed_by_controls")
BINDS = "test_pod_is_bound_to_a_fitting_node"


@functools.cache
def _collected() -> str:
    return json.dumps(collect(suite_paths(suites_directory(), [])))


def _current() -> list[dict]:
    """Today's catalog, collected once per test session (a pytest subprocess), a fresh copy each call."""
    records: list[dict] = json.loads(_collected())
    return records


def _committed() -> dict:
    return json.loads((DOCS / "criteria.json").read_text())


def _sources(**replace: str) -> SuiteSources:
    """Today's suite modules, with ``replace`` (module name -> text) in place of some."""
    texts = {p.stem: p.read_text() for p in sorted(SUITES.glob("*.py"))}
    return SuiteSources({**texts, **replace}, "suites")


def _edit(module: str, old: str, new: str) -> str:
    text = (SUITES / f"{module}.py").read_text()
    assert text.count(old) == 1, f"{old!r} is not once in suites/{module}.py"
    return text.replace(old, new)


def test_the_committed_catalog_is_current() -> None:
    """``docs/criteria.json`` lists exactly today's criteria with today's facts and fingerprints
    (its ``caught_by`` and ``failed_by_controls`` are the selftest's: see the module docstring).
    Regenerate it with ``schedharness criteria --format json --selftest <selftest dir>`` after a
    ``schedharness selftest``, or, when no judgement changed since the last selftest, with
    ``--selftest docs/criteria.json`` (the measurement carried over)."""
    committed = _committed()
    assert committed["suite_version"] == SUITE_VERSION
    stored = [{k: v for k, v in c.items() if k not in SELFTEST_FACTS} for c in committed["criteria"]]
    assert stored == _current(), "docs/criteria.json is stale: regenerate it (see this test's docstring)"


def test_criteria_md_is_the_committed_json_rendered() -> None:
    """``docs/criteria.md`` is ``docs/criteria.json`` as Markdown, caught_by included: regenerate it
    with ``schedharness criteria --format md --selftest docs/criteria.json``."""
    committed = _committed()
    expected = format_md(committed["criteria"], committed["suite_version"], selftest="docs/criteria.json")
    assert (DOCS / "criteria.md").read_text() == expected, "docs/criteria.md is stale: regenerate it"


def test_every_criterion_is_caught_by_some_mutant_and_ids_are_unique() -> None:
    """``caught_by`` names mutants only: a criterion only a control fails is not proven."""
    committed = _committed()["criteria"]
    ids = [c["id"] for c in committed]
    assert len(ids) == len(set(ids))
    mutants = {m.name for m in MUTANTS}
    assert [c["id"] for c in committed if not c["caught_by"]] == [], "a criterion no mutant fails is not proven"
    controls = {v.name for v in VARIANTS if v.kind == "control"}
    assert all(set(c["caught_by"]) <= mutants and not set(c["caught_by"]) & controls for c in committed)
    named = {name for c in committed for name in c["failed_by_controls"]}
    assert "does-nothing" in named and named <= controls


def test_caught_by_agrees_with_a_fresh_selftest_of_core_sanity(tmp_path: Path) -> None:
    """A real selftest of core_sanity against the variants the catalog names for its criteria, the
    controls, and a mutant it names for none of them (``no-delay``, a KEP-5501 mutant), all in
    process: each criterion is failed by exactly the chosen variants the catalog says fail it."""
    committed = {c["id"]: c for c in _committed()["criteria"] if c["suite"] == "core_sanity"}
    named = {name for c in committed.values() for name in c["caught_by"] + c["failed_by_controls"]}
    assert "no-delay" not in named
    chosen = sorted(named | {"does-nothing", "never-watches", "no-delay"})
    result = run_selftest(report_dir=tmp_path, jobs=2, suites=["core_sanity"], variants=chosen, processes=False,
                          progress=None)
    assert result.selftest["reference"]["failed"] == []
    measured = caught_by(result.selftest)
    for cid, record in sorted(committed.items()):
        fails = measured.get(cid, {"mutants": [], "controls": []})
        assert (fails["mutants"], fails["controls"]) == (record["caught_by"], record["failed_by_controls"]), cid


def test_a_record_says_what_the_criterion_checks() -> None:
    by_id = {c["id"]: c for c in _current()}
    record = by_id["kep5836.one-victim"]
    assert (record["suite"], record["kep"], record["upstream"]) == ("kep5836_resize_preemption", "KEP-5836", None)
    assert record["feature_gates"] == {"InPlacePodVerticalScaling": True,
                                       "InPlacePodVerticalScalingSchedulerPreemption": True}
    assert (record["reading_key"], record["reading"]) == ("5836-status", READINGS["5836-status"])
    assert record["checks"].startswith("r (mid) grows from 100m to 300m")
    assert re.fullmatch(r"[0-9a-f]{16}", record["fingerprint"])
    # a parametrized criterion is one record per parameter, each with its own ID
    assert {i for i in by_id if i.startswith("kep5501.patch-failure.scheduling-goes-on.")} == {
        f"kep5501.patch-failure.scheduling-goes-on.{x}" for x in ("409", "429", "500", "503", "dropped-connection")}
    assert all(by_id[cid]["checks"] for cid in by_id), "every criterion has a docstring for the 'checks' column"


def test_a_criterion_without_a_kep_names_its_upstream_source_and_claims_no_kep() -> None:
    """The core and DefaultPreemption criteria check kube-scheduler's behaviour, which no KEP
    describes: they name it and its source files, and the catalog's Source column claims no KEP."""
    by_id = {c["id"]: c for c in _current()}
    upstream = {cid: c for cid, c in by_id.items() if c["kep"] is None}
    assert sorted(upstream) == sorted(i for i in by_id if i.startswith("core.") or (
        i.startswith("preemption.") and i != "preemption.gated-pod-never-preempts"))
    assert all(c["upstream"] and c["section"] and "pkg/scheduler/" in c["section"] for c in upstream.values())
    assert source(by_id["preemption.lowest-victim-best-node"]) == "upstream (no KEP): kube-scheduler DefaultPreemption"
    assert source(by_id["preemption.gated-pod-never-preempts"]) == "KEP-3521"
    assert source(by_id["core.node-added"]).startswith("upstream (no KEP): kube-scheduler")
    assert all(c["upstream"] is None and str(c["kep"]).startswith("KEP-") for i, c in by_id.items() if i not in upstream)
    md = (DOCS / "criteria.md").read_text()
    assert "KEP-kube-scheduler" not in md and "| ID | Source | Section or file |" in md


def test_the_catalog_cites_only_what_ships() -> None:
    """Every document the catalog names is in docs/, and every section of it named there exists:
    ``docs/api-facts.md §<name>`` is a heading ``## §<name> ...``, ``docs/readings.md Q<n>`` (or
    R<n>) a heading ``### Q<n> ...``."""
    text = (DOCS / "criteria.md").read_text() + (DOCS / "criteria.json").read_text()
    assert "k8s-semantics" not in text and "open-questions" not in text and "../shared" not in text
    for name in set(re.findall(r"docs/([\w.-]+\.md)", text)):
        assert (DOCS / name).is_file(), name
    facts = (DOCS / "api-facts.md").read_text()
    cited = set(re.findall(r"§([a-z][a-z0-9-]*)", text))  # a KEP's own sections are numbers: §4
    assert cited, "the catalog cites api-facts.md sections"
    for section in sorted(cited):
        assert re.search(rf"^## §{section} ", facts, re.M), f"docs/api-facts.md has no section §{section}"
    readings = (DOCS / "readings.md").read_text()
    keys = {reading.split()[0] for reading in READINGS.values() if re.match(r"[QR]\d+ ", reading)}
    for key in set(re.findall(r"readings\.md ([QR]\d+)", text)) | keys:
        assert re.search(rf"^### {key} ", readings, re.M), f"docs/readings.md has no question {key}"
    assert all(f"`{key}`" in readings for key in READINGS), "docs/readings.md names every reading's key"


# ---------------------------------------------------------------------- fingerprints and the change log


def test_the_change_log_holds_for_todays_catalog() -> None:
    """Every criterion's fingerprint is its newest line's in docs/criteria-changes.md, whose newest
    version is SUITE_VERSION (the rule is in that file)."""
    assert problems(_current(), SUITE_VERSION, (DOCS / "criteria-changes.md").read_text()) == []


def test_a_changed_judgement_without_a_new_id_fails() -> None:
    """The deliberate change: core.binds-fitting-node's test compares the node the other way.
    Its fingerprint changes; with the same ID, version and change log the catalog breaks the rule,
    and so it does when the version is raised without a line; with the version raised and a
    ``changed`` line, or with a new ID (added, the old one removed), it holds."""
    changed = _edit("test_core_sanity", 'assert pod["spec"]["nodeName"] == "n2", f"expected p bound to n2',
                    'assert pod["spec"]["nodeName"] != "n2", f"expected p bound to n2')
    before = fingerprint(_sources(), "test_core_sanity", BINDS)
    after = fingerprint(_sources(test_core_sanity=changed), "test_core_sanity", BINDS)
    assert before != after
    log = (DOCS / "criteria-changes.md").read_text()
    if not any(e.id == "core.binds-fitting-node" and e.version == SUITE_VERSION for e in parse(log)[1]):
        # its judgement was last logged under an older version: the case needs it logged under today's
        log = log.replace(f"## {SUITE_VERSION}\n", f"## {SUITE_VERSION}\n\n- `core.binds-fitting-node` `{before}` "
                                                    "changed: as logged under an older version.\n", 1)
    catalog = _current()
    assert {c["id"]: c["fingerprint"] for c in catalog}["core.binds-fitting-node"] == before
    edited = [{**c, "fingerprint": after} if c["id"] == "core.binds-fitting-node" else c for c in catalog]
    assert problems(edited, SUITE_VERSION, log) == [
        f"the judgement of `core.binds-fitting-node` changed (fingerprint {before} -> {after}) within suites version "
        f"{SUITE_VERSION}, so its ID would change meaning: give the criterion a new ID (and log "
        "`core.binds-fitting-node` removed), or raise SUITE_VERSION and add '- `core.binds-fitting-node` "
        f"`{after}` changed: <what changed>' under the new version"]
    raised = log.replace(f"## {SUITE_VERSION}\n", f"## 2099.01\n\n## {SUITE_VERSION}\n", 1)
    assert problems(edited, "2099.01", raised) == [
        f"the judgement of `core.binds-fitting-node` changed since {SUITE_VERSION} (fingerprint {before} -> {after}): "
        f"add '- `core.binds-fitting-node` `{after}` changed: <what changed>' under ## 2099.01"]
    logged = raised.replace("## 2099.01\n", f"## 2099.01\n\n- `core.binds-fitting-node` `{after}` changed: the node "
                                            "comparison is inverted.\n", 1)
    assert problems(edited, "2099.01", logged) == []
    renamed = [{**c, "id": "core.binds-fitting-node-2"} if c["id"] == "core.binds-fitting-node" else c for c in edited]
    assert problems(renamed, "2099.01", raised) == [
        f"`core.binds-fitting-node-2` is not in the change log: add '- `core.binds-fitting-node-2` `{after}` added: "
        "<what it checks>' under ## 2099.01",
        "`core.binds-fitting-node` is in the change log but no criterion has it: add '- `core.binds-fitting-node` "
        "removed: <why>' under ## 2099.01"]
    renewed = raised.replace("## 2099.01\n", f"## 2099.01\n\n- `core.binds-fitting-node-2` `{after}` added: the "
                                              "inverted check.\n- `core.binds-fitting-node` removed: renewed.\n", 1)
    assert problems(renamed, "2099.01", renewed) == []
    reused = [*renamed, {"id": "core.binds-fitting-node", "fingerprint": before}]
    assert problems(reused, "2099.01", renewed) == [
        "`core.binds-fitting-node` was removed in 2099.01 and an ID is never reused: give the criterion a new ID"]


def test_a_helper_the_criterion_calls_is_part_of_its_judgement() -> None:
    """A change inside a suite helper (here ``fit_error`` in suites/_support.py, which builds the
    message the core criteria expect) changes the fingerprints of the criteria that reach it, and
    only theirs. The module is rewritten from its syntax tree (``ast.unparse``: comments gone, the
    layout another), which alone changes no fingerprint."""
    unschedulable = "test_pod_that_fits_nowhere_is_unschedulable_with_the_real_message"
    assert "_support.fit_error" in reached(_sources(), "test_core_sanity", unschedulable)
    assert "_support.fit_error" not in reached(_sources(), "test_core_sanity", BINDS)
    tree = ast.parse((SUITES / "_support.py").read_text())
    helper = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "fit_error")
    returned = helper.body[-1]
    assert isinstance(returned, ast.Return) and returned.value is not None
    relaid = ast.unparse(tree)
    returned.value = ast.BinOp(returned.value, ast.Add(), ast.Constant(" "))  # the expected message gains a space
    changed = ast.unparse(tree)
    today = fingerprint(_sources(), "test_core_sanity", unschedulable)
    assert fingerprint(_sources(_support=relaid), "test_core_sanity", unschedulable) == today
    assert fingerprint(_sources(_support=changed), "test_core_sanity", unschedulable) != today
    assert fingerprint(_sources(_support=changed), "test_core_sanity", BINDS) == fingerprint(
        _sources(), "test_core_sanity", BINDS)


def test_words_layout_and_markers_do_not_change_a_fingerprint() -> None:
    """Whitespace, comments, docstrings, annotations and the catalog's own markers (KEP section,
    reading, gates) are not judgement: the same fingerprint. The same test on another interpreter
    version gives the same text too (empty AST fields are left out)."""
    original = (SUITES / "test_core_sanity.py").read_text()
    reworded = original.replace('    """kube-scheduler binds with POST pods/binding', '    """Reworded. kube-scheduler '
                                'binds with POST pods/binding', 1)
    reworded = reworded.replace("    n2 = await scenario.create_node(", "    # a comment\n\n    n2 = await  scenario."
                                "create_node(", 1)
    reworded = reworded.replace("async def test_pod_is_bound_to_a_fitting_node(scenario: Scenario) -> None:",
                                "async def test_pod_is_bound_to_a_fitting_node(scenario):", 1)
    reworded = reworded.replace('upstream="kube-scheduler binding a pod', 'upstream="another name for kube-scheduler '
                                'binding a pod', 1)
    reworded = reworded.replace('@pytest.mark.criterion("core.binds-fitting-node",',
                                '@pytest.mark.criterion("core.binds-fitting-node", reading=READINGS["fit-error"],', 1)
    assert reworded.count("Reworded.") == reworded.count("# a comment") == reworded.count("another name") == 1
    assert "(scenario):" in reworded and 'node", reading=' in reworded
    assert fingerprint(_sources(test_core_sanity=reworded), "test_core_sanity", BINDS) == fingerprint(
        _sources(), "test_core_sanity", BINDS)


def test_a_parametrized_criterion_hashes_its_own_parameter_only() -> None:
    """Each parameter of a parametrized test is its own criterion: its fingerprint takes its own
    value, so siblings differ and a new sibling does not move it; a value without a stable text is
    refused."""
    by_id = {c["id"]: c["fingerprint"] for c in _current()}
    family = [by_id[f"kep5501.patch-failure.scheduling-goes-on.{x}"] for x in ("409", "429", "500", "503")]
    assert len(set(family)) == 4
    added = _edit("test_patch_failure", '    ("dropped-connection", CloseConnection()),\n',
                  '    ("dropped-connection", CloseConnection()),\n    ("502", Respond(502)),\n')
    test = "test_a_failed_status_patch_neither_stops_scheduling_nor_loses_the_pod"
    params = params_text({"failure": Respond(500)})
    assert fingerprint(_sources(test_patch_failure=added), "test_patch_failure", test, params) == by_id[
        "kep5501.patch-failure.scheduling-goes-on.500"]
    with pytest.raises(FingerprintError, match=r"^parameter values 'failure=<object object at 0x[0-9a-f]+>' have no "
                                               r"stable text \(a memory address\): give their type a repr of its own, "
                                               r"e\.g\. a dataclass$"):
        params_text({"failure": object()})


def test_the_change_log_refuses_what_it_cannot_read() -> None:
    versions, entries, errors = parse("# t\n\n- `x` ignored: prose before any version\n\n## 2026.11.1\n\n"
                                      "- `a` `0123456789abcdef` added: a.\n- `b` removed: gone.\n- `c` added: no print.\n"
                                      "## 2026.11.1\n")
    assert versions == ["2026.11.1", "2026.11.1"] and [e.id for e in entries] == ["a", "b"]
    assert errors == ["line 9: not a change-log line: '- `c` added: no print.' (expected '- `<id>` `<16 hex digits>` "
                      "<added|changed|recorded>: <text>' or '- `<id>` removed: <text>')",
                      "line 10: version 2026.11.1 has a second heading"]
    assert problems([], "2026.12", "## 2026.11\n") == [
        "the change log's newest version is 2026.11, the suites' is 2026.12: add a '## 2026.12' section at the top"]


# ---------------------------------------------------------------------- reading a selftest, the command


def test_caught_by_reads_a_selftest_with_mutants_apart_from_controls() -> None:
    selftest = {"mutants": {"b": {"failed": ["x", "y"]}, "a": {"failed": ["x"]}},
                "controls": {"does-nothing": {"failed": ["y", "z"]}}}
    assert caught_by(selftest) == {"x": {"mutants": ["a", "b"], "controls": []},
                                   "y": {"mutants": ["b"], "controls": ["does-nothing"]},
                                   "z": {"mutants": [], "controls": ["does-nothing"]}}


def test_load_caught_by_reads_a_catalog_old_or_new(tmp_path: Path) -> None:
    """A catalog written before ``failed_by_controls`` listed the controls in ``caught_by``: they are
    told apart by name."""
    assert "does-nothing" in {v.name for v in VARIANTS if v.kind == "control"}
    new = tmp_path / "new.json"
    new.write_text(json.dumps({"criteria": [{"id": "x", "caught_by": ["a"], "failed_by_controls": ["does-nothing"]}]}))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"criteria": [{"id": "x", "caught_by": ["a", "does-nothing"]}, {"id": "y"}]}))
    expected = {"x": {"mutants": ["a"], "controls": ["does-nothing"]}}
    assert load_caught_by(new) == expected == load_caught_by(old)


def _catalog_and_selftest(tmp_path: Path) -> tuple[Path, Path]:
    """A committed catalog and a selftest report directory that differ in every way a check must
    tell: x lost mutant a and gained b, y gained a control, z is only in the catalog, w only in
    the selftest, v is the same (no one fails it, in both)."""
    catalog = tmp_path / "criteria.json"
    catalog.write_text(json.dumps({"suite_version": "1", "criteria": [
        {"id": "v", "caught_by": [], "failed_by_controls": []},
        {"id": "x", "caught_by": ["a"], "failed_by_controls": ["does-nothing"]},
        {"id": "y", "caught_by": ["b"], "failed_by_controls": []},
        {"id": "z", "caught_by": ["a"], "failed_by_controls": []}]}))
    selftest = tmp_path / "selftest"
    selftest.mkdir()
    (selftest / "selftest.json").write_text(json.dumps({
        "criteria": ["v", "w", "x", "y"],
        "mutants": {"a": {"failed": []}, "b": {"failed": ["w", "x", "y"]}},
        "controls": {"does-nothing": {"failed": ["x", "y"]}, "never-watches": {"failed": ["y"]}},
        "processes": {"does-nothing (process)": {"failed": ["v", "w", "x", "y"]}}}))
    return catalog, selftest


DIFFERENCES = ["z: in {catalog}, not run by the selftest",
               "w: run by the selftest, not in {catalog}",
               "x: caught_by: committed a; measured b",
               "y: failed_by_controls: committed none; measured does-nothing, never-watches"]


def test_check_caught_by_names_each_difference_and_passes_over_the_process_rows(tmp_path: Path) -> None:
    """A control's process run is held to the controls' promise, not counted in failed_by_controls
    (harness._runs.selftest): its row failing v is no difference."""
    catalog, selftest = _catalog_and_selftest(tmp_path)
    assert check_caught_by(catalog, selftest) == (3, [line.format(catalog=catalog) for line in DIFFERENCES])
    assert check_caught_by(catalog, catalog) == (4, [])


def test_criteria_check_exits_1_with_the_differences_and_0_when_they_agree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog, selftest = _catalog_and_selftest(tmp_path)
    assert cli_main(["criteria", "--check", str(catalog), "--selftest", str(selftest)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [line.format(catalog=catalog) for line in DIFFERENCES] + [
        f"schedharness criteria: 4 difference(s) between {catalog} and the selftest {selftest}: if the selftest is "
        f"right, write the catalog again with schedharness criteria --format json --selftest {selftest}"]
    agreeing = tmp_path / "agreeing.json"
    agreeing.write_text(json.dumps({"criteria": [
        {"id": "v", "caught_by": [], "failed_by_controls": []}, {"id": "w", "caught_by": ["b"]},
        {"id": "x", "caught_by": ["b"], "failed_by_controls": ["does-nothing"]},
        {"id": "y", "caught_by": ["b"], "failed_by_controls": ["never-watches", "does-nothing"]}]}))
    assert cli_main(["criteria", "--check", str(agreeing), "--selftest", str(selftest)]) == 0
    assert capsys.readouterr().out == (f"schedharness criteria: caught_by and failed_by_controls of 4 criteria in "
                                       f"{agreeing} agree with the selftest {selftest}\n")


def test_criteria_check_exits_2_for_what_it_cannot_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog, selftest = _catalog_and_selftest(tmp_path)
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"criteria": [{"id": "x"}]}))
    cases = [
        (["--check", str(catalog)], "--check compares a catalog with a selftest: give --selftest DIR"),
        (["--check", str(catalog), "--selftest", str(selftest), "--suite", "core_sanity"],
         "--check compares every criterion: --suite does not apply"),
        (["--check", str(catalog), "--selftest", str(tmp_path / "nowhere")],
         f"cannot read {tmp_path / 'nowhere'}: [Errno 2] No such file or directory: '{tmp_path / 'nowhere'}'"),
        (["--check", str(tmp_path)], "--check compares a catalog with a selftest: give --selftest DIR"),
        (["--check", str(bare), "--selftest", str(selftest)],
         f"{bare} carries no caught_by: write it with --format json --selftest"),
    ]
    for argv, message in cases:
        assert cli_main(["criteria", *argv]) == 2, argv
        assert capsys.readouterr().err == f"schedharness criteria: {message}\n"
    assert check_caught_by(selftest, selftest) == (4, [])  # two measurements compare too


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
