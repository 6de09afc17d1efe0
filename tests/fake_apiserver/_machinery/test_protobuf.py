"""Protobuf request bodies (issue 12): the generated wire facts, the decoder, and real clients.

Nothing here encodes protobuf: every body is one a real client sent (kubectl v1.32's imperative
``create``, kube-scheduler v1.35 and v1.30 with their default configuration) or one sent to a real
kube-apiserver v1.36, all kept under ``tests/data/protobuf/`` with how they were made. Expected
JSON always comes from outside the decoder, and each test says from where:

- kubectl: the same command's ``--dry-run=client -o json`` (kubectl's own encoding/json of the
  object it sends);
- kube-scheduler: kube-apiserver v1.36's answer to the same body sent with ``?dryRun=All`` less
  the fields the server sets (its Events), or the body the same binary sent as JSON in a run with
  ``contentType: application/json`` (its binding and DeleteOptions);
- malformed bodies and the types with their own JSON: kube-apiserver v1.36's answers;
- whole objects: kube-apiserver v1.36's JSON encoding of the object whose protobuf encoding is
  decoded (both read back with GET);
- Go type names: the real server's decode errors, which print them.

Clients built with older apimachinery (kubectl v1.32, kube-scheduler v1.30) write
``creationTimestamp: null`` for an unset time; the v1.36 ``ObjectMeta`` the server decodes into has
``omitzero`` there and leaves it out (:func:`without_null_creation_timestamps`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, TypeVar

import aiohttp
import pytest

from fake_apiserver import KINDS, FakeApiServer, by_resource
from fake_apiserver._machinery import protobuf
from fake_apiserver._machinery.errors import NotFound
from fake_apiserver._machinery import schema as _schema
from harness._time.virtual_time import VirtualClock, run
from tests.support.paths import ROOT, TEST_DATA
from tests.support.threaded_server import ThreadedServer

T = TypeVar("T")

DATA = TEST_DATA / "protobuf"
GENERATED_DIR = ROOT / "fake_apiserver" / "data"
# The generated data the package ships, by release, with the staging tag each was read at.
SOURCES = {"1.36": "v0.36.0", "1.37": "v0.37.2"}
# The modules the Go types are read from, with the generator's option and the variable naming a git dir of each.
MODULES = {"k8s.io/api": ("--api", "SCHEDHARNESS_K8S_API_GIT"),
           "k8s.io/apiextensions-apiserver": ("--apiextensions", "SCHEDHARNESS_K8S_APIEXTENSIONS_GIT"),
           "k8s.io/apimachinery": ("--apimachinery", "SCHEDHARNESS_K8S_APIMACHINERY_GIT"),
           "k8s.io/kube-aggregator": ("--kube-aggregator", "SCHEDHARNESS_K8S_KUBE_AGGREGATOR_GIT")}
# The release of the recorded bodies and of the real errors below (kube-apiserver v1.36).
RECORDED_RELEASE = "1.36"
PROTOBUF = protobuf.CONTENT_TYPE
SAFETY_TIMEOUT = 60.0  # seconds; only reached when something hangs


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text())
    return data


@functools.cache
def generated(release: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GENERATED_DIR / f"protobuf-v{release}.json").read_text())
    return data


@functools.cache
def release_definitions(release: str) -> dict[str, Any]:
    """kubernetes-validate's schemas of the data's release (the fake's own schema pin may be a
    later release: a field that release adds is no field of the wire data)."""
    root = resources.files("kubernetes_validate") / "kubernetes-json-schema" / f"v{release}.0-local"
    with (root / "_definitions.json").open("rb") as f:
        loaded: dict[str, Any] = json.load(f)["$defs"]
    return loaded


def release_definition_name(group: str, version: str, kind: str, release: str) -> str:
    [name] = [name for name, d in release_definitions(release).items() if any(
        (g["group"], g["version"], g["kind"]) == (group, version, kind) for g in d.get("x-kubernetes-group-version-kind", ()))]
    return name


MESSAGES: dict[str, dict[str, Any]] = generated(RECORDED_RELEASE)["messages"]
KUBECTL = load("kubectl-v1.32.json")["requests"]
SCHEDULERS = {minor: load(f"kube-scheduler-v1.{minor}.json")["requests"] for minor in (35, 30)}
MALFORMED = load("malformed-v1.36.json")["cases"]
WELL_KNOWN = load("wellknown-v1.36.json")["cases"]
OBJECTS = load("objects-v1.36.json")["objects"]
OBJECTS_V137 = load("objects-v1.37.json")["objects"]


def without_null_creation_timestamps(value: Any) -> Any:
    """``value`` without ``creationTimestamp: null`` anywhere (module docstring)."""
    if isinstance(value, dict):
        return {k: without_null_creation_timestamps(v) for k, v in value.items()
                if not (k == "creationTimestamp" and v is None)}
    if isinstance(value, list):
        return [without_null_creation_timestamps(v) for v in value]
    return value


def at(value: Any, pointer: str) -> Any:
    """The value at a JSON pointer, or ``"<absent>"`` (as the captures write an absent field)."""
    for part in pointer.strip("/").split("/"):
        if not isinstance(value, dict) or part not in value:
            return "<absent>"
        value = value[part]
    return value


def replaced(value: Any, pointers: dict[str, str]) -> Any:
    """A copy of ``value`` with each pointer's value replaced by a placeholder."""
    copy = json.loads(json.dumps(value))
    for pointer in pointers:
        *parents, last = pointer.strip("/").split("/")
        holder = copy
        for part in parents:
            holder = holder[part]
        holder[last] = "<variable>"
    return copy


