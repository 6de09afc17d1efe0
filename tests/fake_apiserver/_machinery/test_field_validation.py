"""``fieldValidation`` over HTTP: Strict, Warn (the default) and Ignore on create, update and every
patch type, through the served fake with real clients (aiohttp, the ``kubernetes`` Python client,
kubectl).

Every expected status, message and ``Warning`` header was captured from kube-apiserver v1.36 (with
etcd) answering the same request; each test says what it sent. The one part of an answer the fake
cannot repeat word for word is the ``Invalid value`` of a JSON or merge patch's 422, which is the
whole patched object and on a real server holds its ``managedFields``: there the tests check the
text around it and that it is the patched object.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, TypeVar

import aiohttp
import pytest

from fake_apiserver import FakeApiServer
from harness._backends.scenario_client import ApiError, ScenarioClient
from harness._time.virtual_time import VirtualClock, run

from tests.support.threaded_server import ThreadedServer

T = TypeVar("T")

PODS = "/api/v1/namespaces/default/pods"
SMP = "application/strategic-merge-patch+json"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
HANDLED = 'Pod in version "v1" cannot be handled as a Pod: '


@dataclass
class Reply:
    status: int
    body: Any
    warnings: list[str]  # the Warning header values, in order


class Api:
    def __init__(self, session: aiohttp.ClientSession, server: FakeApiServer) -> None:
        self.session = session
        self.server = server

    async def call(self, method: str, path: str, body: Any = None, *, data: str | None = None,
                   content_type: str = "application/json", **params: str) -> Reply:
        if body is not None:
            data = json.dumps(body)
        async with self.session.request(method, path, data=data, params=params or None,
                                        headers={"Content-Type": content_type}) as r:
            decoded = await r.json()
            return Reply(r.status, decoded, r.headers.getall("Warning", []))


def serve(scenario: Callable[[Api], Awaitable[T]]) -> T:
    async def main() -> T:
        async with FakeApiServer(clock=VirtualClock(asyncio.get_running_loop())) as server:
            async with aiohttp.ClientSession(server.url) as session:
                return await scenario(Api(session, server))

    return run(main())


def pod(name: str = "p", container: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "x", **(container or {})}], **spec}}


def bad_request(message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": "BadRequest", "code": 400}


def invalid_patch(shown: str, error: str) -> dict[str, Any]:
    """The 422 ``patcher.applyPatch`` gives for a patch result: ``errors.NewInvalid(schema.GroupKind{},
    "", field.ErrorList{field.Invalid(field.NewPath("patch"), shown, error)})``."""
    body = f"Invalid value: {json.dumps(shown)}: {error}"
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": f' "" is invalid: patch: {body}', "reason": "Invalid",
            "details": {"causes": [{"reason": "FieldValueInvalid", "message": body, "field": "patch"}]}, "code": 422}


def warning(text: str) -> str:
    """``net.NewWarningHeader(299, "", text)``."""
    return "299 - " + json.dumps(text)


# ------------------------------------------------------------------------------ create and update


def test_strict_refuses_unknown_fields_warn_and_ignore_drop_them() -> None:
    """POST a pod with ``spec.containerz`` (and a container's ``foo``) under each directive."""
    body = pod(container={"foo": 1}, containerz=1)

    async def scenario(api: Api) -> None:
        strict = await api.call("POST", PODS, body, fieldValidation="Strict")
        assert (strict.status, strict.body, strict.warnings) == (400, bad_request(
            HANDLED + 'strict decoding error: unknown field "spec.containers[0].foo", unknown field "spec.containerz"'),
            [])
        assert (await api.call("GET", f"{PODS}/p")).status == 404  # nothing refused is stored

        warned = await api.call("POST", PODS, body)  # Warn when the parameter is absent
        assert warned.status == 201
        assert warned.warnings == [warning('unknown field "spec.containers[0].foo"'),
                                   warning('unknown field "spec.containerz"')]
        assert "containerz" not in warned.body["spec"] and "foo" not in warned.body["spec"]["containers"][0]
        stored = await api.call("GET", f"{PODS}/p")
        assert "containerz" not in stored.body["spec"] and stored.warnings == []

        ignored = await api.call("POST", PODS, pod("q", containerz=1), fieldValidation="Ignore")
        assert (ignored.status, ignored.warnings) == (201, [])
        assert "containerz" not in ignored.body["spec"]

    serve(scenario)


def test_strict_errors_come_in_document_order_with_list_indices() -> None:
    """``{"zzz":1, ..., "spec":{"containerz":1, ...}, "metadata":{..., "x":1}}``: the errors in the
    order the keys come, not sorted; keys are case-sensitive (``Labels`` is unknown)."""
    raw = ('{"zzz":1,"apiVersion":"v1","kind":"Pod","spec":{"containerz":1,"containers":[{"name":"c","image":"x"},'
           '{"name":"d","image":"y","bar":2}]},"metadata":{"name":"p","x":1,"Labels":{"a":"b"}}}')

    async def scenario(api: Api) -> None:
        reply = await api.call("POST", PODS, data=raw, fieldValidation="Strict", dryRun="All")
        assert reply.body == bad_request(
            HANDLED + 'strict decoding error: unknown field "zzz", unknown field "spec.containerz", unknown field '
            '"spec.containers[1].bar", unknown field "metadata.x", unknown field "metadata.Labels"')

    serve(scenario)


def test_duplicate_fields_need_the_raw_body() -> None:
    """Repeated keys: each reported once, where it repeats, mixed with unknown fields in document
    order; under Warn Go's decoding of the repeats is what is stored (a repeated struct merges, a
    repeated list is decoded element by element over the first, a repeated map key replaces)."""
    raw = ('{"zzz":1,"zzz":2,"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","name":"p",'
           '"labels":{"a":"1","a":"2"}},"metadata":{"labels":{"b":"2"}},'
           '"spec":{"containers":[{"name":"c","image":"x"},{"name":"d","image":"x"}],"containers":[{"name":"e"}]}}')

    async def scenario(api: Api) -> None:
        strict = await api.call("POST", PODS, data=raw, fieldValidation="Strict")
        assert strict.body == bad_request(
            HANDLED + 'strict decoding error: unknown field "zzz", duplicate field "metadata.name", duplicate field '
            '"metadata.labels.a", duplicate field "metadata", duplicate field "spec.containers"')
        warned = await api.call("POST", PODS, data=raw)
        assert warned.status == 201
        assert warned.warnings == [warning(w) for w in (
            'unknown field "zzz"', 'duplicate field "metadata.name"', 'duplicate field "metadata.labels.a"',
            'duplicate field "metadata"', 'duplicate field "spec.containers"')]
        assert warned.body["metadata"]["labels"] == {"a": "2", "b": "2"}
        assert [(c["name"], c["image"]) for c in warned.body["spec"]["containers"]] == [("e", "x")]

    serve(scenario)


def test_update_takes_the_directive_too() -> None:
    """PUT of the stored pod with ``spec.containerz`` added, and to its status subresource (whose
    decoding reads the whole object, spec included)."""

    async def scenario(api: Api) -> None:
        created = (await api.call("POST", PODS, pod())).body
        changed = {**created, "spec": {**created["spec"], "containerz": 1}}
        for path in (f"{PODS}/p", f"{PODS}/p/status"):
            strict = await api.call("PUT", path, changed, fieldValidation="Strict")
            assert strict.body == bad_request(HANDLED + 'strict decoding error: unknown field "spec.containerz"')
            warned = await api.call("PUT", path, changed)
            assert (warned.status, warned.warnings) == (200, [warning('unknown field "spec.containerz"')])
        bogus = await api.call("PUT", f"{PODS}/p", changed, fieldValidation="x")
        assert bogus.body["message"] == ('UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: '
                                         '"x": supported values: "", "Ignore", "Strict", "Warn"')

    serve(scenario)


def test_warnings_reach_error_answers_and_dry_runs() -> None:
    """A second POST of the same name under Warn: 409 AlreadyExists, and the Warning header still
    comes (the real server adds warnings as it decodes, before storage refuses); dryRun=All
    decodes the same way and stores nothing."""

    async def scenario(api: Api) -> None:
        dry = await api.call("POST", PODS, pod(containerz=1), dryRun="All")
        assert (dry.status, dry.warnings) == (201, [warning('unknown field "spec.containerz"')])
        assert (await api.call("GET", f"{PODS}/p")).status == 404
        dry_strict = await api.call("POST", PODS, pod(containerz=1), dryRun="All", fieldValidation="Strict")
        assert dry_strict.status == 400
        await api.call("POST", PODS, pod())
        again = await api.call("POST", PODS, pod(containerz=1))
        assert (again.status, again.body["message"]) == (409, 'pods "p" already exists')
        assert again.warnings == [warning('unknown field "spec.containerz"')]

    serve(scenario)


def test_yaml_bodies_report_repeated_keys_with_their_lines() -> None:
    """A YAML pod with ``name`` twice, ``spec.containerz`` and a container's ``foo``: YAMLToJSON
    goes through Go maps, so the unknown fields come sorted; the YAML error is one strict error
    of its own, split into one warning per line."""
    manifest = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: y1\n  name: y2\nspec:\n  containerz: 1\n"
                "  containers:\n  - name: c\n    image: x\n    foo: 2\n")
    labels = ('apiVersion: v1\nkind: Pod\nmetadata:\n  name: y1\n  labels:\n    a: "1"\n    a: "2"\n    b: "1"\n'
              '    b: "3"\nspec:\n  containers:\n  - name: c\n    image: x\n')

    async def scenario(api: Api) -> None:
        strict = await api.call("POST", PODS, data=manifest, content_type="application/yaml", fieldValidation="Strict")
        assert strict.body == bad_request(
            HANDLED + 'strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map, '
            'unknown field "spec.containers[0].foo", unknown field "spec.containerz"')
        warned = await api.call("POST", PODS, data=manifest, content_type="application/yaml")
        assert warned.status == 201
        assert warned.warnings == [warning('line 5: key "name" already set in map'),
                                   warning('unknown field "spec.containers[0].foo"'),
                                   warning('unknown field "spec.containerz"')]
        two = await api.call("POST", PODS, data=labels, content_type="application/yaml", fieldValidation="Strict")
        assert two.body == bad_request(HANDLED + 'strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" '
                                                 'already set in map\n  line 9: key "b" already set in map')
        two_warned = await api.call("POST", PODS, data=labels, content_type="application/yaml", dryRun="All")
        assert two_warned.warnings == [warning('line 7: key "a" already set in map'),
                                       warning('line 9: key "b" already set in map')]

    serve(scenario)


