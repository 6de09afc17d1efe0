"""The criteria catalog: ``schedharness criteria``, what a KEP's Test Plan can cite.

Every criterion of the suites, with its stable ID, its source (a KEP and the section of it, or,
where no KEP describes the behaviour, the upstream behaviour and the source file it is read from:
such a row names no KEP), the sentence it checks (the first paragraph of its docstring), the
fingerprint of its judgement (:mod:`harness._criteria.fingerprint`; the change log
``docs/criteria-changes.md`` keeps an ID to one judgement per version, :mod:`harness._criteria.changes`), its reading
where the text leaves a choice (by the key its suite collection registers it under, see
:mod:`harness._criteria.suite_registry`), the feature gates it needs, and, read from a selftest
(``selftest.json``, as ``schedharness selftest`` writes it), the mutants that fail it
(``caught_by``: what proves the criterion) apart from the controls that fail it
(``failed_by_controls``: a control fails whatever needs a scheduler at all, which proves nothing).
:func:`check_caught_by` holds a committed catalog to a fresh selftest (``schedharness criteria
--check docs/criteria.json --selftest DIR``, run in CI): ``caught_by`` is measured, not carried
forward, so a criterion that loses its last mutant, or gains one, shows as a difference.

The criteria are read the way ``schedharness run`` finds them: pytest collects the suite files
(in a subprocess, so the plugin's markers and parametrized criteria are exactly a run's) and
:mod:`harness._criteria.catalog_plugin` writes what each collected test's markers say.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

from reference_scheduler import VARIANTS

__all__ = ["CatalogError", "caught_by", "check_caught_by", "collect", "format_json", "format_md", "load_caught_by",
           "source"]

Obj = dict[str, Any]
#: Who fails a criterion: ``{"mutants": [...], "controls": [...]}``, names sorted.
Caught = dict[str, list[str]]


class CatalogError(RuntimeError):
    """The suites could not be collected."""


def collect(paths: Sequence[Path]) -> list[Obj]:
    """One record per criterion of the suite files ``paths``, in ID order."""
    with tempfile.TemporaryDirectory(prefix="schedharness-catalog-") as tmp:
        out = Path(tmp) / "criteria.json"
        env = {**os.environ, "SCHEDHARNESS_CATALOG_OUT": str(out)}
        argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                "-p", "harness._criteria.catalog_plugin", *map(str, paths)]
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        if done.returncode != 0 or not out.exists():
            raise CatalogError(f"collecting the suites failed ({' '.join(argv)}):\n{done.stdout}{done.stderr}")
        records: list[Obj] = json.loads(out.read_text())
    return sorted(records, key=lambda r: r["id"])


def caught_by(selftest: Obj) -> dict[str, Caught]:
    """Criterion ID -> the mutants and the controls that failed it, from a ``selftest.json``."""
    out: dict[str, Caught] = {}
    for group in ("mutants", "controls"):
        for name, variant in sorted((selftest.get(group) or {}).items()):
            for criterion in variant.get("failed") or []:
                out.setdefault(criterion, {"mutants": [], "controls": []})[group].append(name)
    return out


def _from_catalog(record: Obj) -> Caught:
    """A catalog record's ``caught_by`` and ``failed_by_controls``; a catalog written before the
    two were apart listed the controls in ``caught_by`` too, and they are told apart by name."""
    names = list(record.get("caught_by") or [])
    if "failed_by_controls" in record:
        return {"mutants": names, "controls": list(record["failed_by_controls"] or [])}
    controls = {v.name for v in VARIANTS if v.kind == "control"}
    return {"mutants": [n for n in names if n not in controls], "controls": [n for n in names if n in controls]}


def load_caught_by(path: Path) -> dict[str, Caught]:
    """Who fails each criterion (mutants apart from controls), from a ``selftest.json`` (or a
    selftest report directory holding one) or from a catalog written with ``--format json`` that
    carries ``caught_by``."""
    return _measured(path)[1]


def _measured(path: Path) -> tuple[list[str], dict[str, Caught]]:
    """The criteria a selftest ran (or a catalog measured: those with ``caught_by``) and who fails
    each (:func:`load_caught_by`)."""
    if path.is_dir():
        path = path / "selftest.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise CatalogError(f"cannot read {path}: {e}") from None
    if isinstance(data, dict) and "criteria" in data and isinstance(data["criteria"], list) and all(
            isinstance(c, dict) for c in data["criteria"]):
        measured = [c for c in data["criteria"] if "caught_by" in c]
        return [str(c["id"]) for c in measured], {c["id"]: _from_catalog(c) for c in measured}
    if isinstance(data, dict) and ("mutants" in data or "controls" in data):
        return [str(cid) for cid in data.get("criteria") or []], caught_by(data)
    raise CatalogError(f"{path} is neither a selftest.json nor a criteria catalog")


def check_caught_by(catalog: Path, selftest: Path) -> tuple[int, list[str]]:
    """How many criteria ``catalog`` (a catalog written with ``--format json --selftest``) and
    ``selftest`` (a ``selftest.json`` or its report directory; either may be the other kind) both
    hold, and one line per difference between them: a criterion only one of them holds, or one
    whose ``caught_by`` (the mutants that fail it) or ``failed_by_controls`` differ, committed
    beside measured. No lines: they agree. :class:`CatalogError` when either cannot be read, or
    the catalog has no ``caught_by``."""
    committed_ids, committed = _measured(catalog)
    if not committed_ids:
        raise CatalogError(f"{catalog} carries no caught_by: write it with --format json --selftest")
    measured_ids, measured = _measured(selftest)
    lines = [f"{cid}: in {catalog}, not run by the selftest" for cid in committed_ids if cid not in measured_ids]
    lines += [f"{cid}: run by the selftest, not in {catalog}" for cid in measured_ids if cid not in committed_ids]
    nobody: Caught = {"mutants": [], "controls": []}
    for cid in sorted(set(committed_ids) & set(measured_ids)):
        for group, field in (("mutants", "caught_by"), ("controls", "failed_by_controls")):
            was, now = committed.get(cid, nobody)[group], measured.get(cid, nobody)[group]
            if sorted(was) != sorted(now):
                lines.append(f"{cid}: {field}: committed {', '.join(sorted(was)) or 'none'}; "
                             f"measured {', '.join(sorted(now)) or 'none'}")
    return len(set(committed_ids) & set(measured_ids)), lines


def format_json(records: Iterable[Obj], version: str) -> str:
    return json.dumps({"suite_version": version, "criteria": list(records)}, indent=2, sort_keys=True) + "\n"


def _cell(text: Any) -> str:
    return str(text or "").replace("|", "\\|").replace("\n", " ")


def source(record: Obj) -> str:
    """What a criterion checks against: ``KEP-5501``, or the upstream behaviour with no KEP claimed."""
    if record.get("kep") is not None:
        kep = str(record["kep"])
        return kep if kep.upper().startswith("KEP") else f"KEP-{kep}"
    if record.get("upstream"):
        return f"upstream (no KEP): {record['upstream']}"
    return ""


def format_md(records: Iterable[Obj], version: str, *, selftest: str = "") -> str:
    """The catalog as Markdown: one table per suite, then the readings."""
    records = list(records)
    lines = [f"# schedharness criteria, suites version {version}", "",
             "Generated by `schedharness criteria --format md"
             + (f" --selftest {selftest}`" if selftest else "`") + "; a test checks it is current.",
             "Cite a criterion by its ID and this version: an ID never changes meaning within a version. Its "
             "*fingerprint* is a hash of the code that judges it (the test and the suite helpers it calls, "
             "docstrings and markers left out); [criteria-changes.md](criteria-changes.md) logs every judgement "
             "an ID has had, version by version, and a test holds the catalog to it.", "",
             "*Source* is the KEP a criterion checks, with the section (*Section or file*); a criterion of "
             "kube-scheduler or API-server behaviour that no KEP describes names the upstream behaviour and the "
             "source files it is read from instead, and claims no KEP. The facts of the API server and of "
             "kube-scheduler that the criteria cite are in [api-facts.md](api-facts.md); the readings (where "
             "a KEP's text leaves a choice) and the questions behind them are in [readings.md](readings.md).", "",
             "*Judged beside* names the positive control a criterion that judges a negative (never bound, no "
             "write, nothing preempted) stands on: *liveness*, an ordinary pod the scheduler must bind in the same "
             "scenario, or *feature*, the feature itself shown in the same scenario. The negative is judged only "
             "once the control happened; otherwise the criterion is not judged, which fails the run.", ""]
    if selftest:
        lines += ["*Caught by* names the mutants of the reference scheduler that fail the criterion in the selftest, "
                  "each broken in one named way (`schedharness mutants`): they prove it catches what it claims. "
                  "*Controls* names the controls that fail it too; a control is no scheduler at all, so it proves "
                  "nothing on its own.", ""]
    suites: dict[str, list[Obj]] = {}
    for record in records:
        suites.setdefault(record["suite"], []).append(record)
    readings: dict[str, str] = {}
    for suite, rows in sorted(suites.items()):
        lines += [f"## {suite}", "", "| ID | Source | Section or file | Checks | Judged beside | Gates | Reading "
                  "| Caught by | Controls | Fingerprint |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            gates = ", ".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(r["feature_gates"].items()))
            caught = ", ".join(r.get("caught_by") or []) if "caught_by" in r else ""
            controls = ", ".join(r.get("failed_by_controls") or [])
            lines.append("| " + " | ".join(_cell(x) for x in (
                f"`{r['id']}`", source(r), r["section"], r["checks"], r.get("control") or "", gates, r.get("reading_key") or "", caught,
                controls, f"`{r['fingerprint']}`" if r.get("fingerprint") else "")) + " |")
            if r.get("reading_key"):
                readings[r["reading_key"]] = r["reading"]
        lines.append("")
    if readings:
        lines += ["## Readings", ""] + [f"- **{key}**: {text}" for key, text in sorted(readings.items())] + [""]
    return "\n".join(lines)
