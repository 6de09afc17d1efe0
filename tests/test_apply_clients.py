"""Server-side apply through real clients: kubectl, the ``kubernetes`` Python client, and the
fake's own journal and fault rules reading an apply as the write it is.

kubectl is run unchanged, with ``--server-side``, through one scenario (:func:`kubectl_scenario`)
whose every step is reduced to an :class:`Outcome`: the exit code, stdout, stderr, and for a
``get`` the object without what differs between two servers by nature (uid, resourceVersion,
timestamps). The expected outcomes (:data:`EXPECTED`) were captured once from kube-apiserver
v1.37.2; with ``KUBEBUILDER_ASSETS`` set the same scenario runs against a live one again and the
fake's outcomes are compared with it step by step. A value too big to read in a diff (the CRD's
300 kB schema and its managed fields) is kept as its SHA-256; the step's small facts
(conditions, managers) are kept beside it so a failure still says where the two differ.

The ``kubernetes`` Python client applies through its generated methods (``_content_type`` and
``field_manager``), compared the same way (:data:`PYTHON_EXPECTED`). Last, on the virtual loop
as tests/fake_apiserver/_storage/test_effects.py does, the journal and fault rules are shown to read
an apply as the write it is: journaled with its effect, refused by a rule on the effect it would
have, previewed as it would be served, and a dry run storing nothing. A step where the fake is known
to answer otherwise than v1.37.2 goes in :data:`KNOWN_DIFFERENCES` as a strict ``xfail`` naming the
place (none is, now), so a fix shows up as an XPASS.

The large CRD is the reason users apply CRDs server-side at all: its manifest is above 262144
bytes, the limit of an annotation, so client-side apply's ``last-applied-configuration`` cannot
hold it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from kubernetes import client, config
from kubernetes.client import ApiClient, ApiException

from fake_apiserver import FakeApiServer, FaultRule, JournalEntry, Match, Respond
from fake_apiserver._server.faults import body_contains
from fake_apiserver._storage.effects import condition_of, sets_condition, sets_field
from harness._backends.envtest import ControlPlane, envtest_unavailable, find_assets
from tests.support.http_api import PODS as POD_PATH, pod, with_server
from tests.support.threaded_server import ThreadedServer

__all__: list[str] = []

needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))

SAFETY_TIMEOUT = 60.0  # seconds; only reached when something hangs
ANNOTATION_LIMIT = 262144  # bytes: apimachinery's TotalAnnotationSizeLimitB
CRD_NAME = "widgets.example.com"
DIGEST_ABOVE = 1500  # characters of JSON: a longer value is compared by its SHA-256

Obj = dict[str, Any]


# --- the manifests ------------------------------------------------------------------------


def big_crd() -> Obj:
    """A CRD whose manifest is above the annotation limit: 1200 documented spec properties."""
    properties: Obj = {
        f"setting{i:04d}": {
            "type": "string",
            "description": f"Setting number {i}: " + "a long description that pads the schema. " * 4,
        }
        for i in range(1200)
    }
    properties["replicas"] = {"type": "integer", "minimum": 0}
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD_NAME},
        "spec": {
            "group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": properties},
                    "status": {"type": "object", "properties": {
                        "phase": {"type": "string"},
                        "conditions": {"type": "array", "x-kubernetes-list-type": "map",
                                       "x-kubernetes-list-map-keys": ["type"],
                                       "items": {"type": "object", "required": ["type", "status"], "properties": {
                                           "type": {"type": "string"}, "status": {"type": "string"},
                                           "reason": {"type": "string"}}}},
                    }},
                }}},
            }],
        },
    }


def configmap(data: dict[str, str]) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"},
            "data": data}


def widget(spec: Obj | None = None, status: Obj | None = None) -> Obj:
    obj: Obj = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1", "namespace": "default"}}
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


# --- outcomes -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one kubectl step showed; ``object`` is a ``get``'s answer made comparable
    (:func:`comparable`)."""

    step: str
    code: int
    stdout: str
    stderr: str
    object: Any = None


