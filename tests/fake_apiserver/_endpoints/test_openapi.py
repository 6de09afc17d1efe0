"""The OpenAPI documents, through real clients: kubectl v1.32, the ``kubernetes`` client, aiohttp.

Where the expected values come from:

* field and kind descriptions, property names, patch extensions: the schema package
  (:mod:`fake_apiserver._machinery.schema`, kubernetes-validate's Kubernetes v1.37.0 schemas);
* document shapes, operation names, ``x-kubernetes-action`` values, query parameters, headers,
  the 301 for a stale hash, the 404 for an unknown group-version, the root's ``text/plain`` type,
  and the kubectl outputs: a real kube-apiserver v1.36 captured with curl and with kubectl v1.32
  (its OpenAPI v3 JSON as kube-openapi writes it); the hash algorithm is kube-openapi's
  ``computeETag`` (SHA-512, upper-case hex);
* which operations each kind has: its row in :data:`~fake_apiserver.KINDS` (what the fake serves);
* an enum field's values and their descriptions: the Kubernetes API reference (PodSpec's
  ``preemptionPolicy``); with a release build of kube-apiserver v1.37.2 at hand (in
  ``KUBEBUILDER_ASSETS`` or where ``schedharness k8s build`` keeps it), ``kubectl explain`` of the
  real server, compared line for line with the fake's, and the enum data
  (``fake_apiserver/data/openapi-enums-v1.NN.json``) compared with what ``tools/gen_openapi_enums.py``
  writes from the real server.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import aiohttp
import pytest

from fake_apiserver import KINDS, KindSpec
from fake_apiserver._machinery import schema as _schema
from fake_apiserver._endpoints.discovery import api_resource_list, group_versions
from fake_apiserver._endpoints.openapi_paths import kind_paths
from harness._backends.envtest import ASSETS_VARIABLE, ControlPlane, EnvtestError, find_assets
from harness._backends.k8sbuild import cache_root
from tests.support.paths import ROOT
from tests.support.threaded_server import ThreadedServer

TIMEOUT = 60.0  # seconds; reached only when something hangs
V3_REF = "#/components/schemas/"
PROTOBUF_ACCEPT = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"  # what kubectl sends for v2
# The x-kubernetes-action of each operation, by verb (kube-apiserver's names, from the capture).
ACTIONS = {"list": ("get", "list"), "create": ("post", "post"), "deletecollection": ("delete", "deletecollection"),
           "get": ("get", "get"), "update": ("put", "put"), "patch": ("patch", "patch"), "delete": ("delete", "delete")}
WRITE_PARAMETERS = {"dryRun", "fieldManager", "fieldValidation"}


def _gv_name(spec: KindSpec) -> str:
    return f"apis/{spec.group}/{spec.version}" if spec.group else f"api/{spec.version}"


def _paths(spec: KindSpec, watch: bool = False) -> tuple[str, str]:
    """The kind's collection and item paths (under ``/watch`` with ``watch``)."""
    prefix = f"/apis/{spec.group}/{spec.version}" if spec.group else f"/api/{spec.version}"
    ns = "/namespaces/{namespace}" if spec.namespaced else ""
    collection = f"{prefix}{'/watch' if watch else ''}{ns}/{spec.resource}"
    return collection, collection + "/{name}"


def _gvk(spec: KindSpec) -> dict[str, str]:
    return {"group": spec.group, "version": spec.version, "kind": spec.kind}


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            elif key == "properties":  # keyed by field name: JSONSchemaProps has a field "$ref"
                yield from _refs(list(value.values()))
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


async def _fetch_all(url: str) -> tuple[dict[str, Any], dict[str, tuple[aiohttp.ClientResponse, bytes]]]:
    """``/openapi/v3`` and every document it lists, as an ordinary HTTP client reads them."""
    async with aiohttp.ClientSession() as session:
        async with session.get(url + "/openapi/v3") as r:
            assert r.status == 200
            root = json.loads(await r.read())
        out: dict[str, tuple[aiohttp.ClientResponse, bytes]] = {}
        for name, entry in root["paths"].items():
            async with session.get(url + entry["serverRelativeURL"], headers={"Accept": "application/json"}) as r:
                out[name] = (r, await r.read())
    return root, out


