"""``schedharness selftest``: the suites proven against the reference scheduler and its variants.

A conformance suite is only worth citing if it catches broken schedulers, passes correct ones
whatever their requests look like, and gives nothing to a scheduler that does nothing. The
reference scheduler ships with variants (``schedharness mutants``,
:data:`reference_scheduler.VARIANTS`), each with what is expected of it: *shape variants* are
correct too and differ from the reference only where a correct scheduler may (the request that
writes the pod's condition: PUT, JSON patch, merge patch; when a claim event re-runs PreEnqueue);
*mutants* each break one named rule; *controls* are not schedulers at all (``does-nothing``
watches and binds only the adapter's readiness probe pod; ``never-watches`` polls pods and binds
only the probe).

The selftest runs the suites once against the reference and once against each variant in process
(one pytest run each, ``--scheduler reference:<name>``, :func:`harness._runs.run.run_suites`, under
virtual time), and once against each control as a process (``--scheduler cmd:python -m
reference_scheduler scheduler ... --mutant <name>``, :func:`process_scheduler`, on real time
through the process adapter, the way a scheduler under test runs). It holds five promises:

* the reference fails no criterion and leaves none not judged (and its run passes);
* no shape variant fails a criterion or leaves one not judged: a verdict depends on what a write
  did, not on its shape;
* every mutant fails at least one criterion (a survivor is named);
* every control, in process and as a process, fails every suite with a non-zero exit and passes
  no criterion: a suite that a scheduler doing nothing can pass proves nothing. A control that
  passes a criterion is named with the criteria it passed;
* every criterion fails for at least one mutant: only a mutant, a scheduler broken in one named
  way, proves that a criterion catches what it claims. A control fails, or leaves not judged,
  whatever needs a scheduler at all, so a criterion that only a control fails is not proven and
  is listed by name ("criteria only a control fails"), as is one that nothing fails ("criteria no
  variant fails").

``caught_by`` is the mutants that *fail* a criterion (a criterion a mutant leaves not judged did
not catch it) beside the in-process controls that fail it (``failed_by_controls`` in the
catalog). The controls' process runs are held to the controls' promise but are not counted
there: they run on real time, where what a control leaves not judged and what it fails may
differ from one run to the next, and the catalog must be a measurement CI can repeat exactly
(``schedharness criteria --check``); the in-process runs are deterministic under virtual time.

The matrix (a row per scheduler, grouped: reference, shape variants, mutants, controls, controls
as processes; a column per criterion: ``P`` passed, ``F`` failed, ``N`` not judged, ``S``
skipped, ``-`` not run), what each variant did against what it must do, and who fails each
criterion (``caught_by``, what ``schedharness criteria --selftest`` reads) go to
``selftest.json`` and ``selftest.md``; each run's full report stays in ``<report dir>/<row>/``
(``reference-<name>`` in process, ``process-<name>`` as a process).

The in-process runs are independent processes, so ``-n`` runs that many of them at a time
(better than pytest-xdist inside each run: the suite is short under virtual time, and a worker
pool's start-up would cost more than it saves). A control's process run spends its time waiting
(every criterion waits out a set-up timeout of real seconds) and spreads its scenarios over
pytest-xdist workers (:func:`harness._runs.run.run_suites`' default on real time); the process runs
start first, each in a Python process of its own beside the ``-n`` in-process ones, so their
waiting overlaps the in-process work. A process of its own, not a thread: a ``cmd:`` run first
starts the command once against a fake API server made in the running process (its preflight),
and fake API servers made at the same time in threads of one process break each other (a store
then refuses its own default namespaces). Timelines are not drawn (a picture per scenario of
every variant is more than anyone reads); the journals are kept, and ``schedharness run --mutant
NAME`` draws them for one variant.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness._runs.report import count_text, criterion_status
from harness._runs.run import RunOptions, RunResult, make_report_dir, run_suites, suite_paths, suites_directory
from harness._scenario.expectations import NOT_JUDGED
from reference_scheduler import VARIANTS, get_mutant

__all__ = ["GROUPS", "PROCESS_COMMAND", "Row", "SelftestResult", "build_matrix", "process_scheduler",
           "render_markdown", "render_matrix", "render_summary", "rows_for", "run_selftest"]

_LETTER = {"passed": "P", "failed": "F", NOT_JUDGED: "N", "skipped": "S"}
# (kind, heading, key in selftest.json), in the matrix's row order after the reference; "process"
# is a control run as a process
GROUPS: tuple[tuple[str, str, str], ...] = (
    ("shape", "shape variants", "shapes"),
    ("mutant", "mutants", "mutants"),
    ("control", "controls", "controls"),
    ("process", "controls as processes", "processes"),
)
_CONTROL_KINDS = ("control", "process")
_EXPECTED = {"shape": "pass every criterion", "mutant": "fail at least one criterion",
             "control": "fail every suite with a non-zero exit and pass no criterion",
             "process": "fail every suite with a non-zero exit and pass no criterion"}
#: a control as a process: the reference scheduler's own command (``python -m reference_scheduler``)
PROCESS_COMMAND = ("{python} -m reference_scheduler scheduler --kubeconfig {kubeconfig} --feature-gates {feature_gates} "
                   "--mutant {name}")


def process_scheduler(name: str, python: str = sys.executable) -> str:
    """``--scheduler`` for the variant ``name`` run as a process by ``python``:
    ``cmd:<python> -m reference_scheduler scheduler --kubeconfig {kubeconfig} ... --mutant <name>``,
    the placeholders left for the process adapter."""
    return "cmd:" + PROCESS_COMMAND.replace("{python}", shlex.quote(python)).replace("{name}", name)


@dataclass(frozen=True)
class Row:
    """One run of the selftest: its row's name in the matrix, its group's kind, the ``--scheduler``
    it runs and the directory of its report under the selftest's."""

    name: str
    kind: str
    scheduler: str
    directory: str
    description: str = ""
    violates: str = ""