def test_a_binding_is_decoded_as_a_binding() -> None:
    """POST ``pods/p/binding`` with ``target.zz`` and ``yy``, with a ``target.name`` of the wrong
    type, with a bad directive; a dry run binds nothing (the real server answers its Status)."""
    binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
               "target": {"kind": "Node", "name": "n1", "zz": 1}, "yy": 2}

    async def scenario(api: Api) -> None:
        await api.call("POST", PODS, pod())
        path = f"{PODS}/p/binding"
        strict = await api.call("POST", path, binding, fieldValidation="Strict", dryRun="All")
        assert strict.body == bad_request('Binding in version "v1" cannot be handled as a Binding: strict decoding '
                                          'error: unknown field "target.zz", unknown field "yy"')
        wrong = await api.call("POST", path, {**binding, "target": {"kind": "Node", "name": 5}}, dryRun="All")
        assert wrong.body == bad_request('Binding in version "v1" cannot be handled as a Binding: json: cannot '
                                         'unmarshal number into Go struct field ObjectReference.target.name of type string')
        bogus = await api.call("POST", path, binding, fieldValidation="Bogus")
        assert bogus.body["message"] == ('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported '
                                         'value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"')
        dry = await api.call("POST", path, binding, dryRun="All")
        assert (dry.status, dry.warnings) == (201, [warning('unknown field "target.zz"'), warning('unknown field "yy"')])
        assert dry.body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
        assert "nodeName" not in (await api.call("GET", f"{PODS}/p")).body["spec"]
        bound = await api.call("POST", path, binding)
        assert (bound.status, (await api.call("GET", f"{PODS}/p")).body["spec"]["nodeName"]) == (201, "n1")

    serve(scenario)


