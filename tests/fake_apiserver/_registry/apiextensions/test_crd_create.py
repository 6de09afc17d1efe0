"""A CustomResourceDefinition's create
(:mod:`fake_apiserver._registry.apiextensions.customresourcedefinition`): its defaults, the status
it gets and its establishing, the cleanup finalizer of its first delete, and the 422s of invalid
bodies: a few messages written out, then the whole corpus below, posted with ``?dryRun=All``
(``create.json``).

Each expected answer was kube-apiserver v1.37.2's, kept in ``tests/data/apiextensions/``; with
``KUBEBUILDER_ASSETS`` set, the differential test posts the same requests to a real server again
(``real`` in this folder's conftest) and compares code, message and causes with what the rules give.
"""

from __future__ import annotations

import json

import pytest

from fake_apiserver._registry.apiextensions.customresourcedefinition.strategy import CLEANUP_FINALIZER, mark_for_cleanup
from fake_apiserver._registry.apiextensions.customresourcedefinition.validation import crd_errors
from tests.support.crds import (
    DATA,
    LATER,
    NOW,
    CrdClient,
    Obj,
    answer_of,
    crd,
    established,
    fake_create,
    needs_binaries,
    obj,
    version,
)


SPEC_REPLICAS = obj(spec=obj(replicas={"type": "integer"}), status=obj(replicas={"type": "integer"}))

