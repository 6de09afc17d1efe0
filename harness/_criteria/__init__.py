"""The criteria: where the suites come from and what makes a criterion's ID citable.

``suite_registry`` (the suites registered in the ``schedharness.suites`` entry point group),
``catalog`` and ``catalog_plugin`` (``schedharness criteria``: every criterion's facts, read
through pytest's collection), ``fingerprint`` (a hash of what a criterion judges) and ``changes``
(the change log that keeps an ID to one meaning per version). Imports only the plugin's markers.
"""
