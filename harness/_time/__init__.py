"""Time for the harness: the virtual event loop and clock, the wall clock pinned to them, and the
workload that checks a journal is the same on every run under them.

The bottom of ``harness``: it imports no other part of it. Everything that waits (backends,
schedulers, scenarios, the plugin) waits on this loop's clock.
"""
