"""The scheduler under test: one adapter interface for every way of running one (a process, a
callable on the test's loop, the cluster's own), and the reference scheduler as an adapter.

Imports :mod:`harness._backends` (a scheduler runs against a backend) and :mod:`harness._time`.
"""
