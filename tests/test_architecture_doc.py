"""docs/architecture.md stays true to the tree: its module index names every module of the shipped
packages, each once, with its role, and names none that is gone; and no file of the project cites
a document that lives outside the repository.

The index is the section ``## Every module``: one line per module, written
``- `path/to/module.py`: its role``, in any order within the section.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PACKAGES = ("fake_apiserver", "harness", "kubeclient", "reference_scheduler", "suites")
_ENTRY = re.compile(r"^- `(?P<path>[^`]+\.py)`: (?P<role>\S.*)$")


def _index() -> list[tuple[str, str]]:
    text = ARCHITECTURE.read_text()
    start = text.index("\n## Every module\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end != -1 else len(text)]
    return [(m["path"], m["role"]) for line in section.splitlines() if (m := _ENTRY.match(line))]


def _modules() -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for package in PACKAGES if (ROOT / package).is_dir()
        for path in (ROOT / package).rglob("*.py")
    }


def test_the_index_names_every_module_once_with_its_role() -> None:
    entries = _index()
    named = [path for path, _ in entries]
    assert sorted({p for p in named if named.count(p) > 1}) == []
    assert sorted(_modules() - set(named)) == [], "modules docs/architecture.md does not name"
    assert sorted(set(named) - _modules()) == [], "modules docs/architecture.md names that are gone"
    assert [path for path, role in entries if len(role.split()) < 3] == [], "roles of fewer than three words"


def test_no_file_cites_a_document_outside_the_repository() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    # a citation: the document's file name, or its name with a section (``k8s-semantics D.3``)
    outside = re.compile(r"k8s-semantics(\.md|`*\s+[A-G]\b)|kep-\d+-[a-z-]+\.md|\.\./shared/|virtual-time-notes\.md"
                         r"|pod-scheduling-readiness\.md")
    citing = sorted(
        name for name in files
        if name.endswith((".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt", ".json"))
        and name != "tests/test_architecture_doc.py"
        and outside.search((ROOT / name).read_text(errors="replace"))
    )
    assert citing == []
