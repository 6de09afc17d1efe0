"""Scenarios: the DSL whose steps read like the KEP sentence they check, and what it stands on.

``scenario`` (the steps), ``expectations`` (named predicates and the words of their failures),
``writes`` (a write as its effect, read from the journal), ``objects``, ``manifests`` and
``discovery`` (whole manifests of any kind the server serves), ``yaml_scenarios`` (the same
vocabulary as YAML files). Imports :mod:`harness._backends` and :mod:`harness._time`; it never
starts a scheduler (the plugin does).
"""