@pytest.fixture
def documents(threaded_server: ThreadedServer) -> tuple[dict[str, Any], dict[str, Any]]:
    """The root and every v3 document of one server, fetched with aiohttp."""
    root, fetched = asyncio.run(_fetch_all(threaded_server.url))
    for response, _ in fetched.values():
        assert response.status == 200
    return root, {name: json.loads(body) for name, (_, body) in fetched.items()}


# --- /openapi/v3 over HTTP --------------------------------------------------------------------


def _raw_get(api: Any, path: str, query: list[tuple[str, str]] | None = None) -> Any:
    """A GET through the ``kubernetes`` client's own transport (auth, TLS settings, host)."""
    method, url, headers, body, post = api.param_serialize("GET", path, query_params=query or [],
                                                           header_params={"Accept": "application/json"})
    response = api.call_api(method, url, headers, body, post)
    response.read()
    return response


def test_the_root_lists_every_served_group_version_through_the_python_client(k8s_api: Any) -> None:
    response = _raw_get(k8s_api, "/openapi/v3")
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/plain; charset=utf-8"  # as the real server's root
    names = set(json.loads(response.data)["paths"])
    served = {f"apis/{g}/{v}" if g else f"api/{v}" for g, versions in group_versions(KINDS).items() for v in versions}
    groups = {f"apis/{g}" for g in group_versions(KINDS) if g}
    assert names == served | groups | {"api", "apis", "version"}


def test_every_listed_document_is_served_under_its_hash(threaded_server: ThreadedServer) -> None:
    root, fetched = asyncio.run(_fetch_all(threaded_server.url))
    assert set(fetched) == set(root["paths"])
    for name, (response, body) in fetched.items():
        url = root["paths"][name]["serverRelativeURL"]
        digest = hashlib.sha512(body).hexdigest().upper()  # kube-openapi computeETag
        assert url == f"/openapi/v3/{name}?hash={digest}"
        assert response.status == 200
        assert response.headers["Content-Type"] == "application/json"
        assert response.headers["ETag"] == f'"{digest}"'
        assert response.headers["Cache-Control"] == "public, immutable"
        assert response.headers["Vary"] == "Accept"
        document = json.loads(body)
        assert document["openapi"] == "3.0.0"
        assert document["info"] == {"title": "Kubernetes", "version": "1.37"}  # the schemas pinned: kube-apiserver v1.36 says 1.36


