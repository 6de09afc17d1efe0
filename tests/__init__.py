"""The project's tests, in folders that mirror the packages they test (``fake_apiserver/<layer>``,
``kubeclient``, ``reference_scheduler``, ``harness/<sub-package>``, ``suites``, ``bench``); the
project-wide checks (architecture, public API, docs) sit here. ``support`` holds what several
test modules share, ``data`` and ``golden`` the recordings they compare with."""
