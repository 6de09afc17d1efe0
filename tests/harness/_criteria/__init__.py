"""Tests of ``harness._criteria``: the criteria catalog and the suite registry."""
