"""Tests of ``harness._backends``: the fake, kind, envtest and kubeconfig backends, and what they need."""
