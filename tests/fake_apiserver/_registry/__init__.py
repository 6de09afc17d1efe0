"""Tests of ``fake_apiserver._registry``: the kind table and each kind's rules, as kube-apiserver answers them."""
