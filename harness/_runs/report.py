"""The run's report: ``report.json``, ``report.md`` and ``report.html`` from ``results.jsonl``.

The pytest plugin writes one record per scenario (``results.jsonl``); this module turns them into
what a KEP reviewer reads: one table per feature-gate setting the criteria need (criteria met,
failed, skipped, with their KEP sections and, where the KEP leaves a choice, the reading checked
next to the verdict), then each failure with its message, its seed and the command that replays
it, and each scenario's journal and timeline.

Verdict policy, stated in every report. A criterion is **passed**, **failed**, **not judged**
or **skipped**:

* *skipped* only for a declared reason that does not depend on the scheduler's behaviour: the
  run's feature gates turn it off, the API server's release lacks the field, the backend lacks a
  capability (fault injection, virtual time), or a tool is absent. Its reason is shown. An
  expected failure (``xfail``) counts as a skip;
* *not judged* when the scheduler left nothing to judge: a set-up wait timed out (it was never
  handed the node), a control the judgement stands on never happened (it never bound the
  ordinary pod beside the gated one), a wait the criterion needs was cut short
  (:class:`harness.NotJudged`). This is the scheduler's doing, so it is never a skip and never a
  pass: it fails the run;
* an ``error`` (a failure outside the test body, e.g. the scheduler would not start) counts as a
  failure.

A skip judges nothing either, so skips do not add up to a pass:

* a *suite* (a ``suites/test_<name>.py`` file) is **failed** when one of its criteria failed,
  **not judged** when one was not judged, **passed** when one passed, and **skipped** when every
  one was skipped (its skip reasons are summed up, e.g. ``7 × "needs feature gate ..."``);
* the *run* is **failed** when a criterion failed (``schedharness run`` exits 1) or pytest could
  not run the suites (exit 4); **not judged** when none failed but one was not judged, or when
  none passed at all (exit 3, the next line says why); **passed** otherwise (exit 0). A passed
  run lists the suites whose criteria were all skipped in its verdict line, so that a reader
  does not take a skipped suite for a met one.

The run's timing slack (:class:`harness._backends.backend.Slack`: how early or late a scheduler's write
may land around a time a criterion names) is the one of the backend the judged scenarios ran on,
as the plugin recorded it per scenario; it is printed next to the scheduler and the backend.

The HTML is a plain template filled with :func:`html.escape`d values (the standard library is
enough for a few tables; no template engine is needed). Timelines are the plugin's SVG files,
embedded with ``<img>`` by their path relative to the report, so the report directory can be
moved or served as a whole. Rendering is pure: the same records give the same files.
"""

from __future__ import annotations

import html
import json
from xml.etree import ElementTree
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from fake_apiserver import KUBERNETES_VERSION, schema_source
from fake_apiserver import served_release as release
from harness._backends.apiserver_gates import gates_text
from harness._backends.runtime_config import runtime_config_text
from harness._criteria.suite_registry import builtin_suites
from harness._scenario.expectations import NOT_JUDGED

__all__ = [
    "SKIP_POLICY",
    "STATUSES",
    "RunInfo",
    "build_report",
    "count_text",
    "counts_of",
    "criterion_status",
    "gate_label",
    "judge_suite",
    "load_results",
    "mark_not_judged",
    "render_html",
    "render_markdown",
    "skip_summary",
    "suite_name",
    "write_report",
]

Record = dict[str, Any]

SKIP_POLICY = ("A criterion is skipped only for a declared reason that does not depend on the scheduler (the "
               "run's feature gates, the API server's release, the backend's capabilities, an absent tool); "
               "the reason is shown. A criterion the scheduler left nothing to judge (a set-up wait that "
               "timed out, a control that never happened, a wait cut short) is not judged: that fails the "
               "run (exit code 3), as a failed criterion does (exit code 1). The run passes (exit code 0) "
               "when no criterion failed or was not judged and at least one passed; the suites whose "
               "criteria were all skipped are listed with its verdict.")