def rows_for(variants: Sequence[str] | None = None, *, processes: bool = True) -> list[Row]:
    """The reference, then the variants named (all by default) in process, grouped by kind, then
    (with ``processes``) each chosen control as a process (``<name> (process)``)."""
    chosen = [get_mutant(name) for name in variants] if variants is not None else list(VARIANTS)
    rows = [Row("reference", "reference", "reference", "reference")]
    for kind, _, _ in GROUPS[:3]:
        rows += [Row(v.name, v.kind, f"reference:{v.name}", f"reference-{v.name}", v.description, v.violates)
                 for v in chosen if v.kind == kind]
    if processes:
        rows += [Row(f"{v.name} (process)", "process", process_scheduler(v.name), f"process-{v.name}",
                     f"{v.description}; as a process (python -m reference_scheduler), on real time")
                 for v in chosen if v.kind == "control"]
    return rows


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


def _control_breaches(report: dict[str, Any], passed: list[str]) -> list[str]:
    """How a control's run broke the controls' promise: criteria it passed, a run that exited 0, a
    suite it did not fail (passed, or every criterion skipped)."""
    breaches = [f"passed {', '.join(passed)}"] if passed else []
    if report.get("exit_code") == 0:
        breaches.append("exit code 0")
    suites = report.get("suite_results") or {}
    breaches += [f"suite {name} {suite['verdict']}" for name, suite in sorted(suites.items())
                 if suite["verdict"] not in ("failed", NOT_JUDGED)]
    return breaches


