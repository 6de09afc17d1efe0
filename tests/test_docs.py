"""The guide (docs/scenarios.md) stays true: its examples run and pass, and it names every
Scenario method, every YAML op and every fault action. README's counts of criteria, mutants and
correct variants, and its table of kube-scheduler releases, are today's."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

from harness import Scenario
from harness._runs.run import RunOptions, run_suites
from harness._scenario.yaml_scenarios import OPS
from reference_scheduler._mutants import CONTROLS, MUTANTS, SHAPES

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "scenarios.md").read_text()
README = (ROOT / "README.md").read_text()
EXAMPLES = ROOT / "docs" / "examples"


def test_the_guides_examples_pass_against_the_reference_scheduler(tmp_path: Path) -> None:
    result = run_suites(RunOptions(paths=(EXAMPLES,), report_dir=tmp_path / "report", timeline=False), progress=None)
    verdicts = {c["id"]: c["status"] for c in result.report["criteria"]}
    assert verdicts == {"guide.gated-pod-waits": "passed", "guide.unschedulable-then-node": "passed",
                        "guide.status-write-refused-once": "passed", "guide.victim-terminates": "passed",
                        "guide.yaml-gated-pods": "passed", "guide.gang-waits": "passed",
                        "guide.yaml-gang-scheduling": "passed"}
    assert result.exit_code == 0


def test_the_code_in_the_guide_is_the_examples_code() -> None:
    """Every Python and YAML block of the guide that shows an example is in the example files."""
    sources = "".join((EXAMPLES / name).read_text()
                      for name in ("test_first_scenarios.py", "gated-pods.yaml", "gang-scheduling.yaml"))
    blocks = re.findall(r"```(?:python|yaml)\n(.*?)```", GUIDE, re.S)
    assert blocks
    for block in blocks:
        for line in block.strip().splitlines():
            assert line.strip() in sources, f"the guide shows a line no example has: {line!r}"


def test_the_guide_names_every_scenario_method_yaml_op_and_fault_action() -> None:
    methods = [name for name, _ in inspect.getmembers(Scenario) if not name.startswith("_")]
    named = ("`{}", " {}(", "`{}(", "`Scenario.{}(")  # `Scenario.span(seconds, whole=None)` names span
    assert [m for m in methods if not any(form.format(m) in GUIDE for form in named)] == []
    assert [op for op in OPS if f"`{op}`" not in GUIDE] == []
    for action in ("Respond(", "Delay(", "CloseConnection(", "EndWatch(", "WatchLag(", "respond", "delay", "close",
                   "end-watch", "watch-lag"):
        assert action in GUIDE


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_readme_counts_the_criteria_and_variants_there_are() -> None:
    """README's "76 criteria", "44 mutants", "4 correct variants" and the names of the correct
    variants and the control are the catalog's and ``reference_scheduler._mutants``'s.
    docs/criteria.json is the catalog of today's suites (tests/harness/_criteria/test_catalog.py
    keeps it so)."""
    criteria = json.loads((ROOT / "docs" / "criteria.json").read_text())["criteria"]
    readme = _flat(README)
    assert re.findall(r"^(\d+) criteria, each one test", README, re.M) == [str(len(criteria))]
    assert re.findall(r"lists its variants by kind: (\d+) mutants", readme) == [str(len(MUTANTS))]
    assert re.findall(r"its (\d+) mutants", readme) == [str(len(MUTANTS))]
    assert re.findall(r"(\d+) correct variants that must pass", readme) == [str(len(SHAPES))]
    resize = [m for m in MUTANTS if m.name.startswith("resize-")]
    assert "fourteen resize mutants" in readme and len(resize) == 14
    for variant in (*SHAPES, *CONTROLS):
        assert f"`{variant.name}`" in README, f"README does not name the variant {variant.name}"


def test_readme_compatibility_table_is_docs_compatibility_md() -> None:
    """The summary of kube-scheduler releases README shows is the one ``schedharness
    compatibility`` wrote into docs/compatibility.md."""
    def rows(text: str) -> list[str]:
        at = text.index("| scheduler | on the fake | on envtest | verdicts agree |")
        return text[at:].split("\n\n", 1)[0].splitlines()

    assert rows(README) == rows((ROOT / "docs" / "compatibility.md").read_text())
