"""A verdict digest: one column of ``docs/compatibility.md`` on one backend, small enough to commit.

A run's ``report.json`` holds everything: journals, timings, replay commands, the paths of the
machine it ran on. It is too large and too local to commit, so the compatibility table used to be
the only record of its runs, and a reader could check none of its cells. A digest keeps what a cell
needs and what makes it reproducible, and nothing that depends on the machine or the hour:

* the column (its key, its title with the scheduler's version, its note) and the backend;
* the date of the run, the suites' version (``suites.SUITE_VERSION``, as the report states it),
  the version of the harness that judged it (the fake API server is part of it) and, for a run on
  real time, its ``--real-time-wait`` (the longest watch for something that must not happen; a
  criterion that needs a longer one is not judged);
* the scheduler: its name, version, build (for kube-scheduler, what ``schedharness k8s build``
  recorded in ``build.json``: the ``k8s.io/kubernetes`` module, the staging modules' version,
  etcd's, Go's), the command it ran with, and its feature gates (a fixed set, ``{}`` being the
  release's defaults, or :data:`EACH_SCENARIO`: each scenario's own, as the criterion catalog of
  that suites version lists them);
* the API server: the release it served, the version it reported, the feature gates it was
  started with, and its build on envtest;
* per criterion, its status (:data:`harness._runs.report.STATUSES`), unless it passed the first line
  of its message (what a failure expected, why it was not judged, why it was skipped), and the
  watches the wait cut short, if any (a pass judged on a shorter watch than the criterion names).

The table is rendered from the digests alone (:func:`harness._runs.compatibility.format_table`), and a
test renders the committed ones and compares them with the committed table, so a cell can be traced
to its digest and a digest to the command that makes it again. Two runs that reach the same
verdicts on the same day write the same file; a diff of two digests is a diff of verdicts.

``summary`` is written for the reader and checked on reading (:func:`harness._runs.report.counts_of`
of the verdicts), so that a digest edited by hand cannot say one thing in its counts and another
in its criteria.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._runs.report import STATUSES, counts_of, criterion_status

__all__ = ["EACH_SCENARIO", "FORMAT", "Digest", "DigestError", "Verdict", "first_line", "read_digests",
           "verdicts_of", "write_digest"]

#: The digest's own format; a reader refuses any other.
FORMAT = 1
#: A scheduler's feature gates when it takes each scenario's own (the reference scheduler, or
#: kube-scheduler with ``--feature-gates={feature_gates}``).
EACH_SCENARIO = "each scenario's"
# the exception's class is the harness's, not the criterion's words
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Failed|Exception): ")
_KEYS = ("format", "column", "backend", "date", "suite_version", "harness", "real_time_wait", "scheduler",
         "apiserver", "summary", "criteria")


class DigestError(ValueError):
    """A digest file that cannot be read: not JSON, another format, a missing key, a status that is
    none of :data:`harness._runs.report.STATUSES`, or counts that disagree with its verdicts."""


@dataclass(frozen=True)
class Verdict:
    """One criterion's verdict; ``message`` is empty when it passed, ``waits`` when no watch was cut."""

    status: str
    message: str = ""
    waits: str = ""