_VOLATILE_META = ("uid", "resourceVersion", "creationTimestamp")


def comparable(obj: Any) -> Any:
    """``obj`` without what two servers never share (uid, resourceVersion, times) and with any
    value whose JSON is longer than :data:`DIGEST_ABOVE` replaced by ``sha256:<hex>``."""
    obj = copy.deepcopy(obj)
    meta = obj.get("metadata") or {}
    for key in _VOLATILE_META:
        meta.pop(key, None)
    for entry in meta.get("managedFields") or []:
        entry.pop("time", None)
    for condition in (obj.get("status") or {}).get("conditions") or []:
        condition.pop("lastTransitionTime", None)
    return _digest(obj)


def _digest(value: Any) -> Any:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    if len(text) > DIGEST_ABOVE:
        if isinstance(value, dict) and len(value) > 1:
            return {k: _digest(v) for k, v in value.items()}
        if isinstance(value, list) and len(value) > 1 and len(json.dumps(value[0])) <= DIGEST_ABOVE:
            return [_digest(v) for v in value]
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return value


@dataclass
class Kubectl:
    """kubectl pointed at one server (a kubeconfig and a discovery cache of its own)."""

    kubeconfig: Path
    cache_dir: Path
    workdir: Path

    def run(self, *args: str, manifest: Obj | None = None) -> subprocess.CompletedProcess[str]:
        argv = ["kubectl", f"--kubeconfig={self.kubeconfig}", f"--cache-dir={self.cache_dir}",
                "--request-timeout=30s", *args]
        if manifest is not None:  # a file, as users give it; kubectl names it in some messages
            path = self.workdir / "manifest.json"
            path.write_text(json.dumps(manifest))
            argv += ["-f", str(path)]
        return subprocess.run(argv, capture_output=True, text=True, timeout=SAFETY_TIMEOUT)

    def step(self, step: str, *args: str, manifest: Obj | None = None) -> Outcome:
        done = self.run(*args, manifest=manifest)
        return Outcome(step, done.returncode, done.stdout, done.stderr.replace(str(self.workdir), "<dir>"))

    def get(self, step: str, what: str) -> Outcome:
        done = self.run("get", what, "-o", "json", "--show-managed-fields")
        obj = comparable(json.loads(done.stdout)) if done.returncode == 0 else None
        return Outcome(step, done.returncode, "" if obj is not None else done.stdout, done.stderr, obj)

    def raw(self, what: str) -> Obj:
        done = self.run("get", what, "-o", "json")
        assert done.returncode == 0, done.stderr
        got: Obj = json.loads(done.stdout)
        return got

    def until_ok(self, *args: str, wanted: str | None = None) -> None:
        """Retry a command until it succeeds (and prints ``wanted``, if given): a live server
        establishes a CRD, and serves its resource, a moment after it is created. The deadline
        is a safety net, not a measurement."""
        deadline = time.monotonic() + SAFETY_TIMEOUT
        while True:
            done = self.run(*args)
            if done.returncode == 0 and (wanted is None or done.stdout == wanted):
                return
            assert time.monotonic() < deadline, f"kubectl {' '.join(args)} never succeeded"
            time.sleep(0.2)


