"""CustomResourceDefinitions (:mod:`fake_apiserver._registry.apiextensions.customresourcedefinition`): defaults, the 422s
of create and update, the naming and establishing controllers' status, the cleanup finalizer.

Every expected message was answered by kube-apiserver v1.37.2: the corpus below was posted to it
(``?dryRun=All``) and its answers kept in ``tests/data/apiextensions/create.json``; the naming
conflicts (``naming.json``) and the update sequence (``update.json``) likewise. With
``KUBEBUILDER_ASSETS`` set, the differential tests post the same bodies to a real server again and
compare code, message and causes with what the rules give.
"""

from __future__ import annotations

import base64
import copy
import json
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
import yaml

from fake_apiserver._machinery.errors import Invalid
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry import meta as object_meta
from fake_apiserver._registry.apiextensions.customresourcedefinition import KIND as CRD_KIND
from fake_apiserver._registry.apiextensions.customresourcedefinition.naming import names_status
from fake_apiserver._registry.apiextensions.customresourcedefinition.strategy import (
    CLEANUP_FINALIZER,
    CustomResourceDefinitionStrategy,
    mark_for_cleanup,
)
from fake_apiserver._registry.apiextensions.customresourcedefinition.validation import crd_errors
from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, envtest_unavailable, find_assets

DATA = Path(__file__).parent / "data" / "apiextensions"
NOW = "2026-01-01T00:00:00Z"
LATER = "2026-01-01T00:01:00Z"
SPEC = KindSpec("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
                "customresourcedefinition", short_names=("crd", "crds"), subresources=("status",),
                categories=("api-extensions",))
needs_binaries = pytest.mark.skipif(
    envtest_unavailable() is not None,
    reason=f"set {ASSETS_VARIABLE} to a directory holding etcd and kube-apiserver (setup-envtest use -p path)")

Obj = dict[str, Any]


def crd(plural: str = "widgets", group: str = "example.com", kind: str = "Widget", *, scope: str = "Namespaced",
        schema: Any = None, versions: Any = None, name: str | None = None, names: Obj | None = None, **spec: Any) -> Obj:
    version = {"name": "v1", "served": True, "storage": True,
               "schema": {"openAPIV3Schema": schema if schema is not None else {"type": "object"}}}
    body: Obj = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": name if name is not None else f"{plural}.{group}"},
        "spec": {"group": group, "names": names if names is not None else {"plural": plural, "kind": kind},
                 "scope": scope, "versions": versions if versions is not None else [version], **spec},
    }
    return body


def version(name: str, storage: bool = False, **extra: Any) -> Obj:
    return {"name": name, "served": True, "storage": storage,
            "schema": {"openAPIV3Schema": {"type": "object"}}, **extra}


def obj(**props: Any) -> Obj:
    return {"type": "object", "properties": props}


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


# --------------------------------------------------------------------------- the fake's answers


def _strategy() -> CustomResourceDefinitionStrategy:
    strategy = CRD_KIND.strategy
    assert strategy is not None
    built = strategy(SPEC, None)  # type: ignore[arg-type]  # the CRD strategy reads no options
    assert isinstance(built, CustomResourceDefinitionStrategy)
    built.use(CRD_KIND)
    return built


def _refusal(error: Invalid) -> Obj:
    status = error.to_status()
    return {"code": status["code"], "message": status["message"], "causes": status["details"]["causes"]}


def fake_create(body: Obj) -> tuple[Obj, Obj | None]:
    """What the rules answer to a POST of ``body``: the answer as captured (code and message and
    causes, or code, spec and status), and the object created."""
    obj = copy.deepcopy(body)
    strategy = _strategy()
    strategy.default(obj)  # as the store does right after decoding
    strategy.prepare_for_create(obj, NOW)
    errors = object_meta.validate_object_meta(SPEC, obj, create=True) + strategy.validate_create(obj)
    try:
        object_meta.check(SPEC, obj["metadata"].get("name") or "", errors)
    except Invalid as error:
        return _refusal(error), None
    return {"code": 201, "spec": obj["spec"], "status": obj["status"]}, obj


def fake_update(old: Obj, new: Obj, *, status: bool) -> tuple[Obj, Obj | None]:
    """What the rules answer to a PUT of ``new`` over ``old`` (through ``/status`` when ``status``)."""
    obj = copy.deepcopy(new)
    strategy = _strategy()
    strategy.default(obj)  # as the store does right after decoding
    if status:
        strategy.prepare_for_status_update(obj, old, NOW)
        errors = strategy.validate_status_update(obj, old)
    else:
        strategy.prepare_for_update(obj, old)
        errors = strategy.validate_update(obj, old)
    if obj["metadata"] != old["metadata"]:
        errors = object_meta.validate_object_meta(SPEC, obj, create=False, old=old) + errors
    try:
        object_meta.check(SPEC, obj["metadata"]["name"], errors)
    except Invalid as error:
        return _refusal(error), None
    answer = {"code": 200, "metadata": {k: obj["metadata"].get(k) for k in ("generation", "labels", "finalizers")},
              "spec": obj["spec"], "status": obj["status"]}
    return answer, obj


