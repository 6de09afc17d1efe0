"""Tests of ``fake_apiserver._registry.apiextensions``: CustomResourceDefinitions and custom resources."""