#: What the report's "Not judged" section says first.
_NOT_JUDGED_NOTE = ("The scheduler did not do what judging these needs; each fails the run (exit code 3, or 1 "
                    "when a criterion failed).")
#: A criterion's statuses, in the order the report counts them.
STATUSES = ("passed", "failed", NOT_JUDGED, "skipped")
NO_GATE = "no feature gate needed"
_STATUS = {"passed": "passed", "failed": "failed", "error": "failed", "skipped": "skipped",
           "xfailed": "skipped", NOT_JUDGED: NOT_JUDGED}


@dataclass(frozen=True)
class RunInfo:
    """What the run was: everything in ``report.json`` that is not a scenario record."""

    scheduler: str
    feature_gates: dict[str, bool]
    started: str  # ISO 8601, UTC
    finished: str
    wall_seconds: float
    seed: int = 0
    suites: tuple[str, ...] = ()
    command: str = ""
    pytest_exit_code: int = 0
    readings: Mapping[str, str] = field(default_factory=dict)  # reading key -> its text
    backend: str = "fake"
    kubernetes_version: str | None = None  # the fake's release as asked (None: the pinned one)


def load_results(path: Path) -> list[Record]:
    """The plugin's records, one JSON object a line, in file order."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def gate_label(gates: Mapping[str, bool]) -> str:
    """``{"B": False, "A": True}`` -> ``"A=true, B=false"``; no gates -> :data:`NO_GATE`."""
    if not gates:
        return NO_GATE
    return ", ".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items()))


def _criterion(record: Record) -> Record:
    status = _STATUS.get(str(record.get("status")), "failed")
    message = str(record.get("message") or "")
    if record.get("status") == "error" and message:
        message = f"error outside the test body: {message}"
    needs = record.get("needs")
    return {
        "id": record.get("criterion") or record["id"],
        "test": record["id"],
        "suite": suite_name(str(record["id"])),
        "kep": record.get("kep"),
        "section": record.get("section"),
        "feature_gates": dict(needs if needs is not None else record.get("gates") or {}),
        "run_gates": dict(record.get("gates") or {}),
        "status": status,
        "reason": message if status == "skipped" else None,
        "message": message if status in ("failed", NOT_JUDGED) else None,
        "reading": record.get("reading"),
        "control": record.get("control"),
        "scheduler": record.get("scheduler"),
        "adapter": record.get("adapter"),
        "seed": record.get("seed"),
        "replay": record.get("replay"),
        "virtual_seconds": record.get("virtual_seconds"),
        "wall_seconds": record.get("wall_seconds"),
        "journal": record.get("journal"),
        "timeline": record.get("timeline"),
        "slack": record.get("slack"),
        "waits": record.get("waits"),
        "apiserver_feature_gates": record.get("apiserver_feature_gates"),
        "apiserver_runtime_config": record.get("apiserver_runtime_config"),
    }


def criterion_status(statuses: Iterable[str]) -> str:
    """One verdict for a criterion checked by several scenarios: failed if any failed, not judged
    if any was not judged (and none failed), passed if any passed (and the others were skipped),
    else skipped."""
    seen = set(statuses)
    return next((status for status in ("failed", NOT_JUDGED, "passed") if status in seen), "skipped")


def counts_of(criteria: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many criteria have each of :data:`STATUSES`."""
    seen = Counter(str(c["status"]) for c in criteria)
    return {status: seen[status] for status in STATUSES}


def count_text(counts: Mapping[str, int]) -> str:
    """``2 passed, 1 failed, 3 not judged, 0 skipped``."""
    return ", ".join(f"{counts.get(status, 0)} {status}" for status in STATUSES)


