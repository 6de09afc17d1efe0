"""Tests of ``reference_scheduler`` against the fake API server under virtual time."""
