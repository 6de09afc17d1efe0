"""``schedharness selftest``: the suites proven against the reference scheduler and its mutants.

A conformance suite is only worth citing if it catches broken schedulers. The reference
scheduler ships with mutants, each breaking one KEP-5501 rule (``schedharness mutants``); the
selftest runs the suites once against the reference and once against each mutant (one pytest run
each, ``--scheduler reference:<mutant>``, :func:`harness._run.run_suites`), and holds two
promises: the reference passes every criterion, and every mutant fails at least one. The matrix
(mutant x criterion: ``P`` passed, ``F`` failed, ``S`` skipped) and which criteria killed which
mutant go to ``selftest.json`` and ``selftest.md``; each run's full report stays in
``<report dir>/<scheduler>/``.

The runs are independent processes, so ``-n`` runs that many of them at a time (better than
pytest-xdist inside each run: the suite is short under virtual time, and a worker pool's start-up
would cost more than it saves). Timelines are not drawn (about 0.15 s a scenario, times thirteen
runs); the journals are kept, and ``schedharness run --mutant NAME`` draws them for one mutant.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness._report import criterion_status
from harness._run import RunOptions, RunResult, run_suites

__all__ = ["SelftestResult", "build_matrix", "render_matrix", "run_selftest"]

_LETTER = {"passed": "P", "failed": "F", "skipped": "S"}


@dataclass(frozen=True)
class SelftestResult:
    report_dir: Path
    selftest: dict[str, Any]
    exit_code: int


def _criteria(report: dict[str, Any]) -> dict[str, str]:
    """Criterion id -> one verdict (a criterion checked by several scenarios fails if one does)."""
    statuses: dict[str, list[str]] = {}
    for c in report["criteria"]:
        statuses.setdefault(str(c["id"]), []).append(str(c["status"]))
    return {cid: criterion_status(s) for cid, s in statuses.items()}


def build_matrix(reports: dict[str, dict[str, Any]], mutants: dict[str, dict[str, str]]) -> dict[str, Any]:
    """``selftest.json``'s content from the run reports by scheduler (``reference`` and
    ``reference:<mutant>``) and the mutants' descriptions (name -> description, violates)."""
    reference = _criteria(reports["reference"])
    rows: dict[str, dict[str, str]] = {"reference": reference}
    for name in mutants:
        rows[name] = _criteria(reports[f"reference:{name}"])
    criteria = sorted({cid for row in rows.values() for cid in row})
    not_passed = sorted(cid for cid in criteria if reference.get(cid) != "passed")
    killed = {name: sorted(cid for cid, status in rows[name].items() if status == "failed") for name in mutants}
    survivors = sorted(name for name, by in killed.items() if not by)
    reference_ok = not any(reference.get(cid) == "failed" for cid in criteria) and bool(reference)
    reference_ok = reference_ok and reports["reference"]["verdict"] == "passed"
    return {
        "ok": reference_ok and not survivors,
        "criteria": criteria,
        "reference": {"verdict": reports["reference"]["verdict"], "not_passed": not_passed,
                      "report": reports["reference"].get("report_dir")},
        "mutants": {name: {"killed_by": killed[name], "description": info["description"],
                           "violates": info["violates"], "report": reports[f"reference:{name}"].get("report_dir")}
                    for name, info in mutants.items()},
        "survivors": survivors,
        "matrix": {name: {cid: _LETTER[row[cid]] if cid in row else "-" for cid in criteria}
                   for name, row in rows.items()},
    }


def render_matrix(selftest: dict[str, Any]) -> str:
    """The matrix as text: a row per scheduler, a column per criterion (numbered, with a key)."""
    criteria: list[str] = selftest["criteria"]
    names = list(selftest["matrix"])
    width = max(len(n) for n in names)
    header = " " * width + "  " + " ".join(f"{i + 1:>2}" for i in range(len(criteria)))
    lines = [header]
    for name in names:
        row = selftest["matrix"][name]
        lines.append(f"{name:<{width}}  " + " ".join(f"{row[cid]:>2}" for cid in criteria))
    lines.append("")
    lines += [f"{i + 1:>2} {cid}" for i, cid in enumerate(criteria)]
    return "\n".join(lines)