# --------------------------------------------------------------------------- the generated data


def test_the_package_ships_the_data_of_each_release_it_has_types_for() -> None:
    assert sorted(p.name for p in GENERATED_DIR.glob("protobuf-v*.json")) == [
        f"protobuf-v{release}.json" for release in SOURCES]
    # a server of a release reads that release's data, or the newest before it
    assert [protobuf.data_file(release) for release in ("1.34.0", "1.35.0", "1.36.0", "1.37.0")] == [
        "protobuf-v1.36.json", "protobuf-v1.36.json", "protobuf-v1.36.json", "protobuf-v1.37.json"]


def discovery_kinds(release: str) -> set[tuple[str, str, str]]:
    """The kinds of the release's aggregated discovery data (captured from kube-apiserver): each
    resource's, and each subresource's (with no group-version given, its resource's), of every
    resource the release can serve (``all``, where the data lists it)."""
    found: set[tuple[str, str, str]] = set()
    data = json.loads((GENERATED_DIR / f"discovery-v{release}.json").read_text())
    for group in data.get("all", data["groups"]):
        for version in group["versions"]:
            for resource in version["resources"]:
                found.add((group["group"], version["version"], resource["kind"]))
                for sub in resource["subresources"]:
                    named = sub["responseKind"]
                    found.add((named["group"], named["version"], named["kind"]) if named["version"]
                              else (group["group"], version["version"], named["kind"]))
    return found


# The kinds a subresource names that kube-apiserver publishes no OpenAPI definition for: the
# options of connect subresources (read from the query, never from a body).
CONNECT_OPTIONS = {"NodeProxyOptions", "PodAttachOptions", "PodExecOptions", "PodPortForwardOptions",
                   "PodProxyOptions", "ServiceProxyOptions"}


@pytest.mark.parametrize("release", SOURCES)
def test_the_data_covers_every_kind_of_the_releases_discovery_and_what_kubectl_creates(release: str) -> None:
    kubectl = {("", "v1", "Binding"), ("", "v1", "Secret"), ("apps", "v1", "Deployment"), ("batch", "v1", "Job")}
    data = generated(release)
    kinds = {(k["group"], k["version"], k["kind"]): k["message"] for k in data["kinds"]}
    assert set(kinds) == discovery_kinds(release) | kubectl
    assert {("autoscaling", "v1", "Scale"), ("policy", "v1", "Eviction"), ("authentication.k8s.io", "v1", "TokenRequest"),
            ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"), ("apiregistration.k8s.io", "v1", "APIService"),
            ("", "v1", "PodExecOptions")} <= set(kinds)
    for (group, version, kind), message in kinds.items():
        if kind in CONNECT_OPTIONS:
            assert (group, version, message) == ("", "v1", f"io.k8s.api.core.v1.{kind}")
        else:
            assert message == release_definition_name(group, version, kind, release)
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions" in data["messages"]
    assert data["kubernetes"] == release
    assert data["sources"] == {module: SOURCES[release] for module in MODULES}


