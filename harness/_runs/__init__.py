"""Runs of the suites and what is made of them: ``schedharness run``, ``selftest``,
``compatibility`` and ``compare``.

``run`` (the suites through pytest, progress and the exit code), ``report`` (``report.json``,
``.md``, ``.html`` and JUnit XML from the records), ``selftest`` (the suites against the
reference scheduler and its variants), ``compatibility`` and ``verdict_digest`` (the table of
releases and backends, from small committed digests), ``compare`` (two runs, criterion by
criterion). The top of ``harness`` below its faces (``harness``, ``harness.cli``,
``harness.pytest_plugin``), which alone import it.
"""
