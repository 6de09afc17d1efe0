"""The pytest plugin: a scenario as an ``async def`` test on its own loop, with a backend and a
scheduler, and the records it leaves.

``plugin`` (hooks, fixtures, running a test, its record), ``options`` (the command line),
``markers`` (what a criterion's markers say), ``yaml_items`` (YAML scenario files as tests),
``timeline`` (the picture of a scenario's journal). :mod:`harness.pytest_plugin`, the ``pytest11``
entry point, registers ``plugin``. Imports the scenario, scheduler, backend and time packages.
"""
