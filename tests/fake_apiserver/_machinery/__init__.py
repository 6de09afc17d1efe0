"""Tests of ``fake_apiserver._machinery``: pure functions of values, checked against what kube-apiserver answered."""