def test_a_kind_only_a_later_release_serves_is_in_its_data_alone() -> None:
    """resource.k8s.io/v1 DeviceTaintRule: GA in v1.37, not at v1 before."""
    dtr = ("resource.k8s.io", "v1", "DeviceTaintRule")
    assert [dtr in {(k["group"], k["version"], k["kind"]) for k in generated(r)["kinds"]} for r in SOURCES] == [
        False, True]


@pytest.mark.parametrize("release", SOURCES)
def test_every_message_a_field_names_is_in_the_data(release: str) -> None:
    MESSAGES = generated(release)["messages"]
    for name, message in MESSAGES.items():
        for field in message["fields"]:
            for key in ("elem", "value"):
                target = field.get(key)
                if target and "." in target:
                    assert target in MESSAGES, (name, field["go_name"])
        if "wire_as" in message:
            assert message["wire_as"] in MESSAGES


@pytest.mark.parametrize("release", SOURCES)
def test_field_numbers_are_unique_and_the_json_names_are_the_schemas(release: str) -> None:
    """Against kubernetes-validate's schemas of the same release, an independent source: every
    definition the data shares with them has the same JSON fields (an inline struct's fields
    counted in its parent; ``kind`` and ``apiVersion`` of a top-level kind come from the
    envelope, not from a field)."""
    definitions = release_definitions(release)
    MESSAGES = generated(release)["messages"]

    def json_names(name: str) -> set[str]:
        names: set[str] = set()
        for field in MESSAGES[name]["fields"]:
            names |= json_names(field["elem"]) if field["inline"] else {field["name"]} if field["name"] else set()
        return names

    checked = 0
    for name, message in MESSAGES.items():
        numbers = [f["number"] for f in message["fields"]]
        assert len(numbers) == len(set(numbers)) and all(n > 0 for n in numbers), name
        if name not in definitions or "codec" in message:
            continue
        properties = set(definitions[name].get("properties") or {})
        names = json_names(name)
        assert names <= properties, (name, names - properties)
        assert properties - names <= {"kind", "apiVersion"}, (name, properties - names)
        checked += 1
    assert checked > 250