def build_matrix(reports: dict[str, dict[str, Any]], variants: dict[str, dict[str, str]]) -> dict[str, Any]:
    """``selftest.json``'s content from the run reports by row name (``reference``, each variant's
    name, ``<control> (process)``; each report with its run's ``exit_code``) and the rows after the
    reference (row name -> ``kind`` (``shape``, ``mutant``, ``control`` or ``process``),
    ``description``, ``violates``), in the order given within each kind."""
    reference = _criteria(reports["reference"])
    rows: dict[str, dict[str, str]] = {"reference": reference}
    for name in variants:
        rows[name] = _criteria(reports[name])
    criteria = sorted({cid for row in rows.values() for cid in row})
    by_status = {status: {name: sorted(cid for cid, s in row.items() if s == status) for name, row in rows.items()}
                 for status in ("passed", "failed", NOT_JUDGED)}
    failed, not_judged, passed = by_status["failed"], by_status[NOT_JUDGED], by_status["passed"]
    reference_ok = (bool(reference) and not failed["reference"] and not not_judged["reference"]
                    and reports["reference"]["verdict"] == "passed")
    by_kind = {kind: [name for name, info in variants.items() if info["kind"] == kind] for kind, _, _ in GROUPS}
    survivors = [name for name in by_kind["mutant"] if not failed[name]]
    shape_failures = {name: failed[name] for name in by_kind["shape"] if failed[name]}
    shape_not_judged = {name: not_judged[name] for name in by_kind["shape"] if not_judged[name]}
    breaches = {name: _control_breaches(reports[name], passed[name]) for kind in _CONTROL_KINDS for name in by_kind[kind]}
    control_breaches = {name: found for name, found in breaches.items() if found}
    caught_by = {cid: {group: [name for name in by_kind[kind] if cid in failed[name]]
                       for kind, group in (("mutant", "mutants"), ("control", "controls"))} for cid in criteria}
    uncaught = [cid for cid in criteria if not caught_by[cid]["mutants"] and not caught_by[cid]["controls"]]
    only_controls = [cid for cid in criteria if not caught_by[cid]["mutants"] and caught_by[cid]["controls"]]
    selftest: dict[str, Any] = {
        "ok": (reference_ok and not shape_failures and not shape_not_judged and not survivors
               and not control_breaches and not uncaught and not only_controls),
        "criteria": criteria,
        "reference": {"verdict": reports["reference"]["verdict"], "failed": failed["reference"],
                      "not_judged": not_judged["reference"],
                      "not_passed": sorted(cid for cid in criteria if reference.get(cid) != "passed"),
                      "report": reports["reference"].get("report_dir")},
        "survivors": survivors,
        "shape_failures": shape_failures,
        "shape_not_judged": shape_not_judged,
        "control_breaches": control_breaches,
        "uncaught": uncaught,
        "only_controls": only_controls,
        "caught_by": caught_by,
        "groups": [["reference", ["reference"]]] + [[heading, by_kind[kind]] for kind, heading, _ in GROUPS],
        "matrix": {name: {cid: _LETTER[row[cid]] if cid in row else "-" for cid in criteria}
                   for name, row in rows.items()},
    }
    for kind, _, key in GROUPS:
        selftest[key] = {}
        for name in by_kind[kind]:
            info: dict[str, Any] = {
                "failed": failed[name], "not_judged": not_judged[name], "description": variants[name]["description"],
                "violates": variants[name].get("violates", ""), "expected": _EXPECTED[kind],
                "report": reports[name].get("report_dir")}
            if kind == "mutant":
                info["killed_by"] = failed[name]
            elif kind in _CONTROL_KINDS:
                info.update(passed=passed[name], exit_code=reports[name].get("exit_code"),
                            breaches=breaches[name])
            selftest[key][name] = info
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


def _control_cell(info: dict[str, Any]) -> str:
    """What a control did, for its line and its table row."""
    if info["breaches"]:
        return "**" + "; ".join(info["breaches"]) + "**"
    return (f"passes nothing: {len(info['failed'])} failed, {len(info['not_judged'])} not judged, "
            f"exit code {info['exit_code']}")


