"""Conformance suites: scheduling gates (KEP-3521) and PreEnqueue rejections in pod status
(KEP-5501), plus the core sanity checks any run needs to be trusted.

Each criterion is one ``async def`` test run by the schedharness pytest plugin, marked with the
KEP and section it checks, the feature gates it needs and, where the KEP leaves a choice, the
reading it checks (:mod:`suites._readings`).
"""
