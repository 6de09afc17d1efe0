"""ObjectMeta's rules (``fake_apiserver._registry.meta``): names and generateName, namespaces,
labels, annotations, finalizers, owner references and generation on create, the identity an update
keeps, the namespace reconciled with the request's, and the kinds that check what others skip. Exact
field errors, ``Invalid`` messages and ``Status`` causes, as kube-apiserver gives them.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fake_apiserver._machinery.errors import BadRequest, FieldError, Invalid
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._registry.kinds import by_kind
from fake_apiserver._registry.meta import check, reconcile_namespace, validate_object_meta
from tests.support.validation import NAME_RULE, PODS, SUBDOMAIN_RULE, VALUE_RULE, exact, kind, rendered

NODES = kind("", "Node")
NAMESPACES = kind("", "Namespace")
SERVICES = kind("", "Service")
CONFIGMAPS = kind("", "ConfigMap")


def test_a_bad_generate_name_is_refused_on_update_only_for_the_kinds_that_check_it() -> None:
    """kube-apiserver checks generateName on update for a ConfigMap or a Node, not for a
    PodDisruptionBudget (``ValidateObjectMetaUpdate`` through each kind's own strategy)."""
    old = {"metadata": {"name": "n", "uid": "u", "generateName": "n-"}}
    new = copy.deepcopy(old)
    new["metadata"]["generateName"] = "x%y-"
    assert rendered(validate_object_meta(NODES, new, create=False, old=old)) == [
        f'metadata.generateName: Invalid value: "x%y-": {SUBDOMAIN_RULE}']
    pdb = by_kind("policy", "PodDisruptionBudget")
    assert pdb is not None
    new["metadata"]["namespace"] = old["metadata"]["namespace"] = "d"
    assert validate_object_meta(pdb, new, create=False, old=old) == []


def test_check_lists_a_repeated_error_once() -> None:
    """``ErrorList.ToAggregate`` drops an error whose text repeats, keeping the first."""
    twice = [FieldError.required("metadata.name"), FieldError.required("metadata.namespace"),
             FieldError.required("metadata.name")]
    with pytest.raises(Invalid) as raised:
        check(CONFIGMAPS, "cm", twice)
    assert raised.value.message == ('ConfigMap "cm" is invalid: [metadata.name: Required value, '
                                    "metadata.namespace: Required value]")


# --- object metadata -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "meta", "expected"),
    [
        (CONFIGMAPS, {"namespace": "default"}, ["metadata.name: Required value: name or generateName is required"]),
        (CONFIGMAPS, {"generateName": "cm-", "namespace": "default"}, []),
        (CONFIGMAPS, {"generateName": "CM-", "namespace": "default"},
         [f'metadata.generateName: Invalid value: "CM-": {SUBDOMAIN_RULE}']),
        (CONFIGMAPS, {"name": "My_cm", "namespace": "default"},
         [f'metadata.name: Invalid value: "My_cm": {SUBDOMAIN_RULE}']),
        (CONFIGMAPS, {"name": "cm"}, ["metadata.namespace: Required value"]),
        (CONFIGMAPS, {"name": "cm", "namespace": "a.b"},
         ['metadata.namespace: Invalid value: "a.b": must not contain dots']),
        (NODES, {"name": "node-1.example.com"}, []),
        (NODES, {"name": "n", "namespace": "default"}, ["metadata.namespace: Forbidden: not allowed on this type"]),
        (NAMESPACES, {"name": "a.b"}, ['metadata.name: Invalid value: "a.b": must not contain dots']),
        # kube-apiserver v1.36 (RelaxedServiceNameValidation): a Service name is a DNS-1123 label
        (SERVICES, {"name": "1svc", "namespace": "default"}, []),
        (SERVICES, {"name": "-a", "namespace": "default"},
         ['metadata.name: Invalid value: "-a": a lowercase RFC 1123 label must consist of lower case alphanumeric '
          "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
          "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
        (NODES, {"name": "n", "labels": {"bad key": "ok", "k": "bad value!"}},
         [f'metadata.labels: Invalid value: "bad key": {NAME_RULE}',
          f'metadata.labels: Invalid value: "bad value!": {VALUE_RULE}']),
        (NODES, {"name": "n", "annotations": {"Example.COM/Key": "x", "bad key": "y"}},
         [f'metadata.annotations: Invalid value: "bad key": {NAME_RULE}']),
        (NODES, {"name": "n", "annotations": {"k": "v" * (256 * 1024)}},
         ["metadata.annotations: Too long: may not be more than 262144 bytes"]),
        (NODES, {"name": "n", "generation": -1},
         ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"]),
        (NODES, {"name": "n", "finalizers": ["example.com/f", "kubernetes", "custom"]},
         ['metadata.finalizers[2]: Invalid value: "custom": name is neither a standard finalizer name nor is it '
          "fully qualified"]),
        (NODES, {"name": "n", "finalizers": ["orphan", "foregroundDeletion"]},
         ['metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and '
          "foregroundDeletion cannot be both set"]),
        (NODES, {"name": "n", "ownerReferences": [{"apiVersion": "apps/", "kind": "ReplicaSet", "name": "r"}]},
         ['metadata.ownerReferences[0].apiVersion: Invalid value: "apps/": must be <group>/<version> or <version>',
          "metadata.ownerReferences[0].uid: Required value: must not be empty"]),
    ],
)
def test_validate_object_meta_on_create(spec: KindSpec, meta: dict[str, Any], expected: list[str]) -> None:
    assert rendered(validate_object_meta(spec, {"metadata": meta}, create=True)) == expected


def test_validate_object_meta_on_update_checks_identity_against_old() -> None:
    old = {"metadata": {"name": "n", "uid": "u1", "generation": 3, "creationTimestamp": "2024-01-01T00:00:00Z"}}
    new = {"metadata": {"name": "m", "uid": "u2", "generation": 2, "creationTimestamp": "2024-01-01T00:00:00Z"}}
    assert rendered(validate_object_meta(NODES, new, create=False, old=old)) == [
        "metadata.generation: Invalid value: 2: must not be decremented",
        'metadata.name: Invalid value: "m": field is immutable',
        'metadata.uid: Invalid value: "u2": field is immutable',
    ]
    assert validate_object_meta(NODES, old, create=False) == []


def test_no_new_finalizers_while_deleting() -> None:
    old = {"metadata": {"name": "n", "deletionTimestamp": "2024-01-01T00:00:00Z", "finalizers": ["a.io/x"]}}
    new = copy.deepcopy(old)
    new["metadata"]["finalizers"] = ["a.io/x", "b.io/y", "a.io/z"]
    assert rendered(validate_object_meta(NODES, new, create=False, old=old)) == [
        'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, '
        'found new finalizers []string{"a.io/z", "b.io/y"}',
    ]


def test_reconcile_namespace() -> None:
    obj: dict[str, Any] = {"metadata": {"name": "cm"}}
    reconcile_namespace(CONFIGMAPS, obj, "team-a")
    assert obj["metadata"]["namespace"] == "team-a"
    node: dict[str, Any] = {"metadata": {"name": "n", "namespace": "team-a"}}
    reconcile_namespace(NODES, node, "")
    assert node == {"metadata": {"name": "n"}}
    with pytest.raises(BadRequest, match=exact(
            "the namespace of the provided object does not match the namespace sent on the request")):
        reconcile_namespace(CONFIGMAPS, {"metadata": {"name": "cm", "namespace": "b"}}, "team-a")


def test_check_raises_nothing_without_errors() -> None:
    check(PODS, "p", [])


def test_event_and_pdb_names_follow_the_path_segment_rule() -> None:
    # kube-apiserver v1.36 creates a PDB named "a-" or "UPPER" but refuses ".." and a generateName
    # with a '%' ('PodDisruptionBudget.policy ".." is invalid: metadata.name: Invalid value: "..":
    # may not be '..'')
    pdb = by_kind("policy", "PodDisruptionBudget")
    assert pdb is not None
    for name in ("a-", "UPPER", "a_b"):
        assert validate_object_meta(pdb, {"metadata": {"name": name, "namespace": "d"}}, create=True) == []
    errors = validate_object_meta(pdb, {"metadata": {"name": "..", "namespace": "d"}}, create=True)
    assert [e.render() for e in errors] == ["metadata.name: Invalid value: \"..\": may not be '..'"]
    errors = validate_object_meta(pdb, {"metadata": {"generateName": "%2E", "namespace": "d"}}, create=True)
    assert [e.render() for e in errors] == ["metadata.generateName: Invalid value: \"%2E\": may not contain '%'"]
