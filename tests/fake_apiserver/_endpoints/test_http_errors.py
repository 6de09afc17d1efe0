"""The server over HTTP, its refusals: not found and already exists, bodies the decoders refuse,
names and namespaces that do not match the URL, the body size limit, unknown routes, bad selectors,
patches that fail, content negotiation, and a failed write that changes nothing.

An aiohttp client against :class:`FakeApiServer` on the virtual loop (``tests.support.http_api``);
every answer is compared with what a real kube-apiserver sends: status codes, ``Status`` bodies
field for field, object shapes. Time is virtual, so timestamps are exact (the epoch is
2026-01-01T00:00:00Z) and a 300-second watch takes milliseconds.
"""

from __future__ import annotations

import json
from typing import Any


from tests.support.http_api import JSON_PATCH, MERGE, NODES, PODS, Api, Reply, binding, pod, serve, status

JSON_HINT = (
    "; this fake API server answers in JSON only: let the client accept application/json "
    "(client-go: rest.Config.AcceptContentTypes)"
)


# ------------------------------------------------------------------------------------ errors


def test_not_found_and_already_exists() -> None:
    async def scenario(api: Api) -> None:
        missing = await api.get(f"{PODS}/nope")
        assert (missing.status, missing.body) == (404, status(
            404, "NotFound", 'pods "nope" not found', {"name": "nope", "kind": "pods"}))
        claim = await api.get("/apis/resource.k8s.io/v1/namespaces/default/resourceclaims/c")
        assert claim.body == status(404, "NotFound", 'resourceclaims.resource.k8s.io "c" not found',
                                    {"name": "c", "group": "resource.k8s.io", "kind": "resourceclaims"})
        await api.ok("POST", PODS, pod("p"))
        again = await api.post(PODS, pod("p"))
        assert (again.status, again.body) == (409, status(
            409, "AlreadyExists", 'pods "p" already exists', {"name": "p", "kind": "pods"}))
        elsewhere = await api.post("/api/v1/namespaces/nowhere/pods", pod("p"))
        assert (elsewhere.status, elsewhere.body) == (404, status(
            404, "NotFound", 'namespaces "nowhere" not found', {"name": "nowhere", "kind": "namespaces"}))

    serve(scenario)


def test_bad_bodies_get_the_decoders_messages() -> None:
    async def scenario(api: Api) -> None:
        async def post(path: str, data: bytes) -> Reply:
            return await api.call("POST", path, data=data)

        cases = [
            (PODS, b"{bad", "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
             "json parse error: invalid character 'b' looking for beginning of object key string ({bad)"),
            (PODS, b"", "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
             "json parse error: unexpected end of JSON input (<empty>)"),
            (PODS, b'{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "averyveryverylongname"', (
                "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; json parse "
                'error: unexpected end of JSON input ({"kind": "Pod", "apiVersion":  ...)')),
            (PODS, b"[1]", "the object provided is unrecognized (must be of type Pod): couldn't get version/kind; "
             "json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "
             '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)'),
            (NODES, json.dumps(pod("p")).encode(),
             'Pod in version "v1" cannot be handled as a Node: converting (v1.Pod) to (core.Node): unknown conversion'),
            (PODS, json.dumps(dict(pod("p"), kind="Pdo")).encode(),
             'Pdo in version "v1" cannot be handled as a Pod: no kind "Pdo" is registered for version "v1" '
             'in scheme "pkg/api/legacyscheme/scheme.go:30"'),
            (PODS, json.dumps(dict(pod("p"), apiVersion="apps/v1")).encode(),
             'Pod in version "v1" cannot be handled as a Pod: no kind "Pod" is registered for version "apps/v1" '
             'in scheme "pkg/api/legacyscheme/scheme.go:30"'),
            (PODS, json.dumps(dict(pod("p"), metadata=["p"])).encode(),
             'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal array into Go struct field '
             "Pod.metadata of type v1.ObjectMeta"),
            (PODS, json.dumps(dict(pod("p"), spec={"containers": {"name": "c"}})).encode(),
             'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal object into Go struct field '
             "PodSpec.spec.containers of type []v1.Container"),
        ]
        for path, data, message in cases:
            reply = await post(path, data)
            assert (reply.status, reply.body) == (400, status(400, "BadRequest", message)), data
        assert (await api.get(PODS)).body["items"] == []

    serve(scenario)


