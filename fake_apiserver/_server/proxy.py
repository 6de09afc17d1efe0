"""The fault proxy: the fake's fault rules and request journal in front of a real API server.

A scheduler that runs against a real cluster (kind, a test cluster) cannot be pointed at the fake's
store, but it can be pointed at :class:`FaultProxy`: an HTTP server that parses every request as
the fake does (:class:`~fake_apiserver._endpoints.request.RequestInfo`), passes it through the same interceptor
chain, ``[journal, faults]``, and then forwards it to the upstream named by a kubeconfig instead of
answering from a store. So the same :class:`~fake_apiserver._server.faults.FaultRule` objects apply, and
the :class:`~fake_apiserver._server.journal.Journal` reads the same way, whichever server sits behind.

The client talks plain HTTP with no credentials (:meth:`FaultProxy.kubeconfig`); the proxy talks
to the upstream with the kubeconfig's TLS and credentials (CA, client certificate, bearer token;
``exec`` and ``auth-provider`` plugins are refused, :func:`upstream_from_kubeconfig`). The
journal and the watch framing need JSON, so protobuf and CBOR media ranges are dropped from
``Accept`` (kube-scheduler's ``protobuf, json`` gets JSON) and ``Accept-Encoding`` is not
forwarded. Request bodies go upstream as sent, protobuf ones included; the journal, fault rules
and a binding's computed effect read a protobuf body as the JSON it decodes to
(:func:`~fake_apiserver._machinery.protobuf.body_json`), as the fake does. Answers are buffered, except
watches, whose newline-delimited events are relayed one by one as they arrive. Streaming subresources (``exec``, ``attach``, ``portforward``, followed logs)
are out of scope: the proxy neither upgrades connections nor streams anything but watches.

Watch lag differs from the fake's. The fake holds a kind's committed changes back from its watch
cache, so LIST and WATCH both show the state of ``seconds`` ago. The proxy has no store, so
``WatchLag`` here means: every event of a lagged kind, on every watch stream through the proxy, is
delivered ``seconds`` after the proxy received it (order kept per stream; bookmarks wait their
turn too), and a LIST of that kind leaves out the objects the proxy saw created (a 201 answer to
a POST through it) less than ``seconds`` ago. Updates are not rolled back in a LIST, and objects
written around the proxy (by the upstream's own controllers, or by a client talking to the
upstream directly) are not hidden from it.

Effects (:mod:`fake_apiserver._storage.effects`) are read, not known: for a write the proxy GETs the object
from the upstream just before forwarding it, and takes the answer (or, for a binding or a delete
answered with a ``Status``, a GET after it) as the object after; a binding's result is computed as
``BindingREST`` leaves the pod, so that its journal entry is written before the pod's watch event
can reach a client. A change another writer makes in between is folded into the effect. A preview, which a fault rule matching an effect asks for, is
the same request sent with ``dryRun=All``; a binding has no dry-run answer that shows the pod, so
its preview is computed the same way.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
import math
import os
import ssl
import tempfile
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Callable, Union

import aiohttp
import yaml
from aiohttp import web
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from fake_apiserver._storage.effects import Effect, is_write
from fake_apiserver._machinery.errors import ServiceUnavailable
from fake_apiserver._server.faults import FaultInjector
from fake_apiserver._endpoints.request import HttpRequest, Interceptor, RequestInfo, answered, read_request, run_chain
from fake_apiserver._endpoints.responses import status_response
from fake_apiserver._server.journal import Journal
from fake_apiserver._registry.kinds import KINDS, by_resource
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._machinery.protobuf import body_json
from fake_apiserver._server.server import add_admin_routes, kubeconfig_for
from fake_apiserver._storage.store import kept_after_delete
from fake_apiserver._storage.watch import WatchEvent

__all__ = ["FaultProxy", "Upstream", "upstream_from_kubeconfig"]


def _upstream_row(group: str, version: str, resource: str) -> KindSpec | None:
    """The row of a resource the upstream may serve: the release's table, else (a custom
    resource, or a kind of another release) a row the proxy knows only the path of, so that the
    journal, effects and fault rules treat it as they treat a built-in kind."""
    row = by_resource(group, version, resource)
    if row is None and resource and version:
        row = KindSpec(group, version, resource, "", True, "", custom=True)
    return row

CONNECT_TIMEOUT = 30.0  # seconds to open a connection to the upstream; answers themselves have no limit
SHUTDOWN_TIMEOUT = 2.0  # seconds stop() lets in-flight requests (a Delay rule's) finish before cancelling
# Hop-by-hop headers (RFC 9110 7.6.1) and the framing the proxy redoes itself.
_DROPPED = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
                      "trailer", "trailers", "transfer-encoding", "upgrade", "content-length", "content-encoding"})
_CHANGES = ("ADDED", "MODIFIED", "DELETED")  # the events a WatchLag rule counts as held


@dataclass(frozen=True)
class Upstream:
    """Where and how to reach the real API server: its URL, the CA that signs its certificate
    (PEM; ``None`` means the system's), a client certificate and key (PEM), a bearer token, and
    whether to skip verifying its certificate."""

    server: str
    ca: bytes | None = None
    client_cert: bytes | None = None
    client_key: bytes | None = None
    token: str | None = None
    insecure: bool = False


def _named(config: Mapping[str, Any], section: str, name: str) -> Mapping[str, Any]:
    """The ``context``, ``cluster`` or ``user`` body of the entry called ``name`` in ``section``."""
    found = [e.get(section[:-1]) or {} for e in config.get(section) or [] if e.get("name") == name]
    if not found:
        raise ValueError(f"the kubeconfig has no {section[:-1]} named {name!r}")
    return found[0]


def _material(section: Mapping[str, Any], key: str, base: Path | None) -> bytes | None:
    """``<key>-data`` (base64) or the file ``<key>`` (relative to the kubeconfig's directory)."""
    if section.get(f"{key}-data"):
        try:
            return base64.b64decode(str(section[f"{key}-data"]), validate=True)
        except (binascii.Error, ValueError) as e:
            raise ValueError(f"{key}-data in the kubeconfig is not base64: {e}") from e
    if section.get(key):
        path = Path(os.path.expanduser(str(section[key])))
        if base is not None and not path.is_absolute():
            path = base / path
        try:
            return path.read_bytes()
        except OSError as e:
            raise ValueError(f"{key} {path} in the kubeconfig cannot be read: {e.strerror}") from e
    return None


def upstream_from_kubeconfig(kubeconfig: Mapping[str, Any], context: str | None = None, *,
                             base: Path | None = None) -> Upstream:
    """The :class:`Upstream` of ``context`` (default: ``current-context``) in a loaded kubeconfig.

    File paths are read at once, relative to ``base`` (the kubeconfig's directory) when given.
    Credentials the proxy cannot present itself are refused rather than dropped, since the
    upstream would only answer 401 later: ``exec`` and ``auth-provider`` plugins, and basic auth.
    """
    name = context or str(kubeconfig.get("current-context") or "")
    if not name:
        raise ValueError("the kubeconfig has no current-context: name the context to use")
    ctx = _named(kubeconfig, "contexts", name)
    cluster_name, user_name = str(ctx.get("cluster") or ""), str(ctx.get("user") or "")
    if not cluster_name:
        raise ValueError(f"context {name!r} of the kubeconfig names no cluster")
    cluster = _named(kubeconfig, "clusters", cluster_name)
    user = _named(kubeconfig, "users", user_name) if user_name else {}
    server = str(cluster.get("server") or "")
    if not server.startswith(("http://", "https://")):
        raise ValueError(f"cluster {cluster_name!r} of the kubeconfig has no http(s) server URL (got {server!r})")
    for field, what in (("exec", "an exec credential plugin"), ("auth-provider", "an auth-provider plugin"),
                        ("username", "basic auth")):
        if user.get(field):
            raise ValueError(f"user {user_name!r} of the kubeconfig authenticates with {what}, which the "
                             "fault proxy does not support: give it a token, a tokenFile or a client certificate")
    cert, key = _material(user, "client-certificate", base), _material(user, "client-key", base)
    if (cert is None) != (key is None):
        raise ValueError(f"user {user_name!r} of the kubeconfig needs both a client certificate and its key")
    token = str(user.get("token") or "") or (_material(user, "tokenFile", base) or b"").decode().strip() or None
    return Upstream(server=server, ca=_material(cluster, "certificate-authority", base), client_cert=cert,
                    client_key=key, token=token, insecure=bool(cluster.get("insecure-skip-tls-verify")))


def _ssl_context(upstream: Upstream) -> ssl.SSLContext | None:
    """TLS for an ``https`` upstream: its CA (or the system's), the client certificate, or no
    verification. ``load_cert_chain`` reads files only, so the key is written to a private
    directory (0700, the files 0600) and removed as soon as it is loaded."""
    if not upstream.server.startswith("https://"):
        return None
    context = ssl.create_default_context(cadata=upstream.ca.decode("ascii") if upstream.ca else None)
    if upstream.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if upstream.client_cert is not None and upstream.client_key is not None:
        with tempfile.TemporaryDirectory(prefix="schedharness-proxy-") as workdir:  # 0700, gone on exit
            cert, key = Path(workdir, "client.crt"), Path(workdir, "client.key")
            for path, data in ((cert, upstream.client_cert), (key, upstream.client_key)):
                path.touch(0o600)
                path.write_bytes(data)
            try:
                context.load_cert_chain(cert, key)
            except ssl.SSLError as e:
                raise ValueError(f"the kubeconfig's client certificate and key do not load: {e}") from e
    return context


def _json_accept(accept: str) -> str:
    """``Accept`` without protobuf and CBOR ranges; ``application/json`` when nothing is left."""
    media = [(part.strip(), part.split(";", 1)[0].strip().lower()) for part in accept.split(",")]
    kept = [part for part, m in media if m and "protobuf" not in m and not m.startswith("application/cbor")]
    return ", ".join(kept) or "application/json"


def _answer_headers(headers: CIMultiDictProxy[str]) -> CIMultiDict[str]:
    """The upstream's headers minus hop-by-hop ones (and those ``Connection`` names) and framing."""
    named = {t.strip().lower() for value in headers.getall("Connection", []) for t in value.split(",")}
    out: CIMultiDict[str] = CIMultiDict()
    for key, value in headers.items():
        if key.lower() not in _DROPPED and key.lower() not in named:
            out.add(key, value)
    return out


def _event(line: bytes) -> WatchEvent | None:
    """A watch line as the journal's :class:`WatchEvent`, or ``None`` if it is not one."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("object"), dict):
        return None
    rv = str((data["object"].get("metadata") or {}).get("resourceVersion", ""))
    return WatchEvent(str(data.get("type", "")), data["object"], int(rv) if rv.isdigit() else 0)


def _bound(pod: dict[str, Any] | None, info: RequestInfo) -> dict[str, Any] | None:
    """The pod as the binding ``info`` leaves it (``BindingREST``: ``spec.nodeName`` set,
    ``PodScheduled=True`` in place of any earlier ``PodScheduled``), or ``None`` when either is
    unreadable. The binding is JSON or protobuf (kube-scheduler's default), read as the journal
    reads it."""
    try:
        target = body_json(info.body, info.content_type)["target"]["name"]
    except (ValueError, KeyError, TypeError):
        return None
    if pod is None:
        return None
    after = json.loads(json.dumps(pod))
    after.setdefault("spec", {})["nodeName"] = target
    status = after.setdefault("status", {})
    status.pop("nominatedNodeName", None)
    status["conditions"] = [*(c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"),
                            {"type": "PodScheduled", "status": "True"}]
    return after


def _identity(obj: Any) -> tuple[str, str, str]:
    meta = (obj.get("metadata") if isinstance(obj, dict) else None) or {}
    return str(meta.get("namespace", "")), str(meta.get("name", "")), str(meta.get("uid", ""))


class _ProxyLag:
    """The proxy's :class:`~fake_apiserver._server.faults.LagTarget`: a lag per ``(group, resource)``
    and, while a kind is lagged, when the proxy saw each of its objects created."""

    def __init__(self) -> None:
        self.kinds: tuple[KindSpec, ...] = KINDS
        self._lags: dict[tuple[str, str], tuple[float, Callable[[], None] | None]] = {}
        self._created: dict[tuple[str, str], dict[tuple[str, str, str], float]] = {}

    def set_watch_lag(self, spec: KindSpec, seconds: float, *, on_hold: Callable[[], None] | None = None) -> None:
        key = (spec.group, spec.resource)
        if seconds > 0:
            self._lags[key] = (float(seconds), on_hold)
        else:
            self._lags.pop(key, None)
            self._created.pop(key, None)

    def of(self, info: RequestInfo) -> tuple[float, Callable[[], None] | None]:
        return self._lags.get((info.group, info.resource), (0.0, None))

    def created(self, info: RequestInfo, body: bytes, at: float) -> None:
        """Note an object created through the proxy at ``at``, if its kind is lagged."""
        with contextlib.suppress(ValueError):
            if self.of(info)[0] > 0:
                self._created.setdefault((info.group, info.resource), {})[_identity(json.loads(body))] = at

    def visible(self, info: RequestInfo, body: bytes, now: float) -> bytes:
        """A LIST answer without the items created less than the lag ago (re-encoded if any go)."""
        lag = self.of(info)[0]
        seen = self._created.get((info.group, info.resource))
        if lag <= 0 or not seen:
            return body
        for key, at in list(seen.items()):
            if now - at >= lag:
                del seen[key]
        try:
            listed = json.loads(body)
            kept = [i for i in listed["items"] if _identity(i) not in seen]
        except (ValueError, KeyError, TypeError):
            return body
        if len(kept) == len(listed["items"]):
            return body
        listed["items"] = kept
        return json.dumps(listed, separators=(",", ":")).encode()


_Held = tuple[float, bytes, Union[WatchEvent, None]]  # when due, the line, the event it carries
_Item = Union[_Held, str]  # or "end" (the upstream ended the stream) or "stop" (the proxy stops)


class FaultProxy:
    """An HTTP server that forwards to a real API server through the fake's fault rules and journal.

    ``upstream`` is a kubeconfig path or an already-loaded kubeconfig dict, ``context`` the context
    to use (default: its current-context). ``time`` is the journal's and the rules' clock in
    seconds (default: the running loop's time; the proxy runs on real time). ``seed`` seeds the
    rules' random draws. ``async with FaultProxy(path) as proxy:`` listens on ``host`` and a free
    port; clients use :meth:`kubeconfig` or :meth:`write_kubeconfig` (plain HTTP, no credentials).
    ``proxy.journal`` and ``proxy.faults`` are the fake's own classes; ``proxy.upstream`` is what
    the kubeconfig said (a kubeconfig the proxy cannot use raises ``ValueError`` here). With
    ``admin``, the fake's admin path is served too (``/schedharness/v1/faults`` to list, add and
    clear rules as JSON, ``/schedharness/v1/journal`` as JSON lines), for ``schedharness proxy``.
    """

    def __init__(self, upstream: str | os.PathLike[str] | Mapping[str, Any], *, context: str | None = None,
                 time: Callable[[], float] | None = None, seed: int = 0, host: str = "127.0.0.1",
                 port: int = 0, admin: bool = False) -> None:
        base: Path | None = None
        if isinstance(upstream, Mapping):
            config: Any = upstream
        else:
            base = Path(upstream).parent
            try:
                config = yaml.safe_load(Path(upstream).read_text()) or {}
            except (OSError, UnicodeDecodeError) as e:
                raise ValueError(f"{os.fspath(upstream)}: the kubeconfig cannot be read: {e}") from e
            except yaml.YAMLError as e:
                mark = getattr(e, "problem_mark", None)
                where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
                raise ValueError(f"{os.fspath(upstream)}: the kubeconfig is not valid YAML: {where}"
                                 f"{getattr(e, 'problem', None) or e}") from e
            if not isinstance(config, Mapping):
                raise ValueError(f"{os.fspath(upstream)}: not a kubeconfig (a YAML mapping)")
        self.upstream = upstream_from_kubeconfig(config, context, base=base)
        self.host = host
        self.port = port
        self.admin = admin
        self._time = time
        self._lag = _ProxyLag()
        self.journal = Journal(time)
        self.faults = FaultInjector(self._lag, seed=seed, time=time)
        self.faults.on_close = self.journal.record_closed
        self.faults.preview = self.preview
        self.interceptors: list[Interceptor] = [self.journal, self.faults]
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._streams: set[asyncio.Queue[_Item]] = set()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def upstream_url(self) -> str:
        return self.upstream.server

    def kubeconfig(self) -> dict[str, Any]:
        return kubeconfig_for(self.url)

    def write_kubeconfig(self, path: str | os.PathLike[str]) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(yaml.safe_dump(self.kubeconfig(), sort_keys=False))
        return p

    def now(self) -> float:
        return self._time() if self._time is not None else asyncio.get_running_loop().time()

    async def start(self) -> FaultProxy:
        if self._runner is not None:
            return self
        context = _ssl_context(self.upstream)
        app = web.Application()
        if self.admin:
            self._admin_routes(app)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, handler_cancellation=True,
                               shutdown_timeout=SHUTDOWN_TIMEOUT)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._runner = runner
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, ssl=context if context is not None else True),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_TIMEOUT),
            cookie_jar=aiohttp.DummyCookieJar(),
            skip_auto_headers=("User-Agent", "Content-Type"),
        )
        return self

    async def stop(self) -> None:
        """End open watch streams, stop serving, close the upstream connections. Safe to call
        twice or after a failed start; the journal and the rules stay readable."""
        for queue in list(self._streams):
            queue.put_nowait("stop")
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def __aenter__(self) -> FaultProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _admin_routes(self, app: web.Application) -> None:
        add_admin_routes(app, self.faults, self.journal)

    # ------------------------------------------------------------------ the edge

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        return await answered(self._serve(request))

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        return await run_chain(self.interceptors, await read_request(request, _upstream_row), request, self._forward)

    def _unreachable(self, e: BaseException) -> web.Response:
        message = f"the fault proxy cannot reach the upstream API server {self.upstream_url}: {type(e).__name__}: {e}"
        return status_response(ServiceUnavailable(message))

    def _headers(self, request: web.Request | None) -> dict[str, str]:
        given = request.headers if request is not None else {}
        headers = {"Accept": _json_accept(given.get("Accept", "")), "Accept-Encoding": "identity"}
        for name in ("Content-Type", "User-Agent"):
            if name in given:
                headers[name] = given[name]
        if self.upstream.token:  # the client's own Authorization is never forwarded
            headers["Authorization"] = f"Bearer {self.upstream.token}"
        return headers

    async def _object(self, info: RequestInfo) -> dict[str, Any] | None:
        """The upstream's current copy of the object ``info`` writes (``None``: absent or unreadable)."""
        session = self._session
        if session is None or not info.name:
            return None
        path = info.path[: -len(info.subresource) - 1] if info.subresource else info.path
        try:
            async with session.get(URL(self.upstream.server.rstrip("/") + path),
                                   headers={**self._headers(None), "Accept": "application/json"}) as got:
                found = await got.json(content_type=None) if got.status == 200 else None
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError):
            return None
        return found if isinstance(found, dict) and found.get("kind") != "Status" else None

    async def server_version(self) -> str | None:
        """The upstream's ``/version`` ``gitVersion`` (``v1.36.0``), asked outside the journal;
        None when it cannot be read."""
        session = self._session
        if session is None:
            return None
        try:
            async with session.get(URL(self.upstream.server.rstrip("/") + "/version"),
                                   headers={**self._headers(None), "Accept": "application/json"}) as got:
                found = await got.json(content_type=None) if got.status == 200 else None
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError):
            return None
        return str(found["gitVersion"]) if isinstance(found, dict) and found.get("gitVersion") else None

    async def preview(self, info: RequestInfo) -> Effect | None:
        """What the write ``info`` would do: the object now and the upstream's dry-run answer
        (module docstring; a binding's is computed)."""
        session = self._session
        if session is None or not is_write(info):
            return None
        before = await self._object(info)
        if info.subresource == "binding":
            if before is None or (before.get("spec") or {}).get("nodeName"):
                return None
            bound = _bound(before, info)
            return None if bound is None else Effect(before, bound)
        url = URL(self.upstream.server.rstrip("/") + info.path).with_query({**info.query, "dryRun": "All"})
        headers = {**self._headers(None), "Accept": "application/json"}
        if info.content_type:
            headers["Content-Type"] = info.content_type
        try:
            async with session.request(info.method, url, data=info.body or None, headers=headers) as answer:
                if not 200 <= answer.status < 300:
                    return None
                result = await answer.json(content_type=None)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError, ValueError):
            return None
        if info.verb == "delete":
            kept = isinstance(result, dict) and result.get("kind") != "Status" and \
                (result.get("metadata") or {}).get("deletionTimestamp")
            return Effect(before, result if kept else None)
        return Effect(before, result if isinstance(result, dict) else None)

    async def _forward(self, info: RequestInfo, request: HttpRequest) -> web.StreamResponse:
        """Send the request upstream as received (method, raw path and query, body) with the
        upstream's credentials; answer what it answers. A write's effect is read around it
        (module docstring)."""
        assert isinstance(request, web.Request)  # the proxy is served by aiohttp (start)
        session = self._session
        if session is None:
            return status_response(ServiceUnavailable("the fault proxy is stopped"))
        writes = is_write(info)
        before = await self._object(info) if writes else None
        headers = self._headers(request)
        url = URL(self.upstream.server.rstrip("/") + request.raw_path, encoded=True)
        started = self.now()
        try:
            upstream = await session.request(info.method, url, data=info.body or None, headers=headers,
                                             allow_redirects=False)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as e:
            return self._unreachable(e)
        if info.verb == "watch" and upstream.status == 200:
            return await self._stream(info, request, upstream)
        try:
            body = await upstream.read()  # read to the end, the connection goes back to the pool
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as e:
            upstream.close()
            return self._unreachable(e)
        if writes and 200 <= upstream.status < 300:
            # a binding's result is computed, not read: a read would let the pod's watch event
            # reach the client before the journal has the binding
            after = _bound(before, info) if info.subresource == "binding" else await self._after(info, body)
            info.extra["effect"] = Effect(before, after)
        if upstream.status == 201 and info.verb == "create" and not info.subresource:
            self._lag.created(info, body, started)  # the request's start: no later than its watch events
        elif upstream.status == 200 and info.verb == "list":
            body = self._lag.visible(info, body, self.now())
        return web.Response(status=upstream.status, reason=upstream.reason, body=body,
                            headers=_answer_headers(upstream.headers))

    async def _after(self, info: RequestInfo, body: bytes) -> dict[str, Any] | None:
        """The object a successful write left: its answer when that is the object, else a GET."""
        try:
            answer = json.loads(body)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and answer.get("kind") not in (None, "Status") and not info.subresource == "binding":
            if info.verb == "delete" and not kept_after_delete(answer):
                # answered with the deleted object (a grace-0 delete's answer is marked too): GET tells if it is gone
                return await self._object(info)
            return answer
        if not info.name:
            return None
        return await self._object(info)

    async def _stream(self, info: RequestInfo, request: web.Request,
                      upstream: aiohttp.ClientResponse) -> web.StreamResponse:
        """Relay a watch line by line: each event is held until it is due (its receipt plus the
        kind's lag), shown to ``on_events`` and written. Ends when the upstream ends (after the
        held events), at ``end_watch_after``, when the proxy stops or when the client leaves."""
        response = web.StreamResponse(status=200, headers=_answer_headers(upstream.headers))
        response.enable_chunked_encoding()
        await response.prepare(request)
        on_events: Callable[[list[WatchEvent]], None] | None = info.extra.get("on_events")
        after = info.extra.get("end_watch_after")
        end = math.inf if after is None else self.now() + float(after)
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        self._streams.add(queue)
        reader = asyncio.create_task(self._read(info, upstream, queue))
        held: deque[_Held] = deque()
        ended = False
        try:
            while True:
                now = self.now()
                while held and held[0][0] <= now < end:
                    _, line, event = held.popleft()
                    if event is not None and on_events is not None:
                        on_events([event])
                    await response.write(line)
                if now >= end or (ended and not held):
                    break
                wake = min(end, held[0][0] if held else math.inf) - now
                try:
                    item = await asyncio.wait_for(queue.get(), None if wake == math.inf else wake)
                except asyncio.TimeoutError:
                    continue
                if item == "stop":
                    break
                if item == "end":
                    ended = True
                elif isinstance(item, tuple):
                    held.append(item)
        except ConnectionResetError:  # the client left
            return response
        finally:
            self._streams.discard(queue)
            reader.cancel()
            upstream.close()
            await asyncio.gather(reader, return_exceptions=True)
        with contextlib.suppress(ConnectionResetError):
            await response.write_eof()
        return response

    async def _read(self, info: RequestInfo, upstream: aiohttp.ClientResponse, queue: asyncio.Queue[_Item]) -> None:
        """Split the upstream's stream into lines, stamp each with when it is due, queue it."""
        buffer = bytearray()

        def put(line: bytes) -> None:
            event = _event(line)
            lag, on_hold = self._lag.of(info)
            if lag > 0 and on_hold is not None and event is not None and event.type in _CHANGES:
                on_hold()
            queue.put_nowait((self.now() + lag, line, event))

        try:
            async for chunk in upstream.content.iter_any():
                buffer += chunk
                while (cut := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:cut + 1])
                    del buffer[:cut + 1]
                    if line.strip():
                        put(line)
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
            pass  # the upstream broke the stream: end it for the client too
        if buffer.strip():
            put(bytes(buffer) + b"\n")
        queue.put_nowait("end")