CORPUS: dict[str, Obj] = {
    "valid-minimal": crd(),
    "valid-full": crd("gizmos", kind="Gizmo", scope="Cluster", names={
        "plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoCollection",
        "shortNames": ["gz"], "categories": ["all"]}, versions=[
        {"name": "v1", "served": True, "storage": True,
         "schema": {"openAPIV3Schema": SPEC_REPLICAS},
         "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas",
                                                  "statusReplicasPath": ".status.replicas"}},
         "additionalPrinterColumns": [{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}]},
        {"name": "v1beta1", "served": False, "storage": False,
         "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]),
    "name-mismatch": crd(name="things.example.com"),
    "group-no-dot": crd(group="example"),
    "group-uppercase": crd(group="Example.com"),
    "group-empty": crd(group="", name="widgets."),
    "scope-empty": crd(scope=""),
    "scope-unsupported": crd(scope="Global"),
    "versions-empty": crd(versions=[]),
    "two-storage-versions": crd(versions=[version("v1", True), version("v2", True)]),
    "duplicate-version-names": crd(versions=[version("v1", True), version("v1")]),
    "version-name-invalid": crd(versions=[version("V1", True)]),
    "plural-invalid": crd("Widgets", name="Widgets.example.com"),
    "kind-invalid": crd(kind="Wid_get"),
    "kind-empty": crd(kind=""),
    "list-kind-same-as-kind": crd(names={"plural": "widgets", "kind": "Widget", "listKind": "Widget"}),
    "short-names-and-categories-invalid": crd(names={"plural": "widgets", "kind": "Widget", "shortNames": ["w", "W-1"],
                                                     "categories": ["all", "my_cat"]}),
    "singular-invalid": crd(names={"plural": "widgets", "singular": "Widget", "kind": "Widget"}),
    "preserve-unknown-fields-true": crd(preserveUnknownFields=True),
    "version-without-schema": crd(versions=[{"name": "v1", "served": True, "storage": True}]),
    "root-type-missing": crd(schema={"properties": {"spec": {"type": "object"}}}),
    "root-type-string": crd(schema={"type": "string"}),
    "property-type-missing": crd(schema=obj(spec={"description": "no type"})),
    "items-type-missing": crd(schema=obj(spec={"type": "array", "items": {"description": "x"}})),
    "array-without-items": crd(schema=obj(list={"type": "array"})),
    "type-unsupported": crd(schema=obj(spec={"type": "map"})),
    "type-null": crd(schema=obj(spec={"type": "null"})),
    "additional-properties-with-properties": crd(schema=obj(spec={
        "type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}})),
    "additional-properties-at-root": crd(schema={"type": "object", "additionalProperties": {"type": "string"}}),
    "metadata-with-labels": crd(schema=obj(metadata=obj(labels={"type": "object"}))),
    "metadata-name-only": crd(schema=obj(metadata=obj(name={"type": "string", "maxLength": 20}))),
    "nested-metadata": crd(schema=obj(spec=obj(metadata=obj(foo={"type": "string"})))),
    "kind-property-not-string": crd(schema=obj(kind={"type": "integer"})),
    "preserve-unknown-fields-false": crd(schema=obj(spec={"type": "object", "x-kubernetes-preserve-unknown-fields": False})),
    "int-or-string-with-preserve": crd(schema=obj(port={"x-kubernetes-int-or-string": True,
                                                       "x-kubernetes-preserve-unknown-fields": True})),
    "int-or-string-valid": crd(schema=obj(port={"x-kubernetes-int-or-string": True})),
    "int-or-string-anyof-valid": crd(schema=obj(port={"x-kubernetes-int-or-string": True,
                                                     "anyOf": [{"type": "integer"}, {"type": "string"}]})),
    "anyof-with-type": crd(schema=obj(spec={"type": "object", "anyOf": [{"type": "object"}]})),
    "unique-items": crd(schema=obj(list={"type": "array", "items": {"type": "string"}, "uniqueItems": True})),
    "list-type-unsupported": crd(schema=obj(list={"type": "array", "items": {"type": "string"},
                                                  "x-kubernetes-list-type": "bag"})),
    "list-type-on-object": crd(schema=obj(spec={"type": "object", "x-kubernetes-list-type": "atomic"})),
    "list-type-map-without-keys": crd(schema=obj(list={"type": "array", "items": obj(name={"type": "string"}),
                                                       "x-kubernetes-list-type": "map"})),
    "list-map-keys-without-map": crd(schema=obj(list={"type": "array", "items": obj(name={"type": "string"}),
                                                      "x-kubernetes-list-type": "atomic",
                                                      "x-kubernetes-list-map-keys": ["name"]})),
    "list-map-keys-unknown-property": crd(schema=obj(list={"type": "array", "items": obj(name={"type": "string"}),
                                                           "x-kubernetes-list-type": "map",
                                                           "x-kubernetes-list-map-keys": ["id"]})),
    "list-map-key-optional": crd(schema=obj(list={"type": "array", "items": obj(name={"type": "string"}),
                                                  "x-kubernetes-list-type": "map",
                                                  "x-kubernetes-list-map-keys": ["name"]})),
    "list-map-valid": crd(schema=obj(list={"type": "array", "items": {**obj(name={"type": "string"}), "required": ["name"]},
                                           "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})),
    "list-set-of-objects": crd(schema=obj(list={"type": "array", "items": obj(name={"type": "string"}),
                                                "x-kubernetes-list-type": "set"})),
    "map-type-unsupported": crd(schema=obj(spec={"type": "object", "x-kubernetes-map-type": "deep"})),
    "nullable-root": crd(schema={"type": "object", "nullable": True}),
    "default-in-metadata": crd(schema=obj(metadata=obj(name={"type": "string", "default": "x"}))),
    "default-wrong-type": crd(schema=obj(spec=obj(size={"type": "integer", "default": "big"}))),
    "default-not-pruned": crd(schema=obj(spec={"type": "object", "default": {"a": 1}, "properties": {"b": {"type": "integer"}}})),
    "default-valid": crd(schema=obj(spec=obj(size={"type": "integer", "default": 3}))),
    "status-subresource-root-enum": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": {"type": "object", "minProperties": 1}}, "subresources": {"status": {}}}]),
    "scale-paths-wrong": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": SPEC_REPLICAS},
        "subresources": {"scale": {"specReplicasPath": ".status.replicas", "statusReplicasPath": "status.replicas",
                                   "labelSelectorPath": ".selector"}}}]),
    "scale-paths-missing": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": SPEC_REPLICAS}, "subresources": {"scale": {"specReplicasPath": ""}}}]),
    "printer-columns-invalid": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": SPEC_REPLICAS}, "additionalPrinterColumns": [
            {"name": "", "type": "", "jsonPath": ""},
            {"name": "Age", "type": "time", "format": "hex", "jsonPath": "spec.replicas"}]}]),
    "selectable-field-object": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": SPEC_REPLICAS}, "selectableFields": [
            {"jsonPath": ".spec"}, {"jsonPath": ".metadata.name"}, {"jsonPath": ".spec.missing"},
            {"jsonPath": ".spec.replicas"}, {"jsonPath": ".spec.replicas"}, {"jsonPath": ""}]}]),
    "selectable-fields-too-many": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": obj(spec=obj(**{f"f{i}": {"type": "string"} for i in range(9)}))},
        "selectableFields": [{"jsonPath": f".spec.f{i}"} for i in range(9)]}]),
    "selectable-field-valid": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": obj(spec=obj(color={"type": "string", "enum": ["red"]}, on={"type": "boolean"}))},
        "selectableFields": [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.on"}]}]),
    "cel-syntax-error": crd(schema=obj(spec={"type": "object", "x-kubernetes-validations": [{"rule": "self.a =="}]})),
    "cel-rule-empty-message-newline": crd(schema=obj(spec={"type": "object", "x-kubernetes-validations": [
        {"rule": "", "message": ""}, {"rule": "true", "message": "a\nb"}, {"rule": "true", "reason": "Bad"}]})),
    "conversion-webhook-missing-config": crd(conversion={"strategy": "Webhook"}),
    "conversion-unsupported": crd(conversion={"strategy": "Magic"}),
    "deprecation-warning-too-long": crd(versions=[version("v1", True, deprecated=True, deprecationWarning="x" * 257)]),
    "ref-and-id": crd(schema=obj(spec={"type": "object", "$ref": "#/x", "id": "y"})),
    "pattern-invalid": crd(schema=obj(spec={"type": "string", "pattern": "(a"})),
    "k8s-io-group-unapproved": crd(group="foo.k8s.io"),
    "k8s-io-group-approval-not-a-url": crd(group="foo.k8s.io", name="widgets.foo.k8s.io"),
    "k8s-io-group-unapproved-reason": crd(group="bar.kubernetes.io"),
    "k8s-io-group-approved-url": crd(group="k8s.io"),
    "embedded-resource-without-properties": crd(schema=obj(template={"type": "object",
                                                                     "x-kubernetes-embedded-resource": True})),
    "embedded-resource-not-object": crd(schema=obj(template={"type": "string", "x-kubernetes-embedded-resource": True})),
    "embedded-resource-valid": crd(schema=obj(template={"type": "object", "x-kubernetes-embedded-resource": True,
                                                        "x-kubernetes-preserve-unknown-fields": True})),
    "int-or-string-allof-valid": crd(schema=obj(port={"x-kubernetes-int-or-string": True, "allOf": [
        {"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^[0-9a-z]+$"}]})),
    "nested-metadata-in-anyof": crd(schema=obj(spec={"type": "object", "anyOf": [
        {"properties": {"metadata": {"description": "x"}}, "required": ["a"]}]})),
    "additional-properties-false-with-properties": crd(schema=obj(spec={
        "type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False})),
    "map-type-on-array": crd(schema=obj(list={"type": "array", "items": {"type": "string"},
                                              "x-kubernetes-map-type": "atomic"})),
    "list-map-key-not-scalar": crd(schema=obj(list={"type": "array", "x-kubernetes-list-type": "map",
                                                    "x-kubernetes-list-map-keys": ["ref"],
                                                    "items": {**obj(ref=obj(name={"type": "string"})),
                                                              "required": ["ref"]}})),
    "list-map-keys-duplicate": crd(schema=obj(list={"type": "array", "x-kubernetes-list-type": "map",
                                                    "x-kubernetes-list-map-keys": ["name", "name"],
                                                    "items": {**obj(name={"type": "string"}), "required": ["name"]}})),
    "list-map-of-strings": crd(schema=obj(list={"type": "array", "x-kubernetes-list-type": "map",
                                                "x-kubernetes-list-map-keys": ["name"], "items": {"type": "string"}})),
    "list-set-nullable-items": crd(schema=obj(list={"type": "array", "x-kubernetes-list-type": "set",
                                                    "items": {"type": "string", "nullable": True}})),
    "list-set-of-granular-lists": crd(schema=obj(list={"type": "array", "x-kubernetes-list-type": "set", "items": {
        "type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"}})),
    "status-subresource-root-type-string": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": {"type": "string"}}, "subresources": {"status": {}}}]),
    "per-version-subresources": crd(versions=[
        {**version("v1", True), "subresources": {"scale": {"specReplicasPath": "spec", "statusReplicasPath": ".status.r"}}},
        {**version("v2"), "subresources": {"status": {}}}]),
    "per-version-columns-and-fields": crd(versions=[
        {**version("v1", True), "additionalPrinterColumns": [{"name": "X", "type": "string", "jsonPath": ""}],
         "selectableFields": [{"jsonPath": ".spec.x"}]},
        {**version("v2"), "schema": {"openAPIV3Schema": obj(spec=obj(x={"type": "number"}))},
         "selectableFields": [{"jsonPath": ".spec.x"}]}]),
    "deprecation-warning-not-deprecated": crd(versions=[version("v1", True, deprecationWarning="old")]),
    "deprecation-warning-empty": crd(versions=[version("v1", True, deprecated=True, deprecationWarning="")]),
    "conversion-webhook-url-and-service": crd(conversion={"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": "https://example.com/convert", "service": {"namespace": "ns", "name": "svc"}},
        "conversionReviewVersions": ["v1", "v1", "V2"]}}),
    "conversion-webhook-review-versions-unknown": crd(conversion={"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": "https://example.com/convert"}, "conversionReviewVersions": ["v3"]}}),
    "conversion-none-with-webhook": crd(conversion={"strategy": "None", "webhook": {
        "clientConfig": {"url": "https://example.com/convert"}, "conversionReviewVersions": ["v1"]}}),
    "default-in-items-wrong-type": crd(schema=obj(list={"type": "array", "items": {"type": "string", "default": 5}})),
    "default-object-valid": crd(schema=obj(spec={"type": "object", "default": {"a": "x"},
                                                 "properties": {"a": {"type": "string"}}})),
    "default-with-preserve-unknown-fields": crd(schema=obj(spec={"type": "object", "default": {"a": 1},
                                                                 "x-kubernetes-preserve-unknown-fields": True})),
    "description-on-metadata": crd(schema=obj(metadata={"type": "object", "description": "meta"})),
    "api-version-property-not-string": crd(schema=obj(apiVersion={"type": "object"})),
    "items-as-array": crd(schema=obj(list={"type": "array", "items": [{"type": "string"}]})),
    "many-errors-at-once": crd("Bad_Plural", "nodot", "bad kind", scope="", name="Bad_Plural.nodot",
                               versions=[version("V1"), version("V1")]),
    "cel-message-expression-blank-and-field-path": crd(schema=obj(spec={"type": "object", "properties": {
        "a": {"type": "string"}}, "x-kubernetes-validations": [
        {"rule": "true", "messageExpression": "  "}, {"rule": "true", "fieldPath": ".b"},
        {"rule": "true\n&& true"}, {"rule": "true", "message": "   "}]})),
    "selectable-field-declared-metadata-and-brackets": crd(versions=[{"name": "v1", "served": True, "storage": True,
        "schema": {"openAPIV3Schema": obj(metadata=obj(name={"type": "string"}), spec=obj(labels={
            "type": "object", "additionalProperties": {"type": "string"}}))},
        "selectableFields": [{"jsonPath": ".metadata.name"}, {"jsonPath": ".spec['labels']"},
                             {"jsonPath": "spec.labels"}, {"jsonPath": ".spec.labels.app"}, {"jsonPath": ".spec."}]}]),
    "cel-field-paths": crd(schema=obj(spec={"type": "object", "properties": {
        "a": {"type": "object", "additionalProperties": {"type": "string"}}}, "x-kubernetes-validations": [
        {"rule": "true", "fieldPath": ".a['x']"}, {"rule": "true", "fieldPath": ".a.y"}, {"rule": "true", "fieldPath": "a"},
        {"rule": "true", "fieldPath": ".a[x]"}, {"rule": "true", "fieldPath": ".a\n"}]})),
    "kubebuilder-style-valid": crd("certificates", "cert.example.io", "Certificate", versions=[{
        "name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
        "additionalPrinterColumns": [
            {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
            {"name": "Secret", "type": "string", "jsonPath": ".spec.secretName", "priority": 1,
             "description": "the secret"},
            {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}],
        "schema": {"openAPIV3Schema": {
            "description": "A Certificate.", "type": "object", "required": ["spec"],
            "properties": {
                "apiVersion": {"description": "APIVersion", "type": "string"},
                "kind": {"description": "Kind", "type": "string"},
                "metadata": {"type": "object"},
                "spec": {"type": "object", "required": ["secretName"],
                         "x-kubernetes-validations": [{"rule": "self.secretName.size() > 0", "message": "named"}],
                         "properties": {
                             "secretName": {"type": "string", "maxLength": 253, "pattern": "^[a-z0-9.-]+$"},
                             "duration": {"type": "string", "format": "duration"},
                             "port": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                             "usages": {"type": "array", "items": {"type": "string", "enum": ["signing", "server auth"]},
                                        "x-kubernetes-list-type": "set"},
                             "issuerRef": {"type": "object", "x-kubernetes-map-type": "atomic", "properties": {
                                 "name": {"type": "string"}, "kind": {"type": "string", "default": "Issuer"}}},
                             "keystore": {"type": "object", "nullable": True,
                                          "additionalProperties": {"type": "string"}},
                             "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": 1}}},
                "status": {"type": "object", "properties": {
                    "replicas": {"type": "integer"},
                    "notAfter": {"type": "string", "format": "date-time"},
                    "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
                                   "items": {"type": "object", "required": ["status", "type"], "properties": {
                                       "type": {"type": "string"}, "status": {"type": "string",
                                                                              "enum": ["True", "False", "Unknown"]},
                                       "lastTransitionTime": {"type": "string", "format": "date-time"},
                                       "observedGeneration": {"type": "integer", "format": "int64"}}}}}}}}}}],
        names={"plural": "certificates", "kind": "Certificate", "shortNames": ["cert", "certs"],
               "categories": ["cert-manager"]}),
    "multi-version-webhook-valid": crd("gadgets", kind="Gadget", versions=[
        {"name": "v1beta1", "served": True, "storage": False, "deprecated": True,
         "deprecationWarning": "example.com/v1beta1 Gadget is deprecated",
         "schema": {"openAPIV3Schema": obj(spec=obj(size={"type": "string"}))}},
        {"name": "v1", "served": True, "storage": True,
         "schema": {"openAPIV3Schema": obj(spec=obj(size={"type": "integer"}))}}],
        conversion={"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1", "v1beta1"], "clientConfig": {
            "service": {"namespace": "system", "name": "webhook", "path": "/convert"}}}}),
    "conversion-webhook-url-invalid": crd(conversion={"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": "http://user@example.com/convert?x=1#frag"}, "conversionReviewVersions": ["v1"]}}),
    "conversion-webhook-url-no-host": crd(conversion={"strategy": "Webhook", "webhook": {
        "clientConfig": {"url": "https:///convert"}, "conversionReviewVersions": ["v1"]}}),
    "conversion-webhook-service-invalid": crd(conversion={"strategy": "Webhook", "webhook": {
        "clientConfig": {"service": {"namespace": "", "name": "svc", "port": 70000, "path": "convert//Bad_seg/"}},
        "conversionReviewVersions": ["v1"]}}),
    "pattern-unclosed-bracket": crd(schema=obj(spec={"type": "string", "pattern": "[a-z"})),
    "pattern-nothing-to-repeat": crd(schema=obj(spec={"type": "string", "pattern": "*a"})),
}