def kubectl_scenario(k: Kubectl) -> list[Outcome]:
    """The whole kubectl scenario, in order; the same on any server."""
    out: list[Outcome] = []
    apply = ("apply", "--server-side")
    crd = big_crd()
    assert len(json.dumps(crd)) > ANNOTATION_LIMIT
    out.append(k.step("crd: client-side apply does not fit", "apply", manifest=crd))
    out.append(k.step("crd: apply", *apply, manifest=crd))
    established = "jsonpath={.status.conditions[?(@.type=='Established')].status}"
    k.until_ok("get", f"crd/{CRD_NAME}", "-o", established, wanted="True")
    out.append(k.get("crd: get", f"crd/{CRD_NAME}"))
    stored = k.raw(f"crd/{CRD_NAME}")
    out.append(k.step("crd: apply again, unchanged", *apply, manifest=crd))
    out.append(Outcome("crd: the unchanged apply stored nothing", 0, "", "", k.raw(f"crd/{CRD_NAME}") == stored))

    out.append(k.step("cm: apply a, b", *apply, manifest=configmap({"a": "1", "b": "2"})))
    out.append(k.get("cm: get", "configmap/cm"))
    out.append(k.step("cm: apply a only", *apply, manifest=configmap({"a": "1"})))
    out.append(k.get("cm: get without b", "configmap/cm"))
    out.append(k.step("cm: other conflicts", *apply, "--field-manager=other", manifest=configmap({"a": "changed"})))
    out.append(k.get("cm: get after the conflict", "configmap/cm"))
    out.append(k.step("cm: other forces", *apply, "--field-manager=other", "--force-conflicts",
                      manifest=configmap({"a": "changed"})))
    out.append(k.get("cm: get after forcing", "configmap/cm"))
    before = k.raw("configmap/cm")
    out.append(k.step("cm: dry run", *apply, "--dry-run=server", manifest=configmap({"a": "changed", "c": "3"})))
    out.append(k.step("cm: dry run's answer", *apply, "--dry-run=server", "-o", "jsonpath={.data}",
                      manifest=configmap({"a": "changed", "c": "3"})))
    out.append(k.step("cm: dry run conflicts", *apply, "--dry-run=server", manifest=configmap({"a": "1"})))
    after = k.raw("configmap/cm")
    out.append(Outcome("cm: dry run stored nothing", 0, "", "", after == before))

    k.until_ok("get", "widgets")
    out.append(k.step("cr: apply", *apply, manifest=widget({"replicas": 2, "setting0001": "x"})))
    out.append(k.get("cr: get", "widget/w1"))
    out.append(k.step("cr: apply an unknown field", *apply, manifest=widget({"replicas": 2, "bogus": "y"})))
    out.append(k.step("cr: apply status", *apply, "--subresource=status",
                      manifest=widget(status={"phase": "Ready", "conditions": [{"type": "Ready", "status": "True"}]})))
    out.append(k.get("cr: get with status", "widget/w1"))
    out.append(k.step("cr: status apply ignores spec", *apply, "--subresource=status",
                      manifest=widget({"replicas": 9}, status={"phase": "Done"})))
    out.append(k.get("cr: get after the status apply with spec", "widget/w1"))
    out.append(k.step("cr: status apply of a missing object", *apply, "--subresource=status",
                      manifest={**widget(status={"phase": "Ready"}), "metadata": {"name": "w2", "namespace": "default"}}))
    out.append(k.step("cm: status apply of a kind without status", *apply, "--subresource=status",
                      manifest=configmap({"a": "1"})))
    return out


