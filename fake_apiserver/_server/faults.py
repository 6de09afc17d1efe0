"""Fault injection: rules that make the server misbehave on exactly the requests they name.

A :class:`FaultRule` is a :class:`Match` (verb, group/resource, subresource, namespace, name,
content type, a predicate on the decoded body, and a predicate on the write's *effect*), an
action and a firing policy:

* actions: :class:`Respond` (answer a ``Status`` with any code, e.g. 500, 503, 429 with
  ``Retry-After``, 409, 422), :class:`Delay` (hold the request for virtual seconds, then serve
  it), :class:`CloseConnection` (drop the connection without an answer), :class:`EndWatch`
  (accept a watch and end it after some seconds), :class:`WatchLag` (objects of a kind become
  visible to LIST and WATCH seconds after they are written: the scheduler's informer sees a
  ResourceClaim late while a GET sees it at once);
* firing: the first ``times`` matches, every ``every``-th match, only inside ``[start, until)`` of
  the server's loop time, and/or with ``probability`` drawn from the injector's seeded RNG.

A rule that should refuse "the write that would set this condition", whatever verb and patch type
carries it, matches on ``effect`` (an :class:`~fake_apiserver._storage.effects.EffectPredicate` such as
``sets_condition("PodScheduled", reason="NotReadyForScheduling")``): the injector asks the server
for a preview of the write (a dry run, :mod:`fake_apiserver._storage.effects`) and fires only when the
predicate holds for the object before and after. The body predicate stays for what only the
request says (a header-like field, a malformed body); criteria use effects.

Strict by default: :meth:`FaultInjector.unfired` lists rules that never fired and
:meth:`FaultInjector.check` raises :class:`UnfiredFaults` for them, because a fault that never
fired means the scenario did not test what it says.

Rules also travel as JSON (:meth:`FaultRule.from_dict`), for the admin path of
``schedharness serve``; there the body predicate is ``body_contains``, a JSON subset match.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence, Union

from aiohttp import web

from fake_apiserver._storage.effects import Effect, EffectPredicate, Previewer, is_write
from fake_apiserver._machinery.errors import BY_CODE, StatusError
from fake_apiserver._endpoints.request import AdminRequest, AdminRoute, Handler, HttpRequest, RequestInfo
from fake_apiserver._endpoints.responses import json_response
from fake_apiserver._machinery.kindspec import KindSpec
from fake_apiserver._server.journal import request_body

__all__ = [
    "CloseConnection",
    "Delay",
    "EndWatch",
    "FaultInjector",
    "FaultRule",
    "LagTarget",
    "Match",
    "Respond",
    "UnfiredFaults",
    "WatchLag",
    "body_contains",
]


def body_contains(expected: Any) -> Callable[[Any], bool]:
    """A body predicate: ``expected`` is a JSON subset of the body (maps by key, lists by some
    element matching each expected element). ``{"status": {"conditions": [{"reason":
    "NotReadyForScheduling"}]}}`` matches a status patch that sets that reason."""

    def subset(want: Any, have: Any) -> bool:
        if isinstance(want, dict):
            return isinstance(have, dict) and all(k in have and subset(v, have[k]) for k, v in want.items())
        if isinstance(want, list):
            return isinstance(have, list) and all(any(subset(w, h) for h in have) for w in want)
        return bool(want == have)

    return lambda body: subset(expected, body)


@dataclass(frozen=True)
class Match:
    """Which requests a rule applies to; ``None`` matches anything. ``resource`` is the plain
    resource name (``pods``) or ``resource.group`` (``resourceclaims.resource.k8s.io``)."""

    verb: str | None = None
    resource: str | None = None
    subresource: str | None = None
    namespace: str | None = None
    name: str | None = None
    content_type: str | None = None
    body: Callable[[Any], bool] | None = None
    effect: EffectPredicate | None = None

    def matches(self, info: RequestInfo) -> bool:
        """Every field but ``effect`` (which needs a preview: :meth:`FaultInjector.matches`)."""
        if self.verb is not None and info.verb != self.verb:
            return False
        if self.resource is not None and self.resource not in (info.resource, info.group_resource):
            return False
        if self.subresource is not None and info.subresource != self.subresource:
            return False
        if self.namespace is not None and info.namespace != self.namespace:
            return False
        if self.name is not None and info.name != self.name:
            return False
        if self.content_type is not None and info.content_type.split(";")[0].strip() != self.content_type:
            return False
        if self.body is not None:
            try:
                decoded = request_body(info.body, info.content_type) if info.body else None
            except ValueError:
                return False
            if not self.body(decoded):
                return False
        return True


@dataclass(frozen=True)
class Respond:
    """Answer with a ``Status`` of this code (reason and default message from the code)."""

    code: int
    message: str | None = None
    reason: str | None = None
    retry_after: int | None = None

    def error(self, info: RequestInfo) -> StatusError:
        cls = BY_CODE.get(self.code, StatusError)
        message = self.message or f"injected fault: {self.code} for {info.verb} {info.group_resource}"
        headers = {"Retry-After": str(self.retry_after)} if self.retry_after is not None else None
        err = cls(message, headers=headers)
        if cls is StatusError or self.reason:
            err.code = self.code
            err.reason = self.reason or err.reason
        if self.retry_after is not None:
            err.details = {"retryAfterSeconds": self.retry_after}
        return err


@dataclass(frozen=True)
class Delay:
    """Serve the request after ``seconds`` of (virtual) time."""

    seconds: float


@dataclass(frozen=True)
class CloseConnection:
    """Close the connection without answering."""


@dataclass(frozen=True)
class EndWatch:
    """Accept a matching watch, then end its stream after ``after`` seconds."""

    after: float = 0.0


@dataclass(frozen=True)
class WatchLag:
    """Objects of the matched kind reach LIST and WATCH ``seconds`` after they are written."""

    seconds: float


Action = Union[Respond, Delay, CloseConnection, EndWatch, WatchLag]


@dataclass
class FaultRule:
    """A match, an action and a firing policy; ``fired`` and ``matched`` count what happened."""

    match: Match
    action: Action
    name: str = ""
    times: int | None = None
    every: int | None = None
    start: float | None = None
    until: float | None = None
    probability: float | None = None
    matched: int = 0
    fired: int = 0
    fired_at: list[float] = field(default_factory=list)

    def describe(self) -> str:
        m = self.match
        parts = [f"{k}={v}" for k, v in (("verb", m.verb), ("resource", m.resource), ("subresource", m.subresource),
                                          ("namespace", m.namespace), ("name", m.name),
                                          ("content_type", m.content_type)) if v is not None]
        if m.body is not None:
            parts.append("body=<predicate>")
        if m.effect is not None:
            parts.append(f"effect=<{m.effect.description}>")
        return f"{self.name or 'rule'}: {type(self.action).__name__}{_fields(self.action)} on {' '.join(parts) or 'any request'}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rule": self.describe(), "matched": self.matched, "fired": self.fired,
                "firedAt": [round(t, 6) for t in self.fired_at]}

    @classmethod
    def from_dict(cls, data: Any) -> FaultRule:
        """The JSON form used by the admin path: ``{"name", "match": {...,"body_contains": {...}},
        "action": {"type": "respond"|"delay"|"close"|"end-watch"|"watch-lag", ...}, "times", "every",
        "start", "until", "probability"}``. Strict: an unknown key or a value of the wrong type is a
        ``ValueError`` that names the key and says what to give."""
        if not isinstance(data, dict):
            raise ValueError(f"a fault rule is a mapping of {', '.join(_RULE_KEYS)}, got {data!r}")
        _known("", data, _RULE_KEYS)
        m = data.get("match") or {}
        if not isinstance(m, dict):
            raise ValueError(f"match {m!r}: give a mapping of any of {', '.join(_MATCH_KEYS)}")
        m = dict(m)
        _known("match: ", m, _MATCH_KEYS)
        for key in _MATCH_KEYS[:-1]:
            _check(f"match: {key}", m.get(key), "a string", lambda v: isinstance(v, str))
        body = m.pop("body_contains", None)
        match = Match(body=body_contains(body) if body is not None else None,
                      **{k: m[k] for k in ("verb", "resource", "subresource", "namespace", "name", "content_type") if k in m})
        a = data.get("action") or {}
        if not isinstance(a, dict):
            raise ValueError(f"action {a!r}: give a mapping with a type: {', '.join(_ACTIONS)}")
        kind = a.get("type", "")
        if kind not in _ACTIONS:
            raise ValueError(f"unknown fault action type {kind!r}: use respond, delay, close, end-watch or watch-lag")
        required, optional = _ACTIONS[kind]
        _known(f"action {kind}: ", a, ("type", *required, *optional))
        missing = [key for key in required if key not in a]
        if missing:
            raise ValueError(f"action {kind}: missing {', '.join(missing)}")
        _check(f"action {kind}: code", a.get("code"), "an HTTP status code, 100 to 599",
               lambda v: _whole(v) and 100 <= v <= 599)
        for key in ("message", "reason"):
            _check(f"action {kind}: {key}", a.get(key), "a string", lambda v: isinstance(v, str))
        _check(f"action {kind}: retry_after", a.get("retry_after"), "a whole number of seconds, 0 or more", _whole)
        for key in ("seconds", "after"):
            _check(f"action {kind}: {key}", a.get(key), "seconds, 0 or more", _seconds)
        action: Action
        if kind == "respond":
            action = Respond(a["code"], a.get("message"), a.get("reason"), a.get("retry_after"))
        elif kind == "delay":
            action = Delay(float(a["seconds"]))
        elif kind == "close":
            action = CloseConnection()
        elif kind == "end-watch":
            action = EndWatch(float(a.get("after", 0.0)))
        else:
            action = WatchLag(float(a["seconds"]))
        _check("name", data.get("name"), "a string", lambda v: isinstance(v, str))
        for key in ("times", "every"):
            _check(key, data.get(key), "a whole number, 1 or more", lambda v: _whole(v) and v >= 1)
        for key in ("start", "until"):
            _check(key, data.get(key), "seconds, 0 or more", _seconds)
        _check("probability", data.get("probability"), "a number from 0 to 1", lambda v: _seconds(v) and v <= 1)
        return cls(match, action, name=str(data.get("name", "")), times=data.get("times"), every=data.get("every"),
                   start=data.get("start"), until=data.get("until"), probability=data.get("probability"))


_RULE_KEYS = ("name", "match", "action", "times", "every", "start", "until", "probability")
_MATCH_KEYS = ("verb", "resource", "subresource", "namespace", "name", "content_type", "body_contains")
#: each action type's required and optional keys
_ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "respond": (("code",), ("message", "reason", "retry_after")), "delay": (("seconds",), ()), "close": ((), ()),
    "end-watch": ((), ("after",)), "watch-lag": (("seconds",), ()),
}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")


def _known(where: str, data: dict[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(data) - set(allowed), key=str)
    if unknown:
        raise ValueError(f"{where}unknown key {', '.join(map(str, unknown))}; allowed: {', '.join(allowed)}")


def _check(key: str, value: Any, what: str, test: Callable[[Any], bool]) -> None:
    """A ``ValueError`` when ``value`` is given (not None) and fails ``test``."""
    if value is not None and not test(value):
        raise ValueError(f"{key} {value!r}: give {what}")


def _fields(action: Action) -> str:
    values = [f"{v}" for v in vars(action).values()] if hasattr(action, "__dict__") else []
    return f"({', '.join(values)})" if values else "()"


class LagTarget(Protocol):
    """What :class:`WatchLag` rules act on: the served kinds and a per-kind lag. The fake's
    :class:`~fake_apiserver._storage.store.Store` is one; the fault proxy, which has no store, has its own."""

    @property
    def kinds(self) -> Sequence[KindSpec]: ...

    def set_watch_lag(self, spec: KindSpec, seconds: float, *, on_hold: Callable[[], None] | None = None) -> None: ...


class UnfiredFaults(AssertionError):
    """Raised by :meth:`FaultInjector.check` when some rules never fired."""


class FaultInjector:
    """The rules of one server, applied as an interceptor (put it after the journal).

    ``store`` is where :class:`WatchLag` rules take effect: the fake's store, or any other
    :class:`LagTarget` (the fault proxy's)."""

    def __init__(self, store: LagTarget, *, seed: int = 0, time: Callable[[], float] | None = None) -> None:
        self.store = store
        self.rules: list[FaultRule] = []
        self._rng = random.Random(seed)
        self._time = time
        self._ids = itertools.count(1)
        self.on_close: Callable[[RequestInfo, str], None] | None = None
        #: what a write would do (the fake's dry run, the proxy's ``dryRun=All``); rules with an
        #: ``effect`` never fire without it
        self.preview: Previewer | None = None

    def now(self) -> float:
        return self._time() if self._time is not None else asyncio.get_running_loop().time()

    def add(self, rule: FaultRule) -> FaultRule:
        if not rule.name:
            rule.name = f"fault-{next(self._ids)}"
        if isinstance(rule.action, WatchLag):
            spec = self._lag_spec(rule)
            self.store.set_watch_lag(spec, rule.action.seconds, on_hold=lambda: self._fire(rule))
        self.rules.append(rule)
        return rule

    def _lag_spec(self, rule: FaultRule) -> Any:
        resource = rule.match.resource or ""
        name, _, group = resource.partition(".")
        for spec in self.store.kinds:
            if spec.resource == name and spec.group == group:
                return spec
        raise ValueError(f"watch lag needs a served resource, got {resource!r}")

    def remove(self, rule: FaultRule) -> None:
        self.rules.remove(rule)
        if isinstance(rule.action, WatchLag):
            self.store.set_watch_lag(self._lag_spec(rule), 0.0)

    def clear(self) -> None:
        for rule in list(self.rules):
            self.remove(rule)

    def unfired(self) -> list[FaultRule]:
        return [r for r in self.rules if r.fired == 0]

    def check(self) -> None:
        """Strict mode: every rule must have fired at least once."""
        unfired = self.unfired()
        if unfired:
            raise UnfiredFaults(
                "fault rules that never fired (the scenario did not exercise them):\n"
                + "\n".join(f"  {r.describe()}" for r in unfired)
            )

    def _fire(self, rule: FaultRule) -> None:
        rule.fired += 1
        rule.fired_at.append(self.now())

    def _should_fire(self, rule: FaultRule) -> bool:
        rule.matched += 1
        now = self.now()
        if rule.start is not None and now < rule.start:
            return False
        if rule.until is not None and now >= rule.until:
            return False
        if rule.times is not None and rule.fired >= rule.times:
            return False
        if rule.every is not None and rule.matched % rule.every != 0:
            return False
        if rule.probability is not None and self._rng.random() >= rule.probability:
            return False
        return True

    async def matches(self, rule: FaultRule, info: RequestInfo) -> bool:
        """``rule``'s match holds for ``info``, its effect predicate included (the preview is
        asked once per request and kept in ``info.extra["preview"]`` for the journal)."""
        if not rule.match.matches(info):
            return False
        if rule.match.effect is None:
            return True
        if not is_write(info) or self.preview is None:
            return False
        if "preview" not in info.extra:
            info.extra["preview"] = await self.preview(info)
        effect = info.extra["preview"]
        return isinstance(effect, Effect) and rule.match.effect(effect.before, effect.after)

    async def __call__(self, info: RequestInfo, request: HttpRequest, call_next: Handler) -> web.StreamResponse:
        for rule in list(self.rules):
            if isinstance(rule.action, WatchLag) or not await self.matches(rule, info):
                continue
            if isinstance(rule.action, EndWatch) and info.verb != "watch":
                continue
            if not self._should_fire(rule):
                continue
            self._fire(rule)
            info.extra["fault"] = rule.name
            action = rule.action
            if isinstance(action, Respond):
                err = action.error(info)
                return json_response(err.to_status(), err.code, err.headers or None)
            if isinstance(action, Delay):
                await asyncio.sleep(action.seconds)
                continue
            if isinstance(action, CloseConnection):
                if self.on_close is not None:
                    self.on_close(info, rule.name)
                if request.transport is not None:
                    request.transport.close()
                raise asyncio.CancelledError()
            if isinstance(action, EndWatch):
                info.extra["end_watch_after"] = action.after
        return await call_next(info, request)

    # ------------------------------------------------------------------ admin path

    def admin_routes(self, prefix: str = "/schedharness/v1") -> dict[tuple[str, str], AdminRoute]:
        """``GET/POST/DELETE {prefix}/faults`` (a path outside ``/api`` and ``/apis``), by method and path."""

        async def list_rules(request: AdminRequest) -> web.Response:
            return json_response({"rules": [r.to_dict() for r in self.rules]})

        async def add_rule(request: AdminRequest) -> web.Response:
            try:
                rule = FaultRule.from_dict(await request.json())
                self.add(rule)
            except (ValueError, KeyError, TypeError) as e:
                return json_response({"error": str(e)}, 400)
            return json_response(rule.to_dict(), 201)

        async def clear_rules(request: AdminRequest) -> web.Response:
            self.clear()
            return json_response({"rules": []})

        path = f"{prefix}/faults"
        return {("GET", path): list_rules, ("POST", path): add_rule, ("DELETE", path): clear_rules}