# ------------------------------------------------------------------------------ patches


def test_strategic_merge_patch_under_each_directive() -> None:
    """SMP ``{"spec":{"containers":[{"name":"c","foo":1}]}}`` and ``{"zzz":1,"metadata":{"x":1}}``:
    the converter's unknown fields, sorted, on ``patch`` with the patch printed as Go's %+v of
    the map."""

    async def scenario(api: Api) -> None:
        await api.call("POST", PODS, pod())
        container = {"spec": {"containers": [{"name": "c", "foo": 1}]}}
        strict = await api.call("PATCH", f"{PODS}/p", container, content_type=SMP, fieldValidation="Strict")
        assert strict.body == invalid_patch("map[spec:map[containers:[map[foo:1 name:c]]]]",
                                            'strict decoding error: unknown field "spec.containers[0].foo"')
        two = await api.call("PATCH", f"{PODS}/p", {"zzz": 1, "metadata": {"x": 1}}, content_type=SMP,
                             fieldValidation="Strict")
        assert two.body == invalid_patch("map[metadata:map[x:1] zzz:1]", 'strict decoding error: unknown field '
                                         '"metadata.x", unknown field "zzz"')
        warned = await api.call("PATCH", f"{PODS}/p", {"zzz": 1, "metadata": {"x": 1}}, content_type=SMP)
        assert (warned.status, warned.warnings) == (200, [warning('unknown field "metadata.x"'),
                                                          warning('unknown field "zzz"')])
        assert "zzz" not in warned.body and "x" not in warned.body["metadata"]
        ignored = await api.call("PATCH", f"{PODS}/p", container, content_type=SMP, fieldValidation="Ignore")
        assert (ignored.status, ignored.warnings) == (200, [])
        status = await api.call("PATCH", f"{PODS}/p/status", {"spec": {"containerz": 1}, "status": {"zz": 1}},
                                content_type=SMP, fieldValidation="Strict")
        assert status.body == invalid_patch("map[spec:map[containerz:1] status:map[zz:1]]", 'strict decoding error: '
                                            'unknown field "spec.containerz", unknown field "status.zz"')

    serve(scenario)


