"""Tests of ``fake_apiserver._endpoints``: the HTTP edge, routes, discovery, OpenAPI and Tables."""
