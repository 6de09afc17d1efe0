"""Tests of ``fake_apiserver._storage``: the store, its watches, writes and their effects, subresources."""
