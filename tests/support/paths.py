"""Where the tests find the checkout and their recordings, whatever folder a test module sits in."""

from __future__ import annotations

from pathlib import Path

__all__ = ["GOLDEN", "ROOT", "TEST_DATA"]

ROOT = Path(__file__).resolve().parents[2]
"""The checkout: the packages, ``docs/``, ``fixtures/``, ``bench/`` and ``tools/``."""

TEST_DATA = ROOT / "tests" / "data"
"""What real servers and clients answered, recorded for the tests that compare the fake with them."""

GOLDEN = ROOT / "tests" / "golden"
"""Files a test compares the harness's output with byte for byte (kind configurations)."""