@pytest.mark.parametrize(("message", "field", "real_error"), [
    # Each type as kube-apiserver v1.36 named it in a JSON decode error of that field (2026-11-23).
    ("io.k8s.api.core.v1.PodSpec", "containers",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"),
    ("io.k8s.api.core.v1.PodSpec", "tolerations",
     "json: cannot unmarshal object into Go struct field PodSpec.spec.tolerations of type []v1.Toleration"),
    ("io.k8s.api.core.v1.PodStatus", "phase",
     "json: cannot unmarshal number into Go struct field PodStatus.status.phase of type v1.PodPhase"),
    ("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "labels",
     "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ("io.k8s.api.core.v1.ResourceRequirements", "limits",
     "json: cannot unmarshal number into Go struct field ResourceRequirements.spec.containers.resources.limits "
     "of type v1.ResourceList"),
    ("io.k8s.api.core.v1.ConfigMap", "binaryData",
     "json: cannot unmarshal number into Go struct field ConfigMap.binaryData of type map[string][]uint8"),
    # encoding/json names a pointer field by the type it points to
    ("io.k8s.api.core.v1.PodSpec", "priority",
     "json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32"),
])
def test_go_types_are_named_as_reflect_prints_them(message: str, field: str, real_error: str) -> None:
    [entry] = [f for f in MESSAGES[message]["fields"] if f["name"] == field]
    struct = MESSAGES[message]["go_type"].rsplit(".", 1)[1]
    assert real_error.startswith(f"json: cannot unmarshal ") and f"Go struct field {struct}." in real_error
    assert real_error.endswith(f" of type {entry['go_type'].lstrip('*')}")
    assert entry["pointer"] == entry["go_type"].startswith("*")


def _module_source(module: str, variable: str, tag: str) -> str | None:
    """Where the generator can read ``module`` at ``tag``: the git dir ``variable`` names when it
    has the tag, else the Go module cache's copy of that version, else None."""
    git_dir = os.environ.get(variable)
    if git_dir and subprocess.run(["git", f"--git-dir={git_dir}", "rev-parse", "--verify", "--quiet",
                                   f"refs/tags/{tag}"], capture_output=True).returncode == 0:
        return git_dir
    cache = os.environ.get("GOMODCACHE") or str(Path(os.environ.get("GOPATH") or Path.home() / "go") / "pkg" / "mod")
    extracted = Path(cache) / f"{module}@{tag}"
    return str(extracted) if (extracted / "go.mod").is_file() else None


@pytest.mark.parametrize("release", SOURCES)
def test_the_generator_reproduces_the_data(release: str, tmp_path: Path) -> None:
    """``tools/gen_protobuf_fields.py`` over kubernetes/api, apimachinery, apiextensions-apiserver
    and kube-aggregator (git dirs, or the Go module cache's copies of the tag) writes the committed
    file of each release byte for byte (the data is generated, never edited)."""
    tag = SOURCES[release]
    argv = [sys.executable, str(ROOT / "tools" / "gen_protobuf_fields.py"), "--release", release, "--tag", tag]
    for module, (option, variable) in MODULES.items():
        where = _module_source(module, variable, tag)
        if where is None:
            pytest.skip(f"set {variable} to a git dir of github.com/{module.replace('k8s.io', 'kubernetes')} "
                        f"with tag {tag} (or have {module}@{tag} in the Go module cache)")
        argv += [option, where]
    out = tmp_path / "protobuf.json"
    done = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == (GENERATED_DIR / f"protobuf-v{release}.json").read_text()


# --------------------------------------------------------------------------- decoding recorded bodies


def _decode(method: str, path: str, body: bytes) -> Any:
    """Decode as the edge does for this request: DeleteOptions for a DELETE, else the URL's kind."""
    if method == "DELETE":
        return protobuf.decode_delete_options(body)
    parts = path.strip("/").split("/")
    group, version = ("", "v1") if parts[0] == "api" else (parts[1], parts[2])
    if parts[-1] == "binding":
        return protobuf.decode_object(body, "", "v1", "Binding")
    spec = by_resource(group, version, parts[-1])
    if spec is not None:
        return protobuf.decode_object(body, group, version, spec.kind)
    kind = {"secrets": "Secret", "deployments": "Deployment", "jobs": "Job"}[parts[-1]]
    return protobuf.decode_object(body, group, version, kind)


@pytest.mark.parametrize("recorded", KUBECTL, ids=[r["name"] for r in KUBECTL])
def test_kubectl_bodies_decode_to_what_kubectl_meant(recorded: dict[str, Any]) -> None:
    """Expected: the command's ``--dry-run=client -o json`` (recorded with the body)."""
    decoded = _decode(recorded["method"], recorded["path"], bytes.fromhex(recorded["body"]))
    assert decoded == without_null_creation_timestamps(recorded["dry_run"])


@pytest.mark.parametrize(("minor", "index"), [(m, i) for m, reqs in SCHEDULERS.items() for i in range(len(reqs))])
def test_kube_scheduler_bodies_decode_to_what_it_meant(minor: int, index: int) -> None:
    """Expected: kube-apiserver's dry-run answer to the same body (Events), or the same binary's
    JSON body for the same request (binding, DeleteOptions), as each recording says."""
    recorded = SCHEDULERS[minor][index]
    decoded = _decode(recorded["method"], recorded["path"], bytes.fromhex(recorded["body"]))
    expected = recorded["expected"]
    if recorded["expected_from"] == "json_run":
        expected = without_null_creation_timestamps(expected)
        variable = recorded.get("variable", {})
        decoded, expected = replaced(decoded, variable), replaced(expected, variable)
    assert decoded == expected


@pytest.mark.parametrize("case", WELL_KNOWN, ids=[c["case"] for c in WELL_KNOWN])
def test_types_with_their_own_json_decode_as_the_real_server_writes_them(case: dict[str, Any]) -> None:
    """MicroTime (microseconds; ``.000000`` kept), Time (nanos dropped; no bytes is ``null``),
    IntOrString (``0`` and ``"25%"``), pointers set to zero or false kept, negative int32,
    ``[]byte`` in base64, RawExtension as the JSON it holds, maps by sorted key; expected: the
    real server's answer to the same body at each pointer."""
    assert case["code"] == 201
    decoded = protobuf.body_json(bytes.fromhex(case["body"]), PROTOBUF)
    assert {pointer: at(decoded, pointer) for pointer in case["real"]} == case["real"]


@pytest.mark.parametrize("recorded", OBJECTS, ids=[o["path"].rsplit("/", 2)[-2] for o in OBJECTS])
def test_objects_decode_to_the_json_the_real_server_writes_for_them(recorded: dict[str, Any]) -> None:
    """The real server's protobuf encoding of an object (a GET with Accept protobuf) decodes to
    its JSON encoding of the same object: the strongest check of field numbers, pointers,
    omitempty, inline structs and the types with their own JSON, on objects full of server-set
    fields and defaults. One difference is the server's, not the decoding's: a StatefulSet's
    ``volumeClaimTemplates`` get ``apiVersion`` and ``kind`` from the apps/v1 conversion on the
    way out, while their message carries no TypeMeta (so a client's protobuf body has none)."""
    decoded = protobuf.body_json(bytes.fromhex(recorded["protobuf"]), PROTOBUF)
    expected = json.loads(json.dumps(recorded["json"]))
    if expected["kind"] == "StatefulSet":
        for template in expected["spec"]["volumeClaimTemplates"]:
            assert (template.pop("apiVersion"), template.pop("kind")) == ("v1", "PersistentVolumeClaim")
    assert decoded == expected


@pytest.mark.parametrize("recorded", OBJECTS_V137, ids=[o["path"].rsplit("/", 2)[-2] for o in OBJECTS_V137])
def test_objects_of_a_kind_v137_adds_decode_as_a_v137_server_reads_them(recorded: dict[str, Any]) -> None:
    """As above, with kube-apiserver v1.37's encodings of a DeviceTaintRule (resource.k8s.io/v1
    from v1.37): decoded as a create body sent to a v1.37 server, with the v1.37 Go types."""
    group, version, _, _ = recorded["path"].removeprefix("/apis/").split("/")
    body = bytes.fromhex(recorded["protobuf"])
    expected = json.loads(json.dumps(recorded["json"]))
    assert protobuf.decode_object(body, group, version, expected["kind"], "1.37.0") == expected
    assert protobuf.body_json(body, PROTOBUF) == expected


@pytest.mark.parametrize(("nanoseconds", "go"), [
    # time.Duration.String(): the examples of Go's time package documentation
    (3600_000_000_000 + 2 * 60_000_000_000 + 300_000_000, "1h2m0.3s"),
    (300_000_000, "300ms"),
    (0, "0s"),
    (1_500, "1.5µs"),
    (-1, "-1ns"),
    (4_530_000_000_000 + 918_273_645, "1h15m30.918273645s"),
])
def test_durations_read_as_go_writes_them(nanoseconds: int, go: str) -> None:
    """``metav1.Duration`` is in none of the decoded kinds today; its JSON is Go's string."""
    assert protobuf.format_duration(nanoseconds) == go


# --------------------------------------------------------------------------- the fake over HTTP


def serve(scenario: Callable[[aiohttp.ClientSession, FakeApiServer], Awaitable[T]]) -> T:
    """Run ``scenario`` against a fresh fake on the virtual loop, with an aiohttp session."""

    async def main() -> T:
        async with FakeApiServer(clock=VirtualClock(asyncio.get_running_loop())) as server:
            async with aiohttp.ClientSession(server.url) as session:
                return await scenario(session, server)

    return run(main())


def test_malformed_bodies_get_the_real_servers_answers() -> None:
    """Every captured body, sent as captured: the same code and, for a failure, the same
    ``Status``, field for field."""

    async def scenario(session: aiohttp.ClientSession, server: FakeApiServer) -> list[tuple[str, int, Any]]:
        seen = []
        for case in MALFORMED:
            async with session.request(case["method"], case["path"], data=bytes.fromhex(case["body"]),
                                       headers={"Content-Type": PROTOBUF, "Accept": "application/json"}) as r:
                answer = await r.json()
            seen.append((case["case"], r.status, answer if "status" in case else None))
        return seen

    got = serve(scenario)
    assert got == [(c["case"], c["code"], c.get("status")) for c in MALFORMED]


def test_recorded_bodies_through_aiohttp_are_stored_and_journaled_as_json() -> None:
    """kubectl's namespace, configmap and priorityclass and a kube-scheduler v1.35 Event, posted as
    recorded: 201 in JSON (the client accepts JSON too), the store holds what the client meant,
    and the journal records the body as that JSON (what a JSON client would have sent)."""
    kubectl = {r["name"]: r for r in KUBECTL}

    async def scenario(session: aiohttp.ClientSession, server: FakeApiServer) -> None:
        async def post(path: str, body: str) -> Any:
            async with session.post(path, data=bytes.fromhex(body),
                                    headers={"Content-Type": PROTOBUF,
                                             "Accept": "application/vnd.kubernetes.protobuf,application/json"}) as r:
                assert r.status == 201, await r.text()
                assert r.content_type == "application/json"
                return await r.json()

        for name in ("namespace", "configmap", "priorityclass"):
            recorded = kubectl[name]
            stored = await post(recorded["path"], recorded["body"])
            meant = without_null_creation_timestamps(recorded["dry_run"])
            _assert_holds(stored, meant)
            assert server.journal.entries[-1].body == meant
        event = SCHEDULERS[35][1]
        stored = await post(event["path"], event["body"])
        _assert_holds(stored, event["expected"])

    serve(scenario)


def _assert_holds(stored: dict[str, Any], meant: dict[str, Any], where: str = "") -> None:
    """Every field of ``meant`` is in ``stored`` with its value (the server adds its own fields)."""
    for key, value in meant.items():
        assert key in stored, f"{where}.{key}"
        if isinstance(value, dict):
            assert isinstance(stored[key], dict), f"{where}.{key}"
            _assert_holds(stored[key], value, f"{where}.{key}")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            assert isinstance(stored[key], list) and len(stored[key]) == len(value), f"{where}.{key}"
            for i, (got, item) in enumerate(zip(stored[key], value)):  # defaults go into list items too
                _assert_holds(got, item, f"{where}.{key}[{i}]")
        else:
            assert stored[key] == value, f"{where}.{key}"


def test_recorded_bodies_through_the_python_client(k8s_api: Any, threaded_server: ThreadedServer) -> None:
    """The ``kubernetes`` client's ``ApiClient.call_api`` sends the recorded bytes with the
    protobuf content type (its typed APIs speak JSON only): kubectl's configmap, as kubectl meant it."""
    recorded = {r["name"]: r for r in KUBECTL}["configmap"]
    host = k8s_api.configuration.host

    def post(path: str, body: Any, content_type: str) -> tuple[int, Any]:
        response = k8s_api.call_api("POST", host + path, body=body,
                                    header_params={"Content-Type": content_type, "Accept": "application/json"})
        response.read()
        return response.status, json.loads(response.data)

    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "protobuf-kubectl"}}
    assert post("/api/v1/namespaces", namespace, "application/json")[0] == 201  # the client encodes it
    code, created = post(recorded["path"], bytes.fromhex(recorded["body"]), PROTOBUF)
    assert code == 201
    _assert_holds(created, without_null_creation_timestamps(recorded["dry_run"]))
    configmaps = by_resource("", "v1", "configmaps")
    assert configmaps is not None
    stored = threaded_server.call(lambda: threaded_server.server.store.get(configmaps, "protobuf-kubectl", "protobuf-cm"))
    assert stored == created