def test_repeated_keys_in_a_patch_come_first() -> None:
    """A patch's own repeated keys are strict errors of decoding the patch, reported before the
    result's unknown fields: ``json patch``-prefixed for a JSON patch."""

    async def scenario(api: Api) -> None:
        created = (await api.call("POST", PODS, pod(), )).body
        smp = await api.call("PATCH", f"{PODS}/p", data='{"zzz":1,"metadata":{"labels":{"b":"2","b":"3"}}}',
                             content_type=SMP, fieldValidation="Strict")
        assert smp.body == invalid_patch("map[metadata:map[labels:map[b:3]] zzz:1]", 'strict decoding error: '
                                         'duplicate field "metadata.labels.b", unknown field "zzz"')
        merge = await api.call("PATCH", f"{PODS}/p", data='{"zzz":1,"metadata":{"labels":{"b":"2","b":"3"}}}',
                               content_type=MERGE)
        assert merge.warnings == [warning('duplicate field "metadata.labels.b"'), warning('unknown field "zzz"')]
        assert merge.body["metadata"]["labels"] == {"b": "3"}
        ops = '[{"op":"add","op":"add","path":"/zzz","value":"2"}]'
        json_patch = await api.call("PATCH", f"{PODS}/p", data=ops, content_type=JSON_PATCH)
        assert json_patch.warnings == [warning('json patch duplicate field "[0].op"'), warning('unknown field "zzz"')]
        strict = await api.call("PATCH", f"{PODS}/p", data=ops, content_type=JSON_PATCH, fieldValidation="Strict")
        message = strict.body["message"]
        assert strict.status == 422 and message.startswith(' "" is invalid: patch: Invalid value: "{')
        assert message.endswith('": strict decoding error: json patch duplicate field "[0].op", unknown field "zzz"')
        assert created["metadata"]["uid"] in message  # the value is the patched object

    serve(scenario)


@pytest.mark.parametrize("content_type", [MERGE, JSON_PATCH])
def test_json_and_merge_patch_results_are_decoded_strictly(content_type: str) -> None:
    """A JSON or merge patch adding ``spec.containerz``: the patched document goes through the
    strict decoder; its 422 shows the patched object (the real one's ``managedFields`` aside)."""
    patch: Any = {"spec": {"containerz": 1}} if content_type == MERGE else [
        {"op": "add", "path": "/spec/containerz", "value": 1}]

    async def scenario(api: Api) -> None:
        await api.call("POST", PODS, pod())
        strict = await api.call("PATCH", f"{PODS}/p", patch, content_type=content_type, fieldValidation="Strict")
        assert strict.status == 422
        cause = strict.body["details"]["causes"][0]
        assert (cause["field"], cause["reason"]) == ("patch", "FieldValueInvalid")
        assert cause["message"].endswith('": strict decoding error: unknown field "spec.containerz"')
        shown = json.loads(json.loads(cause["message"][len("Invalid value: "):cause["message"].rindex('": ') + 1]))
        assert shown["spec"]["containerz"] == 1 and list(shown)[:2] == ["apiVersion", "kind"]
        warned = await api.call("PATCH", f"{PODS}/p", patch, content_type=content_type)
        assert (warned.status, warned.warnings) == (200, [warning('unknown field "spec.containerz"')])
        ignored = await api.call("PATCH", f"{PODS}/p", patch, content_type=content_type, fieldValidation="Ignore")
        assert (ignored.status, ignored.warnings) == (200, [])

    serve(scenario)


