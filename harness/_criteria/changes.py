"""The criteria change log (``docs/criteria-changes.md``): the rule that an ID never changes meaning,
checked against the catalog's fingerprints.

A KEP cites a criterion as "ID, suites version V". So the judgement behind an ID (its fingerprint,
:mod:`harness._criteria.fingerprint`) is fixed within a version, and every change of one is written down.
The change log is that record, in Markdown a reviewer reads, one line per criterion and version:

    ## 2026.12

    - `core.binds-fitting-node` `e2fc8d42f95e2f83` changed: <what the judgement does now, and why>
    - `kep5501.new-thing` `0123456789abcdef` added: <what it checks>
    - `kep5501.old-thing` removed: <why; the ID is never used again>
    - `gates.ungated-not-gated` `fedcba9876543210` recorded: <unchanged since the version named>

Versions are ``## <version>`` headings (``2026.11``, ``2026.11.1``), newest first; the first is
the suites' current version. Lines before the first version heading are prose (the rule).
A criterion's entry is the newest line naming its ID. :func:`problems` says what is wrong, each
problem one sentence naming the ID and the fix:

- a criterion with no line (a new criterion needs an ``added`` line);
- a fingerprint other than its newest line's: under the same version that is an ID changing
  meaning (give the criterion a new ID, or raise the version and write a ``changed`` line); under
  an older version it needs a ``changed`` line in the current one;
- an ID whose newest line says ``removed`` (an ID is never reused), and a logged ID no criterion
  has any more without a ``removed`` line;
- a malformed line, two lines for one ID under one version, a version heading twice.

The trade-off: the log keeps a line for every criterion (``recorded`` for the ones a version took
over unchanged, once, when fingerprints began), so the check needs no Git history: a copy of the
repository without ``.git`` checks the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Entry", "KINDS", "parse", "problems"]

#: What a line says of its criterion; ``removed`` carries no fingerprint, the others do.
KINDS = ("added", "changed", "recorded", "removed")

#: A version heading: ``## 2026.11`` or ``## 2026.11.1``; other headings are prose.
_HEADING = re.compile(r"^## (?P<version>\d{4}\.\d{2}(?:\.\d+)?)\s*$")
_LINE = re.compile(r"^- `(?P<id>[^`]+)`(?: `(?P<fingerprint>[0-9a-f]{16})`)? (?P<kind>[a-z]+): (?P<text>\S.*)$")


@dataclass(frozen=True)
class Entry:
    """One line of the change log."""

    version: str
    id: str
    kind: str
    fingerprint: str | None
    text: str


def parse(text: str) -> tuple[list[str], list[Entry], list[str]]:
    """The versions (in document order), the entries, and the problems of reading them."""
    versions: list[str] = []
    entries: list[Entry] = []
    errors: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        heading = _HEADING.match(line)
        if heading:
            if heading["version"] in versions:
                errors.append(f"line {number}: version {heading['version']} has a second heading")
            versions.append(heading["version"])
            continue
        if not line.startswith("- `") or not versions:
            continue  # prose: the rules, a version's summary
        found = _LINE.match(line)
        if found is None or found["kind"] not in KINDS or (found["kind"] == "removed") != (found["fingerprint"] is None):
            errors.append(f"line {number}: not a change-log line: {line!r} (expected '- `<id>` `<16 hex digits>` "
                          f"<added|changed|recorded>: <text>' or '- `<id>` removed: <text>')")
            continue
        entries.append(Entry(versions[-1], found["id"], found["kind"], found["fingerprint"], found["text"]))
    return versions, entries, errors


def problems(criteria: Iterable[Mapping[str, Any]], version: str, text: str) -> list[str]:
    """What makes the catalog ``criteria`` (records with ``id`` and ``fingerprint``) of suites
    ``version`` break the rule of the change log ``text``; empty when it holds."""
    versions, entries, found = parse(text)
    if not versions or versions[0] != version:
        found.append(f"the change log's newest version is {versions[0] if versions else 'missing'}, the suites' is "
                     f"{version}: add a '## {version}' section at the top")
    order = {v: i for i, v in enumerate(versions)}  # 0 is the newest
    newest: dict[str, Entry] = {}
    for entry in sorted(entries, key=lambda e: order[e.version], reverse=True):
        if entry.id in newest and newest[entry.id].version == entry.version:
            found.append(f"`{entry.id}` has two lines under {entry.version}")
        newest[entry.id] = entry
    current = {str(c["id"]): c.get("fingerprint") for c in criteria}
    for cid, fingerprint in sorted(current.items()):
        if fingerprint is None:
            continue  # not a Python criterion (a YAML scenario): nothing to fingerprint
        logged = newest.get(cid)
        if logged is None:
            found.append(f"`{cid}` is not in the change log: add '- `{cid}` `{fingerprint}` added: <what it checks>' "
                         f"under ## {version}")
        elif logged.kind == "removed":
            found.append(f"`{cid}` was removed in {logged.version} and an ID is never reused: give the criterion a "
                         "new ID")
        elif logged.fingerprint != fingerprint and logged.version == version:
            found.append(f"the judgement of `{cid}` changed (fingerprint {logged.fingerprint} -> {fingerprint}) within "
                         f"suites version {version}, so its ID would change meaning: give the criterion a new ID (and "
                         f"log `{cid}` removed), or raise SUITE_VERSION and add '- `{cid}` `{fingerprint}` changed: "
                         "<what changed>' under the new version")
        elif logged.fingerprint != fingerprint:
            found.append(f"the judgement of `{cid}` changed since {logged.version} (fingerprint {logged.fingerprint} -> "
                         f"{fingerprint}): add '- `{cid}` `{fingerprint}` changed: <what changed>' under ## {version}")
    for cid, entry in sorted(newest.items()):
        if cid not in current and entry.kind != "removed":
            found.append(f"`{cid}` is in the change log but no criterion has it: add '- `{cid}` removed: <why>' "
                         f"under ## {version}")
    return found