def test_every_ref_resolves_inside_its_document(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, docs = documents
    for name, document in docs.items():
        schemas = document["components"]["schemas"]
        refs = set(_refs(document))
        assert refs, name
        for ref in refs:
            assert ref.startswith(V3_REF), (name, ref)
            assert ref.removeprefix(V3_REF) in schemas, (name, ref)


def test_every_served_kind_has_its_gvk_paths(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, docs = documents
    for spec in KINDS:
        paths = docs[_gv_name(spec)]["paths"]
        collection, item = _paths(spec)
        for verb in spec.verbs:
            if verb == "watch":
                continue
            method, action = ACTIONS[verb]
            path = collection if verb in ("list", "create", "deletecollection") else item
            op = paths[path][method]
            assert op["x-kubernetes-action"] == action, (spec.kind, verb)
            assert op["x-kubernetes-group-version-kind"] == _gvk(spec), (spec.kind, verb)
        if "watch" in spec.verbs:
            watch_list, watch_item = _paths(spec, watch=True)
            for path, action in ((watch_list, "watchlist"), (watch_item, "watch")):
                op = paths[path]["get"]
                assert (op["x-kubernetes-action"], op["x-kubernetes-group-version-kind"]) == (action, _gvk(spec))
        for sub in spec.subresource_refs:
            if sub.name == "log" or sub.kind.endswith("Options"):  # not served: no kubelet behind the fake
                assert f"{item}/{sub.name}" not in paths
                continue
            ops = paths[f"{item}/{sub.name}"]
            gvk = {"group": sub.group, "version": sub.version, "kind": sub.kind}
            assert ops and all(op["x-kubernetes-group-version-kind"] == gvk for m, op in ops.items() if m != "parameters")


def test_a_row_written_by_hand_describes_the_pods_own_kind_subresources_as_the_pod_declares() -> None:
    """A row written by hand describes none of its subresources: discovery and the documents give
    a pod's ``binding`` and ``eviction`` the kinds the Pod's declaration says they take (a ``v1``
    Binding, a ``policy/v1`` Eviction, create only), and ``status`` the parent's kind."""
    row = KindSpec("", "v1", "pods", "Pod", True, "pod", subresources=("status", "binding", "eviction"))
    listed = api_resource_list((row,), "", "v1")
    assert listed is not None
    assert [(r["name"], r.get("group"), r.get("version"), r["kind"], r["verbs"]) for r in listed["resources"][1:]] == [
        ("pods/status", None, None, "Pod", ["get", "patch", "update"]),
        ("pods/binding", None, None, "Binding", ["create"]),
        ("pods/eviction", "policy", "v1", "Eviction", ["create"]),
    ]
    paths = {item.path: item.operations for item in kind_paths(row)}
    item = "/api/v1/namespaces/{namespace}/pods/{name}/"
    assert [(op.method, op.operation_id, op.gvk) for sub in ("status", "binding", "eviction")
            for op in paths[item + sub]] == [
        ("get", "readCoreV1NamespacedPodStatus", ("", "v1", "Pod")),
        ("put", "replaceCoreV1NamespacedPodStatus", ("", "v1", "Pod")),
        ("patch", "patchCoreV1NamespacedPodStatus", ("", "v1", "Pod")),
        ("post", "createCoreV1NamespacedPodBinding", ("", "v1", "Binding")),
        ("post", "createCoreV1NamespacedPodEviction", ("policy", "v1", "Eviction")),
    ]


def test_field_validation_is_on_every_write_of_every_kind(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """kubectl's ``queryParamVerifierV3`` looks for ``fieldValidation`` on the PATCH of the kind's
    path: every PATCH with the kind's GVK must have it (it stops at the first it meets)."""
    _, docs = documents
    writes = 0
    for spec in KINDS:
        if "patch" not in spec.verbs:  # create-only kinds (reviews, bindings), componentstatuses
            continue
        for path, item in docs[_gv_name(spec)]["paths"].items():
            for method in ("post", "put", "patch"):
                op = item.get(method)
                if op is None:
                    continue
                names = {p["name"] for p in op.get("parameters", []) + item.get("parameters", []) if p["in"] == "query"}
                assert WRITE_PARAMETERS <= names, (path, method)
                writes += 1
                if method == "patch":
                    assert "force" in names
                    assert "application/strategic-merge-patch+json" in op["requestBody"]["content"], path
    assert writes >= 3 * len([k for k in KINDS if "patch" in k.verbs])


def test_list_operations_take_the_list_options(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, docs = documents
    op = docs["api/v1"]["paths"]["/api/v1/namespaces/{namespace}/pods"]["get"]
    assert [p["name"] for p in op["parameters"]] == [
        "allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion",
        "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds", "watch"]
    assert op["operationId"] == "listCoreV1NamespacedPod"
    # DeleteOptions' own words, from the schema package
    delete = docs["api/v1"]["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["delete"]
    grace = next(p for p in delete["parameters"] if p["name"] == "gracePeriodSeconds")
    words = _schema.definition("io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions")["properties"]
    assert grace == {"name": "gracePeriodSeconds", "in": "query", "description": words["gracePeriodSeconds"]["description"],
                     "schema": {"type": "integer", "uniqueItems": True}}


def test_schemas_are_the_schema_packages_in_openapi_v3_form(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, docs = documents
    for spec in KINDS:
        name = _schema.definition_name(spec.group, spec.version, spec.kind)
        source = _schema.definition(name)
        served = docs[_gv_name(spec)]["components"]["schemas"][name]
        assert served["description"] == source["description"]
        assert served["type"] == "object"
        assert set(served["properties"]) == set(source["properties"])
        assert _gvk(spec) in served["x-kubernetes-group-version-kind"]
        assert "enum" not in served["properties"]["kind"]  # the package adds it; kube-apiserver has none
    pod = docs["api/v1"]["components"]["schemas"]["io.k8s.api.core.v1.Pod"]
    spec_words = _schema.definition("io.k8s.api.core.v1.Pod")["properties"]["spec"]["description"]
    assert pod["properties"]["spec"] == {"description": spec_words, "allOf": [{"$ref": V3_REF + "io.k8s.api.core.v1.PodSpec"}]}
    containers = docs["api/v1"]["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
    assert (containers["x-kubernetes-patch-strategy"], containers["x-kubernetes-patch-merge-key"]) == ("merge", "name")
    assert containers["items"] == {"$ref": V3_REF + "io.k8s.api.core.v1.Container"}


POD_SPEC = "io.k8s.api.core.v1.PodSpec"
# PodSpec.preemptionPolicy's values and what each means, as the Kubernetes API reference gives them
PREEMPTION_VALUES = ["Never", "PreemptLowerPriority"]
PREEMPTION_WORDS = ('Possible enum values: - `"Never"` means that pod never preempts other pods with lower priority. '
                    '- `"PreemptLowerPriority"` means that pod can preempt other pods with lower priority.')


def test_an_enum_field_lists_its_values_and_says_what_each_means(threaded_server: ThreadedServer) -> None:
    async def fetch(path: str) -> Any:
        async with aiohttp.ClientSession() as session:
            async with session.get(threaded_server.url + path, headers={"Accept": "application/json"}) as r:
                return json.loads(await r.read())

    v3 = asyncio.run(fetch("/openapi/v3/api/v1"))["components"]["schemas"][POD_SPEC]
    v2 = asyncio.run(fetch("/openapi/v2"))["definitions"][POD_SPEC]
    for pod_spec in (v3, v2):
        policy = pod_spec["properties"]["preemptionPolicy"]
        assert (policy["type"], policy["enum"]) == ("string", PREEMPTION_VALUES)
        assert _words(policy["description"]).endswith(PREEMPTION_WORDS)
        assert _words(policy["description"]).startswith(
            _words(_schema.definition(POD_SPEC)["properties"]["preemptionPolicy"]["description"]))


def test_a_release_without_enum_data_serves_the_schema_packages_fields(make_threaded_server: Any) -> None:
    server = make_threaded_server(kubernetes_version="1.36")

    async def fetch() -> Any:
        async with aiohttp.ClientSession() as session:
            async with session.get(server.url + "/openapi/v3/api/v1") as r:
                return json.loads(await r.read())

    policy = asyncio.run(fetch())["components"]["schemas"][POD_SPEC]["properties"]["preemptionPolicy"]
    source = _schema.definition(POD_SPEC, "1.36.0")["properties"]["preemptionPolicy"]
    assert policy == {"type": "string", "description": source["description"]}


def test_a_stale_hash_redirects_and_no_hash_is_not_immutable(threaded_server: ThreadedServer) -> None:
    async def probe() -> None:
        async with aiohttp.ClientSession() as session:
            base = threaded_server.url + "/openapi/v3/apis/scheduling.k8s.io/v1"
            async with session.get(base) as r:
                body = await r.read()
                assert r.status == 200
                assert "Cache-Control" not in r.headers
                etag = r.headers["ETag"]
            digest = hashlib.sha512(body).hexdigest().upper()
            async with session.get(base + "?hash=ABC", allow_redirects=False) as r:
                assert r.status == 301
                assert r.headers["Location"] == f"/openapi/v3/apis/scheduling.k8s.io/v1?hash={digest}"
            async with session.get(base, headers={"If-None-Match": etag}) as r:
                assert (r.status, await r.read()) == (304, b"")
            async with session.get(threaded_server.url + "/openapi/v3/apis/apps/v2") as r:
                assert (r.status, await r.read()) == (404, b"")

    asyncio.run(probe())


def test_two_servers_serve_the_same_hashes(make_threaded_server: Any) -> None:
    first, second = make_threaded_server(), make_threaded_server()

    async def root(url: str) -> Any:
        async with aiohttp.ClientSession() as session:
            async with session.get(url + "/openapi/v3") as r:
                return json.loads(await r.read())

    assert asyncio.run(root(first.url)) == asyncio.run(root(second.url))


# --- /openapi/v2 ------------------------------------------------------------------------------


def test_openapi_v2_json_has_the_same_model(threaded_server: ThreadedServer) -> None:
    async def fetch(accept: str) -> tuple[int, str, bytes]:
        async with aiohttp.ClientSession() as session:
            async with session.get(threaded_server.url + "/openapi/v2", headers={"Accept": accept}) as r:
                return r.status, r.headers["Content-Type"], await r.read()

    status, content_type, body = asyncio.run(fetch("application/json"))
    assert (status, content_type) == (200, "application/json")
    swagger = json.loads(body)
    assert swagger["swagger"] == "2.0"
    for ref in _refs(swagger):
        assert ref.removeprefix("#/definitions/") in swagger["definitions"], ref
    for spec in KINDS:
        name = _schema.definition_name(spec.group, spec.version, spec.kind)
        assert swagger["definitions"][name]["description"] == _schema.definition(name)["description"]
        if "patch" in spec.verbs:
            patch = swagger["paths"][_paths(spec)[1]]["patch"]
            assert patch["x-kubernetes-group-version-kind"] == _gvk(spec)
            assert WRITE_PARAMETERS <= {p["name"] for p in patch["parameters"]}
    int_or_string = swagger["definitions"]["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
    assert (int_or_string["type"], int_or_string["format"]) == ("string", "int-or-string")
    # A client that takes only the protobuf form gets an empty (valid) gnostic document
    status, content_type, body = asyncio.run(fetch(PROTOBUF_ACCEPT))
    assert (status, content_type, body) == (200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", b"")


# --- kubectl ----------------------------------------------------------------------------------


def _words(text: str) -> str:
    return " ".join(text.split())


@contextlib.contextmanager
def _serve(tmp: Path, *options: str) -> Iterator[list[str]]:
    """``schedharness serve`` (with ``options``) on a free port, and the kubectl command line
    pointed at it."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")
    kubeconfig = tmp / "kubeconfig"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", "0", "--kubeconfig", str(kubeconfig), *options],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("schedharness: kubeconfig written to"):
                break
        yield ["kubectl", f"--kubeconfig={kubeconfig}", f"--cache-dir={tmp / 'cache'}"]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """``schedharness serve`` on a free port, and the kubectl command line pointed at it."""
    with _serve(tmp_path_factory.mktemp("openapi-kubectl")) as argv:
        yield argv


def _run(argv: list[str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*argv, *args], input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


def test_kubectl_explain_pod_spec(kubectl: list[str]) -> None:
    done = _run(kubectl, "explain", "pod.spec")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:4] == ["KIND:       Pod", "VERSION:    v1", "", "FIELD: spec <PodSpec>"]
    pod_spec = _schema.definition("io.k8s.api.core.v1.PodSpec")
    out = _words(done.stdout)
    assert _words(pod_spec["description"]) in out
    assert _words(pod_spec["properties"]["schedulingGates"]["description"]) in out
    assert "  containers\t<[]Container> -required-" in lines


def test_kubectl_explain_containers_recursively(kubectl: list[str]) -> None:
    done = _run(kubectl, "explain", "pods.spec.containers", "--recursive")
    assert done.returncode == 0, done.stderr
    top = {m.group(1) for m in re.finditer(r"^  (\w+)\t<", done.stdout, re.M)}
    assert top == set(_schema.definition("io.k8s.api.core.v1.Container")["properties"])
    nested = {m.group(1) for m in re.finditer(r"^    (\w+)\t<", done.stdout, re.M)}
    assert set(_schema.definition("io.k8s.api.core.v1.ResourceRequirements")["properties"]) <= nested


def test_kubectl_explain_priorityclass(kubectl: list[str]) -> None:
    done = _run(kubectl, "explain", "priorityclass")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["GROUP:      scheduling.k8s.io", "KIND:       PriorityClass", "VERSION:    v1"]
    words = _schema.definition("io.k8s.api.scheduling.v1.PriorityClass")
    assert _words(words["description"]) in _words(done.stdout)
    assert _words(words["properties"]["preemptionPolicy"]["description"]) in _words(done.stdout)


def test_kubectl_explain_from_openapi_v2_says_it_finds_no_model(kubectl: list[str]) -> None:
    """The v2 protobuf document is empty (see fake_apiserver._endpoints.openapi), so kubectl's v2 renderer
    finds no model: kubectl's own message for a GVK missing from the document."""
    done = _run(kubectl, "explain", "--output", "plaintext-openapiv2", "pod")
    assert (done.returncode, done.stdout, done.stderr) == (1, "", 'error: couldn\'t find resource for "/v1, Kind=Pod"\n')


def test_kubectl_create_asks_the_server_to_validate_strictly(kubectl: list[str], tmp_path: Path) -> None:
    """kubectl's query-param verifier finds ``fieldValidation`` on the Pod's PATCH, so
    ``--validate=strict`` (the default) sends ``fieldValidation=Strict`` and skips its own checks.
    A real kube-apiserver v1.36 refuses the typo with the message below (captured with kubectl
    v1.32); the fake refuses it the same way."""
    manifest = tmp_path / "pod-with-typo.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: typo\nspec:\n  containerz: []\n"
                        "  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n")
    done = _run(kubectl, "create", "-n", "default", "-f", str(manifest), "-v=6")
    posts = [line for line in done.stderr.splitlines() if " POST " in line and "/pods?" in line]
    assert len(posts) == 1 and "fieldValidation=Strict" in posts[0], done.stderr
    assert done.returncode == 1, f"the fake took an unknown field under fieldValidation=Strict: {done.stdout}"
    # -v=6 logs the request lines and the Status body (indented JSON); kubectl's own error is the rest
    message = [line for line in done.stderr.splitlines() if line.startswith("Error")]
    assert message == [f'Error from server (BadRequest): error when creating "{manifest}": Pod in version "v1" '
                       'cannot be handled as a Pod: strict decoding error: unknown field "spec.containerz"']


def test_the_python_client_fetches_a_document_by_its_server_relative_url(k8s_api: Any) -> None:
    url = json.loads(_raw_get(k8s_api, "/openapi/v3").data)["paths"]["api/v1"]["serverRelativeURL"]
    path, _, query = url.partition("?")
    response = _raw_get(k8s_api, path, [("hash", query.removeprefix("hash="))])
    assert (response.status, response.getheader("Cache-Control")) == (200, "public, immutable")
    body = response.data
    assert query == "hash=" + hashlib.sha512(body).hexdigest().upper()
    paths = json.loads(body)["paths"]
    assert paths["/api/v1/namespaces/{namespace}/pods/{name}/binding"]["post"]["x-kubernetes-group-version-kind"] == {
        "group": "", "version": "v1", "kind": "Binding"}


# --- enums, and a real kube-apiserver v1.37.2 -------------------------------------------------

EXPLAINED_KINDS = ("pod", "service", "persistentvolumeclaim", "resourceclaim", "job")
ENUM_DATA = sorted((ROOT / "fake_apiserver" / "data").glob("openapi-enums-v*.json"))


def _release_build(version: str) -> Path:
    """The binaries of kube-apiserver ``version`` (``v1.37.2``): those of ``KUBEBUILDER_ASSETS``
    when they are of that version, else the build ``schedharness k8s build`` keeps; a skip when
    neither is at hand."""
    candidates = [cache_root() / version]
    try:
        candidates.insert(0, find_assets())
    except EnvtestError:
        pass
    for candidate in candidates:
        try:
            assets = find_assets(candidate)
        except EnvtestError:
            continue
        done = subprocess.run([str(assets / "kube-apiserver"), "--version"], capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
        if done.stdout.split()[-1:] == [version]:
            return assets
    minor = ".".join(version.lstrip("v").split(".")[:2])
    pytest.skip(f"no kube-apiserver {version}: neither {ASSETS_VARIABLE} nor {cache_root() / version} holds it "
                f"(`schedharness k8s build {minor}` makes it)")


@pytest.fixture(scope="module")
def real_kubectl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """kube-apiserver v1.37.2 with etcd (default API groups and versions), and the kubectl command
    line pointed at it."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")
    tmp = tmp_path_factory.mktemp("openapi-real")
    with ControlPlane(assets=_release_build("v1.37.2"), logdir=tmp / "logs") as plane:
        yield ["kubectl", f"--kubeconfig={plane.kubeconfig_path}", f"--cache-dir={tmp / 'cache'}"]


@pytest.fixture(scope="module")
def fake_kubectl_137(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """``schedharness serve --kubernetes-version 1.37``, and the kubectl command line pointed at it."""
    with _serve(tmp_path_factory.mktemp("openapi-fake-137"), "--kubernetes-version", "1.37") as argv:
        yield argv


@pytest.mark.parametrize("query", [
    ("pod.spec.preemptionPolicy",),
    *((f"{kind}.spec",) for kind in EXPLAINED_KINDS),
    *((f"{kind}.spec", "--recursive") for kind in EXPLAINED_KINDS),
], ids=" ".join)
def test_kubectl_explain_says_what_it_says_of_a_real_kube_apiserver(
        query: tuple[str, ...], real_kubectl: list[str], fake_kubectl_137: list[str]) -> None:
    """Field by field, with the enum values (``ENUM:``, ``enum: ...`` under ``--recursive``) and the
    descriptions that list them (``Possible enum values:``): the same lines from both servers."""
    real = _run(real_kubectl, "explain", *query)
    assert real.returncode == 0, real.stderr
    fake = _run(fake_kubectl_137, "explain", *query)
    assert (fake.returncode, fake.stderr) == (0, "")
    assert fake.stdout.splitlines() == real.stdout.splitlines()


def _enum_nodes(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):  # JSONSchemaProps has a property named "enum"
            yield pointer, node
        for key, value in node.items():
            yield from _enum_nodes(value, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _enum_nodes(value, f"{pointer}/{index}")


def test_the_served_enums_are_those_of_the_releases_data(documents: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Every enum node of every served v3 schema is one the data (from the real server) names, with
    its values and description, and every node the data names of a served schema is served."""
    minor = _schema.KUBERNETES_VERSION.rsplit(".", 1)[0]
    data = json.loads((ROOT / "fake_apiserver" / "data" / f"openapi-enums-v{minor}.json").read_text())["definitions"]
    served: dict[str, dict[str, Any]] = {}
    for document in documents[1].values():
        served.update(document["components"]["schemas"])
    found = {(name, pointer): {k: node[k] for k in ("enum", "description") if k in node}
             for name, schema in served.items() for pointer, node in _enum_nodes(schema)}
    expected = {(name, pointer): entry for name, nodes in data.items() if name in served
                for pointer, entry in nodes.items()}
    assert found == expected
    assert (POD_SPEC, "/properties/preemptionPolicy") in found
    assert len(found) > 100  # the kinds the fake serves reach most of the release's enum fields (106 of 144)


@pytest.mark.parametrize("path", ENUM_DATA, ids=lambda path: path.stem)
def test_the_enum_data_is_what_the_generator_writes_from_a_real_kube_apiserver(path: Path, tmp_path: Path) -> None:
    committed = path.read_text()
    assets = _release_build(json.loads(committed)["kubernetes"])
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_openapi_enums.py"), str(assets),
                           "--out-dir", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / path.name).read_text() == committed