def _without_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if k != "lastTransitionTime"}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _established(body: Obj, others: list[Obj] = []) -> Obj:  # noqa: B006  # never mutated
    answer, obj = fake_create(body)
    assert obj is not None, answer
    obj["status"] = names_status(obj, others, NOW)
    return obj


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
    obj = _established(crd())
    assert obj["status"] == {
        "conditions": [
            {"type": "NamesAccepted", "status": "True", "lastTransitionTime": NOW, "reason": "NoConflicts",
             "message": "no conflicts found"},
            {"type": "Established", "status": "True", "lastTransitionTime": NOW, "reason": "InitialNamesAccepted",
             "message": "the initial names have been accepted"}],
        "acceptedNames": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "storedVersions": ["v1"]}


def test_the_first_delete_adds_the_cleanup_finalizer() -> None:
    obj = _established(crd())
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


# --------------------------------------------------------------------------- update


def _set_scope(o: Obj) -> None:
    o["spec"]["scope"] = "Cluster"


def _set_kind(o: Obj) -> None:
    o["spec"]["names"].update(kind="Gadget", listKind="GadgetList", singular="gadget")


def _set_group(o: Obj) -> None:
    o["spec"]["group"] = "other.example.com"


def _set_plural(o: Obj) -> None:
    o["spec"]["names"]["plural"] = "gadgets"


def _write_status_in_main(o: Obj) -> None:
    o["status"]["storedVersions"] = ["v9"]
    o["status"]["acceptedNames"]["kind"] = "Other"


def _add_short_name(o: Obj) -> None:
    o["spec"]["names"]["shortNames"] = ["wd"]


def _no_change(o: Obj) -> None:
    pass


def _add_v2_storage(o: Obj) -> None:
    o["spec"]["versions"][0]["storage"] = False
    o["spec"]["versions"].append(version("v2", True))


def _remove_v1(o: Obj) -> None:
    o["spec"]["versions"].pop(0)


def _stored(*names: str) -> Callable[[Obj], None]:
    def mutate(o: Obj) -> None:
        o["status"]["storedVersions"] = list(names)
    return mutate


def _bad_accepted_plural(o: Obj) -> None:
    o["metadata"]["labels"] = {"a": "b"}
    o["spec"]["scope"] = "Cluster"
    o["status"]["storedVersions"] = ["v2"]
    o["status"]["acceptedNames"]["plural"] = "Bad_Plural"


def _status_with_meta_and_spec(o: Obj) -> None:
    o["metadata"]["labels"] = {"a": "b"}
    o["spec"]["scope"] = "Cluster"
    o["status"]["storedVersions"] = ["v2"]


UPDATES: list[tuple[str, Callable[[Obj], None], bool]] = [
    ("scope", _set_scope, False), ("kind", _set_kind, False), ("group", _set_group, False),
    ("plural", _set_plural, False), ("main-write-ignores-status", _write_status_in_main, False),
    ("spec-change-generation", _add_short_name, False), ("no-change-generation", _no_change, False),
    ("add-v2-storage", _add_v2_storage, False), ("remove-v1-stored", _remove_v1, False),
    ("status-stored-without-storage", _stored("v1"), True), ("status-stored-unknown", _stored("v2", "v7"), True),
    ("status-stored-empty", _stored(), True), ("status-bad-accepted-names", _bad_accepted_plural, True),
    ("status-write-resets-meta-and-spec", _status_with_meta_and_spec, True),
]
"""An established CRD updated step by step (each step on the object as the last success left it,
the naming controller run after each): what ``update.json`` recorded."""

UPDATE_GROUP = "update.example.com"


def fake_update_sequence() -> Iterator[tuple[str, Obj]]:
    state = _established(crd("widgets", UPDATE_GROUP, versions=[version("v1", True)]))
    for key, mutate, status in UPDATES:
        new = copy.deepcopy(state)
        mutate(new)
        answer, written = fake_update(state, new, status=status)
        if written is not None:
            state = written
            state["status"] = names_status(state, [], NOW)
        yield key, answer


CAPTURED_UPDATE: dict[str, Obj] = json.loads((DATA / "update.json").read_text())


@pytest.mark.parametrize(("key", "answer"), list(fake_update_sequence()), ids=[u[0] for u in UPDATES])
def test_each_update_answers_as_kube_apiserver_did(key: str, answer: Obj) -> None:
    assert _without_times(answer) == _without_times(CAPTURED_UPDATE[key])


