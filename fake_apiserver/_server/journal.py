"""The request journal: every request and every watch event delivered, in order.

A scenario's verdict is read from the journal ("exactly one status PATCH of pod p, at t=5"), and
its determinism is checked on it: the same scenario and seed must give the same journal byte for
byte. So an entry holds only what is deterministic under virtual time: the loop's time (never the
machine clock), the request as the server parsed it (verb, path, sorted query, content type,
decoded body) and the answer (code, reason). Headers are left out: clients put host names,
ports and versions there.

Watch events are journaled per watcher, as they are written to the stream, with the ``seq`` of
the watch request that opened the stream, so "what did the scheduler's informer see, and when"
is a query too.

A write carries its effect (:mod:`fake_apiserver._storage.effects`): ``before`` and ``after``, the object
as it was just before the write and as it was stored by it, with ``effect="applied"``. A write a
fault rule refused carries the effect it would have had when a rule asked for a preview, with
``effect="intended"``. Criteria read these, never the body's shape.

Recording costs a request little: the journal appends a tuple of what it was given (the request's
info, its times, its answer's code), and makes those into :class:`JournalEntry` objects the first
time it is read after; a request's body is decoded when its entry's ``body`` is first read. What a
tuple holds does not change after it is appended (the request is answered, stored objects are never
changed), so an entry reads the same whenever it is made, and a server under load that nobody reads
(``schedharness serve``, a benchmark) makes no entries at all.

A scenario reads its whole journal, so by default the journal keeps everything. A long-running
server (``schedharness serve``) cannot: under an hour of scheduler load it would grow without end.
``Journal(limit=N)`` keeps a *window*, the N most recent entries, in a ring buffer (a
``collections.deque``: appending to a full one costs the same as to an empty one, where trimming a
list would move every kept entry on each request). Entries keep their ``seq``, which is never
reused, so a reader that remembers the last seq it read asks for :meth:`Journal.since` that seq
and learns from :attr:`Journal.first_seq` whether it missed some; :attr:`Journal.dropped` counts
what left the window. The trade-off: in a bounded journal :attr:`Journal.entries` is a copy of the
window, made on each read, and a position in it is no longer ``seq - 1``. In the default unbounded
journal ``entries`` is the list itself and ``entries[k]`` has seq ``k + 1``, as the harness's
scenarios assume when they slice ``entries[len(journal):]``.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from itertools import islice
from typing import Any, Callable, Iterable, Iterator, cast

import yaml
from aiohttp import web

from fake_apiserver._machinery import goyaml
from fake_apiserver._machinery.patch import APPLY_PATCH_YAML
from fake_apiserver._storage.effects import Effect, current_request, is_write
from fake_apiserver._endpoints.request import Handler, HttpRequest, RequestInfo
from fake_apiserver._machinery.protobuf import body_json
from fake_apiserver._storage.watch import WatchEvent

__all__ = ["Journal", "JournalEntry", "request_body"]


@dataclass(frozen=True)
class JournalEntry:
    """One line of the journal. ``type`` is ``request`` or ``watch-event``.

    For a request: ``verb``, ``resource`` (``pods``, ``resourceclaims.resource.k8s.io``),
    ``subresource``, ``namespace``, ``name``, ``path``, ``query``, ``content_type``, ``body``
    (decoded JSON when it parses, else text), ``code`` and ``reason`` (the ``Status`` reason of an
    error, ``""`` on success), and ``fault`` (the name of the fault rule that answered, if any).
    For a watch event: ``watch`` (the seq of the watch request), ``event`` (ADDED, MODIFIED,
    DELETED, BOOKMARK, ERROR), ``resource``, ``namespace``, ``name`` and ``rv`` of the object.
    A write also has ``before``/``after`` and ``effect`` (``applied``, ``intended`` or ``""``:
    module docstring).
    """

    seq: int
    time: float
    type: str
    verb: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    query: dict[str, str] = field(default_factory=dict)
    content_type: str = ""
    body: Any = None
    code: int = 0
    reason: str = ""
    fault: str = ""
    watch: int = 0
    event: str = ""
    rv: str = ""
    object: Any = None
    before: Any = None
    after: Any = None
    effect: str = ""

    @property
    def applied(self) -> bool:
        """The write was stored: ``before``/``after`` are what it did."""
        return self.effect == "applied"

    def to_json(self) -> str:
        """One JSON line, keys sorted, empty fields left out."""
        data = {}
        for name in _FIELDS:
            value = getattr(self, name)
            if value not in ("", None, 0, {}) or name in ("seq", "time"):
                data[name] = value
        data["time"] = round(self.time, 6)
        return json.dumps(data, sort_keys=True, separators=(",", ":"))


class _DecodedWhenRead:
    """``JournalEntry.body`` of a recorded request, kept as its bytes until it is first read (most
    entries of a server under load never are), then as the value they decode to, in the entry's
    own ``__dict__`` (which a non-data descriptor's instance value wins over). The bytes never
    change and decode as they would have when recorded (:func:`_decode_body`), so a journal reads
    the same whenever it is read. Set on the class after the dataclass is made, whose ``__init__``
    keeps the field's default (``None``)."""

    def __get__(self, entry: JournalEntry | None, owner: type | None = None) -> Any:
        if entry is None:
            return None
        state = entry.__dict__
        body, content_type = state.pop("_raw_body", (b"", ""))
        state["body"] = value = _decode_body(body, content_type)
        return value


JournalEntry.body = _DecodedWhenRead()
_FIELDS = tuple(f.name for f in fields(JournalEntry))
_DEFAULTS = {f.name: f.default for f in fields(JournalEntry) if f.default is not MISSING}


def _entry(**values: Any) -> JournalEntry:
    """A :class:`JournalEntry` as its constructor makes it, for a few microseconds less on every
    request: a frozen dataclass's ``__init__`` sets each of its 21 fields through
    ``object.__setattr__``, here they go into the instance's dict at once. Every field without a
    default (``seq``, ``time``, ``type``, ``query``) must be given."""
    entry = object.__new__(JournalEntry)
    state = entry.__dict__
    state.update(_DEFAULTS)
    state.update(values)
    if "_raw_body" in values:  # decoded when first read (_DecodedWhenRead)
        del state["body"]
    return entry


def _reason_of(response: web.StreamResponse) -> str:
    """The ``Status`` reason of an error answer, ``""`` otherwise."""
    if response.status < 400 or not isinstance(response, web.Response) or not response.body:
        return ""
    try:
        return str(json.loads(bytes(response.body)).get("reason", ""))  # type: ignore[arg-type]
    except (ValueError, AttributeError, TypeError):
        return ""


def _answered_object(response: web.StreamResponse) -> dict[str, Any] | None:
    """The object a write answered with (not a ``Status``), or ``None``."""
    if not isinstance(response, web.Response) or not response.body:
        return None
    try:
        obj = json.loads(bytes(response.body))  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return None
    return obj if isinstance(obj, dict) and obj.get("kind") not in (None, "Status") else None


def request_body(body: bytes, content_type: str) -> Any:
    """A request's body as the JSON value it stands for, for what records or matches requests:
    :func:`~fake_apiserver._machinery.protobuf.body_json`, except that a server-side apply's body
    is read as YAML, which it may be (kubectl and client-go send JSON, itself YAML; a hand-written
    apply often does not). ``ValueError`` when it cannot be read."""
    try:
        return body_json(body, content_type)
    except ValueError:
        if content_type.split(";", 1)[0].strip().lower() != APPLY_PATCH_YAML:
            raise
        try:
            return goyaml.load(body)
        except yaml.YAMLError as e:
            raise ValueError(f"not a YAML document: {e}") from e


def _decode_body(body: bytes, content_type: str) -> Any:
    if not body:
        return None
    try:  # a protobuf body is recorded as the JSON it decodes to, an apply's YAML as its value
        return request_body(body, content_type)
    except (ValueError, UnicodeDecodeError):
        return body.decode("utf-8", "replace")


# What the journal appends as a request is answered or an event written: a tuple, made into its
# JournalEntry when the journal is next read (Journal._settled). Everything a record holds is as
# it was when recorded: the request's info is done with (nothing writes it after its answer), its
# effect's objects are stored ones (never changed), an event's object is what the watcher got.
_REQUEST, _EVENT = "request", "watch-event"
_Record = tuple[Any, ...]


def _request_entry(seq: int, start: float, info: RequestInfo, code: int, reason: str, fault: str) -> JournalEntry:
    effect, kind = info.extra.get("effect"), "applied"
    if not isinstance(effect, Effect) or not 200 <= code < 300:
        effect, kind = (info.extra.get("preview"), "intended") if fault else (None, "")
    if not isinstance(effect, Effect):
        effect, kind = None, ""
    return _entry(
        seq=seq,
        time=start,
        type=_REQUEST,
        verb=info.verb or info.method.lower(),
        resource=info.group_resource,
        subresource=info.subresource,
        namespace=info.namespace,
        name=info.name,
        path=info.path,
        query=dict(sorted(info.query.items())),
        content_type=info.content_type,
        _raw_body=(info.body, info.content_type),
        code=code,
        reason=reason,
        fault=fault,
        before=effect.before if effect is not None else None,
        after=effect.after if effect is not None else None,
        effect=kind,
    )


def _event_entry(seq: int, now: float, watch_seq: int, info: RequestInfo, ev: WatchEvent, keep_object: bool) -> JournalEntry:
    meta = ev.object.get("metadata", {}) if isinstance(ev.object, dict) else {}
    return _entry(
        seq=seq,
        query={},
        time=now,
        type=_EVENT,
        watch=watch_seq,
        event=ev.type,
        resource=info.group_resource,
        namespace=str(meta.get("namespace", "")),
        name=str(meta.get("name", "")),
        rv=str(meta.get("resourceVersion", "")),
        object=ev.object if keep_object else None,
    )


def _made(record: _Record) -> JournalEntry:
    if record[0] is _REQUEST:
        return _request_entry(*record[1:])
    return _event_entry(*record[1:])


class Journal:
    """An interceptor that records, plus queries over what it recorded.

    ``time`` gives the journal's clock (default: the running loop's time, which is virtual under
    the harness). Put it first among a server's interceptors so that it also records what fault
    rules answered. ``limit`` keeps only that many most recent entries, requests and watch events
    alike (default ``None``: all of them; module docstring).
    """

    def __init__(
        self, time: Callable[[], float] | None = None, *, keep_watch_objects: bool = False, limit: int | None = None,
    ) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"journal limit must be at least 1 entry, got {limit}: pass None to keep every entry")
        self._time = time
        self.limit = limit
        self._entries: list[JournalEntry | _Record] | deque[JournalEntry | _Record] = (
            [] if limit is None else deque(maxlen=limit))
        self._records = 0  # how many of the newest held are records still (module docstring)
        self.dropped = 0
        """How many entries left a bounded journal's window (always 0 when unbounded)."""
        self.keep_watch_objects = keep_watch_objects

    def _settled(self) -> list[JournalEntry] | deque[JournalEntry]:
        """The entries held, the records among the newest made entries first. What a reader put
        in :attr:`entries` itself is an entry already, passed over."""
        entries = self._entries
        left, i = min(self._records, len(entries)), len(entries)
        self._records = 0
        if isinstance(entries, deque):  # no reader appends to a window: its records are its tail,
            tail = [entries.pop() for _ in range(left)]  # taken off and put back (a deque's middle indexes slowly)
            entries.extend(_made(r) if type(r) is tuple else r for r in reversed(tail))
            return cast("deque[JournalEntry]", entries)
        while left and i:
            i -= 1
            record = entries[i]
            if type(record) is tuple:
                entries[i] = _made(record)
                left -= 1
        return cast("list[JournalEntry]", entries)

    @property
    def entries(self) -> list[JournalEntry]:
        """The entries held, oldest first: the list itself when unbounded (``entries[k]`` has seq
        ``k + 1``), a copy of the window when bounded (module docstring)."""
        entries = self._settled()
        if isinstance(entries, list):
            return entries
        return list(entries)

    @property
    def last_seq(self) -> int:
        """The seq of the newest entry ever recorded (0 before the first)."""
        return self.dropped + len(self._entries)

    @property
    def first_seq(self) -> int:
        """The seq of the oldest entry held (``last_seq + 1`` when none is held)."""
        return self.dropped + 1

    def since(self, seq: int) -> list[JournalEntry]:
        """The entries held with a seq above ``seq``, oldest first. Entries after ``seq`` that
        already left the window are missing: compare ``seq`` with :attr:`first_seq`."""
        entries = self._settled()
        count = max(0, self.last_seq - max(seq, 0))
        if count >= len(entries):
            return list(entries)
        return list(islice(reversed(entries), count))[::-1]

    def now(self) -> float:
        if self._time is not None:
            return self._time()
        return asyncio.get_running_loop().time()

    def _append(self, record: _Record) -> None:
        if self.limit is not None and len(self._entries) == self.limit:
            self.dropped += 1  # the deque drops its oldest entry to make room
        self._entries.append(record)
        self._records += 1

    def _replace(self, seq: int, **changes: Any) -> None:
        """Change the entry ``seq`` if the window still holds it."""
        entries = self._settled()
        index = seq - self.first_seq
        if 0 <= index < len(entries):
            entries[index] = replace(entries[index], **changes)

    async def __call__(self, info: RequestInfo, request: HttpRequest, call_next: Handler) -> web.StreamResponse:
        start = self.now()
        if info.verb == "watch":
            seq = self._record_request(info, start, 200, "")
            info.extra["on_events"] = lambda events: self._record_events(seq, info, events)
            response = await call_next(info, request)
            if response.status != 200:  # refused before streaming: keep the real answer
                self._replace(seq, code=response.status, reason=_reason_of(response),
                              fault=str(info.extra.get("fault", "")))
            return response
        if is_write(info):
            token = current_request.set(info)
            try:
                response = await call_next(info, request)
            finally:
                current_request.reset(token)
            if "effect" not in info.extra and 200 <= response.status < 300:
                unchanged = _answered_object(response)  # a no-op write commits nothing: the object is as it was
                if unchanged is not None:
                    info.extra["effect"] = Effect(unchanged, unchanged)
        else:
            response = await call_next(info, request)
        code = response.status
        fault = info.extra.get("fault")
        self._record_request(info, start, code, _reason_of(response) if code >= 400 else "",
                             fault=str(fault) if fault is not None else "")
        return response

    def _record_request(self, info: RequestInfo, start: float, code: int, reason: str, fault: str = "") -> int:
        entries = self._entries
        seq = self.dropped + len(entries) + 1
        if self.limit is not None and len(entries) == self.limit:
            self.dropped += 1  # the deque drops its oldest entry to make room
        entries.append((_REQUEST, seq, start, info, code, reason, fault))
        self._records += 1
        return seq

    def record_closed(self, info: RequestInfo, fault: str) -> None:
        """A request whose connection a fault rule closed: code 0, reason ``ConnectionClosed``."""
        self._record_request(info, self.now(), 0, "ConnectionClosed", fault=fault)

    def _record_events(self, watch_seq: int, info: RequestInfo, events: Iterable[WatchEvent]) -> None:
        now, keep = self.now(), self.keep_watch_objects
        for ev in events:
            self._append((_EVENT, self.dropped + len(self._entries) + 1, now, watch_seq, info, ev, keep))

    # ------------------------------------------------------------------ queries

    def __iter__(self) -> Iterator[JournalEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        """The entries held: equal to :attr:`last_seq` only while none was dropped."""
        return len(self._entries)

    def requests(
        self,
        verb: str | None = None,
        resource: str | None = None,
        *,
        subresource: str | None = None,
        namespace: str | None = None,
        name: str | None = None,
        code: int | None = None,
        where: Callable[[JournalEntry], bool] | None = None,
    ) -> list[JournalEntry]:
        """Requests matching every given field (``None`` matches anything)."""
        out = []
        for e in self._settled():
            if e.type != "request":
                continue
            if verb is not None and e.verb != verb:
                continue
            if resource is not None and e.resource != resource:
                continue
            if subresource is not None and e.subresource != subresource:
                continue
            if namespace is not None and e.namespace != namespace:
                continue
            if name is not None and e.name != name:
                continue
            if code is not None and e.code != code:
                continue
            if where is not None and not where(e):
                continue
            out.append(e)
        return out

    def status_patches(self, pod: str, namespace: str = "default") -> list[JournalEntry]:
        """Every ``PATCH pods/<pod>/status``, with its body and answer."""
        return self.requests("patch", "pods", subresource="status", namespace=namespace, name=pod)

    def watch_events(
        self, resource: str | None = None, *, name: str | None = None, event: str | None = None,
        watch: int | None = None,
    ) -> list[JournalEntry]:
        out = []
        for e in self._settled():
            if e.type != "watch-event":
                continue
            if resource is not None and e.resource != resource:
                continue
            if name is not None and e.name != name:
                continue
            if event is not None and e.event != event:
                continue
            if watch is not None and e.watch != watch:
                continue
            out.append(e)
        return out

    def to_jsonl(self, since: int = 0) -> str:
        """The entries held with a seq above ``since`` (default: all), one JSON line each."""
        return "".join(e.to_json() + "\n" for e in (self.since(since) if since else self._settled()))

    def write(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.to_jsonl())
        return p

    def format(self, entries: Iterable[JournalEntry] | None = None, limit: int = 40) -> str:
        """A readable slice for failure messages: one line an entry."""
        rows = list(self.entries if entries is None else entries)
        lines = []
        for e in rows[-limit:]:
            if e.type == "request":
                where = "/".join(x for x in (e.namespace, e.name) if x)
                sub = f"/{e.subresource}" if e.subresource else ""
                body = json.dumps(e.body, separators=(",", ":"))[:160] if e.body is not None else ""
                tag = f" [fault {e.fault}]" if e.fault else ""
                lines.append(f"t={e.time:9.3f} #{e.seq} {e.verb.upper()} {e.resource}{sub} {where} -> {e.code} {e.reason}{tag} {body}".rstrip())
            else:
                lines.append(f"t={e.time:9.3f} #{e.seq} watch#{e.watch} {e.event} {e.resource} {e.namespace}/{e.name} rv={e.rv}")
        if len(rows) > limit:
            lines.insert(0, f"... {len(rows) - limit} earlier entries")
        if entries is None and self.dropped:
            lines.insert(0, f"... {self.dropped} entries before #{self.first_seq} dropped (journal limit {self.limit})")
        return "\n".join(lines)
