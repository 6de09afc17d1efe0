"""Tests of ``kubeclient``: the project's Kubernetes client, its errors and its informer."""
