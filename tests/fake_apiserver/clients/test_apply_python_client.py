"""Server-side apply through the ``kubernetes`` Python client, unchanged: it applies through its
generated methods (``_content_type`` and ``field_manager``), and its answers, made comparable as
kubectl's are (``tests.support.comparable``), are those kube-apiserver v1.37.2 gave
(:data:`PYTHON_EXPECTED`); with ``KUBEBUILDER_ASSETS`` set, a live one (``real_plane`` in this
folder's conftest) must still give them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config
from kubernetes.client import ApiClient, ApiException

from harness._backends.envtest import ControlPlane, envtest_unavailable
from tests.support.comparable import comparable
from tests.support.threaded_server import ThreadedServer

__all__: list[str] = []

needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))


# --- the kubernetes Python client ----------------------------------------------------------

APPLY = "application/apply-patch+yaml"
READY = {"type": "example.com/Ready", "status": "True", "reason": "Applied"}


def python_client_scenario(api: ApiClient) -> dict[str, Any]:
    """Applies through the generated client's own methods (``_content_type`` and
    ``field_manager``), the answers made comparable: a ConfigMap created by apply, a second
    manager's conflict (its ``Status``), the same forced, and a pod's status applied."""
    v1 = client.CoreV1Api(api)
    seen: dict[str, Any] = {}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py-cm"}, "data": {"a": "1", "b": "2"}}
    answer = v1.patch_namespaced_config_map("py-cm", "default", cm, field_manager="py", _content_type=APPLY)
    seen["cm: created by apply"] = comparable(api.sanitize_for_serialization(answer))
    taken = {**cm, "data": {"a": "changed"}}
    with pytest.raises(ApiException) as refused:
        v1.patch_namespaced_config_map("py-cm", "default", taken, field_manager="py2", _content_type=APPLY)
    seen["cm: conflict"] = {"status": refused.value.status, "body": json.loads(refused.value.body or "")}
    forced = v1.patch_namespaced_config_map("py-cm", "default", taken, field_manager="py2", force=True,
                                            _content_type=APPLY)
    seen["cm: forced"] = comparable(api.sanitize_for_serialization(forced))

    v1.create_namespaced_pod("default", client.V1Pod(
        metadata=client.V1ObjectMeta(name="py-pod"),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="registry.k8s.io/pause:3.10")])))
    status = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "py-pod"},
              "status": {"conditions": [READY]}}
    applied = v1.patch_namespaced_pod_status("py-pod", "default", status, field_manager="py-status",
                                             _content_type=APPLY)
    got = comparable(api.sanitize_for_serialization(applied))
    seen["pod: status applied"] = {
        "conditions": got["status"]["conditions"],
        "apply entries": [m for m in got["metadata"]["managedFields"] if m["operation"] == "Apply"],
    }
    return seen


# Captured once from kube-apiserver v1.37.2 with python_client_scenario() (kubernetes client 37.0.2).
PYTHON_EXPECTED: dict[str, Any] = {'cm: conflict': {'body': {'apiVersion': 'v1',
                           'code': 409,
                           'details': {'causes': [{'field': '.data.a',
                                                   'message': 'conflict with "py"',
                                                   'reason': 'FieldManagerConflict'}]},
                           'kind': 'Status',
                           'message': 'Apply failed with 1 conflict: conflict with "py": .data.a',
                           'metadata': {},
                           'reason': 'Conflict',
                           'status': 'Failure'},
                  'status': 409},
 'cm: created by apply': {'apiVersion': 'v1',
                          'data': {'a': '1', 'b': '2'},
                          'kind': 'ConfigMap',
                          'metadata': {'managedFields': [{'apiVersion': 'v1',
                                                          'fieldsType': 'FieldsV1',
                                                          'fieldsV1': {'f:data': {'f:a': {}, 'f:b': {}}},
                                                          'manager': 'py',
                                                          'operation': 'Apply'}],
                                       'name': 'py-cm',
                                       'namespace': 'default'}},
 'cm: forced': {'apiVersion': 'v1',
                'data': {'a': 'changed', 'b': '2'},
                'kind': 'ConfigMap',
                'metadata': {'managedFields': [{'apiVersion': 'v1',
                                                'fieldsType': 'FieldsV1',
                                                'fieldsV1': {'f:data': {'f:b': {}}},
                                                'manager': 'py',
                                                'operation': 'Apply'},
                                               {'apiVersion': 'v1',
                                                'fieldsType': 'FieldsV1',
                                                'fieldsV1': {'f:data': {'f:a': {}}},
                                                'manager': 'py2',
                                                'operation': 'Apply'}],
                             'name': 'py-cm',
                             'namespace': 'default'}},
 'pod: status applied': {'apply entries': [{'apiVersion': 'v1',
                                            'fieldsType': 'FieldsV1',
                                            'fieldsV1': {'f:status': {'f:conditions': {'k:{"type":"example.com/Ready"}': {'.': {},
                                                                                                                          'f:reason': {},
                                                                                                                          'f:status': {},
                                                                                                                          'f:type': {}}}}},
                                            'manager': 'py-status',
                                            'operation': 'Apply',
                                            'subresource': 'status'}],
                         'conditions': [{'reason': 'Applied',
                                         'status': 'True',
                                         'type': 'example.com/Ready'}]}}


def _default_service_account(api: ApiClient) -> None:
    """The namespace's ``default`` ServiceAccount, which a live server without a
    controller-manager lacks and its ServiceAccount admission needs for a pod."""
    try:
        client.CoreV1Api(api).create_namespaced_service_account(
            "default", client.V1ServiceAccount(metadata=client.V1ObjectMeta(name="default")))
    except ApiException as e:
        assert e.status == 409, e.body


@pytest.fixture(scope="module")
def python_fake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    workdir = tmp_path_factory.mktemp("fake-python")
    server = ThreadedServer(workdir).start()
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        yield python_client_scenario(api)
    finally:
        api.close()
        server.stop()


@pytest.fixture(scope="module")
def python_real(real_plane: ControlPlane) -> Iterator[dict[str, Any]]:
    api = config.new_client_from_config(config_file=str(real_plane.kubeconfig_path))
    try:
        _default_service_account(api)
        yield python_client_scenario(api)
    finally:
        api.close()


def test_the_python_client_status_apply_is_recorded_with_its_subresource(python_fake: dict[str, Any]) -> None:
    entries = python_fake["pod: status applied"]["apply entries"]
    assert [(m["manager"], m["operation"], m.get("subresource")) for m in entries] == [
        ("py-status", "Apply", "status")]


@pytest.mark.parametrize("case", sorted(PYTHON_EXPECTED))
def test_the_python_client_on_the_fake_sees_what_kube_apiserver_v1_37_2_answered(
        case: str, python_fake: dict[str, Any]) -> None:
    assert python_fake[case] == PYTHON_EXPECTED[case]


@needs_binaries
@pytest.mark.parametrize("case", sorted(PYTHON_EXPECTED))
def test_the_python_client_on_a_live_kube_apiserver_still_sees_it(case: str, python_real: dict[str, Any],
                                                                   python_fake: dict[str, Any]) -> None:
    assert python_real[case] == PYTHON_EXPECTED[case]
    assert python_fake[case] == python_real[case]
