"""``schedharness compatibility``: the criteria against the reference scheduler and real
kube-scheduler releases, on the fake and on envtest, as one table (``docs/compatibility.md``).

A KEP that cites the suites needs to know two things of every criterion: whether the release that
implements the feature passes it, and whether the fake judges it as a real kube-apiserver does.
This module answers both with one matrix of runs. A *column* is a scheduler with its feature
gates and the Kubernetes release of its API server; each column runs on two backends, the fake
serving that release (``--kubernetes-version``) and envtest (a real etcd and kube-apiserver of that
release, built by :mod:`harness._k8sbuild`). A cell holds both verdicts; where they differ the
table says so, since that is a fidelity bug in the fake or a timing assumption in a criterion.

The API server's gates are given explicitly to both backends of a column, never left to the
fake's default (which follows the scenario's scheduler gates): a real cluster's kube-apiserver
has one set of gates for the whole run, and the two backends must be asked the same question.

Each run's report is kept in ``<reports>/<column>-<backend>/``; ``reuse`` takes a report found
there instead of running again, so the table can be rewritten after a change to one column.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._k8sbuild import build
from harness._run import RunOptions, run_suites

__all__ = ["BACKENDS", "COLUMNS", "Column", "agreement", "format_table", "format_summary", "run_matrix"]

BACKENDS = ("fake", "envtest")
#: kube-scheduler as a process: the harness writes its configuration; no serving port
KUBE_SCHEDULER = "{binary} --config={{config}} --secure-port=0 -v=2"
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Failed|Exception): ")


@dataclass(frozen=True)
class Column:
    """One scheduler configuration. ``k8s`` is the release whose kube-scheduler runs (None: the
    reference scheduler) and whose API server both backends serve (``release``)."""

    key: str
    title: str
    release: str
    k8s: str | None = None
    scheduler_gates: str = ""  # "{feature_gates}": each scenario's own gates (KEP-5836's suite has only real ones)
    apiserver_gates: str = ""
    suites: tuple[str, ...] = ()
    note: str = ""

    def scheduler(self, assets: Path | None) -> str:
        if self.k8s is None:
            return "reference"
        command = KUBE_SCHEDULER.format(binary=assets / "kube-scheduler" if assets else "kube-scheduler")
        return command + (f" --feature-gates={self.scheduler_gates}" if self.scheduler_gates else "")


COLUMNS = (
    Column("reference", "reference scheduler", "1.37", apiserver_gates="InPlacePodVerticalScalingSchedulerPreemption=true",
           note="its defaults, each scenario's gates (KEP-5501 and KEP-5836 on); API server: the KEP-5836 gate on"),
    Column("v1.35", "kube-scheduler v1.35", "1.35", k8s="1.35", note="default gates; API server v1.35, default gates"),
    Column("v1.37", "kube-scheduler v1.37", "1.37", k8s="1.37", note="default gates (KEP-5836 is alpha: off); API "
           "server v1.37, default gates"),
    Column("v1.37-kep5836", "kube-scheduler v1.37, KEP-5836 on", "1.37", k8s="1.37", scheduler_gates="{feature_gates}",
           apiserver_gates="InPlacePodVerticalScalingSchedulerPreemption=true", suites=("kep5836_resize_preemption",),
           note="the KEP-5836 suite only, each scenario's gates (both KEP-5836 gates on, off for kep5836.gate-off); "
                "API server: the KEP-5836 gate on"),
)


@dataclass
class Cell:
    status: str | None  # passed, failed, skipped; None: not run
    message: str = ""


@dataclass
class Matrix:
    columns: tuple[Column, ...]
    reports: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)  # column key -> kube-scheduler version

    def cell(self, column: str, backend: str, criterion: str) -> Cell:
        report = self.reports.get((column, backend))
        if report is None:
            return Cell(None)
        for record in report["criteria"]:
            if record.get("id") == criterion:
                lines = str(record.get("message") or record.get("reason") or "").strip().splitlines()
                # the exception's class is the harness's, not the criterion's words
                return Cell(str(record.get("status")), _EXCEPTION.sub("", lines[0]) if lines else "")
        return Cell(None)

    def criteria(self) -> list[str]:
        found = {str(r.get("id")) for report in self.reports.values() for r in report["criteria"] if r.get("id")}
        return sorted(found)


def run_matrix(columns: Sequence[Column], reports_dir: Path, *, reuse: bool = False,
               backends: Sequence[str] = BACKENDS, assets: Callable[[str], Path] | None = None,
               progress: Callable[[str], None] = print) -> Matrix:
    """Run every column on every backend (or take the report already in ``reports_dir`` when
    ``reuse``). ``assets`` gives the directory of a release's binaries (default: a
    ``schedharness k8s build`` of it)."""
    if assets is None:
        def assets(release: str) -> Path:
            return build(release, progress=progress).directory

    matrix = Matrix(tuple(columns))
    for column in columns:
        binaries = assets(column.release) if (column.k8s or "envtest" in backends) else None
        if column.k8s and binaries is not None:
            matrix.versions[column.key] = _version(binaries)
        for backend in backends:
            where = reports_dir / f"{column.key}-{backend}"
            if reuse and (where / "report.json").is_file():
                progress(f"compatibility: {column.key} on {backend}: the report in {where}")
                matrix.reports[(column.key, backend)] = json.loads((where / "report.json").read_text())
                continue
            progress(f"compatibility: {column.key} on {backend}: running ({column.title})")
            started = time.monotonic()
            options = RunOptions(scheduler=column.scheduler(binaries), suites=column.suites, report_dir=where,
                                 timeline=False, backend=backend, apiserver_feature_gates=column.apiserver_gates,
                                 kubernetes_version=column.release if backend == "fake" else None,
                                 envtest_assets=binaries if backend == "envtest" else None)
            result = run_suites(options, progress=None)
            summary = result.report.get("summary") or {}
            progress(f"compatibility: {column.key} on {backend}: {summary.get('passed', 0)} passed, "
                     f"{summary.get('failed', 0)} failed, {summary.get('skipped', 0)} skipped in "
                     f"{time.monotonic() - started:.0f} s")
            matrix.reports[(column.key, backend)] = result.report
    return matrix


def _version(assets: Path) -> str:
    try:
        manifest = json.loads((assets / "build.json").read_text())
    except (OSError, ValueError):
        return ""
    return str(manifest.get("version") or "")


_MARK = {"passed": "pass", "failed": "FAIL", "skipped": "skip", None: "·"}


def _title(matrix: Matrix, column: Column) -> str:
    version = matrix.versions.get(column.key)
    return column.title.replace(f"v{column.k8s}", version) if version and column.k8s else column.title


def _counts(matrix: Matrix, column: Column, backend: str) -> str:
    report = matrix.reports.get((column.key, backend))
    if report is None:
        return "not run"
    s = report.get("summary") or {}
    return f"{s.get('passed', 0)} pass, {s.get('failed', 0)} fail, {s.get('skipped', 0)} skip"


def agreement(matrix: Matrix, column: Column) -> tuple[int, int]:
    """(criteria with the same verdict on both backends, criteria judged on both)."""
    both = same = 0
    for criterion in matrix.criteria():
        a, b = (matrix.cell(column.key, backend, criterion).status for backend in BACKENDS)
        if a is not None and b is not None:
            both += 1
            same += a == b
    return same, both


def format_summary(matrix: Matrix) -> list[str]:
    """The table README shows: per column, the counts on each backend and how many verdicts agree."""
    lines = ["| scheduler | on the fake | on envtest | verdicts agree |", "|---|---|---|---|"]
    for column in matrix.columns:
        same, both = agreement(matrix, column)
        lines.append(f"| {_title(matrix, column)} | {_counts(matrix, column, 'fake')} | "
                     f"{_counts(matrix, column, 'envtest')} | {same} of {both} |")
    return lines


def format_table(matrix: Matrix, *, suite_version: str, generated: str,
                 commands: Mapping[str, str] | None = None) -> str:
    """``docs/compatibility.md``."""
    cols = matrix.columns
    out = [
        "# Compatibility: the criteria against real kube-scheduler releases",
        "",
        f"Written by `schedharness compatibility` on {generated} (suites {suite_version}). Each cell holds two "
        "verdicts: on the fake API server serving the column's release, then on envtest (a real etcd and "
        "kube-apiserver of that release, built from its Go modules by `schedharness k8s build`). `pass`, `FAIL`, "
        "`skip` (not judged: the reason is in the report), `·` not run. A cell whose two verdicts differ is "
        "marked **differs**.",
        "",
        *format_summary(matrix),
        "",
        "Columns:",
        "",
    ]
    out += [f"- **{_title(matrix, c)}**: {c.note}." for c in cols]
    out += ["", "## Per criterion", "",
            "| criterion | " + " | ".join(_title(matrix, c) for c in cols) + " |",
            "|---|" + "---|" * len(cols)]
    for criterion in matrix.criteria():
        cells = []
        for column in cols:
            a, b = (matrix.cell(column.key, backend, criterion) for backend in BACKENDS)
            if a.status is None and b.status is None:
                cells.append("")
                continue
            text = f"{_MARK[a.status]} / {_MARK[b.status]}"
            cells.append(text + (" **differs**" if a.status and b.status and a.status != b.status else ""))
        out.append(f"| `{criterion}` | " + " | ".join(cells) + " |")
    failures = [(column, criterion, backend, matrix.cell(column.key, backend, criterion).message)
                for column in cols for criterion in matrix.criteria() for backend in BACKENDS
                if matrix.cell(column.key, backend, criterion).status == "failed"]
    if failures:
        out += ["", "## What each failure said", "",
                "The first line of each failed criterion's message (the report has the whole message, "
                "the journal and the replay command).", ""]
        for column, criterion, backend, message in failures:
            out.append(f"- {_title(matrix, column)}, `{criterion}`, {backend}: {message or '(no message)'}")
    if commands:
        out += ["", "## How", "", "```bash", *commands.values(), "```"]
    return "\n".join(out) + "\n"