# --------------------------------------------------------------------------- defaults and status on create


def test_a_minimal_crd_is_defaulted_and_gets_the_empty_status_and_its_storage_version() -> None:
    answer, obj = fake_create(crd())
    assert obj is not None and obj["metadata"]["generation"] == 1
    assert answer == {"code": 201, "spec": {
        "group": "example.com", "names": {"plural": "widgets", "kind": "Widget", "singular": "widget",
                                          "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}],
        "conversion": {"strategy": "None"}},
        "status": {"conditions": None, "acceptedNames": {"plural": "", "kind": ""}, "storedVersions": ["v1"]}}
    assert "finalizers" not in obj["metadata"]


def test_a_created_crd_is_established_with_its_names_accepted() -> None:
    obj = established(crd())
    assert obj["status"] == {
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "lastTransitionTime": NOW, "reason": "NoConflicts",
             "message": "no conflicts found"},
            {"type": "Established", "status": "True", "lastTransitionTime": NOW, "reason": "InitialNamesAccepted",
             "message": "the initial names have been accepted"}],
        "acceptedNames": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "storedVersions": ["v1"]}


def test_the_first_delete_adds_the_cleanup_finalizer() -> None:
    obj = established(crd())
    mark_for_cleanup(obj, LATER)
    assert (obj["metadata"]["finalizers"], obj["metadata"]["deletionTimestamp"]) == (
        ["customresourcecleanup.apiextensions.k8s.io"], LATER)
    assert CLEANUP_FINALIZER == "customresourcecleanup.apiextensions.k8s.io"
    mark_for_cleanup(obj, "2026-01-01T00:02:00Z")
    assert obj["metadata"]["deletionTimestamp"] == LATER


