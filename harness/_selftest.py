"""``schedharness selftest``: the suites proven against the reference scheduler and its variants.

A conformance suite is only worth citing if it catches broken schedulers and passes correct ones
whatever their requests look like. The reference scheduler ships with variants
(``schedharness mutants``, :data:`reference_scheduler.VARIANTS`), each with what is expected of
it: *shape variants* are correct too and differ from the reference only where a correct scheduler
may (the request that writes the pod's condition: PUT, JSON patch, merge patch; when a claim event
re-runs PreEnqueue); *mutants* each break one KEP-5501 rule; *controls* are not
schedulers at all (``does-nothing``). The selftest runs the suites once against the reference and
once against each variant (one pytest run each, ``--scheduler reference:<name>``,
:func:`harness._run.run_suites`), and holds four promises:

* the reference fails no criterion (and its run passes);
* no shape variant fails a criterion: a verdict depends on what a write did, not on its shape;
* every mutant and control fails at least one criterion (a survivor is named);
* every criterion fails for at least one mutant: only a mutant, a scheduler broken in one named
  way, proves that a criterion catches what it claims. A control fails whatever needs a scheduler
  at all, so a criterion that only a control fails is not proven and is listed by name ("criteria
  only a control fails"), as is one that nothing fails ("criteria no variant fails").

The matrix (a row per scheduler, grouped: reference, shape variants, mutants, controls; a column
per criterion: ``P`` passed, ``F`` failed, ``S`` skipped, ``-`` not run), which criteria killed
which mutant or control, which mutants and which controls fail each criterion (``caught_by``,
what ``schedharness criteria --selftest`` reads), and which criteria a shape variant failed go to
``selftest.json`` and ``selftest.md``; each run's full report stays in ``<report dir>/<scheduler>/``.

The runs are independent processes, so ``-n`` runs that many of them at a time (better than
pytest-xdist inside each run: the suite is short under virtual time, and a worker pool's start-up
would cost more than it saves). Timelines are not drawn (a picture per scenario of every variant
is more than anyone reads); the journals are kept, and ``schedharness run --mutant NAME`` draws
them for one variant.
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
from harness._run import RunOptions, RunResult, make_report_dir, run_suites, suite_paths, suites_directory
from reference_scheduler import VARIANTS, get_mutant

__all__ = ["GROUPS", "SelftestResult", "build_matrix", "render_markdown", "render_matrix", "render_summary",
           "run_selftest"]

_LETTER = {"passed": "P", "failed": "F", "skipped": "S"}
# (kind, heading, key in selftest.json), in the matrix's row order after the reference
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("shape", "shape variants", "shapes"),
    ("mutant", "mutants", "mutants"),
    ("control", "controls", "controls"),
)


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


def build_matrix(reports: dict[str, dict[str, Any]], variants: dict[str, dict[str, str]]) -> dict[str, Any]:
    """``selftest.json``'s content from the run reports by scheduler (``reference`` and
    ``reference:<name>``) and the variants (name -> ``kind`` (``shape``, ``mutant`` or
    ``control``), ``description``, ``violates``), in the order given within each kind."""
    reference = _criteria(reports["reference"])
    rows: dict[str, dict[str, str]] = {"reference": reference}
    for name in variants:
        rows[name] = _criteria(reports[f"reference:{name}"])
    criteria = sorted({cid for row in rows.values() for cid in row})
    failed = {name: sorted(cid for cid, status in row.items() if status == "failed") for name, row in rows.items()}
    reference_ok = bool(reference) and not failed["reference"] and reports["reference"]["verdict"] == "passed"
    by_kind = {kind: [name for name, info in variants.items() if info["kind"] == kind] for kind, _, _ in GROUPS}
    must_fail = by_kind["mutant"] + by_kind["control"]
    survivors = [name for name in must_fail if not failed[name]]
    shape_failures = {name: failed[name] for name in by_kind["shape"] if failed[name]}
    caught_by = {cid: {group: [name for name in by_kind[kind] if cid in failed[name]]
                       for kind, group in (("mutant", "mutants"), ("control", "controls"))} for cid in criteria}
    uncaught = [cid for cid in criteria if not caught_by[cid]["mutants"] and not caught_by[cid]["controls"]]
    only_controls = [cid for cid in criteria if not caught_by[cid]["mutants"] and caught_by[cid]["controls"]]
    selftest: dict[str, Any] = {
        "ok": reference_ok and not shape_failures and not survivors and not uncaught and not only_controls,
        "criteria": criteria,
        "reference": {"verdict": reports["reference"]["verdict"], "failed": failed["reference"],
                      "not_passed": sorted(cid for cid in criteria if reference.get(cid) != "passed"),
                      "report": reports["reference"].get("report_dir")},
        "survivors": survivors,
        "shape_failures": shape_failures,
        "uncaught": uncaught,
        "only_controls": only_controls,
        "caught_by": caught_by,
        "groups": [["reference", ["reference"]]] + [[heading, by_kind[kind]] for kind, heading, _ in GROUPS],
        "matrix": {name: {cid: _LETTER[row[cid]] if cid in row else "-" for cid in criteria}
                   for name, row in rows.items()},
    }
    for kind, _, key in GROUPS:
        selftest[key] = {
            name: {"failed": failed[name], "description": variants[name]["description"],
                   "violates": variants[name].get("violates", ""),
                   "expected": "pass every criterion" if kind == "shape" else "fail at least one criterion",
                   "report": reports[f"reference:{name}"].get("report_dir"),
                   **({} if kind == "shape" else {"killed_by": failed[name]})}
            for name in by_kind[kind]}
    return selftest


def _unproven_lines(selftest: dict[str, Any]) -> list[str]:
    """The criteria no mutant fails: those only a control fails, then those nothing fails."""
    return ["criteria only a control fails (no mutant: not proven): " + (", ".join(selftest["only_controls"]) or "none"),
            "criteria no variant fails: " + (", ".join(selftest["uncaught"]) or "none")]


def _unproven_mark(selftest: dict[str, Any], cid: str) -> str:
    if cid in selftest["only_controls"]:
        return "  (only a control fails it)"
    return "  (nothing fails it)" if cid in selftest["uncaught"] else ""


def render_matrix(selftest: dict[str, Any]) -> str:
    """The matrix as text: a row per scheduler under its group's heading, a column per criterion
    (numbered, with a key that marks a criterion no mutant fails), then the criteria only a
    control fails and those nothing fails."""
    criteria: list[str] = selftest["criteria"]
    groups: list[tuple[str, list[str]]] = [(heading, names) for heading, names in selftest["groups"] if names]
    width = max(len(name) for _, names in groups for name in names)
    lines = [" " * width + "  " + " ".join(f"{i + 1:>2}" for i in range(len(criteria)))]
    for heading, names in groups:
        if heading != "reference":
            lines.append(f"-- {heading}")
        for name in names:
            row = selftest["matrix"][name]
            lines.append(f"{name:<{width}}  " + " ".join(f"{row[cid]:>2}" for cid in criteria))
    lines.append("")
    lines += [f"{i + 1:>2} {cid}{_unproven_mark(selftest, cid)}" for i, cid in enumerate(criteria)]
    lines += ["", *_unproven_lines(selftest)]
    return "\n".join(lines)


def render_markdown(selftest: dict[str, Any]) -> str:
    """``selftest.md``: the verdict, each group's table, which mutants and controls fail each
    criterion, and the matrix."""
    criteria: list[str] = selftest["criteria"]
    verdict = "PASSED" if selftest["ok"] else "FAILED"
    lines = ["# schedharness selftest", "",
             f"Verdict: **{verdict}**: the reference scheduler and every shape variant must pass every criterion, "
             "every mutant and control must fail at least one, and every criterion must fail for at least one "
             "mutant: a control failing it does not prove it.", ""]
    if selftest["reference"]["failed"]:
        lines += ["Reference criteria failed: " + ", ".join(selftest["reference"]["failed"]), ""]
    elif selftest["reference"]["not_passed"]:
        lines += ["Reference criteria not passed: " + ", ".join(selftest["reference"]["not_passed"]), ""]
    lines += ["## Shape variants: must pass every criterion", "",
              "| Shape variant | What differs | Failed |", "|---|---|---|"]
    for name, info in selftest["shapes"].items():
        failed = ", ".join(info["failed"]) or "nothing"
        lines.append(f"| {name} | {info['description']} | {failed} |")
    for _, heading, key in GROUPS[1:]:
        lines += ["", f"## {heading.capitalize()}: must fail at least one criterion", "",
                  f"| {heading.capitalize()[:-1]} | What is broken | Killed by |", "|---|---|---|"]
        for name, info in selftest[key].items():
            killed = ", ".join(info["killed_by"]) or "**nothing: it survives**"
            lines.append(f"| {name} | {info['description']} | {killed} |")
    lines += [""] + [line.capitalize() + "." for line in _unproven_lines(selftest)]
    lines += ["", "## Criteria: must fail for at least one mutant", "",
              "| Criterion | Failed by mutants | Failed by controls |", "|---|---|---|"]
    for cid in criteria:
        caught = selftest["caught_by"][cid]
        lines.append(f"| {cid} | {', '.join(caught['mutants']) or '**none: not proven**'} | "
                     f"{', '.join(caught['controls']) or 'none'} |")
    lines += ["", "## Matrix (P passed, F failed, S skipped, - not run)", "",
              "| | " + " | ".join(str(i + 1) for i in range(len(criteria))) + " |",
              "|---|" + "---|" * len(criteria)]
    for heading, names in selftest["groups"]:
        if heading != "reference" and names:
            lines.append(f"| *{heading}* |" + " |" * len(criteria))
        for name in names:
            row = selftest["matrix"][name]
            lines.append(f"| {name} | " + " | ".join(row[cid] for cid in criteria) + " |")
    lines += ["", "Criteria:", ""] + [f"{i + 1}. {cid}" for i, cid in enumerate(criteria)]
    return "\n".join(lines) + "\n"


def render_summary(selftest: dict[str, Any]) -> list[str]:
    """The lines printed after the matrix: what each variant did against what it must do, then
    each criterion no mutant fails."""
    lines = []
    if selftest["reference"]["failed"]:
        lines.append("reference: FAILS " + ", ".join(selftest["reference"]["failed"]))
    elif selftest["reference"]["not_passed"]:
        lines.append("reference: not passed: " + ", ".join(selftest["reference"]["not_passed"]))
    for name, info in selftest["shapes"].items():
        lines.append(f"{name}: FAILS {', '.join(info['failed'])}" if info["failed"] else f"{name}: passes everything")
    for _, _, key in GROUPS[1:]:
        for name, info in selftest[key].items():
            lines.append(f"{name}: killed by {', '.join(info['killed_by'])}" if info["killed_by"]
                         else f"{name}: SURVIVES")
    for cid in selftest["only_controls"]:
        lines.append(f"{cid}: NOT PROVEN, failed only by {', '.join(selftest['caught_by'][cid]['controls'])}")
    for cid in selftest["uncaught"]:
        lines.append(f"{cid}: NOT PROVEN, failed by nothing")
    return lines


def run_selftest(*, report_dir: Path | None = None, jobs: int | None = None, suites: Sequence[str] = (),
                 suites_dir: Path | None = None, variants: Sequence[str] | None = None,
                 progress: Callable[[str], None] | None = print,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> SelftestResult:
    """Run the reference and each variant (all by default: shape variants, mutants, controls),
    write ``selftest.json`` and ``selftest.md``, print the matrix; exit code 0 only when every
    promise of the module docstring holds."""
    chosen = [get_mutant(name) for name in variants] if variants is not None else list(VARIANTS)
    chosen = [v for kind, _, _ in GROUPS for v in chosen if v.kind == kind]
    started = now()
    suite_paths((suites_dir or suites_directory()).resolve(), suites)  # an unknown suite: refused before any run
    base = (report_dir or Path("reports") / started.strftime("selftest-%Y%m%dT%H%M%SZ")).resolve()
    make_report_dir(base)
    schedulers = ["reference", *(f"reference:{v.name}" for v in chosen)]
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
    selftest = build_matrix(reports, {v.name: {"kind": v.kind, "description": v.description, "violates": v.violates}
                                      for v in chosen})
    (base / "selftest.json").write_text(json.dumps(selftest, indent=2, sort_keys=True) + "\n")
    (base / "selftest.md").write_text(render_markdown(selftest))
    say(render_matrix(selftest))
    for line in render_summary(selftest):
        say(line)
    say(f"schedharness selftest: {'PASSED' if selftest['ok'] else 'FAILED'}; {base / 'selftest.md'}")
    return SelftestResult(base, selftest, 0 if selftest["ok"] else 1)
