"""``schedharness compare``: two runs' verdicts, criterion by criterion.

The same scheduler should get the same verdict on every backend: a criterion that passes on the
fake and fails on ``--backend envtest`` (a real kube-apiserver and etcd), or the other way round,
is either a fidelity bug in the fake or a timing assumption in the criterion. This module reads
two reports (``report.json``, or the directory holding it) and lines their criteria up by ID;
the command prints one line per criterion and exits 1 when any verdict differs, so a CI job can
run the suites on two backends and fail on a difference.

A verdict is the criterion's status: ``passed``, ``failed``, ``not judged`` or ``skipped``. A
not-judged criterion and a skip are verdicts too (a criterion skipped on one backend and judged on the other is a difference worth seeing),
but a criterion present in one report only (a different suite selection) is listed apart and is
no difference.

Each report names the Kubernetes release its API server served (``server_version``: the fake's
release, a real server's ``gitVersion``). Two servers of different releases serve different APIs
(a field added in v1.37 is pruned by v1.36), so a criterion that needs such a field is judged on
one and skipped on the other; the comparison prints both releases and, when they differ, says so
and how to compare like with like (the fake's ``--kubernetes-version``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Comparison", "CompareError", "compare_reports", "format_comparison", "load_report"]


class CompareError(Exception):
    """A report cannot be read; the message names the file and why."""


def load_report(path: Path) -> dict[str, Any]:
    """``report.json`` at ``path``, or in the directory ``path``."""
    file = path / "report.json" if path.is_dir() else path
    try:
        report: dict[str, Any] = json.loads(file.read_text())
    except OSError as e:
        raise CompareError(f"{file}: cannot be read: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise CompareError(f"{file}: not a schedharness report (not JSON: {e})") from None
    if not isinstance(report, dict) or not isinstance(report.get("criteria"), list):
        raise CompareError(f"{file}: not a schedharness report (no criteria list)")
    for index, criterion in enumerate(report["criteria"]):
        if not (isinstance(criterion, dict) and (criterion.get("id") or criterion.get("test"))
                and isinstance(criterion.get("status"), str)):
            raise CompareError(f"{file}: not a schedharness report (criteria[{index}] is no mapping with an id and a "
                               "status)")
    return report


@dataclass(frozen=True)
class Row:
    criterion: str
    left: str | None  # status in the left report, None when absent
    right: str | None
    left_message: str = ""
    right_message: str = ""

    @property
    def same(self) -> bool:
        return self.left == self.right


@dataclass(frozen=True)
class Comparison:
    left_label: str
    right_label: str
    rows: tuple[Row, ...]
    left_server: str = ""  # the release the left report's API server served, "" when unrecorded
    right_server: str = ""

    @property
    def differences(self) -> list[Row]:
        return [r for r in self.rows if r.left is not None and r.right is not None and not r.same]

    @property
    def only_one_side(self) -> list[Row]:
        return [r for r in self.rows if r.left is None or r.right is None]


def _label(report: dict[str, Any], fallback: str) -> str:
    return str(report.get("backend") or fallback)


def _server(report: dict[str, Any]) -> str:
    found = report.get("server_version")
    if isinstance(found, list):
        return ", ".join(str(v) for v in found)
    return str(found or "")


def _minor(server: str) -> str | None:
    """``v1.36.0`` or ``v1.37.0-schedharness`` -> ``1.36``; None when it is no single version."""
    parts = server.removeprefix("v").split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit() else None


def _statuses(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for c in report["criteria"]:
        message = str(c.get("message") or c.get("reason") or "").strip().splitlines()
        out[str(c.get("id") or c.get("test"))] = (str(c.get("status")), message[0][:160] if message else "")
    return out


def compare_reports(left: dict[str, Any], right: dict[str, Any], *, left_label: str | None = None,
                    right_label: str | None = None) -> Comparison:
    """Line two reports' criteria up by ID (sorted)."""
    a, b = _statuses(left), _statuses(right)
    labels = (left_label or _label(left, "left"), right_label or _label(right, "right"))
    if labels[0] == labels[1] and left_label is None and right_label is None:
        labels = (f"{labels[0]} (1)", f"{labels[1]} (2)")
    rows = tuple(Row(cid, a[cid][0] if cid in a else None, b[cid][0] if cid in b else None,
                     a.get(cid, ("", ""))[1], b.get(cid, ("", ""))[1]) for cid in sorted(a.keys() | b.keys()))
    return Comparison(labels[0], labels[1], rows, _server(left), _server(right))


def format_comparison(comparison: Comparison) -> list[str]:
    """One line per criterion, then the differences with their messages, then a summary line."""
    width = max([len(r.criterion) for r in comparison.rows] + [9])
    left, right = comparison.left_label, comparison.right_label
    lw = max([len(left), 7] + [len(r.left or "") for r in comparison.rows])  # at least "skipped"
    rw = max([len(right), 7] + [len(r.right or "") for r in comparison.rows])
    lines = []
    if comparison.left_server or comparison.right_server:
        lines.append(f"API servers: {left} {comparison.left_server or 'unrecorded'}; "
                     f"{right} {comparison.right_server or 'unrecorded'}")
        a, b = _minor(comparison.left_server), _minor(comparison.right_server)
        if a is not None and b is not None and a != b:
            older = min(a, b, key=lambda m: tuple(map(int, m.split("."))))
            lines.append(f"note: the two API servers serve different Kubernetes releases ({a} and {b}): a criterion "
                         "that needs a field one of them lacks is judged on one side only; run the fake with "
                         f"--kubernetes-version {older} to compare like with like")
    lines.append(f"{'criterion':<{width}}  {left:<{lw}}  {right:<{rw}}".rstrip())
    for row in comparison.rows:
        mark = "" if row.same or row.left is None or row.right is None else "  DIFFERENT"
        lines.append(f"{row.criterion:<{width}}  {row.left or '-':<{lw}}  {row.right or '-':<{rw}}{mark}".rstrip())
    for row in comparison.differences:
        lines.append(f"{row.criterion}: {left} {row.left}"
                     f"{': ' + row.left_message if row.left_message else ''}; {right} {row.right}"
                     f"{': ' + row.right_message if row.right_message else ''}")
    both = len(comparison.rows) - len(comparison.only_one_side)
    different = len(comparison.differences)
    summary = f"{both} criteria in both: {both - different} same verdict, {different} different"
    if comparison.only_one_side:
        summary += f"; {len(comparison.only_one_side)} in one report only"
    lines.append(summary)
    return lines