# --------------------------------------------------------------------------- create: messages as literals


def _messages(body: Obj) -> str:
    answer, _ = fake_create(body)
    assert answer["code"] == 422, answer
    return str(answer["message"]).split(" is invalid: ", 1)[1]


def test_the_name_must_be_the_plural_dot_the_group() -> None:
    assert _messages(crd(name="things.example.com")) == (
        'metadata.name: Invalid value: "things.example.com": must be spec.names.plural+"."+spec.group')


def test_the_group_needs_a_dot() -> None:
    assert _messages(crd(group="example")) == 'spec.group: Invalid value: "example": should be a domain with at least one dot'


def test_a_schema_without_a_type_at_the_root_is_not_structural() -> None:
    assert _messages(crd(schema={"properties": {"spec": {"type": "object"}}})) == (
        "spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root")


def test_metadata_may_only_constrain_name_and_generate_name() -> None:
    assert _messages(crd(schema=obj(metadata=obj(labels={"type": "object"})))) == (
        "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name "
        "and generateName, but metadata is implicitly specified")
    assert fake_create(crd(schema=obj(metadata=obj(name={"type": "string", "maxLength": 20}))))[0]["code"] == 201


def test_a_list_map_key_must_be_required_or_defaulted() -> None:
    assert _messages(crd(schema=obj(list={"type": "array", "items": obj(name={"type": "string"}),
                                          "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}))) == (
        "spec.validation.openAPIV3Schema.properties[list].items.properties[name].default: Required value: this "
        "property is in x-kubernetes-list-map-keys, so it must have a default or be a required property")


def test_a_per_version_schema_is_reported_under_its_version() -> None:
    """Two versions with different schemas keep them per version (the internal form hoists only
    identical ones to ``spec.validation``)."""
    versions = [version("v1", True), {**version("v2"), "schema": {"openAPIV3Schema": {"type": "string"}}}]
    assert _messages(crd(versions=versions)) == (
        'spec.versions[1].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root')


def test_a_cel_rule_that_does_not_parse_is_refused_with_the_parser_report() -> None:
    assert _messages(crd(schema=obj(spec={"type": "object", "x-kubernetes-validations": [{"rule": "self.a =="}]}))) == (
        'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: '
        '{"Rule":"self.a ==","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: '
        "compilation failed: ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', "
        "'.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
        " | self.a ==\n | .........^")


def test_preserve_unknown_fields_may_not_be_true_in_v1() -> None:
    assert _messages(crd(preserveUnknownFields=True)) == (
        "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields "
        "to true in spec.versions[*].schema instead")


def test_crd_errors_of_a_valid_crd_are_none() -> None:
    _, obj = fake_create(crd())
    assert obj is not None and crd_errors(obj) == []


# --------------------------------------------------------------------------- create: the whole corpus


CAPTURED_CREATE: dict[str, Obj] = json.loads((DATA / "create.json").read_text())


def test_the_corpus_is_the_one_captured() -> None:
    assert sorted(CORPUS) == sorted(CAPTURED_CREATE)
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_create_answers_as_kube_apiserver_did(name: str) -> None:
    assert fake_create(CORPUS[name])[0] == CAPTURED_CREATE[name]


@needs_binaries
def test_the_corpus_agrees_with_a_real_kube_apiserver(real: CrdClient) -> None:
    """Every body of the corpus, posted with ``?dryRun=All``: code, message and causes (or, for a
    201, the defaulted spec and the new status) as the rules give them."""
    disagreements = {}
    for name, body in sorted(CORPUS.items()):
        code, answer = real.request("POST", "?dryRun=All", body)
        theirs = answer_of(code, answer, ("spec", "status"))
        ours = fake_create(body)[0]
        if theirs != ours:
            disagreements[name] = (theirs, ours)
    print(f"{len(CORPUS) - len(disagreements)} of {len(CORPUS)} creates agree")
    assert disagreements == {}
