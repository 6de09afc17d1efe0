"""``schedharness compatibility``: the criteria against the reference scheduler and real
kube-scheduler releases, on the fake and on envtest, as one table (``docs/compatibility.md``)
generated from committed verdict digests (``docs/compatibility/<column>-<backend>.json``).

A KEP that cites the suites needs to know two things of every criterion: whether the release that
implements the feature passes it, and whether the fake judges it as a real kube-apiserver does.
This module answers both with one matrix of runs. A *column* is a scheduler with its feature
gates and the Kubernetes release of its API server; each column runs on two backends, the fake
serving that release (``--kubernetes-version``) and envtest (a real etcd and kube-apiserver of that
release, built by :mod:`harness._backends.k8sbuild`). A cell holds both verdicts; where they differ the
table says so, since that is a fidelity bug in the fake or a timing assumption in a criterion.

The API server's gates are given explicitly to both backends of a column, never left to the
fake's default (which follows the scenario's scheduler gates): a real cluster's kube-apiserver
has one set of gates for the whole run, and the two backends must be asked the same question.

Each run's report is kept in ``<reports>/<column>-<backend>/``; ``reuse`` takes a report found
there instead of running again. Each run also leaves its verdict digest
(:mod:`harness._runs.verdict_digest`), written as soon as the run ends, and the table is rendered from
the digests alone, every column found there: a run of one column rewrites its two digests and the
table keeps the others. The table depends on nothing but the digests, so a test can render the
committed digests and compare the result with the committed table.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._backends.k8sbuild import MANIFEST, build
from harness._backends.k8spatch import build_patched
from harness._runs.report import count_text, counts_of
from harness._runs.run import RunOptions, run_suites
from harness._runs.verdict_digest import EACH_SCENARIO, Digest, Verdict, verdicts_of, write_digest
from harness._scenario.scenario import DEFAULT_REAL_TIME_WAIT
from harness._schedulers.adapters import parse_feature_gates

__all__ = ["BACKENDS", "COLUMNS", "HOW", "REAL_TIME_WAIT", "Column", "agreement", "digest_of", "format_summary",
           "format_table", "run_matrix", "wait_of"]

BACKENDS = ("fake", "envtest")
#: kube-scheduler as a process: the harness writes its configuration; no serving port
KUBE_SCHEDULER = "{binary} --config={{config}} --secure-port=0 -v=2"
#: ``--real-time-wait`` of the runs on real time: the longest watch a criterion names (310 s,
#: kube-scheduler's 5-minute flush of unschedulable pods and its margin), so that no criterion is
#: left not judged for a wait cut short; each such watch costs its whole span once per run.
REAL_TIME_WAIT = 310.0
#: The commands the table names at its end.
HOW = ("schedharness compatibility                  # run every column: the digests, then this page",
       "schedharness compatibility --from-digests   # this page again from the digests, running nothing")
_WAIT = re.compile(r"--real-time-wait=([0-9.]+)")
#: What a digest keeps of a build's ``build.json`` (its time and duration are the machine's).
_BUILD_KEYS = ("source", "commit", "staging_version", "etcd_version", "go", "digest")
#: Where a column's patches are found: the repository this package is part of.
REPOSITORY = Path(__file__).resolve().parents[2]
#: The KEP-5501 suites, which the prototype column runs.
KEP5501_SUITES = ("scheduling_gates", "kep5501_core", "message_flip", "dra_claim_lag", "foreign_conditions",
                  "patch_failure")


@dataclass(frozen=True)
class Column:
    """One scheduler configuration. ``k8s`` is the release whose kube-scheduler runs (None: the
    reference scheduler) and whose API server both backends serve (``release``); ``patches``
    (paths in the repository) are applied to that release before it is built (``schedharness k8s
    build --patch``), and envtest then runs the patched build's kube-apiserver too."""

    key: str
    title: str
    release: str
    k8s: str | None = None
    scheduler_gates: str = ""  # "{feature_gates}": each scenario's own gates (KEP-5836's suite has only real ones)
    apiserver_gates: str = ""
    #: the API server's ``--runtime-config`` (a beta or alpha API the column's suites need)
    runtime_config: str = ""
    suites: tuple[str, ...] = ()
    note: str = ""
    patches: tuple[str, ...] = ()
    #: the exact release the patches are cut for (default ``release``'s newest patch)
    build: str | None = None

    @property
    def each_scenario_gates(self) -> bool:
        """Whether the scheduler takes each scenario's gates (the reference scheduler always does)."""
        return self.k8s is None or "{feature_gates}" in self.scheduler_gates

    def real_time(self, backend: str) -> bool:
        """Whether a run of this column on ``backend`` is on real time (a scheduler process, or a
        real API server); only the reference scheduler on the fake runs on virtual time."""
        return self.k8s is not None or backend != "fake"

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
    Column("v1.37-kep5501", "kube-scheduler v1.37 + KEP-5501 prototype", "1.37", k8s="1.37", build="1.37.2",
           scheduler_gates="{feature_gates}", suites=KEP5501_SUITES, patches=("prototypes/kep5501",),
           note="the KEP-5501 suites, each scenario's gates (SchedulerPreEnqueuePodStatus and SchedulerAsyncAPICalls "
                "on, the first off for the criteria of the gate off); API server: default gates; built with "
                "prototypes/kep5501 applied (docs/kep5501-prototype.md)"),
    Column("v1.37-kep5501-off", "kube-scheduler v1.37 + KEP-5501 prototype, gate off", "1.37", k8s="1.37", build="1.37.2",
           patches=("prototypes/kep5501",),
           note="default gates (SchedulerPreEnqueuePodStatus is alpha: off), every suite: the prototype must judge as "
                "v1.37 does; API server v1.37, default gates; built with prototypes/kep5501 applied"),
    Column("v1.37-gang", "kube-scheduler v1.37, GenericWorkload on", "1.37", k8s="1.37", scheduler_gates="{feature_gates}",
           apiserver_gates="GenericWorkload=true", runtime_config="scheduling.k8s.io/v1beta1=true",
           suites=("workload_gang",),
           note="the gang suite only, each scenario's gates (GenericWorkload on; with KEP-5501's too in two criteria, "
                "which v1.37 does not have); API server: GenericWorkload on, --runtime-config "
                "scheduling.k8s.io/v1beta1=true"),
)


