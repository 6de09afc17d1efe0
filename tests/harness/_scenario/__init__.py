"""Tests of ``harness._scenario``: the scenario DSL, its expectations, writes and manifests."""
