"""Tests of ``harness._time``: the virtual event loop and clock, and the wall clock pinned to them."""
