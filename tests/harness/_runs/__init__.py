"""Tests of ``harness._runs``: ``schedharness run``, its reports, the selftest, compare and compatibility."""
