"""Tests of ``harness._plugin``: the pytest plugin (through ``pytester``) and the timeline picture."""