# Captured once from kube-apiserver v1.37.2 (kubectl v1.32.4 on PATH), with capture_expected()
# below on the outcomes of kubectl_scenario() against a live envtest control plane.
EXPECTED: list[Outcome] = [
    Outcome('crd: client-side apply does not fit', 1,
            '',
            'The CustomResourceDefinition "widgets.example.com" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes\n'),
    Outcome('crd: apply', 0,
            'customresourcedefinition.apiextensions.k8s.io/widgets.example.com serverside-applied\n',
            ''),
    Outcome('crd: get', 0,
            '',
            '',
            {'apiVersion': 'apiextensions.k8s.io/v1',
             'kind': 'CustomResourceDefinition',
             'metadata': {'generation': 1,
                          'managedFields': [{'apiVersion': 'apiextensions.k8s.io/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:spec': {'f:group': {},
                                                                     'f:names': {'f:kind': {},
                                                                                 'f:listKind': {},
                                                                                 'f:plural': {},
                                                                                 'f:singular': {}},
                                                                     'f:scope': {},
                                                                     'f:versions': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'},
                                            {'apiVersion': 'apiextensions.k8s.io/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:status': {'f:acceptedNames': {'f:kind': {},
                                                                                           'f:listKind': {},
                                                                                           'f:plural': {},
                                                                                           'f:singular': {}},
                                                                       'f:conditions': {'k:{"type":"Established"}': {'.': {},
                                                                                                                     'f:lastTransitionTime': {},
                                                                                                                     'f:message': {},
                                                                                                                     'f:reason': {},
                                                                                                                     'f:status': {},
                                                                                                                     'f:type': {}},
                                                                                        'k:{"type":"NamesAccepted"}': {'.': {},
                                                                                                                       'f:lastTransitionTime': {},
                                                                                                                       'f:message': {},
                                                                                                                       'f:reason': {},
                                                                                                                       'f:status': {},
                                                                                                                       'f:type': {}}}}},
                                             'manager': 'kube-apiserver',
                                             'operation': 'Update',
                                             'subresource': 'status'}],
                          'name': 'widgets.example.com'},
             'spec': {'conversion': {'strategy': 'None'},
                      'group': 'example.com',
                      'names': {'kind': 'Widget', 'listKind': 'WidgetList', 'plural': 'widgets', 'singular': 'widget'},
                      'scope': 'Namespaced',
                      'versions': 'sha256:ff68de7385979c69368c0a6039e3e3ab47577fcda33e719372edbbb96cd51cc3'},
             'status': {'acceptedNames': {'kind': 'Widget',
                                          'listKind': 'WidgetList',
                                          'plural': 'widgets',
                                          'singular': 'widget'},
                        'conditions': [{'message': 'no conflicts found',
                                        'reason': 'NoConflicts',
                                        'status': 'True',
                                        'type': 'NamesAccepted'},
                                       {'message': 'the initial names have been accepted',
                                        'reason': 'InitialNamesAccepted',
                                        'status': 'True',
                                        'type': 'Established'}],
                        'storedVersions': ['v1']}}),
    Outcome('crd: apply again, unchanged', 0,
            'customresourcedefinition.apiextensions.k8s.io/widgets.example.com serverside-applied\n',
            ''),
    Outcome('crd: the unchanged apply stored nothing', 0,
            '',
            '',
            True),
    Outcome('cm: apply a, b', 0,
            'configmap/cm serverside-applied\n',
            ''),
    Outcome('cm: get', 0,
            '',
            '',
            {'apiVersion': 'v1',
             'data': {'a': '1', 'b': '2'},
             'kind': 'ConfigMap',
             'metadata': {'managedFields': [{'apiVersion': 'v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:data': {'f:a': {}, 'f:b': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'}],
                          'name': 'cm',
                          'namespace': 'default'}}),
    Outcome('cm: apply a only', 0,
            'configmap/cm serverside-applied\n',
            ''),
    Outcome('cm: get without b', 0,
            '',
            '',
            {'apiVersion': 'v1',
             'data': {'a': '1'},
             'kind': 'ConfigMap',
             'metadata': {'managedFields': [{'apiVersion': 'v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:data': {'f:a': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'}],
                          'name': 'cm',
                          'namespace': 'default'}}),
    Outcome('cm: other conflicts', 1,
            '',
            'error: Apply failed with 1 conflict: conflict with "kubectl": .data.a\nPlease review the fields above--they currently have other managers. Here\nare the ways you can resolve this warning:\n* If you intend to manage all of these fields, please re-run the apply\n  command with the `--force-conflicts` flag.\n* If you do not intend to manage all of the fields, please edit your\n  manifest to remove references to the fields that should keep their\n  current managers.\n* You may co-own fields by updating your manifest to match the existing\n  value; in this case, you\'ll become the manager if the other manager(s)\n  stop managing the field (remove it from their configuration).\nSee https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n'),
    Outcome('cm: get after the conflict', 0,
            '',
            '',
            {'apiVersion': 'v1',
             'data': {'a': '1'},
             'kind': 'ConfigMap',
             'metadata': {'managedFields': [{'apiVersion': 'v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:data': {'f:a': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'}],
                          'name': 'cm',
                          'namespace': 'default'}}),
    Outcome('cm: other forces', 0,
            'configmap/cm serverside-applied\n',
            ''),
    Outcome('cm: get after forcing', 0,
            '',
            '',
            {'apiVersion': 'v1',
             'data': {'a': 'changed'},
             'kind': 'ConfigMap',
             'metadata': {'managedFields': [{'apiVersion': 'v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:data': {'f:a': {}}},
                                             'manager': 'other',
                                             'operation': 'Apply'}],
                          'name': 'cm',
                          'namespace': 'default'}}),
    Outcome('cm: dry run', 0,
            'configmap/cm serverside-applied (server dry run)\n',
            ''),
    Outcome("cm: dry run's answer", 0,
            '{"a":"changed","c":"3"}',
            ''),
    Outcome('cm: dry run conflicts', 1,
            '',
            'error: Apply failed with 1 conflict: conflict with "other": .data.a\nPlease review the fields above--they currently have other managers. Here\nare the ways you can resolve this warning:\n* If you intend to manage all of these fields, please re-run the apply\n  command with the `--force-conflicts` flag.\n* If you do not intend to manage all of the fields, please edit your\n  manifest to remove references to the fields that should keep their\n  current managers.\n* You may co-own fields by updating your manifest to match the existing\n  value; in this case, you\'ll become the manager if the other manager(s)\n  stop managing the field (remove it from their configuration).\nSee https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts\n'),
    Outcome('cm: dry run stored nothing', 0,
            '',
            '',
            True),
    Outcome('cr: apply', 0,
            'widget.example.com/w1 serverside-applied\n',
            ''),
    Outcome('cr: get', 0,
            '',
            '',
            {'apiVersion': 'example.com/v1',
             'kind': 'Widget',
             'metadata': {'generation': 1,
                          'managedFields': [{'apiVersion': 'example.com/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:spec': {'f:replicas': {}, 'f:setting0001': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'}],
                          'name': 'w1',
                          'namespace': 'default'},
             'spec': {'replicas': 2, 'setting0001': 'x'}}),
    Outcome('cr: apply an unknown field', 1,
            '',
            'Error from server: failed to create typed patch object (default/w1; example.com/v1, Kind=Widget): .spec.bogus: field not declared in schema\n'),
    Outcome('cr: apply status', 0,
            'widget.example.com/w1 serverside-applied\n',
            ''),
    Outcome('cr: get with status', 0,
            '',
            '',
            {'apiVersion': 'example.com/v1',
             'kind': 'Widget',
             'metadata': {'generation': 1,
                          'managedFields': [{'apiVersion': 'example.com/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:spec': {'f:replicas': {}, 'f:setting0001': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'},
                                            {'apiVersion': 'example.com/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:status': {'f:conditions': {'k:{"type":"Ready"}': {'.': {},
                                                                                                               'f:status': {},
                                                                                                               'f:type': {}}},
                                                                       'f:phase': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply',
                                             'subresource': 'status'}],
                          'name': 'w1',
                          'namespace': 'default'},
             'spec': {'replicas': 2, 'setting0001': 'x'},
             'status': {'conditions': [{'status': 'True', 'type': 'Ready'}], 'phase': 'Ready'}}),
    Outcome('cr: status apply ignores spec', 0,
            'widget.example.com/w1 serverside-applied\n',
            ''),
    Outcome('cr: get after the status apply with spec', 0,
            '',
            '',
            {'apiVersion': 'example.com/v1',
             'kind': 'Widget',
             'metadata': {'generation': 1,
                          'managedFields': [{'apiVersion': 'example.com/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:spec': {'f:replicas': {}, 'f:setting0001': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply'},
                                            {'apiVersion': 'example.com/v1',
                                             'fieldsType': 'FieldsV1',
                                             'fieldsV1': {'f:status': {'f:phase': {}}},
                                             'manager': 'kubectl',
                                             'operation': 'Apply',
                                             'subresource': 'status'}],
                          'name': 'w1',
                          'namespace': 'default'},
             'spec': {'replicas': 2, 'setting0001': 'x'},
             'status': {'phase': 'Done'}}),
    Outcome('cr: status apply of a missing object', 1,
            '',
            'Error from server (NotFound): widgets.example.com "w2" not found\n'),
    Outcome('cm: status apply of a kind without status', 1,
            '',
            'Error from server (NotFound): the server could not find the requested resource\n'),
]


def capture_expected(outcomes: list[Outcome]) -> str:
    """The Python text of :data:`EXPECTED` for ``outcomes`` (how the list above was made)."""
    return json.dumps([asdict(o) for o in outcomes], indent=1)


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fake_outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Outcome]]:
    workdir = tmp_path_factory.mktemp("fake-kubectl")
    server = ThreadedServer(workdir).start()
    try:
        yield kubectl_scenario(Kubectl(server.kubeconfig, workdir / "cache", workdir))
    finally:
        server.stop()


@pytest.fixture(scope="module")
def real_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A live kube-apiserver v1.37.2 for the module (skipped without ``KUBEBUILDER_ASSETS``)."""
    reason = envtest_unavailable()
    if reason:
        pytest.skip(reason)
    with ControlPlane(assets=find_assets(), logdir=tmp_path_factory.mktemp("envtest-logs")) as plane:
        yield plane


@pytest.fixture(scope="module")
def real_outcomes(real_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> list[Outcome]:
    workdir = tmp_path_factory.mktemp("real-kubectl")
    assert real_plane.kubeconfig_path is not None
    return kubectl_scenario(Kubectl(real_plane.kubeconfig_path, workdir / "cache", workdir))


# --- the tests -----------------------------------------------------------------------------

STEPS = [o.step for o in EXPECTED]
BY_STEP = {o.step: o for o in EXPECTED}
#: steps where the fake still answers otherwise; strict, so a fix shows up as an XPASS
KNOWN_DIFFERENCES: dict[str, str] = {}


def _marked(steps: list[str]) -> list[Any]:
    return [pytest.param(s, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[s], strict=True))
            if s in KNOWN_DIFFERENCES else s for s in steps]


def _step(outcomes: list[Outcome], step: str) -> Outcome:
    assert [o.step for o in outcomes] == STEPS
    return outcomes[STEPS.index(step)]


def test_the_crd_manifest_is_too_big_for_client_side_apply() -> None:
    assert len(json.dumps(big_crd()).encode()) > ANNOTATION_LIMIT


@needs_kubectl
def test_kubectl_server_side_apply_on_the_fake_does_what_the_task_asks(fake_outcomes: list[Outcome]) -> None:
    """The facts the scenario exists for, spelled out (each is also in :data:`EXPECTED`)."""
    crd = _step(fake_outcomes, "crd: get").object
    established = [c for c in crd["status"]["conditions"] if c["type"] == "Established"]
    assert [c["status"] for c in established] == ["True"]
    assert [(m["manager"], m["operation"]) for m in crd["metadata"]["managedFields"]][:1] == [("kubectl", "Apply")]
    assert _step(fake_outcomes, "cm: get without b").object["data"] == {"a": "1"}
    conflict = _step(fake_outcomes, "cm: other conflicts")
    assert conflict.code == 1
    assert conflict.stderr.startswith('error: Apply failed with 1 conflict: conflict with "kubectl": .data.a\n')
    assert _step(fake_outcomes, "cm: other forces").code == 0
    forced = _step(fake_outcomes, "cm: get after forcing").object
    assert (forced["data"], forced["metadata"]["managedFields"][0]["manager"]) == ({"a": "changed"}, "other")
    assert _step(fake_outcomes, "cm: dry run").stdout == "configmap/cm serverside-applied (server dry run)\n"
    assert _step(fake_outcomes, "cm: dry run's answer").stdout == '{"a":"changed","c":"3"}'
    assert _step(fake_outcomes, "cm: dry run stored nothing").object is True
    widget = _step(fake_outcomes, "cr: get with status").object
    assert widget["status"] == {"conditions": [{"status": "True", "type": "Ready"}], "phase": "Ready"}
    assert [m.get("subresource") for m in widget["metadata"]["managedFields"]] == [None, "status"]


@needs_kubectl
@pytest.mark.parametrize("step", _marked(STEPS))
def test_kubectl_on_the_fake_shows_what_kube_apiserver_v1_37_2_showed(step: str, fake_outcomes: list[Outcome]) -> None:
    assert _step(fake_outcomes, step) == BY_STEP[step]


@needs_kubectl
@needs_binaries
@pytest.mark.parametrize("step", STEPS)
def test_kubectl_on_a_live_kube_apiserver_still_shows_it(step: str, real_outcomes: list[Outcome]) -> None:
    assert _step(real_outcomes, step) == BY_STEP[step]


@needs_kubectl
@needs_binaries
@pytest.mark.parametrize("step", _marked(STEPS))
def test_kubectl_on_the_fake_agrees_with_a_live_kube_apiserver(
        step: str, fake_outcomes: list[Outcome], real_outcomes: list[Outcome]) -> None:
    assert _step(fake_outcomes, step) == _step(real_outcomes, step)


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


# --- the journal and fault rules -----------------------------------------------------------

NOT_READY = {"type": "PodScheduled", "status": "False", "reason": "NotReadyForScheduling", "message": "waiting"}


def _status_apply(conditions: list[Obj]) -> str:
    """A pod status apply as a person writes it: YAML, not JSON."""
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                           "status": {"conditions": conditions}}, sort_keys=False)


async def _apply(http: aiohttp.ClientSession, path: str, body: str, manager: str = "m",
                 **query: str) -> tuple[int, Obj]:
    async with http.patch(path, params={"fieldManager": manager, **query}, data=body,
                          headers={"Content-Type": APPLY}) as r:
        answer: Obj = await r.json()
        return r.status, answer


async def read_pod(http: aiohttp.ClientSession, name: str) -> Obj:
    async with http.get(f"{POD_PATH}/{name}") as r:
        got: Obj = await r.json()
        return got


def last_write(server: FakeApiServer, name: str) -> JournalEntry:
    return [e for e in server.journal.requests(name=name) if e.verb in ("patch", "update", "create", "delete")][-1]


def _without_rv(obj: Obj) -> Obj:
    out = copy.deepcopy(obj)
    out["metadata"].pop("resourceVersion")
    return out


def test_an_apply_is_journaled_with_its_effect() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        code, answer = await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY]))
        assert code == 200
        entry = last_write(server, "p")
        assert (entry.verb, entry.subresource, entry.content_type, entry.effect) == (
            "patch", "status", APPLY, "applied")
        assert entry.body == {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                              "status": {"conditions": [READY]}}  # the YAML as the value it stands for
        assert condition_of(entry.before, READY["type"]) is None
        assert entry.after == answer
        assert sets_condition(READY["type"], reason="Applied")(entry.before, entry.after)

        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
        code, created = await _apply(http, "/api/v1/namespaces/default/configmaps/cm", json.dumps(cm))
        entry = last_write(server, "cm")
        assert created["data"] == {"a": "1"}
        assert (entry.verb, entry.code, entry.effect, entry.before, entry.after) == ("patch", code, "applied", None, created)

    with_server(body)


def test_a_rule_on_an_effect_refuses_the_status_apply_that_would_set_it_and_lets_others_through() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(
            Match(resource="pods", subresource="status", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
            Respond(503), name="refuse-not-ready"))
        code, _ = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]))
        assert (code, rule.fired) == (503, 1)
        refused = last_write(server, "p")
        assert (refused.code, refused.fault, refused.effect) == (503, "refuse-not-ready", "intended")
        intended = condition_of(refused.after, "PodScheduled") or {}
        assert {k: intended.get(k) for k in NOT_READY} == NOT_READY
        stored = await read_pod(http, "p")
        assert condition_of(stored, "PodScheduled") is None
        assert "m" not in [m["manager"] for m in stored["metadata"]["managedFields"]]  # nor an owner recorded

        code, answer = await _apply(http, f"{POD_PATH}/p/status", _status_apply([{**NOT_READY, "reason": "Unschedulable"}]))
        assert (code, rule.fired) == (200, 1)
        assert (condition_of(answer, "PodScheduled") or {}).get("reason") == "Unschedulable"
        code, _ = await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY]), manager="other")
        assert (code, rule.fired) == (200, 1)
        assert last_write(server, "p").effect == "applied"

    with_server(body)


def test_a_body_rule_reads_an_apply_written_in_yaml() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        rule = server.faults.add(FaultRule(
            Match(resource="pods", content_type=APPLY, body=body_contains({"status": {"conditions": [{"reason": "Applied"}]}})),
            Respond(409), times=1))
        assert (await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY])))[0] == 409
        assert (await _apply(http, f"{POD_PATH}/p/status", _status_apply([READY])))[0] == 200
        assert (rule.matched, rule.fired) == (2, 1)

    with_server(body)


def test_a_dry_run_apply_stores_nothing_and_a_refused_apply_is_previewed_as_served() -> None:
    """``dryRun=All`` answers what the apply would store and stores nothing (no effect, no rule
    on an effect fires); the preview a rule read for the apply it refused is what serving the
    same apply then stores, as for any status write."""

    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        await http.post(POD_PATH, json=pod("p"))
        before = await read_pod(http, "p")
        rule = server.faults.add(FaultRule(
            Match(resource="pods", subresource="status", effect=sets_condition("PodScheduled", reason="NotReadyForScheduling")),
            Respond(503), times=1, name="once"))
        code, dry = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]), dryRun="All")
        assert (code, rule.fired) == (200, 0)
        assert (condition_of(dry, "PodScheduled") or {}).get("reason") == "NotReadyForScheduling"
        entry = last_write(server, "p")
        assert (entry.query, entry.effect, entry.before, entry.after) == (
            {"dryRun": "All", "fieldManager": "m"}, "", None, None)
        assert await read_pod(http, "p") == before

        code, _ = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]))
        assert (code, rule.fired) == (503, 1)
        intended = last_write(server, "p")
        code, answer = await _apply(http, f"{POD_PATH}/p/status", _status_apply([NOT_READY]))
        assert code == 200
        applied = last_write(server, "p")
        assert (intended.effect, applied.effect) == ("intended", "applied")
        assert intended.before == applied.before == before
        assert _without_rv(intended.after) == _without_rv(applied.after) == _without_rv(answer) == _without_rv(dry)

    with_server(body)


def test_a_rule_on_an_effect_refuses_an_apply_that_creates() -> None:
    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        rule = server.faults.add(FaultRule(Match(resource="configmaps", effect=sets_field("data", "a")), Respond(503)))
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
        code, _ = await _apply(http, "/api/v1/namespaces/default/configmaps/cm", json.dumps(cm))
        assert (code, rule.fired) == (503, 1)

    with_server(body)


def test_an_apply_that_creates_answers_created() -> None:
    """Captured from kube-apiserver v1.37.2: the same ConfigMap apply twice answers 201, then 200."""

    async def body(server: FakeApiServer, http: aiohttp.ClientSession) -> None:
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": "1"}}
        codes = [(await _apply(http, "/api/v1/namespaces/default/configmaps/cm", json.dumps(cm)))[0] for _ in range(2)]
        assert codes == [201, 200]

    with_server(body)
