"""API machinery: pure functions of values, with no server state.

What ``k8s.io/apimachinery`` and the decoding half of ``k8s.io/apiserver`` are to kube-apiserver:
quantities, Go time and YAML, names, label and field selectors, the three patch types, decoding
(JSON, YAML, protobuf, typed), the schemas and field validation, CEL syntax, feature gates, the
clock and the typed errors that render as ``Status``. A module here knows no served kind by name
and imports nothing from the layers above (see :mod:`fake_apiserver`).
"""
