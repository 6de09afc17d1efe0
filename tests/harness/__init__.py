"""Tests of ``harness``: its faces here (the command line), a folder per private sub-package."""
