"""Server-side apply through kubectl, unchanged, with ``--server-side``.

kubectl is run through one scenario (:func:`kubectl_scenario`) whose every step is reduced to an
:class:`Outcome`: the exit code, stdout, stderr, and for a ``get`` the object without what differs
between two servers by nature (uid, resourceVersion, timestamps). The expected outcomes
(:data:`EXPECTED`) were captured once from kube-apiserver v1.37.2; with ``KUBEBUILDER_ASSETS`` set
the same scenario runs against a live one again (``real_plane`` in this folder's conftest) and the
fake's outcomes are compared with it step by step. A value too big to read in a diff (the CRD's
300 kB schema and its managed fields) is kept as its SHA-256 (``tests.support.comparable``); the
step's small facts (conditions, managers) are kept beside it so a failure still says where the two
differ. A step where the fake is known to answer otherwise than v1.37.2 goes in
:data:`KNOWN_DIFFERENCES` as a strict ``xfail`` naming the place (none is, now), so a fix shows up
as an XPASS.

The large CRD is the reason users apply CRDs server-side at all: its manifest is above 262144
bytes, the limit of an annotation, so client-side apply's ``last-applied-configuration`` cannot
hold it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from harness._backends.envtest import ControlPlane, envtest_unavailable
from tests.support.comparable import comparable
from tests.support.threaded_server import ThreadedServer

__all__: list[str] = []

needs_kubectl = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
needs_binaries = pytest.mark.skipif(envtest_unavailable() is not None, reason=str(envtest_unavailable()))

SAFETY_TIMEOUT = 60.0  # seconds; only reached when something hangs
ANNOTATION_LIMIT = 262144  # bytes: apimachinery's TotalAnnotationSizeLimitB
CRD_NAME = "widgets.example.com"

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