def suite_name(test_id: str) -> str:
    """The suite a test belongs to: ``suites/test_core_sanity.py::test_binds[x]`` -> ``core_sanity``;
    the YAML scenarios of a run are one suite: ``my/bound.yaml::bound`` -> ``yaml_scenarios``."""
    path = PurePosixPath(test_id.split("::", 1)[0])
    if path.suffix in (".yaml", ".yml"):
        return "yaml_scenarios"
    return path.stem.removeprefix("test_")


def skip_summary(reasons: Iterable[str]) -> str:
    """Skip reasons counted, the most frequent first: ``2 × "needs a scheduler", 1 × "..."``."""
    counts = Counter(str(reason or "no reason given") for reason in reasons)
    return ", ".join(f'{n} × "{reason}"' for reason, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def judge_suite(criteria: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One suite's verdict from its criteria (each with ``status``, one of :data:`STATUSES`, and a
    skip's ``reason``): ``judged`` when at least one passed or failed; ``verdict`` failed, not
    judged, passed or skipped (every criterion skipped, or none ran); the counts; the skip
    reasons counted; and, when every criterion was skipped, why."""
    counts = counts_of(criteria)
    judged = counts["passed"] + counts["failed"] > 0
    reasons = Counter(str(c.get("reason") or "no reason given") for c in criteria if c["status"] == "skipped")
    why = None
    if not judged and not counts[NOT_JUDGED]:
        why = (f"every criterion was skipped ({skip_summary(reasons.elements())})" if criteria
               else "no criterion of it ran")
    return {
        "judged": judged,
        "verdict": criterion_status(str(c["status"]) for c in criteria),
        "summary": counts,
        "skip_reasons": [{"reason": reason, "count": n}
                         for reason, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))],
        "skipped_because": why,
    }


def _timing_slack(criteria: Sequence[Record]) -> dict[str, Any]:
    """The slack the judged scenarios ran with (the plugin records it per scenario)."""
    seen = Counter(json.dumps(c["slack"], sort_keys=True) for c in criteria
                   if c["status"] in ("passed", "failed") and c.get("slack"))
    if len(seen) == 1:
        slack = json.loads(next(iter(seen)))
        return {"early": slack["early"], "late": slack["late"], "text": slack["text"]}
    if not seen:
        return {"early": None, "late": None, "text": "none: no judged scenario ran on a backend"}
    parts = [f"{json.loads(key)['text']} ({n} scenario{'s' if n != 1 else ''})"
             for key, n in sorted(seen.items(), key=lambda item: -item[1])]
    return {"early": None, "late": None, "text": "varies by scenario: " + "; ".join(parts)}


def _verdict(counts: Mapping[str, int], suites: Mapping[str, Mapping[str, Any]], criteria: Sequence[Record],
             pytest_exit_code: int) -> tuple[str, str]:
    """The run's verdict and the line that explains it (module docstring)."""
    skipped = [name for name, suite in suites.items() if suite["verdict"] == "skipped"]
    if pytest_exit_code not in (0, 1):
        return "failed", f"pytest could not run the suites (exit code {pytest_exit_code}): see pytest.log"
    not_judged = [c for c in criteria if c["status"] == NOT_JUDGED]
    if not_judged and not counts["failed"]:
        return NOT_JUDGED, (f"{len(not_judged)} criteri{'on was' if len(not_judged) == 1 else 'a were'} not judged: "
                            "the scheduler did not do what judging them needs (see each one's message)")
    if counts["passed"] + counts["failed"] == 0:
        if not criteria:
            return NOT_JUDGED, "no criterion was judged: no criterion ran"
        reasons = skip_summary(str(c.get("reason") or "") for c in criteria)
        return NOT_JUDGED, f"no criterion was judged: every selected criterion was skipped ({reasons})"
    verdict = "failed" if counts["failed"] else "passed"
    notes = []
    if not_judged:
        notes.append(f"{len(not_judged)} not judged")
    if skipped:
        notes.append(f"skipped: {', '.join(skipped)} (every criterion skipped)")
    return verdict, "; ".join(notes)


def build_report(records: Iterable[Record], info: RunInfo) -> dict[str, Any]:
    """``report.json``'s content: the run, a summary, the verdict of each suite, and one entry per
    scenario (``criteria``, in test id order)."""
    records_list = list(records)
    criteria = sorted((_criterion(r) for r in records_list), key=lambda c: str(c["test"]))
    by_text = {text: key for key, text in info.readings.items()}
    for c in criteria:  # a reading given as its text is shown by its key, the text once below
        c["reading"] = by_text.get(c["reading"], c["reading"])
    counts = counts_of(criteria)
    virtual = [c["virtual_seconds"] for c in criteria if c["virtual_seconds"] is not None]
    names = list(info.suites) + sorted({c["suite"] for c in criteria} - set(info.suites))
    suites = {name: judge_suite([c for c in criteria if c["suite"] == name]) for name in names}
    verdict, message = _verdict(counts, suites, criteria, info.pytest_exit_code)
    used = sorted({str(c["reading"]) for c in criteria if c["reading"] in info.readings})
    servers = sorted({str(r["server_version"]) for r in records_list if r.get("server_version")})
    gate_sets = {json.dumps(r["apiserver_feature_gates"], sort_keys=True): r["apiserver_feature_gates"]
                 for r in records_list if r.get("apiserver_feature_gates") is not None}
    apiserver_gates = [gate_sets[key] for key in sorted(gate_sets)]
    config_sets = {json.dumps(r["apiserver_runtime_config"], sort_keys=True): r["apiserver_runtime_config"]
                   for r in records_list if r.get("apiserver_runtime_config") is not None}
    runtime_configs = [config_sets[key] for key in sorted(config_sets)]
    return {
        "scheduler": info.scheduler,
        "backend": info.backend,
        "suite_version": builtin_suites().version,
        "api_schemas": schema_source(release(info.kubernetes_version or KUBERNETES_VERSION)),
        # what the API server(s) of the run said their version was (the fake: its release)
        "server_version": servers[0] if len(servers) == 1 else servers,
        # the feature gates the API server(s) were started with ({}: the release's defaults; one
        # set per scenario on the fake, taken from its scheduler gates unless given; none known
        # for a cluster the run did not start)
        "apiserver_feature_gates": (apiserver_gates[0] if len(apiserver_gates) == 1
                                    else apiserver_gates or None),
        # the --runtime-config the API server(s) were started with, the same way ({}: the release's
        # defaults; one per scenario on the fake, with its runtime_config marker)
        "apiserver_runtime_config": (runtime_configs[0] if len(runtime_configs) == 1
                                     else runtime_configs or None),
        "timing_slack": _timing_slack(criteria),
        "feature_gates": dict(info.feature_gates),
        "seed": info.seed,
        "suites": list(info.suites),
        "command": info.command,
        "started": info.started,
        "finished": info.finished,
        "wall_seconds": round(info.wall_seconds, 3),
        "virtual_seconds": round(sum(virtual), 6),
        "pytest_exit_code": info.pytest_exit_code,
        "verdict": verdict,
        "verdict_message": message,
        "summary": counts,
        "suite_results": suites,
        "not_judged": [str(c["id"]) for c in criteria if c["status"] == NOT_JUDGED],
        "skipped_suites": [name for name, suite in suites.items() if suite["verdict"] == "skipped"],
        "skip_policy": SKIP_POLICY,
        "readings": {key: info.readings[key] for key in used},
        "criteria": criteria,
    }


def _groups(report: Mapping[str, Any]) -> list[tuple[str, list[Record]]]:
    groups: dict[str, list[Record]] = {}
    for c in report["criteria"]:
        groups.setdefault(gate_label(c["feature_gates"]), []).append(c)
    return sorted(groups.items(), key=lambda item: (item[0] != NO_GATE, item[0]))


def _kep(c: Mapping[str, Any]) -> str:
    """``5501`` and ``"KEP-5501"`` both read ``KEP-5501``."""
    kep = c.get("kep")
    if kep is None:
        return ""
    return str(kep) if str(kep).upper().startswith("KEP") else f"KEP-{kep}"


def _counts(rows: list[Record]) -> str:
    n = counts_of(rows)
    return f"met {n['passed']} · failed {n['failed']} · not judged {n[NOT_JUDGED]} · skipped {n['skipped']}"


def _gates_text(gates: Mapping[str, bool]) -> str:
    return gate_label(gates) if gates else "scheduler defaults"


def _server_text(report: Mapping[str, Any]) -> str:
    """The API server's version, feature gates and, when one was set, runtime config, as the
    report header says them."""
    versions = report.get("server_version") or "?"
    version = ", ".join(versions) if isinstance(versions, list) else str(versions)
    gates = report.get("apiserver_feature_gates")
    if isinstance(gates, list):
        text = "per scenario: " + "; ".join(gates_text(g) for g in gates)
    else:
        text = gates_text(gates)
    configs = report.get("apiserver_runtime_config")
    if not configs:  # the release defaults everywhere, or not known: the header says nothing of it
        return f"{version}; feature gates: {text}"
    if isinstance(configs, list):
        config = "per scenario: " + "; ".join(runtime_config_text(c) for c in configs)
    else:
        config = runtime_config_text(configs)
    return f"{version}; feature gates: {text}; runtime config: {config}"


def _seconds(c: Mapping[str, Any]) -> str:
    if c.get("virtual_seconds") is not None:
        return f"{c['virtual_seconds']:g} virtual s"
    if c.get("wall_seconds") is not None:
        return f"{c['wall_seconds']:g} s"
    return ""


def _verdict_text(report: Mapping[str, Any]) -> str:
    """``2 passed, 0 failed, 0 not judged, 1 skipped`` and, when there is one, the verdict's message."""
    counts = count_text(report["summary"])
    return f"{counts}; {report['verdict_message']}" if report.get("verdict_message") else counts


def _suite_skips(suite: Mapping[str, Any]) -> str:
    if not suite["skip_reasons"] and suite["skipped_because"]:
        return str(suite["skipped_because"])
    return skip_summary(r["reason"] for r in suite["skip_reasons"] for _ in range(r["count"]))


def _md_cell(text: object) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Mapping[str, Any]) -> str:
    """``report.md``: header, a table per feature-gate setting, failures, skips, readings."""
    lines = [
        "# schedharness report", "",
        f"- Scheduler: `{report['scheduler']}` on backend `{report['backend']}`; feature gates: "
        f"{_gates_text(report['feature_gates'])}; seed {report['seed']}",
        f"- Timing slack: {report['timing_slack']['text']}",
        f"- Started {report['started']}, finished {report['finished']}: {report['wall_seconds']:g} s wall, "
        f"{report['virtual_seconds']:g} s virtual",
        f"- Verdict: **{report['verdict'].upper()}**: {_verdict_text(report)}",
        f"- {report['skip_policy']}",
        f"- Suites version {report.get('suite_version', '?')} (criteria catalog: `schedharness criteria`)",
        f"- The fake API server's schemas: {report.get('api_schemas', '?')}",
        f"- API server: {_server_text(report)}",
    ]
    if report.get("command"):
        lines.append(f"- Command: `{report['command']}`")
    if report["suite_results"]:
        lines += ["", "## Suites", "", "| Suite | Verdict | Passed | Failed | Not judged | Skipped | Skipped because |",
                  "|---|---|---|---|---|---|---|"]
        for name, suite in report["suite_results"].items():
            n = suite["summary"]
            verdict = suite["verdict"] if suite["verdict"] in ("passed", "skipped") else f"**{suite['verdict']}**"
            lines.append("| " + " | ".join(_md_cell(x) for x in (
                name, verdict, n["passed"], n["failed"], n[NOT_JUDGED], n["skipped"], _suite_skips(suite))) + " |")
    for label, rows in _groups(report):
        lines += ["", f"## {label}", "", _counts(rows), "",
                  "| Criterion | KEP | Section | Verdict | Reading | Artifacts |",
                  "|---|---|---|---|---|---|"]
        for c in rows:
            verdict = c["status"] if c["status"] != "skipped" else f"skipped: {c['reason']}"
            if c.get("waits"):
                verdict += f" ({c['waits']})"
            artifacts = " · ".join(f"[{name}]({c[name]})" for name in ("journal", "timeline") if c.get(name))
            lines.append("| " + " | ".join(_md_cell(x) for x in (
                c["id"], _kep(c), c["section"], verdict, c["reading"], artifacts)) + " |")
    failures = [c for c in report["criteria"] if c["status"] == "failed"]
    if failures:
        lines += ["", "## Failures"]
        for c in failures:
            lines += ["", f"### {c['id']} (`{c['test']}`)", "", f"{_kep(c)} {c['section'] or ''}".strip(), "",
                      "```", str(c["message"]).rstrip(), "```", ""]
            if c.get("replay"):
                lines += [f"Replay: `{c['replay']}`", ""]
            links = [f"[{name}]({c[name]})" for name in ("journal", "timeline") if c.get(name)]
            lines.append(" · ".join(links))
    not_judged = [c for c in report["criteria"] if c["status"] == NOT_JUDGED]
    if not_judged:
        lines += ["", "## Not judged", "", _NOT_JUDGED_NOTE]
        for c in not_judged:
            lines += ["", f"### {c['id']} (`{c['test']}`)", "", f"{_kep(c)} {c['section'] or ''}".strip(), "",
                      "```", str(c["message"]).rstrip(), "```", ""]
            if c.get("replay"):
                lines += [f"Replay: `{c['replay']}`", ""]
            lines.append(" · ".join(f"[{name}]({c[name]})" for name in ("journal", "timeline") if c.get(name)))
    if report["readings"]:
        lines += ["", "## Readings", ""]
        lines += [f"- **{key}**: {text}" for key, text in report["readings"].items()]
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:75em;color:#212121}
table{border-collapse:collapse;margin:.5em 0 1.5em;width:100%}
th,td{border:1px solid #bdbdbd;padding:.3em .5em;text-align:left;vertical-align:top;font-size:.92em}
th{background:#eeeeee}
td:nth-child(2){white-space:nowrap}
.passed{color:#1b5e20;font-weight:600}.failed{color:#b71c1c;font-weight:600}.skipped{color:#616161}
.not-judged{color:#e65100;font-weight:600}
pre{background:#fafafa;border:1px solid #e0e0e0;padding:.6em;white-space:pre-wrap}
img.timeline{max-width:100%;border:1px solid #e0e0e0}
code{font-size:.9em}
"""


def _e(text: object) -> str:
    return html.escape(str(text if text is not None else ""))


def _css_class(verdict: str) -> str:
    """``not judged`` -> ``not-judged`` (one class, not two)."""
    return verdict.replace(" ", "-")


def _links(c: Mapping[str, Any]) -> str:
    return " · ".join(f'<a href="{_e(c[name])}">{name}</a>' for name in ("journal", "timeline") if c.get(name))


def render_html(report: Mapping[str, Any]) -> str:
    """``report.html``: the same content as the Markdown, with each scenario's timeline embedded."""
    out = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>schedharness report: {_e(report['scheduler'])} {_e(report['verdict'])}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>schedharness report</h1>", "<ul>",
        f"<li>Scheduler: <code>{_e(report['scheduler'])}</code> on backend <code>{_e(report['backend'])}</code>; "
        "feature gates: "
        f"{_e(_gates_text(report['feature_gates']))}; seed {_e(report['seed'])}</li>",
        f"<li>Suites version {_e(report.get('suite_version', '?'))} (criteria catalog: "
        "<code>schedharness criteria</code>)</li>",
        f"<li>The fake API server's schemas: {_e(report.get('api_schemas', '?'))}</li>",
        f"<li>API server: {_e(_server_text(report))}</li>",
        f"<li>Timing slack: {_e(report['timing_slack']['text'])}</li>",
        f"<li>Started {_e(report['started'])}, finished {_e(report['finished'])}: "
        f"{report['wall_seconds']:g} s wall, {report['virtual_seconds']:g} s virtual</li>",
        f'<li>Verdict: <span class="{_css_class(report["verdict"])}">{_e(report["verdict"].upper())}</span>: '
        f"{_e(_verdict_text(report))}</li>",
        f"<li>{_e(report['skip_policy'])}</li>",
    ]
    if report.get("command"):
        out.append(f"<li>Command: <code>{_e(report['command'])}</code></li>")
    out.append("</ul>")
    if report["suite_results"]:
        out += ["<h2>Suites</h2>", '<table class="suites"><thead><tr><th>Suite</th><th>Verdict</th><th>Passed</th>'
                "<th>Failed</th><th>Not judged</th><th>Skipped</th><th>Skipped because</th></tr></thead><tbody>"]
        for name, suite in report["suite_results"].items():
            n = suite["summary"]
            verdict = suite["verdict"]
            out.append(f'<tr><td>{_e(name)}</td><td><span class="{_css_class(verdict)}">{verdict}</span></td>'
                       f"<td>{n['passed']}</td><td>{n['failed']}</td><td>{n[NOT_JUDGED]}</td><td>{n['skipped']}</td>"
                       f"<td>{_e(_suite_skips(suite))}</td></tr>")
        out.append("</tbody></table>")
    for label, rows in _groups(report):
        out += [f"<h2>{_e(label)}</h2>", f"<p>{_e(_counts(rows))}</p>",
                '<table class="criteria"><thead><tr><th>Criterion</th><th>KEP</th><th>Section</th>'
                "<th>Verdict</th><th>Reading</th><th>Artifacts</th></tr></thead><tbody>"]
        for c in rows:
            reason = f": {_e(c['reason'])}" if c["status"] == "skipped" and c["reason"] else ""
            if c.get("waits"):
                reason += f" ({_e(c['waits'])})"
            reading = c["reading"]
            title = report["readings"].get(reading) if isinstance(reading, str) else None
            reading_html = f'<span title="{_e(title)}">{_e(reading)}</span>' if title else _e(reading)
            out.append(
                f'<tr><td><a href="#{_e(c["test"])}">{_e(c["id"])}</a></td><td>{_e(_kep(c))}</td>'
                f'<td>{_e(c["section"])}</td>'
                f'<td><span class="{_css_class(c["status"])}">{c["status"]}</span>{reason}</td>'
                f"<td>{reading_html}</td><td>{_links(c)}</td></tr>")
        out.append("</tbody></table>")
    failures = [c for c in report["criteria"] if c["status"] == "failed"]
    if failures:
        out.append("<h2>Failures</h2>")
        for c in failures:
            out += [f"<h3>{_e(c['id'])} (<code>{_e(c['test'])}</code>)</h3>",
                    f"<p>{_e(_kep(c))} {_e(c['section'])}</p>", f"<pre>{_e(c['message'])}</pre>"]
            if c.get("replay"):
                out.append(f"<p>Replay: <code>{_e(c['replay'])}</code></p>")
    not_judged = [c for c in report["criteria"] if c["status"] == NOT_JUDGED]
    if not_judged:
        out += ['<h2 class="not-judged">Not judged</h2>', f"<p>{_e(_NOT_JUDGED_NOTE)}</p>"]
        for c in not_judged:
            out += [f"<h3>{_e(c['id'])} (<code>{_e(c['test'])}</code>)</h3>",
                    f"<p>{_e(_kep(c))} {_e(c['section'])}</p>", f"<pre>{_e(c['message'])}</pre>"]
            if c.get("replay"):
                out.append(f"<p>Replay: <code>{_e(c['replay'])}</code></p>")
    if report["readings"]:
        out.append("<h2>Readings</h2><dl>")
        out += [f"<dt><b>{_e(key)}</b></dt><dd>{_e(text)}</dd>" for key, text in report["readings"].items()]
        out.append("</dl>")
    out.append("<h2>Scenarios</h2>")
    for c in report["criteria"]:
        opened = " open" if c["status"] in ("failed", NOT_JUDGED) else ""
        out.append(f'<details id="{_e(c["test"])}"{opened}><summary><span class="{_css_class(c["status"])}">'
                   f'{c["status"]}</span> {_e(c["id"])} <code>{_e(c["test"])}</code> {_e(_seconds(c))}</summary>')
        if c.get("timeline"):
            out.append(f'<p><img class="timeline" loading="lazy" src="{_e(c["timeline"])}" '
                       f'alt="timeline of {_e(c["test"])}"></p>')
        out.append(f"<p>{_links(c)}</p></details>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def mark_not_judged(junit: Path, criteria: Iterable[Mapping[str, Any]]) -> int:
    """Rewrite pytest's ``junit.xml`` so that each criterion not judged is an ``<error>`` of type
    ``not judged`` with its message, where pytest wrote a ``<failure>`` (or, not judged in a
    fixture, an untyped ``<error>``). pytest knows only passed, failed and skipped; a CI system
    reading JUnit then shows such a criterion as neither a pass, nor a skip, nor the scheduler's
    failure of a judged criterion. Returns how many were rewritten; a missing file is left
    missing."""
    wanted = {_junit_key(str(c["test"])): str(c["message"] or "") for c in criteria if c["status"] == NOT_JUDGED}
    if not wanted or not junit.is_file():
        return 0
    tree = ElementTree.parse(junit)
    rewritten = 0
    for case in tree.iter("testcase"):
        key = (case.get("classname", ""), case.get("name", ""))
        failure = case.find("failure")
        if failure is None:  # not judged in a fixture: pytest wrote an <error> of its own
            failure = case.find("error")
        if key not in wanted or failure is None:
            continue
        failure.tag = "error"
        failure.set("type", NOT_JUDGED)
        failure.set("message", f"{NOT_JUDGED}: {wanted[key]}")
        rewritten += 1
    for suite in tree.iter("testsuite"):
        cases = list(suite.iter("testcase"))
        suite.set("failures", str(sum(case.find("failure") is not None for case in cases)))
        suite.set("errors", str(sum(case.find("error") is not None for case in cases)))
    tree.write(junit, encoding="utf-8", xml_declaration=True)
    return rewritten


def _junit_key(test_id: str) -> tuple[str, str]:
    """The ``classname`` and ``name`` pytest's JUnit XML gives a node id, made as pytest makes them
    (``_pytest.junitxml.mangle_test_address``): ``suites/test_core_sanity.py::TestX::test_x[a.b]``
    -> ``suites.test_core_sanity.TestX`` and ``test_x[a.b]``. Made forwards, from the id, because
    the dotted name cannot be read back: a dot may be a folder's, a YAML file's or a class's."""
    path, bracket, params = test_id.partition("[")
    names = path.split("::")
    names[0] = names[0].replace("/", ".").removesuffix(".py")
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def write_report(report_dir: Path, records: Iterable[Record], info: RunInfo) -> dict[str, Any]:
    """Write ``report.json``, ``report.md`` and ``report.html`` into ``report_dir``, and mark the
    criteria not judged in ``junit.xml`` (:func:`mark_not_judged`); return the report."""
    report = build_report(records, info)
    (report_dir / "report.json").write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    (report_dir / "report.md").write_text(render_markdown(report))
    (report_dir / "report.html").write_text(render_html(report))
    mark_not_judged(report_dir / "junit.xml", report["criteria"])
    return report
