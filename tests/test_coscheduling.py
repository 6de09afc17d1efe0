"""The gang example against a kube-scheduler that carries scheduler-plugins' Coscheduling plugin.

``docs/examples/gang-scheduling.yaml`` proves "no member bound until the gang is complete, then
all of them" with a PodGroup of ``scheduling.x-k8s.io/v1alpha1``, the API Coscheduling reads; the
reference scheduler's GangQuorum passes it (``tests/test_docs.py``). Here the same scenario runs
against a kube-scheduler built from ``sigs.k8s.io/scheduler-plugins``, named by
``SCHEDHARNESS_COSCHEDULING_SCHEDULER``, with the profile of ``docs/examples/coscheduling-config.yaml``
(``--scheduler-config``). The Go module proxy this project builds from refuses that module's source
(``docs/compatibility.md``), so the binary is one a user builds; without it the test is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness._runs.run import RunOptions, run_suites

BINARY = os.environ.get("SCHEDHARNESS_COSCHEDULING_SCHEDULER", "")
EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"

pytestmark = pytest.mark.skipif(
    not (BINARY and os.access(BINARY, os.X_OK)),
    reason="set SCHEDHARNESS_COSCHEDULING_SCHEDULER to a kube-scheduler built from sigs.k8s.io/scheduler-plugins "
           "(cmd/scheduler) to run the gang example against Coscheduling",
)


def test_coscheduling_binds_no_member_until_the_gang_is_complete(tmp_path: Path) -> None:
    result = run_suites(RunOptions(scheduler=f"cmd:{BINARY} --config={{config}} --secure-port=0 -v=2",
                                   report_dir=tmp_path / "report", timeline=False,
                                   paths=(EXAMPLES / "gang-scheduling.yaml",),
                                   scheduler_config=EXAMPLES / "coscheduling-config.yaml"),
                        progress=lambda line: None)
    assert [r["status"] for r in result.report["criteria"]] == ["passed"], result.report["criteria"]
    assert result.exit_code == 0