def test_a_bad_directive_is_refused_before_the_body_is_read() -> None:
    """``fieldValidation=Bogus`` on a create with a body that is not JSON, and on a patch with
    ``force``: the options' 422 comes first and names every bad option."""

    async def scenario(api: Api) -> None:
        create = await api.call("POST", PODS, data="{", fieldValidation="Bogus")
        assert create.body["message"] == ('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported '
                                          'value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"')
        await api.call("POST", PODS, pod())
        patch = await api.call("PATCH", f"{PODS}/p", data="{}", content_type=MERGE, fieldValidation="strict",
                               force="true")
        assert patch.body["message"] == (
            'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, '
            'fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"]')

    serve(scenario)


# ------------------------------------------------------------------------------ real clients


@pytest.fixture(scope="module")
def threaded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadedServer]:
    server = ThreadedServer(tmp_path_factory.mktemp("fieldvalidation")).start()
    yield server
    server.stop()


def test_the_python_client_sends_the_directive(threaded: ThreadedServer) -> None:
    """The ``kubernetes`` client's ``field_validation`` argument is accepted; its models refuse an
    unknown field before sending, so a dict body goes through the same client's transport
    (``param_serialize``/``call_api``): Strict is the 400, Warn answers with the header."""
    kubernetes = pytest.importorskip("kubernetes")
    config = kubernetes.client.Configuration()
    config.host = threaded.url
    with kubernetes.client.ApiClient(config) as client:
        core = kubernetes.client.CoreV1Api(client)
        model = kubernetes.client.V1Pod(metadata=kubernetes.client.V1ObjectMeta(name="py"), spec=kubernetes.client.V1PodSpec(
            containers=[kubernetes.client.V1Container(name="c", image="x")]))
        assert core.create_namespaced_pod("default", model, field_validation="Strict").metadata.name == "py"

        def post(name: str, directive: str) -> Any:
            method, url, headers, body, _ = client.param_serialize(
                "POST", "/api/v1/namespaces/{namespace}/pods", path_params={"namespace": "default"},
                query_params=[("fieldValidation", directive)], body=pod(name, containerz=1),
                header_params={"Content-Type": "application/json", "Accept": "application/json"})
            response = client.call_api(method, url, header_params=headers, body=body)
            response.read()
            return response

        refused = post("py-strict", "Strict")
        assert (refused.status, json.loads(refused.data)["message"]) == (
            400, HANDLED + 'strict decoding error: unknown field "spec.containerz"')
        warned = post("py-warn", "Warn")
        assert (warned.status, warned.headers.getlist("Warning")) == (201, [warning('unknown field "spec.containerz"')])


def test_the_harness_client_writes_strictly(threaded: ThreadedServer) -> None:
    """The scenario client asks for Strict on every write, so a scenario's typo fails."""

    async def scenario() -> None:
        client = ScenarioClient(threaded.url)
        try:
            with pytest.raises(ApiError) as refused:
                await client.request("POST", PODS, body=pod("typo", container={"imagePullPolicyy": "Never"}))
            assert (refused.value.code, refused.value.message) == (
                400, HANDLED + 'strict decoding error: unknown field "spec.containers[0].imagePullPolicyy"')
            created = await client.request("POST", PODS, body=pod("typo"))
            with pytest.raises(ApiError) as patched:
                await client.request("PATCH", f"{PODS}/typo", body={"spec": {"nodeNmae": "n"}}, content_type=SMP)
            assert patched.value.code == 422
            assert created["metadata"]["name"] == "typo"
        finally:
            await client.close()

    asyncio.run(scenario())


KUBECTL = shutil.which("kubectl")


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
@pytest.mark.parametrize(("validate", "code", "stderr"), [
    # the server's OpenAPI v3 lists fieldValidation, so kubectl v1.32's --validate=strict (its
    # default) and warn send it as Strict and Warn; ignore and false send Ignore without asking
    ("strict", 1, 'Error from server (BadRequest): error when creating "STDIN": ' + HANDLED
     + 'strict decoding error: unknown field "spec.containerz"\n'),
    ("warn", 0, 'Warning: unknown field "spec.containerz"\n'),
    ("ignore", 0, ""),
])
def test_kubectl_create_with_an_unknown_field(threaded: ThreadedServer, validate: str, code: int,
                                              stderr: str, tmp_path: Path) -> None:
    manifest = json.dumps(pod(f"kubectl-{validate}", containerz=1))
    done = subprocess.run(
        [str(KUBECTL), f"--kubeconfig={threaded.kubeconfig}", f"--cache-dir={tmp_path}", "--request-timeout=30s",
         "create", "-n", "default", "-f", "-", f"--validate={validate}"],
        input=manifest, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (code, stderr)