def test_a_version_still_stored_may_not_be_removed() -> None:
    assert dict(fake_update_sequence())["remove-v1-stored"]["message"] == (
        'CustomResourceDefinition.apiextensions.k8s.io "widgets.update.example.com" is invalid: '
        'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage '
        "version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 "
        "and removes v1 from status.storedVersions")


def test_scope_is_immutable_once_established_and_the_generation_follows_the_spec() -> None:
    answers = dict(fake_update_sequence())
    assert answers["scope"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.scope",
                                          "message": 'Invalid value: "Cluster": field is immutable'}]
    assert [answers[k]["metadata"]["generation"] for k in
            ("main-write-ignores-status", "spec-change-generation", "no-change-generation", "add-v2-storage")] == [1, 2, 2, 3]
    assert answers["add-v2-storage"]["status"]["storedVersions"] == ["v1", "v2"]


def test_a_status_write_keeps_the_spec_and_takes_the_labels() -> None:
    answer = dict(fake_update_sequence())["status-write-resets-meta-and-spec"]
    assert (answer["spec"]["scope"], answer["metadata"]["labels"], answer["status"]["storedVersions"]) == (
        "Namespaced", {"a": "b"}, ["v2"])


# --------------------------------------------------------------------------- the naming controller


NAMING_GROUP = "conflict.example.com"
NAMING: list[tuple[str, Obj]] = [
    ("kind", {"plural": "gadgets", "kind": "Widget"}),
    ("singular", {"plural": "gizmos", "singular": "widgets", "kind": "Gizmo"}),
    ("plural-as-singular", {"plural": "widget", "kind": "Thing"}),
    ("shortnames", {"plural": "doohickeys", "kind": "Doohickey", "shortNames": ["wd", "widget", "dh"]}),
    ("listkind", {"plural": "sprockets", "kind": "Sprocket", "listKind": "WidgetList"}),
    ("kind-equals-other-listkind", {"plural": "lists", "kind": "WidgetList"}),
]
FIRST_NAMES = {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"], "listKind": "WidgetList"}


def fake_naming_sequence() -> dict[str, Obj]:
    """``naming.json``'s sequence: a first CRD, then six of the same group each conflicting with
    it in one way, then the first deleted and the others' names reconsidered."""
    stored: dict[str, Obj] = {}
    out: dict[str, Obj] = {}
    first = _established(crd("widgets", NAMING_GROUP, names=dict(FIRST_NAMES)))
    stored[first["metadata"]["name"]] = first
    out["first"] = first["status"]
    for key, names in NAMING:
        obj = _established(crd(str(names["plural"]), NAMING_GROUP, names=dict(names)), list(stored.values()))
        stored[obj["metadata"]["name"]] = obj
        out["conflict-" + key] = obj["status"]
    del stored["widgets." + NAMING_GROUP]
    for name in list(stored):  # the controller requeues the whole group (here in creation order)
        stored[name]["status"] = names_status(stored[name], list(stored.values()), LATER)
    out["after-delete-kind"] = stored["gadgets." + NAMING_GROUP]["status"]
    out["after-delete-singular"] = stored["gizmos." + NAMING_GROUP]["status"]
    return out


CAPTURED_NAMING: dict[str, Obj] = json.loads((DATA / "naming.json").read_text())


@pytest.mark.parametrize("key", sorted(CAPTURED_NAMING))
def test_names_status_gives_what_the_controllers_wrote(key: str) -> None:
    assert _without_times(fake_naming_sequence()[key]) == _without_times(CAPTURED_NAMING[key])


def test_a_kind_conflict_names_the_last_conflicting_name() -> None:
    status = fake_naming_sequence()["conflict-kind"]
    assert status["acceptedNames"] == {"plural": "gadgets", "kind": ""}
    assert [(c["type"], c["status"], c["reason"], c["message"]) for c in status["conditions"]] == [
        ("NamesAccepted", "False", "ListKindConflict", '"WidgetList" is already in use'),
        ("Established", "False", "NotAccepted", "not all names are accepted")]


def test_a_freed_name_is_accepted_and_the_transition_time_moves() -> None:
    status = fake_naming_sequence()["after-delete-kind"]
    assert [(c["type"], c["status"], c["lastTransitionTime"]) for c in status["conditions"]] == [
        ("NamesAccepted", "True", LATER), ("Established", "True", LATER)]


# --------------------------------------------------------------------------- a real kube-apiserver


class _Client:
    """Plain HTTPS to the envtest server, with the kubeconfig's CA and token."""

    BASE = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

    def __init__(self, kubeconfig: Path, tmp: Path) -> None:
        config = yaml.safe_load(kubeconfig.read_text())
        cluster = config["clusters"][0]["cluster"]
        self.url = cluster["server"]
        self.token = config["users"][0]["user"]["token"]
        ca = tmp / "ca.pem"
        ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
        self.context = ssl.create_default_context(cafile=str(ca))

    def request(self, method: str, path: str, body: Obj | None = None) -> tuple[int, Obj]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + self.BASE + path, data=data, method=method, headers={
            "Authorization": "Bearer " + self.token, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def settled(self, name: str) -> Obj:
        """The CRD once its controllers have written its status (Established, or names refused)."""
        for _ in range(150):
            _, obj = self.request("GET", "/" + name)
            conditions = {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or []}
            if conditions.get("Established") == "True" or conditions.get("NamesAccepted") == "False":
                return obj
            time.sleep(0.1)  # polling a real server's controllers, not timing anything
        raise AssertionError(f"{name} was not settled: {obj.get('status')}")


def _answer(code: int, body: Obj, keys: tuple[str, ...]) -> Obj:
    if code >= 300:
        return {"code": code, "message": body.get("message"), "causes": (body.get("details") or {}).get("causes")}
    out: Obj = {"code": code, **{k: body.get(k) for k in keys}}
    if "metadata" in out:
        out["metadata"] = {k: body["metadata"].get(k) for k in ("generation", "labels", "finalizers")}
    return out


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Client]:
    assets = find_assets()
    version_text = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                                  timeout=60, check=False).stdout.strip()
    if not version_text.startswith("Kubernetes v1.37."):
        pytest.skip(f"the recorded answers are kube-apiserver v1.37's; {ASSETS_VARIABLE} holds {version_text}")
    tmp = tmp_path_factory.mktemp("apiextensions")
    with ControlPlane(assets=assets, logdir=tmp / "logs") as control_plane:
        assert control_plane.kubeconfig_path is not None
        yield _Client(control_plane.kubeconfig_path, tmp)