def _markdown(selftest: dict[str, Any]) -> str:
    criteria: list[str] = selftest["criteria"]
    verdict = "PASSED" if selftest["ok"] else "FAILED"
    lines = ["# schedharness selftest", "",
             f"Verdict: **{verdict}**: the reference scheduler must pass every criterion and every mutant "
             "must fail at least one.", "",
             "## Which criteria killed which mutant", "",
             "| Mutant | What is broken | Killed by |", "|---|---|---|"]
    for name, info in selftest["mutants"].items():
        killed = ", ".join(info["killed_by"]) or "**nothing: the mutant survives**"
        lines.append(f"| {name} | {info['description']} | {killed} |")
    if selftest["reference"]["not_passed"]:
        lines += ["", "Reference criteria not passed: " + ", ".join(selftest["reference"]["not_passed"])]
    lines += ["", "## Matrix (P passed, F failed, S skipped)", "",
              "| | " + " | ".join(str(i + 1) for i in range(len(criteria))) + " |",
              "|---|" + "---|" * len(criteria)]
    for name, row in selftest["matrix"].items():
        lines.append(f"| {name} | " + " | ".join(row[cid] for cid in criteria) + " |")
    lines += ["", "Criteria:", ""] + [f"{i + 1}. {cid}" for i, cid in enumerate(criteria)]
    return "\n".join(lines) + "\n"


def run_selftest(*, report_dir: Path | None = None, jobs: int | None = None, suites: Sequence[str] = (),
                 suites_dir: Path | None = None, mutants: Sequence[str] | None = None,
                 progress: Callable[[str], None] | None = print,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> SelftestResult:
    """Run the reference and each mutant (all by default), write ``selftest.json`` and
    ``selftest.md``, print the matrix; exit code 0 only when the reference passes everything and
    no mutant survives."""
    from reference_scheduler import MUTANTS, get_mutant

    chosen = [get_mutant(name) for name in mutants] if mutants is not None else list(MUTANTS)
    started = now()
    base = (report_dir or Path("reports") / started.strftime("selftest-%Y%m%dT%H%M%SZ")).resolve()
    base.mkdir(parents=True, exist_ok=True)
    schedulers = ["reference", *(f"reference:{m.name}" for m in chosen)]
    say = progress or (lambda line: None)
    say(f"schedharness selftest: {len(schedulers)} runs, report in {base}")

    def one(scheduler: str) -> RunResult:
        options = RunOptions(scheduler=scheduler, suites=tuple(suites), suites_dir=suites_dir, jobs=0,
                             report_dir=base / scheduler.replace(":", "-"), timeline=False)
        result = run_suites(options, progress=None, now=lambda: started)
        s = result.report["summary"]
        say(f"  {scheduler}: {s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped")
        return result

    with ThreadPoolExecutor(max_workers=max(1, jobs or os.cpu_count() or 1)) as pool:
        results = dict(zip(schedulers, pool.map(one, schedulers)))
    reports = {name: {**r.report, "report_dir": str(r.report_dir.relative_to(base))} for name, r in results.items()}
    selftest = build_matrix(reports, {m.name: {"description": m.description, "violates": m.violates}
                                      for m in chosen})
    (base / "selftest.json").write_text(json.dumps(selftest, indent=2, sort_keys=True) + "\n")
    (base / "selftest.md").write_text(_markdown(selftest))
    say(render_matrix(selftest))
    for name, info in selftest["mutants"].items():
        say(f"{name}: killed by {', '.join(info['killed_by'])}" if info["killed_by"] else f"{name}: SURVIVES")
    if selftest["reference"]["not_passed"]:
        say("reference: not passed: " + ", ".join(selftest["reference"]["not_passed"]))
    say(f"schedharness selftest: {'PASSED' if selftest['ok'] else 'FAILED'}; {base / 'selftest.md'}")
    return SelftestResult(base, selftest, 0 if selftest["ok"] else 1)