def render_markdown(selftest: dict[str, Any]) -> str:
    """``selftest.md``: the verdict, each group's table, which mutants and controls fail each
    criterion, and the matrix."""
    criteria: list[str] = selftest["criteria"]
    verdict = "PASSED" if selftest["ok"] else "FAILED"
    lines = ["# schedharness selftest", "",
             f"Verdict: **{verdict}**: the reference scheduler and every shape variant must pass every criterion "
             "(none failed, none not judged), every mutant must fail at least one, every control (in process and as "
             "a process) must fail every suite with a non-zero exit and pass no criterion, and every criterion must "
             "fail for at least one mutant: a control failing it does not prove it.", ""]
    reference = selftest["reference"]
    if reference["failed"] or reference["not_judged"]:
        lines += ["Reference criteria failed: " + (", ".join(reference["failed"]) or "none")
                  + "; not judged: " + (", ".join(reference["not_judged"]) or "none"), ""]
    elif reference["not_passed"]:
        lines += ["Reference criteria not passed: " + ", ".join(reference["not_passed"]), ""]
    lines += ["## Shape variants: must pass every criterion", "",
              "| Shape variant | What differs | Failed | Not judged |", "|---|---|---|---|"]
    for name, info in selftest["shapes"].items():
        lines.append(f"| {name} | {info['description']} | {', '.join(info['failed']) or 'nothing'} | "
                     f"{', '.join(info['not_judged']) or 'nothing'} |")
    lines += ["", "## Mutants: must fail at least one criterion", "",
              "| Mutant | What is broken | Killed by |", "|---|---|---|"]
    for name, info in selftest["mutants"].items():
        killed = ", ".join(info["killed_by"]) or "**nothing: it survives**"
        lines.append(f"| {name} | {info['description']} | {killed} |")
    for _, heading, key in GROUPS[2:]:
        lines += ["", f"## {heading.capitalize()}: must fail every suite with a non-zero exit and pass no criterion",
                  "", "| Control | What it is | What it did |", "|---|---|---|"]
        for name, info in selftest[key].items():
            lines.append(f"| {name} | {info['description']} | {_control_cell(info)} |")
    lines += [""] + [line.capitalize() + "." for line in _unproven_lines(selftest)]
    lines += ["", "## Criteria: must fail for at least one mutant", "",
              "| Criterion | Failed by mutants | Failed by controls |", "|---|---|---|"]
    for cid in criteria:
        caught = selftest["caught_by"][cid]
        lines.append(f"| {cid} | {', '.join(caught['mutants']) or '**none: not proven**'} | "
                     f"{', '.join(caught['controls']) or 'none'} |")
    lines += ["", "## Matrix (P passed, F failed, N not judged, S skipped, - not run)", "",
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


def _broken(failed: list[str], not_judged: list[str]) -> str:
    parts = ([f"FAILS {', '.join(failed)}"] if failed else []) + (
        [f"NOT JUDGED {', '.join(not_judged)}"] if not_judged else [])
    return "; ".join(parts)


def render_summary(selftest: dict[str, Any]) -> list[str]:
    """The lines printed after the matrix: what each variant did against what it must do, then
    each criterion no mutant fails."""
    lines = []
    reference = selftest["reference"]
    if reference["failed"] or reference["not_judged"]:
        lines.append("reference: " + _broken(reference["failed"], reference["not_judged"]))
    elif reference["not_passed"]:
        lines.append("reference: not passed: " + ", ".join(reference["not_passed"]))
    for name, info in selftest["shapes"].items():
        lines.append(f"{name}: {_broken(info['failed'], info['not_judged']) or 'passes everything'}")
    for name, info in selftest["mutants"].items():
        lines.append(f"{name}: killed by {', '.join(info['killed_by'])}" if info["killed_by"] else f"{name}: SURVIVES")
    for _, _, key in GROUPS[2:]:
        for name, info in selftest[key].items():
            if info["breaches"]:
                lines.append(f"{name}: BREAKS THE CONTROLS' PROMISE: {'; '.join(info['breaches'])}")
            else:
                lines.append(f"{name}: {_control_cell(info)}")
    for cid in selftest["only_controls"]:
        lines.append(f"{cid}: NOT PROVEN, failed only by {', '.join(selftest['caught_by'][cid]['controls'])}")
    for cid in selftest["uncaught"]:
        lines.append(f"{cid}: NOT PROVEN, failed by nothing")
    return lines


def _run_row(options: RunOptions, started: datetime) -> RunResult:
    """One run of the selftest, silent, started at ``started``; a module's function, so that a
    process of its own can run it (module docstring)."""
    return run_suites(options, progress=None, now=lambda: started)


def run_selftest(*, report_dir: Path | None = None, jobs: int | None = None, suites: Sequence[str] = (),
                 suites_dir: Path | None = None, variants: Sequence[str] | None = None, processes: bool = True,
                 progress: Callable[[str], None] | None = print,
                 now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> SelftestResult:
    """Run the reference and each variant (all by default: shape variants, mutants, controls) in
    process, and each chosen control as a process too (unless ``processes`` is False); write
    ``selftest.json`` and ``selftest.md``, print the matrix; exit code 0 only when every promise of
    the module docstring holds."""
    rows = rows_for(variants, processes=processes)
    started = now()
    suite_paths((suites_dir or suites_directory()).resolve(), suites)  # an unknown suite: refused before any run
    base = (report_dir or Path("reports") / started.strftime("selftest-%Y%m%dT%H%M%SZ")).resolve()
    make_report_dir(base)
    say = progress or (lambda line: None)
    in_process = [row for row in rows if row.kind != "process"]
    as_processes = [row for row in rows if row.kind == "process"]
    say(f"schedharness selftest: {len(rows)} runs ({len(in_process)} in process, {len(as_processes)} as processes), "
        f"report in {base}")

    def submit(executor: Executor, row: Row) -> Future[RunResult]:
        options = RunOptions(scheduler=row.scheduler, suites=tuple(suites), suites_dir=suites_dir,
                             jobs=None if row.kind == "process" else 0, report_dir=base / row.directory,
                             timeline=False)
        future = executor.submit(_run_row, options, started)

        def done(finished: Future[RunResult]) -> None:
            if finished.exception() is None:
                result = finished.result()
                say(f"  {row.name}: {count_text(result.report['summary'])} (exit code {result.exit_code})")

        future.add_done_callback(done)
        return future

    # the process runs first, each in a process of its own: they mostly wait (module docstring)
    with ProcessPoolExecutor(max_workers=max(1, len(as_processes)), mp_context=multiprocessing.get_context("spawn")) \
            as waiting, ThreadPoolExecutor(max_workers=max(1, jobs or os.cpu_count() or 1)) as pool:
        futures = {row.name: submit(waiting, row) for row in as_processes}
        futures.update({row.name: submit(pool, row) for row in in_process})
        results = {row.name: futures[row.name].result() for row in rows}
    reports = {name: {**r.report, "exit_code": r.exit_code, "report_dir": str(r.report_dir.relative_to(base))}
               for name, r in results.items()}
    selftest = build_matrix(reports, {row.name: {"kind": row.kind, "description": row.description,
                                                 "violates": row.violates} for row in rows[1:]})
    (base / "selftest.json").write_text(json.dumps(selftest, indent=2, sort_keys=True) + "\n")
    (base / "selftest.md").write_text(render_markdown(selftest))
    say(render_matrix(selftest))
    for line in render_summary(selftest):
        say(line)
    say(f"schedharness selftest: {'PASSED' if selftest['ok'] else 'FAILED'}; {base / 'selftest.md'}")
    return SelftestResult(base, selftest, 0 if selftest["ok"] else 1)
