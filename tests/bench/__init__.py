"""Tests of ``bench/``: each bench's client and settings, without timing anything."""