@dataclass(frozen=True)
class Digest:
    column: str
    title: str
    note: str
    backend: str
    date: str
    suite_version: str
    harness: str
    scheduler: Mapping[str, Any]
    apiserver: Mapping[str, Any]
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)
    real_time_wait: float | None = None  # None: the run was on virtual time

    @property
    def file_name(self) -> str:
        return f"{self.column}-{self.backend}.json"

    @property
    def summary(self) -> dict[str, int]:
        return counts_of({"status": v.status} for v in self.verdicts.values())

    def to_json(self) -> str:
        """The file's text: keys in a fixed order, the summary on one line, then one line per
        criterion, sorted (a changed verdict is a one-line diff)."""
        head = {
            "format": FORMAT,
            "column": {"key": self.column, "title": self.title, "note": self.note},
            "backend": self.backend,
            "date": self.date,
            "suite_version": self.suite_version,
            "harness": self.harness,
            "real_time_wait": self.real_time_wait,
            "scheduler": dict(self.scheduler),
            "apiserver": dict(self.apiserver),
        }
        lines = [f"  {_dump(key)}: {json.dumps(value, indent=2, ensure_ascii=False)}".replace("\n", "\n  ")
                 for key, value in head.items()]
        lines.append(f'  "summary": {_dump(self.summary)}')
        criteria = [f"    {_dump(cid)}: {_dump(_entry(v))}" for cid, v in sorted(self.verdicts.items())]
        lines.append('  "criteria": {\n' + ",\n".join(criteria) + "\n  }" if criteria else '  "criteria": {}')
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @classmethod
    def from_json(cls, text: str, source: str = "digest") -> Digest:
        try:
            data = json.loads(text)
        except ValueError as e:
            raise DigestError(f"{source}: not JSON: {e}") from None
        if not isinstance(data, dict):
            raise DigestError(f"{source}: not a JSON object")
        missing = [key for key in _KEYS if key not in data]
        if missing:
            raise DigestError(f"{source}: no {', '.join(missing)}")
        if data["format"] != FORMAT:
            raise DigestError(f"{source}: format {data['format']!r}; this harness reads format {FORMAT}")
        verdicts: dict[str, Verdict] = {}
        for cid, entry in dict(data["criteria"]).items():
            status = entry.get("status") if isinstance(entry, dict) else None
            if status not in STATUSES:
                raise DigestError(f"{source}: criterion {cid}: status {status!r}, not one of {', '.join(STATUSES)}")
            verdicts[cid] = Verdict(status, str(entry.get("message") or ""), str(entry.get("waits") or ""))
        column = data["column"]
        digest = cls(column=str(column["key"]), title=str(column["title"]), note=str(column.get("note") or ""),
                     backend=str(data["backend"]), date=str(data["date"]), suite_version=str(data["suite_version"]),
                     harness=str(data["harness"]), scheduler=dict(data["scheduler"]),
                     apiserver=dict(data["apiserver"]), verdicts=verdicts, real_time_wait=data["real_time_wait"])
        if data["summary"] != digest.summary:
            raise DigestError(f"{source}: summary {json.dumps(data['summary'])} but the criteria count "
                              f"{json.dumps(digest.summary)}")
        return digest


def _entry(verdict: Verdict) -> dict[str, str]:
    entry = {"status": verdict.status}
    if verdict.message:
        entry["message"] = verdict.message
    if verdict.waits:
        entry["waits"] = verdict.waits
    return entry


def _dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def first_line(message: object) -> str:
    """A message's first line, without the harness's exception class (``ExpectationFailed: ``)."""
    lines = str(message or "").strip().splitlines()
    return _EXCEPTION.sub("", lines[0]) if lines else ""


def verdicts_of(criteria: Iterable[Mapping[str, Any]]) -> dict[str, Verdict]:
    """One verdict per criterion from a report's ``criteria`` (one entry per scenario): its
    status by :func:`harness._runs.report.criterion_status`, its message the first line of the first
    scenario that gave that status, and that scenario's cut watches."""
    by_id: dict[str, list[Mapping[str, Any]]] = {}
    for record in criteria:
        if record.get("id"):
            by_id.setdefault(str(record["id"]), []).append(record)
    verdicts = {}
    for cid, records in by_id.items():
        status = criterion_status(str(r.get("status")) for r in records)
        chosen = next(r for r in records if r.get("status") == status)
        verdicts[cid] = Verdict(status, "" if status == "passed" else
                                first_line(chosen.get("message") or chosen.get("reason")), str(chosen.get("waits") or ""))
    return verdicts


def write_digest(directory: Path, digest: Digest) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / digest.file_name
    path.write_text(digest.to_json())
    return path


def read_digests(directory: Path) -> list[Digest]:
    """Every ``*.json`` digest in ``directory``, by file name; :class:`DigestError` names the file
    that cannot be read, or one whose name is not its column and backend."""
    digests = []
    for path in sorted(directory.glob("*.json")):
        digest = Digest.from_json(path.read_text(), str(path))
        if digest.file_name != path.name:
            raise DigestError(f"{path}: holds column {digest.column} on {digest.backend}, "
                              f"which belongs in {digest.file_name}")
        digests.append(digest)
    return digests
