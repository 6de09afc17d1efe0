"""The fake's HTTP/1.1 edge, byte for byte on a raw socket: what Go's ``net/http`` server (kube-apiserver's)
does with pipelined requests, a request it cannot parse, HTTP/1.0, HEAD, ``Expect: 100-continue``,
an oversized chunked body, a watch whose client leaves and a server that stops under an open watch.
The real clients (aiohttp, kubectl, the Python client, kube-scheduler) are tested elsewhere.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Awaitable, Callable, TypeVar

import pytest

from fake_apiserver import FakeApiServer
from fake_apiserver._endpoints.edge import MAX_HEADER_BYTES, MAX_QUEUED, _header_lines
from fake_apiserver._registry.kinds import by_resource
from harness._time.virtual_time import VirtualClock, run

T = TypeVar("T")
SAFETY = 30.0  # seconds: only ever reached when the server fails to answer
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "busybox:1"}]}}


def serve(scenario: Callable[[FakeApiServer], Awaitable[T]]) -> T:
    async def main() -> T:
        async with FakeApiServer() as server:
            return await asyncio.wait_for(scenario(server), SAFETY)

    return asyncio.run(main())


async def connect(server: FakeApiServer) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(server.host, server.port)


async def exchange(server: FakeApiServer, raw: bytes) -> bytes:
    """Everything the server writes back until it closes the connection."""
    reader, writer = await connect(server)
    writer.write(raw)
    data = await reader.read()
    writer.close()
    return data


def split(data: bytes) -> list[tuple[str, dict[str, str], bytes]]:
    """Consecutive answers of ``Content-Length`` bodies: status line, headers, body."""
    answers = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        status, *lines = head.decode().split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines)
        length = int(headers.get("Content-Length", "0"))
        answers.append((status, headers, rest[:length]))
        data = rest[length:]
    return answers


def test_pipelined_requests_are_answered_in_order_on_one_connection() -> None:
    async def scenario(server: FakeApiServer) -> bytes:
        return await exchange(server, b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
                                      b"GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    (status1, headers1, body1), (status2, headers2, body2) = split(serve(scenario))
    assert (status1, status2) == ("HTTP/1.1 200 OK", "HTTP/1.1 200 OK")
    assert json.loads(body1)["gitVersion"].startswith("v1.")
    assert json.loads(body2)["metadata"]["name"] == "default"
    assert "Connection" not in headers1 and headers2["Connection"] == "close"
    assert headers1["Content-Type"] == "application/json" and "Date" in headers1


def test_a_request_that_waits_holds_the_ones_pipelined_behind_it() -> None:
    """A watch waits (here until its timeout, on the virtual clock): the GET sent right behind
    it on the same connection is answered after the watch's stream has ended, not before."""

    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop)) as server:
            return await exchange(server, b"GET /api/v1/namespaces/default/pods?watch=1&timeoutSeconds=5 HTTP/1.1\r\n"
                                          b"Host: x\r\n\r\nGET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    data = run(main())
    head, _, rest = data.partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked" in head
    stream, _, after = rest.partition(b"0\r\n\r\n")
    assert stream == b""  # no pod, no event: the stream's only chunk is its last
    [(status, _, body)] = split(after)
    assert status == "HTTP/1.1 200 OK" and json.loads(body)["major"] == "1"


def test_requests_pipelined_past_the_read_ahead_are_all_answered_in_order() -> None:
    """Behind a watch that waits, more requests than the edge reads ahead: reading pauses, and
    resumes once the watch has ended; every one is answered, in order."""
    count = MAX_QUEUED + 8

    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop)) as server:
            gets = b"".join(b"GET /api/v1/namespaces/%d HTTP/1.1\r\nHost: x\r\n\r\n" % i for i in range(count))
            reader, writer = await connect(server)
            writer.write(b"GET /api/v1/namespaces/default/pods?watch=1&timeoutSeconds=5 HTTP/1.1\r\nHost: x\r\n\r\n" + gets)
            await asyncio.sleep(1)  # the server has read them: the watch waits, reading is paused
            writer.write(b"GET /version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # read once it resumes
            data = await reader.read()
            writer.close()
            return data

    data = run(main())
    _, _, after = data.partition(b"0\r\n\r\n")
    answers = split(after)
    assert [json.loads(body)["details"]["name"] for _, _, body in answers[:-1]] == [str(i) for i in range(count)]
    assert json.loads(answers[-1][2])["major"] == "1"


def test_a_connection_idle_past_the_idle_timeout_is_closed() -> None:
    """``idle_timeout`` (kube-apiserver's ``IdleTimeout``; ``schedharness serve`` sets 90 s) on the
    virtual clock: a kept-alive connection left idle is closed that long after its last request."""

    async def main() -> tuple[bytes, float]:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop), idle_timeout=90.0) as server:
            reader, writer = await connect(server)
            writer.write(b"GET /version HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            await reader.readexactly(int(re.search(rb"Content-Length: (\d+)", head).group(1)))  # type: ignore[union-attr]
            answered = loop.time()
            rest = await reader.read()  # the server closes: end of stream
            writer.close()
            return rest, loop.time() - answered

    rest, idle = run(main())
    assert rest == b""
    assert 90.0 <= idle < 90.1


def test_headers_past_kube_apiserver_s_limit_get_go_s_431_and_the_connection_closed() -> None:
    filler = b"X-Filler: " + b"a" * 8000 + b"\r\n"
    raw = b"GET /version HTTP/1.1\r\nHost: x\r\n" + filler * (MAX_HEADER_BYTES // len(filler) + 1) + b"\r\n"
    data = serve(lambda server: exchange(server, raw))
    assert data == (b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    b"Connection: close\r\n\r\n431 Request Header Fields Too Large")


def test_a_request_it_cannot_parse_gets_go_s_400_and_the_connection_closed() -> None:
    data = serve(lambda server: exchange(server, b"NOT A REQUEST\r\n\r\n"))
    assert data == (b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    b"Connection: close\r\n\r\n400 Bad Request")


def test_http_1_0_is_answered_in_http_1_0_and_the_connection_closed() -> None:
    data = serve(lambda server: exchange(server, b"GET /version HTTP/1.0\r\n\r\n"))
    [(status, headers, body)] = split(data)
    assert status == "HTTP/1.0 200 OK"
    assert "Connection" not in headers  # closing is HTTP/1.0's default: Go says nothing
    assert json.loads(body)["major"] == "1"


def test_head_answers_the_length_of_get_without_the_body() -> None:
    data = serve(lambda server: exchange(server, b"HEAD /apis/apps HTTP/1.1\r\nHost: x\r\n\r\n"
                                                 b"GET /apis/apps HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    head, _, rest = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK")
    [(status, headers, body)] = split(rest)  # the HEAD's answer has no body: what follows is the GET's
    assert status == "HTTP/1.1 200 OK"
    assert f"Content-Length: {len(body)}".encode() in head


def test_expect_100_continue_is_answered_before_the_body_is_sent() -> None:
    async def scenario(server: FakeApiServer) -> tuple[bytes, bytes, list[str]]:
        body = json.dumps(POD).encode()
        reader, writer = await connect(server)
        writer.write(b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Expect: 100-continue\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
        interim = await reader.readuntil(b"\r\n\r\n")
        writer.write(body)
        final = await reader.read()
        writer.close()
        return interim, final, [p["metadata"]["name"] for p in server.store.list(by_resource("", "v1", "pods"), "default")["items"]]

    interim, final, names = serve(scenario)
    assert interim == b"HTTP/1.1 100 Continue\r\n\r\n"
    [(status, _, body)] = split(final)
    assert status == "HTTP/1.1 201 Created" and json.loads(body)["metadata"]["name"] == "p"
    assert names == ["p"]


def test_a_chunked_body_is_read_whole() -> None:
    async def scenario(server: FakeApiServer) -> tuple[bytes, list[str]]:
        body = json.dumps(POD).encode()
        chunks = b"".join(b"%x\r\n%b\r\n" % (len(body[i:i + 16]), body[i:i + 16]) for i in range(0, len(body), 16))
        data = await exchange(server, b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
                                      b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                                      b"Connection: close\r\n\r\n" + chunks + b"0\r\n\r\n")
        return data, [p["metadata"]["name"] for p in server.store.list(by_resource("", "v1", "pods"), "default")["items"]]

    data, names = serve(scenario)
    [(status, _, body)] = split(data)
    assert status == "HTTP/1.1 201 Created" and json.loads(body)["spec"]["containers"][0]["image"] == "busybox:1"
    assert names == ["p"]


def test_a_chunked_body_over_the_limit_is_refused_413_and_nothing_is_stored() -> None:
    async def scenario(server: FakeApiServer) -> tuple[bytes, list[Any]]:
        pod = dict(POD, metadata={"name": "big", "annotations": {"a": "x" * (3 * 1024 * 1024)}})
        body = json.dumps(pod).encode()
        chunks = b"".join(b"%x\r\n%b\r\n" % (len(body[i:i + 65536]), body[i:i + 65536]) for i in range(0, len(body), 65536))
        data = await exchange(server, b"POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\n"
                                      b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                                      b"Connection: close\r\n\r\n" + chunks + b"0\r\n\r\n")
        return data, server.store.list(by_resource("", "v1", "pods"), "default")["items"]

    data, stored = serve(scenario)
    [(status, _, body)] = split(data)
    assert status == "HTTP/1.1 413 Request Entity Too Large"
    answer = json.loads(body)
    assert (answer["reason"], answer["code"]) == ("RequestEntityTooLarge", 413)
    assert answer["message"] == "Request entity too large: limit is 3145728"
    assert stored == []


def test_a_watch_streams_chunks_and_ends_when_its_client_leaves() -> None:
    async def scenario(server: FakeApiServer) -> tuple[bytes, dict[str, Any]]:
        pods = server.store.cache(by_resource("", "v1", "pods"))
        reader, writer = await connect(server)
        writer.write(b"GET /api/v1/namespaces/default/pods?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        head = await reader.readuntil(b"\r\n\r\n")
        server.store.create(by_resource("", "v1", "pods"), "default", json.loads(json.dumps(POD)))
        size = int(await reader.readuntil(b"\r\n"), 16)
        event = json.loads((await reader.readexactly(size + 2))[:-2])
        assert len(pods.watchers) == 1
        writer.close()
        while pods.watchers:  # the edge cancels the watch once the connection is gone
            await asyncio.sleep(0.01)
        return head, event

    head, event = serve(scenario)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"Transfer-Encoding: chunked\r\n" in head and b"Content-Type: application/json\r\n" in head
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "p")


def test_a_watch_asked_to_close_says_so_and_closes_after_its_last_chunk() -> None:
    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        async with FakeApiServer(clock=VirtualClock(loop)) as server:
            return await exchange(server, b"GET /api/v1/namespaces/default/pods?watch=1&timeoutSeconds=5 HTTP/1.1\r\n"
                                          b"Host: x\r\nConnection: close\r\n\r\n")

    head, _, rest = run(main()).partition(b"\r\n\r\n")
    assert b"Transfer-Encoding: chunked\r\n" in head and b"Connection: close\r\n" in head
    assert rest == b"0\r\n\r\n"


def test_stopping_the_server_ends_an_open_watch_with_the_last_chunk() -> None:
    async def main() -> bytes:
        server = await FakeApiServer().start()
        reader, writer = await connect(server)
        writer.write(b"GET /api/v1/namespaces/default/pods?watch=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        await reader.readuntil(b"\r\n\r\n")
        await server.stop()
        rest = await reader.read()
        writer.close()
        return rest

    assert asyncio.run(asyncio.wait_for(main(), SAFETY)) == b"0\r\n\r\n"


def test_the_admin_path_refuses_a_method_it_does_not_take() -> None:
    data = serve(lambda server: exchange(server, b"PUT /schedharness/v1/faults HTTP/1.1\r\nHost: x\r\n"
                                                 b"Content-Length: 0\r\nConnection: close\r\n\r\n"))
    [(status, headers, _)] = split(data)
    assert status == "HTTP/1.1 405 Method Not Allowed"
    assert headers["Allow"] == "DELETE,GET,POST"


# What kube-apiserver v1.37.2 answers to methods other than GET outside the resources: its health
# checks, /apis and /apis/<group> answer any method; /version, /api, /api/v1 and
# /apis/<group>/<version> are go-restful routes of GET alone, HEAD included.
@pytest.mark.parametrize("method, path, status", [
    ("PUT", "/healthz", 200), ("PUT", "/livez", 200), ("PUT", "/healthz/ping", 200), ("HEAD", "/readyz", 200),
    ("PUT", "/apis", 200), ("PUT", "/apis/apps", 200), ("HEAD", "/apis/apps", 200),
    ("HEAD", "/version", 405), ("PUT", "/version", 405), ("POST", "/version", 405), ("HEAD", "/api", 405),
    ("PUT", "/api", 405), ("HEAD", "/api/v1", 405), ("HEAD", "/apis/apps/v1", 405), ("PUT", "/apis/apps/v1", 405),
    ("HEAD", "/api/v1/namespaces/default", 405),
    ("PUT", "/apis/nope", 404), ("HEAD", "/apis/nope/v1", 404), ("PUT", "/nope", 404),
])
def test_methods_outside_the_resources_are_answered_as_kube_apiserver_answers_them(method: str, path: str,
                                                                                  status: int) -> None:
    raw = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
    data = serve(lambda server: exchange(server, raw))
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0].decode().split(" ")[1] == str(status)
    if status == 405:
        assert json.loads(body or b"null") == (None if method == "HEAD" else {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the server does not allow this method on the requested resource",
            "reason": "MethodNotAllowed", "details": {}, "code": 405})


def test_a_newline_in_a_header_is_written_as_a_space_as_go_writes_it() -> None:
    assert _header_lines({"Warning": '299 - "a\r\nb"', "X-A": "b"}) == ['Warning: 299 - "a  b"\r\n', "X-A: b\r\n"]
