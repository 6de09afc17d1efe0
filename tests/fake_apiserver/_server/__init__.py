"""Tests of ``fake_apiserver._server``: fault rules, the journal and the fault proxy."""