def test_names_and_namespaces_must_match_the_url() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        renamed = await api.put(f"{PODS}/p", dict(created, metadata=dict(created["metadata"], name="q")))
        assert (renamed.status, renamed.body) == (400, status(
            400, "BadRequest", "the name of the object (q) does not match the name on the URL (p)"))
        moved = await api.put(f"{PODS}/p", dict(created, metadata=dict(created["metadata"], namespace="kube-system")))
        assert (moved.status, moved.body) == (400, status(
            400, "BadRequest", "the namespace of the object (kube-system) does not match the namespace on the request "
            "(default)"))
        elsewhere = await api.post(PODS, dict(pod("q"), metadata={"name": "q", "namespace": "kube-system"}))
        assert (elsewhere.status, elsewhere.body) == (400, status(
            400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request"))
        patched = await api.patch(f"{PODS}/p", {"metadata": {"name": "q"}})
        assert (patched.status, patched.body) == (400, status(
            400, "BadRequest", "the name of the object (q) does not match the name on the URL (p)"))
        assert (await api.get(f"{PODS}/p")).body == created

    serve(scenario)


def test_a_resource_version_on_create_fails_the_storage_write() -> None:
    async def scenario(api: Api) -> None:
        reply = await api.post(PODS, dict(pod("p"), metadata={"name": "p", "resourceVersion": "3"}))
        assert (reply.status, reply.body) == (500, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                    "status": "Failure", "message": "resourceVersion should not be set "
                                                    "on objects to be created", "code": 500})

    serve(scenario)


def test_body_size_limit() -> None:
    async def scenario(api: Api) -> None:
        big = pod("big")
        big["metadata"]["annotations"] = {"blob": "x" * 200_000}  # many TCP segments, read whole
        assert (await api.post(PODS, big)).status == 201
        too_large = status(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728")
        reply = await api.call("POST", PODS, data=b" " * (3 * 1024 * 1024 + 1))
        assert (reply.status, reply.body) == (413, too_large)

        async def chunks(body: bytes, size: int = 65536) -> Any:  # no Content-Length: chunked
            for i in range(0, len(body), size):
                yield body[i:i + size]

        async with api.session.post(PODS, data=chunks(json.dumps(pod("chunked")).encode()),
                                    headers={"Content-Type": "application/json"}) as r:
            assert (r.status, (await r.json())["metadata"]["name"]) == (201, "chunked")
        async with api.session.post(PODS, data=chunks(b" " * (3 * 1024 * 1024 + 1)),
                                    headers={"Content-Type": "application/json"}) as r:
            assert (r.status, await r.json()) == (413, too_large)

    serve(scenario)


def test_unknown_routes() -> None:
    async def scenario(api: Api) -> None:
        not_found = status(404, "NotFound", "the server could not find the requested resource", {})
        for path in ("/api/v1/foos", "/api/v1/namespaces/default/pods/p/foo", "/api/v1/namespaces/default/nodes",
                     "/apis/apps/v1/foos", "/api/v2"):
            reply = await api.get(path)
            assert (reply.status, reply.body) == (404, not_found), path
        for path in ("/foo", "/apis/foo.example.com/v1/bars", "/apis/foo.example.com"):
            reply = await api.get(path)
            assert (reply.status, reply.body, reply.content_type) == (
                404, "404 page not found\n", "text/plain; charset=utf-8"), path
        not_allowed = status(405, "MethodNotAllowed", "the server does not allow this method on the requested "
                             "resource", {})
        for method, path in (("PUT", PODS), ("POST", "/api/v1/pods"), ("GET", f"{PODS}/p/binding"),
                             ("POST", "/api/v1")):
            reply = await api.call(method, path, {})
            assert (reply.status, reply.body) == (405, not_allowed), (method, path)

    serve(scenario)


def test_bad_selectors() -> None:
    async def scenario(api: Api) -> None:
        label = await api.get(PODS, labelSelector="a in (")
        assert (label.status, label.body) == (400, status(
            400, "BadRequest", "unable to parse requirement: found '', expected: ',', ')' or identifier"))
        field = await api.get(PODS, fieldSelector="spec.foo=bar")
        assert (field.status, field.body) == (400, status(400, "BadRequest", "field label not supported: spec.foo"))
        generic = await api.get("/api/v1/namespaces/default/configmaps", fieldSelector="data.x=y")
        assert (generic.status, generic.body) == (400, status(
            400, "BadRequest", '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"'))

    serve(scenario)


def test_patch_errors_leave_the_object_alone() -> None:
    async def scenario(api: Api) -> None:
        created = await api.ok("POST", PODS, pod("p"))
        cases = [
            (JSON_PATCH, b'[{"op":"test","path":"/metadata/name","value":"x"}]', 422,
             status(422, "Invalid", "the server rejected our request due to an error in our request", {})),
            (JSON_PATCH, b'[{"op":"remove","path":"/spec/nope"}]', 422,
             status(422, "Invalid", "the server rejected our request due to an error in our request", {})),
            (JSON_PATCH, b'{"op":"add"}', 400, status(400, "BadRequest", "error decoding patch: json: cannot unmarshal "
                                                                      "object into Go value of type []handlers.jsonPatchOp")),
            # go-restful refuses a type the PATCH route does not consume before any handler runs;
            # a type it lets through that the handler does not take (the part before ";" is not
            # trimmed there) gets the handler's own 415 (both captured from kube-apiserver v1.36)
            *[(content_type, b"{}", 415, status(415, "UnsupportedMediaType", "415: Unsupported Media Type", {}))
              for content_type in ("application/x-foo", "application/json", "*/*", "application/apply-patch+cbor")],
            *[(content_type, b"{}", 415, status(
                415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types "
                "include: application/json-patch+json, application/merge-patch+json, "
                "application/strategic-merge-patch+json, application/apply-patch+yaml"))
              for content_type in ("application/merge-patch+json ;x", "text/plain, application/merge-patch+json")],
        ]
        for content_type, data, code, body in cases:
            reply = await api.call("PATCH", f"{PODS}/p", data=data, content_type=content_type)
            assert (reply.status, reply.body) == (code, body), data
        assert (await api.get(f"{PODS}/p")).body == created
        assert (await api.get(PODS)).body["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]

    serve(scenario)


def test_content_negotiation() -> None:
    """Bodies: JSON, YAML and protobuf (tests/fake_apiserver/_machinery/test_protobuf.py); CBOR and
    the rest get the real
    415. Answers: JSON only; an Accept without JSON gets the real server's 406 (go-restful's on a
    resource route, its list with the watch types on a collection's GET) and the fake's hint.
    Messages captured from kube-apiserver v1.36 (Accept: application/foo)."""
    async def scenario(api: Api) -> None:
        reply = await api.call("POST", PODS, data=b"\xa1\x00", content_type="application/cbor")
        assert (reply.status, reply.body) == (415, status(
            415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types "
            "include: application/json, application/yaml, application/vnd.kubernetes.protobuf"))
        for accept in ("application/vnd.kubernetes.protobuf", "application/yaml",
                       "application/json;q=0, application/vnd.kubernetes.protobuf"):
            reply = await api.call("GET", PODS, headers={"Accept": accept})
            assert (reply.status, reply.body) == (406, status(
                406, "NotAcceptable", "406: Not Acceptable\n\nAvailable representations: application/json, "
                "application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, "
                "application/vnd.kubernetes.protobuf;stream=watch" + JSON_HINT, {})), accept
        reply = await api.call("GET", f"{PODS}/x", headers={"Accept": "application/vnd.kubernetes.protobuf"})
        assert (reply.status, reply.body) == (406, status(
            406, "NotAcceptable", "406: Not Acceptable\n\nAvailable representations: application/json, "
            "application/yaml, application/vnd.kubernetes.protobuf" + JSON_HINT, {}))
        reply = await api.call("GET", "/apis", headers={"Accept": "application/vnd.kubernetes.protobuf"})
        assert (reply.status, reply.body) == (406, status(
            406, "NotAcceptable", "only the following media types are accepted: application/json, "
            "application/yaml, application/vnd.kubernetes.protobuf" + JSON_HINT))
        for accept in ("application/vnd.kubernetes.protobuf, application/json", "application/json, */*", "*/*"):
            assert (await api.call("GET", PODS, headers={"Accept": accept})).status == 200, accept
        yaml_body = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: yp\nspec:\n  containers:\n  - name: c\n    image: i\n"
        created = await api.call("POST", PODS, data=yaml_body, content_type="application/yaml")
        assert (created.status, created.body["metadata"]["name"]) == (201, "yp")

    serve(scenario)


def test_a_failed_write_changes_nothing() -> None:
    async def scenario(api: Api) -> None:
        await api.ok("POST", PODS, pod("g", schedulingGates=[{"name": "example.com/a"}]))
        before = (await api.get(PODS)).body
        failures = [
            await api.patch(f"{PODS}/g", {"spec": {"schedulingGates": [{"name": "example.com/b"}]}}),
            await api.post(f"{PODS}/g/binding", binding("g")),
            await api.put(f"{PODS}/g", dict(before["items"][0], metadata=dict(before["items"][0]["metadata"],
                                                                                 resourceVersion="1"))),
            await api.patch(f"{PODS}/g", {"metadata": {"labels": {"bad key!": "v"}}}),
            await api.post(PODS, pod("g")),
            await api.call("PATCH", f"{PODS}/g", data=b"{", content_type=MERGE),
        ]
        assert [f.status for f in failures] == [422, 409, 409, 422, 409, 400]
        assert (await api.get(PODS)).body == before

    serve(scenario)
