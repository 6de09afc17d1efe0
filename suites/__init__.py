"""Conformance suites: scheduling gates (KEP-3521), PreEnqueue rejections in pod status
(KEP-5501), kube-scheduler's DefaultPreemption, scheduler preemption for in-place resize
(KEP-5836), plus the core sanity checks any run needs to be trusted.

Each criterion is one ``async def`` test run by the schedharness pytest plugin, marked with the
KEP and section it checks, the feature gates it needs and, where the KEP leaves a choice, the
reading it checks (:mod:`suites._readings`).

The suites are written with the harness's public API only (``harness``, ``fake_apiserver``), as a
user's own suite is. The harness never imports this package: it finds it through the
``schedharness.suites`` entry point (``pyproject.toml``), which names :data:`SUITES`.
"""

from pathlib import Path

from harness import SuiteCollection
from suites._readings import READINGS

#: The suites' version, named by the report and the criteria catalog (``schedharness criteria``).
#: An ID never changes meaning within a version: its judgement (the fingerprint in
#: ``docs/criteria.json``) is fixed, and ``docs/criteria-changes.md`` logs every judgement an ID
#: has had. The version is raised when the judgement of an existing ID changes, or criteria are
#: added or removed; each such change gets its line in the log (the rule is written there, and
#: tests/harness/_criteria/test_catalog.py holds the catalog to it). ``YYYY.MM`` is a month's
#: first version, ``YYYY.MM.N`` the N-th after it in the same month.
SUITE_VERSION = "2026.12.1"

#: What the harness learns of these suites (their files, version and readings), registered as
#: ``schedharness`` in the ``schedharness.suites`` entry point group.
SUITES = SuiteCollection(directory=Path(__file__).resolve().parent, version=SUITE_VERSION, readings=READINGS)