def run_matrix(columns: Sequence[Column], reports_dir: Path, *, digests_dir: Path | None = None,
               reuse: bool = False, backends: Sequence[str] = BACKENDS,
               assets: Callable[[Column], Path] | None = None, real_time_wait: float = REAL_TIME_WAIT,
               progress: Callable[[str], None] = print) -> list[Digest]:
    """Run every column on every backend (or take the report already in ``reports_dir`` when
    ``reuse``) and return each run's digest, written into ``digests_dir`` (when given) as soon as
    the run ends. ``assets`` gives the directory of a column's binaries (default: a ``schedharness
    k8s build`` of its release, with its patches); ``real_time_wait`` is ``--real-time-wait`` of
    the runs on real time."""
    if assets is None:
        def assets(column: Column) -> Path:
            if column.patches:
                patches = [REPOSITORY / p for p in column.patches]
                return build_patched(column.build or column.release, patches, progress=progress).directory
            return build(column.build or column.release, progress=progress).directory

    harness = harness_version()
    digests = []
    for column in columns:
        binaries = assets(column) if (column.k8s or "envtest" in backends) else None
        manifest = read_manifest(binaries) if binaries is not None else {}
        for backend in backends:
            where = reports_dir / f"{column.key}-{backend}"
            if reuse and (where / "report.json").is_file():
                progress(f"compatibility: {column.key} on {backend}: the report in {where}")
                report = json.loads((where / "report.json").read_text())
            else:
                progress(f"compatibility: {column.key} on {backend}: running ({column.title})")
                started = time.monotonic()
                options = RunOptions(scheduler=column.scheduler(binaries), suites=column.suites, report_dir=where,
                                     timeline=False, backend=backend, apiserver_feature_gates=column.apiserver_gates,
                                     runtime_config=(column.runtime_config,) if column.runtime_config else (),
                                     kubernetes_version=column.release if backend == "fake" else None,
                                     envtest_assets=binaries if backend == "envtest" else None,
                                     real_time_wait=real_time_wait if column.real_time(backend) else None)
                report = run_suites(options, progress=None).report
                progress(f"compatibility: {column.key} on {backend}: "
                         f"{count_text(verdicts_count(report))} in {time.monotonic() - started:.0f} s")
            digest = digest_of(column, backend, report, manifest, harness, wait_of(report, column.real_time(backend)))
            if digests_dir is not None:
                write_digest(digests_dir, digest)
            digests.append(digest)
    return digests


def verdicts_count(report: Mapping[str, Any]) -> dict[str, int]:
    """A report's counts per criterion (its own summary counts scenarios)."""
    return counts_of({"status": v.status} for v in verdicts_of(report.get("criteria") or []).values())


def wait_of(report: Mapping[str, Any], real_time: bool) -> float | None:
    """The ``--real-time-wait`` a run on real time had, as its report's command says (a report
    taken again by ``reuse`` may come from another invocation); None on virtual time."""
    if not real_time:
        return None
    given = _WAIT.search(str(report.get("command") or ""))
    return float(given.group(1)) if given else DEFAULT_REAL_TIME_WAIT


