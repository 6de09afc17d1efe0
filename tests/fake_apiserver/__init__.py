"""Tests of ``fake_apiserver``, a folder per layer as the package has; ``clients`` holds the tests
that drive the fake with real, unchanged clients (kubectl, the Python client, kube-scheduler)."""