@pytest.fixture
def kubectl_on(threaded_server: ThreadedServer, tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH")

    def kubectl(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["kubectl", f"--kubeconfig={threaded_server.kubeconfig}",
                               f"--cache-dir={tmp_path / 'cache'}", "--request-timeout=30s", *args],
                              capture_output=True, text=True, timeout=SAFETY_TIMEOUT)

    return kubectl


def test_kubectl_imperative_creates_store_what_kubectl_meant(
        kubectl_on: Callable[..., subprocess.CompletedProcess[str]], threaded_server: ThreadedServer,
        tmp_path: Path) -> None:
    """``kubectl create namespace|configmap|priorityclass`` (protobuf bodies, the kinds the fake
    serves): created, and the store holds every field of the command's ``--dry-run=client -o
    json``; the journal shows the protobuf content type and the body as that JSON."""
    (tmp_path / "bin.dat").write_bytes(b"bin\xff\x00\x01")
    commands = {
        "namespace": ["create", "namespace", "protobuf-kubectl"],
        "configmap": ["create", "configmap", "protobuf-cm", "-n", "protobuf-kubectl", "--from-literal=a=1",
                      "--from-literal=b=two", f"--from-file=bin={tmp_path / 'bin.dat'}"],
        "priorityclass": ["create", "priorityclass", "protobuf-pc", "--value=1000", "--description=from-kubectl",
                          "--preemption-policy=Never"],
    }
    for name, args in commands.items():
        dry = kubectl_on(*args, "--dry-run=client", "-o", "json")
        assert dry.returncode == 0, dry.stderr
        meant = without_null_creation_timestamps(json.loads(dry.stdout))
        done = kubectl_on(*args)
        assert done.returncode == 0, done.stderr
        spec = by_resource(*{"namespace": ("", "v1", "namespaces"), "configmap": ("", "v1", "configmaps"),
                             "priorityclass": ("scheduling.k8s.io", "v1", "priorityclasses")}[name])
        assert spec is not None
        meta = meant["metadata"]
        stored = threaded_server.call(
            lambda: threaded_server.server.store.get(spec, meta.get("namespace"), meta["name"]))
        _assert_holds(stored, meant)
        [entry] = [e for e in threaded_server.call(lambda: list(threaded_server.server.journal.entries))
                   if e.type == "request" and e.verb == "create" and e.resource == spec.group_resource]
        assert (entry.content_type, entry.code, entry.body) == (PROTOBUF, 201, meant)


@pytest.mark.parametrize(("resource", "args", "command"), [
    (("apps", "v1", "deployments"), ["create", "deployment", "protobuf-deploy", "--image=registry.k8s.io/pause:3.10",
                                     "--replicas=3", "--port=8080", "-n", "default"], ["sleep", "3600"]),
    (("batch", "v1", "jobs"), ["create", "job", "protobuf-job", "--image=registry.k8s.io/pause:3.10", "-n", "default"],
     ["sleep", "5"]),
], ids=["deployment", "job"])
def test_kubectl_creates_a_deployment_and_a_job_in_protobuf_as_it_meant(
        kubectl_on: Callable[..., subprocess.CompletedProcess[str]], threaded_server: ThreadedServer,
        resource: tuple[str, str, str], args: list[str], command: list[str]) -> None:
    """kubectl's imperative ``create deployment|job`` sends a protobuf body (kubectl's own
    encoder): with ``--dry-run=server`` the request's body as the fake decoded it (the journal) is
    the command's ``--dry-run=client -o json`` and nothing is stored; without, the stored object
    holds every field of it but ``status`` (which a create sets)."""
    dry = kubectl_on(*args, "--dry-run=client", "-o", "json", "--", *command)
    assert dry.returncode == 0, dry.stderr
    meant = without_null_creation_timestamps(json.loads(dry.stdout))
    spec = by_resource(*resource)
    assert spec is not None

    def creates() -> list[Any]:
        return [e for e in threaded_server.call(lambda: list(threaded_server.server.journal.entries))
                if e.type == "request" and e.verb == "create" and e.resource == spec.group_resource]

    server_dry = kubectl_on(*args, "--dry-run=server", "--", *command)
    assert server_dry.returncode == 0, server_dry.stderr
    [entry] = creates()
    assert (entry.content_type, entry.code, entry.body) == (PROTOBUF, 201, meant)
    with pytest.raises(NotFound):
        threaded_server.call(lambda: threaded_server.server.store.get(spec, "default", meant["metadata"]["name"]))
    done = kubectl_on(*args, "--", *command)
    assert done.returncode == 0, done.stderr
    stored = threaded_server.call(lambda: threaded_server.server.store.get(spec, "default", meant["metadata"]["name"]))
    _assert_holds(stored, {k: v for k, v in meant.items() if k != "status"})  # status is the server's on create
    assert [e.body for e in creates()] == [meant, meant]


def test_a_protobuf_patch_gets_the_real_415() -> None:
    """kube-apiserver v1.36 refuses a PATCH whose type its route does not consume, protobuf
    included, in go-restful's words (captured with curl)."""

    async def scenario(session: aiohttp.ClientSession, server: FakeApiServer) -> tuple[int, Any]:
        async with session.patch("/api/v1/namespaces/default", data=b"k8s\x00",
                                 headers={"Content-Type": PROTOBUF}) as r:
            return r.status, await r.json()

    assert serve(scenario) == (415, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "415: Unsupported Media Type", "reason": "UnsupportedMediaType", "details": {}, "code": 415})