def harness_version() -> str:
    """This project's version as installed (the reference scheduler's and the fake's)."""
    try:
        return importlib.metadata.version("schedharness")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def read_manifest(assets: Path) -> dict[str, Any]:
    """A build's ``build.json`` ({} where there is none: binaries not made by ``schedharness k8s build``)."""
    try:
        manifest = json.loads((assets / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def digest_of(column: Column, backend: str, report: Mapping[str, Any], manifest: Mapping[str, Any],
              harness: str, real_time_wait: float | None = None) -> Digest:
    """The digest of one column's run on one backend: its report, and the ``build.json`` of the
    release's binaries (kube-scheduler's for a kube-scheduler column, kube-apiserver's on envtest)."""
    version = str(manifest.get("version") or "")
    built = {key: manifest[key] for key in _BUILD_KEYS if manifest.get(key)}
    if column.patches:
        built["patches"] = list(column.patches)
    release = version.split("+", 1)[0]  # a patched build's version names its patches after a "+"
    title = column.title.replace(f"v{column.k8s}", release) if release and column.k8s else column.title
    gates: object = EACH_SCENARIO if column.each_scenario_gates else _sorted(parse_feature_gates(column.scheduler_gates))
    if column.k8s is None:
        scheduler: dict[str, Any] = {"name": "reference scheduler", "version": harness}
    else:
        scheduler = {"name": "kube-scheduler", "version": version or f"v{column.k8s}", "build": built}
    scheduler.update(command=column.scheduler(None), feature_gates=gates)
    served = report.get("apiserver_feature_gates")
    apiserver: dict[str, Any] = {"release": column.release, "version": report.get("server_version"),
                                 "feature_gates": _sorted(served) if isinstance(served, dict) else served}
    if column.runtime_config:
        apiserver["runtime_config"] = column.runtime_config
    if backend == "envtest":
        apiserver["build"] = {"version": version, **built}
    return Digest(column=column.key, title=title, note=column.note, backend=backend,
                  date=str(report.get("started") or "")[:10], suite_version=str(report.get("suite_version") or ""),
                  harness=harness, scheduler=scheduler, apiserver=apiserver,
                  verdicts=verdicts_of(report.get("criteria") or []), real_time_wait=real_time_wait)


def _sorted(gates: Mapping[str, Any]) -> dict[str, Any]:
    return {name: gates[name] for name in sorted(gates)}


# ------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class _Table:
    """The digests by column and backend, the columns in :data:`COLUMNS`' order (a column no
    longer there after them, by key)."""

    digests: Mapping[tuple[str, str], Digest]
    columns: tuple[str, ...]

    @classmethod
    def of(cls, digests: Sequence[Digest]) -> _Table:
        found = {(d.column, d.backend): d for d in digests}
        known = [c.key for c in COLUMNS]
        keys = {d.column for d in digests}
        return cls(found, tuple([k for k in known if k in keys] + sorted(keys - set(known))))

    def of_column(self, key: str) -> list[Digest]:
        return [self.digests[(key, b)] for b in BACKENDS if (key, b) in self.digests]

    def title(self, key: str) -> str:
        return self.of_column(key)[0].title

    def verdict(self, key: str, backend: str, criterion: str) -> Verdict | None:
        digest = self.digests.get((key, backend))
        return digest.verdicts.get(criterion) if digest is not None else None

    def criteria(self) -> list[str]:
        return sorted({cid for d in self.digests.values() for cid in d.verdicts})


_MARK = {"passed": "pass", "failed": "FAIL", "not judged": "not judged", "skipped": "skip", None: "·"}
_MESSAGES = (
    ("failed", "What each failure said",
     "The first line of each failed criterion's message (the run's report has the whole message, the journal and "
     "the replay command)."),
    ("not judged", "Why each criterion not judged was not judged",
     "The first line of its message: what the scheduler had to do, and what was seen instead."),
    ("skipped", "Why each skipped criterion was skipped",
     "The declared reason, which does not depend on the scheduler: the run's gates, the API server's release, the "
     "backend's capabilities, an absent tool."),
)


def agreement(digests: Sequence[Digest], key: str) -> tuple[int, int]:
    """(criteria of column ``key`` with the same verdict on both backends, criteria judged on both)."""
    table = _Table.of(digests)
    both = same = 0
    for criterion in table.criteria():
        a, b = (table.verdict(key, backend, criterion) for backend in BACKENDS)
        if a is not None and b is not None:
            both += 1
            same += a.status == b.status
    return same, both


def format_summary(digests: Sequence[Digest]) -> list[str]:
    """The table README shows: per column, the counts on each backend and how many verdicts agree."""
    table = _Table.of(digests)
    lines = ["| scheduler | on the fake | on envtest | verdicts agree |", "|---|---|---|---|"]
    for key in table.columns:
        counts = [count_text(d.summary) if (d := table.digests.get((key, b))) else "not run" for b in BACKENDS]
        same, both = agreement(digests, key)
        lines.append(f"| {table.title(key)} | {' | '.join(counts)} | {same} of {both} |")
    return lines


def _provenance(table: _Table, key: str) -> str:
    digests = table.of_column(key)
    runs = {(d.date, d.suite_version, d.harness) for d in digests}
    if len(runs) == 1:
        date, suites, harness = runs.pop()
        text = f"Run on {date} at suites {suites} (schedharness {harness})"
    else:
        text = "Run " + ", ".join(f"on {d.backend} on {d.date} at suites {d.suite_version} (schedharness {d.harness})"
                                  for d in digests)
    waits = {d.backend: d.real_time_wait for d in digests if d.real_time_wait is not None}
    if waits:
        where = "" if len(waits) == len(digests) else " on " + ", ".join(waits)
        text += "; real-time watches up to " + ", ".join(sorted({f"{w:g} s" for w in waits.values()})) + where
    scheduler = digests[0].scheduler
    build = scheduler.get("build") or next((d.apiserver.get("build") for d in digests if d.apiserver.get("build")), None)
    if build and build.get("source"):
        parts = [f"staging modules {build['staging_version']}" if build.get("staging_version") else "",
                 f"etcd {build['etcd_version']}" if build.get("etcd_version") else "",
                 str(build.get("go") or ""), f"commit {build['commit']}" if build.get("commit") else ""]
        details = ", ".join(p for p in parts if p)
        what = ("kube-scheduler, and envtest's kube-apiserver and etcd," if scheduler.get("build")
                else "envtest's kube-apiserver and etcd")
        text += f"; {what} built from {build['source']}" + (f" ({details})" if details else "")
    return text


def format_table(digests: Sequence[Digest], *, digests_at: str = "compatibility") -> str:
    """``docs/compatibility.md``, from the digests alone; ``digests_at`` is their directory as the
    page links it (relative to the page)."""
    table = _Table.of(digests)
    cols = table.columns
    link = digests_at.rstrip("/") + "/"
    out = [
        "# Compatibility: the criteria against real kube-scheduler releases",
        "",
        f"Generated by `schedharness compatibility` from the verdict digests in [`{link}`]({link}), one per column "
        "and backend (`<column>-<backend>.json`): the scheduler's version, build and feature gates, the API server's "
        "release, version and feature gates, the suites' version, and each criterion's verdict with the first line "
        "of its message. `tests/harness/_runs/test_compatibility.py` renders the digests again and checks that this page is what "
        "they say. Each cell holds two verdicts: on the fake API server serving the column's release, then on "
        "envtest (a real etcd and kube-apiserver of that release, built from its Go modules by `schedharness k8s "
        "build`). `pass`, `FAIL`, `not judged` (the scheduler left nothing to judge: that fails a run), `skip` (a "
        "declared reason that does not depend on the scheduler), `·` not run; what each said is below the table. A "
        "cell whose two verdicts differ is marked **differs**.",
        "",
        *format_summary(digests),
        "",
        "Columns:",
        "",
    ]
    for key in cols:
        note = table.of_column(key)[0].note
        out.append(f"- **{table.title(key)}**: {note + '. ' if note else ''}{_provenance(table, key)}.")
    out += ["", "## Per criterion", "",
            "| criterion | " + " | ".join(table.title(key) for key in cols) + " |",
            "|---|" + "---|" * len(cols)]
    for criterion in table.criteria():
        cells = []
        for key in cols:
            a, b = (table.verdict(key, backend, criterion) for backend in BACKENDS)
            if a is None and b is None:
                cells.append("")
                continue
            text = f"{_MARK[a.status if a else None]} / {_MARK[b.status if b else None]}"
            cells.append(text + (" **differs**" if a and b and a.status != b.status else ""))
        out.append(f"| `{criterion}` | " + " | ".join(cells) + " |")
    for status, heading, intro in _MESSAGES:
        said = [f"- {table.title(key)}, `{criterion}`, {backend}: {verdict.message or '(no message)'}"
                for key in cols for criterion in table.criteria() for backend in BACKENDS
                if (verdict := table.verdict(key, backend, criterion)) is not None and verdict.status == status]
        if said:
            out += ["", f"## {heading}", "", intro, "", *said]
    out += ["", "## How", "", "```bash", *HOW, "```"]
    return "\n".join(out) + "\n"
