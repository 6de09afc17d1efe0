"""Deterministic time, scheduler adapters, scenarios, the pytest plugin and reports."""

__all__: list[str] = []
