"""Tests of ``harness._schedulers``: the scheduler under test, as a process or on the test's loop."""
