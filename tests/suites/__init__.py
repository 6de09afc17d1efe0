"""Tests of ``suites``: its shared helpers, and that its criteria pass nothing on inaction."""
