"""API machinery: pure functions of values, with no server state.

What ``k8s.io/apimachinery`` and the decoding half of ``k8s.io/apiserver`` are to kube-apiserver:
quantities, Go time and YAML, names, label and field selectors, the three patch types, decoding
(JSON, YAML, protobuf, typed), the schemas and field validation, CEL syntax, feature gates, the
clock and the typed errors that render as ``Status``. A module here knows no served kind by name
and imports nothing from the layers above (see :mod:`fake_apiserver`).

Type models: which to use when
------------------------------

A kind's fields are described in three models, one for each thing the real server does with
them: Go's types (decoding and encoding), structured-merge-diff's merge rules (managed fields,
apply) and apiextensions-apiserver's structural schemas (custom objects). Each is compiled from
schemas, the release's (``schema``) for built-in kinds and a CRD's for custom resources; only
``shapes`` are written by hand. A question about a body goes to one of them:

===================  ===============================================  ===========================
module               what it models                                   use it to
===================  ===============================================  ===========================
``schema``           the release's JSON schemas (kubernetes-validate  look up a kind's definition,
                     package): the one source of fields, types and    its release, or serve
                     ``x-kubernetes-*`` extensions                    OpenAPI; never to walk a
                                                                      body
``gotypes``          the Go types of built-in kinds (``TypeNode``     know what Go makes of a
                     trees): compiled from ``schema`` and the Go      value: Go names, pointers,
                     struct facts; also what Go's encoder writes of   ``omitempty``, patch
                     unset fields and semantic equality               strategies, the empty object
``typed``            the decoder over ``gotypes``: a body into its    decode every create, update
                     kind's Go type, strict (JSON decoder) or         and patch result of a
                     unstructured-converter wording                   built-in kind (through
                                                                      ``fieldvalidation``)
``shapes``           ``gotypes`` nodes built by hand for the fields   check a body not decoded
                     the fake reads, and a lenient check that only    with a compiled type: a
                     refuses wrong JSON types                         declared kind the release
                                                                      lacks, ``DeleteOptions``
``mergerules``       server-side apply's merge rules (``FieldType``:  compute managed fields,
                     list types and keys, map types), from            apply, find conflicts
                     ``schema`` or a CRD's ``openAPIV3Schema``        (``fieldset`` and the rest)
``structural``       a CRD version's structural schema: prune,        write a custom object
                     default, validate (kube-openapi's checks in
                     ``openapivalidator``)
===================  ===============================================  ===========================

``gotypes`` and ``typed`` are one model and its decoder (``typed`` hands out the model's
``kind_node``, the node a decoding goes into). ``mergerules`` and ``structural`` read JSON schemas as they are, because a
custom resource has no Go type and the Go types keep no merge rules; ``crdcel`` reads the same CRD
schemas for their CEL rules. A new need for a field's type goes to the model whose real
counterpart has it: Go's decoding and encoding to ``gotypes``, structured-merge-diff to
``mergerules``, apiextensions-apiserver to ``structural``.
"""