@needs_binaries
def test_the_corpus_agrees_with_a_real_kube_apiserver(real: _Client) -> None:
    """Every body of the corpus, posted with ``?dryRun=All``: code, message and causes (or, for a
    201, the defaulted spec and the new status) as the rules give them."""
    disagreements = {}
    for name, body in sorted(CORPUS.items()):
        code, answer = real.request("POST", "?dryRun=All", body)
        theirs = _answer(code, answer, ("spec", "status"))
        ours = fake_create(body)[0]
        if theirs != ours:
            disagreements[name] = (theirs, ours)
    print(f"{len(CORPUS) - len(disagreements)} of {len(CORPUS)} creates agree")
    assert disagreements == {}


@needs_binaries
def test_the_update_sequence_agrees_with_a_real_kube_apiserver(real: _Client) -> None:
    body = crd("widgets", UPDATE_GROUP, versions=[version("v1", True)])
    code, answer = real.request("POST", "", body)
    assert code == 201, answer
    real.settled(body["metadata"]["name"])
    ours = dict(fake_update_sequence())
    disagreements = {}
    for key, mutate, status in UPDATES:
        _, current = real.request("GET", "/" + body["metadata"]["name"])
        mutate(current)
        code, answer = real.request("PUT", "/" + body["metadata"]["name"] + ("/status" if status else ""), current)
        theirs = _answer(code, answer, ("metadata", "spec", "status"))
        if _without_times(theirs) != _without_times(ours[key]):
            disagreements[key] = (theirs, ours[key])
        if code == 200:
            real.settled(body["metadata"]["name"])
            time.sleep(0.5)  # the naming controller's answer to a names change (polling a real server)
    print(f"{len(UPDATES) - len(disagreements)} of {len(UPDATES)} updates agree")
    assert disagreements == {}
    code, answer = real.request("DELETE", "/" + body["metadata"]["name"])
    assert (code, answer["kind"], answer["metadata"]["finalizers"]) == (
        200, "CustomResourceDefinition", [CLEANUP_FINALIZER])


@needs_binaries
def test_the_naming_sequence_agrees_with_a_real_kube_apiserver(real: _Client) -> None:
    group = "live." + NAMING_GROUP
    first = crd("widgets", group, names=dict(FIRST_NAMES))
    assert real.request("POST", "", first)[0] == 201
    real.settled(first["metadata"]["name"])
    theirs: dict[str, Obj] = {}
    for key, names in NAMING:
        body = crd(str(names["plural"]), group, names=dict(names))
        assert real.request("POST", "", body)[0] == 201
        real.settled(body["metadata"]["name"])
        time.sleep(0.5)  # let the controller settle its last word (polling a real server)
        theirs["conflict-" + key] = real.request("GET", "/" + body["metadata"]["name"])[1]["status"]
    ours = fake_naming_sequence()
    assert {k: _without_times(v) for k, v in theirs.items()} == {
        k: _without_times(v) for k, v in ours.items() if k in theirs}
